"""Session 19 (branch pastes4): client coordinator lines as logging stacks and platforms ship them.
Each test is built from the format's documented shape (not from the held-out excerpts of
/work/pastes4) and asserts the facts both ways: the kind and fields the line states, its time to
the millisecond, and nothing taken from the wrapper. Mechanisms (docs/parsers.md, "Logs through
logging stacks"):

- a collector's time to the second (Loki `logcli query`, `flyctl logs`, `journalctl -o short-iso`)
  followed by the application's own agreeing time: the application's (it has the milliseconds);
- a zone-less application time behind a wrapper that prints its zone (journald short-iso `+01:00`,
  rsyslog RSYSLOG_FileFormat `-04:00`): read in that zone when that makes it the wrapper's moment;
  a time of day alone (log4j2/logback `%d{HH:mm:ss.SSS}`) takes the wrapper's date and zone;
- confluent-kafka-python's log_cb text inside a JSON record (python-json-logger) and KafkaJS's JSON
  line inside docker's json-file record: read as the client's own line;
- a response document whose first field is the list of records (awscli `logs filter-log-events`
  `{"events": [...]}`, Datadog Logs API v2 `{"data": [...]}`), pretty-printed: each element a record;
- CRI partial lines (`<time> stdout P <part>` ... `F <last part>`): one line;
- block records: `gcloud logging read` YAML (textPayload before timestamp), `journalctl -o verbose`,
  the OpenTelemetry Collector's debug exporter (`Timestamp:` above `Body: Str(...)`)."""

from __future__ import annotations

import json

from parsers.reader import parse_lines

P = "[Consumer clientId=consumer-ledger-3, groupId=ledger] "
CC = "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"
GEN = "Generation{generationId=41, memberId='consumer-ledger-3-0aa1', protocol='range'}"
JOIN = P + "Successfully joined group with generation " + GEN
SYNC = P + "Successfully synced group in generation " + GEN
ASSIGN = P + "Adding newly assigned partitions: ledger-0, ledger-4"
T = 1717236000456  # 2024-06-01T10:00:00.456Z


def _outs(lines: list[str]):
    return {o.line_no: o for o in parse_lines("f", list(enumerate(lines, 1)))}


def _events(lines: list[str]):
    return {n: o.event for n, o in _outs(lines).items() if o.status == "parsed" and o.event is not None}


def _join_ok(ev, ts: int) -> None:
    assert (ev.kind, ev.group_id, ev.client_id, ev.member_id, ev.generation, ev.ts_ms) == (
        "join_succeeded", "ledger", "consumer-ledger-3", "consumer-ledger-3-0aa1", 41, ts)


# --- a collector's second, the line's milliseconds -----------------------------------------------

def test_logcli_default_output_takes_the_lines_own_milliseconds() -> None:
    # logcli query: "<RFC 3339 time, no fraction> <labels> <line>"; the line: Spring Boot 3.4's default
    lines = ['2024-06-01T12:00:00+02:00 {app="ledger", pod="ledger-0"} 2024-06-01T12:00:00.456+02:00  INFO 1 --- '
             '[ledger] [ntainer#0-0-C-1] o.a.k.c.c.internals.ConsumerCoordinator  : ' + JOIN,
             '2024-06-01T12:00:01+02:00 {app="ledger", pod="ledger-0"} 2024-06-01T12:00:01.002+02:00  INFO 1 --- '
             '[ledger] [ntainer#0-0-C-1] o.a.k.c.c.internals.ConsumerCoordinator  : ' + SYNC]
    ev = _events(lines)
    _join_ok(ev[1], T)
    assert (ev[2].kind, ev[2].ts_ms) == ("sync_succeeded", T + 546)


def test_flyctl_logs_time_to_the_second_and_a_naive_application_time() -> None:
    line = "2024-06-01T10:00:00Z app[3d8d9e1c5b6e89] ams [info]2024-06-01 10:00:00.456 INFO  [c-1] " \
           "o.a.k.c.c.i.ConsumerCoordinator - " + JOIN
    _join_ok(_events([line])[1], T)


