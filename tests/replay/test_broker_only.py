"""Groups seen only through the broker's GroupCoordinator log (no client logs): members, leaders,
leaves and causes reconstructed from what the broker's lines state, and marked where inferred.
Wordings are those of kafka.coordinator.group.GroupCoordinator (2.1-3.x) and GroupMetadataManager
(3.8+ consumer groups), see shared/formats/kafka-coordinator-log-templates.tsv."""

from __future__ import annotations

from parsers.events import Event
from pipeline.replay import replay_group
from tests.replay.builders import Host, merged

T0 = 1_700_000_000_000
G = "payments"


def _broker() -> Host:
    return Host("broker1/server.log", side="broker")


def dynamic(h: Host, ts: int, member: str, state: str = "PreparingRebalance") -> None:
    # GroupCoordinator 3.x: "Dynamic member with unknown member id joins group ... Created a new member id X"
    h.ev(ts, "broker_member_joined", member_id=member,
         raw=f"[GroupCoordinator 1]: Dynamic member with unknown member id joins group {G} in {state} state. "
             f"Created a new member id {member} and request the member to rejoin with this id.")


def left(h: Host, ts: int, member: str, reason: str = "the consumer is being closed") -> None:
    # GroupCoordinator 3.2+: "Member X has left group G through explicit `LeaveGroup`; client reason: R"
    h.ev(ts, "broker_member_removed", member_id=member, reason=reason,
         raw=f"[GroupCoordinator 1]: Member {member} has left group {G} through explicit `LeaveGroup`; "
             f"client reason: {reason}")


def left_2x(h: Host, ts: int, member: str) -> None:
    # GroupCoordinator 2.4-2.8: "Member[group.instance.id None, member.id X] in group G has left, removing it"
    h.ev(ts, "broker_member_removed", member_id=member,
         raw=f"[GroupCoordinator 1]: Member[group.instance.id None, member.id {member}] in group {G} has left, "
             "removing it from the group")


def empty(h: Host, ts: int, gen: int) -> None:
    h.ev(ts, "broker_group_empty", generation=gen,
         raw=f"[GroupCoordinator 1]: Group {G} with generation {gen} is now empty (__consumer_offsets-12)")


def three_x() -> list[Event]:
    """3.x broker: A, B, C form generation 1 (leader A); C's heartbeats stop (has failed) -> gen 2;
    A and B close -> generation 3 is empty."""
    k = _broker()
    dynamic(k, T0, "A", "Empty")
    k.preparing(T0 + 4, 0, "Adding new member A with group instance id None; client reason: not provided")
    dynamic(k, T0 + 700, "B")
    dynamic(k, T0 + 1_400, "C")
    k.stabilized(T0 + 3_004, 1, 3)
    k.assignment(T0 + 3_010, 1, "A")
    k.failed(T0 + 60_000, "C")
    k.preparing(T0 + 60_000, 1, "removing member C on heartbeat expiration")
    k.stabilized(T0 + 62_000, 2, 2)
    k.assignment(T0 + 62_005, 2, "A")
    left(k, T0 + 120_000, "A")
    k.preparing(T0 + 120_000, 2, "removing member A on LeaveGroup; client reason: the consumer is being closed")
    left(k, T0 + 120_000, "B")
    empty(k, T0 + 120_000, 3)
    return merged(k)


def test_members_and_leaders_from_broker_lines():
    r = replay_group(three_x())
    rows = {g["generation"]: g for g in r.generations}
    assert sorted(rows) == [1, 2, 3]
    assert (rows[1]["members"], rows[1]["leader"], rows[1]["member_count"]) == (["A", "B", "C"], "A", 3)
    assert (rows[2]["members"], rows[2]["leader"], rows[2]["member_count"]) == (["A", "B"], "A", 2)
    assert rows[3]["members"] == [] and rows[3]["member_count"] == 0
    # every member of generations 1-2 is named by a line of that generation (B by its leave line)
    assert "inferred" not in rows[2]["cause_detail"] and "2 named by lines" in rows[2]["cause_detail"]
    assert (rows[2]["cause"], rows[2]["trigger_member"]) == ("session_expiry", "C")


def test_leaves_recorded_when_the_group_empties():
    r = replay_group(three_x())
    left_rows = {(m["generation"], m["member_id"]): (m["left_ms"], m["leave_reason"]) for m in r.memberships}
    assert left_rows[(1, "C")] == (T0 + 60_000, "session_expiry")
    assert left_rows[(2, "A")] == (T0 + 120_000, "shutdown")
    assert left_rows[(2, "B")] == (T0 + 120_000, "shutdown")
    g3 = next(g for g in r.generations if g["generation"] == 3)
    assert (g3["cause"], g3["trigger_member"]) == ("member_left", "A")


