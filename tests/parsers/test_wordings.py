"""Issue 17's missing wordings and issue 18's 2.x broker reasons: one line per Kafka version wording
(as Kafka's source prints it, see tests/parsers/wordings/SOURCES.md) with its kind and every field,
and a negative case per rule."""

from __future__ import annotations

import pytest

from parsers import parse_lines, sniff
from parsers.offsets_dump import parse_offsets_dump_records

AC = "org.apache.kafka.clients.consumer.internals.AbstractCoordinator"
CMM = "org.apache.kafka.clients.consumer.internals.ConsumerMembershipManager"
AMM = "org.apache.kafka.clients.consumer.internals.AbstractMembershipManager"
HERDER = "org.apache.kafka.connect.runtime.distributed.DistributedHerder"
WC = "org.apache.kafka.connect.runtime.distributed.WorkerCoordinator"
SMM = "org.apache.kafka.clients.consumer.internals.StreamsMembershipManager"
GC = "kafka.coordinator.group.GroupCoordinator"
GMM = "org.apache.kafka.coordinator.group.GroupMetadataManager"
NEW = "[GroupCoordinator id=1 topic=__consumer_offsets partition=12] "


def _event(line: str):
    lines = line.split("\n")
    outs = list(parse_lines("t.log", list(enumerate(lines, 1)), sniff(lines)))
    assert outs[0].status == "parsed", (line, outs[0].why)
    return outs[0].event


def _check(ev, kind, fields, extra):
    assert ev.kind == kind
    for k, v in fields.items():
        assert getattr(ev, k) == v, (k, getattr(ev, k), v)
    for k, v in extra.items():
        assert ev.extra.get(k) == v, (k, ev.extra.get(k), v)