def test_a_time_that_does_not_agree_is_not_taken() -> None:
    # the second time is an hour away whatever its zone: not the same moment, the collector's stays
    line = "2024-06-01T10:00:00Z app[3d8d] ams [info]2024-06-01 11:30:00.456 INFO  [c-1] " \
           "o.a.k.c.c.i.ConsumerCoordinator - " + JOIN
    _join_ok(_events([line])[1], T - 456)


# --- zone-less application times behind a zoned wrapper --------------------------------------------

def test_journal_short_iso_zone_applies_to_a_zoneless_log4j2_time() -> None:
    # journalctl -o short-iso (systemd 255: "+01:00") before log4j2 "%d{ISO8601} %-5p [%t] %c{1.} - %m"
    lines = [f"2024-06-01T11:00:00+01:00 host java[212]: 2024-06-01T11:00:00,456 INFO  [c-1] o.a.k.c.c.i.ConsumerCoordinator - {JOIN}",
             f"2024-06-01T11:00:01+01:00 host java[212]: 2024-06-01T11:00:01,000 INFO  [c-1] o.a.k.c.c.i.ConsumerCoordinator - {SYNC}"]
    ev = _events(lines)
    _join_ok(ev[1], T)
    assert ev[2].ts_ms == T + 544
    assert ev[1].extra.get("origin") == "host:host/pid:212"


def test_rsyslog_file_format_dates_a_time_of_day_line() -> None:
    # RSYSLOG_FileFormat "%TIMESTAMP:::date-rfc3339% %HOSTNAME% %syslogtag%%msg%" around log4j2
    # "%d{HH:mm:ss.SSS} [%t] %-5level %logger{36} - %msg" (no date): the header's date, in its zone
    lines = [f"2024-06-01T06:00:00.456789-04:00 inv-1 ledger[88]: 06:00:00.456 [c-1] INFO  o.a.k.c.c.i.ConsumerCoordinator - {JOIN}",
             f"2024-05-31T23:59:59.998000-04:00 inv-1 ledger[88]: 23:59:59.998 [c-1] INFO  o.a.k.c.c.i.ConsumerCoordinator - {SYNC}"]
    ev = _events(lines)
    _join_ok(ev[1], T)
    assert ev[2].ts_ms == 1717214399998  # 2024-06-01T03:59:59.998Z: the day before in -04:00, not in UTC


def test_kubectl_timestamps_dates_a_time_of_day_line() -> None:
    line = "2024-06-01T10:00:00.456123456Z 10:00:00.456 [c-1] INFO  o.a.k.c.c.i.ConsumerCoordinator - " + JOIN
    _join_ok(_events([line, line.replace(".456123456Z", ".457000000Z")])[1], T)


def test_a_zoned_application_time_behind_a_wrapper_is_kept() -> None:
    # kubectl --timestamps before Kafka's own log4j layout with an explicit zone: the line's time stays
    line = f"2024-06-01T10:00:00.470000000Z [2024-06-01 12:00:00,456+02:00] INFO {JOIN} ({CC})"
    _join_ok(_events([line, line])[1], T)


# --- client JSON lines inside JSON records ---------------------------------------------------------

def test_confluent_kafka_python_log_cb_through_python_json_logger() -> None:
    # confluent_kafka's log_cb: logger.log(level, "%s [%s] %s", fac, name, msg); python-json-logger
    recs = [{"asctime": "2024-06-01 10:00:00,456", "levelname": "DEBUG", "name": "ledger.kafka",
             "message": 'CGRPSTATE [rdkafka#consumer-2] [thrd:main]: Group "ledger-py" changed state up -> '
                        'wait-join (join-state init)'},
            {"asctime": "2024-06-01 10:00:00,500", "levelname": "DEBUG", "name": "ledger.kafka",
             "message": "JOINGROUP [rdkafka#consumer-2] [thrd:main]: JoinGroup response: GenerationId 9, Protocol range, "
                        "LeaderId rdkafka-x1, my MemberId rdkafka-x2, member metadata count 0: (no error)"}]
    ev = _events([json.dumps(r) for r in recs])
    assert (ev[1].kind, ev[1].group_id, ev[1].client_library, ev[1].extra["to_state"], ev[1].ts_ms) == (
        "member_state_changed", "ledger-py", "librdkafka", "wait-join", T)
    assert (ev[2].kind, ev[2].generation, ev[2].member_id, ev[2].error, ev[2].ts_ms) == (
        "join_succeeded", 9, "rdkafka-x2", None, T + 44)


