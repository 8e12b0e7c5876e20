"""High-volume tables built with Spark DataFrame window operations (no Python, no driver collects):
heartbeat_gaps, offset_commits and the observed partition ownership intervals.

All of them read the `events` DataFrame (events table columns, `ts_ms` already on the group's
common timeline, see replay_stage.timeline).
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from pipeline.group_tables import ORIGIN_KEY, PRINTED_LATE_MARKERS

# Kafka defaults (ConsumerConfig): session.timeout.ms 45000 since 3.0 (KIP-735), 10000 before;
# max.poll.interval.ms 300000 since 0.10.1 (KIP-62).
SESSION_TIMEOUT_MS = 45_000
SESSION_TIMEOUT_MS_PRE_3_0 = 10_000
MAX_POLL_INTERVAL_MS = 300_000
# Silences shorter than this are normal chatter and not kept (keeps the table proportional to
# incidents, not to log volume).
MIN_GAP_MS = 1_000

# a heartbeat line: a request sent or a response received (AbstractCoordinator.HeartbeatResponseHandler);
# heartbeat gaps are measured only in logs that show the successful ones (DEBUG), see heartbeat_gaps
HEARTBEAT_KINDS = ("heartbeat_succeeded", "heartbeat_sent", "heartbeat_failed")
DEBUG_HEARTBEAT_KINDS = ("heartbeat_succeeded", "heartbeat_sent")
# broker removal wordings of an expiry (GroupCoordinator.onExpireHeartbeat, GroupMetadataManager)
# (4.x consumer protocol: "Member X fenced from the group because the member session expired.")
EXPIRY_PATTERN = r"has failed|heartbeat expiration|session timeout expiration|member session expired"
# a member's last heartbeat line may look this much later than the broker's expiry (clock skew)
EXPIRY_SKEW_MS = 2_000
COMMIT_KINDS = ("offset_committed", "offset_record")
HISTORY_KINDS = COMMIT_KINDS + ("offset_reset", "offset_fetched", "offset_seek", "describe_row")
OWNERSHIP_START = ("partitions_assigned",)
OWNERSHIP_END = ("partitions_revoked", "partitions_lost")
MEMBER_END = ("leave_group", "member_fenced", "poll_timeout", "generation_reset")
# ends that a lost or revoked callback of the partition after them overrides (group_tables.RELEASED_BY_CALLBACK)
RELEASED_BY_CALLBACK = ("member_fenced", "generation_reset")


def evidence(source: str = "source", line_no: str = "line_no") -> Column:
    return F.concat_ws(":", F.col(source), F.col(line_no).cast("string"))


def _client_key() -> list[str]:
    """A client stream: one process's lines of a log file (group_tables.ORIGIN_KEY: a file of
    several processes names each line's origin, and their client ids often coincide)."""
    return ["group_id", "client_id", "source", "origin"]


def _with_origin(events: DataFrame) -> DataFrame:
    """The events with each line's origin (group_tables.origin_of) as the column `origin`."""
    if "origin" in events.columns:
        return events
    # "" for none: the client key is also a join key (ownership's member ends), where null = null fails
    return events.withColumn("origin", F.coalesce(F.when(F.col("extra_json").contains(ORIGIN_KEY),
                                                         F.get_json_object("extra_json", "$.origin")), F.lit("")))


LEFT_OUT_DDL = "group_id string, client_id string, source string, origin string"


def _left_out_keys(table):
    """One group's rows (pyarrow) -> its left-out client streams (group_tables.left_out_streams),
    origin "" for none (_with_origin)."""
    import pyarrow as pa

    from pipeline import group_tables as gt

    cols = {c: table.column(c).to_pylist() for c in gt.LEFT_OUT_COLUMNS}
    cols["origin"] = [o or None for o in cols["origin"]]
    keys = sorted(gt.left_out_streams(cols), key=repr)
    gid = table.column("group_id")[0].as_py() if table.num_rows else None
    return pa.table({"group_id": [gid] * len(keys), "client_id": [k[0] for k in keys],
                     "source": [k[1] for k in keys], "origin": [k[2] or "" for k in keys]},
                    schema=pa.schema([(c, pa.string()) for c in ("group_id", "client_id", "source", "origin")]))


