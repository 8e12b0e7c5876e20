"""The generator's sample scenarios: parse the logs with `coordscope parse`, replay, compare with
truth.json (generations, causes, offset ranges). Three scenarios by default, all with -m slow."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from parsers.events import Event
from pipeline.replay import replay_group

# truth.json names (pipeline/generator/broker_model.py) -> the replay's cause vocabulary
TRUTH_CAUSE = {"session_expired": "session_expiry", "metadata_change": "metadata_or_subscription_change"}
QUICK = ["gc_pause_session_expiry", "offset_reset_skip_and_rewind", "static_member_restart", "mixed_clients_max_poll"]
SLOW = ["coordinator_failover", "healthy_scale_out", "poll_timeout_slow_processing", "rolling_deploy",
        "cooperative_scale_out", "scale_in_roundrobin", "rebalance_storm"]


def replayed(repo_root, scenario):
    folder = repo_root / "sample_logs" / scenario
    if not (folder / "truth.json").is_file():
        pytest.skip(f"sample_logs/{scenario} not present")
    files = sorted(str(p) for p in folder.iterdir() if p.name not in ("truth.json", "README.md"))
    out = subprocess.run([sys.executable, "-m", "pipeline.cli", "parse", *files], cwd=repo_root,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    truth = json.loads((folder / "truth.json").read_text())
    events = [Event.from_dict(json.loads(line)) for line in out.stdout.splitlines() if line.strip()]
    return replay_group([e for e in events if e.group_id == truth["group_id"]]), truth


def truth_cause(c: dict) -> str:
    kind = TRUTH_CAUSE.get(c["kind"], c["kind"])
    if kind == "member_left" and "poll" in (c.get("detail") or ""):
        kind = "poll_timeout"
    return kind


def check(repo_root, scenario):
    r, truth = replayed(repo_root, scenario)
    mine = {g["generation"]: g for g in r.generations}
    assert sorted(mine) == [g["generation"] for g in truth["generations"]]
    for g in truth["generations"]:
        m = mine[g["generation"]]
        assert m["cause"] == truth_cause(g["cause"]), (g["generation"], m["cause_detail"])
        if m["members"] and not m["members"][0].startswith("consumer@"):   # real ids (not a pre-1.0 log)
            assert m["members"] == sorted(x["member_id"] for x in g["members"])
            assert m["trigger_member"] == g["cause"].get("member_id")
        if g["rebalance_started_ms"] and m["started_ms"]:
            assert abs(m["started_ms"] - g["rebalance_started_ms"]) <= 1_500
    # offset ranges, both directions: a truth range whose bounds the files prove is found exactly and
    # not estimated; one with an unproven bound is found estimated, equal on the proven bound
    for kind, finding in (("skipped", "offset_skip"), ("reprocessed", "offset_rewind")):
        mine = [(f["partitions"][0], json.loads(f["details_json"])) for f in r.findings if f["kind"] == finding]
        mine = [(tp, d["from_offset"], d["to_offset_exclusive"], bool(d.get("estimated"))) for tp, d in mine]

        def matches(t, m):
            known = t["knowable"]
            if m[0] != t["partition"]:
                return False
            if known["from"] and known["to"]:
                return (m[1], m[2], m[3]) == (t["from"], t["to"], False)
            return m[3] and (not known["from"] or m[1] == t["from"]) and (not known["to"] or m[2] == t["to"])

        missed = [(t["partition"], t["from"], t["to"]) for t in truth[kind] if sum(matches(t, m) for m in mine) != 1]
        false = [m for m in mine if sum(matches(t, m) for t in truth[kind]) != 1]
        assert (missed, false) == ([], []), kind
    return r, truth


@pytest.mark.parametrize("scenario", QUICK)
def test_sample_scenarios(repo_root, scenario):
    check(repo_root, scenario)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SLOW)
def test_sample_scenarios_all(repo_root, scenario):
    check(repo_root, scenario)


def test_offset_scenario_ranges_exact(repo_root):
    r, truth = check(repo_root, "offset_reset_skip_and_rewind")
    rewinds = sorted((f["partitions"][0], json.loads(f["details_json"])["from_offset"],
                      json.loads(f["details_json"])["to_offset_exclusive"]) for f in r.findings
                     if f["kind"] == "offset_rewind")
    assert rewinds == sorted((x["partition"], x["from"], x["to"]) for x in truth["reprocessed"])


def test_what_if_on_the_gc_pause_sample(repo_root):
    """The member paused 3 min 10 s; with a 5 min session timeout it would not have been expelled,
    and neither its expiry nor its rejoin would have rebalanced the group."""
    from pipeline.replay import ReplaySettings, what_if
    from pipeline.replay_rules import model_drive
    from pipeline.replay_rules.settings import resolve

    if not (repo_root / "sample_logs" / "gc_pause_session_expiry" / "truth.json").is_file():
        pytest.skip("sample_logs/gc_pause_session_expiry not present")
    truth = json.loads((repo_root / "sample_logs" / "gc_pause_session_expiry" / "truth.json").read_text())
    folder = repo_root / "sample_logs" / "gc_pause_session_expiry"
    files = sorted(str(p) for p in folder.iterdir() if p.name not in ("truth.json", "README.md"))
    out = subprocess.run([sys.executable, "-m", "pipeline.cli", "parse", *files], cwd=repo_root,
                         capture_output=True, text=True, timeout=600)
    events = [e for e in (Event.from_dict(json.loads(x)) for x in out.stdout.splitlines() if x.strip())
              if e.group_id == truth["group_id"]]
    observed, w = what_if(events, {"session.timeout.ms": "300000"})
    assert [a["generation"] for a in w.rebalances_avoided] == [2, 3]
    assert w.rebalances_observed == 3 and w.rebalances_after == 1
    m = model_drive.compare(events, observed, resolve(events, ReplaySettings(session_timeout_ms=300_000)))
    assert (m["rebalances_observed_settings"], m["rebalances_new_settings"]) == (3, 1)
    assert m["expelled_new_settings"] == [] and len(m["expelled_observed_settings"]) == 1


def test_mixed_group_librdkafka_max_poll_leave(repo_root):
    """Java and confluent-kafka-python members: the rebalance of generation 2 is the librdkafka
    member's own MAXPOLL leave (poll_timeout, not a session expiry), at the broker's LeaveGroup time
    although the client's lines are printed 30 s later (log queue served at the next poll());
    every member's client library is the one its own log shows, with librdkafka's version from INIT."""
    r, truth = check(repo_root, "mixed_clients_max_poll")
    g2 = next(g for g in r.generations if g["generation"] == 2)
    t2 = next(g for g in truth["generations"] if g["generation"] == 2)
    assert (g2["cause"], g2["trigger_member"]) == ("poll_timeout", t2["cause"]["member_id"])
    assert "MAXPOLL" in g2["cause_detail"] and "heartbeat thread" not in g2["cause_detail"]
    libs = {(m["member_id"], m["client_library"], m["client_version"]) for m in r.table("memberships")}
    want = {(m["member_id"], m["client_library"], "2.3.0" if m["client_library"] == "librdkafka" else None)
            for m in truth["members"]}
    assert libs == want
    left = {m["member_id"]: (m["leave_reason"], m["left_ms"]) for m in r.table("memberships") if m["left_ms"]}
    gone = next(m for m in truth["members"] if m["left_ms"])
    assert left == {gone["member_id"]: ("poll_timeout", left[gone["member_id"]][1])}
    assert abs(left[gone["member_id"]][1] - gone["left_ms"]) <= 1_000  # the broker's time, not the printed one
    kinds = sorted(f["kind"] for f in r.findings)
    assert kinds == ["poll_timeout"]  # no double ownership, no heartbeat "after removal" from late-printed lines
    f = r.findings[0]
    assert abs(f["start_ms"] - gone["left_ms"]) <= 1_000 and "librdkafka" in f["explanation"]
