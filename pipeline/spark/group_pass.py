"""One pass over the timeline per group: every per-group table computed and written by the workers.

The timeline is shuffled once by group (`repartition(group_id)` + `sortWithinPartitions`); each
task walks its sorted rows group by group and, for each group, runs the replay
(`replay_group_rows`: generations, memberships, findings, inferred ownership) and the pure
per-group tables of `pipeline.group_tables` (heartbeat_gaps, offset_commits, observed ownership
with unnamed owners named from the replay's memberships). The rows are written with pyarrow as
one Parquet file per table and task straight into the temporary RUN_DIR, as the parse stage
writes its outcomes (parse_stage.StagedFile: a retried task replaces its file whole); the only
thing that goes back through Spark is a row count per table and task.

Before this pass the same tables took six Spark jobs after the timeline (two window shuffles for
heartbeat gaps and offset commits, the replay's applyInArrow persisted and read four times, the
ownership windows and joins); BENCHMARKS.md, ingest, sixth session.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from pipeline import schemas

GROUP_TABLES = ("heartbeat_gaps", "offset_commits", "generations", "memberships", "ownership", "findings")
REPLAY_TABLES = ("generations", "memberships", "ownership", "findings")
COUNT_DDL = "table string, rows bigint"
# rows of one table buffered in a worker before they are written as a row group
FLUSH_ROWS = 50_000

_MODULES: dict[str, Any] = {}


def _module(name: str) -> Any:
    mod = _MODULES.get(name)
    if mod is None:
        mod = _MODULES[name] = importlib.import_module(name)
    return mod


def _coerced(row: dict[str, Any], fields: list[tuple[str, str]]) -> dict[str, Any]:
    from pipeline.spark.replay_stage import _coerced as coerced

    return coerced(row, fields)


def to_arrow(table: str, rows: list[dict[str, Any]]) -> Any:
    """Rows -> a pyarrow Table of the schema's columns and types (values coerced as
    replay_stage.replay_output does when they are not the schema's types already)."""
    import pyarrow as pa

    schema = schemas.arrow_schema(table)
    try:
        return pa.Table.from_pylist(rows, schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError, ValueError):
        fields = schemas.TABLES[table]
        return pa.Table.from_pylist([_coerced(r, fields) for r in rows], schema=schema)


class GroupWriters:
    """One task's Parquet files, one per table, under `run_dir/<table>/`."""

    def __init__(self, run_dir: str, part: int, attempt: int) -> None:
        from pipeline.spark.parse_stage import StagedFile

        self.files = {t: StagedFile(os.path.join(run_dir, t), part, attempt, schemas.arrow_schema(t))
                      for t in GROUP_TABLES}
        self.pending: dict[str, list[dict[str, Any]]] = {t: [] for t in GROUP_TABLES}
        self.counts = dict.fromkeys(GROUP_TABLES, 0)

    def add(self, table: str, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        buf = self.pending[table]
        buf.extend(rows)
        self.counts[table] += len(rows)
        if len(buf) >= FLUSH_ROWS:
            self.flush(table)

    def flush(self, table: str) -> None:
        buf = self.pending[table]
        if buf:
            for b in to_arrow(table, buf).to_batches():
                self.files[table].write(b)
            buf.clear()

    def close(self) -> None:
        for t in GROUP_TABLES:
            self.flush(t)
            self.files[t].close()


def group_rows(table: Any, replay_module: str | None) -> dict[str, list[dict[str, Any]]]:
    """Every per-group table of one group's timeline (a pyarrow Table of events rows)."""
    from pipeline.group_tables import GROUP_COLUMNS, group_tables
    from pipeline.spark.replay_stage import shows_own_assignments

    rep: dict[str, list[dict[str, Any]]] = {t: [] for t in REPLAY_TABLES}
    if replay_module is not None:
        rep = dict(_module(replay_module).replay_group_rows(table))
        if shows_own_assignments(table):
            rep["ownership"] = []     # the consumers' own intervals (observed) are the table
    cols = table.select([c for c in GROUP_COLUMNS if c in table.schema.names]).to_pydict()
    mine = group_tables(cols, rep.get("memberships") or [])
    out = {t: list(rep.get(t) or []) for t in REPLAY_TABLES}
    out["heartbeat_gaps"] = mine["heartbeat_gaps"]
    out["offset_commits"] = mine["offset_commits"]
    out["ownership"] = mine["ownership"] + out["ownership"]
    return out


def group_runs(batches: Any) -> Any:
    """Sorted record batches -> one pyarrow Table per run of equal group_id."""
    import pyarrow as pa

    current, parts = None, []
    for b in batches:
        if b.num_rows == 0:
            continue
        gids = b.column(b.schema.get_field_index("group_id")).to_pylist()
        start = 0
        for i in range(1, len(gids) + 1):
            if i == len(gids) or gids[i] != gids[start]:
                if gids[start] != current and parts:
                    yield pa.Table.from_batches(parts)
                    parts = []
                current = gids[start]
                parts.append(b.slice(start, i - start))
                start = i
    if parts:
        yield pa.Table.from_batches(parts)


def run(timeline: DataFrame, run_dir: str, replay_module: str | None) -> dict[str, int]:
    """Write GROUP_TABLES into `run_dir` (a local directory every executor can write, as the
    parse stage's); returns the rows written per table. Events without a group take no part
    (as before: every table is per group)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    for t in GROUP_TABLES:
        os.makedirs(os.path.join(run_dir, t), exist_ok=True)

    def task(batches):
        from pyspark import TaskContext

        from pipeline.spark import worker_gc

        ctx = TaskContext.get()
        writers = GroupWriters(run_dir, ctx.partitionId(), ctx.attemptNumber())
        with worker_gc.paused() as tidy:
            for table in group_runs(batches):
                for t, rows in group_rows(table, replay_module).items():
                    writers.add(t, rows)
                tidy()
            writers.close()
        yield pa.RecordBatch.from_pydict({"table": list(writers.counts), "rows": list(writers.counts.values())},
                                         schema=pa.schema([("table", pa.string()), ("rows", pa.int64())]))

    n = int(timeline.sparkSession.conf.get("spark.sql.shuffle.partitions"))
    grouped = timeline.where(F.col("group_id").isNotNull()).repartition(n, "group_id").sortWithinPartitions("group_id")
    counts = dict.fromkeys(GROUP_TABLES, 0)
    for r in grouped.mapInArrow(task, COUNT_DDL).collect():
        counts[r["table"]] += int(r["rows"])
    for t in GROUP_TABLES:
        folder = os.path.join(run_dir, t)
        for f in os.listdir(folder):     # what a failed attempt left under its hidden name
            if f.startswith("."):
                os.remove(os.path.join(folder, f))
        # a table no task wrote (no group, or no rows) is one empty file with the schema
        if not any(f.endswith(".parquet") and not f.startswith(".") for f in os.listdir(folder)):
            pq.write_table(schemas.arrow_schema(t).empty_table(), os.path.join(folder, "part-00000.parquet"))
    return counts
