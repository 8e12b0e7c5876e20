"""Only one member's log of a bigger group (a common paste): what it cannot show is not stated.

Member A (range assignor) holds t-0..t-3 alone in generation 1. At +61 s its heartbeat is answered
REBALANCE_IN_PROGRESS, it revokes and rejoins, and gets t-0 and t-1 only: someone whose log is
not in the input joined and took t-2 and t-3 (a range assignment gives every partition to a
member). At +121 s the same happens and A gets all four back (that member left). Before: both
rebalances were "the group leader rejoined: member A" (A was told the rebalance was under way:
it did not start it), generation 2 had "1 member", and t-2/t-3 "had no owner for 60.2 s"."""

from __future__ import annotations

import json

from pipeline.replay import replay_group
from pipeline.replay_rules.assignment_cover import hidden_holders
from pipeline.replay_rules.state import Gen, Membership
from tests.replay.builders import Host, merged
from tests.replay.scenarios import T0


def one_member(protocol: str = "range") -> list:
    a = Host("hostA/app.log", "c-a")
    a.join(T0, 1, "A", ["t-0", "t-1", "t-2", "t-3"], protocol=protocol)
    a.heartbeats(T0 + 3_000, T0 + 60_000)
    for t, gen, parts in ((61_000, 2, ["t-0", "t-1"]), (121_000, 3, ["t-0", "t-1", "t-2", "t-3"])):
        a.ev(T0 + t, "heartbeat_failed", error="REBALANCE_IN_PROGRESS")
        a.revoke(T0 + t + 10, ["t-0", "t-1", "t-2", "t-3"] if gen == 2 else ["t-0", "t-1"])
        a.join(T0 + t + 20, gen, "A", parts, protocol=protocol)
        a.heartbeats(T0 + t + 3_000, T0 + t + 59_000)
    return merged(a)


def test_a_rebalance_the_member_was_told_of_is_not_its_own_rejoin():
    r = replay_group(one_member())
    causes = [(g["generation"], g["cause"]) for g in r.generations]
    assert causes == [(1, "member_joined"), (2, "unknown"), (3, "unknown")]
    assert "The group leader rejoined" not in " ".join(g["cause_detail"] for g in r.generations)


def test_a_range_generation_missing_partitions_has_an_unknown_member_count():
    gens = {g["generation"]: g for g in replay_group(one_member()).generations}
    # one member's log proves no count: 1 and 3 look like A alone (all four partitions), 2 does not
    assert (gens[1]["member_count"], gens[2]["member_count"], gens[3]["member_count"]) == (None, None, None)
    assert gens[2]["members"] == ["A"]
    assert (gens[1]["leader"], gens[2]["leader"], gens[3]["leader"]) == (None, None, None)


def test_partitions_another_member_held_are_not_said_to_have_had_no_owner():
    r = replay_group(one_member())
    found = [f for f in r.findings if f["kind"] == "unowned_partitions"]
    assert sorted(f["partitions"][0] for f in found) == ["t-2", "t-3"]
    for f in found:
        assert f["severity"] == "low" and f["title"].endswith("(unproven)")
        assert "Nobody consumed" not in f["explanation"]
        assert json.loads(f["details_json"])["unseen_assignments"] == {"2": 1}


def test_a_lone_cooperative_member_without_all_partitions_is_not_alone_either():
    # cooperative-sticky leaves a partition unassigned for one generation only while another member
    # revokes it (KIP-429); a member alone gets all of them. So A holding t-0/t-1 alone in
    # generation 2 had company (the earlier test asserted "1 member": false)
    gens = {g["generation"]: g for g in replay_group(one_member("cooperative-sticky")).generations}
    assert (gens[1]["member_count"], gens[2]["member_count"], gens[3]["member_count"]) == (None, None, None)
    assert (gens[1]["leader"], gens[2]["leader"], gens[3]["leader"]) == (None, None, None)


def _gen(n: int, protocol: str | None, held: dict[str, list[str] | None], count: int | None = None) -> Gen:
    g = Gen(n, protocol=protocol, broker_member_count=count)
    for mid, parts in held.items():
        g.members[mid] = Membership(n, mid)
        g.members[mid].assigned = parts
    return g


