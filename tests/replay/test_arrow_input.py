"""The Spark replay stage's entry point: events from a pyarrow Table, replayed as from Events."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from parsers import parse_path
from pipeline import schemas
from pipeline.replay import events_from_arrow, replay_group, replay_group_rows

SAMPLE = Path(__file__).resolve().parents[2] / "sample_logs" / "gc_pause_session_expiry"


def _events():
    out = []
    for p in sorted(SAMPLE.glob("*.log")):
        outcomes, _summary = parse_path(str(p))
        out += [oc.event for oc in outcomes if oc.event is not None]
    return out


def _table(events) -> pa.Table:
    rows = []
    for e in events:
        d = e.to_dict()
        extra = d.pop("extra") or {}
        d["extra_json"] = json.dumps(extra, sort_keys=True) if extra else None
        rows.append(d)
    return pa.Table.from_pylist(rows, schema=schemas.arrow_schema("events"))


def test_events_from_arrow_round_trip_sorted_by_time_file_line():
    events = _events()
    assert len(events) > 50
    got = events_from_arrow(_table(list(reversed(events))))
    assert len(got) == len(events)
    keys = [(e.ts_ms is not None, e.ts_ms or 0, e.source, e.line_no) for e in got]
    assert keys == sorted(keys)
    by_pos = {(e.source, e.line_no): e for e in events}
    for e in got:
        assert e == by_pos[(e.source, e.line_no)]


def test_replay_group_rows_equals_replay_of_the_events():
    events = _events()
    group = next(e.group_id for e in events if e.group_id)
    mine = [e for e in events if e.group_id == group]
    rows = replay_group_rows(_table(mine))
    expected = replay_group(sorted(mine, key=lambda e: (e.ts_ms is not None, e.ts_ms or 0, e.source, e.line_no)))
    assert rows["generations"] == expected.table("generations") and len(rows["generations"]) >= 2
    assert rows["findings"] == expected.table("findings")
