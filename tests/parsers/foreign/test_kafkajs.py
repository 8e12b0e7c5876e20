"""KafkaJS consumer-group entries as its default JSON logCreator prints them (src/loggers/console.js)
and as text logCreators print them: kind and fields, both directions."""

from __future__ import annotations

import json

import pytest

from parsers import reader
from parsers.base import IGNORE, Match
from parsers.foreign import UNRECOGNISED, parse_line

TS = "2024-05-01T10:00:00.123Z"
TS_MS = 1714557600123
MID = "my-app-1f6c2a4e-5b7d-4c1e-9a8f-0e1d2c3b4a59"
OTHER = "my-app-7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d"


def js(level: str, ns: str, message: str, **extra) -> str:
    """What console.js prints: JSON.stringify({level, timestamp, logger, message: "[ns] message", ...extra})."""
    return json.dumps({"level": level, "timestamp": TS, "logger": "kafkajs", "message": f"[{ns}] {message}", **extra},
                      separators=(",", ":"))


CASES = [
    # consumerGroup.js sync 0.8-2.2.4 (debug), written from its logger call (branch pastes2)
    (js("DEBUG", "ConsumerGroup", "Chosen as group leader", groupId="payments", generationId=9, memberId=MID, topics=["orders"]),
     "join_succeeded", {"group_id": "payments", "generation": 9, "member_id": MID, "extra.leader": MID, "extra.is_leader": True,
                        "extra.topics": ["orders"]}),
    (js("INFO", "ConsumerGroup", "Consumer has joined the group", groupId="payments", memberId=MID, leaderId=OTHER, isLeader=False,
        memberAssignment={"orders": [2, 0], "refunds": [1]}, groupProtocol="RoundRobinAssigner", duration=43),
     "join_succeeded", {"group_id": "payments", "member_id": MID, "protocol": "RoundRobinAssigner",
                        "partitions": ("orders-0", "orders-2", "refunds-1"), "extra.leader": OTHER, "extra.is_leader": False,
                        "extra.duration_ms": 43}),
    (js("INFO", "ConsumerGroup", "Consumer has joined the group", groupId="payments", memberId=MID, leaderId=MID, isLeader=True,
        memberAssignment={}, groupProtocol="RoundRobinAssigner", duration=3012),
     "join_succeeded", {"partitions": (), "extra.is_leader": True}),
    # 1.0-1.14 logged it from the Runner; 1.0-1.3 without the assignment (partitions unknown, not empty)
    (js("INFO", "Runner", "Consumer has joined the group", groupId="payments", memberId=MID, leaderId=OTHER, isLeader=False,
        memberAssignment={"orders": [1]}, groupProtocol="RoundRobinAssigner", duration=51),
     "join_succeeded", {"group_id": "payments", "partitions": ("orders-1",)}),
    (js("INFO", "Runner", "Consumer has joined the group", groupId="payments", memberId=MID, leaderId=OTHER),
     "join_succeeded", {"member_id": MID, "partitions": None, "extra.leader": OTHER}),
    (js("DEBUG", "ConsumerGroup", "Received assignment", groupId="payments", generationId=9, memberId=MID,
        memberAssignment={"orders": [0, 1]}),
     "assignment_received", {"generation": 9, "partitions": ("orders-0", "orders-1")}),
    (js("ERROR", "ConsumerGroup", "Offset out of range, resetting to default offset", topic="orders", partition=3, groupId="payments",
        memberId=MID),
     "offset_reset", {"topic": "orders", "partition": 3, "reason": "offset out of range"}),
    (js("DEBUG", "ConsumerGroup", "Seek offset", groupId="payments", memberId=MID, seek="orders", topic="orders", partition=1,
        offset="1200"),
     "offset_seek", {"topic": "orders", "partition": 1, "offset": 1200}),
    (js("WARN", "Runner", "The group is rebalancing, re-joining", groupId="payments", memberId=MID,
        error="The group is rebalancing, so a rejoin is needed"),
     "join_started", {"reason": "group is rebalancing", "error": "REBALANCE_IN_PROGRESS",
                      "extra.error_message": "The group is rebalancing, so a rejoin is needed"}),
    (js("ERROR", "Runner", "The group is rebalancing, re-joining", groupId="payments", memberId=MID,
        error="The group is rebalancing, so a rejoin is needed"),  # 1.0-1.15 logged it at ERROR
     "join_started", {"group_id": "payments"}),
    (js("ERROR", "Runner", "The coordinator is not aware of this member, re-joining the group", groupId="payments", memberId=MID,
        error="The coordinator is not aware of this member"),
     "generation_reset", {"member_id": MID, "error": "UNKNOWN_MEMBER_ID"}),
    (js("DEBUG", "Runner", "Error while committing offsets, trying again...", groupId="payments", memberId=MID,
        error="Specified group generation id is not valid"),
     "offset_commit_failed", {"error": "ILLEGAL_GENERATION"}),
    (js("ERROR", "Consumer", "Crash: KafkaJSNumberOfRetriesExceeded: The group is rebalancing, so a rejoin is needed",
        groupId="payments", retryCount=5, stack="KafkaJSNumberOfRetriesExceeded: ..."),
     "leave_group", {"group_id": "payments", "reason": "consumer crashed",
                     "error": "KafkaJSNumberOfRetriesExceeded: The group is rebalancing, so a rejoin is needed",
                     "extra.retry_count": 5}),
    (js("INFO", "Consumer", "Stopped", groupId="payments"), "leave_group", {"reason": "consumer stopped"}),
    (js("DEBUG", "Cluster", "Found group coordinator", broker="kafka-2", nodeId=2), "coordinator_discovered",
     {"coordinator": "2", "extra.broker": "kafka-2"}),
    (js("DEBUG", "Cluster", "Group coordinator not available, retrying...", nodeId=1, retryCount=0, retryTime=300),
     "coordinator_lookup", {}),
    (js("ERROR", "Connection", "Response Heartbeat(key: 12, version: 3)", broker="kafka-2:9092", clientId="my-app",
        error="The group is rebalancing, so a rejoin is needed", correlationId=88, size=10),
     "heartbeat_failed", {"error": "REBALANCE_IN_PROGRESS", "client_id": "my-app", "extra.broker": "kafka-2:9092"}),
    (js("ERROR", "Connection", "Response Heartbeat(key: 12, version: 3)", broker="kafka-2:9092", clientId="my-app",
        error="Specified group generation id is not valid", correlationId=91, size=10),
     "heartbeat_failed", {"error": "ILLEGAL_GENERATION"}),
    (js("DEBUG", "Connection", "Response Heartbeat(key: 12, version: 3)", broker="kafka-2:9092", clientId="my-app",
        correlationId=87, size=10, data={"throttleTime": 0, "errorCode": 0}),
     "heartbeat_succeeded", {"client_id": "my-app"}),
    (js("DEBUG", "Connection", "Request Heartbeat(key: 12, version: 3)", broker="kafka-2:9092", clientId="my-app",
        correlationId=87, expectResponse=True, size=92),
     "heartbeat_sent", {}),
    (js("ERROR", "Connection", "Response JoinGroup(key: 11, version: 5)", broker="kafka-2:9092", clientId="my-app",
        error="The coordinator is not aware of this member", correlationId=12, size=28),
     "join_failed", {"error": "UNKNOWN_MEMBER_ID"}),
    (js("ERROR", "Connection", "Response SyncGroup(key: 14, version: 3)", broker="kafka-2:9092", clientId="my-app",
        error="The group is rebalancing, so a rejoin is needed", correlationId=13, size=14),
     "sync_failed", {"error": "REBALANCE_IN_PROGRESS"}),
    (js("ERROR", "Connection", "Response OffsetCommit(key: 8, version: 5)", broker="kafka-2:9092", clientId="my-app",
        error="Specified group generation id is not valid", correlationId=40, size=30),
     "offset_commit_failed", {"error": "ILLEGAL_GENERATION"}),
    (js("ERROR", "Connection", "Response FindCoordinator(key: 10, version: 2)", broker="kafka-1:9092", clientId="my-app",
        error="The coordinator is not available", correlationId=2, size=40),
     "coordinator_lookup", {"error": "COORDINATOR_NOT_AVAILABLE"}),
    # text logCreators: "LEVEL [ns] message {extra}" and a pino/winston-style prefix
    (f'{TS} INFO [ConsumerGroup] Consumer has joined the group {{"groupId":"payments","memberId":"{MID}","leaderId":"{MID}",'
     f'"isLeader":true,"memberAssignment":{{"orders":[0]}},"groupProtocol":"RoundRobinAssigner","duration":12}}',
     "join_succeeded", {"group_id": "payments", "partitions": ("orders-0",), "ts_ms": TS_MS}),
    (f'[{TS}] WARN  [Runner] The group is rebalancing, re-joining {{"groupId":"payments","memberId":"{MID}",'
     '"error":"The group is rebalancing, so a rejoin is needed"}',
     "join_started", {"group_id": "payments", "ts_ms": TS_MS}),
]


