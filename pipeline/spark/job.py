"""The ingest job: inputs -> lines with provenance -> parse -> one pass per group -> RUN_DIR.

Stages (each timed in the manifest): start spark (with local inputs, listed and sniffed on a
thread meanwhile); inputs; read and parse (one Spark job: the scan with the candidate filter on
the JVM, the parsers on the Python workers, outcomes staged as Parquet in row groups by group
bucket); write unparsed; tables and replay (one Spark job of a task per group bucket, each reading
its bucket's staged rows with pyarrow, no shuffle: the replay, every per-group table and `events`
written by the workers, the timeline's facts counted on the way; a second pass only when copies
or clock skew need correcting); summary. Then manifest.json, then the rename.

RUN_DIR is a local path (on a cluster a shared mount at the same path on every node): the workers
write the staged outcomes and every table into it, and the pass's tasks read the staged outcomes
back from it."""

from __future__ import annotations

import concurrent.futures
import importlib
import os
import re
import shutil
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parsers import nul_runs
from pipeline import input_files, run_summary, schemas
from pipeline.rundir import write_manifest
from pipeline.spark import inputs as inputs_mod
from pipeline.spark import lines as lines_mod
from pipeline.spark import manifest as manifest_mod
from pipeline.spark import write as write_mod
from pipeline.spark.progress import Progress
from pipeline.spark.session import cache_level

DEFAULT_CONF = {
    # Splits of at most 32 MiB: more parallelism on big single files, and a bounded candidate
    # array per split in the read aggregate.
    "spark.sql.files.maxPartitionBytes": str(32 * 1024 * 1024),
    # The rlike fallback reader: a truncated .gz keeps the lines before the damage instead of
    # failing the job (the Java scanner reports where it stopped).
    "spark.sql.files.ignoreCorruptFiles": "true",
    "spark.sql.adaptive.enabled": "true",
}
# the parse stage's output, written inside the temporary RUN_DIR and removed before it is renamed
STAGED_OUTCOMES = "_outcomes"

# On one machine the shuffles are small and AQE's re-planning after each shuffle stage (a Spark
# job per stage) costs more than its coalescing saves: measured 10-14% of the job time at
# 0.25 GB on local[2] (BENCHMARKS.md, ingest). Clusters keep it.
LOCAL_CONF = {"spark.sql.adaptive.enabled": "false"}


def local_cores(master: str) -> int | None:
    """Cores of a one-JVM local master URL: local -> 1, local[N] / local[N,F] -> N, local[*] -> this
    machine's; None for anything else (local-cluster[...], spark://, yarn, k8s://)."""
    m = re.fullmatch(r"local(?:\[(\*|\d+)(?:,\s*\d+)?\])?", master.strip())
    if m is None:
        return None
    if m.group(1) is None:
        return 1
    return (os.cpu_count() or 1) if m.group(1) == "*" else max(1, int(m.group(1)))


def session_conf(master: str, extra: dict[str, str]) -> dict[str, str]:
    """The job's Spark settings for this master; the user's --conf wins.

    On local masters the shuffles after the parse (the window tables, the per-group replay) get
    two partitions per core instead of the session's 8: each of the job's window and replay stages
    is a task per partition, and on local[2] fewer, larger tasks were about 5% faster at 1 GB
    (BENCHMARKS.md, ingest); two per core still lets a core that drew light groups take another."""
    conf = dict(DEFAULT_CONF)
    if master.startswith("local"):
        conf.update(LOCAL_CONF)
    cores = local_cores(master)
    if cores is not None:
        conf["spark.sql.shuffle.partitions"] = str(2 * cores)
    conf.update(extra)
    return conf


