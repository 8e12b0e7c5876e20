"""Parsing candidate lines with the `parsers` package on the Python workers.

The scan's rows (one per file split: its line count and its candidate lines in line order, see
lines.py) go to `mapInArrow` as they are, in the same Spark stage that reads them: no shuffle, no
sort, and no candidate line is materialised on the JVM before Python parses it. Each split is
handed to `parsers.parse_lines(source, lines, fmt)` with the file's FileFormat (sniffed on the
driver, broadcast). Arrow batches in, Arrow batches out, column by column: no pandas, no per-row
dicts (measured: the grouped pandas UDF this replaced spent ten times the parser's own time on
conversions). The parsers module is imported once per Python worker process and kept in a
module-level cache (its Lark parsers are built on first use and then reused).

Output: one row per outcome that carries an Event (parsed or unparsed), with `line_no` relative
to its split (index + 1; lines.line_offsets makes it exact), and one `split` row per split with
its counts (lines, candidates, parsed, ignored, unparsed lines) and why reading stopped early:
the ignored candidates (continuation lines of a record, blank lines) exist only as counts.

The event rows are staged by the workers themselves: each task writes them with pyarrow to one
Parquet file in the staging directory, one row group per group bucket (`buckets.BucketedFile`: the
per-group pass's tasks read their bucket's row groups back themselves), and only the split rows go back to Spark,
which hands them to the driver. Measured at 1 GB on local[2]: handing the 366,696 event rows to
the JVM (Arrow to rows, then Spark's Parquet writer) made the stage 4.2 s longer than parsing
alone, with a cold JVM running that code for the first time; pyarrow writes them in a fraction
of a second.
"""

from __future__ import annotations

import importlib
import json
import os
from collections import Counter
from collections.abc import Iterator
from operator import itemgetter
from typing import Any

from pyspark.sql import DataFrame

from parsers.events import Event
from pipeline import schemas
from pipeline.spark import worker_gc
from pipeline.spark.buckets import BucketedFile, staged_schema

EVENT_COLUMNS = schemas.columns("events")
SPLIT_COUNTS = ("n_lines", "n_cands", "n_parsed", "n_ignored", "n_unparsed")
SPLIT = "split"     # the status of a split's summary row
OUTCOME_FIELDS: list[tuple[str, str]] = [
    ("spath", "string"), ("split_no", "int"), ("block", "bigint"), ("status", "string"), ("why", "string"), ("layout", "string"),
    ("logger", "string"), ("shape", "string"), ("has_event", "boolean"),
] + schemas.TABLES["events"] + [(c, "bigint") for c in SPLIT_COUNTS]
OUTCOME_DDL = ", ".join(f"`{n}` {t}" for n, t in OUTCOME_FIELDS)
OUTCOME_NAMES = [n for n, _ in OUTCOME_FIELDS]
# what the parse stage hands back to Spark: one row per split
SPLIT_FIELDS: list[tuple[str, str]] = [("spath", "string"), ("split_no", "int"), ("block", "bigint"),
                                       ("why", "string")] + [(c, "bigint") for c in SPLIT_COUNTS]
SPLIT_DDL = ", ".join(f"`{n}` {t}" for n, t in SPLIT_FIELDS)
# Event attributes converted column by column (`extra` apart: it becomes extra_json)
_STRUCT_FIELDS = [c for c in EVENT_COLUMNS if c != "extra_json"]
_STATUS = itemgetter(1)             # LineOutcome.status
BATCH_ROWS = 8192
# per input file, as sniffed on the driver: (source as given, FileFormat.kind, .layout, .wrappers)
FormatInfo = tuple[str, str, str, tuple[str, ...]]

_MODULES: dict[str, Any] = {}   # one imported parsers module per Python worker process


def parsers_module(name: str = "parsers") -> Any:
    mod = _MODULES.get(name)
    if mod is None:
        mod = _MODULES[name] = importlib.import_module(name)
    return mod


