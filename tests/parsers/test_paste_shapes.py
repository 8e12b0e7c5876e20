"""Session 16 (branch pastes): shapes of logs pasted by strangers into issue threads that the reader
missed or misread, each a general mechanism with the source it mirrors (measured on a harvested set
of 61 excerpts kept out of the repository: docs/testing.md, "Recall on pasted logs"):

- Microsoft.Extensions.Logging's console records (.NET, confluent-kafka-dotnet): a header line
  `info: Category[0]` whose level, category and time belong to the indented message line after it;
- a line that is one JSON string (`jq '.message'` without -r, or a JSON line's `message` value cut
  out with its quotes): decoded before the layout (wrapper `json_string`);
- Kibana 4-6's default dateFormat `MMMM Do YYYY, HH:mm:ss.SSS` ("July 17th 2018, 15:52:04.311");
- kafka-python's kafka.cluster coordinator line (1.0-2.1 `Group coordinator for g is BrokerMetadata(..)`,
  2.2+ `Coordinator for group/g is ...`) and 1.0.x's `OffsetCommit failed for group g due to group
  error (...), will rejoin`; Python 2 reprs (`TopicPartition(topic=u'..')`, `set([...])`), and a Python
  client's wording with its reprs that no Python rule reads is unparsed, not read by a Java rule;
- librdkafka 1.6+'s `Adding t [p] back to pending list with offset N|INVALID` (the committed offset
  under debug=cgrp), one fact with the OffsetFetchResponse line of the same fetch; a `[thrd:..]` line
  of another subsystem printed without its facility is librdkafka's and ignored;
- a template ending in `: {}` whose value printed empty, the trailing space then stripped.
Every input here is invented (group, topic, host and member names); each test asserts the facts
both ways: what the lines say, and that no other event is made."""

from __future__ import annotations

from parsers import layouts
from parsers.reader import parse_lines
from parsers.timestamps import find_ts


def _outcomes(lines: list[str]):
    return {o.line_no: o for o in parse_lines("paste.log", list(enumerate(lines, 1)))}


def _events(lines: list[str]):
    return {no: o.event for no, o in _outcomes(lines).items() if o.event is not None}


# --- Microsoft.Extensions.Logging console (SimpleConsoleFormatter) ----------------------------------

MEL = [
    "info: Acme.Billing.LedgerConsumer[0]",
    "      Client log: [thrd:main]: Group \"ledger-readers\" changed join state wait-join -> wait-metadata (state up)",
    "dbug: Acme.Billing.LedgerConsumer[0]",
    "      Client log: [thrd:main]: kafka-a:9092/bootstrap: Group \"ledger-readers\" coordinator is kafka-c:9092 id 3",
    "warn: Acme.Billing.LedgerConsumer[7]",
    "      Client log: [thrd:main]: GroupCoordinator/3: 1/1 requested topic(s) seen in metadata",
    "info: Acme.Billing.Startup[0]",
    "      ledger service started",
]


def test_mel_console_records_take_header_level_and_category() -> None:
    out = _outcomes(MEL)
    ev = {no: o.event for no, o in out.items() if o.event is not None}
    assert sorted(ev) == [2, 4]
    assert (ev[2].kind, ev[2].group_id, ev[2].extra["to_join_state"]) == ("member_state_changed", "ledger-readers", "wait-metadata")
    assert (ev[4].kind, ev[4].group_id, ev[4].coordinator) == ("coordinator_discovered", "ledger-readers", "3")
    assert ev[2].extra["level"] == "INFO" and ev[4].extra["level"] == "DEBUG"
    # the headers and the other lines make no event, and none is unparsed
    assert all(o.status != "unparsed" for o in out.values())
    assert [o.status for no, o in sorted(out.items()) if no in (1, 3, 5, 6, 7, 8)] == ["ignored"] * 6


def test_mel_header_with_timestamp_dates_the_message() -> None:
    lines = ["2024-05-02 08:15:30 info: Acme.Billing.LedgerConsumer[0]",
             "      Client log: [thrd:main]: Group \"ledger-readers\" coordinator is kafka-c:9092 id 3"]
    ev = _events(lines)
    assert list(ev) == [2]
    assert (ev[2].kind, ev[2].ts_ms, ev[2].coordinator) == ("coordinator_discovered", 1714637730000, "3")


