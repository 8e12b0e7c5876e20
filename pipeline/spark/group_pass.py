"""One pass over the timeline per group: every per-group table computed and written by the workers.

The ingest's pass (`run_staged`) is one Spark job of a task per group bucket: the parse stage
staged its outcomes in row groups by bucket (buckets.BucketedFile), and task b reads bucket b's
rows of every staged file itself with pyarrow (buckets.bucket_groups: scope applied, exact line
numbers, grouped by a stable sort), so no row goes through the JVM: no Spark scan, no shuffle, no
sort there. Each task walks its rows group by group: for each group the replay
(`replay_group_rows`: generations, memberships, findings, inferred ownership), the observed
ownership (unnamed owners named from the replay's memberships), the timeline's facts and, in the
first pass, the `events` table. When copies or clock skew are found, the pass runs again with
each group's rows corrected in its task (pipeline.timeline_corrections).

Heartbeat gaps and offset history (`group_series.series_tables`, the high-volume per-member
series) are computed by the same task, except for the groups holding a large share of the rows
(`split_groups`, from the ingest's count of the staged rows per group): each of those gets a
task of its own in the same job, reading only that group's rows in the width those tables read
(`series_width`), so that one group holding most of the events keeps two cores busy, not one.

`run` is the same pass over a DataFrame shuffled by group (`repartition(group_id)` +
`sortWithinPartitions`, the split groups' series from a narrow second shuffle): what the ingest
ran before the ninth session, kept for the rare Spark fallback of the corrected timeline (clock
offsets on 10,000 anchors or more) and as the tests' twin of `run_staged`.

The rows are written with pyarrow as one Parquet file per table and task straight into the
temporary RUN_DIR, as the parse stage writes its outcomes (parse_stage.StagedFile: a retried task
replaces its file whole); the only thing that goes back through Spark is a row count per table
and task, and the timeline's facts.

Before this pass the same tables took six Spark jobs after the timeline (two window shuffles for
heartbeat gaps and offset commits, the replay's applyInArrow persisted and read four times, the
ownership windows and joins); BENCHMARKS.md, ingest, sixth session. With one task per group, a
group holding 90% of 1 GB left one core idle for most of the pass (seventh session: skew).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from pipeline import schemas

GROUP_TABLES = ("heartbeat_gaps", "offset_commits", "generations", "memberships", "ownership", "findings")
REPLAY_TABLES = ("generations", "memberships", "ownership", "findings")
COUNT_DDL = "table string, rows bigint"
SERIES_TABLES = ("heartbeat_gaps", "offset_commits")
# a group holding more than half of an even partition's share of the rows gets a second task
BIG_SHARE = 0.5
SAMPLE_FRACTION, SAMPLE_SEED = 0.01, 19
# rows of one table buffered in a worker before they are written as a row group
FLUSH_ROWS = 50_000
# the row groups of a big group's `events` (FLUSH_ROWS rows or more, written as they come): each is
# decoded and encoded whole, so it sets the write's transient memory (50,000 rows: +62 MB on
# bench-hot's replay task, 16,384: about +30; BENCHMARKS.md, fourteenth session, hotmem2)
BIG_EVENTS_ROWS = 16_384

_MODULES: dict[str, Any] = {}


def trim_heap() -> None:
    """Give glibc's free heap pages back to the system now (`malloc_trim`).

    glibc serves a block from its heap once a larger mmapped block was freed (its mmap threshold
    rises with each such free, up to 32 MB), and the parquet reader's threads leave free pages in
    their arenas: freed Arrow buffers of a big group stay resident, reused only by blocks of their
    size (Python's small objects live in arenas of their own). Called after a big group's rows
    are read and written and once the replay has freed them: bench-hot's replay task peaked at
    377-430 MB above the process without it, 317-323 with it (BENCHMARKS.md, tenth session,
    hotworker). Fixing the mmap threshold instead (mallopt) saved another 10-20 MB there but cost
    the balanced input's pass about 1 CPU-s of page faults: not done. No-op without glibc."""
    import ctypes

    try:
        ctypes.CDLL(None).malloc_trim(ctypes.c_size_t(0))
    except (OSError, AttributeError):
        pass


@contextmanager
def arrow_pool_apart() -> Iterator[None]:
    """Arrow's allocations of a per-group pass task from jemalloc, apart from the glibc heap that
    Python's own large blocks (lists, dicts, numpy arrays) come from; the process's default pool
    (the system allocator: pipeline/arrow_pool.py) is put back after the task.

    Why: with both in glibc's heap, what reading a big group's Parquet and writing its rows free
    stays as holes among the replay's Python blocks: bench-hot's replay task held 93-158 MB of
    free heap at its peak, which malloc_trim cannot give back while blocks above are live.
    jemalloc keeps Arrow's pages apart and gives freed ones back by itself (Arrow's decay: 1 s).
    Measured in-process (benchmarks/group_pass_memory.py, bench-hot's replay task): peak 457 ->
    389 MB, CPU unchanged. Without jemalloc in this pyarrow build: the default pool, as before."""
    import pyarrow as pa

    try:
        pool = pa.jemalloc_memory_pool()
    except (NotImplementedError, pa.ArrowNotImplementedError, AttributeError):
        yield
        return
    before = pa.default_memory_pool()
    pa.set_memory_pool(pool)
    try:
        yield
    finally:
        pa.set_memory_pool(before)


def _module(name: str) -> Any:
    mod = _MODULES.get(name)
    if mod is None:
        mod = _MODULES[name] = importlib.import_module(name)
    return mod


def _coerced(row: dict[str, Any], fields: list[tuple[str, str]]) -> dict[str, Any]:
    from pipeline.spark.replay_stage import _coerced as coerced

    return coerced(row, fields)


def to_arrow(table: str, rows: Any) -> Any:
    """Rows (dicts, or a pyarrow Table already) -> a pyarrow Table of the schema's columns and
    types (values coerced by replay_stage._coerced when they are not the schema's types already)."""
    import pyarrow as pa

    schema = schemas.arrow_schema(table)
    if isinstance(rows, pa.Table):
        return rows if rows.schema.equals(schema) else rows.select(schema.names).cast(schema)
    try:
        return pa.Table.from_pylist(rows, schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError, ValueError):
        fields = schemas.TABLES[table]
        return pa.Table.from_pylist([_coerced(r, fields) for r in rows], schema=schema)


class GroupWriters:
    """One task's Parquet files, one per table, under `run_dir/<table>/`."""

    def __init__(self, run_dir: str, part: int, attempt: int, tables: tuple[str, ...] = GROUP_TABLES) -> None:
        from pipeline.spark.parse_stage import StagedFile

        self.files = {t: StagedFile(os.path.join(run_dir, t), part, attempt, schemas.arrow_schema(t))
                      for t in tables}
        self.pending: dict[str, list[dict[str, Any]]] = {t: [] for t in tables}
        self.pending_arrow: dict[str, list[Any]] = {t: [] for t in tables}   # tables given as pyarrow Tables
        self.pending_rows = dict.fromkeys(tables, 0)
        self.counts = dict.fromkeys(tables, 0)
        self.arrow: list[Any] = []      # events slices waiting for a row group of FLUSH_ROWS
        self.arrow_rows = 0

    def add_events(self, table: Any) -> None:
        """Rows of the events table as they came (a pyarrow Table), cast to the schema's types.

        Small groups are buffered into row groups of FLUSH_ROWS; a group of FLUSH_ROWS rows or more
        is written at once, BIG_EVENTS_ROWS rows at a time: a copy of one row group at a time, never
        of the whole group (a hot group's copy was as large as its rows: 189 MB for bench-hot), and
        nothing of it stays buffered (a slice would keep the group's buffers alive). Dictionary
        columns are written as their plain values (the schema's types)."""
        if table.num_rows == 0:
            return
        schema = schemas.arrow_schema("events")
        rows = table.select(schemas.columns("events"))
        self.counts["events"] += table.num_rows
        if table.num_rows < FLUSH_ROWS:
            self.arrow.append(rows.cast(schema))
            self.arrow_rows += table.num_rows
            if self.arrow_rows >= FLUSH_ROWS:
                self.flush_events()
            return
        self.flush_events()       # what was buffered goes first: the rows keep their order
        # cast a slice at a time: a big group's dictionary columns (buckets.bucket_groups) are
        # decoded one row group at a time, never whole
        for start in range(0, rows.num_rows, BIG_EVENTS_ROWS):
            self._write_events(rows.slice(start, BIG_EVENTS_ROWS).cast(schema))

    def flush_events(self) -> None:
        import pyarrow as pa

        if self.arrow:
            self._write_events(pa.concat_tables(self.arrow))
            self.arrow, self.arrow_rows = [], 0

    def _write_events(self, rows: Any) -> None:
        """At most FLUSH_ROWS rows as one row group (their chunks combined: a bounded copy)."""
        for b in rows.combine_chunks().to_batches(max_chunksize=FLUSH_ROWS):
            self.files["events"].write(b)

    def add(self, table: str, rows: Any) -> None:
        """Rows of a table: a list of dicts, or a pyarrow Table."""
        n = rows.num_rows if hasattr(rows, "num_rows") else len(rows)
        if not n:
            return
        if hasattr(rows, "num_rows"):
            self.pending_arrow[table].append(to_arrow(table, rows))
        else:
            self.pending[table].extend(rows)
        self.counts[table] += n
        self.pending_rows[table] += n
        if self.pending_rows[table] >= FLUSH_ROWS:
            self.flush(table)

    def flush(self, table: str) -> None:
        import pyarrow as pa

        buf, tabs = self.pending[table], self.pending_arrow[table]
        if buf:
            tabs.append(to_arrow(table, buf))
        if tabs:
            for b in pa.concat_tables(tabs).combine_chunks().to_batches(max_chunksize=FLUSH_ROWS):
                self.files[table].write(b)
        buf.clear()
        tabs.clear()
        self.pending_rows[table] = 0

    def close(self) -> None:
        if "events" in self.files:
            self.flush_events()
        for t in self.files:
            if t != "events":
                self.flush(t)
            self.files[t].close()


def replay_unit_rows(table: Any, replay_module: str | None,
                     left_out: frozenset[tuple[Any, Any, Any]] | None = None,
                     origin: Any = None) -> dict[str, list[dict[str, Any]]]:
    """The replay unit's tables of one group's timeline (a pyarrow Table of events rows, or a
    replay_rules.event_rows.Handover of one): generations, memberships, findings, and ownership
    (the observed intervals, with the replay's inferred ones when the consumers show none of their
    own). The replay makes the ownership table through `final` and computes the double_ownership
    and unowned_partitions findings of its intervals (replay_group's ownership_final), so that the
    findings and the table never disagree (docs/replay.md, *One ownership*); a replay module
    without REPLAY_ROWS_TAKE_OWNERSHIP gets the table made of its rows after it returns. Given a Handover, the rows are freed as the replay goes (all but `raw` once its Events
    are built), so what ownership reads of them is taken first. String columns may be Arrow
    dictionaries (buckets.bucket_groups: a big group's): Arrow's comparisons read them as their
    values, the rows ownership reads are decoded, the replay decodes a record batch at a time.
    `left_out`: the client streams none of the tables reads (group_series.left_out_streams of the
    rows, when not given); `origin`: group_series.origins of the rows' extra_json, when the caller
    has it (else read here)."""
    import pyarrow.compute as pc

    from pipeline import group_tables as gt
    from pipeline.group_series import left_out_streams, origins, without_left_out
    from pipeline.replay_rules.event_rows import Handover
    from pipeline.spark.buckets import decoded
    from pipeline.spark.replay_stage import shows_own_assignments

    handed = isinstance(table, Handover)
    if handed:
        table = table.take()
    if left_out is None:
        left_out = left_out_streams(table)
    # the lines of a stream the replay leaves out (several consumers under one client id, no origin
    # to tell them apart: group_tables.left_out_streams) are read by none of the tables; the replay
    # is given them all (it proves the mix again and says so in a finding)
    # (a narrow copy: what shows_own_assignments and the stream keys read)
    kept = without_left_out(table.select([c for c in ("side", "kind", "ts_ms", "partitions", "client_id", "source",
                                                      "extra_json") if c in table.schema.names]), left_out)
    own_intervals = shows_own_assignments(kept)
    # only the rows group_tables.ownership looks at become Python rows (after the replay: a copy
    # in Arrow until then, freed with the rest)
    kinds = list(gt.OWNERSHIP_START | gt.OWNERSHIP_END | gt.MEMBER_END)
    useful = pc.and_(pc.and_(pc.equal(table.column("side"), "client"), pc.is_valid(table.column("ts_ms"))),
                     pc.or_(pc.or_(pc.is_valid(table.column("member_id")), pc.is_valid(table.column("generation"))),
                            pc.is_in(table.column("kind"), value_set=_string_array(kinds))))
    keep = pc.fill_null(useful, False)
    mine = table.select([c for c in gt.OWNERSHIP_COLUMNS if c != "origin"]).filter(keep)
    origin_of = origins if origin is None else _given_origins(origin)
    mine = mine.append_column("origin", origin_of(table.column("extra_json"), keep))
    # each client stream's timed lines: where an owner's log stops showing it (group_tables.ownership)
    lives = gt.streams_lines(table, origin_of)
    leaves = gt.broker_leaves(table)
    del useful, kept, origin_of, origin

    def final(replayed: list[dict[str, Any]], memberships: list[dict[str, Any]],
              findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The run's ownership table: the consumers' own intervals, with the replay's inferred ones
        beside them, and their ends (group_tables)."""
        unresolved: list[tuple[dict[str, Any], int, str]] = []
        observed = gt.observed_ownership(decoded(mine).to_pydict(), memberships or [], left_out, lives, unresolved)
        # beside the consumers' own intervals, the replay's inferred ones of members none of whose own
        # intervals the logs show (group_tables.inferred_beside); without any own interval, the replay's
        inferred = gt.inferred_beside(observed, replayed) if own_intervals else list(replayed)
        # an own interval held at its log's end that an inferred one follows ends at its owner's last
        # line; an owner removed on session expiry owned until its last heartbeat (group_tables)
        gt.ends_at_last_line_before(unresolved, inferred)
        rows = observed + inferred
        gt.ends_at_last_heartbeat(rows, findings, unresolved)
        # a member's own line of its end printed after the coordinator's line of its LeaveGroup, while
        # another member already holds the partition: the coordinator's line ends it (group_tables)
        gt.ends_at_leave(rows, leaves)
        return rows

    rep: dict[str, list[dict[str, Any]]] = {t: [] for t in REPLAY_TABLES}
    judged = False
    if replay_module is not None:
        mod = _module(replay_module)
        # a big group's freed rows given back to the system (for every group, the trims' page
        # faults cost the balanced 1 GB's pass 0.7 CPU-s)
        freed = trim_heap if table.num_rows >= FLUSH_ROWS else None
        arg = (Handover(table, freed) if handed and getattr(mod, "REPLAY_ROWS_TAKE_HANDOVER", False)
               else table)
        del table
        if getattr(mod, "REPLAY_ROWS_TAKE_OWNERSHIP", False):
            # the replay makes the ownership table through `final` and gives the findings of its
            # intervals: a finding and the table beside it never disagree (docs/replay.md, One ownership)
            rep, judged = dict(mod.replay_group_rows(arg, ownership_final=final)), True
        else:
            rep = dict(mod.replay_group_rows(arg))
        del arg
    else:
        del table
    out = {t: list(rep.get(t) or []) for t in REPLAY_TABLES}
    if not judged:
        out["ownership"] = final(out["ownership"], rep.get("memberships") or [], out["findings"])
    return out


def _given_origins(origin: Any) -> Any:
    """group_series.origins of a group's extra_json, read already: `origin`, of the rows `rows`."""
    def origins_of(_extra_json: Any, rows: Any = None) -> Any:
        return origin if rows is None else origin.filter(rows)
    return origins_of


def series_unit_rows(table: Any, left_out: frozenset[tuple[Any, Any, Any]] | None = None) -> dict[str, Any]:
    """The series unit's tables of one group's rows: heartbeat_gaps and offset_commits, as pyarrow
    Tables (computed column-wise: no Python row per event; string columns may be dictionaries),
    without the lines of the streams the replay leaves out (`left_out`, else found in the rows:
    a split group's series task proves them on its own rows, as its replay task does)."""
    from pipeline import group_series

    return group_series.series_tables(table, left_out)


def group_rows(table: Any, replay_module: str | None) -> dict[str, Any]:
    """Every per-group table of one group's timeline (both units on the same rows)."""
    from pipeline.group_series import left_out_streams

    left_out = left_out_streams(table)
    out = replay_unit_rows(table, replay_module, left_out)
    out.update(series_unit_rows(table, left_out))
    return out


def _string_array(values: list[str]) -> Any:
    import pyarrow as pa

    return pa.array(values, pa.string())


def group_runs(batches: Any, keys: tuple[str, ...] = ("group_id",)) -> Any:
    """Sorted record batches -> one pyarrow Table per run of equal `keys` values."""
    import pyarrow as pa

    current: Any = None
    parts: list[Any] = []
    for b in batches:
        if b.num_rows == 0:
            continue
        cols = [b.column(b.schema.get_field_index(k)).to_pylist() for k in keys]
        vals = list(zip(*cols, strict=True)) if len(cols) > 1 else cols[0]
        start = 0
        for i in range(1, len(vals) + 1):
            if i == len(vals) or vals[i] != vals[start]:
                if vals[start] != current and parts:
                    yield pa.Table.from_batches(parts)
                    parts = []
                current = vals[start]
                parts.append(b.slice(start, i - start))
                start = i
    if parts:
        yield pa.Table.from_batches(parts)


def split_groups(counts: dict[str, int], n: int) -> list[str]:
    """The groups worth two tasks: more than BIG_SHARE of an even partition's share (1 / n) of the
    rows `counts` holds per group. With one partition there is nothing to spread."""
    if n < 2:
        return []
    total = sum(counts.values())
    return sorted(g for g, c in counts.items() if g is not None and c > total * BIG_SHARE / n)


def big_groups(source: DataFrame, n: int, counts: dict[str, int] | None = None) -> list[str]:
    """`split_groups` of the rows per group: from `counts` when the caller has them (the ingest
    counts the parse stage's staged rows: no Spark job), else estimated from a SAMPLE_FRACTION
    sample of the group column (a Spark job; the seed makes it the same every run). Only the
    split groups' rows are shipped twice; every other group is one task's, as before."""
    if n < 2:
        return []
    if counts is None:
        rows = (source.select("group_id").where(F.col("group_id").isNotNull())
                .sample(fraction=SAMPLE_FRACTION, seed=SAMPLE_SEED).groupBy("group_id").count().collect())
        counts = {r["group_id"]: int(r["count"]) for r in rows}
    return split_groups({g: c for g, c in counts.items() if g is not None}, n)


def _series_rows(source: DataFrame, split: list[str]) -> DataFrame:
    """The rows of the `split` groups in the width the series tables read
    (group_tables.SERIES_COLUMNS; `raw` and `extra_json` only on the kinds whose wording or
    settings they read): a narrow copy, read from the columns it needs and shuffled on its own."""
    from pipeline import group_tables as gt

    cols = []
    for c in gt.SERIES_COLUMNS:
        if c == "raw":
            cols.append(F.when(F.col("kind").isin(*gt.SERIES_RAW_KINDS), F.col(c)).alias(c))
        elif c == "extra_json":
            # heartbeat lines keep theirs when it marks them printed late (group_tables.printed_late)
            late = (F.col("kind").isin(*gt.HEARTBEAT_KINDS) & F.col(c).contains(gt.PRINTED_LATE_MARKERS[0])
                    & F.col(c).contains(gt.PRINTED_LATE_MARKERS[1]))
            # elsewhere only the line's origin (group_tables.origin_only: the client stream)
            origin = F.get_json_object(F.col(c), "$.origin")
            cols.append(F.when(F.col("kind").isin(*gt.SERIES_EXTRA_KINDS) | late, F.col(c))
                        .when(F.col(c).contains(gt.ORIGIN_KEY) & origin.isNotNull(),
                              F.to_json(F.struct(origin.alias("origin")))).alias(c))
        else:
            cols.append(F.col(c))
    return source.where(F.col("group_id").isin(*split)).select(*cols)


RESULT_DDL = "what string, table string, rows bigint, source string, first_source string, diff bigint, line_no bigint, sure boolean"


class Result:
    """What a pass returns to the driver: rows written per table, and (when asked) the timeline's
    facts: shared-line counts (source, first_source, lines), summed over the tasks, and clock
    anchors (pipeline.timeline_facts)."""

    def __init__(self) -> None:
        self.counts = dict.fromkeys(GROUP_TABLES, 0)
        self.shared: list[tuple[str, str, int]] = []
        self.diffs: list[tuple[str, int, int, bool]] = []   # timeline_facts.anchor_diffs
        self.backs: list[tuple[str, int, int]] = []         # timeline_facts.back_jumps
        self.split: list[str] = []      # the groups whose series unit had its own task


def _result_batch(counts, shared, diffs, backs=()) -> Any:
    import pyarrow as pa

    shared = list(shared.items())     # ((source, first_source), lines)
    n_c, n_s, n_d, n_b = len(counts), len(shared), len(diffs), len(backs)
    return pa.RecordBatch.from_pydict({
        "what": ["count"] * n_c + ["shared"] * n_s + ["anchor"] * n_d + ["back"] * n_b,
        "table": list(counts) + [None] * (n_s + n_d + n_b),
        "rows": list(counts.values()) + [n for _, n in shared] + [None] * (n_d + n_b),
        "source": [None] * n_c + [k[0] for k, _ in shared] + [a[0] for a in diffs] + [b[0] for b in backs],
        "first_source": [None] * n_c + [k[1] for k, _ in shared] + [None] * (n_d + n_b),
        "diff": [None] * (n_c + n_s) + [a[1] for a in diffs] + [b[2] for b in backs],
        "line_no": [None] * (n_c + n_s) + [a[2] for a in diffs] + [b[1] for b in backs],
        "sure": [None] * (n_c + n_s) + [a[3] for a in diffs] + [None] * n_b,
    }, schema=pa.schema([("what", pa.string()), ("table", pa.string()), ("rows", pa.int64()),
                         ("source", pa.string()), ("first_source", pa.string()), ("diff", pa.int64()),
                         ("line_no", pa.int64()), ("sure", pa.bool_())]))


def _prepare(run_dir: str, tables: tuple[str, ...]) -> None:
    for t in tables:
        folder = os.path.join(run_dir, t)
        if os.path.isdir(folder):      # a second pass (after copies or skew were found) replaces the first
            for f in os.listdir(folder):
                os.remove(os.path.join(folder, f))
        os.makedirs(folder, exist_ok=True)


def _finish(run_dir: str, tables: tuple[str, ...]) -> None:
    import pyarrow.parquet as pq

    for t in tables:
        folder = os.path.join(run_dir, t)
        for f in os.listdir(folder):     # what a failed attempt left under its hidden name
            if f.startswith("."):
                os.remove(os.path.join(folder, f))
        # a table no task wrote (no group, or no rows) is one empty file with the schema
        if not any(f.endswith(".parquet") for f in os.listdir(folder)):
            pq.write_table(schemas.arrow_schema(t).empty_table(), os.path.join(folder, "part-00000.parquet"))


def _collect(results: DataFrame, tables: tuple[str, ...], split: list[str]) -> Result:
    from collections import Counter

    out = Result()
    out.counts, out.split = dict.fromkeys(tables, 0), split
    shared: Counter = Counter()
    for r in results.collect():
        if r["what"] == "count":
            out.counts[str(r["table"])] += int(r["rows"] or 0)
        elif r["what"] == "shared":
            shared[(r["source"], r["first_source"])] += int(r["rows"] or 0)
        elif r["what"] == "back":
            out.backs.append((r["source"], int(r["line_no"] or 0), int(r["diff"] or 0)))
        else:
            out.diffs.append((r["source"], int(r["diff"] or 0), int(r["line_no"] or 0), bool(r["sure"])))
    # summed over the tasks: a file whose groups several tasks hold is judged on all its lines
    # (replay_stage.copies_from_counts compares each pair's lines with the file's total)
    out.shared = sorted((src, first, n) for (src, first), n in shared.items())
    return out


def replay_units(groups: Any, writers: GroupWriters, replay_module: str | None, timeline_facts: bool,
                 write_events: bool, split_set: frozenset[str]) -> Any:
    """The replay unit of every (group_id, rows) of `groups` (and the series of the groups not in
    `split_set`) written by `writers`; returns the task's result batch (rows written per table,
    and with `timeline_facts` the facts counted)."""
    from collections import Counter

    from pipeline import timeline_facts as facts_mod
    from pipeline.group_series import Columns, left_out_streams, origins
    from pipeline.replay_rules.event_rows import Handover
    from pipeline.spark import worker_gc

    facts_columns = facts_mod.FACT_COLUMNS
    trim_heap()     # what the worker's earlier tasks (the parse stage's) left free in glibc's heap
    shared: Counter = Counter()
    diffs: list[tuple[str, int, int, bool]] = []
    backs: list[tuple[str, int, int]] = []
    with arrow_pool_apart(), worker_gc.paused() as tidy:
        for gid, table in groups:
            if write_events:
                writers.add_events(table)
            # the lines' origins, read from extra_json once for the facts, the left-out streams, the
            # series and the ownership (each read them on its own: five times per group); a big
            # group's are read by each as before, so that no copy of them lives through its replay
            origin = (origins(table.column("extra_json"))
                      if table.num_rows < FLUSH_ROWS and "extra_json" in table.schema.names else None)
            if timeline_facts:
                # column-wise: no list per column, and a big group's dictionaries as they are (decoding
                # bench-hot's source and kind took 26 MB, the hot task's peak: fourteenth session)
                counts, anchors = facts_mod.table_facts(table.select(list(facts_columns)))
                shared.update(counts)
                diffs.extend(anchors)
                backs.extend(facts_mod.table_backs(table.select(["source", "line_no", "ts_ms", "extra_json"]), origin))
            if table.num_rows >= FLUSH_ROWS:
                trim_heap()      # a big group: what reading and writing its rows left free goes back
            if gid is None:
                continue
            # the series first (one task for the whole group), then the rows handed to the replay,
            # which frees them as it goes: nothing here keeps a reference
            # the columns the left-out streams are proven on serve the series too (one Columns)
            cols = Columns(table, origin)
            left_out = left_out_streams(cols)
            series = series_unit_rows(cols, left_out) if gid not in split_set else {}
            handed = Handover(table)
            del table, cols
            out = replay_unit_rows(handed, replay_module, left_out, origin)
            del origin
            out.update(series)
            for t, rows in out.items():
                writers.add(t, rows)
            del out, series, handed
            tidy()
        writers.close()
    return _result_batch(writers.counts, shared, diffs, backs)


def series_units(groups: Any, writers: GroupWriters) -> Any:
    """The series unit of every (group_id, rows) of `groups`; returns the task's result batch."""
    from pipeline.spark import worker_gc

    trim_heap()     # as replay_units
    with arrow_pool_apart(), worker_gc.paused() as tidy:
        for _gid, table in groups:
            for t, rows in series_unit_rows(table).items():
                writers.add(t, rows)
            del table
            tidy()
        writers.close()
    return _result_batch(writers.counts, {}, [])


def _keyed(tables: Any) -> Any:
    """group_runs' tables -> (group_id, table)."""
    for t in tables:
        yield t.column("group_id")[0].as_py(), t


def run(events: DataFrame, run_dir: str, replay_module: str | None, timeline_facts: bool = True,
        write_events: bool = False, split: list[str] | None = None,
        group_counts: dict[str, int] | None = None) -> Result:
    """Write GROUP_TABLES into `run_dir` (a local directory every executor can write, as the
    parse stage's) from one shuffle of `events` by group. Events without a group feed no table
    (as before: every table is per group) but, with `timeline_facts`, count in the facts; with
    `write_events` the `events` table itself is written too, every row as it came. `split`: the
    groups whose series unit gets its own task (default: `big_groups`, from `group_counts`, the rows
    per group of `events`, when given). The ingest's first pass reads the staged outcomes itself
    (`run_staged`); this one serves the second pass (a corrected timeline) and tests."""
    tables = GROUP_TABLES + (("events",) if write_events else ())
    _prepare(run_dir, tables)

    def task(batches):
        """The replay unit of every group of the task (and the series of the groups not split)."""
        from pyspark import TaskContext

        ctx = TaskContext.get()
        writers = GroupWriters(run_dir, ctx.partitionId(), ctx.attemptNumber(), tables)
        yield replay_units(_keyed(group_runs(batches)), writers, replay_module, timeline_facts, write_events,
                           split_set)

    def series_task(batches):
        """The series unit of the split groups of the task."""
        from pyspark import TaskContext

        ctx = TaskContext.get()
        writers = GroupWriters(run_dir, ctx.partitionId(), ctx.attemptNumber(), SERIES_TABLES)
        yield series_units(_keyed(group_runs(batches)), writers)

    n = int(events.sparkSession.conf.get("spark.sql.shuffle.partitions") or 4)
    source = events if (timeline_facts or write_events) else events.where(F.col("group_id").isNotNull())
    split = big_groups(source, n, group_counts) if split is None else sorted(split)
    split_set = frozenset(split)
    results = source.repartition(n, "group_id").sortWithinPartitions("group_id").mapInArrow(task, RESULT_DDL)
    if split:
        # the split groups' series: their own shuffle and tasks (in the same job: the union's
        # tasks after the replay units' are these), so a big group's series run beside its replay
        series = _series_rows(source, split).repartition(n, "group_id").sortWithinPartitions("group_id")
        results = results.unionByName(series.mapInArrow(series_task, RESULT_DDL))
    out = _collect(results, tables, split)
    _finish(run_dir, tables)
    return out


@dataclass(frozen=True)
class Staged:
    """The parse stage's staged outcomes as the first pass reads them: the files (in name order),
    the number of group buckets they were written with, and the line offset of every split
    (lines.line_offsets, indexed by split_no)."""
    files: list[str]
    buckets: int
    offsets: list[int]


@dataclass(frozen=True)
class Scope:
    group: str | None = None
    since_ms: int | None = None
    until_ms: int | None = None


@dataclass(frozen=True)
class Correction:
    """The timeline's corrections (pipeline.timeline_corrections): (copy, original) file pairs and
    per-file clock offsets (ms), and the files whose clock was stepped while they logged:
    (source, offset until the first step, steps) (pipeline.timeline_facts.clock_steps)."""
    copies: frozenset[tuple[str, str]] = frozenset()
    offsets: tuple[tuple[str, int], ...] = ()
    steps: tuple[tuple[str, int, tuple[Any, ...]], ...] = ()


def series_width(table: Any) -> Any:
    """A group's rows in the width the series tables read (as `_series_rows`,
    buckets.series_narrowed); what the series tables return is the same as from the whole rows."""
    from pipeline.spark.buckets import series_narrowed

    raw, extra = series_narrowed(table)
    for name, col in (("raw", raw), ("extra_json", extra)):
        i = table.schema.get_field_index(name)
        table = table.set_column(i, table.schema.field(i), col)
    return table


def _from_staged_series(table: Any) -> Any:
    """The SERIES_STAGED columns under their events names."""
    from pipeline.spark.buckets import SERIES_STAGED

    back = {v: k for k, v in SERIES_STAGED.items()}
    return table.rename_columns([back.get(c, c) for c in table.schema.names])


def _corrected_groups(groups: Any, correction: Correction | None) -> Any:
    """(group_id, rows) with the timeline's corrections applied (rows of no group dropped: they
    feed no table)."""
    from pipeline import timeline_corrections as tc

    if correction is None:
        yield from groups
        return
    offsets = dict(correction.offsets)
    steps = {src: (first, st) for src, first, st in correction.steps}
    for gid, table in groups:
        if gid is not None:
            yield gid, tc.corrected(table, correction.copies, offsets, steps)


def anchors_only(groups: Any) -> Any:
    """The clock anchors of every (group_id, rows) of `groups` (timeline_facts), as a result batch."""
    from pipeline import timeline_facts as facts_mod

    diffs: list[tuple[str, int, int, bool]] = []
    backs: list[tuple[str, int, int]] = []
    for _gid, table in groups:
        diffs.extend(facts_mod.table_facts(table)[1])
        backs.extend(facts_mod.table_backs(table))
    return _result_batch({}, {}, diffs, backs)


def run_staged(spark: Any, staged: Staged, run_dir: str, replay_module: str | None, scope: Scope,
               group_counts: dict[str, int] | None = None, correction: Correction | None = None,
               split: list[str] | None = None, anchors: bool = False) -> Result:
    """A pass over the parse stage's staged outcomes without Spark's scan or shuffle: one Spark
    job of `staged.buckets` replay tasks (task b reads bucket b's row groups of every staged file
    with pyarrow: buckets.bucket_groups) and one series task per split group (`split`, default
    `split_groups` of `group_counts`, the rows per group in scope: a big group's series run beside
    its replay, reading only that group's rows in the series' columns).

    Without `correction` (the first pass) it writes GROUP_TABLES and `events` (the rows in scope,
    every row as staged, with exact line numbers) and counts the timeline's facts. With one (copies
    or skewed clocks were found) each group's rows are corrected first
    (pipeline.timeline_corrections) and GROUP_TABLES are written again; with `anchors` as well,
    nothing is written and only the clock anchors of the corrected rows come back (the offsets
    measured again after copies are dropped).

    The units' tasks start largest first (`unit_order`, by `group_counts`)."""
    from pipeline import group_tables as gt
    from pipeline.spark import buckets as bk

    first = correction is None
    tables = () if anchors else GROUP_TABLES + (("events",) if first else ())
    _prepare(run_dir, tables)
    n = max(1, staged.buckets)
    if split is None:
        split = split_groups({g: c for g, c in (group_counts or {}).items() if g is not None}, n)
    split = [] if anchors else sorted(split)
    event_cols = list(timeline_facts_columns()) if anchors else schemas.columns("events")
    # the series' columns: the narrow copies the parse stage staged (buckets.SERIES_STAGED), unless
    # copies must be found in the whole raw text first (then narrowed after the correction)
    whole = correction is not None and bool(correction.copies)
    series_cols = list(dict.fromkeys([
        c if whole else bk.SERIES_STAGED.get(c, c) for c in [*gt.SERIES_COLUMNS, "group_id"]]))
    files, offsets = list(staged.files), list(staged.offsets)
    split_set = frozenset(split)
    units = n + len(split)
    order = unit_order(n, split, group_counts)

    def task(batches):
        from pyspark import TaskContext

        attempt = TaskContext.get().attemptNumber()
        for b in batches:
            for i in b.column(0).to_pylist():
                unit = order[i]
                if unit < n:
                    # the first pass's big groups with their repetitive strings as dictionaries
                    # (replay_units decodes what each consumer reads, a piece at a time)
                    groups = _corrected_groups(bk.bucket_groups(
                        files, unit, event_cols, offsets, scope.group, scope.since_ms, scope.until_ms,
                        dictionaries=first and not anchors), correction)
                    if anchors:
                        yield anchors_only(groups)
                    else:
                        yield replay_units(groups, GroupWriters(run_dir, unit, attempt, tables), replay_module,
                                           first, first, split_set)
                else:
                    g = split[unit - n]
                    groups = _corrected_groups(bk.bucket_groups(
                        files, bk.bucket_of(g, n), series_cols, offsets, scope.group, scope.since_ms,
                        scope.until_ms, only_groups=frozenset([g]),
                        transform=None if whole else _from_staged_series, dictionaries=first), correction)
                    if whole:
                        groups = ((gid, series_width(t)) for gid, t in groups)
                    yield series_units(groups, GroupWriters(run_dir, unit, attempt, SERIES_TABLES))

    results = spark.range(0, units, 1, units).mapInArrow(task, RESULT_DDL)
    out = _collect(results, tables, split)
    _finish(run_dir, tables)
    return out


def unit_order(n: int, split: list[str], group_counts: dict[str, int] | None) -> list[int]:
    """The pass's units (buckets 0..n-1, then one series unit per `split` group) in the order their
    tasks should start, largest first by the rows per group in scope (`group_counts`; without
    them, in unit order): Spark starts a stage's tasks in partition order, and a large unit
    started last leaves the other cores idle while it runs (the last of 4 buckets on local[2],
    or a hot group's series unit, which came after every bucket). A split group's series unit
    counts its group's rows, its bucket the rows of its groups (the split one's included: its
    replay runs there)."""
    units = list(range(n + len(split)))
    if not group_counts:
        return units
    from pipeline.spark import buckets as bk

    rows = [0] * len(units)
    for g, c in group_counts.items():
        rows[bk.bucket_of(g, n)] += c
    for k, g in enumerate(split):
        rows[n + k] = group_counts.get(g, 0)
    return sorted(units, key=lambda u: (-rows[u], u))


def timeline_facts_columns() -> tuple[str, ...]:
    """What the anchors need of a group's rows (and what its copies are found by)."""
    from pipeline import timeline_facts as facts_mod

    return tuple(dict.fromkeys([*facts_mod.FACT_COLUMNS, "source", "raw", "ts_ms", "group_id"]))
