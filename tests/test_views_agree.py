"""Views of one run never disagree (issue 18): the ingest summary (manifest), the report (its JSON
model, which the Markdown and HTML render) and the dashboard show the same groups and the same
per-group figures, on the sample scenarios and on shared/real_logs."""

from __future__ import annotations

import json

import pytest

from dashboard.data import RunData
from pipeline.report.model import build_report
from pipeline.schemas import SEVERITIES

# one worker for the whole module under pytest-xdist: its ingest of shared/real_logs (real_logs_run) is built once, not once per worker
pytestmark = pytest.mark.xdist_group("test_views_agree")


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


@pytest.mark.spark
@pytest.mark.slow
def test_ownership_findings_agree_with_the_ownership_table_on_the_sample_scenarios(sample_run):
    """The demo's Spark ingest: every double_ownership / unowned_partitions finding is what the
    ownership table shows, and the other way round (tests/ownership_agreement.py; the pure runs
    of each scenario, partial ones too: tests/test_ownership_views_agree.py). Before (main at
    888ef68): 3, consumer_slow_revocation's 12.1 s double ownership the table did not show and
    consumer_fenced_after_stall's two overlaps 1 ms longer than the table's."""
    from tests.ownership_agreement import disagreements

    assert disagreements(sample_run) == []


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


@pytest.mark.spark
def test_real_logs_findings_state_only_what_the_lines_show(real_logs_run):
    """Facts a person reads from shared/real_logs: 031's history begins at "Stabilized group
    opal_consumer generation 14" (its start is not in the logs: "unknown start", never "None" in
    the Markdown or an empty time in the HTML); 006's broker expires the group's only member and
    prints "Group RY-Topic_magpie_lark with generation 2 is now empty" (nobody took its partitions)."""
    from pipeline.report.html import render_html
    from pipeline.report.markdown import render_markdown

    report = build_report(real_logs_run)
    finds = {(g["group_id"], f["kind"], f["generation"]): f for g in report["groups"] for f in g["findings"]}
    opal = finds[("opal_consumer", "unexplained", 14)]
    assert (opal["start"], opal["span"]) == (None, "unknown start to 2019-07-10T10:21:56.387Z")
    expiry = finds[("RY-Topic_magpie_lark", "session_expiry", 1)]
    assert "were reassigned" not in expiry["explanation"]
    assert "Generation 2 has no member (the group became empty)" in expiry["explanation"]
    md, html = render_markdown(report), render_html(report)
    assert "_unexplained, unknown start to 2019-07-10T10:21:56.387Z_" in md
    assert "None to" not in md and "unexplained,  to" not in html
    assert "unexplained, unknown start to 2019-07-10T10:21:56.387Z" in html


@pytest.mark.spark
def test_time_spent_rebalancing_is_never_a_sum_stated_as_whole(real_logs_run):
    """006's only rebalance (RY-Topic_magpie_lark to generation 2: the broker expires the member and
    the group empties) has no duration in the logs; buttercup-hen-sagemulberry's one rebalance (041)
    is timed. Every view says the first is unknown (it said "0 ms") and the run-wide figure is a
    lower bound, with how many rebalances it covers."""
    from dashboard.pages.overview import group_rows
    from pipeline.commands.ingest import group_line
    from pipeline.report.markdown import render_markdown

    man, report, dash = _views(real_logs_run)
    sec = {g["group_id"]: g for g in report["groups"]}
    ry, bt = sec["RY-Topic_magpie_lark"], sec["buttercup-hen-sagemulberry"]
    assert (ry["rebalances"], ry["rebalances_timed"], ry["rebalance_ms_total"]) == (1, 0, 0)
    # (generation 1 from one member's log: its first line is not proven the rebalance's start, another
    # member may have joined first, so its duration is a bound in words, not a number)
    assert (bt["rebalances"], bt["rebalances_timed"], bt["rebalance_ms_total"]) == (1, 0, 0)
    imp = report["summary"]["impact"]
    assert imp["rebalances_timed"] == sum(g["rebalances_timed"] for g in sec.values()) < imp["rebalances"]
    md = render_markdown(report)
    assert "1 rebalance(s), time spent rebalancing unknown (no rebalance has a known duration), 1 member(s) seen." in md
    assert f"at least {report_duration(imp['rebalance_ms_total'])} spent rebalancing; " \
           f"{imp['rebalances_timed']} of {imp['rebalances']} rebalances have a known duration" in md
    lines = {g["group_id"]: group_line(g) for g in man["summary"]["groups_detail"]}
    assert lines["RY-Topic_magpie_lark"].startswith("RY-Topic_magpie_lark: 1 rebalance (time unknown)")
    rows = {r["id"]: r for r in group_rows(RunDataFor(real_logs_run), None)}
    assert rows["RY-Topic_magpie_lark"]["rebalancing"] == "time unknown"
    assert rows["buttercup-hen-sagemulberry"]["rebalancing"] == "time unknown"


def report_duration(ms):
    from pipeline.timefmt import duration
    return duration(ms)


def RunDataFor(run_dir):  # noqa: N802 (reads as the class it builds)
    return RunData(run_dir)


def test_groups_whose_logs_name_no_partition_have_an_unknown_unowned_figure_in_every_view(real_logs_run):
    """opal_consumer (the broker's lines only: members, no partitions) and RY-Topic_magpie_lark (its
    member's log is missing, the group empties) have generations and no ownership interval: their
    partition-seconds with no owner are unknown (every view said 0). pelican's own log shows its
    assignment: a number."""
    from dashboard.pages.group import unowned_note
    from pipeline.report.markdown import render_markdown

    blind = {"RY-Topic_magpie_lark", "opal_consumer", "hotel_group", "connect-1.4.2", "connect-1.4.9",
             "buttercup-hen-sagemulberry"}
    report = build_report(real_logs_run)
    imp = report["summary"]["impact"]
    assert set(imp["unowned_unknown_groups"]) == blind
    md = render_markdown(report)
    assert "| partition-seconds with no owner in the logs | 0. Not known for 6 other groups, whose logs name no " \
           "partition their members owned: RY-Topic_magpie_lark, buttercup-hen-sagemulberry, connect-1.4.2, " \
           "connect-1.4.9, hotel_group and 1 more. |" in md
    one = build_report(real_logs_run, group="opal_consumer")
    assert one["summary"]["impact"]["unowned_partition_seconds"] is None
    assert one["summary"]["impact"]["unowned_unknown_groups"] == ["opal_consumer"]
    want = ("unknown: the logs name no partition this group's members owned (no line shows an assignment of "
            "one and the replay infers none)")
    assert f"| partition-seconds with no owner in the logs | {want} |" in render_markdown(one)
    data = RunData(real_logs_run)
    assert unowned_note(data, "opal_consumer").children[1].children == want
    known = build_report(real_logs_run, group="pelican")["summary"]["impact"]
    assert known["unowned_partition_seconds"] == 0 and known["unowned_unknown_groups"] == []
    assert unowned_note(data, "pelican").children[1].children == "0"


@pytest.mark.spark
def test_ownership_findings_agree_with_the_ownership_table_on_real_logs(real_logs_run):
    from tests.ownership_agreement import disagreements

    assert disagreements(real_logs_run) == []
