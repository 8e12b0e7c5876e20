"""Each line's origin (`Event.extra["origin"]`, parsers/origin.py) where a file holds several
processes' lines: `kubectl logs --prefix`, stern, `docker compose logs`, collectors' JSON records
(Fluent Bit / Fluentd kubernetes metadata, Filebeat, Vector, Google Cloud, stern --output json,
docker's fluentd driver), journald exports, syslog headers (RFC 3164, RFC 5424, journalctl short),
Spring Boot's PID, JSON layouts' host/pid fields. Both ways: each shape's origin is read right for two
origins in one file (and the event is the same as the bare line's), and a line of the same layout
without an origin gets none. Before (main at a8acb3f) no line carried an origin: kubectl's prefix was
read as the line's thread, the others were dropped."""

from __future__ import annotations

import json

import pytest

from parsers import layouts
from parsers.reader import parse_lines

P = "[Consumer clientId=consumer-orders-1, groupId=orders] "
JOIN = P + ("Successfully joined group with generation Generation{generationId=7, memberId='consumer-orders-1-3b6f', "
            "protocol='range'}")
ASSIGN = P + "Adding newly assigned partitions: orders-0, orders-1"
T0 = 1709287200123  # 2024-03-01T10:00:00.123Z
LOGGER = "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"
LOG4J = "[2024-03-01 10:00:00,123] INFO " + JOIN + " (" + LOGGER + ")"
LOG4J_2 = "[2024-03-01 10:00:00,123] INFO " + ASSIGN + " (" + LOGGER + ")"
LOGBACK = "2024-03-01 10:00:00.123 [main] INFO  o.a.k.c.c.i.ConsumerCoordinator - " + JOIN
LOGBACK_2 = "2024-03-01 10:00:00.123 [main] INFO  o.a.k.c.c.i.ConsumerCoordinator - " + ASSIGN


def _events(lines: list[str]) -> list:
    return [o.event for o in parse_lines("f", list(enumerate(lines, 1))) if o.event is not None]


def _origins(lines: list[str]) -> list:
    evs = _events(lines)
    assert [e.kind for e in evs] == ["join_succeeded"] * 2 + ["partitions_assigned"] * 2, [e.kind for e in evs]
    assert all(e.ts_ms == T0 for e in evs) and all(e.group_id == "orders" for e in evs)
    return [e.extra.get("origin") for e in evs]


def _four(shape) -> list:
    """Two processes' lines in one file, interleaved: 0's join, 1's join, 0's assignment, 1's."""
    return [shape(0, JOIN), shape(1, JOIN), shape(0, ASSIGN), shape(1, ASSIGN)]


