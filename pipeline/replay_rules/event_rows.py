"""Rows of the `events` table -> Events, for the replay: from a pyarrow Table (the Spark pass, column
by column) or from a pandas DataFrame (`coordscope replay RUN_DIR`, the report).

Lives under replay_rules (the rules' input), so that the rules package needs nothing from
pipeline.replay, which is built on it.

events_from_arrow does the per-row work in C where it can (docs/replay.md "Reading a group's rows"):
- the timeline order (time with unknown times first, file, line) is Arrow's stable sort of the key
  columns, applied to the list of Events as a take of pointers: no Python sort key per event;
- a string column of few distinct values (side, kind, source, client_id, group_type, extra_json...)
  is decoded once per distinct value: every row holds the same str object (less memory, no str built
  per row);
- the Events are made by `map` over the columns with a constructor of positional fields
  (`event_from_fields`), not by a Python loop over zipped rows.
"""

from __future__ import annotations

import json
import math
from typing import Any

from parsers.events import EVENT_COLUMNS, Event
from pipeline import schemas
from pipeline.replay_rules.compact_rows import CompactGroup

# the evidence fields and the value a missing (null or empty) one takes, as Event requires one
_EVIDENCE_DEFAULTS = {"source": "?", "line_no": 0, "side": "client", "kind": "unparsed", "raw": ""}
_INT_FIELDS = ("line_no", "ts_ms", "generation", "member_epoch", "partition", "offset")
# string columns worth decoding once per distinct value; `raw` (one text per line) is not
_LOW_CARDINALITY_SKIP = frozenset({"raw"})
# below this many rows the per-column Arrow calls of the shared decoding cost more than the strings
# they save (a few hundred microseconds a column against a small group's few thousand strings)
_SHARE_MIN_ROWS = 8192
_SHARE_MAX_DISTINCT = 0.25      # distinct values per row above which a column is read row by row
SLICE_ROWS = 16384              # rows whose columns are Python lists at once (events_from_arrow)
_COMPACT = True                 # compact_rows for the high-volume kinds (False: every row an Event)


# ------------------------------------------------------------------ the constructor

class _Unfrozen:
    """Event's memory layout without its frozen `__setattr__`: a birth class only (see
    parsers/fast_event.py for the mechanism; this is the replay's own, positional, constructor)."""

    __slots__ = tuple(Event.__slots__)  # type: ignore[attr-defined]


def _build_positional() -> Any:
    """constructor_for(cls) -> a positional constructor of `cls` instances (Event or a subclass of
    its layout): made once, a closure per class (no code generated per group)."""
    ns: dict[str, Any] = {"_new": object.__new__, "_Unfrozen": _Unfrozen}
    args = ", ".join(EVENT_COLUMNS)
    lines = ["def constructor_for(_Event):",
             f"    def event_from_fields({args}, _new=_new, _Unfrozen=_Unfrozen):",
             "        ev = _new(_Unfrozen)"]
    lines += [f"        ev.{name} = {name}" for name in EVENT_COLUMNS]
    lines += ["        ev.__class__ = _Event", "        return ev", "    return event_from_fields"]
    exec("\n".join(lines), ns)  # noqa: S102 - generated from EVENT_COLUMNS only
    return ns["constructor_for"]


def _same_as_dataclass(make: Any) -> bool:
    values = [i if n in _INT_FIELDS else f"v{i}" for i, n in enumerate(EVENT_COLUMNS)]
    values[EVENT_COLUMNS.index("partitions")] = ("t-0",)
    values[EVENT_COLUMNS.index("extra")] = {"rule": "r"}
    try:
        ev = make(*values)
    except TypeError:  # __class__ assignment refused: the layouts differ
        return False
    ref = Event(*values)
    return type(ev) is Event and ev == ref and repr(ev) == repr(ref)


