"""Find Kafka's own text on a line, whatever layout or wrapper surrounds it (issue 17).

The per-file layout (parsers/layouts.py) is a fast path; when it cannot split a line, or its
message is one no rule reads, the reader asks `read_line` here. It works per line, in three steps:

1. unwrap: structured wrappers are decoded into cells (a JSON object of any field names, a JSON
   array of objects, epoch + TAB + JSON, CSV rows, pipe-table rows); the cell that holds Kafka's
   text is the message cell, the others give time, level, logger and thread by name or by shape;
2. anchor: the first place where Kafka's own text starts: a LogContext prefix (`[Consumer
   clientId=…, groupId=…] `, `[Worker …]`, `[ShareConsumer …]`, `[Producer …]`, `[AdminClient …]`,
   with or without instanceId; Streams `stream-thread [..] `), a broker ident (`[GroupCoordinator
   N]: `, `[GroupCoordinator id=N topic=… partition=P] `, `[GroupMetadataManager brokerId=N] `,
   `[Group Metadata Manager on Broker N]: `, `[GroupId X] `), or the first word of a message
   template the client or broker rules declare (tried left to right until a rule reads the text);
3. the text around it: the message runs from the anchor to the end of its cell minus recognised
   trailing suffixes (` (logger)`, `(File.java:123)`, a `[thread]` after the logger, MDC and
   collector tails ` - k=v, k=v` and `,<timestamp>`, closing quotes, pipes and emphasis); time,
   level, logger and thread are read from the text before the anchor and from those suffixes.

Nothing here decides what a message means: the rules (parsers/client.py, parsers/broker.py) do.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass
from typing import Any

from parsers import broker, client
from parsers import origin as _origin
from parsers.build_cache import compile_regex
from parsers.layouts import LEVELS, _first, _flatten_ecs, _json_ts, json_level, json_pair_ts, otel_flat
from parsers.timestamps import epoch_text_ms, find_ts

# --- anchors -----------------------------------------------------------------------------------

# LogContext prefixes: KafkaConsumer/ConsumerUtils.createLogContext ("[Consumer clientId=.., groupId=..] ",
# 2.3+ with "instanceId=" first), Connect WorkerGroupMember ("[Worker clientId=.., groupId=..] "),
# KafkaShareConsumer (4.x), KafkaProducer, KafkaAdminClient; Streams StreamThread/KafkaStreams
# ("stream-thread [name] "). Broker idents: GroupCoordinator.scala logIdent "[GroupCoordinator N]: "
# (0.9-3.x), GroupMetadataManager.scala "[GroupMetadataManager brokerId=N] " (1.0+) and
# "[Group Metadata Manager on Broker N]: " (0.9-0.11), CoordinatorRuntime/GroupCoordinatorShard
# LogContext "[GroupCoordinator id=N topic=T partition=P] " (3.7+/4.x), "[GroupId X] " (broker rules).
_CLIENT_ANCHOR = (
    r"\[(?:Consumer|Worker|ShareConsumer|Producer|AdminClient|Admin|StreamsKafkaClient)"
    r" (?:instanceId=[^,\]]*, )?clientId=[^\]]*\] ?"
    r"|stream-(?:thread|client) \[[^\]]*\] "
)
_BROKER_ANCHOR = (
    r"\[GroupCoordinator (?:id=)?\d+[^\]]*\]:? ?|\[GroupMetadataManager brokerId=\d+\]:? ?"
    r"|\[Group Metadata Manager on Broker \d+\]:? ?|\[GroupId[ =][^\]]*\]"
    r"|\[(?:TransactionCoordinator|Transaction State Manager|Transaction Marker|ShareCoordinator)"
)
PREFIX_ANCHOR = compile_regex(f"(?=[\\[s])(?:(?P<client>{_CLIENT_ANCHOR})|(?P<broker>{_BROKER_ANCHOR}))")


def _template_words() -> tuple[frozenset[str], frozenset[str]]:
    """First words of the client rules (their buckets) and of the broker rules (their start
    symbols), as written in the logs."""
    cw = frozenset(w for w in client._BUCKETS if len(w) > 1)
    bw = frozenset(w for w in broker._WORD_START if w and w[0].isalpha() and "_" not in w)
    return cw, bw


CLIENT_WORDS, BROKER_WORDS = _template_words()
# a word at a word start: letters, digits, '-', '(', ')', "'" (as in "(Re-)joining", "Couldn't")
_WORD = compile_regex(r"(?:(?<=^)|(?<=[\s\]\[\"'`|>:,;=*]))[A-Za-z(][\w()'\-]*")

# --- suffixes ------------------------------------------------------------------------------------

# " (logger)" / " (logger:123)" / " (File.java:123)" / "(Class.method:123)" at the end: a dotted Java
# name or a source file and line, never Kafka's own "(id: 1 rack: null)" or "(__consumer_offsets-3)"
_LOGGER_SUFFIX = compile_regex(
    r"\s*\((?P<logger>[A-Za-z_$][\w$]*(?:\.[\w$<>]+)+(?::\d+|:\?)?|[A-Za-z_$][\w$]*\.(?:java|scala|kt):\d+)\)\s*$"
)
# "Class:123 -" / "Class.java:123" style logger before the message is handled on the left side;
# a trailing "[thread]" (log4j patterns that print the thread last)
_THREAD_SUFFIX = compile_regex(r"\s+\[(?P<thread>[^\[\]]*)\]\s*$")
# MDC / collector tails: " - app=x, clusterId=y", " | app=x" (%X after the message)
# (never "{k=v}": Kafka prints its own maps so, "to {orders=8}", "{member=Assignment(..)}")
_MDC_SUFFIX = compile_regex(r"\s+(?:- |\|\s*)?(?:[\w.\-]+=[^\s,{}]*)(?:,\s*[\w.\-]+=[^\s,{}]*)*\s*$")
# a trailing ",<timestamp>" or TAB/space + timestamp appended by an exporter (CloudWatch, Loki)
_TS_SUFFIX = compile_regex(
    r"(?:,|\t|\s{2,})\s*(?:\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?|\d{13}|\d{10})\s*$"
)
_CLOSERS = compile_regex(r"(?:\s*(?:\*\*|`+|\||\\n|\\r|\s))+$")
_THREADISH = compile_regex(r"main|thread|Thread|#|\s\|\s|-[A-Z]-\d|^[\w.\-]+-\d+-[\w.\-]+$|executor|worker|pool|Container")
_PARTITIONISH = compile_regex(r"^(?:[\w.\-]+-\d+)(?:,\s*[\w.\-]+-\d+)*$")

# --- what stands before the anchor -----------------------------------------------------------------

_LEVEL = compile_regex(r"(?<![\w])(?P<level>" + LEVELS + r"|WRN|ERR|INF|DBG|Warning|Error|Info|Debug|warn|info|error|debug)(?![\w])")
_LOGGER_LEFT = compile_regex(
    r"(?<![\w/$.])(?P<logger>(?:[A-Za-z_$][\w$]*\.)+[A-Z][\w$]*(?:\$\w+)?|[a-z]\.[a-z]\.[\w.$]+)(?::\d+)?(?![\w$])"
)
_THREAD_LEFT = compile_regex(r"\[(?P<thread>[^\[\]]*)\]")
# the text before an anchor in tokens: level and logger are whole tokens of it
_TOKEN_SPLIT = compile_regex(r"[\s\[\]()|,;\"'`]+")
_LEVEL_WORDS = frozenset(LEVELS[3:-1].split("|")) | {"WRN", "ERR", "INF", "DBG", "Warning", "Error", "Info", "Debug",
                                                     "warn", "info", "error", "debug", "INFO:", "WARN:", "WARNING:",
                                                     "ERROR:", "DEBUG:", "SEVERE:", "FINE:"}
_LOGGER_TOKEN = compile_regex(r"(?:[A-Za-z_$][\w$]*\.)+[A-Z][\w$]*(?:\$\w+)?(?::\d+)?:?|[a-z]\.[a-z]\.[\w.$]+(?::\d+)?:?")


@dataclass(slots=True)
class Read:
    """What read_line found: the message from the anchor on and the layout fields around it."""

    message: str
    ts_ms: int | None
    level: str | None
    thread: str | None
    logger: str | None
    extra: dict[str, Any]
    anchor: str  # "client-prefix" | "broker-ident" | "template" | "layout"
    side: str | None  # "client" | "broker" | None (decided by the rules)


# --- unwrapping ----------------------------------------------------------------------------------

_LEAD = compile_regex(
    r"(?:\s+|>+ ?|\*\*|`+|\"(?=\S)|-\s(?=\[)|\d+[:\-](?=\D|\d{10,16}(?:\.\d+)?\t)|[\w./\-]+\.(?:log|txt|out|json|csv)(?:\.\d+)?[:\-](?:\d+[:\-])?)"
)
# docker / docker-compose "name  | " (v1 "kafka_1  |", v2 "kafka-1  |"); not a pipe table ("| a | b |")
_COMPOSE = _origin.COMPOSE_PREFIX   # (the name: the line's origin)
_JSON_MSG = ("message", "msg", "log", "@message", "log.message", "text", "body", "textPayload", "content", "line",
             "_raw", "MESSAGE", "event", "short_message", "full_message")
_JSON_TS = ("@timestamp", "timestamp", "ts", "time", "date", "timeMillis", "datetime", "asctime", "_time",
            "__REALTIME_TIMESTAMP", "eventTime", "receiveTimestamp", "timestampMillis", "ingestionTime", "instant")
_JSON_LEVEL = ("level", "log.level", "severity", "levelname", "loglevel", "status", "PRIORITY", "level_name")
_JSON_LOGGER = ("logger_name", "logger", "log.logger", "loggerName", "name", "category", "SYSLOG_IDENTIFIER",
                "logger.name", "_logger")  # GELF's additional field (layouts._JSON_MSG_KEYS)
_JSON_THREAD = ("thread_name", "thread", "process.thread.name", "threadName", "logger.thread_name", "_thread")


def _flat(obj: dict) -> dict:
    flat = _flatten_ecs(obj)
    for k, v in obj.items():  # one level of nesting with dotted keys (Datadog "attributes", "logger": {..})
        if isinstance(v, dict):
            for k2, v2 in v.items():
                flat.setdefault(f"{k}.{k2}", v2)
                if k in ("attributes", "fields", "data", "content", "jsonPayload", "labels", "_source", "result",
                         "event", "payload"):
                    flat.setdefault(k2, v2)
    return flat


def _json_cells(obj: dict, near_ms: int | None) -> tuple[str | None, dict[str, Any]]:
    """(message text, layout facts) of one JSON log object, whatever its field names."""
    if ("resourceLogs" in obj or "Body" in obj or "body" in obj) and (otel := otel_flat(obj)) is not None:
        obj = otel  # an OpenTelemetry record (layouts.otel_flat)
    flat = _flat(obj)
    msg = _first(flat, _JSON_MSG)
    if isinstance(msg, dict):
        inner = _first(_flat(msg), _JSON_MSG)
        msg = inner if isinstance(inner, str) else json.dumps(msg)
    facts: dict[str, Any] = {}
    for key in _JSON_TS:
        if key in flat and flat[key] is not None:
            v = flat[key]
            ts = _json_ts(v)
            if ts is None and isinstance(v, str):
                ts = epoch_text_ms(v, near_ms)
                if ts is None:
                    ft = find_ts(v, near_ms)
                    ts = ft[0] if ft is not None else None
            if ts is None and key == "__REALTIME_TIMESTAMP" and isinstance(v, str) and v.isdigit():
                ts = int(v) // 1000  # journald: microseconds
            if ts is not None:
                facts["ts_ms"] = ts
                break
            facts["bad_time"] = True
    if "ts_ms" not in facts and "timestampSeconds" in flat:
        ts = json_pair_ts(flat)
        if ts is not None:
            facts["ts_ms"] = ts
            facts.pop("bad_time", None)
    lvl = json_level(_first(flat, _JSON_LEVEL))
    if lvl is not None:
        facts["level"] = lvl
    lg = _first(flat, _JSON_LOGGER)
    if isinstance(lg, str):
        facts["logger"] = lg
    th = _first(flat, _JSON_THREAD)
    if isinstance(th, str | int) and not isinstance(th, bool):
        facts["thread"] = str(th)
    where = _origin.json_origin(obj)
    if where is not None:
        facts["origin"] = where
    if msg is None:
        return None, facts
    return (msg if isinstance(msg, str) else json.dumps(msg)), facts


def json_message(obj: dict) -> Any:
    """The message field of a JSON log object, whatever its name (None when it has none)."""
    msg = _first(_flat(obj), _JSON_MSG)
    return msg if not isinstance(msg, dict) else _first(_flat(msg), _JSON_MSG)


def _json_payload(text: str) -> Any:
    s = text.strip()
    if s.endswith(","):
        s = s[:-1].rstrip()
    if not (s[:1] in "{[" and s[-1:] in "}]"):
        return None
    try:
        return json.loads(s)
    except (ValueError, RecursionError):
        return None


def _cells(text: str) -> list[str] | None:
    """The cells of a CSV row or a pipe-table row, None when the line is neither."""
    s = text.strip()
    if s.endswith("|") and s.count("|") >= 3:  # "| a | b |", also behind a prefix ("<ts> | a | b |")
        body = s[:-1].rstrip()
        if body.startswith("|"):
            body = body[1:]
        return [c.strip() for c in (body.split(" | ") if " | " in body else body.split("|"))]
    if '"' in s and "," in s and _CSV_ROW.fullmatch(s) is not None:
        try:
            row = next(csv.reader([s]))
        except (csv.Error, StopIteration):
            return None
        return row if len(row) >= 2 else None
    return None


# a CSV row as exporters write it (RFC 4180): cells quoted with "" inside, or plain without , and "
_CSV_CELL = r'(?:"(?:[^"]|"")*"|[^",]*)'
_CSV_ROW = compile_regex(_CSV_CELL + r"(?:," + _CSV_CELL + r")+")


# --- reading one line ------------------------------------------------------------------------------

def has_anchor(text: str) -> bool:
    return PREFIX_ANCHOR.search(text) is not None


def read_line(text: str, near_ms: int | None = None, depth: int = 0) -> Read | None:
    """Kafka's text on this line and the layout fields around it, or None when no anchor is found."""
    if depth > 4 or not text:
        return None
    facts: dict[str, Any] = {}
    s = _strip_lead(text, quotes=False, facts=facts)
    if s[-1:] in "`*":
        s = _TRAIL_EMPHASIS.sub("", s)
    k = s.find('"')
    if k >= 0 and '",' in s:  # a CSV row (maybe behind a time): its cells before any quote is taken off
        cells = _cells(s[k:])
        if cells is not None and k > 0:
            cells = [s[:k].strip(), *cells]
        r = _read_cells(cells, near_ms, dict(facts), depth) if cells is not None else None
        if r is not None:
            return r
    s = _strip_lead(s, facts=facts)
    opened = text[:len(text) - len(s)]
    for _ in range(4):  # the closers of what _strip_lead opened: emphasis, backticks, quotes
        before = s
        if s[-1:] in "`*":
            s = _TRAIL_EMPHASIS.sub("", s)
        if s[-1:] == '"' and s.count('"') % 2 == 1 and '"' in opened:
            s = s[:-1]  # the closing quote of a line wrapped in quotes
        if s == before:
            break
    # a JSON object or array of objects ending the line, maybe behind a time (epoch + TAB + JSON of
    # CloudWatch exports, RFC 3339 of kubectl --timestamps): decoded, its message read
    lead = s
    j = s.find("{")
    while j > 0 and (s[j - 1].isalnum() or s[j - 1] in "_$"):  # "Generation{...": Kafka's text, not JSON
        j = s.find("{", j + 1)
    end = max(s.rfind("}"), s.rfind("]")) + 1
    if j >= 0 and end > j and s[j + 1:j + 2] in ('"', "}", " ", "\n", "") and _CLOSING_ONLY.fullmatch(s, end):
        if j > 0 and s[j - 1] == "[":
            j -= 1
        payload = _json_payload(s[j:end])
        if payload is None and '"=>' in s:
            payload = _hash_payload(s, j)
        if payload is not None:
            if j > 0:
                _left_time(s[:j], near_ms, facts)
                where = _origin.container_log(s[:j]) or _origin.syslog(s[:j])
                if where is not None:
                    facts.setdefault("origin", where)
            r = _read_json(payload, near_ms, facts, depth)
            if r is not None:
                return r
            if j == 0:
                return None
    cells = _cells(lead)
    if cells is not None:
        return _read_cells(cells, near_ms, facts, depth)
    return _read_text(lead, near_ms, facts, text)


