"""Members of generations only the broker's GroupCoordinator log shows (pipeline/replay_rules/broker_members.py):
which members each generation lists, which are inferred (carried / extended), the member count, the
note sentence, leaders and the membership rows, stated exactly and in both directions.

The lines are the coordinator's own wordings (kafka.coordinator.group.GroupCoordinator, see
shared/formats/kafka-coordinator-log-templates.tsv), parsed by the real reader:
  2.2-3.x  "Preparing to rebalance group G in state PreparingRebalance with old generation N
           (__consumer_offsets-P) (reason: R)"
  2.8+     "Stabilized group G generation N (__consumer_offsets-P) with K members" (before: no count)
  3.0+     "Assignment received from leader X for group G for generation N. The group has K members, S of
           which are static." (before: no leader named)
  2.4+     "Dynamic member with unknown member id joins group G in S state. Created a new member id X and
           request the member to rejoin with this id."
  2.4-2.8  "Member[group.instance.id None, member.id X] in group G has left, removing it from the group"
  1.0+     "Member X in group G has failed, removing it from the group"
  2.2+     "Pending member X in group G has been removed after session timeout expiration."
  2.5-2.8  "Static member I of group G with unknown member id rejoins, assigning new member id N, while old
           member id O will be removed."
  3.0+     "Static member with groupInstanceId=I and unknown member id joins group G in Stable state.
           Replacing previously mapped member O with this groupInstanceId."
The sample scenarios' broker logs are replayed alone and compared with their truth.json.

Written for the fifteenth session's mutation pass (docs/testing.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from parsers.reader import parse_lines
from pipeline.replay import replay_group

G = "payments"
GC = "(kafka.coordinator.group.GroupCoordinator)"


def _stamp(ms: int) -> str:
    s, ms = divmod(ms, 1000)
    m, s = divmod(s, 60)
    h, m = divmod(m, 60)
    return f"2024-03-18 {2 + h:02d}:{m:02d}:{s:02d},{ms:03d}"


def replay(lines: list[tuple[int, str]]):
    """Broker lines (ms after 02:00:00, text after the "[GroupCoordinator 1]: " prefix) -> the replay."""
    text = [f"[{_stamp(ms)}] INFO [GroupCoordinator 1]: {msg} {GC}" for ms, msg in lines]
    events = [o.event for o in parse_lines("kafka-1/server.log", enumerate(text, 1)) if o.event is not None]
    r = replay_group([e for e in events if e.group_id == G])
    return r, {g["generation"]: g for g in r.generations}


def note(row: dict) -> str:
    """The broker-members sentence of a generation's cause_detail (it ends at its first period)."""
    d = row["cause_detail"]
    i = d.index("Members from the broker's log only")
    end = re.search(r"\.(?: |$)", d[i:])
    return d[i:i + end.end()].rstrip()


def prep(ms: int, old: int, reason: str, part: int = 12) -> tuple[int, str]:
    return ms, (f"Preparing to rebalance group {G} in state PreparingRebalance with old generation {old} "
                f"(__consumer_offsets-{part}) (reason: {reason})")


def stab(ms: int, gen: int, n: int | None = None) -> tuple[int, str]:
    return ms, (f"Stabilized group {G} generation {gen} (__consumer_offsets-12)"
                + (f" with {n} members" if n is not None else ""))


def assign(ms: int, gen: int, leader: str | None = None, n: int = 2) -> tuple[int, str]:
    if leader is None:   # 2.x: no leader named
        return ms, f"Assignment received from leader for group {G} for generation {gen}"
    return ms, (f"Assignment received from leader {leader} for group {G} for generation {gen}. "
                f"The group has {n} members, 0 of which are static.")


def dynamic(ms: int, member: str, state: str = "PreparingRebalance") -> tuple[int, str]:
    return ms, (f"Dynamic member with unknown member id joins group {G} in {state} state. Created a new member "
                f"id {member} and request the member to rejoin with this id.")


