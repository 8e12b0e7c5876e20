"""Reading lines with exact provenance (file, 1-based line number) and the JVM-side candidate filter.

Design (measured in benchmarks/ingest_bench.py, see docs/pipeline.md): one scan of the input.
`spark.read.text` yields one row per line; every row carries its file (`_metadata.file_path`) and
the start of the split it was read from (`_metadata.file_block_start`); `monotonically_increasing_id()`
numbers rows consecutively inside a partition, and the rows of one split are consecutive there.
A single aggregate per (file, split) then gives, without Python:

- `n_lines`: lines in the split (Hadoop's line reader assigns a line to the split it starts in),
- `rid0`: the id of the split's first row, so `rid - rid0` is a row's index inside its split,
- `cands`: only the candidate rows (`value rlike CANDIDATE_REGEX`) with their ids,
- `head_rid`: the first candidate that is not a continuation line (see below).

A running sum of `n_lines` over the splits of a file (a window over a handful of rows) turns that
into exact line numbers. Non-candidate lines are only counted, never materialised. `.gz` files are
one split. The split aggregate is persisted so the scan happens once.

Multi-line records: parsing runs per (file, unit), where a unit is a split. Candidate lines at the
start of a split that look like continuations (indented, `Caused by`, `... N more`) are moved to the
unit of the previous split that has a record head, so a record never loses its continuation lines
at a split boundary.
"""

from __future__ import annotations

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

# Continuation lines of a multi-line record (tab/space-indented, Java stack-trace lines).
CONTINUATION_REGEX = r"^(\s|Caused by:|\.\.\. \d+ (more|common frames omitted))"
# Longer candidate lines are not parsed (they become `unparsed`, why=overlong); their text is cut.
MAX_LINE_CHARS = 64 * 1024


def read_blocks(spark: SparkSession, uris: list[str], candidate_regex: str) -> DataFrame:
    """One row per (file, split): spath, block, n_lines, rid0, head_rid, cands (array of rid, value, chars).

    The result is persisted; the caller unpersists it when done.
    """
    raw = spark.read.text(uris)
    base = raw.select(
        F.col("_metadata.file_path").alias("spath"),
        F.col("_metadata.file_block_start").alias("block"),
        F.monotonically_increasing_id().alias("rid"),
        F.col("value"),
    ).withColumn("cand", F.col("value").rlike(candidate_regex))
    is_head = F.col("cand") & ~F.col("value").rlike(CONTINUATION_REGEX)
    chars = F.length("value")
    cand_row = F.struct(
        F.col("rid"),
        F.when(chars > MAX_LINE_CHARS, F.substring("value", 1, MAX_LINE_CHARS)).otherwise(F.col("value")).alias("value"),
        chars.alias("chars"),
    )
    blocks = base.groupBy("spath", "block").agg(
        F.count(F.lit(1)).alias("n_lines"),
        F.min("rid").alias("rid0"),
        F.min(F.when(is_head, F.col("rid"))).alias("head_rid"),
        F.collect_list(F.when(F.col("cand"), cand_row)).alias("cands"),
    )
    return blocks.persist(StorageLevel.MEMORY_AND_DISK)


def with_offsets(blocks: DataFrame) -> DataFrame:
    """Add lines_before (lines of the file in earlier splits) and unit (split whose parser gets a
    leading continuation)."""
    w = Window.partitionBy("spath").orderBy("block")
    before = w.rowsBetween(Window.unboundedPreceding, -1)
    return blocks.withColumn(
        "lines_before", F.coalesce(F.sum("n_lines").over(before), F.lit(0)).cast("bigint")
    ).withColumn(
        "prev_head_block", F.last(F.when(F.col("head_rid").isNotNull(), F.col("block")), ignorenulls=True).over(before)
    )


def candidates(blocks: DataFrame) -> DataFrame:
    """One row per candidate line: spath, unit, line_no, value, chars."""
    b = with_offsets(blocks)
    c = b.select(
        "spath", "block", "lines_before", "rid0", "head_rid", "prev_head_block", F.explode("cands").alias("c")
    )
    leading_cont = F.col("head_rid").isNull() | (F.col("c.rid") < F.col("head_rid"))
    unit = F.when(leading_cont & F.col("prev_head_block").isNotNull(), F.col("prev_head_block")).otherwise(F.col("block"))
    return c.select(
        "spath",
        unit.alias("unit"),
        (F.col("lines_before") + (F.col("c.rid") - F.col("rid0")) + 1).alias("line_no"),
        F.col("c.value").alias("value"),
        F.col("c.chars").alias("chars"),
    )


def file_counts(blocks: DataFrame) -> DataFrame:
    """Per file: lines read and candidate lines (everything else is ignored, decided on the JVM)."""
    return blocks.groupBy("spath").agg(
        F.sum("n_lines").cast("bigint").alias("lines_read"),
        F.sum(F.size("cands")).cast("bigint").alias("candidates"),
        F.count(F.lit(1)).alias("splits"),
    )
