package coordscope.spark;

import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.regex.Pattern;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.spark.SparkEnv;
import org.apache.spark.deploy.SparkHadoopUtil;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF5;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Reads one file split and returns its line count and its candidate lines, on the executor.
 *
 * Why: `spark.read.text` builds a row per line (a copy of every line) before any filter can run;
 * at 5 % candidates that copy is most of the cost. Here the split's bytes are read through Hadoop's
 * FileSystem (local files, hdfs://, s3a://, whatever the deployment has; compressed files through
 * Hadoop's codec for their extension, as Spark's text source does) and walked once: each byte
 * steps the candidate automaton (CandidateFilter) and the line-end test; only candidate lines
 * become Strings.
 *
 * Lines and splits follow Hadoop's LineRecordReader, so line numbers equal Python's (and Spark's
 * text source's in a file without NUL bytes): a line ends at \n, \r or \r\n, or at a run of NUL
 * bytes with one \n, \r or \r\n after it (parsers/nul_runs.py: zero-filled blocks a crash or a
 * copy-truncate rotation leaves); a split [start, start + length) owns the lines that start in
 * (start, start + length], plus the line at 0 for the first split; compressed files are one split.
 *
 * Multi-line records cut by a split boundary: the continuation lines (stack frames, `Caused by:`,
 * ...: the `continuation` pattern) right after a split's last line are handed over to that split,
 * so its last record is parsed whole. The split that reads on past its end returns them after its
 * own lines (idx = n_lines, n_lines + 1, ...; n_lines counts only its own lines); the split that
 * owns them counts them but does not return them. Both sides stop after `handoverMax` lines, counted
 * from the first line after the boundary; a split whose own lines are all handed back hands
 * nothing over (the split before it reads on through it).
 *
 * Returns struct(n_lines bigint, problem string, idx array(bigint), text string, chars
 * array(int), gaps binary): the split's candidate lines in line order, idx[k] the k-th one's 0-based index in
 * the split, chars[k] its length in code points (the whole line's), and text all of them joined
 * by \n, each cut to maxChars code points. A line never holds \n or \r (both end it), so the
 * join is unambiguous. problem says why reading stopped early (a truncated .gz), with the lines
 * before the damage kept. gaps[k] (only for a file with an origin rule, else null) is what the
 * k-th kept line's reader must know of the lines dropped before it (Gaps, below).
 *
 * The rule (the fifth argument, per file, from pipeline/spark/lines.py gap_rule; "" for none): flag
 * letters, '|', then the regex of the file's origin wrapper (kubectl --prefix, stern, docker compose,
 * syslog; empty for none), matched at the start of every line to learn the origin of the dropped ones
 * too. Flags: 'W' keeps the possible pieces of soft-wrapped log4j records (drop_gaps.soft_wrap_rule),
 * 'C' the line after a kept CRI partial line when it is a CRI line (drop_gaps.cri_rule), 'A' takes
 * terminal colour codes off a line before its origin wrapper is matched (reader.origin_behind_ansi),
 * 'J' reads each line's origin from the JSON record it is (JsonOrigin; reader.json_origins).
 * Why (docs/parsers.md, "Merged streams"): the reader ends every record at a gap unless told which
 * origin the dropped lines had; a merged file's other pods log between any two lines of a
 * ConsumerConfig block, and the block lost its settings in the ingest while `parse` kept them.
 *
 * Why one text per split and not a row per candidate: a String decoded per line, a Row, then
 * Spark's conversion to a Catalyst row (which encoded the String back to UTF-8) and its Arrow
 * writer walking every struct cost ~0.8 JVM CPU-s per GB (BENCHMARKS.md, jvmjoin). Here an ASCII
 * line's bytes are copied as they are into one buffer that becomes the UTF8String; a line with
 * other bytes is decoded and encoded again (malformed bytes become U+FFFD, as before).
 */
public final class SplitScanner implements UDF5<String, Long, Long, Boolean, String, Row>, Serializable {
    private static final long serialVersionUID = 1L;
    private static final int BUFFER = 1 << 16;
    /** Bytes of a line kept for decoding; longer lines are cut (they are cut to maxChars anyway). */
    private static final int KEEP_FACTOR = 4;

    private final CandidateFilter filter;
    private final int maxChars;
    private final Pattern continuation;
    private final int handoverMax;

    public SplitScanner(CandidateFilter filter, int maxChars, String continuation, int handoverMax) {
        this.filter = filter;
        this.maxChars = maxChars;
        this.continuation = Pattern.compile(continuation, Pattern.UNICODE_CHARACTER_CLASS);
        this.handoverMax = handoverMax;
    }

    /** The candidate lines of one split, packed: indexes, code point counts, text joined by \n. */
    private static final class Cands {
        long[] idx = new long[256];
        int[] chars = new int[256];
        int n;
        byte[] text = new byte[1 << 14];
        int len;
        byte[] gap;              // per kept line, Gaps' code (files with an origin rule only)
        byte nextGap;            // the code of the line add() adds next

        void add(long i, long c, byte[] a, int off, int count) {
            if (n == idx.length) {
                idx = Arrays.copyOf(idx, n * 2);
                chars = Arrays.copyOf(chars, n * 2);
            }
            if (gap != null) {
                if (n == gap.length) gap = Arrays.copyOf(gap, n * 2);
                gap[n] = nextGap;
            }
            idx[n] = i;
            chars[n] = (int) Math.min(c, Integer.MAX_VALUE);
            int need = len + count + 1;
            if (need > text.length) {
                text = Arrays.copyOf(text, (int) Math.min(Math.max((long) text.length * 2, need), Integer.MAX_VALUE - 8));
            }
            if (n > 0) text[len++] = '\n';
            System.arraycopy(a, off, text, len, count);
            len += count;
            n++;
        }

        Row row(long lines, String problem) {
            return RowFactory.create(lines, problem, Arrays.copyOf(idx, n), UTF8String.fromBytes(text, 0, len),
                Arrays.copyOf(chars, n), gap == null ? null : Arrays.copyOf(gap, n));
        }
    }

    /** Where the scan of one split is: its own lines, the continuation lines at its edges. */
    private static final class Edge {
        long lines;              // lines owned by the split (the leading ones it hands back included)
        boolean leading;         // still at the start: continuation lines here go to the previous split
        long leadingLines;       // lines handed back to the previous split
        boolean handing;         // past the end: taking the next split's leading continuation lines
        long handedLines;        // lines taken from the next split (in a keyed file: lines read past the end)
        // files whose lines have origins (Gaps.keyed): the window after a boundary, read alike by both
        // splits (claim): the origins whose non-continuation line came since the boundary, the lines
        // read in it, whether every one of them was handed over, and where the next split ends
        java.util.HashSet<String> closed;
        long seen;
        boolean pure = true;
        long windowEnd;
        // CRI logs (Gaps.cri): the lines right after the boundary continue a run of partial lines begun
        // before it (criLead); the start of the split's last own line (the handing side's test of it)
        boolean criRun;
        long lastOwnStart = -1;
        // after the window (the later split's side): its continuation lines of origins not closed since
        // the boundary, counted for another handoverMax lines (they may continue a record begun before
        // the boundary that was not handed over: said in `problem`)
        boolean tracking;
        long tracked;
        long suspect;
    }

    /** How far back the later split looks for the start of the line before its first one (CRI_LOOKBACK:
     *  a partial line longer than that is not followed across a boundary, on both sides alike). */
    static final int CRI_LOOKBACK = 1 << 18;

    /**
     * Whether the line before a split's first line (the earlier split's last) is a CRI partial line, read
     * from the bytes before `begin` (the line that starts at or before it; one that starts more than
     * CRI_LOOKBACK bytes before is not looked at: criVisible is the earlier split's side of the same test).
     */
    static boolean criLead(FileSystem fs, Path path, long begin) throws IOException {
        long from = Math.max(0, begin - CRI_LOOKBACK);
        int n = (int) (begin - from);
        byte[] back = new byte[n + 320];
        int got = 0;
        try (FSDataInputStream in = fs.open(path)) {
            in.seek(from);
            while (got < back.length) {
                int r = in.read(back, got, back.length - got);
                if (r < 0) break;
                got += r;
            }
        }
        int k = n - 1;
        // a "\r\n" cut by the boundary ends the line before: look before its "\r"
        if (k >= 0 && k + 1 < got && back[k] == '\r' && back[k + 1] == '\n') k--;
        while (k >= 0 && back[k] != '\n' && back[k] != '\r') k--;
        if (k < 0 && from > 0) return false;   // the line starts before the lookback
        int start = k + 1;
        int len = 0;
        while (start + len < got && len < 256 && back[start + len] != '\n' && back[start + len] != '\r') len++;
        return Gaps.criPartial(back, start, len);
    }

    /** The earlier split's side of criLead: can the later split (at `end`) see the line at `start`? */
    static boolean criVisible(long start, long end) {
        return start == 0 ? end <= CRI_LOOKBACK : start - 1 >= end - CRI_LOOKBACK;
    }

    static final int HAND = 0, OTHER = 1, STOP = 2;

    /**
     * In a file whose lines have origins (a merged stream: records of several origins interleave line
     * by line), the lines after a split boundary that continue a record of the split before it are not
     * only the run of continuation lines right after the boundary: a record of one origin waits while
     * other origins log (parsers/reader.py `_LogParser.parked`). Both splits read the lines after the
     * boundary alike: a line is handed over (HAND) when it is a continuation line of an origin none of
     * whose non-continuation lines came since the boundary, belongs to the later split (OTHER) when its
     * origin had one (then the origin is closed: its next lines start or continue a record of the later
     * split), and the window ends (STOP) at a line of no origin (a run of continuation lines of no origin
     * right after the boundary still goes over, as in files without origins), after handoverMax lines, or
     * at the end of the later split (the earlier split never reads past it).
     */
    private int claim(Edge edge, Gaps gaps, boolean pastWindow, byte[] a, int off, int len) {
        if (pastWindow || edge.seen >= handoverMax) return STOP;
        edge.seen++;
        String key = gaps.key(a, off, len);
        boolean cont = isContinuation(a, off, len);
        if (key == null) {
            if (cont && edge.pure) return HAND;
            return STOP;
        }
        if (edge.closed == null) edge.closed = new java.util.HashSet<>();
        if (edge.closed.contains(key)) {
            edge.pure = false;
            return OTHER;
        }
        if (cont) return HAND;
        edge.closed.add(key);
        edge.pure = false;
        return OTHER;
    }

    // One Hadoop configuration and codec factory per executor JVM: building them parses XML
    // resources and scans codec classes, which would otherwise be paid by every split.
    private static volatile Configuration conf;
    private static volatile CompressionCodecFactory codecs;

    private static Configuration hadoopConf() {
        Configuration c = conf;
        if (c == null) {
            SparkEnv env = SparkEnv.get();
            c = env != null ? SparkHadoopUtil.get().newConfiguration(env.conf()) : new Configuration();
            codecs = new CompressionCodecFactory(c);
            conf = c;
        }
        return c;
    }

    /**
     * What the filter tells the reader about the lines it drops, for one split of a file with a rule
     * (parsers/reader.py filter_with_gaps is the Python twin: tests/spark/test_lines.py compares them).
     *
     * Origins: each line's origin is the groups of the origin wrapper's match (syslog's nil "-" as
     * empty), no match = no origin. `clean` holds the origins whose last line was kept; a kept line's
     * code is ALL when a line of no origin was dropped since the last kept line (it ended whatever
     * record was current) or the line has no origin and some line was dropped, OWN when its origin
     * is not clean (a line of it was dropped: that origin's record ended there), else NONE. Every
     * line of such a file is read here (the fast path of scan() is off for them): the dropped lines'
     * origins are what this is about.
     *
     * Soft-wrapped log4j records: after a kept line that starts with "[" and a digit and does not end
     * with log4j's " (logger)" (a record with its logger takes no piece), the lines that
     * are not blank and do not start with a time (an optional "[", 1-4 digits, one of -/:. and a
     * digit) are kept, at most MAX_WRAPPED of them without a candidate word; a blank line or a time
     * ends the run. A superset of the pieces parsers/reader.py _soft_wrap glues to a record.
     */
    static final class Gaps {
        static final byte NONE = 0, OWN = 1, ALL = 2;
        static final int MAX_WRAPPED = 8;        // parsers.reader.MAX_SOFT_WRAPPED
        static final int MAX_ORIGINS = 4096;     // parsers.reader.MAX_ORIGINS
        // parsers/layouts.py ANSI (ECMA-48 CSI sequences) and parsers/reader.py _CRI_LINE (the kubelet's
        // CRI line "<RFC3339Nano> <stream> <P|F> ", kubernetes kuberuntime/logs parseCRILog)
        static final Pattern ANSI = Pattern.compile("\\x1b\\[[0-?]*[ -/]*[@-~]");
        static final Pattern CRI_LINE = Pattern.compile(
            "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?(?:Z|[+-]\\d{2}:\\d{2}) (stdout|stderr) ([PF]) ",
            Pattern.UNICODE_CHARACTER_CLASS);
        final boolean soft;
        final boolean cri;                       // keep the line after a kept CRI partial line (if CRI)
        final boolean ansi;                      // the origin wrapper is matched after colour codes go
        final boolean json;                      // the origin is the one the line's JSON record names
        final boolean keyed;                     // lines have origins (a wrapper's or a JSON record's)
        boolean criNext;                         // the last line was a kept CRI partial line
        final java.util.regex.Matcher origin;    // null: no origin rule
        final java.util.HashSet<String> clean = new java.util.HashSet<>();
        // origins of the lines this split read (its own, not handed back, and those past its end): a
        // continuation line handed over whose origin is not among them continues a record this split
        // does not hold (it began in an earlier split: SplitScanner.claim's limits)
        final java.util.HashSet<String> seen = new java.util.HashSet<>();
        boolean dropped;
        boolean keylessDropped;
        int follow;                              // soft-wrap pieces still kept
        byte code;                               // the last kept line's

        Gaps(boolean soft, boolean cri, boolean ansi, boolean json, Pattern origin) {
            this.soft = soft;
            this.cri = cri;
            this.ansi = ansi;
            this.json = origin == null && json;
            this.origin = origin == null ? null : origin.matcher("");
            this.keyed = origin != null || this.json;
        }

        /** A line that scan() may count without reading it (only counted when dropped). */
        boolean skippable() {
            return !keyed && follow == 0 && !criNext;
        }

        /** drop_gaps.cri_partial: " P " among the chars [19, 48) (the prefix is ASCII when it is one),
         *  then CRI_LINE with tag P. */
        static boolean criPartial(byte[] a, int off, int len) {
            int stop = Math.min(len, 48);
            boolean seen = false;
            for (int k = 19; k + 2 < stop; k++) {
                if (a[off + k] == ' ' && a[off + k + 1] == 'P' && a[off + k + 2] == ' ') {
                    seen = true;
                    break;
                }
            }
            if (!seen) return false;
            java.util.regex.Matcher m = CRI_LINE.matcher(new String(a, off, Math.min(len, 256), StandardCharsets.UTF_8));
            return m.lookingAt() && m.group(2).equals("P");
        }

        static boolean criLine(byte[] a, int off, int len) {
            return CRI_LINE.matcher(new String(a, off, Math.min(len, 256), StandardCharsets.UTF_8)).lookingAt();
        }

        private static boolean blank(byte b) {
            return b == ' ' || b == '\t' || b == 0x0b || b == 0x0c;
        }

        private static boolean digit(byte b) {
            return b >= '0' && b <= '9';
        }

        private static boolean timeStart(byte[] a, int off, int len) {
            int i = off + (len > 0 && a[off] == '[' ? 1 : 0);
            int j = i;
            int stop = off + len;
            while (j < stop && j - i < 4 && digit(a[j])) j++;
            if (j == i || j + 1 >= stop) return false;
            byte c = a[j];
            return (c == '-' || c == '/' || c == ':' || c == '.') && digit(a[j + 1]);
        }

        private static boolean loggerChar(byte b) {
            return digit(b) || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b == '_' || b == '.' || b == '$'
                || b == '-';
        }

        /** The line ends with log4j's " (logger)" or " (logger:line)" (layouts.LOG4J's end, ASCII):
         *  its record has its logger, no piece follows it. */
        static boolean loggerEnd(byte[] a, int off, int len) {
            int e = off + len - 1;
            if (len < 4 || a[e] != ')') return false;
            int k = e - 1;
            int d = k;
            while (d > off && digit(a[d])) d--;
            if (d < k && a[d] == ':') k = d - 1;
            int s = k;
            while (s > off && loggerChar(a[s])) s--;
            return s < k && s > off && a[s] == '(' && a[s - 1] == ' ';
        }

        // the line's bytes as chars without decoding (CandidateFilter.ByteView: exact while the regex
        // reads ASCII only; a byte >= 0x80 read is noted in `high`, and the line is then matched decoded)
        private final CandidateFilter.ByteView view = new CandidateFilter.ByteView();

        private String key(byte[] a, int off, int len) {
            if (json) {                  // drop_gaps.json_key: a line that is one JSON object ('{' ... '}')
                if (len < 2 || a[off] != '{' || a[off + len - 1] != '}') return null;
                return JsonOrigin.of(new String(a, off, len, StandardCharsets.UTF_8));
            }
            if (ansi) {
                int k = off;
                int stop = off + len;
                while (k < stop && a[k] != 0x1b) k++;
                if (k < stop) {          // colour codes: the line without them decides (layouts.strip_ansi)
                    origin.reset(ANSI.matcher(new String(a, off, len, StandardCharsets.UTF_8)).replaceAll(""));
                    return origin.lookingAt() ? groups() : null;
                }
            }
            view.set(a, off, len);
            origin.reset(view);
            boolean found = origin.lookingAt();
            String k = found ? groups() : null;
            if (view.high) {             // a non-ASCII byte was read: the decoded line decides
                origin.reset(new String(a, off, len, StandardCharsets.UTF_8));
                k = origin.lookingAt() ? groups() : null;
            }
            view.set(null, 0, 0);
            return k;
        }

        private String groups() {
            StringBuilder k = new StringBuilder();
            for (int g = 1; g <= origin.groupCount(); g++) {
                if (g > 1) k.append('\0');
                String v = origin.group(g);
                if (v != null && !v.equals("-")) k.append(v);
            }
            return k.toString();
        }

        /** Whether the line is kept (`candidate`: the filter's decision), and its code in `code`. */
        boolean decide(byte[] a, int off, int len, boolean candidate) {
            boolean keep = candidate;
            if (soft) {
                if (len == 0 || blank(a[off])) {
                    int k = off;
                    while (k < off + len && blank(a[k])) k++;
                    if (k == off + len) follow = 0;
                } else if (timeStart(a, off, len)) {
                    follow = 0;
                }
                if (!keep && follow > 0) {
                    keep = true;
                    follow--;
                }
                if (keep && len > 1 && a[off] == '[' && digit(a[off + 1]) && !loggerEnd(a, off, len)) follow = MAX_WRAPPED;
            }
            if (cri) {
                if (!keep && criNext && criLine(a, off, len)) keep = true;
                criNext = keep && criPartial(a, off, len);
            }
            String key = keyed ? key(a, off, len) : null;
            if (key != null) {
                if (seen.size() >= MAX_ORIGINS) seen.clear();
                seen.add(key);
            }
            if (!keep) {
                dropped = true;
                if (key == null) keylessDropped = true;
                else clean.remove(key);
                return false;
            }
            if (!keyed) code = dropped ? ALL : NONE;
            else if (keylessDropped || (key == null && dropped)) code = ALL;
            else if (key != null && !clean.contains(key)) code = OWN;
            else code = NONE;
            if (key != null) {
                if (clean.size() >= MAX_ORIGINS) clean.clear();
                clean.add(key);
            }
            dropped = false;
            keylessDropped = false;
            return true;
        }
    }

    // compiled origin rules, one per JVM (a rule is one of a few wrapper regexes)
    private static final java.util.concurrent.ConcurrentHashMap<String, Pattern> RULES =
        new java.util.concurrent.ConcurrentHashMap<>();

    private static Gaps gaps(String rule) {
        if (rule == null || rule.isEmpty()) return null;
        int bar = rule.indexOf('|');
        String flags = bar < 0 ? rule : rule.substring(0, bar);
        String rx = bar < 0 ? "" : rule.substring(bar + 1);
        Pattern p = rx.isEmpty() ? null : RULES.computeIfAbsent(rx, r -> Pattern.compile(r, Pattern.UNICODE_CHARACTER_CLASS));
        boolean soft = flags.indexOf('W') >= 0;
        boolean cri = flags.indexOf('C') >= 0;
        boolean ansi = p != null && flags.indexOf('A') >= 0;
        boolean json = p == null && flags.indexOf('J') >= 0;
        return soft || cri || json || p != null ? new Gaps(soft, cri, ansi, json, p) : null;
    }

    /** call() without a rule (benchmarks/jvm/ScanBench.java). */
    public Row call(String uri, Long start, Long length, Boolean allLines) throws IOException {
        return call(uri, start, length, allLines, "");
    }

    @Override
    public Row call(String uri, Long start, Long length, Boolean allLines, String rule) throws IOException {
        Configuration hconf = hadoopConf();
        Path path = new Path(uri);
        FileSystem fs = path.getFileSystem(hconf);
        CompressionCodec codec = codecs.getCodec(path);
        long begin = start == null ? 0 : start;
        long end;
        InputStream in;
        if (codec != null) {
            in = codec.createInputStream(fs.open(path));
            begin = 0;
            end = Long.MAX_VALUE;
        } else {
            FSDataInputStream raw = fs.open(path);
            if (begin > 0) raw.seek(begin);
            in = raw;
            end = begin + (length == null ? Long.MAX_VALUE - begin : length);
        }
        try {
            // a UTF-8 byte order mark at the file's start is not part of its first line (as in
            // `parse`: parsers/reader._encoding, "utf-8-sig")
            int bom = 0;
            if (begin == 0) {
                java.io.PushbackInputStream peek = new java.io.PushbackInputStream(in, 3);
                byte[] head = new byte[3];
                int got = peek.readNBytes(head, 0, 3);
                if (got == 3 && (head[0] & 0xff) == 0xEF && (head[1] & 0xff) == 0xBB && (head[2] & 0xff) == 0xBF) {
                    bom = 3;
                } else if (got > 0) {
                    peek.unread(head, 0, got);
                }
                in = peek;
            }
            Gaps g = gaps(rule);
            boolean lead = g != null && g.cri && codec == null && begin > 0 && handoverMax > 0
                && criLead(fs, path, begin);
            return scan(in, begin, bom, end, Boolean.TRUE.equals(allLines), codec == null, g, lead);
        } finally {
            in.close();
        }
    }

    private Row scan(InputStream in, long begin, int bom, long end, boolean allLines, boolean splittable, Gaps gaps,
                     boolean criLead) {
        final int[] step = filter.scanStep;
        final byte[] cls = filter.scanClassOf;
        final boolean[] stay = filter.scanStaysAtStart;
        final int keep = Math.max(maxChars, 1024) * KEEP_FACTOR;
        Cands cands = new Cands();
        if (gaps != null && gaps.keyed) cands.gap = new byte[256];
        CandidateFilter.RestMatcher rest = filter.newRestMatcher();
        byte[] buf = new byte[BUFFER];
        byte[] carry = new byte[1024];   // the current line's bytes from earlier buffers
        int carried = 0;
        long carriedChars = 0;           // code points of the line's bytes beyond `keep` (dropped)
        long bufPos = begin + bom;       // file position of buf[0] (after a byte order mark read off)
        Edge edge = new Edge();
        edge.leading = splittable && begin != 0 && handoverMax > 0;
        edge.windowEnd = end > Long.MAX_VALUE - (end - begin) ? Long.MAX_VALUE : end + (end - begin);
        edge.criRun = edge.leading && criLead;
        String problem = null;
        boolean skipping = begin != 0;   // the first, partial line belongs to the previous split
        boolean afterCR = false;         // the previous line ended with \r: a \n next is part of it
        // a NUL run ends a line and a line end right after it belongs to it (parsers/nul_runs.py);
        // counted for the file's notes
        boolean afterNul = false;
        long nulBytes = 0;
        long nulRuns = 0;
        int state = 0;
        boolean matched = false;
        int lineStart = 0;               // in buf
        long lineStartPos = begin + bom; // in the file
        int n = 0;
        int i = 0;
        boolean stopped = false;         // a line past the end that is not handed over: done
        while (true) {
            if (i >= n) {
                if (!skipping && i > lineStart) {        // keep the line's bytes across the refill
                    int len = i - lineStart;
                    int room = keep - carried;
                    int take = Math.min(len, Math.max(room, 0));
                    if (carried + take > carry.length) {
                        carry = Arrays.copyOf(carry, Math.max(carry.length * 2, carried + take));
                    }
                    System.arraycopy(buf, lineStart, carry, carried, take);
                    carried += take;
                    for (int k = lineStart + take; k < i; k++) {
                        if ((buf[k] & 0xC0) != 0x80) carriedChars++;
                    }
                }
                bufPos += n;
                try {
                    n = in.read(buf, 0, BUFFER);
                } catch (IOException e) {
                    problem = "reading stopped early (" + e.getClass().getSimpleName() + ": " + e.getMessage()
                        + "); the " + edge.lines + " lines before the damage are kept";
                    n = -1;
                    carried = 0;                          // the cut line is not a line
                    lineStartPos = Long.MAX_VALUE;
                }
                i = 0;
                lineStart = 0;
                if (n <= 0) break;
            }
            byte b = buf[i];
            if (afterNul) {                              // the rest of a NUL run, and one line end after it
                if (b == 0) {
                    if (bufPos + i < end) nulBytes++;
                    i++;
                    lineStart = i;
                    lineStartPos = bufPos + i;
                    continue;
                }
                afterNul = false;
                if (b == '\n' || b == '\r') {
                    afterCR = b == '\r';
                    i++;
                    lineStart = i;
                    lineStartPos = bufPos + i;
                    continue;
                }
            }
            if (afterCR) {
                afterCR = false;
                if (b == '\n') {
                    i++;
                    lineStart = i;
                    lineStartPos = bufPos + i;
                    continue;
                }
            }
            if (b == '\n' || b == '\r' || b == 0) {
                if (skipping) {
                    skipping = false;
                } else if (!matched && !allLines && !edge.leading && !edge.handing && lineStartPos <= end
                           && (carried > 0 || i > lineStart)
                           && !filter.restMayStart(carry, carried, buf, lineStart, i)
                           && (gaps == null || gaps.skippable())) {
                    // most lines: inside the split, no candidate word, first bytes that rule out
                    // the other alternatives: only counted (what line() would do, without its calls;
                    // they stay out of this loop's compiled code)
                    edge.lines++;
                } else if (!line(edge, lineStartPos, end, buf, lineStart, i, carry, carried, carriedChars,
                                 matched || allLines, rest, cands, gaps)) {
                    stopped = true;
                    break;
                }
                afterCR = b == '\r';
                if (b == 0) {
                    // counted once over the splits: a byte by the split it lies in, a run by the
                    // split that owns a line starting where it starts, (begin, end]
                    long at = bufPos + i;
                    afterNul = true;
                    if (at < end) nulBytes++;
                    if (at <= end && (at > begin || begin == 0)) nulRuns++;
                }
                carried = 0;
                carriedChars = 0;
                state = 0;
                matched = false;
                i++;
                lineStart = i;
                lineStartPos = bufPos + i;
                continue;
            }
            if (!matched && !skipping) {
                // the hot loop (walk): the bytes of a line not yet known to be a candidate, up to
                // a candidate word, the line's end or the buffer's (both handled above)
                long r = walk(step, cls, stay, buf, i, n, state);
                i = (int) r;
                int s = (int) (r >> 32);
                if (s == CandidateFilter.MATCH) {
                    matched = true;
                    i++;
                } else {
                    state = s;
                }
                continue;
            }
            // a candidate line or the first, partial line: only its end matters (b is not one)
            while (++i < n) {
                byte c = buf[i];
                if (c == '\n' || c == '\r' || c == 0) break;
            }
        }
        // a last line without a line end (the file's last line: past the end only while handing over)
        if (!stopped && !skipping && lineStartPos != Long.MAX_VALUE && (carried > 0 || (n > 0 && i > lineStart))) {
            line(edge, lineStartPos, end, buf, lineStart, Math.max(i, lineStart), carry, carried, carriedChars,
                matched || allLines, rest, cands, gaps);
        }
        if (edge.suspect > 0) {
            String said = edge.suspect + " record(s) or line(s) of merged origins near the split boundaries at bytes "
                + begin + " and " + end + " may be cut: their lines after a boundary continue a record begun in an"
                + " earlier split that the scanner did not hand over (more than " + handoverMax + " lines after the"
                + " boundary, past the next split's end, or after a line of no origin); they are read without its"
                + " first line";
            problem = problem == null ? said : problem + "; " + said;
        }
        if (nulBytes > 0 || nulRuns > 0) {
            // (the exact words pipeline/spark/job.py adds up per file: NUL_PROBLEM there)
            String said = nulBytes + " NUL byte(s) in " + nulRuns + " run(s)";
            problem = problem == null ? said : problem + "; " + said;
        }
        return cands.row(edge.lines, problem);
    }

    /**
     * Steps the automaton from `state` over buf[i, n): stops at the byte that completes a
     * candidate word (state MATCH), at a line end (not consumed) or at n. Returns (state << 32) |
     * position. A small method of its own: C2 compiles it within the first megabyte of a split,
     * while scan(), much larger, is still being compiled (the first 256 MB of a JVM ran at half
     * speed before).
     */
    private static long walk(int[] step, byte[] cls, boolean[] stay, byte[] buf, int i, int n, int state) {
        int s = state;
        while (i < n) {
            if (s == 0) {
                // in the start state: a run of bytes that lead back to it needs no table walk
                // (no dependency from byte to byte: the CPU runs ahead)
                while (stay[buf[i] & 0xff] && ++i < n) { }
                if (i == n) break;
            }
            int t = step[s + cls[buf[i] & 0xff]];
            if (t < 0) {
                if (t == CandidateFilter.MATCH) s = CandidateFilter.MATCH;
                break;
            }
            s = t;
            i++;
        }
        return ((long) s << 32) | (i & 0xffffffffL);
    }

    /** One whole line: counted and kept if a candidate, or handed over at the split's edges.
     *  False when the scan is done (the first line past the end that is not a continuation).
     *  One method on purpose: past FreqInlineSize (325 bytecodes) C2 never inlines it into the
     *  byte loop of scan(), whose compiled code stays small; inlined, the String decoding and the
     *  regex behind it made that compilation take seconds of a compiler thread (BENCHMARKS.md, scanner). */
    private boolean line(Edge edge, long pos, long end, byte[] buf, int from, int to, byte[] carry, int carried,
                         long carriedChars, boolean candidate, CandidateFilter.RestMatcher rest, Cands cands,
                         Gaps gaps) {
        boolean pastEnd = pos > end;
        if (pastEnd && !edge.handing) {       // the first line that belongs to the next split
            // (a split whose own lines all went back hands nothing over: the split before it reads on
            // through it; not in a keyed file, whose window ends at the next split's end: see claim)
            if (handoverMax == 0 || (edge.lines == edge.leadingLines && (gaps == null || !gaps.keyed))) return false;
            edge.handing = true;
            edge.leading = false;
            edge.closed = null;               // (a keyed file: the window after this split's end)
            edge.seen = 0;
            edge.pure = true;
            // (a CRI log whose last own line is a partial one the next split can see: its run goes on)
            edge.criRun = gaps != null && gaps.cri && gaps.criNext && criVisible(edge.lastOwnStart, end);
        } else if (!pastEnd && gaps != null && gaps.cri) {
            edge.lastOwnStart = pos;
        }
        if (edge.criRun) {                    // a CRI run across the boundary: its parts go together
            int c = criEdge(buf, from, to, carry, carried);
            if (c == 0) {
                edge.criRun = false;
            } else if (edge.handing) {
                edge.criRun = c == 2;
                long idx = edge.lines + edge.handedLines;
                edge.handedLines++;
                return keepLine(idx, buf, from, to, carry, carried, carriedChars, candidate, rest, cands, gaps);
            } else {                          // the previous split returns it
                edge.criRun = c == 2;
                edge.lines++;
                edge.leadingLines++;
                return true;
            }
        }
        if (gaps != null && gaps.keyed && (edge.leading || edge.handing || edge.tracking)) {
            return keyedEdgeLine(edge, pos, end, buf, from, to, carry, carried, carriedChars, candidate, rest, cands, gaps);
        }
        long idx;
        if (edge.leading || edge.handing) {
            long seen = edge.handing ? edge.handedLines : edge.leadingLines;
            boolean cont = seen < handoverMax && isContinuation(buf, from, to, carry, carried);
            if (edge.handing) {
                if (!cont) return false;
                idx = edge.lines + edge.handedLines;
                edge.handedLines++;
            } else if (cont) {                // the previous split returns it
                edge.lines++;
                edge.leadingLines++;
                return true;
            } else {
                edge.leading = false;
                idx = edge.lines++;
            }
        } else {
            idx = edge.lines++;
        }
        return keepLine(idx, buf, from, to, carry, carried, carriedChars, candidate, rest, cands, gaps);
    }

    /** A line of a keyed file in the window after a boundary (claim): handed over, read as the split's
     *  own, or the window's end. */
    private boolean keyedEdgeLine(Edge edge, long pos, long end, byte[] buf, int from, int to, byte[] carry,
                                  int carried, long carriedChars, boolean candidate,
                                  CandidateFilter.RestMatcher rest, Cands cands, Gaps gaps) {
        byte[] a;
        int off;
        int len;
        if (carried == 0) {
            a = buf;
            off = from;
            len = to - from;
        } else {
            int cap = Math.max(maxChars, 1024) * KEEP_FACTOR;
            int take = Math.min(to - from, Math.max(cap - carried, 0));
            a = Arrays.copyOf(carry, carried + take);
            System.arraycopy(buf, from, a, carried, take);
            off = 0;
            len = a.length;
        }
        if (edge.tracking && !edge.leading && !edge.handing) {
            if (edge.tracked++ >= handoverMax) {
                edge.tracking = false;
            } else {
                String key = gaps.key(a, off, len);
                if (key != null && (edge.closed == null || !edge.closed.contains(key))) {
                    if (isContinuation(a, off, len)) {
                        edge.suspect++;
                    } else {
                        if (edge.closed == null) edge.closed = new java.util.HashSet<>();
                        edge.closed.add(key);
                    }
                }
            }
            long idx = edge.lines++;
            return keepLine(idx, buf, from, to, carry, carried, carriedChars, candidate, rest, cands, gaps);
        }
        if (edge.handing) {
            int c = claim(edge, gaps, pos > edge.windowEnd, a, off, len);
            if (c == STOP) return false;
            long idx = edge.lines + edge.handedLines;
            edge.handedLines++;
            if (c == HAND) {
                String key = gaps.key(a, off, len);
                if (key != null && !gaps.seen.contains(key)) edge.suspect++;
            }
            if (c == OTHER) {                 // the next split's line: for this split's reader a dropped one
                gaps.decide(a, off, len, false);
                return true;
            }
            return keepLine(idx, buf, from, to, carry, carried, carriedChars, candidate, rest, cands, gaps);
        }
        int c = claim(edge, gaps, pos > end, a, off, len);
        if (c == HAND) {                      // the previous split returns it
            edge.lines++;
            edge.leadingLines++;
            return true;
        }
        if (c == STOP) {
            edge.leading = false;
            edge.tracking = true;
        }
        long idx = edge.lines++;
        return keepLine(idx, buf, from, to, carry, carried, carriedChars, candidate, rest, cands, gaps);
    }

    /** The line at idx, read: its bytes (joined with the start carried from earlier buffers), kept if
     *  a candidate (or the gap rules keep it), and added with its length in code points. */
    private boolean keepLine(long idx, byte[] buf, int from, int to, byte[] carry, int carried, long carriedChars,
                             boolean candidate, CandidateFilter.RestMatcher rest, Cands cands, Gaps gaps) {
        // the line's bytes: in place, or its start from earlier buffers (cut at KEEP_FACTOR * maxChars)
        // joined with the rest
        byte[] a;
        int off;
        int len;
        if (carried == 0) {
            a = buf;
            off = from;
            len = to - from;
        } else {
            int cap = Math.max(maxChars, 1024) * KEEP_FACTOR;
            int take = Math.min(to - from, Math.max(cap - carried, 0));
            a = Arrays.copyOf(carry, carried + take);
            System.arraycopy(buf, from, a, carried, take);
            for (int k = from + take; k < to; k++) {
                if ((buf[k] & 0xC0) != 0x80) carriedChars++;
            }
            off = 0;
            len = a.length;
        }
        boolean keep = candidate || rest.matches(a, off, len);
        if (gaps != null) {
            keep = gaps.decide(a, off, len, keep);
            cands.nextGap = gaps.code;
        }
        if (!keep) return true;
        int k = off;
        int stop = off + len;
        while (k < stop && a[k] >= 0) k++;
        if (k == stop) {                      // ASCII: one byte per code point, copied as it is
            long chars = len + carriedChars;
            cands.add(idx, chars, a, off, chars > maxChars ? Math.min(len, maxChars) : len);
            return true;
        }
        String text = new String(a, off, len, StandardCharsets.UTF_8);
        long chars = text.codePointCount(0, text.length()) + carriedChars;
        if (chars > maxChars) {
            text = text.substring(0, text.offsetByCodePoints(0, Math.min(maxChars, text.codePointCount(0, text.length()))));
        }
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        cands.add(idx, chars, utf8, 0, utf8.length);
        return true;
    }


    /** 0: not a CRI line, 1: a CRI line, 2: a CRI partial line (its first 256 bytes decide). */
    private static int criEdge(byte[] buf, int from, int to, byte[] carry, int carried) {
        byte[] a;
        int len;
        if (carried == 0) {
            a = Arrays.copyOfRange(buf, from, Math.min(to, from + 256));
        } else {
            a = Arrays.copyOf(carry, Math.min(carried, 256));
            if (a.length < 256) {
                int take = Math.min(to - from, 256 - a.length);
                a = Arrays.copyOf(a, a.length + take);
                System.arraycopy(buf, from, a, a.length - take, take);
            }
        }
        len = a.length;
        if (!Gaps.criLine(a, 0, len)) return 0;
        return Gaps.criPartial(a, 0, len) ? 2 : 1;
    }

    private boolean isContinuation(byte[] a, int off, int len) {
        return continuation.matcher(new String(a, off, len, StandardCharsets.UTF_8)).lookingAt();
    }

    private boolean isContinuation(byte[] buf, int from, int to, byte[] carry, int carried) {
        String text;
        if (carried == 0) {
            text = new String(buf, from, to - from, StandardCharsets.UTF_8);
        } else {
            int cap = Math.max(maxChars, 1024) * KEEP_FACTOR;
            int take = Math.min(to - from, Math.max(cap - carried, 0));
            byte[] a = Arrays.copyOf(carry, carried + take);
            System.arraycopy(buf, from, a, carried, take);
            text = new String(a, StandardCharsets.UTF_8);
        }
        return continuation.matcher(text).lookingAt();
    }
}