# a record printed as a Ruby-style hash, {"log"=>"...", "stream"=>"stdout"}: Fluent Bit's `stdout`
# output (msgpack's print: "[0] tag: [1709287200.123456789, {"log"=>"...", ...}]", 2.1+ "[[ts, {}],
# {...}]") and fluentd's `inspect`ed records; string values are printed unescaped, so each is cut
# at the next `", "key"=>` or at the closing brace
_HASH_PAIR = compile_regex(r'"([\w.@]+)"=>(?:"(.*?)"(?=, "[\w.@]+"=>|\}\]*\s*$)|(-?\d+(?:\.\d+)?))')


def _hash_payload(s: str, j: int) -> dict[str, Any] | None:
    obj: dict[str, Any] = {}
    for m in _HASH_PAIR.finditer(s, j):
        obj[m.group(1)] = m.group(2) if m.group(2) is not None else m.group(3)
    return obj or None


_TRAIL_EMPHASIS = compile_regex(r"(?:\*\*|`+|\s)+$")
_CLOSING_ONLY = compile_regex(r"[\s\"'`*|,]*")


def _read_json(payload: Any, near_ms: int | None, facts: dict[str, Any], depth: int) -> Read | None:
    objs = payload if isinstance(payload, list) else [payload]
    for obj in objs:
        if not isinstance(obj, dict):
            continue
        msg, jf = _json_cells(obj, near_ms)
        if not isinstance(msg, str):
            continue
        r = read_line(msg.rstrip("\n"), jf.get("ts_ms", facts.get("ts_ms", near_ms)), depth + 1)
        if r is not None:
            _fill(r, {**facts, **jf})
            return r
    return None


