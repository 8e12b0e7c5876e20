"""The Go clients' consumer-group lines (parsers/foreign/goclients.py): Sarama, franz-go and
segmentio/kafka-go, written anew from the clients' format strings (tests/parsers/foreign/SOURCES.md) in
the envelopes Go loggers print: stdlib log (LstdFlags, Lmicroseconds, Lshortfile, Lmsgprefix, a
prefix), franz-go's BasicLogger, zap (JSON and console), slog (text and JSON), logrus (text and
JSON), zerolog. Kind and every field both ways (the fields a case does not name must be None), the
time, the lines known without an event, and the other clients' lines left to their parsers."""

from __future__ import annotations

import json

import pytest

from parsers import explain, reader
from parsers.base import IGNORE, Match
from parsers.foreign import UNRECOGNISED, parse_line, rule_source

TS_MS = 1709288130000  # 2024-03-01T10:15:30Z
STD = "2024/03/01 10:15:30"  # log.LstdFlags (naive: read as UTC)
ISO = "2024-03-01T10:15:30.250Z"
ISO_MS = TS_MS + 250
MID = "orders-svc-1-5f0a7c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b"
CORE = ("group_id", "member_id", "instance_id", "generation", "member_epoch", "partitions", "coordinator", "reason",
        "error", "topic", "partition", "offset", "protocol", "group_type")


# --- envelopes ---------------------------------------------------------------------------------------

def basic(level: str, msg: str, **kv) -> str:
    """kgo.BasicLogger with a time prefixFn: `[time] [LEVEL] msg; key: val, key: val` (%v values)."""
    tail = "; " + ", ".join(f"{k}: {_v(v)}" for k, v in kv.items()) if kv else ""
    return f"[2024-03-01 10:15:30.250] [{level}] {msg}{tail}"


def _v(v) -> str:  # Go's %v of the values franz-go passes
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def zap_json(level: str, msg: str, **kv) -> str:
    return json.dumps({"level": level.lower(), "ts": TS_MS / 1000 + 0.25, "logger": "kgo", "msg": msg, **kv}, separators=(",", ":"))


def slog_json(level: str, msg: str, **kv) -> str:
    return json.dumps({"time": ISO, "level": level, "msg": msg, **kv}, separators=(",", ":"))


def zerolog(level: str, msg: str, **kv) -> str:
    return json.dumps({"level": level.lower(), **kv, "time": ISO, "message": msg}, separators=(",", ":"))


def _lf(v) -> str:  # logfmt value: quoted when it holds a space, '=' or '"' (slog TextHandler, logrus)
    s = _v(v)
    return json.dumps(s) if (s == "" or any(c in s for c in ' ="')) else s


def slog_text(level: str, msg: str, **kv) -> str:
    return f"time={ISO} level={level} msg={_lf(msg)}" + "".join(f" {k}={_lf(v)}" for k, v in kv.items())


def logrus_text(level: str, msg: str, **kv) -> str:
    return f'time="{ISO}" level={level.lower()} msg={_lf(msg)}' + "".join(f" {k}={_lf(v)}" for k, v in sorted(kv.items()))


def zap_console(level: str, msg: str, **kv) -> str:
    return f"{ISO}\t{level}\tkgo\t{msg}\t" + json.dumps(kv) if kv else f"{ISO}\t{level}\tkgo\t{msg}"


FRANZ_LAYOUTS = [basic, zap_json, slog_json, zerolog, slog_text, logrus_text, zap_console]


def std(msg: str, prefix: str = "[sarama] ") -> str:
    return f"{prefix}{STD} {msg}"


# --- Sarama -----------------------------------------------------------------------------------------