CASES = {
    # kubectl pkg/cmd/logs/logs.go addPrefixIfNeeded: "[pod/<name>/<container>] "
    "kubectl --prefix": (
        lambda i, m: f"[pod/orders-7d9f8-{'ab'[i]}x2x4/app] [2024-03-01 10:00:00,123] INFO {m} ({LOGGER})",
        ["pod/orders-7d9f8-ax2x4/app", "pod/orders-7d9f8-bx2x4/app"]),
    "kubectl --prefix --timestamps": (
        lambda i, m: f"[pod/orders-{i}/app] 2024-03-01T10:00:00.123456789Z 2024-03-01 10:00:00.123 [main] INFO  "
                     f"o.a.k.c.c.i.ConsumerCoordinator - {m}",
        ["pod/orders-0/app", "pod/orders-1/app"]),
    # stern cmd/cmd.go generateTemplate: "<pod> <container> <message>", namespace first with several
    "stern": (lambda i, m: f"orders-{i} app 2024-03-01 10:00:00.123 [main] INFO  o.a.k.c.c.i.ConsumerCoordinator - {m}",
              ["pod/orders-0/app", "pod/orders-1/app"]),
    "stern coloured, namespaces": (
        lambda i, m: f"\x1b[3{i + 1}mprod\x1b[0m \x1b[3{i + 1}morders-{i}\x1b[0m \x1b[9{i + 1}mapp\x1b[0m "
                     f"[2024-03-01 10:00:00,123] INFO {m} ({LOGGER})",
        ["pod/prod/orders-0/app", "pod/prod/orders-1/app"]),
    # docker/compose cmd/formatter/logs.go setPrefix: "%-<longest + 1>s | "
    "docker compose": (lambda i, m: f"{['orders-1', 'orders-10'][i]:<10} | [2024-03-01 10:00:00,123] INFO {m} ({LOGGER})",
                       ["compose:orders-1", "compose:orders-10"]),
    # Fluent Bit kubernetes filter, JSON lines output
    "Fluent Bit kubernetes": (
        lambda i, m: json.dumps({"date": 1709287200.123, "log": f"[2024-03-01 10:00:00,123] INFO {m} ({LOGGER})\n",
                                 "stream": "stdout", "time": "2024-03-01T10:00:00.123456Z",
                                 "kubernetes": {"pod_name": f"orders-{i}", "namespace_name": "prod",
                                                "container_name": "app", "host": "node-1"}}),
        ["pod/prod/orders-0/app", "pod/prod/orders-1/app"]),
    # Filebeat add_kubernetes_metadata + a logstash JSON message
    "Filebeat kubernetes": (
        lambda i, m: json.dumps({"@timestamp": "2024-03-01T10:00:00.123Z", "message": m,
                                 "log": {"logger": LOGGER, "level": "INFO"},
                                 "kubernetes": {"pod": {"name": f"orders-{i}"}, "namespace": "prod",
                                                "container": {"name": "app"}}}),
        ["pod/prod/orders-0/app", "pod/prod/orders-1/app"]),
    # Google Cloud Logging export, k8s_container resource
    "Cloud Logging k8s_container": (
        lambda i, m: json.dumps({"jsonPayload": {"message": m, "logger": LOGGER}, "severity": "INFO",
                                 "timestamp": "2024-03-01T10:00:00.123Z",
                                 "resource": {"type": "k8s_container",
                                              "labels": {"pod_name": f"orders-{i}", "namespace_name": "prod",
                                                         "container_name": "app"}}}),
        ["pod/prod/orders-0/app", "pod/prod/orders-1/app"]),
    # stern --output json (stern/tail_utils.go Log)
    "stern json": (
        lambda i, m: json.dumps({"message": f"[2024-03-01 10:00:00,123] INFO {m} ({LOGGER})", "nodeName": "node-1",
                                 "namespace": "prod", "podName": f"orders-{i}", "containerName": "app"}),
        ["pod/prod/orders-0/app", "pod/prod/orders-1/app"]),
    # docker's fluentd logging driver record
    "docker fluentd driver": (
        lambda i, m: json.dumps({"container_id": "0a1b" * 16, "container_name": f"/orders-{i}", "source": "stdout",
                                 "log": f"[2024-03-01 10:00:00,123] INFO {m} ({LOGGER})"}),
        ["container:orders-0", "container:orders-1"]),
    # journalctl -o json (systemd.journal-fields: _HOSTNAME, _PID)
    "journald json": (
        lambda i, m: json.dumps({"__REALTIME_TIMESTAMP": "1709287200123000", "_HOSTNAME": f"orders-{i}",
                                 "_PID": str(812 + i), "SYSLOG_IDENTIFIER": "java",
                                 "MESSAGE": f"INFO {m} ({LOGGER})"}),
        ["host:orders-0/pid:812", "host:orders-1/pid:813"]),
    # RFC 3164 / rsyslog's file format: "Mmm dd hh:mm:ss HOST TAG[PID]: "
    "syslog RFC 3164": (
        lambda i, m: f"Mar  1 10:00:00 orders-{i} java[{812 + i}]: 2024-03-01 10:00:00,123 INFO  [main] "
                     f"o.a.k.c.c.i.ConsumerCoordinator - {m}",
        ["host:orders-0/pid:812", "host:orders-1/pid:813"]),
    # RFC 5424: "<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD "
    "syslog RFC 5424": (
        lambda i, m: f"<14>1 2024-03-01T10:00:00.123Z orders-{i} java {812 + i} - - INFO o.a.k.c.c.i.ConsumerCoordinator"
                     f" - {m}",
        ["host:orders-0/pid:812", "host:orders-1/pid:813"]),
    # Spring Boot DefaultLogbackConfiguration: "%d ${LOG_LEVEL_PATTERN:-%5p} ${PID:- } --- [%t] logger : %m"
    "Spring Boot 2.x": (
        lambda i, m: f"2024-03-01 10:00:00.123  INFO {4242 + i} --- [ntainer#0-0-C-1] o.a.k.c.c.i.ConsumerCoordinator"
                     f"          : {m}",
        ["pid:4242", "pid:4243"]),
    "Spring Boot 3.4": (
        lambda i, m: f"2024-03-01T10:00:00.123Z  INFO {4242 + i} --- [orders] [ntainer#0-0-C-1] "
                     f"o.a.k.c.c.i.ConsumerCoordinator          : {m}",
        ["pid:4242", "pid:4243"]),
    # JSON layouts: logstash-logback-encoder's HOSTNAME, GELF's host, ECS host.name + process.pid
    "JSON HOSTNAME": (
        lambda i, m: json.dumps({"@timestamp": "2024-03-01T10:00:00.123Z", "HOSTNAME": f"orders-{i}", "message": m,
                                 "logger_name": LOGGER, "level": "INFO"}),
        ["host:orders-0", "host:orders-1"]),
    "GELF host": (
        lambda i, m: json.dumps({"version": "1.1", "host": f"orders-{i}", "short_message": m,
                                 "timestamp": 1709287200.123, "level": 6, "_logger": LOGGER}),
        ["host:orders-0", "host:orders-1"]),
    "ECS host and pid": (
        lambda i, m: json.dumps({"@timestamp": "2024-03-01T10:00:00.123Z", "message": m,
                                 "log": {"level": "INFO", "logger": LOGGER}, "host": {"name": "orders"},
                                 "process": {"pid": 70 + i}}),
        ["host:orders/pid:70", "host:orders/pid:71"]),
}