class OutcomeColumns:
    """Outcomes gathered split by split and turned into Arrow record batches column by column.

    Per split only the outcomes that carry an Event are kept (the parser's own LineOutcome
    tuples, no new object per line); the others are counted. A batch reads the events' fields one
    list comprehension per field and has pyarrow convert each list with its schema type
    (`_event_columns`), serialises each distinct `extra` once, and repeats the per-split constants
    in C (`pa.repeat`)."""

    def __init__(self) -> None:
        self.chunks: list[tuple[str, int, str, list[Any]]] = []   # (spath, split_no, layout, outcomes)
        self.splits: list[tuple] = []       # (spath, split_no, block, problem, counts...)
        self.n = 0
        self._json: dict[tuple, str] = {}   # equal `extra` dicts (most of a log's) serialise once

    def add_outcomes(self, spath: str, split_no: int, layout: str, outcomes: list[Any]) -> None:
        """LineOutcome-shaped tuples (line_no, status, event, why), each with an event."""
        if outcomes:
            self.chunks.append((spath, split_no, layout, outcomes))
            self.n += len(outcomes)

    def end_split(self, spath: str, split_no: int, block: int, n_lines: int, n_cands: int,
                  counts: dict[str, int], problem: str | None) -> None:
        self.splits.append((spath, split_no, block, problem, n_lines, n_cands, counts.get("parsed", 0),
                            counts.get("ignored", 0), counts.get("unparsed", 0)))
        self.n += 1

    def _extra_json_array(self, extras: list[dict[str, Any] | None]) -> Any:
        """extra_json of every event as an Arrow string array: json.dumps once per distinct `extra`
        (most of a log's lines share their rule, level and logger), each distinct text converted
        once per batch and the rows made by `take` (in C). The memo key holds the keys, the values
        and the values' types (True == 1 == 1.0 as values, but their JSON differs)."""
        import pyarrow as pa

        memo = self._json
        texts: list[str | None] = [None]        # index 0: no extra (null)
        local: dict[tuple, int] = {}            # this batch's distinct extras -> index in texts
        get = local.get
        idx: list[int] = []
        add = idx.append
        for x in extras:
            if not x:
                add(0)
                continue
            vals = x.values()
            try:
                key = (*x, *vals, *map(type, vals))
                i = get(key)
            except TypeError:           # unhashable values (lists, nested dicts): no memo
                add(len(texts))
                texts.append(json.dumps(x, sort_keys=True, default=str))
                continue
            if i is None:
                text = memo.get(key)
                if text is None:
                    if len(memo) >= 50_000:
                        memo.clear()
                    text = memo[key] = json.dumps(x, sort_keys=True, default=str)
                i = local[key] = len(texts)
                texts.append(text)
            add(i)
        return pa.array(texts, pa.string()).take(pa.array(idx, pa.int32()))

    def batches(self, schema: Any) -> tuple[Any, Any]:
        """(event rows, split rows): two record batches of `schema`, each built column by column,
        a column that is all nulls on one side (the split counts of an event row, the event fields
        of a split row, layout/logger/shape when no line is unparsed) made by `pa.nulls`."""
        chunks, self.chunks = self.chunks, []
        splits, self.splits = self.splits, []
        self.n = 0
        return self._event_batch(chunks, schema), self._split_batch(splits, schema)

    def _event_batch(self, chunks: list[tuple[str, int, str, list[Any]]], schema: Any) -> Any:
        import pyarrow as pa

        ocs = [oc for c in chunks for oc in c[3]]
        evs = [oc[2] for oc in ocs]
        n = len(ocs)
        arrays: dict[str, Any] = {}
        # per-split constants: one array per split, repeated in C
        for name, i in (("spath", 0), ("split_no", 1)):
            typ = schema.field(name).type
            arrays[name] = pa.concat_arrays([pa.repeat(pa.scalar(c[i], typ), len(c[3])) for c in chunks]
                                            or [pa.array([], typ)])
        status = [oc[1] for oc in ocs]
        arrays["status"] = pa.array(status, pa.string())
        arrays["why"] = pa.array([oc[3] for oc in ocs], pa.string())
        arrays["has_event"] = pa.repeat(pa.scalar(True, pa.bool_()), n)
        extras = [e.extra for e in evs]
        arrays["extra_json"] = self._extra_json_array(extras)
        # layout, logger and shape are columns of the unparsed table only
        if "unparsed" in status:
            unparsed = [st == "unparsed" for st in status]
            layout_of = [lay for c in chunks for lay in [c[2]] * len(c[3])]
            arrays["layout"] = pa.array([lay if u else None for lay, u in zip(layout_of, unparsed, strict=True)],
                                        schema.field("layout").type)
            for key in ("logger", "shape"):
                arrays[key] = pa.array([x.get(key) if u and x else None for x, u in zip(extras, unparsed, strict=True)],
                                       schema.field(key).type)
        arrays.update(_event_columns(evs, schema))
        return pa.RecordBatch.from_arrays(
            [arrays[nm] if nm in arrays else pa.nulls(n, schema.field(nm).type) for nm in OUTCOME_NAMES], schema=schema)

    def _split_batch(self, splits: list[tuple], schema: Any) -> Any:
        import pyarrow as pa

        m = len(splits)
        cols: dict[str, Any] = {"spath": [t[0] for t in splits], "split_no": [t[1] for t in splits],
                                "block": [t[2] for t in splits], "why": [t[3] for t in splits],
                                "status": [SPLIT] * m, "has_event": [False] * m}
        for i, c in enumerate(SPLIT_COUNTS):
            cols[c] = [t[4 + i] for t in splits]
        return pa.RecordBatch.from_arrays(
            [pa.array(cols[nm], type=schema.field(nm).type) if nm in cols else pa.nulls(m, schema.field(nm).type)
             for nm in OUTCOME_NAMES], schema=schema)


