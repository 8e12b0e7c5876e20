"""Session 15 (branch redteam): shapes real logs have that the first corpus lacked, each a general
mechanism with its source (the excerpts are tests/parsers/corpus/, built by _make_excerpts.py):

- terminal colour codes (ECMA-48 CSI: logback %highlight, Spring Boot %clr, Log4j 2 %style, stern)
  are taken off before the layout, on the sniffed head (wrapper `ansi`) and on any later line;
- a year-less collector time (syslog RFC 3164 `<14>Mar  1 10:00:00 host app[812]: `) followed by the
  application's own complete time gives the complete one;
- JSON time objects `{seconds, nanos}` and the pair `timestampSeconds`/`timestampNanos` (Google Cloud
  Logging structured logging, Spring Cloud GCP StackdriverJsonLayout);
- GELF 1.1 (Log4j 2 GelfLayout / GelfLayout.json): `short_message`, `_logger`, `_thread`, `level` a
  syslog severity code (also journald's PRIORITY);
- a record printed as a Ruby-style hash (Fluent Bit's stdout output: `[0] tag: [ts, {"log"=>"..."}]`);
- an indented line whose text starts with a date-time is a record of its own (`cf logs`), while
  indented stack frames and TAB lines still continue the record above.
Each test asserts the facts both ways (what the line says, and nothing taken from the wrapper)."""

from __future__ import annotations

import json

from parsers import layouts
from parsers.reader import parse_lines
from parsers.timestamps import find_ts

P = "[Consumer clientId=consumer-orders-1, groupId=orders] "
JOIN = P + ("Successfully joined group with generation Generation{generationId=7, memberId='consumer-orders-1-3b6f', "
            "protocol='range'}")
ASSIGN = P + "Adding newly assigned partitions: orders-0, orders-1"
T0 = 1709287200123  # 2024-03-01T10:00:00.123Z


def _events(lines: list[str]):
    out = list(parse_lines("f", list(enumerate(lines, 1))))
    return {o.line_no: o for o in out}


def _ev(lines: list[str], no: int = 1):
    o = _events(lines)[no]
    assert o.status == "parsed" and o.event is not None, (o.status, o.why)
    return o.event


# --- colour codes ----------------------------------------------------------------------------------

SPRING_ANSI = ("\x1b[2m2024-03-01T10:00:00.123Z\x1b[0;39m \x1b[32m INFO\x1b[0;39m \x1b[35m4242\x1b[0;39m "
               "\x1b[2m---\x1b[0;39m \x1b[2m[orders] [ntainer#0-0-C-1]\x1b[0;39m "
               "\x1b[36mo.a.k.c.c.i.AbstractCoordinator         \x1b[0;39m \x1b[2m:\x1b[0;39m " + JOIN)


def test_spring_boot_colour_line_reads_as_spring_boot() -> None:
    assert "ansi" in layouts.detect_wrappers([SPRING_ANSI])
    assert layouts.detect_layout([SPRING_ANSI])[0] == "spring_boot"
    ev = _ev([SPRING_ANSI])
    assert (ev.kind, ev.group_id, ev.member_id, ev.generation, ev.ts_ms) == (
        "join_succeeded", "orders", "consumer-orders-1-3b6f", 7, T0)
    assert ev.extra["level"] == "INFO" and ev.extra["logger"] == "o.a.k.c.c.i.AbstractCoordinator"
    assert "\x1b" in ev.raw  # the line as written is kept
    assert not any("\x1b" in str(v) for v in (ev.group_id, ev.member_id, ev.extra.get("thread")))


def test_colour_codes_after_the_sniffed_head_are_taken_off_too() -> None:
    plain = [f"[2024-03-01 10:00:{i % 60:02d},000] INFO Kafka version: 3.7.0 "
             "(org.apache.kafka.common.utils.AppInfoParser)" for i in range(250)]
    colour = ("[2024-03-01 10:05:00,123] \x1b[1;31mERROR\x1b[0;39m \x1b[36m" + ASSIGN + "\x1b[0;39m "
              "(org.apache.kafka.clients.consumer.internals.ConsumerRebalanceListenerInvoker)")
    assert layouts.detect_wrappers(plain[:200]) == ()
    ev = _ev([*plain, colour], 251)
    assert (ev.kind, ev.group_id, ev.partitions) == ("partitions_assigned", "orders", ("orders-0", "orders-1"))
    assert ev.extra["level"] == "ERROR"


def test_control_characters_that_are_not_colour_codes_are_still_rejected() -> None:
    junk = "\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f" + ASSIGN
    o = _events([junk])[1]
    assert o.event is None or o.status != "parsed"
    assert "control characters" in (o.why or "")


