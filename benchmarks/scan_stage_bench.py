"""The read-and-parse stage's JVM side alone, in Spark: the split scan (lines.read_blocks) over the
given files, its rows materialised (line counts and candidate counts summed), on a fresh local[2]
JVM per run. CPU seconds of the JVM by thread kind (the task threads, the JIT compilers, GC, the
rest), from /proc; checkouts alternated round by round, medians printed.

    python benchmarks/scan_stage_bench.py FILE... --repo /tmp/base-8425a59 --repo $PWD [--rounds 3]
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
KINDS = {"task": ("Executor task",), "jit": ("CompilerThre",), "gc": ("GC Thread", "VM Thread")}


def _threads(pid: int) -> dict[str, float]:
    out = dict.fromkeys([*KINDS, "other"], 0.0)
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            head, rest = open(f"/proc/{pid}/task/{tid}/stat").read().rsplit(")", 1)
        except OSError:
            continue
        name = head.split("(", 1)[1]
        f = rest.split()
        kind = next((k for k, pats in KINDS.items() if any(p in name for p in pats)), "other")
        out[kind] += (int(f[11]) + int(f[12])) / TICK
    return out


def _one_run(files: list[str]) -> None:
    """In the child: one fresh session, one scan; prints a JSON line of CPU seconds."""
    from parsers.reader import CANDIDATE_REGEX
    from pipeline.spark import lines
    from pipeline.spark.session import build_session

    spark = build_session("local[2]", class_archive=False)
    pid = spark.sparkContext._gateway.proc.pid    # (pyspark itself is imported only under pipeline/spark/)
    spark.range(1).collect()                        # the session is up
    a, t = _threads(pid), time.monotonic()
    scan = lines.read_blocks(spark, files, CANDIDATE_REGEX)
    (r,) = scan.rows.selectExpr("sum(n_lines) AS lines", "sum(size(idx)) AS cands").collect()
    wall = time.monotonic() - t
    b = _threads(pid)
    print(json.dumps({"lines": r["lines"], "cands": r["cands"], "wall": wall, "filter": scan.filter,
                      **{k: b[k] - a[k] for k in b}}), flush=True)
    spark.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--repo", action="append", required=True, help="checkout to run (repeat: alternated)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _one_run(args.files)
        return 0
    results: dict[str, list[dict]] = {r: [] for r in args.repo}
    for rnd in range(args.rounds):
        for repo in args.repo:
            load = os.getloadavg()[0]
            d = child_json([sys.executable, os.path.abspath(__file__), "--child", "--repo", repo, *args.files], repo)
            if d is None:
                return 1
            d["load"] = load
            results[repo].append(d)
            print(f"round {rnd} {repo}: " + ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}"
                                                      for k, v in d.items()), flush=True)
    for repo, rs in results.items():
        med = {k: statistics.median(r[k] for r in rs) for k in ("task", "jit", "gc", "other", "wall", "load")}
        total = statistics.median(r["task"] + r["jit"] + r["gc"] + r["other"] for r in rs)
        print(f"median {repo}: JVM {total:.2f} CPU-s = " + ", ".join(f"{k} {v:.2f}" for k, v in med.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