def _field_lists_of(fields: list[str]) -> Any:
    """A function evs -> one list per field of `fields` (in that order), each made by one list
    comprehension `[e.f for e in evs]` (a slot read the interpreter specialises): generated from
    the field names, as parsers/fast_event.py builds its constructors."""
    for f in fields:
        if not f.isidentifier():
            raise ValueError(f"not a field name: {f!r}")
    src = "def field_lists(evs):\n    return (" + "".join(f"[e.{f} for e in evs], " for f in fields) + ")\n"
    ns: dict[str, Any] = {}
    exec(src, ns)  # noqa: S102 - generated from schema column names only
    return ns["field_lists"]


_FIELD_LISTS = _field_lists_of(_STRUCT_FIELDS)


def _event_columns(evs: list[Event], schema: Any) -> dict[str, Any]:
    """The Event fields of `evs` (all but `extra`) as Arrow arrays, by column name.

    One list per field (`_FIELD_LISTS`), each converted by `pa.array` with the schema's type,
    instead of one attrgetter tuple per event converted as a struct array: with the extra_json
    change, the batch conversion 19.6k -> 18.7k instructions per event at 1 GB (callgrind), 7-15%
    less CPU alternated in one process (BENCHMARKS.md, arrowrows). A `partitions` list pyarrow
    refuses as it is (e.g. a partition that is not a string) is converted with str() on every
    partition."""
    import pyarrow as pa

    cols: dict[str, Any] = {}
    for name, values in zip(_STRUCT_FIELDS, _FIELD_LISTS(evs), strict=True):
        typ = schema.field(name).type
        try:
            cols[name] = pa.array(values, type=typ)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            if name != "partitions":
                raise
            cols[name] = pa.array([None if p is None else list(map(str, p)) for p in values], type=typ)
    return cols


def parse_unit(out: OutcomeColumns, spath: str, split_no: int, rows: Any, fmt_info: FormatInfo,
               mod: Any, max_chars: int, pairs: list[tuple[int, str]] | None = None,
               gaps: dict[int, int] | None = None) -> dict[str, int]:
    """Add the outcomes of one split; returns its counts per status. rows: (line_no, text,
    chars) in line order; `pairs`, when the caller knows no line is longer than max_chars: the
    (line_no, text) pairs themselves (rows is then not read). `gaps`: the scanner's gap codes by
    line number (parsers.drop_gaps.filter_with_gaps), None when it gave none.

    Never raises for bad input: overlong lines and parser exceptions become `unparsed` outcomes
    with a reason, so every candidate line gets exactly one outcome.
    """
    source, kind, layout, wrappers = fmt_info
    fmt = mod.FileFormat(kind, layout, tuple(wrappers))
    side = _side_for(kind)
    kept: list[Any] = []
    counts: Counter = Counter()

    def unparsed(line_no: int, text: str, why: str) -> None:
        kept.append((line_no, "unparsed", Event(source, line_no, side, "unparsed", text), why))  # type: ignore[arg-type]
        counts["unparsed"] += 1

    pending: list[tuple[int, str]] = []
    if pairs is not None:
        pending = pairs
    else:
        for line_no, text, chars in rows:
            if chars > max_chars:
                unparsed(line_no, text, f"overlong line: {chars} characters (limit {max_chars}); text cut")
            else:
                pending.append((line_no, text))
    i = 0
    while i < len(pending):
        ocs: list[Any] = []
        try:
            lines = iter(pending[i:]) if i else iter(pending)
            ocs.extend(mod.parse_lines(source, lines, fmt) if gaps is None else
                       mod.parse_lines(source, lines, fmt, gaps=gaps))
        except Exception as exc:  # a parser bug must not lose the line or kill the job
            if i + len(ocs) < len(pending):    # the line it failed on: unparsed, and go on after it
                line_no, text = pending[i + len(ocs)]
                unparsed(line_no, text, f"parser error: {type(exc).__name__}: {str(exc)[:200]}")
                i += 1
        i += len(ocs)
        counts.update(map(_STATUS, ocs))
        kept += [oc for oc in ocs if oc[2] is not None]
    out.add_outcomes(spath, split_no, layout, kept)
    return counts


