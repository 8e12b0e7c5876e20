"""AbstractStickyAssignor, StickyAssignor and CooperativeStickyAssignor (Kafka 3.8.0).

Mirrors clients/.../consumer/internals/AbstractStickyAssignor.java, StickyAssignor.java and
CooperativeStickyAssignor.java, without rack awareness (the conformance format carries no racks;
with no consumer racks Kafka's RackInfo is empty and every rack branch is skipped).

Where Kafka's result depends on java.util.HashMap iteration order we reproduce that order with
``javaorder.JavaHashMapOrder``:
  * the order of the ``subscriptions`` map (member ids): it decides, in allSubscriptionsEqual,
    which of several claimants of a partition keeps it; in the constrained builder, which members
    that own >= maxQuota partitions keep maxQuota; and, in the general builder, which of two
    equal-generation previous owners is remembered in prevAssignment. We model the map as
    ``new HashMap<>()`` filled in the caller's member order (what ConsumerCoordinator and Kafka's
    tests do), or use an order the caller gives explicitly;
  * ``consumerToOwnedPartitions`` (a second HashMap filled while walking the first);
  * the ``HashSet<TopicPartition>`` of PartitionMovements whose first element
    getTheActualPartitionToBeMoved takes (TopicPartition.hashCode).
Everything else is sorted by Kafka with total comparators and needs no hash model.

Like Kafka, one assignor object keeps ``max_generation`` across calls (the field
AbstractStickyAssignor.maxGeneration is never reset); use a fresh object per independent group.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence

from .javaorder import JavaHashMapOrder, java_str_key, java_string_hash, topic_partition_hash
from .model import DEFAULT_GENERATION, AssignorError, Subscription, TopicPartition

Assignment = dict[str, list[TopicPartition]]


def _tp_hash(tp: TopicPartition) -> int:
    return topic_partition_hash(tp.topic, tp.partition)


class _SortedMembers:
    """TreeSet<String> with AbstractStickyAssignor.SubscriptionComparator: (assigned count, member id).

    Kafka always removes a member before changing its assignment size and re-adds it afterwards,
    so keys stored at insertion stay valid, as in the TreeSet.
    """

    def __init__(self, sizes: Mapping[str, list[TopicPartition]]) -> None:
        self._assignment = sizes
        self._keys: list[tuple[int, bytes, str]] = []
        self._key_of: dict[str, tuple[int, bytes, str]] = {}

    def add(self, member: str) -> None:
        if member in self._key_of:
            return
        key = (len(self._assignment[member]), java_str_key(member), member)
        bisect.insort(self._keys, key)
        self._key_of[member] = key

    def remove(self, member: str) -> None:
        key = self._key_of.pop(member, None)
        if key is not None:
            del self._keys[bisect.bisect_left(self._keys, key)]

    def __iter__(self):
        return iter([k[2] for k in self._keys])

    def first(self) -> str:
        if not self._keys:
            raise AssignorError("NoSuchElementException in AbstractStickyAssignor: no consumers")
        return self._keys[0][2]

    def last(self) -> str:
        if not self._keys:
            raise AssignorError("NoSuchElementException in AbstractStickyAssignor: no consumers")
        return self._keys[-1][2]


class _PartitionMovements:
    """AbstractStickyAssignor.PartitionMovements: records src->dst moves per topic so that a move
    back along a recorded pair picks a partition that already moved the other way (stickiness)."""

    def __init__(self) -> None:
        # topic -> (src, dst) -> HashSet<TopicPartition> (iteration order modelled)
        self.by_topic: dict[str, dict[tuple[str, str], JavaHashMapOrder[TopicPartition]]] = {}
        self.moves: dict[TopicPartition, tuple[str, str]] = {}

    def _remove_record(self, tp: TopicPartition) -> tuple[str, str]:
        pair = self.moves.pop(tp)
        for_topic = self.by_topic[tp.topic]
        for_topic[pair].remove(tp)
        if not len(for_topic[pair]):
            del for_topic[pair]
        if not for_topic:
            del self.by_topic[tp.topic]
        return pair

    def _add_record(self, tp: TopicPartition, pair: tuple[str, str]) -> None:
        self.moves[tp] = pair
        for_topic = self.by_topic.setdefault(tp.topic, {})
        if pair not in for_topic:
            for_topic[pair] = JavaHashMapOrder(_tp_hash)
        for_topic[pair].add(tp)

    def move(self, tp: TopicPartition, old: str, new: str) -> None:
        if tp in self.moves:
            existing = self._remove_record(tp)
            if existing[0] != new:  # not moving back to where it came from
                self._add_record(tp, (existing[0], new))
        else:
            self._add_record(tp, (old, new))

    def actual_partition_to_move(self, tp: TopicPartition, old: str, new: str) -> TopicPartition:
        if tp.topic not in self.by_topic:
            return tp
        if tp in self.moves:
            old = self.moves[tp][0]
        reverse = self.by_topic[tp.topic].get((new, old))
        if reverse is None:
            return tp
        return reverse.first()  # HashSet.iterator().next()


def _balance_score(assignment: Mapping[str, list[TopicPartition]]) -> int:
    sizes = sorted(len(v) for v in assignment.values())
    # sum over pairs of |a - b|, computed on sorted sizes
    total, prefix = 0, 0
    for i, s in enumerate(sizes):
        total += s * i - prefix
        prefix += s
    return total


class AbstractStickyAssignor:
    """State and algorithms shared by the sticky assignors (AbstractStickyAssignor, Kafka 3.8.0)."""

    name = "abstract-sticky"

    def __init__(self) -> None:
        self.max_generation = DEFAULT_GENERATION
        # {partition: new owner}; None after the general algorithm (the cooperative wrapper recomputes)
        self.partitions_transferring_ownership: dict[TopicPartition, str] | None = {}

    # -- entry point ---------------------------------------------------------------------------
    def assign_partitions(self, partitions_per_topic: Mapping[str, int], subscriptions: Mapping[str, Subscription],
                          member_order: Sequence[str] | None = None) -> Assignment:
        """``partitions_per_topic`` is passed as Kafka's assignPartitions receives it; ``member_order``
        is the HashMap iteration order of ``subscriptions`` (default: modelled from insertion order)."""
        if not subscriptions:
            return {}
        order = list(member_order) if member_order is not None else list(
            JavaHashMapOrder.of(subscriptions, java_string_hash))
        if sorted(order) != sorted(subscriptions):
            raise AssignorError("member_order must list exactly the subscribed members")
        owned: dict[str, list[TopicPartition]] = {}
        multi: set[TopicPartition] = set()
        if self._all_subscriptions_equal(partitions_per_topic, subscriptions, order, owned, multi):
            self.partitions_transferring_ownership = {}
            # consumerToOwnedPartitions is a second HashMap over the same member ids, filled in the
            # order of the first; an explicit member_order stands for both maps' iteration order
            walk = order if member_order is not None else list(JavaHashMapOrder.of(owned, java_string_hash))
            return self._constrained(partitions_per_topic, owned, multi, walk)
        self.partitions_transferring_ownership = None
        return self._general(partitions_per_topic, owned, subscriptions, order)

    # -- AbstractStickyAssignor.allSubscriptionsEqual -----------------------------------------
    def _all_subscriptions_equal(self, ppt, subscriptions, order, owned_out, multi) -> bool:
        equal = True
        subscribed: set[str] = set()
        previous_owner: dict[TopicPartition, str] = {}
        for consumer in order:
            sub = subscriptions[consumer]
            if not subscribed:
                subscribed.update(sub.topics)
            elif equal and not (len(sub.topics) == len(subscribed) and subscribed.issuperset(sub.topics)):
                equal = False
            generation = sub.generation if sub.generation is not None else DEFAULT_GENERATION
            self.max_generation = max(self.max_generation, generation)
            mine: list[TopicPartition] = []
            owned_out[consumer] = mine
            for tp in sub.owned_partitions:
                if tp.topic not in ppt:
                    continue
                other = previous_owner.get(tp)
                if other is None:
                    mine.append(tp)
                    previous_owner[tp] = consumer
                    continue
                other_sub = subscriptions[other]
                other_gen = other_sub.generation if other_sub.generation is not None else DEFAULT_GENERATION
                if generation == other_gen:
                    # same generation claims: nobody keeps it (it counts as transferring ownership)
                    multi.add(tp)
                    _list_remove(owned_out[other], tp)
                    previous_owner[tp] = consumer
                elif generation > other_gen:
                    mine.append(tp)
                    _list_remove(owned_out[other], tp)
                    previous_owner[tp] = consumer
                # else: the other (higher generation) claimant keeps it
        return equal

    # -- ConstrainedAssignmentBuilder ----------------------------------------------------------
    def _constrained(self, ppt, current: dict[str, list[TopicPartition]], multi: set[TopicPartition],
                     walk: list[str]) -> Assignment:
        transferring = self.partitions_transferring_ownership
        assert transferring is not None
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
            owned = sorted(current[consumer], key=lambda tp: (tp.partition, java_str_key(tp.topic)))
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
        unassigned = _difference_two_pointer(
            [TopicPartition(t, p) for t in all_topics for p in range(ppt[t])], assigned)

        under.sort(key=java_str_key)
        exact.sort(key=java_str_key)

        def assign_new(tp: TopicPartition, consumer: str) -> int:
            mine = assignment[consumer]
            mine.append(tp)
            if (tp in maybe_revoked and maybe_revoked[tp] != consumer) or tp in multi:
                transferring[tp] = consumer
            return len(mine)

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

    # -- GeneralAssignmentBuilder --------------------------------------------------------------
    def _general(self, ppt, current: dict[str, list[TopicPartition]], subscriptions, order) -> Assignment:
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
        sorted_members = _SortedMembers(current)

        # prepopulateCurrentAssignments: the best previous owner below the max generation
        prev: dict[TopicPartition, tuple[str, int]] = {}

        def update_prev(tps, consumer: str, generation: int) -> None:
            for tp in tps:
                if tp not in prev or generation > prev[tp][1]:
                    prev[tp] = (consumer, generation)

        for consumer in order:
            sub = subscriptions[consumer]
            if sub.generation is not None and sub.generation < self.max_generation:
                update_prev(sub.owned_partitions, consumer, sub.generation)
            elif sub.generation is None and self.max_generation > DEFAULT_GENERATION:
                update_prev(sub.owned_partitions, consumer, DEFAULT_GENERATION)

        movements = _PartitionMovements()

        # assignOwnedPartitions: keep owned partitions of still-subscribed topics
        revocation_required = False
        assigned: list[TopicPartition] = []
        for consumer, tps in current.items():
            topics = subscriptions[consumer].topics
            kept = []
            for tp in tps:
                if tp.topic not in topic_consumers:
                    partition_consumer.pop(tp, None)
                elif tp.topic not in topics:
                    revocation_required = True
                else:
                    kept.append(tp)
                    assigned.append(tp)
            tps[:] = kept

        if assigned:
            assigned.sort(key=lambda tp: (len(topic_consumers[tp.topic]), java_str_key(tp.topic), tp.partition))
            unassigned = _difference_two_pointer(sorted_all_partitions, assigned)
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
            _list_remove(current[old], tp)
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
                    for other in topic_consumers[tp.topic]:
                        if size_of(consumer) > size_of(other) + 1:
                            reassign(tp)
                            performed = modified = True
                            break
                if not modified:
                    return performed

        # balance()
        initializing = len(current[sorted_members.last()]) == 0
        for tp in unassigned:  # maybeAssign(unassigned, null, false)
            if not topic_consumers[tp.topic]:
                continue
            for consumer in sorted_members:
                if tp.topic in consumer_topics[consumer]:
                    sorted_members.remove(consumer)
                    current[consumer].append(tp)
                    partition_consumer[tp] = consumer
                    sorted_members.add(consumer)
                    break

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

        if not initializing and performed and _balance_score(current) >= _balance_score(pre_balance):
            current.clear()
            current.update({c: list(tps) for c, tps in pre_balance.items()})
            partition_consumer.clear()
            partition_consumer.update(pre_balance_owners)

        current.update(fixed_assignments)
        return current


def _list_remove(items: list[TopicPartition], tp: TopicPartition) -> None:
    """java.util.List.remove(Object): drop the first occurrence if any."""
    try:
        items.remove(tp)
    except ValueError:
        pass


def _difference_two_pointer(sorted_all: list[TopicPartition], sorted_assigned: list[TopicPartition]) -> list[TopicPartition]:
    """getUnassignedPartitions (both builders): a merge walk that assumes ``sorted_assigned`` is a
    sorted subset of ``sorted_all``. Kafka relies on that; an owned partition that no longer exists
    (e.g. a shrunk topic) makes the walk keep every later partition, and so does this model."""
    if not sorted_assigned:
        return list(sorted_all)
    out: list[TopicPartition] = []
    it = iter(sorted_assigned)
    nxt = next(it)
    add_directly = False
    for tp in sorted_all:
        if add_directly or tp != nxt:
            out.append(tp)
        else:
            try:
                nxt = next(it)
            except StopIteration:
                add_directly = True
    return out


class StickyAssignor(AbstractStickyAssignor):
    """StickyAssignor (eager, Kafka 3.8.0): owned partitions and generation travel in the
    subscription user data (schema V1: previous_assignment + generation); the model takes them
    from ``Subscription.owned_partitions`` / ``generation`` directly."""

    name = "sticky"

    def assign(self, partitions_per_topic, subscriptions, member_order=None) -> Assignment:
        return self.assign_partitions(partitions_per_topic, subscriptions, member_order)


class CooperativeStickyAssignor(AbstractStickyAssignor):
    """CooperativeStickyAssignor (Kafka 3.8.0): the sticky assignment, then every partition that
    moves to a new owner while another member still owns it is withheld for a follow-up rebalance."""

    name = "cooperative-sticky"

    def assign(self, partitions_per_topic, subscriptions, member_order=None) -> Assignment:
        assignment = self.assign_partitions(partitions_per_topic, subscriptions, member_order)
        transferring = self.partitions_transferring_ownership
        if transferring is None:
            transferring = compute_partitions_transferring_ownership(subscriptions, assignment)
        for tp, new_owner in transferring.items():
            _list_remove(assignment[new_owner], tp)
        return assignment


def compute_partitions_transferring_ownership(subscriptions: Mapping[str, Subscription],
                                              assignment: Assignment) -> dict[TopicPartition, str]:
    """CooperativeStickyAssignor.computePartitionsTransferringOwnership: partitions newly assigned
    to a member that some member (raw owned list) gives up in this round."""
    added: dict[TopicPartition, str] = {}
    revoked: set[TopicPartition] = set()
    for consumer, tps in assignment.items():
        owned = subscriptions[consumer].owned_partitions
        owned_set = set(owned)
        for tp in tps:
            if tp not in owned_set:
                added[tp] = consumer
        assigned_set = set(tps)
        revoked.update(tp for tp in owned if tp not in assigned_set)
    return {tp: c for tp, c in added.items() if tp in revoked}


def quotas(total: int, members: int) -> tuple[int, int]:
    """(minQuota, maxQuota) of the constrained builder."""
    return math.floor(total / members), math.ceil(total / members)
