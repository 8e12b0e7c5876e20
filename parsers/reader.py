"""The reader: files and lines -> one LineOutcome per input line (parsed, ignored or unparsed).

Public API (PARSERS_API.md): FileFormat, sniff, LineOutcome, parse_lines, parse_path, FileSummary,
CANDIDATE_REGEX. Every input line gets exactly one outcome, in input order; a multi-line record
(tab-continued lines, stack traces, java.util.logging's second line) yields its event on its first
line and outcomes with the same status and no event on the others.
"""

from __future__ import annotations

import bisect
import gzip
import io
import itertools
import json
import operator
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from parsers import (
    anchors,
    blocks,
    broker,
    client,
    config_block,
    event_json,
    foreign,
    groups_describe,
    layouts,
    nul_runs,
    offsets_dump,
    timestamps,
    truncated,
)
from parsers import origin as origin_mod
from parsers.base import IGNORE, Match
from parsers.build_cache import compile_regex
from parsers.client import _ABSENT, _NO_FIELDS
from parsers.event_json import Rendered
from parsers.events import Event, Kind, Side
from parsers.fast_event import event_row, make_event, make_event_row
from parsers.gzip_stream import TolerantGzip, archive_note, archive_of, compression_of, open_gzip
from parsers.origin import KEY as ORIGIN
from parsers.timestamps import _second_ms, find_ts, naive_zone_name, parse_ts

try:  # Cython's pure-Python mode: this module is also compiled when installed (parsers/_accel.py)
    import cython
except ModuleNotFoundError:
    from parsers._cython_names import cython

MAX_LINE = 65536  # characters; longer lines are rejected (head kept in the reason), never parsed
MAX_RAW = 16384  # characters of raw text kept on an event (multi-line records are capped)
SNIFF_LINES = 200
MAX_CONTINUATION_PARSED = 16
MAX_CONTINUATION_KEPT = 512  # continuation texts held for `raw` (which is capped at MAX_RAW anyway)
# a file of several origins' lines (parsers/origin.py): records of other origins waiting for their
# continuation lines at once, at most (the oldest is completed when one more would wait), and outcomes
# held back behind them so that outcomes stay in line order, at most (then the oldest is completed)
MAX_PARKED = 64
MAX_HELD = 4096
MAX_ORIGINS = 4096  # origins whose client version is kept (then forgotten all at once)
_BATCH = 256  # outcomes per list of run_log4j_batches for the CLI (it writes one list's events at once: ~64 KB)
# outcomes per list when they are handed on one by one (parse_lines): few, because what a list
# holds is alive at once, and with the collector's default thresholds (the ingest's workers) 256
# live outcomes made 5x more young collections and full ones (consumer-0's candidates: 309 young
# and 3 full instead of 58 and 0; 16: 61 and 0)
_SMALL_BATCH = 16


@dataclass(frozen=True, slots=True)
class FileFormat:
    kind: str  # "log" | "offsets_dump" | "groups_describe" | "empty" | "binary"
    layout: str  # a layouts.LAYOUTS name for logs, "n/a" otherwise
    wrappers: tuple[str, ...] = ()  # additive: wrappers stripped from every line (layouts.WRAPPERS)


class LineOutcome(NamedTuple):
    """One input line's fate (immutable; a NamedTuple because one is built per input line)."""

    line_no: int
    status: str  # "parsed" | "ignored" | "unparsed"
    event: Event | None
    why: str | None


_tuple_new = tuple.__new__  # _tuple_new(LineOutcome, (...)): skips the NamedTuple's Python-level __new__
_LINE_NO = operator.itemgetter(0)  # LineOutcome.line_no


@dataclass(slots=True)
class FileSummary:
    """Line accounting for one input; complete once its outcome iterator is exhausted."""

    source: str
    kind: str = "log"
    layout: str = "n/a"
    wrappers: tuple[str, ...] = ()
    lines_read: int = 0
    parsed: int = 0
    ignored: int = 0
    unparsed: int = 0
    rejected: int = 0  # lines refused as binary/garbage/overlong (counted in ignored or unparsed too)
    decode_errors: int = 0  # lines that contained bytes invalid in UTF-8 (replaced by U+FFFD)
    clock_backwards: int = 0  # records whose time is earlier than the record before
    # lines ignored although they look like coordination (a coordinator logger or wording) with no
    # Kafka anchor (LogContext prefix, broker ident, template) a rule reads: counted, never silent
    unanchored: int = 0
    bad_times: int = 0  # records whose time field held no time (JSON null, "abc", NaN, Infinity)
    naive_zone: str = "UTC"  # the zone times written without one are read in (`--tz`)
    kinds: Counter = field(default_factory=Counter)
    reject_reasons: Counter = field(default_factory=Counter)
    messages: list[str] = field(default_factory=list)

    def count(self, o: LineOutcome) -> None:
        self.lines_read += 1
        if o.status == "parsed":
            self.parsed += 1
        elif o.status == "ignored":
            self.ignored += 1
        else:
            self.unparsed += 1
        if o.event is not None:
            self.kinds[o.event.kind] += 1

    @property
    def balanced(self) -> bool:
        return self.lines_read == self.parsed + self.ignored + self.unparsed

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source, "kind": self.kind, "layout": self.layout, "wrappers": list(self.wrappers),
            "lines_read": self.lines_read, "parsed": self.parsed, "ignored": self.ignored,
            "unparsed": self.unparsed, "rejected": self.rejected, "decode_errors": self.decode_errors,
            "clock_backwards": self.clock_backwards, "unanchored": self.unanchored, "bad_times": self.bad_times,
            "naive_zone": self.naive_zone, "kinds": dict(self.kinds),
            "reject_reasons": dict(self.reject_reasons), "messages": list(self.messages),
        }


# --- candidate lines ---------------------------------------------------------------------------

def _candidate_words() -> list[str]:
    words = set(client.CANDIDATE_WORDS)
    for mod in (broker, offsets_dump, groups_describe, config_block, foreign):
        words.update(mod.CANDIDATE_WORDS)
    words.add("Kafka version")  # AppInfoParser: the file states its client version
    return sorted(words)


# lines that continue a record: indented (tab, spaces, stack frames), "Caused by:", exception
# headers; java.util.logging record headers and Kibana's time copied on a line of its own (their
# message is on the next line, which takes its time: parsers/anchors.py); and indented lines
# behind a prefix naming the line's origin (parsers/origin.py: a wrapped config dump or stack trace):
# docker-compose "name | " (coloured on a terminal: colour codes around "name | ", docker/compose
# cmd/formatter/logs.go setPrefix and colors.go ansiColor, read at f72979427), kubectl --prefix
# "[pod/name/container] ", stern "[ns ]pod container " (maybe coloured), a syslog / journalctl short header "Mmm dd hh:mm:ss host app[pid]: "; and a
# collector's JSON record of one line (Docker json-file / Fluent Bit / Fluentd `log`, journald
# `MESSAGE`, Cloud Logging `textPayload`, a JSON layout's message field: layouts._JSON_LINE_KEYS,
# _JSON_MSG_KEYS) whose text is such a line: JSON-escaped, a TAB is `\t` (RFC 8259 section 7)
CONTINUATION_REGEX = (
    r"^\s|^Caused by: |^Suppressed: |^(?:[a-z_$][\w$]*\.)+[\w$]*(?:Exception|Error)(?::|$)"
    r"|^[A-Z][a-z]{2} \d{1,2}, \d{4} \d{1,2}:\d{2}:\d{2} [AP]M "
    r"|^[A-Z][a-z]{2} \d{1,2}, \d{4} @ \d{2}:\d{2}:\d{2}"
    r"|^(?:\x1b\[[0-9;]*m)?[\w.\-]+\s*\| (?:\x1b\[[0-9;]*m)?\s"
    r"|^\[pod/[^\]\s]*\] \s"
    r"|^(?:\x1b\[[0-9;]*m)?[a-z0-9][a-z0-9.\-]*(?:\x1b\[[0-9;]*m)? (?:\x1b\[[0-9;]*m)?[a-z0-9][a-z0-9.\-]*"
    r"(?:\x1b\[[0-9;]*m)? (?:(?:\x1b\[[0-9;]*m)?[a-z0-9][a-z0-9.\-]*(?:\x1b\[[0-9;]*m)? )?\s"
    r"|^(?:<\d{1,3}>)?(?:[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-][\d:]+)?)"
    r" \S+ [^\s\[]+\[\d+\]: \s"
    r"|^<\d{1,3}>1 \S+ \S+ \S+ \S+ \S+ (?:-|(?:\[[^\]]*\])+) \s"
    r'|^\{.*"(?:log|MESSAGE|textPayload|message|msg|@message|text|short_message|full_message)" ?: ?'
    r'"(?:\\[tnrf]|\\u000[9aAdD]| |Caused by: |Suppressed: |(?:[a-z_$][\w$]*\.)+[\w$]*(?:Exception|Error)(?::|\\n|"))'
)


def _java_safe_literal(word: str) -> str:
    # escape only the metacharacters: the result means the same in Python re, Java regex and RE2
    return "".join("\\" + c if c in "\\.[]{}()*+?^$|" else c for c in word)


def _trie(words: Iterable[str]) -> str:
    """The same words as one regex factored by leading character (Python's engine tries far fewer
    alternatives per position)."""
    by_first: dict[str, list[str]] = {}
    for w in sorted(set(words)):
        by_first.setdefault(w[0], []).append(w[1:])
    parts = []
    for c, rests in sorted(by_first.items()):
        rests = sorted(set(rests), key=len, reverse=True)
        if "" in rests:
            parts.append(re.escape(c))
        else:
            parts.append(re.escape(c) + "(?:" + "|".join(re.escape(r) for r in rests) + ")")
    return "|".join(parts)


CANDIDATE_WORDS: tuple[str, ...] = tuple(_candidate_words())
# the opening and closing lines of a pretty-printed JSON object (`jq .`, a Kibana or Elasticsearch
# response): kept by the filter so the object is read as one record (_LogParser._json_record)
JSON_BRACE_REGEX = r"|^\s*[\[{}\]]+,?\s*$"
# the lines of a block record that give its time (parsers/blocks.py: `gcloud logging read` YAML's
# `---` and `timestamp:`, `journalctl -o verbose`'s header, the OTel debug exporter's `LogRecord #N`
# and `Timestamp:`), and a CRI partial line (kept so the run it begins is joined: see _cri_joined)
BLOCK_TIME_REGEX = (r"|^---$|^timestamp: '?\d{4}-\d{2}-\d{2}T"
                    r"|^[A-Z][a-z]{2} \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+ \S+ \[s="
                    r"|^LogRecord #\d+$|^(?:Observed)?Timestamp: \d{4}-"
                    r"|^\d{4}-\d{2}-\d{2}T\S+ (?:stdout|stderr) P ")
CANDIDATE_REGEX: str = ("(?:" + "|".join(_java_safe_literal(w) for w in CANDIDATE_WORDS) + ")|" + CONTINUATION_REGEX
                        + JSON_BRACE_REGEX + BLOCK_TIME_REGEX)
_CANDIDATE = compile_regex(CANDIDATE_REGEX)
# Python-side twin of CANDIDATE_REGEX, same meaning, faster: words (trie) anywhere + anchored forms at 0
_CANDIDATE_WORDS_RX = compile_regex(_trie(CANDIDATE_WORDS))
_CANDIDATE_START_RX = compile_regex((CONTINUATION_REGEX + JSON_BRACE_REGEX + BLOCK_TIME_REGEX).replace("|^", "|").lstrip("^"))


def _log4j_ts_ms(ts: str) -> int | None:
    """Epoch ms of a log4j time; `yyyy-MM-dd HH:mm:ss,SSS` takes the memoised per-second path."""
    if len(ts) == 23 and ts[19] in ",." and ts[4] == "-":
        base = _second_ms(ts[:19])
        frac = ts[20:]
        return base + int(frac) if base is not None and frac.isdigit() else parse_ts(ts)
    return parse_ts(ts)


def is_candidate(line: str) -> bool:
    return _CANDIDATE_WORDS_RX.search(line) is not None or _CANDIDATE_START_RX.match(line) is not None


def candidate_mask(texts: list[str]) -> list[bool]:
    """CANDIDATE_REGEX over a batch of lines at C speed (RE2 through pyarrow.compute, the same
    regex the JVM side uses); falls back to Python `re` without pyarrow."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:  # pragma: no cover - pyarrow is a dependency of the distribution
        search = _CANDIDATE.search
        return [search(t) is not None for t in texts]
    return pc.match_substring_regex(pa.array(texts, type=pa.string()), CANDIDATE_REGEX).to_pylist()


def prefilter(lines: Iterable[tuple[int, str]], counts: Counter | None = None) -> Iterator[tuple[int, str]]:
    """The Python twin of the JVM-side `rlike(CANDIDATE_REGEX)` filter."""
    for no, text in lines:
        if is_candidate(text):
            yield no, text
        elif counts is not None:
            counts["ignored"] += 1


# --- what the candidate filter tells the reader about the lines it drops ---------------------------
# The ingest's filter (pipeline/spark/jvm/SplitScanner.java; its Python twin and the rules it applies:
# parsers/drop_gaps.py) gives, per kept line, one of these codes: whose lines it dropped since
# (docs/parsers.md, "Merged streams"). parse_lines(..., gaps=) reads them.
GAP_NONE, GAP_OWN, GAP_ALL = 0, 1, 2


def origin_rule(fmt: FileFormat) -> str | None:
    """The origin wrapper the filter reads on every line of a file of this format: the outermost
    wrapper when it names the line's origin (layouts.ORIGIN_WRAPPERS), or the one right behind terminal
    colour codes (stern's coloured names, docker compose's coloured prefix: the filter takes the codes off
    first, as strip_wrappers_origin does: origin_behind_ansi). A JSON-string wrapper outside it: none,
    the gaps stay "every record ends"."""
    w = fmt.wrappers
    if fmt.kind != "log" or not w:
        return None
    if w[0] == "ansi" and len(w) > 1:
        w = w[1:]
    return w[0] if w[0] in layouts.ORIGIN_WRAPPERS else None


def json_origins(fmt: FileFormat) -> bool:
    """Whether the filter reads each line's origin from the JSON record the line is (Fluent Bit / fluentd
    kubernetes metadata, journald's _HOSTNAME / _PID, ...: origin.json_origin; parsers/drop_gaps.py
    json_key): a file of JSON records with no wrapper."""
    return fmt.kind == "log" and fmt.layout == "json" and not fmt.wrappers


def origin_behind_ansi(fmt: FileFormat) -> bool:
    """Whether the origin wrapper (origin_rule) is read after the line's colour codes are taken off."""
    return origin_rule(fmt) is not None and fmt.wrappers[0] == "ansi"


