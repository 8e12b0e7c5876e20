"""worker_daemon: the Python workers of coordscope's sessions fork from a daemon that has the
parsers and replay rules imported, and nothing that starts threads is imported before the fork."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def test_preload_imports_pure_python_modules_only_and_reports_failures():
    code = (
        "import json, sys, threading\n"
        "from pipeline.spark import worker_daemon\n"
        "failed = worker_daemon.preload(worker_daemon.PRELOAD + ('no_such_module_here',))\n"
        "print(json.dumps({'failed': failed, 'loaded': [m for m in worker_daemon.PRELOAD if m in sys.modules],\n"
        "                  'threads': threading.active_count(), 'pyarrow': 'pyarrow' in sys.modules,\n"
        "                  'pandas': 'pandas' in sys.modules}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    got = json.loads(out.strip().splitlines()[-1])
    from pipeline.spark import worker_daemon

    assert got == {"failed": ["no_such_module_here"], "loaded": list(worker_daemon.PRELOAD), "threads": 1,
                   "pyarrow": False, "pandas": False}


@pytest.mark.spark
def test_session_workers_fork_from_the_coordscope_daemon(spark):
    """A Python task of the shared test session runs in a worker forked from worker_daemon, with
    the parsers already imported before its task arrived."""

    def where(batches):
        import sys

        import pyarrow as pa

        main = getattr(sys.modules["__main__"], "__spec__", None)
        for _ in batches:
            yield pa.record_batch({"daemon": [main.name if main else None],
                                   "parsers": ["parsers.client" in sys.modules]})

    rows = spark.range(1, numPartitions=1).mapInArrow(where, "daemon string, parsers boolean").collect()
    assert [(r["daemon"], r["parsers"]) for r in rows] == [("pipeline.spark.worker_daemon", True)]


@pytest.mark.spark
def test_session_workers_run_the_hot_path_this_process_runs(spark):
    """The workers' parsers come through the same finder (parsers/_accel.py): the compiled modules
    where they are built and match their .py, else the .py, as in the driver."""
    import parsers.reader
    from parsers import _accel

    def where(batches):
        import sys

        import pyarrow as pa

        from parsers import _accel

        for _ in batches:
            yield pa.record_batch({"reader": [sys.modules["parsers.reader"].__file__],
                                   "client": [sys.modules["parsers.client"].__file__], "status": [_accel.status()]})

    rows = spark.range(1, numPartitions=1).mapInArrow(where, "reader string, client string, status string").collect()
    client = sys.modules["parsers.client"]
    assert [(r["reader"], r["client"], r["status"]) for r in rows] == [(parsers.reader.__file__, client.__file__,
                                                                        _accel.status())]


def test_cli_asks_arrow_for_the_system_allocator_unless_the_user_chose():
    """pipeline/arrow_pool: the CLI's process sets ARROW_DEFAULT_MEMORY_POOL=system before any
    command imports pyarrow; a value the user set is kept."""
    import os

    code = ("import contextlib, io\n"
            "from pipeline import cli\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    cli.main([])\n"
            "import pyarrow as pa\n"
            "print(pa.default_memory_pool().backend_name)\n")
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.split() == ["system"]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**env, "ARROW_DEFAULT_MEMORY_POOL": "jemalloc"})
    assert out.stdout.split() == ["jemalloc"]


@pytest.mark.spark
def test_session_workers_use_the_system_allocator(spark):
    """A forked worker's Arrow default pool is the system allocator (pipeline/arrow_pool.py): the
    worker daemon sets it before the fork."""

    def pool(batches):
        import pyarrow as pa

        for _ in batches:
            yield pa.record_batch({"pool": [pa.default_memory_pool().backend_name]})

    rows = spark.range(1, numPartitions=1).mapInArrow(pool, "pool string").collect()
    assert [r["pool"] for r in rows] == ["system"]
