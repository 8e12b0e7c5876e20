"""Peak memory of one per-group pass task, in-process (no JVM): the replay task of a group bucket
(or the series task of one split group) run on staged outcome files as the ingest's worker runs it
(group_pass.replay_units / series_units over buckets.bucket_groups), with a thread sampling every
few ms the process's RSS, Arrow's allocated bytes and, at each new RSS peak, where the main thread
is (its stack), so the peak can be named.

The staged files: the parse stage's `RUN_DIR.tmp*/_outcomes/part-*.parquet` of an ingest (removed
at its end: hardlink them while it runs, e.g. a loop of `ln`). Run it once per checkout
(PYTHONPATH picks the code), alternated:

    PYTHONPATH=$PWD python benchmarks/group_pass_memory.py STAGED_DIR --group bench-hot --buckets 4
    PYTHONPATH=$PWD python benchmarks/group_pass_memory.py STAGED_DIR --group bench-hot --buckets 4 --series
    PYTHONPATH=$PWD python benchmarks/group_pass_memory.py STAGED_DIR --bucket 0 --buckets 4

Prints the RSS before the task (the modules imported), the peak and its growth over the start,
Arrow's peak, CPU seconds, and the stack at the peak.
"""

from __future__ import annotations

import argparse
import inspect
import os
import shutil
import sys
import tempfile
import threading
import time
import traceback


def rss_mb() -> float:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _where(frame) -> str:
    """The innermost two frames of the project's code."""
    names = []
    while frame is not None and len(names) < 2:
        f = frame.f_code.co_filename
        if ("/pipeline/" in f or "/parsers/" in f) and "group_pass_memory" not in f:
            names.append(f"{os.path.basename(f)}:{frame.f_code.co_name}:{frame.f_lineno}")
        frame = frame.f_back
    return " < ".join(names)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("staged")
    ap.add_argument("--buckets", type=int, default=4)
    ap.add_argument("--group", default=None, help="the split group (its bucket's replay task, or --series)")
    ap.add_argument("--bucket", type=int, default=None)
    ap.add_argument("--series", action="store_true", help="the split group's series task")
    ap.add_argument("--interval", type=float, default=0.003)
    ap.add_argument("--timeline", action="store_true")
    args = ap.parse_args()

    from pipeline.arrow_pool import prefer_system_allocator

    prefer_system_allocator()       # as the workers (before pyarrow is imported)
    import pyarrow as pa

    from pipeline import group_tables as gt
    from pipeline import replay  # noqa: F401  (imported before the start figure, as in a worker)
    from pipeline.spark import buckets as bk
    from pipeline.spark import group_pass as gp

    files = bk.staged_files(args.staged)
    n = args.buckets
    split = [args.group] if args.group else []
    out_dir = tempfile.mkdtemp(prefix="group-pass-memory-")
    if args.series:
        cols = list(dict.fromkeys([bk.SERIES_STAGED.get(c, c) for c in [*gt.SERIES_COLUMNS, "group_id"]]))

        def run() -> None:
            kw = {"dictionaries": True} if "dictionaries" in inspect.signature(bk.bucket_groups).parameters else {}
            groups = bk.bucket_groups(files, bk.bucket_of(args.group, n), cols, [], only_groups=frozenset(split),
                                      transform=gp._from_staged_series, **kw)
            gp.series_units(groups, gp.GroupWriters(out_dir, n, 0, gp.SERIES_TABLES))
    else:
        bucket = args.bucket if args.bucket is not None else bk.bucket_of(args.group, n)
        tables = (*gp.GROUP_TABLES, "events")

        def run() -> None:
            cols = __import__("pipeline.schemas").schemas.columns("events")
            # as run_staged's first pass (with this branch's bucket_groups)
            kw = {"dictionaries": True} if "dictionaries" in inspect.signature(bk.bucket_groups).parameters else {}
            groups = bk.bucket_groups(files, bucket, cols, [], **kw)
            gp.replay_units(groups, gp.GroupWriters(out_dir, bucket, 0, tables), "pipeline.replay", True, True,
                            frozenset(split))
        for t in tables:
            os.makedirs(os.path.join(out_dir, t), exist_ok=True)
    if args.series:
        for t in gp.SERIES_TABLES:
            os.makedirs(os.path.join(out_dir, t), exist_ok=True)

    gp.trim_heap()
    start = rss_mb()
    peak = {"rss": start, "arrow": 0, "stack": ""}
    timeline: list[tuple[str, float, float]] = []     # (where, rss, arrow MB): the max of each run
    main_id = threading.get_ident()
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            r = rss_mb()
            a = pa.total_allocated_bytes()
            if a > peak["arrow"]:
                peak["arrow"] = a
            frame = sys._current_frames().get(main_id)
            where = _where(frame)
            if timeline and timeline[-1][0] == where:
                timeline[-1] = (where, max(r, timeline[-1][1]), max(a / 2**20, timeline[-1][2]))
            else:
                timeline.append((where, r, a / 2**20))
            if r > peak["rss"] + 1:
                peak["rss"] = r
                frame = sys._current_frames().get(main_id)
                peak["stack"] = "".join(traceback.format_stack(frame, limit=12)) if frame else ""
                peak["arrow_at_peak"] = a
            time.sleep(args.interval)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    cpu = time.process_time()
    run()
    cpu = time.process_time() - cpu
    stop.set()
    th.join()
    shutil.rmtree(out_dir, ignore_errors=True)
    what = "series" if args.series else "replay"
    print(f"{what} task: start {start:.0f} MB, peak {peak['rss']:.0f} MB (+{peak['rss'] - start:.0f}), "
          f"arrow peak {peak['arrow'] / 2**20:.0f} MB, arrow at the RSS peak "
          f"{peak.get('arrow_at_peak', 0) / 2**20:.0f} MB; {cpu:.2f} CPU s; load {os.getloadavg()[0]:.1f}")
    print("stack at the peak:\n" + peak["stack"])
    if args.timeline:
        print("timeline (where the main thread was; max RSS, max Arrow MB of each run of samples):")
        for where, r, a in timeline:
            print(f"  {r:6.0f} {a:6.0f}  {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
