"""Session 17 (branch pastes2): shapes of pasted logs a fresh held-out set of 45 excerpts showed the
reader missing or misreading (docs/testing.md, "Recall on pasted logs", second round), each a general
mechanism with the source it mirrors:

- a JSON log line pasted with its opening brace cut off, or with a stray closer or a sentence's period
  after the object (`...}}`, `...}.`): the one object is read (layouts.json_object);
- a log viewer's rows pasted as a table, indented, starting with a time of day with its fraction
  (`  12:16:03.815 | INFO | ...`): records, not continuation lines of the row above;
- KafkaJS entries written by a custom logCreator as text (`ERROR [Runner] ... {"groupId":..}`) that an
  application's JSON logger then put in its `msg` (src/loggers/index.js 1.0-2.2.4);
- KafkaJS's debug `[ConsumerGroup] Chosen as group leader` (consumerGroup.js sync 0.8-2.2.4): the
  leader's join, with its generation and member id;
- librdkafka lines an application handler printed without the facility: `Joining group "g" with N
  subscribed topic(s) and member id "m"` (rdkafka_cgrp.c 1.6-2.x) and `OffsetFetchResponse: t [p] offset
  N` (rdkafka_request.c 0.11-2.x), and the instance name the handler printed before `[thrd:` as the
  client id;
- kafka-python / aiokafka: their errors' str ("[Error 22] IllegalGenerationError", 1.0.x's
  "IllegalGenerationError - 22 - ...", a bare class name) as Kafka's error names (kafka/errors.py),
  the coordinator request and response, the JoinGroup request, the elected leader, aiokafka 0.0-0.3's
  "Skipping heartbeat: no active group: %s", and their protocol dumps known without event;
- Java 2.4+'s `Revoke previously assigned partitions {}` with an empty list whose trailing space was
  dropped (only an empty partition list: an empty group stays unparsed);
- a redaction that ate a space (`Member *** in group*** has failed`).
Every input is invented (group, topic, host and member names); each test asserts the facts both ways."""

from __future__ import annotations

import pytest

from parsers import layouts
from parsers.reader import parse_lines


def _outcomes(lines: list[str]):
    return {o.line_no: o for o in parse_lines("paste.log", list(enumerate(lines, 1)))}


def _events(lines: list[str]):
    return {no: o.event for no, o in _outcomes(lines).items() if o.event is not None}


# --- JSON lines as pastes leave them ------------------------------------------------------------------

@pytest.mark.parametrize(("text", "want"), [
    ('"level":"WARN","message":"x","n":3}', {"level": "WARN", "message": "x", "n": 3}),
    ('{"level":"WARN","message":"x"}}', {"level": "WARN", "message": "x"}),
    ('{"level":"WARN","message":"x"}.', {"level": "WARN", "message": "x"}),
    ('{"level":"WARN","message":"x"}),', {"level": "WARN", "message": "x"}),
    ('{"level":"WARN","message":"x"}', {"level": "WARN", "message": "x"}),
])
def test_pasted_json_object(text, want):
    assert layouts.json_object(text) == want


@pytest.mark.parametrize("text", [
    '{"level":"WARN","message":"x"} and then some words',   # more than a stray closer after it
    '"level" is what the docs call it',                      # a quoted word, no JSON
    '{"level":"WARN","message":"x"',                         # cut inside the object: not one object
    '"a":1} {"b":2}',
    'level":"WARN"}',
])
def test_not_a_pasted_json_object(text):
    assert layouts.json_object(text) is None


KJS_PASTE = [
    # the first object's brace lost in the copy, the second one with a period after it, the third with a stray closer
    '"level":"ERROR","timestamp":"2023-03-04T05:06:07.100Z","logger":"kafkajs","message":"[Connection] Response Heartbeat(key: 12, version: 3)",'
    '"broker":"kb-2:9092","clientId":"shipper","error":"The group is rebalancing, so a rejoin is needed","correlationId":41,"size":10}',
    '{"level":"WARN","timestamp":"2023-03-04T05:06:07.102Z","logger":"kafkajs","message":"[Runner] The group is rebalancing, re-joining",'
    '"groupId":"parcels","memberId":"shipper-0a1b2c3d","error":"The group is rebalancing, so a rejoin is needed","retryCount":0,"retryTime":310}.',
    '{"groupId":"parcels","isLeader":false,"leaderId":"shipper-9f8e7d6c","level":"INFO","memberAssignment":{"crates":[4,1]},'
    '"memberId":"shipper-0a1b2c3d","message":"[ConsumerGroup] Consumer has joined the group","timestamp":"2023-03-04T05:06:09.500Z"}}',
]


