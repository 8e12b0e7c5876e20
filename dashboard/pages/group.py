"""Group: generation timeline with causes and findings, member lanes and the partition-ownership
heatmap, all sharing one time window; findings open their evidence lines."""

from __future__ import annotations

from typing import Any

import pandas as pd
from dash import Input, Output, State, ctx, dcc, html
from dash.exceptions import PreventUpdate

from dashboard import components
from dashboard.data import RunData, overlapping
from dashboard.figures import lanes_figure, ownership_figure, timeline_figure
from dashboard.figures.common import short_id
from dashboard.member_names import member_labels
from dashboard.pages.overview import fmt_duration, rebalancing_text
from pipeline import dashboard_urls as urls
from pipeline import figures

GEN_COLUMNS = [("generation", "gen"), ("cause", "cause"), ("cause_detail", "what happened"),
               ("started", "rebalance began"), ("stabilized", "stable at"), ("rebalance", "rebalance took"),
               ("member_count", "members"), ("protocol", "protocol"), ("leader", "leader"),
               ("trigger_member", "triggered by"), ("inferred", "inferred")]
FINDING_COLUMNS = [("severity", "severity"), ("title", "finding"), ("kind", "kind"), ("start", "at"),
                   ("generation", "gen")]


_NO_LEADER = ("consumer (KIP-848)", "streams (KIP-1071)")  # protocol types without a group leader
MIN_SPAN_MS = 60_000  # the narrowest time axis drawn: ±30 s around a lone instant


