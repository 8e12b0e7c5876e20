package coordscope.spark;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.regex.Pattern;

import org.apache.spark.sql.api.java.UDF1;

/**
 * The candidate-line filter of coordscope's ingest, on the JVM: true when a line contains one of
 * the candidate words anywhere, or starts like a continuation of a multi-line record.
 *
 * It decides exactly what `parsers.reader.CANDIDATE_REGEX` decides (Python twin: is_candidate):
 * the literal alternatives are found with one Aho-Corasick automaton walked once over the line's
 * UTF-8 bytes (UTF-8 is self-synchronising: a byte match of a UTF-8 word is a character match);
 * the other alternatives are one java.util.regex, tried at position 0 only when all of them are
 * anchored. Spark's rlike would try every alternative at every position of every line.
 */
public final class CandidateFilter implements UDF1<byte[], Boolean>, Serializable {
    private static final long serialVersionUID = 1L;

    private final String[] words;
    private final String rest;
    private final boolean anchored;
    // package-private: SplitScanner walks the automaton inline over its read buffer
    transient int[] delta;       // state * width + byte class -> next state
    transient boolean[] accept;  // some word ends in this state (through failure links)
    transient byte[] classOf;    // byte -> class (0 = byte in no word)
    transient int width;
    // The scanner's form of the automaton (SplitScanner walks it inline over its read buffer):
    // entries are row offsets (state * (width + 1)), so a step is two loads and no multiply; a
    // transition into an accepting state is MATCH, and the extra class `width` (\n, \r) is EOL.
    static final int MATCH = -1;
    static final int EOL = -2;
    transient int[] scanStep;
    transient byte[] scanClassOf;
    // byte -> from the start state, this byte leads back to it (no word goes on with it, none
    // starts with it; not a line end): SplitScanner skips such runs without walking the table
    transient boolean[] scanStaysAtStart;
    private transient Pattern start;
    // ASCII byte -> a line starting with it may match `rest` (anchored only; see build())
    private transient boolean[] mayStart;
    // first byte c1 -> the second bytes c2 with which a line may match `rest` (bit c2 of 256), each
    // row made when a line first needs it (mayStartRow) and shared by the threads as the tables are
    private transient java.util.concurrent.atomic.AtomicReferenceArray<long[]> mayStart2;

    /**
     * @param words    literals found anywhere in a line
     * @param rest     the other alternatives as one regex ("" for none), compiled with
     *                 UNICODE_CHARACTER_CLASS (Python's str semantics for \\w, \\d, \\s)
     * @param anchored every alternative of rest starts with ^: try it at position 0 only
     */
    public CandidateFilter(String[] words, String rest, boolean anchored) {
        this.words = words.clone();
        this.rest = rest;
        this.anchored = anchored;
        build();
    }

    private void readObject(java.io.ObjectInputStream in) throws java.io.IOException, ClassNotFoundException {
        in.defaultReadObject();
        build();
    }

    // Built tables by arguments, one per JVM: every task deserializes its own copy of the filter,
    // and building the automaton each time cost the JIT a C2 compilation of build() (~0.4 s of a
    // compiler thread per ingest, BENCHMARKS.md, scanner). Tables are never written after build.
    private static final java.util.concurrent.ConcurrentHashMap<java.util.List<Object>, CandidateFilter> BUILT =
        new java.util.concurrent.ConcurrentHashMap<>();

    private void build() {
        java.util.List<Object> key = java.util.List.of(java.util.List.of(words), String.valueOf(rest), anchored);
        CandidateFilter done = BUILT.get(key);
        if (done == null) {
            buildTables();
            if (BUILT.size() < 64) BUILT.putIfAbsent(key, this);
            return;
        }
        delta = done.delta;
        accept = done.accept;
        classOf = done.classOf;
        width = done.width;
        scanStep = done.scanStep;
        scanClassOf = done.scanClassOf;
        scanStaysAtStart = done.scanStaysAtStart;
        start = done.start;
        mayStart = done.mayStart;
        mayStart2 = done.mayStart2;
    }