@dataclass
class IngestOptions:
    inputs: list[str]
    out: str
    master: str = "local[*]"
    group: str | None = None
    since_ms: int | None = None
    until_ms: int | None = None
    overwrite: bool = False
    layout: str | None = None
    quiet: bool = False
    parsers_module: str = "parsers"
    replay_module: str = "pipeline.replay"
    extra_conf: dict[str, str] = field(default_factory=dict)
    argv: list[str] = field(default_factory=list)
    # called with the manifest once RUN_DIR is complete, before the once-per-install class
    # archive is saved: the CLI prints its summary there, so the user does not wait for the save
    on_done: Callable[[dict[str, Any]], None] | None = None


class IngestError(Exception):
    """A clear one-line problem with the user's inputs or target."""


def sniff_formats(files: list[inputs_mod.InputFile], mod: Any, layout: str | None) -> None:
    for f in files:
        if not f.readable:
            continue
        fmt = mod.sniff(f.head, f.source)
        f.kind, f.layout, f.wrappers = fmt.kind, fmt.layout, tuple(fmt.wrappers)
        if layout and f.kind not in ("offsets_dump", "groups_describe", "empty"):
            f.kind, f.layout = "log", layout
        if f.kind == "binary":
            f.problems.append("binary file (rejected by the format sniffer)")
        f.head = []


# the scanner's count of a split's NUL bytes, in its problem text (SplitScanner.scan)
NUL_PROBLEM = re.compile(r"^(\d+) NUL byte\(s\) in (\d+) run\(s\)$")


def _add_nul_counts(why: str, c: dict[str, int]) -> str:
    """`why` without the scanner's NUL counts, which are added to the file's counts `c`."""
    rest = []
    for piece in why.split("; "):
        m = NUL_PROBLEM.match(piece)
        if m:
            c["nul_bytes"] = c.get("nul_bytes", 0) + int(m.group(1))
            c["nul_runs"] = c.get("nul_runs", 0) + int(m.group(2))
        else:
            rest.append(piece)
    return "; ".join(rest)


def _count_lines(split_rows, by_spath, counts, warnings) -> None:
    """Per-file line accounting from the per-split counts: every line read is parsed, ignored or
    unparsed (lines the JVM filter dropped are ignored without Python)."""
    for r in split_rows:
        f = by_spath.get(r["spath"])
        if f is None:
            warnings.append(f"Spark read a file not in the input list: {r['spath']}")
            continue
        c = counts[f.source]
        for key, col in (("lines_read", "n_lines"), ("candidates", "n_cands"), ("parsed", "n_parsed"),
                         ("ignored", "n_ignored"), ("unparsed", "n_unparsed")):
            c[key] = c.get(key, 0) + int(r[col] or 0)
        if r["why"]:
            why = _add_nul_counts(r["why"], c)
            if why:
                f.problems.append(why)
                warnings.append(f"{f.source}: {why}")
    for f in by_spath.values():
        c = counts[f.source]
        if c.get("nul_bytes"):  # one note a file, as `parse` gives (parsers/nul_runs.py)
            said = nul_runs.note(f.source, c.pop("nul_bytes"), c.pop("nul_runs"))
            f.problems.append(said.removeprefix(f"{f.source}: "))
            warnings.append(said)
        outcome_total = c.get("parsed", 0) + c.get("ignored", 0) + c.get("unparsed", 0)
        if outcome_total != c.get("candidates", 0):
            warnings.append(f"{f.source}: {c.get('candidates', 0)} candidate lines but {outcome_total} parse outcomes")
        c["ignored"] = c.get("ignored", 0) + c.get("lines_read", 0) - c.get("candidates", 0)


def _no_spark():
    raise RuntimeError("local inputs need no Spark session")


def _read_inputs(opts: IngestOptions, spark_getter, tmp_dir: str) -> tuple[list, Any, list[str], float]:
    """List, fingerprint and sniff the inputs: (files, parsers module, warnings, seconds)."""
    t = time.monotonic()
    files = inputs_mod.expand(opts.inputs, spark_getter)
    inputs_mod.inspect(files, spark_getter)
    pmod = importlib.import_module(opts.parsers_module)
    sniff_formats(files, pmod, opts.layout)
    link_warnings = inputs_mod.link_by_content(files, tmp_dir)
    return files, pmod, link_warnings, time.monotonic() - t


