"""Iteration orders of the two hash maps behind `ConsumerGroup.computePreferredServerAssignor`.

The preferred server assignor is `counts.entrySet().stream().max(comparingByValue())` over
`new HashMap<>(serverAssignors)` updated with `compute(name, Utils::decValue / incValue)`
(`modern/consumer/ConsumerGroup.java`, apache/kafka trunk 1eb7644349cb, the same in 3.8.0-3.9.0).
`Stream.max` keeps the first of equal counts (`BinaryOperator.maxBy`), so a tie is settled by the
iteration order of that HashMap, which depends on:

* the iteration order of `serverAssignors`, a `org.apache.kafka.timeline.TimelineHashMap`
  (server-common `BaseHashTable` / `SnapshottableHashTable`, trunk 1eb7644349cb): an open table of
  slots, capacity 2 for expected size 0, doubled before every put (a replacement too) when
  `(size + 1) * 0.75 > capacity`;
  the slot is the top `log2(capacity)` bits of `hashCode * -7046029254386353131L` (Fibonacci hashing);
  colliding entries share a slot array (appended on insert and on rehash, which walks the old slots in
  order); the iterator walks the slots in order and each slot array from its last entry to its first
  (`CurrentIterator.next` takes `ready.remove(ready.size() - 1)`); `put` of a present key replaces it
  in place, `compute` to null removes it;
* `java.util.HashMap(Map)` (OpenJDK 17): table size `tableSizeFor((int) (size / 0.75f + 1))` (16 when
  the source is empty), entries put in the source's iteration order (appended to their bucket);
* `HashMap.compute`: resizes first when `size > threshold`, a new key is *prepended* to its bucket
  (`newNode(hash, key, value, first)`), a null result removes the entry.

These facts were checked by running the TimelineHashMap classes of that commit and OpenJDK 17's HashMap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pipeline.coordinator.assignors.javaorder import (  # (HashMap.hash, tableSizeFor)
    _spread,
    _table_size_for,
    java_string_hash,
)

_MASK64 = 0xFFFFFFFFFFFFFFFF
_FIB = -7046029254386353131  # BaseHashTable.findSlot's multiplier


def timeline_slot(hash_code: int, capacity: int) -> int:
    """BaseHashTable.findSlot: `(int) ((hashCode * -7046029254386353131L) >>> (65 - log2size))`."""
    log2size = capacity.bit_length()  # 32 - Integer.numberOfLeadingZeros(capacity)
    product = (hash_code * _FIB) & _MASK64
    return product >> (65 - log2size)


class TimelineHashMapOrder:
    """Key order of a `TimelineHashMap<String, V>` created with expected size 0 (`counts` keeps the values:
    the server assignor counts, or anything for the members map)."""

    def __init__(self, hash_fn: Callable[[str], int] = java_string_hash) -> None:
        self._hash = hash_fn
        self._slots: list[list[str]] = [[], []]  # BaseHashTable.MIN_CAPACITY
        self.counts: dict[str, int] = {}

    def _slot(self, key: str) -> int:
        return timeline_slot(self._hash(key), len(self._slots))

    def _rehash(self, new_size: int) -> None:
        old = self._slots
        self._slots = [[] for _ in range(new_size)]
        for slot in old:
            for key in slot:
                self._slots[self._slot(key)].append(key)

    def put(self, key: str, value: int = 0) -> None:
        """TimelineHashMap.put: the load is checked before every put (a replacement too); a present key is
        replaced in place, a new one appended to its slot."""
        if (len(self.counts) + 1) * 0.75 > len(self._slots):
            self._rehash(len(self._slots) * 2)
        if key not in self.counts:
            self._slots[self._slot(key)].append(key)
        self.counts[key] = value

    def remove(self, key: str) -> None:
        if key in self.counts:
            del self.counts[key]
            self._slots[self._slot(key)].remove(key)

    def compute(self, key: str, delta: int) -> None:
        """`compute(key, Utils::incValue)` (+1) or `Utils::decValue` (-1; the entry goes at 0): Map.compute's
        default, a put of the new value or a remove."""
        old = self.counts.get(key)
        if delta < 0:
            if old is None:
                return
            if old == 1:
                self.remove(key)
                return
            self.put(key, old - 1)
            return
        self.put(key, 1 if old is None else old + 1)

    def __iter__(self) -> Iterator[str]:
        for slot in self._slots:
            yield from reversed(slot)


class JavaHashMapCopy:
    """`new HashMap<>(source)` updated with `compute` (OpenJDK 17 semantics), keys and counts."""

    def __init__(self, source_keys: list[str], counts: dict[str, int],
                 hash_fn: Callable[[str], int] = java_string_hash) -> None:
        self._hash = hash_fn
        s = len(source_keys)
        self._cap = 16 if s == 0 else _table_size_for(int(s / 0.75 + 1))
        self._buckets: list[list[str]] = [[] for _ in range(self._cap)]
        self.counts: dict[str, int] = {}
        for k in source_keys:  # putVal: appended to the bucket, resize after the insert
            self._buckets[self._index(k)].append(k)
            self.counts[k] = counts[k]
            if len(self.counts) > self._threshold():
                self._resize()

    def _threshold(self) -> int:
        return int(self._cap * 0.75)

    def _index(self, key: str) -> int:
        return _spread(self._hash(key)) & (self._cap - 1)

    def _resize(self) -> None:
        new_cap = self._cap * 2
        buckets: list[list[str]] = [[] for _ in range(new_cap)]
        for bucket in self._buckets:
            for k in bucket:  # lo/hi split keeps the relative order
                buckets[_spread(self._hash(k)) & (new_cap - 1)].append(k)
        self._cap = new_cap
        self._buckets = buckets

    def compute(self, key: str, delta: int) -> None:
        if len(self.counts) > self._threshold():
            self._resize()
        old = self.counts.get(key)
        if delta < 0:
            if old is None:
                return
            if old == 1:
                del self.counts[key]
                self._buckets[self._index(key)].remove(key)
            else:
                self.counts[key] = old - 1
            return
        if old is not None:
            self.counts[key] = old + 1
            return
        self._buckets[self._index(key)].insert(0, key)  # newNode(hash, key, v, first)
        self.counts[key] = 1

    def __iter__(self) -> Iterator[str]:
        for bucket in self._buckets:
            yield from bucket

    def max_by_value(self) -> str | None:
        """`entrySet().stream().max(Map.Entry.comparingByValue())`: the first of the largest counts."""
        best = None
        for k in self:
            if best is None or self.counts[k] > self.counts[best]:
                best = k
        return best
