"""A cooperative scale-out (D joins a group of A, B, C; KIP-429 two rounds) read from one member's
log at a time, as users paste them (sample cooperative_scale_out, reduced). Each view states what
its log proves: the leader's assignment map names every member; a member's "group is already
rebalancing" (3.0+) means someone else started the rebalance; the new member's own first join
is a join even when its reason comes on the second of its join lines."""

from __future__ import annotations

from pipeline.replay import replay_group
from tests.replay.builders import Host, merged
from tests.replay.scenarios import T0

PARTS = {"A": ["t-0", "t-3"], "B": ["t-1", "t-4"], "C": ["t-2", "t-5"]}
TOLD = T0 + 150_000


def leaders_view() -> list:
    a = Host("hostA/app.log", "c-a")
    a.ev(T0, "join_started")
    a.ev(T0 + 100, "join_succeeded", member_id="A", generation=1, protocol="cooperative-sticky")
    a.ev(T0 + 101, "assignment_received", generation=1, extra={"assignments": PARTS})
    a.ev(T0 + 150, "sync_succeeded", member_id="A", generation=1, protocol="cooperative-sticky")
    a.ev(T0 + 160, "partitions_assigned", partitions=["t-0", "t-3"])
    a.ev(TOLD, "join_started", reason="group is already rebalancing")   # AbstractCoordinator 3.0+
    a.ev(TOLD + 100, "join_started")
    a.ev(TOLD + 1_700, "join_succeeded", member_id="A", generation=2, protocol="cooperative-sticky")
    a.ev(TOLD + 1_701, "assignment_received", generation=2, extra={"assignments": {**PARTS, "A": ["t-0"], "D": []}})
    a.ev(TOLD + 1_710, "sync_succeeded", member_id="A", generation=2, protocol="cooperative-sticky")
    return merged(a)


def new_members_view() -> list:
    d = Host("hostD/app.log", "c-d")
    d.ev(TOLD - 1_500, "join_started")
    # KIP-394 (2.2+): the first JoinGroup gets MEMBER_ID_REQUIRED, the reason comes on the second line
    d.ev(TOLD - 1_496, "join_started", reason="need to re-join with the given member-id: D")
    d.ev(TOLD + 1_700, "join_succeeded", member_id="D", generation=2, protocol="cooperative-sticky")
    d.ev(TOLD + 1_710, "sync_succeeded", member_id="D", generation=2, protocol="cooperative-sticky")
    d.ev(TOLD + 1_711, "partitions_assigned", partitions=[])              # first cooperative round: nothing
    d.ev(TOLD + 2_000, "join_started", reason="group is already rebalancing")
    d.ev(TOLD + 2_200, "join_succeeded", member_id="D", generation=3, protocol="cooperative-sticky")
    d.ev(TOLD + 2_210, "sync_succeeded", member_id="D", generation=3, protocol="cooperative-sticky")
    d.ev(TOLD + 2_211, "partitions_assigned", partitions=["t-3"])
    return merged(d)


def test_the_leaders_map_shows_who_joined_and_the_leader_was_told():
    # before: "The group leader rejoined: member A" (its reason said the group was already rebalancing)
    gens = {g["generation"]: g for g in replay_group(leaders_view()).generations}
    g2 = gens[2]
    assert (g2["cause"], g2["trigger_member"], g2["members"], g2["member_count"]) == (
        "member_joined", "D", ["A", "B", "C", "D"], 4)
    # D's own join time is not in this log: the rebalance began at the latest when A was told
    assert g2["started_ms"] == TOLD and g2["inferred"] is True
    assert "leader rejoined" not in g2["cause_detail"]


def test_the_new_members_own_log():
    # before: generation 2 "unknown" with "1 member(s), leader D", and generation 3 "The group leader
    # rejoined: member D"
    gens = {g["generation"]: g for g in replay_group(new_members_view()).generations}
    g2, g3 = gens[2], gens[3]
    # D's own log shows it joined as a new member; others whose logs are missing may have joined
    # first (nothing lists the members): the join is the cause, its first joiner is not proven
    assert (g2["cause"], g2["trigger_member"], g2["started_ms"]) == ("member_joined", None, TOLD - 1_500)
    assert "member D (client c-d) is the first whose join the logs time; no line lists every member" \
        in g2["cause_detail"]
    # given nothing while partitions exist (it holds t-3 next), and then only t-3: not alone
    assert (g2["member_count"], g2["leader"], g3["member_count"], g3["leader"]) == (None, None, None, None)
    assert g3["cause"] == "unknown"
    assert ("missing evidence: broker GroupCoordinator log (its 'Preparing to rebalance' line names the reason); "
            "the logs of the member that started it (the members in the logs were told the group was already "
            "rebalancing).") in g3["cause_detail"]
    assert g3["rebalance_ms"] is None and g3["cause_detail"].endswith("so it took at least that.")


def test_a_2x_leaders_heartbeat_told_of_the_rebalance_is_not_its_own_rejoin(tmp_path):
    # Kafka 2.x INFO lines as the client prints them (AbstractCoordinator 1.0-2.8: the heartbeat
    # failure names no error); the leader's map of generation 2 names a member new since 1
    from parsers.reader import parse_path

    pfx = "INFO [Consumer clientId=c-a, groupId=g] "
    coord, cons = "(org.apache.kafka.clients.consumer.internals.AbstractCoordinator)", \
        "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)"
    lines = [
        f"[2024-03-01 10:00:00,000] {pfx}(Re-)joining group {coord}",
        f"[2024-03-01 10:00:00,100] {pfx}Successfully joined group with generation Generation{{generationId=1, "
        f"memberId='A', protocol='range'}} {coord}",
        f"[2024-03-01 10:00:00,101] {pfx}Finished assignment for group at generation 1: "
        f"{{A=Assignment(partitions=[t-0, t-1])}} {cons}",
        f"[2024-03-01 10:00:00,150] {pfx}Successfully synced group in generation Generation{{generationId=1, "
        f"memberId='A', protocol='range'}} {coord}",
        f"[2024-03-01 10:05:00,000] {pfx}Attempt to heartbeat failed since group is rebalancing {coord}",
        f"[2024-03-01 10:05:00,010] {pfx}(Re-)joining group {coord}",
        f"[2024-03-01 10:05:00,300] {pfx}Successfully joined group with generation Generation{{generationId=2, "
        f"memberId='A', protocol='range'}} {coord}",
        f"[2024-03-01 10:05:00,301] {pfx}Finished assignment for group at generation 2: "
        f"{{A=Assignment(partitions=[t-0]), B=Assignment(partitions=[t-1])}} {cons}",
        f"[2024-03-01 10:05:00,350] {pfx}Successfully synced group in generation Generation{{generationId=2, "
        f"memberId='A', protocol='range'}} {coord}",
    ]
    log = tmp_path / "app.log"
    log.write_text("\n".join(lines) + "\n")
    outcomes, _ = parse_path(str(log))
    events = [o.event for o in outcomes if o.event is not None]
    assert [e.kind for e in events].count("heartbeat_failed") == 1
    g2 = {g["generation"]: g for g in replay_group(events).generations}[2]
    t_told = 1_709_287_500_000                       # 2024-03-01 10:05:00 UTC
    # before: "leader_rejoin" by A (its heartbeat line named no error), begun at its rejoin
    assert (g2["cause"], g2["trigger_member"], g2["started_ms"], g2["member_count"]) == ("member_joined", "B", t_told, 2)