def adding(ms: int, old: int, member: str) -> tuple[int, str]:
    return prep(ms, old, f"Adding new member {member} with group instance id None; client reason: not provided")


def left_2x(ms: int, member: str) -> tuple[int, str]:
    return ms, f"Member[group.instance.id None, member.id {member}] in group {G} has left, removing it from the group"


def left_3x(ms: int, member: str) -> tuple[int, str]:
    return ms, (f"Member {member} has left group {G} through explicit `LeaveGroup`; client reason: "
                "the consumer is being closed")


def failed(ms: int, member: str) -> tuple[int, str]:
    return ms, f"Member {member} in group {G} has failed, removing it from the group"


def empty(ms: int, gen: int) -> tuple[int, str]:
    return ms, f"Group {G} with generation {gen} is now empty (__consumer_offsets-12)"


def mrows(r) -> dict:
    return {(m["generation"], m["member_id"]): m for m in r.memberships}


# ---------------------------------------------------------------------------------------------------
# stated members: a join line, a leader, a rejoin reason, a removal


def test_a_member_named_only_by_its_dynamic_join_line_is_stated_in_the_generation_formed_next():
    """3.x: B's only line is "Dynamic member ... Created a new member id B": B is a member of generation 1,
    the first formed after the line (stated there), and is carried into 2 (no removal logged)."""
    r, g = replay([
        dynamic(0, "A", "Empty"), adding(4, 0, "A"),
        dynamic(700, "B"),
        stab(3_000, 1, 2), assign(3_010, 1, "A"),
        dynamic(40_000, "C", "Stable"), adding(40_004, 1, "C"),
        stab(43_000, 2, 3), assign(43_010, 2, "A", 3),
    ])
    assert (g[1]["members"], g[1]["member_count"], g[1]["leader"]) == (["A", "B"], 2, "A")
    assert note(g[1]) == ("Members from the broker's log only: 2 named by lines of this generation; "
                          "the broker counts 2 member(s).")
    assert g[2]["members"] == ["A", "B", "C"]
    assert note(g[2]) == ("Members from the broker's log only: 2 named by lines of this generation; inferred: B "
                          "(named in an earlier generation, no removal logged since); the broker counts 3 member(s).")
    m = mrows(r)
    # every member's JoinGroup response comes when the join phase completes; only the leader syncs
    # at the "Assignment received" line the broker logs (the others' SyncGroup is not logged)
    assert (m[(1, "B")]["joined_ms"], m[(1, "B")]["synced_ms"]) == (r.generations[0]["stabilized_ms"] - 10, None)
    assert m[(1, "A")]["synced_ms"] == r.generations[0]["stabilized_ms"]
    assert m[(1, "A")]["joined_ms"] == m[(1, "B")]["joined_ms"]
    # evidence: the line that states the member in that generation (line 3, B's join); none when carried
    assert m[(1, "B")]["evidence"] == ["kafka-1/server.log:3"] and m[(2, "B")]["evidence"] == []
    assert m[(2, "C")]["synced_ms"] is None and m[(2, "A")]["is_leader"]


def test_a_join_after_the_last_generation_formed_names_a_member_of_the_unfinished_one_only():
    """The logs end during a rebalance (3.x): C's join lines come after generation 1 formed and no
    generation forms after them. C is a member of generation 2 (the prepare line's), never of 1,
    although generation 1 counts a member its lines do not name."""
    r, g = replay([
        dynamic(0, "A", "Empty"), adding(4, 0, "A"), dynamic(700, "B"),
        stab(3_000, 1, 3), assign(3_010, 1, "A", 3),
        dynamic(40_000, "C", "Stable"), adding(40_004, 1, "C"),
    ])
    assert g[1]["members"] == ["A", "B"] and g[1]["member_count"] == 3
    assert note(g[1]).endswith("the broker counts 3 member(s), so 1 member(s) are not named in the logs.")
    assert "C" in g[2]["members"] and "C" not in g[1]["members"]


