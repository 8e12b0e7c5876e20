"""kafka-python and aiokafka coordinator lines, one per format string and version, in several Python
logging layouts: kind and fields, both directions."""

from __future__ import annotations

import pytest

from parsers import reader
from parsers.base import IGNORE, Match
from parsers.foreign import UNRECOGNISED, parse_line, pyclients

TP0 = "TopicPartition(topic='orders', partition=0)"
TP1 = "TopicPartition(topic='orders', partition=1)"
MID = "kafka-python-2.0.2-3c1f0b2e-6a7d-4e5f-8a9b-0c1d2e3f4a5b"
AMID = "aiokafka-0.10.0-6d5c4b3a-2f1e-4d0c-9b8a-7f6e5d4c3b2a"

# (library, logger, message, kind, expected fields)
CASES = [
    # written from kafka-python base.py 1.2.0-3.0 and aiokafka group_coordinator.py 0.0.1-0.4 / client.py 0.5+
    # (branch pastes2): coordinator request and response, JoinGroup sent, the elected leader
    ("kafka-python", "kafka.coordinator", "Sending group coordinator request for group payments to broker 3", "coordinator_lookup",
     {"group_id": "payments", "coordinator": "3"}),
    ("kafka-python", "kafka.coordinator", "Sending group coordinator request for group payments to broker 3: FindCoordinatorRequest_v2(key='payments', key_type=0)",
     "coordinator_lookup", {"group_id": "payments", "coordinator": "3"}),
    ("aiokafka", "aiokafka.group_coordinator", "Received group coordinator response GroupCoordinatorResponse_v0(error_code=0, coordinator_id=4, host='k4', port=9092)",
     "coordinator_discovered", {"coordinator": "4"}),
    ("kafka-python", "kafka.coordinator", "Received group coordinator response GroupCoordinatorResponse_v0(error_code=15, coordinator_id=-1, host='', port=-1)",
     "coordinator_lookup", {"coordinator": None}),
    ("kafka-python", "kafka.coordinator", "Sending JoinGroup (JoinGroupRequest_v1(group='payments', session_timeout=10000, rebalance_timeout=300000, member_id='', protocol_type='consumer', group_protocols=[])) to coordinator 3",
     "join_started", {"group_id": "payments", "coordinator": "3", "member_id": None}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "Elected group leader -- performing partition assignments using roundrobin",
     "assignment_received", {"extra.assignor": "roundrobin"}),
    ("aiokafka", "aiokafka.group_coordinator", "Skipping heartbeat: no active group: [Error 15] GroupCoordinatorNotAvailableError",
     "heartbeat_failed", {"error": "COORDINATOR_NOT_AVAILABLE", "extra.error_message": "[Error 15] GroupCoordinatorNotAvailableError"}),
    ("kafka-python", "kafka.coordinator.consumer", "OffsetCommit failed for group payments due to group error (IllegalGenerationError - 22 - Returned from group membership requests.), will rejoin",
     "offset_commit_failed", {"error": "ILLEGAL_GENERATION", "group_id": "payments"}),
    # kafka-python kafka/coordinator/base.py
    ("kafka-python", "kafka.coordinator", "Discovered coordinator coordinator-2 for group payments", "coordinator_discovered",
     {"group_id": "payments", "coordinator": "2"}),
    ("kafka-python", "kafka.coordinator", "Discovered coordinator 2 for group payments", "coordinator_discovered", {"coordinator": "2"}),
    # kafka-python kafka/cluster.py (logger kafka.cluster, not a coordinator module: the line's own words decide)
    ("kafka-python", "kafka.cluster", "Group coordinator for payments is BrokerMetadata(nodeId=2, host='kafka-2', port=9092, rack=None)",
     "coordinator_discovered", {"group_id": "payments", "coordinator": "2"}),
    ("kafka-python", "kafka.cluster", "Coordinator for group/payments is BrokerMetadata(nodeId='coordinator-2', host='kafka-2', port=9092, rack=None)",
     "coordinator_discovered", {"group_id": "payments", "coordinator": "2"}),
    ("kafka-python", "kafka.coordinator", "Marking the coordinator dead (node coordinator-2) for group payments: Heartbeat session expired.",
     "coordinator_lost", {"coordinator": "2", "error": "Heartbeat session expired", "group_id": "payments"}),
    ("kafka-python", "kafka.coordinator", "Group coordinator lookup for group payments failed: [Error 15] CoordinatorNotAvailableError",
     "coordinator_lookup", {"error": "COORDINATOR_NOT_AVAILABLE", "extra.error_message": "[Error 15] CoordinatorNotAvailableError"}),
    ("kafka-python", "kafka.coordinator", "Group Coordinator Request failed: [Error 15] CoordinatorNotAvailableError", "coordinator_lookup", {}),
    ("kafka-python", "kafka.coordinator", "Group Coordinator Not Available; retry", "coordinator_lookup", {}),
    ("kafka-python", "kafka.coordinator", "(Re-)joining group payments", "join_started", {"group_id": "payments"}),
    ("kafka-python", "kafka.coordinator", "Successfully joined group payments with generation 7", "join_succeeded",
     {"group_id": "payments", "generation": 7}),
    ("kafka-python", "kafka.coordinator", f"Successfully joined group payments <Generation 7 (member_id: {MID}, protocol: range)>",
     "join_succeeded", {"generation": 7, "member_id": MID, "protocol": "range"}),
    ("kafka-python", "kafka.coordinator", "Attempt to join group payments rejected since coordinator coordinator-2 is loading the group.",
     "join_failed", {"coordinator": "2", "error": "COORDINATOR_LOAD_IN_PROGRESS"}),
    ("kafka-python", "kafka.coordinator", "Attempt to join group payments failed due to unknown member id", "join_failed",
     {"error": "UNKNOWN_MEMBER_ID"}),
    ("kafka-python", "kafka.coordinator", "Attempt to join group payments failed due to obsolete coordinator information: [Error 16] NotCoordinatorForGroupError",
     "join_failed", {"error": "NOT_COORDINATOR", "extra.error_message": "[Error 16] NotCoordinatorForGroupError"}),
    ("kafka-python", "kafka.coordinator", "Attempt to join group payments failed due to fatal error: [Error 26] InvalidSessionTimeoutError",
     "join_failed", {"error": "INVALID_SESSION_TIMEOUT", "extra.error_message": "[Error 26] InvalidSessionTimeoutError"}),
    ("kafka-python", "kafka.coordinator", "Attempt to join group payments failed due to RebalanceInProgressError, which could indicate a replication timeout on the broker. Will retry.",
     "join_failed", {"error": "REBALANCE_IN_PROGRESS"}),
    ("kafka-python", "kafka.coordinator", f"Received member id {MID} for group payments; will retry join-group", "join_failed",
     {"member_id": MID, "error": "MEMBER_ID_REQUIRED"}),
    ("kafka-python", "kafka.coordinator", "Unexpected error in join group response: [Error 42] InvalidRequestError", "join_failed", {}),
    ("kafka-python", "kafka.coordinator", "SyncGroup for group payments failed due to [Error 27] RebalanceInProgressError", "sync_failed",
     {"error": "REBALANCE_IN_PROGRESS", "extra.error_message": "[Error 27] RebalanceInProgressError"}),
    ("kafka-python", "kafka.coordinator", "SyncGroup for group payments failed due to [Error 25] UnknownMemberIdError; reseting generation.",
     "sync_failed", {"error": "UNKNOWN_MEMBER_ID", "extra.error_message": "[Error 25] UnknownMemberIdError"}),
    ("kafka-python", "kafka.coordinator", "SyncGroup for group payments failed due to coordinator rebalance", "sync_failed",
     {"error": "coordinator rebalance"}),
    ("kafka-python", "kafka.coordinator", "Unexpected error from SyncGroup: [Error 42] InvalidRequestError", "sync_failed", {}),
    ("kafka-python", "kafka.coordinator.heartbeat", "Heartbeat failed for group payments because it is rebalancing", "heartbeat_failed",
     {"error": "REBALANCE_IN_PROGRESS"}),
    ("kafka-python", "kafka.coordinator.heartbeat", "Group payments is rebalancing; rejoining.", "heartbeat_failed", {"group_id": "payments"}),
    ("kafka-python", "kafka.coordinator", "Heartbeat failed for group payments: generation id is not  current.", "heartbeat_failed",
     {"error": "ILLEGAL_GENERATION"}),
    ("kafka-python", "kafka.coordinator", "Heartbeat failed for group payments due to fenced id error: worker-1", "member_fenced",
     {"instance_id": "worker-1"}),
    ("kafka-python", "kafka.coordinator", "Heartbeat: local member_id was not recognized; this consumer needs to re-join", "heartbeat_failed",
     {"error": "UNKNOWN_MEMBER_ID"}),
    ("kafka-python", "kafka.coordinator", "Heartbeat failed for group payments: coordinator (node coordinator-2) is either not started or not valid",
     "coordinator_lost", {"coordinator": "2"}),
    ("kafka-python", "kafka.coordinator", "Heartbeat failed: authorization error: [Error 30] GroupAuthorizationFailedError: payments",
     "heartbeat_failed", {}),
    ("kafka-python", "kafka.coordinator", "Heartbeat failed: Unhandled error: [Error 1] OffsetOutOfRangeError", "heartbeat_failed", {}),
    ("kafka-python", "kafka.coordinator", "Received successful heartbeat response for group payments", "heartbeat_succeeded", {}),
    ("kafka-python", "kafka.coordinator", f"Heartbeat: payments[7] {MID}", "heartbeat_sent",
     {"group_id": "payments", "generation": 7, "member_id": MID}),
    ("kafka-python", "kafka.coordinator", "Heartbeat session expired, marking coordinator dead", "coordinator_lost",
     {"reason": "heartbeat session expired"}),
    ("kafka-python", "kafka.coordinator", "Heartbeat poll expired, leaving group", "poll_timeout", {}),
    ("kafka-python", "kafka.coordinator.heartbeat", "Consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the configured max_poll_interval_ms, which typically implies that the poll loop is spending too much time processing messages. You can address this either by increasing max_poll_interval_ms or by reducing the maximum size of batches returned in poll() with max_poll_records.",
     "poll_timeout", {}),
    ("kafka-python", "kafka.coordinator", "Starting new heartbeat thread", "heartbeat_thread", {}),
    ("kafka-python", "kafka.coordinator", "Stopping heartbeat thread", "heartbeat_thread", {}),
    ("kafka-python", "kafka.consumer.subscription_state", "Updating subscribed topics to: ('orders',)", "subscription_changed",
     {"extra.topics": "('orders',)"}),
    ("kafka-python", "kafka.consumer.subscription_state", "Subscribing to pattern: /orders-.*/", "subscription_changed",
     {"extra.topics": "orders-.*"}),
    ("aiokafka", "aiokafka.consumer.subscription_state", "Updating subscribed topics to: frozenset({'orders'})", "subscription_changed", {}),
    ("aiokafka", "aiokafka.consumer.consumer", "Subscribed to topic(s): {'orders'}", "subscription_changed", {"extra.topics": "{'orders'}"}),
    ("aiokafka", "aiokafka.consumer.consumer", "Unsubscribed all topics or patterns and assigned partitions", "subscription_changed", {}),
    ("kafka-python", "kafka.coordinator", "Leaving consumer group (payments).", "leave_group", {"group_id": "payments"}),
    ("kafka-python", "kafka.coordinator", f"Leaving consumer group payments (member {MID}).", "leave_group", {"member_id": MID}),
    # kafka-python 1.0-1.3.5 (the wordings aiokafka kept)
    ("kafka-python", "kafka.coordinator", f"Joined group 'payments' (generation 7) with member_id {MID}", "join_succeeded",
     {"generation": 7, "member_id": MID}),
    ("kafka-python", "kafka.coordinator", "Heartbeat session expired - marking coordinator dead", "coordinator_lost", {}),
    ("kafka-python", "kafka.coordinator", "Coordinator unknown during heartbeat -- will retry", "heartbeat_failed", {}),
    ("kafka-python", "kafka.coordinator", "Heartbeat failed ([Error 27] RebalanceInProgressError); retrying", "heartbeat_failed",
     {"error": "REBALANCE_IN_PROGRESS", "extra.error_message": "[Error 27] RebalanceInProgressError"}),
    ("kafka-python", "kafka.coordinator", "Unrecognized failure in Group Coordinator Request: [Error 7] RequestTimedOutError",
     "coordinator_lookup", {}),
    # kafka-python kafka/coordinator/consumer.py
    ("kafka-python", "kafka.coordinator.consumer", f"Setting newly assigned partitions {{{TP0}, {TP1}}} for group payments",
     "partitions_assigned", {"partitions": ("orders-0", "orders-1"), "group_id": "payments"}),
    ("kafka-python", "kafka.coordinator.consumer", "Setting newly assigned partitions set() for group payments", "partitions_assigned",
     {"partitions": ()}),
    ("kafka-python", "kafka.coordinator.consumer", f"Revoking previously assigned partitions {{{TP0}}} for group payments",
     "partitions_revoked", {"partitions": ("orders-0",)}),
    ("kafka-python", "kafka.coordinator.consumer", f"Revoking previously assigned partitions {{{TP0}}} for group payments on close",
     "partitions_revoked", {"reason": "consumer closing"}),
    ("kafka-python", "kafka.coordinator.consumer", f"Group payments lost membership; forcibly revoking {{{TP1}}}", "partitions_lost",
     {"partitions": ("orders-1",)}),
    ("kafka-python", "kafka.coordinator.consumer", f"Cooperative rebalance complete for group payments: owned={{{TP0}}}, assigned={{{TP0}, {TP1}}}, revoked=set(), added={{{TP1}}}",
     "partitions_assigned", {"partitions": ("orders-0", "orders-1"), "extra.added": ["orders-1"], "extra.revoked": []}),
    ("kafka-python", "kafka.coordinator.consumer", f"Cooperative pre-rebalance for group payments: revoking {{{TP1}}} (no longer in subscription)",
     "partitions_revoked", {"partitions": ("orders-1",)}),
    ("kafka-python", "kafka.coordinator.consumer", f"Group payments committed offset OffsetAndMetadata(offset=1200, metadata='', leader_epoch=-1) for partition {TP0}",
     "offset_committed", {"topic": "orders", "partition": 0, "offset": 1200}),
    ("kafka-python", "kafka.coordinator.consumer", f"Group payments committed offset OffsetAndMetadata(offset=17, metadata='') for partition {TP1}",
     "offset_committed", {"partition": 1, "offset": 17}),
    ("kafka-python", "kafka.coordinator.consumer", f"Completed autocommit of offsets {{{TP0}: OffsetAndMetadata(offset=1200, metadata='', leader_epoch=-1)}} for group payments",
     "offset_committed", {"partitions": ("orders-0",)}),
    ("kafka-python", "kafka.coordinator.consumer", f"Sending offset-commit request with {{{TP0}: OffsetAndMetadata(offset=1200, metadata='')}} for group payments to coordinator-2",
     "offset_commit_sent", {"coordinator": "2"}),
    ("kafka-python", "kafka.coordinator.consumer", "Auto offset commit failed for group payments: [Error 22] IllegalGenerationError",
     "offset_commit_failed", {"error": "ILLEGAL_GENERATION", "extra.error_message": "[Error 22] IllegalGenerationError"}),
    ("kafka-python", "kafka.coordinator.consumer", "Offset commit failed: This is likely to cause duplicate message delivery", "offset_commit_failed", {}),
    ("kafka-python", "kafka.coordinator.consumer", "Offset commit failed: group membership out of date This is likely to cause duplicate message delivery.",
     "offset_commit_failed", {}),
    ("kafka-python", "kafka.coordinator.consumer", "Pre-rebalance offset commit failed: group membership out of date. This is likely to cause duplicate message delivery.",
     "offset_commit_failed", {}),
    ("kafka-python", "kafka.coordinator.consumer", "OffsetCommit for group payments failed: [Error 27] RebalanceInProgressError",
     "offset_commit_failed", {"error": "REBALANCE_IN_PROGRESS", "extra.error_message": "[Error 27] RebalanceInProgressError"}),
    ("kafka-python", "kafka.coordinator.consumer", f"OffsetCommit for group payments failed on partition {TP0} [Error 3] UnknownTopicOrPartitionError",
     "offset_commit_failed", {"topic": "orders", "partition": 0}),
    ("kafka-python", "kafka.coordinator.consumer", f"Group payments failed to commit partition {TP0} at offset OffsetAndMetadata(offset=1200, metadata=''): [Error 12] OffsetMetadataTooLargeError",
     "offset_commit_failed", {"offset": 1200, "partition": 0}),
    ("kafka-python", "kafka.coordinator.consumer", "Failing OffsetCommit request since the consumer is not part of an active group",
     "offset_commit_failed", {}),
    ("kafka-python", "kafka.coordinator.consumer", "Not authorized to commit offsets for group payments", "offset_commit_failed", {}),
    ("kafka-python", "kafka.coordinator.consumer", f"Group payments has no committed offset for partition {TP1}", "no_committed_offset",
     {"partition": 1}),
    ("kafka-python", "kafka.coordinator.consumer", f"Setting offset for partition {TP0} to the committed offset OffsetAndMetadata(offset=1200, metadata='', leader_epoch=-1)",
     "offset_fetched", {"offset": 1200, "partition": 0}),
    ("kafka-python", "kafka.consumer.fetcher", f"Resetting offset for partition {TP0} to the committed offset 1200", "offset_fetched",
     {"offset": 1200}),
    ("kafka-python", "kafka.consumer.fetcher", f"Resetting offset for partition {TP1} to offset 0.", "offset_reset", {"offset": 0, "partition": 1}),
    ("kafka-python", "kafka.consumer.fetcher", f"Resetting offset for partition {TP1} to earliest offset.", "offset_reset",
     {"reason": "reset to earliest"}),
    ("kafka-python", "kafka.consumer.fetcher", f"Fetch offset 1500 is out of range for topic-partition {TP1}", "offset_reset",
     {"partition": 1, "extra.out_of_range_offset": 1500}),
    # aiokafka aiokafka/consumer/group_coordinator.py, fetcher.py
    ("aiokafka", "aiokafka.consumer.group_coordinator", "Discovered coordinator 2 for group payments", "coordinator_discovered",
     {"coordinator": "2"}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "Marking the coordinator dead (node 2)for group payments.", "coordinator_lost",
     {"coordinator": "2", "group_id": "payments"}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "(Re-)joining group payments", "join_started", {}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", f"Joined group 'payments' (generation 7) with member_id {AMID}", "join_succeeded",
     {"generation": 7, "member_id": AMID, "group_id": "payments"}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "Successfully synced group payments with generation 7", "sync_succeeded",
     {"generation": 7}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "Attempt to join group failed due to fatal error: [Error 26] InvalidSessionTimeoutError",
     "join_failed", {}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "Unexpected error in join group 'payments' response: [Error 42] InvalidRequestError",
     "join_failed", {"group_id": "payments"}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "SyncGroup for group payments failed due to [Error 25] UnknownMemberIdError,",
     "sync_failed", {"error": "UNKNOWN_MEMBER_ID", "extra.error_message": "[Error 25] UnknownMemberIdError"}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", f"Setting newly assigned partitions {{{TP0}}} for group payments", "partitions_assigned",
     {"partitions": ("orders-0",)}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", f"Revoking previously assigned partitions frozenset({{{TP0}}}) for group payments",
     "partitions_revoked", {"partitions": ("orders-0",)}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "Heartbeat session expired - marking coordinator dead", "coordinator_lost", {}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "Heartbeat failed for group payments because it is rebalancing", "heartbeat_failed",
     {"error": "REBALANCE_IN_PROGRESS"}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "Heartbeat failed: local member_id was not recognized; resetting and re-joining group",
     "heartbeat_failed", {"error": "UNKNOWN_MEMBER_ID"}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "Heartbeat failed: GroupAuthorizationFailedError()", "heartbeat_failed", {}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "Heartbeat send request failed: KafkaConnectionError(). Will retry.", "heartbeat_failed",
     {"error": "KafkaConnectionError()"}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "Auto offset commit failed: [Error 22] IllegalGenerationError", "offset_commit_failed", {}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "OffsetCommit failed for group payments - [Error 7] RequestTimedOutError",
     "offset_commit_failed", {}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", f"OffsetCommit failed for group payments on partition {TP0} due to [Error 7] RequestTimedOutError, will retry",
     "offset_commit_failed", {"partition": 0, "error": "REQUEST_TIMED_OUT", "extra.error_message": "[Error 7] RequestTimedOutError"}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "OffsetCommit failed for group payments due to group error ([Error 22] IllegalGenerationError), will rejoin",
     "offset_commit_failed", {"error": "ILLEGAL_GENERATION", "extra.error_message": "[Error 22] IllegalGenerationError"}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "OffsetCommit failed for group payments because group is initializing ([Error 14] CoordinatorLoadInProgressError), will retry",
     "offset_commit_failed", {}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "OffsetCommit failed for group payments due to a coordinator error ([Error 16] NotCoordinatorForGroupError), will find new coordinator and retry",
     "offset_commit_failed", {}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", f"OffsetCommit failed for group payments on partition {TP0} with offset OffsetAndMetadata(offset=5, metadata=''): [Error 12] OffsetMetadataTooLargeError",
     "offset_commit_failed", {"offset": 5}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", "OffsetCommit failed for unauthorized topics {'orders'}", "offset_commit_failed", {}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", f"Committed offset OffsetAndMetadata(offset=1200, metadata='') for partition {TP0}",
     "offset_committed", {"offset": 1200}),
    ("aiokafka", "aiokafka.consumer.group_coordinator", f"No committed offset for partition {TP0}", "no_committed_offset", {}),
    ("aiokafka", "aiokafka.consumer.fetcher", f"Fetch offset 1500 is out of range for partition {TP0}, resetting offset", "offset_reset",
     {"extra.out_of_range_offset": 1500}),
]

