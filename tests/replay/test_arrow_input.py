"""The Spark replay stage's entry point: events from a pyarrow Table, replayed as from Events."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from pipeline import schemas
from pipeline.replay import events_from_arrow, replay_group, replay_group_rows
from tests.replay.arrow_tables import events_table, folder_events

SAMPLE = Path(__file__).resolve().parents[2] / "sample_logs" / "gc_pause_session_expiry"


def _events():
    return folder_events(SAMPLE)


def _table(events) -> pa.Table:
    return events_table(events)


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


import pytest  # noqa: E402


@pytest.mark.parametrize("share_from", [0, 10**9], ids=["shared-strings", "per-row-strings"])
def test_events_from_arrow_edge_rows_as_the_row_by_row_reading(monkeypatch, share_from):
    """Missing evidence takes Event's defaults (`value or default`), unknown times sort first, rows
    equal on (time, file, line) keep their order, extra_json that is not an object is kept in words,
    and equal texts share one decoded dict; the same with string columns decoded per distinct value
    (big groups) or per row (small ones)."""
    from parsers.events import Event
    from pipeline.replay_rules import event_rows

    monkeypatch.setattr(event_rows, "_SHARE_MIN_ROWS", share_from)
    monkeypatch.setattr(event_rows, "_SHARE_MAX_DISTINCT", 1.0 if share_from == 0 else 0.25)

    rows = [
        dict(source="b.log", line_no=3, ts_ms=20, side="client", kind="heartbeat_succeeded", raw="x3",
             extra_json='{"a": 1}', partitions=["t-0", "t-1"]),
        dict(source=None, line_no=None, ts_ms=None, side="", kind="", raw=None, extra_json=None, partitions=[]),
        dict(source="a.log", line_no=7, ts_ms=None, side="broker", kind="k1", raw="r7", extra_json="[1, 2]"),
        dict(source="a.log", line_no=2, ts_ms=20, side="client", kind="first", raw="same", extra_json='{"a": 1}'),
        dict(source="a.log", line_no=2, ts_ms=20, side="client", kind="second", raw="same", extra_json="not json"),
        dict(source="", line_no=0, ts_ms=-5, side=None, kind=None, raw="", extra_json="", generation=4,
             member_id="m-1", partition=2, offset=9),
    ]
    table = pa.Table.from_pylist(rows, schema=schemas.arrow_schema("events"))
    got = events_from_arrow(table)

    def expected(r):
        extra = {"a": 1} if r.get("extra_json") == '{"a": 1}' else (
            {"value": [1, 2]} if r.get("extra_json") == "[1, 2]" else (
                {"unparsed_extra_json": "not json"} if r.get("extra_json") == "not json" else {}))
        return Event(r.get("source") or "?", r.get("line_no") or 0, r.get("side") or "client",
                     r.get("kind") or "unparsed", r.get("raw") or "", ts_ms=r.get("ts_ms"),
                     generation=r.get("generation"), member_id=r.get("member_id"), partition=r.get("partition"),
                     offset=r.get("offset"),
                     partitions=tuple(r["partitions"]) if r.get("partitions") is not None else None, extra=extra)

    want = sorted((expected(r) for r in rows), key=lambda e: (e.ts_ms is not None, e.ts_ms or 0, e.source, e.line_no))
    assert got == want
    assert [e.kind for e in got] == ["unparsed", "k1", "unparsed", "first", "second", "heartbeat_succeeded"]
    assert got[0].source == "?" and got[0].side == "client" and got[0].partitions == ()
    assert got[3].extra is got[5].extra      # one decoded dict per distinct text