def _check(res, kind, expected, line):
    assert isinstance(res, Match), (line, res)
    assert res.kind == kind, (line, res)
    assert res.fields["client_library"] == "kafkajs"
    extra = res.fields.get("extra", {})
    for key, value in expected.items():
        got = extra.get(key[6:]) if key.startswith("extra.") else res.fields.get(key)
        assert got == value, (key, got, value, line)


@pytest.mark.parametrize(("line", "kind", "expected"), CASES, ids=[str(i) for i in range(len(CASES))])
def test_entries(line, kind, expected):
    res = parse_line(line, None, {})
    _check(res, kind, expected, line)
    if line.startswith("{"):
        assert res.fields["ts_ms"] == TS_MS
    assert reader.is_candidate(line)


@pytest.mark.parametrize("line", [
    js("INFO", "Consumer", "Starting", groupId="payments"),
    js("INFO", "ConsumerGroup", "Pausing fetching from 1 topics", topicPartitions=[{"topic": "orders"}]),
    js("DEBUG", "Connection", "Response Metadata(key: 3, version: 6)", broker="kafka-1:9092", clientId="my-app", correlationId=1, size=200),
    js("DEBUG", "Runner", "consumer not running, exiting", groupId="payments", memberId=MID),
])
def test_known_entries_without_event(line):
    assert parse_line(line, None, {}) is IGNORE


