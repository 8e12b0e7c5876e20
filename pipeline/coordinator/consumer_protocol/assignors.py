"""Server-side assignors of the consumer protocol (KIP-848).

Mirrors `group-coordinator/.../assignor/RangeAssignor.java`, `UniformAssignor.java`,
`UniformHomogeneousAssignmentBuilder.java` and `UniformHeterogeneousAssignmentBuilder.java`
(apache/kafka trunk 1eb7644349cb). Racks are not used by these classes at this commit.

Iteration orders matter for the uniform assignor's exact answer. Kafka walks hash maps keyed by
topic UUIDs: for Kafka Uuid topic ids the homogeneous builder's topic set is walked in Java HashSet
order of the Uuids (`java_uuid_order`); for opaque topic symbols (no Java hash) in the order given.
Members are walked in the order given and each member's current target in its dict order (callers
pass the order of the Java map it comes from, `java_uuid_order` / `java_int_set_order`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pipeline.coordinator.assignors.javaorder import JavaHashMapOrder

from .members import Assignment

HOMOGENEOUS = "HOMOGENEOUS"
HETEROGENEOUS = "HETEROGENEOUS"


class PartitionAssignorError(Exception):
    """PartitionAssignorException (a subscribed topic has no metadata, partitions left over)."""


class AssignorStateError(ValueError):
    """An assignor input Kafka's code cannot index (e.g. a current target holding a partition beyond the topic's
    partition count, which only a shrunk topic produces): Kafka throws an unchecked exception there
    (ArrayIndexOutOfBoundsException in UniformHeterogeneousAssignmentBuilder.maybeRevokePartitions), which the
    coordinator runtime answers with UNKNOWN_SERVER_ERROR."""


@dataclass(frozen=True)
class MemberSpec:
    """MemberSubscriptionAndAssignmentImpl: subscription (topic ids) and current target assignment."""

    member_id: str
    subscribed_topics: tuple[str, ...]
    instance_id: str | None = None
    rack: str | None = None
    current: Mapping[str, Sequence[int]] = field(default_factory=dict)


def _uuid_bits(topic_id: str) -> tuple[int, int] | None:
    """Uuid.fromString: (most, least significant bits, signed) of a 22-character URL-safe base64 id,
    None for anything else (the model's opaque topic symbols)."""
    if len(topic_id) != 22:
        return None
    try:
        raw = base64.urlsafe_b64decode(topic_id + "==")
    except (binascii.Error, ValueError):
        return None
    if len(raw) != 16:
        return None
    return int.from_bytes(raw[:8], "big", signed=True), int.from_bytes(raw[8:], "big", signed=True)


def kafka_uuid_hash(topic_id: str) -> int | None:
    """org.apache.kafka.common.Uuid.hashCode (clients Uuid.java, 3.7-4.0): the int halves of
    most ^ least significant bits xor-ed; None when `topic_id` is not a Kafka Uuid string."""
    bits = _uuid_bits(topic_id)
    if bits is None:
        return None
    x = (bits[0] ^ bits[1]) & 0xFFFFFFFFFFFFFFFF
    v = ((x >> 32) ^ x) & 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def _hash_set_capacity(n: int) -> int:
    # java.util.HashSet(Collection c): new HashMap<>(Math.max((int) (c.size() / .75f) + 1, 16))
    return max(int(n / 0.75) + 1, 16)


def java_uuid_order(topic_ids: Sequence[str], *, copied_set: bool = False) -> list[str]:
    """Iteration order of a java.util.HashMap/HashSet keyed by these topic Uuids, filled in the given
    order (`copied_set`: built by `new HashSet<>(collection)`, else by `new HashMap<>()` puts). Ids that are
    not Kafka Uuids (opaque symbols) have no Java hash: the given order is kept."""
    ids = list(dict.fromkeys(topic_ids))
    if not ids or any(kafka_uuid_hash(t) is None for t in ids):
        return ids
    order = JavaHashMapOrder(lambda t: kafka_uuid_hash(t) or 0,
                             _hash_set_capacity(len(ids)) if copied_set else None)
    for t in ids:
        order.add(t)
    return list(order)


def java_int_set_order(values: Iterable[int]) -> list[int]:
    """Iteration order of `new HashSet<>(collection)` of partition numbers (Integer.hashCode = value):
    ascending while every partition is below the table size, else by bucket."""
    vals = list(dict.fromkeys(int(v) for v in values))
    order = JavaHashMapOrder(lambda v: v, _hash_set_capacity(len(vals)))
    for v in vals:
        order.add(v)
    return list(order)


def uuid_sort_key(topic_id: str) -> tuple:
    """Uuid.compareTo (most then least significant bits, signed) for Kafka's base64 topic ids; other
    ids (the model's opaque symbols) sort as text after them."""
    if len(topic_id) == 22:
        try:
            raw = base64.urlsafe_b64decode(topic_id + "==")
        except (binascii.Error, ValueError):
            raw = b""
        if len(raw) == 16:
            return (0, int.from_bytes(raw[:8], "big", signed=True), int.from_bytes(raw[8:], "big", signed=True), "")
    return (1, 0, 0, topic_id)


def subscription_type(specs: Sequence[MemberSpec]) -> str:
    """ModernGroup.subscriptionType: homogeneous when every member subscribes to the same topics."""
    counts: dict[str, int] = {}
    for s in specs:
        for t in set(s.subscribed_topics):
            counts[t] = counts.get(t, 0) + 1
    return HOMOGENEOUS if all(c == len(specs) for c in counts.values()) else HETEROGENEOUS


def assign(name: str, specs: Sequence[MemberSpec], partitions: Mapping[str, int], sub_type: str | None = None,
           assigned_elsewhere: set[tuple[str, int]] | None = None) -> dict[str, Assignment]:
    """Run the assignor `name` ("range" or "uniform"). `partitions` is the SubscribedTopicDescriber
    (topic id -> partition count; absent = the topic does not exist). `assigned_elsewhere` is the
    group's inverted target assignment (GroupSpec.isPartitionAssigned); default: the members' current."""
    if sub_type is None:
        sub_type = subscription_type(specs)
    if assigned_elsewhere is None:
        assigned_elsewhere = {(t, int(p)) for s in specs for t, ps in s.current.items() for p in ps}
    if name == "range":
        return _range(specs, partitions, sub_type)
    if name == "uniform":
        if not specs:  # UniformAssignor.assign: no members, no assignment
            return {}
        if sub_type == HOMOGENEOUS:
            return _uniform_homogeneous(specs, partitions, assigned_elsewhere)
        return _UniformHeterogeneous(specs, partitions).build()
    raise PartitionAssignorError(f"unknown assignor {name!r}")


def _num_partitions(partitions: Mapping[str, int], topic: str) -> int:
    return int(partitions.get(topic, -1))


# ------------------------------------------------------------------------------------------- range
def _range_member_order(specs: Sequence[MemberSpec]) -> list[MemberSpec]:
    # RangeAssignor.sortMemberIds: static members first by instance id, then dynamic by member id
    static = sorted((s for s in specs if s.instance_id is not None), key=lambda s: str(s.instance_id))
    dynamic = sorted((s for s in specs if s.instance_id is None), key=lambda s: s.member_id)
    return static + dynamic


def _range(specs: Sequence[MemberSpec], partitions: Mapping[str, int], sub_type: str) -> dict[str, Assignment]:
    """RangeAssignor.assign (homogeneous and heterogeneous paths give the same ranges)."""
    if not specs:
        return {}
    ordered = _range_member_order(specs)
    if sub_type == HOMOGENEOUS:
        subscribers_of = {t: ordered for t in ordered[0].subscribed_topics}
        topics_of = {s.member_id: list(ordered[0].subscribed_topics) for s in ordered}
    else:
        subscribers_of = {}
        for s in ordered:
            for t in s.subscribed_topics:
                subscribers_of.setdefault(t, []).append(s)
        topics_of = {s.member_id: list(s.subscribed_topics) for s in ordered}
    for t in subscribers_of:
        if _num_partitions(partitions, t) == -1:
            raise PartitionAssignorError("Member is subscribed to a non-existent topic")
    # per topic: floor(n/k) each, the first n mod k subscribers one more, contiguous ranges
    next_start: dict[str, int] = {}
    extra: dict[str, int] = {}
    out: dict[str, Assignment] = {}
    for s in ordered:
        mine: Assignment = {}
        for t in topics_of[s.member_id]:
            n = _num_partitions(partitions, t)
            k = len(subscribers_of[t])
            if t not in extra:
                extra[t] = n % k
            quota = n // k
            if extra[t] > 0:
                quota += 1
                extra[t] -= 1
            start = next_start.get(t, 0)
            end = min(start + quota, n)
            next_start[t] = end
            if start < end:
                mine[t] = frozenset(range(start, end))
        out[s.member_id] = mine
    return out


# ------------------------------------------------------------------------------------------- uniform
def _uniform_homogeneous(specs: Sequence[MemberSpec], partitions: Mapping[str, int],
                         assigned_elsewhere: set[tuple[str, int]]) -> dict[str, Assignment]:
    """UniformHomogeneousAssignmentBuilder.build: keep current partitions up to the quota, deal the rest.

    The builder copies the first member's subscribed topic ids into `new HashSet<>(...)` and walks that set
    (free partitions are listed in its order): with Kafka Uuids that is the Uuid hash order, whatever order
    the caller gives. Each member's current target is walked as given (topics, then partitions): the
    caller passes its map's iteration order (the coordinator: Assignment.fromRecord's HashMap<Uuid> of
    HashSet<Integer>)."""
    topics = java_uuid_order(specs[0].subscribed_topics, copied_set=True)
    if not topics:
        return {}
    subscribed = set(topics)
    free: list[tuple[str, int]] = []
    total = 0
    for t in topics:
        n = _num_partitions(partitions, t)
        if n == -1:
            raise PartitionAssignorError(f"Members are subscribed to topic {t} which doesn't exist in the topic metadata.")
        free.extend((t, p) for p in range(n) if (t, p) not in assigned_elsewhere)
        total += n
    min_quota, extra = divmod(total, len(specs))
    out: dict[str, Assignment] = {}
    unfilled: list[tuple[str, int]] = []
    # maybeRevokePartitions: quota in member order, the first `extra` members get one more
    for s in specs:
        quota = min_quota
        if extra > 0:
            quota += 1
            extra -= 1
        kept: dict[str, set[int]] = {}
        for t, ps in s.current.items():
            ps_sorted = [int(p) for p in ps]  # the caller's iteration order of the member's partition set
            if t not in subscribed:
                continue  # no longer subscribed: dropped
            if len(ps_sorted) <= quota:
                quota -= len(ps_sorted)
                if ps_sorted:
                    kept[t] = set(ps_sorted)
            else:
                for p in ps_sorted:
                    if quota > 0:
                        quota -= 1
                        kept.setdefault(t, set()).add(p)
                    else:
                        free.append((t, p))  # over quota: back to the free list
        if quota > 0:
            unfilled.append((s.member_id, quota))
        out[s.member_id] = {t: frozenset(ps) for t, ps in kept.items() if ps}
    # assignRemainingPartitions: free partitions dealt in order to members with quota left
    i = 0
    for member_id, quota in unfilled:
        mine = {t: set(ps) for t, ps in out[member_id].items()}
        for _ in range(quota):
            if i >= len(free):
                break
            t, p = free[i]
            i += 1
            mine.setdefault(t, set()).add(p)
        out[member_id] = {t: frozenset(ps) for t, ps in mine.items() if ps}
    if i < len(free):
        raise PartitionAssignorError("Partitions were left unassigned")
    return out


class _UniformHeterogeneous:
    """UniformHeterogeneousAssignmentBuilder: keep current partitions of still-subscribed topics,
    give unassigned partitions to the least loaded subscriber (topics with the most partitions per
    subscriber first), then move partitions from the most to the least loaded subscribers of each
    shared topic until every topic's subscribers differ by at most one (at most 16 passes)."""

    MAX_ITERATION_COUNT = 16

    def __init__(self, specs: Sequence[MemberSpec], partitions: Mapping[str, int]) -> None:
        self.specs = list(specs)
        self.partitions = partitions
        self.member_ids = [s.member_id for s in self.specs]
        self.topic_subscribers: dict[str, list[int]] = {}
        self.subscribed: list[str] = []
        for i, s in enumerate(self.specs):
            for t in dict.fromkeys(s.subscribed_topics):
                if _num_partitions(partitions, t) == -1:
                    raise PartitionAssignorError(
                        f"Members are subscribed to topic {t} which doesn't exist in the topic metadata.")
                if t not in self.topic_subscribers:
                    self.subscribed.append(t)
                self.topic_subscribers.setdefault(t, []).append(i)
        self.sizes = [0] * len(self.specs)
        self.owners = {t: [-1] * _num_partitions(partitions, t) for t in self.subscribed}
        self.target: dict[str, dict[str, set[int]]] = {}

    def _topic_key(self, t: str):
        # topicComparator: partitions per subscriber descending, then fewer subscribers, then topic id
        n = _num_partitions(self.partitions, t)
        k = len(self.topic_subscribers[t])
        return (-(n / k), k, uuid_sort_key(t))

    def _member_key(self, i: int):
        return (self.sizes[i], i)  # memberComparator: target size, then member index

    def build(self) -> dict[str, Assignment]:
        if not self.subscribed:
            return {}
        self._revoke()
        unassigned = {t: [p for p, o in enumerate(self.owners[t]) if o == -1] for t in self.subscribed}
        self._assign_remaining({t: ps for t, ps in unassigned.items() if ps})
        shared = [t for t in self.subscribed if len(self.topic_subscribers[t]) >= 2]
        if shared:
            self._balance_topics(shared)
        return {m: {t: frozenset(ps) for t, ps in a.items() if ps} for m, a in self.target.items()}

    def _revoke(self) -> None:
        # maybeRevokePartitions: drop partitions of topics the member no longer subscribes to
        for i, s in enumerate(self.specs):
            subs = set(s.subscribed_topics)
            mine: dict[str, set[int]] = {}
            for t, ps in s.current.items():
                if t in subs:
                    mine[t] = {int(p) for p in ps}
                    self.sizes[i] += len(mine[t])
                    for p in mine[t]:
                        if not 0 <= p < len(self.owners[t]):  # Java: targetAssignmentPartitionOwners[topic][p]
                            raise AssignorStateError(f"partition {t}-{p} is beyond the topic's "
                                                     f"{len(self.owners[t])} partitions")
                        self.owners[t][p] = i
            self.target[s.member_id] = mine

    def _move(self, t: str, p: int, to: int) -> None:
        # assignPartition
        old = self.owners[t][p]
        if old != -1:
            ps = self.target[self.member_ids[old]].get(t)
            if ps is not None:
                ps.discard(p)
                if not ps:
                    del self.target[self.member_ids[old]][t]
            self.owners[t][p] = -1
            self.sizes[old] -= 1
        self.target[self.member_ids[to]].setdefault(t, set()).add(p)
        self.owners[t][p] = to
        self.sizes[to] += 1

    def _assign_remaining(self, unassigned: dict[str, list[int]]) -> None:
        for t in sorted(unassigned, key=self._topic_key):
            bal = _Balancer(self)
            bal.initialize(self.topic_subscribers[t])
            for p in unassigned[t]:
                self._move(t, p, bal.next_least_loaded())

    def _balance_topics(self, topics: list[str]) -> None:
        ordered = sorted(topics, key=self._topic_key)
        last = -1
        for _ in range(self.MAX_ITERATION_COUNT):
            for idx, t in enumerate(ordered):
                if idx == last:
                    return
                moved = self._balance_topic(t)
                if moved > 0 or last == -1:
                    last = idx

    def _balance_topic(self, t: str) -> int:
        moved = 0
        owners = self.owners[t]
        bal = _Balancer(self)
        if bal.initialize(self.topic_subscribers[t]) <= 1:
            return 0
        parts = sorted(range(len(owners)), key=lambda p: (owners[p], p))
        start: dict[int, int] = {}
        end: dict[int, int] = {}
        for i, p in enumerate(parts):
            start.setdefault(owners[p], i)
            end[owners[p]] = i + 1
        while not bal.is_balanced():
            most = -1
            while True:
                most = bal.next_most_loaded()
                if most == -1:
                    break
                if most not in end or end[most] - start[most] <= 0:
                    bal.exclude_most_loaded()
                    continue
                break
            if most == -1:
                break
            p = parts[end[most] - 1]
            end[most] -= 1
            least = bal.next_least_loaded()
            if bal.is_balanced():
                break
            self._move(t, p, least)
            moved += 1
        return moved


class _Balancer:
    """UniformHeterogeneousAssignmentBuilder.MemberAssignmentBalancer: walks the subscribers of one
    topic from the least and from the most loaded end, one load level at a time."""

    def __init__(self, builder: _UniformHeterogeneous) -> None:
        self.b = builder
        self.sorted: list[int] = []

    def _size(self, pos: int) -> int:
        return self.b.sizes[self.sorted[pos]]

    def initialize(self, members: list[int]) -> int:
        self.sorted = sorted(members, key=self.b._member_key)
        n = len(self.sorted)
        self.least_end = 0
        self.least_count = self._size(0) - 1
        self.next_least = 0
        self.most_start = n
        self.most_end = n
        self.most_count = self._size(n - 1) + 1
        self.next_most = n - 1
        return self._size(n - 1) - self._size(0)

    def next_least_loaded(self) -> int:
        if self.next_least >= self.least_end:
            self.least_count += 1
            while self.least_end < len(self.sorted) and self._size(self.least_end) == self.least_count:
                self.least_end += 1
            self.next_least = 0
        m = self.sorted[self.next_least]
        self.next_least += 1
        return m

    def next_most_loaded(self) -> int:
        if self.next_most < self.most_start:
            if self.most_end <= self.most_start and self.most_start > 0:
                self.most_count = self._size(self.most_start - 1)
            else:
                self.most_count -= 1
            while self.most_start > 0 and self._size(self.most_start - 1) == self.most_count:
                self.most_start -= 1
            self.next_most = self.most_end - 1
        if self.next_most < 0:
            return -1
        m = self.sorted[self.next_most]
        self.next_most -= 1
        return m

    def exclude_most_loaded(self) -> None:
        pos = self.next_most + 1
        m = self.sorted[pos]
        self.sorted[pos] = self.sorted[self.most_end - 1]
        self.sorted[self.most_end - 1] = m
        self.most_end -= 1

    def is_balanced(self) -> bool:
        return self.most_count - self.least_count <= 1
