"""Log layouts: detect a file's layout and split each line into time, level, thread, logger, message.

One compiled regular expression per layout (the layouts are regular; a grammar adds nothing here
but time). Each regex names the logging configuration it mirrors; `docs/parsers.md` lists them with
an example line each. Wrappers that tools add around whole lines (docker-compose `name | `, `> `
quoting, `kubectl logs --timestamps`, trailing collector `,timestamp` suffixes) are detected per
file and stripped before the layout regex runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from parsers import origin as _origin
from parsers.build_cache import compile_regex
from parsers.timestamps import epoch_number_ms, parse_ts

LEVELS = r"(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|SEVERE|CONFIG|FINE|FINER|FINEST)"
_DATE = r"\d{4}-\d{2}-\d{2}"
_ZONE = r"(?:Z|[+-]\d{2}:?\d{2})?"


@dataclass(slots=True)
class Split:
    """One log record's header fields and its first message line."""

    ts_ms: int | None
    level: str | None
    thread: str | None
    logger: str | None
    message: str
    extra: dict | None = None


@dataclass(frozen=True, slots=True)
class Layout:
    name: str
    regex: re.Pattern[str] | None
    doc: str
    # an alternative regex tried when the first one fails (e.g. log4j lines without a logger)
    fallback: re.Pattern[str] | None = None

    def split(self, line: str) -> Split | None:
        if self.regex is LOG4J:  # the commonest layout, inlined
            m = LOG4J.match(line)
            if m is not None:
                ts, level, msg, logger = m.group("ts", "level", "msg", "logger")
                return Split(parse_ts(ts), level, None, logger, msg)
        if self.name == "json":
            return split_json(line)
        if self.name == "plain":
            return Split(None, None, None, None, line)
        m = self.regex.match(line) if self.regex is not None else None
        if m is None and self.fallback is not None:
            m = self.fallback.match(line)
        if m is None:
            return None
        return _SPLITTERS[self.name](m)


# --- the layouts -------------------------------------------------------------------------------

