"""Each rebalance cause, from hand-written logs with a known story (exact generations expected)."""

from __future__ import annotations

import json

import pytest

from pipeline import schemas
from pipeline.replay import CAUSES, replay_group
from tests.replay import scenarios as S
from tests.replay.scenarios import T0


def gens(events):
    return {g["generation"]: g for g in replay_group(events).generations}


def test_rows_have_exactly_the_schema_columns():
    r = replay_group(S.session_expiry_broker())
    for name in ("generations", "memberships", "ownership", "findings"):
        rows = r.table(name)
        assert rows, name
        for row in rows:
            assert list(row) == schemas.columns(name)


def test_member_joined_generation_history():
    g = gens(S.member_left())
    assert sorted(g) == [1, 2, 3]
    # A is the only member its log names in generation 1, and no line lists every member (no broker
    # count, no assignment map): who joined first is not proven (tests/replay/test_trigger_unordered.py)
    assert g[1]["cause"] == "member_joined" and g[1]["trigger_member"] is None
    assert "member A (client c-a) is the first whose join the logs time" in g[1]["cause_detail"]
    # B's join is the only change the two logs show, but nothing lists generation 2's members: a
    # member whose log is not here may have joined first (tests/replay/test_partial_logs_truth.py)
    assert g[2]["cause"] == "member_joined" and g[2]["trigger_member"] is None
    assert "member B (client c-b) is the first whose join the logs time; no line lists every member" \
        in g[2]["cause_detail"]
    assert g[2]["members"] == ["A", "B"] and g[2]["leader"] == "A"
    assert json.loads(g[2]["assignment_json"]) == {"A": ["t-0", "t-1"], "B": ["t-2", "t-3"]}
    # B's JoinGroup is the first line of the rebalance; A's SyncGroup (the leader's) made it Stable. As
    # a member whose log is missing may have joined first, the start is only the first line of it:
    # how long it took is not stated as a number, the detail gives the bound
    assert g[2]["started_ms"] == T0 + 10_000 and g[2]["stabilized_ms"] == T0 + 11_050
    assert g[2]["rebalance_ms"] is None and g[2]["ended_ms"] == T0 + 60_010
    assert g[2]["cause_detail"].endswith("How long the rebalance took is not in the logs: no broker line and no line "
                                         "of the member that started it time its start; the first line of it in the "
                                         "logs comes 1.1 s before it was stable, so it took at least that.")
    assert g[2]["evidence"] == ["hostB/app.log:1"]
    assert g[2]["inferred"] is True


def test_member_left_on_shutdown():
    r = replay_group(S.member_left())
    g3 = r.generations[2]
    assert (g3["generation"], g3["cause"], g3["trigger_member"]) == (3, "member_left", "B")
    assert g3["members"] == ["A"] and g3["started_ms"] == T0 + 60_010
    assert g3["evidence"] == ["hostB/app.log:6"]
    b2 = next(m for m in r.memberships if m["member_id"] == "B" and m["generation"] == 2)
    assert (b2["left_ms"], b2["leave_reason"]) == (T0 + 60_010, "shutdown")
    assert b2["revoked"] == ["t-2", "t-3"]


def test_poll_timeout_cause_and_finding():
    r = replay_group(S.poll_timeout())
    g3 = r.generations[2]
    assert (g3["cause"], g3["trigger_member"], g3["started_ms"]) == ("poll_timeout", "B", T0 + 311_000)
    assert "max.poll.interval.ms = 300000" in g3["cause_detail"]
    (f,) = [f for f in r.findings if f["kind"] == "poll_timeout"]
    assert f["members"] == ["B"] and f["partitions"] == ["t-2", "t-3"] and f["generation"] == 2
    assert f["severity"] == "high" and f["evidence"] == ["hostB/app.log:5"]
    # the member's partitions end with its poll timeout (the heartbeat thread's LeaveGroup), not at
    # log end nor at a callback its application logs later
    own_b = [o for o in r.ownership if o["member_id"] == "B"]
    assert {(o["partition"], o["end_ms"], o["end_reason"]) for o in own_b} == {
        (2, T0 + 311_000, "poll_timeout"), (3, T0 + 311_000, "poll_timeout")}


