"""Evidence text left in Arrow: Events whose `raw` is read from the group's Arrow column when a rule
asks for it, not held as one Python str per line (docs/replay.md "Evidence text left in Arrow").

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
from operator import itemgetter
from typing import Any

from parsers.events import Event
from pipeline.replay_rules import compact_rows

_RAW = Event.__dict__["raw"]          # Event's slot for `raw` (a member descriptor)
_slot = _RAW.__get__
_compact_row = compact_rows.CompactEvent.__dict__["_rawref"].__get__
SLICE_ROWS = 4096                     # texts materialized at once by iter_raw


class ArrowTexts:
    """One group's `raw` column (a pyarrow ChunkedArray of strings, nulls already defaulted): a text
    by row number, one at a time or a slice of rows at once.

    With `pack` (a big group's, event_rows.events_from_arrow) the texts are kept compressed
    (packed_text.PackedTexts) and the column itself is not kept: the caller's last reference to
    it frees it. Without LZ4 in the pyarrow build, or with nulls, the column is kept as is."""

    def __init__(self, column: Any, pack: bool = False) -> None:
        import numpy as np
        import pyarrow as pa

        from pipeline.replay_rules import packed_text

        if not _plain_utf8(column.type):      # another layout (string_view, dictionary): as plain text
            column = column.cast(pa.large_string())
        self.n = len(column)
        self.packed = (packed_text.PackedTexts(column)
                       if pack and column.null_count == 0 and packed_text.available() else None)
        self.column = None if self.packed is not None else column
        self.released = False
        self.fetched: dict[int, str] = {}     # rows read one at a time (rare kinds, read by several rules)
        self.starts = np.cumsum([0] + [len(c) for c in column.chunks])    # first row of each chunk
        self.masks: dict[tuple[str, ...], Any] = {}                          # words -> `containing`

    def __len__(self) -> int:
        return self.n

    def release(self) -> None:
        """Drop the texts (they can no longer be read)."""
        self.column = self.packed = None
        self.released = True
        self.fetched.clear()
        self.masks.clear()

    def text(self, row: int) -> str:
        if self.packed is not None:
            return self.packed.text(row)
        t = self.fetched.get(row)
        if t is None:
            t = self.fetched[row] = self.column[row].as_py()
        return t

    def texts(self, rows: list[int]) -> list[str]:
        """The texts of `rows`, in their order: one take per chunk they fall in (a take on the
        ChunkedArray would concatenate its chunks first: a copy of every text of the group)."""
        import numpy as np

        if not rows:
            return []
        if self.packed is not None:
            return self.packed.texts(rows)
        lo, hi = min(rows), max(rows)
        if hi - lo < 2 * len(rows):
            # rows near each other (a timeline of few files is near the table's order): the run of
            # rows they span, picked from in C; cheaper than a take
            block = self.column.slice(lo, hi - lo + 1).to_pylist()
            if hi - lo + 1 == len(rows) and rows == list(range(lo, hi + 1)):
                return block
            return [block[0]] if len(rows) == 1 else list(itemgetter(*[r - lo for r in rows])(block))
        idx = np.asarray(rows, dtype=np.int64)
        chunk_of = np.searchsorted(self.starts, idx, side="right") - 1
        chunks = self.column.chunks
        first = int(chunk_of[0])
        if (chunk_of == first).all():
            return chunks[first].take(idx - self.starts[first]).to_pylist()
        out = np.empty(len(idx), dtype=object)
        for c in np.unique(chunk_of).tolist():
            sel = np.flatnonzero(chunk_of == c)
            vals = chunks[c].take(idx[sel] - self.starts[c]).to_pylist()
            part = np.empty(len(vals), dtype=object)
            part[:] = vals
            out[sel] = part
        return out.tolist()

    def containing(self, words: tuple[str, ...]) -> Any:
        """A numpy bool per row: does its text contain one of `words`? Searched in each chunk's
        UTF-8 bytes with bytes.find (CPython's fast search, in C; a match is a row's when it lies
        inside that row's bytes, which for UTF-8 is exactly `word in text`). Kept per `words`."""
        import numpy as np

        hit = self.masks.get(words)
        if hit is not None:
            return hit
        if self.packed is not None:
            hit = self.masks[words] = self.packed.containing(words)
            return hit
        hit = np.zeros(int(self.starts[-1]), dtype=bool)
        needles = [w.encode("utf-8") for w in words if w]
        if len(needles) < len(words):           # "" is in every text
            hit[:] = True
        for c, ch in enumerate(self.column.chunks):
            data_buf = ch.buffers()[2] if len(ch) else None
            if data_buf is None:
                continue
            width = np.int64 if ch.type.equals(_large_string()) else np.int32
            offs = np.frombuffer(ch.buffers()[1], dtype=width)[ch.offset:ch.offset + len(ch) + 1].astype(np.int64)
            lo = int(offs[0])
            data = data_buf.slice(lo, int(offs[-1]) - lo).to_pybytes()
            ends = (offs[1:] - lo).tolist()
            base = int(self.starts[c])
            for needle in needles:
                p = data.find(needle)
                while p != -1:
                    r = int(np.searchsorted(offs, lo + p, side="right")) - 1
                    if p + len(needle) <= ends[r]:
                        hit[base + r] = True
                        p = data.find(needle, ends[r])    # the next row
                    else:                                  # across two rows' bytes: not a match
                        p = data.find(needle, p + 1)
        self.masks[words] = hit
        return hit


def _plain_utf8(t: Any) -> bool:
    import pyarrow as pa

    return pa.types.is_string(t) or pa.types.is_large_string(t)


def _large_string() -> Any:
    import pyarrow as pa

    return pa.large_string()


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
        if texts is None or texts.released:
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
    """Drop the Arrow column behind `events` (their texts can no longer be read), and the int
    arrays of their compact rows (compact_rows)."""
    if not events:
        return
    classes = set(map(type, events))
    for cls in classes:
        if issubclass(cls, _LazyRawEvent):
            if cls._texts is not None:
                cls._texts.release()
            cls._texts = None
        elif getattr(cls, "_compact", False) and cls._texts is not None:
            cls._texts.release()
            compact_rows.release(cls)


def is_lazy(ev: Event) -> bool:
    return isinstance(ev, _LazyRawEvent) or getattr(ev, "_compact", False)


def raw_slices(events: Sequence[Event]) -> Iterator[tuple[Sequence[Event], list[str]]]:
    """(events[i:i + SLICE_ROWS], their `raw` texts) slice after slice: texts left in Arrow are
    taken a slice at a time (one Arrow take, or a slice of the column for a run of rows), and
    freed with it."""
    for i in range(0, len(events), SLICE_ROWS):
        part = events[i:i + SLICE_ROWS]
        texts, values = _one_group(part)
        if texts is None:
            yield part, [e.raw for e in part]
        elif str not in set(map(type, values)):
            yield part, texts.texts(values)
        else:
            fetched = iter(texts.texts([v for v in values if v.__class__ is not str]))
            yield part, [v if v.__class__ is str else next(fetched) for v in values]


def _one_group(events: Sequence[Event]) -> tuple[Any, list[Any]]:
    """(the group's ArrowTexts, every event's raw slot: a row number, or the text of a plain Event)
    when the events are one group's lazy and compact Events (plain Events mixed in hold their text
    in the slot), else (None, [])."""
    classes = set(map(type, events))
    texts: set[int] = set()
    owner = None
    compact = set()
    for c in classes:
        if issubclass(c, _LazyRawEvent):
            t = c._texts
        elif getattr(c, "_compact", False):
            t = c._texts
            compact.add(c)
        elif c is Event:
            continue
        else:
            return None, []
        if t is None or t.released:
            return None, []
        texts.add(id(t))
        owner = t
    if len(texts) != 1:
        return None, []
    if not compact:
        return owner, list(map(_slot, events))
    if len(compact) == len(classes):
        return owner, list(map(_compact_row, events))
    return owner, [_compact_row(e) if e.__class__ in compact else _slot(e) for e in events]


def iter_raw(events: Sequence[Event]) -> Iterator[str]:
    """`ev.raw` of each event, in order (raw_slices, one text at a time)."""
    for _part, texts in raw_slices(events):
        yield from texts


def contains_any(events: Sequence[Event], words: tuple[str, ...]) -> list[bool]:
    """For each event, whether its `raw` contains one of `words` (plain substrings, as `in`). The
    texts of one group's lazy Events are searched in the Arrow column's bytes
    (ArrowTexts.containing), not made Python strs; other texts with Python's `in`."""
    import numpy as np

    texts, values = _one_group(events)
    if texts is not None and len(events) * 8 >= len(texts) and str not in set(map(type, values)):
        return texts.containing(words)[np.asarray(values, dtype=np.int64)].tolist()
    out: list[bool] = []
    append = out.append
    for raw in iter_raw(events):
        hit = False
        for w in words:
            if w in raw:
                hit = True
                break
        append(hit)
    return out


def replace_fields(ev: Event, **changes: Any) -> Event:
    """dataclasses.replace for an Event; one whose text is left in Arrow keeps it there (the copy
    holds the row number, not a str)."""
    from dataclasses import replace

    if getattr(ev, "_compact", False):
        ev = ev.as_event()      # a compact row (compact_rows) as a plain Event, its text read
    if isinstance(ev, _LazyRawEvent) and "raw" not in changes:
        changes["raw"] = _slot(ev)
    return replace(ev, **changes)
