"""One benchmark round in a child process run from a checkout (cwd and PYTHONPATH = that checkout):
the benchmarks that alternate checkouts in the same run read the child's last JSON line."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def child_json(argv: list[str], repo: str) -> dict | None:
    """Run `argv` in `repo`; its last stdout line starting with "{" as a dict, or None (its stderr
    tail is then printed) when it printed none."""
    p = subprocess.run(argv, cwd=repo, env=dict(os.environ, PYTHONPATH=repo), capture_output=True, text=True)
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if not line:
        print(p.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(line[-1])