# --- a collector's year-less time before the application's own -------------------------------------

def test_syslog_prefix_before_a_complete_time_gives_the_complete_time() -> None:
    text = "<14>Mar  1 10:00:00 orders-0 orders[812]: 2024-03-01 10:00:00,123 INFO  [main] x - "
    ft = find_ts(text)
    assert ft is not None and ft[0] == T0 and ft[3] == ""
    assert text[ft[1]:ft[2]] == "2024-03-01 10:00:00,123"
    line = "<14>Mar  1 10:00:00 orders-0 orders[812]: 2024-03-01 10:00:00,123 INFO  [main] o.a.k.c.c.i.AbstractCoordinator - " + JOIN
    ev = _ev([line])
    assert (ev.kind, ev.ts_ms, ev.generation) == ("join_succeeded", T0, 7)


def test_a_year_less_time_alone_still_waits_for_a_neighbour() -> None:
    ft = find_ts("Mar  1 10:00:00 kafka-0 kafka[812]: INFO msg")
    assert ft is not None and ft[0] is None and ft[3] == "pending"
    ft = find_ts("Mar  1 10:00:00 kafka-0 kafka[812]: INFO msg", T0 + 3_600_000)
    assert ft is not None and ft[0] == T0 - 123 and ft[3] == "year"
    # a time of day followed by no date-time keeps its completion from the neighbour
    ft = find_ts("10:00:00.123 [main] INFO x", T0)
    assert ft is not None and ft[0] == T0 and ft[3] == "date"


# --- JSON time objects and GELF ----------------------------------------------------------------------

def test_google_cloud_timestamp_object_and_seconds_nanos_pair() -> None:
    obj = {"severity": "INFO", "message": JOIN, "timestamp": {"seconds": 1709287200, "nanos": 123456789}}
    pair = {"timestampSeconds": 1709287200, "timestampNanos": 123000000, "severity": "WARNING", "thread": "main",
            "logger": "org.apache.kafka.clients.consumer.internals.AbstractCoordinator", "message": JOIN}
    for line in (json.dumps(obj), json.dumps(pair)):
        sp = layouts.split_json(line)
        assert sp is not None and sp.ts_ms == T0
        ev = _ev([line])
        assert (ev.kind, ev.ts_ms, ev.member_id) == ("join_succeeded", T0, "consumer-orders-1-3b6f")
    # no time in them: none, and the line is still read
    bad = json.dumps({"message": JOIN, "timestamp": {"seconds": "x"}})
    assert layouts.split_json(bad).ts_ms is None
    assert _ev([bad]).ts_ms is None


def test_gelf_fields() -> None:
    line = json.dumps({"version": "1.1", "host": "orders-0", "short_message": ASSIGN, "timestamp": 1709287200.123,
                       "level": 4, "_logger": "org.apache.kafka.clients.consumer.internals.ConsumerRebalanceListenerInvoker",
                       "_thread": "kafka-coordinator-heartbeat-thread | orders"})
    sp = layouts.split_json(line)
    assert sp is not None and sp.message == ASSIGN and sp.level == "WARN" and sp.ts_ms == T0
    assert sp.logger.endswith("ConsumerRebalanceListenerInvoker") and sp.thread.startswith("kafka-coordinator")
    ev = _ev([line])
    assert (ev.kind, ev.partitions, ev.ts_ms, ev.extra["level"]) == (
        "partitions_assigned", ("orders-0", "orders-1"), T0, "WARN")


def test_syslog_severity_codes_and_other_levels() -> None:
    assert [layouts.json_level(i) for i in range(8)] == ["FATAL", "FATAL", "FATAL", "ERROR", "WARN", "NOTICE",
                                                         "INFO", "DEBUG"]
    assert layouts.json_level("6") == "INFO"  # journald PRIORITY is a string
    assert layouts.json_level("info") == "INFO" and layouts.json_level(30) == "30"  # pino's numbers stay
    assert layouts.json_level(True) is None and layouts.json_level(None) is None


# --- Fluent Bit's stdout records ----------------------------------------------------------------------

def test_fluent_bit_stdout_record() -> None:
    inner = ("[2024-03-01 10:00:00,123] INFO " + P + "Revoking previously assigned partitions [orders-0, orders-1] "
             "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)")
    for line in (f'[0] kube.var.log.containers.orders_default_app-0a1b.log: [1709287200.122999907, {{"log"=>"{inner}", "stream"=>"stdout"}}]',
                 f'[0] kube.app: [[1709287200.122999907, {{}}], {{"stream"=>"stdout", "log"=>"{inner}"}}]'):
        ev = _ev([line])
        assert (ev.kind, ev.group_id, ev.partitions, ev.ts_ms) == (
            "partitions_revoked", "orders", ("orders-0", "orders-1"), T0)
        assert ev.extra["logger"] == "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"


