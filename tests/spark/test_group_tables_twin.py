"""pipeline.group_tables (pure, per group) against the Spark window code of tables.py on random
event mixes: the same rows, row for row. The ingest runs the pure functions; tables.py stays the
reference they are checked against."""

from __future__ import annotations

import json
import random
from collections import Counter

import pyarrow as pa
import pytest

from pipeline import schemas

pytestmark = pytest.mark.spark

KINDS = ["join_succeeded", "heartbeat_succeeded", "heartbeat_sent", "heartbeat_failed", "client_config",
         "offset_committed", "offset_record", "offset_fetched", "offset_reset", "offset_seek", "describe_row",
         "partitions_assigned", "partitions_revoked", "partitions_lost", "leave_group", "member_fenced",
         "poll_timeout", "generation_reset", "broker_member_removed", "fetch_error"]


def random_events(seed: int, n: int = 400) -> list[dict]:
    """n events over two groups (g{seed}a, g{seed}b), five files (a.log's client lines of two
    origins and none), three clients, three members."""
    rnd = random.Random(seed)
    rows = []
    sources = ["a.log", "b.log", "c.log", "k.log", "dump.txt"]
    lines = Counter()
    for _ in range(n):
        kind = rnd.choice(KINDS)
        src = "k.log" if kind == "broker_member_removed" else rnd.choice(sources)
        lines[src] += 1
        side = {"k.log": "broker", "dump.txt": "offsets"}.get(src, "client")
        if kind == "broker_member_removed":
            side = "broker"
        r = {c: None for c in schemas.columns("events")}
        r.update(source=src, line_no=lines[src], side=side, kind=kind, raw=f"{src} {kind}",
                 ts_ms=None if rnd.random() < 0.05 else 1_700_000_000_000 + rnd.randint(0, 200) * 500,
                 group_id=rnd.choice([f"g{seed}a", f"g{seed}b"]), client_id=rnd.choice([None, "c1", "c2", "c3"]))
        if rnd.random() < 0.3:
            r["member_id"] = rnd.choice(["m1", "m2", "m3"])
        if rnd.random() < 0.25:
            r["generation"] = rnd.randint(1, 4)
        if rnd.random() < 0.2:
            r["kafka_version_hint"] = rnd.choice(["2.8.1", "3.6", "0.10.0", "1..3", "x"])
        if kind.startswith("heartbeat") and rnd.random() < 0.3:  # librdkafka via confluent-kafka-python's logger
            r["extra_json"] = json.dumps({"binding": "python", "librdkafka_rule": "heartbeat_sent"})
        if kind == "client_config" and rnd.random() < 0.7:
            r["extra_json"] = json.dumps({"settings": {"session.timeout.ms": str(rnd.choice([10_000, 20_000, 45_000]))}})
        if src == "a.log" and side == "client":
            # a file of several processes (`kubectl logs --prefix`): each line's origin in extra_json,
            # the same client ids in each (group_tables.ORIGIN_KEY: a client stream per origin)
            extra = json.loads(r["extra_json"] or "{}")
            origin = rnd.choice(["pod/p-0/app", "pod/p-1/app", None])
            if origin is not None:
                extra["origin"] = origin
            r["extra_json"] = json.dumps(extra) if extra else None
        if kind.startswith("offset") or kind == "describe_row":
            r.update(topic=rnd.choice(["t", "u"]), partition=rnd.randint(0, 2), offset=rnd.randint(0, 1000))
            if kind == "offset_reset" and rnd.random() < 0.5:
                r["raw"] = "Resetting offset for partition t-0 to the committed offset 5"
        if kind.startswith("partitions_"):
            r["partitions"] = rnd.sample(["t-0", "t-1", "t-2", "u-0", "weird"], rnd.randint(0, 3))
        if kind == "broker_member_removed":
            r["member_id"] = rnd.choice(["m1", "m2", "m3"])
            r["raw"] = rnd.choice(["Member m1 in group g1 has failed, removing it", "Member left (LeaveGroup)"])
        rows.append(r)
    return rows


def _frozen(v):
    return tuple(_frozen(x) for x in v) if isinstance(v, list) else v


