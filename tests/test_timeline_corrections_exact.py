"""pipeline.timeline_corrections stated at its edges (the mutation pass's blind spots,
docs/testing.md): each test builds a file's rows from the real times of a hand-written scenario and
the clock offset its host had at each line, and asks the correction for the real times back (or,
where the rows cannot place a step, times off by no more than the uncertainty each row is marked
with, and marks only there)."""

from __future__ import annotations

import json

import pyarrow as pa

from pipeline import schemas
from pipeline import timeline_corrections as tc
from pipeline import timeline_facts as tf


def _table(rows: list[dict]) -> pa.Table:
    full = [{**{c: None for c in schemas.columns("events")}, "group_id": "g", "side": "client",
             "kind": "heartbeat_succeeded", **r} for r in rows]
    return pa.Table.from_pylist(full, schema=schemas.arrow_schema("events"))


def _logged(real: list[int], offset_at: list[int], source: str = "a.log") -> list[dict]:
    """One file's rows: line i + 1 logged at real[i] + offset_at[i] (its host's clock then)."""
    return [{"source": source, "line_no": i + 1, "raw": f"{source} {i + 1}", "ts_ms": r + o}
            for i, (r, o) in enumerate(zip(real, offset_at, strict=True))]


def _shifted(table: pa.Table, first: int, *steps: tf.Step) -> tuple[list, list]:
    out = tc.shift(table, {}, {"a.log": (first, steps)})
    extra = [json.loads(x) if x else {} for x in out.column("extra_json").to_pylist()]
    return out.column("ts_ms").to_pylist(), [e.get("clock_uncertain_ms") for e in extra]


def test_a_copy_whose_lines_have_no_time_is_dropped_and_its_own_lines_kept():
    # a paste without timestamps, read twice (b.log is a copy of a.log), and a line only b.log has
    rows = [{"source": "a.log", "line_no": 1, "raw": "Revoking previously assigned partitions [t-0]", "ts_ms": None},
            {"source": "a.log", "line_no": 2, "raw": "Adding newly assigned partitions: t-0", "ts_ms": None},
            {"source": "b.log", "line_no": 1, "raw": "Revoking previously assigned partitions [t-0]", "ts_ms": None},
            {"source": "b.log", "line_no": 2, "raw": "Adding newly assigned partitions: t-0", "ts_ms": None},
            {"source": "b.log", "line_no": 3, "raw": "Adding newly assigned partitions: t-1", "ts_ms": None}]
    got = tc.dedupe(_table(rows), {("b.log", "a.log")}).to_pylist()
    assert [(r["source"], r["line_no"]) for r in got] == [("a.log", 1), ("a.log", 2), ("b.log", 3)]


def test_a_clock_set_forward_then_back_in_one_file_gives_the_real_times_back():
    # real time one line a second; the host's clock ran 30 s ahead from line 4 to line 7 (a VM resumed,
    # then NTP stepped it back at line 8); anchors: lines 2 and 5, then lines 6 and 9
    real = [1_000 * i for i in range(1, 11)]
    table = _table(_logged(real, [0, 0, 0, 30_000, 30_000, 30_000, 30_000, 0, 0, 0]))
    ts, unsure = _shifted(table, 0, tf.Step(2, 5, 30_000), tf.Step(6, 9, 0))
    assert ts == real
    assert unsure == [None] * 10


def test_an_unplaced_step_from_a_skewed_level_marks_its_rows_with_the_steps_size():
    # the host ran 1 s ahead, then 1.5 s behind from line 4 (a step of 2.5 s); its rows' times do not
    # show where (line 3 -> 4 is 3 s of real time, logged as 0.5 s): lines 2-5 keep the first level and
    # are marked with 2.5 s, the real times of lines 4 and 5 are 2.5 s later than what they get
    real = [0, 5_000, 10_000, 13_000, 16_000, 19_000]
    table = _table(_logged(real, [1_000, 1_000, 1_000, -1_500, -1_500, -1_500]))
    ts, unsure = _shifted(table, 1_000, tf.Step(1, 6, -1_500))
    assert ts == [0, 5_000, 10_000, 10_500, 13_500, 19_000]
    assert unsure == [None, 2_500, 2_500, 2_500, 2_500, None]
    assert all(abs(t - r) <= (u or 0) for t, r, u in zip(ts, real, unsure, strict=True))