def test_kafkajs_json_lines_with_paste_damage():
    out = _outcomes(KJS_PASTE)
    ev = {no: o.event for no, o in out.items() if o.event is not None}
    assert sorted(ev) == [1, 2, 3] and all(o.status == "parsed" for o in out.values())
    assert (ev[1].kind, ev[1].error, ev[1].client_id, ev[1].ts_ms) == ("heartbeat_failed", "REBALANCE_IN_PROGRESS", "shipper", 1677906367100)
    assert (ev[2].kind, ev[2].group_id, ev[2].member_id) == ("join_started", "parcels", "shipper-0a1b2c3d")
    assert (ev[3].kind, ev[3].group_id, ev[3].partitions) == ("join_succeeded", "parcels", ("crates-1", "crates-4"))
    assert {e.client_library for e in ev.values()} == {"kafkajs"}


def test_kafkajs_text_entries_inside_an_app_json_logger():
    lines = [
        '{"lvl":"warn","msg":"WARN [Runner] The group is rebalancing, re-joining {\\"timestamp\\":\\"2023-03-04T05:06:07.102Z\\",'
        '\\"logger\\":\\"kafkajs\\",\\"groupId\\":\\"parcels\\",\\"memberId\\":\\"shipper-0a1b2c3d\\",'
        '\\"error\\":\\"The group is rebalancing, so a rejoin is needed\\"}"}',
        # an application's own message that names a KafkaJS namespace is not an entry
        '{"lvl":"info","msg":"see the [Runner] docs about rebalancing"}',
    ]
    out = _outcomes(lines)
    ev = out[1].event
    assert (ev.kind, ev.group_id, ev.member_id, ev.ts_ms) == ("join_started", "parcels", "shipper-0a1b2c3d", 1677906367102)
    assert out[2].status != "parsed"


def test_kafkajs_chosen_as_group_leader():
    lines = ['{"level":"DEBUG","timestamp":"2023-03-04T05:06:08.000Z","logger":"kafkajs","message":"[ConsumerGroup] Chosen as group leader",'
             '"groupId":"parcels","generationId":57,"memberId":"shipper-0a1b2c3d","topics":["crates"]}',
             '{"level":"DEBUG","timestamp":"2023-03-04T05:06:08.001Z","logger":"kafkajs","message":"[ConsumerGroup] Group assignment",'
             '"groupId":"parcels","generationId":57,"groupAssignment":[]}']
    ev = _events(lines)
    assert sorted(ev) == [1]
    e = ev[1]
    assert (e.kind, e.group_id, e.generation, e.member_id) == ("join_succeeded", "parcels", 57, "shipper-0a1b2c3d")
    assert e.extra["is_leader"] is True and e.extra["leader"] == "shipper-0a1b2c3d"


# --- a log viewer's table rows -------------------------------------------------------------------------

def test_indented_time_of_day_rows_are_records():
    lines = [
        "  | When | Level | Text | ",
        "  | -- | -- | -- |",
        "  09:15:02.120 | INFO | Successfully joined group ledger-py with generation 12",
        "  09:15:02.119 | DEBUG | Received correlation id: 4",
        "    at some.frame(Frame.java:1)",  # an indented line without a time still continues the record above
    ]
    out = _outcomes(lines)
    ev = {no: o.event for no, o in out.items() if o.event is not None}
    assert sorted(ev) == [3]
    assert (ev[3].kind, ev[3].group_id, ev[3].generation) == ("join_succeeded", "ledger-py", 12)
    assert out[4].status == "ignored" and 5 not in out or out[5].status == "ignored"


def test_an_indented_stack_frame_still_continues():
    assert layouts.is_continuation("  09:15:02 is not a record start here")  # no fraction: not a row's time
    assert not layouts.is_continuation("  09:15:02.120 | INFO | text")
    assert not layouts.is_continuation("\t23:59:59,001 WARN text")


# --- librdkafka through application handlers -------------------------------------------------------------

