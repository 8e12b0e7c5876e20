"""The scan and its handoff to the Python workers, warm: in one local[2] session per checkout, the
split scan (lines.read_blocks) over the files goes through `mapInArrow` to a Python function that
only counts its batches' rows (no parsing), several times; the JVM's CPU seconds (all threads,
and the task threads alone) per round, from /proc. Round 0 includes the JIT's warm-up; the later
rounds are the per-GB cost of reading, scanning and handing the candidates over. Checkouts are
alternated, each in a fresh process.

    python benchmarks/handoff_bench.py FILE... --repo /tmp/base-fbc15f0 --repo $PWD [--rounds 2] [--passes 4]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from child_run import child_json  # benchmarks/ is the script's own directory

TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> tuple[float, float]:
    """(whole JVM, its task threads) CPU seconds."""
    total = task = 0.0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            head, rest = open(f"/proc/{pid}/task/{tid}/stat").read().rsplit(")", 1)
        except OSError:
            continue
        f = rest.split()
        s = (int(f[11]) + int(f[12])) / TICK
        total += s
        if "Executor task" in head:
            task += s
    return total, task


def _count(batches):
    import pyarrow as pa

    n = 0
    for b in batches:
        n += b.num_rows
    yield pa.record_batch({"n": pa.array([n], pa.int64())})


def _one_run(files: list[str], passes: int) -> None:
    from parsers.reader import CANDIDATE_REGEX
    from pipeline.spark import lines
    from pipeline.spark.session import build_session

    spark = build_session("local[2]", class_archive=False)
    pid = spark.sparkContext._gateway.proc.pid
    spark.range(1).collect()
    out = []
    for _ in range(passes):
        a, t = _cpu(pid), time.monotonic()
        scan = lines.read_blocks(spark, files, CANDIDATE_REGEX)
        (r,) = scan.rows.mapInArrow(_count, "n bigint").groupBy().sum("n").collect()
        b = _cpu(pid)
        out.append({"jvm": b[0] - a[0], "task": b[1] - a[1], "wall": time.monotonic() - t, "splits": r[0]})
    print(json.dumps({"passes": out}), flush=True)
    spark.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--repo", action="append", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--passes", type=int, default=4)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _one_run(args.files, args.passes)
        return 0
    warm: dict[str, list[float]] = {r: [] for r in args.repo}
    for rnd in range(args.rounds):
        for repo in args.repo:
            load = os.getloadavg()[0]
            d = child_json([sys.executable, os.path.abspath(__file__), "--child", "--passes", str(args.passes),
                            "--repo", repo, *args.files], repo)
            if d is None:
                return 1
            ps = d["passes"]
            warm[repo] += [p["jvm"] for p in ps[1:]]
            print(f"round {rnd} {repo} (load {load:.1f}): JVM CPU-s per pass "
                  + ", ".join(f"{p['jvm']:.2f} (tasks {p['task']:.2f})" for p in ps), flush=True)
    for repo, xs in warm.items():
        print(f"{repo}: warm passes' JVM CPU-s median {statistics.median(xs):.2f} (n={len(xs)}, "
              f"{min(xs):.2f}-{max(xs):.2f}); load now {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
