"""Benchmark of `coordscope ingest` over many small files (a directory of pod or rotated logs)
against a plain Spark line count over the same files.

It generates (once, cached in --workdir) --files small consumer logs of about 130 lines each:
one rebalance cycle of a classic consumer (3.x wordings, as in ingest_bench.py) among
application lines, 50 groups across the files. Then --repeats alternated rounds of

  baseline  a fresh Python process: build_session(), time spark.read.text(files).count()
  ingest    `python -m pipeline.cli ingest DIR --out RUN --master local[2]`

and prints the medians of the wall times, their ratio and the ingest's stage timings. With
--repo the ingest runs from another checkout (for a before/after in the same run; the baseline
always runs from this one).

    PYTHONPATH=$PWD python benchmarks/many_files_bench.py --files 3000 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest_bench import BASELINE, NOISE, REPO, coordinator_lines, run_measured  # noqa: E402


def generate(path: Path, seed: int) -> None:
    rnd = random.Random(seed)
    ts = 1_710_381_600_000 + seed * 60_000
    group = f"pods-{seed % 50}"
    client = f"consumer-{group}-{seed}"
    parts = [f"orders-{(seed + k) % 12}" for k in range(3)]
    pending = coordinator_lines(group, client, f"{client}-{seed:06d}", 1 + seed // 50, parts, seed * 1_000)
    out = []
    while pending:
        ts += rnd.randint(1, 400)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ts / 1000)) + f",{ts % 1000:03d}"
        if rnd.random() < 0.6:
            line = pending.pop(0)
        else:
            line = rnd.choice(NOISE).format(t=rnd.randint(1, 20), n=rnd.randint(1, 10**6), ms=rnd.randint(1, 999))
        out.append(f"[{stamp}] {line}\n")
    path.write_text("".join(out), encoding="utf-8")


def dataset(workdir: Path, n: int) -> Path:
    folder = workdir / f"files-{n}"
    if not (folder / ".complete").exists():
        folder.mkdir(parents=True, exist_ok=True)
        print(f"  generating {n} files in {folder} ...", file=sys.stderr, flush=True)
        for i in range(n):
            generate(folder / f"pod-{i:05d}.log", seed=i)
        (folder / ".complete").write_text("")
    return folder


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--repo", default=str(REPO), help="checkout whose ingest is measured (default: this one)")
    ap.add_argument("--workdir", default="/tmp/coordscope-many-files-bench")
    args = ap.parse_args()
    work = Path(args.workdir)
    folder = dataset(work, args.files)
    files = sorted(str(p) for p in folder.glob("*.log"))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    ing_env = dict(os.environ, PYTHONPATH=str(Path(args.repo).resolve()))
    bl, ing, mans = [], [], []
    for _ in range(max(1, args.repeats)):
        wall, _rss, out = run_measured([sys.executable, "-c", BASELINE, args.master, "{}", *files], env)
        bl.append(wall)
        run_dir = work / "run"
        wall, _rss, _ = run_measured([sys.executable, "-m", "pipeline.cli", "ingest", str(folder), "--out", str(run_dir),
                                      "--overwrite", "--master", args.master, "--quiet"], ing_env, Path(args.repo))
        ing.append(wall)
        mans.append(json.loads((run_dir / "manifest.json").read_text()))
    man = mans[-1]
    row = {"files": args.files, "bytes": sum(os.path.getsize(f) for f in files), "lines": int(out.split()[-2]),
           "repeats": len(bl), "baseline_wall_s": round(statistics.median(bl), 1),
           "ingest_wall_s": round(statistics.median(ing), 1),
           "ratio_wall": round(statistics.median(ing) / statistics.median(bl), 2),
           "baseline_spread_s": f"{min(bl):.1f}-{max(bl):.1f}", "ingest_spread_s": f"{min(ing):.1f}-{max(ing):.1f}",
           "events": man["summary"]["events"], "adds_up": man["accounting"]["adds_up"], "repo": args.repo,
           "stages_s": {k: v for k, v in man["timings_s"].items() if k != "total"}}
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
