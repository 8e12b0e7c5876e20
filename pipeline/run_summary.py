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


def distinct_strings(run_dir: str, table: str, column: str) -> set[str]:
    """The distinct non-null values of a string column, read dictionary-encoded (the dictionary
    pages, not a Python string per row)."""
    seen: set[str] = set()
    for f in sorted((Path(run_dir) / table).glob("*.parquet")):
        for b in pq.ParquetFile(f, read_dictionary=[column]).iter_batches(columns=[column], batch_size=1 << 20):
            seen.update(v for v in b.column(0).unique().to_pylist() if v is not None)
    return seen


def value_counts(run_dir: str, table: str, column: str) -> Counter:
    out: Counter = Counter()
    for b in _batches(run_dir, table, [column]):
        for item in pc.value_counts(b.column(0)).to_pylist():
            out[item["values"]] += item["counts"]
    return out


def host_label(host: str) -> str:
    """A member's host as a person names it: Kafka prints client hosts as '/10.0.2.13'; a member
    known only from its log file is named by the file's stem (its pod or host name, as a rule)."""
    if host.startswith("/") and "/" not in host[1:]:
        return host[1:]
    if "/" in host or host.endswith((".log", ".json", ".gz", ".bz2", ".xz", ".zst", ".txt")):
        stem = host.rsplit("/", 1)[-1]
        for ext in (".gz", ".bz2", ".xz", ".zst", ".log", ".json", ".txt"):
            stem = stem.removesuffix(ext)
        return stem
    return host


# the columns pipeline/figures.py reads (the findings' evidence lists are not part of a summary line)
FIGURE_COLUMNS = {
    "generations": ["group_id", "started_ms", "stabilized_ms", "ended_ms", "rebalance_ms", "cause", "members"],
    "memberships": ["group_id", "member_id", "client_id", "host", "generation", "leave_reason", "left_ms"],
    "findings": ["group_id", "kind", "severity", "generation", "start_ms", "end_ms", "members", "details_json"],
}


def group_lines(run_dir: str, limit: int = 50, event_groups: set[str] | None = None) -> list[dict[str, Any]]:
    """One entry per group of the run (the busiest first), its figures from pipeline/figures.py
    (the report's and the dashboard's): rebalances and their commonest cause, expelled members and
    their hosts, offsets reprocessed and skipped (estimated or not), findings by severity, and the
    time span. Reads the columns the figures need and only the group column of the events
    (`event_groups`, when the caller has read it already)."""
    from pipeline import figures, rundir
    from pipeline.schemas import SEVERITIES

    names = set(distinct_strings(run_dir, "events", "group_id") if event_groups is None else event_groups)
    gens, mems, fnd = (rundir.load_table(run_dir, t, columns=FIGURE_COLUMNS[t])
                       for t in ("generations", "memberships", "findings"))
    names.update(figures.all_groups(gens, fnd))
    # the left-out streams of every group in one pass over the findings (per group it would be one
    # scan of the whole table per group: quadratic in the input)
    left_out: dict[Any, int] = {}
    for s in figures.left_out_streams(fnd):
        left_out[s["group_id"]] = left_out.get(s["group_id"], 0) + s["lines"]
    out = []
    for g, f in figures.figures_by_group(sorted(names), gens, mems, fnd).items():
        cause, n = max(f["causes"].items(), key=lambda kv: (kv[1], kv[0]), default=(None, 0))
        out.append({
            "group_id": g, "rebalances": f["rebalances"], "rebalance_ms_total": f["rebalance_ms_total"],
            "rebalances_timed": f["rebalances_timed"],
            "top_cause": cause, "top_cause_count": n, "expelled": len(f["expelled"]),
            "expelled_hosts": sorted({host_label(e["host"] or e["client_id"] or e["member_id"]) for e in f["expelled"]}),
            "reprocessed_offsets": f["reprocessed_offsets"],
            "reprocessed_estimated": any(r["estimated"] for r in f["reprocessed_ranges"]),
            "skipped_offsets": f["skipped_offsets"],
            "skipped_estimated": any(r["estimated"] for r in f["skipped_ranges"]),
            "findings_by_severity": {s: c for s, c in f["findings_by_severity"].items() if c},
            # a file's lines of several consumers the replay (and every table) left out
            "lines_left_out": left_out.get(g, 0),
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