_EPOCH_AT_END = compile_regex(r"(\d{9,16}(?:\.\d+)?)[\s,:|]*$")


def _left_time(left: str, near_ms: int | None, facts: dict[str, Any]) -> None:
    """The time written before a JSON payload: a date-time, else an epoch number."""
    ft = find_ts(left, near_ms)
    if ft is not None and ft[0] is not None:
        facts["ts_ms"] = ft[0]
        return
    m = _EPOCH_AT_END.search(left)
    if m is not None:
        ts = epoch_text_ms(m.group(1), near_ms)
        if ts is not None:
            facts["ts_ms"] = ts


def _strip_lead(s: str, quotes: bool = True, facts: dict[str, Any] | None = None) -> str:
    """Quote and emphasis markers, grep -n/-H prefixes, leading spaces and quotes, docker-compose
    service prefixes and kubectl's `--prefix`: removed from the start of a line until none is left
    (the first origin they name into facts["origin"], parsers/origin.py)."""
    for _ in range(8):
        m = _LEAD.match(s)
        if m is not None and m.end() > 0 and (quotes or s[0] != '"'):
            s = s[m.end():]
            continue
        m = _COMPOSE.match(s)
        if m is not None and not s.startswith("|"):
            if facts is not None:
                facts.setdefault("origin", _origin.compose(m))
            s = s[m.end():]
            continue
        if s[:5] == "[pod/":
            m = _origin.KUBECTL_PREFIX.match(s)
            if m is not None:
                if facts is not None:
                    facts.setdefault("origin", _origin.kubectl(m))
                s = s[m.end():]
                continue
        break
    return s


