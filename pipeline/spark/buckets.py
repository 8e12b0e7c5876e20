"""The parse stage's outcomes staged by group bucket, and a bucket's rows read back: pure pyarrow.

The per-group pass (group_pass.run_staged) needs every row of a group in one task. Instead of
reading the staged Parquet through Spark and shuffling it by group on the JVM, each parse task
writes its rows in row groups that each hold one bucket (`bucket_of`: a stable hash of group_id,
the same in every process), and the pass's task for bucket b reads bucket b's row groups of every
staged file itself (`bucket_groups`): no Spark scan, no shuffle, no sort on the JVM, no row
through the JVM. Which row group holds which bucket is recorded in each file's key-value
metadata (BUCKETS_KEY: a JSON list, one bucket per row group).

Nothing here imports pyspark: the hash, the writer and the reader are tested without a JVM.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Callable, Iterator
from typing import Any

BUCKETS_KEY = b"coordscope.row_group_buckets"
# rows of one bucket buffered in a parse task before they are written as one row group, and of
# all buckets together (a bound on the task's memory when there are many buckets)
FLUSH_ROWS = 32_768
PENDING_MAX = 131_072
NULL_BUCKET = 0     # events of no group
COMBINE_MAX_ROWS = 65_536
# columns whose values are (nearly) all different: no Parquet dictionary (the writer would hash
# every value until its dictionary page is full, then write them plain anyway); measured at 1 GB,
# 0.03-0.19 CPU-s less per GB of writing, same values read back
UNIQUE_COLUMNS = frozenset({"raw", "series_raw", "line_no", "ts_ms", "offset"})
# text columns no reader of the staged files filters on (Spark's reads filter on status, group_id
# and ts_ms; the per-group pass picks row groups by BUCKETS_KEY): written without min/max
# statistics, which compared every long text (callgrind: 44 -> 35 M instructions of min/max per
# 44,352 events staged, ~0.2% of the parse stage; smaller footers), the same values read back
NO_STATISTICS_COLUMNS = frozenset({"raw", "series_raw", "extra_json", "series_extra_json", "why"})
# `raw` and `extra_json` staged a second time in the width the series tables read
# (`series_narrowed`): what a split group's series task reads instead of the whole texts
SERIES_STAGED = {"raw": "series_raw", "extra_json": "series_extra_json"}


def bucket_of(group_id: str | None, n: int) -> int:
    """The bucket of a group among n: crc32 of its UTF-8 bytes mod n (not Python's hash(), which
    is salted per process); events of no group go to NULL_BUCKET."""
    if group_id is None or n <= 1:
        return NULL_BUCKET
    return zlib.crc32(group_id.encode("utf-8")) % n


def bucket_column(groups: Any, n: int) -> Any:
    """The bucket of every row (a numpy int array) of a group_id column (pyarrow Array or
    ChunkedArray): the hash is computed once per distinct group, not per row."""
    import numpy as np
    import pyarrow as pa

    if isinstance(groups, pa.ChunkedArray):
        groups = groups.combine_chunks()
    enc = groups.dictionary_encode()
    per_value = np.array([bucket_of(v, n) for v in enc.dictionary.to_pylist()] + [NULL_BUCKET], dtype=np.int64)
    idx = enc.indices.fill_null(len(enc.dictionary)).to_numpy(zero_copy_only=False)
    return per_value[idx]


def series_narrowed(table: Any) -> tuple[Any, Any]:
    """`raw` and `extra_json` of a table or record batch of events rows in the width the series
    tables read (group_tables.SERIES_COLUMNS): `raw` only on the kinds whose wording they read,
    `extra_json` only on client_config lines and heartbeat lines printed late, elsewhere cut to
    the line's origin (group_tables.origin_only) or null.
    What the series tables return is the same as from the whole texts."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from pipeline import group_tables as gt

    kind = table.column("kind")

    def kinds(values: Any) -> Any:
        return pc.fill_null(pc.is_in(kind, value_set=pa.array(sorted(values), pa.string())), False)

    raw, ex = table.column("raw"), table.column("extra_json")
    # the markers are looked for in each distinct extra_json once (a log's few rules and levels
    # repeat them: the search over every row's text was 0.19 CPU-s per GB, 80% of this function)
    enc = (ex.combine_chunks() if isinstance(ex, pa.ChunkedArray) else ex).dictionary_encode()
    marked = pc.and_(pc.match_substring(enc.dictionary, gt.PRINTED_LATE_MARKERS[0]),
                     pc.match_substring(enc.dictionary, gt.PRINTED_LATE_MARKERS[1]))
    late = pc.and_(kinds(gt.HEARTBEAT_KINDS), pc.fill_null(marked.take(enc.indices), False))
    # elsewhere only the line's origin, if it names one (group_tables.ORIGIN_KEY: the client stream)
    named = pc.fill_null(pc.match_substring(enc.dictionary, gt.ORIGIN_KEY), False)
    if pc.any(named).as_py():
        only = pa.array([gt.origin_only(t) if hit else None for t, hit in zip(
            enc.dictionary.to_pylist(), named.to_pylist(), strict=True)], pa.string())
        rest = only.take(enc.indices)
    else:
        rest = pa.nulls(len(ex), pa.string())
    return (pc.if_else(kinds(gt.SERIES_RAW_KINDS), raw, pa.nulls(len(raw), raw.type)),
            pc.if_else(pc.or_(kinds(gt.SERIES_EXTRA_KINDS), late), ex, rest.cast(ex.type)))