    private void buildTables() {
        classOf = new byte[256];
        int k = 1;
        for (String w : words) {
            for (byte b : w.getBytes(StandardCharsets.UTF_8)) {
                if (classOf[b & 0xff] == 0) classOf[b & 0xff] = (byte) k++;
            }
        }
        width = k;
        int maxStates = 1;
        for (String w : words) maxStates += w.getBytes(StandardCharsets.UTF_8).length;
        int[] trie = new int[maxStates * width];
        Arrays.fill(trie, -1);
        boolean[] acc = new boolean[maxStates];
        int states = 1;
        for (String w : words) {
            int s = 0;
            for (byte b : w.getBytes(StandardCharsets.UTF_8)) {
                int c = classOf[b & 0xff];
                if (trie[s * width + c] < 0) trie[s * width + c] = states++;
                s = trie[s * width + c];
            }
            acc[s] = true;
        }
        // breadth-first: failure links folded into a complete transition table
        int[] fail = new int[states];
        int[] d = new int[states * width];
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        for (int c = 0; c < width; c++) {
            int t = trie[c];
            if (t < 0) {
                d[c] = 0;
            } else {
                d[c] = t;
                fail[t] = 0;
                queue.add(t);
            }
        }
        while (!queue.isEmpty()) {
            int s = queue.poll();
            acc[s] |= acc[fail[s]];
            for (int c = 0; c < width; c++) {
                int t = trie[s * width + c];
                if (t < 0) {
                    d[s * width + c] = d[fail[s] * width + c];
                } else {
                    d[s * width + c] = t;
                    fail[t] = d[fail[s] * width + c];
                    queue.add(t);
                }
            }
        }
        delta = d;
        accept = Arrays.copyOf(acc, states);
        int sw = width + 1;
        scanClassOf = Arrays.copyOf(classOf, 256);
        if (scanClassOf['\n'] != 0 || scanClassOf['\r'] != 0 || scanClassOf[0] != 0) {
            throw new IllegalArgumentException("a word holds a line end");
        }
        scanClassOf['\n'] = (byte) width;
        scanClassOf['\r'] = (byte) width;
        scanClassOf[0] = (byte) width;   // a NUL run ends a line too (parsers/nul_runs.py)
        scanStep = new int[states * sw];
        for (int s = 0; s < states; s++) {
            for (int c = 0; c < width; c++) {
                int t = d[s * width + c];
                scanStep[s * sw + c] = accept[t] ? MATCH : t * sw;
            }
            scanStep[s * sw + width] = EOL;
        }
        scanStaysAtStart = new boolean[256];
        for (int b = 0; b < 256; b++) scanStaysAtStart[b] = scanStep[scanClassOf[b]] == 0;
        start = rest == null || rest.isEmpty() ? null : Pattern.compile(rest, Pattern.UNICODE_CHARACTER_CLASS);
        // Most lines start with a byte that no anchored alternative accepts ('[' of Kafka's own
        // log4j layout, a date's digit when no alternative takes a digit there): such lines skip
        // the regex. A first character c is ruled out exactly when matching the text "c" neither
        // succeeds nor hits the end of the input: then no longer text starting with c can match.
        // Non-ASCII first bytes always go to the regex.
        mayStart = new boolean[256];
        for (int c = 0; c < 256; c++) {
            if (start == null) continue;
            if (!anchored || c >= 0x80) {
                mayStart[c] = true;
            } else {
                java.util.regex.Matcher m = start.matcher(String.valueOf((char) c));
                mayStart[c] = m.lookingAt() || m.hitEnd();
            }
        }
        mayStart2 = new java.util.concurrent.atomic.AtomicReferenceArray<>(256);
    }

    /** False when no line starting with a[off] can match the non-word alternatives. */
    boolean restMayMatch(byte[] a, int off, int len) {
        return start != null && (len == 0 || (len == 1 ? mayStart[a[off] & 0xff] : restMayStart(a[off], a[off + 1] & 0xff)));
    }

    /** restMayMatch of a line whose first byte is b1 and second b2 (0-255; -1: a line of one byte). */
    boolean restMayStart(int b1, int b2) {
        if (start == null || !mayStart[b1 & 0xff]) return false;
        if (b2 == -1) return true;
        long[] row = mayStart2.get(b1 & 0xff);
        if (row == null) row = mayStartRow(b1 & 0xff);
        return (row[b2 >>> 6] & (1L << b2)) != 0;
    }