def test_the_group_emptying_by_leaves_is_member_left_without_broker_reasons():
    """2.2-2.3 brokers: "Member X in group G has left, removing it from the group" and a prepare line
    without a reason; the client logs of the members are absent."""
    k = _broker()
    k.preparing(T0, 0, "Adding new member A")
    k.stabilized(T0 + 3_000, 1, 1)
    k.assignment(T0 + 3_010, 1, "A")
    k.ev(T0 + 50_000, "broker_member_removed", member_id="A",
         raw=f"[GroupCoordinator 1]: Member A in group {G} has left, removing it from the group")
    k.ev(T0 + 50_000, "broker_rebalance_preparing", generation=1,
         raw=f"[GroupCoordinator 1]: Preparing to rebalance group {G} in state PreparingRebalance with old "
             "generation 1 (__consumer_offsets-12)")
    empty(k, T0 + 50_000, 2)
    r = replay_group(merged(k))
    g2 = next(g for g in r.generations if g["generation"] == 2)
    assert (g2["cause"], g2["trigger_member"]) == ("member_left", "A")
    a1 = next(m for m in r.memberships if m["generation"] == 1)
    assert (a1["member_id"], a1["left_ms"], a1["leave_reason"]) == ("A", T0 + 50_000, "left")


def test_old_generation_seen_makes_a_row():
    k = _broker()
    k.preparing(T0, 7, "removing member X on heartbeat expiration")
    k.stabilized(T0 + 2_000, 8, 1)
    k.assignment(T0 + 2_005, 8, "Y")
    r = replay_group(merged(k))
    assert [g["generation"] for g in r.generations] == [7, 8]
    g7, g8 = r.generations
    assert "X" in g7["members"] and g7["ended_ms"] == T0
    assert g8["members"] == ["Y"] and g8["cause"] == "session_expiry"


def test_2x_rolling_restart_members_extended_by_the_brokers_counts():
    """2.8 broker: only the trigger of a join is named ("Adding new member X with group instance id
    None"); members that joined with it are named later by their removal; the "with N members" counts
    leave room for them in the earlier generations."""
    k = _broker()
    k.preparing(T0, 0, "Adding new member A with group instance id None")
    k.stabilized(T0 + 3_000, 1, 2)
    k.ev(T0 + 3_004, "broker_assignment_received", generation=1,
         raw=f"[GroupCoordinator 1]: Assignment received from leader for group {G} for generation 1. "
             "The group has 2 members, 0 of which are static.")
    k.preparing(T0 + 20_000, 1, "Adding new member C with group instance id None")
    k.stabilized(T0 + 23_000, 2, 3)
    left_2x(k, T0 + 40_000, "B")
    k.preparing(T0 + 40_000, 2, "removing member B on LeaveGroup")
    k.stabilized(T0 + 41_000, 3, 2)
    r = replay_group(merged(k))
    rows = {g["generation"]: g for g in r.generations}
    # B is first named by its leave in generation 2; generation 1 counts 2 members and names only A
    assert rows[1]["members"] == ["A", "B"] and "inferred: B" in rows[1]["cause_detail"]
    assert rows[2]["members"] == ["A", "B", "C"] and "inferred: A" in rows[2]["cause_detail"]
    assert rows[3]["members"] == ["A", "C"] and rows[3]["cause"] == "member_left"
    assert rows[3]["trigger_member"] == "B"
    # no count, no extension: the same lines without "with N members" leave generation 1 to A
    k2 = _broker()
    for e in k.events:
        k2.ev(e.ts_ms, e.kind, raw=e.raw.split(" with ")[0] if e.kind == "broker_group_stabilized" else e.raw,
              **{f: getattr(e, f) for f in ("member_id", "generation", "reason") if getattr(e, f) is not None})
    rows2 = {g["generation"]: g for g in replay_group(merged(k2)).generations}
    assert rows2[1]["members"] == ["A"]
    # ... and neither a member count nor a leader is claimed from that partial list
    assert (rows2[1]["member_count"], rows2[1]["leader"]) == (None, None)
    assert "may be members it never names" in rows2[1]["cause_detail"]


def test_a_generation_that_empties_when_its_named_members_leave_had_only_them():
    """3.x wording without "with N members" lines: X expires and the group "is now empty", so X
    was the only member of generation 1 (and its leader)."""
    k = _broker()
    k.failed(T0 + 5_000, "X")
    k.preparing(T0 + 5_000, 1, "removing member X on heartbeat expiration")
    empty(k, T0 + 5_000, 2)
    r = replay_group(merged(k))
    g1, g2 = r.generations
    assert (g1["generation"], g1["members"], g1["member_count"], g1["leader"]) == (1, ["X"], 1, "X")
    assert (g2["cause"], g2["members"], g2["member_count"]) == ("session_expiry", [], 0)


