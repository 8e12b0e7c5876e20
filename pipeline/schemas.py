"""One source of truth for every RUN_DIR table: column names and types.

Types are written in Spark SQL DDL (so `pipeline/spark/` can use `StructType.fromDDL`), and
`arrow_schema(table)` gives the same schema for pyarrow readers and writers (the dashboard and
reports, which never start a JVM). Times are UTC epoch milliseconds (`bigint`).
"""

from __future__ import annotations

from typing import Any

# Every finding and derived row carries evidence as a list of "source:line_no" strings.
TABLES: dict[str, list[tuple[str, str]]] = {
    # one row per parsed or unparsed event (parsers.events.Event; `extra` as a JSON object string)
    "events": [
        ("source", "string"), ("line_no", "bigint"), ("ts_ms", "bigint"), ("side", "string"),
        ("kind", "string"), ("group_id", "string"), ("client_id", "string"), ("member_id", "string"),
        ("instance_id", "string"), ("generation", "int"), ("member_epoch", "int"), ("group_type", "string"),
        ("client_library", "string"), ("protocol", "string"),
        ("partitions", "array<string>"), ("coordinator", "string"), ("reason", "string"),
        ("error", "string"), ("topic", "string"), ("partition", "int"), ("offset", "bigint"),
        ("kafka_version_hint", "string"), ("raw", "string"), ("extra_json", "string"),
    ],
    # candidate lines no rule matched (and rejected input such as binary junk), kept with their text
    "unparsed": [
        ("source", "string"), ("line_no", "bigint"), ("ts_ms", "bigint"), ("side", "string"),
        ("layout", "string"), ("logger", "string"), ("shape", "string"), ("why", "string"),
        ("raw", "string"),
    ],
    # one row per group generation, classic protocol (or member epoch bump, consumer protocol)
    "generations": [
        ("group_id", "string"), ("generation", "int"), ("protocol_type", "string"), ("protocol", "string"),
        ("leader", "string"), ("members", "array<string>"), ("member_count", "int"),
        ("assignment_json", "string"),             # {member_id: [topic-partition, ...]}, members whose assignment the logs show
        ("started_ms", "bigint"),                  # PreparingRebalance entered (rebalance began)
        ("stabilized_ms", "bigint"),               # Stable entered (sync completed)
        ("ended_ms", "bigint"),                    # next rebalance began, group emptied or log end
        ("rebalance_ms", "bigint"),                # stabilized_ms - started_ms
        ("cause", "string"),                       # see pipeline.replay causes vocabulary
        ("cause_detail", "string"),                # one sentence in plain words
        ("trigger_member", "string"),
        ("coordinator", "string"),
        ("inferred", "boolean"),                   # true when no log line shows it directly
        ("evidence", "array<string>"),
    ],
    # member x generation
    "memberships": [
        ("group_id", "string"), ("generation", "int"), ("member_id", "string"), ("client_id", "string"),
        ("instance_id", "string"), ("host", "string"), ("is_leader", "boolean"),
        ("joined_ms", "bigint"), ("synced_ms", "bigint"),
        ("assigned", "array<string>"), ("revoked", "array<string>"),
        ("left_ms", "bigint"), ("leave_reason", "string"),   # shutdown | session_expiry | poll_timeout | fenced | ...
        # the member's client library (java | librdkafka | ...) and version, from its own client lines; null: unknown
        ("client_library", "string"), ("client_version", "string"),
        ("evidence", "array<string>"),
        # consumer protocol (KIP-848) only, null for classic groups: generation = group epoch, joined_ms = the
        # member's epoch reached it, synced_ms = it acknowledged it (STABLE)
        ("member_state", "string"),                # last state at this epoch: STABLE | UNREVOKED_PARTITIONS | ...
        ("states", "array<string>"),               # member states in order (client and broker lines)
        ("owned", "array<string>"), ("added", "array<string>"),   # the client's "Reconciling assignment" line
        ("reconcile_ms", "bigint"),                # new target assignment -> the member acknowledged it
        ("fence_error", "string"),                 # FENCED_MEMBER_EPOCH | UNKNOWN_MEMBER_ID (client side)
    ],
    # silences between consecutive signs of life of one member (kind: heartbeat | poll | log)
    "heartbeat_gaps": [
        ("group_id", "string"), ("member_id", "string"), ("client_id", "string"), ("source", "string"),
        ("kind", "string"), ("start_ms", "bigint"), ("end_ms", "bigint"), ("gap_ms", "bigint"),
        ("limit_ms", "bigint"),                    # session.timeout.ms or max.poll.interval.ms in force
        ("exceeded", "boolean"),
        ("evidence", "array<string>"),             # the two lines bounding the gap
    ],
    # per group/topic/partition offset history: commits, fetched/sought/reset positions, describe rows
    "offset_commits": [
        ("group_id", "string"), ("topic", "string"), ("partition", "int"), ("ts_ms", "bigint"),
        ("offset", "bigint"), ("prev_offset", "bigint"), ("delta", "bigint"),
        ("generation", "int"), ("member_id", "string"), ("side", "string"),
        ("flag", "string"),                        # first | commit | rewind | fetched | seek | reset | describe
        ("source_kind", "string"),                 # the event kind that states the offset
        ("evidence", "array<string>"),
    ],
    # partition -> member ownership intervals
    "ownership": [
        ("group_id", "string"), ("topic", "string"), ("partition", "int"), ("member_id", "string"),
        ("client_id", "string"), ("generation", "int"), ("start_ms", "bigint"), ("end_ms", "bigint"),
        ("end_reason", "string"), ("evidence", "array<string>"),
        # false: the owning consumer's own log shows the interval (its assignment callbacks:
        # group_tables.ownership, spark/tables.ownership); true: the replay inferred it from a
        # generation's assignment because the owner's own log shows no partition callbacks (its log
        # was not given, is left out as mixed, or its client logs none: replay_rules/ownership.py)
        ("inferred", "boolean"),
    ],
    "findings": [
        ("finding_id", "string"), ("kind", "string"),
        ("severity", "string"),                    # critical | high | medium | low | info
        ("group_id", "string"), ("start_ms", "bigint"), ("end_ms", "bigint"),
        ("members", "array<string>"), ("partitions", "array<string>"), ("generation", "int"),
        ("title", "string"), ("explanation", "string"),
        ("details_json", "string"),                # machine-readable facts (offset ranges, timeouts ...)
        ("evidence", "array<string>"),
    ],
}