CASES = [
    # AbstractCoordinator.java 0.9.0.x: the coordinator's id only, no group
    (f"[2016-01-05 10:00:00,001] INFO Marking the coordinator 2147483646 dead. ({AC})",
     "coordinator_lost", {"coordinator": "2147483646", "group_id": None, "group_type": "classic",
                          "ts_ms": 1451988000001}, {"coordinator_id": 2147483646}),
    # AbstractCoordinator.java 0.10.0.0-0.11.0.x
    (f"[2017-03-01 10:00:00,002] INFO Marking the coordinator kafka-1:9092 (id: 2147483646 rack: null) dead for group orders ({AC})",
     "coordinator_lost", {"coordinator": "kafka-1:9092", "group_id": "orders", "group_type": "classic"},
     {"coordinator_id": 2147483646}),
    (f"[2017-03-01 10:00:00,003] INFO Discovered coordinator kafka-1:9092 (id: 2147483646 rack: null) for group orders. ({AC})",
     "coordinator_discovered", {"coordinator": "kafka-1:9092", "group_id": "orders", "group_type": "classic"},
     {"coordinator_id": 2147483646}),
    # AbstractCoordinator.java 0.10.2-0.11 DEBUG: Struct body, group at the end
    (f"[2017-03-01 10:00:00,004] DEBUG Received GroupCoordinator response ClientResponse(receivedTimeMs=1488362400004, "
     f"latencyMs=3, disconnected=false, requestHeader={{api_key=10,api_version=0,correlation_id=1,client_id=c-1}}, "
     f"responseBody={{error_code=0,coordinator={{node_id=1,host=kafka-1,port=9092}}}}) for group orders ({AC})",
     "coordinator_discovered", {"coordinator": "kafka-1:9092", "group_id": "orders", "error": None},
     {"coordinator_broker_id": 1}),
    # 1.0.1-2.3: FindCoordinatorResponse(node=...)
    (f"[2019-03-01 10:00:00,005] DEBUG [Consumer clientId=c-1, groupId=orders] Received FindCoordinator response "
     f"ClientResponse(receivedTimeMs=1551434400005, latencyMs=2, disconnected=false, requestHeader=RequestHeader("
     f"apiKey=FIND_COORDINATOR, apiVersion=2, clientId=c-1, correlationId=0), responseBody=FindCoordinatorResponse("
     f"throttleTimeMs=0, errorMessage='null', error=NONE, node=kafka-2:9092 (id: 2 rack: null))) ({AC})",
     "coordinator_discovered", {"coordinator": "kafka-2:9092", "group_id": "orders", "client_id": "c-1"},
     {"coordinator_broker_id": 2}),
    # 3.0+: batched coordinators
    (f"[2023-03-01 10:00:00,006] DEBUG [Consumer clientId=c-1, groupId=orders] Received FindCoordinator response "
     f"ClientResponse(receivedTimeMs=1677664800006, latencyMs=2, disconnected=false, requestHeader=RequestHeader("
     f"apiKey=FIND_COORDINATOR, apiVersion=4, clientId=c-1, correlationId=0), responseBody=FindCoordinatorResponseData("
     f"throttleTimeMs=0, errorCode=0, errorMessage='', nodeId=0, host='', port=0, coordinators=[Coordinator("
     f"key='orders', nodeId=3, host='kafka-3', port=9092, errorCode=0, errorMessage='')])) ({AC})",
     "coordinator_discovered", {"coordinator": "kafka-3:9092", "group_type": "classic"}, {"coordinator_broker_id": 3}),
    # negative: a response with an error names no coordinator: a lookup, with the error
    (f"[2023-03-01 10:00:00,007] DEBUG [Consumer clientId=c-1, groupId=orders] Received FindCoordinator response "
     f"ClientResponse(receivedTimeMs=1, latencyMs=2, disconnected=false, requestHeader=RequestHeader(apiKey=FIND_COORDINATOR, "
     f"apiVersion=4, clientId=c-1, correlationId=0), responseBody=FindCoordinatorResponseData(throttleTimeMs=0, errorCode=0, "
     f"errorMessage='', nodeId=0, host='', port=0, coordinators=[Coordinator(key='orders', nodeId=-1, host='', port=-1, "
     f"errorCode=15, errorMessage='The coordinator is not available.')])) ({AC})",
     "coordinator_lookup", {"coordinator": None, "error": "error_code=15"}, {}),
    # AbstractMembershipManager.java 4.x (memberIdInfoForLog "<no ID>"), MembershipManagerImpl 3.9 (empty id)
    (f"[2025-03-01 10:00:00,008] INFO [Consumer clientId=c-1, groupId=orders] Member <no ID> with epoch 0 transitioned "
     f"from UNSUBSCRIBED to JOINING. ({CMM})",
     "member_state_changed", {"member_id": None, "member_epoch": 0, "group_id": "orders", "group_type": "consumer"},
     {"from_state": "UNSUBSCRIBED", "to_state": "JOINING"}),
    ("[2024-11-01 10:00:00,009] INFO [Consumer clientId=c-1, groupId=orders] Member  with epoch 0 transitioned "
     "from UNSUBSCRIBED to JOINING. (org.apache.kafka.clients.consumer.internals.MembershipManagerImpl)",
     "member_state_changed", {"member_id": None, "member_epoch": 0, "group_type": "consumer"},
     {"from_state": "UNSUBSCRIBED", "to_state": "JOINING"}),
    (f"[2025-03-01 10:00:00,010] INFO [Consumer clientId=c-1, groupId=orders] Member Mj4Ti9sXQCKpmlr8x4hoeA with epoch 4 "
     f"transitioned from RECONCILING to STABLE. ({AMM})",
     "member_state_changed", {"member_id": "Mj4Ti9sXQCKpmlr8x4hoeA", "member_epoch": 4, "group_type": None},
     {"from_state": "RECONCILING", "to_state": "STABLE"}),
    (f"[2025-03-01 10:00:00,011] INFO [ShareConsumer clientId=s-1, groupId=shares] Member <no ID> with epoch 0 transitioned "
     f"from UNSUBSCRIBED to JOINING. ({AMM})",
     "member_state_changed", {"member_id": None, "group_id": "shares", "group_type": "share"}, {}),
    # AbstractMembershipManager.java trunk: other transitions print memberIdInfoForLog() too
    (f"[2025-03-01 10:00:00,033] DEBUG [Consumer clientId=c-1, groupId=orders] Member <no ID> with epoch 0 transitioned "
     f"to FENCED state. It will release its assignment and rejoin the group. ({CMM})",
     "join_started", {"member_id": None, "member_epoch": 0, "group_type": "consumer"}, {"to_state": "FENCED"}),
    (f"[2025-03-01 10:00:00,034] WARN [Consumer clientId=c-1, groupId=orders] Heartbeat to leave group cannot be sent "
     f"(most probably due to coordinator not known/available). Member m-1 with epoch 5 will transition to UNSUBSCRIBED. ({CMM})",
     "leave_group", {"member_id": "m-1", "member_epoch": 5, "group_type": "consumer"}, {"to_state": "UNSUBSCRIBED"}),
    # Connect DistributedHerder.java 0.10.0.0+ / WorkerCoordinator.java 2.4.0+
    (f"[2022-03-01 10:00:00,012] INFO [Worker clientId=connect-1, groupId=connect-cluster] Current config state offset 7 "
     f"does not match group assignment 9. Forcing rebalance. ({HERDER})",
     "join_started", {"group_id": "connect-cluster", "group_type": "classic",
                      "reason": "Current config state offset 7 does not match group assignment 9"},
     {"config_offset": 7, "assignment_offset": 9}),
    (f"[2022-03-01 10:00:00,013] INFO [Worker clientId=connect-1, groupId=connect-cluster] Broker coordinator was unreachable "
     f"for 300000ms. Revoking previous assignment Assignment{{error=0, leader='connect-1-7f', leaderUrl='http://w1:8083/', "
     f"offset=9, connectorIds=[sink], taskIds=[sink-0], revokedConnectorIds=[], revokedTaskIds=[], delay=0}} to avoid "
     f"running tasks while not being a member the group ({WC})",
     "coordinator_lost", {"group_id": "connect-cluster", "group_type": "classic"},
     {"unreachable_ms": 300000, "leader": "connect-1-7f"}),
    # Streams StreamsMembershipManager.java 4.1+: multi-line record, and its first line alone (the local epoch
    # counts the member's assignments: extra.local_epoch, not the member epoch)
    (f"[2025-09-01 10:00:00,014] INFO [Consumer clientId=app-StreamThread-1-consumer, groupId=app] Assigned tasks with local "
     f"epoch 3\n\tMember:                        m-1\n\tAssigned active tasks:         [0_0, 0_1]\n"
     f"\tOwned active tasks:            [0_0]\n\tActive tasks to revoke:        []\n\tAssigned standby tasks:        []\n"
     f"\tOwned standby tasks:           []\n\tAssigned warm-up tasks:        []\n\tOwned warm-up tasks:           [] ({SMM})",
     "assignment_received", {"member_epoch": None, "member_id": "m-1", "group_id": "app", "group_type": "streams"},
     {"local_epoch": 3, "assigned_active_tasks": ["0_0", "0_1"], "owned_active_tasks": ["0_0"], "active_tasks_to_revoke": []}),
    (f"[2025-09-01 10:00:00,015] INFO [Consumer clientId=app-StreamThread-1-consumer, groupId=app] Assigned tasks with local "
     f"epoch 3 ({SMM})", "assignment_received", {"member_epoch": None, "member_id": None, "group_type": "streams"},
     {"local_epoch": 3}),
    # broker GroupCoordinator.scala 0.9.0.0+ (kafka.coordinator, then kafka.coordinator.group)
    (f"[2017-03-01 10:00:00,016] INFO [GroupCoordinator 1]: Loading group metadata for orders with generation 7 ({GC})",
     "broker_group_loaded", {"group_id": "orders", "generation": 7, "coordinator": "1", "group_type": "classic"}, {}),
    # GroupMetadataManager.java 3.8.0+ (consumer group: two lists; partitions named by topic id)
    (f"[2024-11-01 10:00:00,017] INFO {NEW}[GroupId orders] Member m-1 new assignment state: epoch=5, previousEpoch=4, "
     f"state=STABLE, assignedPartitions=[Mj4Ti9sXQCKpmlr8x4hoeA-0, Mj4Ti9sXQCKpmlr8x4hoeA-1] and revokedPartitions=[]. ({GMM})",
     "broker_assignment_received",
     {"group_id": "orders", "member_id": "m-1", "member_epoch": 5, "group_type": "consumer",
      "partitions": ("Mj4Ti9sXQCKpmlr8x4hoeA-0", "Mj4Ti9sXQCKpmlr8x4hoeA-1")},
     {"previous_member_epoch": 4, "member_state": "STABLE", "revoked_partitions": [], "partitions_named_by": "topic_id"}),
    # 3.9.0+ share group: one list
    (f"[2024-11-01 10:00:00,018] INFO {NEW}[GroupId shares] Member s-1 new assignment state: epoch=2, previousEpoch=1, "
     f"state=STABLE, assignedPartitions=[]. ({GMM})",
     "broker_assignment_received", {"group_id": "shares", "member_epoch": 2, "group_type": "share", "partitions": ()}, {}),
    # 3.8.0+ (4.x: INFO without the assignment)
    (f"[2025-03-01 10:00:00,019] INFO {NEW}[GroupId orders] Computed a new target assignment for epoch 6 with 'uniform' "
     f"assignor in 3ms. ({GMM})",
     "broker_assignment_received", {"group_id": "orders", "group_type": None}, {"group_epoch": 6, "assignor": "uniform"}),
    (f"[2024-03-01 10:00:00,020] INFO {NEW}[GroupId orders] Computed a new target assignment for epoch 6 with 'range' "
     f"assignor: {{m-1=MemberAssignment(partitions={{}})}}. ({GMM})",
     "broker_assignment_received", {"group_id": "orders"}, {"group_epoch": 6, "assignor": "range"}),
    # 4.1+ streams group (KIP-1071)
    (f"[2025-09-01 10:00:00,021] INFO {NEW}[GroupId app][MemberId m-1] Member joins the streams group. ({GMM})",
     "broker_member_joined", {"group_id": "app", "member_id": "m-1", "group_type": "streams"}, {}),
    (f"[2025-09-01 10:00:00,022] INFO {NEW}[GroupId app][MemberId m-1] Member m-1 left the streams group. ({GMM})",
     "broker_member_removed", {"group_id": "app", "member_id": "m-1", "group_type": "streams"}, {}),
    (f"[2025-09-01 10:00:00,023] INFO {NEW}[GroupId app] Streams member m-1 fenced from the group because the member "
     f"session expired.. ({GMM})",
     "broker_member_fenced", {"group_id": "app", "member_id": "m-1", "group_type": "streams",
                              "reason": "the member session expired."}, {}),
    (f"[2025-09-01 10:00:00,024] INFO {NEW}[GroupId app][MemberId m-1] Member's new assignment state: epoch=3, "
     f"previousEpoch=2, state=STABLE, assignedTasks=TasksTuple(activeTasks={{0=[0, 1]}}, standbyTasks={{}}, "
     f"warmupTasks={{}}) and tasksPendingRevocation=TasksTuple(activeTasks={{}}, standbyTasks={{}}, warmupTasks={{}}). ({GMM})",
     "broker_assignment_received", {"group_id": "app", "member_id": "m-1", "member_epoch": 3, "group_type": "streams"},
     {"previous_member_epoch": 2}),
    (f"[2025-09-01 10:00:00,025] INFO {NEW}[GroupId app][MemberId m-1] Bumped streams group epoch to 4 with metadata hash "
     f"-8812 and validated topic epoch 0. ({GMM})",
     "broker_rebalance_preparing", {"group_id": "app", "member_id": "m-1", "group_type": "streams"},
     {"group_epoch": 4, "topology_epoch": 0}),
    # 3.9.0+ share group (KIP-932)
    (f"[2025-09-01 10:00:00,026] INFO {NEW}[GroupId shares] Member s-1 joins the share group using the share protocol. ({GMM})",
     "broker_member_joined", {"group_id": "shares", "member_id": "s-1", "group_type": "share"}, {}),
    (f"[2025-09-01 10:00:00,027] INFO {NEW}[GroupId shares] Member s-1 left the share group. ({GMM})",
     "broker_member_removed", {"group_id": "shares", "member_id": "s-1", "group_type": "share"}, {}),
    # GroupCoordinator.scala 2.7-2.8: lower-case "leader", 3.0+ "Leader"
    (f"[2021-03-01 10:00:00,028] INFO [GroupCoordinator 1]: Preparing to rebalance group orders in state PreparingRebalance "
     f"with old generation 3 (__consumer_offsets-12) (reason: leader c-1-9a re-joining group during Stable) ({GC})",
     "broker_rebalance_preparing", {"group_id": "orders", "generation": 3, "group_type": "classic",
                                    "reason": "leader c-1-9a re-joining group during Stable"},
     {"trigger": "leader_rejoin", "trigger_member_id": "c-1-9a", "offsets_partition": 12}),
    (f"[2022-03-01 10:00:00,029] INFO [GroupCoordinator 1]: Preparing to rebalance group orders in state PreparingRebalance "
     f"with old generation 3 (__consumer_offsets-12) (reason: Leader c-1-9a re-joining group during Stable) ({GC})",
     "broker_rebalance_preparing", {"generation": 3}, {"trigger": "leader_rejoin", "trigger_member_id": "c-1-9a"}),
    # 2.1-2.2 "Adding new member X", 2.3-2.4 "... with group instanceid Y", 2.5+ "... with group instance id Y"
    (f"[2019-03-01 10:00:00,030] INFO [GroupCoordinator 1]: Preparing to rebalance group orders in state PreparingRebalance "
     f"with old generation 0 (__consumer_offsets-12) (reason: Adding new member c-1-9a) ({GC})",
     "broker_rebalance_preparing", {"generation": 0, "reason": "Adding new member c-1-9a"},
     {"trigger": "new_member", "trigger_member_id": "c-1-9a"}),
    (f"[2019-09-01 10:00:00,031] INFO [GroupCoordinator 1]: Preparing to rebalance group orders in state PreparingRebalance "
     f"with old generation 0 (__consumer_offsets-12) (reason: Adding new member c-1-9a with group instanceid None) ({GC})",
     "broker_rebalance_preparing", {"generation": 0}, {"trigger": "new_member", "trigger_member_id": "c-1-9a"}),
    (f"[2020-09-01 10:00:00,032] INFO [GroupCoordinator 1]: Preparing to rebalance group orders in state PreparingRebalance "
     f"with old generation 0 (__consumer_offsets-12) (reason: Adding new member c-1-9a with group instance id Some(i-1)) ({GC})",
     "broker_rebalance_preparing", {"generation": 0},
     {"trigger": "new_member", "trigger_member_id": "c-1-9a", "trigger_instance_id": "i-1"}),
]