SARAMA = [
    (std("client/coordinator requesting coordinator for orders-svc from kafka-1:9092"), "coordinator_lookup",
     {"group_id": "orders-svc", "extra.broker": "kafka-1:9092"}),
    (std("client/coordinator requesting coordinator for consumergroup orders-svc from kafka-1:9092"), "coordinator_lookup",
     {"group_id": "orders-svc"}),  # 1.10-1.36
    (std("client/coordinator requesting coordinator for consumergoup orders-svc from kafka-1:9092"), "coordinator_lookup",
     {"group_id": "orders-svc"}),  # 1.4-1.9 (sic)
    (std("client/coordinator coordinator for orders-svc is #2 (kafka-2:9092)"), "coordinator_discovered",
     {"group_id": "orders-svc", "coordinator": "2", "extra.coordinator_address": "kafka-2:9092"}),
    (std("client/coordinator coordinator for consumergroup orders-svc is #2 (kafka-2:9092)"), "coordinator_discovered",
     {"group_id": "orders-svc", "coordinator": "2"}),
    (std("client/coordinator Coordinator for consumergoup orders-svc is #2 (kafka-2:9092)."), "coordinator_discovered",
     {"group_id": "orders-svc", "coordinator": "2"}),  # 1.3.0
    (std("client/coordinator coordinator for consumer group orders-svc is not available"), "coordinator_lookup",
     {"group_id": "orders-svc", "error": "COORDINATOR_NOT_AVAILABLE"}),
    (std("client was not authorized to access group orders-svc while attempting to find coordinator"), "coordinator_lookup",
     {"group_id": "orders-svc", "error": "GROUP_AUTHORIZATION_FAILED"}),
    (std("JoinGroup failed: group instance id pod-3 has been fenced"), "member_fenced",
     {"instance_id": "pod-3", "error": "FENCED_INSTANCE_ID"}),
    (std(f"consumergroup/session/{MID}/7 heartbeat loop stopped"), "heartbeat_thread",
     {"member_id": MID, "generation": 7, "extra.thread_state": "stopped"}),
    (std(f"consumergroup/session/{MID}/7 released"), "partitions_revoked",
     {"member_id": MID, "generation": 7, "reason": "session released", "extra.all_claims": True}),
    (std("consumergroup/orders-svc: lost ownership of map[orders:[0 2] payments:[1]] due to kafka server: "
         "The provided member is not known in the current generation"), "partitions_lost",
     {"group_id": "orders-svc", "partitions": ("orders-0", "orders-2", "payments-1"), "error": "UNKNOWN_MEMBER_ID",
      "extra.error_message": "kafka server: The provided member is not known in the current generation"}),
]

# the same line in the envelopes users give sarama.Logger
SARAMA_ENVELOPES = [
    (f"{STD}.123456 client/coordinator coordinator for orders-svc is #2 (kafka-2:9092)", TS_MS + 123),  # Lmicroseconds, no prefix
    (f"[sarama] {STD} client.go:1245: client/coordinator coordinator for orders-svc is #2 (kafka-2:9092)", TS_MS),  # Lshortfile
    (f"{STD} [sarama] client/coordinator coordinator for orders-svc is #2 (kafka-2:9092)", TS_MS),  # Lmsgprefix
    (f"sarama: {STD} client/coordinator coordinator for orders-svc is #2 (kafka-2:9092)", TS_MS),
    (logrus_text("INFO", "client/coordinator coordinator for orders-svc is #2 (kafka-2:9092)"), ISO_MS),  # logrus Writer()
    (zap_json("INFO", "client/coordinator coordinator for orders-svc is #2 (kafka-2:9092)"), ISO_MS),  # zap.NewStdLog
]

# --- franz-go (message, key-values) ------------------------------------------------------------------