def _read_cells(cells: list[str], near_ms: int | None, facts: dict[str, Any], depth: int) -> Read | None:
    """A CSV or pipe-table row: the cell with an anchor is the message, the others the layout."""
    for i, cell in enumerate(cells):
        r = read_line(cell, near_ms, depth + 1)
        if r is None:
            continue
        others = cells[:i] + cells[i + 1:]
        for c in others:
            c = c.strip()
            if "ts_ms" not in facts:
                ts = epoch_text_ms(c, near_ms)
                if ts is None:
                    ft = find_ts(c, near_ms)
                    if ft is not None and ft[0] is not None:
                        ts = ft[0]
                        if ft[3]:
                            facts["date_inferred"] = ft[3]
                if ts is not None:
                    facts["ts_ms"] = ts
                    continue
            if "level" not in facts and _LEVEL.fullmatch(c):
                facts["level"] = c.upper()
            elif "logger" not in facts and _LOGGER_LEFT.fullmatch(c):
                facts["logger"] = c
        _fill(r, facts)
        return r
    return None


def _fill(r: Read, facts: dict[str, Any]) -> None:
    """Facts of an outer wrapper fill what the inner text did not say."""
    if r.ts_ms is None and facts.get("ts_ms") is not None:
        r.ts_ms = facts["ts_ms"]
        r.extra.pop("date_inferred", None)
        if facts.get("date_inferred"):
            r.extra["date_inferred"] = facts["date_inferred"]
    if r.level is None and facts.get("level"):
        r.level = facts["level"]
    if r.logger is None and facts.get("logger"):
        r.logger = facts["logger"]
    if r.thread is None and facts.get("thread"):
        r.thread = facts["thread"]
    if facts.get("bad_time") and r.ts_ms is None:
        r.extra["bad_time"] = True
    if facts.get("origin"):   # the outer wrapper's (a collector's metadata, a prefix) wins
        r.extra[_origin.KEY] = facts["origin"]