@pytest.mark.parametrize(("line", "kind", "fields", "extra"), CASES, ids=[str(i) for i in range(len(CASES))])
def test_wording(line, kind, fields, extra):
    _check(_event(line), kind, fields, extra)


@pytest.mark.parametrize("line", [
    # near misses keep being unparsed, never read as the rule
    f"[2025-03-01 10:00:00,001] INFO [Consumer clientId=c-1, groupId=orders] Member <no ID> with epoch 0 transitioned "
    f"to JOINING. ({CMM})",
    f"[2022-03-01 10:00:00,002] INFO [Worker clientId=connect-1, groupId=cc] Current config state offset x does not match "
    f"group assignment 9. Forcing rebalance. ({HERDER})",
])
def test_near_misses_are_unparsed(line):
    outs = list(parse_lines("t.log", [(1, line)], sniff([line])))
    assert outs[0].status == "unparsed"


def test_classic_lines_without_a_class_that_proves_the_type_say_unknown():
    ev = _event(f"[2025-03-01 10:00:00,001] INFO {NEW}[GroupId orders] Computed a new target assignment for epoch 6 "
                f"with 'uniform' assignor in 3ms. ({GMM})")
    assert ev.group_type is None


@pytest.mark.parametrize("bad", ["--1", "²", "-", ""])
def test_a_malformed_number_in_a_dump_line_is_unparsed_not_raised(bad):
    lines = [
        f"[billing-events,invoices,{bad}]::OffsetAndMetadata(offset=354663, leaderEpoch=Optional.empty, metadata=, "
        f"commitTimestamp=1710208871508, expireTimestamp=None)",
        f"| offset: 40349 CreateTime: 1710900126818 keySize: 31 valueSize: 12 sequence: -1 headerKeys: [] key: "
        f"offset_commit::group=risk,partition=trades-6 payload: offset={bad}",
    ]
    for line in lines:
        assert parse_offsets_dump_records(line) in (None, [])  # None: the reader keeps it as unparsed


