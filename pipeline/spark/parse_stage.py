"""Parsing candidate lines with the `parsers` package on the Python workers.

Candidate rows are grouped by (file, unit) (see lines.py) and each group goes, sorted by line
number, through `parsers.parse_lines(source, lines, fmt)` with the file's FileFormat sniffed on the
driver and broadcast. The parsers module is imported once per Python worker process and kept in a
module-level cache (its Lark parsers are built on first use and then reused for every group).

Output: one row per outcome (parsed / ignored / unparsed). Rows that carry an Event have the
`events` columns filled; continuation lines and ignored candidates carry only their status.
"""

from __future__ import annotations

import importlib
import json
import math
from typing import Any

from pyspark.sql import DataFrame

from pipeline import schemas

EVENT_COLUMNS = schemas.columns("events")
OUTCOME_FIELDS: list[tuple[str, str]] = [
    ("spath", "string"), ("status", "string"), ("why", "string"), ("layout", "string"),
    ("logger", "string"), ("shape", "string"), ("has_event", "boolean"),
] + schemas.TABLES["events"]
OUTCOME_DDL = ", ".join(f"`{n}` {t}" for n, t in OUTCOME_FIELDS)
_INT_COLUMNS = [n for n, t in OUTCOME_FIELDS if t in ("int", "bigint")]
_OBJECT_COLUMNS = [n for n, t in OUTCOME_FIELDS if t in ("string", "array<string>")]

_MODULES: dict[str, Any] = {}   # one imported parsers module per Python worker process


def parsers_module(name: str = "parsers") -> Any:
    mod = _MODULES.get(name)
    if mod is None:
        mod = _MODULES[name] = importlib.import_module(name)
    return mod


def _event_row(ev: Any) -> dict[str, Any]:
    d = ev.to_dict()
    extra = d.pop("extra", None) or {}
    d["extra_json"] = json.dumps(extra, sort_keys=True, default=str) if extra else None
    if d.get("partitions") is not None:
        d["partitions"] = [str(p) for p in d["partitions"]]
    return d


def parse_unit_rows(
    spath: str, rows: list[tuple[int, str, int]], fmt_info: tuple[str, str, str], module_name: str, max_chars: int
) -> list[dict[str, Any]]:
    """Outcome rows for one unit. rows: (line_no, text, chars) sorted by line_no.

    Never raises for bad input: overlong lines and parser exceptions become `unparsed` outcomes
    with a reason, so every candidate line gets exactly one outcome.
    """
    mod = parsers_module(module_name)
    source, kind, layout = fmt_info
    fmt = mod.FileFormat(kind, layout)
    out: list[dict[str, Any]] = []

    def unparsed(line_no: int, text: str, why: str) -> None:
        out.append({
            "spath": spath, "status": "unparsed", "why": why, "layout": layout, "has_event": True,
            "source": source, "line_no": line_no, "side": _side_for(kind), "kind": "unparsed", "raw": text,
        })

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
                row: dict[str, Any] = {"spath": spath, "status": oc.status, "why": oc.why, "layout": layout,
                                       "line_no": oc.line_no, "source": source, "has_event": oc.event is not None}
                if oc.event is not None:
                    row.update(_event_row(oc.event))
                    extra = oc.event.extra or {}
                    row["logger"] = extra.get("logger")
                    row["shape"] = extra.get("shape")
                out.append(row)
                i += 1
            break
        except Exception as exc:  # a parser bug must not lose the line or kill the job
            line_no, text = pending[i]
            unparsed(line_no, text, f"parser error: {type(exc).__name__}: {str(exc)[:200]}")
            i += 1
    return out


def _side_for(kind: str) -> str | None:
    """Side of a line we reject ourselves (the parser sets it for the lines it sees)."""
    return {"offsets_dump": "offsets", "groups_describe": "describe"}.get(kind)


def to_frame(rows: list[dict[str, Any]]):
    import pandas as pd

    names = [n for n, _ in OUTCOME_FIELDS]
    pdf = pd.DataFrame.from_records(rows, columns=names) if rows else pd.DataFrame({n: [] for n in names})
    for c in _INT_COLUMNS:
        pdf[c] = pdf[c].map(lambda v: None if v is None or (isinstance(v, float) and math.isnan(v)) else int(v)).astype("Int64")
    pdf["has_event"] = pdf["has_event"].astype("boolean")
    for c in _OBJECT_COLUMNS:   # from_records fills missing keys with NaN; Arrow wants None
        pdf[c] = pdf[c].astype(object).where(pdf[c].notna(), None)
    return pdf


def parse_candidates(cands: DataFrame, formats: dict[str, tuple[str, str, str]], module_name: str = "parsers",
                     max_chars: int = 64 * 1024) -> DataFrame:
    """cands: spath, unit, line_no, value, chars -> outcome rows (OUTCOME_DDL).

    formats: spark path -> (source as given, FileFormat.kind, FileFormat.layout); one entry per
    input file (bounded by the number of files), broadcast to the workers.
    """
    bc = cands.sparkSession.sparkContext.broadcast(formats)

    def run(pdf):
        if pdf.empty:
            return to_frame([])
        pdf = pdf.sort_values("line_no", kind="stable")
        spath = pdf["spath"].iat[0]
        info = bc.value.get(spath) or (spath, "log", "bare")
        rows = list(zip(pdf["line_no"].astype("int64"), pdf["value"], pdf["chars"].astype("int64"), strict=True))
        return to_frame(parse_unit_rows(spath, [(int(a), b, int(c)) for a, b, c in rows], info, module_name, max_chars))

    return cands.groupBy("spath", "unit").applyInPandas(run, schema=OUTCOME_DDL)