# --- sniffing ----------------------------------------------------------------------------------

# control characters other than \t \n \f \r, and the replacement character (undecodable bytes)
_NOT_TEXT = {c: None for c in [*range(0, 9), 11, *range(14, 32), 0xFFFD]}


def _looks_binary(lines: list[str]) -> bool:
    sample = "".join(lines[:50])[:8192]
    if not sample:
        return False
    if "\x00" in sample:
        return True
    # counted by deleting them (str.translate, in C): a per-character loop cost about 1 ms a file,
    # seconds for a directory of thousands of logs
    bad = len(sample) - len(sample.translate(_NOT_TEXT))
    return bad * 10 > len(sample)


def sniff(first_lines: list[str], name: str = "") -> FileFormat:
    lines = list(first_lines[:SNIFF_LINES])
    if not any(ln.strip() for ln in lines):
        return FileFormat("empty", "n/a")
    if _looks_binary(lines):
        return FileFormat("binary", "n/a")
    wrappers = layouts.detect_wrappers(lines)
    stripped = [layouts.strip_wrappers(ln, wrappers) for ln in lines] if wrappers else lines
    if offsets_dump.looks_like_offsets_dump(stripped):
        return FileFormat("offsets_dump", "n/a", wrappers)
    if groups_describe.looks_like_groups_describe(stripped):
        return FileFormat("groups_describe", "n/a", wrappers)
    layout, _hits = layouts.best_layout(stripped)
    return FileFormat("log", layout, wrappers)


# --- line guards -------------------------------------------------------------------------------

_GARBAGE = compile_regex(r"[\x00-\x08\x0e-\x1f\x7f]")
# the same characters as bytes: an ASCII line is checked for them by deleting them from its bytes
# (a table lookup per byte, twice as fast as str.isprintable) and comparing lengths
_GARBAGE_BYTES = bytes([*range(0x00, 0x09), *range(0x0E, 0x20), 0x7F])


def _exact_str(text: Any) -> str:
    """A str subclass's text as an exact str (run_log4j_batches compiled reads its lines as str)."""
    if isinstance(text, str):
        return str.__str__(text)
    raise TypeError(f"a line must be str, not {type(text).__name__}")


def _flag_table(flagged: bytes) -> bytes:
    """A bytes.translate table that changes every byte of `flagged` and keeps every other byte: the
    translation of a text equals the text exactly when it holds none of them. One table lookup per
    byte and no deletion pass (CPython's translate has a faster loop for a table alone than for
    deletions): ~0.16 µs for a 160-character message instead of ~0.31 with deletion and a length
    comparison."""
    table = bytearray(range(256))
    for b in flagged:
        table[b] = 1 if b == 0 else 0
    return bytes(table)


_GARBAGE_FLAGS = _flag_table(_GARBAGE_BYTES)
_GARBAGE_NL_FLAGS = _flag_table(_GARBAGE_BYTES + b"\n")  # and no line break (the slicing path's message)


def _reject_reason(text: str) -> str | None:
    if len(text) > MAX_LINE:
        return f"line too long (more than {MAX_LINE} characters)"
    if "\x00" in text:
        return "binary data (NUL bytes) in line"
    if _GARBAGE.search(text) is not None:
        bad = len(_GARBAGE.findall(text))
        if bad * 20 > len(text) or bad > 8:
            return f"garbage line ({bad} control characters)"
    return None


# --- records -----------------------------------------------------------------------------------

_BROKER_LOGGERS = frozenset({
    "GroupCoordinator", "GroupMetadataManager", "GroupCoordinatorService", "CoordinatorRuntime",
    "GroupCoordinatorShard", "OffsetMetadataManager", "ClassicGroup", "GenericGroup", "GroupMetadata",
    "GroupMetadata$", "CoordinatorLoaderImpl", "CoordinatorLoader", "ConsumerGroup",
})
_BROKER_MSG = ("[GroupCoordinator", "[GroupMetadataManager", "[Group Metadata Manager")
_CLIENT, _BROKER = Side.CLIENT.value, Side.BROKER.value
_VERSION = compile_regex(r"Kafka version ?: ?(\S+)")
_LOG4J_MATCH = layouts.LOG4J.match
# layouts.LOG4J for run_log4j, in two steps: a loose regex splits the line, and the parts it leaves
# loose are then checked against LOG4J's own (ASCII) classes, the time and the logger once per
# distinct value (the second and the logger repeat from line to line). A line that passes both has
# exactly LOG4J's match (the same groups); any other line goes through the general path, which
# applies LOG4J itself (tests/parsers/test_fast_paths.py compares the two). What makes it cheaper
# (0.65 µs instead of 1.8 µs a line): the message group closes after the space before "(logger)",
# so the greedy `.*` is followed by a literal and backs up by sre's fast literal scan instead of
# one retry per character; and no Unicode category is tested per character (run_log4j only takes
# ASCII lines). Why the checks restore LOG4J's match: the time has no "]" in LOG4J either; the
# level is a run of capitals followed by white space in both; and since the loose logger class
# holds LOG4J's, the last " (" after which the loose tail matches is LOG4J's too when that tail
# is a LOG4J logger.
_LOG4J_LOOSE = compile_regex(r"\[([^\]]*)\] ([A-Z]+)[ \t\n\r\x0b\x0c]+(.* )\(([^()\s]+)\)$")
_LOG4J_TIME = compile_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[,.][0-9]{1,9})?(?:Z|[+-][0-9]{2}:?[0-9]{2})?")
_LOG4J_LOGGER = compile_regex(r"([A-Za-z0-9_.$\-]+)(?::[0-9]+)?")
_LOG4J_LEVELS = frozenset(layouts.LEVELS[3:-1].split("|"))

# The tail memo (client.LINE_MEMO: what run_log4j's hot path made of a repeated line, keyed by its
# text after the time) lives beside the body memo, which clear_memos empties with it.
_LINE_MEMO, _LINE_SEEN = client.LINE_MEMO, client.LINE_SEEN
LINE_MEMO_MAX, LINE_MEMO_ENTRIES, LINE_SEEN_ENTRIES = client.LINE_MEMO_MAX, client.LINE_MEMO_ENTRIES, client.LINE_SEEN_ENTRIES
_UNRENDERED = object()  # a tail memo entry's JSON not made yet
# a tail memo hit's raw text is the whole line (never cut at MAX_RAW): its JSON is put together from
# the time part and the tail's JSON kept in the entry
assert LINE_MEMO_MAX + 26 <= MAX_RAW
_MILLIS = {f"{i:03d}": i for i in range(1000)}  # "SSS" -> its value; ASCII digits only
_SEP_MILLIS: dict[str, int] = {}  # ",SSS] " and ".SSS] " -> SSS's value (filled by run_log4j_batches' first call)


def _sep_millis() -> dict[str, int]:
    if not _SEP_MILLIS:
        _SEP_MILLIS.update({sep + k + "] ": v for sep in ",." for k, v in _MILLIS.items()})
    return _SEP_MILLIS
_LEADING_SPACE = frozenset(" \t\n\r\x0b\x0c")  # what LOG4J's \s+ after the level takes, on ASCII lines


# A log4j record ("[%d] %p %m (%c)%n", Kafka's own layout) whose line has no "(logger)" at its end was
# soft-wrapped where it was pasted (a terminal, an e-mail or an issue body breaking a long line at spaces):
# the lines after it that start no record of their own hold the rest of its message, the last one ending
# in the logger. They are glued back with single spaces (a reflow rewrites the whitespace it breaks at);
# the record stays open for at most MAX_SOFT_WRAPPED consecutive lines and closes at the logger. Ingest's
# candidate filter keeps the possible pieces after a kept log4j line (parsers/drop_gaps.py:
# soft_wrap_rule, filter_with_gaps), so there such a record is read whole too.
SOFT_WRAPPED = "soft_wrapped"
MAX_SOFT_WRAPPED = 8
_WRAP_LOGGER_END = compile_regex(r"(?:^|\s)\((?P<logger>[A-Za-z_$][\w$]*(?:\.[\w$\-]+)+)(?::\d+)?\)\s*$")
_SPACES = compile_regex(r"\s+")
_TIME_START = compile_regex(r"\[?\d{1,4}[-/:.]\d")


def _soft_wrap(p: _Record, no: int, text: str) -> bool:
    """Glue `text` to the open record `p` (see SOFT_WRAPPED); False when it is no continuation of it."""
    s = text.strip()
    n = p.extra.get(SOFT_WRAPPED, 0) if p.extra else 0
    if not s or n >= MAX_SOFT_WRAPPED or (p.extra and "truncated" in p.extra) or not p.message.strip() \
            or p.level is None or p.ts_ms is None:
        return False  # (a record the layout read, with its time and level: not text an anchor found)
    if p.texts and n == 0 or layouts.is_continuation(text):
        return False  # a multi-line record already, an indented line, a stack trace: continuations as before
    if no != (p.nos[-1] if p.nos else p.first_no) + 1:
        return False  # after a gap (ingest's candidate filter dropped a line): never glued across it
    if _TIME_START.match(s) is not None:
        return False  # a record of another layout (a date or time first): not a piece of this one
    m = _WRAP_LOGGER_END.search(s)
    piece = s[: m.start()] if m else s
    p.message = _SPACES.sub(" ", p.message.rstrip() + " " + piece).strip()
    p.add(no, text)
    p.extra = {**(p.extra or {}), SOFT_WRAPPED: n + 1}
    if m:
        p.logger = m.group("logger")
    return True


class _Record:
    """A record being collected: its first line's layout fields (the attribute names of
    layouts.Split, which it stands in for, so no Split is allocated per line) and its continuation
    lines."""

    __slots__ = ("first_no", "lines", "nos", "texts", "ts_ms", "level", "thread", "logger", "message",
                 "extra", "anchored")

    def __init__(self, no: int, text: str, ts_ms: int | None, level: str | None, thread: str | None,
                 logger: str | None, message: str, extra: dict | None) -> None:
        self.first_no = no
        self.ts_ms = ts_ms
        self.level = level
        self.thread = thread
        self.logger = logger
        self.message = message
        self.extra = extra
        self.anchored = False  # already re-read by parsers/anchors.py (read once, never in a loop)
        self.nos: list[int] | None = None  # continuation line numbers (lazily created)
        self.texts: list[str] | None = None  # continuation texts
        self.lines = text

    def add(self, no: int, text: str) -> None:
        if self.nos is None:
            self.nos, self.texts = [no], [text]
        else:
            self.nos.append(no)
            if len(self.texts) < MAX_CONTINUATION_KEPT:  # type: ignore[arg-type]
                self.texts.append(text)  # type: ignore[union-attr]


_BROKER_LOGGER_MEMO: dict[str, bool] = {}
# what may follow the time on a line that only carries a time for the next line: a JUL
# SimpleFormatter header's "logger method", Kibana's nothing, a closing quote or pipe
_TIME_HEADER_REST = compile_regex(r"[\s\"'|,*`]*(?:(?P<logger>[A-Za-z_$][\w$]*(?:\.[\w$]+)+)(?:\s+[\w$<>]+)?)?[\s\"'|,*`]*")


# Microsoft.Extensions.Logging's console logger, default "simple" formatter (dotnet/runtime
# src/libraries/Microsoft.Extensions.Logging.Console/src/SimpleConsoleFormatter.cs, .NET 5-9; the
# ConsoleLoggerFormat.Default of .NET Core 2.x-3.x writes the same): a header line "{level}: {category}[{eventId}]",
# the level as GetLogLevelString's four letters, the optional TimestampFormat's time before it, then
# the message on the next line(s) indented by six spaces (_messagePadding). confluent-kafka-dotnet
# applications log librdkafka's lines through it.
_MEL_HEADER = compile_regex(r"(?P<pre>.{0,48}?)(?P<level>trce|dbug|info|warn|fail|crit): (?P<category>[\w.`+<>\-]+)\[(?P<event>-?\d+)\]\s*")
_MEL_LEVELS = {"trce": "TRACE", "dbug": "DEBUG", "info": "INFO", "warn": "WARN", "fail": "ERROR", "crit": "FATAL"}


# a run of 3+ asterisks (a redaction) glued to a word on either side
_GLUED_REDACTION = compile_regex(r"(?<=[A-Za-z0-9])(?=\*{3,})|(?<=\*\*\*)(?=[A-Za-z0-9])")


def _broker_logger(logger: str) -> bool:
    res = _is_broker(logger, "")
    if len(_BROKER_LOGGER_MEMO) < 4096:
        _BROKER_LOGGER_MEMO[logger] = res
    return res