def test_hidden_holders_rules():
    g1 = _gen(1, "range", {"A": ["t-0", "t-1"], "B": ["t-2", "u-0"]})
    # t-2 missing in 2 (B's log gone); u only partly seen is never judged from its own generation
    g2 = _gen(2, "range", {"A": ["t-0", "t-1"]})
    g3 = _gen(3, "range", {"A": ["t-0", "t-1", "t-2"]})             # topic u no longer held: not judged
    g4 = _gen(4, "roundrobin", {"A": ["t-0"], "B": None})            # B's assignment unknown: B may hold t-1, t-2
    g5 = _gen(5, "range", {"A": ["t-0"]}, count=1)                   # the broker's count settles it
    # one member named: alone, it would hold every partition, whatever the protocol
    g6 = _gen(6, None, {"A": ["t-0"]})
    g7 = _gen(7, "cooperative-sticky", {"A": ["t-0"]})
    assert hidden_holders([g7, g6, g5, g4, g3, g2, g1]) == {2, 6, 7}
    # cooperative with two members named: a partition in transit between them is held by neither
    assert hidden_holders([_gen(1, "cooperative-sticky", {"A": ["t-0", "t-1"], "B": ["t-2"]}),
                           _gen(2, "cooperative-sticky", {"A": ["t-0"], "B": ["t-2"]})]) == set()


def test_a_lone_member_without_the_lower_partitions_had_company_in_its_first_generation():
    # nothing earlier to compare with: a range member alone would hold t-0..t-5, so t-4/t-5 alone
    # means others held t-0..t-3; one member of a full set from 0 is consistent with being alone
    assert hidden_holders([_gen(1, "range", {"A": ["t-4", "t-5"]})]) == {1}
    assert hidden_holders([_gen(1, "roundrobin", {"A": ["t-0", "t-2", "u-1"]})]) == {1}
    assert hidden_holders([_gen(1, "range", {"A": ["t-0", "t-1", "u-0"]})]) == set()
    # eager, two members named: a number missing below the highest is held by a third
    assert hidden_holders([_gen(1, "range", {"A": ["t-0"], "B": ["t-2"]})]) == {1}
    assert hidden_holders([_gen(1, "range", {"A": ["t-0", "t-1"], "B": ["t-2"]})]) == set()


def excerpt_ending_early(told_ms: int = 300_500, rejoin_ms: int = 300_520) -> list:
    """A and B share generation 2 from +11 s; A's excerpt ends at +30 s while B's runs on: B's
    heartbeats go on until it is told REBALANCE_IN_PROGRESS (+300.5 s by default), then it
    rejoins and takes t-0..t-3. No broker log: nothing names A's expiry (scenarios.
    session_expiry_inferred with the roles swapped and the rebalance later)."""
    from tests.replay.scenarios import stable_pair

    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    stable_pair(a, b)
    a.heartbeats(T0 + 12_000, T0 + 30_000)
    b.heartbeats(T0 + 12_000, T0 + told_ms - 500)
    b.ev(T0 + told_ms, "heartbeat_failed", error="REBALANCE_IN_PROGRESS")
    b.revoke(T0 + rejoin_ms - 10, ["t-2", "t-3"])
    b.join(T0 + rejoin_ms, 3, "B", ["t-0", "t-1", "t-2", "t-3"])
    return merged(a, b)


def test_an_expiry_nobody_heard_of_until_later_is_not_dated_from_a_log_that_ends_early():
    # before: A "expelled after 45.0 s without heartbeat" at +75 s, generation 3's rebalance 3.8
    # min long, t-0 and t-1 "had no owner for 3.8 min"; B's heartbeats succeeded until +300 s, so
    # the group was Stable until then and the expiry came within a heartbeat interval of +300.5 s
    r = replay_group(excerpt_ending_early())
    (exp,) = [f for f in r.findings if f["kind"] == "session_expiry"]
    assert exp["start_ms"] == T0 + 297_500 and exp["title"] == "Member A (client c-a) expelled (session timeout)"
    d = json.loads(exp["details_json"])
    assert d["expiry_time"] == "estimated_from_rebalance" and d["silence_ms"] is None
    assert "its log ends 4.5 min before that, so when its heartbeats stopped is not in the logs" in exp["explanation"]
    assert exp["explanation"].count("estimated") == 1
    g3 = next(g for g in r.generations if g["generation"] == 3)
    # the rebalance's first line is B being told (+300.5 s); the expiry's estimate is no line, so how
    # long the rebalance took is a bound in words, not a number
    assert (g3["started_ms"], g3["rebalance_ms"]) == (T0 + 300_500, None)
    assert g3["cause_detail"].endswith("the first line of it in the logs comes 0.2 s before it was stable, so it "
                                       "took at least that.")
    assert [f for f in r.findings if f["kind"] == "unowned_partitions"] == []


def test_a_gap_opened_by_an_estimated_expiry_is_not_proven():
    # A's log ends at +30 s; B is told at +76 s (the estimate, +75 s, stands) but gets t-0 and t-1
    # only at +200 s: how long they had no owner rests on the estimate
    r = replay_group(excerpt_ending_early(told_ms=76_000, rejoin_ms=199_500))
    (exp,) = [f for f in r.findings if f["kind"] == "session_expiry"]
    assert exp["start_ms"] == T0 + 75_000 and json.loads(exp["details_json"])["expiry_time"] == "estimated"
    found = sorted((f["partitions"][0], f["severity"], f["title"]) for f in r.findings if f["kind"] == "unowned_partitions")
    assert found == [("t-0", "low", "t-0: no owner in the logs for 2.1 min (unproven)"),
                     ("t-1", "low", "t-1: no owner in the logs for 2.1 min (unproven)")]
    f = next(f for f in r.findings if f["kind"] == "unowned_partitions")
    assert "its time is estimated as the member's last line + session.timeout.ms" in f["explanation"]


