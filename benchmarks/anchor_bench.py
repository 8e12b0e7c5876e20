"""Reader speed after issue 17 (anchors), against the base commit measured in the same run.

usage: python benchmarks/anchor_bench.py [--base 969aa0e] [--lines N] [--repeat R]

The base commit's `parsers/` is exported with `git archive` into a temporary directory; each
workload runs in a child process per tree (CPU seconds, best of R, trees alternated):
* log4j: Kafka's log4j coordinator lines (benchmarks/parse_bench.py's realistic mix), file sniffed;
* unknown: the same messages in layouts no sniffer lists (Logstash's own, Quarkus, CRI + log4j,
  grep -n, a CSV export, JSON with unusual field names), one layout per file as a tool writes it;
* reject: non-candidate lines through the candidate filter (CANDIDATE_REGEX over 64k-line batches).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[2])
from parse_bench import coordinator_lines, non_candidate_lines  # the inputs, made by this tree's catalogue
work, n, repeat = sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
CC = "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"

def unknown_files(n):
    base = coordinator_lines(n, False)
    msgs = [ln.split("] INFO ", 1)[1].rsplit(" (", 1)[0] for ln in base]
    layouts = [
        lambda i, m: f"[2024-03-01T10:00:00,{i % 1000:03d}][INFO ][{CC}][main] {m}",
        lambda i, m: f"2024-03-01 10:00:00,{i % 1000:03d} INFO  [org.apa.kaf.cli.con.int.ConsumerCoordinator] (vert.x-eventloop-thread-0) {m}",
        lambda i, m: f"2024-03-01T10:00:00.{i % 1000:03d}456789Z stdout F [2024-03-01 10:00:00,{i % 1000:03d}] INFO {m} ({CC})",
        lambda i, m: f"{i}:[2024-03-01 10:00:00,{i % 1000:03d}] INFO {m} ({CC})",
        lambda i, m: '"2024-03-01T10:00:00.{:03d}Z","kafka-0","{}"'.format(i % 1000, m.replace('"', '""')),
        lambda i, m: json.dumps({"t": 1709287200123 + i, "body": m, "sev": "INFO"}),
    ]
    per = n // len(layouts)
    return [[(j + 1, lay(j, msgs[k * per + j])) for j in range(per)] for k, lay in enumerate(layouts)]

if work == "log4j":
    data = [list(enumerate(coordinator_lines(n, False), 1))]
elif work == "unknown":
    data = unknown_files(n)
else:
    data = non_candidate_lines(n)
# then the tree under test: every module of this tree's parsers forgotten
for mod in [m for m in sys.modules if m == "parsers" or m.startswith("parsers.")]:
    del sys.modules[mod]
sys.path[:] = [sys.argv[1]] + [p for p in sys.path if p not in ("", sys.argv[1]) and "wt-" not in p and "/work/main" != p]
from parsers import parse_lines
from parsers.client import clear_memos
from parsers.reader import candidate_mask
assert parse_lines.__module__ and sys.modules["parsers"].__file__.startswith(sys.argv[1]), sys.modules["parsers"].__file__

def run():
    if work == "reject":
        return sum(candidate_mask(data[i:i + 65536]).count(False) for i in range(0, len(data), 65536))
    clear_memos()
    c = 0
    for f in data:
        for o in parse_lines("bench", f):
            c += o.status == "parsed"
    return c

parsed = run()
best = float("inf")
for _ in range(repeat):
    t0 = time.process_time()
    run()
    best = min(best, time.process_time() - t0)
print(json.dumps({"parsed": parsed, "lines": sum(len(f) for f in data) if work != "reject" else len(data), "cpu": best}))
"""


def child(tree: str, work: str, n: int, repeat: int) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, tree, str(REPO / "benchmarks"), work, str(n), str(repeat)],
                         capture_output=True, text=True, check=True, cwd=tree)
    return json.loads(out.stdout)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", default="969aa0e")
    ap.add_argument("--lines", type=int, default=60_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(f"git -C {REPO} archive {args.base} parsers | tar -x -C {tmp}", shell=True, check=True)
        for work in ("log4j", "unknown", "reject"):
            n = args.lines * (10 if work == "reject" else 1)
            res: dict[str, dict] = {}
            for _ in range(args.rounds):  # alternated: what the shared machine does hits both alike
                for name, tree in (("base", tmp), ("now", str(REPO))):
                    r = child(tree, work, n, args.repeat)
                    if name not in res or r["cpu"] < res[name]["cpu"]:
                        res[name] = r
            b, c = res["base"], res["now"]
            print(f"{work}: {c['lines']} lines; base {b['lines'] / b['cpu']:,.0f} lines/s ({b['parsed']} parsed), "
                  f"now {c['lines'] / c['cpu']:,.0f} lines/s ({c['parsed']} parsed); ratio now/base "
                  f"{b['cpu'] / c['cpu']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