def staged_schema(outcome_schema: Any) -> Any:
    """The staged files' schema: the parse outcomes and the SERIES_STAGED columns."""
    import pyarrow as pa

    return outcome_schema.append(pa.field(SERIES_STAGED["raw"], pa.string())).append(
        pa.field(SERIES_STAGED["extra_json"], pa.string()))


class BucketedFile:
    """One parse task's event rows in `staged_dir/part-NNNNN.parquet`, each row group holding the
    rows of one bucket (recorded in the footer, BUCKETS_KEY).

    Rows are buffered per bucket and written as a row group when a bucket holds FLUSH_ROWS (or
    all buckets PENDING_MAX), and at close. Written under a hidden temporary name and renamed at
    close, so a retried task replaces the file whole (readers skip names starting with a dot)."""

    def __init__(self, staged_dir: str, part: int, attempt: int, schema: Any, buckets: int) -> None:
        self.final = os.path.join(staged_dir, f"part-{part:05d}.parquet")
        self.tmp = os.path.join(staged_dir, f".part-{part:05d}.attempt-{attempt}.parquet")
        self.schema = schema
        self.n = max(1, buckets)
        self.pending: dict[int, list[Any]] = {}
        self.pending_rows: dict[int, int] = {}
        self.total = 0
        self.row_group_buckets: list[int] = []
        self.writer: Any = None

    def write(self, batch: Any) -> None:
        import numpy as np
        import pyarrow as pa

        if not batch.num_rows:
            return
        if SERIES_STAGED["raw"] in self.schema.names and SERIES_STAGED["raw"] not in batch.schema.names:
            raw, extra = series_narrowed(batch)
            batch = pa.RecordBatch.from_arrays([*batch.columns, raw, extra], schema=self.schema)
        b = bucket_column(batch.column(batch.schema.get_field_index("group_id")), self.n)
        if self.n == 1 or (b == b[0]).all():
            self._add(int(b[0]), batch)
        else:
            order = np.argsort(b, kind="stable")
            ordered = batch.take(pa.array(order))
            sb = b[order]
            cuts = np.flatnonzero(sb[1:] != sb[:-1]) + 1
            for lo, hi in zip([0, *cuts.tolist()], [*cuts.tolist(), len(sb)], strict=True):
                self._add(int(sb[lo]), ordered.slice(lo, hi - lo))
        if self.total >= PENDING_MAX:
            for k in list(self.pending):
                self._flush(k)

    def _add(self, bucket: int, batch: Any) -> None:
        self.pending.setdefault(bucket, []).append(batch)
        self.pending_rows[bucket] = self.pending_rows.get(bucket, 0) + batch.num_rows
        self.total += batch.num_rows
        if self.pending_rows[bucket] >= FLUSH_ROWS:
            self._flush(bucket)

    def _flush(self, bucket: int) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        batches = self.pending.pop(bucket, None)
        if not batches:
            return
        rows = self.pending_rows.pop(bucket)
        self.total -= rows
        if self.writer is None:
            self.writer = pq.ParquetWriter(
                self.tmp, self.schema, compression="snappy",
                use_dictionary=[n for n in self.schema.names if n not in UNIQUE_COLUMNS],
                write_statistics=[n for n in self.schema.names if n not in NO_STATISTICS_COLUMNS])
        # one row group per flush: row_group_size covers every row of it
        self.writer.write_table(pa.Table.from_batches(batches, self.schema), row_group_size=rows)
        self.row_group_buckets.append(bucket)

    def close(self) -> None:
        for k in sorted(self.pending):
            self._flush(k)
        if self.writer is not None:
            self.writer.add_key_value_metadata({BUCKETS_KEY.decode(): json.dumps(self.row_group_buckets)})
            self.writer.close()
            os.replace(self.tmp, self.final)


