"""`XxxConfig values:` dumps (AbstractConfig.logAll): one client_config / broker_config event per block,
per layout, with every setting; other config classes ignored; the JVM-side filter keeps the block."""

from __future__ import annotations

import json
import re

import pytest

from parsers import CANDIDATE_REGEX, FileFormat, parse_lines, parse_path
from parsers.reader import prefilter

SETTINGS = {
    "auto.offset.reset": "latest",
    "bootstrap.servers": "[kafka-1:9092, kafka-2:9092]",
    "client.id": "consumer-payments-1",
    "enable.auto.commit": "false",
    "group.id": "payments",
    "group.instance.id": "payments-host-1",
    "heartbeat.interval.ms": "3000",
    "max.poll.interval.ms": "60000",
    "partition.assignment.strategy": "[class org.apache.kafka.clients.consumer.CooperativeStickyAssignor]",
    "sasl.jaas.config": "[hidden]",
    "session.timeout.ms": "45000",
    "ssl.key.password": "null",
    "ssl.truststore.type": "",
}
LOGGER = "org.apache.kafka.clients.consumer.ConsumerConfig"
BODY = [f"\t{k} = {v}" for k, v in SETTINGS.items()]
AFTER = "[Consumer clientId=consumer-payments-1, groupId=payments] Subscribed to topic(s): payments"
AC = "org.apache.kafka.clients.consumer.KafkaConsumer"


def _log4j_trimmed():  # Kafka's own log4j "%m (%c)%n", logger glued to the last setting
    return (["[2024-03-01 10:15:30,123] INFO ConsumerConfig values: "] + BODY[:-1] + [BODY[-1] + f" ({LOGGER})"]
            + [f"[2024-03-01 10:15:30,200] INFO {AFTER} ({AC})"])


def _log4j_own_line():  # the message's trailing newline puts "(logger)" on a line of its own
    return (["[2024-03-01 10:15:30,123] INFO ConsumerConfig values: "] + BODY + [f" ({LOGGER})"]
            + [f"[2024-03-01 10:15:30,200] INFO {AFTER} ({AC})"])


def _spring_boot():
    return (["2024-03-01 10:15:30.123  INFO 4187 --- [ntainer#0-0-C-1] o.a.k.clients.consumer.ConsumerConfig    : "
             "ConsumerConfig values: "] + BODY
            + ["2024-03-01 10:15:30.200  INFO 4187 --- [ntainer#0-0-C-1] o.a.k.clients.consumer.KafkaConsumer     : "
               + AFTER])


def _logback():
    return (["2024-03-01 10:15:30.123 INFO  [main] o.a.k.clients.consumer.ConsumerConfig - ConsumerConfig values: "]
            + BODY + ["2024-03-01 10:15:30.200 INFO  [main] o.a.k.clients.consumer.KafkaConsumer - " + AFTER])


def _json():
    msg = "ConsumerConfig values: \n" + "\n".join(BODY) + "\n"
    rec = {"@timestamp": "2024-03-01T10:15:30.123Z", "message": msg, "logger_name": LOGGER,
           "thread_name": "main", "level": "INFO"}
    nxt = dict(rec, message=AFTER, logger_name=AC, **{"@timestamp": "2024-03-01T10:15:30.200Z"})
    return [json.dumps(rec), json.dumps(nxt)]


def _compose_log4j():  # docker-compose output: every line behind "service  | "
    return ["payments-1  | " + ln for ln in _log4j_trimmed()]


LAYOUTS = {"log4j": _log4j_trimmed, "compose_log4j": _compose_log4j, "log4j_own_line": _log4j_own_line, "spring_boot": _spring_boot,
           "logback": _logback, "json": _json}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_block_is_one_event_with_every_setting(name):
    lines = LAYOUTS[name]()
    outs = list(parse_lines("app.log", enumerate(lines, 1)))
    assert [o.line_no for o in outs] == list(range(1, len(lines) + 1))
    first, last = outs[0], outs[-1]
    ev = first.event
    assert first.status == "parsed" and ev.kind == "client_config" and ev.side == "client"
    assert (ev.group_id, ev.client_id, ev.instance_id) == ("payments", "consumer-payments-1", "payments-host-1")
    assert ev.extra["settings"] == SETTINGS
    assert ev.extra["config_class"] == "ConsumerConfig" and ev.ts_ms == 1709288130123
    assert (ev.source, ev.line_no) == ("app.log", 1)
    # continuation lines are part of the record: parsed, no event of their own
    assert all(o.status == "parsed" and o.event is None for o in outs[1:-1])
    assert last.event.kind == "subscription_changed"


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_jvm_side_filter_keeps_the_block(name):
    lines = LAYOUTS[name]()
    rx = re.compile(CANDIDATE_REGEX)
    assert all(rx.search(t) for t in lines)
    outs = list(parse_lines("app.log", prefilter(enumerate(lines, 1))))
    assert outs[0].event.extra["settings"] == SETTINGS


