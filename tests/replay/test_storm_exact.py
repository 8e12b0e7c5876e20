"""Rebalance storms, exactly: the window's edge, the count threshold, the severity step, the
episode's span, and what its sentences and details state (findings.FindingRules.storms).

The hand-written storm (scenarios.storm, n=6, a rebalance every 20 s) starts generations at
T0, +1 s, +21 s, +41 s, +61 s, +81 s and +101 s; each becomes stable 150 ms after its start
("Assignment received from leader")."""

from __future__ import annotations

import dataclasses
import json

from pipeline.replay import ReplaySettings, replay_group
from tests.replay import scenarios as S
from tests.replay.builders import Host, merged
from tests.replay.scenarios import T0

# GroupCoordinator 3.x reasons of "Preparing to rebalance": an expiry, a new member
EXPIRY = "removing member B on heartbeat expiration"
JOIN = "Adding new member C with group instance id None; client reason: not provided"


def storms(events, count: int, window_ms: int) -> list[dict]:
    r = replay_group(events, ReplaySettings(storm_count=count, storm_window_ms=window_ms))
    return [f for f in r.findings if f["kind"] == "rebalance_storm"]


def broker_rebalances(starts_ms: list[int], reasons: list[str]) -> list:
    """Member A joins generation 1 at T0; then the broker starts one rebalance per start (T0 +
    start), each stable 150 ms later."""
    k, a = Host("broker1/server.log", side="broker"), Host("hostA/app.log", "c-a")
    a.join(T0, 1, "A", ["t-0"])
    for g, (t, why) in enumerate(zip(starts_ms, reasons, strict=True), start=1):
        k.preparing(T0 + t, g, why)
        k.stabilized(T0 + t + 100, g + 1, 2)
        k.assignment(T0 + t + 150, g + 1, "A")
    return merged(a, k)


def test_a_window_holds_the_rebalances_starting_on_its_last_millisecond():
    # +1 s and +41 s are exactly 40 s apart: with a 40 s window every start has two more within
    # reach, one episode of all seven; one millisecond less and only generations 1-3 (T0, +1 s,
    # +21 s) are three in a window
    (whole,) = storms(S.storm(n=6, every_ms=20_000), 3, 40_000)
    assert json.loads(whole["details_json"])["generations"] == [1, 2, 3, 4, 5, 6, 7]
    (short,) = storms(S.storm(n=6, every_ms=20_000), 3, 39_999)
    d = json.loads(short["details_json"])
    assert d == {"count": 3, "window_ms": 39_999, "generations": [1, 2, 3],
                 "causes": {"member_joined": 2, "session_expiry": 1}}
    assert short["title"] == "3 rebalances in 21.0 s (generations 1-3)"
    # (generation 1's first joiner is not proven: A's log alone, no broker line before generation 2)
    assert short["members"] == ["B0"] and short["generation"] == 1 and short["severity"] == "high"
    assert short["evidence"] == ["hostA/app.log:1", "broker1/server.log:1", "broker1/server.log:4"]


def test_the_storm_ends_when_its_last_rebalance_completes_not_when_that_generation_ends():
    # generation 3 (the episode's last) was stable from +21.15 s until +41 s: the storm was over
    (short,) = storms(S.storm(n=6, every_ms=20_000), 3, 39_999)
    assert (short["start_ms"], short["end_ms"]) == (T0, T0 + 21_150)
    assert short["explanation"].endswith("fix that cause first.")
    (whole,) = storms(S.storm(n=6, every_ms=20_000), 3, 40_000)
    assert (whole["start_ms"], whole["end_ms"]) == (T0, T0 + 101_150)


def test_a_last_rebalance_without_completion_ends_the_storm_at_its_start_and_says_so():
    events = [e for e in S.storm(n=6, every_ms=20_000)
              if not (e.generation == 7 and e.kind in ("broker_group_stabilized", "broker_assignment_received"))]
    (f,) = storms(events, 3, 40_000)
    assert (f["start_ms"], f["end_ms"]) == (T0, T0 + 101_000)
    assert f["explanation"].endswith("The logs do not show when the last rebalance completed: "
                                     "the finding ends at its start.")


def test_the_count_threshold_is_reached_not_exceeded():
    # seven rebalances in 101 s: a storm from 7 on, none at 8
    assert [json.loads(f["details_json"])["count"] for f in storms(S.storm(n=6, every_ms=20_000), 7, 600_000)] == [7]
    assert storms(S.storm(n=6, every_ms=20_000), 8, 600_000) == []


def test_severity_is_critical_from_four_times_the_threshold():
    (high,) = storms(S.storm(n=6, every_ms=20_000), 2, 3_600_000)      # 7 rebalances, threshold 2
    assert high["severity"] == "high"
    (crit,) = storms(S.storm(n=7, every_ms=20_000), 2, 3_600_000)      # 8 = 4 x 2
    assert crit["severity"] == "critical"
    assert crit["title"] == "8 rebalances in 2.0 min (generations 1-8)"
    assert crit["members"] == ["B0", "B2", "B4", "B6"]
    assert crit["explanation"].startswith(
        "The group rebalanced 8 times within 2.0 min (threshold: 2 in 60.0 min). While a rebalance runs, "
        "consumption stops on the affected partitions. The most frequent cause was member_joined (5 of 8); "
        "fix that cause first.")


