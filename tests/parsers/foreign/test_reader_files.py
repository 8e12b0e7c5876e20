"""Whole files of non-Java clients through the reader (sniff, layout, the hook that offers the foreign
parsers what no Java rule takes): every line accounted once, the events in order with their times."""

from __future__ import annotations

from pathlib import Path

import pytest

from parsers.reader import parse_path

LOGS = Path(__file__).parent / "logs"
RD = "rdkafka-6b6d3a5e-8c5b-4b8a-9a52-0f1c2d3e4f50"
JS = "my-app-1f6c2a4e-5b7d-4c1e-9a8f-0e1d2c3b4a59"
AIO = "aiokafka-0.10.0-6d5c4b3a-2f1e-4d0c-9b8a-7f6e5d4c3b2a"
T0 = 1714557600000  # 2024-05-01T10:00:00Z

# file -> (layout, {line_no: (kind, group_id, member_id, generation, partitions, ts_ms)}, ignored lines, unparsed lines)
FILES = {
    "librdkafka-2.3.0-debug-cgrp.log": ("plain", {
        2: ("member_state_changed", "payments", None, None, None, T0 + 2),
        3: ("coordinator_lookup", "payments", None, None, None, T0 + 3),
        4: ("coordinator_discovered", "payments", None, None, None, T0 + 10),
        5: ("coordinator_discovered", "payments", None, None, None, T0 + 10),
        6: ("coordinator_discovered", "payments", None, None, None, T0 + 10),
        7: ("member_state_changed", "payments", None, None, None, T0 + 11),
        9: ("member_state_changed", "payments", None, None, None, T0 + 21),
        11: ("member_state_changed", "payments", None, None, None, T0 + 22),
        12: ("join_started", "payments", None, None, None, T0 + 23),
        13: ("member_state_changed", "payments", RD, None, None, T0 + 30),
        14: ("join_succeeded", "payments", RD, 12, None, T0 + 3040),
        17: ("sync_succeeded", "payments", None, None, None, T0 + 3050),
        20: ("assignment_received", "payments", None, None, ("orders-0", "orders-1"), T0 + 3050),
        21: ("partitions_assigned", "payments", None, None, ("orders-0", "orders-1"), T0 + 3050),
        22: ("offset_fetched", "payments", None, None, None, T0 + 3051),
        23: ("no_committed_offset", "payments", None, None, None, T0 + 3051),
        24: ("heartbeat_sent", "payments", None, 12, None, T0 + 6052),
        25: ("offset_commit_sent", "payments", None, 12, None, T0 + 8060),
        26: ("offset_committed", "payments", None, None, None, T0 + 8070),
        28: ("poll_timeout", "payments", None, None, None, T0 + 310100),
        29: ("join_started", "payments", None, None, None, T0 + 310100),
        30: ("leave_group", "payments", None, None, None, T0 + 310101),
        32: ("partitions_lost", "payments", None, None, None, T0 + 310102),
    }, {1, 8, 10, 15, 16, 18, 19, 27, 31}, {33}),
    "confluent-kafka-python-2.3.0.log": ("plain", {
        1: ("member_state_changed", "payments", None, None, None, T0 + 2),
        2: ("coordinator_discovered", "payments", None, None, None, T0 + 10),
        3: ("join_started", "payments", None, None, None, T0 + 23),
        4: ("join_succeeded", "payments", RD, 12, None, T0 + 3040),
        5: ("sync_succeeded", "payments", None, None, None, T0 + 3050),
        6: ("partitions_assigned", "payments", None, None, None, T0 + 3050),
        8: ("poll_timeout", "payments", None, None, None, T0 + 310100),
    }, {9, 10}, {7}),  # 9: the application's echo of the MAXPOLL warning; 7: an app line naming partitions
    "kafkajs-2.2.4.jsonl": ("json", {
        2: ("join_succeeded", "payments", JS, None, ("orders-0", "orders-1"), T0 + 3043),
        3: ("heartbeat_failed", "payments", None, None, None, T0 + 240500),
        4: ("join_started", "payments", JS, None, None, T0 + 240501),
        5: ("join_succeeded", "payments", JS, None, ("orders-1",), T0 + 242700),
        7: ("leave_group", "payments", None, None, None, T0 + 540000),
        8: ("leave_group", "payments", None, None, None, T0 + 540100),
    }, {1, 6}, set()),
    "kafka-python-2.0.2.log": ("plain", {
        1: ("subscription_changed", None, None, None, None, T0 + 100),
        2: ("coordinator_discovered", "payments", None, None, None, T0 + 150),
        3: ("heartbeat_thread", "payments", None, None, None, T0 + 151),
        4: ("partitions_revoked", "payments", None, None, (), T0 + 152),
        5: ("join_started", "payments", None, None, None, T0 + 153),
        6: ("assignment_received", "payments", None, None, None, T0 + 3200),  # the elected leader (branch pastes2)
        7: ("join_succeeded", "payments", None, 7, None, T0 + 3210),
        9: ("partitions_assigned", "payments", None, None, ("orders-0", "orders-1"), T0 + 3212),
        11: ("poll_timeout", "payments", None, None, None, T0 + 300300),
        12: ("leave_group", "payments", None, None, None, T0 + 300301),
        13: ("offset_commit_failed", "payments", None, None, None, T0 + 300400),
        14: ("heartbeat_failed", "payments", None, None, None, T0 + 301000),
    }, {8, 10}, set()),
    "aiokafka-0.10.0.log": ("plain", {
        1: ("subscription_changed", None, None, None, None, None),
        2: ("subscription_changed", None, None, None, None, None),
        3: ("coordinator_discovered", "payments", None, None, None, None),
        4: ("partitions_revoked", "payments", None, None, (), None),
        5: ("join_started", "payments", None, None, None, None),
        6: ("join_succeeded", "payments", AIO, 7, None, None),
        7: ("assignment_received", "payments", None, None, None, None),  # the elected leader (branch pastes2)
        8: ("sync_succeeded", "payments", None, 7, None, None),
        9: ("partitions_assigned", "payments", None, None, ("orders-0",), None),
        10: ("coordinator_lost", "payments", None, None, None, None),
        11: ("coordinator_lost", "payments", None, None, None, None),
    }, {12}, set()),
}
LIBRARY = {"librdkafka-2.3.0-debug-cgrp.log": "librdkafka", "confluent-kafka-python-2.3.0.log": "librdkafka",
           "kafkajs-2.2.4.jsonl": "kafkajs", "kafka-python-2.0.2.log": "kafka-python", "aiokafka-0.10.0.log": "aiokafka"}


