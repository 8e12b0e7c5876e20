"""The event vocabulary shared by every part of coordscope (see shared DESIGN.md).

One parsed line (or multi-line record) becomes one `Event`. Every event carries its evidence:
the source file as given, the 1-based line number of its first line and the raw text.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from typing import Any


class Side(StrEnum):
    CLIENT = "client"
    BROKER = "broker"
    OFFSETS = "offsets"
    DESCRIBE = "describe"


class Kind(StrEnum):
    """Event kinds. Client-side first, then broker, dump and describe kinds."""

    # client (AbstractCoordinator / ConsumerCoordinator / 4.x membership managers)
    COORDINATOR_DISCOVERED = "coordinator_discovered"
    COORDINATOR_LOST = "coordinator_lost"
    JOIN_STARTED = "join_started"
    JOIN_SUCCEEDED = "join_succeeded"
    JOIN_FAILED = "join_failed"
    SYNC_SUCCEEDED = "sync_succeeded"
    SYNC_FAILED = "sync_failed"
    ASSIGNMENT_RECEIVED = "assignment_received"
    PARTITIONS_REVOKED = "partitions_revoked"
    PARTITIONS_ASSIGNED = "partitions_assigned"
    PARTITIONS_LOST = "partitions_lost"
    HEARTBEAT_SUCCEEDED = "heartbeat_succeeded"
    HEARTBEAT_FAILED = "heartbeat_failed"
    LEAVE_GROUP = "leave_group"
    POLL_TIMEOUT = "poll_timeout"
    REBALANCE_FAILED = "rebalance_failed"
    GENERATION_RESET = "generation_reset"
    MEMBER_FENCED = "member_fenced"
    MEMBER_STATE_CHANGED = "member_state_changed"  # 4.x consumer protocol: UNSUBSCRIBED -> JOINING -> ...
    OFFSET_COMMITTED = "offset_committed"
    OFFSET_COMMIT_FAILED = "offset_commit_failed"
    OFFSET_FETCHED = "offset_fetched"
    NO_COMMITTED_OFFSET = "no_committed_offset"
    OFFSET_RESET = "offset_reset"
    OFFSET_SEEK = "offset_seek"
    SUBSCRIPTION_CHANGED = "subscription_changed"
    # additive (branch parsers): finer client kinds the template catalog distinguishes
    COORDINATOR_LOOKUP = "coordinator_lookup"  # FindCoordinator / group metadata request sent
    HEARTBEAT_SENT = "heartbeat_sent"  # DEBUG "Sending Heartbeat request ..."
    HEARTBEAT_THREAD = "heartbeat_thread"  # heartbeat thread started/paused/closed/failed
    SYNC_STARTED = "sync_started"  # leader/follower SyncGroup request sent
    OFFSET_COMMIT_SENT = "offset_commit_sent"  # OffsetCommit request sent/enqueued (not yet acked)
    # additive (pastes6): what the catalog's offset_fetch / assignment classes hold besides a result
    OFFSET_FETCH_SENT = "offset_fetch_sent"  # OffsetFetch request sent/enqueued ("Fetching committed offsets ...")
    OFFSET_FETCH_FAILED = "offset_fetch_failed"  # OffsetFetch failed, timed out, unstable or its result discarded
    ASSIGNMENT_STARTED = "assignment_started"  # the leader began computing ("Performing assignment using ...")
    REBALANCE_STARTED = "rebalance_started"  # Connect WorkerCoordinator "Rebalance started"
    STREAMS_STATE_CHANGED = "streams_state_changed"  # Streams thread/client "State transition from A to B"
    # additive (parsers3): the start-up "ConsumerConfig values:" dump (extra["settings"]: name -> value text)
    CLIENT_CONFIG = "client_config"
    # broker (GroupCoordinator / GroupMetadataManager, Scala <= 3.x and Java 3.7+)
    BROKER_REBALANCE_PREPARING = "broker_rebalance_preparing"
    BROKER_GROUP_STABILIZED = "broker_group_stabilized"
    BROKER_ASSIGNMENT_RECEIVED = "broker_assignment_received"
    BROKER_MEMBER_REMOVED = "broker_member_removed"
    BROKER_MEMBER_JOINED = "broker_member_joined"
    BROKER_GROUP_EMPTY = "broker_group_empty"
    BROKER_GROUP_DEAD = "broker_group_dead"
    BROKER_GROUP_LOADED = "broker_group_loaded"
    BROKER_GROUP_UNLOADED = "broker_group_unloaded"
    BROKER_OFFSETS_EXPIRED = "broker_offsets_expired"
    # additive (parsers2): the other broker template families of the catalogue
    BROKER_MEMBER_FENCED = "broker_member_fenced"  # static-member fencing, 4.x session/revocation fencing
    BROKER_REBALANCE_FAILED = "broker_rebalance_failed"  # leader/members did not rejoin in time
    BROKER_SUBSCRIPTION_CHANGED = "broker_subscription_changed"  # 4.x subscribed topics/regex updates
    BROKER_OFFSET_COMMITTED = "broker_offset_committed"  # DEBUG/TRACE commit lines, txn offset commits
    BROKER_OFFSET_COMMIT_FAILED = "broker_offset_commit_failed"
    BROKER_OFFSET_FETCHED = "broker_offset_fetched"
    BROKER_GROUP_STATE_CHANGED = "broker_group_state_changed"  # unexpected-state and 4.x member transitions
    BROKER_GROUP_MIGRATED = "broker_group_migrated"  # classic <-> consumer group upgrade/downgrade
    BROKER_GROUP_METADATA_WRITE_FAILED = "broker_group_metadata_write_failed"
    BROKER_COORDINATOR_LIFECYCLE = "broker_coordinator_lifecycle"  # startup/shutdown of the coordinator
    BROKER_COORDINATOR_RUNTIME = "broker_coordinator_runtime"  # 3.6+ CoordinatorRuntime internals
    # additive (parsers3): the broker's "KafkaConfig values:" dump, group.*/offsets.* settings in extra["settings"]
    BROKER_CONFIG = "broker_config"
    # __consumer_offsets dumps
    OFFSET_RECORD = "offset_record"
    GROUP_METADATA_RECORD = "group_metadata_record"
    TOMBSTONE = "tombstone"
    # kafka-consumer-groups --describe
    DESCRIBE_ROW = "describe_row"
    # a candidate line that no rule matched; kept with its raw text
    UNPARSED = "unparsed"


@dataclass(frozen=True, slots=True)
class Event:
    """One coordination fact, with its evidence (source, line_no, raw)."""

    source: str
    line_no: int
    side: str
    kind: str
    raw: str
    ts_ms: int | None = None
    group_id: str | None = None
    client_id: str | None = None
    member_id: str | None = None
    instance_id: str | None = None
    generation: int | None = None
    member_epoch: int | None = None
    # classic | consumer | share | streams: only when the rule's wording, source class or LogContext
    # proves it (see docs/parsers.md "Group types"); None when the line does not say
    group_type: str | None = None
    # java | librdkafka | kafkajs | kafka-python | aiokafka: set by the non-Java client parsers
    # (parsers/foreign/); None on Java client lines, broker lines, dumps and describe rows
    client_library: str | None = None
    protocol: str | None = None
    partitions: tuple[str, ...] | None = None
    coordinator: str | None = None
    reason: str | None = None
    error: str | None = None
    topic: str | None = None
    partition: int | None = None
    offset: int | None = None
    kafka_version_hint: str | None = None
    # extra typed facts that do not fit the common columns (e.g. leader, lag, log-end offset,
    # state transitions, expiration times); JSON-serialisable values only
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if self.partitions is not None:
            d["partitions"] = list(self.partitions)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Event:
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in d.items() if k in known}
        if kw.get("partitions") is not None:
            kw["partitions"] = tuple(kw["partitions"])
        if kw.get("extra") is None:
            kw["extra"] = {}
        return cls(**kw)

    @property
    def evidence(self) -> str:
        return f"{self.source}:{self.line_no}"


EVENT_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(Event))
