"""A class-data-sharing archive of the classes the driver JVM loads, so later runs start faster.

Why: a local ingest's JVM spends most of its first seconds loading, verifying and linking about
fifteen thousand Spark, Scala and Hadoop classes, serially, before and during the first job (about
8 of the ~27 CPU-seconds of a `sample_logs/` ingest: BENCHMARKS.md, fixed costs). Java 17 can
dump the classes a running JVM has loaded into an archive (`jcmd VM.cds dynamic_dump`, on a JVM
started with `-XX:+RecordDynamicDumpInfo`; JDK 17's DiagnosticCommand MBean) and map it at the
next start (`-XX:SharedArchiveFile`): those classes are then neither parsed nor verified again.

How it is used:
- The archive lives in the cache folder of the filter jar (`jvm.cache_dir()`), named by a key of
  everything it depends on: the java binary and its full `-version` text, the Spark jars (names,
  sizes, times), the driver's extra class path and coordscope's jar. Another Java or Spark gets
  another archive; the JVM itself refuses one whose class path or base archive differs and starts
  without it (`-Xshare:auto`, its warnings off).
- Only on local masters (the driver JVM that also runs the tasks); a cluster's driver and
  executors keep their settings.
- The first `coordscope ingest` without an archive records (`-XX:+RecordDynamicDumpInfo`) and,
  after its RUN_DIR is complete, dumps into a temporary file that is renamed into place, with its
  size written beside it: a truncated archive crashes Java 17 at start (checked), so an archive
  whose size differs from the recorded one is deleted instead of used.
- `COORDSCOPE_CLASS_ARCHIVE=0` turns it off.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

ENV_SWITCH = "COORDSCOPE_CLASS_ARCHIVE"
PREFIX = "spark-classes-"
KEEP = 3            # archives of other keys (other Java or Spark installs) kept, the newest
# the JVM's own messages about the archive (a refused one, classes it cannot store) are not the user's business
QUIET = "-Xlog:cds*=off"


# Inputs above this many bytes of text start without the archive. Measured on local[2]
# (BENCHMARKS.md, eighth session, the lead's re-measure): the archive saves a fixed few seconds
# of start (sample_logs/, 3 MB; at 1 GB 27.4 vs 29.2 s, one run: about even) but the same JVM
# then spent more CPU on every GB (2 GB:
# 43.0 and 43.3 s wall against 40.3 and 39.0 without, JVM 44-46 against 39-40 CPU s, in two
# alternated runs); the cause was not found, so it is used only where it was measured to win.
MAX_INPUT_BYTES = 1 << 30
# a .gz is counted at this many times its size (text logs compress about 8-15x)
GZ_EXPANSION = 10


def worth_it(sizes: list[tuple[int, bool]]) -> bool:
    """Whether inputs of these (size in bytes, gzipped) are small enough for the archive to win."""
    return sum(n * (GZ_EXPANSION if gz else 1) for n, gz in sizes) <= MAX_INPUT_BYTES


def enabled(master: str) -> bool:
    return master.strip().startswith("local") and os.environ.get(ENV_SWITCH, "1") != "0"


def _java() -> str | None:
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    return java if java and os.path.exists(java) else None


@functools.lru_cache(maxsize=4)
def java_version_text(java: str) -> str:
    """What `java -version` prints (on stderr); empty when it cannot run."""
    try:
        return subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.TimeoutExpired):
        return ""


def key(extra_conf: dict[str, str] | None = None) -> str | None:
    """What the archive depends on, hashed; None when there is no java or no Spark jars."""
    import pyspark

    java = _java()
    if java is None:
        return None
    version = java_version_text(java)
    if not version:
        return None
    jars_dir = os.path.join(os.environ.get("SPARK_HOME") or os.path.dirname(pyspark.__file__), "jars")
    jars = sorted(glob.glob(os.path.join(jars_dir, "*.jar")))
    if not jars:
        return None
    h = hashlib.sha256()
    for part in (os.path.realpath(java), version, pyspark.__version__, os.environ.get("SPARK_CONF_DIR", ""),
                 (extra_conf or {}).get("spark.driver.extraClassPath", ""),
                 (extra_conf or {}).get("spark.jars", "")):
        h.update(part.encode() + b"\0")
    for j in jars:
        st = os.stat(j)
        h.update(f"{os.path.basename(j)}:{st.st_size}:{st.st_mtime_ns}\0".encode())
    return h.hexdigest()[:16]


def path_for(k: str) -> Path:
    from pipeline.spark.jvm import cache_dir

    return cache_dir() / f"{PREFIX}{k}.jsa"


def _size_file(archive: Path) -> Path:
    return archive.with_suffix(".size")


def usable(archive: Path) -> bool:
    """The archive is there, complete (its size is the one recorded when it was renamed into place)."""
    try:
        want = int(_size_file(archive).read_text(encoding="ascii").strip())
        return archive.stat().st_size == want > 0
    except (OSError, ValueError):
        return False


def java_options(master: str, extra_conf: dict[str, str] | None = None,
                 record: bool = False) -> tuple[str, Path | None, str | None]:
    """(driver JVM options, archive, what to do with it: "use", "record" or None). With a usable
    archive: use it. Without one (an incomplete one is never mapped) and `record`: record what
    the dump needs; the caller dumps with `dump` when its work is done."""
    if not enabled(master):
        return "", None, None
    k = key(extra_conf)
    if k is None:
        return "", None, None
    archive = path_for(k)
    if usable(archive):
        return f"-XX:SharedArchiveFile={archive} -Xshare:auto {QUIET}", archive, "use"
    if not record:
        return "", None, None
    return f"-XX:+RecordDynamicDumpInfo {QUIET}", archive, "record"


def mapped(pid: int, archive: Path) -> bool | None:
    """Whether the JVM `pid` has `archive` mapped (it refuses a stale one and starts without it);
    None where /proc does not say."""
    try:
        with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as fh:
            return str(archive) in fh.read()
    except OSError:
        return None


def forget(archive: Path) -> None:
    """Remove an archive the JVM refused: the next run records and dumps a fresh one."""
    for p in (archive, _size_file(archive)):
        try:
            p.unlink()
        except OSError:
            pass


def dump(spark, archive: Path) -> float | None:
    """Dump the classes the session's JVM has loaded into `archive` (via the DiagnosticCommand
    MBean, as `jcmd VM.cds dynamic_dump` would); seconds it took, or None when it failed (the
    next run then starts without an archive and tries again)."""
    t = time.monotonic()
    archive.parent.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(archive.parent)
    tmp = archive.parent / f".{archive.name}.{os.getpid()}.tmp"
    try:
        jvm, gw = spark._jvm, spark.sparkContext._gateway
        server = jvm.java.lang.management.ManagementFactory.getPlatformMBeanServer()
        name = jvm.javax.management.ObjectName("com.sun.management:type=DiagnosticCommand")
        cls = jvm.java.lang.Class
        types = gw.new_array(cls, 4)
        for i, c in enumerate(("javax.management.ObjectName", "java.lang.String", "[Ljava.lang.Object;",
                               "[Ljava.lang.String;")):
            types[i] = cls.forName(c)
        # through the public interface's Method: the platform server's own class is not accessible to Py4J
        invoke = cls.forName("javax.management.MBeanServerConnection").getMethod("invoke", types)
        words = gw.new_array(jvm.java.lang.String, 2)
        words[0], words[1] = "dynamic_dump", str(tmp)
        params = gw.new_array(jvm.java.lang.Object, 1)
        params[0] = words
        signature = gw.new_array(jvm.java.lang.String, 1)
        signature[0] = "[Ljava.lang.String;"
        call = gw.new_array(jvm.java.lang.Object, 4)
        call[0], call[1], call[2], call[3] = name, "vmCds", params, signature
        # the JDK prints "Dynamic dump to file ..." on System.out, which is our stdout: silenced meanwhile
        system = jvm.java.lang.System
        out = system.out
        system.setOut(jvm.java.io.PrintStream(jvm.java.io.OutputStream.nullOutputStream()))
        try:
            invoke.invoke(server, call)
        finally:
            system.setOut(out)
        size = tmp.stat().st_size
        if size <= 0:
            raise OSError("empty archive")
        # the size first: a start that sees the new archive finds its size already recorded
        _size_file(archive).write_text(str(size), encoding="ascii")
        os.replace(tmp, archive)
    except Exception:  # noqa: BLE001 - an archive is an optimisation: without one the next run starts as before
        try:
            tmp.unlink()
        except OSError:
            pass
        return None
    _prune(archive)
    return time.monotonic() - t


def _remove_leftovers(folder: Path) -> None:
    """Temporary dumps of processes that are gone (a dump cut short by Ctrl-C)."""
    for p in folder.glob(f".{PREFIX}*.tmp"):
        try:
            pid = int(p.name.rsplit(".", 2)[-2])
        except ValueError:
            continue
        if not os.path.exists(f"/proc/{pid}"):
            try:
                p.unlink()
            except OSError:
                pass


def _prune(current: Path) -> None:
    """Keep the KEEP newest archives besides `current` (another venv's Spark may still use one)."""
    others = sorted((p for p in current.parent.glob(f"{PREFIX}*.jsa") if p != current),
                    key=lambda p: p.stat().st_mtime, reverse=True)
    for p in others[KEEP:]:
        forget(p)
