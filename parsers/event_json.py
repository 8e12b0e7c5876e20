"""One `Event` as one JSON line, at the speed of the parse (what `coordscope parse` prints).

`Event.to_dict()` goes through `dataclasses.asdict` (a recursive deep copy of all 23 fields) and
`json.dumps` then builds the text in Python: ~37 µs per event, four times the parse itself. Here a
function generated once from `EVENT_COLUMNS` copies the slots into a dict it reuses (no copy of
`extra`: it is only read) and `orjson` (C) writes it: about 1.5 µs per event.

The text is the one `json.dumps(ev.to_dict() [+ {"why": why}], ensure_ascii=False,
separators=(",", ":"))` writes, encoded as UTF-8: same keys in the same order (EVENT_COLUMNS, then
"why" for an unparsed line), same values. `tests/parsers/test_event_json.py` compares both on every
event of sample_logs/ and shared/real_logs/. Where orjson refuses or would write a value otherwise
(an integer beyond 64 bits, a non-string key or a float NaN/Infinity inside `extra`, a lone
surrogate from an undecodable file name; see parsers/json_text.py), the line is written by
`json.dumps` as before, and a lone surrogate goes out as the original bytes of the name
(surrogateescape) instead of failing.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

import orjson

from parsers.events import EVENT_COLUMNS, Event
from parsers.json_text import floats_alike

_OPTION = orjson.OPT_APPEND_NEWLINE
_PER_THREAD = threading.local()


def _compat_line(d: dict[str, Any]) -> bytes:
    """The line as the previous writer made it (json.dumps), for what orjson writes otherwise."""
    return (json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8", "surrogateescape")


def event_line(ev: Event, why: str | None = None) -> bytes:
    """`ev` as one JSON line (UTF-8 bytes ending in a newline); `why` (an unparsed line's reason) is
    added as the last key "why" when given (one writer per thread, made on first use)."""
    write = getattr(_PER_THREAD, "write", None)
    if write is None:
        write = _PER_THREAD.write = event_writer()
    return write(ev, why)


def event_writer() -> Callable[[Event, str | None], bytes]:
    """A function (ev, why=None) -> bytes writing what `event_line` writes, faster: it refills two
    dicts of its own (one with "why") instead of building a 23-key dict per event, whose table is
    too large for Python's small-object allocator (measured while parsing 100,000 lines, dict and
    orjson's call: 2.0 -> 1.3 µs per event, best of 9). One writer per thread: the dicts are not
    locked."""
    plain: dict[str, Any] = dict.fromkeys(EVENT_COLUMNS)
    with_why: dict[str, Any] = dict.fromkeys((*EVENT_COLUMNS, "why"))
    ns: dict[str, Any] = {"_plain": plain, "_with_why": with_why, "_dumps": orjson.dumps, "_opt": _OPTION,
                          "_floats_alike": floats_alike, "_compat_line": _compat_line,
                          "_refused": (orjson.JSONEncodeError, TypeError)}
    lines = ["def write_event(ev, why=None, _str=str, _dict=dict, _int=int):",
             "    if why:",
             "        d = _with_why",
             "        d['why'] = why",
             "    else:",
             "        d = _plain"]
    lines += [f"    d[{name!r}] = ev.{name}" for name in EVENT_COLUMNS]
    lines += ["    x = ev.extra",
              "    if type(x) is _dict:",
              "        for v in x.values():  # mostly short strings: one type test each",
              "            t = type(v)",
              "            if t is _str or t is _int:",
              "                continue",
              "            if t is _dict:  # a commit's offsets by partition: ints, tested here",
              "                for w in v.values():",
              "                    if type(w) is not _int and not _floats_alike(w):",
              "                        return _compat_line(dict(d))",
              "            elif not _floats_alike(v):",
              "                return _compat_line(dict(d))",
              "    elif x is not None:  # not a dict: whatever json.dumps makes of it",
              "        return _compat_line(dict(d))",
              "    try:",
              "        return _dumps(d, option=_opt)",
              "    except _refused:  # a lone surrogate, an int beyond 64 bits, a non-string key",
              "        return _compat_line(dict(d))"]
    exec("\n".join(lines), ns)  # noqa: S102 - generated from EVENT_COLUMNS only
    return ns["write_event"]


# --- lines rendered by the reader itself (`coordscope parse`: parse_path(..., rendered=True)) ------
# The reader's hot path (reader.run_log4j) can hand the CLI the JSON line of an event instead of the
# Event: the same bytes event_line(Event(...)) writes, without building the Event and refilling the
# writer's dict from it. orjson writes every value the same way wherever it stands in the object,
# so the line is put together from pieces: the file's `{"source":..,"line_no":` (source_head), the
# line number, `,"side":"client","kind":..,"raw":` (kind_mid), the raw text, the time, and the
# rest of the object (everything after ts_ms: the optional columns and extra). Where event_line
# would not use orjson (an `extra` value json.dumps writes otherwise, a value orjson refuses) these
# return None and the reader yields the Event as before.


class Rendered(NamedTuple):
    """An event already written as its JSON line (what LineOutcome.event holds in rendered mode)."""

    kind: str
    line: bytes


_OPTIONAL_COLUMNS = EVENT_COLUMNS[6:]  # group_id ... kafka_version_hint, extra (fast_event's order + extra)
_TAIL_TEMPLATE: dict[str, Any] = dict.fromkeys(_OPTIONAL_COLUMNS)
_LINE_TEMPLATE: dict[str, Any] = dict.fromkeys(EVENT_COLUMNS)
_N_COLUMNS = len(EVENT_COLUMNS)
assert EVENT_COLUMNS[:6] == ("source", "line_no", "side", "kind", "raw", "ts_ms") and EVENT_COLUMNS[-1] == "extra"


def _extra_as_orjson(x: Any) -> bool:
    """True when event_writer hands an Event with this `extra` to orjson (the same test)."""
    if type(x) is not dict:
        return x is None
    for v in x.values():
        t = type(v)
        if t is str or t is int:
            continue
        if t is dict:
            for w in v.values():
                if type(w) is not int and not floats_alike(w):
                    return False
        elif not floats_alike(v):
            return False
    return True


def source_head(source: str) -> bytes | None:
    """`{"source":"<source>","line_no":` for a file, None when orjson would not write the name."""
    try:
        return b'{"source":' + orjson.dumps(source) + b',"line_no":'
    except (orjson.JSONEncodeError, TypeError):
        return None


def kind_mid(side: str, kind: str) -> bytes:
    """`,"side":"<side>","kind":"<kind>","raw":`."""
    return b',"side":' + orjson.dumps(side) + b',"kind":' + orjson.dumps(kind) + b',"raw":'


def rest_of_line(row: tuple[Any, ...], extra: Any) -> bytes | None:
    """`,"group_id":..,...,"extra":{..}}` + newline for the optional columns `row` (fast_event's
    event_row order) and `extra`; None where event_line would not write it with orjson."""
    if not _extra_as_orjson(extra):
        return None
    d = dict(zip(_OPTIONAL_COLUMNS, (*row, extra), strict=True))
    try:
        return b"," + orjson.dumps(d, option=_OPTION)[1:]
    except (orjson.JSONEncodeError, TypeError):
        return None


def line_of(source: str, line_no: int, side: str, kind: str, raw: str, ts_ms: int | None,
            fields: dict[str, Any], extra: dict[str, Any]) -> bytes | None:
    """The line of make_event(source, line_no, side, kind, raw, ts_ms, extra, fields), without the
    Event: a copy of a dict already holding every column (in order) takes the values. None when
    `fields` holds a key that is not a column (make_event would leave it out) or event_line would
    not write it with orjson."""
    d = _LINE_TEMPLATE.copy()
    d.update(fields)
    if len(d) != _N_COLUMNS or not _extra_as_orjson(extra):
        return None
    d["source"] = source
    d["line_no"] = line_no
    d["side"] = side
    d["kind"] = kind
    d["raw"] = raw
    d["ts_ms"] = ts_ms
    d["extra"] = extra
    try:
        return orjson.dumps(d, option=_OPTION)
    except (orjson.JSONEncodeError, TypeError):
        return None


__all__ = ["Rendered", "event_line", "event_writer", "kind_mid", "line_of", "rest_of_line", "source_head"]
