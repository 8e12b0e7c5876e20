"""Session-expiry findings: the time comes from the broker's line, the silence is stated as a proper
range, a member whose owner was still committing is not left unowned, and a process that stopped is
told apart from one that paused (docs/replay.md, "Findings")."""

from __future__ import annotations

import json

from pipeline.replay import ReplaySettings, replay_group
from tests.replay.builders import Host, merged

T0 = 1_700_000_000_000
TEN_S = ReplaySettings(session_timeout_ms=10_000)
A, B = "c-a-1111", "c-b-2222"


def _two_members(b_tail) -> list:
    """A and B in generation 1 (INFO client logs, no heartbeat lines); B's log after T0+20 s is
    written by `b_tail`; the broker removes B at T0+60 s ("has failed", 2.x-3.x wording)."""
    a, b, br = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b"), Host("broker1/server.log", side="broker")
    br.preparing(T0, 0, f"Adding new member {A} with group instance id None")
    a.join(T0, 1, A, ["t-0", "t-1"], took=200)
    b.join(T0 + 50, 1, B, ["t-2", "t-3"], took=150)
    br.stabilized(T0 + 200, 1, 2)
    br.assignment(T0 + 250, 1, A)
    b.ev(T0 + 20_000, "offset_committed", topic="t", partition=2, offset=100, member_id=B)
    b_tail(b)
    br.failed(T0 + 60_000, B)
    br.preparing(T0 + 60_000, 1, f"removing member {B} on heartbeat expiration")
    a.revoke(T0 + 61_000, ["t-0", "t-1"])
    a.join(T0 + 61_000, 2, A, ["t-0", "t-1", "t-2", "t-3"])
    br.stabilized(T0 + 61_100, 2, 1)
    br.assignment(T0 + 61_150, 2, A)
    return merged(a, b, br)


def _expiry(r) -> dict:
    got = [f for f in r.findings if f["kind"] == "session_expiry"]
    assert len(got) == 1, [f["title"] for f in r.findings]
    return got[0]


def test_expiry_time_is_the_brokers_removal_line_not_the_members_last_line():
    f = _expiry(replay_group(_two_members(lambda b: None), TEN_S))
    # the broker removed B at T0+60 s; its last own line was at T0+20 s (40 s earlier)
    assert (f["start_ms"], f["end_ms"]) == (T0 + 60_000, T0 + 60_000)
    d = json.loads(f["details_json"])
    assert d["expiry_time"] == "broker_removal_line" and d["member_fate"] == "stopped"
    assert "broker1/server.log:" in " ".join(f["evidence"])
    # silence: heartbeats are not logged, so it is a range from session.timeout.ms to the last line
    assert "between 10.0 s and 40.0 s" in f["explanation"]


def test_a_stopped_process_is_not_advised_to_look_for_gc_pauses():
    f = _expiry(replay_group(_two_members(lambda b: None), TEN_S))
    assert "look for a long GC pause" not in f["explanation"] and "never logged again" in f["explanation"]


def test_a_process_that_logs_again_after_the_expiry_was_paused():
    def paused(b: Host) -> None:
        b.ev(T0 + 75_000, "heartbeat_failed", member_id=B, error="UNKNOWN_MEMBER_ID")
    f = _expiry(replay_group(_two_members(paused), TEN_S))
    d = json.loads(f["details_json"])
    assert d["member_fate"] == "paused" and "look for a long GC pause" in f["explanation"]
    assert "hostB/app.log:6" in f["evidence"]              # the line that shows it came back


def test_a_restart_on_the_same_host_is_a_crash_not_a_pause():
    def restarted(b: Host) -> None:
        b.ev(T0 + 70_000, "join_started")
        b.ev(T0 + 70_100, "join_succeeded", member_id="c-b-3333", generation=2, protocol="range")
    f = _expiry(replay_group(_two_members(restarted), TEN_S))
    d = json.loads(f["details_json"])
    assert d["member_fate"] == "restarted" and "look for a long GC pause" not in f["explanation"]