def test_mel_header_shape_only_counts_on_a_line_of_its_own() -> None:
    # a header-like text indented under a record continues that record; the next record's MEL header
    # still gives its message line the header's level
    lines = ["[2024-05-02 08:15:30,001] INFO [Consumer clientId=c-9, groupId=ledger-readers] (Re-)joining group "
             "(org.apache.kafka.clients.consumer.internals.AbstractCoordinator)",
             "      warn: not a header[0]",
             "fail: Acme.Billing.LedgerConsumer[0]",
             "      [Consumer clientId=c-9, groupId=ledger-readers] (Re-)joining group"]
    out = _outcomes(lines)
    assert out[1].event.kind == "join_started" and out[1].event.extra["level"] == "INFO"
    assert out[2].status == "parsed" and out[2].event is None  # continuation of line 1
    assert out[3].status == "ignored"
    assert (out[4].event.kind, out[4].event.group_id, out[4].event.extra["level"]) == ("join_started", "ledger-readers", "ERROR")
    assert out[4].event.extra["logger"] == "Acme.Billing.LedgerConsumer"


# --- one JSON string a line --------------------------------------------------------------------------

JQ = [
    r'"REBALANCE [ledger-svc#consumer-4] [thrd:main]: Group \"ledger-readers\" initiating rebalance (EAGER) in state up (join-state steady) with 3 assigned partition(s): Metadata for subscribed topic(s) has changed"}   ',
    r'"CGRPJOINSTATE [ledger-svc#consumer-4] [thrd:main]: Group \"ledger-readers\" changed join state steady -> wait-unassign-call (state up)"},',
    r'"[Consumer clientId=c-9, groupId=ledger-readers] Successfully joined group with generation Generation{generationId=12, memberId=\u0027c-9-77aa\u0027, protocol=\u0027range\u0027}"',
]


def test_json_string_lines_are_decoded_before_the_layout() -> None:
    assert layouts.detect_wrappers(JQ) == ("json_string",)
    ev = _events(JQ)
    assert sorted(ev) == [1, 2, 3]
    assert (ev[1].kind, ev[1].group_id, ev[1].client_library) == ("join_started", "ledger-readers", "librdkafka")
    assert (ev[2].kind, ev[2].group_id, ev[2].extra["to_join_state"]) == ("member_state_changed", "ledger-readers", "wait-unassign-call")
    assert (ev[3].kind, ev[3].group_id, ev[3].member_id, ev[3].generation) == ("join_succeeded", "ledger-readers", "c-9-77aa", 12)
    assert all('\\"' not in (e.group_id or "") for e in ev.values())
    assert ev[1].raw == JQ[0]  # the line as written is kept


def test_json_string_wrapper_leaves_csv_and_json_objects_alone() -> None:
    csv = ['"2024-05-02T08:15:30.001Z","host-a","[Consumer clientId=c-9, groupId=ledger-readers] (Re-)joining group"'] * 3
    assert "json_string" not in layouts.detect_wrappers(csv)
    obj = ['{"message":"[Consumer clientId=c-9, groupId=ledger-readers] (Re-)joining group"}'] * 3
    assert "json_string" not in layouts.detect_wrappers(obj)
    assert layouts.json_string_line('"a ""quoted"" cell"') is None  # CSV doubling is no JSON string
    assert layouts.json_string_line(r'"bad \x escape"') is None


# --- Kibana 4-6 default date format --------------------------------------------------------------

def test_kibana_4_to_6_date_format() -> None:
    assert find_ts("July 17th 2018, 15:52:04.311 3,114 INFO x")[0] == 1531842724311
    assert find_ts("September 1st 2019, 00:00:09.050")[0] == 1567296009050
    assert find_ts("May 22nd 2018, 01:02:03.000")[0] == 1526950923000
    # the forms read before are read as before
    assert find_ts("Mar 2, 2017 8:44:19 AM")[0] == 1488444259000
    assert find_ts("May 17, 2022 @ 21:49:04.368")[0] == 1652824144368
    # no ordinal and no comma is not this form (a syslog-like time without a year stays pending)
    assert find_ts("Nov 26 2026 01:02:03")[3] == "pending"
    lines = ["March 3rd 2019, 07:08:09.010 1,234 INFO MainThread Discovered coordinator 5 for group billing-py"]
    ev = _events(lines)
    assert (ev[1].kind, ev[1].ts_ms, ev[1].coordinator, ev[1].group_id) == ("coordinator_discovered", 1551596889010, "5", "billing-py")


# --- kafka-python -----------------------------------------------------------------------------------

