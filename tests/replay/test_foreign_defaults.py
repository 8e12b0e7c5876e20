"""A group whose members are all librdkafka / KafkaJS / Python clients takes that client's own
defaults for its version (parsers/foreign/defaults.py), said to be assumed in words; a group with
Java members keeps Kafka's defaults (issue 22)."""

from __future__ import annotations

from parsers.events import Event
from pipeline.replay_rules.settings import ReplaySettings, resolve


def ev(line: int, library: str | None, version: str | None = None, kind: str = "join_succeeded") -> Event:
    extra = {"client_version": version} if version else {}
    return Event(source="app.log", line_no=line, side="client", kind=kind, raw="x", ts_ms=1_000 * line,
                 group_id="g", member_id=f"m{line}", generation=1, client_library=library, extra=extra)


def test_an_old_librdkafka_group_takes_librdkafka_1x_defaults():
    cfg = resolve([ev(1, "librdkafka", "1.5.0"), ev(2, "librdkafka")], ReplaySettings())
    assert (cfg.session_timeout_ms, cfg.heartbeat_interval_ms, cfg.max_poll_interval_ms) == (10000, 3000, 300000)
    assert "librdkafka 1.5.0 clients" in cfg.says("session_timeout_ms") and "assumed" in cfg.says("session_timeout_ms")


def test_a_kafkajs_group_without_a_version_says_the_newest_defaults_are_assumed():
    cfg = resolve([ev(1, "kafkajs")], ReplaySettings())
    assert cfg.session_timeout_ms == 30000
    assert "kafkajs clients, version not in the logs" in cfg.says("session_timeout_ms")


def test_a_mixed_group_keeps_kafkas_defaults():
    java = resolve([ev(1, None)], ReplaySettings())
    mixed = resolve([ev(1, "librdkafka", "1.5.0"), ev(2, None)], ReplaySettings())
    assert mixed.session_timeout_ms == java.session_timeout_ms
    assert "librdkafka" not in mixed.says("session_timeout_ms")


def test_an_assignment_line_without_its_partitions_leaves_the_assignment_unknown():
    from pipeline.replay import replay_group

    join = ev(1, "librdkafka", "1.5.0")
    assigned = Event(source="app.log", line_no=2, side="client", kind="partitions_assigned", raw="x", ts_ms=2_000,
                     group_id="g", member_id="m1", generation=1, client_library="librdkafka", partitions=None)
    r = replay_group([join, assigned])
    mine = [m for m in r.memberships if m["member_id"] == "m1"]
    assert mine and all(m["assigned"] is None for m in mine)
