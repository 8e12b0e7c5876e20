"""`coordscope parse FILE > events.jsonl` end to end, per CPU-second, next to the base commit's CLI
and Drain3 over the same lines, measured in the same run.

usage: PYTHONPATH=. python benchmarks/parse_cli_bench.py [--lines N] [--rounds R] [--base COMMIT | --before DIR]
       [--cpu C] [--no-pyc]

Each subject is a separate process pinned to one core (`taskset -c C`, default 0), run in
alternation R times (so that what the other processes of a shared machine take hits every subject
alike); its CPU time (user + system, of the process and its children) includes start-up, reading
the file and writing the output to a file:
* ours: `python -m pipeline.cli parse FILE > events.jsonl` from this checkout;
* base: the same command from a `git worktree` of the base commit (default 5707cf8, before the
  build cache) under /tmp, or from an existing checkout (`--before DIR`), run with PYTHONPATH
  pointing there; its events must equal ours byte for byte (checked);
* ours, cold cache: ours with an empty build cache each round (parsers/build_cache.py: the first
  run after installing or after a rule changed), events checked too;
* ours --no-events: the same parse without writing events (what the writer costs is the difference);
* python floor: a script that cuts every line by fixed offsets and writes a dict of the event's
  columns per line with orjson, matching no rule and typing no field (FLOOR_SCRIPT): what the
  interpreter costs this hour for the least a Python JSON writer does; ours/floor does not move
  with the machine's speed the way lines/CPU-s does;
* drain3: `drain3.TemplateMiner` (default configuration, no persistence) fed every line of the same
  file, in a process that reads the file itself: the whole line as read ("drain3"), or the message
  cut out of the log4j line by a regex first ("drain3 message only", what a user who strips the
  header does; Drain3 then sees fewer, more similar tokens); the add_log_message loop alone is
  timed too.
The lines are the realistic mix of `parse_bench.py` (80% high-volume wordings, log4j layout).
Lines/s = lines / CPU seconds; the best and the median of the rounds are printed, with ratios.
Python's bytecode cache (`__pycache__`) is on for every subject, as in an installed package, even
when PYTHONDONTWRITEBYTECODE is set in the calling environment (it is in some sandboxes: every
module is then compiled from source in every process, ~0.09 CPU-s); `--no-pyc` keeps it off.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from parse_bench import LOG4J_SPLIT, coordinator_lines  # noqa: E402

DRAIN3_SCRIPT = r"""
import re, sys, time
from drain3 import TemplateMiner
from drain3.template_miner_config import TemplateMinerConfig
miner = TemplateMiner(config=TemplateMinerConfig())
split = re.compile(sys.argv[3]).match if sys.argv[2] == "message" else None
t0 = time.process_time()
n = 0
with open(sys.argv[1], encoding="utf-8") as fh:
    for line in fh:
        line = line.rstrip("\n")
        if split is not None:
            m = split(line)
            line = m.group("msg") if m else line
        miner.add_log_message(line)
        n += 1