def without_left_out(events: DataFrame) -> DataFrame:
    """The events (with `origin`) without the client lines of the streams the replay leaves out as
    several consumers' lines under one client id (group_tables.left_out_streams: the proof is the
    pure function, run per group; Spark only groups the rows and drops the streams it names)."""
    from pipeline.group_tables import LEFT_OUT_COLUMNS

    events = _with_origin(events)
    # every side: an untimed client line takes the time of any line before it in its file
    keys = (events.where(F.col("group_id").isNotNull()).select("group_id", *LEFT_OUT_COLUMNS)
            .groupBy("group_id").applyInArrow(_left_out_keys, LEFT_OUT_DDL))
    k = keys.alias("k")
    e = events.alias("e")
    cond = (F.col("e.side") == "client")
    for c in ("group_id", "client_id", "source", "origin"):
        cond = cond & F.col(f"e.{c}").eqNullSafe(F.col(f"k.{c}"))
    return e.join(k, cond, "left_anti")


def with_member_context(events: DataFrame) -> DataFrame:
    """Client events with the member id and generation in force (last join seen by that client)."""
    w = Window.partitionBy(*_client_key()).orderBy(F.col("ts_ms").asc_nulls_first(), "line_no").rowsBetween(
        Window.unboundedPreceding, 0
    )
    return events.withColumn("ctx_member", F.last("member_id", ignorenulls=True).over(w)).withColumn(
        "ctx_generation", F.last("generation", ignorenulls=True).over(w)
    )


def context_or(kinds: tuple[str, ...]) -> Column:
    """Rows that set the member context (they name a member or a generation) or are of `kinds`:
    with_member_context over only these gives the kept rows the same context as over all rows
    (the others would contribute nothing to `last(..., ignorenulls)`), and most lines of a log
    (heartbeats, commits) never travel through the window shuffle."""
    return F.col("member_id").isNotNull() | F.col("generation").isNotNull() | F.col("kind").isin(*kinds)


def session_limit(version_hint: Column) -> Column:
    """Kafka's default session.timeout.ms for a client version (ConsumerConfig.java; mirrors
    pipeline.replay_rules.settings.defaults_for): 30000 before 0.10.1, 10000 from 0.10.1 (KIP-62) to
    2.8, 45000 from 3.0 (KIP-735); 45000 when the version is unknown."""
    text = F.coalesce(version_hint, F.lit(""))
    major = F.regexp_extract(text, r"^(\d+)\.(\d+)(?:\.(\d+))?", 1)
    minor = F.regexp_extract(text, r"^(\d+)\.(\d+)(?:\.(\d+))?", 2)
    patch = F.regexp_extract(text, r"^(\d+)\.(\d+)(?:\.(\d+))?", 3)
    def num(part: Column, missing: int) -> Column:   # ANSI casts refuse "": test before casting
        return F.when(part != "", part.cast("int")).otherwise(F.lit(missing))
    v = num(major, 99) * 1_000_000 + num(minor, 0) * 1_000 + num(patch, 0)
    return (F.when(v < 10_001, F.lit(30_000))           # 0.9.x - 0.10.0.x  (v = major*1e6 + minor*1e3 + patch)
            .when(v < 3_000_000, F.lit(SESSION_TIMEOUT_MS_PRE_3_0))
            .otherwise(F.lit(SESSION_TIMEOUT_MS)).cast("bigint"))


