"""Writing RUN_DIR: every table as Parquet with exactly the schema's columns and types, into a
temporary sibling directory that is renamed into place only after manifest.json is written, so an
interrupted run never leaves a directory that looks complete."""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from pipeline import schemas

# Tables whose size follows the input keep Spark's partitioning; the others are written as one file.
LARGE_TABLES = {"events", "unparsed", "heartbeat_gaps", "offset_commits"}


class RunDirExists(Exception):
    pass


def conform(df: DataFrame, table: str) -> DataFrame:
    """Exactly the schema's columns in its order and types (missing columns become nulls)."""
    have = set(df.columns)
    cols = []
    for name, typ in schemas.TABLES[table]:
        c = F.col(name) if name in have else F.lit(None)
        cols.append(c.cast(typ).alias(name))
    return df.select(*cols)


def is_local(path: str) -> bool:
    return "://" not in path or path.startswith("file://")


def row_count(run_dir: str, table: str) -> int:
    """Rows of a written table, from its Parquet footers (RUN_DIR is a local directory)."""
    import pyarrow.parquet as pq

    folder = Path(local_path(run_dir)) / table
    return sum(pq.read_metadata(f).num_rows for f in sorted(folder.glob("*.parquet")))


def local_path(path: str) -> str:
    return path[len("file://"):] if path.startswith("file://") else path


def prepare(out: str, overwrite: bool) -> str:
    """Check the target and create the temporary sibling; returns the temporary directory."""
    if not is_local(out):
        raise ValueError(f"--out must be a local directory (got {out}); copy RUN_DIR to shared storage afterwards")
    target = Path(local_path(out)).absolute()
    if target.exists() and not overwrite:
        raise RunDirExists(f"{target} already exists; pass --overwrite to replace it")
    if target.exists() and not target.is_dir():
        raise RunDirExists(f"{target} exists and is not a directory")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f".{target.name}.tmp-{uuid.uuid4().hex[:8]}"
    tmp.mkdir()
    return str(tmp)


def write_table(df: DataFrame, tmp_dir: str, table: str) -> None:
    df = conform(df, table)
    if table not in LARGE_TABLES:
        # repartition, not coalesce: coalesce(1) is narrow and would run the whole stage that
        # computes the table (the per-group replay, the ownership windows) in a single task
        df = df.repartition(1)
    df.write.mode("overwrite").parquet(os.path.join(tmp_dir, table))


def finalize(tmp_dir: str, out: str) -> str:
    """Move the finished temporary directory into place (replacing an old RUN_DIR last)."""
    target = Path(local_path(out)).absolute()
    if target.exists():
        old = target.parent / f".{target.name}.old-{uuid.uuid4().hex[:8]}"
        target.rename(old)
        os.rename(tmp_dir, target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(tmp_dir, target)
    return str(target)


def discard(tmp_dir: str | None) -> None:
    if tmp_dir and os.path.isdir(tmp_dir):
        shutil.rmtree(tmp_dir, ignore_errors=True)