@pytest.mark.parametrize("shape", sorted(CASES))
def test_each_lines_origin_is_read(shape) -> None:
    render, want = CASES[shape]
    assert _origins(_four(render)) == [want[0], want[1], want[0], want[1]]
    # the event is the bare line's: nothing of the origin leaks into a field
    bare = _events([LOG4J, LOG4J_2])
    for got, ref in zip(_events(_four(render))[::2], bare, strict=True):
        assert (got.kind, got.group_id, got.member_id, got.generation, got.partitions, got.ts_ms) == (
            ref.kind, ref.group_id, ref.member_id, ref.generation, ref.partitions, ref.ts_ms)
        assert "pod/" not in str(got.extra.get("thread")) and "orders-0" not in str(got.extra.get("logger"))


NO_ORIGIN = {
    "log4j": [LOG4J, LOG4J_2],
    "logback": [LOGBACK, LOGBACK_2],
    "logback with a thread that looks like a path": [x.replace("[main]", "[pod/x/y]") for x in (LOGBACK, LOGBACK_2)],
    "Spring Boot without a PID (${PID:- } unset)": [
        f"2024-03-01 10:00:00.123  INFO --- [ntainer#0-0-C-1] o.a.k.c.c.i.ConsumerCoordinator          : {m}"
        for m in (JOIN, ASSIGN)],
    "docker json-file": [json.dumps({"log": x + "\n", "stream": "stdout", "time": "2024-03-01T10:00:00.123Z"})
                         for x in (LOG4J, LOG4J_2)],
    "logstash JSON": [json.dumps({"@timestamp": "2024-03-01T10:00:00.123Z", "message": m, "logger_name": LOGGER,
                                  "thread_name": "main", "level": "INFO"}) for m in (JOIN, ASSIGN)],
    "journalctl -o cat": [f"INFO {m} ({LOGGER})" for m in (JOIN, ASSIGN)],
    "kubectl --timestamps": ["2024-03-01T10:00:00.123456789Z " + x for x in (LOG4J, LOG4J_2)],
    "CRI node log": ["2024-03-01T10:00:00.123456789Z stdout F " + x for x in (LOG4J, LOG4J_2)],
}


@pytest.mark.parametrize("shape", sorted(NO_ORIGIN))
def test_a_line_without_an_origin_gets_none(shape) -> None:
    lines = NO_ORIGIN[shape]
    evs = _events(lines)
    assert [e.kind for e in evs] == ["join_succeeded", "partitions_assigned"]
    assert all("origin" not in e.extra for e in evs), [e.extra for e in evs]


def test_a_file_of_two_pods_keeps_each_pods_config_block_and_ends_a_record_at_another_pods_line() -> None:
    # kubectl writes each line with its prefix (prefixingWriter): a TAB continuation line of one pod's
    # ConsumerConfig block keeps its prefix; another pod's line between never joins it, and each pod's
    # record waits for its own lines (docs/parsers.md "Merged streams"; tests/parsers/test_interleaved_origins.py)
    a, b = "[pod/orders-0/app] ", "[pod/orders-1/app] "
    lines = [a + "[2024-03-01 10:00:00,123] INFO ConsumerConfig values: ",
             a + "\tgroup.id = orders",
             a + "\tsession.timeout.ms = 45000",
             b + "[2024-03-01 10:00:00,200] INFO ConsumerConfig values: ",
             b + "\tgroup.id = orders",
             a + "\tmax.poll.interval.ms = 300000",     # a's line after b's record began: a's, not b's setting
             b + "\tsession.timeout.ms = 10000"]
    out = {o.line_no: o for o in parse_lines("f", list(enumerate(lines, 1)))}
    cfg = [o.event for o in out.values() if o.event is not None and o.event.kind == "client_config"]
    assert [(e.line_no, e.extra["origin"]) for e in cfg] == [(1, "pod/orders-0/app"), (4, "pod/orders-1/app")]
    assert cfg[0].extra["settings"] == {"group.id": "orders", "session.timeout.ms": "45000",
                                        "max.poll.interval.ms": "300000"}
    assert cfg[1].extra["settings"] == {"group.id": "orders", "session.timeout.ms": "10000"}
    assert out[6].event is None and out[6].status == "parsed"   # (a's setting line: part of a's record)
    assert list(out) == list(range(1, len(lines) + 1))
    assert sum(1 for o in out.values()) == len(lines)


def test_wrappers_detected_for_the_prefixes() -> None:
    k = [f"[pod/orders-{i}/app] {LOG4J}" for i in range(4)]
    s = [f"orders-{i} app {LOGBACK}" for i in range(4)]
    c = [f"orders-{i}  | {LOG4J}" for i in range(4)]
    assert layouts.detect_wrappers(k) == ("kubectl",) and layouts.detect_layout(k)[0] == "log4j"
    assert layouts.detect_wrappers(s) == ("stern",) and layouts.detect_layout(s)[0] == "logback"
    assert layouts.detect_wrappers(c) == ("compose",)
    # a logback line's own first words are no stern prefix, nor a Python logging line's
    assert layouts.detect_wrappers([LOGBACK] * 4) == ()
    assert layouts.detect_wrappers(["2024-03-01 10:00:00,123 INFO worker: Consuming ['orders']"] * 4) == ()