def _logger_info(text: str) -> tuple[str, bool, str | None] | None:
    """run_log4j's facts about the logger text of a log4j line: (logger as LOG4J's group reads it,
    broker side?, class name), or None when LOG4J's logger group would not match the text."""
    m = _LOG4J_LOGGER.fullmatch(text)
    if m is None:
        return None
    logger = m.group(1)
    is_broker = _BROKER_LOGGER_MEMO.get(logger)
    if is_broker is None:
        is_broker = _broker_logger(logger)
    return logger, is_broker, client.logger_class(logger)


def _is_broker(logger: str | None, message: str) -> bool:
    if message.startswith(_BROKER_MSG):
        return True
    if not logger:
        return False
    if logger.startswith(("kafka.coordinator", "org.apache.kafka.coordinator", "o.a.k.coordinator")):
        return True
    return client.logger_class(logger) in _BROKER_LOGGERS


# last characters of a layout's message that may close a suffix a layout or collector appended
# (parsers/anchors.split_suffix): a trailing [thread], (File.java:12), MDC k=v, a ,timestamp, quotes
_SUFFIX_ENDS = frozenset("])}*`|\"'0123456789Z") | frozenset("abcdefghijklmnopqrstuvwxyz")


def _without_suffix(sp: layouts.Split) -> layouts.Split:
    msg, tail = anchors.split_suffix(sp.message)
    if msg == sp.message or not msg:
        return sp
    extra = dict(sp.extra) if sp.extra else {}
    if tail.get("mdc"):
        extra["mdc"] = tail["mdc"]
    ts = sp.ts_ms
    if ts is None and tail.get("ts_text"):
        ft = find_ts(tail["ts_text"])
        ts = ft[0] if ft is not None else None
    return layouts.Split(ts, sp.level, sp.thread or tail.get("thread"), sp.logger or tail.get("logger"), msg,
                         extra or None)


_STRUCTURED = compile_regex(r"[{\"|]")  # text before an anchor that may open a JSON object, a CSV cell, a table cell
_FILE_DAY = compile_regex(r"(?<!\d)(20\d{2})-?(0[1-9]|1[0-2])-?(0[1-9]|[12]\d|3[01])(?!\d)")


_FIRST_NO = operator.attrgetter("first_no")
_NO_SPLIT = object()  # (a line's split not made yet)


def _origin_of(p: _Record) -> str | None:
    x = p.extra
    return x.get(ORIGIN) if x else None


def _continues(p: _Record, sp: Any, origin: str | None) -> bool:
    """Whether a JSON line's message continues the pending record: a continuation line
    (layouts.is_continuation: indented, a stack frame) of the same origin (the wrapper's, else the
    record's own metadata, parsers/origin.py)."""
    msg = sp.message
    if not msg or not layouts.is_continuation(msg) or msg.isspace():
        return False
    mine = origin if origin is not None else (sp.extra.get(ORIGIN) if sp.extra else None)
    return mine == _origin_of(p)


def _file_day(source: str) -> int | None:
    """Noon UTC of a date written in the file's name (the nearest day to any time of day)."""
    m = _FILE_DAY.search(os.path.basename(source))
    if m is None:
        return None
    try:
        return parse_ts(f"{m[1]}-{m[2]}-{m[3]} 12:00:00")
    except ValueError:
        return None