def test_a_pending_member_removed_when_the_generation_forms_is_not_in_it_and_later_joiners_are():
    """KIP-394 (2.2+): the join phase waits for a pending member; its removal after the session timeout
    lets the generation form in the same millisecond. P is in no generation; B, whose join line comes
    after P's, is."""
    r, g = replay([
        dynamic(0, "A", "Empty"), adding(4, 0, "A"),
        dynamic(500, "P"),
        dynamic(900, "B"),
        (10_500, f"Pending member P in group {G} has been removed after session timeout expiration."),
        stab(10_500, 1, 2), assign(10_510, 1, "A"),
    ])
    assert g[1]["members"] == ["A", "B"] and g[1]["member_count"] == 2
    assert ("Members from the broker's log only: 2 named by lines of this generation; the broker counts "
            "2 member(s).") == note(g[1])
    assert not [f for f in r.findings if f["kind"] == "session_expiry"]


def test_a_rejoin_reason_names_a_member_of_the_old_and_the_new_generation():
    """3.x "Updating metadata for member Y during Stable" (the logs begin inside generation 5): Y is
    stated in 5 and in 6; X, the leader of both, too. Nothing is inferred."""
    r, g = replay([
        stab(0, 5, 2), assign(10, 5, "X"),
        prep(30_000, 5, "Updating metadata for member Y during Stable; client reason: not provided"),
        stab(30_400, 6, 2), assign(30_410, 6, "X"),
    ])
    assert g[5]["members"] == g[6]["members"] == ["X", "Y"]
    assert (g[6]["cause"], g[6]["trigger_member"]) == ("metadata_or_subscription_change", "Y")
    for n in (5, 6):
        assert note(g[n]) == ("Members from the broker's log only: 2 named by lines of this generation; "
                              "the broker counts 2 member(s).")
    m = mrows(r)
    assert m[(5, "Y")]["evidence"] == m[(6, "Y")]["evidence"] == ["kafka-1/server.log:3"]   # the prepare line


def test_an_expiry_that_completes_the_join_phase_belongs_to_the_generation_before():
    """3.x: C's leave starts the rebalance; B's session expires while the group waits for it, which
    completes the join phase at once (GroupCoordinator.onExpireHeartbeat -> removeMemberAndUpdateGroup ->
    onCompleteJoin): "has failed" and "Stabilized ... generation 2 ... with 1 members" share a
    millisecond, in that order. B was a member of 1, not 2 (before the fix: generation 2 listed A and B
    against the broker's count of 1, B's expiry was put in generation 2, and the note said "members named
    in earlier generations are left out")."""
    r, g = replay([
        dynamic(0, "A", "Empty"), adding(4, 0, "A"), dynamic(500, "B"), dynamic(900, "C"),
        stab(3_000, 1, 3), assign(3_010, 1, "A", 3),
        left_3x(50_000, "C"), prep(50_000, 1, "removing member C on LeaveGroup; client reason: the consumer is "
                                              "being closed"),
        failed(55_000, "B"), stab(55_000, 2, 1), assign(55_010, 2, "A", 1),
    ])
    assert (g[1]["members"], g[2]["members"], g[2]["member_count"]) == (["A", "B", "C"], ["A"], 1)
    assert note(g[2]) == ("Members from the broker's log only: 1 named by lines of this generation; the broker "
                          "counts 1 member(s).")
    m = mrows(r)
    t0 = r.generations[0]["stabilized_ms"] - 3_010
    assert (m[(1, "B")]["left_ms"], m[(1, "B")]["leave_reason"]) == (t0 + 55_000, "session_expiry")
    assert (2, "B") not in m
    # the same expiry a millisecond after generation 2 formed: B was in 2 (expired from it)
    r, g = replay([
        dynamic(0, "A", "Empty"), adding(4, 0, "A"), dynamic(500, "B"), dynamic(900, "C"),
        stab(3_000, 1, 3), assign(3_010, 1, "A", 3),
        left_3x(50_000, "C"), prep(50_000, 1, "removing member C on LeaveGroup; client reason: the consumer is "
                                              "being closed"),
        stab(55_000, 2, 2), assign(55_001, 2, "A", 2), failed(55_001, "B"),
    ])
    assert (g[2]["members"], g[2]["member_count"]) == (["A", "B"], 2)
    assert mrows(r)[(2, "B")]["leave_reason"] == "session_expiry"