def test_joins_alone_are_a_scale_out_not_a_storm():
    # with a 1 s window only generations 1 and 2 (two members joining) are close enough: a scale
    # operation, not a storm; widening it to take in the expiries makes one
    assert storms(S.storm(n=6, every_ms=20_000), 2, 1_000) == []
    (f,) = storms(S.storm(n=6, every_ms=20_000), 2, 20_000)
    assert json.loads(f["details_json"])["causes"] == {"member_joined": 4, "session_expiry": 3}


def sample(repo_root, scenario: str) -> tuple[list, dict]:
    """A sample scenario's events of its group (parsed in-process) and its truth.json."""
    from parsers import parse_path

    folder = repo_root / "sample_logs" / scenario
    truth = json.loads((folder / "truth.json").read_text())
    events = []
    for p in sorted(folder.iterdir()):
        if p.name not in ("truth.json", "README.md"):
            outcomes, _ = parse_path(str(p))
            events += [o.event for o in outcomes if o.event is not None and o.event.group_id == truth["group_id"]]
    return events, truth


def test_the_sample_storm_spans_its_rebalances_as_truth_json_records_them(repo_root):
    """sample_logs/rebalance_storm: the one episode starts with the first rebalance and ends when
    generation 16 became stable (truth.json's stabilized_ms; the logs' clocks are skewed by a few
    ms), not at the end of the logs a minute later."""
    events, truth = sample(repo_root, "rebalance_storm")
    (f,) = [f for f in replay_group(events).findings if f["kind"] == "rebalance_storm"]
    first, last = truth["generations"][0], truth["generations"][-1]
    assert json.loads(f["details_json"])["generations"] == [g["generation"] for g in truth["generations"]]
    assert abs(f["start_ms"] - first["rebalance_started_ms"]) <= 1_500
    assert abs(f["end_ms"] - last["stabilized_ms"]) <= 50
    assert truth["end_ms"] - f["end_ms"] > 60_000


def test_a_rolling_restart_is_not_a_storm_but_a_host_restarting_twice_or_a_member_leaving_otherwise_is(repo_root):
    """sample_logs/rolling_deploy: nine rebalances in 5.5 min (four hosts each closing once with
    "the consumer is being closed" and their replacements joining), more than storm.count in
    storm.window.ms: a planned restart, no storm. The same logs with one host's lines in another
    host's file (one host closing twice: a restart loop), or with one member leaving because it
    unsubscribed instead of closing, are a storm of all nine."""
    events, truth = sample(repo_root, "rolling_deploy")
    assert [g["cause"] for g in replay_group(events).generations] == ["member_joined", "member_left"] * 4 + ["member_joined"]
    assert storms(events, 5, 600_000) == []
    assert storms(events, 2, 3_600_000) == []

    folder = repo_root / "sample_logs" / "rolling_deploy"
    w1, w2, w3 = (str(folder / f"billing-worker-{i}.log") for i in (1, 2, 3))
    assert {e.source for e in events} >= {w1, w2, w3}
    # (with w1's origin: Spring Boot prints the PID on every line, and two PIDs at once in one file
    # are two processes, each its own stream, state.stream_namer)
    assert {e.extra.get("origin") for e in events if e.source == w1} == {"pid:4187"}
    one_host = [dataclasses.replace(e, source=w1, line_no=e.line_no + 100_000, extra={**e.extra, "origin": "pid:4187"})
                if e.source == w2 else e for e in events]
    (loop,) = storms(one_host, 5, 600_000)
    assert json.loads(loop["details_json"])["generations"] == list(range(1, 10))
    assert json.loads(loop["details_json"])["causes"] == {"member_joined": 5, "member_left": 4}

    closing, unsub = "the consumer is being closed", "the consumer unsubscribed from all topics"
    left = [dataclasses.replace(e, reason=unsub, raw=e.raw.replace(closing, unsub))
            if e.kind == "leave_group" and e.source == w3 else e for e in events]
    (other,) = storms(left, 5, 600_000)
    assert json.loads(other["details_json"])["count"] == 9


def test_windows_that_only_follow_each_other_are_two_storms_not_one():
    # 3 in 20 s: windows from T0 (gens 1-3) and +1 s (gens 2-4) share rebalances: one episode of
    # four; the next window (+42 s .. +61 s, gens 5-7) begins 21 s after +21 s with no rebalance
    # in between: a second episode, not "7 rebalances in 61 s"; the two later expiries are alone
    events = broker_rebalances([1_000, 11_000, 21_000, 42_000, 51_000, 61_000, 1_000_000, 2_000_000], [EXPIRY] * 8)
    got = [(f["title"], f["start_ms"] - T0, f["end_ms"] - T0) for f in storms(events, 3, 20_000)]
    assert got == [("4 rebalances in 21.0 s (generations 1-4)", 0, 21_150),
                   ("3 rebalances in 19.0 s (generations 5-7)", 42_000, 61_150)]


def test_a_scale_out_before_a_storm_neither_hides_it_nor_joins_it():
    # two members joining within a second (a scale-out, not a storm), then ten minutes later three
    # expiries 10 s apart: one storm of those three
    events = broker_rebalances([1_000, 601_000, 611_000, 621_000], [JOIN, EXPIRY, EXPIRY, EXPIRY])
    (f,) = storms(events, 2, 10_000)
    assert json.loads(f["details_json"]) == {"count": 3, "window_ms": 10_000, "generations": [3, 4, 5],
                                             "causes": {"session_expiry": 3}}
    assert (f["start_ms"] - T0, f["end_ms"] - T0) == (601_000, 621_150)
    assert f["explanation"].endswith("The most frequent cause was session_expiry (3 of 3); fix that cause first.")
