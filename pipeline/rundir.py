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


def damaged(run_dir: str | Path, what: str) -> RunDirError:
    """The one sentence every reader says about a damaged run: which table or file, and the way out."""
    return RunDirError(f"run directory {run_dir} is damaged: {what}; re-run 'coordscope ingest' to rebuild it")


def load_manifest(run_dir: str | Path) -> dict[str, Any]:
    path = Path(run_dir) / MANIFEST
    if not path.is_file():
        raise RunDirError(f"{run_dir} is not a complete coordscope run (no {MANIFEST}); run 'coordscope ingest' first")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:   # UnicodeDecodeError is a ValueError
        raise damaged(run_dir, f"{MANIFEST} is not valid JSON ({_short(exc)})") from None
    if not isinstance(manifest, dict):
        raise damaged(run_dir, f"{MANIFEST} is not a JSON object")
    return manifest


def _short(exc: BaseException) -> str:
    """An exception as one short line (pyarrow messages can span lines)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def _part_files(run_dir: str | Path, table: str) -> list[Path]:
    """The table's Parquet files; a missing table folder is damage (ingest writes every table)."""
    path = table_path(run_dir, table)
    if not path.is_dir():
        raise damaged(run_dir, f"table {table}/ is missing (the run is incomplete)")
    return sorted(path.glob("*.parquet"))


def validate(run_dir: str | Path) -> dict[str, Any]:
    """Check a RUN_DIR before reading it: the manifest parses, every table folder exists and every
    Parquet file has a readable footer whose columns match the table's schema. Returns the manifest;
    raises RunDirError naming the first damaged table. Reads only footers (milliseconds)."""
    import pyarrow.parquet as pq

    manifest = load_manifest(run_dir)
    for table in schemas.TABLES:
        want = set(schemas.columns(table)) - schemas.ADDED_COLUMNS.get(table, frozenset())
        for f in _part_files(run_dir, table):
            try:
                have = set(pq.read_schema(f).names)
            except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a bad file
                raise damaged(run_dir, f"table {table}/ has an unreadable Parquet file {f.name} ({_short(exc)})") from None
            if not want <= have:
                missing = ", ".join(sorted(want - have))
                raise damaged(run_dir, f"table {table}/ file {f.name} lacks column(s) {missing}")
    return manifest


def load_table(run_dir: str | Path, table: str, columns: list[str] | None = None, filters: Any = None):
    """The table as a pandas DataFrame with the schema's columns (empty frame when it has no rows);
    RunDirError naming the table when its folder is missing or a file cannot be read."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    schema = schemas.arrow_schema(table)
    files = _part_files(run_dir, table)
    if not files:
        empty = pa.Table.from_pylist([], schema=schema)
        return empty.select(columns).to_pandas() if columns else empty.to_pandas()
    try:
        dataset = ds.dataset([str(f) for f in files], format="parquet", schema=schema)
        return dataset.to_table(columns=columns, filter=filters).to_pandas()
    except (OSError, ValueError, TypeError, pa.ArrowException) as exc:   # truncated, garbled, retyped
        raise damaged(run_dir, f"table {table}/ cannot be read ({_short(exc)})") from None


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
    """Complete a run: tables not written yet become empty tables (readers refuse a run with a
    missing table folder), then the manifest, atomically, last."""
    for table in schemas.TABLES:
        if not table_path(run_dir, table).is_dir():
            write_table(run_dir, table, [])
    path = Path(run_dir) / MANIFEST
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True, default=str), encoding="utf-8")
    tmp.replace(path)
    return path