@pytest.mark.parametrize(("line", "group_type"), [
    # GroupMetadataManager.scala formatter (0.9-3.x): GroupMetadata records are classic groups'
    ("g::GroupMetadata(groupId=g, generation=3, protocolType=Some(consumer), currentState=Stable, members=Map("
     "c-1-aa -> MemberMetadata(memberId=c-1-aa, clientId=c-1, clientHost=/10.0.0.5, sessionTimeoutMs=10000, "
     "rebalanceTimeoutMs=300000, supportedProtocols=List(range), ))", "classic"),
    # DumpLogSegments --offsets-decoder 2.x text form
    ('| offset: 40070 CreateTime: 1710900007987 keySize: 22 valueSize: 212 sequence: -1 headerKeys: [] key: '
     'group_metadata::group=risk payload: {"protocolType":"consumer","protocol":"range","generationId":1,'
     '"assignment":"{c-1=[trades-0]}"}', "classic"),
    # 3.7+ JSON formatter: record type 3 = ConsumerGroupMetadataKey, 11 = ShareGroupMetadataKey
    ('{"key":{"type":3,"data":{"groupId":"g"}},"value":{"version":0,"data":{"epoch":4}}}', "consumer"),
    ('{"key":{"type":11,"data":{"groupId":"g"}},"value":{"version":0,"data":{"epoch":4}}}', "share"),
    # an offset commit belongs to no particular group type
    ('{"key":{"type":1,"data":{"group":"g","topic":"t","partition":0}},"value":{"version":3,"data":{"offset":5,'
     '"leaderEpoch":0,"metadata":"","commitTimestamp":1}}}', None),
])
def test_dump_records_carry_the_group_type_their_record_type_proves(line, group_type):
    res = parse_offsets_dump_records(line)
    assert isinstance(res, list) and res, line
    assert res[0].fields.get("group_type") == group_type


