"""Layouts (one line each, header fields right) and a table of Kafka client wordings -> fields."""

from __future__ import annotations

import pytest

from parsers import parse_lines, sniff
from parsers.client import parse_client_message
from parsers.layouts import best_layout, detect_layout

MSG = "[Consumer clientId=c1, groupId=g1] Successfully joined group with generation 3"
LAYOUT_LINES = [
    ("log4j", f"[2024-03-01 10:15:30,123] INFO {MSG} (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
     1709288130123),
    ("log4j_logger_line", f"[2024-03-01 10:15:30,123] INFO {MSG} (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator:611)",
     1709288130123),
    ("spring_boot", f"2024-03-01T10:15:30.123+02:00  INFO 12345 --- [ntainer#0-0-C-1] o.a.k.c.c.internals.ConsumerCoordinator  : {MSG}",
     1709280930123),
    ("spring_boot", f"2024-03-01 10:15:30.123  INFO 777 --- [myapp] [ckground_thread] o.a.k.c.c.i.ConsumerMembershipManager   : {MSG}",
     1709288130123),
    ("logback", f"2024-03-01 10:15:30.123 INFO  [main] o.a.k.c.c.i.ConsumerCoordinator - {MSG}", 1709288130123),
    ("logback", f"2024-03-01 10:15:30.123 [main] INFO  o.a.k.c.c.i.ConsumerCoordinator - {MSG}", 1709288130123),
    ("yy_slash", f"24/03/01 10:15:30 INFO ConsumerCoordinator: {MSG}", 1709288130000),
    ("streams", f"  2024-03-01 10:15:30,123 INFO  [app-StreamThread-1] internals.ConsumerCoordinator (ConsumerCoordinator.java:341) - {MSG}",
     1709288130123),
    ("slf4j_simple", f"1234 [main] INFO org.apache.kafka.clients.consumer.internals.ConsumerCoordinator - {MSG}", None),
    ("bare", f"{MSG} (org.apache.kafka.clients.consumer.internals.AbstractCoordinator:123)", None),
    ("json", '{"@timestamp":"2024-03-01T10:15:30.123Z","log.level":"INFO","message":"' + MSG
     + '","log.logger":"org.apache.kafka.clients.consumer.internals.ConsumerCoordinator","process.thread.name":"main"}',
     1709288130123),
    ("json", '{"timeMillis":1709288130123,"level":"INFO","loggerName":"o.a.k.ConsumerCoordinator","message":"' + MSG + '"},',
     1709288130123),
]


@pytest.mark.parametrize(("layout", "line", "ts"), LAYOUT_LINES)
def test_layout_detected_and_split(layout, line, ts):
    assert best_layout([line])[0] == layout
    outs = list(parse_lines("t.log", [(1, line)]))
    assert len(outs) == 1 and outs[0].status == "parsed"
    e = outs[0].event
    assert (e.kind, e.generation, e.group_id, e.client_id, e.ts_ms) == ("join_succeeded", 3, "g1", "c1", ts)


def test_jul_two_line_records():
    lines = [(1, "Mar 02, 2017 8:44:19 AM org.apache.kafka.clients.consumer.internals.AbstractCoordinator onJoinComplete"),
             (2, "INFO: Successfully joined group blackberry with generation 4"),
             (3, "Mar 02, 2017 8:44:20 PM org.apache.kafka.clients.consumer.internals.AbstractCoordinator x"),
             (4, "INFO: (Re-)joining group blackberry")]
    assert sniff([t for _, t in lines]).layout == "jul"
    outs = list(parse_lines("j.log", lines))
    assert [o.status for o in outs] == ["parsed"] * 4
    assert outs[0].event.generation == 4 and outs[0].event.ts_ms == 1488444259000
    assert outs[1].event is None and outs[3].event is None
    assert outs[2].event.kind == "join_started" and outs[2].event.ts_ms == 1488487460000


def test_wrappers_compose_quote_suffix():
    base = "[2024-03-01 10:15:30,123] INFO [Consumer clientId=c1, groupId=g1] (Re-)joining group (org.apache.kafka.clients.consumer.internals.AbstractCoordinator)"
    for wrapped, w in ((f"consumer_1  | {base}", "compose"), (f"> {base}", "quote"),
                       (f"{base},2024-03-01 10:15:31.000", "suffix"),
                       (f"2024-03-01T10:15:30.123456789Z {base}", "k8s_ts")):
        name, wrappers = detect_layout([wrapped] * 3)
        assert (name, wrappers) == ("log4j", (w,)), wrapped
        outs = list(parse_lines("w.log", [(1, wrapped)]))
        assert outs[0].event.kind == "join_started" and outs[0].event.raw == wrapped