    /**
     * The same as mayStart for a line's first two characters: a first byte that some alternative
     * takes ('[' of "[pod/...]", of a bracket-only JSON line) is often ruled out by the second
     * ('[' then the digit of Kafka's "[2024-..."). (c1, c2) is ruled out exactly when matching the
     * text "c1c2" neither succeeds nor hits the end of the input. Non-ASCII bytes, and every pair
     * when not all alternatives are anchored, may match. Made once per first byte (128 matches,
     * about a millisecond: only the first bytes the lines have), not for all 256 when built.
     */
    private long[] mayStartRow(int c1) {
        long[] row = new long[4];
        for (int c2 = 0; c2 < 256; c2++) {
            boolean may = true;
            if (anchored && c1 < 0x80 && c2 < 0x80) {
                java.util.regex.Matcher m = start.matcher(new String(new char[] {(char) c1, (char) c2}));
                may = m.lookingAt() || m.hitEnd();
            }
            if (may) row[c2 >>> 6] |= 1L << c2;
        }
        mayStart2.compareAndSet(c1, null, row);     // (another thread's row is the same)
        return row;
    }

    /** restMayStart of the line whose first `carried` bytes are carry's and the rest buf[from, to). */
    boolean restMayStart(byte[] carry, int carried, byte[] buf, int from, int to) {
        if (carried >= 2) return restMayStart(carry[0], carry[1] & 0xff);
        if (carried == 1) return restMayStart(carry[0], to > from ? buf[from] & 0xff : -1);
        return restMayStart(buf[from], to > from + 1 ? buf[from + 1] & 0xff : -1);
    }

    /** The non-word alternatives on a line held as UTF-8 bytes a[off, off + len). */
    boolean restMatches(byte[] a, int off, int len) {
        if (start == null) return false;
        java.util.regex.Matcher m = start.matcher(new String(a, off, len, StandardCharsets.UTF_8));
        return anchored ? m.lookingAt() : m.find();
    }

    /** A reusable matcher of the non-word alternatives for one thread (SplitScanner: per split). */
    RestMatcher newRestMatcher() {
        return new RestMatcher();
    }

    /**
     * Matches lines in place, without decoding them: the regex reads the line's bytes as chars
     * through a view. That is exact as long as it reads ASCII bytes only; the view notes any byte
     * >= 0x80 it hands out, and then the line is matched again decoded (restMatches).
     */
    final class RestMatcher {
        private final ByteView view = new ByteView();
        private final java.util.regex.Matcher m = start == null ? null : start.matcher("");

        boolean matches(byte[] a, int off, int len) {
            if (m == null || !restMayMatch(a, off, len)) return false;
            view.set(a, off, len);
            m.reset(view);
            boolean r = anchored ? m.lookingAt() : m.find();
            return view.high ? restMatches(a, off, len) : r;
        }
    }

    /** A line's bytes as chars, without decoding: exact while the regex reads ASCII only; a byte
     *  >= 0x80 it reads is noted in `high` (the caller then matches the decoded line). Also
     *  SplitScanner's view for the origin wrapper's regex. */
    static final class ByteView implements CharSequence {
        private byte[] a;
        private int off;
        private int len;
        boolean high;

        void set(byte[] a, int off, int len) {
            this.a = a;
            this.off = off;
            this.len = len;
            this.high = false;
        }

        @Override
        public int length() {
            return len;
        }

        @Override
        public char charAt(int i) {
            byte b = a[off + i];
            if (b < 0) high = true;
            return (char) (b & 0xff);
        }

        @Override
        public CharSequence subSequence(int from, int to) {
            for (int i = from; i < to; i++) charAt(i);
            return new String(a, off + from, to - from, StandardCharsets.ISO_8859_1);
        }

        @Override
        public String toString() {
            return subSequence(0, len).toString();
        }
    }

    @Override
    public Boolean call(byte[] line) {
        if (line == null) return Boolean.FALSE;
        final int[] d = delta;
        final byte[] cls = classOf;
        final boolean[] acc = accept;
        final int w = width;
        int s = 0;
        for (byte b : line) {
            s = d[s * w + cls[b & 0xff]];
            if (acc[s]) return Boolean.TRUE;
        }
        // decoded as rlike sees it (UTF8String.toString); lookingAt when every alternative is
        // anchored, which spares find()'s attempt at every later position
        return restMayMatch(line, 0, line.length) && restMatches(line, 0, line.length);
    }
}
