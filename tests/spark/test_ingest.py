"""The whole job on small hand-written inputs (stand-in parsers and replay), and the CLI's errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from pipeline import rundir, schemas
from tests.spark.conftest import run_ingest_standin as _run


@pytest.mark.spark
def test_accounting_adds_up_per_file_and_in_total(run, inputs):
    out, man = run
    files = {os.path.relpath(e["source"], inputs): e for e in man["inputs"]}
    c = files["app/consumer-1.log"]
    assert (c["lines_read"], c["parsed"], c["ignored"], c["unparsed"]) == (15, 11, 2, 2)
    b = files["broker/server.log.gz"]
    assert (b["lines_read"], b["parsed"], b["ignored"], b["unparsed"], b["layout"]) == (4, 2, 1, 1, "log4j")
    assert files["zz-copies/consumer-1.log"]["status"] == "duplicate"
    assert files["zz-copies/consumer-1.log"]["duplicate_of"].endswith("consumer-1.log")
    assert files["empty.log"]["status"] == "empty" and files["empty.log"]["lines_read"] == 0
    assert files["junk.bin"]["status"] == "rejected" and "binary" in files["junk.bin"]["problems"][0]
    acc = man["accounting"]
    assert acc["adds_up"] and acc["lines_read"] == 20 == acc["parsed"] + acc["ignored"] + acc["unparsed"]
    assert (acc["files_read"], acc["files_duplicate"], acc["files_empty"], acc["files_rejected"]) == (3, 1, 1, 1)
    assert {r["source"].rsplit("/", 1)[1] for r in man["rejects"]} == {"junk.bin", "consumer-1.log"}
    assert set(man["versions"]) >= {"coordscope", "spark", "java"} and man["versions"]["java"] >= 17
    assert {"read", "parse", "replay", "total"} <= set(man["timings_s"])
    assert man["tables"] == {t: len(rundir.load_table(out, t)) for t in schemas.TABLES}


@pytest.mark.spark
def test_tables_carry_provenance_and_schema(run, inputs):
    out, man = run
    events = rundir.load_table(out, "events")
    src = str(inputs / "app" / "consumer-1.log")
    mine = events[events.source == src].set_index("line_no")
    assert mine.loc[3, "kind"] == "join_succeeded" and mine.loc[3, "generation"] == 1
    assert mine.loc[8, "kind"] == "rebalance_failed" and 9 not in mine.index     # continuation attached
    assert mine.loc[14, "kind"] == "unparsed"
    un = rundir.load_table(out, "unparsed").set_index(["source", "line_no"])
    assert un.loc[(src, 14), "why"].startswith("parser error: RuntimeError")
    assert un.loc[(src, 1), "why"] == "no rule matched"
    assert len(events[events.source.str.contains("zz-copies")]) == 0
    gens = rundir.load_table(out, "generations")
    assert sorted(zip(gens.group_id, gens.generation, strict=True)) == [("g1", 1), ("other", 4)]
    own = rundir.load_table(out, "ownership")
    assert sorted(zip(own.partition, own.end_reason, strict=True)) == [(0, "revoked"), (1, "revoked")]
    oc = rundir.load_table(out, "offset_commits")
    assert list(oc.sort_values("ts_ms").flag) == ["first", "rewind"]
    for t in schemas.TABLES:
        assert list(rundir.load_table(out, t).columns) == schemas.columns(t)
    s = man["summary"]
    assert (s["groups"], s["generations"], s["findings_by_severity"]) == (2, 2, {"info": 2})


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