def _side_for(kind: str) -> str | None:
    """Side of a line we reject ourselves (the parser sets it for the lines it sees)."""
    return {"offsets_dump": "offsets", "groups_describe": "describe"}.get(kind)


def parse_batches(batches: Iterator[Any], formats: dict[str, FormatInfo], module_name: str,
                  max_chars: int) -> Iterator[Any]:
    """Arrow batches of split rows (split_no, spath, block, n_lines, problem, and the candidates
    packed: idx list<int64>, text string (the lines joined by `\n`), chars list<int32>; see
    lines.Scan) -> Arrow batches of outcomes (OUTCOME_FIELDS), a `split` row closing each split."""
    for events, splits in parse_batch_pairs(batches, formats, module_name, max_chars):
        yield events
        yield splits


def parse_batch_pairs(batches: Iterator[Any], formats: dict[str, FormatInfo], module_name: str,
                      max_chars: int) -> Iterator[tuple[Any, Any]]:
    """`parse_batches` as (event rows, split rows) pairs of batches."""
    import pyarrow as pa
    import pyarrow.compute as pc

    schema = schemas.arrow_schema_of(OUTCOME_FIELDS)
    mod = parsers_module(module_name)
    out = OutcomeColumns()
    with worker_gc.paused() as tidy:
        for b in batches:
            spaths, split_nos, blocks, n_lines, problems = (
                b.column(n).to_pylist() for n in ("spath", "split_no", "block", "n_lines", "problem"))
            idx = b.column("idx")
            offsets = idx.offsets.to_pylist()
            base = offsets[0]
            # every split's candidates back to back (a list array's values may start past 0)
            idx_col = idx.values.slice(base, offsets[-1] - base)
            chars_list = b.column("chars")
            chars_col = chars_list.values.slice(chars_list.offsets[0].as_py(), offsets[-1] - base)
            texts = b.column("text").to_pylist()          # one str per split: one decode, no object per line
            # the scanner's gap codes (bytes per split, files with an origin rule only; else None)
            gap_bytes = b.column("gaps").to_pylist() if "gaps" in b.schema.names else None
            line_nos = pc.add(idx_col, 1).to_pylist()      # 1-based within the split
            over = pc.greater(chars_col, max_chars)
            # per split: whether a line is overlong (rare); the others go to the parser as pairs
            over_in = pc.cumulative_sum(over.cast(pa.int64())).to_pylist() if over.true_count else None
            chars = chars_col.to_pylist() if over_in is not None else None
            for r, spath in enumerate(spaths):
                lo, hi = offsets[r] - base, offsets[r + 1] - base
                fmt_info = formats.get(spath) or (spath, "log", "bare", ())
                gb = gap_bytes[r] if gap_bytes is not None else None
                # (codes that are not GAP_NONE, by line number)
                gaps = ({line_nos[lo + k]: c for k, c in enumerate(gb) if c} if gb is not None and len(gb) == hi - lo
                        else None)
                if hi > lo and blocks[r] == 0 and line_nos[lo] == 1 and texts[r].startswith("\ufeff"):
                    # a UTF-8 byte order mark Spark's text source kept (the rlike fallback; the
                    # scanner skips it): off, as `parse` reads the file (reader._encoding)
                    texts[r] = texts[r][1:]
                if hi <= lo:
                    counts = {}
                elif over_in is None or over_in[hi - 1] == (over_in[lo - 1] if lo else 0):
                    pairs = list(zip(line_nos[lo:hi], _split_text(texts[r], hi - lo), strict=True))
                    counts = parse_unit(out, spath, split_nos[r], None, fmt_info, mod, max_chars, pairs=pairs, gaps=gaps)
                else:
                    rows = zip(line_nos[lo:hi], _split_text(texts[r], hi - lo), chars[lo:hi], strict=True)  # type: ignore[index]
                    counts = parse_unit(out, spath, split_nos[r], rows, fmt_info, mod, max_chars, gaps=gaps)
                out.end_split(spath, split_nos[r], blocks[r], n_lines[r], hi - lo, counts, problems[r])
                if out.n >= BATCH_ROWS:
                    yield out.batches(schema)
                    tidy()
        if out.n:
            yield out.batches(schema)


