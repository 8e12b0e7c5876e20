"""Views of one run never disagree (issue 18): the ingest summary (manifest), the report (its JSON
model, which the Markdown and HTML render) and the dashboard show the same groups and the same
per-group figures, on the sample scenarios and on shared/real_logs."""

from __future__ import annotations

import json

import pytest

from dashboard.data import RunData
from pipeline.report.model import build_report
from pipeline.schemas import SEVERITIES


def _views(run_dir):
    man = json.loads((run_dir / "manifest.json").read_text())
    report = build_report(run_dir)
    dash = RunData(run_dir).group_summary().set_index("group_id")
    return man, report, dash


def _check(run_dir):
    man, report, dash = _views(run_dir)
    groups = [g["group_id"] for g in report["groups"]]
    # the same groups everywhere: every group of the events is in the report (describe-only too)
    assert man["summary"]["groups"] == len(groups) == len(dash)
    assert sorted(dash.index) == sorted(groups)
    detail = {g["group_id"]: g for g in man["summary"]["groups_detail"]}
    assert set(detail) <= set(groups)
    for sec in report["groups"]:
        gid = sec["group_id"]
        row = dash.loc[gid]
        finds = sec["findings"]
        sev = {s: sum(1 for f in finds if f["severity"] == s) for s in SEVERITIES}
        rep = [r for r in report["summary"]["impact"]["reprocessed_ranges"] if r["group_id"] == gid]
        skp = [r for r in report["summary"]["impact"]["skipped_ranges"] if r["group_id"] == gid]
        assert (row["rebalances"], row["rebalancing_ms"], row["expelled"]) == \
            (sec["rebalances"], sec["rebalance_ms_total"], len(sec["expelled"])), gid
        assert (row["reprocessed_offsets"], row["skipped_offsets"]) == \
            (sum(r["count"] for r in rep), sum(r["count"] for r in skp)), gid
        assert {s: int(row[s]) for s in SEVERITIES} == sev, gid
        assert row["members_seen"] == len(sec["members_seen"]), gid
        if gid in detail:
            d = detail[gid]
            assert (d["rebalances"], d["rebalance_ms_total"], d["expelled"]) == \
                (sec["rebalances"], sec["rebalance_ms_total"], len(sec["expelled"])), gid
            assert (d["reprocessed_offsets"], d["skipped_offsets"]) == \
                (row["reprocessed_offsets"], row["skipped_offsets"]), gid
            assert d["findings_by_severity"] == {s: c for s, c in sev.items() if c}, gid
        # an expulsion finding is an expelled member in the impact table
        expelled = {e["member_id"] for e in sec["expelled"]}
        for f in finds:
            if f["kind"] in ("session_expiry", "poll_timeout", "static_member_fenced"):
                assert set(f["members"]) <= expelled, (gid, f["title"])
    impact = report["summary"]["impact"]
    assert impact["rebalances"] == sum(g["rebalances"] for g in report["groups"]) == int(dash["rebalances"].sum())
    assert len(impact["members_expelled"]) == int(dash["expelled"].sum())
    assert impact["reprocessed_messages"] == int(dash["reprocessed_offsets"].sum())
    assert impact["skipped_messages"] == int(dash["skipped_offsets"].sum())
    assert man["summary"]["findings_by_severity"] == {s: int(dash[s].sum()) for s in SEVERITIES if dash[s].sum()}


@pytest.mark.spark
@pytest.mark.slow
def test_views_agree_on_the_sample_scenarios(sample_run):
    _check(sample_run)


@pytest.fixture(scope="module")
def real_logs_run(spark, shared_dir, tmp_path_factory):
    from pipeline.spark.job import IngestOptions, run_ingest

    out = tmp_path_factory.mktemp("real") / "run"
    logs = sorted(str(p) for p in (shared_dir / "real_logs").glob("*.log"))
    run_ingest(IngestOptions(inputs=logs, out=str(out), quiet=True), spark=spark)
    return out


@pytest.mark.spark
def test_views_agree_on_real_logs(real_logs_run):
    _check(real_logs_run)
