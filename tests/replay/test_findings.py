"""Each finding kind from a hand-written log, with exact spans, members, partitions and evidence."""

from __future__ import annotations

import json

from pipeline.replay import FINDING_KINDS, ReplaySettings, replay_group
from pipeline.schemas import SEVERITIES
from tests.replay import scenarios as S
from tests.replay.scenarios import T0


def only(findings, kind):
    got = [f for f in findings if f["kind"] == kind]
    assert len(got) == 1, (kind, [f["title"] for f in findings])
    return got[0]


def test_rebalance_storm_one_episode():
    r = replay_group(S.storm(n=6, every_ms=20_000))
    f = only(r.findings, "rebalance_storm")
    d = json.loads(f["details_json"])
    assert d["count"] == 7 and d["generations"] == [1, 2, 3, 4, 5, 6, 7]
    assert d["causes"] == {"member_joined": 4, "session_expiry": 3}
    assert f["severity"] == "high" and f["start_ms"] == T0 and f["generation"] == 1
    assert "7 rebalances" in f["title"] and len(f["evidence"]) == 7
    # the broker named three expired members; one session_expiry finding each, no silence known
    exp = [f for f in r.findings if f["kind"] == "session_expiry"]
    assert [e["members"] for e in exp] == [["B0"], ["B2"], ["B4"]]
    assert all("missing evidence" in e["explanation"] for e in exp)
    # A did not appear in the broker-only generations, but nothing says it left
    a1 = next(m for m in r.memberships if m["member_id"] == "A")
    assert a1["left_ms"] is None


def test_no_storm_when_spread_out():
    r = replay_group(S.storm(n=6, every_ms=200_000))
    assert not [f for f in r.findings if f["kind"] == "rebalance_storm"]
    tight = replay_group(S.storm(n=6, every_ms=200_000), ReplaySettings(storm_window_ms=3_600_000))
    assert json.loads(only(tight.findings, "rebalance_storm")["details_json"])["count"] == 7


def test_rebalance_stuck_beyond_rebalance_timeout():
    r = replay_group(S.stuck())
    f = only(r.findings, "rebalance_stuck")
    assert (f["start_ms"], f["end_ms"], f["generation"]) == (T0 + 20_000, T0 + 420_100, 3)
    # the broker names generation 3's two members (C added, A the leader; "with 2 members"), so B,
    # a member of generation 2, is the one that did not make it
    assert json.loads(f["details_json"]) == {"rebalance_ms": 400_100, "rebalance_timeout_ms": 300_000,
                                             "not_rejoined": ["B"]}
    assert r.generations[2]["members"] == ["A", "C"] and r.generations[2]["member_count"] == 2
    assert f["evidence"][0] == "broker1/server.log:1"
    # with a longer max.poll.interval.ms the same rebalance is within its timeout
    r2 = replay_group(S.stuck(), ReplaySettings(max_poll_interval_ms=600_000))
    assert not [f for f in r2.findings if f["kind"] == "rebalance_stuck"]


def test_static_member_fenced():
    f = only(replay_group(S.fenced()).findings, "static_member_fenced")
    assert f["severity"] == "high" and f["members"] == ["A"] and f["evidence"] == ["hostA/app.log:5"]
    assert json.loads(f["details_json"]) == {"instance_id": "inst-a", "count": 1}


def test_inconsistent_protocol():
    f = only(replay_group(S.inconsistent_protocol()).findings, "inconsistent_protocol")
    assert f["evidence"] == ["hostC/app.log:1"] and f["generation"] == 1
    assert json.loads(f["details_json"])["protocol"] == "roundrobin"


def test_stale_commit_and_rewind_range():
    r = replay_group(S.rewind_after_failed_commit())
    stale = only(r.findings, "stale_generation_commit")
    assert stale["members"] == ["A"] and stale["partitions"] == ["t-0"] and stale["generation"] == 1
    rw = only(r.findings, "offset_rewind")
    d = json.loads(rw["details_json"])
    assert (d["from_offset"], d["to_offset_exclusive"], d["records"]) == (100, 150, 50)
    assert rw["partitions"] == ["t-0"] and rw["evidence"] == ["hostA/app.log:6", "hostB/app.log:1"]
    assert (rw["start_ms"], rw["end_ms"]) == (T0 + 9_000, T0 + 9_500)


