"""Diff the events of shared/real_logs and sample_logs between a base commit and this tree.

usage: python tests/parsers/tools/events_diff.py [--base 969aa0e] [--show N]

The base commit's `parsers/` package is exported with `git archive` into a temporary directory
and run in a child process; both sides dump (source, line_no, status, event dict) per outcome.
Every difference is printed for review (a reader change must not change these files' events
unless it is a real improvement, explained in the commit).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
DUMP = r"""
import json, sys
from pathlib import Path
from parsers.reader import parse_path
out = {}
for p in sys.argv[1:]:
    it, _s = parse_path(p)
    rows = []
    for o in it:
        ev = o.event.to_dict() if o.event is not None else None
        if ev is not None:
            ev.pop("source", None)
        rows.append([o.line_no, o.status, ev])
    out[p] = rows
json.dump(out, sys.stdout, default=str)
"""


def inputs() -> list[str]:
    files = sorted(str(p) for p in (REPO.parent / "shared" / "real_logs").iterdir() if p.is_file() and p.suffix != ".md")
    files += sorted(str(p) for p in (REPO / "sample_logs").rglob("*") if p.is_file() and p.suffix in (".log", ".txt"))
    return files


def dump(pythonpath: str, files: list[str]) -> dict:
    res = subprocess.run([sys.executable, "-c", DUMP, *files], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": pythonpath, "PATH": "/usr/bin:/bin"}, cwd=pythonpath)
    return json.loads(res.stdout)


def _short(o: list) -> str:
    ev = {k: v for k, v in (o[2] or {}).items() if k != "raw" and v not in (None, [], {})}
    return json.dumps([o[0], o[1], ev])[:900]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", default="969aa0e")
    ap.add_argument("--show", type=int, default=40)
    args = ap.parse_args()
    files = inputs()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(f"git -C {REPO} archive {args.base} parsers | tar -x -C {tmp}", shell=True, check=True)
        base = dump(tmp, files)
    new = dump(str(REPO), files)
    diffs = 0
    for f in files:
        b, n = base[f], new[f]
        if len(b) != len(n):
            print(f"{f}: {len(b)} outcomes before, {len(n)} now")
        for ob, on in zip(b, n, strict=False):
            if ob != on:
                diffs += 1
                if diffs <= args.show:
                    print(f"--- {Path(f).name}:{ob[0]}\n  before: {_short(ob)}\n  now:    {_short(on)}")
    total = sum(len(v) for v in new.values())
    print(f"{len(files)} files, {total} outcomes, {diffs} differ")
    return 1 if diffs else 0


if __name__ == "__main__":
    raise SystemExit(main())
