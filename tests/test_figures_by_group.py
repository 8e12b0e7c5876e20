"""figures.figures_by_group (the ingest summary's path: tables split by group once) gives, for every
group, exactly what figures.group_figures (the report's and dashboard's path) gives."""

import json

import pandas as pd

from pipeline import figures, rundir


def _tables(tmp_path):
    gens = [
        {"group_id": "a", "generation": 1, "started_ms": 1_000, "stabilized_ms": 1_500, "ended_ms": 9_000,
         "rebalance_ms": 500, "cause": "member_joined", "members": ["m1", "m2"]},
        {"group_id": "a", "generation": 2, "started_ms": None, "stabilized_ms": None, "ended_ms": None,
         "rebalance_ms": None, "cause": None, "members": []},
        {"group_id": "b", "generation": 7, "started_ms": 2_000, "stabilized_ms": None, "ended_ms": None,
         "rebalance_ms": None, "cause": None, "members": ["x"]},
    ]
    mems = [
        {"group_id": "a", "member_id": "m1", "client_id": "c1", "host": "/10.0.0.1", "generation": 1,
         "leave_reason": "session_expiry", "left_ms": 8_000},
        {"group_id": "b", "member_id": "x", "client_id": None, "host": None, "generation": 7,
         "leave_reason": None, "left_ms": None},
    ]
    fnd = [
        {"group_id": "a", "kind": "offset_rewind", "severity": "high", "generation": 1, "start_ms": 3_000,
         "end_ms": None, "members": ["m2"], "evidence": [],
         "details_json": json.dumps({"topic": "t", "partition": 0, "from_offset": 10, "to_offset_exclusive": 25})},
        {"group_id": "a", "kind": "poll_timeout", "severity": "medium", "generation": None, "start_ms": None,
         "end_ms": None, "members": ["m3"], "evidence": [], "details_json": None},
        {"group_id": "b", "kind": "offset_skip", "severity": "critical", "generation": 7, "start_ms": 2_500,
         "end_ms": 2_600, "members": [], "evidence": [],
         "details_json": json.dumps({"topic": "u", "partition": 3, "from_offset": 5, "to_offset_exclusive": 9,
                                     "estimated": True})},
    ]
    for name, rows in (("generations", gens), ("memberships", mems), ("findings", fnd)):
        rundir.write_table(tmp_path, name, rows)
    return [rundir.load_table(tmp_path, t) for t in ("generations", "memberships", "findings")]


def test_split_once_equals_filtered_per_group(tmp_path):
    gens, mems, fnd = _tables(tmp_path)
    groups = ["a", "b", "only-in-events"]
    by_group = figures.figures_by_group(groups, gens, mems, fnd)
    assert list(by_group) == groups
    for g in groups:
        assert by_group[g] == figures.group_figures(g, gens, mems, fnd)
    a = by_group["a"]
    assert a["rebalances"] == 1 and a["rebalance_ms_total"] == 500 and a["causes"] == {"member_joined": 1}
    assert [e["member_id"] for e in a["expelled"]] == ["m3", "m1"]   # the finding's (no time) first
    assert a["reprocessed_offsets"] == 15 and by_group["b"]["skipped_offsets"] == 4
    assert by_group["b"]["skipped_ranges"][0]["estimated"] is True
    assert by_group["only-in-events"]["generations_seen"] == 0 and by_group["only-in-events"]["first_ms"] is None


def test_empty_tables():
    empty = pd.DataFrame()
    out = figures.figures_by_group(["g"], empty, empty, empty)
    assert out == {"g": figures.group_figures("g", empty, empty, empty)}
