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
- clocks per origin: a file merging several processes' lines (`kubectl logs -l ... --prefix`, stern,
  compose, a collector's JSON, syslog/journald exports: parsers/origin.py) holds several hosts'
  clocks. Every anchor and back jump is counted under its line's clock key (`clock_key`: the file, or
  the file and the line's origin); on the driver `clock_resolver` keeps a file's origins apart when
  its anchors name two clock keys or more (a file of one origin, or of one origin with anchors, is
  one clock as before), so each origin's offset is the median of its own anchors: one pod's skew is
  neither spread onto the others nor cancelled by them. A split file's lines naming no origin are
  one more clock of it (`source + CLOCK_SEP`).

`shared_counts` and `anchor_diffs` take a group's columns as Python lists (the reference);
`table_facts` gives the same two from a pyarrow Table, column-wise (what the ingest's pass calls: a
group of 330,000 lines costs 0.03 CPU-s and about 20 MB, instead of 0.58 CPU-s and 230 MB of
lists, tuples and dicts).
"""

from __future__ import annotations

import itertools
import json
from collections import Counter, defaultdict
from typing import Any, NamedTuple

ANCHOR_KINDS = ("join_succeeded", "broker_group_stabilized")
FACT_COLUMNS = ("group_id", "source", "raw", "ts_ms", "kind", "generation", "line_no", "member_id", "member_epoch",
                "extra_json")
# the consumer protocol's (KIP-848) anchors: the broker's "Member {} joins the consumer group" with the
# "Bumped group epoch to {}" line after it, and the member's own first line at that epoch
EPOCH_ANCHOR_KINDS = ("broker_member_joined", "broker_rebalance_preparing", "member_state_changed")
# a change of a file's clock offset smaller than this is not told apart from the anchors' own spread
# (replay_stage.SKEW_MIN_MS, the least offset corrected, is the same second)
STEP_MIN_MS = 1_000
# a clock key of a file split by its lines' origins: "source<SEP>origin" (SEP, the ASCII unit
# separator, is in no path or origin text); a split file's lines without an origin: "source<SEP>"
CLOCK_SEP = "\x1f"


def clock_key(source: str, origin: str | None) -> str:
    """The clock a line is counted under in a task: its file, or its file and its origin."""
    return f"{source}{CLOCK_SEP}{origin}" if origin else source


def key_parts(key: str) -> tuple[str, str | None, bool]:
    """(source, origin or None, whether the key is of a file split by origin) of a clock key."""
    src, sep, origin = key.partition(CLOCK_SEP)
    return src, (origin or None), bool(sep)


def clock_resolver(diffs: list[tuple[str, int, int, bool]]) -> Any:
    """The function mapping a task's clock key (anchor_diffs, back_jumps) to the clock it is
    corrected by: per origin (`source<SEP>origin`, `source<SEP>` for the lines naming none) in a file
    whose anchors name two keys or more, else the file (see the module doc)."""
    keys: dict[str, set[str]] = defaultdict(set)
    for key, *_rest in diffs:
        keys[key.partition(CLOCK_SEP)[0]].add(key)
    split = {src for src, ks in keys.items() if len(ks) > 1}

    def resolved(key: str) -> str:
        src, sep, origin = key.partition(CLOCK_SEP)
        if src not in split:
            return src
        return key if sep else src + CLOCK_SEP

    return resolved


def describe_clock(key: str) -> str:
    """A clock key in words: the file, or "FILE, the lines of ORIGIN" ("naming no origin")."""
    src, origin, split = key_parts(key)
    if not split:
        return src
    return f"{src}, its lines of {origin}" if origin else f"{src}, its lines naming no origin"


def _origin(extra: Any) -> str | None:
    """The origin of a row's extra (a JSON text or a dict): group_tables.origin_of."""
    if isinstance(extra, dict):
        value = extra.get("origin")
        return value if isinstance(value, str) else None
    from pipeline.group_tables import origin_of

    return origin_of(extra) if isinstance(extra, str) else None


