"""Overview: every group with its rebalances, time spent rebalancing, members and findings; the run's
line accounting and input files from manifest.json."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
from dash import Input, Output, dcc, html

from dashboard import components
from dashboard.data import RunData, manifest_sections
from pipeline import dashboard_urls as urls
from pipeline import figures, schemas
from pipeline.report.model import time_corrections

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!<>|~])")
COLUMNS = [("group", "group"), ("rebalances", "rebalances"), ("rebalancing", "time rebalancing"),
           ("members_seen", "members seen"), ("critical", "critical"), ("high", "high"), ("medium", "medium"),
           ("low", "low"), ("info", "info"), ("events", "events"), ("first", "first event"), ("last", "last event")]


INPUT_COLUMNS = ("source", "path", "layout", "kind", "status", "size_bytes", "bytes", "lines_read", "lines",
                 "parsed", "ignored", "unparsed", "problems")


def md_link(text: str, href: str) -> str:
    """A Markdown link whose text is shown literally (every Markdown/HTML character escaped)."""
    escaped = _MD_SPECIAL.sub(r"\\\1", text)
    return f"[{escaped}]({href})"


def fmt_duration(ms: int | float | None) -> str:
    if ms is None or ms != ms:
        return ""
    ms = int(ms)
    if ms < 1000:
        return f"{ms} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    return f"{ms // 60_000} min {ms % 60_000 / 1000:.0f} s"


def rebalancing_text(row: dict[str, Any]) -> str:
    """A group's time spent rebalancing as every view says it (pipeline/figures.py): "at least"
    when some rebalances are not timed by the logs, "time unknown" when none is."""
    return figures.rebalancing_total(int(row["rebalancing_ms"]), int(row["rebalances_timed"]), int(row["rebalances"]))


def group_rows(data: RunData, q: str | None) -> list[dict[str, Any]]:
    """The overview table's rows, filtered by a case-insensitive substring of the group id."""
    summary = data.group_summary()
    if q:
        summary = summary[summary["group_id"].str.contains(q, case=False, regex=False)]
    rows = []
    for r in summary.to_dict("records"):
        rows.append({
            "id": r["group_id"], "group": md_link(r["group_id"], urls.group_url("", r["group_id"])),
            "rebalances": r["rebalances"], "rebalancing": rebalancing_text(r),
            "rebalancing_ms": r["rebalancing_ms"], "members_seen": r["members_seen"], "events": r["events"],
            "first": urls.fmt_ms(r["first_ms"]), "last": urls.fmt_ms(r["last_ms"]),
            **{s: r[s] for s in schemas.SEVERITIES},
        })
    return rows


def line_accounting(manifest: dict[str, Any]) -> list[tuple[str, Any]]:
    """The run's line accounting: every input line is parsed, ignored or unparsed, exactly once."""
    acc = manifest.get("accounting") or {}
    if not isinstance(acc, dict) or "lines_read" not in acc:  # older/smaller manifests: {"lines": {...}}
        lines = manifest.get("lines") or {}
        acc = {"lines_read": lines.get("read"), "parsed": lines.get("parsed"), "ignored": lines.get("ignored"),
               "unparsed": lines.get("unparsed")} if isinstance(lines, dict) else {}
    if acc.get("lines_read") is None:
        return []
    parts = [acc.get(k) or 0 for k in ("parsed", "ignored", "unparsed")]
    adds_up = acc.get("adds_up", acc["lines_read"] == sum(parts))
    return [("lines read", acc["lines_read"]), ("parsed", parts[0]), ("ignored", parts[1]),
            ("unparsed", parts[2]), ("adds up", "yes" if adds_up else "NO")]


def accounting(data: RunData) -> html.Div:
    flat, tables = manifest_sections(data.manifest)
    children: list[Any] = [html.H3("Run"), html.Div(str(data.run_dir), className="muted")]
    acc = line_accounting(data.manifest)
    if acc:
        children += [html.H4("Line accounting"), components.stat_row(acc)]
    corrected = time_corrections(data.manifest.get("inputs") or [])
    if corrected:   # the same sentences as the report's summary
        children += [html.H4("Times corrected before the replay"),
                     html.Div("The tables' times for these files' lines are corrected; evidence lines are quoted as logged.",
                              className="muted"),
                     html.Ul([html.Li([html.Code(c["source"]), ": ", c["sentence"]]) for c in corrected],
                             id="time-corrections")]
    children.append(components.datatable("manifest-kv", pd.DataFrame(flat, columns=["key", "value"]),
                                         page_size=25, filter_action="none"))
    for name, rows in tables.items():
        frame = pd.DataFrame(rows)
        preferred = [c for c in INPUT_COLUMNS if c in frame.columns] if name == "inputs" else []
        if preferred:  # the ingest job's per-file entries are wide; show what an SRE checks first
            frame = frame[preferred]
        children += [html.H4(name), components.datatable(f"manifest-{name.replace('.', '-')}", frame, page_size=10)]
    return html.Div(children, className="section")


def layout(data: RunData, params: dict[str, str]) -> html.Div:
    q = params.get("q", "")
    summary = data.group_summary()
    findings = data.table("findings")
    stats = [("groups", len(summary)), ("rebalances", int(summary["rebalances"].sum()) if len(summary) else 0),
             ("findings", len(findings)), ("events", len(data.table("events"))),
             ("unparsed lines", len(data.table("unparsed")))]
    table = components.datatable(
        "groups-table", pd.DataFrame(group_rows(data, q)), COLUMNS, page_size=20,
        markdown_options={"html": False, "link_target": "_self"},
        sort_by=[{"column_id": "critical", "direction": "desc"}],
        markdown_columns=("group",))  # Markdown links whose text is escaped (md_link)
    return components.page(
        "Consumer groups", components.stat_row(stats),
        html.Div(className="filter", children=[
            html.Label("filter groups", htmlFor="overview-q"),
            dcc.Input(id="overview-q", type="text", value=q, placeholder="part of a group id", debounce=False),
            dcc.Link("unparsed lines →", href=urls.unparsed_url(""), className="side-link"),
        ]),
        table, accounting(data),
        subtitle="Click a group to open its timeline. Sort by any column; filter here or in the table's header row.",
    )


def register(app: Any, data: RunData) -> None:
    @app.callback(Output("groups-table", "data"), Output("url", "search", allow_duplicate=True),
                  Input("overview-q", "value"), prevent_initial_call=True)
    def filter_groups(q: str | None):
        return group_rows(data, q), urls.overview_url("", q or None).removeprefix("/")