def test_node_rdkafka_event_log_objects_still_read_from_their_fields() -> None:
    # the facility in a field of its own: the line is read whole, not only its message
    line = json.dumps({"severity": 7, "fac": "CGRPSTATE", "name": "rdkafka#consumer-1",
                       "message": '[thrd:main]: Group "ledger-js" changed state init -> query-coord (join-state init)'})
    ev = _events([line])[1]
    assert (ev.kind, ev.group_id, ev.extra["facility"]) == ("member_state_changed", "ledger-js", "CGRPSTATE")


def test_kafkajs_json_line_inside_docker_json_file() -> None:
    js = {"level": "INFO", "timestamp": "2024-06-01T10:00:00.456Z", "logger": "kafkajs",
          "message": "[ConsumerGroup] Consumer has joined the group", "groupId": "ledger-js", "memberId": "ledger-js-1-aa",
          "leaderId": "ledger-js-1-aa", "isLeader": True, "memberAssignment": {"ledger": [0, 3]},
          "groupProtocol": "RoundRobinAssigner", "duration": 812}
    line = json.dumps({"log": json.dumps(js) + "\n", "stream": "stdout", "time": "2024-06-01T10:00:00.470123Z"})
    ev = _events([line])[1]
    assert (ev.kind, ev.group_id, ev.member_id, ev.client_library, ev.ts_ms) == (
        "join_succeeded", "ledger-js", "ledger-js-1-aa", "kafkajs", T)
    assert sorted(ev.partitions) == ["ledger-0", "ledger-3"]


# --- list-wrapper response documents -------------------------------------------------------------

def test_filter_log_events_document_each_event_a_record() -> None:
    doc = {"events": [{"logStreamName": "ecs/ledger/1f2e", "timestamp": T, "message": f"10:00:00.456 [c-1] INFO  {CC} - {JOIN}",
                       "ingestionTime": T + 900, "eventId": "3811"},
                      {"logStreamName": "ecs/ledger/1f2e", "timestamp": T + 20, "message": f"10:00:00.476 [c-1] INFO  {CC} - {SYNC}",
                       "ingestionTime": T + 910, "eventId": "3812"}],
           "searchedLogStreams": []}
    lines = json.dumps(doc, indent=4).split("\n")
    ev = _events(lines)
    opens = [n for n, t in enumerate(lines, 1) if t.strip() == "{"][1:]
    assert sorted(ev) == opens  # one event per element, on its "{" line; none on the document's
    _join_ok(ev[opens[0]], T)
    assert (ev[opens[1]].kind, ev[opens[1]].ts_ms) == ("sync_succeeded", T + 20)


def test_datadog_logs_api_data_document() -> None:
    doc = {"data": [{"attributes": {"attributes": {"logger": {"name": CC}, "level": "INFO"}, "host": "i-0ab",
                                    "message": JOIN, "service": "ledger", "status": "info",
                                    "timestamp": "2024-06-01T10:00:00.456Z"}, "id": "AQAA1", "type": "log"}],
           "links": {"next": "https://api.datadoghq.com/api/v2/logs/events?page[cursor]=x"}}
    lines = json.dumps(doc, indent=2).split("\n")
    ev = _events(lines)
    assert list(ev) == [3]
    _join_ok(ev[3], T)


