"""The cooperative-sticky recommendation names the group's size only when the logs prove it."""

from __future__ import annotations

from pipeline.report.recommend import recommend


def _section(counts: list[int | None]) -> dict:
    timeline = [{"generation": i + 1, "cause": "unknown", "protocol": "range", "member_count": n,
                 "duration_ms": 12_000} for i, n in enumerate(counts)]
    return {"group_id": "g", "observed": {}, "timeline": timeline}


def _coop(counts: list[int | None]) -> str:
    (rec,) = [r for r in recommend(_section(counts), []) if r["id"] == "cooperative-sticky"]
    return rec["text"]


def test_a_proven_size_is_stated():
    assert "every rebalance stops all 12 members." in _coop([12, 11])


def test_an_unknown_count_makes_the_size_a_lower_bound():
    text = _coop([12, None])
    assert "stops all" not in text
    assert "stops every member (at least 12 in one generation; some generations' counts are unknown)." in text