class _LogParser:
    """The state machine behind parse_lines for kind == "log"."""

    def __init__(self, source: str, fmt: FileFormat, stats: dict[str, Any]) -> None:
        self.source = source
        self.layout = layouts.LAYOUTS.get(fmt.layout, layouts.LAYOUTS["plain"])
        self.wrappers = fmt.wrappers
        # a wrapper that names each line's origin (layouts.ORIGIN_WRAPPERS) is among them
        self.origin_wrapped = any(w in layouts.ORIGIN_WRAPPERS for w in fmt.wrappers)
        # a wrapper that writes its own time before the line (kubectl --timestamps, a syslog or journald
        # header): the line's time is checked against it (_wrapped_ts)
        self.timed_wrap = any(w in layouts.TIMED_WRAPPERS for w in fmt.wrappers)
        self.stats = stats
        self.pending: _Record | None = None
        self.last_no = 0
        self.last_ts: int | None = None
        self.version: str | None = None
        # in a file of several origins' lines (parsers/origin.py): the records of origins other than
        # the current line's that wait for their continuation lines (origin -> record, oldest first;
        # None while there is none, the common case), the outcomes completed meanwhile, held back so
        # that outcomes keep line order, and the first line number they were last released below
        self.parked: dict[str, _Record] | None = None
        self.held: list[LineOutcome] = []
        self.released_below = 0
        # the client version each origin's AppInfoParser printed (kafka_version_hint), the lines
        # without an origin's under None (also in `version`, which run_log4j_batches reads); empty
        # while the file printed none
        self.versions: dict[str | None, str] = {}
        self.jul = fmt.layout == "jul"
        self.fmt = fmt
        self.log4j = self.layout.regex is layouts.LOG4J
        self.foreign_state: dict[str, Any] = {}  # parsers/foreign's per-file facts (client versions seen)
        self.plain = self.layout.name == "plain"  # no layout: every line is read by its anchors
        # a line holding only a time (Kibana's "Nov 26, 2026 @ 01:02:03.456", a JUL header in a file
        # of another layout): (line_no, ts_ms, logger), applied to the next line when it has no time
        # (or a Microsoft.Extensions.Logging console header "info: Category[0]": also its level)
        self.carry: tuple[int, int | None, str | None, str | None] | None = None
        # the same per origin in a file of several origins' lines: a header of one origin is for that
        # origin's next line (other origins' lines may come between); `origin_carry` is the current
        # line's, taken from `carries` when the line comes
        self.carries: dict[str, tuple[int, int | None, str | None, str | None]] = {}
        self.origin_carry: tuple[int, tuple[int, int | None, str | None, str | None]] | None = None
        # a date in the file name (server.log.2024-03-01, app-20240301.log) completes a time of day
        # before any line has given a date
        self.file_day = _file_day(source)
        # a pretty-printed JSON object being collected: (line_no, original, unwrapped) from its "{"
        self.json_lines: list[tuple[int, str, str]] | None = None
        # no collecting in log4j files (run_log4j_batches reads their lines itself), nor while collected
        # lines that were no JSON object are read again
        self.json_off = self.log4j
        self.json_skip: int | None = None  # inside an object too long to collect: its indentation
        # the ingest filter's GAP_* codes by line number (parsers/drop_gaps.py filter_with_gaps; a code
        # absent: GAP_NONE), read in files of several origins only; None: a gap ends every record
        self.gap_codes: dict[int, int] | None = None
        # the codes are by the origin each JSON record names (json_origins): read after the line's split
        self.json_keyed = json_origins(fmt)

    def _release(self, out: list[LineOutcome]) -> None:
        """Move the held outcomes of the lines before the first waiting record to `out`, in order."""
        held = self.held
        while True:
            parked = self.parked
            first = min([r.first_no for r in parked.values()]) if parked else None
            p = self.pending
            if p is not None and (first is None or p.first_no < first):
                first = p.first_no
            if first is None:  # nothing waits: all of it
                if held:
                    held.sort(key=_LINE_NO)
                    out.extend(held)
                    held.clear()
            elif first != self.released_below:  # (the held outcomes come after `first` until it is complete)
                self.released_below = first
                held.sort(key=_LINE_NO)
                i = bisect.bisect_left(held, first, key=_LINE_NO)
                if i:
                    out.extend(held[:i])
                    del held[:i]
            if not held and not parked:  # back to feeding the caller's list directly
                self.parked = None
                self.released_below = 0
                return
            if len(held) <= MAX_HELD:
                return
            self._complete_oldest(held)  # too much held back: the oldest waiting record ends here

    def _complete_oldest(self, out: list[LineOutcome]) -> None:
        """Complete the waiting record with the first line (parked, else the current one)."""
        parked = self.parked
        if parked:
            origin, r = min(parked.items(), key=lambda kv: kv[1].first_no)
            p = self.pending
            if p is None or r.first_no < p.first_no:
                del parked[origin]
                self._complete(r, out)
                return
        self.flush(out)

    def _complete(self, r: _Record, out: list[LineOutcome]) -> None:
        """flush() for a record other than the current one."""
        cur, self.pending = self.pending, r
        self.flush(out)
        self.pending = cur

    def _switch(self, origin: str, out: list[LineOutcome]) -> _Record | None:
        """A line of `origin` while the current record is another origin's: that record waits
        (parked) for its own continuation lines, and `origin`'s waiting record, if any, becomes the
        current one again. A record without an origin ends here, as it did before records waited."""
        p = self.pending
        if p is not None:
            self.pending = None
            mine = _origin_of(p)
            if mine is None:
                self._complete(p, out)
            else:
                parked = self.parked
                if parked is None:
                    parked = self.parked = {}
                parked[mine] = p
                if len(parked) > MAX_PARKED:  # the origin that waits longest: its record ends
                    self._complete(parked.pop(next(iter(parked))), out)
        parked = self.parked
        if parked:
            r = parked.pop(origin, None)
            if r is not None:
                self.pending = r
                return r
        return None

    def flush_all(self, out: list[LineOutcome]) -> None:
        """Complete every record: the current one and every waiting one (a gap, the end)."""
        self.flush(out)
        parked = self.parked
        if parked:
            for r in sorted(parked.values(), key=_FIRST_NO):
                self._complete(r, out)
            parked.clear()

    def finish(self, out: list[LineOutcome]) -> None:
        """The input ended: every record is complete, every held outcome goes out."""
        self.end_json(out)  # (lines fed again: in order, through feed)
        if self.parked is None:
            self.flush(out)
            return
        self.flush_all(self.held)
        self._release(out)

    def feed(self, no: int, text: str, out: list[LineOutcome]) -> None:
        """Append the outcomes this line completes (the record before it, or the line itself), in
        line order: while records of other origins wait for their continuation lines (`parked`), the
        outcomes of later lines are held back until the records before them are complete."""
        if self.parked is not None and out is not self.held:
            self.feed(no, text, self.held)
            self._release(out)
            return
        orig = text
        origin = None
        if self.wrappers:
            if self.origin_wrapped:  # kubectl --prefix, stern, docker compose: the line's origin (parsers/origin.py)
                text, origin = layouts.strip_wrappers_origin(text, self.wrappers)
                if self.carries:  # a header line of this origin is for this line only (taken here, whatever comes)
                    c = self.carries.pop(origin, None) if origin is not None else None
                    self.origin_carry = (no, c) if c is not None else None
            else:
                text = layouts.strip_wrappers(text, self.wrappers)
        gap = no != self.last_no + 1
        self.last_no = no
        if len(text) > MAX_LINE or ((tb := text.encode()).translate(_GARBAGE_FLAGS) != tb if text.isascii()
                                    else not text.isprintable() and _GARBAGE.search(text) is not None):
            if "\x1b" in text:  # colour codes on a line after the sniffed head (layouts.ANSI)
                text = layouts.strip_ansi(text)
            reason = _reject_reason(text)
            if reason is not None:
                if self.json_lines is not None:
                    # a rejected line inside a JSON object being collected: no object, its lines are
                    # read one by one first (outcomes stay in line order)
                    self.end_json(out)
                    self.last_no = no
                    if self.parked is not None and out is not self.held:
                        # those lines left records of other origins waiting (JSON records naming their
                        # host): this line's outcome waits behind them, as any line's does then
                        self.flush(self.held)
                        self.held.append(self._reject(no, text, reason))
                        self._release(out)
                        return
                self.flush(out)
                out.append(self._reject(no, text, reason))
                return
        if self.json_lines is not None:  # inside a pretty-printed JSON object
            if not gap:
                self._json_record(no, text, orig, out)
                return
            self.end_json(out)
            self.last_no = no
        elif text[-1:] == "{" and text.strip() == "{" and not self.json_off:
            if self.json_skip is None:
                self.flush(out)
                self.json_lines = [(no, orig, text)]
                return
        elif self.json_skip is not None and text[-1:] in "},":
            if text.strip() in ("}", "},") and len(text) - len(text.lstrip()) == self.json_skip:
                self.json_skip = None  # the end of an object too long to collect
        p = self.pending
        jsp: Any = _NO_SPLIT
        if gap and origin is None and self.json_keyed and self.gap_codes is not None:
            # a JSON record naming its origin (the filter's key: drop_gaps.json_key, the same string):
            # the filter's code says whose lines were dropped, as for a wrapper's origin below
            jsp = self.layout.split(text)
            jo = jsp.extra.get(ORIGIN) if jsp is not None and jsp.extra else None
            if jo is not None:
                code = self.gap_codes.get(no, GAP_NONE)
                if code == GAP_ALL:
                    if p is not None or self.parked:
                        self.flush_all(out)
                elif code == GAP_OWN:
                    if p is not None and _origin_of(p) == jo:
                        self.flush(out)
                    elif self.parked and jo in self.parked:
                        self._complete(self.parked.pop(jo), out)
                p = self.pending
                gap = False   # (told: the switch to this origin's record follows, with the split)
        if gap and (origin is None or self.gap_codes is None):
            # lines left out (the candidate filter's non-candidates) of origins unknown: each may have
            # ended its origin's record, so every record ends here (docs/parsers.md "Merged streams").
            # (With the filter's codes, a line of no origin after dropped lines has GAP_ALL: the same)
            if p is not None or self.parked:
                self.flush_all(out)
                p = None
        elif origin is not None:
            codes = self.gap_codes
            if codes is not None:
                # what the ingest's filter says of the lines it dropped before this one (filter_with_gaps)
                code = codes.get(no, GAP_NONE)
                if code == GAP_ALL:
                    # a dropped line of no origin ended the record current then, whichever: all end
                    if p is not None or self.parked:
                        self.flush_all(out)
                        p = None
                elif code == GAP_OWN:
                    # a line of this origin was dropped since its last kept line: its record ended there.
                    # (GAP_NONE: only other origins' lines were dropped, nothing of this origin ended;
                    # their records end when their own next line says so)
                    if p is not None and _origin_of(p) == origin:
                        self.flush(out)
                        p = None
                    elif self.parked and origin in self.parked:
                        self._complete(self.parked.pop(origin), out)
            if (p is not None and _origin_of(p) != origin) or (p is None and self.parked):
                # a line of another origin never continues a record (merged streams interleave by line):
                # the record waits for its own origin's next line, and this origin's waiting record resumes
                p = self._switch(origin, out)
                if self.parked is not None:  # what this line completes waits behind the parked record
                    out = self.held
        if not text or text.isspace():
            self.flush(out)
            out.append(LineOutcome(no, "ignored", None, None))
            return
        if self.jul and p is not None and p.level is None:
            m = layouts.JUL_BODY.match(text)
            if m is not None:  # the second line of a java.util.logging record
                p.level = m.group("level")
                p.message = m.group("msg")
                p.add(no, text)
                return
        if self.log4j:  # the commonest layout, split inline (layouts.Layout.split does the same)
            m = _LOG4J_MATCH(text)
            if m is not None:
                ts, level, msg, logger = m.group("ts", "level", "msg", "logger")
                ts_ms = _log4j_ts_ms(ts)
                if self.timed_wrap:
                    ts_ms = self._wrapped_ts(orig, text, ts_ms)
                if p is not None:
                    self.flush(out)
                self.pending = _Record(no, orig, ts_ms, level, None, logger, msg,
                                       None if origin is None else {ORIGIN: origin})
                return
            sp = self.layout.split(text)
            if sp is not None and sp.message[-1:] in _SUFFIX_ENDS:
                sp = _without_suffix(sp)
            if sp is not None and sp.logger is None and sp.message[-1:] != ")":
                # the line ends inside its "(%c)" logger suffix (cut short): the message is whole before it
                whole = truncated.without_cut_logger(sp.message)
                if whole is not None:
                    sp.message, sp.extra = whole, {**(sp.extra or {}), "truncated": "logger"}
        else:
            sp = (self.layout.split(text) if jsp is _NO_SPLIT else jsp) if not self.plain else None
            if origin is None and sp is not None and sp.extra and self.layout.name == "json":
                # the origin a JSON record names (collector metadata): its waiting record resumes
                mine = sp.extra.get(ORIGIN)
                if mine is not None and ((p is not None and _origin_of(p) != mine) or (p is None and self.parked)):
                    p = self._switch(mine, out)
                    if self.parked is not None:
                        out = self.held
            if p is not None and sp is not None and self.layout.name == "json" and _continues(p, sp, origin):
                # a collector's record per line (Docker's json-file, CRI, journald, Fluent Bit without a
                # multiline parser): a record holding a continuation of the record before it, from the
                # same origin, is part of it (a ConsumerConfig dump's `\tname = value` lines)
                p.add(no, sp.message.rstrip("\r\n"))
                return
            if sp is not None:
                if sp.extra and sp.extra.get("bad_time"):
                    sp.extra = {k: v for k, v in sp.extra.items() if k != "bad_time"} or None
                    self.stats["bad_times"] = self.stats.get("bad_times", 0) + 1
                if sp.message[-1:] in _SUFFIX_ENDS:
                    sp = _without_suffix(sp)
                if sp.ts_ms is None and sp.extra and "time_of_day" in sp.extra:
                    sp = self._dated(sp)
                if self.timed_wrap:
                    t = self._wrapped_ts(orig, text, sp.ts_ms)
                    if t != sp.ts_ms:
                        sp = layouts.Split(t, sp.level, sp.thread, sp.logger, sp.message, sp.extra)
        if sp is None:
            if p is not None and self.log4j and p.logger is None and _soft_wrap(p, no, text):
                return
            if p is not None and layouts.is_continuation(text):
                p.add(no, text)
                return
            if text.startswith("$ "):  # a shell command pasted above its output
                self.flush(out)
                out.append(LineOutcome(no, "ignored", None, None))
                return
            stripped = text.strip()
            if stripped in ("[", "]", "],", "{", "}"):  # JSON array brackets around JSON lines
                self.flush(out)
                out.append(LineOutcome(no, "ignored", None, None))
                return
            sp = self._anchored_split(no, text, origin)
            if sp is None:
                self.flush(out)
                out.append(LineOutcome(no, "ignored", None, None))
                return
        if p is not None:
            self.flush(out)
        extra = sp.extra
        if origin is not None:  # the wrapper's origin wins over one the layout read (a container's PID 1)
            extra = {**extra, ORIGIN: origin} if extra else {ORIGIN: origin}
        self.pending = _Record(no, orig, sp.ts_ms, sp.level, sp.thread, sp.logger, sp.message, extra)

    def end_json(self, out: list[LineOutcome]) -> None:
        """A JSON object still open (the input or a run of lines ended): its lines read one by one."""
        lines, self.json_lines = self.json_lines, None
        if lines:
            self._replay(lines, out)

    def _json_record(self, no: int, text: str, orig: str, out: list[LineOutcome]) -> bool:
        """Collect a pretty-printed JSON object (`jq .` of an export, a Kibana document or an
        Elasticsearch hit copied whole: one field a line) from its `{` line to the `}` line at the
        same indentation; read as one JSON line whose record is the `{` line (the field lines its
        continuation). False when the line does not belong to it (after a gap: the collected lines
        are read one by one, as they would be without this)."""
        lines = self.json_lines
        assert lines is not None
        lines.append((no, orig, text))
        first = lines[0][2]
        if len(lines) == 2 and first[:1] == "{" and _JSON_LIST_FIELD.fullmatch(text) is not None:
            # a response document at the top level whose first field is the list of records (awscli
            # `logs filter-log-events` {"events": [..]}, `get-log-events`, Datadog's Logs API v2
            # {"data": [..]}, as printed indented): no record itself, each element's object is
            self.json_lines = None
            self.flush(out)
            out.append(LineOutcome(lines[0][0], "ignored", None, None))
            self.last_no = no - 1
            self.feed(no, orig, out)
            return True
        closing = text.strip() in ("}", "},") and len(text) - len(text.lstrip()) == len(first) - len(first.lstrip())
        if not closing and len(lines) < _JSON_RECORD_LINES:
            return True
        self.json_lines = None
        obj = None
        if not closing:  # too long for a log record (a document): read line by line to its end
            self.json_skip = len(first) - len(first.lstrip())
        if closing:
            try:
                obj = json.loads("\n".join(t for _, _, t in lines).strip().rstrip(","))
            except (ValueError, RecursionError):
                obj = None
        if not isinstance(obj, dict):
            self._replay(lines, out)
            return True
        if not isinstance(anchors.json_message(obj), str):  # a document, no log record: as before
            for n, _, _ in lines:
                out.append(LineOutcome(n, "ignored", None, None))
            return True
        one = json.dumps(obj, ensure_ascii=False)
        first_no = lines[0][0]
        sp = self.layout.split(one) if self.layout.name == "json" else None
        if sp is not None and sp.message[-1:] in _SUFFIX_ENDS:
            sp = _without_suffix(sp)
        if sp is None or anchors.find_anchor(sp.message) is None:
            sp = self._anchored_split(first_no, one) or sp
        if sp is None:
            for n, _, _ in lines:
                out.append(LineOutcome(n, "ignored", None, None))
            return True
        rec = _Record(first_no, "\n".join(o for _, o, _ in lines), sp.ts_ms, sp.level, sp.thread, sp.logger,
                      sp.message, sp.extra)
        rec.nos = [n for n, _, _ in lines[1:]]
        self.pending = rec
        self.flush(out)
        return True

    def _replay(self, lines: list[tuple[int, str, str]], out: list[LineOutcome]) -> None:
        """Lines collected as a JSON object that is none: read one by one."""
        off, self.json_off = self.json_off, True
        self.last_no = lines[0][0] - 1
        try:
            for n, o, _ in lines:
                self.feed(n, o, out)
        finally:
            self.json_off = off

    def _near(self) -> int | None:
        """The time of the nearest line before (the pending record's: in a merged file, the line's
        own origin's; else the last one's), else the file name's date: what completes a time without
        a date or a year."""
        p = self.pending
        if p is not None and p.ts_ms is not None:
            return p.ts_ms
        return self.last_ts if self.last_ts is not None else self.file_day

    def _wrapped_ts(self, orig: str, text: str, ts_ms: int | None) -> int | None:
        """The time of a line behind a timed wrapper (layouts.TIMED_WRAPPERS), given the time its own
        layout gave (`ts_ms`): that time when it is the wrapper's moment; when the line has none (a
        layout without a time, a time of day with no date to take) or one a zone apart from the
        wrapper's (a zone-less application time on a host whose collector prints its zone), the
        line's own time read against the wrapper's (timestamps.agreeing_inner_ts), else the wrapper's.
        A wrapper time without a date or year (RFC 3164) is no reference: the time stays."""
        cut = len(orig) - len(text)
        if cut <= 0 or not orig.endswith(text):
            return ts_ms
        if ts_ms is not None and orig[10:11] == "T" and orig[:4].isdigit():
            # the common case, a line time that agrees (kubectl --timestamps, journald short-iso and
            # rsyslog start with their RFC 3339 time): the wrapper's second (cached per second) and zone
            base = _second_ms(orig[:19])
            z = _WRAPPER_ZONE.match(orig, 19, cut) if base is not None else None
            if z is not None:
                zone = z.group(1)
                t0 = base - timestamps._zone_ms(zone) if zone else base
                if abs(ts_ms - t0) < timestamps.AGREE_MS:
                    return ts_ms
        outer = find_ts(orig, None, 0, cut)
        if outer is None or outer[0] is None or outer[3] != "":
            return ts_ms
        if ts_ms is not None and abs(ts_ms - outer[0]) < timestamps.AGREE_MS:
            return ts_ms
        inner = timestamps.agreeing_inner_ts(orig, outer, None, min(len(orig), cut + 48))
        if inner is not None:
            return inner[0]
        return outer[0] if ts_ms is None else ts_ms

    def _dated(self, sp: layouts.Split) -> layouts.Split:
        """A time of day without a date (logback's default layout): the date of the line before,
        else of the file name; said so in extra["date_inferred"]."""
        near = self._near()
        if near is None:
            return sp
        ft = find_ts(sp.extra["time_of_day"], near)  # type: ignore[index]
        if ft is None or ft[0] is None:
            return sp
        extra = dict(sp.extra)  # type: ignore[arg-type]
        extra["date_inferred"] = "from the file name" if near is self.file_day else "from the line before"
        return layouts.Split(ft[0], sp.level, sp.thread, sp.logger, sp.message, extra)

    def _anchored_split(self, no: int, text: str, origin: str | None = None) -> layouts.Split | None:
        """A line outside the file's layout: Kafka's text found wherever it stands
        (parsers/anchors.py), else its whole text is the message."""
        near = self._near()
        r = anchors.read_line(text, near)
        if origin is None:
            carry, self.carry = self.carry, None
            if carry is not None and carry[0] != no - 1:  # (a header is for the next line only)
                carry = None
        else:
            oc, self.origin_carry = self.origin_carry, None
            carry = oc[1] if oc is not None and oc[0] == no else None
        if r is None:
            if text[-1:] == "]" and ": " in text:
                mm = _MEL_HEADER.fullmatch(text)
                if mm is not None:  # a .NET console record's header: level, category (and time) for the next line
                    ft = find_ts(mm["pre"], near, 0, 48) if mm["pre"].strip() else None
                    self._carry(origin, (no, ft[0] if ft else None, mm["category"], _MEL_LEVELS[mm["level"]]))
                    return None
            if carry is not None and carry[3] is not None:
                # the message line of such a record, with no Kafka text the anchors read (a non-Java
                # client's line, the application's own): the header's time, level and category
                return layouts.Split(carry[1], carry[3], None, carry[2], text.lstrip())
            ft = find_ts(text, near, 0, 48)
            # (no Java anchor: a non-Java client's line, parsers/foreign, behind a syslog header that
            # names its origin)
            where = origin_mod.syslog(text)
            extra = {ORIGIN: where} if where is not None else None
            if ft is not None and ft[0] is not None and ft[1] <= 8:
                hm = _TIME_HEADER_REST.fullmatch(text, ft[2])
                if hm is not None:  # a time header (and maybe logger and method): for the next line
                    self._carry(origin, (no, ft[0], hm.group("logger"), None))
                    return None
                # no Kafka text, but the line's own time still dates the lines after it
                return layouts.Split(ft[0], None, None, None, text, extra)
            return layouts.Split(None, None, None, None, text, extra)
        extra = r.extra
        extra["anchor"] = r.anchor
        if extra.pop("bad_time", None):
            self.stats["bad_times"] = self.stats.get("bad_times", 0) + 1
        if "date_inferred" in extra:
            extra["date_inferred"] = "from the file name" if near is self.file_day else "from the line before"
        if r.ts_ms is None and carry is not None:
            r.ts_ms = carry[1]
            if r.logger is None:
                r.logger = carry[2]
            if r.level is None and carry[3] is not None:
                r.level = carry[3]
            if carry[1] is not None:
                extra["time_from_line"] = carry[0]
        return layouts.Split(r.ts_ms, r.level, r.thread, r.logger, r.message, extra)

    def _carry(self, origin: str | None, carry: tuple[int, int | None, str | None, str | None]) -> None:
        """Keep a header's time, logger and level for the next line (of the same origin)."""
        if origin is None:
            self.carry = carry
            return
        if len(self.carries) >= MAX_PARKED:
            self.carries.clear()
        self.carries[origin] = carry

    def _reanchor(self, p: _Record, old: Any, at: int | None = None) -> LineOutcome | None:
        """A record whose layout split gave a message no rule reads: read its first line again by
        Kafka's anchors (a prefix not at the message start, a suffix the layout left in the message).
        The new reading is taken when a rule reads it, or when the old one was ignored and the
        anchored text looks like coordination (then it is `unparsed`, visible)."""
        p.anchored = True
        near = p.ts_ms if p.ts_ms is not None else self.last_ts
        r = None
        if at is not None and not _STRUCTURED.search(p.message, 0, at):
            # the anchor's place in the layout's message, with plain text before it (not inside a
            # JSON string or a CSV cell, which read_line decodes): read around it first
            r = anchors.read_at(p.message, at, near)
            if r is not None and not anchors.rule_reads(r.message, p.logger or r.logger, r.side):
                r = None
        if r is None:
            r = anchors.read_line(p.lines, near)
        if r is None or r.message == p.message:
            return None
        extra = dict(p.extra) if p.extra else {}
        extra.update(r.extra)
        if p.extra and ORIGIN in p.extra:  # a wrapper's origin (the anchors read the line's own text)
            extra[ORIGIN] = p.extra[ORIGIN]
        extra["anchor"] = r.anchor
        if extra.pop("bad_time", None):
            self.stats["bad_times"] = self.stats.get("bad_times", 0) + 1
        new = _Record(p.first_no, p.lines, p.ts_ms if p.ts_ms is not None else r.ts_ms, p.level or r.level,
                      p.thread or r.thread, p.logger or r.logger, r.message, extra)
        new.anchored = True
        new.nos, new.texts = p.nos, p.texts
        o = self._classify(new)
        if o.status == "parsed" or (o.status == "unparsed" and old is IGNORE):
            return o
        return None

    def run_log4j(self, lines: Iterable[tuple[int, str]], rendered: bool = False) -> Iterator[LineOutcome]:
        """The outcomes of run_log4j_batches one by one."""
        for batch in self.run_log4j_batches(lines, rendered, _SMALL_BATCH):
            yield from batch

    # C-level types for the loop's locals when compiled (exact types: each is made here as that
    # type, or read from a table of this module that holds only that type; None stays allowed)
    @cython.locals(out=list, full=list, prefixes=dict, loggers=dict, tails=dict, tails_seen=set, memo=dict,
                   millis=dict, sep_millis=dict, tail=str, msg=str, head=str, body=str, ptext=str, sep=str,
                   level_sp=str, logger_sfx=str, level_len=cython.Py_ssize_t, sfx_len=cython.Py_ssize_t,
                   entry=tuple, new=tuple, light=tuple, p=tuple, pinfo=tuple, row=tuple, c=list, columns=dict,
                   cached=dict, cextra=dict, extra=dict, d=dict, f=dict, mb=bytes, line=bytes, text=str)
    def run_log4j_batches(self, lines: Iterable[tuple[int, str]], rendered: bool = False, size: int = _BATCH,
                          compact: bool = False) -> Iterator[list[LineOutcome]]:
        """parse_lines' loop for a log4j file without wrappers, the same outcomes as feeding every
        line (tests/parsers/test_fast_paths.py). The commonest line (ASCII, no control characters,
        the layout matches) is split here, and while the pending record is such a line alone (a
        "light" record, a tuple: no _Record is built) it is completed here too: a client line whose
        body the rules know becomes its Event in this loop. A line whose text after the time has
        been completed so before is not even split: the tail memo (_LINE_MEMO) holds what that
        text gives. Anything else (continuation lines, other layouts, broker lines, special records,
        lines no rule takes) goes through the general path: `feed`, `flush` and `_classify`.
        `rendered`: the events of this loop's own completions come as event_json.Rendered (the
        line `coordscope parse` writes, made here from the parts: no Event), the others as Events.
        `compact` (with `rendered`; what `coordscope parse` reads, parse_path(..., batched=True)): such
        a line comes as a plain tuple (line_no, kind, JSON line) instead of
        LineOutcome(line_no, "parsed", Rendered(kind, line), None): two tuple-subclass instances made
        through tuple.__new__ cost ~1,700 instructions a line, a plain tuple ~60.
        The outcomes come in lists of about `size` (a generator resumed per list, not per line);
        on an error from `lines` (a read error) the outcomes completed before it
        come first, as when they were yielded one by one."""
        self.stats.setdefault("format", self.fmt)
        feed = self.feed
        out: list[LineOutcome] = []  # the batch: feed and flush append to it too
        add = out.append
        match = _LOG4J_LOOSE.match
        garbage, garbage_nl = _GARBAGE_FLAGS, _GARBAGE_NL_FLAGS  # translate tables (_flag_table)
        levels = _LOG4J_LEVELS
        source = self.source
        memo = client._MEMO
        body_miss = client._parse_body_miss
        prefix_dict = client._prefix_dict
        # this run's LogContext prefixes (the text before their "] ") -> (client._prefix_dict's
        # result, event_json's columns' dict with those fields in: the start of a rendered line's
        # dict) (a file has few prefixes): a plain dict lookup instead of the lru_cache wrapper's,
        # which also reorders its list per call
        prefixes: dict[str, tuple[dict[str, Any] | None, dict[str, Any] | None]] = {}
        tails = _LINE_MEMO
        # rendered: the file's `{"source":..,"line_no":` (None: not rendered), and per kind its mid part
        head_json = event_json.source_head(self.source) if rendered else None
        rest_of_line, dumps, newline = event_json.rest_of_line, event_json.orjson.dumps, event_json._OPTION
        line_template, n_columns = event_json._LINE_TEMPLATE, len(event_json._LINE_TEMPLATE)
        no_prefix_columns = line_template.copy()  # (the same for a line without prefix)
        extra_as_orjson, JSONEncodeError = event_json._extra_as_orjson, event_json.orjson.JSONEncodeError  # noqa: N806
        tails_seen = _LINE_SEEN
        millis = _MILLIS
        # a line's time after its second, its separator, milliseconds and the "] " closing it
        # (text[20:26]): one lookup
        sep_millis = _sep_millis()
        # logger text of the layout -> (logger, broker side?, class name), or None when the text is
        # not a LOG4J logger; this run's (a file has few loggers)
        loggers: dict[str, tuple[str, bool, str | None] | None] = {}
        anchor_search = anchors.PREFIX_ANCHOR.search
        last_sec, sec_ms = None, None  # the last "yyyy-MM-dd HH:mm:ss" checked, and its epoch ms
        # "[" + last_sec while sec_ms is known (a line's text[:20] in its second), else None
        sec_head = None
        # "LEVEL " and " (logger)" of the last line the regex split, and that logger's facts (at first
        # a text longer than any line the slicing path takes, so it cannot match)
        level_sp = logger_sfx = " " * (MAX_LINE + 1)
        logger_lg = None
        # their lengths and the level itself, kept with them (not recomputed per line)
        level_len = sfx_len = MAX_LINE + 1
        level_lv = None
        last_no, last_ts = self.last_no, self.last_ts
        # the pending light record: (no, text, ts_ms, level, logger info, message, tail, tail memo entry)
        light: Any = None
        try:
            for no, item in lines:
                # compiled, the line is read as a str (slices, comparisons and isascii in C): a str
                # subclass as its exact copy, anything else a TypeError, as the str operations below
                # would raise run as Python
                text = (item if type(item) is str else _exact_str(item)) if cython.compiled else item
                if len(out) >= size:
                    full, out = out, []
                    add = out.append
                    yield full
                new: Any = None
                # "[yyyy-MM-dd HH:mm:ss,SSS] " + tail (26+ characters), in the second already checked
                # (then [,.] three ASCII digits and "] ": one lookup, and one comparison for "[" and the second)
                ms = sep_millis.get(text[20:26])
                # (sec_head: 20 characters or None; startswith compares in place, no slice)
                if ms is not None and sec_head is not None and text.startswith(sec_head):
                    tail = text[26:]
                    entry = tails.get(tail)
                    if entry is not None:
                        # the tail matched before, so the line matches as its time does (the line is
                        # then ASCII and clean)
                        new = (no, text, sec_ms + ms, entry[3], entry[4], entry[5], None, entry)
                    elif tail.endswith(logger_sfx) and tail.startswith(level_sp) and text.isascii() and len(text) <= MAX_LINE:
                        # the level and the logger of the last line the regex split: the message is what
                        # lies between them (where LOG4J puts it: no white space to skip at its start, no
                        # line break in it, and " (" + a logger + ")" is only found at the end)
                        msg = tail[level_len:-sfx_len]
                        if msg[:1] not in _LEADING_SPACE and (mb := msg.encode()).translate(garbage_nl) == mb:
                            new = (no, text, sec_ms + ms, level_lv, logger_lg, msg, tail, None)
                else:  # (the tail memo's key, for the regex's line below)
                    tail = text[26:] if text[24:26] == "] " and text[0] == "[" else None
                if new is None:
                    m = match(text) if len(text) <= MAX_LINE and text.isascii() else None
                    if m is not None:
                        ts, level, msg, lraw = m.groups()
                        lg = loggers.get(lraw, _ABSENT)
                        if lg is _ABSENT:
                            lg = _logger_info(lraw)
                            if len(loggers) < 4096:
                                loggers[lraw] = lg
                        # a control character can only be in the message (the other parts are checked
                        # against classes of printable ASCII): looked for there, as bytes (a table
                        # lookup per byte, _flag_table: ~0.16 µs for a 160-character message)
                        if lg is None or level not in levels or (mb := msg.encode()).translate(garbage) != mb:
                            m = None
                        elif len(ts) == 23 and ts[19] in ",." and ts[:19] == last_sec and ts[20:] in millis:
                            ts_ms = sec_ms + millis[ts[20:]] if sec_ms is not None else parse_ts(ts)
                        elif _LOG4J_TIME.fullmatch(ts) is None:
                            m = None
                        elif len(ts) == 23 and ts[19] in ",.":  # _log4j_ts_ms, with the last second kept here
                            last_sec, sec_ms = ts[:19], _second_ms(ts[:19])
                            sec_head = "[" + last_sec if sec_ms is not None else None
                            ms = millis.get(ts[20:])
                            ts_ms = sec_ms + ms if sec_ms is not None and ms is not None else parse_ts(ts)
                        else:
                            ts_ms = parse_ts(ts)
                    if m is None:
                        if light is not None:
                            self.pending = _Record(light[0], light[1], light[2], light[3], None, light[4][0], light[5], None)
                            light = None
                        self.last_no, self.last_ts = last_no, last_ts
                        feed(no, text, out)
                        last_no, last_ts = no, self.last_ts
                        continue
                    new = (no, text, ts_ms, level, lg, msg[:-1], tail, None)
                    level_sp, logger_sfx, logger_lg = level + " ", f" ({lraw})", lg
                    level_lv, level_len, sfx_len = level, len(level_sp), len(logger_sfx)
                last_no = no
                p = light
                light = new
                if p is None:
                    if self.pending is not None:  # a record of the general path: completed there
                        self.last_ts = last_ts
                        self.flush(out)
                        last_ts = self.last_ts
                    continue
                # complete the light record p (what flush and _classify do for it)
                pno, raw, pts, plevel, lg, head, ptail, entry = p
                if pts is not None:
                    if last_ts is not None and pts < last_ts:
                        self.stats["clock_backwards"] = self.stats.get("clock_backwards", 0) + 1
                    last_ts = pts
                if len(raw) > MAX_RAW:
                    raw = raw[:MAX_RAW]
                if entry is not None:  # a tail memo hit: what the code below gave for this tail
                    row = entry[1]
                    if self.version is not None:
                        row = (*row[:-1], self.version)
                    if head_json is not None:
                        # the line's JSON after ts_ms is the entry's (for this file's Kafka version), kept in it
                        c = entry[6]
                        if c[0] is not self.version:
                            c[1] = rest_of_line(row, entry[2])
                            # the raw text's JSON after its time: the tail's, escaped once (the time
                            # part, "[" digits and separators "] ", checked above, needs no escape)
                            c[3] = dumps(raw[26:])[1:] + b',"ts_ms":'
                            c[0] = self.version
                        if c[1] is not None:
                            # (joined: a 7-argument bytes format cost ~2,900 instructions, most of it
                            # parsing the format and getting each argument's buffer)
                            line = b"".join((head_json, str(pno).encode(), c[2], raw[:26].encode(), c[3],
                                             str(pts).encode(), c[1]))
                            add((pno, entry[0], line) if compact else
                                _tuple_new(LineOutcome, (pno, "parsed", _tuple_new(Rendered, (entry[0], line)), None)))
                            continue
                    add(_tuple_new(LineOutcome, (pno, "parsed", make_event_row(source, pno, _CLIENT, entry[0], raw, pts,
                                                                                 entry[2].copy(), row), None)))
                    continue
                plogger = lg[0]
                # (both phrases hold a "v": one character is looked for first, by memchr, where a
                # phrase's search costs ~700 instructions on a 150-character message)
                if lg[1] or ("v" in head and (("Config values" in head and head.find("Config values", 0, 64) >= 0)
                                              or ("Kafka version" in head and head.find("Kafka version", 0, 40) >= 0))):
                    add(self._classify(_Record(pno, p[1], pts, plevel, None, plogger, head, None)))
                    continue
                # client.parse_client_parts, written out
                if head[:1] == "[":
                    # (a one-character slice is a cached string: no allocation, unlike head[:2])
                    if head[1:2] == "G" and head.startswith(_BROKER_MSG):
                        add(self._classify(_Record(pno, p[1], pts, plevel, None, plogger, head, None)))
                        continue
                    # the prefix "[...] " and the body, by one partition (prefixes are keyed by the text
                    # before "] ": no slice of the prefix per line)
                    ptext, sep, body = head.partition("] ")
                    if sep:  # (found after the "[" at 0)
                        pinfo = prefixes.get(ptext)
                        if pinfo is None:
                            pf = prefix_dict(ptext + "] ")
                            pinfo = (pf, None if pf is None else line_template | pf)
                            if len(prefixes) < 4096:
                                prefixes[ptext] = pinfo
                        pf, columns = pinfo
                    else:
                        pf = None
                    if pf is None:  # "[name|task-0] [Consumer ...]", other brackets: the general path
                        add(self._classify(_Record(pno, p[1], pts, plevel, None, plogger, head, None)))
                        continue
                elif head[:7] == "stream-" or (head.find("[", 1) > 0 and anchor_search(head) is not None):
                    # Streams prefixes, and Kafka's text after something else: the general path
                    add(self._classify(_Record(pno, p[1], pts, plevel, None, plogger, head, None)))
                    continue
                else:
                    pf, columns, body = _NO_FIELDS, no_prefix_columns, head
                res = memo.get(bkey := (body, lg[2]), _ABSENT)
                if res is _ABSENT:
                    res = body_miss(body, lg[2], bkey)
                if res is None or res[1] is None:
                    if res is not None:
                        res = IGNORE
                    elif not client.looks_like_coordinator_line(body, plogger):
                        res = IGNORE
                    add(self._client_outcome(_Record(pno, p[1], pts, plevel, None, plogger, head, None), head, plogger, res))
                    continue
                _rule, kind, cached, cextra = res
                extra = cextra.copy()
                extra["level"] = plevel
                extra["logger"] = plogger
                f = None
                if ptail is not None and len(ptail) <= LINE_MEMO_MAX:
                    # admitted on second sight, like client._MEMO's bodies (most lines occur once)
                    if ptail in tails_seen:
                        if len(tails) >= LINE_MEMO_ENTRIES:
                            tails.clear()
                        f = {**pf, **cached}
                        # (the last item: rendered mode's [Kafka version, JSON after ts_ms, kind part up
                        # to the raw text's opening quote, the raw text's JSON after its time])
                        tails[ptail] = (kind, event_row(f), extra.copy(), plevel, lg, head,
                                        [_UNRENDERED, None, event_json.kind_mid(_CLIENT, kind) + b'"', None])
                    else:
                        if len(tails_seen) >= LINE_SEEN_ENTRIES:
                            tails_seen.clear()
                        tails_seen.add(ptail)
                if head_json is not None:
                    # event_json.line_of written out: the columns' dict filled from the prefix's and the
                    # body's fields as make_event would take them from {**pf, **cached} (`columns`: the
                    # columns' dict with the prefix's fields already in, kept with the prefix)
                    d = columns.copy()
                    d.update(cached)
                    if self.version is not None:
                        d["kafka_version_hint"] = self.version
                    ok = True
                    if len(cextra) > 1 or "rule" not in cextra:  # more than the rule's name (a string, as level and logger)
                        for v in cextra.values():  # mostly strings and ints: the full test otherwise
                            if type(v) is not str and type(v) is not int:
                                ok = extra_as_orjson(cextra)  # (level and logger, strings, are not in it)
                                break
                    if ok and len(d) == n_columns:
                        d["source"] = source
                        d["line_no"] = pno
                        d["side"] = _CLIENT
                        d["kind"] = kind
                        d["raw"] = raw
                        d["ts_ms"] = pts
                        d["extra"] = extra
                        try:
                            line = dumps(d, option=newline)
                        except (JSONEncodeError, TypeError):
                            line = None
                        if line is not None:
                            add((pno, kind, line) if compact else
                                _tuple_new(LineOutcome, (pno, "parsed", _tuple_new(Rendered, (kind, line)), None)))
                            continue
                if f is None:
                    f = {**pf, **cached}
                if self.version is not None:
                    f["kafka_version_hint"] = self.version
                add(_tuple_new(LineOutcome, (pno, "parsed", make_event(source, pno, _CLIENT, kind, raw, pts, extra, f), None)))
        except Exception:  # a read error: what was completed before it first
            if out:
                yield out
            raise
        if light is not None:
            self.pending = _Record(light[0], light[1], light[2], light[3], None, light[4][0], light[5], None)
        self.last_no, self.last_ts = last_no, last_ts
        self.finish(out)
        if out:
            yield out

    def flush(self, out: list[LineOutcome]) -> None:
        p = self.pending
        if p is None:
            return
        self.pending = None
        ts = p.ts_ms
        if ts is not None:
            if self.last_ts is not None and ts < self.last_ts:
                self.stats["clock_backwards"] = self.stats.get("clock_backwards", 0) + 1
            self.last_ts = ts
        o = self._classify(p)
        out.append(o)
        if p.nos:
            status = o.status
            for no in p.nos:
                out.append(_tuple_new(LineOutcome, (no, status, None, None)))

    def _classify(self, p: _Record) -> LineOutcome:
        """The outcome of a complete record's first line."""
        sp = p
        head = sp.message
        if not p.anchored and head.find("[", 1) > 0:
            # Kafka's text (a LogContext prefix, a broker ident) after other text the layout left in
            # the message ("[name|task-0] ", a time, a level): read from the anchor, never from the
            # start (a rule starting with a placeholder would take the other text into its field)
            m = anchors.PREFIX_ANCHOR.search(head, 1) if anchors.PREFIX_ANCHOR.match(head) is None else None
            if m is not None:
                alt = self._reanchor(p, IGNORE, m.start())
                if alt is not None:
                    return alt
        # rules read at most the first continuation lines (multi-line templates have 6); a long
        # stack trace is kept in `raw` (capped) but not handed to the rules
        msg = head + "\n" + "\n".join(p.texts[:MAX_CONTINUATION_PARSED]) if p.texts and not (
            p.extra and SOFT_WRAPPED in p.extra) else head
        if head.find("Config values", 0, 64) >= 0:
            cfg = self._config(p, head)
            if cfg is not None:
                return _tuple_new(LineOutcome, (p.first_no, *cfg))
        if head.find("Kafka version", 0, 40) >= 0:
            m = _VERSION.search(head)
            if m:
                x = p.extra
                mine = x.get(ORIGIN) if x else None  # this origin's client version, not the whole file's
                versions = self.versions
                if len(versions) >= MAX_ORIGINS:
                    versions.clear()
                versions[mine] = m.group(1)
                if mine is None:
                    self.version = m.group(1)
                return _tuple_new(LineOutcome, (p.first_no, "ignored", None, None))
        logger = sp.logger
        side = _CLIENT
        is_broker = False
        if logger is not None:
            is_broker = _BROKER_LOGGER_MEMO.get(logger)  # type: ignore[assignment]
            if is_broker is None:
                is_broker = _broker_logger(logger)
        if is_broker or (head[:2] == "[G" and head.startswith(_BROKER_MSG)):
            if foreign.claims(p.lines, logger, self._foreign_state(p)):  # kafka-python's logger is "kafka.coordinator" too
                fo = self._foreign(p, logger)
                if fo is not None:
                    return fo
            side = _BROKER
            res: Any = broker.parse_broker_message(msg, logger)
            why = "no broker rule matched"
        else:
            return self._client_outcome(p, msg, logger, client.parse_client_parts(msg, logger))
        return self._outcome(p, side, res, why)

    def _client_outcome(self, p: _Record, msg: str, logger: str | None, res: Any) -> LineOutcome:
        """_classify's end for a client record, given client.parse_client_parts(msg, logger)."""
        side = _CLIENT
        if res is None and msg and not msg[-1].isspace():
            # a template ending in ": {}" whose value printed empty (an empty partition list joined by
            # ", "), the line's trailing space then dropped by an editor, a paste, a collector or the
            # layout's split; after " {}" (2.4+'s "Revoke previously assigned partitions {}") only an
            # empty partition list: an empty group or coordinator is a value missing, not printed empty
            res = client.parse_client_parts(msg + " ", logger)
            if msg[-1] != ":" and (res[2] if type(res) is tuple else getattr(res, "fields", {})).get("partitions") != ():
                res = None
        # no Java rule took it, or the line is a non-Java client's whose words a Java rule also reads
        # (kafka-python and aiokafka copied Java 0.10's wordings, with Python reprs for the values)
        x = p.extra
        if res is None or res is IGNORE or foreign.claims(
                p.lines, logger, self.foreign_state if x is None or ORIGIN not in x else self._foreign_state(p)):
            fo = self._foreign(p, logger)
            if fo is not None:
                return fo
        if type(res) is tuple:  # hot path: (rule, kind, fields, extra with the rule), fresh dicts
            raw = p.lines if p.texts is None else p.lines + "\n" + "\n".join(p.texts)
            if len(raw) > MAX_RAW:
                raw = raw[:MAX_RAW]
            _rule, kind, f, extra = res
            if p.level:
                extra["level"] = p.level
            if p.thread:
                extra["thread"] = p.thread
            if logger:
                extra["logger"] = logger
            if p.extra:
                extra.update(p.extra)
            if self.versions:
                version = self._version(p)
                if version is not None:
                    f["kafka_version_hint"] = version
            no = p.first_no
            ev = make_event(self.source, no, side, kind, raw, p.ts_ms, extra, f)
            return _tuple_new(LineOutcome, (no, "parsed", ev, None))
        if res is None:
            # a broker line without its ident or logger (pasted, bare layout)
            alt = broker.parse_broker_message(msg, logger)
            if isinstance(alt, Match):
                res, side = alt, _BROKER
        return self._outcome(p, side, res, "no client rule matched")

    def _foreign(self, p: _Record, logger: str | None) -> LineOutcome | None:
        """The outcome of a librdkafka/KafkaJS/kafka-python/aiokafka line (parsers/foreign, issue 22),
        None when the record is not one. Their parsers read the whole first line: they find their own
        envelope (time, level, facility or logger) whatever the file's layout made of it."""
        line = layouts.strip_wrappers(p.lines, self.wrappers) if self.wrappers else p.lines
        res = foreign.parse_line(line, logger, self._foreign_state(p), p.message, p.texts)
        if res is None:
            return None
        if res is foreign.UNRECOGNISED:
            return self._outcome(p, _CLIENT, None, "no rule of a non-Java client matched", cut=False)
        out = self._outcome(p, _CLIENT, res, "")
        if out.event is not None and self.versions and self._version(p) is not None:
            # the file's (or the origin's) Java "Kafka version" is not theirs
            out = out._replace(event=replace(out.event, kafka_version_hint=None))
        return out

    def _version(self, p: _Record) -> str | None:
        """The client version the record's origin printed (AppInfoParser), else the file's."""
        x = p.extra
        if x and ORIGIN in x:
            return self.versions.get(x[ORIGIN], self.version)
        return self.version

    def _foreign_state(self, p: _Record) -> dict[str, Any]:
        """parsers/foreign's facts of the process this record is of: the file's, or, in a file of
        several processes' lines with their origins (parsers/origin.py), that origin's (a librdkafka
        partition list is collected from its own process's lines, its client version is its own)."""
        x = p.extra
        if not x or ORIGIN not in x:
            return self.foreign_state
        states = self.foreign_state.setdefault("by_origin", {})
        st = states.get(x[ORIGIN])
        if st is None:
            st = states[x[ORIGIN]] = {}
        return st

    def _outcome(self, p: _Record, side: str, res: Any, why: str, cut: bool = True) -> LineOutcome:
        """The outcome of a record for a rule result other than the client hot path (`cut`: a miss may
        be a Java line cut short; not for a line a non-Java client's parser claimed)."""
        head = p.message
        if res is None and "***" in head:
            # a redaction that ate a space ("Member *** in group*** has failed", pasted in an issue):
            # read again with the asterisks set apart as a value of their own
            spaced = _GLUED_REDACTION.sub(" ", head)
            alt = broker.parse_broker_message(spaced, p.logger) if side == _BROKER else client.parse_client_message(spaced, p.logger)
            if isinstance(alt, Match):
                alt.fields.setdefault("extra", {})["redaction_spaced"] = True
                res = alt
        if res is None and cut and "\n" not in head and head.strip() \
                and (p.texts[-1] if p.texts else p.lines).rstrip().endswith(head.rstrip()[-40:]):
            # a line cut short (parsers/truncated.py): only where the message ends the line as written
            # (a layout's suffix after it, "(%c)" or a JSON field, shows the message whole)
            got = self._cut(head, side, p.logger)
            if got is not None:
                side, res = got
        if (res is None or res is IGNORE) and not p.anchored:
            alt = self._reanchor(p, res)
            if alt is not None:
                return alt
        if res is IGNORE and (client.STRONG.search(head) is not None or client.logger_class(p.logger) in client.COORDINATOR_LOGGERS):
            self.stats["unanchored"] = self.stats.get("unanchored", 0) + 1
        if res is IGNORE:
            return _tuple_new(LineOutcome, (p.first_no, "ignored", None, None))
        raw = p.lines + "\n" + "\n".join(p.texts) if p.texts else p.lines
        if len(raw) > MAX_RAW:
            raw = raw[:MAX_RAW]
        if res is None:
            words = " ".join(client.split_prefix(head)[1].split()[:4])
            return _tuple_new(LineOutcome, (p.first_no, "unparsed", self._unparsed(p, side, raw, head),
                                            f"{why} (message starts: {words!r})"))
        return _tuple_new(LineOutcome, (p.first_no, "parsed", self._event(p, side, raw, res), None))

    def _cut(self, msg: str, side: str, logger: str | None) -> tuple[str, Match] | None:
        """(side, Match) for a message cut short that no rule read whole, else None."""
        whole = truncated.without_cut_logger(msg)
        if whole is not None:
            on = _BROKER if side == _BROKER or whole.startswith("[G") else _CLIENT
            res = broker.parse_broker_message(whole, logger) if on == _BROKER else client.parse_client_message(whole, logger)
            if isinstance(res, Match):
                res.fields.setdefault("extra", {})["truncated"] = "logger"
                return on, res
        if side == _CLIENT:
            res = truncated.read_cut(msg, logger)
            if res is not None:
                return _CLIENT, res
        else:
            res = truncated.read_cut_broker(msg, logger)
            if res is not None:
                return _BROKER, res
        return None

    def _config(self, p: _Record, head: str) -> tuple[str, Event | None, str | None] | None:
        """A `XxxConfig values:` dump (parsers/config_block.py): every setting line of the record,
        not only the first MAX_CONTINUATION_PARSED, is read."""
        res = config_block.parse_config_block(head, p.texts)
        if res is None:
            return None
        if res is IGNORE:
            return "ignored", None, None
        side = _BROKER if res.kind == Kind.BROKER_CONFIG.value else _CLIENT
        raw = p.lines + "\n" + "\n".join(p.texts) if p.texts else p.lines
        if len(raw) > MAX_RAW:
            raw = raw[:MAX_RAW]
        return "parsed", self._event(p, side, raw, res), None

    def _extra(self, sp: layouts.Split | _Record, extra: dict[str, Any] | None) -> dict[str, Any]:
        out: dict[str, Any] = extra if extra is not None else {}
        if sp.level:
            out["level"] = sp.level
        if sp.thread:
            out["thread"] = sp.thread
        if sp.logger:
            out["logger"] = sp.logger
        if sp.extra:
            out.update(sp.extra)
        return out

    def _event(self, p: _Record, side: str, raw: str, res: Match) -> Event:
        f = res.fields  # a fresh dict per Match: ours to consume
        extra = self._extra(p, f.pop("extra", None))
        extra["rule"] = res.rule
        if self.versions:
            version = self._version(p)
            if version is not None:
                f["kafka_version_hint"] = version
        ts = p.ts_ms
        if "ts_ms" in f:
            rec_ts = f.pop("ts_ms")
            ts = ts if ts is not None else rec_ts
        return make_event(self.source, p.first_no, side, res.kind, raw, ts, extra, f)

    def _unparsed(self, p: _Record, side: str, raw: str, head: str) -> Event:
        prefix, _ = client.split_prefix(head)
        prefix.pop("context", None)
        extra = self._extra(p, prefix.pop("extra", None))
        return Event(source=self.source, line_no=p.first_no, side=side, kind=Kind.UNPARSED.value,
                     raw=raw, ts_ms=p.ts_ms, extra=extra, **prefix)

    def _reject(self, no: int, text: str, reason: str) -> LineOutcome:
        self.stats["rejected"] = self.stats.get("rejected", 0) + 1
        self.stats.setdefault("reject_reasons", Counter())[reason.split(" (")[0]] += 1
        head = text[:2000]
        if is_candidate(head) and "\x00" not in head:
            ev = Event(source=self.source, line_no=no, side=_CLIENT, kind=Kind.UNPARSED.value, raw=head,
                       extra={"rejected": reason})
            return LineOutcome(no, "unparsed", ev, reason)
        return LineOutcome(no, "ignored", None, reason)