FRANZ = [
    ("INFO", "joining group", {"group": "orders-svc"}, "join_started", {"group_id": "orders-svc"}),
    ("INFO", "joined", {"group": "orders-svc", "member_id": "kgo-aa", "instance_id": None, "generation": 12, "leader": False},
     "join_succeeded", {"group_id": "orders-svc", "member_id": "kgo-aa", "generation": 12, "extra.is_leader": False}),
    ("INFO", "joined, balancing group", {"group": "orders-svc", "member_id": "kgo-aa", "instance_id": "pod-1", "generation": 12,
                                         "balance_protocol": "cooperative-sticky", "leader": True},
     "join_succeeded", {"group_id": "orders-svc", "member_id": "kgo-aa", "instance_id": "pod-1", "generation": 12,
                        "protocol": "cooperative-sticky", "extra.is_leader": True}),
    ("INFO", "syncing", {"group": "orders-svc", "protocol_type": "consumer", "protocol": "cooperative-sticky"},
     "sync_started", {"group_id": "orders-svc", "protocol": "cooperative-sticky", "extra.protocol_type": "consumer"}),
    ("INFO", "synced", {"group": "orders-svc", "assigned": "orders[0 1 2], payments[3]"},
     "assignment_received", {"group_id": "orders-svc", "partitions": ("orders-0", "orders-1", "orders-2", "payments-3")}),
    ("INFO", "new group session begun", {"group": "orders-svc", "added": "orders[4 5]", "lost": "payments[3]"},
     "partitions_assigned", {"group_id": "orders-svc", "partitions": ("orders-4", "orders-5"), "extra.lost_partitions": ["payments-3"]}),
    ("INFO", "eager consumer revoking prior assigned partitions", {"group": "orders-svc", "revoking": "orders[0 1]"},
     "partitions_revoked", {"group_id": "orders-svc", "partitions": ("orders-0", "orders-1"), "reason": "eager rebalance"}),
    ("INFO", "calling onRevoke at the end of a session", {"group": "orders-svc", "lost": "payments[3]", "stage": 1},
     "partitions_revoked", {"group_id": "orders-svc", "partitions": ("payments-3",), "reason": "end of session", "extra.stage": "1"}),
    ("INFO", "heartbeat errored", {"group": "orders-svc", "err": "REBALANCE_IN_PROGRESS: The group is rebalancing, so a rejoin is needed."},
     "heartbeat_failed", {"group_id": "orders-svc", "error": "REBALANCE_IN_PROGRESS",
                          "extra.error_message": "REBALANCE_IN_PROGRESS: The group is rebalancing, so a rejoin is needed."}),
    ("DEBUG", "heartbeat complete", {"group": "orders-svc", "err": None}, "heartbeat_succeeded", {"group_id": "orders-svc"}),
    ("INFO", "beginning heartbeat loop", {"group": "orders-svc"}, "heartbeat_thread",
     {"group_id": "orders-svc", "extra.thread_state": "started"}),
    ("WARN", "join group failed", {"group": "orders-svc", "err": "GROUP_AUTHORIZATION_FAILED: Not authorized to access group."},
     "join_failed", {"group_id": "orders-svc", "error": "GROUP_AUTHORIZATION_FAILED",
                     "extra.error_message": "GROUP_AUTHORIZATION_FAILED: Not authorized to access group."}),
    ("INFO", "sync failed with RebalanceInProgress, rejoining", {"group": "orders-svc"},
     "sync_failed", {"group_id": "orders-svc", "error": "REBALANCE_IN_PROGRESS"}),
    ("INFO", "join returned UnknownMemberID, rejoining without a member id", {"group": "orders-svc"},
     "join_failed", {"group_id": "orders-svc", "error": "UNKNOWN_MEMBER_ID"}),
    ("INFO", "forced rejoin quitting heartbeat loop", {"why": "metadata changed partition counts", "is848": False},
     "join_started", {"reason": "metadata changed partition counts"}),
    ("INFO", "leaving group", {"group": "orders-svc", "member_id": "kgo-aa"}, "leave_group",
     {"group_id": "orders-svc", "member_id": "kgo-aa"}),
    ("WARN", "unable to commit offset for topic partition",
     {"group": "orders-svc", "topic": "orders", "partition": 1, "commit_from": 10, "commit_to": 42, "commit_epoch": 3, "error_code": 22},
     "offset_commit_failed", {"group_id": "orders-svc", "topic": "orders", "partition": 1, "offset": 42, "error": "ILLEGAL_GENERATION",
                              "extra.error_code": 22}),
    ("ERROR", "group manage loop errored", {"group": "orders-svc", "err": "NOT_COORDINATOR: This is not the correct coordinator.",
                                            "consecutive_errors": 2, "backoff": "250ms"},
     "rebalance_failed", {"group_id": "orders-svc", "error": "NOT_COORDINATOR", "extra.consecutive_errors": 2, "extra.backoff": "250ms",
                          "extra.error_message": "NOT_COORDINATOR: This is not the correct coordinator."}),
    # KIP-848 (consumer_group_848.go 1.19+): the generation key holds the member epoch
    ("INFO", "consumer group initial heartbeat received assignment",
     {"group": "orders-svc", "member_id": "Zx9", "generation": 4, "now_assigned": "orders[0 1]"},
     "assignment_received", {"group_id": "orders-svc", "member_id": "Zx9", "member_epoch": 4, "group_type": "consumer",
                             "partitions": ("orders-0", "orders-1")}),
    ("INFO", "consumer group heartbeat error, abandoning assignment and rejoining with new member id",
     {"group": "orders-svc", "member_id": "Zx9", "generation": 4, "err": "FENCED_MEMBER_EPOCH: The member epoch is fenced by the group coordinator."},
     "member_fenced", {"group_id": "orders-svc", "member_id": "Zx9", "member_epoch": 4, "group_type": "consumer",
                       "error": "FENCED_MEMBER_EPOCH",
                       "extra.error_message": "FENCED_MEMBER_EPOCH: The member epoch is fenced by the group coordinator."}),
    # share groups (KIP-932, 1.21+)
    ("INFO", "assigning share partitions", {"group": "orders-share", "assignments": "map[orders:[0 3]]"},
     "assignment_received", {"group_id": "orders-share", "group_type": "share", "partitions": ("orders-0", "orders-3")}),
    ("DEBUG", "share group heartbeating", {"group": "orders-share", "member_id": "Sh1", "member_epoch": 6},
     "heartbeat_sent", {"group_id": "orders-share", "member_id": "Sh1", "member_epoch": 6, "group_type": "share"}),
    ("INFO", "share group heartbeat lost membership, resetting epoch",
     {"group": "orders-share", "member_id": "Sh1", "generation": 6, "err": "UNKNOWN_MEMBER_ID: The coordinator is not aware of this member."},
     "member_fenced", {"group_id": "orders-share", "member_id": "Sh1", "member_epoch": 6, "group_type": "share",
                       "error": "UNKNOWN_MEMBER_ID",
                       "extra.error_message": "UNKNOWN_MEMBER_ID: The coordinator is not aware of this member."}),
    ("INFO", "leaving share group", {"group": "orders-share", "member_id": "Sh1"}, "leave_group",
     {"group_id": "orders-share", "member_id": "Sh1", "group_type": "share"}),
    ("DEBUG", "entering OnPartitionsLost", {"with": "orders[0 1]"}, "partitions_lost", {"partitions": ("orders-0", "orders-1")}),
    ("INFO", "leaving next-gen group", {"group": "orders-svc", "member_id": "Zx9", "instance_id": None},
     "leave_group", {"group_id": "orders-svc", "member_id": "Zx9", "group_type": "consumer"}),
]

