"""Reading lines with exact provenance (file, 1-based line number) and the JVM-side candidate filter.

Design (measured in benchmarks/ingest_bench.py, see docs/pipeline.md): one pass over the input,
all on the JVM. The driver cuts each file into splits (plain files in pieces of
`spark.sql.files.maxPartitionBytes`, compressed files whole) and every split becomes one task
that runs `jvm/SplitScanner.java`: it reads the split's bytes through Hadoop's FileSystem and
walks them once with the candidate automaton, returning the split's line count and its candidate
lines packed: their indexes in the split, their lengths, and their text joined by `\n` (a line
never holds \n or \r: both end it). No row is built for a non-candidate line: it is only counted,
and none for a candidate either: the split's candidates cross to Python as one string and two
integer arrays (docs/pipeline.md, "The scan's handoff").
Line and split boundaries follow Hadoop's LineRecordReader, as `spark.read.text` does. Without
the coordscope jar (no JDK to build it) the same per-split rows come from `spark.read.text`, an
rlike filter and one hash aggregate, about ten times slower.

One row per split is what the parse stage consumes, as it is: no shuffle, no sort (the
candidates come in line order). Line numbers inside a split are relative (`idx`); a running sum
of the line counts of a file's earlier splits makes them exact (`line_offsets`).

Multi-line records: the continuation lines (stack frames, `Caused by:`, an exception's first
line: CONTINUATION_REGEX) that follow a split's last line belong to that split's last record.
The scanner hands them over: the split before the boundary reads on and returns them after its
own lines (idx >= its n_lines), the split that owns them counts them without returning them. At
most HANDOVER_MAX_LINES per boundary (a longer run of continuation lines keeps its tail in the
next split, where the parser sees it as continuation lines without their head).

What the filter drops, told to the reader (`gap_rule`, jvm/SplitScanner.java `Gaps`, Python twin
parsers.drop_gaps.filter_with_gaps): in a file whose lines name their origin (kubectl, stern, compose,
syslog, also behind colour codes; JSON records naming theirs), a byte per kept line says whether a line
of its own origin, or one of no origin, was dropped before it, so a merged file's records end where
`coordscope parse` ends them (docs/parsers.md, "Merged streams"), and the lines after a split boundary
are handed over by origin; in Kafka's log4j layout, the possible pieces of a soft-wrapped record are
kept; in a CRI log, the parts after a kept partial line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from parsers.reader import CONTINUATION_REGEX
from pipeline.spark import jvm
from pipeline.spark.regex_shape import fast_regex, java_flavour

# Continuation lines handed over at a split boundary, at most (CONTINUATION_REGEX is the parser's
# own definition: indented lines, stack frames, "Caused by:", "Suppressed:", an exception's first line).
HANDOVER_MAX_LINES = 10_000
# Longer candidate lines are not parsed (they become `unparsed`, why=overlong); their text is cut.
MAX_LINE_CHARS = 64 * 1024
ROW_BITS = 33                       # monotonically_increasing_id: row number in the low 33 bits
ROW_MASK = (1 << ROW_BITS) - 1


COMPRESSED = (".gz", ".bz2", ".deflate", ".lz4", ".snappy", ".zst")   # Hadoop's codecs: never split here
SPLIT_DDL = "split_no int, spath string, uri string, block bigint, length bigint, whole boolean, rule string"
CAND_COLUMNS = ("idx", "text", "chars", "gaps")   # a split's candidates, packed (jvm.SCAN_RESULT_DDL)
JOIN = "\n"                                # joins a split's candidate lines in `text`


@dataclass
class Scan:
    """The scan, one row per split: split_no, spath, block, n_lines, problem, and its candidate
    lines in line order (continuation lines handed over at the boundaries included) as CAND_COLUMNS:
    idx (array of the 0-based line indexes in the split), text (the lines joined by `\n`, each cut
    to MAX_LINE_CHARS code points), chars (array of each whole line's code points); and which
    reader made it. Not persisted: the parse stage consumes it in the same Spark stage."""

    rows: DataFrame
    filter: str          # "java" (pipeline/spark/jvm.py) or "rlike" (fallback, about 10x slower)


def spark_path(spark: SparkSession, uri: str) -> str:
    """The string Spark puts in `_metadata.file_path` for this file (qualified, URL-encoded)."""
    return spark_paths(spark, [uri])[0]


def spark_paths(spark: SparkSession, uris: list[str]) -> list[str]:
    """`spark_path` of each uri: in one call to jvm/PathNames.java when the coordscope jar is on
    the session (a few ms for thousands of files), else with Py4J calls per file."""
    jvm_ = spark._jvm
    conf = spark._jsc.hadoopConfiguration()
    if not uris:
        return []
    if jvm.has_class(spark, jvm.PATHS_CLASS):
        names = getattr(jvm_, jvm.PATHS_CLASS).sparkPaths("\0".join(uris), conf).split("\0")
    else:
        names = []
        for u in uris:
            p = jvm_.org.apache.hadoop.fs.Path(u)
            q = p.getFileSystem(conf).makeQualified(p)
            names.append(jvm_.org.apache.spark.paths.SparkPath.fromPath(q).urlEncoded())
    # the file index lists local files as file:/x, makeQualified gives file:///x
    return ["file:/" + s[len("file:///"):] if s.startswith("file:///") else s for s in names]


def file_size(spark: SparkSession, uri: str) -> int:
    p = spark._jvm.org.apache.hadoop.fs.Path(uri)
    return int(p.getFileSystem(spark._jsc.hadoopConfiguration()).getFileStatus(p).getLen())


def plan_splits(files: list[tuple[str, str, int]], split_bytes: int, whole: set[str],
                rules: dict[str, str] | None = None) -> list[tuple]:
    """(split_no, spath, uri, block, length, whole, rule) per split of each (spath, uri, size):
    plain files in pieces of split_bytes, compressed ones whole (as Spark's text source does);
    rule: the file's gap rule (gap_rule), "" for none."""
    out = []
    rules = rules or {}
    for spath, uri, size in files:
        rule = rules.get(spath, "")
        if uri.lower().endswith(COMPRESSED) or size <= split_bytes:
            out.append((len(out), spath, uri, 0, max(size, 0), spath in whole, rule))
            continue
        for block in range(0, size, split_bytes):
            out.append((len(out), spath, uri, block, min(split_bytes, size - block), spath in whole, rule))
    return out


def gap_rule(fmt) -> str:
    """The scanner's rule for a file of FileFormat `fmt` (jvm/SplitScanner.java, Gaps): flag letters,
    "|", the Java regex of the file's origin wrapper (parsers.reader.origin_rule; empty for none); ""
    when there is nothing to do. Flags: "W" keeps the possible pieces of soft-wrapped log4j records
    (parsers.drop_gaps.soft_wrap_rule), "C" the parts after a kept CRI partial line
    (parsers.drop_gaps.cri_rule), "A" takes colour codes off before the origin wrapper is matched
    (parsers.reader.origin_behind_ansi), "J" reads the origin a line's JSON record names
    (parsers.reader.json_origins, drop_gaps.json_key). What the scanner decides with it is what
    parsers.drop_gaps.filter_with_gaps decides."""
    from parsers import layouts
    from parsers.drop_gaps import cri_rule, soft_wrap_rule
    from parsers.reader import json_origins, origin_behind_ansi, origin_rule

    wrapper = origin_rule(fmt)
    flags = ("W" if soft_wrap_rule(fmt) else "") + ("C" if cri_rule(fmt) else "") + (
        "A" if origin_behind_ansi(fmt) else "") + ("J" if wrapper is None and json_origins(fmt) else "")
    if wrapper is None and not flags:
        return ""
    rx = java_flavour(layouts.WRAPPERS[wrapper].pattern).replace("(?P<", "(?<") if wrapper is not None else ""
    return flags + "|" + rx


# The tasks of the scan shrink toward the end of the plan: each takes about 1 / TAIL_SHARE of
# what is left per core (guided scheduling), but no less than 1 / MIN_SHARE of the whole per core
# (or one split).
TAIL_SHARE = 2
MIN_SHARE = 16


def deal_splits(plan: list[tuple], cores: int) -> list[list[int]]:
    """The split plan (`plan_splits` rows) dealt into tasks: lists of indexes into `plan`, the
    tasks in the order Spark should start them (a local master starts a stage's tasks in
    partition order, as a cluster does when no locality speaks against it).

    Largest splits first (a whole compressed file before the pieces of plain ones), and each task
    takes splits while they hold at most 1 / (TAIL_SHARE x cores) of the bytes not yet dealt:
    the first tasks are large and the last ones single splits, so the cores finish within about
    one split of each other. With tasks of equal size (the plan dealt round-robin to 4 per core,
    until the twenty-first session) the stage ended on one core for up to a whole task: 0.7-1.0 s
    of the parse job's 6 s at 1 GB on local[2] (BENCHMARKS.md, twenty-first session, scaleout).
    A task takes at least 1 / (MIN_SHARE x cores) of the whole (or one split): many small files
    do not become as many tasks (about TAIL_SHARE x cores x ln(files) + MIN_SHARE x cores tasks at most),
    and at least the largest split, up to 1 / (4 x cores) of the whole: the cores' finishing times
    differ by up to one largest split anyway, and an input of small files keeps a few tasks per
    core (4-7; `sample_logs/`: 10 tasks on local[2], `real_logs/`: 8; their fixed costs, a Python
    worker's round trip and a staged file each, are what such a stage is made of)."""
    if not plan:
        return []
    cores = max(1, cores)
    order = sorted(range(len(plan)), key=lambda i: (-max(int(plan[i][4]), 0), i))
    size = [max(int(plan[i][4]), 0) for i in range(len(plan))]
    left = sum(size)
    # the end is uneven by up to one largest split whatever is done: no task is made smaller than
    # one (up to 1 / (4 x cores) of the whole: small inputs keep a few tasks per core)
    floor = max(left / (MIN_SHARE * cores), min(max(size), left / (4 * cores)))
    tasks: list[list[int]] = []
    k = 0
    while k < len(order):
        target = max(left / (TAIL_SHARE * cores), floor)
        task, took = [order[k]], size[order[k]]
        k += 1
        while k < len(order) and took + size[order[k]] <= target:
            task.append(order[k])
            took += size[order[k]]
            k += 1
        left -= took
        tasks.append(task)
    return tasks


def split_tasks(spark: SparkSession, plan: list[tuple], tasks: list[list[int]]) -> DataFrame:
    """The split plan as a DataFrame of SPLIT_DDL rows, partition t holding the splits of
    tasks[t] in that order (`deal_splits`).

    Built on the JVM from one literal indexed by `spark.range` (no rows pickled from Python and
    no shuffle: a `createDataFrame(plan).repartition(n)` cost a stage of its own, 1.5 s at the
    start of every ingest on local[2]): row t of the range is task t, its splits exploded.
    """
    fields = [f.split() for f in SPLIT_DDL.split(", ")]
    names = [n for n, _ in fields]
    # One JSON string literal, decoded once when the optimizer folds the constant: with a SQL
    # expression of one struct per split instead, Spark's SQL parser took 2.5 s for 3,000 files.
    text = json.dumps([[dict(zip(names, plan[i], strict=True)) for i in task] for task in tasks])
    splits = F.from_json(F.lit(text), "array<array<struct<" + ", ".join(f"{n}: {t}" for n, t in fields) + ">>>")
    rows = spark.range(0, len(tasks), 1, max(1, len(tasks))).select(
        F.explode(F.element_at(splits, F.col("id").cast("int") + 1)).alias("s"))
    return rows.select(*(F.col("s")[n].cast(t).alias(n) for n, t in fields))


def read_blocks(spark: SparkSession, uris: list[str], candidate_regex: str,
                whole_files: list[str] | None = None, described: list[tuple[str, int]] | None = None,
                rules: dict[str, str] | None = None) -> Scan:
    """The per-split rows of `uris` (lazy: nothing is read until they are used). With the
    coordscope jar each split is read by jvm/SplitScanner.java on the executors; without it, by
    `spark.read.text` and an rlike aggregate (same rows, slower).

    `whole_files` (Spark paths) bypass the candidate filter: every line of them goes to the parser.
    `kafka-consumer-groups --describe` tables need it: their data rows carry no fixed word.
    `described`: (Spark path, size) of each uri when the caller knows them (the job does), else
    they are asked of the file systems here. `rules`: Spark path -> gap_rule of the file. The
    fallback's rows carry no gap codes (a gap ends every record), so it reads what the rule is about
    another way (fallback_whole, SOFT_WRAP_SUPERSET): files whose lines name origins and CRI logs whole,
    in log4j files also every line that may be a soft-wrapped piece.
    """
    whole = set(whole_files or ())
    if jvm.register_split_scanner(spark, candidate_regex, MAX_LINE_CHARS, CONTINUATION_REGEX, HANDOVER_MAX_LINES):
        split_bytes = max(1, int(spark._jvm.org.apache.spark.network.util.JavaUtils.byteStringAsBytes(
            spark.conf.get("spark.sql.files.maxPartitionBytes"))))
        if described is None:
            described = list(zip(spark_paths(spark, uris), (file_size(spark, u) for u in uris), strict=True))
        files = [(spath, u, size) for u, (spath, size) in zip(uris, described, strict=True)]
        plan = plan_splits(files, split_bytes, whole, rules)
        # largest first, tasks shrinking toward the end (deal_splits)
        tasks = split_tasks(spark, plan, deal_splits(plan, spark.sparkContext.defaultParallelism))
        r = F.call_function(jvm.SCAN_UDF_NAME, "uri", "block", "length", "whole", "rule")
        rows = tasks.select("split_no", "spath", "block", r.alias("r"))
        return Scan(rows.select("split_no", "spath", "block", "r.n_lines", "r.problem", *(f"r.{c}" for c in CAND_COLUMNS)),
                    "java")
    whole_rlike = sorted(whole | set(fallback_whole(rules or {})))
    soft = sorted(sp for sp, r in (rules or {}).items() if "W" in r.split("|", 1)[0])
    return Scan(_read_with_rlike(spark, uris, candidate_regex, whole_rlike, soft), "rlike")


# What the scanner keeps of a log4j file beyond its candidates (the possible pieces of a soft-wrapped
# record, parsers.drop_gaps: a line that is not blank and does not start with a time, after a kept record
# without its logger) without its state: every line that is not blank and does not start with a time.
# A superset, for the rlike fallback (Java regex, `rlike`: found anywhere, hence the anchor).
SOFT_WRAP_SUPERSET = r"^(?![ \t\x0b\x0c]*$)(?!\[?[0-9]{1,4}[-/:.][0-9])"


NUL_FALLBACK = ("NUL bytes in this part of the file: read without the scanner's jar (javac missing), so a run "
                "of them is not a line end as in `coordscope parse`; the lines around it may be cut or joined "
                "differently")


def fallback_whole(rules: dict[str, str]) -> list[str]:
    """The files (Spark paths) the rlike fallback reads whole, by their gap rule (gap_rule): those whose
    lines name their origin (a wrapper's regex after "|", or "J") and CRI logs ("C"). Their gap codes
    depend on the dropped lines, which Spark's operators do not tell the parser; with every line the
    parser reads them as `coordscope parse` does."""
    out = []
    for sp, rule in rules.items():
        if not rule:
            continue
        flags, _bar, rx = rule.partition("|")
        if rx or "J" in flags or "C" in flags:
            out.append(sp)
    return out


def _read_with_rlike(spark: SparkSession, uris: list[str], candidate_regex: str,
                     whole_files: list[str] | None, soft_files: list[str] | None = None) -> DataFrame:
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
    if soft_files:   # log4j files: the lines that may be pieces of a soft-wrapped record (SOFT_WRAP_SUPERSET)
        cand = cand | (F.col("_metadata.file_path").isin(list(soft_files)) & F.col("value").rlike(SOFT_WRAP_SUPERSET))
    base = spark.read.text(uris).select(
        F.spark_partition_id().alias("pid"),
        F.monotonically_increasing_id().alias("line_id"),
        F.col("value").alias("line"),
        F.col("_metadata.file_path").alias("file"),
        F.col("_metadata.file_block_start").alias("offset"),
        cand.alias("cand"),
        F.col("value").contains("\x00").alias("nul"),
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
        F.max("nul").alias("nul"),
    )
    cand_row = F.when(F.col("value").isNotNull(), F.struct(
        F.col("rid").bitwiseAND(F.lit(ROW_MASK)).alias("idx"), F.col("value"), F.col("chars")))
    rows = agg.groupBy("pid").agg(
        F.max("spath").alias("spath"), F.max("block").alias("block"),
        F.sum("n").cast("bigint").alias("n_lines"),
        # Spark's text source does not end a line at a NUL run, as the scanner and `parse` do
        # (parsers/nul_runs.py): said, not hidden
        F.when(F.max("nul"), F.lit(NUL_FALLBACK)).cast("string").alias("problem"),
        F.array_sort(F.collect_list(cand_row)).alias("cands"),
        ((F.min("path_lo") != F.max("path_hi")) | (F.min("block_lo") != F.max("block_hi"))).alias("mixed"),
    )
    # guard: one file and one split per partition, else line numbers would be wrong
    rows = rows.withColumn("cands", F.when(~F.col("mixed"), F.col("cands")).otherwise(F.raise_error(F.lit(
        "Spark packed two file splits into one partition; line numbers would be wrong "
        "(is spark.sql.files.openCostInBytes overridden?)"))))
    return _hand_over(rows.withColumnRenamed("pid", "split_no").drop("mixed"))


def _hand_over(rows: DataFrame) -> DataFrame:
    """The scanner's continuation handover, for the fallback reader's rows: a split's leading
    continuation lines (a run from its first line) move to the end of the previous split's
    candidates. Unlike the scanner, a run that covers a whole split is not followed further."""
    cont = F.transform("cands", lambda c, i: (c["idx"] == i) & c["value"].rlike(CONTINUATION_REGEX))
    first_other = F.array_position(cont, False)
    run = F.least(F.when(first_other == 0, F.size("cands")).otherwise(first_other - 1), F.lit(HANDOVER_MAX_LINES))
    rows = rows.withColumn("lead_n", F.when(F.col("block") > 0, run).otherwise(F.lit(0)).cast("int"))
    rows = rows.withColumn("leading", F.slice("cands", 1, F.col("lead_n"))).withColumn(
        "cands", F.slice("cands", F.col("lead_n") + 1, F.greatest(F.size("cands") - F.col("lead_n"), F.lit(0))))
    nxt = F.lead("leading").over(Window.partitionBy("spath").orderBy("block"))
    shifted = F.transform(F.coalesce(nxt, F.array()), lambda c: F.struct(
        (c["idx"] + F.col("n_lines")).alias("idx"), c["value"].alias("value"), c["chars"].alias("chars")))
    return _packed(rows.select("split_no", "spath", "block", "n_lines", "problem",
                               F.concat("cands", shifted).alias("cands")))


def _packed(rows: DataFrame) -> DataFrame:
    """The fallback's `cands` (array of struct(idx, value, chars)) as the scanner returns them:
    idx and chars arrays, the values joined by JOIN."""
    return rows.select("split_no", "spath", "block", "n_lines", "problem",
                       F.transform("cands", lambda c: c["idx"]).alias("idx"),
                       F.array_join(F.transform("cands", lambda c: c["value"]), JOIN).alias("text"),
                       F.transform("cands", lambda c: c["chars"]).alias("chars"),
                       F.lit(None).cast("binary").alias("gaps"))


def unpacked(rows: DataFrame) -> DataFrame:
    """Scan rows with their candidates as one array of struct(idx, value, chars) (`cands`)."""
    values = F.when(F.size("idx") > 0, F.split("text", JOIN, -1)).otherwise(F.array())
    return rows.withColumn("cands", F.arrays_zip(F.col("idx").alias("idx"), values.alias("value"),
                                                 F.col("chars").alias("chars")))


def line_offsets(split_counts: list[tuple[int, str, int, int]]) -> list[int]:
    """Lines of the file in its earlier splits, indexed by split_no, from (split_no, spath, block,
    n_lines) of every split (one small row per split, collected by the job; split numbers not
    seen get 0)."""
    out = [0] * (max((t[0] for t in split_counts), default=-1) + 1)
    seen: dict[str, int] = {}
    for split_no, spath, _block, n in sorted(split_counts, key=lambda t: (t[1], t[2])):
        out[split_no] = seen.get(spath, 0)
        seen[spath] = seen.get(spath, 0) + n
    return out


def candidates(scan: Scan) -> DataFrame:
    """One row per candidate line: spath, block (the split that parses it), line_no, value, chars
    (for tests and debugging; the ingest parses the split rows as they are)."""
    before = Window.partitionBy("spath").orderBy("block").rowsBetween(Window.unboundedPreceding, -1)
    rows = unpacked(scan.rows).withColumn("lines_before", F.coalesce(F.sum("n_lines").over(before), F.lit(0)))
    return rows.select("spath", "block", "lines_before", F.explode("cands").alias("c")).select(
        "spath", "block", (F.col("lines_before") + F.col("c.idx") + 1).cast("bigint").alias("line_no"),
        F.col("c.value").alias("value"), F.col("c.chars").alias("chars"))


def file_counts(scan: Scan) -> DataFrame:
    """Per file: lines read, candidate lines, splits, and why reading stopped early (if it did)."""
    return scan.rows.groupBy("spath").agg(
        F.sum("n_lines").cast("bigint").alias("lines_read"),
        F.sum(F.size("idx")).cast("bigint").alias("candidates"),
        F.count(F.lit(1)).alias("splits"),
        F.array_join(F.collect_list("problem"), "; ").alias("problems"),
    )


def numbered(rows: DataFrame, offsets: list[int]) -> DataFrame:
    """Rows with split_no and a split-relative line_no (index + 1) -> exact line numbers. The
    offsets (one per split, `line_offsets`) travel as one array literal in the plan: no join, no
    broadcast job each time the rows are read. The literal is JSON text decoded when the optimizer
    folds it: `F.lit(list)` makes an expression node (and a Py4J call) per split, and every query
    over the events re-analysed them (3,000 files: seconds per stage)."""
    arr = F.from_json(F.lit(json.dumps(offsets or [0])), "array<bigint>")
    before = F.element_at(arr, F.col("split_no") + 1)
    return rows.withColumn("line_no", F.col("line_no") + before)