# Kafka broker/tools default, log4j 1.x config/log4j.properties (0.9-3.9) and log4j2 log4j2.yaml
# (4.x): "[%d] %p %m (%c)%n". Connect's connect-log4j.properties adds ":%L" -> "(%c:%L)".
LOG4J = compile_regex(
    r"\[(?P<ts>" + _DATE + r"[ T]\d{2}:\d{2}:\d{2}(?:[,.]\d{1,9})?" + _ZONE + r")\] "
    r"(?P<level>" + LEVELS + r")\s+(?P<msg>.*) \((?P<logger>[\w.$\-]+)(?::(?P<lineno>\d+))?\)$"
)
LOG4J_NO_LOGGER = compile_regex(
    r"\[(?P<ts>" + _DATE + r"[ T]\d{2}:\d{2}:\d{2}(?:[,.]\d{1,9})?" + _ZONE + r")\] "
    r"(?P<level>" + LEVELS + r")\s+(?P<msg>.*)$"
)
# Kafka Streams apps with log4j "%d %-5p [%t] %c{2} (%F:%L) - %m%n", often indented (real_logs/041)
STREAMS = compile_regex(
    r"\s*(?P<ts>" + _DATE + r"[ T]\d{2}:\d{2}:\d{2}[,.]\d{3})\s+(?P<level>" + LEVELS + r")\s+"
    r"\[(?P<thread>.*?)\] (?P<logger>\S+) \((?P<file>[^()]*?):(?P<lineno>\d+|\?)\) - (?P<msg>.*)$"
)
# Spring Boot defaults.xml CONSOLE_LOG_PATTERN 1.5-3.4: "%d %5p PID --- [app] [%15.15t] [corr] logger : %m"
# (the PID, `${PID:- }`, is the line's origin: parsers/origin.py)
SPRING_BOOT = compile_regex(
    r"(?P<ts>" + _DATE + r"[ T]\d{2}:\d{2}:\d{2}[.,]\d{3}" + _ZONE + r")\s+(?P<level>" + LEVELS + r")\s+"
    r"(?:(?P<pid>\d+)\s+)?--- (?:\[[^\]]*\] )?\[(?P<thread>[^\]]*)\] (?:\[[^\]]*\] )?(?P<logger>\S+)\s*: (?P<msg>.*)$"
)
# logback/log4j2 patterns "%d %-5level [%thread] %logger - %msg" and "%d [%thread] %-5level %logger - %msg"
LOGBACK = compile_regex(
    r"(?P<ts>" + _DATE + r"[ T]\d{2}:\d{2}:\d{2}[.,]\d{3}" + _ZONE + r")\s+"
    r"(?:\[(?P<thread>[^\]]*)\]\s+)?(?P<level>" + LEVELS + r")\s+(?:\[(?P<thread2>[^\]]*)\]\s+)?"
    r"(?P<logger>[\w.$\-]+)\s+-\s(?P<msg>.*)$"
)
# logback's own default "%d{HH:mm:ss.SSS} [%thread] %-5level %logger{36} - %msg": no date, no ts_ms
LOGBACK_TIME = compile_regex(
    r"(?P<time>\d{2}:\d{2}:\d{2}\.\d{3})\s+\[(?P<thread>[^\]]*)\]\s+(?P<level>" + LEVELS + r")\s+"
    r"(?P<logger>[\w.$\-]+)\s+-\s(?P<msg>.*)$"
)
# Spark/Hadoop style log4j "%d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n"
YY_SLASH = compile_regex(
    r"(?P<ts>\d{2}/\d{2}/\d{2} \d{2}:\d{2}:\d{2})\s+(?P<level>" + LEVELS + r")\s+(?P<logger>[\w.$\-]+): (?P<msg>.*)$"
)
# java.util.logging SimpleFormatter: "%1$tb %1$td, %1$tY %1$tl:%1$tM:%1$tS %1$Tp %2$s%n%4$s: %5$s%6$s%n"
JUL_HEADER = compile_regex(
    r"(?P<ts>[A-Z][a-z]{2} \d{1,2}, \d{4} \d{1,2}:\d{2}:\d{2} [AP]M) (?P<logger>[\w.$\-]+)(?: (?P<method>\S+))?$"
)
JUL_BODY = compile_regex(r"(?P<level>SEVERE|WARNING|INFO|CONFIG|FINE|FINER|FINEST): (?P<msg>.*)$")
# slf4j-simple: "[%thread] LEVEL logger - msg", with showDateTime and no format a relative time first
SLF4J_SIMPLE = compile_regex(
    r"(?:(?P<rel>\d+) )?\[(?P<thread>[^\]]*)\] (?P<level>" + LEVELS + r") (?P<logger>[\w.$\-]+) - (?P<msg>.*)$"
)
# no time at all: "message (class:line)" (log4j "%m (%c:%L)%n" and pasted snippets)
BARE = compile_regex(
    r"(?:(?P<level>" + LEVELS + r") )?(?P<msg>.*) \((?P<logger>[\w$\-]+(?:\.[\w$\-]+)+)(?::(?P<lineno>\d+))?\)$"
)


def _log4j(m: re.Match[str]) -> Split:
    ts, level, msg = m.group("ts", "level", "msg")
    return Split(parse_ts(ts), level, None, m.group("logger") if "logger" in m.re.groupindex else None, msg)


def _streams(m: re.Match[str]) -> Split:
    return Split(parse_ts(m["ts"]), m["level"], m["thread"], m["logger"], m["msg"])


# {"origin": "pid:N"} per PID, shared by the PID's lines (a Split's extra is read, never changed: the
# reader copies it into each event's own dict)
_PID_EXTRA: dict[str, dict[str, str]] = {}


def _spring(m: re.Match[str]) -> Split:
    pid = m["pid"]
    extra = None
    if pid:
        extra = _PID_EXTRA.get(pid)
        if extra is None:
            if len(_PID_EXTRA) >= 1024:
                _PID_EXTRA.clear()
            extra = _PID_EXTRA[pid] = {_origin.KEY: "pid:" + pid}
    return Split(parse_ts(m["ts"]), m["level"], m["thread"].strip(), m["logger"], m["msg"], extra)


def _logback(m: re.Match[str]) -> Split:
    return Split(parse_ts(m["ts"]), m["level"], m["thread"] or m["thread2"], m["logger"], m["msg"])


def _logback_time(m: re.Match[str]) -> Split:
    return Split(None, m["level"], m["thread"], m["logger"], m["msg"], {"time_of_day": m["time"]})


def _yy(m: re.Match[str]) -> Split:
    return Split(parse_ts(m["ts"]), m["level"], None, m["logger"], m["msg"])