@pytest.mark.parametrize(("line", "ts_ms"), [
    # DumpLogSegments --offsets-decoder 2.x text form: no state time in the value, the batch's CreateTime
    ('| offset: 40070 CreateTime: 1710900007987 keySize: 22 valueSize: 212 sequence: -1 headerKeys: [] key: '
     'group_metadata::group=risk payload: {"protocolType":"consumer","protocol":"range","generationId":1,'
     '"assignment":"{c-1=[trades-0]}"}', 1710900007987),
    # 3.x JSON formatter, GroupMetadataValue v3: currentStateTimestamp (the state's start), no CreateTime
    ('{"key":{"type":2,"data":{"group":"g"}},"value":{"version":3,"data":{"protocolType":"consumer",'
     '"generation":4,"protocol":"range","leader":"m-1","currentStateTimestamp":1710900001234,"members":[]}}}',
     1710900001234),
    # v0 value, no CreateTime in the line: no time (never a guess)
    ('{"key":{"type":2,"data":{"group":"g"}},"value":{"version":0,"data":{"protocolType":"consumer",'
     '"generation":4,"protocol":"range","leader":"m-1","members":[]}}}', None),
])
def test_a_group_metadata_record_is_timed_by_its_state_time_or_its_append_time(line, ts_ms):
    # before: no time at all, so a dump's generations had no span and every commit after an empty
    # generation looked like an administrator's reset (tests/replay/test_partial_logs_truth.py)
    (rec,) = parse_offsets_dump_records(line)
    assert rec.kind == "group_metadata_record" and rec.fields.get("ts_ms") == ts_ms


