"""Group: generation timeline with causes and findings, member lanes and the partition-ownership
heatmap, all sharing one time window; findings open their evidence lines."""

from __future__ import annotations

from typing import Any

from dash import Input, Output, State, ctx, dcc, html
from dash.exceptions import PreventUpdate

from dashboard import components, urls
from dashboard.data import RunData, overlapping
from dashboard.figures import lanes_figure, ownership_figure, timeline_figure
from dashboard.figures.common import short_id
from dashboard.pages.overview import fmt_duration

GEN_COLUMNS = [("generation", "gen"), ("cause", "cause"), ("cause_detail", "what happened"),
               ("started", "rebalance began"), ("stabilized", "stable at"), ("rebalance", "rebalance took"),
               ("member_count", "members"), ("protocol", "protocol"), ("leader", "leader"),
               ("trigger_member", "triggered by"), ("inferred", "inferred")]
FINDING_COLUMNS = [("severity", "severity"), ("title", "finding"), ("kind", "kind"), ("start", "at"),
                   ("generation", "gen")]


def window_range(data: RunData, group: str, window: dict[str, Any] | None) -> tuple[int | None, int | None]:
    lo, hi = data.group_extent(group)
    window = window or {}
    since = window.get("since") if window.get("since") is not None else lo
    until = window.get("until") if window.get("until") is not None else hi
    if since is not None and until is not None and window.get("since") is None and window.get("until") is None:
        pad = max(500, (until - since) // 50)  # whole run: a margin so edge markers and labels show
        since, until = since - pad, until + pad
    elif since is not None and until is not None and since == until:  # a single instant: pad it
        since, until = since - 1000, until + 1000
    return since, until


def build_figures(data: RunData, group: str, window: dict[str, Any] | None) -> tuple[Any, Any, Any]:
    """The three group figures for a window (None bounds = the group's whole extent)."""
    window = window or {}
    since, until = window.get("since"), window.get("until")
    x_range = window_range(data, group, window)
    phases = overlapping(data.generation_phases(group), "started_ms", "ended_ms", since, until)
    findings = data.findings(group)
    findings = overlapping(findings, "start_ms", "end_ms", since, until)
    _, extent_end = data.group_extent(group)
    timeline = timeline_figure(phases, findings, x_range, end_fallback=extent_end)
    lanes = lanes_figure(data.lane_points(group, since, until), x_range)
    heat = ownership_figure(data.ownership_grid(group, x_range[0], x_range[1]), x_range)
    return timeline, lanes, heat


def evidence_for(data: RunData, triggered: Any, timeline_click: Any, lanes_click: Any,
                 active_cell: dict[str, Any] | None) -> Any:
    """The evidence panel for a click on a finding marker, a lane marker or a findings-table row."""
    if triggered == "group-findings" and active_cell and active_cell.get("row_id"):
        return components.finding_panel(data, data.finding(active_cell["row_id"]))
    click = timeline_click if isinstance(triggered, dict) and triggered.get("name") == "timeline" else (
        lanes_click if isinstance(triggered, dict) and triggered.get("name") == "lanes" else None)
    points = (click or {}).get("points") or []
    if not points or points[0].get("customdata") is None:
        raise PreventUpdate
    custom = points[0]["customdata"]
    if isinstance(triggered, dict) and triggered.get("name") == "timeline":
        return components.finding_panel(data, data.finding(str(custom)))
    return components.line_panel(data, str(custom))


def _members_list(data: RunData, group: str) -> html.Ul:
    mems = data.group_rows("memberships", group)
    items = []
    for m in data.members(group):
        rows = mems[mems["member_id"] == m]
        gens = sorted(rows["generation"].dropna().astype(int).tolist())
        reasons = sorted(set(rows["leave_reason"].dropna().tolist()))
        if len(gens) > 12:  # long-lived members: a count and the span, not eighty numbers
            text = f"  {len(gens)} generations ({gens[0]}–{gens[-1]})"
        else:
            text = f"  generations {', '.join(map(str, gens))}" if gens else "  (seen in events only)"
        if reasons:
            text += f" · left: {', '.join(reasons)}"
        items.append(html.Li([dcc.Link(m, href=urls.member_url("", group, m)), html.Span(text, className="muted")]))
    return html.Ul(items, className="members")


def layout(data: RunData, params: dict[str, str]) -> html.Div:
    group = params.get("group")
    if not group or group not in data.groups():
        return components.page("Group not found", html.P(f"This run has no group {group!r}." if group else
                                                         "No group was named in the address."),
                               dcc.Link("back to the overview", href="/"))
    since, until = urls.parse_time(params.get("since")), urls.parse_time(params.get("until"))
    gens = data.generation_phases(group)
    summary = data.group_summary().set_index("group_id").loc[group]
    findings = data.findings(group)
    gen_rows = gens.assign(started=gens["started_ms"].map(urls.fmt_ms),
                           stabilized=gens["stabilized_ms"].map(urls.fmt_ms),
                           rebalance=gens["rebalance_ms"].map(fmt_duration),
                           # ids shortened for the table; the members list below links the full ids
                           leader=gens["leader"].map(lambda m: short_id(m) if isinstance(m, str) else m),
                           trigger_member=gens["trigger_member"].map(lambda m: short_id(m) if isinstance(m, str) else m))
    find_rows = findings.assign(id=findings["finding_id"], start=findings["start_ms"].map(urls.fmt_ms))
    timeline, lanes, heat = build_figures(data, group, {"since": since, "until": until})
    return components.page(
        f"Group {group}",
        components.stat_row([("generations", int(summary["generations"])), ("rebalances", int(summary["rebalances"])),
                             ("time rebalancing", fmt_duration(summary["rebalancing_ms"])),
                             ("members seen", int(summary["members_seen"])), ("findings", len(findings))]),
        html.Div(className="links", children=[
            dcc.Link("offsets of this group →", href=urls.offsets_url("", group, since_ms=since, until_ms=until)),
            dcc.Link("who owned a partition →", href=urls.owner_url("", group)),
        ]),
        dcc.Store(id="group-params", data={"group": group}),
        components.window_controls(since, until),
        # first figures ship with the page (no extra round trip); zooms go through the callback
        components.zoomable("timeline", timeline),
        html.Div(id="group-evidence", className="panel",
                 children=components.finding_panel(data, None)),
        components.zoomable("lanes", lanes),
        components.zoomable("ownership", heat),
        html.H3("Findings"),
        components.datatable("group-findings", find_rows[["id", *[c for c, _ in FINDING_COLUMNS if c in find_rows]]],
                             FINDING_COLUMNS, page_size=10),
        html.H3("Generations"),
        components.datatable("group-generations", gen_rows, GEN_COLUMNS, page_size=10),
        html.H3("Members"),
        _members_list(data, group),
    )


def register(app: Any, data: RunData) -> None:
    @app.callback(Output({"type": "zoomable", "name": "timeline"}, "figure"),
                  Output({"type": "zoomable", "name": "lanes"}, "figure"),
                  Output({"type": "zoomable", "name": "ownership"}, "figure"),
                  Input("window", "data"), State("group-params", "data"), State("url", "search"),
                  prevent_initial_call=True)
    def group_figures(window, params, search):
        if not components.params_match(params, search, "group"):
            raise PreventUpdate
        return build_figures(data, params["group"], window)

    @app.callback(Output("group-evidence", "children"),
                  Input({"type": "zoomable", "name": "timeline"}, "clickData"),
                  Input({"type": "zoomable", "name": "lanes"}, "clickData"),
                  Input("group-findings", "active_cell"), prevent_initial_call=True)
    def group_evidence(timeline_click, lanes_click, active_cell):
        return evidence_for(data, ctx.triggered_id, timeline_click, lanes_click, active_cell)


