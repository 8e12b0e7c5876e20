"""Parsing candidate lines with the `parsers` package on the Python workers.

Candidate rows are hash-partitioned by (file, unit) and sorted by (file, unit, line number) inside
each partition; `mapInArrow` then streams each partition through one Python function, which hands
every (file, unit) run to `parsers.parse_lines(source, lines, fmt)` with the file's FileFormat
(sniffed on the driver, broadcast). Arrow batches in, Arrow batches out, column by column: no
pandas, no per-row dicts (measured: the grouped pandas UDF this replaces spent ten times the
parser's own time on conversions). The parsers module is imported once per Python worker process
and kept in a module-level cache (its Lark parsers are built on first use and then reused).

Output: one row per outcome (parsed / ignored / unparsed). Rows that carry an Event have the
`events` columns filled; continuation lines and ignored candidates carry only their status.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from typing import Any

from pyspark.sql import DataFrame

from pipeline import schemas

EVENT_COLUMNS = schemas.columns("events")
OUTCOME_FIELDS: list[tuple[str, str]] = [
    ("spath", "string"), ("status", "string"), ("why", "string"), ("layout", "string"),
    ("logger", "string"), ("shape", "string"), ("has_event", "boolean"),
] + schemas.TABLES["events"]
OUTCOME_DDL = ", ".join(f"`{n}` {t}" for n, t in OUTCOME_FIELDS)
OUTCOME_NAMES = [n for n, _ in OUTCOME_FIELDS]
# Event attributes copied as they are (extra -> extra_json and partitions are converted)
_PLAIN = [c for c in EVENT_COLUMNS if c not in ("extra_json", "partitions")]
BATCH_ROWS = 8192

_MODULES: dict[str, Any] = {}   # one imported parsers module per Python worker process


def parsers_module(name: str = "parsers") -> Any:
    mod = _MODULES.get(name)
    if mod is None:
        mod = _MODULES[name] = importlib.import_module(name)
    return mod


class OutcomeColumns:
    """Outcome rows gathered column by column, emitted as Arrow record batches."""

    def __init__(self) -> None:
        self.cols: dict[str, list[Any]] = {n: [] for n in OUTCOME_NAMES}
        self.n = 0

    def add(self, spath: str, status: str, why: str | None, layout: str, line_no: int, source: str,
            event: Any = None, rejected: bool = False, side: str | None = None) -> None:
        """One outcome; `rejected` marks a line this stage turned down itself (overlong, parser
        error): it still becomes an `unparsed` event row, with `side`."""
        c = self.cols
        c["spath"].append(spath)
        c["status"].append(status)
        c["why"].append(why)
        c["layout"].append(layout)
        c["line_no"].append(line_no)
        c["source"].append(source)
        c["has_event"].append(event is not None or rejected)
        if event is None:
            for name in OUTCOME_NAMES:
                if name not in ("spath", "status", "why", "layout", "line_no", "source", "has_event"):
                    c[name].append(None)
            if rejected:
                c["kind"][-1] = "unparsed"
                c["side"][-1] = side
            self.n += 1
            return
        extra = event.extra or {}
        for name in _PLAIN:
            if name not in ("line_no", "source"):
                c[name].append(getattr(event, name))
        parts = event.partitions
        c["partitions"].append(None if parts is None else [str(p) for p in parts])
        c["extra_json"].append(json.dumps(extra, sort_keys=True, default=str) if extra else None)
        c["logger"].append(extra.get("logger"))
        c["shape"].append(extra.get("shape"))
        self.n += 1

    def raw_text(self, text: str) -> None:
        """Set the raw text of the row just added (lines we reject ourselves keep theirs)."""
        self.cols["raw"][-1] = text

    def batch(self, schema: Any) -> Any:
        import pyarrow as pa

        out = pa.RecordBatch.from_arrays([pa.array(self.cols[n], type=schema.field(n).type) for n in OUTCOME_NAMES],
                                         schema=schema)
        self.cols = {n: [] for n in OUTCOME_NAMES}
        self.n = 0
        return out


def parse_unit(out: OutcomeColumns, spath: str, rows: list[tuple[int, str, int]], fmt_info: tuple[str, str, str],
               mod: Any, max_chars: int) -> None:
    """Add the outcomes of one unit. rows: (line_no, text, chars) sorted by line_no.

    Never raises for bad input: overlong lines and parser exceptions become `unparsed` outcomes
    with a reason, so every candidate line gets exactly one outcome.
    """
    source, kind, layout = fmt_info
    fmt = mod.FileFormat(kind, layout)
    side = _side_for(kind)

    def unparsed(line_no: int, text: str, why: str) -> None:
        out.add(spath, "unparsed", why, layout, line_no, source, rejected=True, side=side)
        out.raw_text(text)

    pending: list[tuple[int, str]] = []
    for line_no, text, chars in rows:
        if chars > max_chars:
            unparsed(line_no, text, f"overlong line: {chars} characters (limit {max_chars}); text cut")
        else:
            pending.append((line_no, text))
    i = 0
    while i < len(pending):
        try:
            for oc in mod.parse_lines(source, iter(pending[i:]), fmt):
                out.add(spath, oc.status, oc.why, layout, oc.line_no, source, oc.event)
                i += 1
            break
        except Exception as exc:  # a parser bug must not lose the line or kill the job
            line_no, text = pending[i]
            unparsed(line_no, text, f"parser error: {type(exc).__name__}: {str(exc)[:200]}")
            i += 1


def _side_for(kind: str) -> str | None:
    """Side of a line we reject ourselves (the parser sets it for the lines it sees)."""
    return {"offsets_dump": "offsets", "groups_describe": "describe"}.get(kind)


def parse_batches(batches: Iterator[Any], formats: dict[str, tuple[str, str, str]], module_name: str,
                  max_chars: int) -> Iterator[Any]:
    """Arrow batches of (spath, unit, line_no, value, chars), sorted by (spath, unit, line_no) ->
    Arrow batches of outcomes (OUTCOME_FIELDS)."""
    schema = schemas.arrow_schema_of(OUTCOME_FIELDS)
    mod = parsers_module(module_name)
    out = OutcomeColumns()
    key: tuple[str, int] | None = None
    rows: list[tuple[int, str, int]] = []

    def flush() -> None:
        if key is not None and rows:
            parse_unit(out, key[0], rows, formats.get(key[0]) or (key[0], "log", "bare"), mod, max_chars)

    for b in batches:
        spaths, units, line_nos, values, chars = (b.column(n).to_pylist()
                                                  for n in ("spath", "unit", "line_no", "value", "chars"))
        for sp, un, ln, val, ch in zip(spaths, units, line_nos, values, chars, strict=True):
            if (sp, un) != key:
                flush()
                key, rows = (sp, un), []
            rows.append((ln, val, ch))
        if out.n >= BATCH_ROWS:
            yield out.batch(schema)
    flush()
    if out.n:
        yield out.batch(schema)


def parse_candidates(cands: DataFrame, formats: dict[str, tuple[str, str, str]], module_name: str = "parsers",
                     max_chars: int = 64 * 1024) -> DataFrame:
    """cands: spath, unit, line_no, value, chars -> outcome rows (OUTCOME_DDL).

    formats: spark path -> (source as given, FileFormat.kind, FileFormat.layout); one entry per
    input file (bounded by the number of files), broadcast to the workers.
    """
    bc = cands.sparkSession.sparkContext.broadcast(formats)
    ordered = cands.repartition("spath", "unit").sortWithinPartitions("spath", "unit", "line_no")

    def run(batches):
        yield from parse_batches(batches, bc.value, module_name, max_chars)

    return ordered.mapInArrow(run, OUTCOME_DDL)
