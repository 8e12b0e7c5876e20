"""The per-group pass's replay task in one process, without Spark: CPU seconds and peak memory of
what `pipeline.spark.group_pass.run`'s task does per group (timeline facts + replay unit + its rows
to Arrow, then the young-generation collection the task runs after each group; the series unit is
another task's). Run it once per checkout and alternate:

    PYTHONPATH=CHECKOUT python benchmarks/replay_task_bench.py RUN_DIR            # CPU, every group
    PYTHONPATH=CHECKOUT python benchmarks/replay_task_bench.py RUN_DIR --memory --group bench-hot

--memory: the group's rows are written as a Parquet file of 4 row groups, then, in a fresh
process with Arrow's system allocator (as the workers), read a row group at a time (one table per
staged file, as buckets.bucket_groups yields a big group; an IPC stream would hold each batch's
columns in one buffer, which no column can be freed from) and passed through the pass's replay task
(`group_pass.replay_units`: events written, facts, replay unit, rows written; the group's series
are a split group's other task); it prints the peak (VmHWM, reset before the read) and VmRSS at
the end above the process, in MB. Linux only (/proc/self/clear_refs).
"""

from __future__ import annotations

import argparse
import collections
import gc
import json
import os
import subprocess
import sys
import tempfile
import time


def _facts(table):
    from pipeline import timeline_facts as facts_mod

    if hasattr(facts_mod, "table_facts"):
        return facts_mod.table_facts(table)
    cols = table.select(list(facts_mod.FACT_COLUMNS)).to_pydict()     # before table_facts existed
    shared = collections.Counter()
    shared.update(facts_mod.shared_counts(cols))
    return shared, facts_mod.anchor_diffs(cols)


def cpu(run_dir: str) -> dict:
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from pipeline.spark import group_pass

    t = pq.read_table(os.path.join(run_dir, "events"))
    tabs = [t.filter(pc.equal(t.column("group_id"), g))
            for g in sorted(x for x in t.column("group_id").unique().to_pylist() if x is not None)]
    gc.disable()
    group_pass.replay_unit_rows(tabs[0], "pipeline.replay")      # imports
    facts = replay = 0.0
    for x in tabs:
        c0 = time.process_time()
        _facts(x)
        c1 = time.process_time()
        for name, rows in group_pass.replay_unit_rows(x, "pipeline.replay").items():
            group_pass.to_arrow(name, rows)
        gc.collect(1)      # the task's tidy() after each group: what the replay left to the collector
        facts, replay = facts + c1 - c0, replay + time.process_time() - c1
    return {"checkout": group_pass.__file__.rsplit("/pipeline/", 1)[0], "groups": len(tabs),
            "events": sum(x.num_rows for x in tabs), "facts_cpu_s": round(facts, 3),
            "replay_unit_cpu_s": round(replay, 3), "cpu_s": round(facts + replay, 3)}


def _status(key: str) -> float:
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024
    return 0.0


def memory_child(stream: str) -> dict:
    import numpy  # noqa: F401  (a PySpark worker has numpy and pandas imported)
    import pandas  # noqa: F401
    import pyarrow as pa
    import pyarrow.parquet as pq

    from pipeline.spark import group_pass

    def read():
        # one read per row group, as buckets.bucket_groups reads a bucket's rows of each staged file
        f = pq.ParquetFile(stream)
        return [f.read_row_group(i) for i in range(f.num_row_groups)]

    group_pass.replay_unit_rows(read()[0].slice(0, 2000), "pipeline.replay")   # imports
    gc.collect()
    pa.default_memory_pool().release_unused()
    out_dir = tempfile.mkdtemp()
    tables = (*group_pass.GROUP_TABLES, "events")
    for t in tables:
        os.makedirs(os.path.join(out_dir, t))
    r0 = _status("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")

    def groups():
        # as buckets.bucket_groups yields a group (no reference kept): the rows in 4 record
        # batches (a hot group's rows come as one batch per staged file)
        parts = read()
        gid = parts[0].column("group_id")[0].as_py()
        yield gid, pa.concat_tables([parts.pop(0) for _ in range(len(parts))])

    # the replay task of the pass's first run (events written, facts, replay unit, rows written;
    # the group's series in another task, as a split group's)
    gid = pq.read_table(stream, columns=["group_id"]).column(0)[0].as_py()
    group_pass.replay_units(groups(), group_pass.GroupWriters(out_dir, 0, 0, tables), "pipeline.replay",
                            True, True, frozenset([gid]))
    return {"checkout": group_pass.__file__.rsplit("/pipeline/", 1)[0], "peak": round(_status("VmHWM") - r0),
            "after": round(_status("VmRSS") - r0)}


def memory(run_dir: str, group: str) -> dict:
    import pyarrow.parquet as pq

    t = pq.read_table(os.path.join(run_dir, "events"), filters=[("group_id", "=", group)])
    with tempfile.NamedTemporaryFile(suffix=".parquet", delete=False) as f:
        path = f.name
    try:
        pq.write_table(t, path, row_group_size=-(-t.num_rows // 4))
        env = dict(os.environ, ARROW_DEFAULT_MEMORY_POOL="system")     # as the workers (pipeline/arrow_pool.py)
        out = subprocess.run([sys.executable, __file__, "--memory-child", path], capture_output=True, text=True,
                             check=True, env=env).stdout
        return {"group": group, "rows": t.num_rows, "arrow_mb": round(t.nbytes / 2**20), **json.loads(out)}
    finally:
        os.remove(path)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_dir", nargs="?")
    ap.add_argument("--memory", action="store_true")
    ap.add_argument("--group", default="bench-hot")
    ap.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.memory_child:
        print(json.dumps(memory_child(args.memory_child)))
    elif args.memory:
        print(json.dumps(memory(args.run_dir, args.group)))
    else:
        print(json.dumps(cpu(args.run_dir)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
