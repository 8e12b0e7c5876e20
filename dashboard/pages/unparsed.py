"""Unparsed: candidate lines no rule matched, grouped by shape, so a user can report the gap."""

from __future__ import annotations

from typing import Any

import pandas as pd
from dash import Input, Output, State, dcc, html
from dash.exceptions import PreventUpdate

from dashboard import components
from dashboard.data import RunData
from pipeline import dashboard_urls as urls

SHAPE_COLUMNS = [("shape", "shape"), ("lines", "lines"), ("sources", "files"), ("why", "why"),
                 ("example", "example line")]
LINE_COLUMNS = [("ref", "source:line"), ("side", "side"), ("layout", "layout"), ("logger", "logger"),
                ("why", "why"), ("raw", "raw line")]


def line_rows(data: RunData, shape: str | None, contains: str | None = None) -> list[dict[str, Any]]:
    lines = data.unparsed_lines(shape, contains)
    return [{"ref": f"{r.source}:{r.line_no}", "side": r.side, "layout": r.layout, "logger": r.logger,
             "why": r.why, "raw": r.raw} for r in lines.head(5000).itertuples(index=False)]


def report_text(data: RunData, shape: str, examples: int = 5) -> str:
    """A plain-text block to paste into a bug report: the shape, counts and a few example lines."""
    lines = data.unparsed_lines(shape)
    head = lines.head(examples)
    why = ", ".join(sorted(set(lines["why"].dropna().astype(str))))
    out = ["coordscope: candidate lines no grammar rule matched", f"shape: {shape}",
           f"lines: {len(lines)} in {lines['source'].nunique()} file(s); why: {why or '-'}",
           f"layouts: {', '.join(sorted(set(lines['layout'].dropna().astype(str)))) or '-'}; "
           f"loggers: {', '.join(sorted(set(lines['logger'].dropna().astype(str)))) or '-'}",
           "examples:"]
    out += [f"  {r.source}:{r.line_no}: {r.raw}" for r in head.itertuples(index=False)]
    return "\n".join(out)


def layout(data: RunData, params: dict[str, str]) -> html.Div:
    shapes = data.unparsed_shapes()
    shape = params.get("shape")
    total = len(data.table("unparsed"))
    rows = shapes.assign(id=shapes["shape"])
    if total == 0:  # nothing to list: say so instead of showing two empty tables
        return components.page(
            "Unparsed candidate lines",
            components.stat_row([("lines", "0"), ("shapes", "0")]),
            html.P("Nothing to see here: every line of this run that looked like coordinator output was parsed "
                   "by a grammar rule (or ignored as known noise). The overview's line accounting has the counts.",
                   className="empty-note"),
            dcc.Link("back to the overview", href="/"))
    return components.page(
        "Unparsed candidate lines",
        components.stat_row([("lines", f"{total:,}"), ("shapes", f"{len(shapes):,}")]),
        html.P("Lines that looked like coordinator output but matched no grammar rule, grouped by shape "
               "(numbers and ids replaced by <*>). Click a shape to list its lines; quote them in a bug report.",
               className="muted"),
        components.datatable("unparsed-shapes", rows, SHAPE_COLUMNS, page_size=15),
        html.H3(f"Lines of shape: {shape}" if shape else "All unparsed lines"),
        html.Div(className="panel", children=[
            html.Div(["For a bug report ", dcc.Clipboard(target_id="unparsed-report", title="copy",
                                                           style={"display": "inline-block"})],
                     className="muted"),
            html.Pre(report_text(data, shape), id="unparsed-report", className="raw"),
        ]) if shape else None,
        html.Div(className="filter", children=[
            html.Label("text contains", htmlFor="unparsed-q"),
            dcc.Input(id="unparsed-q", type="text", value=params.get("q", ""), placeholder="filter lines"),
            dcc.Link("all shapes", href=urls.unparsed_url("")) if shape else None,
        ]),
        dcc.Store(id="unparsed-params", data={"shape": shape}),
        components.datatable("unparsed-lines", pd.DataFrame(line_rows(data, shape), columns=[c for c, _ in LINE_COLUMNS]),
                             LINE_COLUMNS, page_size=25),
    )


def register(app: Any, data: RunData) -> None:
    @app.callback(Output("url", "search", allow_duplicate=True), Input("unparsed-shapes", "active_cell"),
                  prevent_initial_call=True)
    def pick_shape(cell):
        if not cell or not cell.get("row_id"):
            raise PreventUpdate
        return urls.unparsed_url("", cell["row_id"]).removeprefix("/unparsed")

    @app.callback(Output("unparsed-lines", "data"), Input("unparsed-q", "value"), State("unparsed-params", "data"),
                  prevent_initial_call=True)
    def filter_lines(q, params):
        return line_rows(data, (params or {}).get("shape"), q)
