"""The timeline's two corrections applied to one group's rows (a pyarrow Table of events
columns), as pipeline/spark/replay_stage.timeline applies them with Spark (same rules, same rows):

- copies: a row is dropped when its file copies another (`copies`: (copy, original) pairs, decided
  on the driver from the first pass's counts, replay_stage.copies_from_counts) and the original is
  the row's first source: the smallest file name holding the same group, raw text and time (times
  unknown on both sides count as equal, as Spark's window partitions them).
- clock skew: a clock's offset (ms) is subtracted from its rows' times (rows without a time keep
  none). A clock is a file, or, in a file merging several processes' lines whose origins the ingest
  measured apart (pipeline.timeline_facts.clock_resolver), one origin of it: each row of such a file
  takes its own origin's offset (`source<SEP>origin`; `source<SEP>` for its rows naming none).
- clock steps: a file whose offset changed while it logged (pipeline.timeline_facts.clock_steps)
  has each row's offset by its line: a level's offset from its first anchor's line on. The rows
  between the last anchor of one level and the first of the next are placed by their own times:
  a clock set back leaves a row earlier than the row before it, and the step is there; a clock set
  forward leaves a gap at least the step's size, and the step is at the widest such gap; with
  neither, at the next level's first anchor, and the rows between keep the old offset but are
  marked (`extra["clock_uncertain_ms"]`, the step's size): their times may be off by that much, so
  the replay times nothing by them (replay_rules.generations._start_known).

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


def shift(table: Any, offsets: dict[str, int], steps: dict[str, tuple[int, tuple[Any, ...]]] | None = None) -> Any:
    """The group's rows with each skewed clock's offset subtracted from its times; a stepped clock's
    (`steps`: clock -> (offset until its first step, timeline_facts.Step...)) by each row's line.
    Clocks are keyed as timeline_facts.clock_offsets keys them: a file, or a file's origin."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from pipeline.timeline_facts import CLOCK_SEP

    steps = steps or {}
    if (not offsets and not steps) or table.num_rows == 0:
        return table
    names = sorted(set(offsets) | set(steps))
    where = pc.index_in(_row_clocks(table, {n.partition(CLOCK_SEP)[0] for n in names if CLOCK_SEP in n}),
                        value_set=pa.array(names, pa.string()))
    if where.null_count == len(where):
        return table
    off = pc.fill_null(pc.take(pa.array([offsets.get(n, 0) for n in names], pa.int64()), where), 0)
    if steps:
        off = off.to_numpy(zero_copy_only=False).copy()
        index = where.to_numpy(zero_copy_only=False)
        lines = pc.fill_null(table.column("line_no"), 0).to_numpy()
        known = pc.is_valid(table.column("ts_ms")).to_numpy(zero_copy_only=False)
        ts_ms = pc.fill_null(table.column("ts_ms"), 0).to_numpy()
        unsure = np.zeros(table.num_rows, dtype=np.int64)
        for k, name in enumerate(names):
            if name in steps:
                rows = np.flatnonzero(index == k)     # (a null index reads as a float NaN: never k)
                off[rows], unsure[rows] = _stepped_offsets(lines[rows], ts_ms[rows], known[rows], *steps[name])
        off = pa.array(off, pa.int64())
        if unsure.any():
            table = _marked_uncertain(table, unsure)
    ts = table.column("ts_ms")
    i = table.schema.get_field_index("ts_ms")
    return table.set_column(i, table.schema.field(i), pc.subtract(ts, off).cast(table.schema.field(i).type))


def _row_clocks(table: Any, split: set[str]) -> Any:
    """Each row's clock: its source, or in a file of `split` (measured per origin) its source and
    origin (`source<SEP>origin`, `source<SEP>` for a row naming none)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from pipeline.timeline_facts import CLOCK_SEP, table_clock_keys

    src = table.column("source")
    if not split:
        return src
    keys = table_clock_keys(table)
    names = src.combine_chunks() if isinstance(src, pa.ChunkedArray) else src
    if pa.types.is_dictionary(names.type):
        names = names.dictionary_decode()
    names = names.cast(pa.string())
    in_split = pc.fill_null(pc.is_in(names, value_set=pa.array(sorted(split), pa.string())), False)
    bare = pc.equal(keys, names)          # a row naming no origin
    return pc.if_else(in_split, pc.if_else(bare, pc.binary_join_element_wise(names, pa.scalar(""), CLOCK_SEP), keys),
                      names)


def _stepped_offsets(lines: Any, ts_ms: Any, known: Any, first: int, steps: tuple[Any, ...]) -> Any:
    """Each row's offset and time uncertainty (0: none), for one stepped file's rows (line numbers,
    times, whether the time is known; see the module doc for where a step is placed between its
    two anchors)."""
    import numpy as np

    order = np.argsort(lines, kind="stable")
    ln, t, k = lines[order], ts_ms[order], known[order]
    out = np.full(len(ln), first, dtype=np.int64)
    unsure = np.zeros(len(ln), dtype=np.int64)
    before = first
    for step in steps:
        at = _step_line(ln[k], t[k], step, step.offset_ms - before)
        out[ln >= at] = step.offset_ms
        if at == step.first_line:        # not placed: the rows between may be on either level
            unsure[(ln > step.after_line) & (ln < step.first_line)] = abs(step.offset_ms - before)
        before = step.offset_ms
    back, back_unsure = np.empty_like(out), np.empty_like(unsure)
    back[order], back_unsure[order] = out, unsure
    return back, back_unsure


def _marked_uncertain(table: Any, unsure: Any) -> Any:
    """`extra_json` of the rows whose time a clock step leaves uncertain, with the uncertainty (ms)."""
    import json

    import pyarrow as pa

    i = table.schema.get_field_index("extra_json")
    texts = table.column(i).to_pylist()
    for r in unsure.nonzero()[0].tolist():
        extra = json.loads(texts[r]) if texts[r] else {}
        if isinstance(extra, dict):
            extra["clock_uncertain_ms"] = int(unsure[r])
            texts[r] = json.dumps(extra)
    col = pa.array(texts, pa.string())
    if pa.types.is_dictionary(table.schema.field(i).type):
        col = col.dictionary_encode()
    return table.set_column(i, pa.field("extra_json", col.type), col)


def _step_line(ln: Any, t: Any, step: Any, change_ms: int) -> int:
    """The first line on the clock's new level: where the rows between the step's two anchors show
    it (a time going back by a clock set back, the widest gap of at least the change by one set
    forward), else the new level's first anchor."""
    import numpy as np

    inside = np.flatnonzero((ln >= step.after_line) & (ln <= step.first_line))
    if len(inside) >= 2:
        gaps = np.diff(t[inside])
        if change_ms < 0:
            fits = np.flatnonzero(gaps <= change_ms // 2)          # went back by half the step or more
            if len(fits):
                return int(ln[inside[fits[0] + 1]])
        else:
            widest = int(np.argmax(gaps))
            if gaps[widest] >= change_ms:
                return int(ln[inside[widest + 1]])
    return step.first_line


def corrected(table: Any, copies: frozenset[tuple[str, str]] | set[tuple[str, str]],
              offsets: dict[str, int], steps: dict[str, tuple[int, tuple[Any, ...]]] | None = None) -> Any:
    """Copies dropped first (on the times as logged), then clocks shifted: replay_stage.timeline's
    order."""
    return shift(dedupe(table, copies), offsets, steps)
