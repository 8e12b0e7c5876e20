"""Building an `Event` without the frozen dataclass's keyword `__init__` (the reader's hot path).

A frozen dataclass sets each of its 23 slots through `object.__setattr__` (a name lookup on the class
per field), after binding keyword arguments; here the same slots are set through their member
descriptors, from positional values and one dict of the optional fields. The result is an ordinary `Event` (equal, hashable,
immutable); `tests/parsers/test_fast_event.py` checks it against `Event(...)` field by field.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any

from parsers.events import EVENT_COLUMNS, Event

_POSITIONAL = ("source", "line_no", "side", "kind", "raw", "ts_ms", "extra")
_OPTIONAL = tuple(n for n in EVENT_COLUMNS if n not in _POSITIONAL)
# every optional column defaults to None (a new column with another default must be added here)
assert all(f.default is None for f in fields(Event) if f.name in _OPTIONAL), "Event defaults changed"
assert all(f.default is MISSING for f in fields(Event) if f.name in _POSITIONAL[:5])


def _build() -> Any:
    # each slot is set through its own member descriptor's __set__, bound once: no per-field name
    # lookup on the class (what object.__setattr__ does), no keyword binding
    ns: dict[str, Any] = {"_new": object.__new__, "_cls": Event}
    lines = ["def make_event(source, line_no, side, kind, raw, ts_ms, extra, f, _new=_new, _cls=_cls):",
             "    ev = _new(_cls)"]
    for name in EVENT_COLUMNS:
        ns[f"_set_{name}"] = Event.__dict__[name].__set__
        value = name if name in _POSITIONAL else f"f.get({name!r})"
        lines.append(f"    _set_{name}(ev, {value})")
    lines.append("    return ev")
    exec("\n".join(lines), ns)  # noqa: S102 - generated from EVENT_COLUMNS only
    return ns["make_event"]


make_event = _build()
make_event.__doc__ = """make_event(source, line_no, side, kind, raw, ts_ms, extra, f) -> Event, where `f` maps the
other Event field names (group_id, member_id, generation, ...) to their values. Keys that are not
Event fields are not looked at (the rules produce field names only; a test checks every rule)."""
KNOWN_FIELDS = frozenset(_OPTIONAL)