def heartbeat_gaps(events: DataFrame) -> DataFrame:
    """Silences of one consumer (per group, client, log file); docs/replay.md "Heartbeat gaps".

    kind=heartbeat: between two heartbeat lines of a client whose log shows its heartbeats (DEBUG
      "Sending Heartbeat request" / "Received successful Heartbeat response"; HEARTBEAT_EVIDENCE),
      against the member's session.timeout.ms (its printed ConsumerConfig, else the group's printed
      value, else Kafka's default for the client's version). In a log without those DEBUG lines a
      gap between INFO lines (e.g. "Attempt to heartbeat failed since group is rebalancing") says
      nothing about heartbeats, so no heartbeat gap is measured there.
    kind=log: between any two coordinator lines of the client: a silence of the log, not of the
      member; limit and exceeded are null (unknown).
    kind=expiry: the broker expired the member ("Member X in group G has failed, removing it from
      the group"): the gap from its last logged heartbeat to that line when its log shows heartbeats,
      else session.timeout.ms ending at that line, a lower bound whose start is estimated. Always
      exceeded: the coordinator states it.
    """
    events = without_left_out(events)   # (with `origin`)
    # narrow first: only these columns travel through the window shuffle (the printed settings
    # are taken out of extra_json here, so the JSON text does not travel)
    printed = {col: F.when(F.col("kind") == "client_config",
                           F.get_json_object("extra_json", f"$.settings['{key}']").cast("bigint")).alias(col)
               for col, key in (("printed_session", "session.timeout.ms"),)}
    hint = F.when(~F.col("kafka_version_hint").contains(".."), F.col("kafka_version_hint"))
    # heartbeat lines printed when the application next polled are no heartbeat evidence (group_tables.printed_late)
    late = F.coalesce(F.col("extra_json").contains(PRINTED_LATE_MARKERS[0])
                      & F.col("extra_json").contains(PRINTED_LATE_MARKERS[1]), F.lit(False))
    client = events.where((F.col("side") == "client") & F.col("group_id").isNotNull() & F.col("client_id").isNotNull()
                          & F.col("ts_ms").isNotNull()).select(
        *_client_key(), "ts_ms", "line_no", "kind", "member_id", hint.alias("hint"), *printed.values(),
        (F.col("kind").isin(*HEARTBEAT_KINDS) & ~late).alias("is_hb"),
        (F.col("kind").isin(*DEBUG_HEARTBEAT_KINDS) & ~late).alias("is_debug_hb"))
    w = Window.partitionBy(*_client_key()).orderBy("ts_ms", "line_no")
    whole = Window.partitionBy(*_client_key())
    upto, before = w.rowsBetween(Window.unboundedPreceding, 0), w.rowsBetween(Window.unboundedPreceding, -1)
    # evidence ("source:line") is built for the gap rows only: the rows sorted by the window carry
    # line numbers, not the file name again in every row
    client = client.select(
        *_client_key(), "ts_ms", "line_no", "is_hb",
        F.last("member_id", ignorenulls=True).over(upto).alias("ctx_member"),
        # the member's own printed session.timeout.ms and version (one per stream)
        F.max("hint").over(whole).alias("own_hint"),
        F.max("printed_session").over(whole).alias("own_printed"),
        F.max(F.col("is_debug_hb").cast("int")).over(whole).alias("logs_heartbeats"),
        F.lag("ts_ms").over(w).alias("prev_ts"), F.lag("line_no").over(w).alias("prev_line"),
        F.last(F.when(F.col("is_hb"), F.col("ts_ms")), ignorenulls=True).over(before).alias("prev_hb_ts"),
        F.last(F.when(F.col("is_hb"), F.col("line_no")), ignorenulls=True).over(before).alias("prev_hb_line"),
    )
    # for members that print neither: the group's printed session.timeout.ms (any member's
    # ConsumerConfig), else the default of the member's version, else of the group's clients' version
    group_printed = events.where((F.col("side") == "client") & F.col("group_id").isNotNull()).select(
        "group_id", F.when(F.col("kind") == "client_config",
                           F.get_json_object("extra_json", "$.settings['session.timeout.ms']").cast("bigint")).alias("p"),
        hint.alias("h"),
    ).groupBy("group_id").agg(F.min("p").alias("group_session"), F.max("h").alias("group_hint"))
    client = client.join(F.broadcast(group_printed), "group_id", "left").withColumn(
        "limit", F.coalesce(F.col("own_printed"), F.col("group_session"),
                            session_limit(F.coalesce(F.col("own_hint"), F.col("group_hint")))))

    def gap(kind: str, prev_ts: str, prev_line: str, limit: Column | None, applies: Column) -> Column:
        span = F.col("ts_ms") - F.col(prev_ts)
        lim = limit if limit is not None else F.lit(None).cast("bigint")
        return F.when(applies & F.col(prev_ts).isNotNull() & (span >= MIN_GAP_MS), F.struct(
            F.lit(kind).alias("kind"), F.col(prev_ts).alias("start_ms"), span.alias("gap_ms"),
            lim.alias("limit_ms"), (span > lim).alias("exceeded") if limit is not None
            else F.lit(None).cast("boolean").alias("exceeded"),
            F.array(evidence(line_no=prev_line), evidence()).alias("evidence")))

    hb = gap("heartbeat", "prev_hb_ts", "prev_hb_line", F.col("limit"),
             F.col("is_hb") & (F.col("logs_heartbeats") == 1))
    logs = gap("log", "prev_ts", "prev_line", None, F.lit(True))
    rows = client.select(*_client_key(), "ts_ms", "ctx_member",
                         F.explode(F.filter(F.array(hb, logs), lambda g: g.isNotNull())).alias("g"))
    gaps = rows.select(
        "group_id", F.col("ctx_member").alias("member_id"), "client_id", "source", "g.kind", "g.start_ms",
        F.col("ts_ms").alias("end_ms"), "g.gap_ms", "g.limit_ms", "g.exceeded", "g.evidence",
    )
    return gaps.unionByName(_expiry_gaps(events, client, group_printed))


