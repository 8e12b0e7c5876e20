"""Shared by the replay's Arrow tests: a sample folder's parsed Events, and Events as a pyarrow
Table of the `events` schema (what the Spark pass hands the replay)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from parsers import parse_path
from parsers.events import Event
from pipeline import schemas


def folder_events(folder: Path) -> list[Event]:
    """Every Event parsed from the folder's *.log files, file by file in name order."""
    out: list[Event] = []
    for p in sorted(folder.glob("*.log")):
        outcomes, _summary = parse_path(str(p))
        out += [oc.event for oc in outcomes if oc.event is not None]
    return out


def events_table(events: list[Event], chunk_rows: int | None = None) -> pa.Table:
    """Events as `events` rows (extra as sorted JSON text); `chunk_rows` cuts the table into
    record batches of that many rows."""
    rows = []
    for e in events:
        d = e.to_dict()
        extra = d.pop("extra") or {}
        d["extra_json"] = json.dumps(extra, sort_keys=True) if extra else None
        rows.append(d)
    t = pa.Table.from_pylist(rows, schema=schemas.arrow_schema("events"))
    return pa.Table.from_batches(t.to_batches(max_chunksize=chunk_rows), t.schema) if chunk_rows else t
