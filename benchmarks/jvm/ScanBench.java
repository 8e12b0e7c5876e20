import java.io.FileInputStream;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import coordscope.spark.CandidateFilter;
import coordscope.spark.SplitScanner;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.types.DataType;

/**
 * The split scanner alone, outside Spark, against reading the same bytes and counting newlines
 * (what a bare count must do at least), in the same JVM and run. Driven by ../scanner_bench.py,
 * which passes the filter's arguments (as the job builds them) in a NUL-separated file:
 *   words... NUL NUL rest NUL anchored NUL continuation NUL maxChars NUL handoverMax NUL ddl
 * Usage: ScanBench ARGS_FILE SPLIT_BYTES ROUNDS FILE...
 * Times are the benchmark thread's CPU time (ThreadMXBean): the machine is shared.
 */
public final class ScanBench {
    static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

    static long cpu() { return MX.getCurrentThreadCpuTime(); }

    /** CPU seconds of the JIT compiler threads so far (Linux: /proc/self/task/N/stat, threads
     *  named "C1 CompilerThre..." and "C2 CompilerThre..."); compilations run in the background,
     *  so a round's figure includes what earlier rounds queued. */
    static double jitCpu() {
        double s = 0;
        File[] tasks = new File("/proc/self/task").listFiles();
        if (tasks == null) return 0;
        long tick = 100;   // USER_HZ
        for (File t : tasks) {
            try {
                String stat = new String(Files.readAllBytes(new File(t, "stat").toPath()), StandardCharsets.UTF_8);
                int open = stat.indexOf('('), close = stat.lastIndexOf(')');
                if (!stat.substring(open + 1, close).contains("CompilerThre")) continue;
                String[] f = stat.substring(close + 2).split(" ");
                s += (Long.parseLong(f[11]) + Long.parseLong(f[12])) / (double) tick;
            } catch (java.io.IOException | RuntimeException e) {
                // a thread that ended meanwhile
            }
        }
        return s;
    }

    /** CPU seconds of the whole JVM so far (every thread: JIT compilers and GC included). */
    static double processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() / 1e9;
    }

    static long countNewlines(String path) throws Exception {
        long n = 0;
        byte[] buf = new byte[1 << 16];
        try (FileInputStream in = new FileInputStream(path)) {
            int r;
            while ((r = in.read(buf)) > 0) {
                for (int i = 0; i < r; i++) if (buf[i] == '\n') n++;
            }
        }
        return n;
    }

    public static void main(String[] a) throws Exception {
        String[] parts = new String(Files.readAllBytes(Paths.get(a[0])), StandardCharsets.UTF_8).split("\0", -1);
        int k = 0;
        List<String> words = new ArrayList<>();
        while (!parts[k].isEmpty()) words.add(parts[k++]);
        k++;
        String rest = parts[k++];
        boolean anchored = Boolean.parseBoolean(parts[k++]);
        String continuation = parts[k++];
        int maxChars = Integer.parseInt(parts[k++]);
        int handoverMax = Integer.parseInt(parts[k++]);
        String ddl = parts[k++];
        long splitBytes = Long.parseLong(a[1]);
        int rounds = Integer.parseInt(a[2]);
        CandidateFilter f = new CandidateFilter(words.toArray(new String[0]), rest, anchored);
        SplitScanner scanner = new SplitScanner(f, maxChars, continuation, handoverMax);
        scala.Function1<Object, Object> toCatalyst =
            CatalystTypeConverters.createToCatalystConverter(DataType.fromDDL(ddl));
        double jitStart = jitCpu();
        long bytes = 0;
        for (int i = 3; i < a.length; i++) bytes += new File(a[i]).length();
        double mb = bytes / 1e6;
        System.out.printf("input: %d files, %.1f MB, splits of %d bytes%n", a.length - 3, mb, splitBytes);
        for (int round = 0; round < rounds; round++) {
            double jit0 = jitCpu();
            double p0 = processCpu();
            long t0 = cpu();
            long newlines = 0;
            for (int i = 3; i < a.length; i++) newlines += countNewlines(a[i]);
            long t1 = cpu();
            double jit1 = jitCpu();
            long lines = 0, cands = 0, candChars = 0;
            List<Row> rows = new ArrayList<>();
            for (int i = 3; i < a.length; i++) {
                long size = new File(a[i]).length();
                for (long b = 0; b < Math.max(size, 1); b += splitBytes) {
                    Row r = scanner.call(new File(a[i]).toURI().toString(), b, Math.min(splitBytes, size - b), false);
                    rows.add(r);
                }
            }
            long t2 = cpu();
            double jit2 = jitCpu();
            for (Row r : rows) toCatalyst.apply(r);
            long t3 = cpu();
            for (Row r : rows) {
                lines += r.getLong(0);
                long[] idx = (long[]) r.get(2);      // SplitScanner's packed candidates
                cands += idx.length;
                for (int c : (int[]) r.get(4)) candChars += c;
            }
            if (round == rounds - 1) {
                Thread.sleep(2000);   // compilations still queued
                System.out.printf("JIT compilers over all rounds: %.2f CPU-s%n", jitCpu() - jitStart);
            }
            System.out.printf("round %d: count newlines %.2f CPU-s (%.0f MB/s, %d lines) | scan %.2f CPU-s (%.0f MB/s, %d lines, %d candidates, %d chars) = %.2fx | to catalyst rows %.2f CPU-s | JIT compilers during count %.2f CPU-s, scan %.2f | JVM process %.2f CPU-s%n",
                round, (t1 - t0) / 1e9, mb / ((t1 - t0) / 1e9), newlines,
                (t2 - t1) / 1e9, mb / ((t2 - t1) / 1e9), lines, cands, candChars, (double) (t2 - t1) / (t1 - t0),
                (t3 - t2) / 1e9, jit1 - jit0, jit2 - jit1, processCpu() - p0);
        }
    }
}