def _record_parser(source: str, fmt: FileFormat, stats: dict[str, Any]):
    """Per-line parsers for the non-log kinds (dumps, describe tables)."""
    if fmt.kind == "offsets_dump":
        return Side.OFFSETS.value, offsets_dump.parse_offsets_dump_line
    if fmt.kind == "groups_describe":
        return Side.DESCRIBE.value, groups_describe.DescribeParser().feed
    return None, None


def _unwrapped_lines(lines: Iterable[tuple[int, str]], fmt: FileFormat) -> Iterator[tuple[int, str]]:
    for no, text in lines:
        if fmt.wrappers:
            text = layouts.strip_wrappers(text, fmt.wrappers)
        if "\x1b" in text:
            text = layouts.strip_ansi(text)
        yield no, text


def _joined_dump_records(lines: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str, list[int]]]:
    """(line_no, text, continuation line numbers): a formatter record soft-wrapped over the lines after
    it (offsets_dump.opens_wrapped_record) glued back, its continuation lines (consecutive, at most
    offsets_dump.MAX_WRAPPED_LINES) counted as ignored; a record that never closes is read line by
    line as written. Ingest reads dump files whole (no candidate filter), so it sees the same lines."""
    held: list[tuple[int, str]] = []
    joined = ""
    for no, text in lines:
        if held:
            if (no == held[-1][0] + 1 and len(held) <= offsets_dump.MAX_WRAPPED_LINES
                    and _reject_reason(text) is None and offsets_dump.continues_wrapped_record(joined, text)):
                held.append((no, text))
                joined = offsets_dump.join_wrapped(joined, text)
                if offsets_dump.open_brackets(joined) <= 0:
                    yield held[0][0], joined, [n for n, _ in held[1:]]
                    held = []
                continue
            for n, t in held:  # never closed: as written
                yield n, t, []
            held = []
        if offsets_dump.opens_wrapped_record(text) and _reject_reason(text) is None:
            held, joined = [(no, text)], text
            continue
        yield no, text, []
    for n, t in held:
        yield n, t, []