# pre-0.6 key names (memberID/instanceID, no group key) and wordings
FRANZ_OLD = [
    (basic("INFO", "joined", memberID="kgo-aa", instanceID=None, generation=3, leader=False), "join_succeeded",
     {"member_id": "kgo-aa", "generation": 3, "extra.is_leader": False}),
    (basic("INFO", "synced", assigned="orders[0 1]"), "assignment_received", {"partitions": ("orders-0", "orders-1")}),
    (basic("INFO", "new group session begun", added="map[orders:[0 1]]", lost="map[]"), "partitions_assigned",
     {"partitions": ("orders-0", "orders-1")}),
    (basic("INFO", "cooperative consumer calling onRevoke", lost="map[orders:[1]]", stage=0), "partitions_revoked",
     {"partitions": ("orders-1",), "reason": "end of session", "extra.stage": "0"}),
    (basic("INFO", "heartbeat loop complete"), "heartbeat_thread", {"extra.thread_state": "stopped"}),
    (basic("DEBUG", "entering OnLost", **{"with": "map[orders:[2]]", "context_expired": False}), "partitions_lost",
     {"partitions": ("orders-2",)}),  # v0.10.2-v1.4.x
]

# --- kafka-go ---------------------------------------------------------------------------------------

KGO = [
    (std("joinGroup succeeded for response, orders-svc.  generationID=9, memberID=orders-7f3e", ""), "join_succeeded",
     {"group_id": "orders-svc", "generation": 9, "member_id": "orders-7f3e"}),
    (std("joinGroup succeeded for response, orders-svc. generationID=9, memberID=orders-7f3e", ""), "join_succeeded",
     {"group_id": "orders-svc", "generation": 9, "member_id": "orders-7f3e"}),  # 0.1-0.3.0: one space
    (std("Syncing 2 assignments for generation 9 as member orders-7f3e", ""), "sync_started",
     {"generation": 9, "member_id": "orders-7f3e", "extra.assignment_count": 2}),
    (std("sync group finished for group, orders-svc", ""), "sync_succeeded", {"group_id": "orders-svc"}),
    (std("received empty assignments for group, orders-svc as member orders-7f3e for generation 9", ""), "assignment_received",
     {"group_id": "orders-svc", "member_id": "orders-7f3e", "generation": 9, "partitions": ()}),
    (std("subscribed to topics and partitions: map[{topic:orders partition:0}:-2 {topic:orders partition:1}:120]", ""),
     "partitions_assigned", {"partitions": ("orders-0", "orders-1"), "extra.offsets": {"orders-0": -2, "orders-1": 120}}),
    (std("subscribed to partitions: map[0:-2 3:120]", ""), "partitions_assigned", {"extra.partition_numbers": [0, 3]}),
    (std("Failed to join group orders-svc: [27] Rebalance In Progress: the coordinator has begun rebalancing the group, "
         "the client should rejoin the group", ""), "join_failed",
     {"group_id": "orders-svc", "error": "REBALANCE_IN_PROGRESS",
      "extra.error_message": "[27] Rebalance In Progress: the coordinator has begun rebalancing the group, the client should rejoin the group"}),
    (std("Failed to sync group orders-svc: [25] Unknown Member ID: the member id is not in the current generation", ""), "sync_failed",
     {"group_id": "orders-svc", "error": "UNKNOWN_MEMBER_ID",
      "extra.error_message": "[25] Unknown Member ID: the member id is not in the current generation"}),
    (std("Unable to establish connection to consumer group coordinator for group orders-svc: dial tcp 10.0.0.5:9092: "
         "connect: connection refused", ""), "coordinator_lookup",
     {"group_id": "orders-svc", "error": "dial tcp 10.0.0.5:9092: connect: connection refused"}),
    (std("coordinator for group, orders-svc, set to kafka-2:9092", ""), "coordinator_discovered",
     {"group_id": "orders-svc", "extra.coordinator_address": "kafka-2:9092"}),
    (std("Leaving group orders-svc, member orders-7f3e", ""), "leave_group", {"group_id": "orders-svc", "member_id": "orders-7f3e"}),
    (std("started heartbeat for group, orders-svc [3s]", ""), "heartbeat_thread",
     {"group_id": "orders-svc", "extra.thread_state": "started", "extra.interval": "3s"}),
    (std("stopped heartbeat for group orders-svc", ""), "heartbeat_thread", {"group_id": "orders-svc", "extra.thread_state": "stopped"}),
    (std("Partition changes found, reblancing group: orders-svc.", ""), "join_started",
     {"group_id": "orders-svc", "reason": "partition count changed"}),
    (std("rebalancing consumer group, orders-svc", ""), "join_started", {"group_id": "orders-svc", "reason": "rebalance"}),
    (std("committed offsets: map[orders:map[0:15 1:121]]", ""), "offset_committed",
     {"partitions": ("orders-0", "orders-1"), "extra.offsets": {"orders-0": 15, "orders-1": 121}}),
    (std("the kafka reader for partition 3 of orders is seeking to offset 1200", ""), "offset_seek",
     {"topic": "orders", "partition": 3, "offset": 1200}),
    (std("the kafka reader for partition 3 of orders is seeking to offset first offset", ""), "offset_seek",
     {"topic": "orders", "partition": 3, "offset": -2}),  # v0.4.32+: humanOffset names FirstOffset
    (std("the kafka reader is reading before the first offset for partition 3 of orders, skipping from offset 5 to 90 (85 messages)", ""),
     "offset_reset", {"topic": "orders", "partition": 3, "offset": 90, "reason": "offset before the first offset", "extra.from_offset": 5}),
    # a Logger that is a zap SugaredLogger's Infof (kafka.LoggerFunc)
    (zap_json("INFO", "Leaving group orders-svc, member orders-7f3e"), "leave_group",
     {"group_id": "orders-svc", "member_id": "orders-7f3e"}),
]