def test_2x_lower_case_leader_rejoin_and_2_1_adding_new_member():
    k = _broker()
    # 2.1 - 2.3: "Adding new member X" without the instance id
    k.preparing(T0, 0, "Adding new member consumer-1-aaaa")
    k.stabilized(T0 + 3_000, 1, 1)
    # 2.x: "leader X re-joining group during Stable" in lower case
    k.preparing(T0 + 30_000, 1, "leader consumer-1-aaaa re-joining group during Stable")
    k.stabilized(T0 + 30_500, 2, 1)
    r = replay_group(merged(k))
    g1, g2 = r.generations
    assert (g1["cause"], g1["trigger_member"]) == ("member_joined", "consumer-1-aaaa")
    assert (g2["cause"], g2["trigger_member"]) == ("leader_rejoin", "consumer-1-aaaa")
    assert g1["members"] == g2["members"] == ["consumer-1-aaaa"]


def test_4x_assignment_state_lines_make_generations_from_member_epochs():
    k = _broker()

    def state(ts: int, member: str, epoch: int, prev: int, st: str, parts: str) -> None:
        k.ev(ts, "broker_assignment_received", member_id=member, member_epoch=epoch,
             extra={"previous_member_epoch": prev, "member_state": st, "assigned": parts},
             raw=f"[GroupId {G}] Member {member} new assignment state: epoch={epoch}, previousEpoch={prev}, "
                 f"state={st}, assignedPartitions={parts}.")
    state(T0, "m1", 1, 0, "STABLE", "[t-0, t-1]")
    state(T0 + 10_000, "m1", 2, 1, "UNREVOKED_PARTITIONS", "[t-0]")
    state(T0 + 10_050, "m2", 2, 0, "STABLE", "[t-1]")
    state(T0 + 10_400, "m1", 2, 2, "STABLE", "[t-0]")
    r = replay_group(merged(k))
    rows = {g["generation"]: g for g in r.generations}
    assert sorted(rows) == [1, 2]
    assert rows[1]["members"] == ["m1"] and rows[2]["members"] == ["m1", "m2"]
    assert rows[1]["protocol_type"] == "consumer (KIP-848)"
    mem = {(m["generation"], m["member_id"]): m for m in r.memberships}
    assert mem[(2, "m1")]["assigned"] == ["t-0"] and mem[(2, "m1")]["synced_ms"] == T0 + 10_400
    assert mem[(2, "m2")]["assigned"] == ["t-1"]


def test_protocol_from_the_members_offered_assignors():
    """0.10 clients print no protocol in "Successfully joined group with generation N"; each prints its
    ConsumerConfig. The coordinator's vote over identical offers can only select their first."""
    hosts = []
    for i, strategy in enumerate(("[org.apache.kafka.clients.consumer.RoundRobinAssignor, "
                                  "org.apache.kafka.clients.consumer.RangeAssignor]",) * 2):
        h = Host(f"host{i}/app.log", f"consumer-{i}")
        h.ev(T0 + i, "client_config", extra={"settings": {"partition.assignment.strategy": strategy}})
        h.ev(T0 + 1_000 + 10 * i, "join_started")
        h.ev(T0 + 2_000 + 10 * i, "join_succeeded", generation=1, member_id=f"m{i}")
        hosts.append(h)
    r = replay_group(merged(*hosts))
    assert r.generations[0]["protocol"] == "roundrobin"
    assert "inferred" in r.generations[0]["cause_detail"]
    # one member offering only range: the candidates are {range}; the vote can only pick range
    h = Host("host9/app.log", "consumer-9")
    h.ev(T0 + 9, "client_config", extra={"settings": {"partition.assignment.strategy": "[range]"}})
    h.ev(T0 + 1_090, "join_started")
    h.ev(T0 + 2_090, "join_succeeded", generation=1, member_id="m9")
    r = replay_group(merged(*hosts, h))
    assert r.generations[0]["protocol"] == "range"
    # an unknown offer (no ConsumerConfig printed for one member): left unknown
    u = Host("hostU/app.log", "consumer-u")
    u.ev(T0 + 1_095, "join_started")
    u.ev(T0 + 2_095, "join_succeeded", generation=1, member_id="mu")
    assert replay_group(merged(*hosts, u)).generations[0]["protocol"] is None


def test_a_pending_member_that_never_rejoined_is_no_member_and_not_expelled():
    """KIP-394 (2.2+): the broker hands out a member id and waits for the member to rejoin with it;
    "Pending member X in group G has been removed after session timeout expiration" when it never
    does. X was in no generation: not listed, not a session expiry."""
    k = _broker()
    dynamic(k, T0, "A", "Empty")
    k.preparing(T0 + 4, 0, "Adding new member A with group instance id None; client reason: not provided")
    dynamic(k, T0 + 500, "P")
    k.ev(T0 + 2_900, "broker_member_removed", member_id="P",
         raw=f"[GroupCoordinator 1]: Pending member P in group {G} has been removed after session timeout expiration.")
    k.stabilized(T0 + 3_004, 1, 1)
    k.assignment(T0 + 3_010, 1, "A")
    r = replay_group(merged(k))
    assert r.generations[0]["members"] == ["A"]
    assert not [f for f in r.findings if f["kind"] == "session_expiry"]
