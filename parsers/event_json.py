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
from typing import Any

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


__all__ = ["event_line", "event_writer"]