# --- indented records ------------------------------------------------------------------------------

def test_indented_line_starting_with_a_date_is_a_record_and_frames_continue() -> None:
    assert not layouts.is_continuation("   2024-03-01T11:00:00.12+0100 [APP/PROC/WEB/0] OUT x")
    assert not layouts.is_continuation("  [2024-03-01 10:00:00,123] INFO x")
    assert layouts.is_continuation("\tat org.apache.kafka.clients.consumer.KafkaConsumer.poll(KafkaConsumer.java:1)")
    assert layouts.is_continuation("\tAssigned partitions:                       [orders-0]")
    assert layouts.is_continuation("    at java.base/java.lang.Thread.run(Thread.java:1583)")
    cf = "   {} [APP/PROC/WEB/0] OUT 2024-03-01T10:00:0{}.123Z  INFO 7 --- [orders] [ntainer#0-0-C-1] {:<40} : {}"
    lines = [cf.format("2024-03-01T11:00:00.12+0100", 0, "o.a.k.c.c.i.AbstractCoordinator", JOIN),
             cf.format("2024-03-01T11:00:01.12+0100", 1, "o.a.k.c.c.i.ConsumerRebalanceListenerInvoker", ASSIGN)]
    evs = _events(lines)
    assert evs[1].event.kind == "join_succeeded" and evs[2].event is not None
    assert evs[2].event.kind == "partitions_assigned" and evs[2].event.ts_ms == T0 + 1000 - 3


# --- "(logger) [thread]" (Strimzi) ---------------------------------------------------------------------

def test_thread_after_a_logger_suffix_even_when_it_looks_like_a_partition() -> None:
    from parsers.anchors import split_suffix

    msg, tail = split_suffix(P + "(Re-)joining group (org.apache.kafka.clients.consumer.internals.AbstractCoordinator)"
                             " [task-thread-orders-sink-0]")
    assert msg == P + "(Re-)joining group"
    assert tail == {"thread": "task-thread-orders-sink-0",
                    "logger": "org.apache.kafka.clients.consumer.internals.AbstractCoordinator"}
    # Kafka's own list at the end stays the message's
    msg, tail = split_suffix(P + "Revoking previously assigned partitions [orders-0]")
    assert msg.endswith("[orders-0]") and "thread" not in tail
    line = ("2024-03-01 10:00:00,123 INFO [orders-sink|task-0] " + ASSIGN.replace("orders-1", "orders-2")
            + " (org.apache.kafka.clients.consumer.internals.ConsumerRebalanceListenerInvoker) [task-thread-orders-sink-0]")
    ev = _ev([line])
    assert (ev.partitions, ev.ts_ms) == (("orders-0", "orders-2"), T0)


# --- encodings, dates ------------------------------------------------------------------------------------

def test_utf16_file_with_bom_is_read(tmp_path) -> None:
    from parsers.reader import parse_path

    text = f"2024-03-01T10:00:00.123Z  INFO 1 --- [main] o.a.k.c.c.i.AbstractCoordinator : {JOIN}\r\n"
    for enc in ("utf-16", "utf-16-be"):
        f = tmp_path / f"{enc}.log"
        f.write_bytes(("\ufeff" + text).encode(enc))
        outcomes, summary = parse_path(str(f))
        evs = [o.event for o in outcomes if o.event is not None]
        assert [(e.kind, e.ts_ms, e.generation) for e in evs] == [("join_succeeded", T0, 7)], enc
    # UTF-8 stays UTF-8 (a UTF-8 BOM included)
    f = tmp_path / "utf8.log"
    f.write_bytes(b"\xef\xbb\xbf" + text.encode())
    outcomes, _ = parse_path(str(f))
    assert [o.event.kind for o in outcomes if o.event is not None] == ["join_succeeded"]


def test_day_first_dates_zone_names_and_date_tostring() -> None:
    assert find_ts("01.03.2024 10:00:00.123 [main] INFO")[0] == T0
    assert find_ts("01-03-2024 10:00:00,123 [main] INFO")[0] == T0
    assert find_ts("2024-03-01 11:00:00.123 CET INFO")[0] == T0
    assert find_ts("2024-03-01 05:00:00.123 EST INFO")[0] == T0
    assert find_ts("Fri Mar 01 10:00:00 UTC 2024 INFO")[0] == T0 - 123
    assert find_ts("Fri Mar 01 11:00:00 CET 2024 INFO")[0] == T0 - 123
    # not read as dates or zones: mixed separators, an ambiguous zone name, a word after the time
    assert find_ts("01.03-2024 10:00:00 x")[3] == "pending"  # only the time of day
    assert find_ts("2024-03-01 10:00:00.123 CST x")[0] == T0  # CST: no zone (read as UTC)
    assert find_ts("2024-03-01 10:00:00.123 ESTABLISHED")[0] == T0