@pytest.mark.parametrize("name", sorted(FILES))
def test_file(name):
    layout, events, ignored, unparsed = FILES[name]
    outcomes, summary = parse_path(str(LOGS / name))
    outcomes = list(outcomes)
    assert summary.layout == layout
    assert [o.line_no for o in outcomes] == list(range(1, summary.lines_read + 1))
    assert summary.balanced
    got = {o.line_no: (o.event.kind, o.event.group_id, o.event.member_id, o.event.generation, o.event.partitions, o.event.ts_ms)
           for o in outcomes if o.status == "parsed"}
    assert got == events
    assert {o.line_no for o in outcomes if o.status == "ignored"} == ignored
    assert {o.line_no for o in outcomes if o.status == "unparsed"} == unparsed
    for o in outcomes:
        if o.status == "parsed":
            assert o.event.client_library == LIBRARY[name]
            assert o.event.side == "client"
            assert o.event.kafka_version_hint is None
    if name.startswith("librdkafka"):
        assert all(o.event.extra.get("client_version") == "2.3.0" for o in outcomes if o.status == "parsed")


def test_a_java_rule_does_not_take_a_python_line():
    """kafka-python copied Java 0.10's wordings ("Setting newly assigned partitions %s for group %s"):
    in a layout that hands the reader the message and a non-broker logger, the Java rule would read
    the Python set as partition names."""
    from parsers.reader import parse_lines, sniff
    lines = ["2024-05-01 10:00:03.212 [MainThread] INFO  kafka.consumer.fetcher - Resetting offset for partition "
             "TopicPartition(topic='orders', partition=1) to offset 0.",
             "2024-05-01 10:00:03.212 [MainThread] INFO  aiokafka.consumer.group_coordinator - Setting newly assigned "
             "partitions {TopicPartition(topic='orders', partition=0)} for group payments"]
    fmt = sniff(lines)
    assert fmt.layout == "logback"
    outs = list(parse_lines("x.log", enumerate(lines, 1), fmt))
    assert [(o.event.kind, o.event.client_library, o.event.topic, o.event.partition, o.event.offset, o.event.partitions)
            for o in outs] == [("offset_reset", "kafka-python", "orders", 1, 0, None),
                               ("partitions_assigned", "aiokafka", None, None, None, ("orders-0",))]


def test_python_json_logger_with_the_brokers_logger_prefix():
    """python-json-logger: the logger "kafka.coordinator" starts like the Scala broker's loggers."""
    from parsers.reader import parse_lines, sniff
    lines = ['{"asctime": "2024-05-01 10:00:03,210", "name": "kafka.coordinator", "levelname": "INFO", '
             '"message": "Successfully joined group payments with generation 7"}',
             '{"asctime": "2024-05-01 10:00:03,300", "name": "kafka.coordinator.group.GroupCoordinator", "levelname": "INFO", '
             '"message": "[GroupCoordinator 1]: Stabilized group payments generation 7 (__consumer_offsets-12)"}']
    outs = list(parse_lines("x.log", enumerate(lines, 1), sniff(lines)))
    assert [(o.event.side, o.event.kind, o.event.client_library, o.event.generation, o.event.ts_ms) for o in outs] == [
        ("client", "join_succeeded", "kafka-python", 7, T0 + 3210),
        ("broker", "broker_group_stabilized", None, 7, T0 + 3300)]


def test_node_rdkafka_event_log_as_json_lines():
    """node-rdkafka `consumer.on('event.log', log => console.log(JSON.stringify(log)))`: the JSON layout's
    message is librdkafka's text; the facility and instance come from the object."""
    from parsers.reader import parse_lines, sniff
    lines = ['{"severity":7,"fac":"CGRPSTATE","message":"[thrd:main]: Group \\"payments\\" changed state up -> '
             'query-coord (join-state steady)","name":"rdkafka#consumer-1"}',
             '{"severity":4,"fac":"MAXPOLL","message":"[thrd:main]: Application maximum poll interval (300000ms) exceeded by '
             '12ms (adjust max.poll.interval.ms for long-running message processing): leaving group","name":"rdkafka#consumer-1"}']
    outs = list(parse_lines("node.log", enumerate(lines, 1), sniff(lines)))
    assert [(o.event.kind, o.event.group_id, o.event.client_id, o.event.client_library, o.event.extra["facility"])
            for o in outs] == [("member_state_changed", "payments", "rdkafka#consumer-1", "librdkafka", "CGRPSTATE"),
                               ("poll_timeout", "payments", "rdkafka#consumer-1", "librdkafka", "MAXPOLL")]
