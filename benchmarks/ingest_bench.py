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
    ... --sizes 1 --before /tmp/before          # also the ingest of another checkout, alternated
    ... --sizes 1 --masters 'local[1];local[2]'  # scale-out: the same input on one and two cores
    ... --sizes 1 --hot 0.9                     # skew: one group holds 90% of the rebalance cycles
    ... --samples                               # sample_logs/ (the demo's input)
    ... --sizes 1 --masters 'local[1];local[2]' --pin   # honest scale-out (below)

Scale-out with --pin: every process of a run (the CLI's Python, the driver JVM with its JIT and GC
threads, the Python workers) is started under `taskset -c 0..N-1` for local[N], so local[1] really
has one core and local[2] two; without it local[1] still spreads its JVM threads and Python
workers over the machine and the figure flatters nobody. Each master then gets its own count
baseline, pinned the same way, and the scale-out figure is the ratio of the medians of the ingest
walls (local[1] over local[2]).

CPU seconds of each side (medians over the rounds) are printed per process kind: the driver's
Python, the JVM(s) and the Python workers, sampled from /proc: on a shared machine they move far
less than wall times. The count baseline runs Spark as it comes (no class archive); the ingest of
this checkout uses its class archive as a user's later runs do (--class-archive: fresh, off, both).

    ... --samples --class-archive both          # the archive's gain, alternated in one run
    ... --samples --class-archive fresh         # a first run: the archive made at its end

