"""Java collection orders that Kafka's assignors depend on.

Kafka's assignors walk ``java.util.HashMap`` / ``HashSet`` instances in several places, so their
output can depend on hash iteration order. This module reproduces that order exactly for the
cases that occur (OpenJDK 8+ ``HashMap``: power-of-two table, ``spread(h) = h ^ (h >>> 16)``,
bucket index ``spread & (n - 1)``, entries in a bucket in insertion order, table doubling when
``size > 0.75 * n``, and the pre-treeify resize of a table smaller than 64 whose bucket reaches 9
entries). A bucket that is treeified (9+ colliding entries in a table of 64+) is kept in insertion
order here; OpenJDK would move the tree root to the front of that bucket. That needs ~9 equal
``hash & (n-1)`` values among a few dozen keys and does not occur in practice.

It also provides ``java_str_key`` (``String.compareTo`` orders by UTF-16 code units, which differs
from Python's code-point order only for characters outside the BMP).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)

_MASK32 = 0xFFFFFFFF
_TREEIFY_THRESHOLD = 8  # java.util.HashMap.TREEIFY_THRESHOLD
_MIN_TREEIFY_CAPACITY = 64  # java.util.HashMap.MIN_TREEIFY_CAPACITY


def java_str_key(s: str) -> bytes:
    """Sort key equal to Java ``String.compareTo`` (lexicographic over UTF-16 code units)."""
    return s.encode("utf-16-be", "surrogatepass")


def _to_int32(v: int) -> int:
    v &= _MASK32
    return v - (1 << 32) if v & 0x80000000 else v


def java_string_hash(s: str) -> int:
    """``java.lang.String.hashCode``: s[0]*31^(n-1) + ... + s[n-1] over UTF-16 units, int32 wrap."""
    h = 0
    data = s.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & _MASK32
    return _to_int32(h)


def topic_partition_hash(topic: str, partition: int) -> int:
    """``org.apache.kafka.common.TopicPartition.hashCode`` (Kafka 3.8.0): 31 * (31 + partition) + topic.hashCode()."""
    return _to_int32(31 * (31 + partition) + java_string_hash(topic))


def _spread(h: int) -> int:
    h &= _MASK32
    return h ^ (h >> 16)


def _table_size_for(cap: int) -> int:
    n = 1
    while n < cap:
        n <<= 1
    return max(n, 1)


class JavaHashMapOrder(Generic[K]):
    """Keys of a ``java.util.HashMap`` (or ``HashSet``) in Java's iteration order.

    Only the key order is modelled; callers keep their values in ordinary dicts.
    ``initial_capacity`` mirrors ``new HashMap<>(n)``; ``None`` mirrors ``new HashMap<>()``.
    """

    def __init__(self, hash_fn: Callable[[K], int], initial_capacity: int | None = None) -> None:
        self._hash_fn = hash_fn
        self._cap = 16 if initial_capacity is None else _table_size_for(max(initial_capacity, 1))
        self._buckets: list[list[K]] = [[] for _ in range(self._cap)]
        self._spread: dict[K, int] = {}

    @classmethod
    def of(cls, keys: Iterable[K], hash_fn: Callable[[K], int]) -> JavaHashMapOrder[K]:
        m = cls(hash_fn)
        for k in keys:
            m.add(k)
        return m

    def __len__(self) -> int:
        return len(self._spread)

    def __contains__(self, key: object) -> bool:
        return key in self._spread

    def add(self, key: K) -> None:
        if key in self._spread:
            return  # HashMap.put of an existing key keeps its position
        h = _spread(self._hash_fn(key))
        self._spread[key] = h
        bucket = self._buckets[h & (self._cap - 1)]
        bucket.append(key)
        if len(bucket) > _TREEIFY_THRESHOLD and self._cap < _MIN_TREEIFY_CAPACITY:
            self._resize()  # HashMap.treeifyBin resizes small tables instead of treeifying
        if len(self._spread) > self._cap * 3 // 4:
            self._resize()

    def remove(self, key: K) -> None:
        h = self._spread.pop(key, None)
        if h is not None:
            self._buckets[h & (self._cap - 1)].remove(key)

    def _resize(self) -> None:
        # HashMap.resize splits each bucket into lo/hi lists, preserving relative order
        new_cap = self._cap * 2
        buckets: list[list[K]] = [[] for _ in range(new_cap)]
        for bucket in self._buckets:
            for k in bucket:
                buckets[self._spread[k] & (new_cap - 1)].append(k)
        self._cap = new_cap
        self._buckets = buckets

    def __iter__(self) -> Iterator[K]:
        for bucket in self._buckets:
            yield from list(bucket)

    def first(self) -> K:
        for bucket in self._buckets:
            if bucket:
                return bucket[0]
        raise KeyError("empty")


def java_hashmap_order(keys: Iterable[str]) -> list[str]:
    """Iteration order of a ``new HashMap<String, V>()`` filled with ``keys`` in the given order."""
    return list(JavaHashMapOrder.of(keys, java_string_hash))
