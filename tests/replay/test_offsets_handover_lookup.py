"""offsets._EndedBefore: the previous owner of a hand-over found by lookup gives the same interval
as the scan it replaced (every interval that started before the new owner and ended within
[lo, hi]; the latest end, the first in start order among equal ends), on random intervals with
equal starts, equal ends and open ends."""

import random

from pipeline.replay_rules.offsets import _EndedBefore
from pipeline.replay_rules.state import Interval


def _scan(owned, new, lo, hi):
    prev = [iv for iv in owned if iv is not new and iv.start_ms < new.start_ms and iv.end_ms is not None
            and hi >= iv.end_ms >= lo]
    return max(prev, key=lambda iv: iv.end_ms) if prev else None


def test_lookup_equals_the_scan_on_random_intervals():
    rnd = random.Random(7)
    checked = found = 0
    for _ in range(300):
        owned = sorted((Interval("t-0", f"m{i}", None, None, rnd.randint(0, 50), "f:1",
                                 end_ms=None if rnd.random() < 0.2 else rnd.randint(0, 80))
                        for i in range(rnd.randint(1, 30))), key=lambda iv: iv.start_ms)
        ended = _EndedBefore(owned)
        for new in owned[1:]:
            resume = new.start_ms + rnd.randint(-5, 5)
            lo, hi = resume - rnd.randint(0, 30), resume + rnd.randint(0, 10)
            want = _scan(owned, new, lo, hi)
            assert ended.latest(new.start_ms, lo, hi) is want
            checked += 1
            found += want is not None
    assert checked > 1000 and found > 300
