"""Records printed as blocks of `key: value` lines, the time on one line and the message on another.

Three exports print one log record as several lines, none of which holds both the record's time
and its text:

- `gcloud logging read` (Google Cloud SDK; its default `--format` is YAML): one YAML document per
  LogEntry, separated by `---`, the entry's fields in alphabetical order, so `textPayload: '...'`
  (or `jsonPayload:` with an indented `message:`) comes *before* `timestamp: '...'`;
- `journalctl -o verbose` (systemd journalctl(1), OUTPUT MODES "verbose"): a header line
  `Mon 2024-12-02 09:20:10.481203 CET [s=..;i=..;b=..;m=..;t=..;x=..]`, then the entry's fields
  indented, one `KEY=value` a line, among them `MESSAGE=`;
- the OpenTelemetry Collector's `debug` exporter with `verbosity: detailed` (collector
  `exporter/debugexporter/internal/otlptext` logs marshaler): `LogRecord #N`, then
  `ObservedTimestamp: ...`, `Timestamp: ...` (Go's `time.Time.String()`:
  `2025-09-09 12:00:04.6 +0000 UTC`, the Unix epoch when the record has none), `SeverityText: `,
  `Body: Str(<the text>)`.

`unblocked` reads such a file's lines and gives the reader each record's message line as one
line with the record's time in front (`<RFC 3339 time> <text>`, what `kubectl logs --timestamps`
writes), the record's other lines as blank lines (read as ignored). The format is decided from the
first SNIFF lines (a file of none of them passes through unchanged, at the cost of one look at
those lines); a YAML document longer than MAX_BLOCK lines is passed through as it stands. Lines left
out (the ingest's candidate filter keeps a record's time lines, reader.BLOCK_TIME_REGEX, and its
message line) do not end a record: its next header does.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator

SNIFF = 200
MAX_BLOCK = 200

_YAML_SEP = "---"
_YAML_TS = re.compile(r"timestamp: ['\"]?(\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:\d{2}))['\"]?$")
_YAML_TEXT = re.compile(r"textPayload: (.*)$")
_YAML_JSON_MSG = re.compile(r"  (?:message|msg): (.*)$")
_YAML_TOP = re.compile(r"[A-Za-z_]\w*:(?: |$)")
_JOURNAL_HEAD = re.compile(
    r"[A-Z][a-z]{2} (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?) ([A-Z][A-Za-z]{1,5}|[+-]\d{2}:?\d{2})? ?\[s=")
_JOURNAL_MSG = re.compile(r"\s+MESSAGE=(.*)$")
_OTEL_HEAD = re.compile(r"LogRecord #\d+$")
_OTEL_TS = re.compile(r"(Observed)?Timestamp: (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?) ([+-]\d{4}) \w+$")
_OTEL_BODY = re.compile(r"Body: Str\((.*)\)$")
# the exporter's lines around the records: resource and scope headers and their attributes
_OTEL_FRAME = ("ResourceLog #", "Resource SchemaURL:", "Resource attributes:", "     -> ", "ScopeLogs #",
               "ScopeLogs SchemaURL:", "InstrumentationScope ")


def _yaml_scalar(s: str) -> str:
    """A one-line YAML scalar's text: single-quoted ('' is a quote), double-quoted (JSON's escapes
    are YAML's), or plain."""
    s = s.strip()
    if len(s) >= 2 and s[0] == "'" and s[-1] == "'":
        return s[1:-1].replace("''", "'")
    if len(s) >= 2 and s[0] == '"' and s[-1] == '"':
        try:
            return json.loads(s)
        except ValueError:
            return s[1:-1]
    return s


def _kind(head: list[tuple[int, str]]) -> str | None:
    seps = sum(1 for _, t in head if t == _YAML_SEP)
    if seps and any(_YAML_TS.match(t) for _, t in head) and any(
            _YAML_TEXT.match(t) or t == "jsonPayload:" for _, t in head):
        return "gcloud"
    if any(_JOURNAL_HEAD.match(t) for _, t in head) and any(_JOURNAL_MSG.match(t) for _, t in head):
        return "journal"
    if any(_OTEL_HEAD.match(t) for _, t in head) and any(_OTEL_BODY.match(t) for _, t in head):
        return "otel"
    return None


