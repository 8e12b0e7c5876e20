"""High-volume tables built with Spark DataFrame window operations (no Python, no driver collects):
heartbeat_gaps, offset_commits and the observed partition ownership intervals.

All of them read the `events` DataFrame (events table columns, `ts_ms` already on the group's
common timeline, see replay_stage.timeline).
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

# Kafka defaults (ConsumerConfig): session.timeout.ms 45000 since 3.0 (KIP-735), 10000 before;
# max.poll.interval.ms 300000 since 0.10.1 (KIP-62).
SESSION_TIMEOUT_MS = 45_000
SESSION_TIMEOUT_MS_PRE_3_0 = 10_000
MAX_POLL_INTERVAL_MS = 300_000
# Silences shorter than this are normal chatter and not kept (keeps the table proportional to
# incidents, not to log volume).
MIN_GAP_MS = 1_000

HEARTBEAT_KINDS = ("heartbeat_succeeded", "heartbeat_failed")
COMMIT_KINDS = ("offset_committed", "offset_record")
HISTORY_KINDS = COMMIT_KINDS + ("offset_reset", "offset_fetched", "offset_seek", "describe_row")
OWNERSHIP_START = ("partitions_assigned",)
OWNERSHIP_END = ("partitions_revoked", "partitions_lost")
MEMBER_END = ("leave_group", "member_fenced", "poll_timeout", "generation_reset")


def evidence(source: str = "source", line_no: str = "line_no") -> Column:
    return F.concat_ws(":", F.col(source), F.col(line_no).cast("string"))


def _client_key() -> list[str]:
    return ["group_id", "client_id", "source"]


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
    major = F.regexp_extract(F.coalesce(version_hint, F.lit("")), r"^(\d+)", 1)
    return F.when((major != "") & (major.cast("int") < 3), F.lit(SESSION_TIMEOUT_MS_PRE_3_0)).otherwise(
        F.lit(SESSION_TIMEOUT_MS)
    ).cast("bigint")


def heartbeat_gaps(events: DataFrame) -> DataFrame:
    """Silences between consecutive signs of life of one consumer (per group, client, log file).

    kind=heartbeat: between heartbeat responses, against session.timeout.ms;
    kind=log: between any two coordinator lines of the client, against max.poll.interval.ms
    (both as printed in the client's ConsumerConfig block, else Kafka's defaults for its version).

    One shuffle and one window pass: every row looks back at the previous line of its client and
    at the client's previous heartbeat, and yields up to two gap rows.
    """
    # narrow first: only these columns travel through the window shuffle (the printed settings
    # are taken out of extra_json here, so the JSON text does not travel)
    printed = {col: F.when(F.col("kind") == "client_config",
                           F.get_json_object("extra_json", f"$.settings['{key}']").cast("bigint")).alias(col)
               for col, key in (("printed_session", "session.timeout.ms"), ("printed_poll", "max.poll.interval.ms"))}
    client = events.where((F.col("side") == "client") & F.col("group_id").isNotNull() & F.col("client_id").isNotNull()
                          & F.col("ts_ms").isNotNull()).select(
        *_client_key(), "ts_ms", "line_no", "kind", "member_id", "kafka_version_hint", *printed.values(),
        F.col("kind").isin(*HEARTBEAT_KINDS).alias("is_hb"))
    w = Window.partitionBy(*_client_key()).orderBy("ts_ms", "line_no")
    upto, before = w.rowsBetween(Window.unboundedPreceding, 0), w.rowsBetween(Window.unboundedPreceding, -1)
    # evidence ("source:line") is built for the gap rows only: the rows sorted by the window carry
    # line numbers, not the file name again in every row
    client = client.select(
        *_client_key(), "ts_ms", "line_no", "is_hb", "kafka_version_hint",
        F.last("member_id", ignorenulls=True).over(upto).alias("ctx_member"),
        # the limits the consumer printed in its ConsumerConfig block win over the version defaults
        F.last("printed_session", ignorenulls=True).over(upto).alias("cfg_session"),
        F.last("printed_poll", ignorenulls=True).over(upto).alias("cfg_poll"),
        F.lag("ts_ms").over(w).alias("prev_ts"), F.lag("line_no").over(w).alias("prev_line"),
        F.last(F.when(F.col("is_hb"), F.col("ts_ms")), ignorenulls=True).over(before).alias("prev_hb_ts"),
        F.last(F.when(F.col("is_hb"), F.col("line_no")), ignorenulls=True).over(before).alias("prev_hb_line"),
    )

    def gap(kind: str, prev_ts: str, prev_line: str, limit: Column, applies: Column) -> Column:
        span = F.col("ts_ms") - F.col(prev_ts)
        return F.when(applies & F.col(prev_ts).isNotNull() & (span >= MIN_GAP_MS), F.struct(
            F.lit(kind).alias("kind"), F.col(prev_ts).alias("start_ms"), span.alias("gap_ms"),
            limit.alias("limit_ms"), (span > limit).alias("exceeded"),
            F.array(evidence(line_no=prev_line), evidence()).alias("evidence")))

    hb = gap("heartbeat", "prev_hb_ts", "prev_hb_line",
             F.coalesce(F.col("cfg_session"), session_limit(F.col("kafka_version_hint"))), F.col("is_hb"))
    logs = gap("log", "prev_ts", "prev_line", F.coalesce(F.col("cfg_poll"), F.lit(MAX_POLL_INTERVAL_MS).cast("bigint")),
               F.lit(True))
    rows = client.select(*_client_key(), "ts_ms", "ctx_member",
                         F.explode(F.filter(F.array(hb, logs), lambda g: g.isNotNull())).alias("g"))
    return rows.select(
        "group_id", F.col("ctx_member").alias("member_id"), "client_id", "source", "g.kind", "g.start_ms",
        F.col("ts_ms").alias("end_ms"), "g.gap_ms", "g.limit_ms", "g.exceeded", "g.evidence",
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
    (leave_group, fenced, poll timeout, generation reset) or its log ends."""
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
             .withColumn("next_ev", F.first(F.when(boundary, F.col("ev")), ignorenulls=True).over(after)))
    starts = moves.where(F.col("is_start"))
    ends = client.where(F.col("kind").isin(*MEMBER_END)).select(
        *_client_key(), F.col("ts_ms").alias("end_ts"), F.col("kind").alias("end_kind"), evidence().alias("end_ev"))
    in_range = (F.col("end_ts") >= F.col("ts_ms")) & (F.col("next_ts").isNull() | (F.col("end_ts") < F.col("next_ts")))
    start_cols = [c for c in starts.columns]
    j = starts.join(ends, on=_client_key(), how="left").withColumn(
        "m_end", F.when(F.col("end_ts").isNotNull() & in_range, F.struct("end_ts", "end_kind", "end_ev")))
    j = j.groupBy(*start_cols).agg(F.min("m_end").alias("m_end")).select(
        *start_cols, F.col("m_end.end_ts").alias("end_ts"), F.col("m_end.end_kind").alias("end_kind"),
        F.col("m_end.end_ev").alias("end_ev"))
    end_ms = F.when(F.col("end_ts").isNotNull(), F.col("end_ts")).otherwise(F.col("next_ts"))
    end_reason = (
        F.when(F.col("end_ts").isNotNull(), F.col("end_kind"))
        .when(F.col("next_kind").isNotNull(), F.col("next_kind"))
        .otherwise(F.lit("log_end"))
    )
    end_ev = F.when(F.col("end_ts").isNotNull(), F.col("end_ev")).otherwise(F.col("next_ev"))
    tp = F.regexp_extract("tp", r"^(.*)-(\d+)$", 1)
    part = F.regexp_extract("tp", r"^(.*)-(\d+)$", 2)
    return j.select(
        "group_id", F.when(tp != "", tp).otherwise(F.col("tp")).alias("topic"),
        F.when(part != "", part.cast("int")).alias("partition"),
        F.col("ctx_member").alias("member_id"), "client_id", F.col("ctx_generation").alias("generation"),
        F.col("ts_ms").alias("start_ms"), end_ms.alias("end_ms"), end_reason.alias("end_reason"),
        F.when(end_ev.isNotNull(), F.array("ev", end_ev)).otherwise(F.array("ev")).alias("evidence"),
    )


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