def window_range(data: RunData, group: str, window: dict[str, Any] | None) -> tuple[int | None, int | None]:
    lo, hi = data.group_extent(group)
    window = window or {}
    since = window.get("since") if window.get("since") is not None else lo
    until = window.get("until") if window.get("until") is not None else hi
    if since is not None and until is not None and window.get("since") is None and window.get("until") is None:
        pad = max(500, (until - since) // 50)  # whole run: a margin so edge markers and labels show
        since, until = since - pad, until + pad
    whole_run = window.get("since") is None and window.get("until") is None
    if since is not None and until is not None and until - since < MIN_SPAN_MS and (whole_run or since == until):
        # a single event (or a few within milliseconds) is not drawn on an axis a few ms wide; a
        # window the user chose (a drag, typed bounds) is kept as chosen
        mid = (since + until) // 2
        since, until = mid - MIN_SPAN_MS // 2, mid + MIN_SPAN_MS // 2
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
    names = member_labels(data, group)
    why = empty_reasons(data, group)
    timeline = timeline_figure(phases, findings, x_range, end_fallback=extent_end, empty_message=why["timeline"])
    points = data.lane_points(group, since, until)
    if points.empty:  # no line speaks for a member (broker-only logs): the memberships the replay built
        points = membership_points(data, group, since, until)
    lanes = lanes_figure(points, x_range, names=names, empty_message=why["lanes"])
    heat = ownership_figure(data.ownership_grid(group, x_range[0], x_range[1]), x_range, names=names,
                            empty_message=why["ownership"])
    return timeline, lanes, heat


def unowned_note(data: RunData, group: str) -> html.P:
    """The report's "partition-seconds with no owner in the logs" for this group (one computation:
    pipeline.figures.unowned_figure), with what of it is estimated and why."""
    fig = data.unowned(group)
    seconds = None if fig["groups_without_partitions"] and not fig["groups_owning"] else fig["ms"] / 1000
    text = figures.unowned_sentence(seconds, fig["estimated_ms"] / 1000, fig["estimated_why"],
                                    fig["inferred_owned_ms"] / 1000, fig["unknown_ms"] / 1000,
                                    fig["groups_without_partitions"], fig["held_unlogged_ms"] / 1000,
                                    fig["maybe_owned_ms"] / 1000)
    return html.P(["Partition-seconds with no owner in the logs (whole run): ", html.Span(text, id="group-unowned")],
                  className="muted", id="group-unowned-note")


MEMBERSHIP_MARKS = (("joined_ms", "join", "joined"), ("synced_ms", "sync", "synced"), ("left_ms", "leave", "left"))


def membership_points(data: RunData, group: str, since: int | None, until: int | None) -> pd.DataFrame:
    """Lane markers from the memberships table (joined, synced, left per member and generation),
    for groups whose lines name members without speaking for one (a broker's "member X joined")."""
    mems = data.group_rows("memberships", group)
    rows = []
    for m in mems.itertuples(index=False):
        ref = data_ref(m.evidence)
        for col, category, kind in MEMBERSHIP_MARKS:
            ts = getattr(m, col)
            if ts is None or ts != ts or (since is not None and ts < since) or (until is not None and ts > until):
                continue
            reason = m.leave_reason if category == "leave" and isinstance(m.leave_reason, str) else None
            rows.append({"lane": m.member_id, "category": "expiry" if reason and "expir" in reason else category,
                         "ts_ms": int(ts), "kind": f"{kind} (generation {m.generation})", "count": 1,
                         "source": ref[0], "line_no": ref[1], "reason": reason})
    return pd.DataFrame(rows, columns=["lane", "category", "ts_ms", "kind", "count", "source", "line_no", "reason"])


def data_ref(evidence: Any) -> tuple[str, int | str]:
    """The first evidence reference of a row as (source, line), for the lane's click and hover."""
    refs = [] if evidence is None else [str(e) for e in evidence]
    if not refs:
        return "", ""
    source, _, line = refs[0].rpartition(":")
    return (source, int(line)) if line.isdigit() else (refs[0], "")


def empty_reasons(data: RunData, group: str) -> dict[str, str]:
    """Why each chart of a group may have nothing to draw, in a sentence that fits what the run holds."""
    evs = data.group_events(group)
    sides = set(evs["side"].dropna().astype(str)) if "side" in evs else set()
    snapshot_only = bool(sides) and sides <= {"describe", "offsets"}
    broker_only = "broker" in sides and "client" not in sides
    if snapshot_only:
        what = ("Only offset snapshots (kafka-consumer-groups --describe or __consumer_offsets) mention this group: "
                "they show offsets, not rebalances or members over time. See the offsets page and the snapshot "
                "table below.")
        return {"timeline": what, "lanes": what, "ownership": what}
    no_gens = data.group_rows("generations", group).empty
    return {
        "timeline": ("The lines of this run show no generation of this group (no join, sync or rebalance line)."
                     if no_gens else "No generation or finding of this group falls in this window."),
        "lanes": "No member event of this group falls in this window." + (
            " Only broker lines mention this group; the members below are the ones they name." if broker_only else ""),
        "ownership": "No partition assignment of this group is known in this window"
                     + (": broker logs do not say which partitions a member owns." if broker_only else "."),
    }


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


def _leave_words(reason: str) -> str:
    words = str(reason).replace("_", " ")
    return "left the group" if words in ("left", "leave", "left group") else f"left ({words})"


def _members_list(data: RunData, group: str) -> html.Ul | html.P:
    mems = data.group_rows("memberships", group)
    names = member_labels(data, group)
    items = []
    if not names:
        return html.P("No member of this group is named by any line of this run.", className="muted")
    for m in data.members(group):
        rows = mems[mems["member_id"] == m]
        gens = sorted(rows["generation"].dropna().astype(int).tolist())
        reasons = sorted(set(rows["leave_reason"].dropna().tolist()))
        if len(gens) > 12:  # long-lived members: a count and the span, not eighty numbers
            text = f"  {len(gens)} generations ({gens[0]}–{gens[-1]})"
        else:
            text = f"  generations {', '.join(map(str, gens))}" if gens else "  (seen in events only)"
        if reasons:
            text += " · " + "; ".join(_leave_words(r) for r in reasons)
        label = names.get(m, m)
        items.append(html.Li([dcc.Link(label, href=urls.member_url("", group, m), title=m),
                              html.Span(f"  {m}" if label != m else "", className="muted full-id"),
                              html.Span(text, className="muted")]))
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
                           # a count or leader the logs cannot prove is said to be unknown, not left blank
                           # (the consumer protocol, KIP-848, has no leader: blank there)
                           leader=[short_id(m) if isinstance(m, str) else ("" if str(t).startswith(_NO_LEADER) else "unknown")
                                   for m, t in zip(gens["leader"], gens["protocol_type"], strict=True)],
                           # a trigger the logs cannot name (clocks that cannot order the candidates,
                           # members whose logs are missing; docs/replay.md): "unknown"
                           trigger_member=gens["trigger_member"].map(lambda m: short_id(m) if isinstance(m, str)
                                                                     else "unknown"))
    find_rows = findings.assign(id=findings["finding_id"], start=findings["start_ms"].map(urls.fmt_ms))
    timeline, lanes, heat = build_figures(data, group, {"since": since, "until": until})
    return components.page(
        f"Group {group}",
        components.stat_row([("generations", f"{int(summary['generations']):,}"),
                             ("rebalances", f"{int(summary['rebalances']):,}"),
                             ("time rebalancing", rebalancing_text(summary)),
                             ("members seen", f"{int(summary['members_seen']):,}"), ("findings", f"{len(findings):,}")]),
        html.Div(className="links", children=[
            dcc.Link("offsets of this group →", href=urls.offsets_url("", group, since_ms=since, until_ms=until)),
            dcc.Link("who owned a partition →", href=urls.owner_url("", group)),
        ]),
        dcc.Store(id="group-params", data={"group": group}),
        *components.left_out_note(data, group),
        components.window_controls(since, until),
        # first figures ship with the page (no extra round trip); zooms go through the callback
        components.zoomable("timeline", timeline),
        html.Div(id="group-evidence", className="panel",
                 children=components.finding_panel(data, None)),
        components.zoomable("lanes", lanes),
        components.zoomable("ownership", heat),
        unowned_note(data, group),
        html.H3("Findings"),
        components.datatable("group-findings", find_rows[["id", *[c for c, _ in FINDING_COLUMNS if c in find_rows]]],
                             FINDING_COLUMNS, page_size=10),
        html.H3("Generations"),
        components.datatable("group-generations", gen_rows, GEN_COLUMNS, page_size=10,
                             null_text={"member_count": "unknown"}),
        html.H3("Members"),
        _members_list(data, group),
        *_snapshot_section(data, group),
        *_epochs_section(data, group),
    )