def _check(res, kind, expected, line, lib):
    assert isinstance(res, Match), (line, res)
    assert res.kind == kind, (line, res)
    assert res.fields["client_library"] == lib
    extra = res.fields.get("extra", {})
    for key, value in expected.items():
        got = extra.get(key[6:]) if key.startswith("extra.") else res.fields.get(key)
        if isinstance(value, tuple) and got is not None:
            got = tuple(got)
        assert got == value, (key, got, value, line)
    for key in CORE:  # nothing false: the fields the case does not name are not set
        if key not in expected:
            assert res.fields.get(key) is None, (key, res.fields.get(key), line)


@pytest.mark.parametrize(("line", "kind", "expected"), SARAMA, ids=[str(i) for i in range(len(SARAMA))])
def test_sarama(line, kind, expected):
    res = parse_line(line, None, {})
    _check(res, kind, expected, line, "sarama")
    assert res.fields["ts_ms"] == TS_MS
    assert reader.is_candidate(line)


@pytest.mark.parametrize(("line", "ts"), SARAMA_ENVELOPES, ids=[str(i) for i in range(len(SARAMA_ENVELOPES))])
def test_sarama_envelopes(line, ts):
    res = parse_line(line, None, {})
    _check(res, "coordinator_discovered", {"group_id": "orders-svc", "coordinator": "2"}, line, "sarama")
    assert res.fields["ts_ms"] == ts