def _bag(rows, table):
    out = Counter()
    for r in rows:
        r = dict(r)
        if table == "heartbeat_gaps" and r["evidence"][-1].startswith("k.log:"):
            # an expiry row of a member seen in several streams: Spark's `first` picks any
            # stream's client and file (group_tables picks the first by name)
            r["client_id"] = r["source"] = None
        out[tuple(_frozen(r.get(c)) for c in schemas.columns(table))] += 1
    return out


SEEDS = range(8)


def test_pure_group_tables_equal_the_spark_windows(spark):
    from pipeline import group_series, group_tables
    from pipeline.spark import tables
    from pipeline.spark.write import conform

    rows = [r for seed in SEEDS for r in random_events(seed)]
    groups = sorted({r["group_id"] for r in rows})
    df = spark.createDataFrame(rows, schemas.ddl("events"))
    # memberships naming one holder for some (generation, partition): the replay's share of ownership
    ms = [{"group_id": g, "generation": gen, "member_id": m, "assigned": a}
          for g in groups for gen, m, a in ((1, "m1", ["t-0"]), (2, "m2", ["t-1", "t-2"]), (2, "m3", ["t-2"]))]
    ms_df = spark.createDataFrame([{c: r.get(c) for c in schemas.columns("memberships")} for r in ms],
                                  schemas.ddl("memberships"))
    want = {
        "heartbeat_gaps": [r.asDict() for r in conform(tables.heartbeat_gaps(df), "heartbeat_gaps").collect()],
        "offset_commits": [r.asDict() for r in conform(tables.offset_commits(df), "offset_commits").collect()],
        "ownership": [r.asDict() for r in tables.name_unnamed_owners(
            conform(tables.ownership(df), "ownership"), ms_df).collect()],
    }
    got: dict[str, list] = {t: [] for t in want}
    left_out = []
    for g in groups:
        mine = [r for r in rows if r["group_id"] == g]
        cols = {c: [r[c] for r in mine] for c in group_tables.GROUP_COLUMNS}
        # (with the last_line step on both sides: group_tables.ownership `lives`, spark/tables._last_lines)
        for t, out in group_series.group_tables(cols, [m for m in ms if m["group_id"] == g]).items():
            got[t].extend(out)
        left_out.append(len(group_series.left_out_streams(pa.Table.from_pylist(mine, schemas.arrow_schema("events")))))
    # random member ids make some client streams of several processes (a member id back after
    # another): both sides leave them out (group_tables.left_out_streams); others stay
    assert any(left_out) and 0 in left_out
    # the mixes reach the last_line step both ways (another owner follows; held to the end)
    ends = Counter(r["end_reason"] for r in want["ownership"])
    assert ends["last_line"] and ends["log_end"], ends
    for t in want:
        assert _bag(got[t], t) == _bag(want[t], t), t