def _expiry_gaps(events: DataFrame, client: DataFrame, group_printed: DataFrame) -> DataFrame:
    """One row per broker expiry of a member (GroupCoordinator.onExpireHeartbeat 0.11.0.1+, "has
    failed, removing it from the group"; GroupMetadataManager 3.6+), joined to that member's stream."""
    exp = events.where((F.col("side") == "broker") & F.col("kind").isin("broker_member_removed", "broker_member_fenced")
                       & F.col("member_id").isNotNull() & F.col("ts_ms").isNotNull()
                       & F.lower(F.col("raw")).rlike(EXPIRY_PATTERN)).select(
        "group_id", F.col("member_id").alias("ctx_member"), F.col("ts_ms").alias("expiry_ms"),
        evidence().alias("expiry_ev"))
    # only the expired members' lines travel further (few): their stream and their heartbeats
    mine = client.join(F.broadcast(exp.select("group_id", "ctx_member").distinct()), ["group_id", "ctx_member"],
                       "left_semi")
    streams = mine.groupBy("group_id", "ctx_member").agg(
        F.first("client_id").alias("client_id"), F.first("source").alias("source"),
        F.max("limit").alias("limit"), F.max("logs_heartbeats").alias("logs_heartbeats"))
    hbs = mine.where(F.col("is_hb")).select(
        F.col("group_id").alias("hb_group"), F.col("ctx_member").alias("hb_member"), F.col("ts_ms").alias("hb_ts"),
        F.col("line_no").alias("hb_line"), F.col("source").alias("hb_source"))
    found = exp.join(streams, ["group_id", "ctx_member"], "left")
    before = F.col("hb_ts") <= F.col("expiry_ms") + EXPIRY_SKEW_MS
    last_hb = found.join(
        hbs, (F.col("group_id") == F.col("hb_group")) & (F.col("ctx_member") == F.col("hb_member")), "left"
    ).groupBy("group_id", "ctx_member", "expiry_ms", "expiry_ev", "client_id", "source", "limit",
              "logs_heartbeats").agg(
        F.max(F.when(before, F.struct("hb_ts", "hb_line", "hb_source"))).alias("hb"),
        F.max(F.when(~before, F.lit(1))).alias("hb_after"))
    last_hb = last_hb.join(F.broadcast(group_printed), "group_id", "left")
    limit = F.coalesce(F.col("limit"), F.col("group_session"),
                       F.when(F.col("group_hint").isNotNull(), session_limit(F.col("group_hint"))))
    measured = (F.col("logs_heartbeats") == 1) & F.col("hb.hb_ts").isNotNull()
    # a member whose heartbeat lines resume after the expiry has that silence as an ordinary
    # heartbeat gap already (ending at its next heartbeat line): not counted twice
    last_hb = last_hb.where(~(measured & F.col("hb_after").isNotNull()))
    start = F.when(measured, F.col("hb.hb_ts")).otherwise(F.coalesce(F.col("expiry_ms") - limit, F.col("expiry_ms")))
    return last_hb.select(
        "group_id", F.col("ctx_member").alias("member_id"), "client_id", "source",
        F.when(measured, F.lit("heartbeat")).otherwise(F.lit("expiry")).alias("kind"),
        start.alias("start_ms"), F.col("expiry_ms").alias("end_ms"),
        F.when(measured | limit.isNotNull(), F.col("expiry_ms") - start).alias("gap_ms"), limit.alias("limit_ms"),
        F.lit(True).alias("exceeded"),
        F.when(measured, F.array(F.concat_ws(":", F.col("hb.hb_source"), F.col("hb.hb_line").cast("string")),
                                 F.col("expiry_ev"))).otherwise(F.array(F.col("expiry_ev"))).alias("evidence"),
    )


