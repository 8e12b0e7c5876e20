"""The report says which files' times the ingest corrected before the replay (a clock offset, or a
clock stepped while the file was written), in the JSON, Markdown and HTML alike, from one
computation (pipeline.report.model.time_corrections over the manifest's inputs)."""

from __future__ import annotations

from html import escape

from pipeline.report.html import _summary
from pipeline.report.markdown import summary_markdown
from pipeline.report.model import time_corrections

INPUTS = [
    {"source": "/in/a.log", "clock_offset_ms": 4_000, "clock_steps": None},
    {"source": "/in/b.log", "clock_offset_ms": None, "clock_steps": [
        {"from_line": 1, "offset_ms": 202},
        {"after_line": 151, "from_line": 166, "offset_ms": -30_202}]},
    {"source": "/in/c.log", "clock_offset_ms": None, "clock_steps": None},
    {"source": "/in/old-manifest.log"},          # a run written before clock_steps existed
]


def test_each_corrected_file_has_one_sentence_and_the_others_none():
    got = time_corrections(INPUTS)
    assert [c["source"] for c in got] == ["/in/a.log", "/in/b.log"]
    assert got[0]["sentence"] == ("its clock ran 4.0 s ahead of the other logs of its group: "
                                  "its times here are corrected by -4.0 s.")
    assert got[0]["offset_ms"] == 4_000
    assert got[1]["sentence"].startswith("its clock ran 0.2 s ahead of the other logs of its group, then 30.2 s "
                                         "behind from a point between lines 151 and 166 (its clock was set")
    assert time_corrections([]) == [] and time_corrections(INPUTS[2:]) == []


def _report(corrections):
    impact = {"rebalances": 0, "rebalance_ms_total": 0, "rebalance_ms_longest": 0, "rebalances_timed": 0,
              "unowned_partition_seconds": 0, "members_expelled": [], "reprocessed_ranges": [],
              "skipped_ranges": [], "reprocessed_messages": 0, "skipped_messages": 0}
    return {"verdict": "nothing_wrong", "groups": [], "summary": {
        "headline": "h", "first": None, "last": None, "groups": [], "impact": impact,
        "findings_by_severity": {"critical": 0, "high": 0, "medium": 0, "low": 0, "info": 0},
        "time_corrections": corrections, "top_findings": []}}


def test_markdown_and_html_show_the_same_sentences_and_nothing_without_corrections():
    got = time_corrections(INPUTS)
    md, html = summary_markdown(_report(got)), _summary(_report(got))
    for c in got:
        assert c["sentence"] in md and escape(c["sentence"]) in html
    assert "Times corrected before the replay" in md and "Times corrected before the replay" in html
    assert "Times corrected" not in summary_markdown(_report([])) and "Times corrected" not in _summary(_report([]))


def test_a_merged_file_corrected_per_origin_has_one_sentence_per_corrected_origin():
    # a file of several pods' lines measured per origin (manifest `clock_origins`): each corrected origin
    # has its sentence, naming it; the file has no offset of its own, so no sentence of its own
    inputs = [{"source": "/in/pods.log", "clock_offset_ms": None, "clock_steps": None, "clock_origins": [
        {"origin": None, "clock_offset_ms": -2_000, "clock_steps": None},
        {"origin": "pod/orders-1/app", "clock_offset_ms": 4_796, "clock_steps": None},
        {"origin": "pod/orders-2/app", "clock_offset_ms": None,
         "clock_steps": [{"from_line": 1, "offset_ms": 0}, {"after_line": 40, "from_line": 52, "offset_ms": 30_000}]}]},
        INPUTS[0]]
    got = time_corrections(inputs)
    assert [(c["source"], c.get("origin"), c.get("offset_ms")) for c in got] == [
        ("/in/pods.log", None, -2_000), ("/in/pods.log", "pod/orders-1/app", 4_796),
        ("/in/pods.log", "pod/orders-2/app", None), ("/in/a.log", None, 4_000)]
    why = ("(this file merges several processes' logs, each on its own host's clock: each origin is corrected by "
           "its own offset, and the others' lines are not moved by it)")
    assert got[0]["sentence"] == (f"its lines naming no origin {why} ran 2.0 s behind the other logs of its group: "
                                  "their times here are corrected by +2.0 s.")
    assert got[1]["sentence"] == (f"its lines of pod/orders-1/app {why} ran 4.8 s ahead of the other logs of its "
                                  "group: their times here are corrected by -4.8 s.")
    assert got[2]["sentence"].startswith(f"its lines of pod/orders-2/app {why} ran 0.0 s behind the other logs of "
                                         "its group, then 30.0 s ahead from a point between lines 40 and 52")
    md, html = summary_markdown(_report(got)), _summary(_report(got))
    for c in got:
        assert c["sentence"] in md and escape(c["sentence"]) in html
