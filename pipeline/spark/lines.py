"""Reading lines with exact provenance (file, 1-based line number) and the JVM-side candidate filter.

Design (measured in benchmarks/ingest_bench.py, see docs/pipeline.md): one pass over the input,
all on the JVM. The driver cuts each file into splits (plain files in pieces of
`spark.sql.files.maxPartitionBytes`, compressed files whole) and every split becomes one task
that runs `jvm/SplitScanner.java`: it reads the split's bytes through Hadoop's FileSystem and
walks them once with the candidate automaton, returning the split's line count and its candidate
lines (index in the split, text). No row is built for a non-candidate line: it is only counted.
Line and split boundaries follow Hadoop's LineRecordReader, as `spark.read.text` does. Without
the coordscope jar (no JDK to build it) the same per-split rows come from `spark.read.text`, an
rlike filter and one hash aggregate, about ten times slower.

A running sum of line counts over the splits of a file turns indexes into exact line numbers.

Multi-line records: parsing runs per (file, unit), where a unit is a split. Candidate lines at the
start of a split that look like continuations (indented, `Caused by`, `... N more`) are moved to the
unit of the previous split that has a record head, so a record never loses its continuation lines
at a split boundary.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from pipeline.spark import jvm
from pipeline.spark.regex_shape import fast_regex
from pipeline.spark.session import cache_level

# Continuation lines of a multi-line record (tab/space-indented, Java stack-trace lines).
CONTINUATION_REGEX = r"^(\s|Caused by:|\.\.\. \d+ (more|common frames omitted))"
# Longer candidate lines are not parsed (they become `unparsed`, why=overlong); their text is cut.
MAX_LINE_CHARS = 64 * 1024
ROW_BITS = 33                       # monotonically_increasing_id: row number in the low 33 bits
ROW_MASK = (1 << ROW_BITS) - 1


COMPRESSED = (".gz", ".bz2", ".deflate", ".lz4", ".snappy", ".zst")   # Hadoop's codecs: never split here
SPLIT_DDL = "spath string, uri string, block bigint, length bigint, whole boolean"


@dataclass
class Scan:
    """The persisted scan, one row per split: spath, block, n_lines, problem, cands (array of
    struct(idx, value, chars), idx = 0-based line index in the split); and which reader made it."""

    rows: DataFrame
    filter: str          # "java" (pipeline/spark/jvm.py) or "rlike" (fallback, about 10x slower)

    def unpersist(self) -> None:
        self.rows.unpersist()


def spark_path(spark: SparkSession, uri: str) -> str:
    """The string Spark puts in `_metadata.file_path` for this file (qualified, URL-encoded)."""
    jvm_ = spark._jvm
    p = jvm_.org.apache.hadoop.fs.Path(uri)
    q = p.getFileSystem(spark._jsc.hadoopConfiguration()).makeQualified(p)
    s = jvm_.org.apache.spark.paths.SparkPath.fromPath(q).urlEncoded()
    # the file index lists local files as file:/x, makeQualified gives file:///x
    return "file:/" + s[len("file:///"):] if s.startswith("file:///") else s


def file_size(spark: SparkSession, uri: str) -> int:
    p = spark._jvm.org.apache.hadoop.fs.Path(uri)
    return int(p.getFileSystem(spark._jsc.hadoopConfiguration()).getFileStatus(p).getLen())


def plan_splits(files: list[tuple[str, str, int]], split_bytes: int, whole: set[str]) -> list[tuple]:
    """(spath, uri, block, length, whole) per split of each (spath, uri, size): plain files in
    pieces of split_bytes, compressed ones whole (as Spark's text source does)."""
    out = []
    for spath, uri, size in files:
        if uri.lower().endswith(COMPRESSED) or size <= split_bytes:
            out.append((spath, uri, 0, max(size, 0), spath in whole))
            continue
        for block in range(0, size, split_bytes):
            out.append((spath, uri, block, min(split_bytes, size - block), spath in whole))
    return out


def read_blocks(spark: SparkSession, uris: list[str], candidate_regex: str,
                whole_files: list[str] | None = None) -> Scan:
    """Read `uris` once: line counts and candidate lines per split, persisted (the caller
    unpersists). With the coordscope jar, each split is read by jvm/SplitScanner.java on the
    executors; without it, by `spark.read.text` and an rlike aggregate (same result, slower).

    `whole_files` (Spark paths) bypass the candidate filter: every line of them goes to the parser.
    `kafka-consumer-groups --describe` tables need it: their data rows carry no fixed word.
    """
    whole = set(whole_files or ())
    if jvm.register_split_scanner(spark, candidate_regex, MAX_LINE_CHARS):
        split_bytes = max(1, int(spark._jvm.org.apache.spark.network.util.JavaUtils.byteStringAsBytes(
            spark.conf.get("spark.sql.files.maxPartitionBytes"))))
        files = [(spark_path(spark, u), u, file_size(spark, u)) for u in uris]
        plan = plan_splits(files, split_bytes, whole)
        tasks = spark.createDataFrame(plan, SPLIT_DDL).repartition(max(len(plan), 1))
        r = F.call_function(jvm.SCAN_UDF_NAME, "uri", "block", "length", "whole")
        rows = tasks.select("spath", "block", r.alias("r")).persist(cache_level())
        rows.count()
        return Scan(rows.select("spath", "block", "r.n_lines", "r.problem", "r.cands"), "java")
    return Scan(_read_with_rlike(spark, uris, candidate_regex, whole_files), "rlike")


def _read_with_rlike(spark: SparkSession, uris: list[str], candidate_regex: str,
                     whole_files: list[str] | None) -> DataFrame:
    """The fallback reader, all on Spark's own operators (no coordscope jar).

    Every split is its own partition (opening a file is made to cost a full split, so the reader
    never packs two splits together), and `monotonically_increasing_id()` is `partition id << 33 |
    row number in the partition`: its low 33 bits are a row's line index in its split. One hash
    aggregate keeps each candidate line and each split's first line as their own groups and
    counts the rest per split.
    """
    split = spark.conf.get("spark.sql.files.maxPartitionBytes")
    spark.conf.set("spark.sql.files.openCostInBytes", split)
    cand = F.col("value").rlike(fast_regex(candidate_regex))
    if whole_files:
        cand = cand | F.col("_metadata.file_path").isin(list(whole_files))
    base = spark.read.text(uris).select(
        F.spark_partition_id().alias("pid"),
        F.monotonically_increasing_id().alias("line_id"),
        F.col("value").alias("line"),
        F.col("_metadata.file_path").alias("file"),
        F.col("_metadata.file_block_start").alias("offset"),
        cand.alias("cand"),
    )
    first = F.col("line_id").bitwiseAND(F.lit(ROW_MASK)) == 0
    chars = F.length("line")
    text = F.when(chars > MAX_LINE_CHARS, F.substring("line", 1, MAX_LINE_CHARS)).otherwise(F.col("line"))
    path_hash = F.xxhash64("file")
    agg = base.groupBy(
        "pid",
        F.when(F.col("cand") | first, F.col("line_id")).alias("rid"),
        F.when(F.col("cand"), text).alias("value"),
        F.when(F.col("cand"), chars).alias("chars"),
        F.when(first, F.col("file")).alias("spath"),
        F.when(first, F.col("offset")).alias("block"),
    ).agg(
        F.count(F.lit(1)).alias("n"),
        # guards: one file and one split per partition, else line numbers would be wrong
        F.min(path_hash).alias("path_lo"), F.max(path_hash).alias("path_hi"),
        F.min("offset").alias("block_lo"), F.max("offset").alias("block_hi"),
    )
    cand_row = F.when(F.col("value").isNotNull(), F.struct(
        F.col("rid").bitwiseAND(F.lit(ROW_MASK)).alias("idx"), F.col("value"), F.col("chars")))
    rows = agg.groupBy("pid").agg(
        F.max("spath").alias("spath"), F.max("block").alias("block"),
        F.sum("n").cast("bigint").alias("n_lines"), F.lit(None).cast("string").alias("problem"),
        F.array_sort(F.collect_list(cand_row)).alias("cands"),
        ((F.min("path_lo") != F.max("path_hi")) | (F.min("block_lo") != F.max("block_hi"))).alias("mixed"),
    ).persist(cache_level())
    if rows.where("mixed").limit(1).count():
        rows.unpersist()
        raise RuntimeError("Spark packed two file splits into one partition; line numbers would be wrong "
                           "(is spark.sql.files.openCostInBytes overridden?)")
    return rows.drop("pid", "mixed")


def splits(scan: Scan) -> DataFrame:
    """One row per split: spath, block, n_lines, candidates, head_idx (first candidate that is not
    a continuation line), problem."""
    heads = F.filter("cands", lambda c: ~c["value"].rlike(CONTINUATION_REGEX))
    return scan.rows.select(
        "spath", "block", F.col("n_lines").cast("bigint").alias("n_lines"),
        F.size("cands").cast("bigint").alias("candidates"),
        F.get(heads, 0)["idx"].alias("head_idx"), "problem",
    )


def with_offsets(split_rows: DataFrame) -> DataFrame:
    """Add lines_before (lines of the file in earlier splits) and prev_head_block (the last earlier
    split of the file with a record head: the unit that gets a leading continuation)."""
    w = Window.partitionBy("spath").orderBy("block")
    before = w.rowsBetween(Window.unboundedPreceding, -1)
    return split_rows.withColumn(
        "lines_before", F.coalesce(F.sum("n_lines").over(before), F.lit(0)).cast("bigint")
    ).withColumn(
        "prev_head_block", F.last(F.when(F.col("head_idx").isNotNull(), F.col("block")), ignorenulls=True).over(before)
    )


def candidates(scan: Scan) -> DataFrame:
    """One row per candidate line: spath, unit, line_no, value, chars."""
    sp = with_offsets(splits(scan)).select("spath", "block", "lines_before", "head_idx", "prev_head_block")
    c = scan.rows.select("spath", "block", F.explode("cands").alias("c")).join(F.broadcast(sp), ["spath", "block"])
    leading_cont = F.col("head_idx").isNull() | (F.col("c.idx") < F.col("head_idx"))
    unit = F.when(leading_cont & F.col("prev_head_block").isNotNull(), F.col("prev_head_block")).otherwise(F.col("block"))
    return c.select(
        "spath",
        unit.alias("unit"),
        (F.col("lines_before") + F.col("c.idx") + 1).alias("line_no"),
        F.col("c.value").alias("value"),
        F.col("c.chars").alias("chars"),
    )


def file_counts(scan: Scan) -> DataFrame:
    """Per file: lines read, candidate lines (everything else is ignored, decided on the JVM),
    splits, and why reading stopped early (if it did)."""
    return splits(scan).groupBy("spath").agg(
        F.sum("n_lines").cast("bigint").alias("lines_read"),
        F.sum("candidates").cast("bigint").alias("candidates"),
        F.count(F.lit(1)).alias("splits"),
        F.array_join(F.collect_list("problem"), "; ").alias("problems"),
    )