def staged_files(staged_dir: str) -> list[str]:
    """The staged files in name order (what a failed attempt left under a hidden name excluded)."""
    return sorted(os.path.join(staged_dir, f) for f in os.listdir(staged_dir)
                  if f.endswith(".parquet") and not f.startswith((".", "_")))


def row_groups_of(meta: Any, bucket: int) -> list[int]:
    """The row groups of a staged file (its pyarrow FileMetaData) that hold `bucket`."""
    kv = meta.metadata or {}
    raw = kv.get(BUCKETS_KEY)
    if raw is None:
        raise ValueError(f"staged file has no {BUCKETS_KEY.decode()} metadata")
    buckets = json.loads(raw)
    if len(buckets) != meta.num_row_groups:
        raise ValueError(f"staged file lists {len(buckets)} buckets for {meta.num_row_groups} row groups")
    return [i for i, b in enumerate(buckets) if b == bucket]


def in_scope(table: Any, group: str | None, since_ms: int | None, until_ms: int | None,
             only_groups: frozenset[str] | None = None) -> Any:
    """The rows of `table` in the job's scope: --group (rows of no group out), --since/--until
    (events without a time stay in), and when given only the rows of `only_groups`."""
    import pyarrow as pa
    import pyarrow.compute as pc

    keep = None

    def both(a: Any, b: Any) -> Any:
        return b if a is None else pc.and_(a, b)

    if group is not None:
        keep = both(keep, pc.fill_null(pc.equal(table.column("group_id"), group), False))
    if only_groups is not None:
        keep = both(keep, pc.fill_null(pc.is_in(table.column("group_id"),
                                                value_set=pa.array(sorted(only_groups), pa.string())), False))
    for bound, cmp in ((since_ms, pc.greater_equal), (until_ms, pc.less)):
        if bound is not None:
            ts = table.column("ts_ms")
            keep = both(keep, pc.or_(pc.is_null(ts), pc.fill_null(cmp(ts, bound), False)))
    return table if keep is None else table.filter(keep)


def numbered(table: Any, offsets: list[int]) -> Any:
    """Split-relative line numbers made exact: line_no + the lines of the file in its earlier
    splits (`offsets[split_no]`, lines.line_offsets; split numbers beyond it get 0)."""
    import numpy as np
    import pyarrow as pa

    if not table.num_rows:
        return table
    off = np.asarray(list(offsets) or [0], dtype=np.int64)
    split = table.column("split_no").to_numpy().astype(np.int64)
    add = np.where(split < len(off), off[np.minimum(split, len(off) - 1)], 0)
    line = table.column("line_no").to_numpy().astype(np.int64) + add
    i = table.schema.get_field_index("line_no")
    return table.set_column(i, table.schema.field(i), pa.array(line, table.schema.field(i).type))


def decoded(table: Any) -> Any:
    """`table` (a pyarrow Table) with its dictionary-encoded columns as plain columns of their
    value type: the same values, row for row (a table without any is returned as is)."""
    import pyarrow as pa

    for i, f in enumerate(table.schema):
        if pa.types.is_dictionary(f.type):
            table = table.set_column(i, pa.field(f.name, f.type.value_type, f.nullable),
                                     table.column(i).cast(f.type.value_type))
    return table


def dictionary_columns(schema: Any, columns: list[str]) -> list[str]:
    """The columns of `columns` read as dictionaries when asked (`bucket_groups`): the string
    columns the staged files hold dictionary-encoded (not UNIQUE_COLUMNS), but group_id (which the
    rows are sorted and cut by)."""
    import pyarrow as pa

    names = set(schema.names)
    return [c for c in columns if c in names and c != "group_id" and c not in UNIQUE_COLUMNS
            and c not in SERIES_STAGED.values() and pa.types.is_string(schema.field(c).type)]


