"""Spark session creation, with a clear message instead of a Py4J trace when Java is missing."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

MIN_JAVA = 17


def cache_level():
    """Storage level of the job's intermediate DataFrames (scoped events, timeline, replay rows).

    On disk, serialized: they are about 5 % of the input, so in memory they would grow the
    executor's heap with the input; in local mode that heap is the driver's (BENCHMARKS.md, ingest:
    driver peak memory against input size).
    """
    from pyspark import StorageLevel

    return StorageLevel.DISK_ONLY


class JavaError(RuntimeError):
    """No usable Java runtime for Spark."""


def java_version(java: str | None = None) -> int | None:
    """Major version of the Java on JAVA_HOME or PATH, or None when there is none."""
    if java is None:
        home = os.environ.get("JAVA_HOME")
        java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.path.exists(java):
        return None
    from pipeline.spark.class_archive import java_version_text

    out = java_version_text(java)     # (run once per process: the class archive's key reads it too)
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if not m:
        return None
    major = int(m.group(1))
    return int(m.group(2) or 0) if major == 1 else major


def check_java() -> int:
    v = java_version()
    if v is None:
        raise JavaError(
            f"Spark needs Java {MIN_JAVA}+ but no 'java' was found on PATH or JAVA_HOME; "
            "install openjdk-17-jdk-headless (Debian/Ubuntu) or run 'bash scripts/ensure_java.sh'"
        )
    if v < MIN_JAVA:
        raise JavaError(
            f"Spark 4 needs Java {MIN_JAVA}+ but found Java {v}; install openjdk-17-jdk-headless "
            "or point JAVA_HOME at a Java 17+ runtime"
        )
    return v


JAR_PROBLEM: list[str] = []   # why the Java filter jar is missing, for the job's warnings


def filter_jar():
    """Path of the Java candidate-filter jar, or None (reason kept in JAR_PROBLEM)."""
    from pipeline.spark import jvm

    try:
        return jvm.jar_path()
    except (jvm.JarUnavailable, OSError, subprocess.SubprocessError) as exc:
        JAR_PROBLEM[:] = [str(exc)]
        return None


LOG4J2_CONF = Path(__file__).with_name("log4j2.properties")


def driver_java_options(master: str, extra: str = "") -> str:
    """The driver JVM's options. On local masters that JVM also runs the tasks, and there the
    throughput collector (ParallelGC) beats G1, whose concurrent threads and write barriers
    compete with the tasks for the same cores: about 6% of an ingest's wall time at 1 GB
    on local[2] (medians of three alternated runs, BENCHMARKS.md, ingest). A cluster's executors
    keep their own settings. The log4j2 file keeps Spark's start-up chatter off the terminal."""
    opts = "-Duser.timezone=UTC"
    if master.startswith("local"):
        opts += " -XX:+UseParallelGC"
    if LOG4J2_CONF.is_file():
        opts += f' "-Dlog4j2.configurationFile={LOG4J2_CONF.as_uri()}"'
    return f"{opts} {extra}" if extra else opts


# What the JVM prints on its standard error that tells the user nothing: the java launcher's
# notice about the incubator module Spark 4 adds (it is printed before any logging is set up, so
# log4j2.properties cannot hold it back).
_JVM_NOISE = (b"WARNING: Using incubator modules",)


def _forward_stderr(stream) -> None:
    """Copy the JVM's standard error to ours, line by line, without the known noise and without
    what it prints after an interrupt stopped it (pipeline.signals.stopping)."""
    from pipeline.signals import stopping

    out = getattr(sys.stderr, "buffer", None)
    for line in iter(stream.readline, b""):
        if line.startswith(_JVM_NOISE) or out is None or stopping.is_set():
            continue
        try:
            out.write(line)
            out.flush()
        except (OSError, ValueError):     # our stderr closed: keep draining the pipe
            out = None