@pytest.mark.parametrize("layout", FRANZ_LAYOUTS, ids=[f.__name__ for f in FRANZ_LAYOUTS])
@pytest.mark.parametrize(("level", "msg", "kv", "kind", "expected"), FRANZ, ids=[str(i) for i in range(len(FRANZ))])
def test_franz_go(layout, level, msg, kv, kind, expected):
    if layout in (zap_json, slog_json, zerolog, zap_console):
        kv = {k: v for k, v in kv.items() if v is not None}  # zap/slog JSON of a nil *string: null or omitted
    line = layout(level, msg, **kv)
    res = parse_line(line, None, {})
    _check(res, kind, expected, line, "franz-go")
    assert res.fields["ts_ms"] == ISO_MS, line
    assert res.fields["extra"]["level"] == level
    assert reader.is_candidate(line), line


def test_franz_go_json_values():
    """slog/zap JSON of franz-go's map values (a map type without MarshalJSON): objects of lists."""
    res = parse_line(slog_json("INFO", "synced", group="orders-svc", assigned={"orders": [2, 0], "payments": [3]}), None, {})
    _check(res, "assignment_received", {"group_id": "orders-svc", "partitions": ("orders-0", "orders-2", "payments-3")}, "", "franz-go")
    res = parse_line(zap_json("INFO", "joined", group="g", member_id="m", generation=5, leader=True), None, {})
    _check(res, "join_succeeded", {"group_id": "g", "member_id": "m", "generation": 5, "extra.is_leader": True}, "", "franz-go")


@pytest.mark.parametrize(("line", "kind", "expected"), FRANZ_OLD, ids=[str(i) for i in range(len(FRANZ_OLD))])
def test_franz_go_old_keys(line, kind, expected):
    _check(parse_line(line, None, {}), kind, expected, line, "franz-go")


@pytest.mark.parametrize(("line", "kind", "expected"), KGO, ids=[str(i) for i in range(len(KGO))])
def test_kafka_go(line, kind, expected):
    res = parse_line(line, None, {})
    _check(res, kind, expected, line, "kafka-go")
    assert res.fields["ts_ms"] == (ISO_MS if line.startswith("{") else TS_MS)
    assert reader.is_candidate(line)