event_from_fields: Any = Event
"""event_from_fields(*values in EVENT_COLUMNS order) -> Event, equal to Event(*values): the fields
stored slot by slot in a plain class of Event's layout, then retyped (about 3x cheaper than the frozen
dataclass's __init__). Falls back to Event itself should the layouts ever differ."""
constructor_for: Any = None
"""constructor_for(cls) -> event_from_fields for a subclass of Event with its layout (lazy_text's)."""
if tuple(Event.__slots__) == EVENT_COLUMNS:  # type: ignore[attr-defined]
    _factory = _build_positional()
    _made = _factory(Event)
    if _same_as_dataclass(_made):
        event_from_fields, constructor_for = _made, _factory


# ------------------------------------------------------------------ Arrow

class Handover:
    """A group's rows (a pyarrow Table) given to a callee that frees what it no longer needs: the
    caller keeps no reference of its own, and the callee `take`s the table, so that dropping its
    local reference frees the columns it is done with (the replay keeps only `raw` once its Events
    are built: docs/replay.md "Evidence text left in Arrow")."""

    __slots__ = ("table", "freed")

    def __init__(self, table: Any, freed: Any = None) -> None:
        self.table = table
        self.freed = freed      # called once the callee has dropped what it no longer needs

    def done(self) -> None:
        """The callee has dropped the columns it no longer needs (the caller's `freed`, if any)."""
        if self.freed is not None:
            self.freed()

    def take(self) -> Any:
        table, self.table = self.table, None
        if table is None:
            raise RuntimeError("a group's rows were taken twice from one Handover")
        return table


