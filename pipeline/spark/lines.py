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

    Every split is its own partition (opening a file is made to cost as much as a full split, so
    the file reader never packs two splits into one partition); the aggregate is then keyed by
    the partition id, an int, which is several times cheaper per line than a (path, offset) key.
    The result is persisted; the caller unpersists it when done.
    """
    split = spark.conf.get("spark.sql.files.maxPartitionBytes")
    spark.conf.set("spark.sql.files.openCostInBytes", split)
    raw = spark.read.text(uris)
    base = raw.select(
        F.spark_partition_id().alias("pid"),
        F.col("_metadata.file_path").alias("spath"),
        F.col("_metadata.file_block_start").alias("block"),
        F.monotonically_increasing_id().alias("rid"),
        F.col("value"),
    ).withColumn("cand", F.col("value").rlike(fast_regex(candidate_regex)))
    is_head = F.col("cand") & ~F.col("value").rlike(CONTINUATION_REGEX)
    chars = F.length("value")
    cand_row = F.struct(
        F.col("rid"),
        F.when(chars > MAX_LINE_CHARS, F.substring("value", 1, MAX_LINE_CHARS)).otherwise(F.col("value")).alias("value"),
        chars.alias("chars"),
    )
    blocks = base.groupBy("pid").agg(
        F.first("spath").alias("spath"),
        F.min("block").alias("block"),
        F.max("block").alias("block_max"),
        F.count(F.lit(1)).alias("n_lines"),
        F.min("rid").alias("rid0"),
        F.min(F.when(is_head, F.col("rid"))).alias("head_rid"),
        F.collect_list(F.when(F.col("cand"), cand_row)).alias("cands"),
    ).persist(StorageLevel.MEMORY_AND_DISK)
    if blocks.where(F.col("block") != F.col("block_max")).limit(1).count():
        blocks.unpersist()
        raise RuntimeError("Spark packed two file splits into one partition; line numbers would be wrong "
                           "(is spark.sql.files.openCostInBytes overridden?)")
    return blocks.drop("pid", "block_max")


_META = set("\\.[]{}()*+?^$|")


def _split_top(rx: str) -> list[str]:
    """Top-level alternatives of a regex (escapes and groups respected)."""
    parts, depth, cur, i = [], 0, "", 0
    while i < len(rx):
        c = rx[i]
        if c == "\\" and i + 1 < len(rx):
            cur += rx[i:i + 2]
            i += 2
            continue
        depth += (c == "(") - (c == ")")
        if c == "|" and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    parts.append(cur)
    return parts


def _literal(alt: str) -> str | None:
    """The literal text of an alternative, or None when it uses regex syntax."""
    out, i = "", 0
    while i < len(alt):
        c = alt[i]
        if c == "\\":
            if i + 1 < len(alt) and alt[i + 1] in _META:
                out += alt[i + 1]
                i += 2
                continue
            return None
        if c in _META:
            return None
        out += c
        i += 1
    return out or None


def _esc(c: str) -> str:
    return "\\" + c if c in _META or c in "-" else c


def _trie(words: list[str]) -> str:
    root: dict = {}
    for w in words:
        node = root
        for c in w:
            node = node.setdefault(c, {})
        node[""] = {}

    def emit(node: dict) -> str:
        if "" in node:
            return ""          # a word ends here: longer continuations add nothing to "contains"
        alts = [_esc(c) + emit(node[c]) for c in sorted(node)]
        return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"

    return emit(root)


def fast_regex(regex: str) -> str:
    """The same language as `regex` for `find` (Spark's rlike), faster on the JVM.

    java.util.regex tries every alternative at every position of a line. The literal alternatives
    of the candidate regex are rewritten as a trie behind a one-character lookahead, and literals
    that contain another literal are dropped (the shorter one already matches): measured 2.4x on
    the candidate filter. Non-literal alternatives are kept as they are. Equivalence with the
    original is tested on real and generated lines (tests/spark/test_lines.py).
    """
    lits: list[str] = []
    rest: list[str] = []
    for part in _split_top(regex):
        inner = part[3:-1] if part.startswith("(?:") and part.endswith(")") else None
        alts = _split_top(inner) if inner is not None and _split_top(inner) != [inner] else [part]
        words = [_literal(a) for a in alts]
        if all(words):
            lits.extend(w for w in words if w)
        else:
            rest.append(part)
    if len(lits) < 2:
        return regex
    lits = sorted({w for w in lits if not any(o != w and o in w for o in lits)})
    first = "".join(sorted({_esc(w[0]) if w[0] not in "]^" else "\\" + w[0] for w in lits}))
    return "|".join([f"(?=[{first}]){_trie(lits)}", *rest])


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
