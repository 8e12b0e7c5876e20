"""Every view of one ingest run says the same of a file the replay leaves out: gc_pause_session_expiry's
three consumer logs in one file whose lines name no origin (`cat` in the wrong order, or merged by a
collector in arrival order), the consumers sharing client id consumer-inventory-sync-1. The replay
proves the file of several consumers and leaves its 85 lines out; the tables (heartbeat_gaps,
offset_commits, ownership), the report (md, html, json) and the dashboard (group, member, offsets,
owner pages) take nothing from them and say so in the same words. The same logs as separate files,
or merged with each line's origin (`kubectl logs --prefix`), keep every fact and say nothing of it.

Before (2bc2538) the merged run's heartbeat_gaps held 4 `log` gaps measured between two hosts' lines
(the stalled member ...49d09 shown silent 6.2 s, not 189.5 s), its ownership 6 false intervals of 18
(partitions 0 and 1 "reassigned" at 02:03:11.255, then "lost" by member ...643bd), the report's
"partition-seconds with no owner" was 6.441 from them, and the dashboard's lanes gave lines of one
host to another's member; in the kubectl-prefixed run the dashboard gave 5 of the stalled member's
lines to member ...643bd's lane (its process was (file, client id), not the line's origin)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipeline import rundir
from tests.dashboard.component_text import component_text as _text
from tests.replay import perturb as P
from tests.spark.conftest import run_ingest_inputs

# one worker for the whole module under pytest-xdist: its pair of ingests (runs) is built once, not once per worker
pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("test_mixed_stream_views")]

SAMPLE = Path(__file__).parent.parent.parent / "sample_logs" / "gc_pause_session_expiry"
GROUP = "inventory-sync"
STALLED = "consumer-inventory-sync-1-7c6e1a26-305c-45bd-95b4-f2ae93049d09"
CLIENTS = ("inventory-sync-1.log", "inventory-sync-2.log", "inventory-sync-3.log")
SHAPES = {
    "cat": lambda fs: P.concatenated(dict(reversed(fs.items())), name="all.log"),
    "separate": lambda fs: fs,
    "kubectl": lambda fs: P.interleaved(P.kubectl_prefix(fs), chunk=3, name="pods.log"),
}


@pytest.fixture(scope="module")
def runs(spark, tmp_path_factory):
    truth = json.loads((SAMPLE / "truth.json").read_text())
    out = {}
    for shape, how in SHAPES.items():
        base = tmp_path_factory.mktemp(f"mixed-{shape}")
        logs = base / "logs"
        logs.mkdir()
        for n, what in truth["files"].items():
            if not what.startswith("client"):
                shutil.copy(SAMPLE / n, logs / n)
        for n, lines in how({n: P.read_lines(SAMPLE / n) for n in CLIENTS}).items():
            (logs / n).write_text("\n".join(lines) + "\n")
        run_ingest_inputs(spark, logs, base / "run")
        out[shape] = (base / "run", logs)
    return out


def _client_rows_of(frame, logs: Path, column: str = "evidence") -> int:
    """Rows whose evidence cites a client log (a file of the merged consumers)."""
    files = {str(logs / n) for n in ("all.log", "pods.log", *CLIENTS)}
    return sum(1 for refs in frame[column] for r in (refs if refs is not None else [])
               if str(r).rsplit(":", 1)[0] in files)


def test_the_merged_file_feeds_no_table_and_every_view_says_it_is_left_out(runs):
    from dashboard.data import RunData
    from dashboard.pages import group as group_page
    from dashboard.pages import member as member_page
    from dashboard.pages import offsets as offsets_page
    from dashboard.pages import owner as owner_page
    from pipeline.report import render
    from pipeline.report.model import build_report

    run, logs = runs["cat"]
    merged = str(logs / "all.log")
    findings = rundir.load_table(run, "findings")
    (told,) = [json.loads(d) for d, t in zip(findings.details_json, findings.title, strict=True)
               if "lines of several consumers" in t]
    assert (told["source"], told["client_id"], told["lines_left_out"]) == (merged, "consumer-inventory-sync-1", 85)
    # the tables: nothing from the merged file; the broker's expiry of the stalled member stays, its
    # gap unknown (the session.timeout.ms only the merged file printed is not taken)
    gaps = rundir.load_table(run, "heartbeat_gaps")
    assert [(g.kind, g.member_id, g.source) for g in gaps.itertuples()] == [("expiry", STALLED, None)]
    assert gaps.gap_ms.isna().all()
    for table in ("ownership", "offset_commits"):
        assert _client_rows_of(rundir.load_table(run, table), logs) == 0, table
    # the ingest's summary (manifest and terminal line)
    from pipeline.commands.ingest import group_line

    (detail,) = json.loads((run / "manifest.json").read_text())["summary"]["groups_detail"]
    assert detail["lines_left_out"] == 85
    assert "85 line(s) of several consumers in one file left out (what only they show is unknown)" in group_line(detail)
    # the report: the same sentence in every format, the count the finding states
    report = build_report(run)
    (sec,) = report["groups"]
    (lo,) = sec["left_out"]
    assert (lo["stream"], lo["client_id"], lo["lines"]) == (merged, "consumer-inventory-sync-1", 85)
    sentence = lo["sentence"]
    assert sentence.startswith(f"Left out: the 85 line(s) of {merged} under client id consumer-inventory-sync-1")
    assert "what only they show is unknown" in sentence
    assert sentence in render(report, "md").replace("\\", "")
    html_text = render(report, "html")
    assert "Left out: the 85 line(s)" in html_text and "what only they show is unknown" in html_text
    # the dashboard: the merged file's lines speak for no member (no lane, no member's lines) ...
    data = RunData(run)
    evs = data.group_events(GROUP)
    assert evs[evs.source == merged]["actor"].isna().all() and (evs.source == merged).sum() == 85
    assert not (data.lane_events(GROUP)["source"] == merged).any()
    assert data.member_events(GROUP, STALLED).source.ne(merged).all()
    assert [s["lines"] for s in data.left_out(GROUP)] == [85]
    # ... and each page says so in the report's words
    for page in (group_page.layout(data, {"group": GROUP}), offsets_page.layout(data, {"group": GROUP})):
        assert sentence in _text(page)
    member = _text(member_page.layout(data, {"group": GROUP, "member": STALLED}))
    assert "Some of this member's lines are among them" in member and "unknown" in member
    assert sentence in _text(owner_page.answer(data, GROUP, "stock-levels-0", 1710381795000))


@pytest.mark.parametrize("shape", ["separate", "kubectl"])
def test_separate_or_origin_named_logs_keep_their_facts_and_say_nothing_left_out(runs, shape):
    from dashboard.data import RunData
    from dashboard.pages import group as group_page
    from pipeline.report.model import build_report

    run, logs = runs[shape]
    gaps = rundir.load_table(run, "heartbeat_gaps")
    mine = gaps[gaps.member_id == STALLED]
    # the stalled member's own silence: 189.5 s between its lines around the GC pause
    assert 189_526 in mine[mine.kind == "log"].gap_ms.tolist()
    own = rundir.load_table(run, "ownership")
    ends = sorted((int(r.partition), r.end_reason, int(r.end_ms)) for r in own.itertuples() if r.member_id == STALLED)
    assert ends == [(0, "lost", 1710381797678), (1, "lost", 1710381797678)]
    report = build_report(run)
    assert report["groups"][0]["left_out"] == []
    (detail,) = json.loads((run / "manifest.json").read_text())["summary"]["groups_detail"]
    assert detail["lines_left_out"] == 0
    data = RunData(run)
    assert data.left_out(GROUP) == []
    assert "Left out:" not in _text(group_page.layout(data, {"group": GROUP}))
    # each client line speaks for its own process's member: 16 lines for the stalled member, as in
    # its own file (the kubectl file's lines are told apart by their origin)
    evs = data.group_events(GROUP)
    counts = evs[evs.side == "client"].groupby("actor").size().to_dict()
    assert counts[STALLED] == 16 and sum(counts.values()) == 85
    assert counts == {"consumer-inventory-sync-1-04c7c0a8-76d4-48e6-ae25-c4f416e0e2ac": 6, STALLED: 16,
                      "consumer-inventory-sync-1-a35b9cf4-7407-40dc-a699-9919cb0643bd": 33,
                      "consumer-inventory-sync-1-c24802a8-20c8-4719-a52c-c168ee30eb1d": 30}