def test_timeline_facts_equal_the_spark_timeline_jobs(spark):
    """pipeline.timeline_facts (gathered per group in the ingest's one pass) against
    replay_stage's Spark jobs: the same copied files and clock offsets."""
    from pipeline import timeline_facts
    from pipeline.spark import replay_stage

    rnd = random.Random(5)
    rows = []
    for g in ("g1", "g2", None):
        for f, skew in (("a.log", 0), ("b.log", 2_500), ("c.log", -40)):
            for i in range(60):
                gen = 1 + i // 6
                r = {c: None for c in schemas.columns("events")}
                kind = "join_succeeded" if i % 6 == 0 else rnd.choice(["heartbeat_succeeded", "offset_committed"])
                r.update(source=f, line_no=i + 1, side="client", kind=kind, group_id=g, generation=gen,
                         ts_ms=1_700_000_000_000 + gen * 60_000 + skew + rnd.randint(0, 30), raw=f"line {i} of {g}")
                rows.append(r)
        for gen in range(1, 8, 2):   # the broker's stabilizations for some generations
            r = {c: None for c in schemas.columns("events")}
            r.update(source="k.log", line_no=gen, side="broker", kind="broker_group_stabilized", group_id=g,
                     generation=gen, ts_ms=1_700_000_000_000 + gen * 60_000 - 5, raw=f"stab {gen} {g}")
            rows.append(r)
    # a static member's restart in c.log rejoins generation 3 alone, 45 s after its rebalance: no anchor
    # (each file's first join of a generation is; before, the late line counted in both)
    rows += [{**r, "line_no": 1000 + r["line_no"], "ts_ms": r["ts_ms"] + 45_000, "raw": r["raw"] + " static rejoin"}
             for r in rows if r["source"] == "c.log" and r["kind"] == "join_succeeded" and r["generation"] == 3]
    # generation 20 joined by b.log alone, no broker line: nothing to compare its clock with, no anchor
    rows += [{**r, "line_no": 2000, "generation": 20, "ts_ms": r["ts_ms"] + 600_000, "raw": r["raw"] + " alone"}
             for r in rows if r["source"] == "b.log" and r["kind"] == "join_succeeded" and r["generation"] == 10]
    # d.log copies most of a.log's lines (same text and time), e.log a few
    rows += [{**r, "source": "d.log"} for r in rows if r["source"] == "a.log" and r["line_no"] % 5]
    rows += [{**r, "source": "e.log"} for r in rows if r["source"] == "a.log" and r["line_no"] % 7 == 0]
    rows += [{**r, "source": "e.log", "raw": r["raw"] + " own"} for r in rows if r["source"] == "c.log"]
    df = spark.createDataFrame(rows, schemas.ddl("events"))
    want_copies = replay_stage.copied_files(df)
    want_offsets = {r["source"]: (int(r["offset_ms"]), int(r["anchors"]))
                    for r in replay_stage.clock_offsets(df).collect()}
    shared, diffs = Counter(), []
    for g in ("g1", "g2", None):
        mine = [r for r in rows if r["group_id"] == g]
        cols = {c: [r[c] for r in mine] for c in timeline_facts.FACT_COLUMNS}
        shared.update(timeline_facts.shared_counts(cols))
        diffs += timeline_facts.anchor_diffs(cols)
    assert want_copies == [("d.log", "a.log")]
    assert replay_stage.copies_from_counts([(s, f, n) for (s, f), n in shared.items()]) == want_copies
    assert timeline_facts.clock_offsets(diffs) == want_offsets
    assert abs(want_offsets["b.log"][0]) >= replay_stage.SKEW_MIN_MS
    # (10 generations in g1 and g2; the joins of no group are no anchors)
    assert want_offsets["b.log"][1] == 20
    assert want_offsets["c.log"][1] == 20 and abs(want_offsets["c.log"][0]) < replay_stage.SKEW_MIN_MS


def test_consumer_protocol_clock_anchors_equal_the_spark_job_and_find_the_offset(spark):
    """A consumer-protocol (KIP-848) group shares no client line at one moment; with the broker's log
    each member's join is an anchor (timeline_facts.epoch_anchor_diffs). sample_logs/consumer_scale_out
    with ledger-2.log's clock 90 s ahead: Spark's job and the pure functions give the same offsets,
    ledger-2.log's within a second of 90 s, the others' under the correction threshold (on a8acb3f
    no offset at all: the group had no anchors)."""
    from pathlib import Path

    from pipeline import timeline_facts
    from pipeline.spark import replay_stage
    from tests.replay import perturb as P
    from tests.replay.arrow_tables import events_table

    folder = Path(__file__).resolve().parents[2] / "sample_logs" / "consumer_scale_out"
    truth = json.loads((folder / "truth.json").read_text())
    files = {n: P.read_lines(folder / n) for n in truth["files"]}
    files |= P.clock_off("ledger-2.log", files["ledger-2.log"], 90_000)
    rows = events_table(P.parsed(files, folder.name)).to_pylist()
    df = spark.createDataFrame(rows, schemas.ddl("events"))
    want = {r["source"]: (int(r["offset_ms"]), int(r["anchors"])) for r in replay_stage.clock_offsets(df).collect()}
    diffs = []
    for g in {r["group_id"] for r in rows}:
        mine = [r for r in rows if r["group_id"] == g]
        diffs += timeline_facts.anchor_diffs({c: [r[c] for r in mine] for c in timeline_facts.FACT_COLUMNS})
    assert timeline_facts.clock_offsets(diffs) == want
    shifted = want.pop("consumer_scale_out/ledger-2.log")
    assert abs(shifted[0] - 90_000) < 1_000 and shifted[1] >= 1
    assert want and all(abs(off) < replay_stage.SKEW_MIN_MS for off, _n in want.values())


