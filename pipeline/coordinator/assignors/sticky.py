"""AbstractStickyAssignor, StickyAssignor and CooperativeStickyAssignor (Kafka 3.8.0).

Mirrors clients/.../consumer/internals/AbstractStickyAssignor.java, StickyAssignor.java and
CooperativeStickyAssignor.java, including the rack-aware branches (RackInfo): they run only when
replica racks are given and members have racks; otherwise Kafka skips every rack branch too.

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

from collections.abc import Mapping, Sequence

from .javaorder import JavaHashMapOrder, java_string_hash
from .model import DEFAULT_GENERATION, AssignorError, Subscription, TopicPartition
from .rackinfo import RackInfo
from .sticky_constrained import constrained_assign
from .sticky_general import general_assign
from .sticky_structures import list_remove

Assignment = dict[str, list[TopicPartition]]


class AbstractStickyAssignor:
    """State and algorithms shared by the sticky assignors (AbstractStickyAssignor, Kafka 3.8.0)."""

    name = "abstract-sticky"

    def __init__(self) -> None:
        self.max_generation = DEFAULT_GENERATION
        # {partition: new owner}; None after the general algorithm (the cooperative wrapper recomputes)
        self.partitions_transferring_ownership: dict[TopicPartition, str] | None = {}

    # -- entry point ---------------------------------------------------------------------------
    def assign_partitions(self, partitions_per_topic: Mapping[str, int], subscriptions: Mapping[str, Subscription],
                          member_order: Sequence[str] | None = None,
                          partition_racks: Mapping[str, Sequence[frozenset[str]]] | None = None,
                          prefer_rack_aware: bool = False, map_capacity: int | None = None) -> Assignment:
        """``partitions_per_topic`` is passed as Kafka's assignPartitions receives it; ``member_order``
        is the HashMap iteration order of ``subscriptions`` (default: modelled from insertion order)."""
        if not subscriptions:
            return {}
        if member_order is not None:
            order = list(member_order)
        else:  # new HashMap<>() (or new HashMap<>(map_capacity)) filled in the caller's member order
            hashed: JavaHashMapOrder[str] = JavaHashMapOrder(java_string_hash, map_capacity)
            for member in subscriptions:
                hashed.add(member)
            order = list(hashed)
        if sorted(order) != sorted(subscriptions):
            raise AssignorError("member_order must list exactly the subscribed members")
        rack = RackInfo(partitions_per_topic, subscriptions, order, partition_racks, prefer_rack_aware)
        owned: dict[str, list[TopicPartition]] = {}
        multi: set[TopicPartition] = set()
        if self._all_subscriptions_equal(partitions_per_topic, subscriptions, order, owned, multi):
            self.partitions_transferring_ownership = {}
            # consumerToOwnedPartitions is a second HashMap over the same member ids, filled in the
            # order of the first; an explicit member_order stands for both maps' iteration order
            walk = order if member_order is not None else list(JavaHashMapOrder.of(owned, java_string_hash))
            return constrained_assign(partitions_per_topic, owned, multi, walk, rack,
                                      self.partitions_transferring_ownership)
        self.partitions_transferring_ownership = None
        return general_assign(partitions_per_topic, owned, subscriptions, order, rack, self.max_generation)

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
                    list_remove(owned_out[other], tp)
                    previous_owner[tp] = consumer
                elif generation > other_gen:
                    mine.append(tp)
                    list_remove(owned_out[other], tp)
                    previous_owner[tp] = consumer
                # else: the other (higher generation) claimant keeps it
        return equal


class StickyAssignor(AbstractStickyAssignor):
    """StickyAssignor (eager, Kafka 3.8.0): owned partitions and generation travel in the
    subscription user data (schema V1: previous_assignment + generation); the model takes them
    from ``Subscription.owned_partitions`` / ``generation`` directly."""

    name = "sticky"

    def assign(self, partitions_per_topic, subscriptions, member_order=None, partition_racks=None,
               prefer_rack_aware=False, map_capacity=None) -> Assignment:
        return self.assign_partitions(partitions_per_topic, subscriptions, member_order, partition_racks, prefer_rack_aware,
                                      map_capacity)


class CooperativeStickyAssignor(AbstractStickyAssignor):
    """CooperativeStickyAssignor (Kafka 3.8.0): the sticky assignment, then every partition that
    moves to a new owner while another member still owns it is withheld for a follow-up rebalance."""

    name = "cooperative-sticky"

    def assign(self, partitions_per_topic, subscriptions, member_order=None, partition_racks=None,
               prefer_rack_aware=False, map_capacity=None) -> Assignment:
        assignment = self.assign_partitions(partitions_per_topic, subscriptions, member_order, partition_racks,
                                            prefer_rack_aware, map_capacity)
        transferring = self.partitions_transferring_ownership
        if transferring is None:
            transferring = compute_partitions_transferring_ownership(subscriptions, assignment)
        for tp, new_owner in transferring.items():
            list_remove(assignment[new_owner], tp)
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
