"""coordscope's own JVM code: the candidate-line filter as a Java UDF, built from source on demand.

Why a Java UDF: Spark's `rlike` runs java.util.regex, which tries each of the ~60 alternatives of
the candidate regex at every position of every line; that made the candidate filter 10x the cost
of reading the lines (BENCHMARKS.md, ingest). `jvm/CandidateFilter.java` walks each line once with
an Aho-Corasick automaton instead. It runs inside the JVM like `rlike` does: no line crosses to
Python before it is known to be a candidate.

The source ships inside the package; the jar is compiled with the JDK's `javac` against the
pyspark install's `spark-sql-api` jar, once per source version, into a cache folder
(`$COORDSCOPE_CACHE`, else `$XDG_CACHE_HOME/coordscope`, else `~/.cache/coordscope`). The session
puts it on `spark.jars`, which also ships it to a cluster's executors. Without a JDK the job still
runs, with `rlike` and a warning saying why it is slow.
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

SOURCES = tuple(sorted((Path(__file__).with_name("jvm")).glob("*.java")))
CLASS_NAME = "coordscope.spark.CandidateFilter"
SCANNER_CLASS = "coordscope.spark.SplitScanner"
PATHS_CLASS = "coordscope.spark.PathNames"
UDF_NAME = "coordscope_candidate"
SCAN_UDF_NAME = "coordscope_scan_split"
SCAN_RESULT_DDL = "n_lines bigint, problem string, idx array<bigint>, text string, chars array<int>, gaps binary"


class JarUnavailable(RuntimeError):
    """The Java UDF jar could not be built here (no javac, no pyspark jars); the message says why."""


def cache_dir() -> Path:
    root = os.environ.get("COORDSCOPE_CACHE")
    if root:
        return Path(root)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "coordscope"


def _javac() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and os.path.exists(os.path.join(home, "bin", "javac")):
        return os.path.join(home, "bin", "javac")
    return shutil.which("javac")


def _spark_classpath() -> str:
    import pyspark

    jars = os.path.join(os.path.dirname(pyspark.__file__), "jars")
    if not glob.glob(os.path.join(jars, "spark-sql-api_*.jar")):
        raise JarUnavailable(f"the pyspark install has no Spark jars to compile against (looked in {jars})")
    return os.path.join(jars, "*")


def jar_path() -> Path:
    """The filter jar for the current source, compiled now if the cache does not have it.

    Raises JarUnavailable with a one-line reason when it cannot be built.
    """
    h = hashlib.sha256()
    for src in SOURCES:
        h.update(src.name.encode() + b"\0" + src.read_bytes())
    digest = h.hexdigest()[:16]
    target = cache_dir() / f"coordscope-spark-{digest}.jar"
    if target.exists():
        return target
    javac = _javac()
    if javac is None:
        raise JarUnavailable("no javac on PATH or JAVA_HOME (install openjdk-17-jdk-headless)")
    classpath = _spark_classpath()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        classes = Path(tmp) / "classes"
        proc = subprocess.run(
            [javac, "--release", "17", "-nowarn", "-cp", classpath, "-d", str(classes), *map(str, SOURCES)],
            capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            raise JarUnavailable(f"javac failed: {(proc.stderr or proc.stdout).strip()[:300]}")
        staged = Path(tmp) / target.name
        with zipfile.ZipFile(staged, "w", zipfile.ZIP_DEFLATED) as jar:
            for f in sorted(classes.rglob("*.class")):
                jar.write(f, f.relative_to(classes).as_posix())
        os.replace(staged, target)   # atomic: a concurrent build leaves one complete jar
    return target


def split_candidate_regex(regex: str) -> tuple[list[str], str, bool] | None:
    """(words, rest, anchored) for the filter, or None when the regex has no such shape.

    words: the plain literal alternatives (found anywhere in a line); rest: the other top-level
    alternatives as one regex; anchored: every one of them starts with `^`, so trying them at
    position 0 only (Matcher.lookingAt) is the same as searching the line.
    """
    from pipeline.spark.regex_shape import java_flavour, literal_alternatives

    shape = literal_alternatives(regex)
    if shape is None:
        return None
    words, rest = shape
    anchored = all(r.startswith("^") for r in rest)
    return words, java_flavour("|".join(rest)), anchored


def has_class(spark, name: str) -> bool:
    """Whether the session's JVM can load class `name` (coordscope's jar is on spark.jars)."""
    jvm = spark._jvm
    try:
        jvm.java.lang.Class.forName(name, True, jvm.java.lang.Thread.currentThread().getContextClassLoader())
    except Exception:   # py4j wraps ClassNotFoundException
        return False
    return True


def _new_filter(spark, regex: str):
    """A JVM CandidateFilter for `regex`, or None when the class is not on the session's classpath
    or the regex has no literal-words shape (the caller then uses rlike)."""
    shape = split_candidate_regex(regex)
    if shape is None:
        return None
    words, rest, anchored = shape
    jvm = spark._jvm
    if not has_class(spark, CLASS_NAME):   # the jar is not on this session
        return None
    arr = spark.sparkContext._gateway.new_array(jvm.java.lang.String, len(words))
    for i, w in enumerate(words):
        arr[i] = w
    return getattr(jvm, CLASS_NAME)(arr, rest, anchored)


def register_candidate_filter(spark, regex: str) -> bool:
    """Register `coordscope_candidate(binary) -> boolean` for `regex`; False when unavailable."""
    f = _new_filter(spark, regex)
    if f is None:
        return False
    spark._jsparkSession.udf().register(UDF_NAME, f, spark._jvm.org.apache.spark.sql.types.DataTypes.BooleanType)
    return True


def register_split_scanner(spark, regex: str, max_chars: int, continuation: str, handover_max: int) -> bool:
    """Register `coordscope_scan_split(uri, start, length, all_lines, rule) -> SCAN_RESULT_DDL` (see
    jvm/SplitScanner.java): candidate lines by `regex`, lines matching `continuation` (a regex
    anchored at the line start) handed over across split boundaries, at most `handover_max` per
    boundary. False when unavailable."""
    from pipeline.spark.regex_shape import java_flavour

    f = _new_filter(spark, regex)
    if f is None:
        return False
    jvm = spark._jvm
    scanner = getattr(jvm, SCANNER_CLASS)(f, max_chars, java_flavour(continuation), handover_max)
    result = jvm.org.apache.spark.sql.types.DataType.fromDDL(SCAN_RESULT_DDL)
    spark._jsparkSession.udf().register(SCAN_UDF_NAME, scanner, result)
    return True
