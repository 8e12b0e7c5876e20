"""RangeAssignor (Kafka 3.8.0, clients/.../consumer/RangeAssignor.java).

Per topic: partitions in numeric order over that topic's subscribers in MemberInfo order; each
gets floor(n/k) and the first n mod k one more. With consumer and replica racks (and some
partition not on every rack) a rack-matching pass runs first (RangeAssignor.assignWithRackMatching),
keeping the same per-topic counts and co-partitioning of topics with equal partition counts and
identical subscriber lists. Every step below is independent of HashMap order: topics are processed
independently (each topic's quota state is its own), so Kafka's hash-ordered grouping does not
change the result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import islice

from .model import Subscription, TopicPartition, member_sort_key, tp_sort_key


class _TopicState:
    """RangeAssignor.TopicAssignmentState."""

    def __init__(self, topic: str, num_partitions: int, members: list[str],
                 subscriptions: Mapping[str, Subscription],
                 partition_racks: Sequence[frozenset[str]] | None, prefer_rack_aware: bool = False) -> None:
        self.topic = topic
        # consumers sorted by MemberInfo.compareTo; duplicates collapse (toMap merge keeps first)
        ordered = sorted(dict.fromkeys(members), key=lambda m: member_sort_key(m, subscriptions[m].group_instance_id))
        self.consumers = {m: subscriptions[m].rack for m in ordered}
        self.unassigned: dict[TopicPartition, None] = {TopicPartition(topic, p): None for p in range(num_partitions)}
        self.assigned_count = dict.fromkeys(ordered, 0)
        k = len(ordered)
        self.per_consumer = num_partitions // k if k else 0
        self.remaining_with_extra = num_partitions % k if k else 0
        consumer_racks = {r for r in self.consumers.values() if r}
        self.partition_racks: dict[TopicPartition, frozenset[str]] = {}
        all_partition_racks: set[str] = set()
        if consumer_racks:
            known = partition_racks or ()
            for p in range(num_partitions):
                racks = frozenset(known[p]) if p < len(known) else frozenset()
                self.partition_racks[TopicPartition(topic, p)] = racks
                all_partition_racks |= racks
        # AbstractPartitionAssignor.useRackAwareAssignment: only if consumer and replica racks overlap
        # and some partition is not on every rack (or the test-only preferRackAwareLogic is set)
        self.needs_rack_aware = bool(consumer_racks) and not consumer_racks.isdisjoint(all_partition_racks) and (
            prefer_rack_aware or any(racks != all_partition_racks for racks in self.partition_racks.values())
        )

    def racks_match(self, consumer: str, tp: TopicPartition) -> bool:
        rack = self.consumers.get(consumer)
        return not rack or rack in self.partition_racks.get(tp, frozenset())

    def max_assignable(self, consumer: str) -> int:
        extra = 1 if self.remaining_with_extra > 0 else 0
        return max(0, self.per_consumer + extra - self.assigned_count[consumer])

    def on_assigned(self, consumer: str, tps: list[TopicPartition]) -> None:
        self.assigned_count[consumer] += len(tps)
        if self.assigned_count[consumer] > self.per_consumer:
            self.remaining_with_extra -= 1
        for tp in tps:
            self.unassigned.pop(tp, None)


def _assign_ranges(state: _TopicState, may_assign, assignment: dict[str, list[TopicPartition]]) -> None:
    for consumer in state.consumers:
        if not state.unassigned:
            break
        limit = state.max_assignable(consumer)
        chosen = list(islice((tp for tp in state.unassigned if may_assign(consumer, tp)), limit))
        if chosen:
            assignment[consumer].extend(chosen)
            state.on_assigned(consumer, chosen)


def _assign_co_partitioned(consumers: list[str], num_partitions: int, states: list[_TopicState],
                           assignment: dict[str, list[TopicPartition]]) -> None:
    remaining = list(consumers)
    for p in range(num_partitions):
        match = next((c for c in remaining if all(
            s.racks_match(c, TopicPartition(s.topic, p)) and s.max_assignable(c) > 0 for s in states)), None)
        if match is None:
            continue
        for s in states:
            tp = TopicPartition(s.topic, p)
            assignment[match].append(tp)
            s.on_assigned(match, [tp])
        if not any(s.max_assignable(match) > 0 for s in states):
            remaining.remove(match)
            if not remaining:
                break


def assign_range(partitions_per_topic: Mapping[str, int], subscriptions: Mapping[str, Subscription],
                 partition_racks: Mapping[str, Sequence[frozenset[str]]] | None = None,
                 prefer_rack_aware: bool = False) -> dict[str, list[TopicPartition]]:
    """``partition_racks[topic][p]`` = racks of partition p's replicas; ``Subscription.rack`` = client.rack."""
    members_per_topic: dict[str, list[str]] = {}
    for member, sub in subscriptions.items():
        for topic in sub.topics:
            members_per_topic.setdefault(topic, []).append(member)
    racks = partition_racks or {}
    states = [
        _TopicState(topic, n, members_per_topic.get(topic, []), subscriptions, racks.get(topic), prefer_rack_aware)
        for topic, n in partitions_per_topic.items() if n > 0  # RangeAssignor skips topics with no partitions
    ]
    assignment: dict[str, list[TopicPartition]] = {m: [] for m in subscriptions}
    use_rack_aware = any(s.needs_rack_aware for s in states)
    if use_rack_aware:
        # groupingBy(consumers) then groupingBy(partition count): co-partitioned topics share a pass
        groups: dict[tuple, list[_TopicState]] = {}
        for s in states:
            key = (tuple(s.consumers.items()), len(s.partition_racks))
            groups.setdefault(key, []).append(s)
        for (consumer_items, num_partitions), group in groups.items():
            if len(group) > 1:
                _assign_co_partitioned([c for c, _ in consumer_items], num_partitions, group, assignment)
            elif group[0].needs_rack_aware:
                _assign_ranges(group[0], group[0].racks_match, assignment)
    for s in states:
        _assign_ranges(s, lambda c, tp: True, assignment)
    if use_rack_aware:
        for tps in assignment.values():
            tps.sort(key=tp_sort_key)
    return assignment