def test_null_and_empty_ids_are_none():
    lines = ["[2024-03-01 10:15:30,123] INFO ConsumerConfig values: ", "\tclient.id = ", "\tgroup.id = orders",
             "\tgroup.instance.id = null", "\tsession.timeout.ms = 10000 (org.apache.kafka.clients.consumer.ConsumerConfig)"]
    ev = next(parse_lines("a.log", enumerate(lines, 1), FileFormat("log", "log4j"))).event
    assert (ev.group_id, ev.client_id, ev.instance_id) == ("orders", None, None)
    assert ev.extra["settings"] == {"client.id": "", "group.id": "orders", "group.instance.id": "null",
                                    "session.timeout.ms": "10000"}


def test_other_config_classes_are_not_consumer_settings():
    lines = []
    for cls, pkg in (("ProducerConfig", "producer"), ("AdminClientConfig", "admin"), ("StreamsConfig", "streams")):
        lines += [f"[2024-03-01 10:15:30,123] INFO {cls} values: ", "\tclient.id = producer-1",
                  "\tgroup.id = payments", f"\tsession.timeout.ms = 1 (org.apache.kafka.clients.{pkg}.{cls})"]
    outs = list(parse_lines("a.log", enumerate(lines, 1), FileFormat("log", "log4j")))
    assert len(outs) == len(lines) and all(o.status == "ignored" and o.event is None for o in outs)
    # the JVM-side filter drops their headers; the orphaned setting lines stay ignored
    outs = list(parse_lines("a.log", prefilter(enumerate(lines, 1)), FileFormat("log", "log4j")))
    assert outs and all(o.status == "ignored" and o.event is None for o in outs)


def test_broker_kafka_config_keeps_group_settings():
    lines = ["[2024-03-01 10:00:00,001] INFO KafkaConfig values: ", "\tadvertised.listeners = PLAINTEXT://kafka-1:9092",
             "\tbroker.id = 1", "\tgroup.initial.rebalance.delay.ms = 0", "\tgroup.max.session.timeout.ms = 1800000",
             "\tgroup.min.session.timeout.ms = 6000", "\tlog.dirs = /var/lib/kafka",
             "\toffsets.retention.minutes = 10080", "\tzookeeper.connect = zk:2181", " (kafka.server.KafkaConfig)",
             "[2024-03-01 10:00:01,000] INFO [GroupCoordinator 1]: Startup complete. (kafka.coordinator.group.GroupCoordinator)"]
    outs = list(parse_lines("server.log", enumerate(lines, 1)))
    ev = outs[0].event
    assert ev.kind == "broker_config" and ev.side == "broker" and ev.group_id is None
    assert ev.extra["settings"] == {"broker.id": "1", "group.initial.rebalance.delay.ms": "0",
                                    "group.max.session.timeout.ms": "1800000", "group.min.session.timeout.ms": "6000",
                                    "offsets.retention.minutes": "10080"}
    assert [o.status for o in outs[:10]] == ["parsed"] * 10 and outs[10].event.side == "broker"


def test_long_block_reads_every_setting():
    names = [f"setting.number{i:03d}" for i in range(120)]
    lines = ["[2024-03-01 10:15:30,123] INFO ConsumerConfig values: "] + [f"\t{n} = {i}" for i, n in enumerate(names)]
    ev = next(parse_lines("a.log", enumerate(lines, 1), FileFormat("log", "log4j"))).event
    assert list(ev.extra["settings"]) == names and ev.extra["settings"]["setting.number119"] == "119"


def test_samples_poll_timeout_json_block(repo_root):
    path = repo_root / "sample_logs" / "poll_timeout_slow_processing" / "fraud-scorer-1.json"
    if not path.is_file():
        pytest.skip("sample_logs not present")
    it, summary = parse_path(str(path))
    configs = [o.event for o in it if o.event is not None and o.event.kind == "client_config"]
    assert len(configs) == 1 and summary.balanced
    ev = configs[0]
    assert (ev.line_no, ev.group_id, ev.client_id, ev.instance_id) == (1, "fraud-scoring", "consumer-fraud-scoring-1", None)
    assert ev.extra["settings"]["max.poll.interval.ms"] == "60000"
    assert ev.extra["settings"]["partition.assignment.strategy"] == "[class org.apache.kafka.clients.consumer.RangeAssignor]"


def test_explain_shows_the_config_rule():
    from parsers.explain import explain_line

    out = explain_line("[2024-03-01 10:15:30,123] INFO ConsumerConfig values: \n\tgroup.id = orders\n"
                       "\tsession.timeout.ms = 10000 (org.apache.kafka.clients.consumer.ConsumerConfig)")
    assert (out["result"], out["rule"], out["kind"]) == ("parsed", "consumer_config_values", "client_config")
    assert out["fields"]["group_id"] == "orders"
    assert out["fields"]["extra"]["settings"] == {"group.id": "orders", "session.timeout.ms": "10000"}
    assert explain_line("[2024-03-01 10:15:30,123] INFO AdminClientConfig values: ")["result"] == "ignored"