def _keys(cols: dict[str, list[Any]]) -> list[str]:
    """Each row's clock_key (its file, with its origin where it names one)."""
    extras = cols.get("extra_json")
    if extras is None:
        return list(cols["source"])
    return [clock_key(src, _origin(x)) if x else src for src, x in zip(cols["source"], extras, strict=True)]


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
    # (per clock key: a file of several pods' lines has one "first join" per pod)
    for gid, src, ts, kind, gen, line in zip(cols["group_id"], _keys(cols), cols["ts_ms"], cols["kind"],
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
    return out + epoch_anchor_diffs(cols)


def epoch_anchor_diffs(cols: dict[str, list[Any]]) -> list[tuple[str, int, int, bool]]:
    """Anchors of a consumer-protocol group (KIP-848), whose members share no line at one moment: a
    member joins with one heartbeat, which the coordinator logs as "[GroupId g] Member m joins the
    consumer group ..." and, adding a member, "Bumped group epoch to n." next (GroupMetadataManager
    .consumerGroupHeartbeat, 3.7-4.x); its response gives the member epoch n, and the member's first
    line at epoch n (ConsumerMembershipManager's "Member m with epoch n transitioned from JOINING to
    ...", 3.7-4.x) is printed when that response arrives. Each file's first such line of each (member,
    epoch), against the broker's join line: a sure anchor. Without the broker's lines, none."""
    broker_rows: dict[tuple[Any, str], list[tuple[int, str, Any, int]]] = defaultdict(list)
    firsts: dict[tuple[Any, str, int, str], tuple[int, int]] = {}
    for gid, src, ts, kind, line, mid, epoch, extra in zip(
            cols["group_id"], cols["source"], cols["ts_ms"], cols["kind"], cols["line_no"], cols["member_id"],
            cols["member_epoch"], cols["extra_json"], strict=True):
        if ts is None or kind not in EPOCH_ANCHOR_KINDS or gid is None:
            continue
        if kind == "member_state_changed":
            if mid and epoch is not None and epoch > 0:
                key = (gid, mid, epoch, clock_key(src, _origin(extra)) if extra else src)
                if key not in firsts or (line or 0) < firsts[key][1]:
                    firsts[key] = (ts, line or 0)
        else:
            broker_rows[(gid, src)].append((line or 0, kind, mid if kind == "broker_member_joined" else _group_epoch(extra),
                                            ts))
    joined: dict[tuple[Any, str, int], int] = {}
    for (gid, _src), rows in broker_rows.items():
        rows.sort(key=lambda r: r[0])
        for (line, kind, mid, ts), (line2, kind2, epoch, ts2) in itertools.pairwise(rows):
            if (kind == "broker_member_joined" and kind2 == "broker_rebalance_preparing" and mid and epoch
                    and line2 - line <= 2 and abs(ts2 - ts) < STEP_MIN_MS):
                joined[(gid, mid, epoch)] = min(ts, joined.get((gid, mid, epoch), ts))
    return [(src, ts - joined[(g, mid, epoch)], line, True)
            for (g, mid, epoch, src), (ts, line) in firsts.items() if (g, mid, epoch) in joined]


def _group_epoch(extra: Any) -> int | None:
    """The group epoch of a "Bumped group epoch to {}" line's extra (a JSON text or a dict)."""
    if isinstance(extra, str):
        try:
            extra = json.loads(extra)
        except ValueError:
            return None
    value = extra.get("group_epoch") if isinstance(extra, dict) else None
    return value if isinstance(value, int) else None


def clock_offsets(diffs: list[tuple[str, int, int, bool]]) -> dict[str, tuple[int, int]]:
    """clock (clock_resolver: a file, or a file's origin) -> (offset ms, anchors) from every group's
    anchor_diffs."""
    per: dict[str, list[int]] = defaultdict(list)
    resolved = clock_resolver(diffs)
    for src, d, _line, _sure in diffs:
        per[resolved(src)].append(d)
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
    """clock (clock_resolver: a file, or a file's origin) -> (offset ms until its first step, steps)
    for the clocks whose sure anchors, in line order, change level (see the module doc); clocks with
    one level are not listed. `backs` (back_jumps: clock key, line, ms) let one anchor prove a clock
    set back: its own times go back by half the change or more between it and the anchor before."""
    per: dict[str, list[tuple[int, int]]] = defaultdict(list)
    resolved = clock_resolver(diffs)
    for src, d, line, sure in diffs:
        if sure:
            per[resolved(src)].append((line, d))
    back_at: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for src, line, ms in backs:
        back_at[resolved(src)].append((line, ms))
    out: dict[str, tuple[int, tuple[Step, ...]]] = {}
    for src, anchors in per.items():
        levels = _levels(sorted(anchors), back_at.get(src, []))
        if len(levels) > 1:
            first = lower_median([d for _line, d in levels[0]])
            out[src] = (first, tuple(Step(before[-1][0], level[0][0], lower_median([d for _line, d in level]))
                                     for before, level in itertools.pairwise(levels)))
    return out


def describe_steps(source: str, first: int, steps: tuple[Step, ...]) -> str:
    """One sentence on a stepped clock (a file, or a file's origin: a clock key), for the ingest's
    messages."""
    parts = [f"{describe_clock(source)} runs {first:+d} ms against its group's coordinator"]
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
    """(clock key, line, ms) where a clock's time goes back STEP_MIN_MS or more from its row before
    (one group's rows, in line order per clock key: a file, or a file's origin): ms is the (negative)
    change."""
    per: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for src, line, ts in zip(_keys(cols), cols["line_no"], cols["ts_ms"], strict=True):
        if ts is not None:
            per[src].append((line or 0, ts))
    out: list[tuple[str, int, int]] = []
    for src, rows in per.items():
        rows.sort()
        out.extend((src, b[0], b[1] - a[1]) for a, b in itertools.pairwise(rows) if b[1] - a[1] <= -STEP_MIN_MS)
    return out


def table_backs(table: Any, origin: Any = None) -> list[tuple[str, int, int]]:
    """back_jumps of one group's rows given as a pyarrow Table (source, line_no, ts_ms, and
    extra_json for the lines' origins), column-wise: only the jumps become Python values. The rows
    usually come file by file in line order (a staged split's rows are): then one pass over them in
    table order; otherwise sorted first. `origin`: the rows' origins when the caller has them
    (group_series.origins of the rows' extra_json; see table_clock_keys)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if table.num_rows < 2:
        return []
    src = table_clock_keys(table, origin)
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


def table_clock_keys(table: Any, origin: Any = None) -> Any:
    """Each row's clock_key of a pyarrow Table (source, and extra_json when it has it), column-wise:
    the source column itself when no row names an origin (group_series.origins). `origin`: that
    of the rows' extra_json, when the caller has it already (the per-group pass reads it once)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    src = table.column("source")
    if "extra_json" not in table.schema.names or table.num_rows == 0:
        return src
    from pipeline.group_series import origins

    if origin is None:
        origin = origins(table.column("extra_json"))
    if origin.null_count == len(origin):
        return src
    names = src.combine_chunks() if isinstance(src, pa.ChunkedArray) else src
    if pa.types.is_dictionary(names.type):
        names = names.dictionary_decode()
    origin = pc.if_else(pc.equal(origin, ""), pa.scalar(None, pa.string()), origin)
    return pc.coalesce(pc.binary_join_element_wise(names.cast(pa.string()), origin, CLOCK_SEP), names)


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
    epochs = pc.and_(pc.is_in(table.column("kind"), value_set=pa.array(list(EPOCH_ANCHOR_KINDS), pa.string())),
                     pc.is_valid(table.column("ts_ms")))
    rows = table.select(list(FACT_COLUMNS)).filter(pc.fill_null(pc.or_(anchors, epochs), False)).to_pydict()
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