def read_at(s: str, pos: int, near_ms: int | None = None) -> Read | None:
    """Read around an anchor already found at `pos` of s (a layout's message with text before
    Kafka's): no unwrapping."""
    m = PREFIX_ANCHOR.match(s, pos)
    if m is None:
        return None
    client_side = m.group("client") is not None
    return _around(s, pos, "client-prefix" if client_side else "broker-ident", "client" if client_side else "broker",
                   near_ms, {})


def find_anchor(s: str) -> tuple[int, str, str | None] | None:
    """(position, anchor kind, side) of the first LogContext prefix or broker ident in s."""
    m = PREFIX_ANCHOR.search(s)
    if m is None:
        return None
    return m.start(), ("client-prefix" if m.group("client") else "broker-ident"), (
        "client" if m.group("client") else "broker")


def template_starts(s: str, logger: str | None = None) -> list[tuple[int, str]]:
    """Positions where a client or broker template's first word starts, left to right."""
    out = []
    for m in _WORD.finditer(s):
        w = m.group(0)
        if w in CLIENT_WORDS:
            out.append((m.start(), "client"))
        elif w.lower() in BROKER_WORDS and w[:1].isupper():
            out.append((m.start(), "broker"))
    return out


def _read_text(s: str, near_ms: int | None, facts: dict[str, Any], original: str) -> Read | None:
    found = find_anchor(s)
    if found is None:
        return _read_template(s, near_ms, facts)
    pos, kind, side = found
    return _around(s, pos, kind, side, near_ms, facts)


