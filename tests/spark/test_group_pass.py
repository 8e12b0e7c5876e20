"""pipeline/spark/group_pass.py: the first pass from the staged outcomes (run_staged) writes what
the shuffled pass writes; a big group's replay unit and series unit run in two different
tasks, and what the split units write is what the pure per-group tables give on the group's whole
rows; replay_stage.timeline from the facts the pass counted equals the one it measures itself."""

from __future__ import annotations

import random
from collections import Counter

import pyarrow.parquet as pq
import pytest

from pipeline import schemas

pytestmark = pytest.mark.spark


def _events(n_groups: int = 12, per_group: int = 40) -> list[dict]:
    from tests.spark.test_group_tables_twin import random_events

    rows = []
    for seed in range(n_groups // 2):
        rows += random_events(seed, per_group * 2)
    # a few lines of no group (they feed no table but are events)
    for i in range(5):
        r = {c: None for c in schemas.columns("events")}
        r.update(source="x.log", line_no=i + 1, side="client", kind="fetch_error", raw=f"no group {i}")
        rows.append(r)
    return rows


def _frozen(v):
    return tuple(_frozen(x) for x in v) if isinstance(v, list) else v


def _bag(rows, table):
    return Counter(tuple(_frozen(r.get(c)) for c in schemas.columns(table)) for r in rows)


def test_big_groups_are_the_ones_holding_a_large_share(spark):
    from pipeline.spark import group_pass

    rows = [{"group_id": "hot" if i % 10 else f"g{i % 50}"} for i in range(40_000)] + [{"group_id": None}] * 500
    df = spark.createDataFrame(rows, "group_id string")
    assert group_pass.big_groups(df, 4) == ["hot"]
    assert group_pass.big_groups(df, 1) == []
    even = spark.createDataFrame([{"group_id": f"g{i % 40}"} for i in range(40_000)], "group_id string")
    assert group_pass.big_groups(even, 4) == []


def test_split_groups_from_counts():
    from pipeline.spark import group_pass

    assert group_pass.split_groups({"hot": 36_000, **{f"g{i}": 80 for i in range(50)}}, 4) == ["hot"]
    assert group_pass.split_groups({"hot": 36_000}, 1) == []
    assert group_pass.split_groups({f"g{i}": 1_000 for i in range(40)}, 4) == []
    # two groups of a third each are both worth a second task on 4 partitions (1/3 > 0.5 * 1/4)
    assert group_pass.split_groups({"a": 100, "b": 100, "c": 100}, 4) == ["a", "b", "c"]
    assert group_pass.split_groups({}, 4) == []


def test_pass_with_counts_runs_one_job_and_splits_by_them(spark, tmp_path):
    """Given the rows per group (the ingest counts them from the parse stage's output), the pass
    runs one Spark job, not a sampling job first, and splits the groups the counts make big."""
    from pipeline.spark import group_pass

    rows = _events()
    counts = Counter(r["group_id"] for r in rows if r["group_id"] is not None)
    hot = max(counts, key=counts.get)
    counts[hot] *= 100          # as if this group held most of the rows
    df = spark.createDataFrame(rows, schemas.ddl("events"))
    sc = spark.sparkContext

    def jobs_of(tag: str, **kw) -> tuple[int, group_pass.Result]:
        sc.setJobGroup(tag, tag)
        try:
            out = group_pass.run(df, str(tmp_path / tag), None, write_events=True, **kw)
        finally:
            sc.setJobGroup(None, None)      # type: ignore[arg-type]
        return len(sc.statusTracker().getJobIdsForGroup(tag)), out

    n_given, _ = jobs_of("split-given", split=[hot])
    n_counts, out = jobs_of("counts-given", group_counts=dict(counts))
    assert out.split == [hot]
    assert n_counts == n_given          # no job beyond the pass's own
    series_parts = {int(f.name[5:10]) for f in (tmp_path / "counts-given" / "heartbeat_gaps").glob("part-*.parquet")}
    assert max(series_parts) >= 4       # the hot group's series were written by a series task


def test_staged_group_counts_count_the_rows_in_scope(tmp_path):
    """job.staged_group_counts: rows per group of the staged outcomes, with the job's scope (events
    without a time stay in; rows of no group count for none)."""
    import pyarrow as pa

    from pipeline.spark.job import staged_group_counts

    t = pa.table({"group_id": ["a", "a", "b", None, "a", "b"], "ts_ms": [10, 20, 30, 40, None, 5],
                  "kind": ["x"] * 6})
    pq.write_table(t.slice(0, 3), tmp_path / "part-00000.parquet")
    pq.write_table(t.slice(3), tmp_path / "part-00001.parquet")
    pq.write_table(t, tmp_path / ".part-00002.attempt-0.parquet")   # a failed attempt's file: not read
    assert staged_group_counts(str(tmp_path), None, None, None) == {"a": 3, "b": 2}
    assert staged_group_counts(str(tmp_path), "b", None, None) == {"b": 2}
    assert staged_group_counts(str(tmp_path), None, 15, None) == {"a": 2, "b": 1}
    assert staged_group_counts(str(tmp_path), None, None, 20) == {"a": 2, "b": 1}
    assert staged_group_counts(str(tmp_path), "a", 15, 25) == {"a": 2}
    (tmp_path / "none").mkdir()         # no staged file at all (no line carried an event)
    assert staged_group_counts(str(tmp_path / "none"), None, 10, None) == {}


@pytest.mark.parametrize("split", [None, "some", "all"])
def test_split_units_write_the_tables_of_the_whole_rows(spark, tmp_path, split):
    from pipeline import group_series, group_tables
    from pipeline.spark import group_pass

    rows = _events()
    groups = sorted({r["group_id"] for r in rows if r["group_id"] is not None})
    chosen = {None: None, "some": groups[::3], "all": groups}[split]
    df = spark.createDataFrame(rows, schemas.ddl("events"))
    out = group_pass.run(df, str(tmp_path), None, write_events=True, split=chosen)
    want: dict[str, list] = {"heartbeat_gaps": [], "offset_commits": [], "ownership": []}
    for g in sorted({r["group_id"] for r in rows if r["group_id"] is not None}):
        mine = [r for r in rows if r["group_id"] == g]
        for t, got in group_series.group_tables({c: [r[c] for r in mine] for c in group_tables.GROUP_COLUMNS}).items():
            want[t].extend(got)
    assert all(want.values())
    for t, expected in want.items():
        written = pq.read_table(tmp_path / t).to_pylist()
        assert _bag(written, t) == _bag(expected, t), t
        assert out.counts[t] == len(expected)
    assert out.counts["events"] == len(rows) == pq.read_table(tmp_path / "events").num_rows
    # the split groups' series were written by other tasks than the replay units (spark.sql.shuffle.partitions=4)
    series_parts = {int(f.name[5:10]) for f in (tmp_path / "heartbeat_gaps").glob("part-*.parquet")}
    if chosen is not None:      # (None: big_groups' sample of these few rows decides)
        assert (max(series_parts) >= 4) == bool(chosen)


def test_timeline_from_the_counted_facts_equals_the_measured_one(spark):
    from pipeline import timeline_facts
    from pipeline.spark import replay_stage

    rnd = random.Random(3)
    rows = []
    for g in ("g1", "g2"):
        for f, skew in (("a.log", 0), ("b.log", 2_500), ("c.log", -40)):
            for i in range(36):
                gen = 1 + i // 6
                r = {c: None for c in schemas.columns("events")}
                r.update(source=f, line_no=i + 1, side="client", group_id=g, generation=gen,
                         kind="join_succeeded" if i % 6 == 0 else "heartbeat_succeeded",
                         ts_ms=1_700_000_000_000 + gen * 60_000 + skew + rnd.randint(0, 30), raw=f"line {i} of {g}")
                rows.append(r)
    for with_copy in (False, True):
        if with_copy:   # d.log copies a.log: offsets are measured again on the deduplicated events
            rows = rows + [{**r, "source": "d.log"} for r in rows if r["source"] == "a.log"]
        df = spark.createDataFrame(rows, schemas.ddl("events"))
        diffs, shared = [], Counter()
        for g in ("g1", "g2"):
            cols = {c: [r[c] for r in rows if r["group_id"] == g] for c in timeline_facts.FACT_COLUMNS}
            diffs += timeline_facts.anchor_diffs(cols)
            shared.update(timeline_facts.shared_counts(cols))
        copies = replay_stage.copies_from_counts([(s, f, n) for (s, f), n in shared.items()])
        assert bool(copies) == with_copy
        want_df, want = replay_stage.timeline(df)
        got_df, got = replay_stage.timeline(df, copies, timeline_facts.clock_offsets(diffs))
        assert got == want and set(want) == {"b.log"}
        cols = schemas.columns("events")
        assert Counter(tuple(r) for r in got_df.select(*cols).collect()) == Counter(
            tuple(r) for r in want_df.select(*cols).collect())


def _stage_rows(tmp_path, rows: list[dict], n_buckets: int, offsets_by_split: dict[int, int]):
    """`rows` (events rows with exact line numbers) staged as the parse stage stages them: two
    parse tasks' files, split-relative line numbers, row groups by bucket."""
    import pyarrow as pa

    from pipeline.spark import buckets
    from pipeline.spark.group_pass import Staged
    from pipeline.spark.parse_stage import OUTCOME_FIELDS

    schema = buckets.staged_schema(schemas.arrow_schema_of(OUTCOME_FIELDS))
    staged = tmp_path / "_outcomes"
    staged.mkdir()
    for part in (0, 1):
        f = buckets.BucketedFile(str(staged), part, 0, schema, n_buckets)
        mine = []
        for i, r in enumerate(rows):
            if i % 2 == part:
                split_no = i % 3
                mine.append({**{c: None for c, _ in OUTCOME_FIELDS}, **r, "spath": "file:/x", "split_no": split_no,
                             "status": "parsed", "has_event": True,
                             "line_no": r["line_no"] - offsets_by_split[split_no]})
        for lo in range(0, len(mine), 50):
            f.write(pa.RecordBatch.from_pylist(mine[lo:lo + 50], schema=schemas.arrow_schema_of(OUTCOME_FIELDS)))
        f.close()
    offsets = [offsets_by_split[k] for k in range(3)]
    return Staged(buckets.staged_files(str(staged)), n_buckets, offsets)


@pytest.mark.parametrize("scope", [None, "group", "since"])
def test_staged_pass_writes_what_the_shuffled_pass_writes(spark, tmp_path, scope):
    """run_staged (the ingest's first pass: each task reads its bucket's staged rows with pyarrow)
    writes every table, `events` included, row for row as run() does from the same rows shuffled by
    Spark, with the same timeline facts; a big group's series are written by a task of their own."""
    from pipeline.spark import group_pass

    rows = _events()
    for i, r in enumerate(rows):
        r["line_no"] = 10_000 + i       # unique, and above every split offset
    groups = sorted({r["group_id"] for r in rows if r["group_id"] is not None})
    ts = sorted(r["ts_ms"] for r in rows if r["ts_ms"] is not None)
    sc = {None: group_pass.Scope(), "group": group_pass.Scope(group=groups[1]),
          "since": group_pass.Scope(since_ms=ts[len(ts) // 2])}[scope]
    want_rows = [r for r in rows if (sc.group is None or r["group_id"] == sc.group)
                 and (sc.since_ms is None or r["ts_ms"] is None or r["ts_ms"] >= sc.since_ms)]
    counts = Counter(r["group_id"] for r in want_rows if r["group_id"] is not None)
    hot = max(counts, key=counts.get)
    counts[hot] *= 100          # as if this group held most of the rows: its series get a task
    staged = _stage_rows(tmp_path, rows, 4, {0: 0, 1: 700, 2: 5_000})
    got = group_pass.run_staged(spark, staged, str(tmp_path / "staged"), None, sc, dict(counts))
    want = group_pass.run(spark.createDataFrame(want_rows, schemas.ddl("events")), str(tmp_path / "shuffled"), None,
                          write_events=True, split=[hot])
    assert got.split == [hot]
    assert got.counts == want.counts and got.counts["events"] == len(want_rows)
    def shared(res):
        out: Counter = Counter()
        for src, first, n in res.shared:
            out[(src, first)] += n
        return out

    assert shared(got) == shared(want) and sum(shared(got).values()) == len(want_rows)
    assert Counter(got.diffs) == Counter(want.diffs)
    for t in group_pass.GROUP_TABLES + ("events",):
        a = pq.read_table(tmp_path / "staged" / t).to_pylist()
        b = pq.read_table(tmp_path / "shuffled" / t).to_pylist()
        assert _bag(a, t) == _bag(b, t), t
    series_parts = {int(f.name[5:10]) for f in (tmp_path / "staged" / "heartbeat_gaps").glob("part-*.parquet")}
    assert max(series_parts) >= 4       # (buckets 0-3 are the replay tasks)


def _skewed_and_copied_rows() -> list[dict]:
    """random_events of two seeds with anchors (the broker's stabilization and each client's join
    per generation), b.log's clock 3 s ahead, and e.log a copy of a.log's lines."""
    from tests.spark.test_group_tables_twin import random_events

    rows = random_events(11, 300) + random_events(12, 300)
    rnd = random.Random(8)
    for g in ("g11a", "g11b", "g12a", "g12b"):
        for gen in range(1, 5):
            t = 1_700_000_000_000 + gen * 20_000
            for src, kind, at in (("k.log", "broker_group_stabilized", t), ("a.log", "join_succeeded", t + 5),
                                  ("b.log", "join_succeeded", t + 7), ("c.log", "join_succeeded", t + 9)):
                r = {c: None for c in schemas.columns("events")}
                r.update(source=src, side="broker" if src == "k.log" else "client", kind=kind, group_id=g,
                         generation=gen, ts_ms=at + rnd.randint(0, 3), raw=f"{kind} {g} {gen} {src}")
                rows.append(r)
    for r in rows:
        if r["source"] == "b.log" and r["ts_ms"] is not None:
            r["ts_ms"] += 3_000
    rows += [{**r, "source": "e.log"} for r in rows if r["source"] == "a.log"]
    for i, r in enumerate(rows):
        r["line_no"] = 10_000 + i
    return rows


def test_corrected_staged_pass_equals_the_spark_timeline(spark, tmp_path):
    """The second pass from the staged files (copies dropped and clocks shifted per group in the
    tasks, the offsets measured again on the deduplicated rows by a job of anchors only) writes
    what replay_stage.timeline's corrected DataFrame gives through the shuffled pass."""
    from pipeline import timeline_facts
    from pipeline.spark import group_pass, replay_stage

    rows = _skewed_and_copied_rows()
    staged = _stage_rows(tmp_path, rows, 4, {0: 0, 1: 700, 2: 5_000})
    first = group_pass.run_staged(spark, staged, str(tmp_path / "first"), None, group_pass.Scope(),
                                  Counter(r["group_id"] for r in rows if r["group_id"]))
    copies = replay_stage.copies_from_counts(first.shared)
    clock = timeline_facts.clock_offsets(first.diffs)
    assert copies == [("e.log", "a.log")]
    pairs = frozenset(copies)
    anchors = group_pass.run_staged(spark, staged, str(tmp_path / "first"), None, group_pass.Scope(),
                                    correction=group_pass.Correction(pairs), anchors=True)
    measured = {s: off for s, (off, _n) in timeline_facts.clock_offsets(anchors.diffs).items()
                if abs(off) >= replay_stage.SKEW_MIN_MS}
    df = spark.createDataFrame(rows, schemas.ddl("events"))
    timeline, want_offsets = replay_stage.timeline(df, copies, clock)
    assert measured == want_offsets and 2_900 <= measured["b.log"] <= 3_100
    split = sorted(first.split or ["g11a"])
    got = group_pass.run_staged(spark, staged, str(tmp_path / "staged"), None, group_pass.Scope(), split=split,
                                correction=group_pass.Correction(pairs, tuple(sorted(measured.items()))))
    want = group_pass.run(timeline, str(tmp_path / "shuffled"), None, timeline_facts=False, split=split)
    assert got.counts == want.counts and got.counts["heartbeat_gaps"] and got.counts["offset_commits"]
    for t in group_pass.GROUP_TABLES:
        a = pq.read_table(tmp_path / "staged" / t).to_pylist()
        b = pq.read_table(tmp_path / "shuffled" / t).to_pylist()
        assert _bag(a, t) == _bag(b, t), t
    assert not (tmp_path / "staged" / "events").exists()


def _shift_log4j_times(path, ms: int) -> None:
    import datetime as dt
    import re

    out = []
    for line in path.read_text().splitlines(keepends=True):
        m = re.match(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\]", line)
        if m:
            t = dt.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f") + dt.timedelta(milliseconds=ms)
            line = f"[{t.strftime('%Y-%m-%d %H:%M:%S')},{t.microsecond // 1000:03d}]" + line[m.end():]
        out.append(line)
    path.write_text("".join(out))


def test_ingest_corrects_copies_and_skew_in_the_staged_pass_as_spark_does(spark, tmp_path, monkeypatch):
    """The whole job on sample_logs/healthy_scale_out with one consumer's clock 4 s ahead and an
    overlapping copy of another consumer's log: the second pass (from the staged files, corrected
    in the tasks) finds the copy and the offset and writes every table as the Spark timeline does
    (forced here by making every offset count as resting on too many anchors)."""
    import shutil
    from pathlib import Path

    from pipeline.spark import replay_stage
    from tests.spark.conftest import run_ingest_inputs

    src = Path(__file__).resolve().parents[2] / "sample_logs" / "healthy_scale_out"
    inp = tmp_path / "in"
    shutil.copytree(src, inp)
    (inp / "truth.json").unlink()
    _shift_log4j_times(inp / "orders-app-3.log", 4_000)
    lines = (inp / "orders-app-2.log").read_text().splitlines(keepends=True)
    (inp / "orders-app-2.rotated.log").write_text("".join(lines[:140]))
    staged_man = run_ingest_inputs(spark, inp, tmp_path / "staged")
    monkeypatch.setattr(replay_stage, "PERCENTILE_EXACT", 0)
    spark_man = run_ingest_inputs(spark, inp, tmp_path / "spark")
    offsets = {Path(e["source"]).name: e["clock_offset_ms"] for e in staged_man["inputs"] if e.get("clock_offset_ms")}
    assert set(offsets) == {"orders-app-3.log"} and 3_500 <= offsets["orders-app-3.log"] <= 4_000
    assert [e.get("clock_offset_ms") for e in staged_man["inputs"]] == [e.get("clock_offset_ms") for e in spark_man["inputs"]]
    for t in schemas.TABLES:
        a = pq.read_table(tmp_path / "staged" / t).to_pylist()
        b = pq.read_table(tmp_path / "spark" / t).to_pylist()
        assert _bag(a, t) == _bag(b, t), t
    # the copy's lines count once in the replay: no member of the rotated copy beside the original's
    events = pq.read_table(tmp_path / "staged" / "events").to_pylist()
    assert any(e["source"].endswith("orders-app-2.rotated.log") for e in events)     # events keep every line
    gaps = pq.read_table(tmp_path / "staged" / "heartbeat_gaps").to_pylist()
    assert gaps and not any(g["source"].endswith("orders-app-2.rotated.log") for g in gaps)


def test_ingest_corrects_a_clock_stepped_midway_by_level(spark, tmp_path):
    """The whole job on sample_logs/rolling_deploy (with its broker log) where billing-worker-1's
    clock was set 30 s forward halfway through its log (an NTP step): the manifest gives that file
    two levels and no one offset, the other files none, and every rebalance duration the run states
    is the truth's (on a8acb3f: one offset of +30 s for the whole file, and durations 30 s off)."""
    import json
    import shutil
    from pathlib import Path

    from tests.replay.perturb import clock_off
    from tests.spark.conftest import run_ingest_inputs

    src = Path(__file__).resolve().parents[2] / "sample_logs" / "rolling_deploy"
    inp = tmp_path / "in"
    shutil.copytree(src, inp)
    truth = json.loads((inp / "truth.json").read_text())
    (inp / "truth.json").unlink()
    log = inp / "billing-worker-1.log"
    lines = log.read_text().splitlines()
    half = len(lines) // 2
    while not lines[half][:1].isdigit():      # a record's first line (Spring Boot's layout)
        half += 1
    log.write_text("\n".join(lines[:half] + clock_off(log.name, lines[half:], 30_000)[log.name]) + "\n")
    man = run_ingest_inputs(spark, inp, tmp_path / "out")
    by_name = {Path(e["source"]).name: e for e in man["inputs"]}
    levels = by_name["billing-worker-1.log"]["clock_steps"]
    assert by_name["billing-worker-1.log"]["clock_offset_ms"] is None and len(levels) == 2
    assert abs(levels[0]["offset_ms"]) < 1_000 and 29_000 <= levels[1]["offset_ms"] <= 30_500
    assert half - 40 <= levels[1]["from_line"] and levels[1]["after_line"] <= half + 1 <= levels[1]["from_line"]
    assert all(e.get("clock_steps") is None for n, e in by_name.items() if n != "billing-worker-1.log")
    true_ms = {g["generation"]: g["stabilized_ms"] - g["rebalance_started_ms"] for g in truth["generations"]
               if g.get("rebalance_started_ms") is not None and g.get("stabilized_ms") is not None}
    stated = {g["generation"]: g["rebalance_ms"] for g in pq.read_table(tmp_path / "out" / "generations").to_pylist()
              if g["rebalance_ms"] is not None}
    assert stated and all(abs(ms - true_ms[g]) <= 1_000 for g, ms in stated.items()), (stated, true_ms)
    # the report tells it, for that file only
    from pipeline.report import build_report

    said = build_report(tmp_path / "out")["summary"]["time_corrections"]
    assert [Path(c["source"]).name for c in said] == ["billing-worker-1.log"]
    assert "then 30." in said[0]["sentence"] and "s ahead from a point between lines" in said[0]["sentence"]


def test_ingest_corrects_one_pods_clock_in_a_merged_file_by_its_origin(spark, tmp_path, monkeypatch):
    """sample_logs/gc_pause_session_expiry with its three consumers' logs merged into one `kubectl logs
    --prefix` file (tests/replay/perturb.py) and inventory-sync-1's clock 5 s ahead, beside the broker's
    log: the staged pass and the Spark timeline (forced as above) both correct that pod's lines only,
    by the offset its own file gets, and every table but `events` (whose rows keep the times as logged)
    equals that of the pods' own files with the same skew, times included (evidence, finding ids and
    stream names aside); the manifest and the report state the offset under the pod's origin. Before
    (794acbf): one offset for the merged file, the median of its three pods' anchors, below the second
    corrected, so inventory-sync-1's lines stayed 5 s late."""
    import json
    import shutil
    from pathlib import Path

    from pipeline.report import build_report
    from pipeline.spark import replay_stage
    from tests.replay import perturb as P
    from tests.spark.conftest import run_ingest_inputs

    src = Path(__file__).resolve().parents[2] / "sample_logs" / "gc_pause_session_expiry"
    clients = ["inventory-sync-1.log", "inventory-sync-2.log", "inventory-sync-3.log"]
    lines = {n: P.read_lines(src / n) for n in clients}
    lines |= P.clock_off("inventory-sync-1.log", lines["inventory-sync-1.log"], 5_000)
    wrapped = P.kubectl_prefix(lines)
    merged, separate = tmp_path / "merged", tmp_path / "separate"
    for d, files in ((merged, P.interleaved(wrapped, chunk=3, name="pods.log")), (separate, wrapped)):
        d.mkdir()
        for n in ("kafka-1-server.log", "consumer-offsets-dump.txt"):
            shutil.copy(src / n, d / n)
        for n, text in files.items():
            (d / n).write_text("\n".join(text) + "\n")
    sep_man = run_ingest_inputs(spark, separate, tmp_path / "sep-out")
    staged_man = run_ingest_inputs(spark, merged, tmp_path / "staged")
    monkeypatch.setattr(replay_stage, "PERCENTILE_EXACT", 0)
    spark_man = run_ingest_inputs(spark, merged, tmp_path / "spark")
    sep_off = {Path(e["source"]).name: e["clock_offset_ms"] for e in sep_man["inputs"] if e.get("clock_offset_ms")}
    assert set(sep_off) == {"inventory-sync-1.log"} and 4_000 <= sep_off["inventory-sync-1.log"] <= 5_500
    pod = f"pod/{P.pod_name('inventory-sync-1.log')}/app"
    for man in (staged_man, spark_man):
        by_name = {Path(e["source"]).name: e for e in man["inputs"]}
        assert by_name["pods.log"]["clock_offset_ms"] is None and by_name["pods.log"]["clock_steps"] is None
        assert by_name["pods.log"]["clock_origins"] == [
            {"origin": pod, "clock_offset_ms": sep_off["inventory-sync-1.log"], "clock_steps": None}]
        assert all(e.get("clock_origins") is None and not e.get("clock_offset_ms") for n, e in by_name.items()
                   if n != "pods.log")
    for t in schemas.TABLES:
        assert _bag(pq.read_table(tmp_path / "staged" / t).to_pylist(), t) == \
            _bag(pq.read_table(tmp_path / "spark" / t).to_pylist(), t), t

    def same(run: Path, names: dict[str, str], table: str) -> list[str]:
        out = []
        for r in pq.read_table(run / table).to_pylist():
            text = json.dumps({k: v for k, v in r.items() if k not in ("evidence", "finding_id", "source")},
                              sort_keys=True, default=str)
            for a, b in names.items():
                text = text.replace(a, b)
            out.append(text)
        return sorted(out)

    names = {f"{merged}/pods.log [pod/{P.pod_name(n)}/app]": f"{separate}/{n}" for n in clients}
    names[str(merged)] = str(separate)
    for t in ("generations", "memberships", "ownership", "findings", "heartbeat_gaps", "offset_commits"):
        assert same(tmp_path / "staged", names, t) == same(tmp_path / "sep-out", {}, t), t
    said = build_report(tmp_path / "staged")["summary"]["time_corrections"]
    assert [(Path(c["source"]).name, c.get("origin"), c.get("offset_ms")) for c in said] == [
        ("pods.log", pod, sep_off["inventory-sync-1.log"])]
    assert said[0]["sentence"].startswith(f"its lines of {pod} (this file merges several processes' logs, each on "
                                          "its own host's clock")
    assert f"ran {sep_off['inventory-sync-1.log'] / 1000:.1f} s ahead of the other logs of its group" in said[0]["sentence"]