def _jul(m: re.Match[str]) -> Split:
    # the header carries time and source; the level and message come on the next line
    return Split(parse_ts(m["ts"]), None, None, m["logger"], "", {"jul_method": m["method"]})


def _slf4j(m: re.Match[str]) -> Split:
    extra = {"relative_ms": int(m["rel"])} if m["rel"] else None
    return Split(None, m["level"], m["thread"], m["logger"], m["msg"], extra)


def _bare(m: re.Match[str]) -> Split:
    return Split(None, m["level"], None, m["logger"], m["msg"])


_SPLITTERS: dict[str, Callable[[re.Match[str]], Split]] = {
    "log4j": _log4j,
    "log4j_logger_line": _log4j,
    "streams": _streams,
    "spring_boot": _spring,
    "logback": _logback,
    "logback_time": _logback_time,
    "yy_slash": _yy,
    "jul": _jul,
    "slf4j_simple": _slf4j,
    "bare": _bare,
}

LAYOUTS: dict[str, Layout] = {
    "json": Layout("json", None, "JSON lines (logstash, ECS, log4j2 JsonLayout, docker json-file), also objects inside a JSON array"),
    "log4j": Layout("log4j", LOG4J, "Kafka default '[%d] %p %m (%c)%n'", LOG4J_NO_LOGGER),
    "log4j_logger_line": Layout("log4j_logger_line", LOG4J, "Connect '[%d] %p %m (%c:%L)%n'", LOG4J_NO_LOGGER),
    "streams": Layout("streams", STREAMS, "'%d %-5p [%t] %c{2} (%F:%L) - %m%n', maybe indented"),
    "spring_boot": Layout("spring_boot", SPRING_BOOT, "Spring Boot default console pattern (1.5-3.4)"),
    "logback": Layout("logback", LOGBACK, "'%d %-5level [%thread] %logger - %msg' and '%d [%thread] %-5level %logger - %msg'"),
    "logback_time": Layout("logback_time", LOGBACK_TIME, "logback default '%d{HH:mm:ss.SSS} [%thread] %-5level %logger{36} - %msg' (no date: no ts_ms)"),
    "yy_slash": Layout("yy_slash", YY_SLASH, "'%d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n'"),
    "jul": Layout("jul", JUL_HEADER, "java.util.logging SimpleFormatter two-line records"),
    "slf4j_simple": Layout("slf4j_simple", SLF4J_SIMPLE, "slf4j-simple '[thread] LEVEL logger - msg' with optional relative ms"),
    "bare": Layout("bare", BARE, "no time: 'message (class:line)'"),
    "plain": Layout("plain", None, "fallback: the whole line is the message"),
}
# sniffing order: more specific first (ties go to the earlier layout)
SNIFF_ORDER: tuple[str, ...] = (
    "json", "log4j", "streams", "spring_boot", "logback", "logback_time", "yy_slash", "jul",
    "slf4j_simple", "bare",
)


# --- JSON lines --------------------------------------------------------------------------------

_JSON_TS_KEYS = ("@timestamp", "timestamp", "ts", "time", "date", "timeMillis", "datetime", "asctime")
# GELF 1.1 (Log4j 2 GelfLayout and JsonTemplateLayout's GelfLayout.json): the message in
# `short_message` (`full_message` holds the stack trace), logger and thread as the additional
# fields `_logger` and `_thread`, `level` a syslog severity code, `timestamp` epoch seconds
_JSON_MSG_KEYS = ("message", "msg", "log.message", "@message", "text", "short_message")
# the field holding the whole line an application wrote, as a collector keeps it (its own layout
# inside): docker json-file / Fluent Bit / Fluentd `log` (moby daemon/logger/jsonfilelog), journald
# `MESSAGE` (systemd.journal-fields(7), `journalctl -o json`), Google Cloud Logging `textPayload`
_JSON_LINE_KEYS = ("log", "MESSAGE", "textPayload")
# their records' times: journald's __REALTIME_TIMESTAMP (microseconds), Cloud Logging's timestamp
_JSON_RECORD_TS_KEYS = ("__REALTIME_TIMESTAMP", "timestamp", "receiveTimestamp", "@timestamp", "date")
_JSON_LEVEL_KEYS = ("level", "log.level", "severity", "levelname", "loglevel")
_JSON_LOGGER_KEYS = ("logger_name", "logger", "log.logger", "loggerName", "name", "category", "_logger")
_JSON_THREAD_KEYS = ("thread_name", "thread", "process.thread.name", "threadName", "_thread")
# syslog severity codes (RFC 5424 6.2.1), what GELF's `level` and journald's `PRIORITY` hold
_SYSLOG_LEVELS = ("FATAL", "FATAL", "FATAL", "ERROR", "WARN", "NOTICE", "INFO", "DEBUG")