def test_a_record_whose_first_field_is_not_a_list_is_still_one_record() -> None:
    rec = {"@timestamp": "2024-06-01T10:00:00.456Z", "tags": ["a"], "message": JOIN, "log.logger": CC}
    lines = json.dumps(rec, indent=2).split("\n")
    ev = _events(lines)
    assert list(ev) == [1]
    _join_ok(ev[1], T)


# --- CRI partial lines -----------------------------------------------------------------------------

def test_cri_partial_lines_are_one_line() -> None:
    parts = [f"ledger-{i}" for i in range(900)]
    text = f"2024-06-01 10:00:00,456 INFO  [c-1] {CC} - " + P + "Notifying assignor about the new Assignment(partitions=[" \
        + ", ".join(parts) + "])"
    cut = [text[i:i + 4096] for i in range(0, len(text), 4096)]
    lines = [f"2024-06-01T10:00:00.4601{i:02d}Z stdout {'P' if i < len(cut) - 1 else 'F'} {c}" for i, c in enumerate(cut)]
    lines.append(f"2024-06-01T10:00:00.470000Z stdout F 2024-06-01 10:00:00,470 INFO  [c-1] {CC} - " + SYNC)
    outs = _outs(lines)
    ev = outs[1].event
    # the application's own time (.456), not the runtime's (.460): the CRI prefix is a timed wrapper
    assert (ev.kind, ev.group_id, list(ev.partitions), ev.ts_ms) == ("partitions_assigned", "ledger", parts, T)
    assert all(outs[n].status == "ignored" for n in range(2, len(cut) + 1))
    assert (outs[len(cut) + 1].event.kind, outs[len(cut) + 1].event.ts_ms) == ("sync_succeeded", T + 14)


def test_cri_partial_line_of_another_stream_is_not_joined() -> None:
    lines = [f"2024-06-01T10:00:00.456Z stdout P 2024-06-01 10:00:00,456 INFO  [c-1] {CC} - {JOIN}",
             "2024-06-01T10:00:00.457Z stderr F WARN something else entirely",
             f"2024-06-01T10:00:00.458Z stdout F 2024-06-01 10:00:00,458 INFO  [c-1] {CC} - {SYNC}"]
    ev = _events(lines)
    _join_ok(ev[1], T)
    assert (ev[3].kind, ev[3].ts_ms) == ("sync_succeeded", T + 2)


# --- block records ---------------------------------------------------------------------------------

def _gcloud_entry(payload: list[str], ts: str) -> list[str]:
    return ["---", "insertId: 1a2b3c", "labels:", "  k8s-pod/app: ledger", "logName: projects/p/logs/stdout",
            "receiveTimestamp: '2024-06-01T10:00:01.901Z'", "resource:", "  labels:", "    pod_name: ledger-0",
            "  type: k8s_container", "severity: INFO", *payload, f"timestamp: '{ts}'"]


def test_gcloud_yaml_text_payload_takes_its_entrys_timestamp() -> None:
    lines = _gcloud_entry(["textPayload: '" + JOIN.replace("'", "''") + "'"], "2024-06-01T10:00:00.456789Z") \
        + _gcloud_entry(['textPayload: "' + SYNC.replace('"', '\\"') + '"'], "2024-06-01T10:00:00.500Z")
    ev = _events(lines)
    assert sorted(ev) == [12, 25]
    _join_ok(ev[12], T)  # the '' of YAML's single quotes is one quote: memberId='...'
    assert (ev[25].kind, ev[25].generation, ev[25].ts_ms) == ("sync_succeeded", 41, T + 44)


def test_gcloud_yaml_json_payload_message() -> None:
    payload = ["jsonPayload:", f"  logger_name: {CC}", "  message: '" + JOIN.replace("'", "''") + "'", "  thread_name: c-1"]
    ev = _events(_gcloud_entry(payload, "2024-06-01T10:00:00.456Z"))
    assert list(ev) == [14]
    _join_ok(ev[14], T)


