"""Replay reads the settings the clients print at start-up (client_config events) before defaults."""

from __future__ import annotations

import json

import pytest

from parsers import parse_path
from parsers.events import Event
from pipeline.replay import replay_group
from pipeline.replay_rules.settings import ReplaySettings


def _events(folder, group):
    evs = []
    for p in sorted(folder.iterdir()):
        if p.name in ("truth.json", "README.md"):
            continue
        it, _summary = parse_path(str(p))
        evs += [o.event for o in it if o.event is not None]
    return [e for e in evs if e.group_id == group]


def test_poll_timeout_sample_uses_the_printed_max_poll_interval(repo_root):
    folder = repo_root / "sample_logs" / "poll_timeout_slow_processing"
    if not (folder / "truth.json").is_file():
        pytest.skip("sample_logs not present")
    events = _events(folder, "fraud-scoring")
    r = replay_group(events)
    cfg = r.settings
    src = str(folder / "fraud-scorer-1.json")
    assert (cfg.max_poll_interval_ms, cfg.session_timeout_ms, cfg.heartbeat_interval_ms, cfg.assignor) == \
        (60_000, 45_000, 3_000, "range")
    assert cfg.origin["max_poll_interval_ms"] == f"log {src}:1"
    assert cfg.rebalance_timeout_ms == 60_000 and cfg.static_members == {}
    polls = [f for f in r.findings if f["kind"] == "poll_timeout"]
    assert polls and all(json.loads(f["details_json"])["max_poll_interval_ms"] == 60_000 for f in polls)
    assert all("60000 ms" in f["explanation"] for f in polls)
    # an explicit --set still wins over what the log prints
    cfg = replay_group(events, ReplaySettings(max_poll_interval_ms=90_000)).settings
    assert (cfg.max_poll_interval_ms, cfg.origin["max_poll_interval_ms"]) == (90_000, "set")


def _config(src, line, ts, client, settings, kind="client_config"):
    return Event(src, line, "client" if kind == "client_config" else "broker", kind, "ConsumerConfig values: ",
                 ts_ms=ts, group_id=settings.get("group.id"), client_id=client,
                 instance_id=None if settings.get("group.instance.id") in (None, "null") else settings["group.instance.id"],
                 extra={"settings": settings})


def test_config_settings_and_evidence():
    a = _config("a.log", 3, 1_000, "c-1", {
        "group.id": "g", "group.instance.id": "host-1", "session.timeout.ms": "12000",
        "heartbeat.interval.ms": "4000", "max.poll.interval.ms": "null",
        "partition.assignment.strategy": "[class org.apache.kafka.clients.consumer.CooperativeStickyAssignor, "
                                         "class org.apache.kafka.clients.consumer.RangeAssignor]"})
    b = _config("b.log", 7, 2_000, "c-2", {"group.id": "g", "session.timeout.ms": "99000",
                                          "max.poll.interval.ms": "120000", "group.instance.id": "host-2"})
    k = _config("server.log", 1, 0, None, {"group.initial.rebalance.delay.ms": "0"}, kind="broker_config")
    cfg = replay_group([a, b, k]).settings
    assert (cfg.session_timeout_ms, cfg.heartbeat_interval_ms, cfg.assignor) == (12_000, 4_000, "cooperative-sticky")
    assert (cfg.max_poll_interval_ms, cfg.rebalance_timeout_ms) == (120_000, 120_000)   # "null" skipped, next printer
    assert cfg.initial_rebalance_delay_ms == 0 and cfg.origin["initial_rebalance_delay_ms"] == "log server.log:1"
    assert cfg.origin["session_timeout_ms"] == "log a.log:3" and cfg.origin["max_poll_interval_ms"] == "log b.log:7"
    assert cfg.static_members == {"c-1": "host-1", "c-2": "host-2"}