# ---------------------------------------------------------------------------------------------------
# carried members, and the broker's count against them


def test_a_second_leave_during_the_rebalance_ends_that_membership_too():
    """2.4-2.7 (reasons, no count): C leaves and starts the rebalance; B leaves during it (no prepare
    line names B). Generation 2 is A alone: B is not carried, and the generation's size is not claimed."""
    r, g = replay([
        adding(0, 0, "A"), stab(3_000, 1), assign(3_010, 1),
        prep(3_100, 1, "Adding new member B with group instance id None"), stab(6_000, 2), assign(6_010, 2),
        prep(6_100, 2, "Adding new member C with group instance id None"), stab(9_000, 3), assign(9_010, 3),
        left_2x(50_000, "C"), prep(50_000, 3, "removing member C on LeaveGroup"),
        left_2x(50_300, "B"),
        stab(52_000, 4), assign(52_010, 4),
    ])
    assert g[3]["members"] == ["A", "B", "C"] and g[3]["member_count"] is None
    assert g[4]["members"] == ["A"] and g[4]["member_count"] is None
    assert note(g[4]) == ("Members from the broker's log only: 0 named by lines of this generation; inferred: A "
                          "(named in an earlier generation, no removal logged since); the broker does not print "
                          "how many members the generation has (before 2.8), so there may be members it never "
                          "names.")
    m = mrows(r)
    assert (m[(3, "B")]["left_ms"], m[(3, "C")]["left_ms"]) == (r.generations[2]["ended_ms"] + 300,
                                                                r.generations[2]["ended_ms"])


def test_members_the_count_rules_out_are_not_carried():
    """2.8 (counts): B's removal is not in the excerpt; generation 2 "with 2 members" names A (leader) and C
    (its join): B, named in generation 1 with no removal since, cannot be a third member."""
    r, g = replay([
        dynamic(0, "A", "Empty"), adding(4, 0, "A"), dynamic(700, "B"),
        stab(3_000, 1, 2), assign(3_010, 1, "A"),
        dynamic(40_000, "C", "Stable"), adding(40_004, 1, "C"),
        stab(43_000, 2, 2), assign(43_010, 2, "A"),
    ])
    assert g[2]["members"] == ["A", "C"] and g[2]["member_count"] == 2
    assert note(g[2]) == ("Members from the broker's log only: 2 named by lines of this generation; the broker "
                          "counts 2 member(s); members named in earlier generations are left out, the broker's "
                          "count rules them out.")
    assert (2, "B") not in mrows(r)
    # the same lines "with 3 members": B is carried, nothing left out
    r3, g3 = replay([
        dynamic(0, "A", "Empty"), adding(4, 0, "A"), dynamic(700, "B"),
        stab(3_000, 1, 2), assign(3_010, 1, "A"),
        dynamic(40_000, "C", "Stable"), adding(40_004, 1, "C"),
        stab(43_000, 2, 3), assign(43_010, 2, "A", 3),
    ])
    assert g3[2]["members"] == ["A", "B", "C"] and "left out" not in g3[2]["cause_detail"]


# ---------------------------------------------------------------------------------------------------
# extended members: first named by a removal, earlier generations filled while the count has room


def _rolling(counts: tuple[int, int, int], first: str = "B", second: str = "D") -> list[tuple[int, str]]:
    """2.8 rolling restart: A joins; generations 1, 2, 3 with the counts given; `first` leaves in 2,
    `second` in 3 (neither named before its leave)."""
    c1, c2, c3 = counts
    return [
        adding(0, 0, "A"), stab(3_000, 1, c1), assign(3_010, 1),
        adding(20_000, 1, "C"), stab(23_000, 2, c2), assign(23_010, 2),
        left_2x(40_000, first), prep(40_000, 2, f"removing member {first} on LeaveGroup"),
        stab(41_000, 3, c3), assign(41_010, 3),
        left_2x(60_000, second), prep(60_000, 3, f"removing member {second} on LeaveGroup"),
        stab(61_000, 4, c3 - 1), assign(61_010, 4),
    ]


