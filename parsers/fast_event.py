"""Building an `Event` without the frozen dataclass's keyword `__init__` (the reader's hot path).

A frozen dataclass sets each of its 23 slots through `object.__setattr__` (a name lookup on the class
per field) after binding keyword arguments: 4.4 µs per event. Here the instance is born as
`_Unfrozen`, a plain class with exactly Event's slots (same names, same order, so the same memory
layout), filled by ordinary slot stores (which the interpreter specialises), and then given its
real class by `__class__` assignment, which CPython allows between layout-compatible classes: 0.65 µs.
The result is an ordinary `Event` (equal, immutable, same repr and dict); an import-time self-check
and `tests/parsers/test_fast_event.py` compare it with `Event(...)` field by field. Should the layout
ever differ (a `__weakref__` or `__dict__` added to Event), the self-check fails and the slower
builder that sets each slot through its member descriptor (1.5 µs) is used instead.
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

_SIGNATURE = "def make_event(source, line_no, side, kind, raw, ts_ms, extra, f"
_ROW_SIGNATURE = "def make_event_row(source, line_no, side, kind, raw, ts_ms, extra, row"


class _Unfrozen:
    """Event's memory layout without its frozen `__setattr__`: a birth class only."""

    __slots__ = tuple(Event.__slots__)  # type: ignore[attr-defined]


def _build_retyped() -> Any:
    ns: dict[str, Any] = {"_new": object.__new__, "_Unfrozen": _Unfrozen, "_Event": Event}
    lines = [_SIGNATURE + ", _new=_new, _Unfrozen=_Unfrozen, _Event=_Event):",
             "    ev = _new(_Unfrozen)",
             "    get = f.get"]
    for name in EVENT_COLUMNS:
        lines.append(f"    ev.{name} = {name if name in _POSITIONAL else f'get({name!r})'}")
    lines += ["    ev.__class__ = _Event", "    return ev"]
    exec("\n".join(lines), ns)  # noqa: S102 - generated from EVENT_COLUMNS only
    return ns["make_event"]


def _build_row_retyped() -> Any:
    # make_event_row: the optional columns given as one tuple in EVENT_COLUMNS order (unpacked
    # into locals at once) instead of a dict asked once per column
    ns: dict[str, Any] = {"_new": object.__new__, "_Unfrozen": _Unfrozen, "_Event": Event}
    lines = [_ROW_SIGNATURE + ", _new=_new, _Unfrozen=_Unfrozen, _Event=_Event):",
             "    ev = _new(_Unfrozen)",
             f"    {', '.join(_OPTIONAL)} = row"]
    for name in EVENT_COLUMNS:
        lines.append(f"    ev.{name} = {name}")
    lines += ["    ev.__class__ = _Event", "    return ev"]
    exec("\n".join(lines), ns)  # noqa: S102 - generated from EVENT_COLUMNS only
    return ns["make_event_row"]


def _build_descriptors() -> Any:
    # each slot is set through its own member descriptor's __set__, bound once: no per-field name
    # lookup on the class (what object.__setattr__ does), no keyword binding
    ns: dict[str, Any] = {"_new": object.__new__, "_cls": Event}
    lines = [_SIGNATURE + ", _new=_new, _cls=_cls):", "    ev = _new(_cls)"]
    for name in EVENT_COLUMNS:
        ns[f"_set_{name}"] = Event.__dict__[name].__set__
        value = name if name in _POSITIONAL else f"f.get({name!r})"
        lines.append(f"    _set_{name}(ev, {value})")
    lines.append("    return ev")
    exec("\n".join(lines), ns)  # noqa: S102 - generated from EVENT_COLUMNS only
    return ns["make_event"]


def event_row(f: dict[str, Any]) -> tuple[Any, ...]:
    """The optional Event fields of `f` as make_event_row takes them (EVENT_COLUMNS order, None for
    a field absent from `f`; the last one is kafka_version_hint)."""
    get = f.get
    return tuple([get(name) for name in _OPTIONAL])


def _same_as_dataclass(make: Any) -> bool:
    f: dict[str, Any] = {n: (i if n in ("generation", "member_epoch", "partition", "offset") else f"v{i}")
                         for i, n in enumerate(_OPTIONAL)}
    try:
        ev = make("s", 1, "client", "k", "raw", 2, {"rule": "r"}, f)
        ref = Event("s", 1, "client", "k", "raw", 2, extra={"rule": "r"}, **f)
    except TypeError:  # __class__ assignment refused: layouts differ
        return False
    return type(ev) is Event and ev == ref and repr(ev) == repr(ref)


make_event: Any = _build_retyped() if tuple(Event.__slots__) == EVENT_COLUMNS else None  # type: ignore[attr-defined]
make_event_row: Any = _build_row_retyped() if make_event is not None else None
if make_event is None or not _same_as_dataclass(make_event):
    make_event = _build_descriptors()
    make_event_row = None
if make_event_row is None or not _same_as_dataclass(lambda *a: make_event_row(*a[:7], event_row(a[7]))):
    def make_event_row(source, line_no, side, kind, raw, ts_ms, extra, row):  # noqa: F811 - the fallback
        return make_event(source, line_no, side, kind, raw, ts_ms, extra, dict(zip(_OPTIONAL, row, strict=True)))
make_event_row.__doc__ = """make_event_row(source, line_no, side, kind, raw, ts_ms, extra, row) -> Event, where `row`
is `event_row(f)`: the other Event fields as one tuple (build it once, use it for many events)."""
make_event.__doc__ = """make_event(source, line_no, side, kind, raw, ts_ms, extra, f) -> Event, where `f` maps the
other Event field names (group_id, member_id, generation, ...) to their values. Keys that are not
Event fields are not looked at (the rules produce field names only; a test checks every rule)."""
KNOWN_FIELDS = frozenset(_OPTIONAL)
