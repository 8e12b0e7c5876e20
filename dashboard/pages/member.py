"""Member: heartbeat gaps vs session.timeout.ms and poll gaps vs max.poll.interval.ms, its
assignments per generation, and its raw evidence lines (paged on the server)."""

from __future__ import annotations

from typing import Any

from dash import Input, Output, State, dcc, html
from dash.dash_table.DataTable import DataTable
from dash.exceptions import PreventUpdate

from dashboard import components
from dashboard.data import RunData, exceeded_mask
from dashboard.figures import gaps_figure
from dashboard.pages.group import window_range
from pipeline import dashboard_urls as urls

ASSIGN_COLUMNS = [("generation", "gen"), ("joined", "joined"), ("synced", "synced"), ("assigned", "assigned"),
                  ("revoked", "revoked"), ("left", "left"), ("leave_reason", "leave reason"),
                  ("is_leader", "leader"), ("client_id", "client id"), ("host", "host")]
LINE_COLUMNS = [("time", "time (UTC)"), ("ref", "source:line"), ("kind", "kind"), ("raw", "raw line")]
PAGE_SIZE = 25


def events_page(data: RunData, group: str, member: str, window: dict[str, Any] | None, kind: str | None,
                page: int, page_size: int = PAGE_SIZE) -> tuple[list[dict[str, Any]], int]:
    """One page of the member's raw lines (server-side paging) and the page count."""
    window = window or {}
    evs = data.member_events(group, member, window.get("since"), window.get("until"), kind or None)
    pages = max(1, -(-len(evs) // page_size))
    part = evs.iloc[page * page_size:(page + 1) * page_size]
    rows = [{"time": urls.fmt_ms(r.ts_ms), "ref": f"{r.source}:{r.line_no}", "kind": r.kind, "raw": r.raw}
            for r in part.itertuples(index=False)]
    return rows, pages


def build_gaps(data: RunData, group: str, member: str, window: dict[str, Any] | None) -> Any:
    window = window or {}
    since, until = window.get("since"), window.get("until")
    gaps = data.member_gaps(group, member, since, until)
    # the group page's time axis: the whole run padded, a lone instant shown ±30 s (never a few ms)
    x_range = window_range(data, group, window)
    x_range = x_range if None not in x_range else None
    return gaps_figure(gaps, x_range)


def layout(data: RunData, params: dict[str, str]) -> html.Div:
    group, member = params.get("group"), params.get("member")
    if not group or not member or member not in data.members(group):
        return components.page("Member not found", html.P(f"No member {member!r} in group {group!r}."),
                               dcc.Link("back to the overview", href="/"))
    since, until = urls.parse_time(params.get("since")), urls.parse_time(params.get("until"))
    mems = data.member_memberships(group, member)
    rows = mems.assign(joined=mems["joined_ms"].map(urls.fmt_ms), synced=mems["synced_ms"].map(urls.fmt_ms),
                       left=mems["left_ms"].map(urls.fmt_ms))
    gaps = data.group_rows("heartbeat_gaps", group)
    gaps = gaps[gaps["member_id"] == member]
    # expiries count as heartbeat silences; log silences have no limit and are never "over" one
    kind_of = gaps["kind"].replace({"expiry": "heartbeat"})
    worst = {k: int(gaps.loc[kind_of == k, "gap_ms"].max()) if gaps.loc[kind_of == k, "gap_ms"].notna().any() else "-"
             for k in ("heartbeat", "poll")}
    over = int((exceeded_mask(gaps) & (gaps["kind"] != "log")).sum())
    note = components.left_out_note(data, group, member)
    if note:   # its own lines are left out: a silence not measured is unknown, not none
        worst = {k: "unknown" if v == "-" else v for k, v in worst.items()}
    kinds = sorted(data.member_events(group, member)["kind"].dropna().unique().tolist())
    return components.page(
        f"Member {member}",
        html.Div(["group ", dcc.Link(group, href=urls.group_url("", group, since, until))], className="subtitle"),
        components.stat_row([("generations", len(mems)), ("gaps over limit", over),
                             ("longest heartbeat gap (ms)", worst["heartbeat"]),
                             ("longest poll gap (ms)", worst["poll"])]),
        *note,
        dcc.Store(id="member-params", data={"group": group, "member": member}),
        components.window_controls(since, until),
        components.zoomable("gaps", build_gaps(data, group, member, {"since": since, "until": until})),
        html.H3("Assignments per generation"),
        components.datatable("member-assignments", rows, ASSIGN_COLUMNS, page_size=15),
        html.H3("Raw evidence lines"),
        html.Div(className="filter", children=[
            html.Label("kind", htmlFor="member-kind"),
            dcc.Dropdown(id="member-kind", options=[{"label": k, "value": k} for k in kinds], value=None,
                         placeholder="all kinds", clearable=True, className="dropdown"),
        ]),
        DataTable(id="member-lines", columns=[{"name": h, "id": c} for c, h in LINE_COLUMNS],
                             page_action="custom", page_current=0, page_size=PAGE_SIZE, **components.TABLE_STYLE,
                             style_cell_conditional=[{"if": {"column_id": "time"}, "minWidth": "205px",
                                                      "whiteSpace": "nowrap"}]),
    )


def register(app: Any, data: RunData) -> None:
    @app.callback(Output({"type": "zoomable", "name": "gaps"}, "figure"),
                  Input("window", "data"), State("member-params", "data"), State("url", "search"),
                  prevent_initial_call=True)
    def member_gaps(window, params, search):
        if not components.params_match(params, search, "group", "member"):
            raise PreventUpdate
        return build_gaps(data, params["group"], params["member"], window)

    @app.callback(Output("member-lines", "data"), Output("member-lines", "page_count"),
                  Input("member-lines", "page_current"), Input("member-kind", "value"), Input("window", "data"),
                  State("member-params", "data"), State("url", "search"))
    def member_lines(page, kind, window, params, search):
        if not components.params_match(params, search, "group", "member"):
            raise PreventUpdate
        return events_page(data, params["group"], params["member"], window, kind, page or 0)
