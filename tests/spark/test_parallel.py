"""parallel.run_all: tasks run together, wait for each other's values, and fail cleanly."""

from __future__ import annotations

import threading
import time

import pytest

from pipeline.spark import parallel


def test_tasks_run_together_and_wait_for_values_they_need():
    later = parallel.Later()
    both_running = threading.Barrier(2, timeout=5)   # deadlocks unless two tasks run at once
    done: list[str] = []

    def producer():
        both_running.wait()
        return later.set(41)

    def consumer():
        both_running.wait()
        return later.get() + 1

    out = parallel.run_all({"consumer": consumer, "producer": producer},
                           lambda name, took: done.append(name), lambda: None)
    assert out == {"consumer": 42, "producer": 41}
    assert sorted(done) == ["consumer", "producer"]


def test_a_failure_cancels_the_rest_waits_for_them_and_is_raised():
    cancelled = threading.Event()
    finished: list[str] = []

    def slow():
        cancelled.wait(5)           # a running Spark job, stopped by the cancel
        time.sleep(0.1)
        finished.append("slow")

    def broken():
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        parallel.run_all({"slow": slow, "broken": broken}, lambda n, t: None, cancelled.set)
    assert cancelled.is_set()
    assert finished == ["slow"]     # waited for before the error reached the caller


def test_a_failed_producer_fails_its_waiters():
    later = parallel.Later()

    def producer():
        exc = ValueError("no timeline")
        later.fail(exc)
        raise exc

    with pytest.raises(ValueError, match="no timeline"):
        parallel.run_all({"p": producer, "w": lambda: later.get()}, lambda n, t: None, lambda: None)