@pytest.mark.parametrize("line", [
    # Sarama: coordinator retries and other subsystems
    std("client/coordinator retrying after 250ms... (2 attempts remaining)"),
    std("client/coordinator request to broker kafka-1:9092 failed: EOF"),
    std("client/coordinator no available broker to send consumer metadata request to"),
    std("consumer-group/claim orders/3 retrying after 250ms... (2 attempts remaining): kafka: broker not connected"),
    std("consumergroup/orders-svc loop check partition number goroutine will exit, topics [orders]"),
    std("producer/txnmgr [tx-1] committing transaction"),
    # franz-go lines without a fact of the vocabulary
    basic("INFO", "beginning to manage the group lifecycle", group="orders-svc"),
    basic("DEBUG", "heartbeat complete", group="orders-svc", err="REBALANCE_IN_PROGRESS: The group is rebalancing, so a rejoin is needed."),
    slog_text("DEBUG", "fetch offsets returned", group="orders-svc", err=None),
    zap_json("INFO", "beginning autocommit loop", group="orders-svc"),
    basic("DEBUG", "entering OnPartitionsAssigned", **{"with": "orders[0 1]"}),
    slog_text("ERROR", "fetch offsets has an empty topic even after a TopicID lookup, this is unexpected, skipping response partition",
              topic_id="AAAAAAAAAAAAAAAAAAAAAA"),
    # kafka-go: the join's repeats, the leader's plan, the watchers
    std("joined group orders-svc as member orders-7f3e in generation 9", ""),
    std("Joined group orders-svc as member orders-7f3e in generation 9", ""),
    std("selected as leader for group, orders-svc", ""),
    std("assigned member/topic/partitions orders-7f3e/orders/[0 1]", ""),
    std("Failed to fetch offsets for group orders-svc: context canceled", ""),
])
def test_known_lines_without_event(line):
    assert parse_line(line, None, {}) is IGNORE, line


def test_unknown_group_lines_are_unrecognised():
    assert parse_line(std("consumergroup/orders-svc: something new about the session"), None, {}) is UNRECOGNISED
    assert parse_line(std("client/coordinator something new"), None, {}) is UNRECOGNISED
    # the path elsewhere in a text (a table of patterns, a quote) is not a Sarama line
    assert parse_line("| sarama.x | `consumergroup/(?P<group>\\S+): lost ownership` | v1 |", None, {}) is None
    assert parse_line(basic("INFO", "a newer group message", group="orders-svc", member_id="m", generation=3), None, {}) is UNRECOGNISED


@pytest.mark.parametrize("line", [
    # other clients' lines keep their parsers' readings
    "%7|1714557600.123|JOINGROUP|rdkafka#consumer-1| [thrd:main]: JoinGroup failed: Broker: Group authorization failed",
    "2024-05-01 10:00:00,123 INFO kafka.coordinator Successfully joined group orders-svc with generation 7",
    '{"level":"INFO","timestamp":"2024-05-01T10:00:00.123Z","logger":"kafkajs","message":"[Runner] The group is rebalancing, re-joining","groupId":"g"}',
])
def test_other_clients_untouched(line):
    res = parse_line(line, None, {})
    assert isinstance(res, Match) and res.fields["client_library"] not in ("sarama", "franz-go", "kafka-go"), res


@pytest.mark.parametrize("line", [
    "joined",  # a bare word of franz-go's messages in a stdlib line, no key of its
    std("synced", ""),
    slog_text("INFO", "joined", user="bob"),  # an application's own "joined" with none of franz-go's keys
    std("Leaving consumer group (orders-svc).", ""),  # kafka-python's
    std("audit: user bob said joinGroup succeeded for response, g.  generationID=9, memberID=m", ""),  # not where a message starts
])
def test_not_go_lines(line):
    res = parse_line(line, None, {})
    assert not (isinstance(res, Match) and res.fields["client_library"] in ("sarama", "franz-go", "kafka-go")), res


def test_kafka_go_behind_a_syslog_header():
    """A Go binary logging with flags 0 under journald/syslog: the message after the header's ': '."""
    res = parse_line("Mar  1 10:15:30 host-1 orders[812]: Leaving group orders-svc, member orders-7f3e", None, {})
    _check(res, "leave_group", {"group_id": "orders-svc", "member_id": "orders-7f3e"}, "", "kafka-go")


def test_rule_sources_name_client_files():
    assert "client.go" in rule_source("sarama.coordinator_is")
    assert "consumer_group.go" in rule_source("franz_go.joined")
    assert "consumergroup.go" in rule_source("kafka_go.join_succeeded")
    out = explain.explain_line(std("client/coordinator coordinator for orders-svc is #2 (kafka-2:9092)"))
    assert out["kind"] == "coordinator_discovered" and "client.go" in out["source"]


SARAMA_FILE = f"""[sarama] {STD} Initializing new client
[sarama] {STD} client/metadata fetching metadata for all topics from broker kafka-1:9092
[sarama] {STD} client/coordinator requesting coordinator for orders-svc from kafka-1:9092
[sarama] {STD} client/coordinator coordinator for orders-svc is #2 (kafka-2:9092)
[sarama] 2024/03/01 10:15:41 consumergroup/session/{MID}/7 heartbeat loop stopped
[sarama] 2024/03/01 10:15:41 consumergroup/session/{MID}/7 released
[sarama] 2024/03/01 10:15:42 JoinGroup failed: group instance id pod-3 has been fenced
"""

