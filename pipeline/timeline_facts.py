"""The facts the timeline needs from one group's events, as pure functions: lines shared with
other files (copies) and clock-skew anchors. The ingest gathers them in its one per-group pass
(pipeline/spark/group_pass.py) and decides on the driver, exactly as
pipeline/spark/replay_stage.timeline does with Spark (same rules, same numbers):

- shared lines: per (group, raw text, time) the smallest file name holding it is the line's
  `first_source`; (source, first_source, n) counts, summed over groups, feed
  replay_stage.copies_from_counts.
- clock offsets: per (group, generation) the reference time is the broker's "Stabilized group"
  line (the earliest), else the median of the consumers' "Successfully joined" lines (each file's
  first of the generation; a generation needs the broker's line or two files' joins); each file's
  first join's difference to it is an anchor of its file;
  a file's offset is the median of its anchors.
- clock steps: a host whose clock was stepped while it logged (an NTP step after a VM was paused or
  migrated, a manual `date -s`) has two or more offsets in one file. Its anchors, in line order,
  change level: `clock_steps` cuts the file's anchors where two consecutive ones agree on a new
  level at least STEP_MIN_MS from the old one (one anchor alone is no proof: a join line printed
  late by a binding's log queue would do the same); each level is the median of its anchors, and
  the step lies between the last anchor of one level and the first of the next (the rows between
  are placed by pipeline.timeline_corrections.shift).
  Medians are Spark's percentile_approx(x, 0.5) on these small sets: the ceil(n/2)-th smallest
  value (exact below 10,000 values, where its summary keeps every value).

`shared_counts` and `anchor_diffs` take a group's columns as Python lists (the reference);
`table_facts` gives the same two from a pyarrow Table, column-wise (what the ingest's pass calls: a
group of 330,000 lines costs 0.03 CPU-s and about 20 MB, instead of 0.58 CPU-s and 230 MB of
lists, tuples and dicts).
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from typing import Any, NamedTuple

ANCHOR_KINDS = ("join_succeeded", "broker_group_stabilized")
FACT_COLUMNS = ("group_id", "source", "raw", "ts_ms", "kind", "generation", "line_no")
# a change of a file's clock offset smaller than this is not told apart from the anchors' own spread
# (replay_stage.SKEW_MIN_MS, the least offset corrected, is the same second)
STEP_MIN_MS = 1_000


def lower_median(values: list[int]) -> int:
    """percentile_approx(values, 0.5) of an exact summary: the ceil(n/2)-th smallest."""
    s = sorted(values)
    return s[(len(s) + 1) // 2 - 1]


def shared_counts(cols: dict[str, list[Any]]) -> Counter:
    """(source, first_source) -> lines of one group (see the module doc)."""
    first: dict[tuple[Any, Any], str] = {}
    keys = list(zip(cols["raw"], cols["ts_ms"], strict=True))
    for key, src in zip(keys, cols["source"], strict=True):
        have = first.get(key)
        if have is None or src < have:
            first[key] = src
    return Counter((src, first[key]) for key, src in zip(keys, cols["source"], strict=True))


def anchor_diffs(cols: dict[str, list[Any]]) -> list[tuple[str, int, int, bool]]:
    """(source, join time - the generation's reference time, the join's line number, whether the
    reference is sure) for every file's first join line of
    each generation of one group. Only a file's first: the JoinGroup responses of a rebalance are
    sent together (GroupCoordinator.onCompleteJoin), but a static member that restarts while the
    group is Stable rejoins the same generation later, alone (GroupCoordinator
    .updateStaticMemberAndRebalance, 2.3+, KIP-345); its line is no anchor, and in the same file
    it comes after the first process's join. A generation only one file joined, without the broker's
    line, compares that file with itself: no anchor (its 0 would pull the file's median to 0). One
    that two files joined, without the broker's line, cannot tell which of the two clocks is off
    (the reference is the earlier join): its anchors count in the files' medians, not as proof of a
    step (clock_steps)."""
    by_gen: dict[Any, tuple[list[int], dict[str, tuple[int, int]]]] = defaultdict(lambda: ([], {}))
    for gid, src, ts, kind, gen, line in zip(cols["group_id"], cols["source"], cols["ts_ms"], cols["kind"],
                                             cols["generation"], cols["line_no"], strict=True):
        if kind not in ANCHOR_KINDS or gen is None or ts is None:
            continue
        broker, joins = by_gen[gen]
        if kind == "join_succeeded" and gid is not None:
            if src not in joins or ts < joins[src][0]:
                joins[src] = (ts, line or 0)
        else:
            broker.append(ts)
    out: list[tuple[str, int, int]] = []
    for broker, joins in by_gen.values():
        if not joins or (not broker and len(joins) < 2):
            continue    # (a file's join alone, no broker line: nothing to compare its clock with)
        ref = min(broker) if broker else lower_median([ts for ts, _line in joins.values()])
        sure = bool(broker) or len(joins) >= 3
        out.extend((src, ts - ref, line, sure) for src, (ts, line) in joins.items())
    return out


def clock_offsets(diffs: list[tuple[str, int, int, bool]]) -> dict[str, tuple[int, int]]:
    """source -> (offset ms, anchors) from every group's anchor_diffs."""
    per: dict[str, list[int]] = defaultdict(list)
    for src, d, _line, _sure in diffs:
        per[src].append(d)
    return {src: (lower_median(ds), len(ds)) for src, ds in per.items()}


class Step(NamedTuple):
    """A file's clock offset changing between two anchors: `offset_ms` holds from line `first_line`
    on (until the next step); the step itself happened after line `after_line` (the last anchor of
    the level before), where pipeline.timeline_corrections.shift places it."""

    after_line: int
    first_line: int
    offset_ms: int


def clock_steps(diffs: list[tuple[str, int, int, bool]],
                backs: list[tuple[str, int, int]] | tuple = ()) -> dict[str, tuple[int, tuple[Step, ...]]]:
    """source -> (offset ms until its first step, steps) for the files whose sure anchors, in line
    order, change level (see the module doc); files with one level are not listed. `backs`
    (back_jumps: source, line, ms) let one anchor prove a clock set back: its file's own times go
    back by half the change or more between it and the anchor before."""
    per: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for src, d, line, sure in diffs:
        if sure:
            per[src].append((line, d))
    back_at: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for src, line, ms in backs:
        back_at[src].append((line, ms))
    out: dict[str, tuple[int, tuple[Step, ...]]] = {}
    for src, anchors in per.items():
        levels = _levels(sorted(anchors), back_at.get(src, []))
        if len(levels) > 1:
            first = lower_median([d for _line, d in levels[0]])
            out[src] = (first, tuple(Step(before[-1][0], level[0][0], lower_median([d for _line, d in level]))
                                     for before, level in itertools.pairwise(levels)))
    return out


def describe_steps(source: str, first: int, steps: tuple[Step, ...]) -> str:
    """One sentence on a stepped file's clock, for the ingest's messages."""
    parts = [f"{source} runs {first:+d} ms against its group's coordinator"]
    parts += [f"then {s.offset_ms:+d} ms after line {s.after_line} (by line {s.first_line})" for s in steps]
    return ", ".join(parts)


def _levels(anchors: list[tuple[int, int]], backs: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """(line, diff) anchors in line order cut into runs of one clock offset: a new run starts where
    an anchor and the next one both lie STEP_MIN_MS or more from the run's median and within
    STEP_MIN_MS of each other, or where one anchor lies that far below it and the file's times went
    back (`backs`: line, ms) by half that or more since the anchor before; another lone anchor off
    the run stays in it (the median absorbs it)."""
    runs: list[list[tuple[int, int]]] = [[]]
    i = 0
    while i < len(anchors):
        run = runs[-1]
        line, d = anchors[i]
        if run:
            level = lower_median([x for _l, x in run])
            nxt = anchors[i + 1][1] if i + 1 < len(anchors) else None
            if (abs(d - level) >= STEP_MIN_MS and nxt is not None and abs(nxt - level) >= STEP_MIN_MS
                    and abs(nxt - d) < STEP_MIN_MS):
                runs.append([(line, d), anchors[i + 1]])
                i += 2
                continue
            change = d - level
            if change <= -STEP_MIN_MS and any(run[-1][0] < at <= line and ms <= change // 2 for at, ms in backs):
                runs.append([(line, d)])
                i += 1
                continue
        run.append((line, d))
        i += 1
    return runs


def back_jumps(cols: dict[str, list[Any]]) -> list[tuple[str, int, int]]:
    """(source, line, ms) where a file's time goes back STEP_MIN_MS or more from its row before (one
    group's rows, in line order per file): ms is the (negative) change."""
    per: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for src, line, ts in zip(cols["source"], cols["line_no"], cols["ts_ms"], strict=True):
        if ts is not None:
            per[src].append((line or 0, ts))
    out: list[tuple[str, int, int]] = []
    for src, rows in per.items():
        rows.sort()
        out.extend((src, b[0], b[1] - a[1]) for a, b in itertools.pairwise(rows) if b[1] - a[1] <= -STEP_MIN_MS)
    return out


def table_backs(table: Any) -> list[tuple[str, int, int]]:
    """back_jumps of one group's rows given as a pyarrow Table (source, line_no, ts_ms), column-wise:
    only the jumps become Python values. The rows usually come file by file in line order (a
    staged split's rows are): then one pass over them in table order; otherwise sorted first."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if table.num_rows < 2:
        return []
    src = table.column("source")
    names = pc.unique(src)
    if pa.types.is_dictionary(names.type):
        names = names.dictionary_decode()
    codes = pc.fill_null(pc.index_in(src, value_set=names), -1).to_numpy()
    line = pc.fill_null(table.column("line_no"), 0).to_numpy()
    ts_col = table.column("ts_ms")
    if ts_col.null_count:
        keep = np.flatnonzero(pc.is_valid(ts_col).to_numpy(zero_copy_only=False))
        codes, line = codes[keep], line[keep]
        ts_col = ts_col.filter(pc.is_valid(ts_col))
    ts = ts_col.to_numpy()
    same = codes[1:] == codes[:-1]
    runs = int(len(codes) - np.count_nonzero(same))
    if runs != len(np.unique(codes)) or np.any(same & ((line[1:] < line[:-1])
                                                       | ((line[1:] == line[:-1]) & (ts[1:] < ts[:-1])))):
        order = np.lexsort((ts, line, codes))
        codes, line, ts = codes[order], line[order], ts[order]
        same = codes[1:] == codes[:-1]
    jump = np.flatnonzero(same & (ts[1:] - ts[:-1] <= -STEP_MIN_MS))
    names_py = names.to_pylist()
    return [(names_py[codes[j + 1]], int(line[j + 1]), int(ts[j + 1] - ts[j])) for j in jump.tolist()]


def table_facts(table: Any) -> tuple[Counter, list[tuple[str, int, int, bool]]]:
    """(shared_counts, anchor_diffs) of one group's rows given as a pyarrow Table with FACT_COLUMNS:
    the same numbers as the list functions, without a Python value per line. A (raw, time) key can
    only be shared by lines of the same time: the times are sorted (Arrow; unknown times together,
    as None meets None in a dict), a line alone at its time is its own file's first (counted per
    file by Arrow), and only the lines sharing a time with another go through shared_counts.
    Anchors: only the join and stabilized lines become Python values, in row order. String columns
    may be Arrow dictionaries (a big group's, buckets.bucket_groups), their chunks each with its own
    dictionary: Arrow's counts and tests read them as their values."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    shared: Counter = Counter()
    n = table.num_rows
    if n:
        ts = table.column("ts_ms")
        order = pc.sort_indices(pa.table({"ts": ts}), sort_keys=[("ts", "ascending", "at_end")])
        by_time = ts.take(order)
        value = pc.fill_null(by_time, 0).to_numpy()
        unknown = pc.is_null(by_time).to_numpy(zero_copy_only=False)
        same = (value[1:] == value[:-1]) & (unknown[1:] == unknown[:-1])     # row i + 1 has row i's time
        together = np.zeros(n, dtype=bool)
        together[1:] |= same
        together[:-1] |= same
        alone = _counts(table.column("source"))
        if together.any():
            # a mask, not a take: Arrow's take on chunked columns concatenates them first (a copy of the
            # group's raw texts); a filter goes chunk by chunk
            mask = np.zeros(n, dtype=bool)
            mask[order.to_numpy()[together]] = True
            cols = table.select(["raw", "ts_ms", "source"]).filter(pa.array(mask)).to_pydict()
            for src, k in _counts(pa.chunked_array([pa.array(cols["source"], pa.string())])).items():
                alone[src] -= k
            shared.update(shared_counts(cols))
        shared.update({(src, src): k for src, k in alone.items() if k})
    anchors = pc.and_(pc.is_in(table.column("kind"), value_set=pa.array(list(ANCHOR_KINDS), pa.string())),
                      pc.and_(pc.is_valid(table.column("generation")), pc.is_valid(table.column("ts_ms"))))
    rows = table.select(list(FACT_COLUMNS)).filter(pc.fill_null(anchors, False)).to_pydict()
    return shared, anchor_diffs(rows)


def _counts(column: Any) -> dict[Any, int]:
    """value -> rows, of a (chunked) column."""
    import pyarrow.compute as pc

    vc = pc.value_counts(column)
    out: dict[Any, int] = {}
    # summed: a value listed twice (chunks of a dictionary column with dictionaries of their own,
    # should Arrow not unify them) keeps all its rows
    for v, k in zip(vc.field("values").to_pylist(), vc.field("counts").to_pylist(), strict=True):
        out[v] = out.get(v, 0) + k
    return out