Per run it also prints `outside`: wall time not in the manifest's `total` (Python start-up and
imports before the job's clock starts, spark.stop() and the JVM's exit after it), and the stages
are medians over the rounds (not the last round's).
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


def generate_file(path: Path, seed: int, target: int = FILE_BYTES, hot: float = 0.0) -> None:
    """hot > 0: that share of the rebalance cycles goes to one group, `bench-hot`, the same in
    every file (a skewed input: one group holds that share of the events)."""
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
                    group = "bench-hot" if hot and rnd.random() < hot else f"bench-{seed}-{cycle % 50}"
                    client = f"consumer-{group}-1"
                    parts = [f"orders-{(cycle + k) % 12}" for k in range(3)]
                    # the hot group's members (one per file) share one generation sequence, as a real
                    # group's do: numbered by the second the cycle starts (a cycle lasts seconds), so
                    # the same generation is joined at about the same time in every file and the
                    # timeline sees no clock skew between them
                    gen = (ts - 1_710_381_600_000) // 1_000 if group == "bench-hot" else cycle
                    pending = coordinator_lines(group, client, f"{client}-{seed:04d}-{cycle:08d}", gen, parts, cycle * 10_000)
                if pending and rnd.random() < 0.5:
                    line = pending.pop(0)
                else:
                    line = rnd.choice(NOISE).format(t=rnd.randint(1, 20), n=rnd.randint(1, 10**6), ms=rnd.randint(1, 999))
                buf.append(f"[{stamp}] {line}\n")
            chunk = "".join(buf)
            f.write(chunk)
            written += len(chunk)
    tmp.replace(path)


def dataset(workdir: Path, gb: float, hot: float = 0.0) -> list[Path]:
    n = max(1, round(gb * 1024 * 1024 * 1024 / FILE_BYTES))
    files = []
    # v2: the hot group's generations shared across files (see generate_file)
    folder = workdir / ("input" if not hot else f"input-hot{round(hot * 100)}-v2")
    for i in range(n):
        p = folder / f"consumer-{i}.log"
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.exists():
            print(f"  generating {p} ...", file=sys.stderr, flush=True)
            generate_file(p, seed=i, hot=hot)
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


def pinned(cmd: list[str], master: str | None) -> list[str]:
    """cmd under `taskset -c 0..N-1` for master local[N] (None: as it is)."""
    if master is None:
        return cmd
    from pipeline.spark.job import local_cores

    n = local_cores(master)
    if n is None:
        raise SystemExit(f"--pin needs local masters (got {master})")
    if n > (os.cpu_count() or 1):
        raise SystemExit(f"--pin: {master} wants {n} cores, this machine has {os.cpu_count()}")
    return ["taskset", "-c", ",".join(map(str, range(n))), *cmd]


TICK = os.sysconf("SC_CLK_TCK")


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of one process so far, its reaped children not included."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return 0.0


def _cpu_kind(pid: int, root: int) -> str:
    if pid == root:
        return "driver"
    if _is_java(pid):
        return "jvm"
    try:
        cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")[0]
    except OSError:
        return "other"
    # below the JVM, a Python process is the worker daemon or a worker forked from it
    return "workers" if b"python" in cmd.rsplit(b"/", 1)[-1] else "other"


def run_measured(cmd: list[str], env: dict, cwd: Path = REPO) -> tuple[float, int, str, dict[str, float]]:
    """Wall time, peak RSS (KB) of the process plus its java child (the driver JVM), stdout, and CPU
    seconds of the driver's Python, the JVM(s) and the Python workers (sampled from /proc every
    0.1 s: what a process spends after its last sample is missed, a few hundredths). `python -m`
    puts cwd first on sys.path: cwd is the checkout whose code runs."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    peak = 0
    jvm: list[int] = []
    seen: dict[int, tuple[str, float]] = {}     # pid -> (kind, CPU seconds at its last sample)

    def sample():
        nonlocal peak, jvm
        while proc.poll() is None:
            # re-scanned each time: spark-submit first runs a short-lived launcher JVM
            tree = [proc.pid, *_descendants(proc.pid)]
            jvm = [c for c in tree[1:] if _is_java(c)]
            peak = max(peak, _rss_kb(proc.pid) + sum(_rss_kb(j) for j in jvm))
            for p in tree:
                # (the kind is read every time: spark-submit's shell becomes the JVM by exec; a
                # worker that exited, a zombie with no command line, keeps the kind it had)
                kind, cpu = seen.get(p, ("other", 0.0))
                now = _cpu_kind(p, proc.pid)
                seen[p] = (now if now != "other" else kind, max(_cpu_s(p), cpu))
            time.sleep(0.1)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    out, _ = proc.communicate()
    t.join()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} ... failed with exit {proc.returncode}")
    cpu: dict[str, float] = {"driver": 0.0, "jvm": 0.0, "workers": 0.0}
    for kind, s in seen.values():
        cpu[kind] = cpu.get(kind, 0.0) + s
    return time.monotonic() - start, peak, out, cpu


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


def measure_count(files: list[Path], master: str, env: dict, conf: dict[str, str], pin: bool = False) -> dict:
    cmd = [sys.executable, "-c", BASELINE, master, json.dumps(conf), *map(str, files)]
    # Spark as it comes: no class archive of coordscope's (pipeline/spark/class_archive.py)
    wall, rss, out, cpu = run_measured(pinned(cmd, master if pin else None), dict(env, COORDSCOPE_CLASS_ARCHIVE="0"))
    lines, count_s = out.split()[-2:]
    return {"lines": int(lines), "count_s": float(count_s), "wall": wall, "rss": rss, "cpu": cpu}


def measure_ingest(files: list[Path], run_dir: Path, master: str, repo: Path, conf: dict[str, str],
                   pin: bool = False, class_archive: str = "keep") -> dict:
    """One `coordscope ingest` run from the checkout `repo`. class_archive: "keep" (as a user's
    later runs: the archive of an earlier run is used, made by this run when there is none),
    "fresh" (removed first: a first run, which makes it), "off" (COORDSCOPE_CLASS_ARCHIVE=0)."""
    conf_args = [a for k, v in conf.items() for a in ("--conf", f"{k}={v}")]
    env = dict(os.environ, PYTHONPATH=str(repo))
    if class_archive == "off":
        env["COORDSCOPE_CLASS_ARCHIVE"] = "0"
    elif class_archive == "fresh":
        _remove_class_archives()
    cmd = [sys.executable, "-m", "pipeline.cli", "ingest", *map(str, files), "--out", str(run_dir), "--overwrite",
           "--master", master, "--quiet", *conf_args]
    wall, rss, _, cpu = run_measured(pinned(cmd, master if pin else None), env, repo)
    man = json.loads((run_dir / "manifest.json").read_text())
    return {"wall": wall, "rss": rss, "man": man, "outside_s": wall - man["timings_s"]["total"], "cpu": cpu,
            "job_s": man["timings_s"]["total"] - man["timings_s"].get("start spark", 0.0)}


def _remove_class_archives() -> None:
    sys.path.insert(0, str(REPO))
    from pipeline.spark.jvm import cache_dir

    for p in cache_dir().glob("spark-classes-*"):
        p.unlink()


def _median_cpu(rs: list[dict]) -> dict[str, float]:
    kinds = sorted({k for r in rs for k in r["cpu"]})
    out = {k: round(statistics.median(r["cpu"].get(k, 0.0) for r in rs), 1) for k in kinds}
    out["total"] = round(statistics.median(sum(r["cpu"].values()) for r in rs), 1)
    return out


def _median_stages(rs: list[dict]) -> dict[str, float]:
    names = [k for k in rs[-1]["man"]["timings_s"] if k != "total"]
    return {k: round(statistics.median(r["man"]["timings_s"].get(k, 0.0) for r in rs), 2) for k in names}


def _loadavg() -> str:
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "?"


def _spread(values: list[float]) -> str:
    return f"{min(values):.1f}-{max(values):.1f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="0.25,0.5,1", help="input sizes in GB (comma separated)")
    ap.add_argument("--repeats", type=int, default=3, help="alternated (baseline, ingest) rounds per size")
    ap.add_argument("--master", default="local[2]", help="master of the count baseline (and of the ingest)")
    ap.add_argument("--masters", default=None,
                    help="masters of the ingest runs, comma separated, each run every round (default: --master); "
                         "e.g. 'local[1];local[2]' (separated by ';') for the scale-out figure")
    ap.add_argument("--before", default=None, metavar="CHECKOUT",
                    help="also run the ingest of this checkout every round, alternated (before/after in one run)")
    ap.add_argument("--hot", type=float, default=0.0,
                    help="skewed input: this share of the rebalance cycles in one group (e.g. 0.9)")
    ap.add_argument("--samples", action="store_true", help="the input is sample_logs/ (the demo's files), not generated")
    ap.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                    help="Spark setting for both sides, e.g. spark.driver.memory=512m (repeatable)")
    ap.add_argument("--pin", action="store_true",
                    help="run each master's ingests and its own count baseline under taskset on N cores for local[N] "
                         "(honest scale-out: local[1] gets one core, JVM threads and Python workers included)")
    ap.add_argument("--class-archive", default="keep", choices=("keep", "fresh", "off", "both"),
                    help="this checkout's driver JVM class archive (pipeline/spark/class_archive.py): keep (a user's "
                         "later runs), fresh (removed before each run: a first run, which makes it), off, or both "
                         "(keep and off as two sides, alternated). The count baseline never uses it")
    ap.add_argument("--workdir", default="/tmp/coordscope-ingest-bench")
    args = ap.parse_args()
    conf = dict(c.split("=", 1) for c in args.conf)
    work = Path(args.workdir)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    masters = args.masters.split(";") if args.masters else [args.master]
    archive_mode = {"after": "keep" if args.class_archive == "both" else args.class_archive, "after-noarchive": "off"}
    sides = ([("after", REPO)] + ([("after-noarchive", REPO)] if args.class_archive == "both" else [])
             + ([("before", Path(args.before).resolve())] if args.before else []))
    rows = []
    sizes = [0.0] if args.samples else [float(x) for x in args.sizes.split(",")]
    for gb in sizes:
        if args.samples:
            sys.path.insert(0, str(REPO))
            from pipeline.commands.demo import default_samples, sample_inputs

            files = [p.resolve() for p in sample_inputs(default_samples())]
        else:
            files = dataset(work, gb, args.hot)
        size = sum(p.stat().st_size for p in files)
        counts, runs = [], {(side, m): [] for side, _ in sides for m in masters}
        pinned_counts: dict[str, list[dict]] = {m: [] for m in masters}
        loads = [_loadavg()]
        for i in range(max(1, args.repeats)):
            if args.pin:
                for m in masters:
                    pinned_counts[m].append(measure_count(files, m, env, conf, pin=True))
                counts.append(pinned_counts[args.master if args.master in masters else masters[-1]][-1])
            else:
                counts.append(measure_count(files, args.master, env, conf))
            # the sides take turns going first, round by round
            order = sides if i % 2 == 0 else sides[::-1]
            for side, repo in order:
                for m in masters:
                    tag = "".join(ch for ch in m if ch.isalnum())
                    runs[(side, m)].append(measure_ingest(files, work / f"run-{side}-{gb}-{tag}", m, repo, conf,
                                                          pin=args.pin, class_archive=archive_mode.get(side, "keep")))
            loads.append(_loadavg())
        med_count = statistics.median(c["count_s"] for c in counts)
        med_bl = statistics.median(c["wall"] for c in counts)
        row = {"gb": gb, "hot": args.hot, "bytes": size, "lines": counts[-1]["lines"], "repeats": len(counts),
               "baseline_count_s": round(med_count, 1), "baseline_wall_s": round(med_bl, 1),
               "baseline_wall_spread_s": _spread([c["wall"] for c in counts]),
               "baseline_peak_rss_mb": max(c["rss"] for c in counts) // 1024, "pinned": args.pin,
               "baseline_cpu_s": _median_cpu(counts),
               "loadavg_1_5_15": loads, "ingest": {}}
        if args.pin:
            row["baseline_pinned"] = {m: {"count_s": round(statistics.median(c["count_s"] for c in cs), 1),
                                          "wall_s": round(statistics.median(c["wall"] for c in cs), 1),
                                          "walls_s": [round(c["wall"], 1) for c in cs]}
                                      for m, cs in pinned_counts.items()}
        for (side, m), rs in runs.items():
            wall = statistics.median(r["wall"] for r in rs)
            job = statistics.median(r["job_s"] for r in rs)
            last = rs[-1]["man"]
            bl_wall, bl_count = med_bl, med_count
            if args.pin:     # against the baseline pinned as this master's runs are
                bl_wall = statistics.median(c["wall"] for c in pinned_counts[m])
                bl_count = statistics.median(c["count_s"] for c in pinned_counts[m])
            row["ingest"][f"{side} {m}"] = {
                "wall_s": round(wall, 1), "wall_spread_s": _spread([r["wall"] for r in rs]),
                "ratio_wall": round(wall / bl_wall, 2), "job_s": round(job, 1), "ratio_job": round(job / bl_count, 2),
                "outside_s": round(statistics.median(r["outside_s"] for r in rs), 1),
                "peak_rss_mb": max(r["rss"] for r in rs) // 1024, "events": last["summary"]["events"],
                "adds_up": last["accounting"]["adds_up"], "candidate_filter": last.get("candidate_filter"),
                "stages_s": _median_stages(rs), "cpu_s": _median_cpu(rs),
                "walls_s": [round(r["wall"], 1) for r in rs]}
        rows.append(row)
        print(json.dumps(row), flush=True)
    print(f"\n{'GB':>5} {'side':>16} {'count s':>8} {'job s':>7} {'ratio':>6} {'baseline wall s':>16} "
          f"{'ingest wall s':>16} {'wall ratio':>10} {'peak MB':>8}")
    for r in rows:
        for name, ing in r["ingest"].items():
            count_s, bl_wall, bl_spread = r["baseline_count_s"], r["baseline_wall_s"], r["baseline_wall_spread_s"]
            if r["pinned"]:      # each master against its own pinned baseline
                bl = r["baseline_pinned"][name.split(" ", 1)[1]]
                count_s, bl_wall, bl_spread = bl["count_s"], bl["wall_s"], _spread(bl["walls_s"])
            print(f"{r['gb']:>5} {name:>16} {count_s:>8} {ing['job_s']:>7} {ing['ratio_job']:>6} "
                  f"{bl_wall:>6} ({bl_spread:>9}) {ing['wall_s']:>5} "
                  f"({ing['wall_spread_s']:>9}) {ing['ratio_wall']:>9} {ing['peak_rss_mb']:>8}  outside {ing['outside_s']} s")
            print(f"{'':>5} {'':>16} CPU s: ingest {ing['cpu_s']}; count {r['baseline_cpu_s']}")
    for r in rows:
        for side, _ in sides:
            one, two = r["ingest"].get(f"{side} local[1]"), r["ingest"].get(f"{side} local[2]")
            if one and two:
                print(f"{r['gb']:>5} {side}: scale-out local[1]/local[2] wall {one['wall_s'] / two['wall_s']:.2f}x, "
                      f"job {one['job_s'] / two['job_s']:.2f}x" + (" (pinned with taskset)" if r["pinned"] else
                                                                   " (NOT pinned: local[1] uses more than one core)"))
        print(f"{r['gb']:>5} load averages (1/5/15 min) before and after each round: {'; '.join(r['loadavg_1_5_15'])}")
    print(f"(medians of {rows[0]['repeats'] if rows else 0} alternated rounds; spreads are min-max; peak is the max)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
