"""A big group's heartbeats and commits read as compact rows (pipeline.replay_rules.compact_rows):
the replay's results are the eager Events' exactly, and what it holds per heartbeat or commit line
is a one-slot object, not an Event: the number of live Events does not grow with those lines, and
the Python memory the replay traces grows by a bounded number of bytes per line. No timing."""

from __future__ import annotations

import gc
import json
import tracemalloc

import pytest

from parsers.events import Event
from pipeline import replay
from pipeline.replay_rules import collect, compact_rows, event_rows, lazy_text
from tests.replay.arrow_tables import events_table
from tests.replay.builders import Host, merged

T0 = 1_710_000_000_000


def _group(minutes: int) -> list[Event]:
    """Two consumers of a classic group (gen 1, then gen 2 after c2's session expired in a 20 s
    silence and it came back), heartbeating every 3 s and committing every 500 ms for `minutes`
    minutes: the number of lines of other kinds does not depend on `minutes`."""
    broker = Host("broker.log", side="broker")
    c1, c2 = Host("c1.log", "consumer-1"), Host("c2.log", "consumer-2")
    broker.preparing(T0, 0, "Adding new member consumer-1-a with group instance id None")
    c1.join(T0, 1, "consumer-1-a", ["orders-0", "orders-1"])
    c2.join(T0 + 20, 1, "consumer-2-a", ["orders-2", "orders-3"])
    broker.stabilized(T0 + 150, 1, 2)
    broker.assignment(T0 + 160, 1, "consumer-1-a")
    end = T0 + minutes * 60_000
    silent = (T0 + (end - T0) // 2, T0 + (end - T0) // 2 + 20_000)
    for h, parts in ((c1, (0, 1)), (c2, (2, 3))):
        off = {p: 0 for p in parts}
        for i, t in enumerate(range(T0 + 1000, end, 500)):
            if h is c2 and silent[0] <= t < silent[1]:
                continue
            if i % 6 == 0:
                h.ev(t, "heartbeat_succeeded")
            p = parts[i % 2]
            off[p] += 10
            h.ev(t + 1, "offset_committed", topic="orders", partition=p, offset=off[p], partitions=[f"orders-{p}"],
                 raw=f"{t} Committed offset {off[p]} for partition orders-{p}")
    broker.failed(silent[0] + 10_000, "consumer-2-a")
    broker.preparing(silent[0] + 10_001, 1, "removing member consumer-2-a on heartbeat expiration")
    c2.ev(silent[1] + 5, "heartbeat_failed", error="UNKNOWN_MEMBER_ID")
    c1.join(silent[0] + 11_000, 2, "consumer-1-a", ["orders-0", "orders-1", "orders-2", "orders-3"])
    broker.stabilized(silent[0] + 11_200, 2, 1)
    return merged(broker, c1, c2)


def _canonical(rows: dict) -> str:
    return json.dumps({t: rows[t] for t in replay.OUTPUT_TABLES}, sort_keys=True, default=str)


def test_compact_rows_read_as_the_events_and_replay_alike():
    events = _group(40)
    assert len(events) >= event_rows._SHARE_MIN_ROWS
    table = events_table(events, chunk_rows=997)
    eager = event_rows.events_from_arrow(table)
    lazy = event_rows.events_from_arrow(table, lazy_text=True)
    compact = [e for e in lazy if compact_rows.is_compact(e)]
    # every heartbeat and commit (and nothing else) is a compact row
    assert len(compact) == sum(e.kind in compact_rows.BULK_KINDS for e in events) > 0.9 * len(events)
    assert all(e.kind in compact_rows.BULK_KINDS for e in compact)
    # field by field, text and evidence included, the same lines in the same order
    assert [repr(e) for e in lazy] == [repr(e) for e in eager]
    # (a lazy Event and a plain one never compare equal: dataclass equality wants one class)
    assert all(a == b and b == a for a, b in zip(lazy, eager, strict=True) if compact_rows.is_compact(a))
    assert [e.evidence for e in lazy] == [e.evidence for e in eager]
    assert [e.raw for e in lazy[:50]] == [e.raw for e in eager[:50]]
    lazy_text.release(lazy)
    with pytest.raises(RuntimeError):
        _ = compact[0].raw
    # the replay of the rows equals the replay of plain Events, row for row
    expected = replay.replay_group(eager)
    got = replay.replay_group_rows(table)
    assert _canonical(got) == _canonical({t: expected.table(t) for t in replay.OUTPUT_TABLES})
    assert any(f["kind"] == "session_expiry" or "expir" in f["kind"] for f in got["findings"]), got["findings"]


def _live_events_at_collect(table, monkeypatch) -> int:
    seen: list[int] = []
    run = collect.Collector.run

    def counting(self, ordered):
        seen.append(sum(1 for o in gc.get_objects() if isinstance(o, Event)))
        return run(self, ordered)

    monkeypatch.setattr(collect.Collector, "run", counting)
    replay.replay_group_rows(table)
    return seen[0]


def test_live_events_do_not_grow_with_heartbeat_and_commit_lines(monkeypatch):
    small, big = _group(40), _group(100)
    added = len(big) - len(small)
    assert added > 10_000
    t_small, t_big = events_table(small, 997), events_table(big, 997)
    del small, big
    gc.collect()
    n_small = _live_events_at_collect(t_small, monkeypatch)
    n_big = _live_events_at_collect(t_big, monkeypatch)
    # the Events alive when the collecting pass starts are the group's other lines: as many in both
    assert n_big - n_small < 50, (n_small, n_big, added)


def _traced_peak(table) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        replay.replay_group_rows(table)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_replay_memory_per_heartbeat_or_commit_line_is_bounded():
    small, big = _group(40), _group(100)
    added = len(big) - len(small)
    t_small, t_big = events_table(small, 997), events_table(big, 997)
    del small, big
    per_line = (_traced_peak(t_big) - _traced_peak(t_small)) / added
    # an Event per line was ~340 bytes of Python objects, plus what the replay keeps of it (456
    # per line measured); a compact row is ~110 (object, time, row number, its two int64s, the
    # lists' pointers), 189 per line measured with what the replay keeps of a commit
    assert per_line < 330, per_line
