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
    assert (gens[1]["member_count"], gens[2]["member_count"], gens[3]["member_count"]) == (1, None, 1)
    assert gens[2]["members"] == ["A"]
    # A was alone in 1 and 3 (all four partitions): its own leader; in 2 it was not alone
    assert (gens[1]["leader"], gens[2]["leader"], gens[3]["leader"]) == ("A", None, "A")


def test_partitions_another_member_held_are_not_said_to_have_had_no_owner():
    r = replay_group(one_member())
    found = [f for f in r.findings if f["kind"] == "unowned_partitions"]
    assert sorted(f["partitions"][0] for f in found) == ["t-2", "t-3"]
    for f in found:
        assert f["severity"] == "low" and f["title"].endswith("(unproven)")
        assert "Nobody consumed" not in f["explanation"]
        assert json.loads(f["details_json"])["unseen_assignments"] == {"2": 1}


def test_the_cooperative_protocol_is_not_judged_by_coverage():
    # a cooperative generation leaves partitions in transit unassigned (KIP-429): no inference
    gens = {g["generation"]: g for g in replay_group(one_member("cooperative-sticky")).generations}
    assert gens[2]["member_count"] == 1


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
    g4 = _gen(4, "roundrobin", {"A": ["t-0"], "B": None})            # B's assignment unknown: t-1, t-2 held by B
    g5 = _gen(5, "range", {"A": ["t-0"]}, count=1)                   # the broker's count settles it
    g6 = _gen(6, None, {"A": ["t-0"]})                               # protocol unknown: not judged
    g7 = _gen(7, "cooperative-sticky", {"A": ["t-0"]})
    assert hidden_holders([g7, g6, g5, g4, g3, g2, g1]) == {2, 4}


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
    assert (g3["started_ms"], g3["rebalance_ms"]) == (T0 + 297_500, 3_170)
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
