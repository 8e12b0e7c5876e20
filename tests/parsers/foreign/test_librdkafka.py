"""librdkafka consumer-group lines, one per format string and version (tests/parsers/foreign/SOURCES.md),
in librdkafka's own layout and as its bindings print them: kind and fields, both directions."""

from __future__ import annotations

import pytest

from parsers import reader
from parsers.base import IGNORE, Match
from parsers.foreign import UNRECOGNISED, librdkafka, parse_line

MID = "rdkafka-6b6d3a5e-8c5b-4b8a-9a52-0f1c2d3e4f50"
OTHER = "rdkafka-0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"


def native(level: int, fac: str, msg: str, thread: str = "main", ts: str = "1714557600.123") -> str:
    return f"%{level}|{ts}|{fac}|rdkafka#consumer-1| [thrd:{thread}]: {msg}"


# (facility, message after "[thrd:..]: ", kind, expected fields; "extra.X" keys look into extra)
CASES = [
    # rdkafka_cgrp.c state machine: 1.6+ and 1.0-1.5 ("v%d" and "join state")
    ("CGRPSTATE", 'Group "payments" changed state init -> query-coord (join-state init)', "member_state_changed",
     {"group_id": "payments", "extra.from_state": "init", "extra.to_state": "query-coord", "extra.join_state": "init"}),
    ("CGRPSTATE", 'Group "payments" changed state wait-coord -> up (v3, join-state init)', "member_state_changed",
     {"group_id": "payments", "extra.to_state": "up"}),
    ("CGRPJOINSTATE", 'Group "payments" changed join state wait-join -> wait-metadata (state up)', "member_state_changed",
     {"group_id": "payments", "extra.from_join_state": "wait-join", "extra.to_join_state": "wait-metadata"}),
    ("CGRPJOINSTATE", 'Group "payments" changed join state init -> wait-join (v1, state up)', "member_state_changed",
     {"extra.to_join_state": "wait-join", "extra.state": "up"}),
    # coordinator
    ("CGRPCOORD", 'kafka-2:9092/2: Group "payments" coordinator is kafka-2:9092 id 2', "coordinator_discovered",
     {"group_id": "payments", "coordinator": "2", "extra.host": "kafka-2", "extra.broker": "kafka-2:9092/2"}),
    ("CGRPCOORD", 'Group "payments" changing coordinator 1 -> 2', "coordinator_discovered",
     {"coordinator": "2", "extra.previous_coordinator": "1"}),
    ("COORDSET", 'Group "payments" coordinator set to broker kafka-2:9092/2', "coordinator_discovered", {"coordinator": "2"}),
    ("COORDCLEAR", 'Group "payments" broker kafka-2:9092/2 is no longer coordinator', "coordinator_lost", {"coordinator": "2"}),
    ("COORD", 'Group "payments": marking the coordinator (2) dead: Broker: Not coordinator: OffsetCommit', "coordinator_lost",
     {"coordinator": "2", "error": "Broker: Not coordinator: OffsetCommit"}),
    ("CGRPCOORD", 'kafka-1:9092/1: Group "payments" FindCoordinator response error: Broker: Coordinator not available: ',
     "coordinator_lookup", {"error": "Broker: Coordinator not available"}),
    ("CGRPCOORD", 'kafka-1:9092/1: Group "payments" GroupCoordinator response error: Broker: Group coordinator not available',
     "coordinator_lookup", {"error": "Broker: Group coordinator not available"}),
    ("CGRPQUERY", 'kafka-1:9092/1: Group "payments": querying for coordinator: intervaled in state query-coord',
     "coordinator_lookup", {"reason": "intervaled in state query-coord"}),
    ("CGRPQUERY", 'Group "payments": no broker available for coordinator query: intervaled in state query-coord',
     "coordinator_lookup", {"error": "intervaled in state query-coord"}),
    # join / sync
    ("JOIN", f'kafka-2:9092/2: Joining group "payments" with 1 subscribed topic(s) and member id "{MID}"', "join_started",
     {"group_id": "payments", "member_id": MID, "extra.topic_count": 1}),
    ("JOIN", 'kafka-2:9092/2: Joining group "payments" with 1 subscribed topic(s) and member id ""', "join_started",
     {"member_id": None}),
    ("JOIN", 'GroupCoordinator/2: Joining group "payments" with 2 subscribed topic(s)', "join_started",
     {"group_id": "payments", "extra.broker": "GroupCoordinator/2"}),
    ("REJOIN", 'Group "payments": Rejoining group with 3 owned partition(s): Metadata for subscribed topic(s) has changed',
     "join_started", {"reason": "Metadata for subscribed topic(s) has changed", "extra.owned": 3}),
    ("REJOIN", 'Group "payments": Joining group without an assignment: JoinGroup error: Broker: Unknown member', "join_started",
     {"reason": "JoinGroup error: Broker: Unknown member"}),
    ("REJOIN", 'Group "payments" rejoining in join-state started without an assignment', "join_started", {"group_id": "payments"}),
    ("REJOIN", 'Group "payments" (re)joining in join-state wait-unassign-call with 0 assigned partition(s): Unassignment done',
     "join_started", {"reason": "Unassignment done"}),
    ("JOINGROUP", f"JoinGroup response: GenerationId 12, Protocol range, LeaderId {MID} (me), my MemberId {MID}, member metadata count 2: (no error)",
     "join_succeeded", {"generation": 12, "protocol": "range", "member_id": MID, "extra.leader": MID, "extra.is_leader": True,
                        "extra.members": 2, "error": None}),
    ("JOINGROUP", f"JoinGroup response: GenerationId 12, Protocol cooperative-sticky, LeaderId {OTHER}, my MemberId {MID}, member metadata count 0: (no error)",
     "join_succeeded", {"generation": 12, "extra.leader": OTHER, "extra.is_leader": False}),
    ("JOINGROUP", f"JoinGroup response: GenerationId 4, Protocol range, LeaderId {MID} (me), my MemberId {MID}, 2 members in group: (no error)",
     "join_succeeded", {"generation": 4, "extra.members": 2}),
    ("JOINGROUP", "JoinGroup response: GenerationId -1, Protocol , LeaderId , my MemberId , member metadata count 0: Broker: Unknown member",
     "join_failed", {"generation": -1, "error": "Broker: Unknown member"}),
    ("SYNCGROUP", "SyncGroup response: Success (34 bytes of MemberState data)", "sync_succeeded", {"extra.bytes": 34, "error": None}),
    ("SYNCGROUP", "SyncGroup response: Broker: Group rebalance in progress (0 bytes of MemberState data)", "sync_failed",
     {"error": "Broker: Group rebalance in progress"}),
    ("GRPSYNC", 'Group "payments": synchronization failed: Broker: Specified group generation id is not valid: rejoining',
     "sync_failed", {"error": "Broker: Specified group generation id is not valid"}),
    ("ASSIGNOR", 'Group "payments": failed to run assignor "range" for 2 member(s): Local: Invalid argument or configuration',
     "rebalance_failed", {"error": "Local: Invalid argument or configuration", "extra.assignor": "range"}),
    ("JOINGROUP", "JoinGroup failed: Broker: Invalid session timeout", "join_failed", {"error": "Broker: Invalid session timeout"}),
    ("REJOIN", 'Group "payments": subscription updated from metadata change: rejoining group in state up', "join_started",
     {"extra.state": "up"}),
    # assignment, revocation, rebalances
    ("ASSIGN", 'Group "payments": new assignment of 3 partition(s) in join-state wait-sync', "assignment_received",
     {"extra.count": 3, "extra.join_state": "wait-sync"}),
    ("ASSIGN", 'Group "payments": new assignment of 2 partition(s) in join state wait-sync', "assignment_received", {"extra.count": 2}),
    ("ASSIGN", 'Group "payments": delegating assign of 3 partition(s) to application on queue rd_kafka_cgrp_new: new assignment',
     "partitions_assigned", {"extra.count": 3, "reason": "new assignment"}),
    ("ASSIGN", 'Group "payments": delegating revoke of 3 partition(s) to application on queue rd_kafka_cgrp_new: rebalance in progress',
     "partitions_revoked", {"extra.count": 3, "reason": "rebalance in progress"}),
    ("ASSIGN", 'Group "payments": delegating incremental assign of 1 partition(s) to application on queue rd_kafka_cgrp_new: new assignment',
     "partitions_assigned", {"extra.incremental": True}),
    ("ASSIGN", 'Group "payments": delegating assign of 2 partition(s) to application rebalance callback on queue rd_kafka_cgrp_new: new assignment',
     "partitions_assigned", {"extra.count": 2}),
    ("ASSIGN", 'Group "payments": application *assign() call failed: Local: Erroneous state', "rebalance_failed",
     {"error": "Local: Erroneous state"}),
    ("REBALANCE", 'Group "payments": internal incremental assign of 2 partition(s) failed: Local: Erroneous state: unassigning all partitions and rejoining',
     "rebalance_failed", {"error": "Local: Erroneous state", "extra.op": "assign"}),
    ("REBALANCE", 'Group "payments" is rebalancing (EAGER) in state up (join-state steady) with 3 assigned partition(s): rebalance in progress',
     "join_started", {"reason": "rebalance in progress", "extra.count": 3, "extra.protocol_type": "EAGER"}),
    ("REBALANCE", 'Group "payments" initiating rebalance (EAGER) in state up (join-state steady) with 3 assigned partition(s) (lost): max.poll.interval.ms exceeded',
     "join_started", {"reason": "max.poll.interval.ms exceeded", "extra.assignment_lost": True}),
    ("REBALANCE", 'Group "payments" is rebalancing in state up (join-state started) with assignment: group rejoin', "join_started",
     {"reason": "group rejoin"}),
    ("REBALANCE", 'Group "payments": revoking all 3 partition(s) (assignment lost)', "partitions_lost", {"extra.count": 3}),
    ("REBALANCE", 'Group "payments": revoking all 3 partition(s)', "partitions_revoked", {"extra.count": 3}),
    ("REBALANCE", 'Group "payments" revoking 1 of 3 partition(s)', "partitions_revoked", {"extra.count": 1, "extra.total": 3}),
    ("LOST", 'Group "payments": current assignment of 3 partition(s) lost: Consumer group session timed out: revoking assignment and rejoining',
     "partitions_lost", {"extra.count": 3}),
    # heartbeats, session, poll
    ("HEARTBEAT", 'kafka-2:9092/2: Heartbeat for group "payments" generation id 12', "heartbeat_sent", {"generation": 12}),
    ("HEARTBEAT", 'Group "payments" heartbeat error response in state up (join-state steady, 3 partition(s) assigned): Broker: Group rebalance in progress',
     "heartbeat_failed", {"error": "Broker: Group rebalance in progress", "extra.count": 3}),
    ("HEARTBEAT", 'Group "payments" heartbeat error response in state up (join state started, 2 partition(s) assigned): Broker: Unknown member',
     "heartbeat_failed", {"error": "Broker: Unknown member"}),
    ("HEARTBEAT", "Heartbeat failed due to coordinator (kafka-2:9092/2) no longer available: Broker: Not coordinator: re-querying for coordinator",
     "heartbeat_failed", {"coordinator": "kafka-2:9092/2", "error": "Broker: Not coordinator"}),
    ("HEARTBEAT", "Heartbeat failed: ILLEGAL_GENERATION: Broker: Specified group generation id is not valid", "heartbeat_failed",
     {"error": "ILLEGAL_GENERATION: Broker: Specified group generation id is not valid"}),
    ("SESSTMOUT", "Consumer group session timed out (in join-state steady) after 45012 ms without a successful response from the group coordinator (broker 2, last error was Broker: Not coordinator): revoking assignment and rejoining group",
     "heartbeat_failed", {"coordinator": "2", "error": "Broker: Not coordinator", "extra.elapsed_ms": 45012, "reason": "session timed out"}),
    ("MAXPOLL", "Application maximum poll interval (300000ms) exceeded by 88ms (adjust max.poll.interval.ms for long-running message processing): leaving group",
     "poll_timeout", {"extra.max_poll_interval_ms": 300000, "extra.exceeded_by_ms": 88}),
    ("LEAVE", 'Group "payments": leave (in state up)', "leave_group", {"group_id": "payments", "extra.state": "up"}),
    ("LEAVE", 'Group "payments": leave (in state up): LeaveGroupRequest already in-transit', "leave_group", {}),
    ("MEMBERID", f'Group "payments": updating member id "(not-set)" -> "{MID}"', "member_state_changed",
     {"member_id": MID, "extra.from_member": "(not-set)"}),
    ("MEMBERID", f'Group "payments": updating member id "{MID}" -> ""', "generation_reset", {"member_id": MID}),
    ("FATAL", "Fatal error: Broker: Static consumer fenced by other consumer with same group.instance.id: Fatal consumer error: Broker: Static consumer fenced by other consumer with same group.instance.id",
     "member_fenced", {"extra.code": "Broker"}),
    ("SUBSCRIBE", 'Group "payments": subscribe to new subscription of 1 topics (join-state init)', "subscription_changed",
     {"extra.topic_count": 1}),
    ("UNSUBSCRIBE", 'Group "payments": unsubscribe from current subscription of size 1 (leave group=true, has joined=true, rdkafka-x, join-state steady)',
     "subscription_changed", {"extra.topic_count": 1}),
    # commits and offsets
    ("COMMIT", "GroupCoordinator/2: Committing offsets for 3 partition(s) with generation-id 12 in join-state steady: cgrp auto commit timer",
     "offset_commit_sent", {"generation": 12, "reason": "cgrp auto commit timer", "extra.count": 3}),
    ("COMMIT", "kafka-2:9092/2: Committing offsets for 2 partition(s): manual", "offset_commit_sent", {"reason": "manual"}),
    ("COMMIT", "GroupCoordinator/2: OffsetCommit for 3 partition(s) in join-state steady: cgrp auto commit timer: returned: Success",
     "offset_committed", {"reason": "cgrp auto commit timer", "error": None}),
    ("COMMIT", "OffsetCommit for 1 partition(s): manual: returned: Broker: Unknown member", "offset_commit_failed",
     {"error": "Broker: Unknown member", "reason": "manual"}),
    ("COMMITFAIL", "Offset commit (cgrp auto commit timer) failed for 1/3 partition(s) in join-state wait-join: Broker: Specified group generation id is not valid: orders[0]@1200(Broker: Specified group generation id is not valid)",
     "offset_commit_failed", {"reason": "cgrp auto commit timer", "partitions": ("orders-0",), "extra.failed": 1}),
    ("OFFSET", "OffsetCommit failed for orders [2] at offset 1200 in join-state steady: Broker: Unknown member", "offset_commit_failed",
     {"topic": "orders", "partition": 2, "offset": 1200, "error": "Broker: Unknown member"}),
    ("COMMIT", 'Group "payments": unable to OffsetCommit in state wait-coord: manual: coordinator (-1) is unavailable: retrying later',
     "offset_commit_failed", {"coordinator": "-1", "reason": "manual"}),
    ("OFFSET", "orders [1]: offset reset (at offset 1500 (leader epoch 3), broker 2) to offset BEGINNING (leader epoch -1): fetch failed due to requested offset not available on the broker: Broker: Offset out of range",
     "offset_reset", {"topic": "orders", "partition": 1, "error": "Broker: Offset out of range",
                      "reason": "fetch failed due to requested offset not available on the broker"}),
    ("OFFSET", "orders [1]: offset reset (at offset 1500, broker 2) to 0: fetch failed due to requested offset not available on the broker: Broker: Offset out of range",
     "offset_reset", {"offset": 0, "extra.broker": "2"}),
    ("OFFSET", "orders [0]: offset reset (at offset INVALID) to END: no previously committed offset available: Local: No offset stored",
     "offset_reset", {"topic": "orders", "error": "Local: No offset stored", "extra.to": "END"}),
    ("OFFSETFETCH", "kafka-2:9092/2: OffsetFetchResponse: orders [0] offset 1200, leader epoch 3, metadata 0 byte(s): Success",
     "offset_fetched", {"topic": "orders", "partition": 0, "offset": 1200, "error": None}),
    ("OFFSETFETCH", "kafka-2:9092/2: OffsetFetchResponse: orders [1] offset -1001, leader epoch -1, metadata 0 byte(s): Success",
     "no_committed_offset", {"partition": 1, "offset": -1001}),
    ("OFFSETFETCH", "kafka-2:9092/2: OffsetFetchResponse: orders [1] offset 77", "offset_fetched", {"offset": 77}),
    # rdkafka_assignment.c 1.6+ (CGRP context: what debug=cgrp shows of the fetched offsets)
    ("OFFSETFETCH", "Adding orders [2] back to pending list with offset 5120", "offset_fetched",
     {"topic": "orders", "partition": 2, "offset": 5120}),
    ("OFFSETFETCH", "Adding orders [3] back to pending list with offset INVALID", "no_committed_offset",
     {"topic": "orders", "partition": 3, "offset": None}),
    # KIP-848 (2.4+)
    ("HEARTBEAT", f'ConsumerGroupHeartbeat response received for member id "{MID}" with epoch 17', "heartbeat_succeeded",
     {"member_id": MID, "member_epoch": 17, "group_type": "consumer"}),
    ("HEARTBEAT", 'ConsumerGroupHeartbeat received target assignment "orders(UrQPEmrJSMWdQ1s2kHrbRA)[0], orders(UrQPEmrJSMWdQ1s2kHrbRA)[1]"',
     "assignment_received", {"partitions": ("orders-0", "orders-1"), "group_type": "consumer"}),
    ("HEARTBEAT", 'ConsumerGroupHeartbeat received target assignment "(null)(UrQPEmrJSMWdQ1s2kHrbRA)[0]"', "assignment_received",
     {"partitions": ("UrQPEmrJSMWdQ1s2kHrbRA-0",), "extra.partitions_named_by": "topic_id"}),
    ("HEARTBEAT", 'Target assignment acked, new current assignment  "orders(UrQPEmrJSMWdQ1s2kHrbRA)[0]"', "partitions_assigned",
     {"partitions": ("orders-0",)}),
    ("HEARTBEAT", "ConsumerGroupHeartbeat failed due to: Broker: The member epoch is fenced by the group coordinator: will rejoin the group",
     "member_fenced", {"error": "Broker: The member epoch is fenced by the group coordinator"}),
    ("HEARTBEAT", "ConsumerGroupHeartbeat failed due to coordinator (kafka-2:9092/2) loading in progress: Broker: Coordinator load in progress: retrying",
     "heartbeat_failed", {"coordinator": "kafka-2:9092/2"}),
    ("HEARTBEAT", "ConsumerGroupHeartbeat failed: Broker: Unsupported assignor: range", "heartbeat_failed",
     {"error": "Broker: Unsupported assignor: range"}),
    ("HEARTBEAT", "ConsumerGroupHeartbeat fatal error: Broker: Group maximum size reached", "rebalance_failed",
     {"error": "Broker: Group maximum size reached", "group_type": "consumer"}),
    ("HEARTBEAT", "Revoking assignment as lost an rejoining in join state steady", "partitions_lost", {"extra.join_state": "steady"}),
    ("HEARTBEAT", f'kafka-2:9092/2: ConsumerGroupHeartbeat of member id "{MID}", group id "payments", generation id 17, group instance id "", '
     'current assignment "orders(UrQPEmrJSMWdQ1s2kHrbRA)[0]", subscribed topics "orders", subscribed topic regex "", remote assignor ""',
     "heartbeat_sent", {"member_id": MID, "group_id": "payments", "member_epoch": 17, "partitions": ("orders-0",)}),
    ("HEARTBEAT", 'ShareGroupHeartbeat response received for member id "abc" with epoch 3', "heartbeat_succeeded", {"group_type": "share"}),
]