def test_kafka_python_cluster_coordinator_lines() -> None:
    lines = [
        "2019-05-06 07:08:09,100 - kafka.cluster - INFO - Group coordinator for billing-py is BrokerMetadata(nodeId=4, host='kb-4.example', port=9092, rack=None)",
        "2021-05-06 07:08:09,200 - kafka.cluster - INFO - Coordinator for group/billing-py is BrokerMetadata(nodeId='coordinator-4', host='kb-4.example', port=9092, rack=None)",
        "2019-05-06 07:08:09,300 - kafka.cluster - INFO - Group coordinator for billing-py is BrokerMetadata(nodeId=4, host='kb-4.exa",
        "2019-05-06 07:08:09,400 - kafka.cluster - INFO - Bootstrap succeeded: found 3 brokers and 6 topics.",
    ]
    out = _outcomes(lines)
    for no, ts in ((1, 1557126489100), (2, 1620284889200), (3, 1557126489300)):
        e = out[no].event
        assert (e.kind, e.group_id, e.coordinator, e.client_library, e.ts_ms) == (
            "coordinator_discovered", "billing-py", "4", "kafka-python", ts), no
    assert out[4].status == "ignored" and out[4].event is None


def test_kafka_python_1_0_commit_failed_due_to_group_error() -> None:
    lines = ["2016-03-04 05:06:07,008 - kafka.coordinator.consumer - ERROR - OffsetCommit failed for group billing-py "
             "due to group error (IllegalGenerationError - 22 - Returned from group membership requests (such as heartbeats) "
             "when the generation id provided in the request is not the current generation.), will rejoin"]
    e = _events(lines)[1]
    assert (e.kind, e.group_id, e.client_library) == ("offset_commit_failed", "billing-py", "kafka-python")
    # kafka-python's error str mapped to Kafka's error name (branch pastes2), the text kept in extra
    assert e.error == "ILLEGAL_GENERATION"
    assert e.extra["error_message"].startswith("IllegalGenerationError - 22 - ")


def test_python2_reprs() -> None:
    line = ("2017-01-02 03:04:05,006 - kafka.coordinator.consumer - INFO - Revoking previously assigned partitions "
            "set([TopicPartition(topic=u'ledger', partition=2), TopicPartition(topic=u'ledger', partition=0)]) for group billing-py")
    e = _events([line])[1]
    assert (e.kind, e.group_id, e.partitions, e.client_library) == ("partitions_revoked", "billing-py", ("ledger-2", "ledger-0"), "kafka-python")
    empty = line.split("set(")[0] + "set([]) for group billing-py"
    assert _events([empty])[1].partitions == ()


def test_python_wording_no_python_rule_reads_is_unparsed_not_java() -> None:
    # text appended after the message that no Python rule reads: unparsed, and Java 0.10's rule would
    # read the set repr as no partitions and the text as the group
    line = ("2017-01-02 03:04:05,006 MainThread INFO Revoking previously assigned partitions "
            "set([TopicPartition(topic=u'ledger', partition=2)]) for group billing-py (attempt two)")
    o = _outcomes([line])[1]
    assert o.status == "unparsed" and o.event.kind == "unparsed"
    assert o.event.group_id is None and not o.event.partitions
    # the record's place a Python logging format prints after the message ("%(message)s,
    # %(module)s-%(funcName)s-%(lineno)d"): read without it (session 17, branch pastes2)
    placed = line.replace(" (attempt two)", ", consumer-_on_join_prepare-270")
    e = _outcomes([placed])[1].event
    assert (e.kind, e.group_id, e.partitions) == ("partitions_revoked", "billing-py", ("ledger-2",))
    assert e.extra["python_place"] == "consumer-_on_join_prepare-270"


# --- librdkafka --------------------------------------------------------------------------------------

def test_librdkafka_pending_list_offsets() -> None:
    lines = [
        "%7|1714557600.100|OFFSETFETCH|ledger-svc#consumer-2| [thrd:main]: Adding ledger [0] back to pending list with offset 4410",
        "%7|1714557600.101|OFFSETFETCH|ledger-svc#consumer-2| [thrd:main]: Adding ledger [1] back to pending list with offset INVALID",
        "%7|1714557600.102|OFFSETFETCH|ledger-svc#consumer-2| [thrd:main]: Adding ledger [2] back to pending list because on-going transaction is blocking offset retrieval",
    ]
    out = _outcomes(lines)
    e1, e2 = out[1].event, out[2].event
    assert (e1.kind, e1.topic, e1.partition, e1.offset, e1.client_library, e1.ts_ms) == (
        "offset_fetched", "ledger", 0, 4410, "librdkafka", 1714557600100)
    assert (e2.kind, e2.topic, e2.partition, e2.offset) == ("no_committed_offset", "ledger", 1, None)
    assert out[3].status == "ignored" and out[3].event is None