def test_commit_going_back_is_a_rewind_but_skewed_hosts_are_not():
    from tests.replay.builders import Host, merged

    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    a.ev(T0, "offset_committed", topic="t", partition=1, offset=500)
    b.ev(T0 + 60_000, "offset_committed", topic="t", partition=1, offset=420)
    rw = only(replay_group(merged(a, b)).findings, "offset_rewind")
    assert json.loads(rw["details_json"])["from_offset"] == 420
    # 800 ms apart on two hosts: the order is within clock skew, so no claim is made
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    a.ev(T0 + 800, "offset_committed", topic="t", partition=1, offset=500)
    b.ev(T0, "offset_committed", topic="t", partition=1, offset=520)
    assert not replay_group(merged(a, b)).findings


def test_offset_skip_after_reset_to_latest():
    f = only(replay_group(S.skip_after_reset()).findings, "offset_skip")
    d = json.loads(f["details_json"])
    assert (d["from_offset"], d["to_offset_exclusive"], d["records"]) == (200, 500, 300)
    assert f["severity"] == "high" and f["evidence"] == ["dump/offsets.txt:1", "hostA/app.log:2"]


def test_double_ownership_of_a_zombie():
    r = replay_group(S.session_expiry_broker())
    dbl = sorted((f for f in r.findings if f["kind"] == "double_ownership"), key=lambda f: f["partitions"])
    assert [f["partitions"] for f in dbl] == [["t-2"], ["t-3"]]
    for f in dbl:
        assert f["severity"] == "critical" and f["members"] == ["A", "B"]
        # A got it at T0+67180 (its callback after SyncGroup), B noticed the loss at T0+90010
        assert (f["start_ms"], f["end_ms"]) == (T0 + 67_180, T0 + 90_010)
        assert json.loads(f["details_json"])["overlap_ms"] == 22_830


def test_unowned_partition_for_long():
    f = only(replay_group(S.unowned()).findings, "unowned_partitions")
    assert f["partitions"] == ["t-0"] and (f["start_ms"], f["end_ms"]) == (T0 + 10_000, T0 + 100_160)
    assert json.loads(f["details_json"]) == {"gap_ms": 90_160, "threshold_ms": 60_000}


def test_generation_gap_is_unexplained_missing_evidence():
    r = replay_group(S.generation_gap())
    gap = [f for f in r.findings if f["kind"] == "unexplained" and "missing_generations" in f["details_json"]]
    assert len(gap) == 1 and json.loads(gap[0]["details_json"]) == {"missing_generations": [4, 5]}
    assert gap[0]["evidence"] == ["hostA/app.log:2", "hostA/app.log:6"]


def test_every_finding_is_well_formed():
    for build in (S.storm, S.stuck, S.fenced, S.inconsistent_protocol, S.rewind_after_failed_commit,
                  S.skip_after_reset, S.unowned, S.generation_gap, S.session_expiry_broker, S.poll_timeout,
                  S.coordinator_failover, S.unknown_cause):
        for f in replay_group(build()).findings:
            assert f["kind"] in FINDING_KINDS and f["severity"] in SEVERITIES
            assert f["group_id"] == "payments" and f["title"] and len(f["explanation"]) > 60
            assert f["evidence"] and all(":" in e for e in f["evidence"])
            assert f["start_ms"] is not None and f["end_ms"] >= f["start_ms"]
            json.loads(f["details_json"])