def _check(res, kind, expected, line):
    assert isinstance(res, Match), (line, res)
    assert res.kind == kind, (line, res)
    assert res.fields["client_library"] == "librdkafka"
    extra = res.fields.get("extra", {})
    for key, value in expected.items():
        got = extra.get(key[6:]) if key.startswith("extra.") else res.fields.get(key)
        assert got == value, (key, got, value, line)


@pytest.mark.parametrize(("fac", "msg", "kind", "expected"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_native_layout(fac, msg, kind, expected):
    line = native(7, fac, msg)
    res = parse_line(line, None, {})
    _check(res, kind, expected, line)
    assert res.fields["ts_ms"] == 1714557600123
    assert res.fields["client_id"] == "rdkafka#consumer-1"
    assert res.fields["extra"]["facility"] == fac
    assert reader.is_candidate(line)


BINDINGS = [
    # confluent-kafka-python log_cb through logging: "%s [%s] %s" (fac, name, buf) in a few logging layouts
    ("python", "2024-05-01 10:00:00,123 DEBUG confluent_kafka CGRPSTATE [rdkafka#consumer-1] [thrd:main]: {m}", 1714557600123),
    ("python", "DEBUG:consumer:CGRPSTATE [rdkafka#consumer-1] [thrd:main]: {m}", None),
    ("python", "2024-05-01 10:00:00,123 - app.kafka - DEBUG - CGRPSTATE [rdkafka#consumer-1] [thrd:main]: {m}", 1714557600123),
    # confluent-kafka-go LogEvent.String()
    ("go", "[2024-05-01T10:00:00Z][rdkafka#consumer-1][CGRPSTATE][7][thrd:main]: {m}", 1714557600000),
    # confluent-kafka-dotnet Loggers.ConsoleLogger and the examples' OnLog handler
    ("dotnet", "Debug|2024-05-01 10:00:00.123|rdkafka#consumer-1|CGRPSTATE| [thrd:main]: {m}", 1714557600123),
    ("dotnet", "info: Worker[0] rdkafka#consumer-1|CGRPSTATE| [thrd:main]: {m}", None),
    # node-rdkafka event.log objects: JSON.stringify, util.inspect on one line, Python repr of a dict
    ("node", '{{"severity":7,"fac":"CGRPSTATE","message":"[thrd:main]: {mj}","name":"rdkafka#consumer-1"}}', None),
    ("dict", "{{ severity: 7, fac: 'CGRPSTATE', message: '[thrd:main]: {m}' }}", None),
    ("dict", "2024-05-01 10:00:00,123 {{'severity': 7, 'fac': 'CGRPSTATE', 'message': '[thrd:main]: {m}'}}", 1714557600123),
    # util.inspect over several lines: the message line alone
    ("bare", "  message: '[thrd:main]: {m}',", None),
]


@pytest.mark.parametrize(("binding", "template", "ts"), BINDINGS)
def test_bindings(binding, template, ts):
    msg = 'Group "payments" changed state up -> query-coord (join-state steady)'
    line = template.format(m=msg, mj=msg.replace('"', '\\"'))
    res = parse_line(line, None, {})
    _check(res, "member_state_changed", {"group_id": "payments", "extra.to_state": "query-coord"}, line)
    assert res.fields["extra"]["binding"] == binding
    assert res.fields.get("ts_ms") == ts
    if binding != "bare":
        assert res.fields["extra"]["facility"] == "CGRPSTATE"
    assert reader.is_candidate(line)


def test_python_binding_without_thread_names():
    # log.thread.name=false: no "[thrd:..]: " prefix
    line = "2024-05-01 10:00:01,000 WARNING confluent_kafka MAXPOLL [rdkafka#consumer-2] Application maximum poll interval (300000ms) exceeded by 12ms (adjust max.poll.interval.ms for long-running message processing): leaving group"
    res = parse_line(line, None, {})
    _check(res, "poll_timeout", {"client_id": "rdkafka#consumer-2", "extra.level": "WARNING", "ts_ms": 1714557601000}, line)


@pytest.mark.parametrize("line", [
    # the consumer error the application receives and logs itself (confluent-kafka-python KafkaError)
    'ERROR consumer error: KafkaError{code=_MAX_POLL_EXCEEDED,val=-147,str="Application maximum poll interval (300000ms) exceeded by 88ms"}',
    "2024-05-01T10:00:00.000Z ERROR Consumer error: Application maximum poll interval (300000ms) exceeded by 88ms (Local: Maximum application poll interval (max.poll.interval.ms) exceeded)",
])
def test_application_error_max_poll(line):
    res = parse_line(line, None, {})
    _check(res, "poll_timeout", {"extra.max_poll_interval_ms": 300000, "extra.exceeded_by_ms": 88}, line)
    assert reader.is_candidate(line)


@pytest.mark.parametrize(("fac", "msg"), [
    ("CGRPOP", 'Group "payments" received op SUBSCRIBE in state init (join-state init)'),
    ("JOIN", 'Group "payments": join with 1 subscribed topic(s)'),
    ("LEAVE", "kafka-2:9092/2: Leaving group"),
    ("ASSIGNOR", 'Group "payments": "range" assignor run for 2 member(s)'),
    ("JOINGROUP", 'I am elected leader for group "payments" with 2 member(s)'),
    ("ASSIGNMENT", 'Group "payments": setting group assignment to 3 partition(s)'),
    ("ASSIGNDONE", 'Group "payments": assignment operations done in join-state steady (rebalance rejoin=false)'),
    ("LEAVEGROUP", "LeaveGroup response received in state up"),
    ("OFFSET", "Offset fetch error for 3 partition(s): Broker: Coordinator load in progress"),
    ("CLEARASSIGN", "Clearing current assignment of 3 partition(s)"),
    ("FETCHSTART", 'Group "payments": starting fetchers for 3 assigned partition(s) in join-state started (usable_offsets=no, v5, line 2157)'),
])
def test_known_lines_without_event(fac, msg):
    assert parse_line(native(7, fac, msg), None, {}) is IGNORE


def test_unknown_group_facility_line_is_unrecognised():
    assert parse_line(native(7, "CGRPSTATE", "Group \"payments\" did something new"), None, {}) is UNRECOGNISED


def test_other_facilities_are_not_group_lines():
    line = native(7, "FETCH", "kafka-2:9092/2: Fetch topic orders [0] at offset 1200 (v2)", thread="kafka-2:9092/2")
    assert parse_line(line, None, {}) is IGNORE


def test_version_from_init_line():
    state: dict = {}
    init = native(7, "INIT", "librdkafka v2.3.0 (0x20300ff) rdkafka#consumer-1 initialized (builtin.features gzip,snappy, debug 0x2000)", thread="app")
    assert parse_line(init, None, state) is IGNORE
    res = parse_line(native(7, "LEAVE", 'Group "payments": leave (in state up)'), None, state)
    assert res.fields["extra"]["client_version"] == "2.3.0"


@pytest.mark.parametrize("line", [
    "2024-05-01 10:00:00,123 INFO app joined group chat-room-7 with 3 members",
    "%7|1714557600.123|CGRPSTATE|rdkafka#consumer-1| [thrd:main]: the Group \"payments\" is fine",
    '{"level":"info","msg":"Group \\"payments\\" changed state"}',
    "Debug|2024-05-01 10:00:00.123|rdkafka#producer-1|MSGSET| [thrd:kafka-1:9092/1]: produced 10 messages",
])
def test_near_misses(line):
    res = parse_line(line, None, {})
    assert not isinstance(res, Match), res


def test_every_rule_is_exercised():
    used = set()
    for fac, msg, _k, _e in CASES:
        res = parse_line(native(7, fac, msg), None, {})
        used.add(res.rule.split(".", 1)[1])
    no_event = {r.name for r in librdkafka.RULES if r.kind is None}
    assert {r.name for r in librdkafka.RULES} - used - no_event == set()


def test_assignment_list_lines_make_one_event_on_the_last_line():
    """rd_kafka_topic_partition_list_log under ASSIGNMENT (1.6+, after SyncGroup): header + one line per partition."""
    state: dict = {}
    parse_line(native(7, "CGRPSTATE", 'Group "payments" changed state init -> query-coord (join-state init)'), None, state)
    lines = [native(7, "ASSIGNMENT", "List with 2 partition(s):"),
             native(7, "ASSIGNMENT", " orders [0] offset INVALID"),
             native(7, "ASSIGNMENT", " orders [3] offset INVALID", ts="1714557600.200")]
    out = [parse_line(ln, None, state) for ln in lines]
    assert out[0] is IGNORE and out[1] is IGNORE
    assert out[2].kind == "assignment_received"
    assert out[2].fields["partitions"] == ("orders-0", "orders-3")
    assert out[2].fields["group_id"] == "payments" and out[2].fields["extra"]["group_id_inferred"]
    assert out[2].fields["ts_ms"] == 1714557600200
    assert all(reader.is_candidate(ln) for ln in lines)
    empty = parse_line(native(7, "ASSIGNMENT", "List with 0 partition(s):"), None, state)
    assert empty.kind == "assignment_received" and empty.fields["partitions"] == ()
    # the python binding: "ASSIGNMENT [rdkafka#consumer-1] [thrd:main]:  orders [0] offset INVALID"
    py = [f"2024-05-01 10:00:00,300 DEBUG consumer ASSIGNMENT [rdkafka#consumer-1] [thrd:main]: {m}"
          for m in ("List with 1 partition(s):", " refunds [2] offset INVALID")]
    res = [parse_line(ln, None, state) for ln in py]
    assert res[1].fields["partitions"] == ("refunds-2",)


def test_other_partition_lists_are_known_lines():
    state: dict = {}
    for fac in ("GRPASSIGNMENT", "FETCHSTART", "OFFSETFETCH"):
        assert parse_line(native(7, fac, "List with 1 partition(s):"), None, state) is IGNORE
        assert parse_line(native(7, fac, " orders [0] offset 1200"), None, state) is IGNORE


def test_delegated_partitions_from_the_assignment_list():
    state: dict = {}
    for ln in ("List with 2 partition(s):", " orders [0] offset INVALID", " orders [3] offset INVALID"):
        parse_line(native(7, "ASSIGNMENT", ln), None, state)
    a = parse_line(native(7, "ASSIGN", 'Group "payments": delegating assign of 2 partition(s) to application on queue '
                                      'rd_kafka_cgrp_new: new assignment'), None, state)
    assert a.kind == "partitions_assigned" and a.fields["partitions"] == ("orders-0", "orders-3")
    r = parse_line(native(7, "ASSIGN", 'Group "payments": delegating revoke of 2 partition(s) to application on queue '
                                      'rd_kafka_cgrp_new: rebalance in progress'), None, state)
    assert r.kind == "partitions_revoked" and r.fields["partitions"] == ("orders-0", "orders-3")
    # a count that is not the list's: unknown, not guessed
    parse_line(native(7, "ASSIGNMENT", "List with 1 partition(s):"), None, state)
    parse_line(native(7, "ASSIGNMENT", " orders [0] offset INVALID"), None, state)
    a = parse_line(native(7, "ASSIGN", 'Group "payments": delegating incremental assign of 2 partition(s) to application '
                                      'on queue rd_kafka_cgrp_new: new assignment'), None, state)
    assert "partitions" not in a.fields
