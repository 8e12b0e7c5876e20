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
 * Lines and splits follow Hadoop's LineRecordReader, so line numbers equal Spark's and Python's:
 * a line ends at \n, \r or \r\n; a split [start, start + length) owns the lines that start in
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
 * The rule (the fifth argument, per file, from parsers.reader.origin_rule / soft_wrap_rule; "" for
 * none): its first character 'W' keeps the possible pieces of soft-wrapped log4j records, and the
 * rest, when not empty, is the regex of the file's origin wrapper (kubectl --prefix, stern, docker
 * compose, syslog), matched at the start of every line to learn the origin of the dropped ones too.
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
        long handedLines;        // lines taken from the next split
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
        final boolean soft;
        final java.util.regex.Matcher origin;    // null: no origin rule
        final java.util.HashSet<String> clean = new java.util.HashSet<>();
        boolean dropped;
        boolean keylessDropped;
        int follow;                              // soft-wrap pieces still kept
        byte code;                               // the last kept line's

        Gaps(boolean soft, Pattern origin) {
            this.soft = soft;
            this.origin = origin == null ? null : origin.matcher("");
        }

        /** A line that scan() may count without reading it (only counted when dropped). */
        boolean skippable() {
            return origin == null && follow == 0;
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
            String key = origin == null ? null : key(a, off, len);
            if (!keep) {
                dropped = true;
                if (key == null) keylessDropped = true;
                else clean.remove(key);
                return false;
            }
            if (origin == null) code = dropped ? ALL : NONE;
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
        String rx = rule.substring(1);
        Pattern p = rx.isEmpty() ? null : RULES.computeIfAbsent(rx, r -> Pattern.compile(r, Pattern.UNICODE_CHARACTER_CLASS));
        boolean soft = rule.charAt(0) == 'W';
        return soft || p != null ? new Gaps(soft, p) : null;
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
            return scan(in, begin, end, Boolean.TRUE.equals(allLines), codec == null, gaps(rule));
        } finally {
            in.close();
        }
    }

    private Row scan(InputStream in, long begin, long end, boolean allLines, boolean splittable, Gaps gaps) {
        final int[] step = filter.scanStep;
        final byte[] cls = filter.scanClassOf;
        final boolean[] stay = filter.scanStaysAtStart;
        final int keep = Math.max(maxChars, 1024) * KEEP_FACTOR;
        Cands cands = new Cands();
        if (gaps != null && gaps.origin != null) cands.gap = new byte[256];
        CandidateFilter.RestMatcher rest = filter.newRestMatcher();
        byte[] buf = new byte[BUFFER];
        byte[] carry = new byte[1024];   // the current line's bytes from earlier buffers
        int carried = 0;
        long carriedChars = 0;           // code points of the line's bytes beyond `keep` (dropped)
        long bufPos = begin;             // file position of buf[0]
        Edge edge = new Edge();
        edge.leading = splittable && begin != 0 && handoverMax > 0;
        String problem = null;
        boolean skipping = begin != 0;   // the first, partial line belongs to the previous split
        boolean afterCR = false;         // the previous line ended with \r: a \n next is part of it
        int state = 0;
        boolean matched = false;
        int lineStart = 0;               // in buf
        long lineStartPos = begin;       // in the file
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
            if (afterCR) {
                afterCR = false;
                if (b == '\n') {
                    i++;
                    lineStart = i;
                    lineStartPos = bufPos + i;
                    continue;
                }
            }
            if (b == '\n' || b == '\r') {
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
                } else if (!line(edge, lineStartPos > end, buf, lineStart, i, carry, carried, carriedChars,
                                 matched || allLines, rest, cands, gaps)) {
                    stopped = true;
                    break;
                }
                afterCR = b == '\r';
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
                if (c == '\n' || c == '\r') break;
            }
        }
        // a last line without a line end (the file's last line: past the end only while handing over)
        if (!stopped && !skipping && lineStartPos != Long.MAX_VALUE && (carried > 0 || (n > 0 && i > lineStart))) {
            line(edge, lineStartPos > end, buf, lineStart, Math.max(i, lineStart), carry, carried, carriedChars,
                matched || allLines, rest, cands, gaps);
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
    private boolean line(Edge edge, boolean pastEnd, byte[] buf, int from, int to, byte[] carry, int carried,
                         long carriedChars, boolean candidate, CandidateFilter.RestMatcher rest, Cands cands,
                         Gaps gaps) {
        if (pastEnd && !edge.handing) {       // the first line that belongs to the next split
            if (handoverMax == 0 || edge.lines == edge.leadingLines) return false;
            edge.handing = true;
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