def events_from_arrow(table: Any, lazy_text: bool = False) -> list[Event]:
    """Rows of the `events` table (a pyarrow Table or RecordBatch, or a Handover of a Table) ->
    Events, sorted as the timeline is (time with unknown times first, file, line; rows equal on
    all three keep their order). Equal `extra_json` texts share one decoded dict: nothing
    downstream mutates an event's `extra` (Event is frozen; copies are made with
    dataclasses.replace).

    With `lazy_text` each line's `raw` text stays in the table's Arrow column and is read when a
    rule asks for it (pipeline.replay_rules.lazy_text: the Events are of a per-group subclass of
    Event, equal field by field to the eager ones); call lazy_text.release(events) when done.

    Given a Handover (the only reference to the rows), the table is taken apart record batch by
    record batch: each batch's columns (all but the lazy `raw`) are freed as soon as its Events
    are made, so a big group never holds all its rows and all its Events at once (a hot group's
    rows arrive as one batch per staged file). String columns may be Arrow dictionaries: each is
    decoded a record batch at a time (with the handover) as its Events are made."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    handover = table if isinstance(table, Handover) else None
    if handover is not None:
        table = handover.take()
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    n = table.num_rows
    if n == 0:
        return []
    names = set(table.schema.names)
    # the timeline order first, from its three keys (the rest of the table may be freed below)
    keys = {c: _with_default(_plain(table.column(c)), _EVIDENCE_DEFAULTS[c], n) for c in ("source", "line_no")}
    order = pc.sort_indices(pa.table({"ts": table.column("ts_ms") if "ts_ms" in names else pa.nulls(n, pa.int64()),
                                      "source": keys["source"], "line_no": keys["line_no"]}),
                            sort_keys=[("ts", "ascending", "at_start"), ("source", "ascending", "at_start"),
                                       ("line_no", "ascending", "at_start")]).to_numpy()
    del keys
    make = event_from_fields
    if lazy_text:
        from pipeline.replay_rules import lazy_text as lazy_mod

        if constructor_for is None:      # the layouts differ (see event_from_fields): eager texts
            lazy_text = False
        else:
            raw = _with_default(_plain(table.column("raw")) if "raw" in names else None, _EVIDENCE_DEFAULTS["raw"], n)
            # a big group's texts compressed (packed_text): its column is freed with the rows
            texts = lazy_mod.ArrowTexts(raw, pack=n >= _SHARE_MIN_ROWS)
            make = constructor_for(lazy_mod.lazy_event_class(texts))
            del raw
    share = n >= _SHARE_MIN_ROWS
    # a big group's heartbeats and commits as compact objects (compact_rows), their texts in Arrow too
    compact = CompactGroup(texts) if lazy_text and share and _COMPACT else None
    decoded: dict[str | None, dict[str, Any]] = {}      # extra_json text -> its dict, for every slice
    singles: dict[str | None, tuple[str | None]] | None = {} if share else None   # "t-0" -> ("t-0",)
    events: list[Event] = []
    # with a handover, one record batch at a time, each dropped once its Events are made; the
    # columns as they come otherwise (chunked: a group's rows are slices of several record
    # batches), never concatenated, which would copy the whole group once more
    pieces = [pa.Table.from_batches([b], table.schema) for b in table.to_batches()] if handover else [table]
    del table
    done = 0
    while pieces:
        piece = pieces.pop(0)
        m = piece.num_rows
        arrays: dict[str, Any] = {c: _plain(piece.column(c)) for c in schemas.columns("events")
                                  if c in names and not (c == "raw" and lazy_text)}
        del piece
        for c, default in _EVIDENCE_DEFAULTS.items():
            if not (c == "raw" and lazy_text):
                arrays[c] = _with_default(arrays.get(c), default, m)
        # a slice of rows at a time: the per-column lists live for one slice, not for the whole group
        for start in range(0, m, SLICE_ROWS):
            k = min(SLICE_ROWS, m - start)
            part = {c: col.slice(start, k) for c, col in arrays.items()}
            columns: list[Any] = []
            for c in EVENT_COLUMNS:
                if c == "raw" and lazy_text:
                    # the row number; lazy_text reads the text from the column
                    columns.append(range(done + start, done + start + k))
                elif c == "extra":
                    columns.append(_extras(part.get("extra_json"), k, decoded))
                elif c == "partitions" and c in part:
                    columns.append(_partition_tuples(part[c], singles))
                else:
                    columns.append(_pylist(part[c], c not in _LOW_CARDINALITY_SKIP and share)
                                   if c in part else [None] * k)
            if compact is None:
                events += map(make, *columns)
            else:
                named = dict(zip(EVENT_COLUMNS, columns, strict=True))
                compact.add_rows(named)
                events += compact.make(named, done + start, make)
                del named
            del columns, part
        del arrays
        done += m
    if handover is not None:
        handover.done()
    if (order[1:] > order[:-1]).all():    # already in timeline order
        return events
    # the Events reordered as pointers (numpy's take on an object array), not the columns
    return np.fromiter(events, dtype=object, count=n)[order].tolist()


def _plain(col: Any) -> Any:
    """A dictionary-encoded column (a big group's repetitive strings, pipeline/spark/buckets.py)
    as its plain values; any other column as is."""
    import pyarrow as pa

    return col.cast(col.type.value_type) if pa.types.is_dictionary(col.type) else col


def _with_default(col: Any, default: Any, n: int) -> Any:
    """`value or default` for a whole column (null, "" and 0 all become the default)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if col is None:
        return pa.chunked_array([pa.array([default] * n)])
    empty = pc.equal(col, pa.scalar(type(default)(), col.type))
    if col.null_count == 0 and not pc.any(empty).as_py():
        return col
    return pc.if_else(pc.fill_null(empty, True), pa.scalar(default, col.type), col)


def _pylist(col: Any, shared: bool) -> list[Any]:
    """A (chunked) column -> Python values. With `shared`, a string chunk of few distinct values
    gives one str per distinct value, picked by index (numpy's take on an object array): no str
    built per row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if col.null_count == len(col):
        return [None] * len(col)
    if not shared or not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
        return col.to_pylist()
    out: list[Any] = []
    for chunk in col.chunks:
        n = len(chunk)
        if chunk.null_count == n:
            out += [None] * n
            continue
        enc = pc.dictionary_encode(chunk)
        if len(enc.dictionary) > n * _SHARE_MAX_DISTINCT:   # mostly distinct: little to share
            out += chunk.to_pylist()
        else:
            out += _by_index(enc.dictionary.to_pylist(), enc.indices)
    return out


def _by_index(values: list[Any], indices: Any, missing: Any = None) -> list[Any]:
    """values[i] for each index (a null index -> `missing`), in C."""
    import numpy as np
    import pyarrow.compute as pc

    pool = np.empty(len(values) + 1, dtype=object)
    for i, v in enumerate(values):     # one by one: numpy would unpack a sequence value
        pool[i] = v
    pool[-1] = missing
    idx = pc.fill_null(indices, len(values)).to_numpy(zero_copy_only=False)
    return pool[idx].tolist()


def _extras(col: Any, n: int, decoded: dict[str | None, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """extra_json -> one decoded dict per distinct text, shared by its rows and by the calls given
    the same `decoded` (no text: {})."""
    import pyarrow.compute as pc

    if col is None or col.null_count == n:
        return [{}] * n
    if decoded is None:
        decoded = {}
    out: list[dict[str, Any]] = []
    for chunk in col.chunks:
        enc = pc.dictionary_encode(chunk)
        texts = enc.dictionary.to_pylist()
        values = []
        for t in texts:
            d = decoded.get(t)
            if d is None:
                d = decoded[t] = _extra(t)
            values.append(d)
        out += _by_index(values, enc.indices, {})
    return out


def _partition_tuples(column: Any, singles: dict[Any, tuple[Any]] | None = None) -> list[tuple[str, ...] | None]:
    """A list<string> column -> a tuple of strings per row (None stays None), from each chunk's
    flat values and offsets: a third of the time of `to_pylist()` and a tuple per row. With
    `singles` (a dict kept across calls), the partition names are decoded once per distinct name and
    rows of one partition (commits: most rows) share one tuple per name."""
    import pyarrow as pa

    out: list[tuple[str, ...] | None] = []
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    for ch in chunks:
        if not pa.types.is_list(ch.type) or not pa.types.is_string(ch.type.value_type):
            out += [None if p is None else tuple(str(x) for x in p) for p in ch.to_pylist()]
            continue
        offsets = ch.offsets.to_pylist()
        base = offsets[0]
        values = ch.values.slice(base, offsets[-1] - base)
        flat = values.to_pylist() if singles is None else _pylist(pa.chunked_array([values]), True)
        valid = ch.is_valid().to_pylist()
        if singles is None:
            out += [tuple(flat[offsets[i] - base:offsets[i + 1] - base]) if valid[i] else None
                    for i in range(len(ch))]
            continue
        for i in range(len(ch)):
            a, b = offsets[i] - base, offsets[i + 1] - base
            if not valid[i]:
                out.append(None)
            elif b - a == 1:
                name = flat[a]
                one = singles.get(name)
                if one is None:
                    one = singles[name] = (name,)
                out.append(one)
            else:
                out.append(tuple(flat[a:b]))
    return out


def _extra(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        v = json.loads(text)
    except (TypeError, ValueError):
        return {"unparsed_extra_json": str(text)}
    return v if isinstance(v, dict) else {"value": v}


# ------------------------------------------------------------------ pandas

def events_from_frame(pdf: Any) -> list[Event]:
    """Rows of the `events` table (a pandas DataFrame) -> Events. Nulls (None/NaN/NA) become None."""
    out: list[Event] = []
    cols = [c for c in schemas.columns("events") if c in pdf.columns]
    na = _pd_na()
    for rec in pdf[cols].itertuples(index=False, name=None):
        d = dict(zip(cols, rec, strict=True))
        kw: dict[str, Any] = {}
        for k, v in d.items():
            if v is None or (isinstance(v, float) and math.isnan(v)) or v is na:
                v = None
            if k == "extra_json":
                try:
                    kw["extra"] = json.loads(v) if v else {}
                except (TypeError, ValueError):
                    kw["extra"] = {"unparsed_extra_json": str(v)}
                if not isinstance(kw["extra"], dict):
                    kw["extra"] = {"value": kw["extra"]}
                continue
            if k in _INT_FIELDS and v is not None:
                v = int(v)
            elif k == "partitions" and v is not None:
                v = tuple(str(p) for p in v)
            kw[k] = v
        kw.setdefault("extra", {})
        for k, default in _EVIDENCE_DEFAULTS.items():
            kw[k] = kw.get(k) or default
        out.append(Event(**kw))
    return out


def _pd_na() -> Any:
    try:
        import pandas as pd

        return pd.NA
    except ImportError:  # pragma: no cover
        return object()
