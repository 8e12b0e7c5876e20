"""One `Event` as one JSON line, at the speed of the parse (what `coordscope parse` prints).

`Event.to_dict()` goes through `dataclasses.asdict` (a recursive deep copy of all 23 fields) and
`json.dumps` then builds the text in Python: ~37 µs per event, four times the parse itself. Here a
function generated once from `EVENT_COLUMNS` reads the slots into a dict literal (no copy of
`extra`: it is only read) and `orjson` (C) writes it: about 1 µs.

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
from typing import Any

import orjson

from parsers.events import EVENT_COLUMNS, Event
from parsers.json_text import floats_alike

_OPTION = orjson.OPT_APPEND_NEWLINE


def _build_event_dict() -> Any:
    # def event_dict(ev): return {"source": ev.source, ..., "extra": ev.extra}; generated from
    # EVENT_COLUMNS only, so a new column is serialised without touching this module
    items = ", ".join(f"{name!r}: ev.{name}" for name in EVENT_COLUMNS)
    ns: dict[str, Any] = {}
    exec(f"def event_dict(ev):\n    return {{{items}}}\n", ns)  # noqa: S102 - generated from EVENT_COLUMNS only
    return ns["event_dict"]


event_dict = _build_event_dict()
event_dict.__doc__ = """The fields of an Event as a new dict in EVENT_COLUMNS order, without copying
`extra` or converting `partitions` (a tuple, written as a JSON array): for serialisers only."""


def _compat_line(d: dict[str, Any]) -> bytes:
    """The line as the previous writer made it (json.dumps), for what orjson writes otherwise."""
    return (json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8", "surrogateescape")


def event_line(ev: Event, why: str | None = None, _dumps=orjson.dumps, _event_dict=event_dict,
               _str=str) -> bytes:
    """`ev` as one JSON line (UTF-8 bytes ending in a newline); `why` (an unparsed line's reason) is
    added as the last key "why" when given."""
    d = _event_dict(ev)
    if why:
        d["why"] = why
    for v in ev.extra.values():  # mostly short strings: one type test each
        if type(v) is not _str and not floats_alike(v):
            return _compat_line(d)
    try:
        return _dumps(d, option=_OPTION)
    except (orjson.JSONEncodeError, TypeError):  # a lone surrogate, an int beyond 64 bits, an int key
        return _compat_line(d)


__all__ = ["event_dict", "event_line"]