def offset_commits(events: DataFrame) -> DataFrame:
    """Offset history per group/topic/partition and side (client log, offsets dump, describe), one row per
    offset a line states, with its `source_kind` (the event kind) and a flag:

      committed offsets (offset_committed, offset_record): first | commit | rewind (lower than the
        previous committed offset of the same side: a fact, not by itself a reprocessed range);
      positions (offset_fetched: `Setting offset for partition X to the committed offset ...`,
        ConsumerCoordinator 2.x+ / ConsumerUtils 3.x; offset_seek: `Seeking to offset N for partition X`,
        KafkaConsumer.seek 2.x+; offset_reset: `Resetting offset for partition X to position ...`,
        SubscriptionState/Fetcher): fetched | seek | reset;
      describe_row (kafka-consumer-groups --describe CURRENT-OFFSET): describe.

    `prev_offset`/`delta` compare with the last committed offset before the row. No row is flagged a
    skip here: whether a jump forward left records unprocessed needs the whole history (catch-up after
    a restart is not a skip); the replay decides it (findings offset_skip / offset_rewind, with an
    `estimated` detail) and the report counts ranges from the findings only."""
    events = without_left_out(events)   # (with `origin`)
    # 0.9-1.0 Fetcher words a resume from the committed offset as `Resetting offset for partition X to the
    # committed offset N` (offsets.position_kind): a fetched offset, not a reset (only the boolean travels)
    kind = F.when((F.col("kind") == "offset_reset") & F.coalesce(F.col("raw"), F.lit("")).contains(
        "to the committed offset"), F.lit("offset_fetched")).otherwise(F.col("kind")).alias("kind")
    ctx = with_member_context(events.where(F.col("group_id").isNotNull() & context_or(HISTORY_KINDS)).select(
        *_client_key(), "topic", "partition", "side", "ts_ms", "line_no", kind, "offset", "member_id", "generation"))
    c = ctx.where(F.col("kind").isin(*HISTORY_KINDS) & F.col("topic").isNotNull() & F.col("partition").isNotNull()
                  & F.col("offset").isNotNull())
    key = ["group_id", "topic", "partition", "side"]
    w = Window.partitionBy(*key).orderBy(F.col("ts_ms").asc_nulls_first(), "source", "line_no")
    committed = F.col("kind").isin(*COMMIT_KINDS)
    prev = F.last(F.when(committed, F.col("offset")), ignorenulls=True).over(w.rowsBetween(Window.unboundedPreceding, -1))
    c = c.withColumn("prev_offset", prev).withColumn("delta", F.col("offset") - F.col("prev_offset"))
    flag = (
        F.when(F.col("kind") == "offset_reset", "reset")
        .when(F.col("kind") == "offset_fetched", "fetched")
        .when(F.col("kind") == "offset_seek", "seek")
        .when(F.col("kind") == "describe_row", "describe")
        .when(F.col("prev_offset").isNull(), "first")
        .when(F.col("delta") < 0, "rewind")
        .otherwise("commit")
    )
    return c.select(
        "group_id", "topic", "partition", "ts_ms", "offset", "prev_offset", "delta",
        F.coalesce("generation", "ctx_generation").alias("generation"),
        F.coalesce("member_id", "ctx_member").alias("member_id"), "side", flag.alias("flag"),
        F.col("kind").alias("source_kind"), F.array(evidence()).alias("evidence"),
    )


