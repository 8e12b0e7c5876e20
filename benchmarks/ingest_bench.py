"""Benchmark of `coordscope ingest` against a plain Spark line count over the same input.

For each size (GB) it generates (once, cached in --workdir) a mixed consumer log: 256 MB files of
application noise with about 5 % Kafka coordinator lines (real client wordings, log4j layout, many
groups). Then, in the same run and on the same master (default local[2]):

  baseline  a fresh Python process: build_session(), time spark.read.text(files).count()
  ingest    `python -m pipeline.cli ingest DIR --out RUN --master local[2]`

and prints wall times, their ratio, and the peak RSS of the driver (the CLI's Python process plus
the driver JVM it starts, sampled every 200 ms; in local mode that JVM also runs the executor).

Each size runs --repeats rounds of (baseline, ingest), alternated so that a slow spell of a shared
machine hits both; the ratio is of the medians, and the spread (min-max) of each side is printed
with it. One round alone can be off by 40 % on these machines.

    PYTHONPATH=$PWD python benchmarks/ingest_bench.py --sizes 0.25,0.5,1 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

FILE_BYTES = 256 * 1024 * 1024
REPO = Path(__file__).resolve().parents[1]

NOISE = [
    "INFO [http-nio-8080-exec-{t}] handled GET /api/orders/{n} in {ms} ms (com.example.orders.OrderController)",
    "INFO [http-nio-8080-exec-{t}] order {n} enriched with customer tier GOLD, 3 items (com.example.orders.Enricher)",
    "DEBUG [pool-2-thread-{t}] cache hit ratio 0.{ms} for key customer:{n} (com.example.cache.CustomerCache)",
    "WARN [http-nio-8080-exec-{t}] slow downstream call to pricing-service took {ms} ms (com.example.http.Client)",
    "INFO [scheduling-1] flushed {ms} metrics to statsd in {t} ms (com.example.metrics.Reporter)",
]


def coordinator_lines(group: str, client: str, member: str, gen: int, parts: list[str], offset: int) -> list[str]:
    """One rebalance cycle of a classic consumer, in the wordings of ConsumerCoordinator 3.x."""
    p = f"[Consumer clientId={client}, groupId={group}] "
    cc = "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)"
    lines = [
        f"INFO {p}Discovered group coordinator kafka-1.prod.internal:9092 (id: 2147483646 rack: null) {cc}",
        f"INFO {p}(Re-)joining group {cc}",
        f"INFO {p}Successfully joined group with generation Generation{{generationId={gen}, memberId='{member}', protocol='range'}} {cc}",
        f"INFO {p}Successfully synced group in generation Generation{{generationId={gen}, memberId='{member}', protocol='range'}} {cc}",
        f"INFO {p}Notifying assignor about the new Assignment(partitions=[{', '.join(parts)}]) {cc}",
        f"INFO {p}Adding newly assigned partitions: {', '.join(parts)} {cc}",
    ]
    for i in range(40):
        lines.append(f"DEBUG {p}Received successful Heartbeat response {cc}")
        lines.append(f"DEBUG {p}Committed offset {offset + 100 * i} for partition {parts[i % len(parts)]} {cc}")
    lines.append(f"INFO {p}Revoke previously assigned partitions {', '.join(parts)} {cc}")
    lines.append(f"INFO {p}Request joining group due to: group is already rebalancing {cc}")
    return lines


def generate_file(path: Path, seed: int, target: int = FILE_BYTES) -> None:
    rnd = random.Random(seed)
    ts = 1_710_381_600_000 + seed * 1_000
    written = 0
    cycle = 0
    pending: list[str] = []
    tmp = path.with_suffix(".part")
    with open(tmp, "w", encoding="utf-8", buffering=1 << 20) as f:
        while written < target:
            buf = []
            for _ in range(2000):
                ts += rnd.randint(1, 40)
                stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ts / 1000)) + f",{ts % 1000:03d}"
                if not pending and rnd.random() < 0.05 / 88:   # a cycle has 88 lines: ~5 % coordinator lines
                    cycle += 1
                    group = f"bench-{seed}-{cycle % 50}"
                    client = f"consumer-{group}-1"
                    parts = [f"orders-{(cycle + k) % 12}" for k in range(3)]
                    pending = coordinator_lines(group, client, f"{client}-{seed:04d}-{cycle:08d}", cycle, parts, cycle * 10_000)
                if pending and rnd.random() < 0.5:
                    line = pending.pop(0)
                else:
                    line = rnd.choice(NOISE).format(t=rnd.randint(1, 20), n=rnd.randint(1, 10**6), ms=rnd.randint(1, 999))
                buf.append(f"[{stamp}] {line}\n")
            chunk = "".join(buf)
            f.write(chunk)
            written += len(chunk)
    tmp.replace(path)


def dataset(workdir: Path, gb: float) -> list[Path]:
    n = max(1, round(gb * 1024 * 1024 * 1024 / FILE_BYTES))
    files = []
    for i in range(n):
        p = workdir / "input" / f"consumer-{i}.log"
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.exists():
            print(f"  generating {p} ...", file=sys.stderr, flush=True)
            generate_file(p, seed=i)
        files.append(p)
    return files


def _rss_kb(pid: int) -> int:
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if int(open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    return out


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        kids = _children(todo.pop())
        out += kids
        todo += kids
    return out


def _is_java(pid: int) -> bool:
    try:
        return open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")[0].endswith(b"java")
    except OSError:
        return False


def run_measured(cmd: list[str], env: dict, cwd: Path = REPO) -> tuple[float, int, str]:
    """Wall time, peak RSS (KB) of the process plus its java child (the driver JVM), stdout. `python
    -m` puts cwd first on sys.path: cwd is the checkout whose code runs."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    peak = 0
    jvm: list[int] = []

    def sample():
        nonlocal peak, jvm
        while proc.poll() is None:
            # re-scanned each time: spark-submit first runs a short-lived launcher JVM
            jvm = [c for c in _descendants(proc.pid) if _is_java(c)]
            peak = max(peak, _rss_kb(proc.pid) + sum(_rss_kb(j) for j in jvm))
            time.sleep(0.2)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    out, _ = proc.communicate()
    t.join()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} ... failed with exit {proc.returncode}")
    return time.monotonic() - start, peak, out


