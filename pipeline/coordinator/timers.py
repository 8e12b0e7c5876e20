"""Event-time timer wheel: one-shot, keyed timers fired in deadline order when time advances.

Plays the part of Kafka's DelayedOperationPurgatory + SystemTimer (Scala 3.8.0) and of
CoordinatorTimer (Java trunk): scheduling a key replaces the timer already under that key (Java
`timer.schedule(key, ...)`; in Scala each member/group has at most one live DelayedHeartbeat /
DelayedJoin / DelayedSync). A timer fires once the clock reaches its deadline; timers sharing a
deadline fire in scheduling order. While a timer fires the clock reads its deadline, so a timer
armed by a firing timer counts from that deadline, as on a real broker.

Session timers are re-armed on every heartbeat, so a re-arm that only pushes the deadline later
updates the entry in place and the heap re-files it lazily when its old slot comes up.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable


class _Entry:
    __slots__ = ("deadline", "seq", "key", "action", "live")

    def __init__(self, deadline: int, seq: int, key: Hashable, action: Callable[[], None]) -> None:
        self.deadline = deadline
        self.seq = seq
        self.key = key
        self.action = action
        self.live = True


class TimerWheel:
    def __init__(self, now_ms: int = 0) -> None:
        self._now = now_ms
        self._heap: list[tuple[int, int, _Entry]] = []
        self._by_key: dict[Hashable, _Entry] = {}
        self._seq = 0

    @property
    def now_ms(self) -> int:
        return self._now

    def schedule(self, key: Hashable, delay_ms: int, action: Callable[[], None]) -> int:
        """Arm (or re-arm) `key` to run `action` at now + delay; returns the deadline."""
        deadline = self._now + (delay_ms if delay_ms > 0 else 0)
        self._seq += 1
        entry = self._by_key.get(key)
        if entry is not None and deadline >= entry.deadline:
            # later (or equal) deadline: update in place; the heap slot is re-filed when reached
            entry.deadline = deadline
            entry.seq = self._seq
            entry.action = action
            return deadline
        if entry is not None:
            entry.live = False
        entry = _Entry(deadline, self._seq, key, action)
        self._by_key[key] = entry
        heapq.heappush(self._heap, (deadline, self._seq, entry))
        return deadline

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

    def __len__(self) -> int:
        return len(self._by_key)

    def _settle_top(self) -> _Entry | None:
        """Drop cancelled slots and re-file moved ones until the top slot is current."""
        heap = self._heap
        while heap:
            deadline, seq, entry = heap[0]
            if not entry.live:
                heapq.heappop(heap)
            elif entry.deadline != deadline or entry.seq != seq:
                heapq.heapreplace(heap, (entry.deadline, entry.seq, entry))
            else:
                return entry
        return None

    def next_deadline(self) -> int | None:
        entry = self._settle_top()
        return entry.deadline if entry is not None else None

    def advance(self, now_ms: int) -> int:
        """Move the clock to `now_ms` (never backwards), firing due timers; returns how many fired."""
        fired = 0
        heap = self._heap
        while heap and heap[0][0] <= now_ms:
            entry = self._settle_top()
            if entry is None or entry.deadline > now_ms:
                break
            heapq.heappop(heap)
            del self._by_key[entry.key]
            entry.live = False
            if entry.deadline > self._now:
                self._now = entry.deadline
            entry.action()
            fired += 1
        if now_ms > self._now:
            self._now = now_ms
        return fired