def test_members_first_named_by_a_leave_fill_earlier_generations_while_the_count_has_room():
    r, g = replay(_rolling((3, 4, 3)))
    assert g[1]["members"] == ["A", "B", "D"]       # 3 counted: A, and B and D named later by their leaves
    assert g[2]["members"] == ["A", "B", "C", "D"]
    assert g[3]["members"] == ["A", "C", "D"]
    assert g[4]["members"] == ["A", "C"]
    assert note(g[1]) == ("Members from the broker's log only: 1 named by lines of this generation; inferred: B, D "
                          "(first named later by a line that is not a join, so already a member; the broker's "
                          "member count leaves room); the broker counts 3 member(s).")
    # D is named in 3 by its leave (the generation current then); A and C are carried
    assert note(g[3]) == ("Members from the broker's log only: 1 named by lines of this generation; inferred: A, C "
                          "(named in an earlier generation, no removal logged since); the broker counts 3 member(s).")


def test_the_earliest_named_member_takes_the_room_first():
    """Generation 1 counts 2 and names A: one of B (named by its leave in generation 2) and D (in
    generation 3) was in it. B, named first, fills the room; D is in 2 and 3 only."""
    r, g = replay(_rolling((2, 4, 3)))
    assert g[1]["members"] == ["A", "B"]
    assert g[2]["members"] == ["A", "B", "C", "D"]
    # by when they are first named, not by name: M (named in 2) before D (named in 3)
    r, g = replay(_rolling((2, 4, 3), first="M", second="D"))
    assert g[1]["members"] == ["A", "M"]
    assert g[2]["members"] == ["A", "C", "D", "M"]
    assert note(g[1]).endswith("; the broker counts 2 member(s).")
    # a full count (1 of 1 named) leaves no room: nobody is extended into generation 1
    r, g = replay(_rolling((1, 4, 3)))
    assert g[1]["members"] == ["A"] and "inferred" not in note(g[1])


def test_a_member_whose_join_is_logged_is_not_extended_before_it():
    """C's join (generation 2) is logged; C's leave in generation 3 does not make it a member of 1 even
    though generation 1's count has room."""
    r, g = replay([
        adding(0, 0, "A"), stab(3_000, 1, 3), assign(3_010, 1),
        adding(20_000, 1, "C"), stab(23_000, 2, 3), assign(23_010, 2),
        prep(30_000, 2, "Updating metadata for member A during Stable"), stab(30_400, 3, 3), assign(30_410, 3),
        left_2x(40_000, "C"), prep(40_000, 3, "removing member C on LeaveGroup"),
        stab(41_000, 4, 2), assign(41_010, 4),
    ])
    assert g[1]["members"] == ["A"] and g[1]["member_count"] == 3
    assert g[2]["members"] == ["A", "C"]
    assert note(g[1]).endswith("the broker counts 3 member(s), so 2 member(s) are not named in the logs.")


def test_extension_stops_at_a_generation_whose_count_is_full():
    """Generation 2 is full (2 of 2 named), generation 1 has room: X, first named by its expiry in
    generation 3, is not carried back past the full generation."""
    r, g = replay([
        dynamic(0, "A", "Empty"), adding(4, 0, "A"), stab(3_000, 1, 3), assign(3_010, 1, "A", 3),
        dynamic(20_000, "C", "Stable"), adding(20_004, 1, "C"), stab(23_000, 2, 2), assign(23_010, 2, "A"),
        dynamic(30_000, "E", "Stable"), adding(30_004, 2, "E"), stab(33_000, 3, 4), assign(33_010, 3, "A", 4),
        failed(60_000, "X"), prep(60_000, 3, "removing member X on heartbeat expiration"),
        stab(62_000, 4, 3), assign(62_010, 4, "A", 3),
    ])
    assert "X" in g[3]["members"]
    assert "X" not in g[2]["members"] and "X" not in g[1]["members"]
    assert g[1]["members"] == ["A"]