# What the driver itself imports after the Spark jobs (the summary's pandas and pyarrow readers):
# imported on the inputs thread while the JVM starts, not serially at the end of the run.
SUMMARY_MODULES = ("pyarrow.parquet", "pyarrow.dataset", "pipeline.figures", "pipeline.rundir")


def _warm_imports(modules: tuple[str, ...] = SUMMARY_MODULES) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:     # the summary imports it again and reports it there
            pass


def _read_inputs_and_warm(opts: IngestOptions, tmp_dir: str) -> tuple[list, Any, list[str], float]:
    out = _read_inputs(opts, _no_spark, tmp_dir)
    # (and the replay module, which the driver imports between the parse job and the pass:
    # 0.1-0.2 s of one core there, with the other idle)
    _warm_imports((*SUMMARY_MODULES, opts.replay_module))
    return out


def start_python_workers(spark, master: str) -> None:
    """On a local master, start the Python worker daemon and one worker per core with a tiny job on a
    thread, while the driver lists the inputs and plans the parse (1-3 s of Py4J calls on a cold
    JVM, BENCHMARKS.md, fixed costs): the parse's first tasks then find warm workers (Spark reuses
    them) instead of starting the daemon and importing pyarrow themselves, which made the first
    two tasks of the parse job take 3-4 s against 0.3-0.7 s for the next ones. Best effort: a
    failure (an interrupt stopping the JVM) is for the job itself to meet, not this thread."""
    cores = local_cores(master)
    if not cores:
        return

    def warm() -> None:
        try:
            from pipeline.spark.worker_daemon import warm_worker

            # a SQL Arrow UDF as the parse's own: Spark keeps one daemon per kind of Python runner
            # (their environments differ), and this starts the one the parse's tasks use
            spark.range(0, cores, 1, cores).mapInArrow(warm_worker, "n bigint").collect()
        except Exception:  # noqa: BLE001 - see above
            pass

    threading.Thread(target=warm, name="warm-python-workers", daemon=True).start()


def _stop_into(spark, errors: list[BaseException]) -> None:
    """spark.stop() on a thread: what it raises is kept for the caller (not printed by the thread)."""
    try:
        spark.stop()
    except BaseException as exc:  # noqa: BLE001 - handed to run_ingest, which raises it
        errors.append(exc)


