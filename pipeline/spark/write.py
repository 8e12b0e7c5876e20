"""Writing RUN_DIR: every table as Parquet with exactly the schema's columns and types, into a
temporary sibling directory that is renamed into place only after manifest.json is written, so an
interrupted run never leaves a directory that looks complete."""

from __future__ import annotations

import json
import os
import shutil
import socket
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


# A temporary RUN_DIR holds this file while it is written: the pid and host that write it, so a
# later run can tell the leftovers of a killed run (owner gone) from a run still going.
OWNER_FILE = ".coordscope-owner"


def _coordscope_run(target: Path) -> str | None:
    """None when `target` is a complete coordscope RUN_DIR holding nothing else; else why not."""
    try:
        manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "it is not a coordscope run directory (no readable manifest.json)"
    if not isinstance(manifest, dict) or manifest.get("tool") != "coordscope ingest":
        return "its manifest.json was not written by coordscope ingest"
    ours = set(schemas.TABLES) | {"manifest.json"}
    foreign = sorted(p.name for p in target.iterdir() if p.name not in ours)
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        return f"it holds files coordscope did not write ({shown})"
    return None


def check_target(out: str, overwrite: bool) -> Path:
    """The RUN_DIR to write, refused with one line unless it is new, an empty folder, or (with
    --overwrite) a coordscope run directory holding nothing else: nothing of the user's is replaced."""
    if not is_local(out):
        raise ValueError(f"--out must be a local directory (got {out}); copy RUN_DIR to shared storage afterwards")
    target = Path(local_path(out)).absolute()
    if target.is_symlink():
        raise RunDirExists(f"{target} is a symbolic link; give the directory it points to as --out")
    if not target.exists():
        return target
    if not target.is_dir():
        raise RunDirExists(f"{target} exists and is not a directory; nothing was written")
    if not any(target.iterdir()):
        return target
    if not overwrite:
        raise RunDirExists(f"{target} already exists; pass --overwrite to replace it")
    why = _coordscope_run(target)
    if why is not None:
        raise RunDirExists(f"--overwrite refused: {target} is not replaced because {why}")
    return target


def _owner_gone(folder: Path) -> bool:
    """A temporary RUN_DIR whose writer (pid on this host) no longer runs."""
    try:
        pid_text, host = (folder / OWNER_FILE).read_text(encoding="utf-8").split("\n")[:2]
        pid = int(pid_text)
    except (OSError, ValueError):
        return False        # not ours, or not identifiable: left alone
    if host != socket.gethostname():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def remove_leftovers(target: Path) -> list[str]:
    """Remove what killed runs left beside `target`: temporary RUN_DIRs whose writer is gone, and
    replaced RUN_DIRs (`.NAME.old-*`) that are complete coordscope runs. Returns what was removed."""
    removed = []
    if not target.parent.is_dir():
        return removed
    for p in sorted(target.parent.glob(f".{target.name}.tmp-*")):
        if p.is_dir() and not p.is_symlink() and _owner_gone(p):
            shutil.rmtree(p, ignore_errors=True)
            removed.append(str(p))
    for p in sorted(target.parent.glob(f".{target.name}.old-*")):
        if p.is_dir() and not p.is_symlink() and _coordscope_run(p) is None:
            shutil.rmtree(p, ignore_errors=True)
            removed.append(str(p))
    return removed


def prepare(out: str, overwrite: bool) -> str:
    """Check the target and create the temporary sibling; returns the temporary directory."""
    target = check_target(out, overwrite)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(target)
    tmp = target.parent / f".{target.name}.tmp-{uuid.uuid4().hex[:8]}"
    tmp.mkdir()
    (tmp / OWNER_FILE).write_text(f"{os.getpid()}\n{socket.gethostname()}\n", encoding="utf-8")
    return str(tmp)


def write_table(df: DataFrame, tmp_dir: str, table: str) -> None:
    df = conform(df, table)
    if table not in LARGE_TABLES:
        # repartition, not coalesce: coalesce(1) is narrow and would run the whole stage that
        # computes the table (the per-group replay, the ownership windows) in a single task
        df = df.repartition(1)
    df.write.mode("overwrite").parquet(os.path.join(tmp_dir, table))


def write_empty(tmp_dir: str, table: str) -> None:
    """A table known to have no rows: one empty Parquet file with its schema, written with pyarrow
    (a Spark job here would be all planning: about 3 s of a small ingest)."""
    import pyarrow.parquet as pq

    folder = Path(local_path(tmp_dir)) / table
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(schemas.arrow_schema(table).empty_table(), str(folder / "part-00000.parquet"))


def finalize(tmp_dir: str, out: str) -> str:
    """Move the finished temporary directory into place. An existing target is checked again
    (it may have changed while the job ran) and set aside, then removed, only once the new run is
    in place."""
    target = Path(local_path(out)).absolute()
    (Path(tmp_dir) / OWNER_FILE).unlink(missing_ok=True)
    if target.exists() and any(target.iterdir()):
        check_target(out, overwrite=True)
        old = target.parent / f".{target.name}.old-{uuid.uuid4().hex[:8]}"
        target.rename(old)
        os.rename(tmp_dir, target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        if target.exists():
            target.rmdir()      # an empty folder
        os.rename(tmp_dir, target)
    return str(target)


def discard(tmp_dir: str | None) -> None:
    if tmp_dir and os.path.isdir(tmp_dir):
        shutil.rmtree(tmp_dir, ignore_errors=True)
