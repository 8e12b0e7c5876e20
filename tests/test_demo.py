"""The newcomer's command, end to end: `coordscope demo --no-serve` over sample_logs/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline import rundir

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"


@pytest.mark.spark
@pytest.mark.slow
def test_demo_ingests_samples_and_prints_the_summary(sample_run):
    stdout = (sample_run.parent / "demo-stdout.txt").read_text()
    acc = rundir.load_manifest(sample_run)["accounting"]
    assert acc["lines_read"] == acc["parsed"] + acc["ignored"] + acc["unparsed"] and acc["adds_up"]
    assert acc["unparsed"] == 0, "the sample logs are written in wordings the parsers know"
    # the ingest's one-screen summary, then the report's
    assert stdout.index("coordscope ingest: done") < stdout.index("## Summary")
    assert "| rebalances |" in stdout and "Full report:" in stdout
    assert (sample_run.parent / "run-report.md").read_text().startswith("# Incident report")
    assert (sample_run.parent / "run-report.html").read_text().startswith("<!DOCTYPE html>")


@pytest.mark.spark
@pytest.mark.slow
def test_demo_progress_is_not_interleaved_with_spark_start_up_chatter(sample_run):
    """pipeline/spark/log4j2.properties: no default-profile banner, no log-level notice, no WARN
    lines about native Hadoop libraries or loopback host names between the stage lines; and
    pipeline/spark/session.py: not the java launcher's incubator-module notice either."""
    stderr = (sample_run.parent / "demo-stderr.txt").read_text()
    assert "start spark done" in stderr and "replay done" in stderr
    for chatter in ("log4j", "Setting default log level", "NativeCodeLoader", "resolves to a loopback", " WARN ",
                    "Using incubator modules"):
        assert chatter not in stderr, chatter


@pytest.mark.spark
@pytest.mark.slow
def test_demo_reconstructs_every_scenario_generation_cause_and_leader(sample_run):
    gens = rundir.load_table(sample_run, "generations")
    for truth_file in sorted(SAMPLES.glob("*/truth.json")):
        truth = json.loads(truth_file.read_text())
        if "generations" not in truth:   # KIP-848 scenarios: epochs, checked by tests/replay/test_consumer_protocol.py
            continue
        mine = gens[gens["group_id"] == truth["group_id"]].sort_values("generation")
        got = [(int(g), c) for g, c in zip(mine["generation"], mine["cause"], strict=True)]
        assert got == [(g["generation"], g["cause"]["kind"]) for g in truth["generations"]], truth["scenario"]
        owners = rundir.load_table(sample_run, "ownership")
        owners = owners[owners["group_id"] == truth["group_id"]]
        assert len(owners) and owners["member_id"].notna().all(), truth["scenario"]
        if truth["client_version"] != "0.10":  # 0.10 clients and brokers never log the leader's member id
            assert list(mine["leader"]) == [g["leader"] for g in truth["generations"]], truth["scenario"]


@pytest.mark.spark
@pytest.mark.slow
def test_spark_path_counts_every_file_like_the_pure_parser(sample_run):
    """The JVM-side filter loses nothing: per file, Spark's parsed/ignored/unparsed counts and event
    kinds equal those of `parsers.parse_path` over the whole file (describe tables included)."""
    from collections import Counter

    from parsers import parse_path

    manifest = rundir.load_manifest(sample_run)
    events = rundir.load_table(sample_run, "events", ["source", "kind"])
    repo = SAMPLES.parent
    checked = 0
    for entry in manifest["inputs"]:
        if entry.get("status") != "read":
            continue
        outcomes, _ = parse_path(str(repo / entry["source"]))
        outcomes = list(outcomes)
        pure = Counter(o.status for o in outcomes)
        assert (entry["parsed"], entry["ignored"], entry["unparsed"]) == (
            pure["parsed"], pure["ignored"], pure["unparsed"]), entry["source"]
        pure_kinds = Counter(o.event.kind for o in outcomes if o.event is not None)
        spark_kinds = Counter(events[events["source"] == entry["source"]]["kind"])
        assert spark_kinds == pure_kinds, entry["source"]
        checked += 1
    assert checked >= 50
    assert sum(1 for e in manifest["inputs"] if "describe" in e["source"]) == 11