def unblocked(it: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """The lines, each block record of a detected format as its message line with its time (see the
    module's doc)."""
    head = list(itertools.islice(it, SNIFF))
    kind = _kind(head) if head else None
    lines = itertools.chain(head, it)
    if kind is None:
        return lines
    return _GCLOUD(lines) if kind == "gcloud" else _headed(lines, kind)


def _time_first(ts: str, text: str) -> str:
    return f"{ts} {text}"


def _gcloud(lines: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    block: list[tuple[int, str]] = []

    def done() -> Iterator[tuple[int, str]]:
        ts, msg_at, msg, in_json = None, None, None, False
        for i, (_, t) in enumerate(block):
            if _YAML_TOP.match(t):
                in_json = t == "jsonPayload:"
                m = _YAML_TS.match(t)
                if m is not None:
                    ts = m.group(1)
                m = _YAML_TEXT.match(t)
                if m is not None:
                    msg_at, msg = i, _yaml_scalar(m.group(1))
            elif in_json and msg is None:
                m = _YAML_JSON_MSG.match(t)
                if m is not None:
                    msg_at, msg = i, _yaml_scalar(m.group(1))
        if ts is None or msg is None:
            yield from block
            return
        for i, (n, t) in enumerate(block):
            yield (n, _time_first(ts, msg)) if i == msg_at else (n, "" if i else t)

    first = True
    for no, text in lines:
        # (a gap in the line numbers does not end a document: the ingest's candidate filter leaves
        # out the fields it needs no word of; a document ends at the next `---`)
        if text == _YAML_SEP or (block and no - block[0][0] >= MAX_BLOCK):
            yield from done() if block else ()
            block = []
            if text != _YAML_SEP:
                yield no, text
                continue
        if block or text == _YAML_SEP or (first and _YAML_TOP.match(text)):
            # (the first document may come without its `---`: a YAML stream's first separator is optional)
            block.append((no, text))
        else:
            yield no, text
        first = False
    if block:
        yield from done()


_GCLOUD = _gcloud


def _headed(lines: Iterator[tuple[int, str]], kind: str) -> Iterator[tuple[int, str]]:
    """journalctl -o verbose and the OTel debug exporter: the time comes before the message, so the
    lines stream through; a record's lines after its header are blank but for the message."""
    ts: str | None = None
    observed: str | None = None
    inside = 0
    for no, text in lines:
        # (a gap in the line numbers does not end a record: the ingest's candidate filter leaves out
        # its fields without Kafka's words; the next record's header does)
        if kind == "journal":
            m = _JOURNAL_HEAD.match(text)
            if m is not None:
                zone = m.group(3) or ""
                ts = f"{m.group(1)}T{m.group(2)}" + (f" {zone}" if zone[:1].isalpha() else zone)
                inside = 1
                yield no, ""
                continue
            if inside and text[:1] in (" ", "\t") and inside < MAX_BLOCK:
                inside += 1
                m = _JOURNAL_MSG.match(text)
                yield no, _time_first(ts, m.group(1)) if m is not None and ts is not None else ""
                continue
            ts, inside = None, 0
            yield no, text
            continue
        if _OTEL_HEAD.match(text):
            ts, observed, inside = None, None, 1
            yield no, ""
            continue
        if inside and inside < MAX_BLOCK:
            inside += 1
            m = _OTEL_TS.match(text)
            if m is not None:
                iso = f"{m.group(2)}T{m.group(3)}{m.group(4)[:3]}:{m.group(4)[3:]}"
                if m.group(1):
                    observed = iso
                elif not m.group(2).startswith("1970-01-01"):
                    ts = iso
                yield no, ""
                continue
            m = _OTEL_BODY.match(text)
            if m is not None:
                t = ts or observed
                yield no, _time_first(t, m.group(1)) if t is not None else m.group(1)
                continue
            if text.startswith(_OTEL_FRAME):
                inside = 0
                yield no, ""
                continue
            yield no, ""
            continue
        yield no, "" if text.startswith(_OTEL_FRAME) else text
