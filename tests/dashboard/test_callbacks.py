"""The pages' callback logic as plain functions, and the app over HTTP (Flask test client)."""

import json

import pytest

from dashboard import app as dash_app
from dashboard.pages import group, member, offsets, overview, owner, unparsed
from pipeline import dashboard_urls as urls
from tests.dashboard.component_text import component_text as _text
from tests.dashboard.rundirs import M2, M3, ORD, PAY, T0, XSS

# Dash 4 warns that DataTable will move out of the core package one day; it still ships in 4.x.
pytestmark = pytest.mark.filterwarnings(r"ignore:\s*The dash_table.DataTable:DeprecationWarning")


def test_page_key_ignores_soft_params():
    assert dash_app.page_key("/group", "?group=a&since=1&until=2") == dash_app.page_key("/group", "?group=a")
    assert dash_app.page_key("/group", "?group=a") != dash_app.page_key("/group", "?group=b")
    assert dash_app.page_key("/", "?q=pay") == dash_app.page_key("/", "")


def test_window_from_relayout():
    assert dash_app.window_from_relayout({"xaxis.range[0]": "2026-01-01 00:00:01", "xaxis.range[1]":
                                          "2026-01-01 00:00:02.5"}) == (T0 + 1000, T0 + 2500)
    assert dash_app.window_from_relayout({"xaxis2.range": ["2026-01-01 00:00:02", "2026-01-01 00:00:01"]}) == (
        T0 + 1000, T0 + 2000)
    assert dash_app.window_from_relayout({"xaxis.autorange": True}) == "reset"
    assert dash_app.window_from_relayout({"autosize": True}) is None
    assert dash_app.window_from_relayout(None) is None


def test_window_update_rewrites_only_the_window():
    zoom = {"xaxis.range[0]": "2026-01-01 00:00:01", "xaxis.range[1]": "2026-01-01 00:00:02"}
    new = dash_app.window_update({"type": "zoomable", "name": "lanes"}, [zoom], {}, "?group=inventory%2Feu")
    assert urls.parse_query(new) == {"group": "inventory/eu", "since": str(T0 + 1000), "until": str(T0 + 2000)}
    assert dash_app.window_update({"type": "win-btn", "name": "reset"}, [], {}, new) == "?group=inventory%2Feu"
    applied = dash_app.window_update({"type": "win-btn", "name": "apply"}, [],
                                     {"since": "2026-01-01T00:00:05Z", "until": ""}, "?group=g")
    assert urls.parse_query(applied) == {"group": "g", "since": str(T0 + 5000)}
    assert dash_app.window_update({"type": "zoomable", "name": "x"}, [{"autosize": True}], {}, "?group=g") is None


def test_group_figures_follow_the_window(small_data):
    timeline, lanes, heat = group.build_figures(small_data, PAY, {"since": T0 + 100_000, "until": T0 + 210_000})
    stable = next(t for t in timeline.data if t.name == "stable")
    assert sorted(stable.text) == ["g1", "g2", "g3"]  # generations overlapping 100-210 s
    assert [t.name for t in timeline.data if t.name.startswith("finding")] == ["finding: high"]
    times = [int(x) for t in lanes.data for x in t.x]  # lanes carry epoch ms
    assert times and all(T0 + 100_000 <= ms <= T0 + 210_000 for ms in times)
    assert heat.data[0].type == "heatmap" and len(heat.data[0].x) == 240


def test_clicking_a_finding_opens_its_evidence(small_data):
    click = {"points": [{"customdata": "F-pay-1"}]}
    panel = group.evidence_for(small_data, {"type": "zoomable", "name": "timeline"}, click, None, None)
    text = _text(panel)
    assert "exceeded max.poll.interval.ms" in text and "consumer poll timeout has expired" in text
    row = group.evidence_for(small_data, "group-findings", None, None, {"row_id": "F-pay-2", "row": 0})
    assert "has failed, removing it from the group" in _text(row)
    lane = group.evidence_for(small_data, {"type": "zoomable", "name": "lanes"}, None,
                              {"points": [{"customdata": "logs/broker-1/server.log:77"}]}, None)
    assert XSS in _text(lane)  # a plain string child: React renders it as text


