"""Independent Spark jobs submitted from several driver threads at once.

After the parse, the job writes eight tables through about a dozen Spark jobs. One after the
other, the executors sat idle at every job boundary (planning, result handling on the driver) and
during each stage's last tasks; submitted together, the jobs fill each other's gaps (Spark's
scheduler shares the executors between the jobs of all threads). PySpark maps each Python
thread to its own JVM thread, so the threads do not wait on each other's calls.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from typing import Any


def run_all(tasks: dict[str, Callable[[], Any]], done: Callable[[str, float], None],
            cancel: Callable[[], None]) -> dict[str, Any]:
    """Run every task on its own driver thread and return {name: result}; `done(name, seconds)`
    as each one ends. A task may wait for a value another one produces (`Later`).

    On the first failure the Spark jobs still running are cancelled (`cancel`), every thread is
    waited for, and that failure is raised: nothing keeps writing once the caller cleans up.
    """
    with ThreadPoolExecutor(max_workers=max(1, len(tasks)), thread_name_prefix="coordscope-job") as pool:
        futures = {name: pool.submit(_timed, name, fn, done) for name, fn in tasks.items()}
        finished, _ = wait(futures.values(), return_when=FIRST_EXCEPTION)
        failed = [f for f in finished if f.exception() is not None]
        if failed:
            cancel()
            wait(futures.values())
            raise failed[0].exception()  # type: ignore[misc]
        return {name: f.result() for name, f in futures.items()}


def _timed(name: str, fn: Callable[[], Any], done: Callable[[str, float], None]) -> Any:
    start = time.monotonic()
    result = fn()
    done(name, time.monotonic() - start)
    return result


class Later:
    """A value one task produces and others wait for (a Future set by hand)."""

    def __init__(self) -> None:
        self._f: Future = Future()

    def set(self, value: Any) -> Any:
        self._f.set_result(value)
        return value

    def fail(self, exc: BaseException) -> None:
        self._f.set_exception(exc)

    def get(self) -> Any:
        return self._f.result()
