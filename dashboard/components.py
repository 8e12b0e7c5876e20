"""Small layout pieces shared by the pages. Log text is always a plain string child (React escapes
it), never HTML or Markdown, so a line containing `<script>` is displayed, not run."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd
from dash import dcc, html
from dash.dash_table.DataTable import DataTable
from dash.dash_table.Format import Format, Group

from dashboard.data import RunData
from pipeline import dashboard_urls as urls
from pipeline.report.details_text import details_sentences

TABLE_STYLE: dict[str, Any] = {
    "style_table": {"overflowX": "auto"},
    "style_cell": {"fontFamily": "ui-monospace, SFMono-Regular, Menlo, monospace", "fontSize": "13px",
                   "textAlign": "left", "padding": "4px 8px", "whiteSpace": "normal", "height": "auto",
                   "maxWidth": "640px"},
    "style_header": {"fontWeight": "600", "backgroundColor": "#eef1f5"},
    "style_data_conditional": [{"if": {"row_index": "odd"}, "backgroundColor": "#fafbfc"}],
}


def nav(active: str) -> html.Nav:
    items = [("/", "Overview"), ("/owner", "Who owned P at T"), ("/unparsed", "Unparsed lines")]
    return html.Nav(className="nav", children=[
        html.Span("coordscope", className="brand"),
        *[dcc.Link(label, href=href, className="nav-link" + (" active" if href == active else ""))
          for href, label in items],
    ])


def page(title: str, *children: Any, subtitle: str | None = None) -> html.Div:
    head: list[Any] = [html.H2(title)]
    if subtitle:
        head.append(html.Div(subtitle, className="subtitle"))
    return html.Div(className="page", children=[*head, *children])


def left_out_words(data: Any, group: str, member: str | None = None) -> list[str]:
    """One sentence per client stream of the group the replay left out (pipeline/figures.py
    left_out_streams: a file's lines of several consumers under one client id, with no origin on
    them to tell which), the report's words; with `member`, only the streams whose lines name it
    (RunData.left_out: the file, or the file and origin, of a stream the finding names)."""
    from pipeline import figures
    from pipeline.replay_rules.state import stream_source

    streams = figures.left_out_streams(data.group_rows("findings", group))
    if member is not None:
        files = {(stream_source(s["source"]) or s["source"], s["client_id"]) for s in data.left_out(group)
                 if member in s["members"]}
        streams = [s for s in streams if any(s["client_id"] == c and (s["stream"] == f or s["stream"].startswith(f + " ["))
                                             for f, c in files)]
    return [figures.left_out_sentence(s, member is not None) for s in streams]


def left_out_note(data: Any, group: str, member: str | None = None) -> list[Any]:
    """left_out_words as a panel (nothing when no stream of the group is left out)."""
    words = left_out_words(data, group, member)
    return [html.Div([html.P(w) for w in words], className="panel left-out", id="left-out-note")] if words else []


def stat_row(items: Iterable[tuple[str, Any]]) -> html.Div:
    return html.Div(className="stats", children=[
        html.Div(className="stat", children=[html.Div(f"{v:,}" if isinstance(v, int) and not isinstance(v, bool)
                                                      else str(v), className="stat-value"),
                                             html.Div(k, className="stat-key")])
        for k, v in items])


def window_controls(since: int | None, until: int | None) -> html.Div:
    """Time-window inputs shared by the zoomable figures of a page (ISO 8601 UTC or epoch ms)."""
    return html.Div(className="window", children=[
        html.Label("window (UTC)"),
        dcc.Input(id={"type": "win-input", "name": "since"}, type="text", debounce=True,
                  value=urls.fmt_ms(since), placeholder="since, e.g. 2026-01-01T00:02:00Z", className="win-input"),
        html.Span("→"),
        dcc.Input(id={"type": "win-input", "name": "until"}, type="text", debounce=True,
                  value=urls.fmt_ms(until), placeholder="until", className="win-input"),
        html.Button("apply", id={"type": "win-btn", "name": "apply"}, n_clicks=0),
        html.Button("whole run", id={"type": "win-btn", "name": "reset"}, n_clicks=0),
        html.Span("drag on any chart to zoom all of them; double-click to reset", className="hint"),
    ])


def params_match(params: dict[str, Any] | None, search: str | None, *keys: str) -> bool:
    """Whether a page's params store belongs to the current address. A window change and a page
    change can reach the server together; the store of the page being replaced must not win."""
    if not params:
        return False
    query = urls.parse_query(search)
    return all(params.get(k) == query.get(k) for k in keys)


def zoomable(name: str, figure: Any = None) -> dcc.Graph:
    return dcc.Graph(id={"type": "zoomable", "name": name}, figure=figure or {"data": [], "layout": {}},
                     config={"displaylogo": False, "scrollZoom": False}, className="graph")


# columns holding ISO times: wide enough that a timestamp stays on one line
TIME_COLUMNS = ("time", "joined", "synced", "left", "started", "stabilized", "start", "first", "last")

# free-text columns that need room to be read
WIDE_COLUMNS = ("cause_detail", "title", "explanation", "example", "raw", "source")


def datatable(table_id: Any, frame: pd.DataFrame, columns: Sequence[tuple[str, str]] | None = None,
              page_size: int = 15, markdown_columns: Sequence[str] = (), null_text: dict[str, str] | None = None,
              **kwargs: Any) -> DataTable:
    """A sortable, filterable text table; `columns` is [(column, header)]; `null_text`: what a
    numeric column shows for a null (e.g. "unknown"), kept numeric for sorting."""
    cols = columns or [(c, c) for c in frame.columns if c != "id"]
    options: dict[str, Any] = {"sort_action": "native", "filter_action": "native", "page_action": "native",
                               "page_size": page_size, **TABLE_STYLE}
    options.update(kwargs)
    options.setdefault("style_cell_conditional", [
        {"if": {"column_id": c}, "minWidth": "205px", "whiteSpace": "nowrap"} for c, _ in cols if c in TIME_COLUMNS
    ] + [{"if": {"column_id": c}, "minWidth": "300px"} for c, _ in cols if c in WIDE_COLUMNS]
      + [{"if": {"column_id": c}, "minWidth": "170px"} for c, _ in cols if c in ("group", "shape")]
      + [{"if": {"column_id": c}, "whiteSpace": "nowrap"} for c, _ in cols
         if c in ("cause", "kind", "severity", "leader", "trigger_member", "member_id")])
    # integer columns: shown with thousands separators (27,568), still sorted and filtered as numbers
    numeric = {c for c in frame.columns if pd.api.types.is_integer_dtype(frame[c].dtype)
               or (pd.api.types.is_float_dtype(frame[c].dtype) and frame[c].dropna().mod(1).eq(0).all())}
    specs: Any = [{"name": header, "id": col} | ({"presentation": "markdown"} if col in markdown_columns else {})
                  | ({"type": "numeric", "format": Format(group=Group.yes, nully=(null_text or {}).get(col, ""))}
                     if col in numeric else {})
                  for col, header in cols]
    rows: Any = records(frame)
    return DataTable(id=table_id, data=rows, columns=specs, **options)


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """DataFrame -> JSON-safe rows (lists joined, NaN -> None)."""
    out = []
    for row in frame.to_dict("records"):
        clean = {}
        for k, v in row.items():
            if isinstance(v, (list, tuple)) or hasattr(v, "tolist") and not isinstance(v, (int, float, str)):
                v = ", ".join(str(x) for x in (v.tolist() if hasattr(v, "tolist") else v))
            elif isinstance(v, float) and v != v:
                v = None
            elif hasattr(v, "item"):
                v = v.item()
            clean[k] = v
        out.append(clean)
    return out


def evidence_block(data: RunData, refs: Iterable[str] | None) -> html.Div:
    """Each `source:line` reference with its raw line, as text."""
    frame = data.evidence_lines(list(refs) if refs is not None else [])
    if frame.empty:
        return html.Div("no evidence lines recorded", className="muted")
    return html.Div(className="evidence", children=[
        html.Div(className="evidence-line", children=[
            html.Code(r.ref, className="ref"),
            html.Pre(r.raw if r.raw is not None else "(line text not in this run)", className="raw"),
        ]) for r in frame.itertuples(index=False)])


def _as_list(value: Any) -> list[str]:
    """A Parquet list cell (list, numpy array or None) as a list of strings."""
    return [] if value is None else [str(v) for v in value]


def finding_panel(data: RunData, finding: dict[str, Any] | None) -> html.Div:
    if not finding:
        return html.Div("click a finding (diamond marker or table row) to see its evidence", className="muted")
    group = finding.get("group_id") or ""
    members = _as_list(finding.get("members"))
    parts = _as_list(finding.get("partitions"))
    links: list[Any] = []
    for m in members:
        links.append(dcc.Link(m, href=urls.member_url("", group, m), className="chip"))
    for p in parts:
        links.append(dcc.Link(p, href=urls.owner_url("", group, p, finding.get("start_ms")), className="chip"))
    return html.Div(className="finding", children=[
        html.H4([html.Span(finding.get("severity") or "", className=f"sev sev-{finding.get('severity')}"),
                 " ", finding.get("title") or finding.get("kind") or ""]),
        html.Div(f"{finding.get('kind')} · generation {finding.get('generation')} · "
                 f"{urls.fmt_ms(finding.get('start_ms'))} → {urls.fmt_ms(finding.get('end_ms'))}", className="muted"),
        html.P(finding.get("explanation") or ""),
        _details(finding),
        html.Div(links, className="chips") if links else None,
        html.H5("evidence"),
        evidence_block(data, finding.get("evidence")),
    ])


def _details(finding: dict[str, Any]) -> html.Ul | None:
    """The finding's details as sentences (never its JSON)."""
    sentences = details_sentences(finding.get("details_json"), str(finding.get("kind") or ""))
    return html.Ul([html.Li(t) for t in sentences], className="details") if sentences else None


def line_panel(data: RunData, ref: str) -> html.Div:
    return html.Div(className="finding", children=[html.H5("log line"), evidence_block(data, [ref])])
