"""Reading (and, for pure-Python producers and tests, writing) a RUN_DIR without a JVM.

Layout: RUN_DIR/<table>/part-*.parquet for every table of `pipeline.schemas.TABLES`, and
RUN_DIR/manifest.json, written last: a RUN_DIR without a manifest is incomplete.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pipeline import schemas

MANIFEST = "manifest.json"


class RunDirError(Exception):
    """The directory is not a complete coordscope run directory."""


def table_path(run_dir: str | Path, table: str) -> Path:
    if table not in schemas.TABLES:
        raise KeyError(f"unknown table {table!r}")
    return Path(run_dir) / table


def load_manifest(run_dir: str | Path) -> dict[str, Any]:
    path = Path(run_dir) / MANIFEST
    if not path.is_file():
        raise RunDirError(f"{run_dir} is not a complete coordscope run (no {MANIFEST}); run 'coordscope ingest' first")
    return json.loads(path.read_text(encoding="utf-8"))


def load_table(run_dir: str | Path, table: str, columns: list[str] | None = None, filters: Any = None):
    """The table as a pandas DataFrame with the schema's columns (empty frame when it has no rows)."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    path = table_path(run_dir, table)
    schema = schemas.arrow_schema(table)
    files = sorted(p for p in path.glob("*.parquet")) if path.is_dir() else []
    if not files:
        empty = pa.Table.from_pylist([], schema=schema)
        return empty.select(columns).to_pandas() if columns else empty.to_pandas()
    dataset = ds.dataset([str(f) for f in files], format="parquet", schema=schema)
    return dataset.to_table(columns=columns, filter=filters).to_pandas()


def write_table(run_dir: str | Path, table: str, rows: Iterable[Mapping[str, Any]]) -> Path:
    """Write rows (dicts keyed by column) as one Parquet file in the table's folder."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = table_path(run_dir, table)
    path.mkdir(parents=True, exist_ok=True)
    schema = schemas.arrow_schema(table)
    names = schemas.columns(table)
    data = pa.Table.from_pylist([{n: r.get(n) for n in names} for r in rows], schema=schema)
    out = path / "part-00000.parquet"
    pq.write_table(data, out)
    return out


def write_manifest(run_dir: str | Path, manifest: Mapping[str, Any]) -> Path:
    path = Path(run_dir) / MANIFEST
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True, default=str), encoding="utf-8")
    tmp.replace(path)
    return path