def test_session_expiry_from_broker_reason_with_silence():
    r = replay_group(S.session_expiry_broker())
    g3 = r.generations[2]
    assert (g3["cause"], g3["trigger_member"], g3["inferred"]) == ("session_expiry", "B", False)
    assert g3["started_ms"] == T0 + 66_000 and g3["stabilized_ms"] == T0 + 67_170
    assert "silent for 45.0 s" in g3["cause_detail"]
    # the prepare line, then B's last heartbeat (the start of the silence)
    assert g3["evidence"][:2] == ["broker1/server.log:3", "hostB/app.log:8"]
    (f,) = [f for f in r.findings if f["kind"] == "session_expiry"]
    d = json.loads(f["details_json"])
    assert d["silence_ms"] == 45_000 and d["session_timeout_ms"] == 45_000 and d["inferred"] is False
    # the finding's time is the expiry (the broker's line); the silence's start is a detail
    assert (f["start_ms"], f["end_ms"], f["members"]) == (T0 + 66_000, T0 + 66_000, ["B"])
    assert d["last_seen_ms"] == T0 + 21_000 and d["expiry_time"] == "broker_removal_line"
    b2 = next(m for m in r.memberships if m["member_id"] == "B" and m["generation"] == 2)
    assert (b2["left_ms"], b2["leave_reason"]) == (T0 + 66_000, "session_expiry")


def test_session_expiry_inferred_without_broker_logs():
    r = replay_group(S.session_expiry_inferred())
    g3 = r.generations[2]
    # GroupCoordinator.onExpireHeartbeat fires session.timeout.ms after the last heartbeat: no line
    # times it, its estimate (last sign of life + session.timeout.ms, T0+66000) is only the earliest it
    # can have been; the rebalance starts at its first line (A's rejoin), and its duration is no number
    assert (g3["cause"], g3["trigger_member"], g3["started_ms"]) == ("session_expiry", "B", T0 + 67_000)
    assert g3["rebalance_ms"] is None and "so it took at least" in g3["cause_detail"]
    assert g3["inferred"] is True and "Inferred" in g3["cause_detail"]
    own_b = sorted((o["partition"], o["end_ms"], o["end_reason"]) for o in r.ownership if o["member_id"] == "B")
    assert own_b == [(2, T0 + 66_000, "session_expiry"), (3, T0 + 66_000, "session_expiry")]


def test_static_member_restart():
    g = gens(S.static_restart())
    assert (g[3]["cause"], g[3]["trigger_member"]) == ("static_member_restart", "B2")
    assert g[3]["members"] == ["A", "B2"] and g[3]["started_ms"] == T0 + 20_000


@pytest.mark.parametrize("reason, cause, trigger", [
    ("Leader A re-joining group during Stable; client reason: cached metadata has changed",
     "metadata_or_subscription_change", "A"),
    ("Leader A re-joining group during Stable; client reason: not provided", "leader_rejoin", "A"),
    ("Leader A re-joining group during Stable; client reason: need to revoke partitions and re-join",
     "cooperative_follow_up", "A"),
    ("Updating metadata for member B during Stable; client reason: subscription has changed",
     "metadata_or_subscription_change", "B"),
    ("Adding new member C with group instance id None; client reason: need to re-join with the given member-id: C",
     "member_joined", "C"),
    ("Removing member B on LeaveGroup; client reason: the consumer is being closed", "member_left", "B"),
    ("Removing member B on LeaveGroup; client reason: consumer poll timeout has expired.", "poll_timeout", "B"),
    ("Updating metadata for member B during Stable; client reason: rebalance enforced by user",
     "enforced_rebalance", "B"),
    ("Updating metadata for member B during Stable; client reason: need to revoke partitions and re-join",
     "cooperative_follow_up", "B"),
    ("Removing [B] on pending sync request expiration", "sync_timeout", "[B]"),
])
def test_broker_reasons(reason, cause, trigger):
    g3 = gens(S.broker_reason(reason))[3]
    assert (g3["cause"], g3["trigger_member"], g3["inferred"]) == (cause, trigger, False)
    assert g3["started_ms"] == T0 + 100_000 and g3["evidence"][0] == "broker1/server.log:1"
    assert cause in CAUSES


