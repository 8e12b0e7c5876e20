"""group_tables.ownership's `last_line` ends (the ingest's observed ownership): an owner's end its own
log does not show is its stream's last line, only when another assignment follows; a held interval
nobody takes later keeps no end. Both ways: each rule on a case where it applies and one where it
must not."""

from __future__ import annotations

import pyarrow as pa

from pipeline import group_series, group_tables, schemas

T = 1_700_000_000_000


def _row(source, line, ts, kind, member=None, client="c", parts=None, gen=None):
    r = {c: None for c in schemas.columns("events")}
    r.update(source=source, line_no=line, ts_ms=T + ts, side="client", kind=kind, group_id="g", client_id=client,
             member_id=member, partitions=parts, generation=gen, raw=kind)
    return r


def _own(rows):
    t = pa.Table.from_pylist(rows, schema=schemas.arrow_schema("events"))
    lives = group_tables.streams_lines(t, group_series.origins)
    return sorted((r["client_id"], r["member_id"], r["start_ms"] - T, None if r["end_ms"] is None else r["end_ms"] - T,
                   r["end_reason"]) for r in group_tables.ownership(t.to_pylist(), (), lives))


def test_a_crashed_owner_ends_at_its_last_line_when_another_owner_follows():
    rows = [_row("a.log", 1, 0, "join_succeeded", "m1", gen=1), _row("a.log", 2, 10, "partitions_assigned", "m1", parts=["t-0"]),
            _row("a.log", 3, 500, "heartbeat_sent", "m1"),                                     # its last line
            _row("b.log", 1, 9_000, "partitions_assigned", "m2", client="d", parts=["t-0"])]   # another owner
    assert _own(rows) == [("c", "m1", 10, 500, "last_line"), ("d", "m2", 9_000, None, "log_end")]
    # nobody takes it later: held at the end, no end
    assert _own(rows[:3]) == [("c", "m1", 10, None, "log_end")]


def test_a_restart_without_a_revoke_ends_the_old_member_before_its_consumer_is_created_again():
    rows = [_row("a.log", 1, 0, "partitions_assigned", "m1", parts=["t-0"]),
            _row("a.log", 2, 300, "heartbeat_sent", "m1"),
            _row("a.log", 3, 5_000, "client_config"),                    # the consumer created again
            _row("a.log", 4, 5_100, "join_succeeded", "m2", gen=2),
            _row("a.log", 5, 5_200, "partitions_assigned", "m2", parts=["t-0"])]
    assert _own(rows) == [("c", "m1", 0, 300, "last_line"), ("c", "m2", 5_200, None, "log_end")]
    # a revoke first: the revoke ends it (no last_line)
    revoked = rows[:2] + [_row("a.log", 6, 400, "partitions_revoked", "m1", parts=["t-0"])] + rows[2:]
    assert ("c", "m1", 0, 400, "revoked") in _own(revoked)