def _around(s: str, pos: int, kind: str, side: str | None, near_ms: int | None, facts: dict[str, Any]) -> Read:
    left, msg = s[:pos], s[pos:]
    msg, tail = split_suffix(msg)
    r = Read(msg, None, None, None, None, {}, kind, side)
    if left and "origin" not in facts:
        where = _origin.syslog(left)    # "HOST APP[PID]: " / RFC 5424's HOSTNAME APP-NAME PROCID
        if where is not None:
            r.extra[_origin.KEY] = where
    # the logger: " (logger)" after the message, or a dotted class name before it
    if tail.get("logger"):
        r.logger = tail["logger"]
    tokens = _TOKEN_SPLIT.split(left) if left else ()
    ft = find_ts(left, near_ms)
    if ft is None and tail.get("ts_text"):
        ft = find_ts(tail["ts_text"], near_ms)
    if ft is None and tail.get("epoch"):
        ts = epoch_text_ms(tail["epoch"], near_ms)
        if ts is not None:
            r.ts_ms = ts
    if ft is None:
        lead = left.lstrip("[ ")
        num = re.match(r"\d{9,16}(?:\.\d+)?(?=[\s\]|,]|$)", lead)
        if num is not None:
            ts = epoch_text_ms(num.group(0), near_ms)
            if ts is not None:
                r.ts_ms = ts
    elif ft[0] is not None:
        r.ts_ms = ft[0]
        if ft[3]:
            r.extra["date_inferred"] = ft[3]
    elif ft[3] == "pending":
        r.extra["time_of_day"] = (left if ft[1] < len(left) else tail.get("ts_text", ""))[ft[1]:ft[2]]
    # level and logger: the last tokens before the anchor that are one (one split, set lookups)
    for tok in reversed(tokens):
        if not tok:
            continue
        if r.level is None and tok in _LEVEL_WORDS:
            r.level = _norm_level(tok)
        elif r.logger is None and "." in tok and tok[-1] != "." and _LOGGER_TOKEN.fullmatch(tok):
            r.logger = tok.split(":", 1)[0]
        if r.level is not None and r.logger is not None:
            break
    th = None
    rest = left if ft is None or ft[1] >= len(left) else left[:ft[1]] + " " * (ft[2] - ft[1]) + left[ft[2]:]
    for th in (_THREAD_LEFT.finditer(rest) if "[" in rest else ()):
        t = th.group("thread").strip()
        if (t and not (t[0].isdigit() and ":" in t) and not t.isdigit() and "=" not in t and t not in _LEVEL_WORDS
                and t != r.logger):
            r.thread = t
    if tail.get("thread"):
        r.thread = tail["thread"]
    if tail.get("mdc"):
        r.extra["mdc"] = tail["mdc"]
    if facts:
        _fill(r, facts)
    return r


