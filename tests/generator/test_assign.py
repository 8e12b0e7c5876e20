"""The leader's assignment: the local rules match Kafka's documented outputs, and match the reference
assignors (pipeline.coordinator.assignors) whenever those are present."""

from __future__ import annotations

import importlib.util

import pytest

from pipeline.generator.assign import Sub, assign


def subs(n, topics=("orders",), static=()):
    return [Sub(f"c{i}-{i:04d}", static[i] if i < len(static) else None, topics) for i in range(n)]


def test_range_gives_first_members_the_extra_partitions():
    got = assign("range", subs(3), {"orders": 8}, local=True)
    assert got == {"c0-0000": ["orders-0", "orders-1", "orders-2"], "c1-0001": ["orders-3", "orders-4", "orders-5"],
                   "c2-0002": ["orders-6", "orders-7"]}


def test_range_orders_static_members_first():
    got = assign("range", subs(2, static=(None, "a-static")), {"orders": 4}, local=True)
    assert got["c1-0001"] == ["orders-0", "orders-1"]


def test_roundrobin_spreads_across_topics():
    got = assign("roundrobin", subs(2, topics=("a", "b")), {"a": 2, "b": 1}, local=True)
    assert got == {"c0-0000": ["a-0", "b-0"], "c1-0001": ["a-1"]}


def test_sticky_keeps_owned_partitions():
    s = [Sub("m1", None, ("t",), ("t-0", "t-1", "t-2"), 3), Sub("m2", None, ("t",), (), -1)]
    got = assign("sticky", s, {"t": 4}, local=True)
    assert set(got["m1"]) <= {"t-0", "t-1", "t-2"} and len(got["m1"]) == 2 and len(got["m2"]) == 2


@pytest.mark.skipif(importlib.util.find_spec("pipeline.coordinator.assignors") is None,
                    reason="reference assignors not on this branch yet")
@pytest.mark.parametrize("name", ["range", "roundrobin"])
@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_local_rules_agree_with_reference(name, n):
    s = subs(n, topics=("orders", "payments"))
    parts = {"orders": 8, "payments": 3}
    assert assign(name, s, parts, local=True) == {m: sorted(p, key=lambda x: (x.rsplit("-", 1)[0], int(x.rsplit("-", 1)[1])))
                                                   for m, p in assign(name, s, parts).items()}