def test_no_degenerate_silence_range():
    # B's last line came exactly session.timeout.ms before the removal
    def tail(b: Host) -> None:
        b.ev(T0 + 50_000, "offset_committed", topic="t", partition=2, offset=200, member_id=B)
    f = _expiry(replay_group(_two_members(tail), TEN_S))
    assert "between 10.0 s and 10.0 s" not in f["explanation"]
    assert "about 10.0 s" in f["explanation"]


def _old_broker_with_dump() -> list:
    """0.10 clients and broker: no member ids in client lines, no removal line and no reason on the
    broker's "Preparing to restabilize"; the dump shows B's partition committed until T0+100 s, so B
    was processing until then; the broker rebalanced at T0+109.5 s."""
    a, b = Host("hostA/app.log", "consumer-1"), Host("hostB/app.log", "consumer-1")
    br, dump = Host("broker1/server.log", side="broker"), Host("dump.txt", side="offsets")
    br.ev(T0, "broker_rebalance_preparing", generation=0,
          raw="[GroupCoordinator 1]: Preparing to restabilize group payments with old generation 0")
    a.join(T0, 1, None, ["t-0"], took=200)
    b.join(T0 + 70, 1, None, ["t-1"], took=120)
    br.ev(T0 + 210, "broker_group_stabilized", generation=1,
          raw="[GroupCoordinator 1]: Stabilized group payments generation 1")
    for t in range(T0 + 5_000, T0 + 100_001, 5_000):
        dump.ev(t, "offset_record", topic="t", partition=1, offset=(t - T0) // 10)
        dump.ev(t, "offset_record", topic="t", partition=0, offset=(t - T0) // 10)
    br.ev(T0 + 109_500, "broker_rebalance_preparing", generation=1,
          raw="[GroupCoordinator 1]: Preparing to restabilize group payments with old generation 1")
    a.revoke(T0 + 110_000, ["t-0"])
    a.join(T0 + 110_000, 2, None, ["t-0", "t-1"])
    br.ev(T0 + 110_300, "broker_group_stabilized", generation=2,
          raw="[GroupCoordinator 1]: Stabilized group payments generation 2")
    return merged(a, b, br, dump)


def test_commits_of_its_partition_keep_an_old_member_owning_and_time_the_expiry():
    r = replay_group(_old_broker_with_dump(), TEN_S)
    g2 = next(g for g in r.generations if g["generation"] == 2)
    assert g2["cause"] == "session_expiry"
    f = _expiry(r)
    # the broker's rebalance line is the expiry's time (an expiry starts the rebalance at once)
    assert f["start_ms"] == T0 + 109_500
    assert json.loads(f["details_json"])["expiry_time"] == "broker_rebalance_line"
    assert "dump.txt:" in " ".join(f["evidence"])        # its last sign of life: a commit of t-1
    # B held t-1 until the expiry; A got it at the next generation: no long unowned interval
    assert not [x for x in r.findings if x["kind"] == "unowned_partitions"]
    own = [o for o in r.ownership if o["topic"] == "t" and o["partition"] == 1]
    first = min(own, key=lambda o: o["start_ms"])
    assert first["end_ms"] == T0 + 109_500


def test_a_member_shutting_down_when_expired_is_not_paused():
    """Its lines after the removal are its own close (LeaveGroup on close): a slow shutdown."""
    def closing(b: Host) -> None:
        b.ev(T0 + 61_000, "partitions_revoked", partitions=["t-2", "t-3"])
        b.ev(T0 + 61_010, "leave_group", member_id=B, reason="the consumer is being closed")
    f = _expiry(replay_group(_two_members(closing), TEN_S))
    d = json.loads(f["details_json"])
    assert d["member_fate"] == "stopped" and "look for a long GC pause" not in f["explanation"]
    assert "shutting down" in f["explanation"] and "hostB/app.log:7" in f["evidence"]
