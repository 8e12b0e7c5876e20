"""Offsets: per topic-partition committed offset over time, commits/resets/rewinds/skips marked,
and the reprocessed and skipped ranges listed."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pandas as pd
from dash import Input, Output, State, dcc, html
from dash.exceptions import PreventUpdate

from dashboard import components
from dashboard.data import RunData
from dashboard.figures import offsets_figure
from dashboard.pages.group import window_range
from pipeline import dashboard_urls as urls

RANGE_COLUMNS = [("what", "what"), ("from_offset", "from (incl.)"), ("to_offset", "to (excl.)"),
                 ("count", "offsets"), ("time", "at"), ("member_id", "member"), ("evidence", "evidence")]
SUMMARY_COLUMNS = [("partition_name", "partition"), ("commits", "commits"), ("rewinds", "reprocessed ranges"),
                   ("skips", "skipped ranges"), ("resets", "resets"), ("last_offset", "last offset")]


def build_offsets(data: RunData, group: str, partition: str, window: dict[str, Any] | None) -> tuple[Any, list]:
    """The offset figure and the reprocessed/skipped range rows for one partition and window."""
    window = window or {}
    split = urls.split_partition(partition)
    if split is None:
        raise PreventUpdate
    since, until = window.get("since"), window.get("until")
    history = data.offset_history(group, split[0], split[1], since, until)
    # the group page's time axis: the whole run padded, a lone instant shown ±30 s (never a few ms)
    x_range = window_range(data, group, window)
    x_range = x_range if None not in x_range else None
    ranges = data.offset_ranges(group, split[0], split[1], since, until)
    ranges = ranges.assign(time=ranges["ts_ms"].map(urls.fmt_ms))
    return offsets_figure(history, partition, x_range), components.records(ranges)


def partition_search(search: str | None, partition: str | None) -> str:
    params = urls.parse_query(search)
    params.pop("partition", None)
    if partition:
        params["partition"] = partition
    return "?" + urlencode(params)


def layout(data: RunData, params: dict[str, str]) -> html.Div:
    group = params.get("group")
    if not group or group not in data.groups():
        return components.page("Offsets", html.P(f"No group {group!r} in this run." if group else
                                                 "Open offsets from a group page."),
                               dcc.Link("back to the overview", href="/"))
    since, until = urls.parse_time(params.get("since")), urls.parse_time(params.get("until"))
    summary = data.offset_partitions(group)
    names = summary["partition_name"].tolist()
    partition = params.get("partition") if params.get("partition") in names else (names[0] if names else None)
    chosen: list[Any] = [html.P("This group has no recorded commits.", className="muted")]
    if partition:
        fig, ranges = build_offsets(data, group, partition, {"since": since, "until": until})
        chosen = [
            dcc.Store(id="offsets-params", data={"group": group, "partition": partition}),
            components.window_controls(since, until),
            components.zoomable("offsets", fig),
            html.H3(f"Reprocessed and skipped ranges of {partition}"),
            components.datatable("offsets-ranges", pd.DataFrame(ranges, columns=[c for c, _ in RANGE_COLUMNS]),
                                 RANGE_COLUMNS, page_size=15),
        ]
    links = [dcc.Link(n, href=urls.offsets_url("", group, n, since, until), className="chip") for n in names]
    return components.page(
        f"Offsets of {group}",
        html.Div(["group ", dcc.Link(group, href=urls.group_url("", group, since, until))], className="subtitle"),
        *components.left_out_note(data, group),
        html.Div(className="filter", children=[
            html.Label("partition", htmlFor="offsets-partition"),
            dcc.Dropdown(id="offsets-partition", options=[{"label": n, "value": n} for n in names], value=partition,
                         clearable=False, className="dropdown"),
        ]),
        *chosen,
        html.H3("All partitions"),
        components.datatable("offsets-summary", summary, SUMMARY_COLUMNS, page_size=20),
        html.Div(links, className="chips"),
    )


def register(app: Any, data: RunData) -> None:
    @app.callback(Output({"type": "zoomable", "name": "offsets"}, "figure"), Output("offsets-ranges", "data"),
                  Input("window", "data"), State("offsets-params", "data"), State("url", "search"),
                  prevent_initial_call=True)
    def offsets_view(window, params, search):
        if not components.params_match(params, search, "group"):
            raise PreventUpdate
        return build_offsets(data, params["group"], params["partition"], window)

    @app.callback(Output("url", "search", allow_duplicate=True), Input("offsets-partition", "value"),
                  State("url", "search"), prevent_initial_call=True)
    def choose_partition(partition, search):
        new = partition_search(search, partition)
        if new == (search or ""):
            raise PreventUpdate
        return new