WORDINGS = [
    # 0.9.0.x DEBUG request/response lines (AbstractCoordinator.java 0.9)
    ("Issuing request (JOIN_GROUP: {group_id=g9,session_timeout=30000,member_id=,protocol_type=consumer,group_protocols=[{protocol_name=range,protocol_metadata=java.nio.HeapByteBuffer[pos=0 lim=18 cap=18]}]}) to coordinator 2147483647",
     "join_started", {"group_id": "g9", "coordinator": "2147483647"}),
    ("Joined group: {error_code=0,generation_id=1,group_protocol=range,leader_id=consumer-1-0d1b,member_id=consumer-1-0d1b,members=[]}",
     "join_succeeded", {"generation": 1, "member_id": "consumer-1-0d1b", "protocol": "range"}),
    ("Issuing leader SyncGroup (SYNC_GROUP: {group_id=g9,generation_id=1,member_id=consumer-1-0d1b,group_assignment=[]}) to coordinator 2147483647",
     "sync_started", {"generation": 1, "group_id": "g9"}),
    ("Group metadata response ClientResponse(receivedTimeMs=1, disconnected=false, request=RequestSend(header={api_key=10}), responseBody={error_code=0,coordinator={node_id=0,host=kafka,port=9092}})",
     "coordinator_discovered", {}),
    ("Received successful heartbeat response.", "heartbeat_succeeded", {}),
    # pre-1.0 forms with the group at the end
    ("Marking the coordinator kafka:9092 (id: 2147483647 rack: null) dead for group g10", "coordinator_lost",
     {"group_id": "g10", "coordinator": "kafka:9092"}),
    ("Revoking previously assigned partitions [t-0, t-1] for group g10", "partitions_revoked",
     {"group_id": "g10", "partitions": ("t-0", "t-1")}),
    ("Attempt to heartbeat failed for group g10 since it is rebalancing.", "heartbeat_failed", {"group_id": "g10"}),
    # static membership prefix (2.3+)
    ("[Consumer instanceId=i-1, clientId=c-1, groupId=g23] Successfully joined group with generation Generation{generationId=8, memberId='i-1-5e4c', protocol='cooperative-sticky'}",
     "join_succeeded", {"instance_id": "i-1", "generation": 8, "member_id": "i-1-5e4c", "protocol": "cooperative-sticky"}),
    # 3.x member-id handshake / rebalance reasons
    ("[Consumer clientId=c, groupId=g] Request joining group due to: need to re-join with the given member-id: c-7f",
     "join_started", {"reason": "need to re-join with the given member-id: c-7f"}),
    ("[Consumer clientId=c, groupId=g] Member c-7f sending LeaveGroup request to coordinator b:9092 (id: 2147483646 rack: null) due to consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time processing messages. You can address this either by increasing max.poll.interval.ms or by reducing the maximum size of batches returned in poll() with max.poll.records.",
     "poll_timeout", {"member_id": "c-7f", "coordinator": "b:9092"}),
    ("[Consumer clientId=c, groupId=g] Member c-7f sending LeaveGroup request to coordinator b:9092 (id: 2147483646 rack: null) due to the consumer is being closed",
     "leave_group", {"member_id": "c-7f", "reason": "the consumer is being closed"}),
    # 4.x membership manager
    ("[Consumer clientId=c, groupId=g] Member m-1 with epoch 5 transitioned from RECONCILING to ACKNOWLEDGING.",
     "member_state_changed", {"member_id": "m-1", "member_epoch": 5}),
    # offsets: commits, fetches, resets, seeks
    ("[Consumer clientId=c, groupId=g] Committed offset 17 for partition t-2", "offset_committed",
     {"offset": 17, "topic": "t", "partition": 2}),
    ("[Consumer clientId=c, groupId=g] Setting offset for partition t-2 to the committed offset FetchPosition{offset=17, offsetEpoch=Optional.empty, currentLeader=LeaderAndEpoch{leader=Optional[b:9092 (id: 1 rack: null)], epoch=0}}",
     "offset_fetched", {"offset": 17, "topic": "t", "partition": 2}),
    ("[Consumer clientId=c, groupId=g] Resetting offset for partition t-2 to position FetchPosition{offset=0, offsetEpoch=Optional.empty, currentLeader=LeaderAndEpoch{leader=Optional[b:9092 (id: 1 rack: null)], epoch=0}}.",
     "offset_reset", {"offset": 0, "topic": "t", "partition": 2}),
    ("[Consumer clientId=c, groupId=g] Seeking to offset 99 for partition t-2", "offset_seek",
     {"offset": 99, "topic": "t", "partition": 2}),
    ("[Consumer clientId=c, groupId=g] Found no committed offset for partition t-2", "no_committed_offset",
     {"topic": "t", "partition": 2}),
]


@pytest.mark.parametrize(("message", "kind", "fields"), WORDINGS)
def test_client_wordings(message, kind, fields):
    m = parse_client_message(message, "org.apache.kafka.clients.consumer.internals.AbstractCoordinator")
    assert m is not None and getattr(m, "kind", None) == kind, m
    for k, v in fields.items():
        assert m.fields.get(k) == v, (k, m.fields)


def test_docker_json_file_and_nested_ecs():
    import json

    inner = ("[2024-03-01 10:15:30,123] INFO [Consumer clientId=c1, groupId=g1] (Re-)joining group "
             "(org.apache.kafka.clients.consumer.internals.AbstractCoordinator)")
    docker = json.dumps({"log": inner + "\n", "stream": "stdout", "time": "2024-03-01T10:15:30.999Z"})
    ecs = json.dumps({"@timestamp": "2024-03-01T10:15:31.000Z",
                      "log": {"level": "INFO", "logger": "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"},
                      "process": {"thread": {"name": "main"}},
                      "message": "[Consumer clientId=c1, groupId=g1] Successfully joined group with generation "
                                 "Generation{generationId=2, memberId='m', protocol='range'}"})
    assert sniff([docker, ecs]).layout == "json"
    a, b = (o.event for o in parse_lines("d.json", [(1, docker), (2, ecs)]))
    assert (a.kind, a.ts_ms, a.extra["logger"]) == ("join_started", 1709288130123,
                                                      "org.apache.kafka.clients.consumer.internals.AbstractCoordinator")
    assert (b.kind, b.ts_ms, b.generation, b.member_id, b.extra["thread"]) == ("join_succeeded", 1709288131000, 2, "m", "main")