@pytest.mark.parametrize("bad", ['"--1"', '"3"', "true", "1.5", "null"])
def test_a_json_dump_record_with_a_malformed_number_is_unparsed(bad):
    line = ('{"key":{"type":1,"data":{"group":"g","topic":"t","partition":BAD}},"value":{"version":3,"data":'
            '{"offset":5,"leaderEpoch":0,"metadata":"","commitTimestamp":1}}}').replace("BAD", bad)
    assert parse_offsets_dump_records(line) is None
    line = ('{"key":{"type":1,"data":{"group":"g","topic":"t","partition":0}},"value":{"version":3,"data":'
            '{"offset":BAD,"leaderEpoch":0,"metadata":"","commitTimestamp":1}}}').replace("BAD", bad)
    assert parse_offsets_dump_records(line) is None


def _rule(line: str) -> tuple[str, str | None]:
    lines = line.split("\n")
    o = list(parse_lines("t.log", list(enumerate(lines, 1)), sniff(lines)))[0]
    return o.status, (o.event.extra.get("rule") if o.event is not None else None)


@pytest.mark.parametrize(("line", "not_rule"), [
    (f"[2019-03-01 10:00:00,001] INFO Marking the coordinator kafka-1:9092 (id: 2147483646 rack: null) dead for group "
     f"({AC})", "marking_the_coordinator_dead_for_group"),
    (f"[2022-03-01 10:00:00,002] INFO [Worker clientId=connect-1, groupId=cc] Current config state offset 7 does not "
     f"match group assignment 9. ({HERDER})", "connect_forcing_rebalance"),
    (f"[2022-03-01 10:00:00,003] INFO [Worker clientId=connect-1, groupId=cc] Broker coordinator was unreachable for "
     f"a while. Revoking previous assignment Assignment{{}} to avoid running tasks while not being a member the group "
     f"({WC})", "connect_coordinator_unreachable"),
    (f"[2025-09-01 10:00:00,004] INFO [Consumer clientId=a, groupId=app] Assigned tasks with local epoch x ({SMM})",
     "streams_assigned_tasks_first_line"),
    (f"[2025-09-01 10:00:00,005] INFO {NEW}[GroupId app][MemberId m-1] Member joins the consumer group. ({GMM})",
     "member_joined_31"),
    (f"[2025-09-01 10:00:00,006] INFO {NEW}[GroupId app] Streams member m-1 fenced from the group. ({GMM})",
     "member_fenced_11"),
    (f"[2020-01-01 10:00:00,007] INFO [GroupCoordinator 1]: Loading group metadata for orders with generation x ({GC})",
     "group_load_40"),
])
def test_near_misses_do_not_match_the_rule(line, not_rule):
    status, rule = _rule(line)
    assert rule != not_rule, (status, rule)