def test_admin_reset_while_group_empty_and_reset_without_commit():
    """Shapes of the generator's offset_reset_skip_and_rewind scenario, written by hand."""
    from tests.replay.builders import Host, merged

    a, d, k = Host("hostA/app.log", "c-a"), Host("dump/offsets.txt", side="offsets"), Host("broker1/server.log", side="broker")
    a.join(T0, 1, "A", ["t-0", "t-1"])
    a.ev(T0 + 200, "no_committed_offset", topic="t", partition=1)
    a.ev(T0 + 201, "offset_reset", topic="t", partition=1, offset=1079)   # auto.offset.reset=latest
    d.ev(T0 + 5_000, "offset_record", topic="t", partition=0, offset=400)
    a.ev(T0 + 9_000, "leave_group", member_id="A", reason="the consumer is being closed")
    k.ev(T0 + 9_010, "broker_group_empty", generation=2,
         raw="[GroupCoordinator 1]: Group payments with generation 2 is now empty (__consumer_offsets-12)")
    d.ev(T0 + 9_020, "offset_record", topic="t", partition=0, offset=410)      # its commit on close: not admin
    d.ev(T0 + 60_000, "offset_record", topic="t", partition=0, offset=900)     # --reset-offsets --to-latest
    d.ev(T0 + 90_000, "offset_record", topic="t", partition=0, offset=700)     # --shift-by -200
    r = replay_group(merged(a, d, k))
    got = sorted((f["kind"], f["partitions"][0], json.loads(f["details_json"])["from_offset"],
                  json.loads(f["details_json"])["to_offset_exclusive"]) for f in r.findings
                 if f["kind"] in ("offset_skip", "offset_rewind"))
    assert got == [("offset_rewind", "t-0", 700, 900), ("offset_skip", "t-0", 410, 900), ("offset_skip", "t-1", 0, 1079)]
    skip = next(f for f in r.findings if f["kind"] == "offset_skip" and f["partitions"] == ["t-0"])
    assert "while the group had no members" in skip["explanation"]
    assert skip["evidence"] == ["dump/offsets.txt:2", "dump/offsets.txt:3"]
    # the group was stopped, so the idle partitions are not reported as left behind
    assert not [f for f in r.findings if f["kind"] == "unowned_partitions"]


def test_estimated_reprocessing_after_a_zombie_loses_its_partition():
    from tests.replay.builders import merged

    events = S.session_expiry_broker()
    extra = []
    from tests.replay.builders import Host

    b, a = Host("hostB/app.log.more", "c-b"), Host("hostA/app.log.more", "c-a")
    b.ev(T0 + 12_000, "offset_committed", topic="t", partition=2, offset=100, member_id="B")
    b.ev(T0 + 17_000, "offset_committed", topic="t", partition=2, offset=200, member_id="B")
    a.ev(T0 + 67_200, "offset_fetched", topic="t", partition=2, offset=200, member_id="A")
    extra = merged(b, a)
    r = replay_group(events + extra)
    (f,) = [f for f in r.findings if f["kind"] == "offset_rewind"]
    d = json.loads(f["details_json"])
    # pace 20 records/s; B worked until its heartbeats stopped (45 s before the expiry seen at
    # A's resume: T0+22200), 5.2 s after its last commit -> about 104 records from 200
    assert (d["from_offset"], d["to_offset_exclusive"], d["estimated"]) == (200, 304, True)
    assert f["members"] == ["A", "B"] and "estimated" in f["title"]


def test_estimated_reprocessing_after_a_revocation_without_commit():
    """enable.auto.commit=false and no commit in onPartitionsRevoked: the progress since the last
    commit is processed again by the next owner, although the hand-over was clean."""
    from tests.replay.builders import Host, merged

    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    a.join(T0, 1, "A", ["t-0"])
    a.ev(T0 + 10_000, "offset_committed", topic="t", partition=0, offset=1_000)
    a.ev(T0 + 20_000, "offset_committed", topic="t", partition=0, offset=2_000)     # 100 records/s
    a.revoke(T0 + 26_000, ["t-0"])                                                    # 6 s later, no commit
    a.ev(T0 + 26_001, "leave_group", member_id="A", reason="the consumer is being closed")
    b.join(T0 + 26_500, 2, "B", ["t-0"])
    b.ev(T0 + 26_700, "offset_fetched", topic="t", partition=0, offset=2_000)
    (f,) = [f for f in replay_group(merged(a, b)).findings if f["kind"] == "offset_rewind"]
    d = json.loads(f["details_json"])
    assert (d["from_offset"], d["to_offset_exclusive"], d["estimated"]) == (2_000, 2_600, True)
    # had A committed at the revocation, nothing would be reported
    a2 = Host("hostA/app.log", "c-a")
    a2.join(T0, 1, "A", ["t-0"])
    a2.ev(T0 + 10_000, "offset_committed", topic="t", partition=0, offset=1_000)
    a2.ev(T0 + 25_900, "offset_committed", topic="t", partition=0, offset=2_590)
    a2.revoke(T0 + 26_000, ["t-0"])
    b2 = Host("hostB/app.log", "c-b")
    b2.join(T0 + 26_500, 2, "B", ["t-0"])
    b2.ev(T0 + 26_700, "offset_fetched", topic="t", partition=0, offset=2_590)
    assert not [f for f in replay_group(merged(a2, b2)).findings if f["kind"] == "offset_rewind"]
