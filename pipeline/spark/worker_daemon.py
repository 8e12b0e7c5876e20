"""The Python worker daemon of coordscope's Spark jobs: pyspark's own daemon (`pyspark.daemon`),
with the pure-Python modules every worker needs imported once, before it forks the workers.

Why: Spark forks a Python worker from this daemon for each concurrently running Python task, and
a fresh worker imported the parsers (their rule tables are built at import) and the replay
rules itself: about half a second of CPU per worker, paid by five or six workers in one ingest on
two cores. Imported here, the forked workers share them (copy-on-write; `gc.freeze` keeps the
collector from touching, and so copying, those pages).

Only modules that start no thread are imported (coordscope's own, run as Python or, for the parse
hot path, compiled: parsers/_accel.py, the same finder as in the driver): pyarrow and pandas start
threads when imported, and a process must not fork with threads running (pyspark.daemon imports its
worker module after the fork for the same reason). A module that fails to import here is left to the worker, which then
reports the error in the task that needs it.

Spark runs it as `python -m pipeline.spark.worker_daemon` (session setting
`spark.python.daemon.module`, see job.DEFAULT_CONF).
"""

from __future__ import annotations

import gc
import importlib
import sys

# pyspark.worker: the module pyspark's daemon imports in every forked worker. Spark puts its
# pyspark.zip first on the workers' path, and Python compiles a module imported from a zip every
# time (no .pyc is cached there): 0.10-0.14 CPU-s per worker, measured. It imports no pyarrow or
# pandas and starts no thread (pyspark 4.3; test_worker_daemon checks both).
# (parsers.reader, not parsers: the package loads its reader on first use, docs/parsers.md)
PRELOAD = ("parsers.reader", "pipeline.replay", "pipeline.spark.parse_stage", "pipeline.spark.worker_gc", "pyspark.worker")


def preload(modules: tuple[str, ...] = PRELOAD) -> list[str]:
    """Import `modules`; returns the ones that could not be imported."""
    failed = []
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the worker imports it again and reports the error
            failed.append(name)
    client = sys.modules.get("parsers.client")
    if client is not None and hasattr(client, "make_all_combos"):
        client.make_all_combos()  # made at first need otherwise, in each worker: made once here, shared
    gc.collect()
    gc.freeze()
    return failed


def warm_worker(batches):
    """A warm-up task (job.start_python_workers, a mapInArrow): what the job's tasks import in a
    forked worker (pyarrow is imported after the fork, see above)."""
    import pyarrow as pa

    n = 0
    try:        # never fails the warm-up job: its errors would reach the user's terminal as Spark's
        importlib.import_module("pipeline.spark.parse_stage")
        n = sum(getattr(b, "num_rows", 1) for b in batches)
    except Exception:  # noqa: BLE001 - the job's own tasks import it again and report the error
        pass
    yield pa.RecordBatch.from_pydict({"n": [n]})


if __name__ == "__main__":
    from pipeline.arrow_pool import prefer_system_allocator

    prefer_system_allocator()      # before the fork: the workers import pyarrow after it
    preload()
    from pyspark.daemon import manager

    manager()
