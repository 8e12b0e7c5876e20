"""One timeline per group, corrected on the JVM (the per-group replay runs in the group pass:
pipeline/spark/group_pass.py).

Timeline: the events of a group come from many files (each consumer's log, the coordinator
broker's server.log, offsets dumps). Two problems are fixed here, on the JVM side:

- duplicates: the same lines present in two files (a log shipped twice, overlapping rotated
  copies) must count once: see `dedupe`.
- clock skew: each host stamps lines with its own clock. Anchors: a consumer logs
  "Successfully joined group with generation N" right after the coordinator broker logs
  "Stabilized group ... generation N" (the JoinGroup responses are sent at that moment,
  GroupCoordinator.onCompleteJoin). Per (group, generation) the reference time is the broker's
  line, or without a broker log the median of the consumers' lines (each file's first: a static
  member's later rejoin of the generation is no anchor; a generation one file joined alone is
  none); a file's offset is the median of its differences to the reference. Offsets of at least SKEW_MIN_MS are subtracted from that
  file's times (small differences are network latency, not skew). A file merging several
  processes' lines (kubectl/stern prefixes, collectors' JSON, syslog: each line's origin in its
  extra_json) has one clock per origin when its anchors name two or more (pipeline.timeline_facts
  .clock_resolver, the same rule): each origin's offset from its own anchors, applied to its lines.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from pipeline import schemas
from pipeline.spark import tables
from pipeline.timeline_facts import CLOCK_SEP

SKEW_MIN_MS = 1_000
# percentile_approx's default accuracy: below that many values its summary is exact
PERCENTILE_EXACT = 10_000
COPY_SHARE = 0.5
EVENT_COLUMNS = schemas.columns("events")


def _shared_counts(events: DataFrame) -> DataFrame:
    """(source, first_source, n): how many of a file's events have their (group, raw text, time)
    first seen in first_source (the smallest file name holding it; first_source == source for the
    lines no earlier file has). Summed over first_source, n is the file's event count. Small: one
    row per file and per pair of files sharing lines.

    Works on a narrow projection (group, hash of the raw text, time, source): the events' wide
    columns never travel through this shuffle. A 64-bit hash collision would need the same group
    and millisecond as well.
    """
    keyed = events.select("group_id", F.xxhash64("raw").alias("h"), "ts_ms", "source")
    first = F.min("source").over(Window.partitionBy("group_id", "h", "ts_ms"))
    return keyed.withColumn("first_source", first).groupBy("source", "first_source").agg(
        F.count(F.lit(1)).alias("n"))


def copies_from_counts(counts: list[tuple[str, str, int]]) -> list[tuple[str, str]]:
    """(copy, original) pairs from `_shared_counts` rows: see `dedupe`."""
    totals: dict[str, int] = {}
    for src, _first, n in counts:
        totals[src] = totals.get(src, 0) + n
    return sorted((src, first) for src, first, n in counts if first != src and n > totals[src] * COPY_SHARE)


def copied_files(events: DataFrame) -> list[tuple[str, str]]:
    """(copy, original) pairs of files: see `dedupe`."""
    return copies_from_counts([(r["source"], r["first_source"], int(r["n"])) for r in _shared_counts(events).collect()])


def dedupe(events: DataFrame, copies: list[tuple[str, str]] | None = None) -> DataFrame:
    """Drop the lines of a file that copies (part of) another file.

    A line is shared when an earlier file (by name) has the same group, raw text and time. Single
    shared lines are not enough (two hosts may print the same text in the same millisecond when
    the line names no client, as 0.10 consumers do), so a file counts as a copy of another only
    when more than COPY_SHARE of its events are shared with that file; only then are its shared
    lines dropped. Repeats inside one file are real and kept. Without copies (the usual case) the
    events are returned as they are.
    """
    copies = copied_files(events) if copies is None else copies
    if not copies:
        return events
    pairs = events.sparkSession.createDataFrame(copies, "source string, first_source string")
    w = Window.partitionBy("group_id", "raw", "ts_ms")
    e = events.withColumn("first_source", F.min("source").over(w))
    return e.join(F.broadcast(pairs), ["source", "first_source"], "left_anti").drop("first_source")


def _origin() -> Any:
    """A line's origin (pipeline.group_tables.origin_of: the top-level "origin" of its extra_json)."""
    o = F.get_json_object("extra_json", "$.origin")
    return F.when(o != "", o)


def _clock_key() -> Any:
    """A line's clock key in a task (pipeline.timeline_facts.clock_key): its file, or its file and
    its origin."""
    o = _origin()
    return F.when(o.isNull(), F.col("source")).otherwise(F.concat(F.col("source"), F.lit(CLOCK_SEP), o))


