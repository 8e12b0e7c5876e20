"""Issue 17, property: every catalogue message (client templates behind a LogContext prefix, broker
templates behind their ident), written in any of the layouts below and wrapped in any combination
of the wrappers people add, yields the same event kind and fields as the bare message.
One test per wrapper also shows that no field swallows the wrapper's text."""

from __future__ import annotations

import csv
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsers.catalog_tools import hole_fields, render
from parsers.gen_broker_grammar import name_holes
from parsers.reader import parse_lines

CC = "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"
GC = "kafka.coordinator.group.GroupCoordinator"
# group_type comes from the logger's class where the wording does not say (parsers/events.py): a
# bare message has no logger, a wrapped one may, so it is not a fact of the message compared here
SKIP = {"raw", "ts_ms", "extra", "source", "line_no", "group_type"}


def _event(line: str):
    outs = list(parse_lines("t", [(1, line)]))
    assert len(outs) == 1
    o = outs[0]
    return o if o.status == "parsed" and o.event is not None else None


def _facts(o) -> dict:
    d = {k: v for k, v in o.event.to_dict().items() if k not in SKIP}
    d["rule"] = o.event.extra.get("rule")
    return d


def _catalogue(shared_dir) -> list[tuple[str, str]]:
    """(message, logger) of every one-line catalogue template whose bare message parses."""
    path = shared_dir / "formats" / "kafka-coordinator-log-templates.tsv"
    with path.open(newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE) if r["event"] != "other"]
    out = []
    for r in rows:
        if r["side"] == "client":
            msg = "[Consumer clientId=consumer-my-group-1, groupId=my-group] " + render(r["template"], hole_fields(r["template"], r["notes"]))
            logger = CC
        elif r["side"] == "broker":
            t = r["template"].rstrip()
            names = name_holes(t)
            parts = t.split("{}")
            vals = {"group_id": "payments.v2", "member_id": "consumer-payments-7-3f1c2e4a", "generation#": "42"}
            msg = "[GroupCoordinator 3]: " + parts[0] + "".join(
                vals.get(n, "7" if n.endswith("#") else "x-1") + lit for n, lit in zip(names, parts[1:], strict=True))
            logger = GC
        else:
            continue
        if "\n" in msg or "\\n" in msg:
            continue
        if msg != msg.rstrip():
            # a placeholder at the end rendered empty ("Auto offset commit failed: "): Kafka prints the
            # exception's message there, and a wrapper that trims trailing space cannot keep it
            continue
        if _event(msg) is not None:
            out.append((msg, logger))
    return out


# --- layouts: how a logging setup writes the message (msg, logger) -> line -------------------------
LAYOUTS = {
    "bare": lambda m, lg: m,
    "log4j": lambda m, lg: f"[2024-03-01 10:00:00,123] INFO {m} ({lg})",
    "log4j_thread_last": lambda m, lg: f"[2024-03-01 10:00:00,123] INFO {m} ({lg}) [main]",
    "logback": lambda m, lg: f"2024-03-01 10:00:00.123 [main] INFO  {lg} - {m}",
    "spring_boot": lambda m, lg: f"2024-03-01T10:00:00.123Z  INFO 4242 --- [ntainer#0-0-C-1] {lg:<40} : {m}",
    "file_line": lambda m, lg: f"2024-03-01 10:00:00,123 INFO {m} (ConsumerCoordinator.java:412)",
    "class_line": lambda m, lg: f"2024-03-01 10:00:00,123 INFO  {lg.rsplit('.', 1)[1]}:412 - {m}",
    "mdc": lambda m, lg: f"2024-03-01 10:00:00,123 INFO  [main] {lg} - {m} - app=orders, clusterId=kc-1",
    "cloudwatch": lambda m, lg: f"[2024-03-01 10:00:00,123] INFO {m} ({lg}),2024-03-01 10:00:00.999",
    "connect_task": lambda m, lg: f"[2024-03-01 10:00:00,123] INFO [orders-sink|task-0] {m} ({lg}:412)",
    "logstash_own": lambda m, lg: f"[2024-03-01T10:00:00,123][INFO ][{lg}][main] {m}",
    "quarkus": lambda m, lg: f"2024-03-01 10:00:00,123 INFO  [org.apa.kaf.cli.con.int.ConsumerCoordinator] (vert.x-eventloop-thread-0) {m}",
}


def _csv(cells: list[str]) -> str:
    return ",".join('"' + c.replace('"', '""') + '"' for c in cells)


