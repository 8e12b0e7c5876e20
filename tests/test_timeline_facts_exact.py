"""pipeline.timeline_facts, stated at its edges (the mutation pass's blind spots, docs/testing.md):
the consumer protocol's (KIP-848) clock anchors through the column-wise path the ingest runs
(table_facts), the pairing rules of the broker's join and epoch-bump lines, the back-jumps of a
file's times at the STEP_MIN_MS edge and in any row order, and the ingest's sentence on a stepped
clock. The right answers are derived by hand from the rules in the module's doc."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from pipeline import schemas
from pipeline import timeline_facts as tf


def _table(rows):
    return pa.Table.from_pylist([{"side": "client", "raw": f"r{i}", **r} for i, r in enumerate(rows)],
                                schema=schemas.arrow_schema("events"))


def _cols(rows):
    return _table(rows).select(list(tf.FACT_COLUMNS)).to_pydict()


def _bump(epoch):
    return json.dumps({"group_epoch": epoch})


# GroupMetadataManager (3.7-4.x): "[GroupId g] Member M joins the consumer group ..." then "Bumped group
# epoch to n."; the member's first line at epoch n (ConsumerMembershipManager's "transitioned from
# JOINING to ...") is printed when the heartbeat response arrives
KIP848_ROWS = [
    # M1 joins at 100.000 s (broker), bumped to epoch 5 on the next line; M1's clock runs 5.02 s ahead
    dict(group_id="g", source="broker.log", line_no=10, ts_ms=100_000, kind="broker_member_joined", member_id="M1"),
    dict(group_id="g", source="broker.log", line_no=11, ts_ms=100_000, kind="broker_rebalance_preparing",
         extra_json=_bump(5)),
    dict(group_id="g", source="m1.log", line_no=3, ts_ms=105_020, kind="member_state_changed", member_id="M1",
         member_epoch=5),
    dict(group_id="g", source="m1.log", line_no=4, ts_ms=105_500, kind="member_state_changed", member_id="M1",
         member_epoch=5),      # a later line at the same epoch: not the first
    # M2 joins at 200.000 s, the bump two lines later (a line between): still paired; M2 runs 3 s behind
    dict(group_id="g", source="broker.log", line_no=20, ts_ms=200_000, kind="broker_member_joined", member_id="M2"),
    dict(group_id="g", source="broker.log", line_no=22, ts_ms=200_999, kind="broker_rebalance_preparing",
         extra_json=_bump(6)),
    dict(group_id="g", source="m2.log", line_no=7, ts_ms=197_010, kind="member_state_changed", member_id="M2",
         member_epoch=6),
    # M3: the bump three lines after its join (another member's line may be between): not paired
    dict(group_id="g", source="broker.log", line_no=30, ts_ms=300_000, kind="broker_member_joined", member_id="M3"),
    dict(group_id="g", source="broker.log", line_no=33, ts_ms=300_001, kind="broker_rebalance_preparing",
         extra_json=_bump(7)),
    dict(group_id="g", source="m3.log", line_no=2, ts_ms=300_050, kind="member_state_changed", member_id="M3",
         member_epoch=7),
    # M4: the bump a full STEP_MIN_MS (1 s) after its join: not the same request, not paired
    dict(group_id="g", source="broker.log", line_no=40, ts_ms=400_000, kind="broker_member_joined", member_id="M4"),
    dict(group_id="g", source="broker.log", line_no=41, ts_ms=401_000, kind="broker_rebalance_preparing",
         extra_json=_bump(8)),
    dict(group_id="g", source="m4.log", line_no=2, ts_ms=400_050, kind="member_state_changed", member_id="M4",
         member_epoch=8),
    # M5 at epoch 0 (leaving or fenced, no anchor) and M6's line without a time
    dict(group_id="g", source="m5.log", line_no=2, ts_ms=400_060, kind="member_state_changed", member_id="M5",
         member_epoch=0),
    dict(group_id="g", source="m1.log", line_no=9, ts_ms=None, kind="member_state_changed", member_id="M1",
         member_epoch=5),
]


@pytest.mark.parametrize("path", ["lists", "table"])
def test_consumer_protocol_anchors_pair_a_join_with_its_epoch_bump(path):
    want = [("m1.log", 5_020, 3, True), ("m2.log", -2_990, 7, True)]
    if path == "lists":
        assert tf.anchor_diffs(_cols(KIP848_ROWS)) == want
    else:   # what the ingest's per-group pass runs
        assert tf.table_facts(_table(KIP848_ROWS))[1] == want
    assert tf.clock_offsets(want) == {"m1.log": (5_020, 1), "m2.log": (-2_990, 1)}


def test_consumer_protocol_anchors_take_each_files_first_line_of_an_epoch_in_line_order():
    rows = KIP848_ROWS[:2] + [
        dict(group_id="g", source="m1.log", line_no=8, ts_ms=105_900, kind="member_state_changed", member_id="M1",
             member_epoch=5),
        dict(group_id="g", source="m1.log", line_no=5, ts_ms=105_100, kind="member_state_changed", member_id="M1",
             member_epoch=5),
        # the same member's file read twice (a copy under another name): an anchor of each file
        dict(group_id="g", source="m1-copy.log", line_no=5, ts_ms=105_100, kind="member_state_changed",
             member_id="M1", member_epoch=5),
    ]
    assert tf.table_facts(_table(rows))[1] == tf.anchor_diffs(_cols(rows)) == [
        ("m1.log", 5_100, 5, True), ("m1-copy.log", 5_100, 5, True)]


def _backs(rows):
    rows = [{"group_id": "g", "kind": "heartbeat_succeeded", **r} for r in rows]
    return sorted(tf.back_jumps(_cols(rows))), sorted(tf.table_backs(_table(rows)))


def test_a_files_time_going_back_by_exactly_step_min_ms_is_a_back_jump_and_by_less_is_not():
    assert _backs([dict(source="a.log", line_no=1, ts_ms=50_000), dict(source="a.log", line_no=2, ts_ms=49_000)]) == (
        [("a.log", 2, -1_000)], [("a.log", 2, -1_000)])                  # (two rows are enough)
    assert _backs([dict(source="a.log", line_no=1, ts_ms=50_000), dict(source="a.log", line_no=2, ts_ms=49_001),
                   dict(source="a.log", line_no=3, ts_ms=49_500)]) == ([], [])


def test_back_jumps_follow_line_order_whatever_the_row_order():
    # one run of rows per file, but not in line order: in line order a.log goes 130 s -> 100 s at line 2
    rows = [dict(source="a.log", line_no=2, ts_ms=100_000), dict(source="a.log", line_no=1, ts_ms=130_000),
            dict(source="a.log", line_no=3, ts_ms=101_000), dict(source="b.log", line_no=1, ts_ms=5_000),
            dict(source="b.log", line_no=2, ts_ms=6_000)]
    assert _backs(rows) == ([("a.log", 2, -30_000)], [("a.log", 2, -30_000)])
    # every row from another file: nothing goes back, whatever the times
    rows = [dict(source=f"{c}.log", line_no=1, ts_ms=t) for c, t in zip("abc", (90_000, 10_000, 50_000), strict=True)]
    assert _backs(rows) == ([], [])


def test_the_ingest_sentence_on_a_stepped_clock():
    steps = (tf.Step(after_line=40, first_line=52, offset_ms=-3_000), tf.Step(90, 95, 61_000))
    assert tf.describe_steps("hostB/app.log", 2_000, steps) == (
        "hostB/app.log runs +2000 ms against its group's coordinator, then -3000 ms after line 40 (by line 52), "
        "then +61000 ms after line 90 (by line 95)")
    assert tf.describe_steps("a.log", 0, ()) == "a.log runs +0 ms against its group's coordinator"


def _steps(pairs):
    return tf.clock_steps([("a.log", d, line, True) for line, d in pairs])


def test_a_new_level_of_exactly_step_min_ms_is_a_step_and_of_less_is_not():
    assert _steps([(1, 0), (2, 0), (3, 1_000), (4, 1_000)]) == {"a.log": (0, (tf.Step(2, 3, 1_000),))}
    assert _steps([(1, 0), (2, 0), (3, 999), (4, 999)]) == {}
    # measured from the level's own value (0.5 s), not from zero: 0.5 s -> -0.6 s is a step of 1.1 s
    assert _steps([(1, 500), (2, 500), (3, -600), (4, -600)]) == {"a.log": (500, (tf.Step(2, 3, -600),))}
    # the two anchors of the new level agree within less than STEP_MIN_MS, else neither is a level
    assert _steps([(1, 0), (2, 0), (3, 5_000), (4, 5_999)]) == {"a.log": (0, (tf.Step(2, 3, 5_000),))}
    assert _steps([(1, 0), (2, 0), (3, 5_000), (4, 6_000)]) == {}


def test_back_jumps_in_a_run_of_rows_not_in_line_order():
    # a.log's rows in table order: lines 1, 3, 2; in line order its time goes 100 s -> 50 s at line 2
    rows = [dict(source="a.log", line_no=1, ts_ms=100_000), dict(source="a.log", line_no=3, ts_ms=101_000),
            dict(source="a.log", line_no=2, ts_ms=50_000)]
    assert _backs(rows) == ([("a.log", 2, -50_000)], [("a.log", 2, -50_000)])


def test_a_broker_rebalance_line_without_extra_fields_is_no_epoch_bump():
    # a classic broker's "Preparing to rebalance" line is of the same kind and has no group epoch
    rows = KIP848_ROWS[:1] + [dict(group_id="g", source="broker.log", line_no=11, ts_ms=100_000,
                                   kind="broker_rebalance_preparing")] + KIP848_ROWS[2:3]
    assert tf.anchor_diffs(_cols(rows)) == tf.table_facts(_table(rows))[1] == []


def _random_rows(rng):
    rows = []
    for f in range(rng.randint(1, 4)):
        t = rng.randint(0, 100_000)
        lines = rng.sample(range(1, 40), rng.randint(1, 8))
        for line in sorted(lines):
            t += rng.choice((0, 10, 500, 999, 1_000, 1_001, 30_000, -500, -999, -1_000, -1_001, -30_000))
            rows.append(dict(source=f"{'abcd'[f]}.log", line_no=line, ts_ms=None if rng.random() < 0.1 else t))
    how = rng.choice(("shuffled", "file order", "file runs, lines shuffled"))
    if how == "shuffled":
        rng.shuffle(rows)
    elif how == "file runs, lines shuffled":
        runs = {}
        for r in rows:
            runs.setdefault(r["source"], []).append(r)
        rows = []
        for rs in runs.values():
            rng.shuffle(rs)
            rows += rs
    return rows


def test_table_backs_equal_back_jumps_on_random_rows():
    import random

    rng = random.Random(848)
    seen = 0
    for _ in range(300):
        rows = _random_rows(rng)
        lists, table = _backs(rows)
        assert table == lists, rows
        seen += bool(lists)
    assert seen > 100     # (the draw does produce back-jumps)


# one anchor proving a clock set back (the file's own times go back between it and the anchor before):
# the change is measured from the level the file ran at, and the time must go back by half of it or more
def test_one_anchor_sets_a_clock_back_from_the_level_the_file_ran_at():
    # the host ran 20 s ahead, then 10 s ahead: a step of -10 s; its times went back 9.9 s at line 25
    diffs = [("a.log", 20_000, 10, True), ("a.log", 20_040, 20, True), ("a.log", 10_000, 30, True)]
    assert tf.clock_steps(diffs, [("a.log", 25, -9_900)]) == {"a.log": (20_000, (tf.Step(20, 30, 10_000),))}
    # 20 s behind, then 30 s behind: the same step of -10 s
    diffs = [("a.log", -20_000, 10, True), ("a.log", -19_960, 20, True), ("a.log", -30_000, 30, True)]
    assert tf.clock_steps(diffs, [("a.log", 25, -9_900)]) == {"a.log": (-20_000, (tf.Step(20, 30, -30_000),))}
    # and forward by 10 s from 20 s ahead, whatever the file's times do: one anchor proves nothing
    diffs = [("a.log", 20_000, 10, True), ("a.log", 20_040, 20, True), ("a.log", 30_000, 30, True)]
    assert tf.clock_steps(diffs, [("a.log", 25, -9_900)]) == {}


def test_one_anchor_sets_a_clock_back_at_the_edges_of_the_rule():
    base = [("a.log", 0, 10, True), ("a.log", 40, 20, True)]

    def steps(d, backs):
        return tf.clock_steps(base + [("a.log", d, 30, True)], backs)

    # a change of exactly STEP_MIN_MS (the least back-jump back_jumps reports is the same 1 s) is one
    assert steps(-1_000, [("a.log", 25, -1_000)]) == {"a.log": (0, (tf.Step(20, 30, -1_000),))}
    assert steps(-999, [("a.log", 25, -1_000)]) == {}
    # the file's time going back by exactly half the change is enough, by less is not
    assert steps(-30_000, [("a.log", 25, -15_000)]) == {"a.log": (0, (tf.Step(20, 30, -30_000),))}
    assert steps(-30_000, [("a.log", 25, -14_999)]) == {}
    assert steps(-30_000, [("a.log", 25, -12_000)]) == {}
    # after the anchor before (line 20) and up to the anchor itself (line 30): a jump at line 20 came
    # before that anchor, which already shows the level before the step
    assert steps(-30_000, [("a.log", 30, -29_000)]) == {"a.log": (0, (tf.Step(20, 30, -30_000),))}
    assert steps(-30_000, [("a.log", 20, -29_000)]) == {}
    assert steps(-30_000, [("a.log", 31, -29_000)]) == {}


def test_a_level_begun_by_one_anchor_is_the_median_of_all_its_anchors_and_can_step_again():
    back = [("a.log", 25, -29_000)]
    # set back 30 s at line 30 (one anchor), then two more anchors around that level, 1.2 s below it and
    # 0.1 s below it (join lines printed late by up to a second or so): the level is the median of its
    # three anchors, -30.1 s; none of the anchors before the step counts in it
    diffs = [("a.log", 0, 10, True), ("a.log", 40, 20, True), ("a.log", -30_000, 30, True),
             ("a.log", -31_200, 40, True), ("a.log", -30_100, 50, True)]
    assert tf.clock_steps(diffs, back) == {"a.log": (0, (tf.Step(20, 30, -30_100),))}
    # set back at line 30, set right again from line 40 (two anchors): two steps
    diffs = [("a.log", 0, 10, True), ("a.log", 40, 20, True), ("a.log", -30_000, 30, True),
             ("a.log", 0, 40, True), ("a.log", 10, 50, True)]
    assert tf.clock_steps(diffs, back) == {"a.log": (0, (tf.Step(20, 30, -30_000), tf.Step(30, 40, 0)))}


@pytest.mark.parametrize("path", ["lists", "table"])
def test_a_files_anchor_is_its_earliest_join_of_the_generation_whatever_the_row_order(path):
    # broker: generation 5 stabilized at 10.000 s; a.log's member joined it at 10.200 s (line 3), then its
    # process restarted (static membership) and rejoined the same generation alone at 70.000 s (line 40):
    # that second join is no anchor (GroupCoordinator.updateStaticMemberAndRebalance, 2.3+)
    rows = [dict(group_id="g", source="broker.log", line_no=100, ts_ms=10_000, kind="broker_group_stabilized",
                 generation=5, side="broker"),
            dict(group_id="g", source="a.log", line_no=3, ts_ms=10_200, kind="join_succeeded", generation=5),
            dict(group_id="g", source="a.log", line_no=40, ts_ms=70_000, kind="join_succeeded", generation=5)]
    for order in (rows, rows[::-1], [rows[2], rows[0], rows[1]]):
        got = tf.anchor_diffs(_cols(order)) if path == "lists" else tf.table_facts(_table(order))[1]
        assert got == [("a.log", 200, 3, True)]