def test_a_gap_opened_by_a_broker_timed_expiry_stays_a_fact():
    # the broker's removal line times the expiry at +75 s: t-0 and t-1 had no owner until +300 s
    k = Host("broker1/server.log", side="broker")
    k.failed(T0 + 75_000, "A")
    r = replay_group(excerpt_ending_early() + k.events)
    found = sorted((f["partitions"][0], f["severity"]) for f in r.findings if f["kind"] == "unowned_partitions")
    assert found == [("t-0", "medium"), ("t-1", "medium")]


def one_range_member_of_three() -> list:
    """One consumer's log of a three-member range group (sample gc_pause_session_expiry's
    inventory-sync-2.log, reduced): it holds t-4 and t-5 in every generation, and its two later
    rebalances come with no reason it could print (a 2.x client at INFO). Another member's expiry
    started them; its log and the broker's are not in the input."""
    a = Host("hostB/app.log", "c-b")
    a.join(T0, 1, "B", ["t-4", "t-5"], took=6_000)
    for t, gen in ((190_000, 2), (199_000, 3)):
        a.ev(T0 + t, "join_started")
        a.ev(T0 + t + 8, "join_succeeded", member_id="B", generation=gen, protocol="range")
        a.ev(T0 + t + 10, "sync_succeeded", member_id="B", generation=gen, protocol="range")
        a.ev(T0 + t + 12, "partitions_assigned", partitions=("t-4", "t-5"))
    return merged(a)


def test_a_member_holding_t4_t5_alone_in_its_log_is_neither_alone_nor_the_leader():
    # before: every generation "1 member(s), leader B", and generations 2 and 3 "The group leader
    # rejoined: member B", though a range member alone would hold t-0..t-5 and a leader's rejoin
    # is no more likely than anyone else's
    r = replay_group(one_range_member_of_three())
    assert [(g["generation"], g["member_count"], g["leader"]) for g in r.generations] == [
        (1, None, None), (2, None, None), (3, None, None)]
    assert [g["cause"] for g in r.generations] == ["member_joined", "unknown", "unknown"]
    assert "leader" not in " ".join(g["cause_detail"] for g in r.generations).lower()
    member = {m["generation"]: m for m in r.memberships if m["member_id"] == "B"}
    assert not any(m["is_leader"] for m in member.values())
    # holding every partition from 0 up is consistent with being alone, but only the broker's count
    # (or the leader's map) proves it
    solo = Host("hostB/app.log", "c-b")
    solo.join(T0, 1, "B", ["t-0", "t-1"])
    assert [(g["member_count"], g["leader"]) for g in replay_group(merged(solo)).generations] == [(None, None)]
    k = Host("broker1/server.log", side="broker")
    k.stabilized(T0 + 120, 1, 1)
    assert [(g["member_count"], g["leader"]) for g in replay_group(merged(solo, k)).generations] == [(1, "B")]


def test_the_replay_text_says_a_count_it_cannot_prove_is_unknown():
    from pipeline.replay_rules.render import timeline

    text = timeline(replay_group(one_range_member_of_three()))
    assert "[member count unknown, leader unknown," in text and "None member(s)" not in text


def test_an_assignment_no_line_shows_is_left_out_not_empty():
    # generation 3 of scenarios.stuck: the broker names A and C, no line shows what they got
    from tests.replay.scenarios import stuck

    gens = {g["generation"]: g for g in replay_group(stuck()).generations}
    assert json.loads(gens[2]["assignment_json"]) == {"A": ["t-0", "t-1"], "B": ["t-2", "t-3"]}
    assert gens[3]["members"] == ["A", "C"] and json.loads(gens[3]["assignment_json"]) == {}
    # an assignment shown empty ("Adding newly assigned partitions: " with none) stays empty
    a = Host("hostA/app.log", "c-a")
    a.join(T0, 1, "A", [])
    assert json.loads(replay_group(merged(a)).generations[0]["assignment_json"]) == {"A": []}


def test_a_lone_member_given_nothing_while_partitions_exist_had_company():
    empty = _gen(2, "cooperative-sticky", {"D": []})
    assert hidden_holders([empty, _gen(3, "cooperative-sticky", {"D": ["t-3"]})]) == {2, 3}
    # no partition anywhere in the logs (a topic not created yet): nothing says others held any
    assert hidden_holders([_gen(2, "range", {"D": []})]) == set()