def run_ingest(opts: IngestOptions, spark=None) -> dict[str, Any]:
    """Run the whole job; returns the manifest. With `spark` given (tests, notebooks) that session
    is used and left running; otherwise one is built for opts.master and stopped at the end."""
    from pipeline.spark import class_archive
    from pipeline.spark.session import archive_pending, build_session, check_java, save_class_archive

    progress = Progress(quiet=opts.quiet)
    warnings: list[str] = []
    tmp_dir = None
    own_session = spark is None
    stopping: list[threading.Thread] = []     # the session being stopped on a thread (release)
    stop_errors: list[BaseException] = []
    try:
        # Local inputs are checked before the JVM starts: bad paths fail fast.
        local_args = [a for a in opts.inputs if not inputs_mod.is_uri(a)]
        target = write_mod.check_target(opts.out, opts.overwrite)
        local_sizes: list[tuple[int, bool]] = []
        if local_args:
            for f in inputs_mod.expand(local_args, lambda: None):
                local_sizes.append((f.size, f.compressed))
                if input_files.under(f.uri, str(target)):
                    raise write_mod.RunDirExists(
                        f"input {f.source} lies inside --out {target}; choose another --out (nothing was written)")
        tmp_dir = write_mod.prepare(opts.out, opts.overwrite)
        java = check_java()
        # With local inputs only, they are listed, fingerprinted and sniffed on a thread while the
        # JVM starts (about 5 s on two cores that the driver otherwise spends waiting), and the
        # summary's modules imported.
        early = None
        if own_session and len(local_args) == len(opts.inputs):
            early = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="inputs").submit(
                _read_inputs_and_warm, opts, tmp_dir)
        if own_session:
            with progress.stage("start spark"):
                # the class archive only where it was measured to win: local inputs, not large
                small = len(local_args) == len(opts.inputs) and class_archive.worth_it(local_sizes)
                spark = build_session(opts.master, "coordscope-ingest", session_conf(opts.master, opts.extra_conf),
                                      record_classes=small, class_archive=small)
        else:
            for k, v in session_conf(spark.sparkContext.master, opts.extra_conf).items():
                spark.conf.set(k, v)
        progress.sc = spark.sparkContext
        if own_session:
            start_python_workers(spark, opts.master)
        with progress.stage("inputs"):
            if early is not None:
                files, pmod, link_warnings, took = early.result()
                progress.timings["inputs during start"] = round(took, 3)
            else:
                files, pmod, link_warnings, _ = _read_inputs(opts, lambda: spark, tmp_dir)
            warnings.extend(link_warnings)
            readable = [f for f in files if f.readable]
            for f, spath in zip(readable, lines_mod.spark_paths(spark, [f.read_uri or f.uri for f in readable]),
                                strict=True):
                f.spath = spath
            progress.say(f"  {len(files)} files, {len(readable)} to read, "
                         f"{sum(f.size for f in readable) / 1e6:.1f} MB")
        release = None
        if own_session:
            def release() -> None:
                # stopped on a thread while the driver writes the summary and the manifest (about a
                # third of a second each, one core each: BENCHMARKS.md, twenty-first session,
                # scaleout), unless the run still has the class archive to save with this JVM
                progress.sc = None
                if not archive_pending():
                    stopping.append(threading.Thread(target=_stop_into, args=(spark, stop_errors), name="stop-spark",
                                                     daemon=True))
                    stopping[0].start()
        result = _run_spark(spark, opts, files, readable, pmod, progress, warnings, tmp_dir, java, release)
        tmp_dir = None
        if opts.on_done is not None:
            opts.on_done(result)
        if own_session:     # RUN_DIR is complete; the first run of a Java and Spark install saves its classes
            save_class_archive(spark, progress)
        return result
    except (inputs_mod.InputError, write_mod.RunDirExists, ValueError) as exc:
        raise IngestError(str(exc)) from exc
    finally:
        write_mod.discard(tmp_dir)
        if stopping:
            stopping[0].join()
            # (raised as spark.stop() raised before, unless the run is failing or interrupted already)
            if stop_errors and sys.exc_info()[0] is None:
                raise stop_errors[0]
        elif own_session and spark is not None:
            spark.stop()