KGO_FILE = f"""{STD}.100000 joined group orders-svc as member orders-7f3e in generation 9
{STD}.200000 joinGroup succeeded for response, orders-svc.  generationID=9, memberID=orders-7f3e
{STD}.300000 Syncing 1 assignments for generation 9 as member orders-7f3e
{STD}.400000 sync group finished for group, orders-svc
{STD}.500000 committed offsets for group orders-svc:\x20
\ttopic: orders
\t\tpartition 0: 15
\t\tpartition 1: 121
2024/03/01 10:15:31.000000 Leaving group orders-svc, member orders-7f3e
"""


def _parse(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    outcomes, summary = reader.parse_path(str(p))
    return list(outcomes), summary


def test_sarama_file(tmp_path):
    outs, summary = _parse(tmp_path, "app.log", SARAMA_FILE)
    events = [o.event for o in outs if o.status == "parsed"]
    assert [(e.line_no, e.kind) for e in events] == [
        (3, "coordinator_lookup"), (4, "coordinator_discovered"), (5, "heartbeat_thread"), (6, "partitions_revoked"), (7, "member_fenced")]
    assert summary.unparsed == 0 and summary.ignored == 2
    assert [e.ts_ms for e in events] == [TS_MS, TS_MS, TS_MS + 11000, TS_MS + 11000, TS_MS + 12000]
    assert {e.client_library for e in events} == {"sarama"}
    # the session lines name no group: the file's one group, marked inferred
    assert events[2].group_id == "orders-svc" and events[2].extra["group_id_inferred"] is True
    assert events[4].extra["rule"] == "sarama.instance_fenced"


def test_kafka_go_file(tmp_path):
    outs, summary = _parse(tmp_path, "app.log", KGO_FILE)
    events = [o.event for o in outs if o.status == "parsed" and o.event is not None]
    assert [(e.line_no, e.kind) for e in events] == [
        (2, "join_succeeded"), (3, "sync_started"), (4, "sync_succeeded"), (5, "offset_committed"), (9, "leave_group")]
    assert summary.unparsed == 0 and summary.ignored == 1
    commit = events[3]
    assert commit.extra["offsets"] == {"orders-0": 15, "orders-1": 121}
    assert commit.partitions == ("orders-0", "orders-1")
    assert commit.ts_ms == TS_MS + 500
    assert events[1].group_id == "orders-svc" and events[1].extra["group_id_inferred"] is True


def test_franz_go_file(tmp_path):
    lines = [basic(level, msg, **kv) for level, msg, kv, _k, _e in FRANZ]
    outs, summary = _parse(tmp_path, "app.log", "\n".join(lines) + "\n")
    assert [o.event.kind for o in outs if o.status == "parsed"] == [kind for *_x, kind, _e in FRANZ]
    assert summary.unparsed == 0
    lines = [slog_json(level, msg, **{k: v for k, v in kv.items() if v is not None}) for level, msg, kv, _k, _e in FRANZ]
    outs, summary = _parse(tmp_path, "app.jsonl", "\n".join(lines) + "\n")
    assert summary.layout == "json"
    assert [o.event.kind for o in outs if o.status == "parsed"] == [kind for *_x, kind, _e in FRANZ]
    assert all(o.event.ts_ms == ISO_MS for o in outs if o.status == "parsed")


def test_sources_list_every_go_rule():
    """tests/parsers/foreign/SOURCES.md names every Go rule with its kind, and every franz-go message."""
    from pathlib import Path

    from parsers.foreign import goclients

    text = (Path(__file__).parent / "SOURCES.md").read_text()
    names = [f"| {r.lib.replace('-', '_')}.{r.name} | {r.kind or '-'} |" for r in goclients.RULES]
    names += [f"| franz_go.{rule} | {kind or '-'} |" for rule, kind, _src in goclients._FRANZ.values()]
    names += ["`" + m.replace("|", "\\|") + "`" for m in goclients._FRANZ]
    assert [n for n in names if n not in text] == []
