"""ConstrainedAssignmentBuilder of AbstractStickyAssignor (Kafka 3.8.0): the sticky algorithm for a
group whose members all subscribe to the same topics. Quotas floor(P/N) and ceil(P/N); owned
partitions are kept up to quota, sorted by partition then topic, walking members in the HashMap
order of consumerToOwnedPartitions; rack-matching round robin first (rack-aware only), then round
robin over members sorted by id.
"""

from __future__ import annotations

from collections.abc import Mapping

from .javaorder import java_str_key
from .model import AssignorError, TopicPartition
from .rackinfo import RackInfo
from .sticky_structures import difference_two_pointer

Assignment = dict[str, list[TopicPartition]]


def constrained_assign(ppt: Mapping[str, int], current: dict[str, list[TopicPartition]], multi: set[TopicPartition],
                       walk: list[str], rack: RackInfo, transferring: dict[TopicPartition, str]) -> Assignment:
    """ConstrainedAssignmentBuilder.build. ``current`` is consumerToOwnedPartitions, ``walk`` its
    iteration order, ``multi`` the partitions claimed twice in one generation; fills ``transferring``
    (partitionsTransferringOwnership)."""
    total = sum(ppt.values())
    n = len(current)
    min_quota = total // n
    max_quota = -(-total // n)
    expected_over = total % n
    current_over = 0
    maybe_revoked: dict[TopicPartition, str] = {}
    under: list[str] = []
    exact: list[str] = []
    assignment: Assignment = {c: [] for c in current}
    assigned: list[TopicPartition] = []

    for consumer in walk:
        matching = []
        for tp in current[consumer]:
            if rack.racks_mismatch(consumer, tp):  # rack-aware: a mismatched owned partition may move
                maybe_revoked[tp] = consumer
            else:
                matching.append(tp)
        owned = sorted(matching, key=lambda tp: (tp.partition, java_str_key(tp.topic)))
        for tp in multi:
            if tp in owned:
                owned.remove(tp)
        mine = assignment[consumer]
        if len(owned) < min_quota:
            mine.extend(owned)
            assigned.extend(owned)
            under.append(consumer)
        elif len(owned) >= max_quota and current_over < expected_over:
            current_over += 1
            if current_over == expected_over:
                exact.clear()
            mine.extend(owned[:max_quota])
            assigned.extend(owned[:max_quota])
            for tp in owned[max_quota:]:
                maybe_revoked[tp] = consumer
        else:
            mine.extend(owned[:min_quota])
            assigned.extend(owned[:min_quota])
            for tp in owned[min_quota:]:
                maybe_revoked[tp] = consumer
            if current_over < expected_over:
                exact.append(consumer)

    all_topics = sorted(ppt, key=java_str_key)
    assigned.sort(key=lambda tp: (java_str_key(tp.topic), tp.partition))
    unassigned = difference_two_pointer(
        [TopicPartition(t, p) for t in all_topics for p in range(ppt[t])], assigned)

    under.sort(key=java_str_key)
    exact.sort(key=java_str_key)
    unassigned = rack.sort_partitions_by_rack_consumers(unassigned)

    def assign_new(tp: TopicPartition, consumer: str) -> int:
        mine = assignment[consumer]
        mine.append(tp)
        if (tp in maybe_revoked and maybe_revoked[tp] != consumer) or tp in multi:
            transferring[tp] = consumer
        return len(mine)

    # assignRackAwareRoundRobin: fill within racks first, up to the quotas
    if rack.consumer_racks:
        next_index = 0
        remaining: list[TopicPartition] = []
        for tp in unassigned:
            chosen: str | None = None
            index = rack.next_rack_consumer(tp, under, next_index)
            if index >= 0:
                chosen = under[index]
                count = len(assignment[chosen]) + 1
                if count >= min_quota:
                    under.remove(chosen)
                    if count < max_quota and current_over < expected_over:
                        exact.append(chosen)
                else:
                    index += 1
                next_index = index % len(under) if under else 0
            elif exact:
                first = rack.next_rack_consumer(tp, exact, 0)
                if first >= 0:
                    chosen = exact[first]
                    if len(assignment[chosen]) + 1 == max_quota:
                        del exact[first]
                        current_over += 1
                        if current_over == expected_over:
                            exact.clear()
            if chosen is not None:
                assign_new(tp, chosen)
            else:
                remaining.append(tp)
        unassigned = remaining

    # assignRoundRobin: an explicit LinkedList iterator over `under` (with remove)
    pos = 0
    for tp in unassigned:
        from_under = True
        if pos < len(under):
            consumer = under[pos]
            pos += 1
        elif not under and not exact:
            raise AssignorError("IllegalStateException in ConstrainedAssignmentBuilder: "
                                "no more unfilled consumers to be assigned")
        elif not under:
            consumer = exact.pop(0)
            from_under = False
        else:
            pos = 0
            consumer = under[pos]
            pos += 1
        count = assign_new(tp, consumer)
        if count == min_quota:
            if not from_under:
                raise AssignorError("IllegalStateException in ConstrainedAssignmentBuilder: iterator remove")
            pos -= 1
            del under[pos]
            exact.append(consumer)
        elif count == max_quota:
            current_over += 1

    # verifyUnfilledMembers
    if under:
        if current_over != expected_over:
            raise AssignorError("IllegalStateException in ConstrainedAssignmentBuilder: expected number of "
                                "members with more than minQuota partitions not reached")
        for member in under:
            if len(assignment[member]) != min_quota:
                raise AssignorError(f"IllegalStateException in ConstrainedAssignmentBuilder: consumer "
                                    f"{member} doesn't reach minQuota partitions")
    return assignment
