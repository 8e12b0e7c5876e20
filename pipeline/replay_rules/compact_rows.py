"""Compact Events for a big group's high-volume rows (heartbeats, commits): one small object per
line instead of an Event of 24 slots (docs/replay.md "Compact rows of the high-volume kinds").

A hot group's timeline is 91% heartbeats and offset commits (bench-hot: 300,480 of 330,528 lines),
and each was an Event: 224 bytes of slots plus a Python int for its line, time, offset and text row
(~330 bytes a line, 105 MB for bench-hot). Their fields are nearly all shared by thousands of lines
(the same file, client, kind, topic, partition, extra): only the line number, the time and the
offset differ from line to line. So the rows of one *combination* of the shared fields get a class
of their own (`group.kind`, `group.topic`... are class attributes), and each line is an object of
one slot, its row number in the group's Arrow table; line, time and offset are read from the
group's int64 arrays by that row (array.array: no Python int kept per line), the text from the
group's `raw` column as lazy_text does (the slot is the same row number). ~80 bytes a line.

The objects read as Events field by field (`==`, `repr`, `evidence`, `to_dict`), so no rule changes;
`as_event()` gives a real Event (dataclasses.replace on one goes through it: lazy_text.replace_fields).
Only the Arrow replay entry point makes them (event_rows.events_from_arrow with lazy texts, groups
of _SHARE_MIN_ROWS rows or more); `lazy_text.release` empties the arrays with the texts.
"""

from __future__ import annotations

from array import array
from typing import Any

from parsers.events import EVENT_COLUMNS, Event

# the kinds worth a compact object: the lines a DEBUG client log repeats every few seconds per
# member (AbstractCoordinator's heartbeat response, ConsumerCoordinator's offset commit callback)
# and their broker / dump twins; every other kind stays an Event
BULK_KINDS = frozenset({"heartbeat_succeeded", "heartbeat_sent", "offset_committed", "offset_record",
                        "broker_offset_committed"})
# fields read per row from int64 arrays; every other field is its class's (one per combination)
ROW_FIELDS = ("line_no", "ts_ms", "offset")
SHARED_FIELDS = tuple(c for c in EVENT_COLUMNS if c not in ROW_FIELDS and c != "raw")
NULL = -(2 ** 63)            # an int64 that stands for None (no Kafka offset or epoch time is this)
MAX_CLASSES = 4096           # combinations per group; rows of further ones stay Events


class CompactEvent:
    """Base of one group's compact rows (see the module docstring). Never instantiated directly."""

    __slots__ = ("_rawref",)      # the row number in the group's table (lazy_text reads `raw` by it)
    _compact = True
    _texts: Any = None            # the group's lazy_text.ArrowTexts (set on the group's class)

    @property
    def raw(self) -> str:
        texts = type(self)._texts
        if texts is None or texts.column is None:
            raise RuntimeError("evidence text read after its group's Arrow column was released")
        return texts.text(self._rawref)

    @property
    def evidence(self) -> str:
        return f"{self.source}:{self.line_no}"     # as Event.evidence

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, c) for c in EVENT_COLUMNS)

    def as_event(self) -> Event:
        """The same line as a plain Event (its text read now)."""
        return Event(*self._values())

    def to_dict(self) -> dict[str, Any]:
        return self.as_event().to_dict()

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, (Event, CompactEvent)):
            return self._values() == tuple(getattr(other, c) for c in EVENT_COLUMNS)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]   # as Event's (its `extra` is a dict)

    def __repr__(self) -> str:
        return repr(self.as_event())

    def __setattr__(self, name: str, value: Any) -> None:
        if name != "_rawref":
            raise AttributeError(f"cannot assign to field {name!r}")   # frozen, as Event
        object.__setattr__(self, name, value)


_row_of = CompactEvent.__dict__["_rawref"].__get__
_set_row = CompactEvent.__dict__["_rawref"].__set__


def _int_field(values: array) -> property:
    def get(self: Any, _a: array = values, _row: Any = _row_of, _null: int = NULL) -> int | None:
        v = _a[_row(self)]
        return None if v == _null else v
    return property(get)


class CompactGroup:
    """One group's compact rows in the making: its int64 arrays (every row of the table, in table
    order) and its classes, one per combination of the shared fields."""

    def __init__(self, texts: Any) -> None:
        self.arrays = {f: array("q") for f in ROW_FIELDS}
        attrs: dict[str, Any] = {"__slots__": (), "_texts": texts, "_arrays": self.arrays,
                                 "__module__": Event.__module__, "__qualname__": "Event"}
        attrs.update({f: _int_field(self.arrays[f]) for f in ROW_FIELDS})
        self.base = type("Event", (CompactEvent,), attrs)
        self.classes: dict[tuple[Any, ...], Any] = {}

    def add_rows(self, columns: dict[str, list[Any]]) -> None:
        """The next rows' line, time and offset (Python lists of the slice, None for null)."""
        for f in ROW_FIELDS:
            self.arrays[f].extend([NULL if v is None else v for v in columns[f]])

    def make(self, columns: dict[str, list[Any]], first_row: int, plain: Any) -> list[Any]:
        """The rows of one slice (`columns`: EVENT_COLUMNS -> Python list, rows first_row..): a
        compact object for each row of a BULK_KINDS kind, plain(*values) -> Event for the others."""
        n = len(columns["kind"])
        shared = [columns[c] if c != "extra" else list(map(id, columns[c])) for c in SHARED_FIELDS]
        classes, base, new = self.classes, self.base, object.__new__
        out: list[Any] = [None] * n
        plain_rows: list[int] = []
        kind_at = SHARED_FIELDS.index("kind")
        for j, key in enumerate(zip(*shared)):
            cls = classes.get(key, 0)
            if cls == 0:
                cls = classes[key] = (self._class(key, columns["extra"][j])
                                      if key[kind_at] in BULK_KINDS and len(classes) < MAX_CLASSES else None)
            if cls is None:
                plain_rows.append(j)
                continue
            ev = new(cls)
            _set_row(ev, first_row + j)
            out[j] = ev
        if plain_rows:
            picked = [[col[j] for j in plain_rows] for col in (columns[c] for c in EVENT_COLUMNS)]
            for j, ev in zip(plain_rows, map(plain, *picked), strict=True):
                out[j] = ev
        return out

    def _class(self, key: tuple[Any, ...], extra: dict[str, Any]) -> Any:
        attrs: dict[str, Any] = dict(zip(SHARED_FIELDS, key, strict=True))
        attrs["extra"] = extra
        attrs.update({"__slots__": (), "__module__": Event.__module__, "__qualname__": "Event"})
        return type("Event", (self.base,), attrs)


def is_compact(ev: Any) -> bool:
    return isinstance(ev, CompactEvent)


def release(cls: Any) -> None:
    """Empty the int arrays of the group `cls` belongs to (its rows can no longer be read)."""
    for values in cls._arrays.values():
        del values[:]
