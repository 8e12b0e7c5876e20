"""Event-time timer wheel: one-shot, keyed timers fired in deadline order when time advances.

Plays the part of Kafka's DelayedOperationPurgatory + SystemTimer (Scala 3.8.0) and of
CoordinatorTimer (Java trunk): scheduling a key replaces the timer already under that key (Java
`timer.schedule(key, ...)`; in Scala each member/group has at most one live DelayedHeartbeat /
DelayedJoin / DelayedSync). A timer fires once the clock reaches its deadline; timers sharing a
deadline fire in scheduling order. While a timer fires the clock reads its deadline, so a timer
armed by a firing timer counts from that deadline, as on a real broker.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field


@dataclass(order=True)
class _Entry:
    deadline: int
    seq: int
    key: Hashable = field(compare=False)
    action: Callable[[], None] = field(compare=False)
    live: bool = field(default=True, compare=False)


class TimerWheel:
    def __init__(self, now_ms: int = 0) -> None:
        self._now = now_ms
        self._heap: list[_Entry] = []
        self._by_key: dict[Hashable, _Entry] = {}
        self._seq = 0

    @property
    def now_ms(self) -> int:
        return self._now

    def schedule(self, key: Hashable, delay_ms: int, action: Callable[[], None]) -> int:
        """Arm (or re-arm) `key` to run `action` at now + delay; returns the deadline."""
        self.cancel(key)
        self._seq += 1
        entry = _Entry(self._now + max(0, int(delay_ms)), self._seq, key, action)
        self._by_key[key] = entry
        heapq.heappush(self._heap, entry)
        return entry.deadline

    def cancel(self, key: Hashable) -> bool:
        entry = self._by_key.pop(key, None)
        if entry is None:
            return False
        entry.live = False
        return True

    def deadline(self, key: Hashable) -> int | None:
        entry = self._by_key.get(key)
        return entry.deadline if entry is not None else None

    def is_scheduled(self, key: Hashable) -> bool:
        return key in self._by_key

    def next_deadline(self) -> int | None:
        self._drop_dead()
        return self._heap[0].deadline if self._heap else None

    def __len__(self) -> int:
        return len(self._by_key)

    def _drop_dead(self) -> None:
        heap = self._heap
        while heap and not heap[0].live:
            heapq.heappop(heap)

    def advance(self, now_ms: int) -> int:
        """Move the clock to `now_ms` (never backwards), firing due timers; returns how many fired."""
        fired = 0
        heap = self._heap
        while True:
            self._drop_dead()
            if not heap or heap[0].deadline > now_ms:
                break
            entry = heapq.heappop(heap)
            del self._by_key[entry.key]
            entry.live = False
            if entry.deadline > self._now:
                self._now = entry.deadline
            entry.action()
            fired += 1
        if now_ms > self._now:
            self._now = now_ms
        return fired
