"""GeneralAssignmentBuilder of AbstractStickyAssignor (Kafka 3.8.0): the sticky algorithm for a group
whose members subscribe to different topics. Keeps valid owned partitions, gives the rest to the
least loaded subscriber (rack-matching first when rack-aware), then moves partitions towards balance
(preferring a previous owner of an older generation, and PartitionMovements' stickiness), and reverts
the moves if the balance score did not improve.
"""

from __future__ import annotations

from collections.abc import Mapping

from .javaorder import java_str_key
from .model import DEFAULT_GENERATION, AssignorError, Subscription, TopicPartition
from .rackinfo import RackInfo
from .sticky_structures import (
    PartitionMovements,
    SortedMembers,
    balance_score,
    difference_two_pointer,
    list_remove,
)

Assignment = dict[str, list[TopicPartition]]


def general_assign(ppt: Mapping[str, int], current: dict[str, list[TopicPartition]],
                   subscriptions: Mapping[str, Subscription], order: list[str], rack: RackInfo,
                   max_generation: int) -> Assignment:
    """GeneralAssignmentBuilder.build. ``current`` is consumerToOwnedPartitions (updated in place and
    returned), ``order`` the subscriptions HashMap order, ``max_generation`` the assignor's
    AbstractStickyAssignor.maxGeneration."""
    topic_consumers: dict[str, list[str]] = {t: [] for t in ppt}
    consumer_topics: dict[str, list[str]] = {}
    for consumer in order:
        topics = [t for t in subscriptions[consumer].topics if t in ppt]
        consumer_topics[consumer] = topics
        for t in topics:
            topic_consumers[t].append(consumer)
        current.setdefault(consumer, [])
    partition_consumer: dict[TopicPartition, str] = {}
    for consumer, tps in current.items():
        for tp in tps:
            partition_consumer[tp] = consumer
    total = sum(ppt.values())

    def topic_key(t: str):  # TopicComparator: potential consumer count, then name
        return (len(topic_consumers[t]), java_str_key(t))

    sorted_all_partitions = [TopicPartition(t, p) for t in sorted(ppt, key=topic_key) for p in range(ppt[t])]
    sorted_members = SortedMembers(current)

    # prepopulateCurrentAssignments: the best previous owner below the max generation
    prev: dict[TopicPartition, tuple[str, int]] = {}

    def update_prev(tps, consumer: str, generation: int) -> None:
        for tp in tps:
            if tp not in prev or generation > prev[tp][1]:
                prev[tp] = (consumer, generation)

    for consumer in order:
        sub = subscriptions[consumer]
        if sub.generation is not None and sub.generation < max_generation:
            update_prev(sub.owned_partitions, consumer, sub.generation)
        elif sub.generation is None and max_generation > DEFAULT_GENERATION:
            update_prev(sub.owned_partitions, consumer, DEFAULT_GENERATION)

    movements = PartitionMovements()

    # assignOwnedPartitions: keep owned partitions of still-subscribed topics
    revocation_required = False
    assigned: list[TopicPartition] = []
    for consumer, tps in current.items():
        subscribed = subscriptions[consumer].topics
        kept = []
        for tp in tps:
            if tp.topic not in topic_consumers:
                partition_consumer.pop(tp, None)
            elif tp.topic not in subscribed or rack.racks_mismatch(consumer, tp):
                revocation_required = True
            else:
                kept.append(tp)
                assigned.append(tp)
        tps[:] = kept

    if assigned:
        assigned.sort(key=lambda tp: (len(topic_consumers[tp.topic]), java_str_key(tp.topic), tp.partition))
        unassigned = difference_two_pointer(sorted_all_partitions, assigned)
    else:
        unassigned = sorted_all_partitions  # same list object, as in Kafka

    for consumer in current:
        sorted_members.add(consumer)

    def max_assignment_size(topics: list[str]) -> int:
        if len(topics) == len(ppt):
            return total
        return sum(ppt[t] for t in topics)

    def size_of(consumer: str) -> int:
        tps = current.get(consumer)
        if tps is None:
            raise AssignorError(f"NullPointerException in GeneralAssignmentBuilder: consumer {consumer} "
                                "has no current assignment")
        return len(tps)

    partitions_of = {t: [TopicPartition(t, p) for p in range(n)] for t, n in ppt.items()}

    def is_balanced() -> bool:
        lo = len(current[sorted_members.first()])
        hi = len(current[sorted_members.last()])
        if lo >= hi - 1:
            return True
        owner_of = {tp: consumer for consumer, tps in current.items() for tp in tps}
        sizes = {consumer: len(tps) for consumer, tps in current.items()}
        for consumer in sorted_members:
            mine = current[consumer]
            count = len(mine)
            topics = consumer_topics[consumer]
            if count == max_assignment_size(topics):
                continue
            mine_set = set(mine)
            for t in topics:
                for tp in partitions_of[t]:
                    if tp not in mine_set:
                        other = owner_of.get(tp)
                        if other is None:
                            raise AssignorError(f"NullPointerException in isBalanced: {tp} has no owner")
                        if count + 1 < sizes[other]:
                            return False
        return True

    def process_move(tp: TopicPartition, new: str) -> None:
        old = partition_consumer[tp]
        sorted_members.remove(old)
        sorted_members.remove(new)
        movements.move(tp, old, new)
        list_remove(current[old], tp)
        current[new].append(tp)
        partition_consumer[tp] = new
        sorted_members.add(new)
        sorted_members.add(old)

    def reassign(tp: TopicPartition, new: str | None = None) -> None:
        if new is None:
            new = next((c for c in sorted_members if tp.topic in consumer_topics[c]), None)
            if new is None:
                raise AssignorError(f"no consumer for {tp} in reassignPartition")
        consumer = partition_consumer[tp]
        process_move(movements.actual_partition_to_move(tp, consumer, new), new)

    def perform_reassignments(partitions: list[TopicPartition]) -> bool:
        performed = False
        while True:
            modified = False
            for tp in partitions:
                if is_balanced():
                    break
                consumer = partition_consumer.get(tp)
                if consumer is None:
                    raise AssignorError(f"NullPointerException in performReassignments: {tp} is not assigned")
                if tp in prev and size_of(consumer) > size_of(prev[tp][0]) + 1:
                    reassign(tp, prev[tp][0])
                    performed = modified = True
                    continue
                # a better-suited consumer on the partition's racks first (rack-aware only)
                found_rack_consumer = False
                consumer_rack = rack.consumer_racks.get(consumer)
                replica_racks = rack.partition_racks.get(tp)
                if consumer_rack is not None and replica_racks and consumer_rack in replica_racks:
                    for other in topic_consumers[tp.topic]:
                        other_rack = rack.consumer_racks.get(other)
                        if other_rack is None or other_rack not in replica_racks:
                            continue
                        if size_of(consumer) > size_of(other) + 1:
                            reassign(tp)
                            performed = modified = found_rack_consumer = True
                            break
                if found_rack_consumer:
                    continue
                for other in topic_consumers[tp.topic]:
                    if size_of(consumer) > size_of(other) + 1:
                        reassign(tp)
                        performed = modified = True
                        break
            if not modified:
                return performed

    # balance()
    initializing = len(current[sorted_members.last()]) == 0

    def maybe_assign(partitions: list[TopicPartition], match_racks: bool) -> list[TopicPartition]:
        """maybeAssign: give each partition to the least loaded subscriber (on its racks if
        match_racks); returns the partitions left unassigned."""
        left = []
        for tp in partitions:
            if not topic_consumers[tp.topic]:
                left.append(tp)
                continue
            for consumer in sorted_members:
                if tp.topic in consumer_topics[consumer] and not (match_racks and rack.racks_mismatch(consumer, tp)):
                    sorted_members.remove(consumer)
                    current[consumer].append(tp)
                    partition_consumer[tp] = consumer
                    sorted_members.add(consumer)
                    break
            else:
                left.append(tp)
        return left

    to_assign = unassigned
    if rack.consumer_racks:  # rack-matching pass first, on a copy (LinkedList) of the list
        to_assign = maybe_assign(unassigned, True)
    maybe_assign(to_assign, False)

    fixed_topics = {t for t, cs in topic_consumers.items() if len(cs) < 2}
    if fixed_topics:
        sorted_all_partitions[:] = [tp for tp in sorted_all_partitions if tp.topic not in fixed_topics]
        if unassigned is not sorted_all_partitions:
            unassigned[:] = [tp for tp in unassigned if tp.topic not in fixed_topics]

    def can_participate(consumer: str) -> bool:
        tps = current[consumer]
        if len(tps) < max_assignment_size(consumer_topics[consumer]):
            return True
        return any(len(topic_consumers[tp.topic]) >= 2 for tp in tps)

    fixed_assignments: dict[str, list[TopicPartition]] = {}
    for consumer in consumer_topics:
        if not can_participate(consumer):
            sorted_members.remove(consumer)
            fixed_assignments[consumer] = current.pop(consumer)

    pre_balance = {c: list(tps) for c, tps in current.items()}
    pre_balance_owners = dict(partition_consumer)

    if not revocation_required:
        perform_reassignments(unassigned)
    performed = perform_reassignments(sorted_all_partitions)

    if not initializing and performed and balance_score(current) >= balance_score(pre_balance):
        current.clear()
        current.update({c: list(tps) for c, tps in pre_balance.items()})
        partition_consumer.clear()
        partition_consumer.update(pre_balance_owners)

    current.update(fixed_assignments)
    return current