def json_level(value) -> str | None:
    """A JSON level field's level name: a syslog severity code 0-7 (number or one digit) by name."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int) and 0 <= value <= 7:
        return _SYSLOG_LEVELS[value]
    if isinstance(value, str) and len(value) == 1 and value in "01234567":
        return _SYSLOG_LEVELS[int(value)]
    if isinstance(value, str | int):
        return str(value).upper()
    return None


def json_pair_ts(flat: dict) -> int | None:
    """Google Cloud Logging's structured-logging pair `timestampSeconds` + `timestampNanos`
    (written by Spring Cloud GCP's StackdriverJsonLayout, accepted by the logging agent)."""
    sec = flat.get("timestampSeconds")
    if sec is None or isinstance(sec, bool):
        return None
    try:
        return int(sec) * 1000 + int(flat.get("timestampNanos") or 0) // 1_000_000
    except (TypeError, ValueError, OverflowError):
        return None


# OpenTelemetry log records as JSON. The OTLP/JSON encoding of an ExportLogsServiceRequest (the Java agent's
# otel.logs.exporter=logging-otlp, the collector's file exporter: opentelemetry-proto logs.proto, camelCase
# names, 64-bit integers as strings): {"resourceLogs": [{"resource": .., "scopeLogs": [{"scope": {"name": ..},
# "logRecords": [{"timeUnixNano", "observedTimeUnixNano", "severityText", "severityNumber", "body":
# {"stringValue": ..}, "attributes": [{"key", "value": {"stringValue": ..}}]}]}]}]}: the Java agent's scope
# name is the logger's name, "thread.name" an attribute. And the Logs Data Model's field names as a flat row
# (the collector's clickhouse exporter otel_logs table, "Timestamp", "SeverityText", "Body", "ScopeName",
# "LogAttributes"; snake_case where a backend lowers them): read as the common keys below.
_OTEL_ROW_KEYS = (("Body", "body", "message"), ("Timestamp", "timestamp", "timestamp"),
                  ("SeverityText", "severity_text", "level"), ("ScopeName", "scope_name", "logger_name"))
_SEVERITY_NUMBER_LEVELS = ((21, "FATAL"), (17, "ERROR"), (13, "WARN"), (9, "INFO"), (5, "DEBUG"), (1, "TRACE"))


def _otel_value(v):
    # an OTLP AnyValue ({"stringValue": ..}, {"intValue": "38"}, ...) as its plain value
    if isinstance(v, dict) and len(v) == 1:
        return next(iter(v.values()))
    return v


def otel_flat(obj: dict) -> dict | None:
    """An OpenTelemetry log record (OTLP/JSON export or a Logs Data Model row) as the common JSON keys
    (message, timestamp, level, logger_name, thread_name), or None for another object. An export with
    several records is read by its first (extra `otlp_records` counts them)."""
    rl = obj.get("resourceLogs")
    if isinstance(rl, list):
        recs = [(sl.get("scope") or {}, r) for res in rl if isinstance(res, dict)
                for sl in res.get("scopeLogs") or () if isinstance(sl, dict)
                for r in sl.get("logRecords") or () if isinstance(r, dict)]
        if not recs:
            return None
        scope, rec = recs[0]
        attrs = {a.get("key"): _otel_value(a.get("value")) for a in rec.get("attributes") or () if isinstance(a, dict)}
        out: dict = {"message": _otel_value(rec.get("body"))}
        ns = rec.get("timeUnixNano") or rec.get("observedTimeUnixNano")
        if isinstance(ns, str | int) and str(ns).isdigit() and int(ns) > 0:
            out["timestamp"] = int(ns) // 1_000_000
        level = rec.get("severityText")
        if not level and isinstance(rec.get("severityNumber"), int):
            level = next((name for low, name in _SEVERITY_NUMBER_LEVELS if rec["severityNumber"] >= low), None)
        out["level"] = level
        out["logger_name"] = scope.get("name") if isinstance(scope, dict) else None
        out["thread_name"] = attrs.get("thread.name")
        if len(recs) > 1:
            out["otlp_records"] = len(recs)
        return out
    if ("Body" in obj and ("SeverityText" in obj or "ScopeName" in obj)) or \
            ("body" in obj and ("severity_text" in obj or "scope_name" in obj)):
        out = {}
        for camel, snake, key in _OTEL_ROW_KEYS:
            v = obj.get(camel, obj.get(snake))
            if v is not None:
                out[key] = _otel_value(v)
        attrs = obj.get("LogAttributes") or obj.get("attributes")
        if isinstance(attrs, dict) and attrs.get("thread.name") is not None:
            out["thread_name"] = attrs["thread.name"]
        return out
    return None


def _first(obj: dict, keys: Sequence[str]):
    for k in keys:
        v = obj.get(k)
        if v is not None:
            return v
    return None


def _flatten_ecs(obj: dict) -> dict:
    # ECS nests {"log": {"level": .., "logger": ..}, "process": {"thread": {"name": ..}}}
    flat = dict(obj)
    log = obj.get("log")
    if isinstance(log, dict):
        for k, v in log.items():
            flat.setdefault(f"log.{k}", v)
    proc = obj.get("process")
    if isinstance(proc, dict) and isinstance(proc.get("thread"), dict):
        flat.setdefault("process.thread.name", proc["thread"].get("name"))
    return flat


def _json_ts(value) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return epoch_number_ms(value)
    if isinstance(value, str):
        ts = parse_ts(value)
        if ts is None and value.replace(".", "", 1).isdigit():
            return epoch_number_ms(value)
        return ts
    if isinstance(value, dict):
        # log4j2 JsonLayout "instant" {epochSecond, nanoOfSecond}; Google Cloud Logging's
        # structured "timestamp" {seconds, nanos} (protobuf Timestamp's JSON object form)
        sec, nano = ("epochSecond", "nanoOfSecond") if "epochSecond" in value else ("seconds", "nanos")
        if sec not in value or isinstance(value[sec], bool):
            return None
        try:
            return int(value[sec]) * 1000 + int(value.get(nano) or 0) // 1_000_000
        except (TypeError, ValueError, OverflowError):
            return None
    return None


def json_object(line: str) -> dict | None:
    s = line.strip()
    if s.endswith(","):
        s = s[:-1].rstrip()
    if not (s.startswith("{") and s.endswith("}")):
        return _pasted_json_object(s)
    try:
        obj = json.loads(s)
    except RecursionError:  # nested deeper than Python's stack: no log record (a crafted or broken line)
        return None
    except ValueError:
        return _pasted_json_object(s)
    return obj if isinstance(obj, dict) else None


_JSON_DECODER = json.JSONDecoder()
# what a paste leaves around one JSON log line (seen in issue threads): the object's opening brace cut
# off by the copy ('"level":"ERROR",...}'), or a stray closer or a sentence's period after it ('...}}',
# '...}.', '...}),'); at most 3 such characters, nothing else
_PASTE_TAIL = frozenset("}]).,;")
_PASTE_HEAD = re.compile(r'"[A-Za-z_@$][\w@$.\-]{0,40}"\s*:')


def _pasted_json_object(s: str) -> dict | None:
    """The one JSON object of a pasted line that is not exactly one (see _PASTE_TAIL), or None."""
    if s.startswith('"') and _PASTE_HEAD.match(s) is not None and s.rstrip("".join(_PASTE_TAIL))[-1:] in '"0123456789el':
        s = "{" + s
    elif not s.startswith("{"):
        return None
    try:
        obj, end = _JSON_DECODER.raw_decode(s)
    except (ValueError, RecursionError):
        return None
    rest = s[end:].strip()
    if len(rest) > 3 or any(c not in _PASTE_TAIL for c in rest):
        return None
    return obj if isinstance(obj, dict) else None


def split_json(line: str, _depth: int = 0) -> Split | None:
    obj = json_object(line)
    if obj is None:
        return None
    if ("resourceLogs" in obj or "Body" in obj or "body" in obj) and (otel := otel_flat(obj)) is not None:
        obj = otel
    flat = _flatten_ecs(obj)
    msg = _first(flat, _JSON_MSG_KEYS)
    inner = None
    if msg is None:
        inner = next((v for k in _JSON_LINE_KEYS if isinstance(v := obj.get(k), str)), None)
    if inner is not None:
        # a collector's record of one line the application wrote: docker json-file {"log": "<the
        # original line>\n", "stream": .., "time": ..}, journald's MESSAGE, Cloud Logging's textPayload
        inner_line = inner.rstrip("\r\n")
        # the line itself a JSON log line (logstash-logback-encoder, ECS, KafkaJS's JSON logCreator
        # inside docker's json-file `log`): its own fields, its own time (the collector's is later)
        inner_split = (split_json(inner_line, _depth + 1) if inner_line[:1] == "{" and _depth < 2
                       else split_any(inner_line))
        if inner_split is not None:
            if inner_split.ts_ms is None:  # the collector's time of the record (docker's `time` first)
                inner_split.ts_ms = _json_ts(obj.get("time"))
                if inner_split.ts_ms is None:
                    inner_split.ts_ms = _json_ts(_first(flat, _JSON_RECORD_TS_KEYS))
            where = _origin.json_origin(obj)
            if where is not None:  # a collector's record (its metadata wins over a PID inside: often 1)
                inner_split.extra = {**(inner_split.extra or {}), _origin.KEY: where}
            return inner_split
        msg = inner.rstrip("\n")
    if not isinstance(msg, str):
        msg = "" if msg is None else json.dumps(msg)
    ts = _json_ts(_first(flat, _JSON_TS_KEYS))
    if ts is None and inner is not None:
        ts = _json_ts(_first(flat, _JSON_RECORD_TS_KEYS))
    if ts is None and isinstance(obj.get("instant"), dict):
        ts = _json_ts(obj["instant"])
    if ts is None and "timestampSeconds" in flat:
        ts = json_pair_ts(flat)
    level = json_level(_first(flat, _JSON_LEVEL_KEYS))
    logger = _first(flat, _JSON_LOGGER_KEYS)
    thread = _first(flat, _JSON_THREAD_KEYS)
    extra = None
    stack = _first(flat, ("stack_trace", "error.stack_trace", "exception", "thrown"))
    if isinstance(stack, str) and stack:
        extra = {"stack_trace": stack[:4000]}
    if ts is None and any(k in flat for k in _JSON_TS_KEYS):
        # a time field that holds no time (null, "abc", NaN, Infinity): no time, and the reader counts it
        extra = {**(extra or {}), "bad_time": True}
    where = _origin.json_origin(obj)
    if where is not None:
        extra = {**(extra or {}), _origin.KEY: where}
    if "otlp_records" in obj:
        extra = {**(extra or {}), "otlp_records": obj["otlp_records"]}
    return Split(
        ts,
        level,
        str(thread) if thread is not None else None,
        str(logger) if logger is not None else None,
        msg,
        extra,
    )


def collector_line(line: str) -> str | None:
    """The line a collector's JSON record holds (docker json-file `log`, journald `MESSAGE`, Cloud
    Logging `textPayload`: split_json's inner line), without its newline; None for another line."""
    obj = json_object(line)
    if obj is None or _first(_flatten_ecs(obj), _JSON_MSG_KEYS) is not None:
        return None
    inner = next((v for k in _JSON_LINE_KEYS if isinstance(v := obj.get(k), str)), None)
    return None if inner is None else inner.rstrip("\r\n")


def split_any(line: str) -> Split | None:
    """Try every layout (used for lines embedded in other formats)."""
    for name in SNIFF_ORDER[1:]:
        s = LAYOUTS[name].split(line)
        if s is not None and name not in ("jul", "bare"):
            return s
    return None


# --- wrappers ----------------------------------------------------------------------------------

# docker-compose v1/v2 service prefix "kafka_1  | " / "kafka-1  | " (its name is the line's origin)
COMPOSE = _origin.COMPOSE_PREFIX
# kubectl logs --prefix "[pod/<name>/<container>] " and stern's "<pod> <container> " (parsers/origin.py)
KUBECTL = _origin.KUBECTL_PREFIX
STERN = _origin.STERN_PREFIX
# e-mail / markdown quoting
QUOTE = compile_regex(r"(?:> ?)+")
# kubectl logs --timestamps / journald-style leading RFC 3339 time before the real line; also the
# kubelet's CRI container log "<RFC3339Nano> <stream> <P|F> " (kubernetes kuberuntime/logs parseCRILog:
# time, stream, tag; reader._cri_joined joins the P parts first)
K8S_TS = compile_regex(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}) "
                       r"(?:(?:stdout|stderr) [PF] )?(?=\S)")
