"""Where an ingest's cores go, stage by stage: CPU seconds of the driver's Python, the driver JVM
(which runs the tasks on local masters) and the Python workers, sampled from /proc every 0.25 s
and cut at the stage boundaries the manifest records. A stage that uses ~1 core on local[2] is
serial (or waits); the JVM's GC time comes from its own log (-Xlog:gc, via JAVA_TOOL_OPTIONS).

    PYTHONPATH=$PWD python benchmarks/ingest_cpu_profile.py --master 'local[2]' FILE... [--repo CHECKOUT]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds) of a process."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK


def _rss_mb(pid: int, field: str = "VmRSS:") -> float:
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _kind(pid: int) -> str:
    try:
        cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
    except OSError:
        return "other"
    if cmd[0].endswith(b"java"):
        return "jvm"
    if b"pipeline.spark.worker_daemon" in cmd or b"pyspark.daemon" in cmd or b"pyspark.worker" in cmd:
        return "workers"
    return "other"


def _jvm_threads(pid: int) -> dict[int, tuple[str, float]]:
    """thread id -> (kind, CPU seconds) of a JVM's threads; the kind is the thread's name without
    its numbers ("Executor task launch worker-3" -> "Executor task launch worker-", as the kernel
    keeps 15 characters of it: "Executor task l")."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            fields = open(f"/proc/{pid}/task/{tid}/stat").read().rsplit(")", 1)
            name = fields[0].split("(", 1)[1]
            rest = fields[1].split()
        except (OSError, IndexError):
            continue
        kind = re.sub(r"[0-9#]+", "", name).strip(" -") or "?"
        out[int(tid)] = (kind, (int(rest[11]) + int(rest[12])) / TICK)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--repo", default=str(REPO), help="checkout whose ingest runs")
    ap.add_argument("--out", default=None)
    ap.add_argument("--jvm-threads", action="store_true",
                    help="also split the JVM's CPU by thread kind (task threads, JIT compilers, GC, ...)")
    args = ap.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="cpuprof-")) / "run"
    gc_log = Path(tempfile.mkdtemp(prefix="cpuprof-gc-")) / "gc.log"
    env = dict(os.environ, PYTHONPATH=str(Path(args.repo).resolve()),
               JAVA_TOOL_OPTIONS=f"-Xlog:gc:file={gc_log}")
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "ingest", *args.files, "--out", str(out),
                             "--overwrite", "--master", args.master, "--quiet"], cwd=args.repo, env=env,
                            stderr=subprocess.DEVNULL)
    seen: dict[int, tuple[str, float]] = {}     # pid -> (kind, last CPU seconds), dead ones kept
    samples: list[tuple[float, dict[str, float]]] = []
    threads: dict[int, tuple[str, float]] = {}  # JVM thread id -> (kind, last CPU seconds)
    thread_samples: list[tuple[float, dict[str, float]]] = []
    workers_max = 0
    peak = {"driver": 0.0, "jvm": 0.0, "one worker": 0.0, "all workers": 0.0}
    worker_rss: list[tuple[float, float]] = []      # (time, the largest Python worker's RSS MB)

    def sample():
        nonlocal workers_max
        while proc.poll() is None:
            stats = {}
            for d in os.listdir("/proc"):
                if d.isdigit():
                    s = _stat(int(d))
                    if s is not None:
                        stats[int(d)] = s
            tree, todo = {proc.pid}, [proc.pid]
            kids: dict[int, list[int]] = {}
            for pid, (ppid, _) in stats.items():
                kids.setdefault(ppid, []).append(pid)
            while todo:
                for k in kids.get(todo.pop(), []):
                    tree.add(k)
                    todo.append(k)
            for pid in tree:
                # (read every time: spark-submit's shell script becomes the JVM by exec)
                kind = "driver" if pid == proc.pid else _kind(pid)
                seen[pid] = (kind, stats[pid][1])
            workers_max = max(workers_max, sum(1 for p in tree if seen[p][0] == "workers") - 1)
            rss = {p: _rss_mb(p) for p in tree}
            for kind in ("driver", "jvm"):
                peak[kind] = max(peak[kind], sum(v for p, v in rss.items() if seen[p][0] == kind))
            wk = [v for p, v in rss.items() if seen[p][0] == "workers"]
            worker_rss.append((time.monotonic() - t0, max(wk, default=0.0)))
            if wk:
                peak["one worker"] = max(peak["one worker"], max(wk))
                # the kernel's high-water mark of each worker's RSS: a peak between two samples too
                peak["one worker HWM"] = max([peak.get("one worker HWM", 0.0)] + [
                    _rss_mb(p, "VmHWM:") for p in tree if seen[p][0] == "workers"])
                peak["all workers"] = max(peak["all workers"], sum(wk))
            totals: dict[str, float] = {}
            for kind, cpu in seen.values():
                totals[kind] = totals.get(kind, 0.0) + cpu
            samples.append((time.monotonic() - t0, totals))
            if args.jvm_threads:
                for pid in tree:
                    if seen[pid][0] == "jvm":
                        threads.update(_jvm_threads(pid))
                by_kind: dict[str, float] = {}
                for kind, cpu in threads.values():
                    by_kind[kind] = by_kind.get(kind, 0.0) + cpu
                thread_samples.append((time.monotonic() - t0, by_kind))
            time.sleep(0.25)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    proc.wait()
    t.join()
    wall = time.monotonic() - t0
    man = json.loads((out / "manifest.json").read_text())
    # the manifest's keys are sorted by name: put them back in the order the job runs them
    order = ["start spark", "inputs", "read and parse", "timeline", "write events", "write unparsed", "tables",
             "replay", "tables and replay", "summary"]
    timings = {k: man["timings_s"][k] for k in sorted(
        (k for k in man["timings_s"] if k != "total" and not k.endswith("during start")),
        key=lambda k: order.index(k) if k in order else len(order))}
    # the manifest's stages run one after the other from the job's start; the CLI's own start
    # (imports, argument checks) comes before: align the end of the last stage with the exit
    lead = wall - man["timings_s"]["total"]
    bounds, at = [("cli start", 0.0, lead)], lead
    for name, took in timings.items():
        bounds.append((name, at, at + took))
        at += took
    bounds.append(("exit", at, wall))

    def cpu_at(ts: float, series: list | None = None) -> dict[str, float]:
        best = {}
        for when, totals in samples if series is None else series:
            if when > ts:
                break
            best = totals
        return best

    print(f"{'stage':>22} {'wall s':>7} {'cores':>6}  " + "  ".join(f"{k:>8}" for k in ("driver", "jvm", "workers")))
    for name, a, b in bounds:
        ca, cb = cpu_at(a), cpu_at(b)
        d = {k: cb.get(k, 0.0) - ca.get(k, 0.0) for k in ("driver", "jvm", "workers")}
        span = max(b - a, 1e-9)
        print(f"{name:>22} {b - a:>7.1f} {sum(d.values()) / span:>6.2f}  "
              + "  ".join(f"{d[k]:>8.1f}" for k in ("driver", "jvm", "workers")))
    if args.jvm_threads:
        last = thread_samples[-1][1] if thread_samples else {}
        kinds = sorted(last, key=lambda k: -last[k])[:6]      # the busiest kinds, the rest summed
        print("JVM CPU seconds by thread kind and stage:")
        print(f"{'stage':>22} " + " ".join(f"{k[:15]:>15}" for k in [*kinds, "rest"]))
        for name, a, b in bounds:
            ca, cb = cpu_at(a, thread_samples), cpu_at(b, thread_samples)
            d = {k: cb.get(k, 0.0) - ca.get(k, 0.0) for k in set(ca) | set(cb)}
            rest = sum(v for k, v in d.items() if k not in kinds)
            print(f"{name:>22} " + " ".join(f"{d.get(k, 0.0):>15.1f}" for k in kinds) + f" {rest:>15.1f}")
    total = cpu_at(wall + 1)
    gc_ms = sum(float(m) for m in re.findall(r"([0-9.]+)ms\s*$", gc_log.read_text(), re.M)) if gc_log.exists() else 0
    print(f"wall {wall:.1f} s; CPU s: " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(total.items()))
          + f"; mean cores {sum(total.values()) / wall:.2f}; JVM GC pauses {gc_ms / 1000:.1f} s; "
          f"most Python workers at once {workers_max}")
    print("peak RSS MB: " + ", ".join(f"{k} {v:.0f}" for k, v in peak.items()))
    print("one worker's peak RSS MB by stage: " + ", ".join(
        f"{name} {max((v for when, v in worker_rss if a <= when < b), default=0.0):.0f}"
        for name, a, b in bounds if b - a >= 0.5))
    return 0


if __name__ == "__main__":
    sys.exit(main())
