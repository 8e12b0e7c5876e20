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
    assert stdout.startswith("## Summary")
    assert "| rebalances |" in stdout and "Full report:" in stdout
    assert (sample_run.parent / "run-report.md").read_text().startswith("# Incident report")
    assert (sample_run.parent / "run-report.html").read_text().startswith("<!DOCTYPE html>")


@pytest.mark.spark
@pytest.mark.slow
def test_demo_reconstructs_every_scenario_generation_cause_and_leader(sample_run):
    gens = rundir.load_table(sample_run, "generations")
    for truth_file in sorted(SAMPLES.glob("*/truth.json")):
        truth = json.loads(truth_file.read_text())
        mine = gens[gens["group_id"] == truth["group_id"]].sort_values("generation")
        got = [(int(g), c) for g, c in zip(mine["generation"], mine["cause"], strict=True)]
        assert got == [(g["generation"], g["cause"]["kind"]) for g in truth["generations"]], truth["scenario"]
        if truth["client_version"] != "0.10":  # 0.10 clients and brokers never log the leader's member id
            assert list(mine["leader"]) == [g["leader"] for g in truth["generations"]], truth["scenario"]