BASELINE = """
import json, sys, time
from pipeline.spark.job import DEFAULT_CONF
from pipeline.spark.session import build_session
spark = build_session(sys.argv[1], "bench-baseline", {**DEFAULT_CONF, **json.loads(sys.argv[2])})
t = time.monotonic()
n = spark.read.text(sys.argv[3:]).count()
print(n, time.monotonic() - t)
spark.stop()
"""


def measure_round(files: list[Path], run_dir: Path, master: str, env: dict, conf: dict[str, str]) -> dict:
    """One baseline run then one ingest run over the same files, both with the same extra conf."""
    bl_wall, bl_rss, out = run_measured(
        [sys.executable, "-c", BASELINE, master, json.dumps(conf), *map(str, files)], env)
    lines, count_s = out.split()[-2:]
    conf_args = [a for k, v in conf.items() for a in ("--conf", f"{k}={v}")]
    ing_wall, ing_rss, _ = run_measured(
        [sys.executable, "-m", "pipeline.cli", "ingest", *map(str, files), "--out", str(run_dir), "--overwrite",
         "--master", master, "--quiet", *conf_args], env)
    man = json.loads((run_dir / "manifest.json").read_text())
    return {"lines": int(lines), "count_s": float(count_s), "bl_wall": bl_wall, "bl_rss": bl_rss,
            "ing_wall": ing_wall, "ing_rss": ing_rss, "man": man,
            "job_s": man["timings_s"]["total"] - man["timings_s"].get("start spark", 0.0)}


def _spread(values: list[float]) -> str:
    return f"{min(values):.1f}-{max(values):.1f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="0.25,0.5,1", help="input sizes in GB (comma separated)")
    ap.add_argument("--repeats", type=int, default=3, help="alternated (baseline, ingest) rounds per size")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                    help="Spark setting for both sides, e.g. spark.driver.memory=512m (repeatable)")
    ap.add_argument("--workdir", default="/tmp/coordscope-ingest-bench")
    args = ap.parse_args()
    conf = dict(c.split("=", 1) for c in args.conf)
    work = Path(args.workdir)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    rows = []
    for gb in [float(s) for s in args.sizes.split(",")]:
        files = dataset(work, gb)
        size = sum(p.stat().st_size for p in files)
        rounds = [measure_round(files, work / f"run-{gb}", args.master, env, conf) for _ in range(max(1, args.repeats))]
        med = {k: statistics.median(r[k] for r in rounds) for k in ("count_s", "bl_wall", "ing_wall", "job_s")}
        last = rounds[-1]["man"]
        acc = last["accounting"]
        row = {
            "gb": gb, "bytes": size, "lines": rounds[-1]["lines"], "repeats": len(rounds),
            "baseline_count_s": round(med["count_s"], 1), "baseline_wall_s": round(med["bl_wall"], 1),
            "ingest_job_s": round(med["job_s"], 1), "ingest_wall_s": round(med["ing_wall"], 1),
            "ratio_job": round(med["job_s"] / med["count_s"], 2), "ratio_wall": round(med["ing_wall"] / med["bl_wall"], 2),
            "baseline_wall_spread_s": _spread([r["bl_wall"] for r in rounds]),
            "ingest_wall_spread_s": _spread([r["ing_wall"] for r in rounds]),
            "baseline_peak_rss_mb": max(r["bl_rss"] for r in rounds) // 1024,
            "ingest_peak_rss_mb": max(r["ing_rss"] for r in rounds) // 1024,
            "events": last["summary"]["events"], "candidates": acc["candidates"], "adds_up": acc["adds_up"],
            "candidate_filter": last.get("candidate_filter"),
            "stages_s": {k: v for k, v in last["timings_s"].items() if k != "total"},
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    print(f"\n{'GB':>5} {'lines':>11} {'count s':>8} {'ingest s':>9} {'ratio':>6} {'baseline wall s':>16} "
          f"{'ingest wall s':>14} {'wall ratio':>10} {'driver peak MB':>15}")
    for r in rows:
        print(f"{r['gb']:>5} {r['lines']:>11,} {r['baseline_count_s']:>8} {r['ingest_job_s']:>9} {r['ratio_job']:>6} "
              f"{r['baseline_wall_s']:>6} ({r['baseline_wall_spread_s']:>9}) {r['ingest_wall_s']:>5} "
              f"({r['ingest_wall_spread_s']:>9}) {r['ratio_wall']:>9} {r['ingest_peak_rss_mb']:>15}")
    print(f"(medians of {rows[0]['repeats'] if rows else 0} alternated rounds; spreads are min-max; peak is the max)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
