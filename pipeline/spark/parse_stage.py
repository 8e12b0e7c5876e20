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
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from operator import attrgetter
from typing import Any

from pyspark.sql import DataFrame

from pipeline import schemas
from pipeline.spark import worker_gc

EVENT_COLUMNS = schemas.columns("events")
SPLIT_COUNTS = ("n_lines", "n_cands", "n_parsed", "n_ignored", "n_unparsed")
SPLIT = "split"     # the status of a split's summary row
OUTCOME_FIELDS: list[tuple[str, str]] = [
    ("spath", "string"), ("split_no", "int"), ("block", "bigint"), ("status", "string"), ("why", "string"), ("layout", "string"),
    ("logger", "string"), ("shape", "string"), ("has_event", "boolean"),
] + schemas.TABLES["events"] + [(c, "bigint") for c in SPLIT_COUNTS]
OUTCOME_DDL = ", ".join(f"`{n}` {t}" for n, t in OUTCOME_FIELDS)
OUTCOME_NAMES = [n for n, _ in OUTCOME_FIELDS]
# Event attributes copied as they are (extra -> extra_json and partitions are converted)
_PLAIN = [c for c in EVENT_COLUMNS if c not in ("extra_json", "partitions", "line_no", "source")]
_EVENT_FIELDS = attrgetter(*_PLAIN, "partitions", "extra")
_KIND, _SIDE, _RAW = (_PLAIN.index(c) for c in ("kind", "side", "raw"))
BATCH_ROWS = 8192

_MODULES: dict[str, Any] = {}   # one imported parsers module per Python worker process


def parsers_module(name: str = "parsers") -> Any:
    mod = _MODULES.get(name)
    if mod is None:
        mod = _MODULES[name] = importlib.import_module(name)
    return mod


class OutcomeColumns:
    """Outcomes gathered as they come (one small tuple per event; the others only counted) and
    turned into Arrow record batches column by column: the event fields are read in one C call
    per event (attrgetter) and transposed with zip, several times cheaper than a Python loop per
    column."""

    def __init__(self) -> None:
        self.rows: list[tuple] = []
        self.splits: list[tuple] = []       # (spath, split_no, block, problem, counts...)
        self.counts = {"parsed": 0, "ignored": 0, "unparsed": 0}
        self._json: dict[tuple, str] = {}   # equal `extra` dicts (most of a log's) serialise once

    @property
    def n(self) -> int:
        return len(self.rows) + len(self.splits)

    def add(self, spath: str, split_no: int, status: str, why: str | None, layout: str, line_no: int, source: str,
            event: Any = None, rejected: bool = False, side: str | None = None, raw: str | None = None) -> None:
        """One outcome; `rejected` marks a line this stage turned down itself (overlong, parser
        error): it still becomes an `unparsed` event row, with `side` and `raw`."""
        self.counts[status] += 1
        if event is not None or rejected:
            self.rows.append((spath, split_no, status, why, layout, line_no, source, event, side, raw))

    def end_split(self, spath: str, split_no: int, block: int, n_lines: int, n_cands: int,
                  problem: str | None) -> None:
        c = self.counts
        self.splits.append((spath, split_no, block, problem, n_lines, n_cands, c["parsed"], c["ignored"],
                            c["unparsed"]))
        self.counts = {"parsed": 0, "ignored": 0, "unparsed": 0}

    def _extra_json(self, extra: dict[str, Any] | None) -> str | None:
        if not extra:
            return None
        try:
            key = tuple(extra.items())
            hit = self._json.get(key)
        except TypeError:           # unhashable values (lists, nested dicts): no memo
            return json.dumps(extra, sort_keys=True, default=str)
        if hit is None:
            hit = self._json[key] = json.dumps(extra, sort_keys=True, default=str)
            if len(self._json) > 50_000:
                self._json.clear()
        return hit

    def batch(self, schema: Any) -> Any:
        import pyarrow as pa

        rows, self.rows = self.rows, []
        splits, self.splits = self.splits, []
        n_ev = len(rows)
        none = [None] * len(splits)
        cols: dict[str, list[Any]] = {}
        if rows:
            spaths, split_nos, statuses, whys, layouts, line_nos, sources, evs, sides, raws = zip(*rows, strict=True)
        else:
            spaths = split_nos = statuses = whys = layouts = line_nos = sources = evs = sides = raws = ()
        cols["spath"] = [*spaths, *(t[0] for t in splits)]
        cols["split_no"] = [*split_nos, *(t[1] for t in splits)]
        cols["block"] = [None] * n_ev + [t[2] for t in splits]
        cols["status"] = [*statuses, *([SPLIT] * len(splits))]
        cols["why"] = [*whys, *(t[3] for t in splits)]
        cols["layout"] = [*layouts, *none]
        cols["line_no"] = [*line_nos, *none]
        cols["source"] = [*sources, *none]
        cols["has_event"] = [True] * n_ev + [False] * len(splits)
        # rows rejected by this stage carry no Event: their fields are nulls but kind/side/raw
        fields = [_EVENT_FIELDS(e) if e is not None else None for e in evs]
        blank = (None,) * (len(_PLAIN) + 2)
        by_field = list(zip(*[f or blank for f in fields], strict=True)) if rows else [()] * (len(_PLAIN) + 2)
        for name, values in zip(_PLAIN, by_field, strict=False):
            cols[name] = [*values, *none]
        cols["kind"] = [("unparsed" if f is None else f[_KIND]) for f in fields] + none
        cols["side"] = [(sd if f is None else f[_SIDE]) for f, sd in zip(fields, sides, strict=True)] + none
        cols["raw"] = [(rw if f is None else f[_RAW]) for f, rw in zip(fields, raws, strict=True)] + none
        cols["partitions"] = [None if p is None else [str(x) for x in p] for p in by_field[-2]] + none
        extras = by_field[-1]
        cols["extra_json"] = [self._extra_json(x) for x in extras] + none
        cols["logger"] = [x.get("logger") if x else None for x in extras] + none
        cols["shape"] = [x.get("shape") if x else None for x in extras] + none
        for i, c in enumerate(SPLIT_COUNTS):
            cols[c] = [None] * n_ev + [t[4 + i] for t in splits]
        return pa.RecordBatch.from_arrays([pa.array(cols[nm], type=schema.field(nm).type) for nm in OUTCOME_NAMES],
                                          schema=schema)