# ---------------------------------------------------------------------------------------------------
# the count sentence, and a generation whose members all left


def test_no_count_and_a_generation_that_nobody_names_between_named_ones():
    """2.4 (reasons, no count): A leaves generation 1; generation 2's members are never named; C joins
    generation 3. Generation 2 lists nobody; 1 and 3 keep their notes, and 1's size is not claimed from
    A's leave (generation 2 is not empty)."""
    r, g = replay([
        adding(0, 0, "A"), stab(3_000, 1), assign(3_010, 1),
        left_2x(20_000, "A"), prep(20_000, 1, "removing member A on LeaveGroup"), stab(22_000, 2), assign(22_010, 2),
        adding(40_000, 2, "C"), stab(43_000, 3), assign(43_010, 3),
    ])
    assert (g[1]["members"], g[1]["member_count"]) == (["A"], None)
    assert (g[2]["members"], g[2]["member_count"]) == ([], None)
    assert (g[3]["members"], g[3]["member_count"]) == (["C"], None)
    assert note(g[1]) == ("Members from the broker's log only: 1 named by lines of this generation; the broker "
                          "does not print how many members the generation has (before 2.8), so there may be "
                          "members it never names.")
    assert note(g[3]).startswith("Members from the broker's log only: 1 named by lines of this generation; the broker")


def test_a_cut_stabilized_line_claims_no_count_from_the_next_generations():
    """2.8+ excerpt beginning after generation 5's "Stabilized" line: A (leader) leaves, generation 6
    counts 1 member. Generation 5 had A and the member 6 counts: its size is not claimed."""
    r, g = replay([
        assign(0, 5, "A"),
        left_3x(20_000, "A"), prep(20_000, 5, "removing member A on LeaveGroup; client reason: closing"),
        stab(22_000, 6, 1), assign(22_010, 6, "B", 1),
    ])
    assert (g[5]["members"], g[5]["member_count"]) == (["A"], None)
    assert (g[6]["members"], g[6]["member_count"]) == (["B"], 1)
    assert "may be members it never names" in note(g[5])


def test_a_generation_whose_named_members_all_left_into_an_empty_group_had_only_them():
    r, g = replay([
        adding(0, 0, "A"), stab(3_000, 1), assign(3_010, 1),
        prep(3_100, 1, "Adding new member B with group instance id None"), stab(6_000, 2), assign(6_010, 2),
        left_2x(50_000, "A"), prep(50_000, 2, "removing member A on LeaveGroup"), left_2x(50_100, "B"),
        empty(50_100, 3),
    ])
    assert (g[2]["members"], g[2]["member_count"]) == (["A", "B"], 2)
    # both named by their leaves; the group emptied when they left: nobody else was in generation 2
    assert note(g[2]) == ("Members from the broker's log only: 2 named by lines of this generation; the broker "
                          "counts 2 member(s).")
    assert (g[1]["members"], g[1]["member_count"]) == (["A"], None)


# ---------------------------------------------------------------------------------------------------
# static members (KIP-345): a new id takes over without a rebalance


def _static_2x(replaced_at: int) -> list[tuple[int, str]]:
    """2.5-2.8: static members A (i-a) and B (i-b) form generation 1 "with 2 members"; C joins generation 2
    "with 3 members"; at `replaced_at` B's restarted process rejoins: "Static member i-b ... assigning new
    member id B2, while old member id B will be removed" (no rebalance)."""
    return sorted([
        (0, f"Adding new static member i-a to group {G} with member id A."), adding(4, 0, "A"),
        (500, f"Adding new static member i-b to group {G} with member id B."),
        stab(3_000, 1, 2), assign(3_010, 1),
        prep(20_000, 1, "Adding new member C with group instance id None"),
        stab(23_000, 2, 3), assign(23_010, 2),
        (replaced_at, f"Static member i-b of group {G} with unknown member id rejoins, assigning new member id B2, "
                      "while old member id B will be removed."),
    ], key=lambda x: x[0])