def test_member_lines_are_paged_on_the_server(small_data):
    rows, pages = member.events_page(small_data, PAY, M2, None, None, 0, page_size=10)
    total = len(small_data.member_events(PAY, M2))
    assert len(rows) == 10 and pages == -(-total // 10)
    last, _ = member.events_page(small_data, PAY, M2, None, None, pages - 1, page_size=10)
    assert len(last) == total - 10 * (pages - 1)
    hb, _ = member.events_page(small_data, PAY, M2, None, "join_succeeded", 0)
    assert [r["kind"] for r in hb] == ["join_succeeded"] * 3  # generations 1-3
    fig = member.build_gaps(small_data, PAY, M3, None)
    assert "poll gap over limit" in [t.name for t in fig.data]


def test_offsets_callback_lists_ranges(small_data):
    fig, rows = offsets.build_offsets(small_data, ORD, "orders-2", None)
    assert [(r["what"], r["count"]) for r in rows] == [("reprocessed", 120), ("skipped", 500)]
    assert {t.name for t in fig.data} >= {"rewind", "skip"}
    assert offsets.partition_search("?group=orders&since=5", "orders-0") == "?group=orders&since=5&partition=orders-0"


def test_owner_answer(small_data):
    text = _text(owner.answer(small_data, PAY, "payments-4", T0 + 150_000))
    assert M2 in text and "generation 2" in text and "Successfully synced group in generation" in text
    assert "Nobody owned payments-4" in _text(owner.answer(small_data, PAY, "payments-4", T0 + 122_000))
    assert "not a partition name" in _text(owner.answer(small_data, PAY, "payments", T0))
    assert owner.ask_search(PAY, "payments-4", "2026-01-01T00:02:30Z") == (
        f"?group=payments&partition=payments-4&at={T0 + 150_000}")


def test_overview_filter_and_escaped_links(small_data):
    rows = overview.group_rows(small_data, "PAY")
    assert [r["id"] for r in rows] == [PAY]
    inv = overview.group_rows(small_data, "eu")[0]
    assert inv["group"] == r"[inventory/eu](/group?group=inventory%2Feu)"
    assert overview.md_link("<b>x</b>", "/g") == r"[\<b\>x\</b\>](/g)"


def test_overview_line_accounting(small_data):
    acc = dict(overview.line_accounting(small_data.manifest))
    assert acc == {"lines read": 492, "parsed": 438, "ignored": 50, "unparsed": 4, "adds up": "yes"}
    assert dict(overview.line_accounting({"lines": {"read": 5, "parsed": 2, "ignored": 2, "unparsed": 0}}))[
        "adds up"] == "NO"
    assert overview.line_accounting({}) == []


def test_unparsed_rows(small_data):
    rows = unparsed.line_rows(small_data, "GroupCoordinator <*>: <script>")
    assert [r["raw"] for r in rows] == [XSS]
    assert len(unparsed.line_rows(small_data, None, "rebalance finished")) == 2


@pytest.mark.parametrize("path,search,expect", [
    ("/group", "?group=../../etc/passwd", "Group not found"),
    ("/member", "?group=payments&member=/etc/passwd", "Member not found"),
    ("/offsets", "?group=%2E%2E%2Fsecret.txt", "Offsets"),
    ("/nowhere", "", "Not found"),
])
def test_unknown_selections_render_a_message(small_data, path, search, expect):
    assert expect in _text(dash_app.render_page(small_data, path, search))


@pytest.fixture(scope="module")
def client(small_run):
    (small_run.parent / "secret.txt").write_text("TOP-SECRET-OUTSIDE-RUN-DIR")
    app = dash_app.create_app(small_run)
    return app.server.test_client()


def _route(client, pathname, search):
    payload = {
        "output": "..page-content.children...page-key.data...nav.children..",
        "outputs": [{"id": "page-content", "property": "children"}, {"id": "page-key", "property": "data"},
                    {"id": "nav", "property": "children"}],
        "inputs": [{"id": "url", "property": "pathname", "value": pathname},
                   {"id": "url", "property": "search", "value": search}],
        "changedPropIds": ["url.search"], "state": [{"id": "page-key", "property": "data", "value": None}],
    }
    return client.post("/_dash-update-component", data=json.dumps(payload), content_type="application/json")


def test_http_router_never_reads_paths_from_the_url(client):
    for search in ("?group=../secret.txt", "?group=..%2Fsecret.txt", "?group=/etc/passwd",
                   "?group=payments&table=../secret.txt"):
        resp = _route(client, "/group", search)
        assert resp.status_code == 200
        body = resp.get_data(as_text=True)
        assert "TOP-SECRET" not in body and "root:x:" not in body
    ok = _route(client, "/group", "?group=payments").get_data(as_text=True)
    assert "Group payments" in ok


def test_http_static_routes_refuse_traversal(client):
    for path in ("/assets/../../secret.txt", "/assets/..%2f..%2fsecret.txt", "/_dash-component-suites/..%2f..%2fsecret.txt",
                 "/assets/%2e%2e/%2e%2e/secret.txt"):
        resp = client.get(path)
        assert "TOP-SECRET" not in resp.get_data(as_text=True)
    assert client.get("/assets/style.css").status_code == 200
    # any page address serves the same app shell (routing happens in the browser)
    assert "_dash-config" in client.get("/group?group=../secret.txt").get_data(as_text=True)


def test_stale_page_params_are_ignored():
    from dashboard.components import params_match

    assert params_match({"group": "a/b"}, "?group=a%2Fb&since=5", "group")
    assert not params_match({"group": "a"}, "?group=b", "group")  # the page being replaced
    assert not params_match(None, "?group=a", "group")
    assert not params_match({"group": "g", "member": "m1"}, "?group=g&member=m2", "group", "member")


def test_an_empty_run_renders_every_page(tmp_path):
    from pipeline import schemas
    from pipeline.rundir import write_manifest, write_table

    for table in schemas.TABLES:
        write_table(tmp_path, table, [])
    write_manifest(tmp_path, {"inputs": [], "accounting": {"lines_read": 0, "parsed": 0, "ignored": 0,
                                                            "unparsed": 0, "adds_up": True}})
    from dashboard.data import RunData

    data = RunData(tmp_path)
    assert "Consumer groups" in _text(dash_app.render_page(data, "/", ""))
    assert "Unparsed" in _text(dash_app.render_page(data, "/unparsed", ""))
    assert "Pick a group" in _text(dash_app.render_page(data, "/owner", ""))
    assert "Group not found" in _text(dash_app.render_page(data, "/group", "?group=x"))
    assert overview.group_rows(data, None) == []


def test_a_group_with_only_events_renders(tmp_path):
    from pipeline import schemas
    from pipeline.rundir import write_manifest, write_table

    for table in schemas.TABLES:
        write_table(tmp_path, table, [])
    write_table(tmp_path, "events", [
        {"source": "a.log", "line_no": 1, "ts_ms": T0, "kind": "heartbeat_succeeded", "group_id": "g", "member_id": "m"},
        {"source": "a.log", "line_no": 2, "ts_ms": None, "kind": "join_started", "group_id": "g", "member_id": "m"},
    ])
    write_manifest(tmp_path, {})
    from dashboard.data import RunData

    data = RunData(tmp_path)
    text = _text(dash_app.render_page(data, "/group", "?group=g"))
    assert "Group g" in text and "(seen in events only)" in text
    assert "Member m" in _text(dash_app.render_page(data, "/member", "?group=g&member=m"))
    assert "no recorded commits" in _text(dash_app.render_page(data, "/offsets", "?group=g"))


def test_unparsed_report_text(small_data):
    text = unparsed.report_text(small_data, "ConsumerCoordinator: Rebalance <*> in <*> ms")
    assert "lines: 2 in 1 file(s); why: no rule matched" in text
    assert "logs/payments-app-1.log:901: [2026-01-01 00:02:00,000] INFO ConsumerCoordinator: Rebalance finished in 97 ms" in text


def test_window_range_pads_only_the_whole_run(small_data):
    lo, hi = small_data.group_extent(PAY)
    pad = max(500, (hi - lo) // 50)
    assert group.window_range(small_data, PAY, None) == (lo - pad, hi + pad)
    assert group.window_range(small_data, PAY, {"since": T0, "until": T0 + 5000}) == (T0, T0 + 5000)
    # a single instant is drawn on a minute-wide axis, not one a few ms wide (issue 20)
    assert group.window_range(small_data, PAY, {"since": T0, "until": T0}) == (T0 - 30_000, T0 + 30_000)


def test_a_group_of_one_instant_gets_a_minute_wide_axis(small_data, monkeypatch):
    """Issue 20: a group whose lines all carry one time is drawn ±30 s around it, not on 2 ms."""
    monkeypatch.setattr(small_data, "group_extent", lambda g: (T0, T0 + 2))
    assert group.window_range(small_data, PAY, None) == (T0 + 1 - 30_000, T0 + 1 + 30_000)


def test_members_from_memberships_when_no_line_speaks_for_one(small_data):
    """Issue 20: a broker-only group still gets member lanes, from the memberships the replay built."""
    mems = small_data.group_rows("memberships", PAY)
    points = group.membership_points(small_data, PAY, None, None)
    joins = points[points["category"] == "join"]
    assert len(joins) == int(mems["joined_ms"].notna().sum()) > 0
    assert set(joins["lane"]) == set(mems.loc[mems["joined_ms"].notna(), "member_id"])
    assert (points["source"] != "").all()


def test_overview_says_which_files_times_were_corrected_as_the_report_does(small_data, monkeypatch):
    from pipeline.report.model import time_corrections

    assert "Times corrected" not in _text(overview.accounting(small_data))
    inputs = [*small_data.manifest["inputs"],
              {"source": "logs/ahead.log", "clock_offset_ms": 4_000},
              {"source": "logs/stepped.log", "clock_offset_ms": None,
               "clock_steps": [{"from_line": 1, "offset_ms": 0}, {"after_line": 9, "from_line": 20, "offset_ms": 30_000}]},
              # a file merging several pods' lines, corrected per origin (one pod's clock only)
              {"source": "logs/pods.log", "clock_offset_ms": None, "clock_steps": None,
               "clock_origins": [{"origin": "pod/orders-1/app", "clock_offset_ms": 4_796, "clock_steps": None}]}]
    monkeypatch.setattr(small_data, "manifest", {**small_data.manifest, "inputs": inputs})
    shown = _text(overview.accounting(small_data))
    assert "Times corrected before the replay" in shown
    for c in time_corrections(inputs):
        assert c["sentence"] in shown
    assert "logs/ahead.log" in shown and "then 30.0 s ahead from a point between lines 9 and 20" in shown
    assert "logs/pods.log" in shown and "its lines of pod/orders-1/app (this file merges several processes' logs" in shown