def _launch_quiet_gateway(builder) -> None:
    """Start the driver JVM (as PySpark would, with the builder's settings) with its standard
    error read through _forward_stderr. Nothing happens when a JVM is already running (an earlier
    session in this process, or spark-submit's own)."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None or "PYSPARK_GATEWAY_PORT" in os.environ:
        return
    conf = SparkConf()
    for k, v in builder._options.items():
        conf.set(k, v)
    gateway = launch_gateway(conf, popen_kwargs={"stderr": subprocess.PIPE})
    proc = getattr(gateway, "proc", None)
    if proc is not None and proc.stderr is not None:
        threading.Thread(target=_forward_stderr, args=(proc.stderr,), name="jvm-stderr", daemon=True).start()
    SparkContext._ensure_initialized(gateway=gateway, conf=conf)


class _KeepSigint:
    """The `signal` module as SparkContext sees it while it starts under the CLI: every call passes
    through, but a SIGINT handler is not installed (the CLI's stays)."""

    def __getattr__(self, name: str):
        return getattr(signal, name)

    @staticmethod
    def signal(signum, handler):
        if signum == signal.SIGINT:
            return signal.getsignal(signum)
        return signal.signal(signum, handler)


# the class archive the session built last should dump at its end (class_archive; None: nothing to do)
_ARCHIVE_TO_DUMP: list = [None]
ARCHIVE_STATE: dict = {}     # what the last build_session did with the class archive: {"state": ..., "path": ...}


def build_session(master: str = "local[*]", app_name: str = "coordscope", extra_conf: dict | None = None,
                  record_classes: bool = False, class_archive: bool = True):
    """A SparkSession in UTC with the UI off and few shuffle partitions (batch of modest size).

    On local masters the driver JVM maps the class archive of earlier runs when there is one
    (pipeline/spark/class_archive.py); without one, `record_classes` (the CLI's ingest) has it
    record what `save_class_archive` dumps at the end; `class_archive=False` does neither (an
    ingest of large inputs: class_archive.worth_it)."""
    from pyspark import SparkContext

    from pipeline.spark import class_archive as archives

    check_java()
    # Python workers must run this interpreter (its virtualenv has pandas/pyarrow/parsers);
    # PySpark otherwise starts a bare `python3`. A deployment's own PYSPARK_PYTHON wins.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.executor.extraJavaOptions", "-Duser.timezone=UTC")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        # Python workers fork from a daemon that has the parsers and replay rules imported
        # (pipeline/spark/worker_daemon.py)
        .config("spark.python.daemon.module", "pipeline.spark.worker_daemon")
    )
    conf = dict(extra_conf or {})
    jar = filter_jar()
    if jar is not None:   # coordscope's Java UDFs; spark.jars also ships them to a cluster's executors
        conf["spark.jars"] = ",".join(j for j in (conf.get("spark.jars"), str(jar)) if j)
    _ARCHIVE_TO_DUMP[0], archive, todo, archive_opts = None, None, None, ""
    ARCHIVE_STATE.clear()
    new_jvm = SparkContext._gateway is None and "PYSPARK_GATEWAY_PORT" not in os.environ
    # (the user's own JVM options are used as they are; a JVM already running keeps its own)
    if class_archive and new_jvm and "spark.driver.extraJavaOptions" not in conf:
        archive_opts, archive, todo = archives.java_options(master, conf, record_classes)
    conf.setdefault("spark.driver.extraJavaOptions", driver_java_options(master, archive_opts))
    if todo == "record":
        _ARCHIVE_TO_DUMP[0] = archive
    for k, v in conf.items():
        builder = builder.config(k, v)
    interrupt = signal.getsignal(signal.SIGINT)
    _launch_quiet_gateway(builder)
    if getattr(interrupt, "coordscope_stops_jvm", False):
        # SparkContext installs a SIGINT handler that calls into the JVM (cancelAllJobs) and raises
        # KeyboardInterrupt inside Py4J; the CLI's handler (pipeline/signals.py) stops the JVM instead.
        # It is kept from being installed at all: restoring ours afterwards left a window in which a
        # Ctrl-C reached PySpark's handler mid-start (a Py4J traceback, seen when Spark started fast)
        import pyspark.core.context as context

        saved, context.signal = context.signal, _KeepSigint()
        try:
            spark = builder.getOrCreate()
        finally:
            context.signal = saved
        signal.signal(signal.SIGINT, interrupt)
    else:
        spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    if todo is not None:
        ARCHIVE_STATE.update(state=todo, path=str(archive))
    proc = getattr(SparkContext._gateway, "proc", None) if todo == "use" else None
    if proc is not None and archives.mapped(proc.pid, archive) is False:
        # refused by the JVM (its class path or base archive changed): started as without one;
        # the next run records a fresh archive
        archives.forget(archive)
        ARCHIVE_STATE["state"] = "refused"
    return spark


def archive_pending() -> bool:
    """Whether the session built last still has a class archive to save (`save_class_archive`
    needs its JVM running)."""
    return _ARCHIVE_TO_DUMP[0] is not None


def save_class_archive(spark, progress=None) -> None:
    """Dump the class archive this session was started to record (once per Java and Spark
    install: class_archive), saying so on `progress`; nothing when there is none to make."""
    from pipeline.spark import class_archive

    archive, _ARCHIVE_TO_DUMP[0] = _ARCHIVE_TO_DUMP[0], None
    if archive is None:
        return
    if progress is not None:
        progress.say("saving Spark's loaded classes for faster starts (once per Java and Spark version) ...")
    took = class_archive.dump(spark, archive)
    ARCHIVE_STATE.update(state="saved" if took is not None else "not saved", path=str(archive))
    if progress is not None:
        progress.say(f"  saved in {took:.1f}s" if took is not None else "  not saved; the next run tries again")


def stop_jvm() -> None:
    """Stop the Spark session and the driver JVM this process started. `spark.stop()` leaves the
    JVM (about 840 MB in local mode) running until Python exits; the demo calls this before it
    serves the dashboard, which needs no JVM. The JVM's gateway server exits when its standard
    input closes (PythonGatewayServer)."""
    from pyspark import SparkContext

    if SparkContext._active_spark_context is not None:
        SparkContext._active_spark_context.stop()
    gateway = SparkContext._gateway
    if gateway is None:
        return
    proc = getattr(gateway, "proc", None)
    try:
        gateway.shutdown()
    except Exception:  # noqa: BLE001 - the JVM may be gone already; what matters is the process below
        pass
    if proc is not None:
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=15)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
    SparkContext._gateway = None
    SparkContext._jvm = None