def test_2x_static_replacement_takes_the_old_ids_slot_not_a_carried_members():
    """B2 took B's place in generation 2 (KIP-345): the broker's "with 3 members" counted A, B, C. B2 is a
    membership of 2, not one of the members 2 formed with; A, carried from 1, stays (before the fix the
    count check counted B2 too, 4 > 3, and dropped A: generation 2 listed B and C only, and said
    "members named in earlier generations are left out")."""
    r, g = replay(_static_2x(30_000))
    assert (g[1]["members"], g[1]["member_count"]) == (["A", "B"], 2)
    assert (g[2]["members"], g[2]["member_count"]) == (["A", "B", "C"], 3)
    assert note(g[2]) == ("Members from the broker's log only: 2 named by lines of this generation; inferred: A "
                          "(named in an earlier generation, no removal logged since); B2 took over from B during "
                          "the generation (a static member's restart, no rebalance); the broker counts 3 member(s).")
    m = mrows(r)
    assert (2, "B2") in m and (1, "B2") not in m
    t0 = r.generations[0]["stabilized_ms"] - 3_010        # 02:00:00 (generation 1 is Stable at 3.010 s)
    assert (m[(2, "B")]["left_ms"], m[(2, "B")]["leave_reason"]) == (t0 + 30_000, "fenced")


def test_2x_static_replacement_in_the_first_generation_leaves_nobody_out():
    """The same replacement while generation 1 is current: 1 formed with A and B (2 named, B2 took over
    from B); nothing was carried, so nothing is "left out" (before the fix: "3 named ... members named in
    earlier generations are left out")."""
    r, g = replay(_static_2x(10_000))
    assert (g[1]["members"], g[1]["member_count"]) == (["A", "B"], 2)
    assert note(g[1]) == ("Members from the broker's log only: 2 named by lines of this generation; B2 took over "
                          "from B during the generation (a static member's restart, no rebalance); the broker "
                          "counts 2 member(s).")
    # B2 carries on into generation 2 (B does not): A, B2 and C
    assert (g[2]["members"], g[2]["member_count"]) == (["A", "B2", "C"], 3)
    assert "left out" not in g[2]["cause_detail"]


def test_3x_static_replacement_ends_the_old_id():
    """3.x: "Replacing previously mapped member B with this groupInstanceId" (the new id is named
    nowhere): B is not carried into generation 2, which counts 2 and names only A."""
    r, g = replay([
        dynamic(0, "A", "Empty"), adding(4, 0, "A"), dynamic(500, "B"),
        stab(3_000, 1, 2), assign(3_010, 1, "A"),
        (30_000, f"Static member with groupInstanceId=i-b and unknown member id joins group {G} in Stable "
                 "state. Replacing previously mapped member B with this groupInstanceId."),
        prep(60_000, 1, "Updating metadata for member A during Stable; client reason: not provided"),
        stab(60_400, 2, 2), assign(60_410, 2, "A"),
    ])
    assert g[1]["members"] == ["A", "B"]
    assert g[2]["members"] == ["A"] and g[2]["member_count"] == 2
    assert note(g[2]).endswith("the broker counts 2 member(s), so 1 member(s) are not named in the logs.")


