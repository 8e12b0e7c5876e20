"""Properties over every sample scenario (sample_logs/*/truth.json), checked against the truth:
no finding on a healthy scenario; every finding's time lies within its evidence lines' span; every
session expiry is found, at the broker's time; no partition reported unowned that the truth has owned;
every knowable member of every generation found, also from the broker's log alone."""

from __future__ import annotations

import json
from functools import cache

import pytest

from parsers import parse_path
from pipeline.replay import replay_group
from tests.conftest import SAMPLE_LOGS

# classic-protocol truths (coordscope-truth/1); the consumer-protocol ones are checked in test_consumer_protocol.py
SCENARIOS = sorted(p.name for p in SAMPLE_LOGS.iterdir() if (p / "truth.json").is_file()
                   and '"coordscope-truth/1"' in (p / "truth.json").read_text()[:60]) if SAMPLE_LOGS.is_dir() else []
HEALTHY = {"healthy_scale_out", "rolling_deploy", "scale_in_roundrobin"}
TOLERANCE_MS = 2_000     # the replay's clock-skew tolerance; the generator skews hosts by < 1 s


@cache
def _events(scenario: str):
    folder = SAMPLE_LOGS / scenario
    truth = json.loads((folder / "truth.json").read_text())
    evs = []
    for p in sorted(folder.iterdir()):
        if p.name in ("truth.json", "README.md"):
            continue
        it, _summary = parse_path(str(p))
        evs += [o.event for o in it if o.event is not None]
    return tuple(e for e in evs if e.group_id == truth["group_id"]), truth


def _replayed(scenario: str, sides: tuple[str, ...] | None = None):
    # not cached (the parse is): a replay cached in the module outlives one pytest run, and a mutation
    # run (scripts/mutation_check.sh) forks each mutant's tests from a process that has run them
    # already, so every test here would read the unmutated code's replay
    events, truth = _events(scenario)
    if sides is not None:
        events = tuple(e for e in events if e.side in sides)
    return replay_group(list(events)), events, truth


@pytest.mark.parametrize("scenario", sorted(HEALTHY & set(SCENARIOS)))
def test_healthy_scenarios_have_no_finding(scenario):
    r, _, _ = _replayed(scenario)
    assert [f["title"] for f in r.findings] == []


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_finding_lies_within_its_evidence(scenario):
    r, events, _ = _replayed(scenario)
    ts = {e.evidence: e.ts_ms for e in events if e.ts_ms is not None}
    for f in r.findings:
        times = [ts[e] for e in f["evidence"] if e in ts]
        assert times, f["title"]
        assert min(times) <= f["start_ms"] <= max(times), (f["kind"], f["title"], f["start_ms"], min(times), max(times))
        assert f["start_ms"] <= f["end_ms"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_session_expiries_are_found_at_the_brokers_time(scenario):
    r, _, truth = _replayed(scenario)
    expired = sorted(m["left_ms"] for m in truth["members"]
                     if (m.get("leave") or {}).get("why") == "session_expiry")
    found = sorted(f["start_ms"] for f in r.findings if f["kind"] == "session_expiry")
    assert len(found) == len(expired), (found, expired)
    for got, want in zip(found, expired, strict=True):
        assert abs(got - want) <= TOLERANCE_MS, (got, want)


def _truth_unowned(truth: dict, threshold: int) -> set[tuple[str, int, int]]:
    out = set()
    for tp, ivs in truth["ownership"].items():
        ivs = sorted(ivs, key=lambda x: x["from_ms"])
        for a, b in zip(ivs, ivs[1:], strict=False):
            if a["to_ms"] is not None and b["from_ms"] - a["to_ms"] > threshold:
                out.add((tp, a["to_ms"], b["from_ms"]))
    return out


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_no_partition_reported_unowned_while_the_truth_has_an_owner(scenario):
    r, _, truth = _replayed(scenario)
    truth_gaps = _truth_unowned(truth, r.settings.unowned_threshold_ms)
    for f in r.findings:
        if f["kind"] != "unowned_partitions":
            continue
        (tp,) = f["partitions"]
        assert any(t == tp and abs(a - f["start_ms"]) <= TOLERANCE_MS and abs(b - f["end_ms"]) <= TOLERANCE_MS
                   for t, a, b in truth_gaps), f["title"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_generation_members_and_causes_from_all_logs(scenario):
    r, _, truth = _replayed(scenario)
    rows = {g["generation"]: g for g in r.generations}
    for g in truth["generations"]:
        mine = rows[g["generation"]]
        assert mine["members"] == sorted(m["member_id"] for m in g["members"]) or \
            any("@" in m for m in mine["members"]), g["generation"]   # 0.10 clients print no member ids


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_broker_log_alone_names_no_wrong_member(scenario):
    """From the broker's lines only, every member listed is a true member of that generation, the
    leader (when named) is the true one, and the count is the broker's."""
    r, events, truth = _replayed(scenario, ("broker",))
    if not events:
        pytest.skip("no broker log")
    rows = {g["generation"]: g for g in r.generations}
    for g in truth["generations"]:
        mine = rows.get(g["generation"])
        if mine is None:
            continue
        true_members = {m["member_id"] for m in g["members"]}
        assert set(mine["members"]) <= true_members, (g["generation"], set(mine["members"]) - true_members)
        if mine["leader"] is not None:
            assert mine["leader"] == g["leader"], g["generation"]
        if mine["member_count"]:
            assert mine["member_count"] == len(true_members)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_broker_log_alone_finds_every_member_a_3x_broker_names(scenario):
    """A 3.x broker names members as they join ("Dynamic member with unknown member id joins ...
    Created a new member id X") and the leader: where every member of a generation is named by some
    broker line, the generation is complete from the broker's log alone (a static member's new id
    after "Replacing previously mapped member" may be named nowhere: then it is counted, not named)."""
    r, events, truth = _replayed(scenario, ("broker",))
    if not events or truth["broker_version"] != "3.x":
        pytest.skip("not a 3.x broker log")
    text = " ".join(e.raw for e in events)
    rows = {g["generation"]: g for g in r.generations}
    for g in truth["generations"]:
        true_members = sorted(m["member_id"] for m in g["members"])
        assert rows[g["generation"]]["member_count"] == len(true_members)
        if all(m in text for m in true_members):
            assert rows[g["generation"]]["members"] == true_members, g["generation"]
        else:
            assert "not named in the logs" in rows[g["generation"]]["cause_detail"]
        assert rows[g["generation"]]["leader"] == g["leader"]
        # a cause only the client's log states (librdkafka's MAXPOLL leave: its LeaveGroup carries no
        # reason, the broker logs "client reason: not provided") is a plain LeaveGroup to the broker
        want = "member_left" if g["cause"].get("client_side") else g["cause"]["kind"]
        assert rows[g["generation"]]["cause"] == {"session_expired": "session_expiry",
                                                  "metadata_change": "metadata_or_subscription_change"}.get(want, want)
