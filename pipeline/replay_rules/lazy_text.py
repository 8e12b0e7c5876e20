"""Evidence text left in Arrow: Events whose `raw` is read from the group's Arrow column when a rule
asks for it, not held as one Python str per line (docs/replay.md "Reading a group's rows").

A hot group's `raw` texts are a third of its Events' memory (bench-hot: 330,528 lines, 82 MB of
str), and most lines' text is read only by the whole-timeline scans (copy detection, settings,
migration wordings), which read it a slice at a time through `iter_raw`; the few rules that read a
single line's text (leave reasons, removal wordings) fetch that row. The values are the same as the
eager ones (`raw` is the same text, `==` and `repr` compare and print it), so no rule changes.

How: each group gets a subclass of Event (`lazy_event_class`), named `Event`, with no slot of its
own (the same memory layout) and a `raw` property in front of Event's `raw` slot. The slot holds the
row number in the group's Arrow column (an int) until someone stores a str there (a copy made with
dataclasses.replace keeps the text it read). The class holds the column; `release` drops it once
the replay is done.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from parsers.events import Event

_RAW = Event.__dict__["raw"]          # Event's slot for `raw` (a member descriptor)
_slot = _RAW.__get__
SLICE_ROWS = 4096                     # texts materialized at once by iter_raw


class ArrowTexts:
    """One group's `raw` column (a pyarrow ChunkedArray of strings, nulls already defaulted): a text
    by row number, one at a time or a slice of rows at once."""

    def __init__(self, column: Any) -> None:
        self.column = column
        self.fetched: dict[int, str] = {}     # rows read one at a time (rare kinds, read by several rules)

    def text(self, row: int) -> str:
        t = self.fetched.get(row)
        if t is None:
            t = self.fetched[row] = self.column[row].as_py()
        return t

    def texts(self, rows: list[int]) -> list[str]:
        import pyarrow as pa

        return self.column.take(pa.array(rows, pa.int64())).to_pylist()


class _LazyRawEvent(Event):
    """Base of the per-group classes (see the module docstring)."""

    __slots__ = ()
    _texts: ArrowTexts | None = None

    @property  # type: ignore[override]
    def raw(self) -> str:
        v = _slot(self)
        if v.__class__ is str:
            return v
        texts = type(self)._texts
        if texts is None:
            raise RuntimeError("evidence text read after its group's Arrow column was released")
        return texts.text(v)

    @raw.setter
    def raw(self, value: Any) -> None:    # Event's __init__ (dataclasses.replace) stores the text
        _RAW.__set__(self, value)


def lazy_event_class(texts: ArrowTexts) -> type[Event]:
    """An Event subclass whose `raw` reads `texts` (one per group)."""
    return type("Event", (_LazyRawEvent,), {"__slots__": (), "_texts": texts, "__qualname__": "Event",
                                             "__module__": Event.__module__})


def release(events: Sequence[Event]) -> None:
    """Drop the Arrow column behind `events` (their texts can no longer be read)."""
    if events and isinstance(events[0], _LazyRawEvent):
        type(events[0])._texts = None


def is_lazy(ev: Event) -> bool:
    return isinstance(ev, _LazyRawEvent)


def iter_raw(events: Sequence[Event]) -> Iterator[str]:
    """`ev.raw` of each event, in order: texts left in Arrow are taken a slice of SLICE_ROWS at a
    time (one Arrow take per slice, the strs freed with the slice), not fetched row by row."""
    for i in range(0, len(events), SLICE_ROWS):
        part = events[i:i + SLICE_ROWS]
        first = part[0]
        if not isinstance(first, _LazyRawEvent):
            if not any(isinstance(e, _LazyRawEvent) for e in part):
                for e in part:
                    yield e.raw
                continue
        cls = type(first)
        values = [_slot(e) if type(e) is cls else e.raw for e in part]
        rows = [v for v in values if v.__class__ is not str]
        if not rows:
            yield from values
            continue
        texts = cls._texts
        if texts is None:
            raise RuntimeError("evidence text read after its group's Arrow column was released")
        fetched = iter(texts.texts(rows))
        for v in values:
            yield v if v.__class__ is str else next(fetched)


def contains_any(events: Sequence[Event], words: tuple[str, ...]) -> list[bool]:
    """For each event, whether its `raw` contains one of `words` (plain substrings, as `in`). Texts
    left in Arrow are searched there, one pass in C per word over the group's column, not fetched."""
    import pyarrow.compute as pc

    masks: dict[type, list[bool]] = {}

    def mask_of(cls: type) -> list[bool] | None:
        m = masks.get(cls)
        if m is None and cls._texts is not None:
            col = cls._texts.column
            hit = pc.match_substring(col, words[0])
            for w in words[1:]:
                hit = pc.or_(hit, pc.match_substring(col, w))
            m = masks[cls] = pc.fill_null(hit, False).to_pylist()
        return m

    out: list[bool] = []
    for e in events:
        v = _slot(e)
        if v.__class__ is str:
            hit = False
            for w in words:
                if w in v:
                    hit = True
                    break
            out.append(hit)
        else:
            m = mask_of(type(e))
            out.append(m[v] if m is not None else any(w in e.raw for w in words))
    return out


def replace_fields(ev: Event, **changes: Any) -> Event:
    """dataclasses.replace for an Event; one whose text is left in Arrow keeps it there (the copy
    holds the row number, not a str)."""
    from dataclasses import replace

    if isinstance(ev, _LazyRawEvent) and "raw" not in changes:
        changes["raw"] = _slot(ev)
    return replace(ev, **changes)