SEVERITIES: tuple[str, ...] = ("critical", "high", "medium", "low", "info")


# Columns added after runs were first written: a run directory written before lacks them, and is read
# with them null (rundir.validate accepts it; load_table's dataset fills them). Table -> columns.
ADDED_COLUMNS: dict[str, frozenset[str]] = {
    "ownership": frozenset({"inferred"}),   # 2026-11-27: observed vs inferred intervals (null: not known)
}


def columns(table: str) -> list[str]:
    return [name for name, _ in TABLES[table]]


def ddl(table: str) -> str:
    """Spark DDL string, e.g. for `StructType.fromDDL` or `spark.createDataFrame(rows, ddl)`."""
    return ", ".join(f"`{name}` {typ}" for name, typ in TABLES[table])


def arrow_schema(table: str) -> Any:
    return arrow_schema_of(TABLES[table])


def arrow_schema_of(columns: list[tuple[str, str]]) -> Any:
    """The pyarrow schema of (name, Spark DDL type) pairs (the types TABLES uses)."""
    import pyarrow as pa

    simple = {
        "string": pa.string(), "bigint": pa.int64(), "int": pa.int32(), "boolean": pa.bool_(),
        "double": pa.float64(), "array<string>": pa.list_(pa.string()),
    }
    return pa.schema([(name, simple[typ]) for name, typ in columns])
