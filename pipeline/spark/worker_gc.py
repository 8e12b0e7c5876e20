"""The cyclic garbage collector, paused while a Python worker runs coordscope's per-row work.

Parsing and replaying build many small container objects (events, tuples, dicts) and keep large
memos alive; CPython's cyclic collector kept traversing them: a third of the parse stage's
Python time (measured: 22.7 µs -> 14.6 µs per candidate line; BENCHMARKS.md, ingest). What we
build is freed by reference counting (no cycles), so the collector is paused for the work and
a young-generation collection runs between output batches, which bounds whatever cyclic garbage
a library might leave. A Python worker serves one task at a time, so nothing else runs in it
while the collector is paused.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def paused() -> Iterator[Callable[[], None]]:
    """Pause the collector; yields `tidy()`, a young-generation collection to call between batches.
    The collector is enabled again on exit (also when the task fails or is cancelled)."""
    gc.disable()
    try:
        yield lambda: gc.collect(1)
    finally:
        gc.enable()


def call_paused(fn: Callable[..., Any], *args: Any) -> Any:
    """fn(*args) with the collector paused, then one young-generation collection."""
    gc.disable()
    try:
        return fn(*args)
    finally:
        gc.enable()
        gc.collect(1)
