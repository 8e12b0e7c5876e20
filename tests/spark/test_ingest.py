"""The whole job (real parsers and replay) on small hand-written inputs in real Kafka wordings, and the
CLI's errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from pipeline import rundir, schemas
from tests.spark.conftest import MEMBER
from tests.spark.conftest import run_ingest_inputs as _run

# one worker for the whole module under pytest-xdist: the ingest its tests share (`run`, tests/spark/conftest.py)
# is built once, not once per worker
pytestmark = pytest.mark.xdist_group("test_ingest")


@pytest.mark.spark
def test_accounting_adds_up_per_file_and_in_total(run, inputs):
    out, man = run
    files = {os.path.relpath(e["source"], inputs): e for e in man["inputs"]}
    c = files["app/consumer-1.log"]
    # parsed: 10 event lines + 2 stack-trace lines of "Rebalance failed."; ignored: the app line and the
    # garbage line; unparsed: the one wording no Kafka version logs
    assert (c["lines_read"], c["parsed"], c["ignored"], c["unparsed"], c["candidates"]) == (15, 12, 2, 1, 13)
    b = files["broker/server.log.gz"]
    assert (b["lines_read"], b["parsed"], b["ignored"], b["unparsed"], b["layout"]) == (4, 2, 1, 1, "log4j")
    assert files["zz-copies/consumer-1.log"]["status"] == "duplicate"
    assert files["zz-copies/consumer-1.log"]["duplicate_of"].endswith("consumer-1.log")
    assert files["empty.log"]["status"] == "empty" and files["empty.log"]["lines_read"] == 0
    assert files["junk.bin"]["status"] == "rejected" and "binary" in files["junk.bin"]["problems"][0]
    acc = man["accounting"]
    assert acc["adds_up"] and acc["lines_read"] == 20 == acc["parsed"] + acc["ignored"] + acc["unparsed"]
    assert (acc["parsed"], acc["ignored"], acc["unparsed"]) == (15, 3, 2)
    assert (acc["files_read"], acc["files_duplicate"], acc["files_empty"], acc["files_rejected"]) == (3, 1, 1, 1)
    assert {r["source"].rsplit("/", 1)[1] for r in man["rejects"]} == {"junk.bin", "consumer-1.log"}
    assert set(man["versions"]) >= {"coordscope", "spark", "java"} and man["versions"]["java"] >= 17
    assert {"read and parse", "write unparsed", "tables and replay", "total"} <= set(man["timings_s"])
    assert man["candidate_filter"] == "java" and not [w for w in man["warnings"] if "rlike" in w]
    assert man["tables"] == {t: len(rundir.load_table(out, t)) for t in schemas.TABLES}


@pytest.mark.spark
def test_tables_carry_provenance_and_schema(run, inputs):
    out, man = run
    events = rundir.load_table(out, "events")
    src = str(inputs / "app" / "consumer-1.log")
    mine = events[events.source == src].set_index("line_no")
    assert mine.loc[1, "kind"] == "subscription_changed"
    assert mine.loc[3, "kind"] == "join_succeeded" and mine.loc[3, "generation"] == 1
    assert mine.loc[3, "member_id"] == MEMBER and mine.loc[3, "protocol"] == "range"
    assert list(mine.loc[4, "partitions"]) == ["t-0", "t-1"]
    assert mine.loc[8, "kind"] == "rebalance_failed" and 9 not in mine.index and 10 not in mine.index  # trace attached
    assert mine.loc[13, "kind"] == "leave_group" and mine.loc[13, "member_id"] == MEMBER
    assert mine.loc[14, "kind"] == "unparsed"
    assert len(mine) == 11
    bsrc = str(inputs / "broker" / "server.log.gz")
    bro = events[events.source == bsrc].set_index("line_no").sort_index()    # (row order is no contract)
    assert list(bro.kind) == ["broker_rebalance_preparing", "broker_group_stabilized", "unparsed"]
    assert (bro.loc[2, "group_id"], bro.loc[2, "generation"], bro.loc[2, "side"]) == ("g1", 1, "broker")
    un = rundir.load_table(out, "unparsed").set_index(["source", "line_no"])
    assert sorted(un.index) == [(src, 14), (bsrc, 3)]
    assert un.loc[(src, 14), "why"] == "no client rule matched (message starts: 'Coordinator said something no')"
    assert un.loc[(bsrc, 3), "why"].startswith("no broker rule matched")
    assert len(events[events.source.str.contains("zz-copies")]) == 0
    gens = rundir.load_table(out, "generations").sort_values("group_id")
    assert sorted(zip(gens.group_id, gens.generation, strict=True)) == [("g1", 1), ("other", 4)]
    g1 = gens.iloc[0]
    assert (g1.leader, list(g1.members), g1.protocol, g1.started_ms) == (MEMBER, [MEMBER], "range", 1_714_557_601_500)
    assert json.loads(g1.assignment_json) == {MEMBER: ["t-0", "t-1"]}
    assert (g1.cause, g1.trigger_member, bool(g1.inferred)) == ("member_joined", MEMBER, False)
    # no "Assignment received from leader" line: Stable from the client's assignment at 10:00:02.100
    assert (g1.stabilized_ms, g1.rebalance_ms) == (1_714_557_602_100, 600)
    ms = rundir.load_table(out, "memberships").set_index("group_id")
    assert (ms.loc["g1", "member_id"], ms.loc["g1", "leave_reason"], ms.loc["g1", "left_ms"]) == (
        MEMBER, "shutdown", 1_714_557_662_000)
    own = rundir.load_table(out, "ownership")
    assert sorted(zip(own.partition, own.generation, own.member_id, own.end_reason, strict=True)) == [
        (0, 1, MEMBER, "revoked"), (1, 1, MEMBER, "revoked")]
    oc = rundir.load_table(out, "offset_commits").sort_values("ts_ms")
    assert list(zip(oc.offset, oc.flag, oc.generation, strict=True)) == [(10, "first", 1), (5, "rewind", 1)]
    gaps = rundir.load_table(out, "heartbeat_gaps")
    (hb,) = gaps[gaps.kind == "heartbeat"].itertuples()
    assert (hb.gap_ms, bool(hb.exceeded), list(hb.evidence)) == (55_000, True, [f"{src}:5", f"{src}:11"])
    fi = rundir.load_table(out, "findings")
    assert sorted(zip(fi.group_id, fi.kind, fi.severity, strict=True)) == [
        ("g1", "offset_rewind", "medium"), ("other", "unexplained", "low")]
    assert fi[fi.kind == "offset_rewind"].title.iat[0] == "t-0: offsets 5-9 processed again (5 records)"
    for t in schemas.TABLES:
        assert list(rundir.load_table(out, t).columns) == schemas.columns(t)
    s = man["summary"]
    assert (s["groups"], s["generations"], s["findings_by_severity"]) == (2, 2, {"medium": 1, "low": 1})


@pytest.mark.spark
def test_scope_refuse_and_overwrite(spark, inputs, tmp_path):
    from pipeline.spark.job import IngestError

    out = tmp_path / "scoped"
    man = _run(spark, inputs, out, group="g1", since_ms=1_714_557_602_050)   # 10:00:02.050
    ev = rundir.load_table(out, "events")
    assert set(ev.group_id.dropna()) == {"g1"} and ev.ts_ms.min() >= 1_714_557_602_050
    assert man["scope"]["events_in_scope"] == len(ev) < man["scope"]["events_total"]
    with pytest.raises(IngestError, match="already exists; pass --overwrite"):
        _run(spark, inputs, out)
    assert rundir.load_manifest(out)["scope"]["group"] == "g1"          # untouched
    _run(spark, inputs, out, overwrite=True)
    assert rundir.load_manifest(out)["scope"]["group"] is None
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary leftovers


def _cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(cwd))
    return subprocess.run([sys.executable, "-m", "pipeline.cli", "ingest", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_cli_bad_inputs_are_one_line_errors(repo_root, tmp_path):
    r = _cli(str(tmp_path / "nope.log"), "--out", str(tmp_path / "o"), cwd=repo_root)
    assert r.returncode == 2 and r.stderr.strip() == f"coordscope ingest: error: input not found: {tmp_path / 'nope.log'}"
    r = _cli(str(tmp_path / "*.log"), "--out", str(tmp_path / "o"), cwd=repo_root)
    assert r.returncode == 2 and "no files match" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = _cli(str(tmp_path), "--out", str(tmp_path / "o"), "--since", "yesterday", cwd=repo_root)
    assert r.returncode == 2 and "--since 'yesterday': not an ISO 8601 time" in r.stderr
    assert not (tmp_path / "o").exists()


def test_cli_missing_or_old_java(repo_root, tmp_path):
    (tmp_path / "a.log").write_text("x\n")
    fake = tmp_path / "jdk" / "bin"
    fake.mkdir(parents=True)
    (fake / "java").write_text('#!/bin/sh\necho \'openjdk version "11.0.2" 2019-01-15\' >&2\n')
    (fake / "java").chmod(0o755)
    env = dict(os.environ, PYTHONPATH=str(repo_root), JAVA_HOME=str(tmp_path / "jdk"))
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "ingest", str(tmp_path / "a.log"), "--out",
                        str(tmp_path / "o")], cwd=repo_root, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 3 and "needs Java 17+ but found Java 11" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "o").exists()


def test_parse_time_forms():
    from pipeline.commands.ingest import parse_time

    assert parse_time("2024-05-01T10:00:00Z", "--since") == 1_714_557_600_000
    assert parse_time("2024-05-01 12:00:00+02:00", "--since") == 1_714_557_600_000
    assert parse_time("2024-05-01T10:00:00", "--since") == 1_714_557_600_000
    assert parse_time("1714557600000", "--since") == 1_714_557_600_000


def test_manifest_is_json(run):
    out, _ = run
    assert json.loads((out / "manifest.json").read_text())["tool"] == "coordscope ingest"


def test_local_masters_get_two_shuffle_partitions_per_core():
    import os

    from pipeline.spark.job import local_cores, session_conf

    assert [local_cores(m) for m in ("local", "local[3]", "local[4, 2]", "local[*]")] == [1, 3, 4, os.cpu_count()]
    assert local_cores("local-cluster[2,1,1024]") is None
    assert session_conf("local[2]", {})["spark.sql.shuffle.partitions"] == "4"
    assert session_conf("local", {})["spark.sql.shuffle.partitions"] == "2"
    assert session_conf("local[2]", {"spark.sql.shuffle.partitions": "16"})["spark.sql.shuffle.partitions"] == "16"
    assert "spark.sql.shuffle.partitions" not in session_conf("spark://10.0.0.1:7077", {})   # the session's 8
    assert "spark.sql.shuffle.partitions" not in session_conf("local-cluster[2,1,1024]", {})


def test_session_conf_turns_aqe_off_on_one_machine_only():
    from pipeline.spark.job import session_conf

    assert session_conf("local[2]", {})["spark.sql.adaptive.enabled"] == "false"
    assert session_conf("spark://10.0.0.1:7077", {})["spark.sql.adaptive.enabled"] == "true"
    assert session_conf("local[*]", {"spark.sql.adaptive.enabled": "true"})["spark.sql.adaptive.enabled"] == "true"
    assert session_conf("yarn", {})["spark.sql.files.maxPartitionBytes"] == str(32 * 1024 * 1024)


def test_local_driver_uses_the_throughput_collector(spark):
    """On local masters the driver JVM runs the tasks: ParallelGC there, not on a cluster's driver."""
    from pipeline.spark.session import driver_java_options

    log4j = '"-Dlog4j2.configurationFile=file://'
    assert driver_java_options("local[2]").startswith("-Duser.timezone=UTC -XX:+UseParallelGC " + log4j)
    assert driver_java_options("spark://10.0.0.1:7077").startswith("-Duser.timezone=UTC " + log4j)
    jvm = spark.sparkContext._jvm
    beans = jvm.java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()
    names = {beans.get(i).getName() for i in range(beans.size())}
    assert names == {"PS Scavenge", "PS MarkSweep"}      # the test session is local[2]