loop = time.process_time() - t0
sys.stdout.write(f"{n} {loop} {len(miner.drain.clusters)}\n")
"""


# The interpreter's floor for this job: what any Python writer of one JSON object per log line
# must do, and nothing more. It reads the file in 1 MB chunks, cuts each line into its time, level,
# message and logger by fixed offsets and two partitions (no regex, no check that the line is a
# coordinator line), takes the time's epoch ms from a memo of seconds, builds a dict of the event's
# columns (ours: 23 keys, most None) and writes it with orjson, 256 lines per write. No rule is
# matched and no field is typed: a parser in Python cannot beat it, so ours/floor says how much of
# our CPU goes to reading the lines' meaning, whatever speed the machine runs Python at this hour.
FLOOR_SCRIPT = r"""
import sys, time, calendar, orjson
t0 = time.process_time()
cols = ("source", "line_no", "side", "kind", "raw", "ts_ms") + tuple(f"c{i}" for i in range(16)) + ("extra",)
dumps, opt = orjson.dumps, orjson.OPT_APPEND_NEWLINE
seconds = {}
out = sys.stdout.buffer
n, rest, batch = 0, "", []
with open(sys.argv[1], encoding="utf-8") as fh:
    while True:
        chunk = fh.read(1 << 20)
        if not chunk:
            break
        lines = (rest + chunk).split("\n")
        rest = lines.pop()
        for line in lines:
            n += 1
            sec = line[1:20]
            base = seconds.get(sec)
            if base is None:
                base = seconds[sec] = calendar.timegm(time.strptime(sec, "%Y-%m-%d %H:%M:%S")) * 1000
            level, _, tail = line[26:].partition(" ")
            message, _, logger = tail.rpartition(" (")
            d = dict.fromkeys(cols)
            d["source"] = sys.argv[1]
            d["line_no"] = n
            d["side"] = "client"
            d["kind"] = "line"
            d["raw"] = line
            d["ts_ms"] = base + int(line[21:24])
            d["c0"] = message
            d["extra"] = {"level": level, "logger": logger[:-1]}
            batch.append(dumps(d, option=opt))
            if len(batch) >= 256:
                out.write(b"".join(batch))
                batch.clear()
