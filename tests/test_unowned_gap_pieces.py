"""The pieces of a gap with no owner that a member the logs do not show held (pipeline/figures.py:
_minus, unowned_gaps with unlogged_owned_spans), stated whole on hand-made spans: the parts of
[lo, hi) outside the spans and inside them, nothing of zero length, nothing outside [lo, hi).
Written for the surviving _minus mutants of the twentieth session's mutation pass (docs/testing.md)."""

from __future__ import annotations

import pandas as pd

from pipeline import figures


def test_the_parts_of_a_span_outside_and_inside_others():
    # a span reaching back before lo covers [lo, 40): no empty piece before it
    assert figures._minus(10_000, 70_000, [(5_000, 40_000)]) == ([(40_000, 70_000)], [(10_000, 40_000)])
    # spans that only touch [lo, hi), or lie outside it, take nothing from it
    assert figures._minus(10_000, 70_000, [(70_000, 90_000), (1_000, 10_000), (80_000, 90_000)]) == (
        [(10_000, 70_000)], [])
    # two spans inside: three pieces outside, two inside (overlapping spans are one)
    assert figures._minus(0, 100, [(20, 30), (25, 40), (60, 70)]) == ([(0, 20), (40, 60), (70, 100)],
                                                                      [(20, 40), (60, 70)])


def test_a_gap_a_member_without_lines_held_in_part_is_that_part_held_and_the_rest_estimated():
    # A held t-0 until 10 s, B from 70 s. A stable eager generation gave t-0, from 5 s to its end at
    # 40 s, to a member whose assignment no line shows (unlogged_owned_spans): 10-40 s is held (not a
    # gap), 40-70 s is a gap estimated for that member, which may have held it all (it revoked at the
    # rebalance that ended its generation, or later)
    own = pd.DataFrame([
        {"group_id": "g", "topic": "t", "partition": 0, "start_ms": 0, "end_ms": 10_000, "end_reason": "revoked",
         "inferred": False, "member_id": "A"},
        {"group_id": "g", "topic": "t", "partition": 0, "start_ms": 70_000, "end_ms": None, "end_reason": "log_end",
         "inferred": False, "member_id": "B"}])
    held: list[dict] = []
    gaps = figures.unowned_gaps(own, None, {"g": [(5_000, 40_000, frozenset({"t-1"}), True)]}, held)
    assert gaps == [{"group_id": "g", "topic": "t", "partition": 0, "from_ms": 40_000, "to_ms": 70_000,
                     "ms": 30_000, "estimated": True, "why": ["unlogged"], "maybe_owned_ms": 30_000}]
    assert held == [{"group_id": "g", "topic": "t", "partition": 0, "from_ms": 10_000, "to_ms": 40_000}]
    # the span's generation did not give t-0 away (a known assignment holds it): the whole gap, exact
    held = []
    gaps = figures.unowned_gaps(own, None, {"g": [(5_000, 40_000, frozenset({"t-0"}), True)]}, held)
    assert gaps == [{"group_id": "g", "topic": "t", "partition": 0, "from_ms": 10_000, "to_ms": 70_000,
                     "ms": 60_000, "estimated": False, "why": [], "maybe_owned_ms": 0}]
    assert held == []
