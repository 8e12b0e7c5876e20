"""The end-of-run summary, read back from the RUN_DIR tables just written (local Parquet).

pyarrow reads only the columns needed, one record batch at a time: no Spark job (each one cost
a fraction of a second at the end of every run), and the driver holds one entry per group,
severity or reason, never a row per event.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq


def _batches(run_dir: str, table: str, columns: list[str]):
    for f in sorted((Path(run_dir) / table).glob("*.parquet")):
        yield from pq.ParquetFile(f).iter_batches(columns=columns, batch_size=65_536)


def distinct_values(run_dir: str, table: str, column: str) -> int:
    """Number of distinct non-null values of `column`."""
    seen: set[Any] = set()
    for b in _batches(run_dir, table, [column]):
        seen.update(v for v in pc.unique(b.column(0)).to_pylist() if v is not None)
    return len(seen)


def value_counts(run_dir: str, table: str, column: str) -> Counter:
    out: Counter = Counter()
    for b in _batches(run_dir, table, [column]):
        for item in pc.value_counts(b.column(0)).to_pylist():
            out[item["values"]] += item["counts"]
    return out


def group_lines(run_dir: str, limit: int = 50) -> list[dict[str, Any]]:
    """One entry per group of the run (the busiest first), its figures from pipeline/figures.py
    (the report's and the dashboard's): rebalances and their commonest cause, expelled members and
    their hosts, offsets reprocessed and skipped (estimated or not), findings by severity, and the
    time span. Reads the small tables whole and only the group column of the events."""
    from pipeline import figures, rundir
    from pipeline.schemas import SEVERITIES

    names: set[str] = set()
    for b in _batches(run_dir, "events", ["group_id"]):
        names.update(v for v in pc.unique(b.column(0)).to_pylist() if v is not None)
    gens = rundir.load_table(run_dir, "generations")
    mems = rundir.load_table(run_dir, "memberships")
    fnd = rundir.load_table(run_dir, "findings")
    names.update(figures.all_groups(gens, fnd))
    out = []
    for g in sorted(names):
        f = figures.group_figures(g, gens, mems, fnd)
        cause, n = max(f["causes"].items(), key=lambda kv: (kv[1], kv[0]), default=(None, 0))
        out.append({
            "group_id": g, "rebalances": f["rebalances"], "rebalance_ms_total": f["rebalance_ms_total"],
            "top_cause": cause, "top_cause_count": n, "expelled": len(f["expelled"]),
            "expelled_hosts": sorted({e["host"] or e["client_id"] or e["member_id"] for e in f["expelled"]}),
            "reprocessed_offsets": f["reprocessed_offsets"],
            "reprocessed_estimated": any(r["estimated"] for r in f["reprocessed_ranges"]),
            "skipped_offsets": f["skipped_offsets"],
            "skipped_estimated": any(r["estimated"] for r in f["skipped_ranges"]),
            "findings_by_severity": {s: c for s, c in f["findings_by_severity"].items() if c},
            "first_ms": f["first_ms"], "last_ms": f["last_ms"],
        })
    weight = {s: 10 ** (len(SEVERITIES) - i) for i, s in enumerate(SEVERITIES)}
    out.sort(key=lambda e: (-sum(weight[s] * c for s, c in e["findings_by_severity"].items()),
                            -e["rebalances"], e["group_id"]))
    return out[:limit]


def normalised_reason(why: str | None) -> str:
    """An unparsed line's reason with its numbers blanked, so reasons group."""
    return re.sub(r"\d+", "N", why or "")[:160]


def unparsed_reasons(counts: Counter, limit: int = 200) -> dict[str, int]:
    """{normalised reason: lines}, the `limit` commonest, from {reason: lines}."""
    merged: Counter = Counter()
    for why, c in counts.items():
        merged[normalised_reason(why)] += c
    return dict(sorted(merged.items(), key=lambda kv: (-kv[1], kv[0]))[:limit])
