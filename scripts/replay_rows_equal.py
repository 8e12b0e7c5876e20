"""The per-group pass's replay unit (`group_pass.replay_unit_rows`: generations, memberships,
ownership, findings) over every group of run directories, in this checkout and in another one,
compared row for row:

    python scripts/replay_rows_equal.py --before /tmp/base-8425a59 RUN_DIR [RUN_DIR ...]

Each checkout runs in its own process (PYTHONPATH=checkout) and prints one digest per group (the
rows as canonical JSON); every group's rows are replayed from its table cut into 997-row chunks (a
worker gets a group as slices of several record batches). Exit status 1 when a group differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys

CHUNK_ROWS = 997


def digests(run_dir: str) -> dict[str, list]:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from pipeline.spark import group_pass

    try:
        from pipeline.replay_rules.event_rows import Handover as handover
    except ImportError:
        handover = None
    t = pq.read_table(os.path.join(run_dir, "events"))
    out = {}
    for g in sorted(x for x in t.column("group_id").unique().to_pylist() if x is not None):
        x = t.filter(pc.equal(t.column("group_id"), g))
        x = pa.Table.from_batches(x.to_batches(max_chunksize=CHUNK_ROWS), x.schema)
        if handover is not None:       # as the pass gives it: handed over, freed during the replay
            x = handover(x)
        rows = group_pass.replay_unit_rows(x, "pipeline.replay")
        del x
        text = json.dumps(rows, sort_keys=True, default=repr)
        out[g] = [hashlib.sha256(text.encode()).hexdigest(), {k: len(v) for k, v in rows.items()}]
    return out


def run(checkout: str, run_dir: str) -> dict[str, list]:
    env = {**os.environ, "PYTHONPATH": checkout}
    res = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", run_dir], cwd=checkout, env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(res.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_dirs", nargs="+")
    ap.add_argument("--before", help="the other checkout (its root)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(digests(args.run_dirs[0])))
        return 0
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bad = 0
    for rd in args.run_dirs:
        a, b = run(args.before, rd), run(here, rd)
        diff = sorted(g for g in set(a) | set(b) if a.get(g) != b.get(g))
        rows = sum(sum(v[1].values()) for v in b.values())
        print(f"{rd}: {len(b)} groups, {rows} rows; {'equal' if not diff else f'{len(diff)} differ: {diff[:5]}'}")
        bad += len(diff)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
