"""Golden incident reports over the sample scenarios, one Markdown file per group.

A difference fails the test. To accept a change on purpose, run once with
COORDSCOPE_UPDATE_GOLDENS=1 and review `git diff tests/report/golden/` line by line.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pipeline.report import build_report, json_schema, render

GOLDEN = Path(__file__).parent / "golden"
SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"
GROUPS = sorted(json.loads(p.read_text())["group_id"] for p in SAMPLES.glob("*/truth.json"))


def _normalise(text: str, run_dir: Path) -> str:
    return text.replace(str(run_dir), "RUN_DIR")


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.parametrize("group", GROUPS)
def test_group_report_matches_golden(sample_run, group):
    text = _normalise(render(build_report(sample_run, group=group), "md"), sample_run)
    golden = GOLDEN / f"{group}.md"
    if os.environ.get("COORDSCOPE_UPDATE_GOLDENS"):
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"no golden report for {group}: run with COORDSCOPE_UPDATE_GOLDENS=1 and review it"
    assert text == golden.read_text(encoding="utf-8")


@pytest.mark.spark
@pytest.mark.slow
def test_sample_run_report_json_validates(sample_run):
    jsonschema = pytest.importorskip("jsonschema")
    doc = json.loads(render(build_report(sample_run), "json"))
    jsonschema.validate(doc, json_schema())
    assert doc["verdict"] == "problems_found"
    assert sorted(doc["summary"]["groups"]) == GROUPS