def _split_text(text: str | None, n: int) -> list[str]:
    """A split's `n` candidate lines from their `\n`-joined text. A line holds no \n (the scan
    ends lines there), so the pieces are the lines; a count that differs would shift every line
    number after it, so it stops the task instead."""
    values = (text or "").split("\n")
    if len(values) != n:
        raise ValueError(f"the scan returned {n} candidate lines but {len(values)} texts")
    return values


class StagedFile:
    """One task's event rows, written with pyarrow to `staged_dir/part-NNNNN.parquet`.

    Written under a hidden temporary name and renamed when the task's input is done, so a
    retried or speculative attempt of the same task replaces the file whole (Spark's Parquet
    reader skips names that start with a dot): no row is staged twice and none half-written."""

    def __init__(self, staged_dir: str, part: int, attempt: int, schema: Any) -> None:
        self.final = os.path.join(staged_dir, f"part-{part:05d}.parquet")
        self.tmp = os.path.join(staged_dir, f".part-{part:05d}.attempt-{attempt}.parquet")
        self.schema = schema
        self.writer: Any = None

    def write(self, batch: Any) -> None:
        import pyarrow.parquet as pq

        if batch.num_rows:
            if self.writer is None:
                self.writer = pq.ParquetWriter(self.tmp, self.schema, compression="snappy")
            self.writer.write_batch(batch)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            os.replace(self.tmp, self.final)


def stage_batches(batches: Iterator[Any], formats: dict[str, FormatInfo], module_name: str,
                  max_chars: int, staged: StagedFile | BucketedFile) -> Iterator[Any]:
    """`parse_batches`, with the event rows written to `staged` and the split rows (SPLIT_FIELDS)
    yielded."""
    split_names = [n for n, _ in SPLIT_FIELDS]
    for events, splits in parse_batch_pairs(batches, formats, module_name, max_chars):
        staged.write(events)
        yield splits.select(split_names)
    staged.close()


def parse_splits(split_rows: DataFrame, formats: dict[str, FormatInfo], staged_dir: str,
                 module_name: str = "parsers", max_chars: int = 64 * 1024, buckets: int = 1) -> DataFrame:
    """split rows (lines.Scan.rows) -> one row per split (SPLIT_DDL); the event outcomes
    (OUTCOME_DDL rows with has_event) are written as Parquet into `staged_dir`, a directory every
    executor can write (on one machine any local path), one file per task, each row group holding
    the rows of one of `buckets` group buckets (buckets.BucketedFile: what the per-group pass's
    tasks read back without Spark).

    formats: spark path -> (source as given, FileFormat.kind, .layout, .wrappers); one entry per
    input file (bounded by the number of files), broadcast to the workers.
    """
    bc = split_rows.sparkSession.sparkContext.broadcast(formats)

    def run(batches):
        from pyspark import TaskContext

        ctx = TaskContext.get()
        staged = BucketedFile(staged_dir, ctx.partitionId(), ctx.attemptNumber(),
                              staged_schema(schemas.arrow_schema_of(OUTCOME_FIELDS)), buckets)
        yield from stage_batches(batches, bc.value, module_name, max_chars, staged)

    return split_rows.mapInArrow(run, SPLIT_DDL)
