"""The Python work of one group's task(s) in the ingest's per-group pass, without Spark: CPU
seconds of what the worker does for that group (facts, events batches, replay, ownership,
heartbeat gaps, offset history), GC paused as in the worker. Run it once per checkout
(PYTHONPATH picks the code) on the `events` of a RUN_DIR; with this branch's group_pass it prints
the replay unit and the series unit apart (a big group's two tasks), with an older one the one task.

    PYTHONPATH=$PWD python benchmarks/group_task_bench.py RUN_DIR bench-hot
    PYTHONPATH=/tmp/skew-base python benchmarks/group_task_bench.py RUN_DIR bench-hot
"""

from __future__ import annotations

import gc
import os
import sys
import time
from collections import Counter

import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipeline import schemas
from pipeline import timeline_facts as facts_mod
from pipeline.spark import group_pass


def facts_and_events(table) -> None:
    cols = table.select(list(facts_mod.FACT_COLUMNS)).to_pydict()
    Counter().update(facts_mod.shared_counts(cols))
    facts_mod.anchor_diffs(cols)
    table.select(schemas.columns("events")).to_batches(max_chunksize=50_000)


def cpu(fn) -> float:
    t = time.process_time()
    fn()
    gc.collect(1)
    return time.process_time() - t


def main() -> int:
    run_dir, group = sys.argv[1], sys.argv[2]
    gc.disable()
    t = pq.read_table(os.path.join(run_dir, "events"))
    t = t.filter(pc.equal(t.column("group_id"), group)).combine_chunks()
    load = f"load {os.getloadavg()[0]:.1f}"
    if hasattr(group_pass, "series_unit_rows"):
        from pipeline.group_tables import SERIES_COLUMNS

        narrow = t.select(list(SERIES_COLUMNS))
        rep = cpu(lambda: (facts_and_events(t), group_pass.replay_unit_rows(t, "pipeline.replay")))
        ser = cpu(lambda: group_pass.series_unit_rows(narrow))
        print(f"{group} ({t.num_rows} rows): replay unit {rep:.2f} CPU s, series unit {ser:.2f} CPU s; {load}")
    else:
        one = cpu(lambda: (facts_and_events(t), group_pass.group_rows(t, "pipeline.replay")))
        print(f"{group} ({t.num_rows} rows): one task {one:.2f} CPU s; {load}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