def bucket_groups(files: list[str], bucket: int, columns: list[str], offsets: list[int],
                  group: str | None = None, since_ms: int | None = None, until_ms: int | None = None,
                  only_groups: frozenset[str] | None = None,
                  transform: Callable[[Any], Any] | None = None,
                  dictionaries: bool = False) -> Iterator[tuple[str | None, Any]]:
    """(group_id, its rows as a pyarrow Table of `columns`) for every group of `bucket` in the
    staged `files`, in scope and with exact line numbers; groups in order (no group first), the
    rows of a group in file order and, within a file, in the order staged (a stable sort: the same
    every run). `transform`, when given, is applied to each file's rows as read (the selected
    columns and group_id): e.g. to rename the SERIES_STAGED columns.

    Memory: each file's rows of the bucket are read, filtered and cut by group one file at a time
    (the unsorted read is freed before the next file): the bucket's rows once, plus one file's.
    Each group's rows are a take of their own (not slices of one sorted copy of the file), and
    nothing here keeps a reference to a group once it is yielded: a group's rows are freed when
    the consumer drops them (the per-group pass frees a hot group's columns during its replay).

    With `dictionaries`, the repetitive string columns (`dictionary_columns`: source, kind,
    client_id, member_id, extra_json...) are read as Arrow dictionaries, as the files store them,
    instead of one string per row: a group of more than COMBINE_MAX_ROWS rows is yielded so (its
    consumer must decode what it reads: `decoded`), a smaller one decoded (plain columns, as
    without). bench-hot's 330,528 rows: 194 MB of Arrow as strings, 106 as dictionaries."""
    read_cols = list(dict.fromkeys([*columns, "group_id", "line_no", "split_no"]
                                   + (["ts_ms"] if since_ms is not None or until_ms is not None else [])))
    parts: dict[str | None, list[Any]] = {}
    for path in files:
        for gid, rows in _file_groups(path, bucket, columns, read_cols, offsets, group, since_ms, until_ms,
                                      only_groups, transform, dictionaries):
            parts.setdefault(gid, []).append(rows)
    for gid in sorted(parts, key=lambda g: (g is not None, g or "")):
        yield gid, _joined(parts.pop(gid))


def _file_groups(path: str, bucket: int, columns: list[str], read_cols: list[str], offsets: list[int],
                 group: str | None, since_ms: int | None, until_ms: int | None,
                 only_groups: frozenset[str] | None, transform: Callable[[Any], Any] | None,
                 dictionaries: bool = False) -> list[tuple[Any, Any]]:
    """(group_id, rows) of one staged file's rows of `bucket`, a table per group in staged order."""
    import numpy as np
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    if dictionaries:
        meta = pq.read_metadata(path)
        f = pq.ParquetFile(path, metadata=meta,
                           read_dictionary=dictionary_columns(meta.schema.to_arrow_schema(), read_cols))
    else:
        f = pq.ParquetFile(path)
    rgs = row_groups_of(f.metadata, bucket)
    if not rgs:
        return []
    t = in_scope(f.read_row_groups(rgs, columns=read_cols), group, since_ms, until_ms, only_groups)
    if not t.num_rows:
        return []
    if "line_no" in columns:
        t = numbered(t, offsets)
    t = t.select(columns if "group_id" in columns else [*columns, "group_id"])
    if transform is not None:
        t = transform(t)
    out_cols = [c for c in t.schema.names if c != "group_id" or "group_id" in columns]
    gids = t.column("group_id")
    if gids.null_count in (0, t.num_rows) and pc.count_distinct(gids).as_py() <= 1:    # one group
        return [(gids[0].as_py(), t.select(out_cols))]
    # (stable: rows of one group keep their staged order)
    order = pc.sort_indices(t, sort_keys=[("group_id", "ascending", "at_start")]).to_numpy()
    enc = gids.combine_chunks().dictionary_encode()
    codes = enc.indices.fill_null(-1).to_numpy(zero_copy_only=False)[order]
    names = enc.dictionary.to_pylist()
    cuts = (np.flatnonzero(codes[1:] != codes[:-1]) + 1).tolist()
    rows = t.select(out_cols).combine_chunks()     # contiguous: a take on chunks would join them per take
    del t, gids
    return [(None if codes[lo] < 0 else names[codes[lo]], rows.take(order[lo:hi]))
            for lo, hi in zip([0, *cuts], [*cuts, len(codes)], strict=True)]


def _joined(tabs: list[Any]) -> Any:
    """One group's tables (one per staged file) as one."""
    import pyarrow as pa

    if len(tabs) == 1 and not any(pa.types.is_dictionary(f.type) for f in tabs[0].schema):
        return tabs.pop()
    t = pa.concat_tables(tabs) if len(tabs) > 1 else tabs.pop()
    tabs.clear()
    # a small group is one slice per staged file: made contiguous (a bounded copy), the
    # per-group code pays no per-chunk cost (about 7% of its CPU measured at 1 GB), and plain
    # (its dictionaries decoded); a big group's chunks are large already and are not copied
    return decoded(t).combine_chunks() if t.num_rows <= COMBINE_MAX_ROWS else t
