"""Which allocator Arrow uses in coordscope's processes: the system's (glibc malloc), not the
bundled mimalloc.

Why: a Python worker of the per-group pass reads its bucket's Parquet rows, replays them and
frees them group after group. mimalloc keeps freed pages for reuse, so the worker's resident
memory stays near its high-water mark of everything it ever read; glibc returns large blocks
(Arrow's column buffers) to the system when they are freed. Measured on the 1 GB input where one
group holds 90% of the events (BENCHMARKS.md, ninth session): the hot worker peaked at 628-648 MB
with the system allocator against 746-860 MB with mimalloc, CPU unchanged.

Arrow reads ARROW_DEFAULT_MEMORY_POOL once, when pyarrow is first imported, so this must run
before that import: in the CLI's process before any command, and in the worker daemon before it
forks the workers (they import pyarrow after the fork, pipeline/spark/worker_daemon.py). A value
the user set is kept."""

from __future__ import annotations

import os

ENV = "ARROW_DEFAULT_MEMORY_POOL"
PREFERRED = "system"


def prefer_system_allocator() -> None:
    """Ask Arrow for the system allocator in this process and the processes it starts, unless the
    environment names one already."""
    os.environ.setdefault(ENV, PREFERRED)
