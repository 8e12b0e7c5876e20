"""Where an ingest runs serially: a structural measure of scale-out that needs no quiet machine.

Runs `coordscope ingest` once with Spark's event log on (spark.eventLog.*) while sampling the
CPU counters in /proc of the driver's Python, the driver JVM's threads (task threads apart from
the rest: JIT, GC, the scheduler, Py4J) and the Python workers; then reads the event log back
and prints:

- per job and stage: tasks, the sum of their run times, the longest, the stage's span, and the
  time inside the span when fewer than two tasks run (a straggler or a lone task at the end);
- the run's timeline cut into phases (process start to the first job, each job, the gaps
  between jobs, the last job to exit) with the time spent with 0, 1 and 2+ tasks running, and
  the CPU each process kind used in each phase;
- the serial fraction s: the time with fewer than `cores` tasks running counts as serial work
  (one core's worth), the rest as `cores` cores' worth; s = serial / (serial + cores x parallel),
  and Amdahl's ceiling for the speed-up on `cores` cores is cores / (1 + (cores - 1) s). The share
  of each phase in s is printed, so the largest serial piece is named.

Wall times here are those of one (possibly loaded) run; the figures that matter are the shares:
how much of the run had a core idle, and where. A loaded machine stretches every phase alike to
first order (not exactly: a phase that waits on one core suffers less from a neighbour than one
that wants two).

    PYTHONPATH=$PWD python benchmarks/ingest_serial.py --master 'local[2]' FILE... [--repo CHECKOUT]
    ... --events-only EVENTLOG      # analyse an event log already written (no run)
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest_cpu_profile import _kind  # noqa: E402  (the same process classes as the profile's)

REPO = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")
TASK_THREAD = "Executor task l"     # "Executor task launch worker-N", as the kernel keeps 15 characters


def _stat(path: str) -> tuple[int, float, str] | None:
    """(parent pid, CPU seconds, name) of a /proc stat file."""
    try:
        text = open(path).read()
    except OSError:
        return None
    head, rest = text.rsplit(")", 1)
    fields = rest.split()
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK, head.split("(", 1)[1]


class Sampler:
    """CPU seconds by kind (driver, jvm tasks, jvm other, workers) of a process tree, every `every` s."""

    def __init__(self, root: int, every: float = 0.2) -> None:
        self.root, self.every = root, every
        self.seen: dict[tuple, float] = {}          # (pid[, tid]) -> last CPU seconds, kind in kinds
        self.kinds: dict[tuple, str] = {}
        self.samples: list[tuple[float, dict[str, float]]] = []
        self.pid_kinds: dict[int, str] = {}
        # thread -> seconds it ran or waited for a core (/proc/.../schedstat): what the threads
        # wanted, which a busy neighbour does not change (it only turns running into waiting)
        self.demand_seen: dict[tuple[int, int], float] = {}

    def sample_once(self) -> None:
        stats = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                s = _stat(f"/proc/{d}/stat")
                if s is not None:
                    stats[int(d)] = s
        tree, todo, kids = {self.root}, [self.root], {}
        for pid, (ppid, _c, _n) in stats.items():
            kids.setdefault(ppid, []).append(pid)
        while todo:
            for k in kids.get(todo.pop(), []):
                tree.add(k)
                todo.append(k)
        for pid in tree:
            if pid not in stats:
                continue
            # (sticky: an exiting worker's cmdline reads empty)
            kind = "driver" if pid == self.root else self.pid_kinds.get(pid) or _kind(pid)
            if kind != "other":
                self.pid_kinds[pid] = kind
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                tids = []
            for tid in tids:
                try:
                    run, wait = open(f"/proc/{pid}/task/{tid}/schedstat").read().split()[:2]
                except (OSError, ValueError):
                    continue
                self.demand_seen[(pid, int(tid))] = (int(run) + int(wait)) / 1e9
            if kind == "jvm":
                try:
                    tids = os.listdir(f"/proc/{pid}/task")
                except OSError:
                    tids = []
                for tid in tids:
                    s = _stat(f"/proc/{pid}/task/{tid}/stat")
                    if s is not None:
                        key = (pid, int(tid))
                        # (sticky: Spark renames a task thread while it runs a task and after)
                        if self.kinds.get(key) != "jvm tasks":
                            self.kinds[key] = "jvm tasks" if s[2].startswith(TASK_THREAD) else "jvm other"
                        self.seen[key] = s[1]
            else:
                self.kinds[(pid,)] = kind
                self.seen[(pid,)] = stats[pid][1]
        totals: dict[str, float] = {}
        for key, cpu in self.seen.items():
            k = self.kinds[key]
            totals[k] = totals.get(k, 0.0) + cpu
        totals["demand"] = sum(self.demand_seen.values())
        self.samples.append((time.time(), totals))

    def run(self, proc: subprocess.Popen) -> None:
        while proc.poll() is None:
            self.sample_once()
            time.sleep(self.every)
        self.samples.append((time.time(), self.samples[-1][1] if self.samples else {}))

    def demand_serial(self, a: float, b: float, cores: int) -> tuple[float, float, float]:
        """(serial s, parallel s, core-seconds wanted) within [a, b]: each sampling interval with d
        cores wanted is serial for the share (cores - d) / (cores - 1) of it (all of it when d <= 1,
        none when d >= cores: Amdahl's split of an interval that used d cores)."""
        serial = parallel = wanted = 0.0
        for (t0, c0), (t1, c1) in zip(self.samples, self.samples[1:], strict=False):
            lo, hi = max(a, t0), min(b, t1)
            if hi <= lo or t1 <= t0:
                continue
            d = max(0.0, (c1.get("demand", 0.0) - c0.get("demand", 0.0)) / (t1 - t0))
            part = hi - lo
            share = min(1.0, max(0.0, (cores - min(d, cores)) / (cores - 1)))
            serial += part * share
            parallel += part * (1 - share)
            wanted += part * d
        return serial, parallel, wanted

    def cpu_at(self, ts: float) -> dict[str, float]:
        best: dict[str, float] = {}
        for when, totals in self.samples:
            if when > ts:
                break
            best = totals
        return best


KINDS = ("driver", "jvm other", "jvm tasks", "workers")


def _log_lines(path: str):
    """The lines of an event log: a file, or Spark 4's rolling log (a directory of events_N_* files)."""
    parts = [path]
    if os.path.isdir(path):
        parts = sorted(glob.glob(os.path.join(path, "events_*")), key=lambda p: int(Path(p).name.split("_")[1]))
    for part in parts:
        with open(part) as f:
            yield from f


def read_events(path: str) -> dict:
    """Jobs, stages and tasks of an event log (times in epoch seconds)."""
    jobs, stages, tasks = {}, {}, []
    app = {}
    for line in _log_lines(path):
            e = json.loads(line)
            ev = e["Event"]
            if ev == "SparkListenerApplicationStart":
                app["start"] = e["Timestamp"] / 1000
            elif ev == "SparkListenerApplicationEnd":
                app["end"] = e["Timestamp"] / 1000
            elif ev == "SparkListenerJobStart":
                jobs[e["Job ID"]] = {"submit": e["Submission Time"] / 1000,
                                     "stages": [s["Stage ID"] for s in e["Stage Infos"]],
                                     "desc": (e.get("Properties") or {}).get("spark.job.description")
                                     or (e["Stage Infos"][-1]["Stage Name"] if e["Stage Infos"] else "")}
            elif ev == "SparkListenerJobEnd":
                jobs[e["Job ID"]]["end"] = e["Completion Time"] / 1000
            elif ev == "SparkListenerStageCompleted":
                si = e["Stage Info"]
                stages[si["Stage ID"]] = {"submit": si.get("Submission Time", 0) / 1000,
                                          "end": si.get("Completion Time", 0) / 1000,
                                          "name": si["Stage Name"], "tasks": si["Number of Tasks"]}
            elif ev == "SparkListenerTaskEnd":
                ti = e["Task Info"]
                m = e.get("Task Metrics") or {}
                tasks.append({"stage": e["Stage ID"], "launch": ti["Launch Time"] / 1000,
                              "finish": ti["Finish Time"] / 1000, "run": m.get("Executor Run Time", 0) / 1000,
                              "cpu": m.get("Executor CPU Time", 0) / 1e9, "index": ti["Index"],
                              "deser": m.get("Executor Deserialize Time", 0) / 1000,
                              "result": m.get("Result Serialization Time", 0) / 1000})
    return {"app": app, "jobs": jobs, "stages": stages, "tasks": tasks}


def active_segments(tasks: list[dict], a: float, b: float) -> dict[int, float]:
    """Seconds within [a, b] with n tasks running, by n."""
    points = sorted([(t["launch"], 1) for t in tasks] + [(t["finish"], -1) for t in tasks])
    out: dict[int, float] = {}
    n, at = 0, a
    for when, d in points:
        when = min(max(when, a), b)
        if when > at:
            out[n] = out.get(n, 0.0) + when - at
            at = when
        n += d
    if b > at:
        out[n] = out.get(n, 0.0) + b - at
    return out


def analyse(ev: dict, cores: int, t_start: float | None = None, t_exit: float | None = None,
            sampler: Sampler | None = None) -> None:
    jobs, stages, tasks = ev["jobs"], ev["stages"], ev["tasks"]
    t0 = t_start if t_start is not None else ev["app"].get("start")
    t1 = t_exit if t_exit is not None else ev["app"].get("end", max(t["finish"] for t in tasks))
    print(f"run {t1 - t0:.2f} s from {'process start' if t_start else 'application start'}; "
          f"application start at +{ev['app'].get('start', t0) - t0:.2f} s")
    print("\nper job and stage (times in s; 'under' = the stage's span with fewer than "
          f"{cores} tasks running):")
    print(f"{'job':>4} {'stage':>5} {'tasks':>5} {'sum run':>8} {'max task':>8} {'span':>6} {'under':>6}"
          f" {'first task':>10} {'after last':>10}  name")
    by_stage: dict[int, list[dict]] = {}
    for t in tasks:
        by_stage.setdefault(t["stage"], []).append(t)
    for jid in sorted(jobs):
        j = jobs[jid]
        for sid in j["stages"]:
            st = stages.get(sid)
            ts = by_stage.get(sid, [])
            if st is None or not ts:
                continue
            seg = active_segments(ts, st["submit"], st["end"])
            under = sum(v for n, v in seg.items() if n < cores)
            first = min(t["launch"] for t in ts) - st["submit"]
            after = st["end"] - max(t["finish"] for t in ts)
            print(f"{jid:>4} {sid:>5} {len(ts):>5} {sum(t['run'] for t in ts):>8.2f} {max(t['run'] for t in ts):>8.2f}"
                  f" {st['end'] - st['submit']:>6.2f} {under:>6.2f} {first:>10.3f} {after:>10.3f}  {st['name'][:60]}")
            runs = sorted((t["index"], t["launch"] - st["submit"], t["finish"] - st["submit"], t["run"]) for t in ts)
            print("            tasks (index: start-end run): " + "; ".join(
                f"{i}: {a:.2f}-{b:.2f} {r:.2f}" for i, a, b, r in runs))

    # phases: before the first job, each job, gaps between jobs, after the last job
    order = sorted(jobs.items(), key=lambda kv: kv[1]["submit"])
    phases: list[tuple[str, float, float]] = []
    at = t0
    # jobs that overlap (the warm-up job beside the planning) are merged into one phase
    merged: list[list] = []
    for jid, j in order:
        if merged and j["submit"] < merged[-1][2]:
            merged[-1][0].append(jid)
            merged[-1][2] = max(merged[-1][2], j.get("end", j["submit"]))
        else:
            merged.append([[jid], j["submit"], j.get("end", j["submit"])])
    for k, (ids, a, b) in enumerate(merged):
        if a > at:
            phases.append(("before first job" if k == 0 else f"driver between jobs {merged[k - 1][0]}..{ids}", at, a))
        phases.append((f"job {','.join(map(str, ids))}", a, b))
        at = b
    phases.append(("after last job", at, t1))
    print(f"\ntimeline: per phase, seconds with 0 / 1 / {cores}+ tasks running; the cores the run's threads "
          "wanted (ran or waited for: /proc schedstat) and the seconds that were serial by that measure; "
          "CPU-s by kind")
    print(f"{'phase':>34} {'span':>6} {'0':>6} {'1':>6} {str(cores) + '+':>6} {'cores':>6} {'serial':>6}  "
          + " ".join(f"{k:>9}" for k in KINDS))
    task_serial, task_par, dem_serial, dem_par = 0.0, 0.0, 0.0, 0.0
    shares = []
    for name, a, b in phases:
        seg = active_segments(tasks, a, b)
        serial = sum(v for n, v in seg.items() if n < cores)
        full = sum(v for n, v in seg.items() if n >= cores)
        task_serial += serial
        task_par += full
        cpu, wanted, ds = "", "", 0.0
        if sampler is not None and sampler.samples:
            ca, cb = sampler.cpu_at(a), sampler.cpu_at(b)
            cpu = " ".join(f"{cb.get(k, 0.0) - ca.get(k, 0.0):>9.2f}" for k in KINDS)
            ds, dp, dw = sampler.demand_serial(a, b, cores)
            dem_serial += ds
            dem_par += dp
            wanted = f"{dw / max(b - a, 1e-9):>6.2f} {ds:>6.2f}"
        shares.append((name, serial, ds))
        print(f"{name[:34]:>34} {b - a:>6.2f} {seg.get(0, 0.0):>6.2f} {sum(v for n, v in seg.items() if 0 < n < cores):>6.2f}"
              f" {full:>6.2f} {wanted}  {cpu}")
    work = task_serial + cores * task_par
    s = task_serial / work if work else 0.0
    print(f"\nby tasks: {task_serial:.2f} s with fewer than {cores} tasks running (counted as serial), "
          f"{task_par:.2f} s with {cores}+: s = {s:.3f}; Amdahl's ceiling {cores / (1 + (cores - 1) * s):.2f}x")
    print("  s by phase: " + "; ".join(f"{n} {v / work:.3f}" for n, v, _d in shares if work and v / work >= 0.002))
    if sampler is not None and sampler.samples:
        w2 = dem_serial + cores * dem_par
        s2 = dem_serial / w2 if w2 else 0.0
        print(f"by the cores wanted: {dem_serial:.2f} s serial, {dem_par:.2f} s parallel: s = {s2:.3f}; "
              f"ceiling {cores / (1 + (cores - 1) * s2):.2f}x")
        print("  s by phase: " + "; ".join(f"{n} {d / w2:.3f}" for n, _v, d in shares if w2 and d / w2 >= 0.002))
        total = sampler.cpu_at(t1 + 1)
        print("CPU-s of the whole run: " + ", ".join(f"{k} {total.get(k, 0.0):.2f}" for k in KINDS)
              + f"; task CPU (executor threads, from the event log) {sum(t['cpu'] for t in tasks):.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--repo", default=str(REPO), help="checkout whose ingest runs")
    ap.add_argument("--out", default=None, help="directory for the run and its event log")
    ap.add_argument("--events-only", default=None, help="analyse this event log (no run)")
    ap.add_argument("--py-spy", action="store_true", help="also record the driver's Python with py-spy (raw)")
    ap.add_argument("--cores", type=int, default=None, help="cores of the master (default: local[N]'s N)")
    args = ap.parse_args()
    m = re.fullmatch(r"local\[(\d+)\]", args.master)
    cores = args.cores or (int(m.group(1)) if m else 2)
    if args.events_only:
        # with the samples.json a run saved beside its event log: the process's times and CPU too
        saved = Path(args.events_only).resolve().parents[1] / "samples.json"
        if saved.exists():
            d = json.loads(saved.read_text())
            sampler = Sampler(0)
            sampler.samples = [(t, dict(c)) for t, c in d["samples"]]
            analyse(read_events(args.events_only), cores, d["start"], d["exit"], sampler)
        else:
            analyse(read_events(args.events_only), cores)
        return 0
    base = Path(args.out or tempfile.mkdtemp(prefix="serial-"))
    logs = base / "eventlog"
    logs.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(Path(args.repo).resolve()))
    t_start = time.time()
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "ingest", *args.files, "--out", str(base / "run"),
                             "--overwrite", "--master", args.master, "--quiet",
                             "--conf", "spark.eventLog.enabled=true", "--conf", f"spark.eventLog.dir={logs.as_uri()}",
                             "--conf", "spark.eventLog.compress=false"], cwd=args.repo, env=env)
    spy = None
    if args.py_spy:     # the driver's Python threads, idle ones too: what the driver waits on, and when
        spy = subprocess.Popen([str(Path(sys.executable).with_name("py-spy")), "record", "--idle", "--threads", "--format", "speedscope", "-r", "50",
                                "-o", str(base / "driver.speedscope.json"), "--pid", str(proc.pid)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sampler = Sampler(proc.pid)
    th = threading.Thread(target=sampler.run, args=(proc,), daemon=True)
    th.start()
    proc.wait()
    t_exit = time.time()
    th.join()
    if spy is not None:
        spy.wait()
    found = sorted(glob.glob(str(logs / "*")))
    if proc.returncode != 0 or not found:
        print(f"ingest exited {proc.returncode}; event logs: {found}")
        return 1
    (base / "samples.json").write_text(json.dumps({"start": t_start, "exit": t_exit, "cores": cores,
                                                   "samples": sampler.samples}))
    man = json.loads((base / "run" / "manifest.json").read_text())
    print(f"event log {found[-1]}; manifest timings {man['timings_s']}; load average {os.getloadavg()}")
    analyse(read_events(found[-1]), cores, t_start, t_exit, sampler)
    return 0


if __name__ == "__main__":
    sys.exit(main())
