"""The replay leaves no reference cycle holding its state: once `replay_group_rows` returns, the
group's Events, collector and state are freed by reference counting. Spark workers pause the cyclic
collector during a task (pipeline/spark/worker_gc.py), so a cycle would keep a whole group's
timeline alive until the task's next collection (133 MB on the hot bench group)."""

from __future__ import annotations

import gc
from pathlib import Path

import pyarrow as pa

from pipeline.replay import replay_group_rows
from tests.replay.arrow_tables import events_table, folder_events

SAMPLE = Path(__file__).resolve().parents[2] / "sample_logs" / "gc_pause_session_expiry"


def _table() -> pa.Table:
    return events_table([e for e in folder_events(SAMPLE) if e.group_id])


def test_replay_group_rows_leaves_no_cycle_holding_events_or_state():
    table = _table()
    assert table.num_rows > 50
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        rows = replay_group_rows(table)
        gc.collect()
        left = {type(o).__name__ for o in gc.garbage}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was:
            gc.enable()
    assert rows["generations"] and rows["findings"]
    assert not left & {"Event", "Collector", "GroupState", "MemberLife", "Membership", "Gen", "Interval"}, left
