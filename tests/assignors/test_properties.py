"""Hypothesis properties of the assignors (the guarantees Kafka 3.8.0's assignor tests assert).

Inputs are realistic groups: every member subscribes to at least one topic, the assignor sees only
subscribed topics, and owned partitions come from one earlier valid assignment (disjoint, existing
partitions of topics the owner still subscribes to), with mixed generations.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.coordinator.assignors import Subscription, TopicPartition, assign_detailed, cooperative_rounds
from pipeline.coordinator.assignors import properties as P

MEMBERS = ["consumer1", "consumer2", "consumer3", "c0", "c10", "member-a", "member-b", "zed"]
TOPICS = ["t0", "t1", "topic", "topic-2"]
SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def groups(draw, uniform: bool | None = None, with_owned: bool = True):
    topics = draw(st.lists(st.sampled_from(TOPICS), min_size=1, max_size=4, unique=True))
    ppt = {t: draw(st.integers(0, 9)) for t in topics}
    members = draw(st.lists(st.sampled_from(MEMBERS), min_size=1, max_size=7, unique=True))
    same = draw(st.booleans()) if uniform is None else uniform
    subs_topics = {m: (list(topics) if same else draw(st.lists(st.sampled_from(topics), min_size=1, unique=True)))
                   for m in members}
    # a consumer leader only passes subscribed topics with metadata to the assignor
    # (AbstractPartitionAssignor.assign(Cluster, GroupSubscription))
    ppt = {t: n for t, n in ppt.items() if any(t in ts for ts in subs_topics.values())}
    owned: dict[str, list[TopicPartition]] = {m: [] for m in members}
    if with_owned:
        for t, n in ppt.items():
            for p in range(n):
                # an owner is subscribed to the topic: Kafka 3.8.0's general algorithm can hand a
                # partition back to a stale previous owner that no longer subscribes to it
                # (see docs/assignors.md, "Kafka quirks reproduced")
                holder = draw(st.sampled_from([None, *[m for m in members if t in subs_topics[m]]]))
                if holder is not None:
                    owned[holder].append(TopicPartition(t, p))
    subs = {}
    for m in members:
        gen = draw(st.sampled_from([None, 1, 1, 2, 3])) if owned[m] or draw(st.booleans()) else None
        inst = draw(st.sampled_from([None, f"i-{m}"]))
        subs[m] = Subscription(tuple(subs_topics[m]), tuple(owned[m]), gen, inst)
    return ppt, subs


def _assert_valid_complete(assignment, subs, ppt):
    assert set(assignment) == set(subs)
    assert P.check_valid(assignment, subs, ppt) is None
    assert P.check_complete(assignment, subs, ppt) is None


@SETTINGS
@given(groups(), st.sampled_from(["range", "roundrobin", "sticky"]))
def test_every_partition_assigned_exactly_once_to_a_subscriber(group, name):
    ppt, subs = group
    out = assign_detailed(name, subs, ppt).assignment
    _assert_valid_complete(out, subs, ppt)


@SETTINGS
@given(groups(uniform=True, with_owned=False))
def test_roundrobin_uniform_subscriptions_are_fully_balanced(group):
    ppt, subs = group
    out = assign_detailed("roundrobin", subs, ppt).assignment
    assert P.check_fully_balanced(out) is None


@SETTINGS
@given(groups())
def test_range_gives_each_subscriber_floor_or_ceil_of_each_topic(group):
    ppt, subs = group
    out = assign_detailed("range", subs, ppt).assignment
    for t, n in ppt.items():
        subscribers = [m for m, s in subs.items() if t in s.topics]
        counts = [sum(1 for tp in out[m] if tp.topic == t) for m in subscribers]
        if subscribers:
            assert set(counts) <= {n // len(subscribers), -(-n // len(subscribers))}
            assert sum(counts) == n


@SETTINGS
@given(groups())
def test_sticky_is_balanced_in_kafkas_sense(group):
    ppt, subs = group
    out = assign_detailed("sticky", subs, ppt).assignment
    assert P.check_balanced(out) is None


@SETTINGS
@given(groups(uniform=True))
def test_sticky_uniform_subscriptions_fully_balanced_and_sticky(group):
    ppt, subs = group
    outcome = assign_detailed("sticky", subs, ppt)
    out = outcome.assignment
    assert outcome.algorithm == "constrained"
    assert P.check_fully_balanced(out) is None
    total = sum(ppt.values())
    min_quota = total // len(subs)
    # ConstrainedAssignmentBuilder keeps up to minQuota of each member's owned partitions, as long as
    # no member with a higher generation claims them (claims are disjoint here)
    for m, s in subs.items():
        kept = set(out[m]) & set(s.owned_partitions)
        assert len(kept) >= min(len(s.owned_partitions), min_quota)


@SETTINGS
@given(groups())
def test_cooperative_never_hands_over_a_partition_still_owned(group):
    ppt, subs = group
    rounds = cooperative_rounds(subs, ppt)
    assert len(rounds) <= 5
    for round_subs, outcome in rounds:
        a = outcome.assignment
        assert P.check_no_revoked_and_assigned(a, round_subs) is None
        assert P.check_valid(a, round_subs, ppt) is None
        for m, tps in a.items():
            for tp in tps:
                if tp not in round_subs[m].owned_partitions:
                    assert not any(tp in s.owned_partitions for o, s in round_subs.items() if o != m), (m, tp)
    final = rounds[-1][1].assignment
    _assert_valid_complete(final, subs, ppt)
    assert P.check_balanced(final) is None


@SETTINGS
@given(groups())
def test_cooperative_first_round_is_sticky_minus_withheld(group):
    # CooperativeStickyAssignor = the sticky assignment minus partitions that change owner
    ppt, subs = group
    eager = assign_detailed("sticky", subs, ppt).assignment
    coop = assign_detailed("cooperative-sticky", subs, ppt).assignment
    for m in subs:
        assert set(coop[m]) <= set(eager[m])
        withheld = set(eager[m]) - set(coop[m])
        for tp in withheld:
            assert any(tp in s.owned_partitions for o, s in subs.items() if o != m)


@st.composite
def racked_groups(draw):
    ppt, subs = draw(groups())
    racks = ["rack-a", "rack-b", "rack-c"]
    partition_racks = {t: [draw(st.lists(st.sampled_from(racks), max_size=2, unique=True)) for _ in range(n)]
                       for t, n in ppt.items()}
    racked = {m: Subscription(s.topics, s.owned_partitions, s.generation, s.group_instance_id,
                              draw(st.sampled_from([None, *racks]))) for m, s in subs.items()}
    return ppt, racked, partition_racks


@SETTINGS
@given(racked_groups(), st.sampled_from(["range", "sticky"]))
def test_rack_aware_assignment_stays_valid_complete_and_balanced(group, name):
    ppt, subs, partition_racks = group
    out = assign_detailed(name, subs, ppt, partition_racks=partition_racks).assignment
    _assert_valid_complete(out, subs, ppt)
    if name == "sticky":
        assert P.check_balanced(out) is None


def _racked_rounds(subs, ppt, partition_racks, n: int = 6):
    """(rounds, converged) after at most n rounds. Kafka's CooperativeStickyAssignorTest asserts
    at most four follow-ups for its own cases; rack-aware groups can do otherwise
    (test_a_rack_aware_group_that_keeps_moving)."""
    from pipeline.coordinator.assignors.properties import revoked_partitions

    rounds = cooperative_rounds(subs, ppt, partition_racks=partition_racks, max_followups=n - 1, strict=False)
    last_subs, last = rounds[-1]
    return rounds, not revoked_partitions(last.assignment, last_subs)


@SETTINGS
@given(racked_groups())
def test_rack_aware_cooperative_never_hands_over_a_partition_still_owned(group):
    ppt, subs, partition_racks = group
    rounds, converged = _racked_rounds(subs, ppt, partition_racks)
    for round_subs, outcome in rounds:
        assert P.check_no_revoked_and_assigned(outcome.assignment, round_subs) is None
        assert P.check_valid(outcome.assignment, round_subs, ppt) is None
    if converged:
        _assert_valid_complete(rounds[-1][1].assignment, subs, ppt)


def test_a_rack_aware_group_that_keeps_moving():
    """Found by hypothesis in CI (2026-11-25): with replicas of `topic` on rack-a only and members
    on rack-a, rack-b and no rack, the follow-up rebalances alternate between two assignments
    (t1-0 and t1-2 go back and forth with topic-2 and topic-3) and never settle. Each round still
    revokes before it hands over. Not compared with Kafka's Java assignor here (the comparison in
    docs/assignors.md, Verification, was made during development); pinned so that a change to
    this behaviour is seen."""
    def sub(topics, owned=(), rack=None):
        return Subscription(topics, tuple(TopicPartition("topic", p) for p in owned), None, None, rack)

    subs = {"consumer1": sub(("t0", "t1", "topic"), (3,)), "consumer2": sub(("t0",), rack="rack-a"),
            "c0": sub(("t0", "topic"), rack="rack-a"), "consumer3": sub(("t0", "t1", "topic")),
            "c10": sub(("topic",), (6,), rack="rack-b"), "member-a": sub(("topic",), rack="rack-b"),
            "member-b": sub(("t0", "t1"))}
    ppt = {"t0": 6, "t1": 3, "topic": 7}
    racks = {"t0": [[]] * 6, "t1": [[]] * 3, "topic": [[], [], [], ["rack-a"], [], ["rack-a"], ["rack-a"]]}
    rounds, converged = _racked_rounds(subs, ppt, racks, n=8)
    assert not converged
    for round_subs, outcome in rounds:
        assert P.check_no_revoked_and_assigned(outcome.assignment, round_subs) is None
    states = [{m: sorted(map(str, tps)) for m, tps in out.assignment.items()} for _, out in rounds]
    assert states[2] == states[4] == states[6] and states[3] == states[5] == states[7] and states[2] != states[3]