# --- wrappers around a whole line ------------------------------------------------------------------
WRAPPERS = {
    "quote": lambda s: "> " + s,
    "bold": lambda s: "**" + s + "**",
    "backticks": lambda s: "`" + s + "`",
    "indent": lambda s: "    " + s,
    "grep_n": lambda s: "1234:" + s,
    "grep_h": lambda s: "logs/server.log:1234:" + s,
    "compose": lambda s: "kafka-1  | " + s,
    "kubectl_ts": lambda s: "2024-03-01T10:00:00.123456789Z " + s,
    "kubectl_prefix": lambda s: "[pod/orders-7d9f8b6c5-x2x4p/app] " + s,     # parsers/origin.py
    "stern": lambda s: "orders-7d9f8b6c5-x2x4p app " + s,
    "syslog_3164": lambda s: "Mar  1 10:00:00 orders-0 java[812]: " + s,
    "quoted": lambda s: '"' + s + '"',
    "csv": lambda s: _csv(["2024-03-01T10:00:00.123Z", "kafka-0", s]),
    "pipe_row": lambda s: f"| 2024-03-01 10:00:00.123 | INFO | {s} |",
    "json_message": lambda s: json.dumps({"@timestamp": "2024-03-01T10:00:00.123Z", "message": s, "level": "INFO"}),
    "json_msg": lambda s: json.dumps({"ts": 1709287200.123, "msg": s}),
    "json_log": lambda s: json.dumps({"log": s + "\n", "stream": "stdout", "time": "2024-03-01T10:00:00.123Z"}),
    "json_at_message": lambda s: json.dumps({"@message": s, "@timestamp": 1709287200123}),
    "json_array": lambda s: json.dumps([{"message": s, "timestamp": "2024-03-01T10:00:00.123Z"}]),
    "epoch_tab_json": lambda s: "1709287200123\t" + json.dumps({"message": s}),
}


@pytest.fixture(scope="module")
def catalogue(shared_dir):
    msgs = _catalogue(shared_dir)
    assert len(msgs) > 700
    return msgs


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_wrapped_catalogue_message_reads_as_bare(catalogue, data):
    msg, logger = data.draw(st.sampled_from(catalogue), label="message")
    layout = data.draw(st.sampled_from(sorted(LAYOUTS)), label="layout")
    names = data.draw(st.lists(st.sampled_from(sorted(WRAPPERS)), max_size=3, unique=True), label="wrappers")
    if "|" in msg:  # a message with its own pipes cannot sit in a pipe table
        names = [n for n in names if n != "pipe_row"]
    line = LAYOUTS[layout](msg, logger)
    for n in names:
        if n == "quoted" and '"' in line:
            continue  # bare quotes around text that has quotes (CSV, JSON) is not a paste anyone makes
        line = WRAPPERS[n](line)
    bare = _event(msg)
    got = _event(line)
    assert got is not None, line
    assert _facts(got) == _facts(bare), line


# --- one test per wrapper: the fields never hold the wrapper's text ------------------------------------
JOIN = ("[Consumer clientId=consumer-orders-1, groupId=orders] Successfully joined group with generation "
        "Generation{generationId=12, memberId='consumer-orders-1-5f1c', protocol='range'}")
ASSIGN = "[Consumer clientId=consumer-orders-1, groupId=orders] Adding newly assigned partitions: orders-0, orders-1"
PREPARE = ("[GroupCoordinator 1]: Preparing to rebalance group orders in state PreparingRebalance with old generation 12 "
           "(__consumer_offsets-7) (reason: Adding new member consumer-orders-2-aa11 with group instance id None)")


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS) + [f"layout:{n}" for n in sorted(LAYOUTS)])
def test_fields_never_swallow_the_wrapper(wrapper):
    for msg, logger, want in (
        (JOIN, CC, {"kind": "join_succeeded", "group_id": "orders", "member_id": "consumer-orders-1-5f1c", "generation": 12}),
        (ASSIGN, CC, {"kind": "partitions_assigned", "group_id": "orders", "partitions": ("orders-0", "orders-1")}),
        (PREPARE, GC, {"kind": "broker_rebalance_preparing", "group_id": "orders", "generation": 12}),
    ):
        if wrapper.startswith("layout:"):
            line = LAYOUTS[wrapper[7:]](msg, logger)
        else:
            line = WRAPPERS[wrapper](LAYOUTS["log4j"](msg, logger))
        o = _event(line)
        assert o is not None, line
        ev = o.event
        assert {k: getattr(ev, k) for k in want} == want, line
        if wrapper != "layout:bare":
            assert ev.ts_ms is not None and abs(ev.ts_ms - 1709287200123) < 1000, line
        for f in ("group_id", "member_id", "client_id"):
            v = getattr(ev, f)
            assert v is None or re.fullmatch(r"[\w.\-]+", v), (f, v, line)