def test_a_marked_row_keeps_its_other_fields_and_a_dictionary_column_stays_one():
    real = [0, 5_000, 10_000, 13_000, 16_000, 19_000]
    rows = _logged(real, [0, 0, 0, -2_000, -2_000, -2_000])
    rows[2]["extra_json"] = json.dumps({"reason": "rebalance in progress"})
    rows[4]["extra_json"] = json.dumps({"assignor": "range"})
    plain = _table(rows)
    for table in (plain, plain.set_column(plain.schema.get_field_index("extra_json"), "extra_json",
                                          pa.compute.dictionary_encode(plain.column("extra_json")))):
        out = tc.shift(table, {}, {"a.log": (0, (tf.Step(1, 6, -2_000),))})
        assert pa.types.is_dictionary(out.schema.field("extra_json").type) == (table is not plain)
        extra = [json.loads(x) if x else None for x in out.column("extra_json").to_pylist()]
        assert extra == [None, {"clock_uncertain_ms": 2_000},
                         {"reason": "rebalance in progress", "clock_uncertain_ms": 2_000},
                         {"clock_uncertain_ms": 2_000}, {"assignor": "range", "clock_uncertain_ms": 2_000}, None]


def test_a_clock_set_back_is_placed_where_its_rows_go_back_by_half_the_step_or_more():
    # set back 30 s at line 4; 15 s of real time between lines 3 and 4: logged 15 s back, exactly half
    real = [0, 1_000, 2_000, 17_000, 18_000, 19_000]
    table = _table(_logged(real, [0, 0, 0, -30_000, -30_000, -30_000]))
    assert _shifted(table, 0, tf.Step(1, 6, -30_000)) == (real, [None] * 6)
    # 18 s of real time between them: logged 12 s back, less than half the step: not placed, marked
    real = [0, 1_000, 2_000, 20_000, 21_000, 22_000]
    table = _table(_logged(real, [0, 0, 0, -30_000, -30_000, -30_000]))
    ts, unsure = _shifted(table, 0, tf.Step(1, 6, -30_000))
    assert ts == [0, 1_000, 2_000, -10_000, -9_000, 22_000]
    assert unsure == [None, 30_000, 30_000, 30_000, 30_000, None]


def test_a_clock_set_forward_is_placed_at_a_gap_of_exactly_its_size():
    # set forward 30 s between two lines of the same millisecond (lines 3 and 4): logged 30.000 s apart
    real = [0, 1_000, 2_000, 2_000, 3_000, 4_000]
    table = _table(_logged(real, [0, 0, 0, 30_000, 30_000, 30_000]))
    assert _shifted(table, 0, tf.Step(1, 6, 30_000)) == (real, [None] * 6)


def test_a_clock_set_forward_at_its_new_levels_first_anchor_after_a_quiet_spell():
    # 30.5 s with no line between lines 2 and 3 (the group was quiet), and the clock set 30 s forward just
    # before line 5, the new level's first anchor (logged 31 s after line 4): the step is the widest gap,
    # the one ending at line 5; lines 3 and 4 keep the old offset
    real = [1_000, 2_000, 32_500, 33_500, 34_500]
    table = _table(_logged(real, [0, 0, 0, 0, 30_000]))
    ts, unsure = _shifted(table, 0, tf.Step(1, 5, 30_000))
    assert ts == real
    assert all(abs(t - r) <= (u or 0) for t, r, u in zip(ts, real, unsure, strict=True))