def _epochs_section(data: RunData, group: str) -> list[Any]:
    """KIP-848 consumer-protocol groups: each member's epochs, one row per member and epoch, with
    its reconciliation (memberships: docs/replay.md, consumer protocol). Empty for classic groups."""
    gens = data.group_rows("generations", group)
    if gens.empty or not gens["protocol_type"].fillna("").astype(str).str.startswith(("consumer (KIP-848)", "streams (KIP-1071)")).any():
        return []
    mems = data.group_rows("memberships", group)
    if mems.empty:
        return [html.H3("Epochs per member"),
                html.P("No line of this run states a member's epoch for this group.", className="muted")]
    names = member_labels(data, group)
    # a row no line states anything of: the group moved to that epoch while the member was in it, but
    # nothing shows the member at it (reached at INFO without a line, or skipped): said to be unknown
    stated = mems[["joined_ms", "synced_ms", "member_state"]].notna().any(axis=1)
    ended = ~stated & mems["left_ms"].notna()

    def parts(v: Any) -> str:
        return ", ".join(v) if isinstance(v, list | tuple) or hasattr(v, "tolist") else ""

    rows = mems.sort_values(["member_id", "generation"]).assign(
        member=mems["member_id"].map(lambda m: names.get(m, short_id(m)) if isinstance(m, str) else ""),
        epoch=mems["generation"],
        shown=pd.Series(["a line shows it" if a else "removed while the group was at this epoch (the member was at "
                         "an earlier one)" if b else "unknown: no line shows the member at this epoch"
                         for a, b in zip(stated, ended, strict=True)], index=mems.index),
        reached=mems["joined_ms"].map(urls.fmt_ms), acknowledged=mems["synced_ms"].map(urls.fmt_ms),
        state=mems["member_state"].fillna(""),
        assigned_text=mems["assigned"].map(parts), revoked_text=mems["revoked"].map(parts),
        reconcile=mems["reconcile_ms"].map(fmt_duration),
        ended=mems["leave_reason"].fillna("") + mems["fence_error"].map(lambda e: f" ({e})" if isinstance(e, str) else ""))
    return [html.H3("Epochs per member"),
            html.P("Each member's epoch as the client and broker lines state it: when it reached the epoch, when it "
                   "acknowledged its new assignment, its reconciliation state, and how its membership ended. An empty "
                   "time means no line shows it; an epoch no line shows the member at is marked unknown (reached or skipped).",
                   className="muted"),
            components.datatable("group-epochs", rows, [
                ("member", "member"), ("epoch", "epoch"), ("shown", "evidence"), ("reached", "reached"),
                ("acknowledged", "acknowledged"),
                ("state", "state"), ("assigned_text", "assigned"), ("revoked_text", "revoked"),
                ("reconcile", "reconciled in"), ("ended", "ended")], page_size=15)]


def _snapshot_section(data: RunData, group: str) -> list[Any]:
    """The group's offsets as the snapshots (describe output, offset dumps) state them, when no
    client or broker line tells more: a describe-only group otherwise shows nothing."""
    oc = data.group_rows("offset_commits", group)
    if oc.empty or set(oc["side"].dropna().astype(str)) - {"describe", "offsets"}:
        return []
    rows = oc.sort_values(["topic", "partition", "ts_ms"]).assign(
        partition_name=oc["topic"].astype(str) + "-" + oc["partition"].astype(str),
        at=oc["ts_ms"].map(urls.fmt_ms), offset_text=oc["offset"].map(lambda v: f"{int(v):,}" if v == v else ""),
        member=oc["member_id"].map(lambda m: short_id(m) if isinstance(m, str) else ""))
    return [html.H3("Offset snapshot"),
            html.P("What the offset snapshots of this run state for this group (committed offset per partition).",
                   className="muted"),
            components.datatable("group-snapshot", rows, [("partition_name", "partition"), ("offset_text", "offset"),
                                                          ("flag", "from"), ("at", "time"), ("member", "member")],
                                 page_size=15)]


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


