"""Assignment properties of the conformance format (FORMAT-AND-RULES.md section 2), as pure checks.

Each check returns None when the property holds, else a one-line reason. The definitions follow
Kafka 3.8.0's test helpers (AbstractStickyAssignorTest.verifyValidityAndBalance / isFullyBalanced,
CooperativeStickyAssignorTest.verifyCooperativeValidity).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .model import Subscription, TopicPartition

Assignment = Mapping[str, Sequence[TopicPartition]]


def _fmt(tps) -> str:
    return "[" + ", ".join(str(tp) for tp in sorted(tps)) + "]"


def check_valid(assignment: Assignment, subscriptions: Mapping[str, Subscription], ppt: Mapping[str, int]) -> str | None:
    owner: dict[TopicPartition, str] = {}
    for member, tps in assignment.items():
        sub = subscriptions.get(member)
        if sub is None:
            return f"valid: {member} is assigned partitions but has no subscription"
        for tp in tps:
            if tp.topic not in ppt or not 0 <= tp.partition < ppt[tp.topic]:
                return f"valid: {member} got {tp}, which does not exist"
            if tp.topic not in sub.topics:
                return f"valid: {member} got {tp} but is not subscribed to {tp.topic}"
            if tp in owner:
                return f"valid: {tp} assigned to both {owner[tp]} and {member}"
            owner[tp] = member
    return None


def check_complete(assignment: Assignment, subscriptions: Mapping[str, Subscription], ppt: Mapping[str, int]) -> str | None:
    got = {tp for tps in assignment.values() for tp in tps}
    topics = {t for s in subscriptions.values() for t in s.topics if t in ppt}
    missing = [TopicPartition(t, p) for t in topics for p in range(ppt[t]) if TopicPartition(t, p) not in got]
    return f"complete: unassigned {_fmt(missing)}" if missing else None


def check_fully_balanced(assignment: Assignment) -> str | None:
    sizes = [len(v) for v in assignment.values()]
    if sizes and max(sizes) - min(sizes) > 1:
        return f"fully_balanced: partition counts range {min(sizes)}..{max(sizes)}"
    return None


def check_balanced(assignment: Assignment) -> str | None:
    """verifyValidityAndBalance: members whose counts differ by more than one share no topic."""
    members = sorted(assignment)
    topics = {m: {tp.topic for tp in assignment[m]} for m in members}
    for i, a in enumerate(members):
        for b in members[i + 1:]:
            if abs(len(assignment[a]) - len(assignment[b])) > 1:
                common = topics[a] & topics[b]
                if common:
                    return (f"balanced: {a} has {len(assignment[a])} and {b} has {len(assignment[b])} "
                            f"partitions, both of topic {sorted(common)[0]}")
    return None


def check_keep_owned(assignment: Assignment, keep: Mapping[str, Sequence[TopicPartition]]) -> str | None:
    for member, tps in keep.items():
        lost = [tp for tp in tps if tp not in set(assignment.get(member, ()))]
        if lost:
            return f"keep_owned: {member} lost {_fmt(lost)}"
    return None


def check_exact_sizes(assignment: Assignment, sizes: Mapping[str, int]) -> str | None:
    for member, n in sizes.items():
        got = len(assignment.get(member, ()))
        if got != n:
            return f"exact_sizes: {member} has {got} partitions, expected {n}"
    return None


def check_max_partitions(assignment: Assignment, n: int) -> str | None:
    for member, tps in assignment.items():
        if len(tps) > n:
            return f"max_partitions_per_member: {member} has {len(tps)} > {n}"
    return None


def check_per_topic_counts(assignment: Assignment, subscriptions: Mapping[str, Subscription],
                           counts: Mapping[str, int]) -> str | None:
    for topic, n in counts.items():
        for member, tps in assignment.items():
            if topic not in subscriptions[member].topics:
                continue
            got = sum(1 for tp in tps if tp.topic == topic)
            if got != n:
                return f"per_topic_counts: {member} has {got} partitions of {topic}, expected {n}"
    return None


def check_no_revoked_and_assigned(assignment: Assignment, subscriptions: Mapping[str, Subscription]) -> str | None:
    """CooperativeStickyAssignorTest.verifyCooperativeValidity: no partition both removed from a
    member's owned set and added to another member in the same round."""
    added: set[TopicPartition] = set()
    revoked: set[TopicPartition] = set()
    for member, tps in assignment.items():
        owned = set(subscriptions[member].owned_partitions)
        added |= set(tps) - owned
        revoked |= owned - set(tps)
    both = added & revoked
    return f"no_partition_revoked_and_assigned: {_fmt(both)} revoked and assigned in one round" if both else None


def revoked_partitions(assignment: Assignment, subscriptions: Mapping[str, Subscription]) -> set[TopicPartition]:
    out: set[TopicPartition] = set()
    for member, tps in assignment.items():
        out |= set(subscriptions[member].owned_partitions) - set(tps)
    return out