out.write(b"".join(batch))
sys.stderr.write(f"{n} {time.process_time() - t0}\n")
"""


def base_worktree(commit: str) -> Path:
    """A detached worktree of `commit` under /tmp (made once, reused by later runs)."""
    path = Path(tempfile.gettempdir()) / f"coordscope-base-{commit[:12]}"
    if not (path / "pipeline" / "cli.py").exists():
        if path.exists():
            shutil.rmtree(path)
        subprocess.run(["git", "-C", str(REPO), "worktree", "prune"], check=True)
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(path), commit],
                       check=True, capture_output=True)
    return path


def cpu_of(cmd: list[str], cwd: Path, stdout_path: Path, env: dict[str, str]) -> tuple[float, str]:
    """CPU seconds (user + system) of the child process `cmd`, and what it printed on stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with stdout_path.open("wb") as out:
        proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.PIPE, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, proc.stderr.decode()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--base", default="5707cf8", help="base commit (default 5707cf8)")
    ap.add_argument("--before", metavar="DIR", help="an existing checkout to compare with instead of --base's worktree")
    ap.add_argument("--no-pyc", action="store_true", help="keep PYTHONDONTWRITEBYTECODE as the environment has it")
    ap.add_argument("--cpu", default="0", help="the core every subject is pinned to (taskset -c)")
    args = ap.parse_args(argv)
    try:
        drain3_version = version("drain3")
    except PackageNotFoundError:
        raise SystemExit("drain3 is not installed: pip install -e '.[bench]'") from None
    taskset = ["taskset", "-c", args.cpu] if shutil.which("taskset") else []
    py = sys.executable
    base = Path(args.before).resolve() if args.before else base_worktree(args.base)
    base_name = str(base) if args.before else args.base
    work = Path(tempfile.mkdtemp(prefix="parse-cli-bench-"))
    try:
        log = work / "mix.log"
        log.write_text("\n".join(coordinator_lines(args.lines, unique=False)) + "\n", encoding="utf-8")
        n = args.lines
        env_all = dict(os.environ)
        if not args.no_pyc:
            env_all.pop("PYTHONDONTWRITEBYTECODE", None)
        # each checkout its own build cache, warmed below: in one shared cache the two checkouts'
        # entries (derived from different rule sets) replace each other and the loser rebuilds
        env_ours = dict(env_all, PYTHONPATH=str(REPO), COORDSCOPE_CACHE_DIR=str(work / "cache-ours"))
        env_base = dict(env_all, PYTHONPATH=str(base), COORDSCOPE_CACHE_DIR=str(work / "cache-base"))
        cold = work / "cold-cache"
        env_cold = dict(env_ours, COORDSCOPE_CACHE_DIR=str(cold))
        subjects = {
            "ours": (taskset + [py, "-m", "pipeline.cli", "parse", str(log)], REPO, env_ours, work / "ours.jsonl"),
            "base": (taskset + [py, "-m", "pipeline.cli", "parse", str(log)], base, env_base, work / "base.jsonl"),
            "ours, cold cache": (taskset + [py, "-m", "pipeline.cli", "parse", str(log)], REPO, env_cold,
                                 work / "cold.jsonl"),
            "ours --no-events": (taskset + [py, "-m", "pipeline.cli", "parse", "--no-events", str(log)], REPO,
                                 env_ours, work / "none.jsonl"),
            "python floor": (taskset + [py, "-c", FLOOR_SCRIPT, str(log)], work, env_all, work / "floor.jsonl"),
            "drain3": (taskset + [py, "-c", DRAIN3_SCRIPT, str(log), "line", ""], work, env_all,
                       work / "drain3.txt"),
            "drain3 message only": (taskset + [py, "-c", DRAIN3_SCRIPT, str(log), "message", LOG4J_SPLIT.pattern],
                                    work, env_all, work / "drain3m.txt"),
        }
        times: dict[str, list[float]] = {k: [] for k in subjects}
        drain_loop: dict[str, list[float]] = {"drain3": [], "drain3 message only": []}
        clusters: dict[str, int] = {}
        for name in ("ours", "base"):       # warm each checkout's build cache (not timed)
            cmd, cwd, env, out = subjects[name]
            cpu_of(cmd, cwd, out, env)
        for _ in range(args.rounds):
            for name, (cmd, cwd, env, out) in subjects.items():
                if name == "ours, cold cache":
                    shutil.rmtree(cold, ignore_errors=True)
                cpu, _err = cpu_of(cmd, cwd, out, env)
                times[name].append(cpu)
                if name in drain_loop:
                    _n, loop, clusters_s = out.read_text().split()
                    drain_loop[name].append(float(loop))
                    clusters[name] = int(clusters_s)
        same = (work / "ours.jsonl").read_bytes() == (work / "base.jsonl").read_bytes() == (work / "cold.jsonl").read_bytes()
        events = sum(1 for _ in (work / "ours.jsonl").open("rb"))

        print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, {platform.platform()}; "
              f"pinned: {' '.join(taskset) or 'no taskset'}; drain3 {drain3_version}; "
              f"bytecode cache {'as the environment says' if args.no_pyc else 'on'}; load average {os.getloadavg()[0]:.1f}")
        print(f"input: {n} coordinator lines (realistic mix, log4j), {log.stat().st_size / 1e6:.1f} MB; "
              f"{events} events written; base {base_name} events identical to ours: {'yes' if same else 'NO'}; "
              f"drain3 clusters: {clusters['drain3']} (whole lines), {clusters['drain3 message only']} (messages); rounds: {args.rounds}")
        print(f"{'subject':<28}{'best lines/CPU-s':>12}{'median':>12}   CPU s per round")
        best = {k: n / min(v) for k, v in times.items()}
        med = {k: n / statistics.median(v) for k, v in times.items()}
        for name, v in times.items():
            print(f"{name:<28}{best[name]:>12,.0f}{med[name]:>12,.0f}   {' '.join(f'{x:.2f}' for x in v)}")
        for name, loops in drain_loop.items():
            print(f"{name + ', loop':<28}{n / min(loops):>12,.0f}{n / statistics.median(loops):>12,.0f}"
                  f"   (the add_log_message loop only: no start-up, no import)")
        print(f"ratio ours/base:   best {best['ours'] / best['base']:.2f}x, median {med['ours'] / med['base']:.2f}x")
        for name in drain_loop:
            print(f"ratio ours/{name}: best {best['ours'] / best[name]:.2f}x, median {med['ours'] / med[name]:.2f}x "
                  f"(>1: coordscope faster)")
        print(f"ratio ours/python floor: best {best['ours'] / best['python floor']:.2f}x, "
              f"median {med['ours'] / med['python floor']:.2f}x (1 = as fast as Python can cut and write the lines)")
        writer = statistics.median(times["ours"]) - statistics.median(times["ours --no-events"])
        print(f"event writing (ours minus --no-events, medians): {writer / max(events, 1) * 1e6:.2f} us per event")
        return 0 if same else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