def staged_group_counts(staged_dir: str, group: str | None, since_ms: int | None,
                        until_ms: int | None) -> dict[str, int]:
    """Rows per group of the events in scope, counted from the parse stage's staged outcomes on the
    driver with pyarrow (one or two columns; 366,696 rows in about 0.03 s): what the per-group
    pass needs to decide which groups get a second task, without the Spark job that sampled the
    group column (0.4-1.0 s on a warm session, more on a cold one: BENCHMARKS.md, fixed costs)."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    cols = ["group_id"] + (["ts_ms"] if since_ms is not None or until_ms is not None else [])
    dataset = ds.dataset(staged_dir, format="parquet")
    if "group_id" not in dataset.schema.names:      # nothing staged: no line carried an event
        return {}
    table = dataset.to_table(columns=cols)
    keep = pc.is_valid(table.column("group_id"))
    if group is not None:
        keep = pc.and_(keep, pc.equal(table.column("group_id"), group))
    for bound, cmp in ((since_ms, pc.greater_equal), (until_ms, pc.less)):
        if bound is not None:   # events without a time stay in scope (as the job's filter)
            ts = table.column("ts_ms")
            keep = pc.and_(keep, pc.or_(pc.is_null(ts), pc.fill_null(cmp(ts, bound), False)))
    counts = pc.value_counts(table.column("group_id").filter(keep))
    return {v["values"].as_py(): v["counts"].as_py() for v in counts}


def staged_rows(staged_files: list[str]) -> int:
    """Rows of the staged outcomes (each an event), from their Parquet footers."""
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(f).metadata.num_rows for f in staged_files)


def _empty(spark, table_or_ddl: str):
    ddl = schemas.ddl(table_or_ddl) if table_or_ddl in schemas.TABLES else table_or_ddl
    return spark.createDataFrame([], ddl)


# buckets of the per-group pass on a cluster master: two per executor core, at most this many
# (each parse task writes a row group per bucket it meets; each bucket is one task of the pass)
MAX_BUCKETS = 256


def group_buckets(spark) -> int:
    """How many group buckets the parse stage stages its outcomes in, each one task of the
    per-group pass: spark.sql.shuffle.partitions (on local masters two per core, session_conf),
    on a cluster at most two per core of its default parallelism and MAX_BUCKETS."""
    n = int(spark.conf.get("spark.sql.shuffle.partitions") or 4)
    if local_cores(spark.sparkContext.master) is None:
        n = min(n, max(2, 2 * spark.sparkContext.defaultParallelism), MAX_BUCKETS)
    return max(1, n)


class _StagedFrames:
    """The staged outcomes as Spark DataFrames, built only when a rare path needs them (unparsed
    lines to write, the second pass after copies or clock skew, the unparsed reasons of a scoped
    run): the first pass reads the staged files itself."""

    def __init__(self, spark, staged_dir: str | None, offsets: list[int], opts: IngestOptions) -> None:
        self.spark, self.staged_dir, self.offsets, self.opts = spark, staged_dir, offsets, opts
        self._built: dict[str, Any] | None = None

    def _build(self) -> dict[str, Any]:
        from pyspark.sql import functions as F

        from pipeline.spark import lines, parse_stage

        if self._built is not None:
            return self._built
        opts = self.opts
        if self.staged_dir is None:
            all_events, unparsed = _empty(self.spark, "events"), _empty(self.spark, "unparsed")
        else:
            outcomes = self.spark.read.schema(parse_stage.OUTCOME_DDL).parquet(self.staged_dir)
            numbered = lines.numbered(outcomes, self.offsets)    # every staged row carries an event
            all_events = numbered.select(*schemas.columns("events"))
            unparsed = numbered.where(F.col("status") == "unparsed").select(*schemas.columns("unparsed"))
        # scope: --group, --since, --until (events without a time stay in)
        scoped = all_events
        if opts.group:
            scoped = scoped.where(F.col("group_id") == opts.group)
        scoped_unparsed = unparsed
        for bound, keep in ((opts.since_ms, lambda c, v: c >= v), (opts.until_ms, lambda c, v: c < v)):
            if bound is not None:
                scoped = scoped.where(F.col("ts_ms").isNull() | keep(F.col("ts_ms"), bound))
                scoped_unparsed = scoped_unparsed.where(F.col("ts_ms").isNull() | keep(F.col("ts_ms"), bound))
        self._built = {"events": scoped, "unparsed": unparsed, "scoped_unparsed": scoped_unparsed}
        return self._built

    def __getitem__(self, name: str) -> Any:
        return self._build()[name]


def _second_pass(spark, frames, staged, scope, first, copies, clock, steps, replay_name, run_dir,
                 cached, group_counts=None) -> tuple[dict[str, int], dict[str, tuple[int, tuple[Any, ...]]]]:
    """The pass again over a corrected timeline (copies dropped, skewed clocks shifted); returns
    the offsets and clock steps applied. Copies and offsets are the first pass's counts; with copies the offsets
    are measured again on the deduplicated rows (a job of anchors only, from the staged files).
    The tables are written again from the staged files, corrected per group in the tasks
    (pipeline.timeline_corrections). Only where an offset rests on PERCENTILE_EXACT anchors or more
    (Spark's percentile_approx is approximate there, and the references are Spark's) does the
    timeline go through Spark (replay_stage.timeline over the staged Parquet, then group_pass.run);
    that path corrects one offset per clock (a file, or one origin of a file merging several
    processes' lines), steps included (a file joining 10,000 generations)."""
    from pipeline import timeline_facts
    from pipeline.spark import group_pass, replay_stage

    pairs = frozenset(copies)
    measured = clock
    if copies:
        again = group_pass.run_staged(
            spark, staged, run_dir, replay_name, scope, group_counts, correction=group_pass.Correction(pairs),
            anchors=True)
        measured, steps = timeline_facts.clock_offsets(again.diffs), timeline_facts.clock_steps(again.diffs, again.backs)
    if any(n >= replay_stage.PERCENTILE_EXACT for _off, n in measured.values()):
        events = frames["events"]
        timeline, offset_rows = replay_stage.timeline(events, copies, clock)
        if timeline is not events:
            cached.append(timeline.persist(cache_level()))
        # (the same groups split: the counts are the first pass's, without removing copies)
        group_pass.run(timeline, run_dir, replay_name, timeline_facts=False, split=first.split)
        return offset_rows, {}
    offset_rows = {src: off for src, (off, _n) in measured.items()
                   if abs(off) >= replay_stage.SKEW_MIN_MS and src not in steps}
    group_pass.run_staged(spark, staged, run_dir, replay_name, scope, group_counts, split=first.split,
                          correction=group_pass.Correction(pairs, tuple(sorted(offset_rows.items())),
                                                           tuple((src, *steps[src]) for src in sorted(steps))))
    return offset_rows, steps


def _run_spark(spark, opts, files, readable, pmod, progress, warnings, tmp_dir, java,
               release: Callable[[], None] | None = None) -> dict[str, Any]:
    """The job from the inputs listed to RUN_DIR renamed into place; `release` is called once
    Spark is needed no more (before the summary)."""
    from pipeline import timeline_facts
    from pipeline.spark import buckets as buckets_mod
    from pipeline.spark import group_pass, lines, parse_stage, replay_stage

    by_spath = {f.spath: f for f in readable}
    counts: dict[str, dict[str, int]] = {f.source: {} for f in files}
    scan = None
    staged_dir: str | None = None
    staged_files: list[str] = []
    offsets: list[int] = []
    n_buckets = group_buckets(spark)
    group_counts: dict[str, int] = {}     # rows per group in scope (none without inputs)
    if readable:
        with progress.stage("read and parse"):
            # describe tables and dumps are read whole (no candidate filter): their rows carry no fixed
            # word, and a dump record soft-wrapped over several lines is glued back from lines that
            # hold none (parsers/reader._joined_dump_records)
            describe_paths = [f.spath for f in readable if f.kind in ("groups_describe", "offsets_dump")]
            rules = {f.spath: lines.gap_rule(pmod.FileFormat(f.kind, f.layout, tuple(f.wrappers))) for f in readable}
            scan = lines.read_blocks(spark, [f.read_uri or f.uri for f in readable], pmod.CANDIDATE_REGEX, describe_paths,
                                     described=[(f.spath, f.scan_size) for f in readable], rules=rules)
            if scan.filter != "java":
                from pipeline.spark.session import JAR_PROBLEM

                why = JAR_PROBLEM[0] if JAR_PROBLEM else "the session has no coordscope jar"
                warnings.append(f"candidate filter: Spark rlike, about 10x slower than the Java filter ({why})")
                n_whole = len(lines.fallback_whole(rules))
                if n_whole:
                    # (without the scanner's gap codes: docs/pipeline.md "What the filter drops")
                    warnings.append(f"candidate filter: Spark rlike reads {n_whole} file(s) whole (lines naming their "
                                    "origin, CRI logs): every line of them goes to the parser, as in coordscope parse, "
                                    "except where a split boundary cuts a record of one origin (its later lines there "
                                    "are read without its first line; the Java scanner hands them over)")
            formats = {f.spath: (f.source, f.kind, f.layout, f.wrappers) for f in readable}
            # The event outcomes are written once, by the parsing workers, as Parquet inside the
            # temporary RUN_DIR (removed before it is renamed), in row groups by group bucket; the
            # one job that reads and parses returns only a row per split. The per-group pass's
            # tasks read their bucket's rows back themselves (RUN_DIR is local: see docs).
            staged_dir = os.path.join(tmp_dir, STAGED_OUTCOMES)
            os.makedirs(write_mod.local_path(staged_dir))
            split_rows = [r.asDict() for r in parse_stage.parse_splits(
                scan.rows, formats, write_mod.local_path(staged_dir), opts.parsers_module, lines.MAX_LINE_CHARS,
                buckets=n_buckets).collect()]
            offsets = lines.line_offsets([(r["split_no"], r["spath"], r["block"], r["n_lines"]) for r in split_rows])
            _count_lines(split_rows, by_spath, counts, warnings)
            staged_files = buckets_mod.staged_files(write_mod.local_path(staged_dir))
            group_counts = staged_group_counts(write_mod.local_path(staged_dir), opts.group, opts.since_ms, opts.until_ms)
    frames = _StagedFrames(spark, staged_dir, offsets, opts)
    cached: list[Any] = []          # DataFrames persisted on the way, unpersisted at the end

    with progress.stage("write unparsed"):
        # the split rows count the unparsed lines: with none (the usual case) no Spark job
        if staged_dir is None or not sum(c.get("unparsed", 0) for c in counts.values()):
            write_mod.write_empty(tmp_dir, "unparsed")
        else:
            write_mod.write_table(frames["scoped_unparsed"], tmp_dir, "unparsed")

    with progress.stage("tables and replay"):
        # one Spark job of a task per group bucket, each reading its bucket's staged rows with
        # pyarrow (no Spark scan, no shuffle): the workers write every per-group table
        # (group_pass) and count the timeline's facts (copies, clock anchors) on the way. In the
        # usual case (no copied file, no skewed clock) the timeline is the events themselves and
        # that one pass is all; otherwise the timeline is corrected (replay_stage.timeline, on
        # Spark) and the pass runs again.
        replay_name: str | None = opts.replay_module
        try:
            replay_mod = importlib.import_module(opts.replay_module)
            if not hasattr(replay_mod, "replay_group_rows"):
                raise AttributeError(f"{opts.replay_module} has no replay_group_rows")
        except (ImportError, AttributeError) as exc:
            warnings.append(f"replay unavailable ({exc}); generations, memberships and findings are empty")
            replay_name = None
        # the `events` table (times as logged, copies included) is written by this first pass
        staged = group_pass.Staged(staged_files, n_buckets, offsets)
        scope = group_pass.Scope(opts.group, opts.since_ms, opts.until_ms)
        first = group_pass.run_staged(spark, staged, write_mod.local_path(tmp_dir), replay_name, scope, group_counts)
        copies = replay_stage.copies_from_counts(first.shared)
        clock = timeline_facts.clock_offsets(first.diffs)
        steps = timeline_facts.clock_steps(first.diffs, first.backs)
        offset_rows: dict[str, int] = {}
        if copies or steps or any(abs(off) >= replay_stage.SKEW_MIN_MS for off, _n in clock.values()):
            offset_rows, steps = _second_pass(spark, frames, staged, scope, first, copies, clock, steps, replay_name,
                                              write_mod.local_path(tmp_dir), cached, group_counts)
            for src, off in offset_rows.items():
                progress.say(f"  clock skew: {timeline_facts.describe_clock(src)} runs {off:+d} ms against its group's "
                             "coordinator; corrected")
            for src, (before, stepped) in steps.items():
                progress.say(f"  clock step: {timeline_facts.describe_steps(src, before, stepped)}; corrected by line")

    written: dict[str, int] = {}
    with progress.stage("summary"):
        # what the summary asks of Spark first (the unparsed reasons of a scoped run, the version),
        # then Spark is released (`release`: the CLI's session is stopped on a thread while the
        # summary reads RUN_DIR's footers and tables with pyarrow, and the manifest is written)
        why_counts: Counter | None = None
        if (staged_dir is not None and (opts.since_ms is not None or opts.until_ms is not None)
                and sum(c.get("unparsed", 0) for c in counts.values())):
            why_counts = Counter({r["why"]: int(r["count"])
                                  for r in frames["unparsed"].groupBy("why").count().collect()})
        for df in cached:
            df.unpersist()
        spark_version = spark.version
        if release is not None:
            release()
        # row counts from the Parquet footers RUN_DIR (always local) holds: no Spark job
        written.update({t: write_mod.row_count(tmp_dir, t) for t in schemas.TABLES})
        event_groups = run_summary.distinct_strings(tmp_dir, "events", "group_id")   # read once
        groups = len(event_groups)
        sev = run_summary.value_counts(tmp_dir, "findings", "severity")
        per_group = run_summary.group_lines(tmp_dir, event_groups=event_groups)
        reasons: dict[str, int] = {}
        if staged_dir is not None:
            if opts.since_ms is None and opts.until_ms is None:    # the table written holds every unparsed line
                why_counts = run_summary.value_counts(tmp_dir, "unparsed", "why")
            elif why_counts is None:        # (no unparsed line in the scoped run)
                why_counts = Counter()
            reasons = run_summary.unparsed_reasons(why_counts)
        in_scope = written["events"]
        # every staged row is an event: the scope's total from the staged files' footers
        total_events = staged_rows(staged_files) if (opts.group or opts.since_ms is not None
                                                     or opts.until_ms is not None) else in_scope

    summary = {
        "groups": groups, "generations": written["generations"], "events": written["events"],
        "findings_by_severity": {s: sev.get(s, 0) for s in schemas.SEVERITIES if sev.get(s, 0)},
        "groups_detail": per_group,
    }
    entries = [manifest_mod.file_entry(f, counts.get(f.source), offset_rows.get(f.source), steps.get(f.source),
                                       manifest_mod.origin_clocks(f.source, offset_rows, steps))
               for f in files]
    scope = {"group": opts.group, "since_ms": opts.since_ms, "until_ms": opts.until_ms,
             "events_total": total_events, "events_in_scope": in_scope}
    final_abs = str(Path(write_mod.local_path(opts.out)).absolute())
    progress.timings["total"] = round(time.monotonic() - progress.t0, 3)
    man = manifest_mod.build(
        argv=opts.argv, master=opts.master, spark_version=spark_version, java_version=java, entries=entries,
        unparsed_reasons=reasons, scope=scope, tables=written, timings=progress.timings, warnings=warnings,
        summary=summary, run_dir=final_abs, candidate_filter=scan.filter if scan is not None else None)
    shutil.rmtree(os.path.join(tmp_dir, STAGED_OUTCOMES), ignore_errors=True)
    shutil.rmtree(os.path.join(tmp_dir, inputs_mod.INPUT_LINKS), ignore_errors=True)
    write_manifest(tmp_dir, man)       # last file written: its presence marks a complete RUN_DIR
    write_mod.finalize(tmp_dir, opts.out)
    return man
