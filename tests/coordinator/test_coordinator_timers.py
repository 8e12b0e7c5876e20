"""The event-time timer wheel against a naive reference, plus its documented edge cases."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.coordinator.timers import TimerWheel


class NaiveTimers:
    """Reference: a list scanned in (deadline, scheduling order)."""

    def __init__(self):
        self.now, self.seq, self.timers = 0, 0, {}

    def schedule(self, key, delay, action):
        self.seq += 1
        self.timers[key] = (self.now + max(0, delay), self.seq, action)

    def cancel(self, key):
        self.timers.pop(key, None)

    def advance(self, now):
        while True:
            due = sorted((d, s, k) for k, (d, s, _) in self.timers.items() if d <= now)
            if not due:
                break
            d, _, k = due[0]
            action = self.timers.pop(k)[2]
            self.now = max(self.now, d)
            action()
        self.now = max(self.now, now)


ops = st.lists(st.one_of(
    st.tuples(st.just("schedule"), st.integers(0, 5), st.integers(0, 40), st.integers(0, 3)),
    st.tuples(st.just("cancel"), st.integers(0, 5)),
    st.tuples(st.just("advance"), st.integers(0, 30)),
), max_size=60)


@settings(max_examples=200, deadline=None)
@given(ops)
def test_timer_wheel_matches_the_reference(program):
    fired_a, fired_b = [], []
    wheel, naive = TimerWheel(), NaiveTimers()

    def make(log, clock, key, chain, target):
        def action():
            log.append((key, clock()))
            if chain:  # a timer that arms another one while firing
                target.schedule(("chained", key), chain, lambda: log.append((("chained", key), clock())))
        return action

    for op in program:
        if op[0] == "schedule":
            _, key, delay, chain = op
            wheel.schedule(key, delay, make(fired_a, lambda: wheel.now_ms, key, chain, wheel))
            naive.schedule(key, delay, make(fired_b, lambda: naive.now, key, chain, naive))
        elif op[0] == "cancel":
            assert wheel.cancel(op[1]) == (op[1] in naive.timers)
            naive.cancel(op[1])
        else:
            wheel.advance(wheel.now_ms + op[1])
            naive.advance(naive.now + op[1])
        assert fired_a == fired_b
        assert wheel.now_ms == naive.now
        assert len(wheel) == len(naive.timers)
        expected_next = min((d for d, _, _ in naive.timers.values()), default=None)
        assert wheel.next_deadline() == expected_next


def test_rearming_earlier_and_later_and_same_deadline_order():
    w, log = TimerWheel(), []
    w.schedule("a", 10, lambda: log.append("a"))
    w.schedule("b", 10, lambda: log.append("b"))
    w.schedule("a", 10, lambda: log.append("a2"))  # same deadline, re-armed later: fires after b
    w.schedule("c", 20, lambda: log.append("c"))
    w.schedule("c", 5, lambda: log.append("c-early"))  # moved earlier
    assert w.advance(9) == 1 and log == ["c-early"]
    assert w.advance(10) == 2 and log == ["c-early", "b", "a2"]
    assert w.next_deadline() is None and w.now_ms == 10


def test_clock_reads_the_deadline_while_firing_and_never_goes_back():
    w, seen = TimerWheel(), []
    w.schedule("x", 100, lambda: w.schedule("y", 50, lambda: seen.append(w.now_ms)))
    w.advance(1000)
    assert seen == [150] and w.now_ms == 1000
    w.advance(500)
    assert w.now_ms == 1000