LAYOUTS = [
    "{level}:{logger}:{msg}",  # logging.basicConfig default
    "2024-05-01 10:00:00,123 {level} {logger} {msg}",
    "2024-05-01 10:00:00,123 - {logger} - {level} - {msg}",  # the logging cookbook
    "[2024-05-01 10:00:00,123] {level} [{logger}] {msg}",
]


def _check(res, lib, kind, expected, line):
    assert isinstance(res, Match), (line, res)
    assert res.kind == kind, (line, res)
    assert res.fields.get("client_library") == lib, (line, res)
    extra = res.fields.get("extra", {})
    for key, value in expected.items():
        got = extra.get(key[6:]) if key.startswith("extra.") else res.fields.get(key)
        assert got == value, (key, got, value, line)


LEVELS = {"coordinator_lost": "WARNING", "heartbeat_failed": "WARNING"}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(("lib", "logger", "msg", "kind", "expected"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_python_layouts(layout, lib, logger, msg, kind, expected):
    level = LEVELS.get(kind, "INFO")
    line = layout.format(level=level, logger=logger, msg=msg)
    res = parse_line(line, None, {})
    _check(res, lib, kind, expected, line)
    assert res.fields["extra"]["level"] == level
    if "2024" in layout:
        assert res.fields["ts_ms"] == 1714557600123
    assert reader.is_candidate(line)


def test_logger_from_the_layout():
    # a JSON formatter's "name" reaches the parser as the layout's logger, not in the text
    res = parse_line("Setting newly assigned partitions {" + TP0 + "} for group payments", "aiokafka.consumer.group_coordinator", {})
    assert res.fields["client_library"] == "aiokafka"


def test_shared_wording_without_logger():
    state: dict = {}
    res = parse_line("2024-05-01 10:00:00,123 INFO (Re-)joining group payments", None, state)
    assert res.kind == "join_started" and "client_library" not in res.fields
    assert res.fields["extra"]["client_library_candidates"] == ["kafka-python", "aiokafka"]
    parse_line("2024-05-01 10:00:00,100 INFO aiokafka.consumer.group_coordinator Discovered coordinator 2 for group payments", None, state)
    res = parse_line("2024-05-01 10:00:00,123 INFO (Re-)joining group payments", None, state)
    assert res.fields["client_library"] == "aiokafka"


def test_known_lines_without_event():
    for msg in ("LeaveGroup request for group payments returned successfully",
                "LeaveGroup request succeeded",
                "Finished assignment for group payments: {...}"):
        assert parse_line(f"INFO:kafka.coordinator:{msg}", None, {}) is IGNORE, msg


def test_protocol_dumps_are_known_without_event():
    # kafka-python conn.py / protocol/parser.py and aiokafka conn.py debug lines (branch pastes2)
    for line in ("DEBUG:kafka.conn:<BrokerConnection node_id=1 host=k1:9092 <connected> [IPv4 ('10.0.0.1', 9092)]> Response 2 (3.1 ms): SyncGroupResponse_v0(error_code=0, member_assignment=b'')",
                 "DEBUG:kafka.protocol.parser:Processing response SyncGroupResponse_v0",
                 "DEBUG:aiokafka.conn:<AIOKafkaConnection host=k port=9092> Response 26: GroupCoordinatorResponse_v0(error_code=0, coordinator_id=1, host='k', port=9092)"):
        assert parse_line(line, None, {}) is IGNORE, line
    # not a group API's response: not claimed
    assert not isinstance(parse_line("DEBUG:kafka.conn:<BrokerConnection node_id=1> Response 5 (1.0 ms): MetadataResponse_v1(brokers=[])", None, {}), Match)


@pytest.mark.parametrize(("text", "name"), [
    ("[Error 22] IllegalGenerationError", "ILLEGAL_GENERATION"),
    ("[Error 16] NotCoordinatorForGroupError: the coordinator moved", "NOT_COORDINATOR"),
    ("IllegalGenerationError - 22 - Returned from group membership requests", "ILLEGAL_GENERATION"),
    ("RequestTimedOutError", "REQUEST_TIMED_OUT"),
    ("CoordinatorLoadInProgressError: loading", "COORDINATOR_LOAD_IN_PROGRESS"),
    ("GroupCoordinatorNotAvailableError - 15 - The broker returns", "COORDINATOR_NOT_AVAILABLE"),
])
def test_python_error_names(text, name):
    assert pyclients.kafka_error_name(text) == name


@pytest.mark.parametrize("text", ["KafkaConnectionError()", "CommitFailedError: Commit cannot be completed", "Heartbeat session expired",
                                  "[Error 99] SomethingNewError", "coordinator rebalance", "NoBrokersAvailable"])
def test_python_error_names_not_guessed(text):
    assert pyclients.kafka_error_name(text) is None


def test_unknown_coordinator_line_is_unrecognised():
    assert parse_line("INFO:kafka.coordinator:Group payments did something new", None, {}) is UNRECOGNISED


@pytest.mark.parametrize("line", [
    "2024-05-01 10:00:00,123 INFO app.main user joined group chat-room-7",
    "2024-05-01 10:00:00,123 INFO app.main Setting newly assigned partitions for group payments is done",
    "2024-05-01 10:00:00,123 INFO kafka.coordinator.group.GroupCoordinator [GroupCoordinator 1]: Preparing to rebalance group payments",
    "INFO:app:Heartbeat from sensor 7 received",
    # a wording quoted in other text (a README table, a ticket) is not a log record
    '033.log\tmixed\t"old-style client lines (""Discovered coordinator ... for group blackberry."", ""Setting newly'
    ' assigned partitions [..] for group X"")"',
    'note: "Heartbeat session expired, marking coordinator dead" is what kafka-python prints',
    "2024-05-01 10:00:00 INFO app xSuccessfully joined group payments with generation 7",
])
def test_near_misses(line):
    assert not isinstance(parse_line(line, None, {}), Match)


def test_every_rule_is_exercised():
    used = {parse_line(f"INFO:{lg}:{msg}", None, {}).rule.split(".", 1)[1] for _l, lg, msg, _k, _e in CASES}
    no_event = {r.name for r in pyclients.RULES if r.kind is None}
    assert {r.name for r in pyclients.RULES} - used - no_event == set()


def test_version_hint_from_the_default_member_id():
    state: dict = {}
    parse_line(f"INFO:kafka.coordinator:Successfully joined group payments <Generation 7 (member_id: {MID}, protocol: range)>", None, state)
    res = parse_line("INFO:kafka.coordinator:Heartbeat poll expired, leaving group", None, state)
    assert res.fields["extra"]["client_version"] == "2.0.2"
    res = parse_line(f"INFO:aiokafka.consumer.group_coordinator:Joined group 'payments' (generation 7) with member_id {AMID}", None, {})
    assert res.fields["extra"]["client_version"] == "0.10.0"