def test_a_replacement_line_names_the_old_id_as_a_member_of_the_generation_current_then():
    """The excerpt begins inside generation 4 (3.x): B is named only by the line replacing it; it was a
    member of 4 (with A, the leader), and is not carried into 5."""
    r, g = replay([
        stab(0, 4, 2), assign(10, 4, "A"),
        (30_000, f"Static member with groupInstanceId=i-b and unknown member id joins group {G} in Stable "
                 "state. Replacing previously mapped member B with this groupInstanceId."),
        prep(60_000, 4, "Updating metadata for member A during Stable; client reason: not provided"),
        stab(60_400, 5, 2), assign(60_410, 5, "A"),
    ])
    assert (g[4]["members"], g[5]["members"]) == (["A", "B"], ["A"])
    assert note(g[4]) == ("Members from the broker's log only: 2 named by lines of this generation; the broker "
                          "counts 2 member(s).")
    assert mrows(r)[(4, "B")]["evidence"] == ["kafka-1/server.log:3"]
    # an excerpt that begins with the replacement: no generation is current yet, B is placed nowhere
    r, g = replay([
        (0, f"Static member with groupInstanceId=i-b and unknown member id joins group {G} in Stable "
            "state. Replacing previously mapped member B with this groupInstanceId."),
        prep(30_000, 4, "Updating metadata for member A during Stable; client reason: not provided"),
        stab(30_400, 5, 2), assign(30_410, 5, "A"),
    ])
    assert "B" not in g[4]["members"] and g[5]["members"] == ["A"]


# ---------------------------------------------------------------------------------------------------
# the sample scenarios' broker logs alone, against truth.json


def _broker_only(root: Path, scenario: str):
    folder = root / "sample_logs" / scenario
    truth = json.loads((folder / "truth.json").read_text())
    events = []
    for name, what in sorted(truth["files"].items()):
        if what.startswith("broker"):
            lines = enumerate((folder / name).read_text(errors="replace").splitlines(), 1)
            events += [o.event for o in parse_lines(f"{scenario}/{name}", lines) if o.event is not None]
    events = sorted((e for e in events if e.group_id == truth["group_id"]), key=lambda e: e.ts_ms or 0)
    return replay_group(events), truth


# scenario -> per generation: (members listed, of them inferred, member_count); every listed member is
# in the truth's generation, and where listed == the truth's size the lists are equal
BROKER_ONLY = {
    "cooperative_scale_out": {1: (3, 0, 3), 2: (4, 2, 4), 3: (4, 2, 4), 4: (3, 2, 3)},
    "healthy_scale_out": {1: (2, 0, 2), 2: (3, 1, 3), 3: (4, 2, 4)},
    "poll_timeout_slow_processing": {1: (3, 0, 3), 2: (2, 1, 2), 3: (3, 1, 3)},
    "gc_pause_session_expiry": {1: (2, 0, 3), 2: (1, 1, 2), 3: (2, 1, 3)},
    "scale_in_roundrobin": {1: (3, 1, 4), 2: (2, 1, 3), 3: (1, 1, 2)},
    "rolling_deploy": {1: (4, 3, 4), 2: (3, 3, 3), 3: (4, 2, 4), 4: (3, 3, 3), 5: (4, 2, 4), 6: (3, 3, 3),
                       7: (4, 2, 4), 8: (3, 3, 3), 9: (4, 3, 4)},
    "static_member_restart": {1: (3, 0, 3), 2: (1, 0, 2), 3: (2, 0, 3)},
}


@pytest.mark.parametrize("scenario", sorted(BROKER_ONLY))
def test_sample_broker_logs_alone_list_the_true_members(repo_root, scenario):
    r, truth = _broker_only(repo_root, scenario)
    true = {g["generation"]: sorted(m["member_id"] for m in g["members"]) for g in truth["generations"]}
    rows = {g["generation"]: g for g in r.generations}
    got = {}
    for n, row in rows.items():
        inferred = 0
        if "inferred: " in row["cause_detail"]:
            for part in row["cause_detail"].split("; inferred: ")[1:]:
                inferred += len(part.split(" (")[0].split(", "))
        got[n] = (len(row["members"]), inferred, row["member_count"])
        assert set(row["members"]) <= set(true[n]), (n, sorted(set(row["members"]) - set(true[n])))
        if row["member_count"] is not None:
            assert row["member_count"] == len(true[n])
        if len(row["members"]) == len(true[n]):
            assert row["members"] == true[n]
    assert got == BROKER_ONLY[scenario]
