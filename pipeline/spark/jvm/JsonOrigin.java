package coordscope.spark;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The origin a JSON log record of one line names (collector metadata: Fluent Bit / Fluentd kubernetes
 * fields, journald's _HOSTNAME and _PID, docker's container_name, a layout's host / pod / pid), for
 * SplitScanner.Gaps in a file of JSON records: the same string as parsers/origin.py json_origin gives
 * for the record, so that one key is one origin (the reader's, Event.extra["origin"]).
 *
 * The Python twin is parsers/drop_gaps.py json_key: a line is read only when it is exactly one JSON
 * object ('{' first, '}' last, RFC 8259 with Python's json.loads rules: no NaN / Infinity, no control
 * character inside a string, an integer literal is an int, any other number a float), nested at most
 * MAX_DEPTH deep; any other line has no key (null), and a kept line after a dropped one of no key ends
 * every open record, as before keys. Values keep Python's meanings where json_origin reads them:
 * `x or y` takes y when x is None, false, 0, 0.0, "", [] or {}; a member whose value is null is
 * still a member ("_HOSTNAME" in obj).
 */
final class JsonOrigin {
    static final int MAX_DEPTH = 64;
    private static final Object NULL = new Object();

    private static final class Bad extends Exception {
        private static final long serialVersionUID = 1L;

        Bad() {
            super(null, null, false, false);
        }
    }

    private static final Bad BAD = new Bad();

    /** A JSON float: its value (only its truth is read). */
    private static final class Num {
        final double v;

        Num(double v) {
            this.v = v;
        }
    }

    private final String s;
    private int i;

    private JsonOrigin(String s) {
        this.s = s;
    }

    /** json_key: the record's origin, or null (not one JSON object, or none named). */
    static String of(String line) {
        int n = line.length();
        if (n < 2 || line.charAt(0) != '{' || line.charAt(n - 1) != '}') return null;
        JsonOrigin p = new JsonOrigin(line);
        Object v;
        try {
            v = p.value(1);
            p.ws();
            if (p.i != n) return null;
        } catch (Bad e) {
            return null;
        }
        return v instanceof Map ? origin(cast(v)) : null;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(Object v) {
        return (Map<String, Object>) v;
    }

    private void ws() {
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
            i++;
        }
    }

    private Object value(int depth) throws Bad {
        if (depth > MAX_DEPTH) throw BAD;
        ws();
        if (i >= s.length()) throw BAD;
        char c = s.charAt(i);
        if (c == '{') {
            i++;
            Map<String, Object> m = new LinkedHashMap<>();
            ws();
            if (i < s.length() && s.charAt(i) == '}') {
                i++;
                return m;
            }
            while (true) {
                ws();
                if (i >= s.length() || s.charAt(i) != '"') throw BAD;
                String k = string();
                ws();
                if (i >= s.length() || s.charAt(i) != ':') throw BAD;
                i++;
                m.put(k, value(depth + 1));
                ws();
                if (i >= s.length()) throw BAD;
                char d = s.charAt(i++);
                if (d == '}') return m;
                if (d != ',') throw BAD;
            }
        }
        if (c == '[') {
            i++;
            List<Object> l = new ArrayList<>();
            ws();
            if (i < s.length() && s.charAt(i) == ']') {
                i++;
                return l;
            }
            while (true) {
                l.add(value(depth + 1));
                ws();
                if (i >= s.length()) throw BAD;
                char d = s.charAt(i++);
                if (d == ']') return l;
                if (d != ',') throw BAD;
            }
        }
        if (c == '"') return string();
        if (s.startsWith("true", i)) {
            i += 4;
            return Boolean.TRUE;
        }
        if (s.startsWith("false", i)) {
            i += 5;
            return Boolean.FALSE;
        }
        if (s.startsWith("null", i)) {
            i += 4;
            return NULL;
        }
        return number();
    }

    private static boolean digit(char c) {
        return c >= '0' && c <= '9';
    }

    private Object number() throws Bad {
        int start = i;
        int n = s.length();
        if (i < n && s.charAt(i) == '-') i++;
        if (i >= n || !digit(s.charAt(i))) throw BAD;
        if (s.charAt(i) == '0') {
            i++;
        } else {
            while (i < n && digit(s.charAt(i))) i++;
        }
        boolean integer = true;
        if (i + 1 < n && s.charAt(i) == '.' && digit(s.charAt(i + 1))) {
            integer = false;
            i++;
            while (i < n && digit(s.charAt(i))) i++;
        }
        if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
            int j = i + 1;
            if (j < n && (s.charAt(j) == '+' || s.charAt(j) == '-')) j++;
            if (j < n && digit(s.charAt(j))) {
                integer = false;
                i = j;
                while (i < n && digit(s.charAt(i))) i++;
            }
        }
        String t = s.substring(start, i);
        // Python's int() refuses more than 4,300 digits (sys.int_info.default_max_str_digits): no record
        if (integer && i - start - (t.charAt(0) == '-' ? 1 : 0) > 4300) throw BAD;
        return integer ? new BigInteger(t) : new Num(Double.parseDouble(t));
    }

    private String string() throws Bad {
        i++;   // the opening quote
        int n = s.length();
        StringBuilder b = null;
        int run = i;
        while (true) {
            if (i >= n) throw BAD;
            char c = s.charAt(i);
            if (c == '"') {
                String out = b == null ? s.substring(run, i) : b.append(s, run, i).toString();
                i++;
                return out;
            }
            if (c < 0x20) throw BAD;   // json.loads (strict): no control character inside a string
            if (c != '\\') {
                i++;
                continue;
            }
            if (b == null) b = new StringBuilder();
            b.append(s, run, i);
            if (i + 1 >= n) throw BAD;
            char e = s.charAt(i + 1);
            i += 2;
            switch (e) {
                case '"': b.append('"'); break;
                case '\\': b.append('\\'); break;
                case '/': b.append('/'); break;
                case 'b': b.append('\b'); break;
                case 'f': b.append('\f'); break;
                case 'n': b.append('\n'); break;
                case 'r': b.append('\r'); break;
                case 't': b.append('\t'); break;
                case 'u': {
                    if (i + 4 > n) throw BAD;
                    int v = 0;
                    for (int k = 0; k < 4; k++) {
                        int d = Character.digit(s.charAt(i + k), 16);
                        if (d < 0 || s.charAt(i + k) > 'f') throw BAD;
                        v = v * 16 + d;
                    }
                    i += 4;
                    b.append((char) v);
                    break;
                }
                default: throw BAD;
            }
            run = i;
        }
    }

    // --- parsers/origin.py json_origin, on the parsed values ---------------------------------------

    private static final String[] KEYS = {"kubernetes", "resource", "podName", "container_name", "_container_name",
        "CONTAINER_NAME", "_HOSTNAME", "_PID", "pod", "pod_name", "hostname", "HOSTNAME", "host", "process", "pid", "PID",
        "process_id"};

    /** Python's truth of a value (null: absent or JSON null). */
    private static boolean truthy(Object v) {
        if (v == null || v == NULL) return false;
        if (v instanceof Boolean) return (Boolean) v;
        if (v instanceof BigInteger) return ((BigInteger) v).signum() != 0;
        if (v instanceof Num) return ((Num) v).v != 0.0;
        if (v instanceof String) return !((String) v).isEmpty();
        if (v instanceof Map) return !((Map<?, ?>) v).isEmpty();
        if (v instanceof List) return !((List<?>) v).isEmpty();
        return true;
    }

    private static Object get(Map<String, Object> m, String k) {
        Object v = m.get(k);
        return v == NULL ? null : v;
    }

    private static Object or(Object a, Object b) {
        return truthy(a) ? a : b;
    }

    private static Object path(Map<String, Object> m, String a, String b) {
        Object v = get(m, a);
        return v instanceof Map ? get(cast(v), b) : null;
    }

    private static boolean nonEmptyString(Object v) {
        return v instanceof String && !((String) v).isEmpty();
    }

    private static String pod(Object ns, Object name, Object container) {
        if (!nonEmptyString(name)) return null;
        StringBuilder b = new StringBuilder("pod/");
        if (nonEmptyString(ns)) b.append((String) ns).append('/');
        b.append((String) name);
        if (nonEmptyString(container)) b.append('/').append((String) container);
        return b.toString();
    }

    /** origin.host_pid: a str or an int (not a bool), "" and "-" none. */
    private static String text(Object v) {
        if (v instanceof String) return (String) v;
        if (v instanceof BigInteger) return v.toString();
        return null;
    }

    private static String hostPid(Object host, Object pid) {
        String h = text(host);
        String p = text(pid);
        StringBuilder b = new StringBuilder();
        if (h != null && !h.isEmpty() && !h.equals("-")) b.append("host:").append(h);
        if (p != null && !p.isEmpty() && !p.equals("-")) {
            if (b.length() > 0) b.append('/');
            b.append("pid:").append(p);
        }
        return b.length() > 0 ? b.toString() : null;
    }

    private static String stripSlashes(String c) {
        int a = 0;
        int e = c.length();
        while (a < e && c.charAt(a) == '/') a++;
        while (e > a && c.charAt(e - 1) == '/') e--;
        return c.substring(a, e);
    }

    static String origin(Map<String, Object> obj) {
        boolean any = false;
        for (String k : KEYS) {
            if (obj.containsKey(k)) {
                any = true;
                break;
            }
        }
        if (!any) return null;
        Object k8s = get(obj, "kubernetes");
        if (k8s instanceof Map) {
            Map<String, Object> k = cast(k8s);
            Object name = or(get(k, "pod_name"), path(k, "pod", "name"));
            Object ns = or(or(get(k, "namespace_name"), get(k, "pod_namespace")), get(k, "namespace"));
            Object cont = or(get(k, "container_name"), path(k, "container", "name"));
            String o = pod(ns, name, cont);
            if (o != null && !o.isEmpty()) return o;
        }
        Object labels = path(obj, "resource", "labels");
        if (labels instanceof Map && truthy(get(cast(labels), "pod_name"))) {
            Map<String, Object> l = cast(labels);
            return pod(get(l, "namespace_name"), get(l, "pod_name"), get(l, "container_name"));
        }
        if (truthy(get(obj, "podName"))) return pod(get(obj, "namespace"), get(obj, "podName"), get(obj, "containerName"));
        for (String key : new String[] {"container_name", "_container_name", "CONTAINER_NAME"}) {
            Object c = get(obj, key);
            if (c instanceof String && !stripSlashes((String) c).isEmpty()) return "container:" + stripSlashes((String) c);
        }
        if (obj.containsKey("_HOSTNAME") || obj.containsKey("_PID")) return hostPid(get(obj, "_HOSTNAME"), get(obj, "_PID"));
        Object p = or(get(obj, "pod"), get(obj, "pod_name"));
        Object host = or(get(obj, "hostname"), get(obj, "HOSTNAME"));
        Object h = get(obj, "host");
        if (h instanceof Map) {
            host = or(or(host, get(cast(h), "name")), get(cast(h), "hostname"));
        } else if (h != null) {
            host = or(host, h);
        }
        Object proc = get(obj, "process");
        Object pid = or(or(or(get(obj, "pid"), get(obj, "PID")), get(obj, "process_id")),
            proc instanceof Map ? get(cast(proc), "pid") : null);
        if (p instanceof String && !((String) p).isEmpty()) {
            String hp = hostPid(null, pid);
            return hp != null ? "pod/" + p + "/" + hp : "pod/" + p;
        }
        return hostPid(host, pid);
    }
}
