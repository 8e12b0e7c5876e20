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


def busiest_groups(run_dir: str, limit: int = 10) -> list[dict[str, Any]]:
    """The groups with the most generations (ties by name), with their last generation."""
    n: Counter = Counter()
    last: dict[str, int] = {}
    for b in _batches(run_dir, "generations", ["group_id", "generation"]):
        for g, gen in zip(b.column(0).to_pylist(), b.column(1).to_pylist(), strict=True):
            n[g] += 1
            if gen is not None and (g not in last or gen > last[g]):
                last[g] = gen
    top = sorted(n.items(), key=lambda kv: (-kv[1], str(kv[0])))[:limit]
    return [{"group_id": g, "generations": c, "max_generation": last.get(g)} for g, c in top]


def normalised_reason(why: str | None) -> str:
    """An unparsed line's reason with its numbers blanked, so reasons group."""
    return re.sub(r"\d+", "N", why or "")[:160]


def unparsed_reasons(counts: Counter, limit: int = 200) -> dict[str, int]:
    """{normalised reason: lines}, the `limit` commonest, from {reason: lines}."""
    merged: Counter = Counter()
    for why, c in counts.items():
        merged[normalised_reason(why)] += c
    return dict(sorted(merged.items(), key=lambda kv: (-kv[1], kv[0]))[:limit])
