"""The incident report on hand-made runs: impact numbers, timeline, findings, recommendations."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.report import build_report, json_schema, render
from tests.report.fixture_run import LINE_A, T0, write_clean_run, write_problem_run

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def problem_run(tmp_path):
    return write_problem_run(tmp_path / "run")


def test_impact_numbers(problem_run):
    r = build_report(problem_run)
    imp = r["summary"]["impact"]
    assert r["verdict"] == "problems_found"
    assert imp["rebalances"] == 2
    assert imp["rebalance_ms_total"] == 15_000 and imp["rebalance_ms_longest"] == 12_000
    # orders-0 had no owner from T0+180s to T0+192s
    assert imp["unowned_partition_seconds"] == 12.0
    assert [(e["member_id"], e["reason"]) for e in imp["members_expelled"]] == [("c-1-aaa", "poll_timeout")]
    # ranges come from the replay's findings only (here a rewind finding names 1200-1500): the commit
    # history's jump forward (orders-1 8000 -> 9000) is a fact about commits, not a proven skipped range
    assert [(x["from_offset"], x["to_offset"], x["count"], x.get("estimated", False))
            for x in imp["reprocessed_ranges"]] == [(1200, 1500, 300, False), (9000, 9050, 50, True)]
    assert imp["skipped_ranges"] == []
    assert r["summary"]["findings_by_severity"] == {"critical": 0, "high": 1, "medium": 2, "low": 0, "info": 1}
    assert r["summary"]["top_findings"][0]["id"] == "f1"
    assert "2 rebalances" in r["summary"]["headline"] and "offsets skipped" not in r["summary"]["headline"]
    assert "350 offsets reprocessed (50 of them in 1 estimated range)" in r["summary"]["headline"]


def test_timeline_members_in_out_and_evidence_quoted(problem_run):
    g = build_report(problem_run)["groups"][0]
    assert [t["generation"] for t in g["timeline"]] == [5, 6]
    assert g["timeline"][1]["members_out"] == ["c-1-aaa"] and g["timeline"][1]["members_in"] == []
    assert g["timeline"][0]["evidence"] == [{"ref": "broker/server.log:10", "raw": LINE_A}]
    assert [f["id"] for f in g["findings"]] == ["f1", "f2", "f4", "f3"]  # by severity, then time


def test_recommendations_tie_to_findings_and_settings(problem_run):
    recs = {r["id"]: r for r in build_report(problem_run)["groups"][0]["recommendations"]}
    poll = recs["raise-max-poll-interval"]
    assert poll["because"] == ["f1"] and poll["setting"] == "max.poll.interval.ms"
    assert poll["value"] == 630_000  # 1.5 x 420 s observed, rounded up to 30 s
    assert "7 min 00 s" in poll["text"] and "5 min 00 s" in poll["text"]
    assert poll["what_if"]["command"] == "coordscope replay RUN_DIR --group payments --set max.poll.interval.ms=630000"
    assert recs["commit-on-revoke"]["because"] == ["f2", "f4"]
    # the what-if replay behind the recommendation ran over the group's events
    assert poll["what_if"]["result"].startswith("rebalances ")
    assert recs["broker-health"]["because"] == ["f3"]
    assert "raise-session-timeout" not in recs


def test_window_and_group_filters(problem_run):
    r = build_report(problem_run, since_ms=T0 + 181_000)
    assert [t["generation"] for t in r["groups"][0]["timeline"]] == [6]
    with pytest.raises(LookupError, match="group 'nope' is not in this run"):
        build_report(problem_run, group="nope")


def test_clean_run_says_nothing_wrong(tmp_path):
    r = build_report(write_clean_run(tmp_path / "clean"))
    assert r["verdict"] == "nothing_wrong"
    assert r["summary"]["headline"].startswith("Nothing wrong found: 1 group")
    md = render(r, "md")
    assert "Nothing wrong found" in md and "No findings for this group." in md


def test_json_validates_against_schema(problem_run, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    for run in (problem_run, write_clean_run(tmp_path / "clean")):
        doc = json.loads(render(build_report(run), "json"))
        jsonschema.validate(doc, json_schema())
    bad = json.loads(render(build_report(problem_run), "json"))
    bad["summary"]["impact"]["rebalances"] = -1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, json_schema())


def test_markdown_renders_tables_and_escapes_pipes(problem_run):
    md = render(build_report(problem_run), "md")
    assert "| gen | start | duration | cause |" in md
    assert "| 6 | 2025-11-23T02:03:00.000Z | 12.0 s | poll_timeout |" in md
    assert "broker/server.log:10  " + LINE_A in md


def test_html_is_self_contained_and_escapes_log_text(problem_run):
    html = render(build_report(problem_run), "html")
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    # plotly.js inlined, nothing fetched from the network
    assert "<script src=" not in html.replace(" ", "") and "<script src" not in html
    assert "plotly.js v" in html.lower() or "plotly.js" in html.lower()
    assert html.count("Plotly.newPlot") == 1


def test_cli_report_to_file_and_errors(problem_run, tmp_path):
    out = tmp_path / "r.md"
    ok = subprocess.run([sys.executable, "-m", "pipeline.cli", "report", str(problem_run), "-o", str(out)],
                        capture_output=True, text=True, cwd=REPO)
    assert ok.returncode == 0, ok.stderr
    assert out.read_text().startswith("# Incident report")
    for args, msg in (((str(tmp_path / "missing"),), "does not exist"),
                      ((str(problem_run), "--since", "yesterday"), "cannot read time"),
                      ((str(problem_run), "--group", "nope"), "not in this run"),
                      ((str(tmp_path),), "not a complete coordscope run")):
        bad = subprocess.run([sys.executable, "-m", "pipeline.cli", "report", *args],
                             capture_output=True, text=True, cwd=REPO)
        assert bad.returncode == 2, bad.stderr
        assert msg in bad.stderr and "Traceback" not in bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1


def test_finding_generations_are_integers_and_share_the_timeline_rows(problem_run):
    """A finding without a generation makes the findings' generation column nullable, which pandas
    reads as floats: the report still states 6, not 6.0, and in the HTML figure a finding's marker
    sits on its generation's row ("gen 6", not a second row "gen 6.0"); a generation no bar shows
    (7, never stabilised) gets its own row in generation order. The same for the timeline's
    rebalance times once one generation has none."""
    import pyarrow.parquet as pq

    from pipeline import rundir
    from pipeline.report.figures import timeline_figure

    rows = pq.read_table(rundir.table_path(problem_run, "findings")).to_pylist()
    rows.append({**rows[-1], "finding_id": "f5", "generation": None, "title": "no generation"})
    rows.append({**rows[-1], "finding_id": "f6", "generation": 7, "severity": "low", "title": "later"})
    for part in rundir.table_path(problem_run, "findings").iterdir():
        part.unlink()
    rundir.write_table(problem_run, "findings", rows)
    gens = pq.read_table(rundir.table_path(problem_run, "generations")).to_pylist()
    gens.append({**gens[-1], "generation": 7, "started_ms": T0 + 600_000, "stabilized_ms": None, "ended_ms": None,
                 "rebalance_ms": None})
    for part in rundir.table_path(problem_run, "generations").iterdir():
        part.unlink()
    rundir.write_table(problem_run, "generations", gens)
    r = build_report(problem_run)
    g = r["groups"][0]
    gens = {f["id"]: f["generation"] for f in g["findings"]}
    assert gens == {"f1": 5, "f2": 6, "f4": 6, "f3": 6, "f5": None, "f6": 7}
    assert all(type(v) is int for v in gens.values() if v is not None)
    assert '"generation": 6.0' not in render(r, "json")
    # a generation that never stabilised (7) has no rebalance time: the others' stay integers
    assert [t["duration_ms"] for t in g["timeline"]] == [3_000, 12_000, None]
    assert [type(t["duration_ms"]) for t in g["timeline"]][:2] == [int, int]
    assert '"duration_ms": 3000.0' not in render(r, "json")
    fig = timeline_figure(g)
    labels = {y for trace in fig.data for y in trace.y}
    assert labels == {"gen 5", "gen 6", "gen 7"}          # f5 (no generation) is drawn on the first row
    assert list(fig.layout.yaxis.categoryarray) == ["gen 5", "gen 6", "gen 7"]