def _parse_records(source: str, lines: Iterable[tuple[int, str]], fmt: FileFormat,
                   stats: dict[str, Any]) -> Iterator[LineOutcome]:
    side, feed = _record_parser(source, fmt, stats)
    seq: Iterable[tuple[int, str, list[int]]] = (
        _joined_dump_records(_unwrapped_lines(lines, fmt)) if fmt.kind == "offsets_dump"
        else ((no, text, []) for no, text in _unwrapped_lines(lines, fmt)))
    for no, text, cont in seq:
        yield from _record_outcomes(source, no, text, side, feed, fmt, stats)
        for c in cont:
            yield LineOutcome(c, "ignored", None, None)


def _record_outcomes(source: str, no: int, text: str, side: Any, feed: Any, fmt: FileFormat,
                     stats: dict[str, Any]) -> Iterator[LineOutcome]:
    """The outcome of one line (or one glued record) of a dump or describe file."""
    reason = _reject_reason(text)
    if reason is not None:
        stats["rejected"] = stats.get("rejected", 0) + 1
        stats.setdefault("reject_reasons", Counter())[reason.split(" (")[0]] += 1
        yield LineOutcome(no, "ignored", None, reason)
        return
    if not text.strip() or feed is None:
        yield LineOutcome(no, "ignored", None, None)
        return
    res = feed(text)
    if res is IGNORE:
        yield LineOutcome(no, "ignored", None, None)
    elif res is None:
        if is_candidate(text):
            ev = Event(source=source, line_no=no, side=side, kind=Kind.UNPARSED.value, raw=text[:MAX_RAW])
            yield LineOutcome(no, "unparsed", ev, f"no {fmt.kind} rule matched")
        else:
            yield LineOutcome(no, "ignored", None, None)
    else:
        f = dict(res.fields)
        extra = dict(f.pop("extra", None) or {})
        extra["rule"] = res.rule
        ev = Event(source=source, line_no=no, side=side, kind=res.kind, raw=text[:MAX_RAW], extra=extra, **f)
        yield LineOutcome(no, "parsed", ev, None)