def test_static_member_restart_from_broker_reason():
    events = S.broker_reason("Adding new member B9 with group instance id Some(inst-b); client reason: not provided")
    from dataclasses import replace

    events = [replace(e, instance_id="inst-b") if e.member_id == "B" else e for e in events]
    g3 = gens(events)[3]
    assert (g3["cause"], g3["trigger_member"]) == ("static_member_restart", "B9")


def test_unrecognised_broker_reason_is_unknown_and_quoted():
    g3 = gens(S.broker_reason("something new in Kafka 9"))[3]
    assert g3["cause"] == "unknown" and "something new in Kafka 9" in g3["cause_detail"]


def test_coordinator_failover():
    r = replay_group(S.coordinator_failover())
    g3 = r.generations[2]
    assert g3["cause"] == "coordinator_failover" and "(1 -> 2)" in g3["cause_detail"]
    assert g3["evidence"][0] == "hostA/app.log:12"
    (f,) = [f for f in r.findings if f["kind"] == "coordinator_failover"]
    assert f["severity"] == "medium" and json.loads(f["details_json"]) == {"from": "1", "to": "2", "rebalances": [3]}


def test_unknown_names_missing_evidence():
    r = replay_group(S.unknown_cause())
    assert [g["cause"] for g in r.generations] == ["unknown", "unknown"]
    assert "any log of generation 4" in r.generations[0]["cause_detail"]
    assert "rejoin reason" in r.generations[1]["cause_detail"]
    unexplained = [f for f in r.findings if f["kind"] == "unexplained"]
    assert [f["generation"] for f in unexplained] == [5, 6]
    assert all(f["evidence"] for f in unexplained)
    assert json.loads(unexplained[0]["details_json"])["missing"][0].startswith("broker GroupCoordinator log")


def test_session_expiry_without_heartbeat_lines_gives_bounds():
    """INFO-level client logs: no heartbeats, so the silence is only bounded."""
    from pipeline.replay import what_if
    from tests.replay.builders import Host, merged

    a, b, k = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b"), Host("broker1/server.log", side="broker")
    S.stable_pair(a, b)                                  # B's last line: T0+11080 (partitions assigned)
    k.preparing(T0 + 71_000, 2, "removing member B on heartbeat expiration")
    a.join(T0 + 71_100, 3, "A", ["t-0", "t-1", "t-2", "t-3"])
    b.ev(T0 + 80_000, "heartbeat_failed", error="UNKNOWN_MEMBER_ID")    # it wakes up
    events = merged(a, b, k)
    g3 = gens(events)[3]
    assert g3["cause"] == "session_expiry"
    assert "between 45.0 s and 59.9 s" in g3["cause_detail"] and g3["evidence"][1] == "hostB/app.log:4"
    # the whole silence ran from [T0+11080, T0+26000] to T0+80000: 54 to 68.9 s
    _, w = what_if(events, {"session.timeout.ms": "70000"})
    assert [x["silence_ms"] for x in w.expulsions_avoided] == [68_920]
    _, w = what_if(events, {"session.timeout.ms": "60000"})
    assert w.expulsions_avoided == [] and "between 54000 and 68920 ms" in w.undetermined[0]["why"]