# trailing collector suffix, e.g. CloudWatch export ",2023-08-20 23:44:46.000"
SUFFIX = compile_regex(r"(?<=\)),\s?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?Z?$")

# terminal colour and style codes: ECMA-48 CSI sequences (ESC [ params intermediates final), what
# logback's %highlight/%cyan/..., Spring Boot's %clr (spring.output.ansi.enabled), Log4j 2's
# %highlight/%style, Micronaut's generated logback.xml and stern's pod/container names write
ANSI = compile_regex(r"\x1b\[[0-?]*[ -/]*[@-~]")

# a record's message as a JSON string: what `jq '.message'` prints without --raw-output ("With this
# option, if the filter's result is a string then it will be written directly to standard output
# rather than being formatted as a JSON string with quotes", jq 1.5-1.7 manual), or the `message` value
# of JSON lines cut out with its quotes (and the object's closing brace); decoded by JSON's rules
JSON_STRING = compile_regex(r'"((?:[^"\\\n]|\\.)*)"[\s,\]}]*$')

# a syslog header before the application's own line: RFC 3164 / `journalctl` short output "Mmm dd
# hh:mm:ss HOST APP[PID]: ", RFC 5424 "<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID " (parsers/origin.py)
SYSLOG = _origin.SYSLOG_3164
SYSLOG_5424 = _origin.SYSLOG_5424