# --- pretty-printed JSON ---------------------------------------------------------------------------------

def _pretty(objs: list[dict], indent: int = 2) -> list[str]:
    return json.dumps(objs, indent=indent).split("\n")


def test_pretty_printed_json_objects_are_records() -> None:
    docs = [{"@timestamp": "2024-03-01T10:00:00.123Z", "log.level": "INFO", "message": JOIN,
             "log.logger": "org.apache.kafka.clients.consumer.internals.AbstractCoordinator"},
            {"@timestamp": "2024-03-01T10:00:01.123Z", "log.level": "WARN", "message": ASSIGN}]
    for lines in (_pretty(docs), [ln for d in docs for ln in json.dumps(d, indent=4).split("\n")]):
        evs = _events(lines)
        got = [(no, o.event.kind, o.event.ts_ms) for no, o in sorted(evs.items()) if o.event is not None]
        firsts = [i for i, ln in enumerate(lines, 1) if ln.strip() == "{"]
        assert got == [(firsts[0], "join_succeeded", T0), (firsts[1], "partitions_assigned", T0 + 1000)]
        assert evs[firsts[1]].event.extra["level"] == "WARN"
        assert len(evs) == len(lines)  # every line has its outcome


def test_a_brace_block_that_is_no_json_is_read_line_by_line() -> None:
    lines = ["{", "  not json, but: " + ASSIGN, "}", "2024-03-01 10:00:00.123 [main] INFO  o.a.k.c.c.i.X - " + JOIN]
    evs = _events(lines)
    assert evs[4].event is not None and evs[4].event.kind == "join_succeeded"
    assert len(evs) == 4
    # an object left open at the end of the input: its lines still get outcomes
    evs = _events(["{", '  "message": "' + ASSIGN + '",'])
    assert sorted(evs) == [1, 2]


def test_pretty_json_reads_the_same_through_the_candidate_filter() -> None:
    from parsers.reader import prefilter, sniff

    docs = [{"@timestamp": "2024-03-01T10:00:00.123Z", "count": 5, "message": JOIN},
            {"@timestamp": "2024-03-01T10:00:01.123Z", "message": ASSIGN}]
    lines = list(enumerate(_pretty(docs), 1))
    fmt = sniff([t for _, t in lines])
    full = {o.line_no: o.event for o in parse_lines("f", lines, fmt) if o.event is not None}
    kept = {o.line_no: o.event for o in parse_lines("f", prefilter(lines), fmt) if o.event is not None}
    assert kept == full and len(full) == 2


def test_json_documents_are_no_records() -> None:
    """A pretty-printed object without a message field (a report, a config, an expectations file)
    gives no event, and neither do its nested objects; one too long to collect is read line by
    line without collecting the objects inside it."""
    doc = {"scenario": "x", "expect": [{"kind": "join_succeeded", "group_id": "orders", "note": JOIN}]}
    lines = _pretty([doc])
    evs = _events(lines)
    assert len(evs) == len(lines) and all(o.event is None for o in evs.values())
    big = {"title": "t", "rows": [{"message": ASSIGN, "n": i} for i in range(200)]}
    lines = json.dumps(big, indent=1).split("\n")
    assert len(lines) > 400
    evs = _events(lines)
    assert len(evs) == len(lines)
    assert all(o.event is None or o.status != "parsed" or o.event.kind == "partitions_assigned" for o in evs.values())
    assert sum(1 for o in evs.values() if o.event is not None and o.status == "parsed") <= 1


def test_a_rejected_line_inside_a_collected_json_object_keeps_the_outcomes_in_line_order():
    # (found by test_mutated_lines: a control character in a line of a pretty-printed object made its
    # reject come before the lines collected above it)
    from parsers.reader import parse_lines, sniff

    head = [f'{{"@timestamp":"2024-03-01T10:00:0{i}.000Z","level":"INFO","logger_name":"app","message":"started {i}"}}'
            for i in range(3)]
    lines = [*head, "{", '  "@timestamp": "2024-03-01T10:00:05.000Z",', "\x1f  ],", '  "message": "x"', "}", head[0]]
    fmt = sniff(lines, "obj.json")
    assert fmt.layout == "json"
    outcomes = list(parse_lines("obj.json", list(enumerate(lines, 1)), fmt))
    assert [o.line_no for o in outcomes] == list(range(1, 10))
    assert (outcomes[5].status, outcomes[5].why) == ("unparsed", "garbage line (1 control characters)")
