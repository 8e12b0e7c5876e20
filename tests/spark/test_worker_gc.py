"""worker_gc: the collector is paused for the work and always enabled again."""

from __future__ import annotations

import gc

import pytest

from pipeline.spark import worker_gc


def test_paused_enables_the_collector_again_also_after_an_error():
    assert gc.isenabled()
    with worker_gc.paused() as tidy:
        assert not gc.isenabled()
        tidy()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), worker_gc.paused():
        raise ValueError("task failed")
    assert gc.isenabled()


def test_call_paused_returns_the_result_and_collects_young_cycles():
    def work(n):
        assert not gc.isenabled()
        for _ in range(n):
            a: list = []
            a.append(a)            # cyclic garbage: only the collector frees it
        return n

    gc.collect()
    assert worker_gc.call_paused(work, 1000) == 1000
    assert gc.isenabled()
    assert not any(isinstance(o, list) and len(o) == 1 and o[0] is o for o in gc.get_objects(generation=0))
    with pytest.raises(ZeroDivisionError):
        worker_gc.call_paused(lambda: 1 / 0)
    assert gc.isenabled()
