"""CPU seconds of the per-group pass (tables, facts, replay, series) in-process, over the first N groups
of an ingest's `events` table: the Python workers' share of `coordscope ingest` without Spark around it.

    PYTHONPATH=CHECKOUT python benchmarks/group_pass_cpu.py RUN_DIR N [cpu|prof|loopK|one]

cpu: one warm-up pass, then three timed passes (process CPU seconds); prof: cProfile of one pass
(by own time, then cumulative); loopK: K passes (for callgrind); one: a single pass. The outputs go
to a temporary directory. Run it from two checkouts on the same RUN_DIR, alternated, to compare."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time

import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipeline.spark import group_pass


def main(run: str, n: int, mode: str) -> None:
    t = pq.read_table(os.path.join(run, "events"))
    t = t.sort_by([("group_id", "ascending"), ("source", "ascending"), ("line_no", "ascending")])
    gids = sorted(x for x in t.column("group_id").unique().to_pylist() if x is not None)[:n]
    tabs = [(g, t.filter(pc.equal(t.column("group_id"), g)).combine_chunks()) for g in gids]
    del t
    out = tempfile.mkdtemp(prefix="group-pass-cpu-")
    tables = (*group_pass.GROUP_TABLES, "events")

    def once() -> None:
        for x in tables:
            d = os.path.join(out, x)
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
        group_pass.replay_units(iter(tabs), group_pass.GroupWriters(out, 0, 0, tables), "pipeline.replay",
                                True, True, frozenset())

    try:
        once()
        if mode == "cpu":
            res = []
            for _ in range(3):
                c = time.process_time()
                once()
                res.append(time.process_time() - c)
            print(f"{len(tabs)} groups: CPU s per pass {[round(x, 2) for x in res]}, "
                  f"load {os.getloadavg()[0]:.1f}")
        elif mode == "prof":
            import cProfile
            import pstats
            pr = cProfile.Profile()
            pr.enable()
            once()
            pr.disable()
            st = pstats.Stats(pr)
            st.sort_stats("tottime").print_stats(45)
            st.sort_stats("cumulative").print_stats(70)
        elif mode.startswith("loop"):
            for _ in range(int(mode[4:])):
                once()
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