def _resolved(diffs: DataFrame) -> DataFrame:
    """(source: clock, diff) with each clock key resolved as pipeline.timeline_facts.clock_resolver
    does: a file whose anchors name two keys or more keeps them apart (its keys without an origin
    become `source<SEP>`), any other file is one clock."""
    file = F.substring_index("source", CLOCK_SEP, 1)
    keys = F.size(F.collect_set("source").over(Window.partitionBy(file)))
    return diffs.select(F.when(keys < 2, file).when(F.col("source").contains(CLOCK_SEP), F.col("source")).otherwise(
        F.concat(F.col("source"), F.lit(CLOCK_SEP))).alias("source"), "diff")


def clock_offsets(events: DataFrame) -> DataFrame:
    """Per client clock (a file, or one origin of a file merging several processes' lines): the
    offset (ms) of its clock against the group's reference, with the number of anchors it rests on.
    Small: one row per clock that has anchors.

    Windows per (group, generation) over the anchor lines only (joins and the broker's
    stabilizations), then one aggregate per clock: no join, so no broadcast job either.
    """
    is_join = (F.col("kind") == "join_succeeded") & F.col("group_id").isNotNull()
    # a clock's first line of each kind per generation (pipeline.timeline_facts.anchor_diffs: a static
    # member's later rejoin of the same generation is no anchor; the broker's earliest line is its)
    anchors = events.where(F.col("kind").isin("join_succeeded", "broker_group_stabilized")
                           & F.col("generation").isNotNull() & F.col("ts_ms").isNotNull()).select(
        "group_id", "generation", _clock_key().alias("source"), "ts_ms", is_join.alias("is_join")).groupBy(
        "group_id", "generation", "source", "is_join").agg(F.min("ts_ms").alias("ts_ms"))
    w = Window.partitionBy("group_id", "generation")
    broker_ts = F.min(F.when(~F.col("is_join"), F.col("ts_ms"))).over(w)
    client_ts = F.percentile_approx(F.when(F.col("is_join"), F.col("ts_ms")), 0.5).over(w)
    files = F.sum(F.col("is_join").cast("int")).over(w)     # files joining it (one row each)
    d = anchors.select("source", "ts_ms", "is_join", broker_ts.alias("broker_ts"), client_ts.alias("client_ts"),
                       files.alias("files")).where(
        F.col("is_join") & (F.col("broker_ts").isNotNull() | (F.col("files") >= 2))).select(
        "source", (F.col("ts_ms") - F.coalesce("broker_ts", "client_ts")).alias("diff"))
    d = _resolved(d.unionByName(_epoch_anchor_diffs(events)))
    return d.groupBy("source").agg(
        F.percentile_approx("diff", 0.5).cast("bigint").alias("offset_ms"), F.count(F.lit(1)).alias("anchors"))


def _epoch_anchor_diffs(events: DataFrame) -> DataFrame:
    """(source, diff) of a consumer-protocol group's anchors: pipeline.timeline_facts
    .epoch_anchor_diffs with Spark (a broker's member join line with the "Bumped group epoch" line
    next to it, against each file's first line of that member at that epoch)."""
    broker = events.where(F.col("kind").isin("broker_member_joined", "broker_rebalance_preparing")
                          & F.col("ts_ms").isNotNull() & F.col("group_id").isNotNull()).select(
        "group_id", "source", F.coalesce("line_no", F.lit(0)).alias("line_no"), "kind", "member_id", "ts_ms",
        F.get_json_object("extra_json", "$.group_epoch").cast("int").alias("epoch"))
    w = Window.partitionBy("group_id", "source").orderBy("line_no")
    nxt = {c: F.lead(c).over(w) for c in ("kind", "line_no", "ts_ms", "epoch")}
    joined = broker.select("group_id", "member_id", "kind", "line_no", "ts_ms",
                           *(v.alias(f"next_{c}") for c, v in nxt.items())).where(
        (F.col("kind") == "broker_member_joined") & (F.col("next_kind") == "broker_rebalance_preparing")
        & F.col("member_id").isNotNull() & (F.col("member_id") != "") & F.col("next_epoch").isNotNull()
        & (F.col("next_epoch") != 0) & (F.col("next_line_no") - F.col("line_no") <= 2)
        & (F.abs(F.col("next_ts_ms") - F.col("ts_ms")) < 1_000)).groupBy(
        "group_id", "member_id", F.col("next_epoch").alias("epoch")).agg(F.min("ts_ms").alias("joined_ts"))
    firsts = events.where((F.col("kind") == "member_state_changed") & F.col("ts_ms").isNotNull()
                          & F.col("group_id").isNotNull() & F.col("member_id").isNotNull() & (F.col("member_id") != "")
                          & (F.col("member_epoch") > 0)).withColumn("source", _clock_key()).groupBy(
        "group_id", "member_id", F.col("member_epoch").alias("epoch"), "source").agg(
        F.min_by("ts_ms", F.struct(F.coalesce("line_no", F.lit(0)), "ts_ms")).alias("ts_ms"))
    return firsts.join(joined, ["group_id", "member_id", "epoch"]).select(
        "source", (F.col("ts_ms") - F.col("joined_ts")).alias("diff"))


def _skewed(events: DataFrame) -> DataFrame:
    return clock_offsets(events).where(F.abs("offset_ms") >= SKEW_MIN_MS)


