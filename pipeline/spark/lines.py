"""Reading lines with exact provenance (file, 1-based line number) and the JVM-side candidate filter.

Design (measured in benchmarks/ingest_bench.py, see docs/pipeline.md): one scan of the input, all
on the JVM. `spark.read.text` yields one row per line. Every split is its own partition (opening a
file is made to cost a full split, so the reader never packs two splits together), and
`monotonically_increasing_id()` is `partition id << 33 | row number inside the partition`, so its
low 33 bits are a row's line index inside its split.

One hash aggregate (whole-stage generated code, fixed-width buffers) then keeps:

- every candidate line (`coordscope_candidate(value)`, the Java filter of pipeline/spark/jvm.py,
  or `rlike` without it) as its own group, with its id and text;
- the first line of every split as its own group, carrying the split's file and offset;
- everything else as one group per split, whose count is all that survives of it.

Per split, the sum of the counts is its line count; a running sum over the splits of a file turns
row numbers into exact line numbers. Non-candidate lines are only counted, never materialised; the
persisted result is about the size of the candidate lines. `.gz` files are one split.

Multi-line records: parsing runs per (file, unit), where a unit is a split. Candidate lines at the
start of a split that look like continuations (indented, `Caused by`, `... N more`) are moved to the
unit of the previous split that has a record head, so a record never loses its continuation lines
at a split boundary.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from pipeline.spark import jvm
from pipeline.spark.regex_shape import fast_regex

# Continuation lines of a multi-line record (tab/space-indented, Java stack-trace lines).
CONTINUATION_REGEX = r"^(\s|Caused by:|\.\.\. \d+ (more|common frames omitted))"
# Longer candidate lines are not parsed (they become `unparsed`, why=overlong); their text is cut.
MAX_LINE_CHARS = 64 * 1024
ROW_BITS = 33                       # monotonically_increasing_id: row number in the low 33 bits
ROW_MASK = (1 << ROW_BITS) - 1


def candidate_column(spark: SparkSession, candidate_regex: str) -> tuple[Column, str]:
    """(boolean column over `value`, how it is computed): the Java filter when the session has it."""
    if jvm.register_candidate_filter(spark, candidate_regex):
        return F.call_function(jvm.UDF_NAME, F.col("value").cast("binary")), "java"
    return F.col("value").rlike(fast_regex(candidate_regex)), "rlike"


@dataclass
class Scan:
    """The persisted scan (see read_blocks) and which candidate filter produced it."""

    rows: DataFrame
    filter: str          # "java" (pipeline/spark/jvm.py) or "rlike" (fallback, about 10x slower)

    def unpersist(self) -> None:
        self.rows.unpersist()


def read_blocks(spark: SparkSession, uris: list[str], candidate_regex: str,
                whole_files: list[str] | None = None) -> Scan:
    """One scan of `uris`: rows (pid, rid, value, chars, spath, block, n), persisted; see the
    module docstring. The caller unpersists it.

    `whole_files` (Spark paths) bypass the candidate filter: every line of them goes to the parser.
    `kafka-consumer-groups --describe` tables need it: their data rows carry no fixed word.
    """
    split = spark.conf.get("spark.sql.files.maxPartitionBytes")
    spark.conf.set("spark.sql.files.openCostInBytes", split)
    cand, how = candidate_column(spark, candidate_regex)
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
    rows = base.groupBy(
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
    ).persist(StorageLevel.MEMORY_AND_DISK)
    mixed = rows.groupBy("pid").agg(
        ((F.min("path_lo") != F.max("path_hi")) | (F.min("block_lo") != F.max("block_hi"))).alias("mixed"))
    if mixed.where("mixed").limit(1).count():
        rows.unpersist()
        raise RuntimeError("Spark packed two file splits into one partition; line numbers would be wrong "
                           "(is spark.sql.files.openCostInBytes overridden?)")
    return Scan(rows, how)


def splits(scan: Scan) -> DataFrame:
    """One row per split: pid, spath, block, n_lines, candidates, head_rid (first candidate that is
    not a continuation line)."""
    is_head = F.col("value").isNotNull() & ~F.col("value").rlike(CONTINUATION_REGEX)
    return scan.rows.groupBy("pid").agg(
        F.max("spath").alias("spath"),
        F.max("block").alias("block"),
        F.sum("n").cast("bigint").alias("n_lines"),
        F.count("value").cast("bigint").alias("candidates"),
        F.min(F.when(is_head, F.col("rid"))).alias("head_rid"),
    )


def with_offsets(split_rows: DataFrame) -> DataFrame:
    """Add lines_before (lines of the file in earlier splits) and prev_head_block (the last earlier
    split of the file with a record head: the unit that gets a leading continuation)."""
    w = Window.partitionBy("spath").orderBy("block")
    before = w.rowsBetween(Window.unboundedPreceding, -1)
    return split_rows.withColumn(
        "lines_before", F.coalesce(F.sum("n_lines").over(before), F.lit(0)).cast("bigint")
    ).withColumn(
        "prev_head_block", F.last(F.when(F.col("head_rid").isNotNull(), F.col("block")), ignorenulls=True).over(before)
    )


def candidates(scan: Scan) -> DataFrame:
    """One row per candidate line: spath, unit, line_no, value, chars."""
    sp = with_offsets(splits(scan)).select("pid", "spath", "block", "lines_before", "head_rid", "prev_head_block")
    c = scan.rows.where(F.col("value").isNotNull()).select("pid", "rid", "value", "chars").join(F.broadcast(sp), "pid")
    leading_cont = F.col("head_rid").isNull() | (F.col("rid") < F.col("head_rid"))
    unit = F.when(leading_cont & F.col("prev_head_block").isNotNull(), F.col("prev_head_block")).otherwise(F.col("block"))
    return c.select(
        "spath",
        unit.alias("unit"),
        (F.col("lines_before") + F.col("rid").bitwiseAND(F.lit(ROW_MASK)) + 1).alias("line_no"),
        "value",
        "chars",
    )


def file_counts(scan: Scan) -> DataFrame:
    """Per file: lines read and candidate lines (everything else is ignored, decided on the JVM)."""
    return splits(scan).groupBy("spath").agg(
        F.sum("n_lines").cast("bigint").alias("lines_read"),
        F.sum("candidates").cast("bigint").alias("candidates"),
        F.count(F.lit(1)).alias("splits"),
    )