def parse_unit(out: OutcomeColumns, spath: str, split_no: int, rows: list[tuple[int, str, int]],
               fmt_info: tuple[str, str, str], mod: Any, max_chars: int) -> None:
    """Add the outcomes of one split. rows: (line_no, text, chars) in line order.

    Never raises for bad input: overlong lines and parser exceptions become `unparsed` outcomes
    with a reason, so every candidate line gets exactly one outcome.
    """
    source, kind, layout = fmt_info
    fmt = mod.FileFormat(kind, layout)
    side = _side_for(kind)

    def unparsed(line_no: int, text: str, why: str) -> None:
        out.add(spath, split_no, "unparsed", why, layout, line_no, source, rejected=True, side=side, raw=text)

    pending: list[tuple[int, str]] = []
    for line_no, text, chars in rows:
        if chars > max_chars:
            unparsed(line_no, text, f"overlong line: {chars} characters (limit {max_chars}); text cut")
        else:
            pending.append((line_no, text))
    i = 0
    add = out.add
    while i < len(pending):
        try:
            for oc in mod.parse_lines(source, iter(pending[i:]) if i else iter(pending), fmt):
                add(spath, split_no, oc.status, oc.why, layout, oc.line_no, source, oc.event)
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
    """Arrow batches of split rows (split_no, spath, block, n_lines, problem, cands: list of struct(idx,
    value, chars)) -> Arrow batches of outcomes (OUTCOME_FIELDS), a `split` row closing each
    split."""
    schema = schemas.arrow_schema_of(OUTCOME_FIELDS)
    mod = parsers_module(module_name)
    out = OutcomeColumns()
    with worker_gc.paused() as tidy:
        for b in batches:
            spaths, split_nos, blocks, n_lines, problems = (
                b.column(n).to_pylist() for n in ("spath", "split_no", "block", "n_lines", "problem"))
            cands = b.column("cands")
            offsets = cands.offsets.to_pylist()
            flat = cands.values           # the struct array of every split's candidates, back to back
            base = offsets[0]
            idxs, values, chars = (flat.field(n).slice(base, offsets[-1] - base).to_pylist()
                                   for n in ("idx", "value", "chars"))
            for r, spath in enumerate(spaths):
                lo, hi = offsets[r] - base, offsets[r + 1] - base
                rows = list(zip([i + 1 for i in idxs[lo:hi]], values[lo:hi], chars[lo:hi], strict=True))
                if rows:
                    parse_unit(out, spath, split_nos[r], rows, formats.get(spath) or (spath, "log", "bare"), mod,
                               max_chars)
                out.end_split(spath, split_nos[r], blocks[r], n_lines[r], hi - lo, problems[r])
                if out.n >= BATCH_ROWS:
                    yield out.batch(schema)
                    tidy()
        if out.n:
            yield out.batch(schema)


def parse_splits(split_rows: DataFrame, formats: dict[str, tuple[str, str, str]], module_name: str = "parsers",
                 max_chars: int = 64 * 1024) -> DataFrame:
    """split rows (lines.Scan.rows) -> outcome rows (OUTCOME_DDL).

    formats: spark path -> (source as given, FileFormat.kind, FileFormat.layout); one entry per
    input file (bounded by the number of files), broadcast to the workers.
    """
    bc = split_rows.sparkSession.sparkContext.broadcast(formats)

    def run(batches):
        yield from parse_batches(batches, bc.value, module_name, max_chars)

    return split_rows.mapInArrow(run, OUTCOME_DDL)
