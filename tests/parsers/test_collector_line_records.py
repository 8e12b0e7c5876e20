"""A multi-line record (a `ConsumerConfig values:` dump, a stack trace) that a collector stored one
record per line: Docker's json-file driver and Fluent Bit/Fluentd without a multiline parser
(`{"log": "<line>\\n", ...}`), journald (`journalctl -o json`: `MESSAGE`, `__REALTIME_TIMESTAMP` in
microseconds), Google Cloud Logging (`textPayload`), and stern's `POD CONTAINER ` prefix before every
line. The record's continuation lines are read as part of it, as in the plain file, when they come
from the same origin; a continuation of another origin never joins it. Before (08f6a61) the settings
were lost (no `client_config` event or no settings in it), so a member's printed session.timeout.ms
read as Kafka's default."""

from __future__ import annotations

import json

from parsers.reader import parse_lines

SETTINGS = {"group.id": "ledger", "session.timeout.ms": "10000", "max.poll.interval.ms": "120000",
            "heartbeat.interval.ms": "3000", "client.id": "consumer-ledger-1"}
HEAD = "[2025-02-03 04:05:06,789] INFO ConsumerConfig values: "
TAIL = " (org.apache.kafka.clients.consumer.ConsumerConfig)"
JOINED = ("[2025-02-03 04:05:07,100] INFO [Consumer clientId=consumer-ledger-1, groupId=ledger] (Re-)joining group "
          "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)")
T0 = 1738555506789   # 2025-02-03T04:05:06.789Z


def dump() -> list[str]:
    """AbstractConfig.logAll's lines: the header, one `\\tname = value` per setting in name order, then
    log4j's `(%c)` suffix on a line of its own."""
    return [HEAD, *(f"\t{k} = {v}" for k, v in sorted(SETTINGS.items())), TAIL, JOINED]


def events(lines: list[str]):
    outs = list(parse_lines("pods.log", enumerate(lines, 1)))
    assert len(outs) == len(lines)      # every line accounted for
    return outs, [o.event for o in outs if o.event is not None]


def docker(line: str, pod: str | None = None, ms: int = T0) -> str:
    rec = {"log": line + "\n", "stream": "stdout", "time": f"2025-02-03T04:05:{ms // 1000 % 60:02d}.{ms % 1000:03d}Z"}
    if pod:
        rec["kubernetes"] = {"pod_name": pod, "namespace_name": "prod", "container_name": "app"}
    return json.dumps(rec)


def journald(line: str, host: str, pid: int) -> str:
    return json.dumps({"__REALTIME_TIMESTAMP": str(T0 * 1000), "_HOSTNAME": host, "_PID": str(pid),
                       "SYSLOG_IDENTIFIER": "java", "MESSAGE": line})


def cloud_logging(line: str) -> str:
    return json.dumps({"textPayload": line, "timestamp": "2025-02-03T04:05:06.789123Z",
                       "resource": {"type": "k8s_container", "labels": {"pod_name": "ledger-0", "container_name": "app"}}})


def assert_one_config(evs, origin=None):
    configs = [e for e in evs if e.kind == "client_config"]
    assert len(configs) == 1, [e.kind for e in evs]
    c = configs[0]
    assert c.line_no == 1 and c.ts_ms == T0
    assert {k: c.extra["settings"][k] for k in SETTINGS} == SETTINGS
    assert c.extra.get("origin") == origin
    joins = [e for e in evs if e.kind == "join_started"]
    assert [(j.line_no, j.client_id, j.group_id) for j in joins] == [(len(SETTINGS) + 3, "consumer-ledger-1", "ledger")]
    return c


def test_docker_json_file_records_of_one_line_each():
    outs, evs = events([docker(x) for x in dump()])
    assert_one_config(evs)
    # the settings' lines are part of the record, not lines ignored on their own
    assert all(o.status != "ignored" for o in outs[1:len(SETTINGS) + 2]), [o.status for o in outs]