def test_librdkafka_bare_joining_and_offset_fetch_lines():
    lines = [
        "2022-02-03 04:05:06.007 [Debug] From(inventory#consumer-3) [thrd:main]: kb-1:9092/1: Joining group \"stock\" "
        "with 2 subscribed topic(s) and member id \"inventory-77aa88bb\"",
        "2022-02-03 04:05:07.100 [Debug] From(inventory#consumer-3) [thrd:main]: GroupCoordinator/1: OffsetFetchResponse: "
        "shelves [5] offset 1200",
        "2022-02-03 04:05:07.101 [Debug] From(inventory#consumer-3) [thrd:main]: GroupCoordinator/1: OffsetFetchResponse: "
        "shelves [6] offset -1",
        "2022-02-03 04:05:07.102 [Debug] From(inventory#consumer-3) [thrd:main]: Group \"stock\": "
        "rd_kafka_cgrp_partitions_fetch_start0:1700: new version barrier v3",
    ]
    out = _outcomes(lines)
    ev = {no: o.event for no, o in out.items() if o.event is not None}
    assert sorted(ev) == [1, 2, 3] and out[4].status == "ignored"
    assert (ev[1].kind, ev[1].group_id, ev[1].member_id) == ("join_started", "stock", "inventory-77aa88bb")
    assert (ev[2].kind, ev[2].topic, ev[2].partition, ev[2].offset, ev[2].client_id) == ("offset_fetched", "shelves", 5, 1200,
                                                                                        "inventory#consumer-3")
    assert {e.client_library for e in ev.values()} == {"librdkafka"}


def test_librdkafka_metadata_lines_are_known():
    lines = ["%7|1650000000.100|CGRPMETADATA|rdkafka#consumer-1| [thrd:main]: consumer join: metadata for subscription "
             "is up to date (0ms old)"]
    assert _outcomes(lines)[1].status == "ignored"


# --- kafka-python and aiokafka ---------------------------------------------------------------------------

def test_python_clients_error_names_and_coordinator_lines():
    lines = [
        "2018-02-03 04:05:06,001 - aiokafka.group_coordinator - DEBUG - Sending group coordinator request for group ledger-py to broker 2",
        "2018-02-03 04:05:06,020 - aiokafka.group_coordinator - DEBUG - Received group coordinator response "
        "GroupCoordinatorResponse_v0(error_code=0, coordinator_id=3, host='kb-3', port=9092)",
        "2018-02-03 04:05:06,030 - aiokafka.conn - DEBUG - <AIOKafkaConnection host=kb-3 port=9092> Response 9: "
        "JoinGroupResponse_v0(error_code=0, generation_id=5)",
        "2018-02-03 04:05:06,040 - aiokafka.group_coordinator - ERROR - Skipping heartbeat: no active group: "
        "[Error 16] NotCoordinatorForGroupError",
        "[2018-02-03 04:05:07,000] ERROR    kafka.coordinator.consumer: OffsetCommit failed for group ledger-py due to group error "
        "(IllegalGenerationError - 22 - the generation id is not current.), will rejoin",
        "[2018-02-03 04:05:07,100] WARNING  Auto offset commit failed: [Error 27] RebalanceInProgressError",
        "[2018-02-03 04:05:07,200] INFO     kafka.coordinator: Elected group leader -- performing partition assignments using range",
    ]
    out = _outcomes(lines)
    ev = {no: o.event for no, o in out.items() if o.event is not None}
    assert sorted(ev) == [1, 2, 4, 5, 6, 7] and out[3].status == "ignored"
    assert (ev[1].kind, ev[1].group_id, ev[1].coordinator) == ("coordinator_lookup", "ledger-py", "2")
    assert (ev[2].kind, ev[2].coordinator) == ("coordinator_discovered", "3")
    assert (ev[4].kind, ev[4].error, ev[4].client_library) == ("heartbeat_failed", "NOT_COORDINATOR", "aiokafka")
    assert (ev[5].kind, ev[5].group_id, ev[5].error) == ("offset_commit_failed", "ledger-py", "ILLEGAL_GENERATION")
    assert (ev[6].kind, ev[6].error) == ("offset_commit_failed", "REBALANCE_IN_PROGRESS")
    assert ev[6].extra["error_message"] == "[Error 27] RebalanceInProgressError"
    assert (ev[7].kind, ev[7].extra["assignor"]) == ("assignment_received", "range")


# --- Java: an empty last value, a glued redaction ------------------------------------------------------------

