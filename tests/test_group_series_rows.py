"""Whole rows of pipeline/group_series.py's tables, every column a view reads, on the broker-expiry
case (tests/test_group_tables.py) and an offset history: the group id on every row and the expiry
gap's limit, members, client and source. Written for blind spots of a mutation pass over
group_series.py (docs/testing.md): mutants nulling the group id or the expiry gap's limit survived
the fast tests."""

from __future__ import annotations

from tests.test_group_series import T0, C, ev, tables


def _rows():
    hint = {"kafka_version_hint": "2.8.1"}
    return [
        ev("c.log", 1, "join_succeeded", 0, generation=1, member_id="m1", **hint, **C),
        *(ev("c.log", 2 + i, "heartbeat_succeeded", 3_000 * (i + 1), **C) for i in range(4)),
        ev("c.log", 6, "offset_committed", 12_500, topic="t", partition=0, offset=10, **C),
        ev("e.log", 1, "join_succeeded", 50, generation=1, member_id="m2", group_id="g1", client_id="c3", **hint),
        ev("k.log", 1, "broker_member_removed", 22_000, side="broker", group_id="g1", member_id="m1",
           raw="[GroupCoordinator 1]: Member m1 in group g1 has failed, removing it from the group"),
        ev("k.log", 2, "broker_member_removed", 30_000, side="broker", group_id="g1", member_id="m2",
           raw="[GroupCoordinator 1]: Member m2 in group g1 has failed, removing it from the group"),
    ]


def test_every_row_names_its_group():
    out = tables(_rows())
    assert out["heartbeat_gaps"] and out["offset_commits"]
    assert {r["group_id"] for r in out["heartbeat_gaps"]} == {"g1"}
    assert {r["group_id"] for r in out["offset_commits"]} == {"g1"}


def test_the_expiry_gap_of_a_member_without_heartbeat_lines_is_whole():
    (m2,) = [r for r in tables(_rows())["heartbeat_gaps"] if r["member_id"] == "m2"]
    assert {k: m2[k] for k in ("group_id", "member_id", "client_id", "source", "kind", "start_ms", "end_ms",
                               "gap_ms", "limit_ms", "exceeded", "evidence")} == {
        "group_id": "g1", "member_id": "m2", "client_id": "c3", "source": "e.log", "kind": "expiry",
        "start_ms": T0 + 20_000, "end_ms": T0 + 30_000, "gap_ms": 10_000, "limit_ms": 10_000, "exceeded": True,
        "evidence": ["k.log:2"]}