def test_fluent_bit_records_with_kubernetes_metadata():
    _outs, evs = events([docker(x, pod="ledger-7d9f8c6b5-x2x4q") for x in dump()])
    assert_one_config(evs, origin="pod/prod/ledger-7d9f8c6b5-x2x4q/app")


def test_journald_records_keep_their_time_and_host():
    _outs, evs = events([journald(x, "ledger-1", 4242) for x in dump()])
    assert_one_config(evs, origin="host:ledger-1/pid:4242")


def test_cloud_logging_text_payload_records():
    _outs, evs = events([cloud_logging(x) for x in dump()])
    c = assert_one_config(evs, origin=next(e.extra.get("origin") for e in evs if e.kind == "client_config"))
    assert c.extra.get("origin")       # the pod is named


def test_a_continuation_of_another_origin_never_joins_the_record():
    """Another host's indented line right after the dump is not one of its settings. (A block whose
    lines interleave with another origin's inside it keeps its settings: each origin's record waits
    for its own lines, tests/parsers/test_interleaved_origins.py.)"""
    lines = dump()
    other = journald("\tsession.timeout.ms = 99999", "ledger-2", 777)
    mixed = [*(journald(x, "ledger-1", 4242) for x in lines[:-1]), other, journald(lines[-1], "ledger-1", 4242)]
    outs, evs = events(mixed)
    configs = [e for e in evs if e.kind == "client_config"]
    assert len(configs) == 1 and configs[0].extra["settings"]["session.timeout.ms"] == "10000"
    assert configs[0].extra["origin"] == "host:ledger-1/pid:4242"
    assert "99999" not in configs[0].raw
    assert outs[len(SETTINGS) + 2].event is None       # the other host's line: no event of its own


def test_stern_prefixed_settings_lines_keep_their_tab():
    lines = [f"ledger-7d9f8c6b5-x2x4q app {x}" for x in dump()]
    _outs, evs = events(lines)
    c = assert_one_config(evs, origin="pod/ledger-7d9f8c6b5-x2x4q/app")
    assert c.raw.splitlines()[0] == lines[0]


def test_journalctl_short_and_rfc5424_headers_before_each_line():
    """`journalctl -u app` (RFC 3164 short: "Mmm dd hh:mm:ss HOST APP[PID]: ") and RFC 5424 records
    ("<PRI>1 TIMESTAMP HOST APP PROCID MSGID SD "): the header is a wrapper of the whole file when the
    line inside has its own dated layout, so the dump's TAB lines continue its header line."""
    short = [f"Feb  3 04:05:06 ledger-1 java[4242]: {x}" for x in dump()]
    _outs, evs = events(short)
    assert_one_config(evs, origin="host:ledger-1/pid:4242")
    rfc5424 = [f"<14>1 2025-02-03T04:05:06.789Z ledger-1 java 4242 - - {x}" for x in dump()]
    _outs, evs = events(rfc5424)
    assert_one_config(evs, origin="host:ledger-1/pid:4242")
    structured = [f'<14>1 2025-02-03T04:05:06.789Z ledger-1 java 4242 ID47 [exampleSDID@32473 iut="3"] {x}'
                  for x in dump()]
    _outs, evs = events(structured)
    assert_one_config(evs, origin="host:ledger-1/pid:4242")


def test_a_syslog_header_over_undated_lines_keeps_its_own_time():
    """Lines with no time of their own ("INFO [Consumer ...] ..."): the header is not stripped as a
    file wrapper (its time is the only one), the anchors read each line with the header's time."""
    lines = ["Feb  3 04:05:07 ledger-1 java[4242]: INFO [Consumer clientId=consumer-ledger-1, groupId=ledger] "
             "(Re-)joining group"] * 3
    _outs, evs = events(lines)
    assert [e.kind for e in evs] == ["join_started"] * 3
    # (a short header has no year: its time of day is kept, no time is made up; a guard, as on 08f6a61)
    assert all(e.extra.get("time_of_day") == "Feb  3 04:05:07" and e.extra.get("origin") == "host:ledger-1/pid:4242"
               for e in evs)