def ownership(events: DataFrame) -> DataFrame:
    """Observed ownership intervals from the consumers' own assignment callbacks: a partition is
    owned from `partitions_assigned` until the same client revokes or loses it, leaves the group
    (leave_group, fenced, poll timeout, generation reset; a fencing or reset followed by the
    partition's lost or revoked callback ends at that callback) or its log ends. An end its owner's log
    does not show is the owner's last line (`last_line`; _last_lines: group_tables.ownership with
    `lives`, which the ingest runs and tests/spark/test_group_tables_twin.py holds equal to this)."""
    all_lines = _with_origin(events)
    events = without_left_out(events)   # (with `origin`)
    client = with_member_context(events.where((F.col("side") == "client") & F.col("group_id").isNotNull()
                                              & F.col("ts_ms").isNotNull()
                                              & context_or(OWNERSHIP_START + OWNERSHIP_END + MEMBER_END)).select(
        *_client_key(), "ts_ms", "line_no", "kind", "member_id", "generation", "partitions"))
    moves = client.where(F.col("kind").isin(*(OWNERSHIP_START + OWNERSHIP_END)) & F.col("partitions").isNotNull())
    moves = moves.select(*_client_key(), "ts_ms", "line_no", "kind", "ctx_member", "ctx_generation",
                         F.explode("partitions").alias("tp"), evidence().alias("ev"))
    w = Window.partitionBy(*_client_key(), "tp").orderBy("ts_ms", "line_no")
    after = w.rowsBetween(1, Window.unboundedFollowing)
    # A partition announced again by the same member without a revoke stays owned (several log
    # lines announce one assignment; a cooperative rebalance keeps what it does not revoke, across
    # generations); announced under a new member id without a revoke (a restarted or crashed
    # process) it starts a new interval and closes the old one.
    moves = moves.withColumn("is_start", F.col("kind").isin(*OWNERSHIP_START) & (
        F.lag("kind").over(w).isNull() | F.lag("kind").over(w).isin(*OWNERSHIP_END)
        | ~F.lag("ctx_member").over(w).eqNullSafe(F.col("ctx_member"))
        # clients before 2.x log no member id (and have no cooperative protocol): a new generation
        | (F.col("ctx_member").isNull() & ~F.lag("ctx_generation").over(w).eqNullSafe(F.col("ctx_generation")))))
    boundary = F.col("kind").isin(*OWNERSHIP_END) | F.col("is_start")
    reason = F.when(F.col("is_start"), F.lit("reassigned")).otherwise(F.regexp_replace("kind", "^partitions_", ""))
    moves = (moves.withColumn("next_ts", F.first(F.when(boundary, F.col("ts_ms")), ignorenulls=True).over(after))
             .withColumn("next_kind", F.first(F.when(boundary, reason), ignorenulls=True).over(after))
             .withColumn("next_ev", F.first(F.when(boundary, F.col("ev")), ignorenulls=True).over(after))
             .withColumn("next_owner", F.first(F.when(boundary, _owner_key("ctx_member", "ctx_generation")),
                                               ignorenulls=True).over(after)))
    starts = moves.where(F.col("is_start"))
    ends = client.where(F.col("kind").isin(*MEMBER_END)).select(
        *_client_key(), F.col("ts_ms").alias("end_ts"), F.col("kind").alias("end_kind"), evidence().alias("end_ev"))
    in_range = ((F.col("end_ts") >= F.col("ts_ms")) & (F.col("next_ts").isNull() | (F.col("end_ts") < F.col("next_ts")))
                # a fenced member holds its partitions until its lost callback (group_tables.RELEASED_BY_CALLBACK)
                & ~(F.col("end_kind").isin(*RELEASED_BY_CALLBACK) & F.coalesce(F.col("next_kind").isin("revoked", "lost"),
                                                                               F.lit(False))))
    start_cols = [c for c in starts.columns]
    j = starts.join(ends, on=_client_key(), how="left").withColumn(
        "m_end", F.when(F.col("end_ts").isNotNull() & in_range, F.struct("end_ts", "end_kind", "end_ev")))
    j = j.groupBy(*start_cols).agg(F.min("m_end").alias("m_end")).select(
        *start_cols, F.col("m_end.end_ts").alias("end_ts"), F.col("m_end.end_kind").alias("end_kind"),
        F.col("m_end.end_ev").alias("end_ev"))
    j = _last_lines(j, all_lines)
    tp = F.regexp_extract("tp", r"^(.*)-(\d+)$", 1)
    part = F.regexp_extract("tp", r"^(.*)-(\d+)$", 2)
    j = j.withColumn("topic", F.when(tp != "", tp).otherwise(F.col("tp"))).withColumn(
        "partition", F.when(part != "", part.cast("int")))
    # an interval held at its log's end ends at its owner's last line only when another interval of
    # the partition starts later (group_tables._ends_at_last_line) or the consumer was created again
    # in its stream after it (a restart: the process that held it is gone; StreamLines.recreated_after)
    later = F.max("ts_ms").over(Window.partitionBy("group_id", "topic", "partition")) > F.col("ts_ms")
    last_line = F.col("last").isNotNull() & (F.col("next_ts").isNotNull() | later | F.col("recreated_ts").isNotNull())
    end_ms = (F.when(F.col("end_ts").isNotNull(), F.col("end_ts")).when(last_line, F.col("last.ts"))
              .otherwise(F.col("next_ts")))
    end_reason = (
        F.when(F.col("end_ts").isNotNull(), F.col("end_kind"))
        .when(last_line, F.lit("last_line"))
        .when(F.col("next_kind").isNotNull(), F.col("next_kind"))
        .otherwise(F.lit("log_end"))
    )
    end_ev = (F.when(F.col("end_ts").isNotNull(), F.col("end_ev"))
              .when(last_line, evidence("source", "last.line_no")).otherwise(F.col("next_ev")))
    return j.select(
        "group_id", "topic", "partition",
        F.col("ctx_member").alias("member_id"), "client_id", F.col("ctx_generation").alias("generation"),
        F.col("ts_ms").alias("start_ms"), end_ms.alias("end_ms"), end_reason.alias("end_reason"),
        F.when(end_ev.isNotNull(), F.array("ev", end_ev)).otherwise(F.array("ev")).alias("evidence"),
        F.lit(False).alias("inferred"),   # (the consumer's own callbacks)
    )