def test_librdkafka_pending_line_after_offsetfetchresponse_is_one_fact() -> None:
    lines = [
        "%7|1714557600.090|OFFSETFETCH|ledger-svc#consumer-2| [thrd:main]: kafka-c:9092/3: OffsetFetchResponse: ledger [0] offset 4410, leader epoch 5, metadata 0 byte(s): NO_ERROR",
        "%7|1714557600.100|OFFSETFETCH|ledger-svc#consumer-2| [thrd:main]: Adding ledger [0] back to pending list with offset 4410",
        "%7|1714557600.110|OFFSETFETCH|ledger-svc#consumer-2| [thrd:main]: Adding ledger [0] back to pending list with offset 4500",
    ]
    out = _outcomes(lines)
    assert (out[1].event.kind, out[1].event.offset) == ("offset_fetched", 4410)
    assert out[2].status == "ignored" and out[2].event is None
    assert (out[3].event.kind, out[3].event.offset) == ("offset_fetched", 4500)  # a later fetch's own fact


def test_librdkafka_thread_line_of_another_subsystem_without_facility_is_ignored() -> None:
    lines = ["Client log: [thrd:main]: GroupCoordinator/3: 1/1 requested topic(s) seen in metadata",
             "Client log: [thrd:main]: Not selecting any broker for cluster connection: still suppressed for 42ms: coordinator query"]
    out = _outcomes(lines)
    assert [o.status for o in out.values()] == ["ignored", "ignored"]


# --- an empty last value whose trailing space was stripped ---------------------------------------

def test_empty_trailing_value_after_stripped_space() -> None:
    lines = ["2023-04-05 06:07:08,009 [ledger-thread-2] [Consumer clientId=c-9, groupId=ledger-readers] Adding newly assigned partitions:",
             "2023-04-05 06:07:08,010 [ledger-thread-2] [Consumer clientId=c-9, groupId=ledger-readers] Adding newly assigned partitions: ledger-3"]
    ev = _events(lines)
    assert (ev[1].kind, ev[1].group_id, ev[1].partitions) == ("partitions_assigned", "ledger-readers", ())
    assert (ev[2].kind, ev[2].partitions) == ("partitions_assigned", ("ledger-3",))


# --- lines cut short (parsers/truncated.py) ----------------------------------------------------------

CUT_P = "[Consumer clientId=c-9, groupId=ledger-readers] "
CUT_NODE = "kafka-b.internal:9092 (id: 2147483645 rack: null)"


def test_client_line_cut_inside_its_template() -> None:
    lines = [
        # cut inside the literal after the node: the node is whole
        "[2024-05-02 08:15:30,001] INFO " + CUT_P + f"Group coordinator {CUT_NODE} is unavailable or inv",
        # cut inside the cause: the node is whole, the cause is not read
        "[2024-05-02 08:15:30,002] INFO " + CUT_P + f"Group coordinator {CUT_NODE} is unavailable or invalid due to cause: coordinator unava",
        # cut inside the node: nothing but the kind
        "[2024-05-02 08:15:30,003] INFO " + CUT_P + "Group coordinator kafka-b.internal:90",
    ]
    out = _outcomes(lines)
    e1, e2 = out[1].event, out[2].event
    for e in (e1, e2):
        assert (e.kind, e.group_id, e.client_id, e.coordinator, e.error) == (
            "coordinator_lost", "ledger-readers", "c-9", "kafka-b.internal:9092", None)
        assert e.extra["truncated"] == "message" and e.extra["coordinator_id"] == 2147483645
    assert e1.extra["truncated_after"] == e2.extra["truncated_after"] != []
    # a cut inside the first placeholder of a template: too little of it (never a guess)
    assert out[3].status == "unparsed"
    # nothing read from too little text, and a whole line whose last value (a template ending in a
    # placeholder) no rule accepts is not called cut
    more = ["[2024-05-02 08:15:30,004] INFO " + CUT_P + "Successfully ",
            "[2024-05-02 08:15:30,005] INFO " + CUT_P + "Group coordinator",
            "[2024-05-02 08:15:30,006] INFO " + CUT_P + "Successfully joined group with generation Generation{generationId=x}"]
    out = _outcomes(more)
    assert [o.status for o in out.values()][:2] == ["ignored", "unparsed"]
    assert not any(o.event and o.event.extra.get("truncated") for o in out.values())
    # the same text followed by the layout's logger suffix is a whole line (a value missing, not cut)
    whole = ("[2024-05-02 08:15:30,007] INFO " + CUT_P + f"Group coordinator {CUT_NODE} is unavailable or inv "
             "(org.apache.kafka.clients.consumer.internals.AbstractCoordinator)")
    o = _outcomes([whole])[1]
    assert o.status == "unparsed" and not o.event.extra.get("truncated")