def test_clock_offsets_per_origin_equal_the_spark_jobs_and_shift_the_same_rows(spark):
    """A file merging three pods' lines (m.log, each line's origin in extra_json, pod/a's clock 3 s
    ahead, pod/c's 40 ms behind) beside a file of one origin (s.log, Spring Boot's PID on every line,
    2.5 s ahead) and one of none: Spark's clock_offsets and the pure functions give the same clocks,
    m.log's per origin, s.log's and k.log's per file; replay_stage.timeline shifts the same rows by
    the same offsets as timeline_corrections.shift (m.log's lines naming no origin are not moved)."""
    import pyarrow as pa

    from pipeline import timeline_corrections, timeline_facts
    from pipeline.spark import replay_stage

    sep = timeline_facts.CLOCK_SEP
    rnd = random.Random(7)
    rows = []
    for f, origin, skew in (("m.log", "pod/a/app", 3_000), ("m.log", "pod/b/app", 0), ("m.log", "pod/c/app", -40),
                            ("s.log", "pid:7", 2_500), ("t.log", None, 0)):
        for i in range(48):
            gen = 1 + i // 6
            r = {c: None for c in schemas.columns("events")}
            kind = "join_succeeded" if i % 6 == 0 else rnd.choice(["heartbeat_succeeded", "offset_committed"])
            line = {"pod/a/app": 3 * i + 1, "pod/b/app": 3 * i + 2, "pod/c/app": 3 * i + 3}.get(origin, i + 1)
            r.update(source=f, line_no=line, side="client", kind=kind, group_id="g", generation=gen,
                     ts_ms=1_700_000_000_000 + gen * 60_000 + skew + rnd.randint(0, 30), raw=f"line {i} of {origin}",
                     extra_json=json.dumps({"origin": origin, "thread": "main"}) if origin else None)
            rows.append(r)
    rows += [{**{c: None for c in schemas.columns("events")}, "source": "m.log", "line_no": 500 + i, "side": "client",
              "kind": "heartbeat_succeeded", "group_id": "g", "ts_ms": 1_700_000_100_000 + i, "raw": f"bare {i}"}
             for i in range(3)]
    df = spark.createDataFrame(rows, schemas.ddl("events"))
    want = {r["source"]: (int(r["offset_ms"]), int(r["anchors"])) for r in replay_stage.clock_offsets(df).collect()}
    diffs = timeline_facts.anchor_diffs({c: [r[c] for r in rows] for c in timeline_facts.FACT_COLUMNS})
    assert timeline_facts.clock_offsets(diffs) == want
    assert set(want) == {f"m.log{sep}pod/a/app", f"m.log{sep}pod/b/app", f"m.log{sep}pod/c/app", "s.log", "t.log"}
    assert abs(want[f"m.log{sep}pod/a/app"][0] - 3_000) < 100 and abs(want["s.log"][0] - 2_500) < 100
    assert abs(want[f"m.log{sep}pod/b/app"][0]) < 100 and abs(want[f"m.log{sep}pod/c/app"][0]) < 100
    tl, offsets = replay_stage.timeline(df)
    assert offsets == {k: off for k, (off, _n) in want.items() if abs(off) >= replay_stage.SKEW_MIN_MS}
    got = sorted((r["source"], r["line_no"], r["ts_ms"]) for r in tl.collect())
    table = pa.Table.from_pylist(rows, schema=schemas.arrow_schema("events"))
    pure = timeline_corrections.shift(table, offsets).to_pylist()
    assert got == sorted((r["source"], r["line_no"], r["ts_ms"]) for r in pure)
    moved = {(r["source"], r["line_no"]) for r, p in zip(rows, pure, strict=True) if r["ts_ms"] != p["ts_ms"]}
    assert moved == {(r["source"], r["line_no"]) for r in rows
                     if r["source"] == "s.log" or "pod/a/app" in (r["extra_json"] or "")}