def _owner_key(member: str, generation: str) -> Column:
    """group_tables._owner_key: the member id, or for clients that log none (before 1.0) the generation."""
    return (F.when(F.col(member).isNotNull(), F.concat(F.lit("m:"), F.col(member)))
            .when(F.col(generation).isNotNull(), F.concat(F.lit("g:"), F.col(generation).cast("string"))))


def _last_lines(starts: DataFrame, lines: DataFrame) -> DataFrame:
    """`starts` (ownership's interval starts, with next_ts/next_kind/next_owner and the member end
    end_ts) with `last`: struct(ts, line_no) of the owner's last line where its log does not show the
    end (group_tables.ownership with `lives`): no member end, and either no later boundary of the
    partition in the stream or the next one another owner's assignment without a revoke. The last
    line is the stream's last timed client line (`lines`: the events with `origin`, the group's lines)
    at or after the start, before the next boundary and before the consumer's next creation in the
    stream (client_config; a stream without a client id: any creation in its file and origin;
    group_tables.StreamLines.last_before); and `recreated_ts`, that next creation's time, if any."""
    own = _owner_key("ctx_member", "ctx_generation")
    needs = F.col("end_ts").isNull() & (F.col("next_ts").isNull() | (
        (F.col("next_kind") == "reassigned") & ~F.col("next_owner").eqNullSafe(own)))
    # (a start is one line's partition in one stream: that is its key, deterministic across the joins)
    starts = starts.withColumn("_row", F.to_json(F.struct(*_client_key(), "tp", "ts_ms", "line_no")))
    cand = starts.where(needs).select("_row", *_client_key(), F.col("ts_ms").alias("c_start"), "next_ts")
    timed = lines.where((F.col("side") == "client") & F.col("ts_ms").isNotNull() & F.col("group_id").isNotNull())
    made = timed.where(F.col("kind") == "client_config").select(
        F.col("group_id").alias("m_group"), F.col("client_id").alias("m_client"), F.col("source").alias("m_source"),
        F.col("origin").alias("m_origin"), F.col("ts_ms").alias("m_ts"))
    same_file = ((F.col("group_id") == F.col("m_group")) & (F.col("source") == F.col("m_source"))
                 & F.col("origin").eqNullSafe(F.col("m_origin")))
    recreated = cand.join(made, same_file & (F.col("client_id").isNull() | (F.col("client_id") == F.col("m_client")))
                          & (F.col("m_ts") > F.col("c_start")), "inner").groupBy("_row").agg(F.min("m_ts").alias("m_next"))
    cand = cand.join(recreated, "_row", "left").withColumn("bound", F.least("next_ts", "m_next"))
    ln = timed.select(F.col("group_id").alias("l_group"), F.col("client_id").alias("l_client"),
                      F.col("source").alias("l_source"), F.col("origin").alias("l_origin"),
                      F.col("ts_ms").alias("l_ts"), F.col("line_no").alias("l_line"))
    hit = cand.join(ln, (F.col("group_id") == F.col("l_group")) & F.col("client_id").eqNullSafe(F.col("l_client"))
                    & (F.col("source") == F.col("l_source")) & F.col("origin").eqNullSafe(F.col("l_origin"))
                    & (F.col("l_ts") >= F.col("c_start")) & (F.col("bound").isNull() | (F.col("l_ts") < F.col("bound"))),
                    "inner")
    last = hit.groupBy("_row").agg(F.max(F.struct(F.col("l_ts").alias("ts"), F.col("l_line").alias("line_no"))).alias("last"),
                                   F.min("m_next").alias("recreated_ts"))
    return starts.join(last, "_row", "left").drop("_row")


def name_unnamed_owners(own: DataFrame, memberships: DataFrame) -> DataFrame:
    """Fill the owner of intervals whose log lines name no member (pre-1.0 clients print neither
    client nor member id) with the member the replay identified as holding that partition in that
    generation, when exactly one did."""
    holders = (
        memberships.select("group_id", "generation", "member_id", F.explode_outer("assigned").alias("tp"))
        .where(F.col("tp").isNotNull())
        .groupBy("group_id", "generation", "tp")
        .agg(F.collect_set("member_id").alias("holders"))
        .where(F.size("holders") == 1)
        .select("group_id", "generation", "tp", F.col("holders")[0].alias("replay_member"))
    )
    keyed = own.withColumn("tp", F.concat_ws("-", F.col("topic"), F.col("partition").cast("string")))
    return (
        keyed.join(holders, ["group_id", "generation", "tp"], "left")
        .withColumn("member_id", F.coalesce(F.col("member_id"), F.col("replay_member")))
        .drop("tp", "replay_member")
        .select(*own.columns)
    )
