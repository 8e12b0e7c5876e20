""""Nobody consumed t-0 for 9 min" only when the logs show every member's assignment meanwhile.

Generation 2 has three members (the broker: "Stabilized group ... with 3 members"): A and B, whose
logs are in the input, and C. C holds t-0 from +60 s to +600 s; then B gets it. Without C's log
the replay sees t-0 given up by A and taken by B nine minutes later: that it had no owner is not
proven, and the finding says so (low, "unproven"); with C's log there is no gap at all; and when
the broker counts only the members whose assignments are known, the gap is a fact (medium)."""

from __future__ import annotations

import json

from pipeline.replay import replay_group
from tests.replay.builders import Host, merged
from tests.replay.scenarios import T0


def three_members(with_c_log: bool, broker_count: int = 3) -> list:
    a, b, c = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b"), Host("hostC/app.log", "c-c")
    k = Host("broker1/server.log", side="broker")
    a.join(T0, 1, "A", ["t-0", "t-1"])
    k.preparing(T0 + 60_000, 1, "Adding new member B with group instance id None; client reason: not provided")
    a.revoke(T0 + 60_010, ["t-0", "t-1"])
    a.join(T0 + 60_020, 2, "A", ["t-1"])
    b.join(T0 + 60_000, 2, "B", ["t-2"])
    c.join(T0 + 60_000, 2, "C", ["t-0"])
    k.stabilized(T0 + 60_200, 2, broker_count)
    k.assignment(T0 + 60_250, 2, "A")
    k.preparing(T0 + 600_000, 2, "Removing member C on LeaveGroup; client reason: the consumer is being closed")
    c.revoke(T0 + 599_990, ["t-0"])
    c.ev(T0 + 599_995, "leave_group", member_id="C", reason="the consumer is being closed")
    a.revoke(T0 + 600_010, ["t-1"])
    b.revoke(T0 + 600_010, ["t-2"])
    a.join(T0 + 600_020, 3, "A", ["t-1"])
    b.join(T0 + 600_020, 3, "B", ["t-0", "t-2"])
    k.stabilized(T0 + 600_200, 3, 2)
    k.assignment(T0 + 600_250, 3, "A")
    hosts = [a, b, k] + ([c] if with_c_log else [])
    return merged(*hosts)


def unowned(events) -> list[dict]:
    return [f for f in replay_group(events).findings if f["kind"] == "unowned_partitions"]


def test_with_every_members_log_t0_was_always_owned():
    assert unowned(three_members(with_c_log=True)) == []


def test_without_c_log_the_gap_is_unproven_and_said_so():
    (f,) = unowned(three_members(with_c_log=False))
    assert f["severity"] == "low" and f["partitions"] == ["t-0"] and f["members"] == ["A", "B"]
    assert f["title"] == "t-0: no owner in the logs for 9.0 min (unproven)"
    assert (f["start_ms"], f["end_ms"]) == (T0 + 60_010, T0 + 600_180)
    assert "Nobody consumed" not in f["explanation"]
    assert ("But 1 member of generation 2 has an assignment the logs do not show (its log is not in the "
            "input), so t-0 may have been consumed.") in f["explanation"]
    d = json.loads(f["details_json"])
    assert d["unproven"] is True and d["unseen_assignments"] == {"2": 1} and d["gap_ms"] == 540_170


def test_when_the_broker_counts_only_the_known_members_the_gap_is_a_fact():
    # the broker counts two members: A and B are all there is
    (f,) = unowned(three_members(with_c_log=False, broker_count=2))
    assert f["severity"] == "medium" and f["title"] == "t-0 had no owner for 9.0 min"
    assert f["explanation"].startswith("Nobody consumed t-0 for 9.0 min: member A (client c-a) gave it up (revoked)")
    assert "unproven" not in json.loads(f["details_json"])


def test_without_a_count_an_eager_assignment_leaving_a_partition_out_shows_a_member_not_in_the_logs():
    # no "with N members" (a broker line without it, as before 2.x): generation 2's logged
    # assignments (A t-1, B t-2) leave out t-0, which generation 1 showed; a range assignment
    # gives every partition to someone: a member whose log is missing held it
    events = [e for e in three_members(with_c_log=False)
              if not (e.kind == "broker_group_stabilized" and e.generation == 2)]
    (f,) = unowned(events)
    assert f["severity"] == "low" and f["title"] == "t-0: no owner in the logs for 9.0 min (unproven)"
    assert "But at least 1 member of generation 2 has an assignment the logs do not show" in f["explanation"]
    gens = {g["generation"]: g for g in replay_group(events).generations}
    assert gens[2]["members"] == ["A", "B"] and gens[2]["member_count"] is None
    # with C's log the three are named and hold every partition, but a fourth member holding
    # nothing (more members than partitions) would leave no line in these logs: still no count
    full = {g["generation"]: g for g in replay_group(
        [e for e in three_members(with_c_log=True) if not (e.kind == "broker_group_stabilized" and e.generation == 2)]
    ).generations}
    assert full[2]["members"] == ["A", "B", "C"] and full[2]["member_count"] is None
    # the broker's count makes it a fact
    assert {g["generation"]: g for g in replay_group(three_members(with_c_log=True)).generations}[2][
        "member_count"] == 3


def test_generations_missing_from_the_logs_make_a_gap_unproven():
    # one member's log: A holds t-0 in generation 1, loses it at +10 s (expelled), and its process
    # holds it again in generation 4 three minutes later (as A2); generations 2 and 3 are not in its log (it was not in them),
    # so whoever held t-0 there is unknown. Before: "t-0 had no owner for 3.0 min" (medium)
    from pipeline.replay import replay_group
    from tests.replay.builders import Host, merged
    from tests.replay.scenarios import T0

    a = Host("hostA/app.log", "c-a")
    a.join(T0, 1, "A", ["t-0"])
    a.ev(T0 + 10_000, "heartbeat_failed", error="UNKNOWN_MEMBER_ID")    # expelled
    a.ev(T0 + 10_001, "partitions_lost", partitions=["t-0"])
    a.join(T0 + 190_000, 4, "A2", ["t-0"])
    (f,) = [f for f in replay_group(merged(a)).findings if f["kind"] == "unowned_partitions"]
    assert (f["severity"], f["title"]) == ("low", "t-0: no owner in the logs for 3.0 min (unproven)")
    assert json.loads(f["details_json"]) == {"gap_ms": 180_159, "threshold_ms": 60_000, "unproven": True,
                                             "generations_not_in_logs": [2, 3]}
    assert "generations 2, 3 are not in the logs at all" in f["explanation"]