def parse_lines(source: str, lines: Iterable[tuple[int, str]], fmt: FileFormat | None = None,
                *, _stats: dict[str, Any] | None = None, rendered: bool = False,
                gaps: dict[int, int] | None = None) -> Iterator[LineOutcome]:
    """Outcomes for (line_no, text) pairs in file order (gaps allowed: filtered non-candidates).
    `rendered=True` (what `coordscope parse` asks): an outcome's event may come as
    event_json.Rendered (its kind and its JSON line, the bytes event_line writes for the Event).
    `gaps`: the filter's GAP_* codes by line number (drop_gaps.filter_with_gaps, the ingest's scanner), read
    in a file whose lines name their origin (origin_rule); else a gap ends every record."""
    stats: dict[str, Any] = _stats if _stats is not None else {}
    it, fmt, lp, fast = _start(source, lines, fmt, stats)
    if gaps is not None and lp is not None and (origin_rule(fmt) is not None or json_origins(fmt)):
        lp.gap_codes = gaps
    if fast:
        for batch in lp.run_log4j_batches(it, rendered, _SMALL_BATCH):  # type: ignore[union-attr]
            yield from batch
    else:
        yield from _outcomes(source, it, fmt, stats, lp)


def _outcome_batches(source: str, lines: Iterable[tuple[int, str]], fmt: FileFormat | None,
                     stats: dict[str, Any], rendered: bool) -> Iterator[list[LineOutcome]]:
    """parse_lines' outcomes in lists, in order: run_log4j_batches' own, else lists of at most
    _BATCH. What `coordscope parse` reads (no generator resumed per line). Rendered: a line the
    reader renders itself comes as a plain tuple (line_no, kind, JSON line), run_log4j_batches'
    `compact` items."""
    it, fmt, lp, fast = _start(source, lines, fmt, stats)
    if fast:
        yield from lp.run_log4j_batches(it, rendered, _BATCH, rendered)  # type: ignore[union-attr]
        return
    outcomes = _outcomes(source, it, fmt, stats, lp)
    while True:
        batch = list(itertools.islice(outcomes, _BATCH))
        if not batch:
            return
        yield batch


def _start(source: str, lines: Iterable[tuple[int, str]], fmt: FileFormat | None, stats: dict[str, Any]
           ) -> tuple[Iterator[tuple[int, str]], FileFormat, _LogParser | None, bool]:
    """The lines (the sniffed head put back), their format, the parser of a log (None for the other
    kinds), and whether run_log4j_batches reads them (an unwrapped log4j file; else `_outcomes`)."""
    it = iter(lines)
    if fmt is None:
        head: list[tuple[int, str]] = []
        for pair in it:
            head.append(pair)
            if len(head) >= SNIFF_LINES:
                break
        fmt = sniff([t for _, t in head])
        stats["format"] = fmt
        it = itertools.chain(head, it)
    stats.setdefault("format", fmt)
    if fmt.kind == "log":
        lp = _LogParser(source, fmt, stats)
        fast = lp.log4j and not lp.wrappers and not lp.jul
        return (it if fast else _cri_joined(blocks.unblocked(it))), fmt, lp, fast
    return it, fmt, None, False


# a CRI container log line (the kubelet's /var/log/pods/.../N.log, written by containerd and CRI-O):
# "<RFC3339Nano time> <stream> <tag> <text>", the tag `P` for a partial line, `F` for the line's last
# part (kubernetes `pkg/kubelet/kuberuntime/logs/logs.go` parseCRILog, tags in cri-api
# `runtime/v1` LogTagPartial / LogTagFull; containerd splits at `max_container_log_line_size`, 16 KiB
# by default, CRI-O at 8 KiB)
_CRI_LINE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}) (stdout|stderr) ([PF]) ")
_CRI_JOIN_MAX = 1 << 20  # a longer run of partial lines is read as it stands


