"""Data structures and helpers shared by the sticky assignment builders (Kafka 3.8.0,
clients/.../consumer/internals/AbstractStickyAssignor.java)."""

from __future__ import annotations

import bisect
from collections.abc import Mapping

from .javaorder import JavaHashMapOrder, java_str_key, topic_partition_hash
from .model import AssignorError, TopicPartition


def _tp_hash(tp: TopicPartition) -> int:
    return topic_partition_hash(tp.topic, tp.partition)


class SortedMembers:
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


class PartitionMovements:
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


def balance_score(assignment: Mapping[str, list[TopicPartition]]) -> int:
    sizes = sorted(len(v) for v in assignment.values())
    # sum over pairs of |a - b|, computed on sorted sizes
    total, prefix = 0, 0
    for i, s in enumerate(sizes):
        total += s * i - prefix
        prefix += s
    return total


def list_remove(items: list[TopicPartition], tp: TopicPartition) -> None:
    """java.util.List.remove(Object): drop the first occurrence if any."""
    try:
        items.remove(tp)
    except ValueError:
        pass


def difference_two_pointer(sorted_all: list[TopicPartition], sorted_assigned: list[TopicPartition]) -> list[TopicPartition]:
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