WRAPPERS: dict[str, re.Pattern[str]] = {"ansi": ANSI, "kubectl": KUBECTL, "stern": STERN, "compose": COMPOSE,
                                        "syslog": SYSLOG, "syslog5424": SYSLOG_5424,
                                        "quote": QUOTE, "k8s_ts": K8S_TS, "suffix": SUFFIX,
                                        "json_string": JSON_STRING}
# the wrappers that name each line's origin (parsers/origin.py), with the function that reads it
ORIGIN_WRAPPERS: dict[str, Callable[[re.Match[str]], str]] = {
    "kubectl": _origin.kubectl, "stern": _origin.stern, "compose": _origin.compose,
    "syslog": _origin.syslog_match, "syslog5424": _origin.syslog_match}
# the wrappers that write their own time before the line (the reader checks the line's time against it)
TIMED_WRAPPERS = frozenset({"k8s_ts", "syslog", "syslog5424"})
_DATED = compile_regex(r"\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
# wrappers kept only when what follows them is a known layout (they would also match a line's own text;
# a syslog header is stripped only when the line inside has its own dated layout: else its time is
# the header's, which the anchors read line by line)
_GUARDED = frozenset({"k8s_ts", "stern", "syslog", "syslog5424"})


def json_string_line(line: str) -> str | None:
    """The decoded text of a line that is one JSON string (see JSON_STRING), else None."""
    m = JSON_STRING.match(line) if line[:1] == '"' else None
    if m is None:
        return None
    body = m.group(1)
    if "\\" not in body:
        return body
    try:
        text = json.loads('"' + body + '"')
    except ValueError:
        return None
    return text if "\n" not in text and "\r" not in text else None


def strip_ansi(line: str) -> str:
    return ANSI.sub("", line) if "\x1b" in line else line


def strip_wrappers(line: str, wrappers: Sequence[str]) -> str:
    return strip_wrappers_origin(line, wrappers)[0]


def strip_wrappers_origin(line: str, wrappers: Sequence[str]) -> tuple[str, str | None]:
    """strip_wrappers, and the origin the first origin wrapper found on this line names (None when
    no such wrapper matched it)."""
    origin = None
    for w in wrappers:
        if w == "ansi":
            if "\x1b" in line:
                line = ANSI.sub("", line)
        elif w == "suffix":
            m = SUFFIX.search(line)
            if m:
                line = line[: m.start()]
        elif w == "json_string":
            d = json_string_line(line)
            if d is not None:
                line = d
        else:
            m = WRAPPERS[w].match(line)
            if m:
                if origin is None and w in ORIGIN_WRAPPERS:
                    origin = ORIGIN_WRAPPERS[w](m)
                line = line[m.end():]
    return line, origin


def detect_wrappers(lines: Sequence[str]) -> tuple[str, ...]:
    """Wrappers present on most non-blank lines, in the order they must be stripped."""
    body = [ln for ln in lines if ln.strip()]
    if not body:
        return ()
    found: list[str] = []
    current = body
    if any("\x1b[" in ln for ln in current):  # colour codes: on some lines only (a highlighted level) is enough
        found.append("ansi")
        current = [strip_ansi(ln) for ln in current]
    if sum(1 for ln in current if json_string_line(ln) is not None) * 2 > len(current):
        found.append("json_string")  # the outermost: the other wrappers and the layout are inside the string
        current = [strip_wrappers(ln, ("json_string",)) for ln in current]
    for w in ("kubectl", "stern", "compose", "syslog", "syslog5424", "quote", "k8s_ts", "suffix"):
        if w in ("stern", "syslog", "syslog5424") and any(o in found for o in ORIGIN_WRAPPERS):
            continue
        rx = WRAPPERS[w]
        if w == "kubectl":   # (a literal start first: most files have none of these)
            hits = sum(1 for ln in current if ln[:5] == "[pod/" and rx.match(ln))
        else:
            hits = sum(1 for ln in current if (rx.search(ln) if w == "suffix" else rx.match(ln)))
        if hits * 2 > len(current):
            if w in _GUARDED:
                # only a wrapper when what follows is itself a known layout (stern: or a line that
                # starts with its own date-time, as any application's layout does, e.g. Python logging's)
                stripped = [strip_wrappers(ln, (w,)) for ln in current]
                (inner, inner_hits), (outer, outer_hits) = best_layout(stripped), best_layout(current)
                if inner in ("bare", "plain") or inner_hits < outer_hits or (
                        inner_hits == outer_hits and outer not in ("bare", "plain")):
                    if not (w == "stern" and outer in ("bare", "plain")
                            and sum(1 for ln in stripped if _DATED.match(ln)) * 2 > len(stripped)):
                        continue
            found.append(w)
            current = [strip_wrappers(ln, (w,)) for ln in current]
    return tuple(found)


def best_layout(lines: Sequence[str]) -> tuple[str, int]:
    """The layout that splits most of these lines (ties: earlier in SNIFF_ORDER)."""
    best, best_hits = "plain", 0
    body = [ln for ln in lines if ln.strip() and ln.strip() not in ("[", "]")]
    # Exact shortcuts (the result is the same): a layout is dropped as soon as it can no longer
    # split more lines than the best so far, and once one splits every line no later one can win.
    # Sniffing thousands of small files on the driver spent seconds trying every layout.
    for name in SNIFF_ORDER:
        if best_hits == len(body) and best_hits:
            break
        split = LAYOUTS[name].split
        hits, left = 0, len(body)
        for ln in body:
            if split(ln) is not None:
                hits += 1
            left -= 1
            if hits + left <= best_hits:
                break
        if hits > best_hits:
            best, best_hits = name, hits
    if best == "log4j":
        with_line = sum(1 for ln in body if (m := LOG4J.match(ln)) and m["lineno"])
        if with_line * 2 > best_hits:
            best = "log4j_logger_line"
    return best, best_hits


def detect_layout(lines: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    wrappers = detect_wrappers(lines)
    stripped = [strip_wrappers(ln, wrappers) for ln in lines] if wrappers else list(lines)
    name, _ = best_layout(stripped)
    return name, wrappers


# --- continuation lines ------------------------------------------------------------------------

# an indented line continues the record above, unless a date-time starts its text: `cf logs` indents
# every record ("   2024-03-01T10:00:00.12+0100 [APP/PROC/WEB/0] OUT ..."), as do pastes; a stack
# frame or a TAB line of Kafka's multi-line records never starts with a date. Nor with a time of day
# with its fraction: a log viewer's rows pasted as a table ("  12:16:03.815 | INFO | ...") are records
CONTINUATION = compile_regex(
    r"(?:\s(?!\s*\[?(?:\d{4}-\d{2}-\d{2}[T ]\d\d:|\d{1,2}:\d{2}:\d{2}[.,]\d{3}\b))|at [\w$.<>/]+\(|Caused by: |Suppressed: |\.\.\. \d+ (?:more|common frames omitted)"
    r"|(?:[a-z_$][\w$]*\.)+[\w$]*(?:Exception|Error|Throwable)(?::|$))"
)


def is_continuation(line: str) -> bool:
    """A line that belongs to the record above it (tab/space indented, stack frames, exception
    headers). Blank lines are handled by the reader."""
    return CONTINUATION.match(line) is not None