def test_clients_without_member_ids_crash_looping():
    """0.10-era client lines carry no member id: one name per process, restarts noticed."""
    from tests.replay.builders import Host, merged

    a, b = Host("hostA/app.log", None), Host("hostB/app.log", None)
    a.ev(T0, "join_started")
    a.ev(T0 + 100, "join_succeeded", generation=1)
    a.ev(T0 + 150, "partitions_assigned", partitions=("t-0", "t-1"))
    b.ev(T0 + 10_000, "join_started")
    a.revoke(T0 + 10_200, ["t-0", "t-1"])
    a.ev(T0 + 10_201, "join_started")
    for h in (a, b):
        h.ev(T0 + 10_300, "join_succeeded", generation=2)
    a.ev(T0 + 10_400, "partitions_assigned", partitions=("t-0",))
    b.ev(T0 + 10_400, "partitions_assigned", partitions=("t-1",))
    # B's process dies and restarts 5 s later (no revocation, no leave): a new process
    b.ev(T0 + 15_000, "coordinator_discovered", coordinator="kafka-1:9092 (id: 2147483646 rack: null)")
    b.ev(T0 + 15_100, "join_started")
    a.revoke(T0 + 25_000, ["t-0"])
    a.ev(T0 + 25_001, "join_started")
    for h in (a, b):
        h.ev(T0 + 25_100, "join_succeeded", generation=3)
    g = gens(merged(a, b))
    assert g[2]["members"] == ["consumer@hostA/app.log", "consumer@hostB/app.log"]
    # B's new process joined; nothing lists the members (a 0.10 client logs no assignment map), so
    # the first joiner is not proven
    assert (g[3]["cause"], g[3]["trigger_member"]) == ("member_joined", None)
    assert "consumer@hostB/app.log#2" in g[3]["cause_detail"]
    assert g[3]["members"] == ["consumer@hostA/app.log", "consumer@hostB/app.log#2"]
    own = [o for o in replay_group(merged(a, b)).ownership if o["member_id"] == "consumer@hostB/app.log"]
    # the dead process held t-1 until generation 3 formed without it
    assert [(o["partition"], o["end_ms"]) for o in own] == [(1, T0 + 15_100)]


def test_static_member_restart_without_rebalance():
    from tests.replay.builders import Host, merged

    a, b1, b2 = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b"), Host("hostB/app2.log", "c-b")
    a.join(T0, 1, "A", ["t-0"], instance_id="ia")
    b1.join(T0, 1, "B1", ["t-1"], instance_id="ib")
    b2.join(T0 + 30_000, 1, "B2", ["t-1"], instance_id="ib")     # same generation: no rebalance (KIP-345)
    r = replay_group(merged(a, b1, b2))
    assert [g["members"] for g in r.generations] == [["A", "B1"]]
    b1m = next(m for m in r.memberships if m["member_id"] == "B1")
    assert (b1m["left_ms"], b1m["leave_reason"]) == (T0 + 30_100, "static_replaced")


def test_consumer_protocol_member_epochs_as_generations():
    """KIP-848 (AsyncKafkaConsumer): member state transitions with epochs, no generations."""
    from tests.replay.builders import Host

    a = Host("hostA/app.log", "c-a")
    a.ev(T0, "member_state_changed", member_id="m1", member_epoch=0,
         extra={"from_state": "UNSUBSCRIBED", "to_state": "JOINING"})
    a.ev(T0 + 50, "member_state_changed", member_id="m1", member_epoch=2,
         extra={"from_state": "JOINING", "to_state": "RECONCILING"})
    a.ev(T0 + 60, "partitions_assigned", partitions=("t-2",))
    a.ev(T0 + 70, "member_state_changed", member_id="m1", member_epoch=2,
         extra={"from_state": "ACKNOWLEDGING", "to_state": "STABLE"})
    a.ev(T0 + 9_000, "member_state_changed", member_id="m1", member_epoch=2,
         extra={"from_state": "STABLE", "to_state": "LEAVING"})
    r = replay_group(a.events)
    (g,) = r.generations
    assert (g["generation"], g["protocol_type"], g["members"], g["cause"]) == (2, "consumer (KIP-848)", ["m1"],
                                                                               "member_joined")
    assert (g["started_ms"], g["stabilized_ms"]) == (T0, T0 + 70)
    (m,) = r.memberships
    assert (m["assigned"], m["left_ms"], m["leave_reason"]) == (["t-2"], T0 + 9_000, "left")
    assert [(o["start_ms"], o["end_ms"], o["end_reason"]) for o in r.ownership] == [(T0 + 60, T0 + 9_000, "left")]
