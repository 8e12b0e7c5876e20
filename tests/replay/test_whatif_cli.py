"""What-if evaluation and the `coordscope replay` command (run as a real subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pipeline.replay import what_if
from tests.replay import scenarios as S
from tests.replay.builders import Host, merged
from tests.replay.scenarios import T0


def test_longer_session_timeout_avoids_the_expiry_only_if_the_silence_fits():
    # B was silent from T0+21000 (last heartbeat) until T0+90000 (it woke up): 69 s
    _, w = what_if(S.session_expiry_broker(), {"session.timeout.ms": "60000"})
    assert w.rebalances_avoided == [] and w.rebalances_observed == 3
    _, w = what_if(S.session_expiry_broker(), {"session.timeout.ms": "75000"})
    assert [a["generation"] for a in w.rebalances_avoided] == [3]
    assert w.expulsions_avoided == [{"generation": 3, "member": "B", "silence_ms": 69_000,
                                     "session_timeout_ms": [45_000, 75_000]}]
    assert w.rebalances_after == 2


def test_a_crashed_member_is_expelled_under_any_timeout():
    _, w = what_if(S.session_expiry_inferred(), {"session.timeout.ms": "600000"})
    assert w.rebalances_avoided == [] and w.undetermined == []


def test_expelled_process_rejoin_is_avoided_too():
    a, b, k = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b"), Host("broker1/server.log", side="broker")
    S.stable_pair(a, b)
    b.heartbeats(T0 + 12_000, T0 + 21_000)
    k.preparing(T0 + 66_000, 2, "removing member B on heartbeat expiration")
    a.join(T0 + 66_100, 3, "A", ["t-0", "t-1", "t-2", "t-3"])
    b.ev(T0 + 70_000, "heartbeat_failed", error="UNKNOWN_MEMBER_ID")      # back after a 49 s pause
    k.preparing(T0 + 71_000, 3, "Adding new member B2 with group instance id None; client reason: not provided")
    b.join(T0 + 70_500, 4, "B2", ["t-2", "t-3"])
    a.join(T0 + 71_100, 4, "A", ["t-0", "t-1"])
    _, w = what_if(merged(a, b, k), {"session.timeout.ms": "60000"})
    assert [(x["generation"], x["cause"]) for x in w.rebalances_avoided] == [(3, "session_expiry"),
                                                                             (4, "member_joined")]
    assert w.rebalances_observed == 4 and w.rebalances_after == 2


def test_shorter_session_timeout_adds_expulsions_from_heartbeat_gaps():
    a = Host("hostA/app.log", "c-a")
    a.join(T0, 1, "A", ["t-0"])
    a.heartbeats(T0 + 1_000, T0 + 10_000)
    a.heartbeats(T0 + 30_000, T0 + 40_000)        # a 20 s gap between T0+10000 and T0+30000
    _, w = what_if(a.events, {"session.timeout.ms": "15000"})
    assert [(x["member"], x["silence_ms"], x["at_ms"]) for x in w.expulsions_added] == [("A", 20_000, T0 + 25_000)]
    assert len(w.rebalances_added) == 1


def test_poll_timeout_avoided_when_the_stall_fits():
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    S.stable_pair(a, b)
    b.ev(T0 + 311_000, "poll_timeout")            # last poll at T0+11000
    b.ev(T0 + 311_001, "leave_group", member_id="B", reason="consumer poll timeout has expired.")
    b.ev(T0 + 400_000, "partitions_lost", partitions=("t-2", "t-3"))   # the poll loop is back: 389 s stall
    a.join(T0 + 312_001, 3, "A", ["t-0", "t-1", "t-2", "t-3"])
    _, w = what_if(merged(a, b), {"max.poll.interval.ms": "400000"})
    assert w.poll_timeouts_avoided == [{"generation": 3, "member": "B", "stall_ms": 389_000,
                                        "max_poll_interval_ms": [300_000, 400_000]}]
    _, w = what_if(merged(a, b), {"max.poll.interval.ms": "350000"})
    assert w.poll_timeouts_avoided == []


def test_cooperative_assignor_through_kafkas_assignors():
    _, w = what_if(S.member_left(), {"partition.assignment.strategy": "cooperative-sticky"})
    assert (w.assignor["from"], w.assignor["to"]) == ("range", "cooperative-sticky")
    # observed (range, eager): A revokes 4 when B joins, then 2 when B leaves = 6. Cooperative-sticky:
    # A gives up only the 2 that move to B (one follow-up rebalance hands them over), and nothing when
    # B leaves (B's partitions go to A without a revocation)
    assert (w.assignor["partitions_revoked_observed"], w.assignor["partitions_revoked_what_if"]) == (6, 2)
    assert [x["after_generation"] for x in w.rebalances_added] == [2]
    assert w.rebalances_after == w.rebalances_observed + 1
    _, w = what_if(S.member_left(), {"partition.assignment.strategy": "roundrobin"})
    assert (w.assignor["partitions_revoked_what_if"], w.rebalances_added) == (6, [])


def test_assignor_effect_from_observed_assignments_without_the_model():
    from pipeline.replay_rules import whatif

    obs, _ = what_if(S.member_left(), {})
    gens = [whatif._row(v) for v in obs.views]
    eff = whatif._assignor_effect(gens, "range", "cooperative-sticky")
    # gen1 A[t0..t3] -> gen2 A[t0,t1] B[t2,t3] -> gen3 A[t0..t3]: A keeps 2 then 2; 2 move each time;
    # only the first move takes a partition from a member that stays (a cooperative follow-up)
    assert (eff["partitions_kept_across_rebalances"], eff["partitions_moved"]) == (4, 4)
    assert [x["after_generation"] for x in eff["extra_rebalances"]] == [2]


def write_events(path, events, junk=True):
    with open(path, "w") as fh:
        for e in events:
            fh.write(json.dumps(e.to_dict()) + "\n")
        if junk:
            fh.write("not json at all\n")
            fh.write('{"kind": "join_started"}\n')


def cli(repo_root, *args):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", "replay", *map(str, args)], cwd=repo_root,
                          capture_output=True, text=True, timeout=120)


def test_cli_timeline_findings_and_rejects(tmp_path, repo_root):
    path = tmp_path / "events.jsonl"
    write_events(path, S.session_expiry_broker())
    r = cli(repo_root, path)
    assert r.returncode == 0, r.stderr
    assert "group payments: 3 generation(s)" in r.stdout
    assert "gen    3  2023-11-14T22:14:26.000Z  session_expiry, trigger B" in r.stdout
    assert "[critical] double_ownership" in r.stdout and "evidence: broker1/server.log:3" in r.stdout
    assert "2 of 32 input line(s) rejected (1 not JSON, 1 missing fields); first: line 31: not JSON" in r.stderr


def test_cli_what_if_and_json(tmp_path, repo_root):
    path = tmp_path / "events.jsonl"
    write_events(path, S.session_expiry_broker(), junk=False)
    r = cli(repo_root, path, "--set", "session.timeout.ms=75000")
    assert r.returncode == 0, r.stderr
    assert "what if: session.timeout.ms 45000 -> 75000" in r.stdout
    assert "rebalances: 3 observed -> 2 (1 avoided, 0 added)" in r.stdout
    assert "member B not expelled: silent 1 min 09 s < session.timeout.ms 75000" in r.stdout
    r = cli(repo_root, path, "--group", "payments", "--format", "json", "--set", "session.timeout.ms=75000")
    doc = json.loads(r.stdout)
    assert [g["cause"] for g in doc["generations"]] == ["member_joined", "member_joined", "session_expiry"]
    assert doc["what_if"]["rebalances_avoided"][0]["generation"] == 3


@pytest.mark.parametrize("args, message", [
    (["/nonexistent/x.jsonl"], "neither a run directory nor a file"),
    (["EVENTS", "--set", "session.timeout.ms"], "--set needs NAME=VALUE"),
    (["EVENTS", "--set", "bogus.setting=1"], "unknown setting 'bogus.setting'"),
    (["EVENTS", "--set", "session.timeout.ms=soon"], "needs an integer"),
    (["EVENTS", "--set", "partition.assignment.strategy=fancy"], "unknown assignor"),
    (["EVENTS", "--group", "nope"], "no events of group 'nope'"),
])
def test_cli_bad_input_is_one_clear_line(tmp_path, repo_root, args, message):
    path = tmp_path / "events.jsonl"
    write_events(path, S.member_left(), junk=False)
    r = cli(repo_root, *[str(path) if a == "EVENTS" else a for a in args])
    assert r.returncode == 2 and message in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_cli_reads_a_run_dir(tmp_path, repo_root):
    from pipeline import rundir
    from pipeline.replay import events_from_frame  # noqa: F401  (the reader the command uses)

    rows = []
    for e in S.poll_timeout() + [Host("other/app.log", "c-x", group="other").ev(T0, "join_started")]:
        d = e.to_dict()
        d["extra_json"] = json.dumps(d.pop("extra"))
        rows.append(d)
    rundir.write_table(tmp_path, "events", rows)
    rundir.write_manifest(tmp_path, {"inputs": []})
    r = cli(repo_root, tmp_path, "--group", "payments")
    assert r.returncode == 0, r.stderr
    assert "gen    3" in r.stdout and "poll_timeout, trigger B" in r.stdout and "group other" not in r.stdout
    r = cli(repo_root, tmp_path)
    assert "group other" in r.stdout and "group payments" in r.stdout


def model_compare(events, changes):
    from pipeline.replay import ReplaySettings, replay_group
    from pipeline.replay_rules import model_drive
    from pipeline.replay_rules.settings import resolve

    r = replay_group(events)
    return model_drive.compare(events, r, resolve(events, ReplaySettings().with_overrides(changes)))


def test_reference_coordinator_agrees_on_the_avoided_expiry():
    m = model_compare(S.session_expiry_broker(), {"session.timeout.ms": "75000"})
    assert (m["impl"], m["processes"], m["members_not_driven"]) == ("scala", 2, 0)
    # formation, B joins, B expires -> with 75 s the expiry (and its rebalance) is gone
    assert (m["rebalances_observed_settings"], m["rebalances_new_settings"]) == (3, 2)
    assert m["expelled_observed_settings"] == ["c-b@hostB/app.log"] and m["expelled_new_settings"] == []
    m = model_compare(S.session_expiry_broker(), {"session.timeout.ms": "60000"})
    assert m["expelled_new_settings"] == ["c-b@hostB/app.log"]


def test_reference_coordinator_expels_on_a_shorter_timeout():
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    S.stable_pair(a, b)
    a.heartbeats(T0 + 12_000, T0 + 120_000)
    b.heartbeats(T0 + 12_000, T0 + 30_000)
    b.heartbeats(T0 + 50_000, T0 + 120_000)      # a 20 s pause, tolerated by the 45 s default
    m = model_compare(merged(a, b), {"session.timeout.ms": "10000"})
    assert m["expelled_observed_settings"] == []
    assert m["expelled_new_settings"] == ["c-b@hostB/app.log"]
    assert m["rebalances_new_settings"] == m["rebalances_observed_settings"] + 2   # expiry, then its rejoin


def test_reference_coordinator_poll_timeout():
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    S.stable_pair(a, b)
    a.heartbeats(T0 + 12_000, T0 + 420_000)
    b.heartbeats(T0 + 12_000, T0 + 420_000)
    b.ev(T0 + 311_000, "poll_timeout")
    b.ev(T0 + 311_001, "leave_group", member_id="B", reason="consumer poll timeout has expired.")
    b.ev(T0 + 400_000, "partitions_lost", partitions=("t-2", "t-3"))
    m = model_compare(merged(a, b), {"max.poll.interval.ms": "400000"})
    assert m["poll_timeouts_observed_settings"] == ["c-b@hostB/app.log"] and m["poll_timeouts_new_settings"] == []
    assert m["rebalances_new_settings"] < m["rebalances_observed_settings"]


def test_cli_prints_the_reference_coordinator_line(tmp_path, repo_root):
    path = tmp_path / "events.jsonl"
    write_events(path, S.session_expiry_broker(), junk=False)
    r = cli(repo_root, path, "--set", "session.timeout.ms=75000")
    assert ("reference coordinator (scala): 3 rebalance(s) with the observed settings, 2 with the new ones; "
            "expelled: nobody (observed settings: c-b@hostB/app.log)") in r.stdout


@pytest.mark.parametrize("log, group, expected", [
    # MSK 2.8 broker: "has failed" + "Preparing ... (reason: removing member ... on heartbeat expiration)"
    ("006-broker-log4j.log", "RY-Topic_magpie_lark",
     "session_expiry, trigger consumer-RY-Topic_magpie_lark-1-b1fbbe5a-170c-41e1-a4d2-bce2e4d41236"),
    # 3.x broker: an explicit LeaveGroup, then "Stabilized group hotel_group generation 234" (no prepare line)
    ("032-broker-log4j.log", "hotel_group", "member_left, trigger rdkafka-63aece33-c727-4eb0-8f3c-c794e27641bd"),
    # 2.3 broker in docker-compose: a rebalance loop of new members
    ("031-broker-log4j.log", "opal_consumer",
     "member_joined, trigger nonode@nohost/<0.1083.0>-3cd8a2d1-71d7-44a2-bb70-8f8fbbdae613"),
])
def test_real_logs_parsed_then_replayed(shared_dir, repo_root, tmp_path, log, group, expected):
    parsed = subprocess.run([sys.executable, "-m", "pipeline.cli", "parse", str(shared_dir / "real_logs" / log)],
                            cwd=repo_root, capture_output=True, text=True, timeout=120)
    assert parsed.returncode == 0, parsed.stderr
    path = tmp_path / "events.jsonl"
    path.write_text(parsed.stdout)
    r = cli(repo_root, path, "--group", group)
    assert r.returncode == 0, r.stderr
    assert expected in r.stdout


def test_what_if_with_undetermined_cases_gives_a_bound_not_a_verdict():
    from pipeline.replay_rules import render

    no_b = [e for e in S.session_expiry_broker() if not (e.side == "client" and e.source == "hostB/app.log")]
    _, w = what_if(no_b, {"session.timeout.ms": "75000"})
    text = render.what_if(w)
    assert "rebalances: 3 observed -> at most 3 (0 avoided for certain, 0 added, 1 undetermined" in text
    assert "-> 3 (0 avoided" not in text


def test_what_if_equal_to_an_assumed_default_says_so():
    from pipeline.replay_rules import render

    _, w = what_if(S.session_expiry_broker(), {"session.timeout.ms": "45000"})
    text = render.what_if(w)
    assert "session.timeout.ms = 45000 equals the value assumed in force" in text
    assert "nothing changes" not in text


def test_assignor_what_if_over_assignments_the_logs_do_not_all_show_is_estimated():
    # one member's log of a three-member range group (it holds t-4/t-5): the other members'
    # revocations are not in the logs, so the counts cover only this member's, said in words
    from tests.replay.test_one_members_log import one_range_member_of_three

    _, w = what_if(one_range_member_of_three(), {"partition.assignment.strategy": "cooperative-sticky"})
    assert w.assignor["estimated"] is True and w.assignor["generations_with_unseen_assignments"] == [1, 2, 3]
    assert w.assignor["note"].endswith("(estimated: in 3 of the 3 generations the logs do not show every member's "
                                       "assignment; those members' partitions are not counted, and the partition "
                                       "counts come from the partitions seen)")
    # every member's assignment shown: a count, not an estimate
    _, w = what_if(S.member_left(), {"partition.assignment.strategy": "cooperative-sticky"})
    assert "estimated" not in w.assignor and "estimated" not in w.assignor["note"]