def test_an_assignment_state_list_that_is_not_topic_partitions_fills_no_partitions():
    ev = _event(f"[2024-11-01 10:00:00,001] INFO {NEW}[GroupId orders] Member m-1 new assignment state: epoch=5, "
                f"previousEpoch=4, state=STABLE, assignedPartitions=[foo bar] and revokedPartitions=[]. ({GMM})")
    assert ev.kind == "broker_assignment_received" and ev.member_epoch == 5
    assert ev.partitions is None and "partitions_named_by" not in ev.extra


def test_a_reason_without_a_member_names_no_trigger_member():
    ev = _event(f"[2021-03-01 10:00:00,001] INFO [GroupCoordinator 1]: Preparing to rebalance group orders in state "
                f"PreparingRebalance with old generation 3 (__consumer_offsets-12) (reason: Removing Set(c-1-aa, c-2-bb) "
                f"on pending sync request expiration) ({GC})")  # GroupCoordinator.scala 3.0+
    assert ev.kind == "broker_rebalance_preparing" and "trigger_member_id" not in ev.extra
    assert ev.extra["trigger"] == "pending_sync_expiration"


def test_a_disconnected_coordinator_response_is_a_lookup_without_coordinator():
    ev = _event(f"[2019-03-01 10:00:00,001] DEBUG [Consumer clientId=c-1, groupId=orders] Received FindCoordinator "
                f"response ClientResponse(receivedTimeMs=1, latencyMs=2, disconnected=true, requestHeader=RequestHeader("
                f"apiKey=FIND_COORDINATOR, apiVersion=2, clientId=c-1, correlationId=0), responseBody=null) ({AC})")
    assert (ev.kind, ev.coordinator, ev.error) == ("coordinator_lookup", None, "disconnected")
