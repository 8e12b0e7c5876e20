"""Defaults per Kafka version (ConsumerConfig.java of each release line), the version read per side,
and assumed values said to be assumed (pipeline/replay_rules/settings.py)."""

from __future__ import annotations

import json

from parsers.events import Event
from pipeline.replay import replay_group
from pipeline.replay_rules.settings import ReplaySettings, defaults_for, resolve
from tests.replay.builders import Host, merged

T0 = 1_700_000_000_000


def _expiry_group(hint: str | None, broker_hint: str | None = None, config: dict | None = None,
                  group: str = "payments") -> list[Event]:
    a = Host("hostA/app.log", "c-a", group=group)
    k = Host("broker1/server.log", side="broker", group=group)
    if config is not None:
        a.ev(T0 - 1_000, "client_config", extra={"settings": config}, kafka_version_hint=hint)
    a.ev(T0, "join_started", kafka_version_hint=hint)
    a.ev(T0 + 100, "join_succeeded", member_id="A", generation=1, protocol="range", kafka_version_hint=hint)
    a.ev(T0 + 150, "partitions_assigned", partitions=("t-0",), kafka_version_hint=hint)
    k.ev(T0 + 50_000, "broker_member_removed", member_id="A", kafka_version_hint=broker_hint,
         raw=f"[GroupCoordinator 1]: Member A in group {group} has failed, removing it from the group")
    return merged(a, k)


def test_defaults_per_release_line():
    # ConsumerConfig.java: session.timeout.ms 30000 (0.9-0.10.0), 10000 (0.10.1-2.8, KIP-62),
    # 45000 (3.0+, KIP-735); max.poll.interval.ms from 0.10.1 (KIP-62)
    assert defaults_for((0, 10, 0))["session_timeout_ms"] == 30_000
    assert defaults_for((0, 10, 0))["max_poll_interval_ms"] is None
    assert defaults_for((0, 10, 1))["session_timeout_ms"] == 10_000
    assert defaults_for((2, 8, 1))["session_timeout_ms"] == 10_000
    assert defaults_for((3, 0, 0))["session_timeout_ms"] == 45_000
    assert defaults_for((2, 8, 1))["max_poll_interval_ms"] == 300_000


def test_a_2019_client_gets_the_2x_default_and_the_text_says_it_is_assumed():
    r = replay_group(_expiry_group("2.3.0"))
    assert r.settings.session_timeout_ms == 10_000
    assert r.settings.origin["session_timeout_ms"] == "default of Kafka 2.3.0 clients"
    (f,) = [f for f in r.findings if f["kind"] == "session_expiry"]
    assert "session.timeout.ms = 10000 ms (default of Kafka 2.3.0 clients, assumed: not printed in the logs)" \
        in f["explanation"]
    assert json.loads(f["details_json"])["session_timeout_assumed"] is True


def test_printed_consumer_config_wins_and_is_not_called_assumed():
    r = replay_group(_expiry_group("2.3.0", config={"session.timeout.ms": "25000"}))
    assert r.settings.session_timeout_ms == 25_000
    assert r.settings.origin["session_timeout_ms"] == "log hostA/app.log:1"
    (f,) = [f for f in r.findings if f["kind"] == "session_expiry"]
    assert "assumed" not in f["explanation"].split("session.timeout.ms = 25000 ms")[1][:20]
    assert json.loads(f["details_json"])["session_timeout_assumed"] is False


def test_without_a_client_version_the_brokers_version_is_used_and_said():
    r = replay_group(_expiry_group(None, broker_hint="2.1.1"))
    assert r.settings.session_timeout_ms == 10_000
    assert (r.settings.client_version, r.settings.broker_version) == (None, (2, 1, 1))
    assert "taken to be the broker's" in r.settings.origin["session_timeout_ms"]


def test_without_any_version_3x_is_assumed_in_words():
    r = replay_group(_expiry_group(None))
    assert r.settings.session_timeout_ms == 45_000
    assert r.settings.origin["session_timeout_ms"] == \
        "default of Kafka 3.x, assumed: no client or broker version in the logs"
    # the finding says it once, then why it is a default: not "assumed ..., assumed: ..."
    (f,) = [f for f in r.findings if f["kind"] == "session_expiry"]
    assert "session.timeout.ms = 45000 ms (default of Kafka 3.x, assumed: no client or broker version in the " \
        "logs; not printed in the logs)" in f["explanation"]
    assert f["explanation"].count("assumed") == 1


def test_two_groups_of_one_0_10_1_file_get_the_same_version():
    """One 0.10.1 process in two groups: group `a` shows its rebalance lines (with the version), group
    `b` only its commits (bulk lines). Both get 0.10.1's defaults."""
    h = Host("app.log", "consumer-1", group="a")
    h.ev(T0, "join_started", kafka_version_hint="0.10.1.1")
    h.ev(T0 + 100, "join_succeeded", generation=1, member_id="m1", kafka_version_hint="0.10.1.1")
    b = [Event(source="app.log", line_no=100 + i, side="client", kind="offset_committed", raw=f"commit {i}",
               ts_ms=T0 + 1_000 * i, group_id="b", client_id="consumer-2", topic="t", partition=0, offset=i,
               kafka_version_hint="0.10.1.1") for i in range(3)]
    ra, rb = replay_group(h.events), replay_group(b)
    assert ra.settings.version == rb.settings.version == (0, 10, 1)
    assert ra.settings.session_timeout_ms == rb.settings.session_timeout_ms == 10_000


def test_explicit_version_setting_wins():
    cfg = resolve(_expiry_group("2.3.0"), ReplaySettings(kafka_version="3.5.0"))
    assert cfg.session_timeout_ms == 45_000 and cfg.origin["session_timeout_ms"] == "default of Kafka 3.5.0 clients"
