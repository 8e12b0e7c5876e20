"""Compare two RUN_DIRs table by table, row for row (as multisets: row order and file layout
do not matter). Prints one line per table; exit 1 when any table differs.

    python scripts/compare_rundirs.py OLD_RUN_DIR NEW_RUN_DIR [--show 5]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pipeline import schemas  # noqa: E402


def _frozen(v):
    return tuple(_frozen(x) for x in v) if isinstance(v, list) else v


def rows(run_dir: Path, table: str) -> Counter:
    folder = run_dir / table
    cols = schemas.columns(table)
    out: Counter = Counter()
    for f in sorted(folder.glob("*.parquet")):
        if f.name.startswith("."):
            continue
        t = pq.read_table(f)
        d = {c: t.column(c).to_pylist() if c in t.schema.names else [None] * t.num_rows for c in cols}
        out.update(zip(*(map(_frozen, d[c]) for c in cols), strict=True))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--show", type=int, default=3)
    args = ap.parse_args()
    bad = 0
    for table in schemas.TABLES:
        a, b = rows(Path(args.old), table), rows(Path(args.new), table)
        only_a, only_b = a - b, b - a
        same = not only_a and not only_b
        bad += not same
        print(f"{table:15} {sum(a.values()):>9} {sum(b.values()):>9}  {'equal' if same else 'DIFFERENT'}"
              + ("" if same else f"  (only old {sum(only_a.values())}, only new {sum(only_b.values())})"))
        for label, d in (("old", only_a), ("new", only_b)):
            for r in list(d)[: args.show]:
                print(f"    only {label}: {dict(zip(schemas.columns(table), r, strict=True))}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