def _cri_joined(it: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """CRI partial lines joined: a run of `P` lines of one stream and the line that ends it (the next
    line of that stream, normally `F`) is the application's one line, read on the run's first line
    number (its own time and stream, tag F, the parts' texts joined); the later lines of the run
    come as blank lines (read as ignored). Only consecutive line numbers of one stream are joined:
    a line of another stream, a gap (the ingest's filtered lines) or a line of another shape ends
    a run, whose lines then stand as they are. A file with no CRI line in its first SNIFF_LINES
    lines passes through as it is."""
    head = list(itertools.islice(it, SNIFF_LINES))
    if not any(_CRI_LINE.match(t) for _, t in head):  # not a CRI node log: the lines as they come
        yield from head
        yield from it
        return
    run: list[tuple[int, str, re.Match[str]]] = []
    size = 0
    for no, text in itertools.chain(head, it):
        m = _CRI_LINE.match(text) if (run or " P " in text[19:48]) else None
        if run:
            if m is not None and no == run[-1][0] + 1 and m.group(1) == run[0][2].group(1) and size < _CRI_JOIN_MAX:
                run.append((no, text, m))
                size += len(text)
                if m.group(2) == "F":
                    first_no, first, fm = run[0]
                    yield first_no, first[:fm.start(2)] + "F " + "".join(t[mm.end():] for _, t, mm in run)
                    for n, _, _ in run[1:]:
                        yield n, ""
                    run, size = [], 0
                continue
            yield from ((n, t) for n, t, _ in run)
            run, size = [], 0
        if m is not None and m.group(2) == "P":
            run, size = [(no, text, m)], len(text)
            continue
        yield no, text
    yield from ((n, t) for n, t, _ in run)


def _outcomes(source: str, it: Iterator[tuple[int, str]], fmt: FileFormat, stats: dict[str, Any],
              lp: _LogParser | None) -> Iterator[LineOutcome]:
    """The outcomes of every format but unwrapped log4j files (run_log4j_batches), one by one."""
    if lp is not None:
        feed = lp.feed
        out: list[LineOutcome] = []
        pop = out.pop
        for no, text in it:
            feed(no, text, out)
            if out:
                if len(out) == 1:  # the usual case: one line completed one record
                    yield pop()
                else:
                    yield from out
                    out.clear()
        lp.finish(out)
        yield from out
    elif fmt.kind in ("empty", "binary"):
        why = "binary file" if fmt.kind == "binary" else None
        for no, _text in it:
            yield LineOutcome(no, "ignored", None, why)
            if why:
                stats["rejected"] = stats.get("rejected", 0) + 1
    else:
        yield from _parse_records(source, it, fmt, stats)


def _chain(head: list[tuple[int, str]], rest: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    yield from head
    yield from rest


# --- files -------------------------------------------------------------------------------------

def _open_text(path: str) -> tuple[io.TextIOBase, bool]:
    raw = open(path, "rb")  # noqa: SIM115 - closed by the caller's generator
    magic = raw.read(6)
    raw.seek(0)
    stream, magic = _decompressed(raw, magic)
    return io.TextIOWrapper(stream, encoding=_encoding(magic), errors="replace", newline=None), stream is not raw


def open_text(path: str) -> tuple[io.TextIOBase, bool]:
    """The file's text as `parse` reads it (decompressed, its encoding by its byte order mark), and
    whether it was compressed (for pipeline/input_files.head_lines)."""
    return _open_text(path)


def _decompressed(raw: Any, magic: bytes) -> tuple[Any, bytes]:
    """`raw`, or its decompressed bytes when `magic` says it is compressed (gzip, bzip2, xz, zstd by
    content, read as far as they go: parsers/gzip_stream.py; the ingest keeps the same lines), and
    the first bytes of the text (for _encoding)."""
    kind = compression_of(magic)
    if kind is None:
        return raw, magic
    stream = open_gzip(raw, kind)
    return stream, stream.peek(3)[:3]


UTF8_BOM = b"\xef\xbb\xbf"


def _encoding(magic: bytes) -> str:
    """UTF-8, or UTF-16 when the file starts with its byte order mark: Windows PowerShell 5's `>`
    and Out-File write UTF-16 LE with a BOM (`kubectl logs pod > pod.log` there), which read as
    UTF-8 is NUL bytes and so a 'binary' file. (`ingest` reads files as UTF-8 in the JVM: not there.)
    A UTF-8 byte order mark (PowerShell 5's `Out-File -Encoding utf8` and `Set-Content -Encoding
    UTF8`, Notepad before Windows 10 1903, .NET's Encoding.UTF8 in a StreamWriter) is taken off
    ("utf-8-sig"): left on, it hid the first line's time and the layout sniff read the file as
    'bare' (14 of 57 events lost on a sample log). The ingest's scanner skips it too."""
    if magic[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "utf-16"
    return "utf-8-sig" if magic[:3] == UTF8_BOM else "utf-8"


def _gzip_problem(stream: io.TextIOBase) -> str | None:
    raw = getattr(getattr(stream, "buffer", None), "raw", None)
    return raw.problem if isinstance(raw, TolerantGzip) else None


# characters per read of _numbered: at most MAX_LINE, so a line that starts and ends inside one read
# is never too long (only a line carried over from the previous read is cut)
_READ_CHARS = MAX_LINE


def _numbered(text_stream: io.TextIOBase, stats: dict[str, Any]) -> Iterator[tuple[int, str]]:
    """(line number, text) pairs; an overlong line is cut at MAX_LINE + 1 characters while reading
    (the rest is skipped without being held in memory) so the reader rejects it. The stream is
    read in chunks of _READ_CHARS characters split at "\n" (it translates "\r\n" and "\r":
    newline=None), and each chunk's pairs come from C iterators (zip, count) chained: no Python
    step per line (a generator resumed per line with a readline call cost ~1,000 instructions a
    line more)."""
    return itertools.chain.from_iterable(_numbered_chunks(text_stream, stats))


# the lines `parse` reads, for the ingest's format sniff (pipeline/input_files.head_lines)
numbered_lines = _numbered


def _numbered_chunks(text_stream: io.TextIOBase, stats: dict[str, Any]) -> Iterator[Iterable[tuple[int, str]]]:
    """_numbered's pairs, one iterable per chunk read."""
    read = text_stream.read
    keep = MAX_LINE + 1  # what is kept of a line: readline(MAX_LINE + 1) gave that much
    no = 1  # the next line's number
    start = ""  # the unfinished last line of what was read so far (at most `keep` characters)
    while True:
        chunk = read(_READ_CHARS)
        if not chunk:
            break
        if "\x00" in chunk:  # zero-filled bytes: line ends (parsers/nul_runs.py); rare, so not per line
            chunk = _nul_chunk(chunk, read, stats, no == 1 and not start)
        lines = chunk.split("\n")
        if len(lines) == 1:  # the carried line goes on through the whole chunk
            if len(start) < keep:
                start = (start + chunk)[:keep]
            continue
        if start:
            # (once `keep` characters of a line are held, the rest of it is dropped)
            lines[0] = (start + lines[0])[:keep] if len(start) < keep else start
        last = lines.pop()
        start = last if len(last) <= keep else last[:keep]
        if ("\ufffd" in chunk or "\ufffd" in lines[0]) and (bad := sum("\ufffd" in t for t in lines)):
            stats["decode_errors"] = stats.get("decode_errors", 0) + bad
        yield zip(itertools.count(no), lines)
        no += len(lines)
    if start:  # the last line, without a line break
        if "\ufffd" in start:
            stats["decode_errors"] = stats.get("decode_errors", 0) + 1
        yield ((no, start),)


def _nul_chunk(chunk: str, read: Any, stats: dict[str, Any], first: bool) -> str:
    """A read holding NUL characters with each run made a line end (nul_runs.as_line_ends). A run
    at the read's end is followed into the next reads (collapsed as it goes: a hole of gigabytes
    holds one character at a time), so that it and a line break after it stay one line end. The
    file's first read also tells whether its NUL bytes look like a binary file's (nul_runs)."""
    nul = chunk.count("\x00")
    while chunk.endswith("\x00"):
        more = read(_READ_CHARS)
        if not more:
            break
        nul += more.count("\x00")
        chunk = chunk.rstrip("\x00") + "\x00" + more
    if first:
        stats["binary_nul"] = nul_runs.too_many_runs(chunk.lstrip("\x00")[:nul_runs.BINARY_PROBE])
    stats["nul_bytes"] = stats.get("nul_bytes", 0) + nul
    stats["nul_runs"] = stats.get("nul_runs", 0) + nul_runs.runs(chunk)
    return nul_runs.as_line_ends(chunk)


def parse_path(path: str, layout: str | None = None, *, rendered: bool = False, batched: bool = False
               ) -> tuple[Iterator[LineOutcome], FileSummary]:
    """Read one file (plain or gzip). The summary is complete once the iterator is exhausted.
    `rendered`: see parse_lines. `batched=True`: the iterator yields lists of outcomes (in order;
    what `coordscope parse` reads: a generator resumed per list instead of three per line)."""
    summary = FileSummary(source=path)
    if path != "-" and not os.path.exists(path):
        summary.kind = "missing"
        summary.messages.append(f"{path}: no such file")
        return iter(()), summary
    if os.path.isdir(path):
        summary.kind = "unreadable"
        summary.messages.append(f"{path}: is a directory")
        return iter(()), summary
    if layout is not None and layout not in layouts.LAYOUTS:
        raise ValueError(f"unknown layout {layout!r} (known: {', '.join(sorted(layouts.LAYOUTS))})")
    try:
        stream, gz = _open_text(path)
    except OSError as exc:
        summary.kind = "unreadable"
        summary.messages.append(f"{path}: cannot read ({exc.strerror or exc})")
        return iter(()), summary
    archive = archive_of(stream.buffer.peek(512)[:512])
    if archive is not None:
        stream.close()
        summary.kind = "binary"
        summary.messages.append(f"{path}: {archive_note(archive)}")
        return iter(()), summary
    return _iterate(path, stream, layout, summary, rendered, batched), summary


def parse_stream(binary: io.BufferedIOBase | Any, source: str = "-", layout: str | None = None, *,
                 rendered: bool = False, batched: bool = False) -> tuple[Iterator[LineOutcome], FileSummary]:
    """Like parse_path for an already open binary stream (standard input); gzip is detected."""
    if layout is not None and layout not in layouts.LAYOUTS:
        raise ValueError(f"unknown layout {layout!r} (known: {', '.join(sorted(layouts.LAYOUTS))})")
    summary = FileSummary(source=source)
    peek = binary.peek(6)[:6] if hasattr(binary, "peek") else b""
    stream, peek = _decompressed(binary, peek)
    text = io.TextIOWrapper(stream, encoding=_encoding(peek), errors="replace", newline=None)
    return _iterate(source, text, layout, summary, rendered, batched), summary


_WRAPPER_ZONE = re.compile(r"(?:[.,]\d+)?(Z|[+-]\d{2}:?\d{2})?[ \t]")
_JSON_LIST_FIELD = re.compile(r'\s+"[\w@$.\-]{1,40}"\s*:\s*\[\s*')
_JSON_RECORD_LINES = 400  # a pretty-printed JSON object longer than this is read line by line


@cython.locals(batch=list, counts=dict, tallies=list, t=tuple, r=tuple, n_parsed=cython.Py_ssize_t,
               n_ignored=cython.Py_ssize_t)
def _count_batch(batch: list[Any], counts: dict[str, int], tallies: list[int]) -> None:
    """Adds a list's parsed and ignored outcomes to tallies[0] and [1] and its events' kinds to
    `counts` (_iterate's batched mode). An item is a LineOutcome, or a plain tuple (line_no, kind,
    JSON line) for a line the reader rendered (parsed). Compiled, a LineOutcome and a Rendered are
    read as the tuples they are (Cython indexes a tuple subclass through its generic slot_sq_item,
    ~750 instructions an index)."""
    n_parsed = n_ignored = 0
    for o in batch:
        if type(o) is tuple:
            n_parsed += 1
            k = o[1]
            counts[k] = counts.get(k, 0) + 1
            continue
        t = cython.cast(tuple, o) if cython.compiled else o
        st = t[1]
        if st == "parsed":
            n_parsed += 1
        elif st == "ignored":
            n_ignored += 1
        ev = t[2]
        if ev is not None:
            if type(ev) is Rendered:
                r = cython.cast(tuple, ev) if cython.compiled else ev
                k = r[0]
            else:
                k = ev.kind
            counts[k] = counts.get(k, 0) + 1
    tallies[0] += n_parsed
    tallies[1] += n_ignored


def _iterate(source: str, stream: io.TextIOBase, layout: str | None, summary: FileSummary,
             rendered: bool = False, batched: bool = False) -> Iterator[LineOutcome]:
    stats: dict[str, Any] = {}
    try:
        numbered = _numbered(stream, stats)
        head: list[tuple[int, str]] = []
        try:
            for pair in numbered:
                head.append(pair)
                if len(head) >= SNIFF_LINES:
                    break
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            summary.messages.append(f"{source}: read error ({exc})")
        fmt = sniff([t for _, t in head], source)
        if stats.get("binary_nul") and fmt.kind != "empty":
            fmt = FileFormat("binary", "n/a")
        if layout is not None and fmt.kind in ("log", "offsets_dump", "groups_describe"):
            fmt = FileFormat("log", layout, fmt.wrappers)
        summary.kind, summary.layout, summary.wrappers = fmt.kind, fmt.layout, fmt.wrappers
        if fmt.kind == "empty" and not head:
            summary.messages.append(f"{source}: empty file")
        elif fmt.kind == "binary":
            summary.messages.append(f"{source}: binary file (NUL or control bytes), not parsed")
        # FileSummary.count written out, the counts kept in locals and added to the summary when the
        # outcomes end (or the consumer stops early): a method call per line was ~5% of a parse
        kinds = summary.kinds
        n = parsed = ignored = 0
        tallies = [0, 0]  # parsed, ignored: _count_batch's
        try:
            if batched:
                # one loop over each list (compiled: in C, the outcomes read as the tuples they are),
                # the kinds counted in a plain dict (first-seen order, as a Counter's) added to the
                # summary's when the outcomes end or the consumer stops
                counts: dict[str, int] = {}
                try:
                    for batch in _outcome_batches(source, itertools.chain(head, numbered), fmt, stats, rendered):
                        n += len(batch)
                        _count_batch(batch, counts, tallies)
                        yield batch  # type: ignore[misc]
                finally:
                    parsed += tallies[0]
                    ignored += tallies[1]
                    kinds.update(counts)
                return
            for o in parse_lines(source, itertools.chain(head, numbered), fmt, _stats=stats, rendered=rendered):
                n += 1
                status = o[1]
                if status == "parsed":
                    parsed += 1
                elif status == "ignored":
                    ignored += 1
                ev = o[2]
                if ev is not None:
                    kinds[ev.kind] += 1
                yield o
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            summary.messages.append(f"{source}: read error after line {summary.lines_read + n} ({exc})")
        finally:
            summary.lines_read += n
            summary.parsed += parsed
            summary.ignored += ignored
            summary.unparsed += n - parsed - ignored
    finally:
        problem = _gzip_problem(stream)
        if problem:
            summary.messages.append(f"{source}: {problem} (after line {summary.lines_read})")
        stream.close()
        summary.rejected = stats.get("rejected", 0)
        summary.reject_reasons = stats.get("reject_reasons", Counter())
        summary.decode_errors = stats.get("decode_errors", 0)
        summary.clock_backwards = stats.get("clock_backwards", 0)
        summary.unanchored = stats.get("unanchored", 0)
        summary.bad_times = stats.get("bad_times", 0)
        summary.naive_zone = naive_zone_name()
        if summary.unanchored:
            summary.messages.append(
                f"{source}: {summary.unanchored} line(s) look like coordination (logger or wording) but carry no "
                "Kafka text a rule reads; not read (see `coordscope explain`)")
        if summary.bad_times:
            summary.messages.append(f"{source}: {summary.bad_times} record(s) with a time field that holds no time")
        if stats.get("nul_bytes") and summary.kind != "binary":
            summary.messages.append(nul_runs.note(source, stats["nul_bytes"], stats["nul_runs"]))
        if summary.decode_errors:
            summary.messages.append(
                f"{source}: {summary.decode_errors} line(s) not valid UTF-8 (bad bytes replaced by U+FFFD)")
        if summary.rejected and summary.kind != "binary":
            summary.messages.append(f"{source}: {summary.rejected} line(s) rejected: "
                                    + ", ".join(f"{k} x{v}" for k, v in summary.reject_reasons.items()))
        if summary.clock_backwards:
            summary.messages.append(f"{source}: clock goes backwards {summary.clock_backwards} time(s)")