def test_journalctl_verbose_message_takes_the_header_time() -> None:
    lines = []
    for us, msg in ((456123, JOIN), (500000, SYNC)):
        lines += [f"Sat 2024-06-01 12:00:00.{us:06d} CEST [s=4c2a;i=1f;b=7e2d;m=3f1c;t=61a;x=9d8e]",
                  "    _TRANSPORT=stdout", "    PRIORITY=6", "    SYSLOG_IDENTIFIER=java",
                  f"    MESSAGE=INFO  {CC} - {msg}", "    _PID=2214", "    _HOSTNAME=ledger-host"]
    ev = _events(lines)
    assert sorted(ev) == [5, 12]
    _join_ok(ev[5], T)
    assert (ev[12].kind, ev[12].ts_ms) == ("sync_succeeded", T + 44)


def test_otel_debug_exporter_body_takes_the_records_timestamp() -> None:
    lines = ["ResourceLog #0", "Resource SchemaURL: https://opentelemetry.io/schemas/1.24.0", "Resource attributes:",
             "     -> service.name: Str(ledger)", "ScopeLogs #0", "ScopeLogs SchemaURL: ", f"InstrumentationScope {CC} ",
             "LogRecord #0", "ObservedTimestamp: 2024-06-01 10:00:00.9 +0000 UTC",
             "Timestamp: 2024-06-01 10:00:00.456 +0000 UTC", "SeverityText: INFO", "SeverityNumber: Info(9)",
             f"Body: Str({JOIN})", "Attributes:", "     -> thread.name: Str(c-1)", "Trace ID: ", "Span ID: ", "Flags: 0",
             "LogRecord #1", "ObservedTimestamp: 2024-06-01 12:00:00.5 +0200 CEST",
             "Timestamp: 1970-01-01 00:00:00 +0000 UTC", "SeverityText: INFO", f"Body: Str({SYNC})"]
    outs = _outs(lines)
    ev = {n: o.event for n, o in outs.items() if o.event is not None}
    assert sorted(ev) == [13, 23]  # nothing from the exporter's frame lines (the scope names a logger)
    assert all(o.status != "unparsed" for o in outs.values())
    _join_ok(ev[13], T)
    assert (ev[23].kind, ev[23].ts_ms) == ("sync_succeeded", T + 44)  # no Timestamp: the observed one


def test_a_file_of_yaml_without_log_entries_is_untouched() -> None:
    lines = ["---", "apiVersion: v1", "kind: ConfigMap", "data:", "  note: '" + JOIN.replace("'", "''") + "'"]
    ev = _events(lines)
    assert all(e.ts_ms is None for e in ev.values())


def test_logstash_json_line_inside_docker_json_file_keeps_its_own_time() -> None:
    # docker json-file {"log", "stream", "time"}: `time` is when dockerd read the line, after the
    # application's @timestamp; the line's own fields and time are the record's
    inner = {"@timestamp": "2024-06-01T12:00:00.456+02:00", "@version": "1", "message": JOIN, "logger_name": CC,
             "thread_name": "c-1", "level": "INFO", "level_value": 20000}
    line = json.dumps({"log": json.dumps(inner) + "\n", "stream": "stdout", "time": "2024-06-01T10:00:00.491834Z"})
    ev = _events([line])[1]
    _join_ok(ev, T)
    assert (ev.extra["logger"], ev.extra["thread"]) == (CC, "c-1")


def test_gcloud_yaml_first_entry_without_its_separator() -> None:
    # a YAML stream's first `---` is optional: the first entry is a document too
    lines = _gcloud_entry(["textPayload: '" + JOIN.replace("'", "''") + "'"], "2024-06-01T10:00:00.456Z")[1:] \
        + _gcloud_entry(["textPayload: '" + SYNC.replace("'", "''") + "'"], "2024-06-01T10:00:00.500Z")
    ev = _events(lines)
    assert sorted(ev) == [11, 24]
    _join_ok(ev[11], T)
    assert ev[24].ts_ms == T + 44
