"""The timeline's two corrections applied to one group's rows (a pyarrow Table of events
columns), as pipeline/spark/replay_stage.timeline applies them with Spark (same rules, same rows):

- copies: a row is dropped when its file copies another (`copies`: (copy, original) pairs, decided
  on the driver from the first pass's counts, replay_stage.copies_from_counts) and the original is
  the row's first source: the smallest file name holding the same group, raw text and time (times
  unknown on both sides count as equal, as Spark's window partitions them).
- clock skew: a file's offset (ms) is subtracted from its rows' times (rows without a time keep
  none).

The ingest's corrected pass (pipeline/spark/group_pass.run_staged) calls `corrected` per group in
its tasks, so the rare run with copies or skewed clocks needs no Spark scan or shuffle either.
"""

from __future__ import annotations

from typing import Any


def first_sources(table: Any, rows: Any) -> dict[tuple[Any, Any], str]:
    """(raw, ts_ms) -> the smallest source holding it, for the keys of the row positions `rows`
    (a numpy index array). Only the rows of the times those rows have are looked at."""
    import pyarrow as pa
    import pyarrow.compute as pc

    ts = table.column("ts_ms")
    times = pa.array(sorted({t for t in ts.take(pa.array(rows)).to_pylist() if t is not None}), pa.int64())
    near = pc.fill_null(pc.is_in(ts, value_set=times), False)
    if any(t is None for t in ts.take(pa.array(rows)).to_pylist()):
        near = pc.or_(near, pc.is_null(ts))
    cols = table.select(["raw", "ts_ms", "source"]).filter(near).to_pydict()
    first: dict[tuple[Any, Any], str] = {}
    for key, src in zip(zip(cols["raw"], cols["ts_ms"], strict=True), cols["source"], strict=True):
        have = first.get(key)
        if have is None or src < have:
            first[key] = src
    return first


def dedupe(table: Any, copies: frozenset[tuple[str, str]] | set[tuple[str, str]]) -> Any:
    """The group's rows without the lines of a copy whose first source is its original."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if not copies or table.num_rows == 0:
        return table
    copy_sources = pa.array(sorted({c for c, _o in copies}), pa.string())
    cand = np.flatnonzero(pc.fill_null(pc.is_in(table.column("source"), value_set=copy_sources), False)
                          .to_numpy(zero_copy_only=False))
    if not len(cand):
        return table
    first = first_sources(table, cand)
    sub = table.select(["raw", "ts_ms", "source"]).take(pa.array(cand)).to_pydict()
    drop = np.zeros(table.num_rows, dtype=bool)
    for i, raw, ts, src in zip(cand.tolist(), sub["raw"], sub["ts_ms"], sub["source"], strict=True):
        if (src, first[(raw, ts)]) in copies:
            drop[i] = True
    return table.filter(pa.array(~drop)) if drop.any() else table


def shift(table: Any, offsets: dict[str, int]) -> Any:
    """The group's rows with each skewed file's offset subtracted from its times."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not offsets or table.num_rows == 0:
        return table
    names = sorted(offsets)
    where = pc.index_in(table.column("source"), value_set=pa.array(names, pa.string()))
    if where.null_count == len(where):
        return table
    off = pc.fill_null(pc.take(pa.array([offsets[n] for n in names], pa.int64()), where), 0)
    ts = table.column("ts_ms")
    i = table.schema.get_field_index("ts_ms")
    return table.set_column(i, table.schema.field(i), pc.subtract(ts, off).cast(table.schema.field(i).type))


def corrected(table: Any, copies: frozenset[tuple[str, str]] | set[tuple[str, str]],
              offsets: dict[str, int]) -> Any:
    """Copies dropped first (on the times as logged), then clocks shifted: replay_stage.timeline's
    order."""
    return shift(dedupe(table, copies), offsets)