def timeline(events: DataFrame, copies: list[tuple[str, str]] | None = None,
             clock: dict[str, tuple[int, int]] | None = None) -> tuple[DataFrame, dict[str, int]]:
    """(deduplicated, skew-corrected events; {clock: offset ms} applied: a clock is a file, or one
    origin of a file measured per origin, keyed as pipeline.timeline_facts.clock_offsets keys it).

    Copies and clock offsets are found by one Spark job (both results are small: one row per file
    or pair of files sharing lines, one per skewed file). Without copies or skew (the usual case)
    the events come back untouched; with copies, the offsets are measured again on the
    deduplicated events.

    A caller that has counted the timeline's facts already (the ingest's group pass,
    pipeline.timeline_facts: same rules, same numbers) passes `copies` and `clock` ({source:
    (offset ms, anchors)}, every file with anchors) and that job is not run. The offsets are taken
    from `clock` only where they are exact (fewer than PERCENTILE_EXACT anchors per file: Spark's
    percentile_approx keeps every value below that); otherwise Spark measures them.
    """
    if copies is None or clock is None:
        facts = _shared_counts(events).select(
            F.lit("shared").alias("what"), "source", "first_source", "n", F.lit(None).cast("bigint").alias("offset_ms")
        ).unionByName(_skewed(events).select(
            F.lit("skew").alias("what"), "source", F.lit(None).cast("string").alias("first_source"),
            F.lit(None).cast("bigint").alias("n"), "offset_ms"))
        rows = facts.collect()
        copies = copies_from_counts([(r["source"], r["first_source"], int(r["n"])) for r in rows
                                     if r["what"] == "shared"])
        offsets = {r["source"]: int(r["offset_ms"]) for r in rows if r["what"] == "skew"}
    elif copies:
        offsets = {}      # measured on the deduplicated events below
    elif all(n < PERCENTILE_EXACT for _off, n in clock.values()):
        offsets = {src: off for src, (off, _n) in clock.items() if abs(off) >= SKEW_MIN_MS}
    else:
        offsets = {r["source"]: int(r["offset_ms"]) for r in _skewed(events).collect()}
    ev = events
    if copies:
        ev = dedupe(events, copies)
        offsets = {r["source"]: int(r["offset_ms"]) for r in _skewed(ev).collect()}
    if offsets:
        shift = events.sparkSession.createDataFrame(list(offsets.items()), "_clock string, offset_ms bigint")
        split = sorted({k.partition(CLOCK_SEP)[0] for k in offsets if CLOCK_SEP in k})
        # each row's clock (timeline_corrections._row_clocks): its file, or in a file measured per
        # origin its file and origin
        o = F.coalesce(_origin(), F.lit(""))
        clock = (F.when(F.col("source").isin(split), F.concat(F.col("source"), F.lit(CLOCK_SEP), o))
                 .otherwise(F.col("source")) if split else F.col("source"))
        ev = ev.withColumn("_clock", clock).join(F.broadcast(shift), "_clock", "left").withColumn(
            "ts_ms", F.when(F.col("offset_ms").isNotNull() & F.col("ts_ms").isNotNull(),
                            F.col("ts_ms") - F.col("offset_ms")).otherwise(F.col("ts_ms"))).drop("offset_ms", "_clock")
    return (ev if ev is events else ev.select(*EVENT_COLUMNS)), offsets


def shows_own_assignments(table: Any) -> bool:
    """Whether a group's timeline (a pyarrow Table of events rows) holds a consumer's own
    non-empty assignment with a time: exactly the groups for which `tables.ownership` finds
    intervals (it starts one at the first `partitions_assigned` of each client and partition).
    For those groups the group pass keeps the replay's inferred intervals only beside the observed
    ones (group_tables.inferred_beside)."""
    import pyarrow.compute as pc

    names = set(table.schema.names)
    if not {"side", "kind", "ts_ms", "partitions"} <= names or table.num_rows == 0:
        return False
    parts = pc.fill_null(pc.list_value_length(table.column("partitions")), 0)
    mask = pc.and_(pc.and_(pc.equal(table.column("side"), "client"),
                           pc.equal(table.column("kind"), tables.OWNERSHIP_START[0])),
                   pc.and_(pc.is_valid(table.column("ts_ms")), pc.greater(parts, 0)))
    return bool(pc.any(mask).as_py())


def _coerced(row: dict[str, Any], fields: list[tuple[str, str]]) -> dict[str, Any]:
    """A replay row with each value made the schema's type (what JSON with default=str did before)."""
    out: dict[str, Any] = {}
    for name, typ in fields:
        v = row.get(name)
        if v is not None:
            if typ == "string":
                v = v if isinstance(v, str) else str(v)
            elif typ in ("bigint", "int"):
                v = int(v)
            elif typ == "boolean":
                v = bool(v)
            elif typ == "array<string>":
                v = [None if x is None else str(x) for x in v]
        out[name] = v
    return out
