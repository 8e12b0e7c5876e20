"""Compact Events for a big group's high-volume rows (heartbeats, commits): one small object per
line instead of an Event of 24 slots (docs/replay.md "Compact rows of the high-volume kinds").

A hot group's timeline is 91% heartbeats and offset commits (bench-hot: 300,480 of 330,528 lines),
and each was an Event: 224 bytes of slots plus a Python int for its line, time, offset and text row
(~330 bytes a line, 105 MB for bench-hot). Their fields are nearly all shared by thousands of lines
(the same file, client, kind, topic, partition, extra): only the line number, the time and the
offset differ from line to line. So the rows of one *combination* of the shared fields get a class
of their own (`ev.kind`, `ev.topic`... are class attributes), and each line is an object of two
slots: its row number in the group's Arrow table and its time; line number and offset are read
from the group's int64 arrays by that row (array.array: no Python int kept per line), the text
from the group's `raw` column as lazy_text does (the slot is the same row number). About 110
bytes a line with the time's int and the arrays.

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
# fields read per row from int64 arrays; `ts_ms` is a slot of its own (the most read field, and the
# object is no larger with it: 40 and 48 bytes are one allocation size); every other field is its
# class's (one class per combination)
ROW_FIELDS = ("line_no", "offset")
SHARED_FIELDS = tuple(c for c in EVENT_COLUMNS if c not in ROW_FIELDS and c not in ("raw", "ts_ms"))

NULL = -(2 ** 63)            # an int64 that stands for None (no Kafka offset or epoch time is this)
MAX_CLASSES = 4096           # combinations per group; rows of further ones stay Events


class CompactEvent:
    """Base of one group's compact rows (see the module docstring). Never instantiated directly."""

    __slots__ = ("_rawref", "ts_ms")   # the row number in the group's table (lazy_text reads `raw` by it)
    _compact = True
    _texts: Any = None            # the group's lazy_text.ArrowTexts (set on the group's class)

    @property
    def raw(self) -> str:
        texts = type(self)._texts
        if texts is None or texts.released:
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
        if name not in ("_rawref", "ts_ms"):
            raise AttributeError(f"cannot assign to field {name!r}")   # frozen, as Event
        object.__setattr__(self, name, value)


_row_of = CompactEvent.__dict__["_rawref"].__get__
_set_row = CompactEvent.__dict__["_rawref"].__set__
_set_ts = CompactEvent.__dict__["ts_ms"].__set__


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
        self.made = 0                 # classes made (MAX_CLASSES at most)

    def add_rows(self, columns: dict[str, list[Any]]) -> None:
        """The next rows' line number and offset (Python lists of the slice, None for null)."""
        for f in ROW_FIELDS:
            self.arrays[f].extend([NULL if v is None else v for v in columns[f]])

    def make(self, columns: dict[str, list[Any]], first_row: int, plain: Any) -> list[Any]:
        """The rows of one slice (`columns`: EVENT_COLUMNS -> Python list, rows first_row..): a
        compact object for each row of a BULK_KINDS kind, plain(*values) -> Event for the others.

        A row's combination is the tuple of its shared values (`extra` by identity: one dict per
        distinct text, and a class holds its dict, so no other dict can take its address while the
        class lives; a key of no class only ever yields a plain Event); the lookups and the objects
        are made by `map` and list comprehensions."""
        n = len(columns["kind"])
        keyed = list(zip(*[columns[c] if c != "extra" else list(map(id, columns[c])) for c in SHARED_FIELDS],
                         strict=True))
        classes = self.classes
        of_row = list(map(classes.get, keyed))           # a class, False (an Event), None (not seen yet)
        if None in of_row:
            kinds = columns["kind"]
            for j in [j for j, c in enumerate(of_row) if c is None]:
                cls = classes.get(keyed[j])
                if cls is None:
                    cls = classes[keyed[j]] = (self._class(columns, j) if kinds[j] in BULK_KINDS
                                               and self.made < MAX_CLASSES else False)
                of_row[j] = cls
        del keyed
        out: list[Any] = [None] * n
        idx = [j for j, c in enumerate(of_row) if c]
        if idx:
            objs = list(map(object.__new__, [of_row[j] for j in idx]))
            list(map(_set_row, objs, [first_row + j for j in idx]))
            ts = columns["ts_ms"]
            list(map(_set_ts, objs, [ts[j] for j in idx]))
            for j, ev in zip(idx, objs, strict=True):
                out[j] = ev
        if len(idx) < n:
            plain_rows = [j for j, c in enumerate(of_row) if not c]
            picked = [[col[j] for j in plain_rows] for col in (columns[c] for c in EVENT_COLUMNS)]
            for j, ev in zip(plain_rows, map(plain, *picked), strict=True):
                out[j] = ev
        return out

    def _class(self, columns: dict[str, list[Any]], row: int) -> Any:
        self.made += 1
        attrs: dict[str, Any] = {c: columns[c][row] for c in SHARED_FIELDS}
        attrs.update({"__slots__": (), "__module__": Event.__module__, "__qualname__": "Event"})
        return type("Event", (self.base,), attrs)

def is_compact(ev: Any) -> bool:
    return isinstance(ev, CompactEvent)


def release(cls: Any) -> None:
    """Empty the int arrays of the group `cls` belongs to (its rows can no longer be read)."""
    for values in cls._arrays.values():
        del values[:]