def test_log4j_logger_suffix_cut() -> None:
    lines = [
        "[2024-05-02 08:15:30,001] INFO [GroupCoordinator 2]: Stabilized group ledger-readers generation 41 "
        "(__consumer_offsets-17) with 3 members (kafka.coordinator.group.GroupCoordinat",
        "[2024-05-02 08:15:30,002] INFO " + CUT_P + "(Re-)joining group (org.apache.kafka.clients.consumer.internals.Abstr",
        "[2024-05-02 08:15:30,003] INFO [GroupCoordinator 2]: Stabilized group ledger-readers generation 42 "
        "(__consumer_offsets-17) with 3 members (kafka.coordinator.group.GroupCoordinator)",
    ]
    out = _outcomes(lines)
    e1, e2, e3 = out[1].event, out[2].event, out[3].event
    assert (e1.side, e1.kind, e1.group_id, e1.generation, e1.coordinator, e1.ts_ms) == (
        "broker", "broker_group_stabilized", "ledger-readers", 41, "2", 1714637730001)
    assert e1.extra["truncated"] == "logger"
    assert (e2.side, e2.kind, e2.group_id, e2.extra["truncated"]) == ("client", "join_started", "ledger-readers", "logger")
    assert (e3.kind, e3.generation) == ("broker_group_stabilized", 42) and "truncated" not in e3.extra


# --- librdkafka with log.thread.name=false; KafkaJS's MEMBER_ID_REQUIRED -----------------------------

def test_librdkafka_lines_without_thread_prefix() -> None:
    lines = ['%7|1488192917.806|CGRPQUERY|ledger-svc#consumer-1| kafka-a:9092/0: Group "ledger-readers": querying for coordinator: intervaled in state query-coord',
             '%7|1488192917.900|CGRPCOORD|ledger-svc#consumer-1| kafka-a:9092/0: Group "ledger-readers" coordinator is kafka-c:9092 id 3']
    ev = _events(lines)
    assert (ev[1].kind, ev[1].group_id, ev[1].reason) == ("coordinator_lookup", "ledger-readers", "intervaled in state query-coord")
    assert (ev[2].kind, ev[2].group_id, ev[2].coordinator, ev[2].extra["broker"]) == (
        "coordinator_discovered", "ledger-readers", "3", "kafka-a:9092/0")


def test_kafkajs_member_id_required_has_its_kafka_name() -> None:
    line = ('{"level":"DEBUG","timestamp":"2021-02-03T04:05:06.007Z","logger":"kafkajs","message":"[Connection] Response JoinGroup(key: 11, version: 5)",'
            '"broker":"kafka-c:9092","clientId":"ledger-js","error":"The group member needs to have a valid member id before actually entering a consumer group",'
            '"correlationId":2,"size":99}')
    e = _events([line])[1]
    assert (e.kind, e.error, e.client_id, e.ts_ms) == ("join_failed", "MEMBER_ID_REQUIRED", "ledger-js", 1612325106007)
    assert e.extra["error_message"].startswith("The group member needs")


def test_explain_says_what_parse_does_for_cut_lines() -> None:
    from parsers.explain import explain_line

    cut = "[2024-05-02 08:15:30,001] INFO " + CUT_P + f"Group coordinator {CUT_NODE} is unavailable or inv"
    x = explain_line(cut)
    assert (x["result"], x["kind"], x["fields"]["coordinator"], x["fields"]["extra"]["truncated"]) == (
        "parsed", "coordinator_lost", "kafka-b.internal:9092", "message")
    x = explain_line("[2024-05-02 08:15:30,002] INFO " + CUT_P + "(Re-)joining group (org.apache.kafka.clients.consumer.internals.Abstr")
    assert (x["result"], x["kind"], x["fields"].get("group_id"), x["truncated"]) == ("parsed", "join_started", "ledger-readers", "logger")
    whole = cut + " (org.apache.kafka.clients.consumer.internals.AbstractCoordinator)"
    assert explain_line(whole)["result"] == "unparsed"
