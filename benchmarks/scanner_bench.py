"""The JVM split scanner (pipeline/spark/jvm/SplitScanner.java) alone, outside Spark, against
reading the same bytes and counting newlines in the same JVM and run (benchmarks/jvm/ScanBench.java).

The filter gets the job's own arguments (parsers.CANDIDATE_REGEX split by jvm.split_candidate_regex,
lines.MAX_LINE_CHARS, CONTINUATION_REGEX, HANDOVER_MAX_LINES) and the files are cut in splits of
Spark's default maxPartitionBytes (128 MB), as the ingest does. Figures are the benchmark
thread's CPU seconds, per round; the first round includes the JIT's warm-up.

    PYTHONPATH=$PWD python benchmarks/scanner_bench.py FILE... [--rounds 5] [--jfr OUT.jfr]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    from parsers.reader import CANDIDATE_REGEX, CONTINUATION_REGEX
    from pipeline.spark import jvm
    from pipeline.spark.lines import HANDOVER_MAX_LINES, MAX_LINE_CHARS
    from pipeline.spark.regex_shape import java_flavour

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--split-bytes", type=int, default=128 * 1024 * 1024)
    ap.add_argument("--jfr", help="record a JFR profile into this file (every JIT compilation included)")
    ap.add_argument("--java-opt", action="append", default=[], help="an extra JVM option (repeatable)")
    args = ap.parse_args()
    jar = jvm.jar_path()
    classpath = os.pathsep.join([str(jar), jvm._spark_classpath()])
    words, rest, anchored = jvm.split_candidate_regex(CANDIDATE_REGEX)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["javac", "--release", "17", "-nowarn", "-cp", classpath, "-d", tmp,
                        str(HERE / "jvm" / "ScanBench.java")], check=True)
        argfile = Path(tmp) / "args"
        argfile.write_text("\0".join([*words, "", rest, str(anchored).lower(), java_flavour(CONTINUATION_REGEX),
                                      str(MAX_LINE_CHARS), str(HANDOVER_MAX_LINES), jvm.SCAN_RESULT_DDL]),
                           encoding="utf-8")
        opts = ["-XX:+UseParallelGC", "-Xmx2g"]
        if args.jfr:
            opts.append(f"-XX:StartFlightRecording=filename={args.jfr},settings=profile,jdk.Compilation#threshold=0ms")
        opts += args.java_opt
        print(f"jar {jar.name}; {os.cpu_count()} cores, load {os.getloadavg()}, {platform.python_version()}",
              flush=True)
        subprocess.run(["java", *opts, "-cp", os.pathsep.join([tmp, classpath]), "ScanBench", str(argfile),
                        str(args.split_bytes), str(args.rounds), *args.files], check=True)
        print(f"load after {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