def _norm_level(level: str) -> str:
    up = level.upper().rstrip(":")
    return {"WRN": "WARN", "ERR": "ERROR", "INF": "INFO", "DBG": "DEBUG", "WARNING": "WARN"}.get(up, up) \
        if up not in ("WARNING",) else "WARNING"


_TAIL = 400  # suffixes are looked for in the last characters only (an end-anchored search scans)
_CLOSER_END = frozenset("*`| \t\\nr")


def split_suffix(msg: str) -> tuple[str, dict[str, str]]:
    """The message without the trailing suffixes a layout or a collector appended, and what they said."""
    tail: dict[str, str] = {}
    for _ in range(8):
        before = msg
        n = len(msg)
        at = n - _TAIL if n > _TAIL else 0
        last = msg[-1:]
        if last in _CLOSER_END:
            m = _CLOSERS.search(msg, at)
            if m is not None and m.start() > 0:
                msg = msg[:m.start()]
        # a closing quote of a quoted line (an odd count: the opening one was left of the anchor)
        while msg[-1:] in ("\"", "'") and msg.count(msg[-1]) % 2 == 1:
            msg = msg[:-1].rstrip()
        last = msg[-1:]
        if "ts_text" not in tail and "epoch" not in tail and (last.isdigit() or last == "Z"):
            m = _TS_SUFFIX.search(msg, at)
            if m is not None:
                txt = m.group(0).strip(" ,\t")
                if txt.isdigit():
                    tail["epoch"] = txt
                else:
                    tail["ts_text"] = txt
                msg = msg[:m.start()]
                last = msg[-1:]
        if last == ")" and "logger" not in tail:
            m = _LOGGER_SUFFIX.search(msg, at)
            if m is not None:
                tail["logger"] = m.group("logger")
                msg = msg[:m.start()]
                continue
        if last == "]" and "thread" not in tail:
            m = _THREAD_SUFFIX.search(msg, at)
            # "(logger) [thread]" (Strimzi's "%m (%c) [%t]%n", Kafka's own "[%t]" variants): a bracket
            # right after a logger suffix is the thread even when it looks like a partition
            # ("task-thread-orders-sink-0"); elsewhere a "[orders-0]" ending is Kafka's own list
            if m is not None and (
                    (not _PARTITIONISH.match(m.group("thread"))
                     and ("logger" in tail or _THREADISH.search(m.group("thread"))))
                    or (msg[m.start() - 1:m.start()] == ")" and "logger" not in tail
                        and _LOGGER_SUFFIX.search(msg, at, m.start()) is not None)):
                tail["thread"] = m.group("thread").strip()
                msg = msg[:m.start()]
                continue
        if "mdc" not in tail and msg.find("=", at) >= 0 and (msg.find(" - ", at) >= 0 or msg.find("|", at) >= 0):
            m = _MDC_SUFFIX.search(msg, at)
            if m is not None and _mdc_ok(msg, m):
                tail["mdc"] = m.group(0).strip(" -|")
                msg = msg[:m.start()]
                continue
        if msg == before:
            break
    return msg, tail