def test_unknown_consumer_group_entry_is_unrecognised():
    assert parse_line(js("WARN", "ConsumerGroup", "Something new about the group", groupId="payments"), None, {}) is UNRECOGNISED


@pytest.mark.parametrize("line", [
    '{"level":"INFO","timestamp":"2024-05-01T10:00:00.123Z","logger":"app","message":"user joined group payments"}',
    "2024-05-01 10:00:00 INFO [Consumer] joined the group chat",
    '{"level":30,"time":1714557600123,"msg":"[ConsumerGroup] Consumer has joined the group","logger":"other"}',
])
def test_near_misses(line):
    assert not isinstance(parse_line(line, None, {}), Match)


def test_winston_log_creator_of_the_docs():
    """KafkaJS docs, Custom logging: `const { message, ...extra } = log; logger.log({ level, message, extra })`."""
    line = json.dumps({"extra": {"timestamp": TS, "logger": "kafkajs", "groupId": "payments", "memberId": MID,
                                 "leaderId": MID, "isLeader": True, "memberAssignment": {"orders": [0]},
                                 "groupProtocol": "RoundRobinAssigner", "duration": 20},
                       "level": "info", "message": "Consumer has joined the group"})
    res = parse_line(line, None, {})
    _check(res, "join_succeeded", {"group_id": "payments", "partitions": ("orders-0",), "ts_ms": TS_MS,
                                   "extra.namespace": "ConsumerGroup"}, line)
    assert reader.is_candidate(line)
    hb = json.dumps({"extra": {"timestamp": TS, "logger": "kafkajs", "broker": "kafka-2:9092", "clientId": "my-app",
                               "error": "The group is rebalancing, so a rejoin is needed", "correlationId": 9, "size": 10},
                     "level": "error", "message": "Response Heartbeat(key: 12, version: 3)"})
    _check(parse_line(hb, None, {}), "heartbeat_failed", {"error": "REBALANCE_IN_PROGRESS"}, hb)
    other = json.dumps({"extra": {"timestamp": TS, "logger": "kafkajs"}, "level": "info", "message": "Starting"})
    assert parse_line(other, None, {}) is IGNORE


def test_version_hint_from_wordings():
    """KafkaJS prints no version: [ConsumerGroup] joined is 1.15+, the runner's rebalancing line at
    WARN is 1.16+ (ERROR before); the file's highest bound is kept; a [Runner] join line bounds nothing."""
    from parsers.foreign import kafkajs

    def obj(level, msg):
        return json.dumps({"level": level, "timestamp": "2024-05-01T10:00:00.000Z", "logger": "kafkajs",
                           "message": msg, "groupId": "g", "memberId": "kafkajs-1"})

    state: dict = {}
    old = kafkajs.parse(obj("INFO", "[Runner] Consumer has joined the group"), {})
    assert "client_version" not in old.fields.get("extra", {})
    j = kafkajs.parse(obj("INFO", "[ConsumerGroup] Consumer has joined the group"), state)
    assert j.fields["extra"]["client_version"] == ">=1.15.0"
    r = kafkajs.parse(obj("ERROR", "[Runner] The group is rebalancing, re-joining"), state)
    assert r.fields["extra"]["client_version"] == ">=1.15.0"
    r = kafkajs.parse(obj("WARN", "[Runner] The group is rebalancing, re-joining"), state)
    assert r.fields["extra"]["client_version"] == ">=1.16.0"
    j = kafkajs.parse(obj("INFO", "[ConsumerGroup] Consumer has joined the group"), state)
    assert j.fields["extra"]["client_version"] == ">=1.16.0"