def test_revoke_with_an_empty_list_whose_space_was_dropped():
    lines = [
        "2023-05-06 07:08:09,010 INFO [Consumer clientId=c-1, groupId=ledger] Revoke previously assigned partitions",
        "2023-05-06 07:08:09,011 INFO [Consumer clientId=c-1, groupId=ledger] Revoke previously assigned partitions  "
        "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
        # a whole line whose group is missing is no empty value: unparsed, not an event with no group
        "2019-03-01 10:00:00,001 INFO Marking the coordinator kb-1:9092 (id: 2147483646 rack: null) dead for group "
        "(org.apache.kafka.clients.consumer.internals.AbstractCoordinator)",
    ]
    out = _outcomes(lines)
    assert [(out[n].event.kind, out[n].event.partitions, out[n].event.group_id) for n in (1, 2)] == \
        [("partitions_revoked", (), "ledger")] * 2
    assert out[3].status == "unparsed"


def test_redaction_glued_to_a_word():
    lines = ["2023-10-05 15:07:33,882 INFO [GroupCoordinator 3]: Member **** in group****** has failed, removing it from the group "
             "(kafka.coordinator.group.GroupCoordinator) [executor-Heartbeat]",
             "2023-10-05 15:07:33,883 INFO [GroupCoordinator 3]: Member ghost in grouptown has failed, removing it from the group "
             "(kafka.coordinator.group.GroupCoordinator) [executor-Heartbeat]"]
    out = _outcomes(lines)
    e = out[1].event
    assert (e.kind, e.member_id, e.group_id, e.extra["redaction_spaced"]) == ("broker_member_removed", "****", "******", True)
    # no asterisks: the words are read as printed (no space is invented)
    assert out[2].status == "unparsed"


# --- broker lines cut short ------------------------------------------------------------------------------

def test_broker_messages_cut_inside_their_text():
    lines = [
        # cut inside the state after a whole group: the group is read, the rest is not guessed
        "[2021-02-03 04:05:06,007] INFO [GroupCoordinator 5]: Preparing to rebalance group carts in state PreparingReb",
        # cut inside the reason: group, state, generation and the offsets partition are whole
        "[2021-02-03 04:05:06,008] INFO [GroupCoordinator 5]: Preparing to rebalance group carts in state PreparingRebalance "
        "with old generation 41 (__consumer_offsets-17) (reason: Adding new member cart-svc-",
        # cut inside the offsets partition's name: the generation before it is whole
        "[2021-02-03 04:05:06,009] INFO [GroupCoordinator 5]: Stabilized group carts generation 42 (__consumer_off",
        # cut inside the first value: says no more than the first words
        "[2021-02-03 04:05:06,010] INFO [GroupCoordinator 5]: Member cart-svc-1f2e",
    ]
    out = _outcomes(lines)
    e1, e2 = out[1].event, out[2].event
    assert (e1.kind, e1.group_id, e1.generation, e1.coordinator) == ("broker_rebalance_preparing", "carts", None, "5")
    assert e1.extra["truncated"] == "message" and e1.extra["truncated_after"] == ["group_id"]
    assert (e2.kind, e2.group_id, e2.generation, e2.extra["offsets_partition"], e2.reason) == \
        ("broker_rebalance_preparing", "carts", 41, 17, None)
    e3 = out[3].event
    assert (e3.kind, e3.group_id, e3.generation, e3.extra["truncated"]) == ("broker_group_stabilized", "carts", 42, "message")
    assert "offsets_partition" not in e3.extra
    assert out[4].status == "unparsed"


def test_strimzi_suffix_cut_inside_the_thread():
    lines = ["2021-05-04 16:41:31,012 INFO [GroupCoordinator 0]: Member cart-svc-9 in group carts has failed, removing it "
             "from the group (kafka.coordinator.group.GroupCoordinator) [executor-Hea",
             "2021-05-04 16:41:31,013 INFO [GroupCoordinator 0]: Member cart-svc-9 in group carts has failed, removing it "
             "from the group (kafka.coordinator.group.GroupCoordinator) ["]
    out = _outcomes(lines)
    for n in (1, 2):
        e = out[n].event
        assert (e.kind, e.member_id, e.group_id, e.coordinator) == ("broker_member_removed", "cart-svc-9", "carts", "0")


def test_json_nested_deeper_than_the_stack_is_no_crash():
    # a JSON-looking line nested deeper than Python's recursion limit (crafted or broken input): before,
    # json.loads raised RecursionError out of the reader; now it is no JSON object, and the line is counted
    deep = "[" * 5000 + "]" * 5000
    lines = ['{"a":' + deep + '}', '{"a":' + deep + '}}', '"a":' + deep + '}', "{", '  "a": ' + deep, "}"]
    for text in lines[:3]:
        assert layouts.json_object(text) is None
    out = _outcomes(lines)
    assert sorted(out) == [1, 2, 3, 4, 5, 6] and all(o.status == "ignored" for o in out.values())