def _mdc_ok(msg: str, m: re.Match[str]) -> bool:
    """A trailing `k=v, k=v` run is MDC only when it is set off (" - ", " | ", "{…}") or follows a
    sentence end; Kafka's own messages end with `key=value` pairs too (`…, memberId=x)`)."""
    g = m.group(0)
    if g.lstrip().startswith(("- ", "|")):
        return True
    return False


def _read_template(s: str, near_ms: int | None, facts: dict[str, Any]) -> Read | None:
    """No prefix or ident: the first place a template's first word starts and a rule reads the
    text from there (a message without its LogContext prefix: pasted, or an old client)."""
    starts = template_starts(s)
    if not starts:
        return None
    for pos, side in starts:
        r = _around(s, pos, "template", side, near_ms, facts)
        if rule_reads(r.message, r.logger, side):
            r.side = side
            return r
    return None


def rule_reads(message: str, logger: str | None, side: str | None) -> bool:
    """Does a client or broker rule read this message (event or a known no-event line)?"""
    if side != "broker":
        res = client.parse_client(message, logger)
        if isinstance(res, tuple):
            return True
    if side != "client" or message.startswith("[Group"):
        res = broker.parse_broker_message(message, logger)
        if res is not None and hasattr(res, "kind"):
            return True
    return False
