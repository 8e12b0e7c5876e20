"""Who owned partition P at time T: a query form answered with the member, generation and evidence."""

from __future__ import annotations

from typing import Any

from dash import Input, Output, State, dcc, html
from dash.exceptions import PreventUpdate

from dashboard import components
from dashboard.data import UNNAMED, RunData
from pipeline import dashboard_urls as urls
from pipeline import figures

END_WORDS = {
    "last_line": "its own log shows nothing of it after this line (the process crashed, was silent, or its log "
                 "ends): when it stopped owning the partition is not in the logs",
    "last_heartbeat": "estimated: its own log does not show when it stopped; the coordinator removed it when its "
                      "session expired, so its last heartbeat came one session timeout before the removal: "
                      "it owned the partition until then, and stopped before its next heartbeat was due",
    "left": "ended by its LeaveGroup, as the coordinator logged it; its own log prints the revoke later "
            "(a binding printing its client's lines at the next poll)",
    "log_end": "still held when its log ends",
    "reassigned": "its next assignment",
}


def gen_text(v: Any) -> str:
    """A generation as a whole number ("3", not the "3.0" of a column with gaps); "unknown" when none."""
    if v is None or v != v:
        return "unknown"
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def _inferred(row: dict[str, Any]) -> bool:
    v = row.get("inferred")
    return bool(v) and v == v


def end_words(row: dict[str, Any]) -> str:
    """How an ownership interval ended, in words; an inferred one says it is estimated and why."""
    reason = row.get("end_reason")
    reason = reason if isinstance(reason, str) and reason else None
    if _inferred(row):
        ended = ("; its end is its last heartbeat, one session timeout before the coordinator removed it"
                 if reason == "last_heartbeat" else
                 f"; its end ({reason.replace('_', ' ')}) is the replay's too" if reason else "")
        return (f" (estimated: the replay inferred this interval from generation {gen_text(row.get('generation'))}'s "
                "assignment, because this member's own log shows no partition assignment: its log was not given, "
                f"was left out, or logs none{ended})")
    if reason is None:
        return ""
    return f" ({END_WORDS.get(reason) or 'ended by ' + reason.replace('_', ' ')})"


def _interval(row: dict[str, Any] | None) -> str:
    if not row:
        return ""
    end = urls.fmt_ms(row.get("end_ms")) or "the end of the logs"
    who = row.get("member_id") or row.get("client_id") or UNNAMED
    return (f"generation {gen_text(row.get('generation'))}: {who} from {urls.fmt_ms(row.get('start_ms'))} to {end}"
            + end_words(row))


def answer(data: RunData, group: str, partition: str, at_ms: int) -> html.Div:
    """The answer block: owner (or none), its evidence, and the owners just before and after."""
    split = urls.split_partition(partition)
    if split is None:
        return html.Div(f"{partition!r} is not a partition name (expected topic-N).", className="error", id="owner-answer")
    result = data.owner_at(group, split[0], split[1], at_ms)
    owners = result["owners"]
    when = urls.fmt_ms(at_ms)
    children: list[Any] = []
    if owners:
        head = " was owned by" if len(owners) == 1 else \
            f" was owned by {len(owners)} members at once (both could fetch and process the same records)"
        children.append(html.H3(["At ", html.Span(when, className="mono"), " ", html.Span(partition, className="mono"),
                                 head]))
    for owner in owners:
        member = owner.get("member_id")
        end = urls.fmt_ms(owner.get("end_ms")) or "the end of the logs"
        who: Any = dcc.Link(member, href=urls.member_url("", group, member), className="answer-member") if member \
            else html.Span(owner.get("client_id") or UNNAMED, className="answer-member")
        children += [
            html.Div(className="answer", children=[
                who,
                html.Div(f"generation {gen_text(owner.get('generation'))} · client {owner.get('client_id') or '-'}"),
                html.Div(f"owned from {urls.fmt_ms(owner.get('start_ms'))} to {end}" + end_words(owner),
                         className="answer-interval"),
            ]),
            html.H5("evidence"),
            components.evidence_block(data, owner.get("evidence")),
        ]
    fig = data.unowned(group) if not owners else {}
    held = next((x for x in fig.get("held_unlogged", []) if x["topic"] == split[0] and x["partition"] == split[1]
                 and x["from_ms"] <= at_ms < x["to_ms"]), None)
    if held is not None:   # (figures.unlogged_owned_spans: not counted as time with no owner)
        children.append(html.H3(f"A member the logs do not show owned {partition} at {when}."))
        children.append(html.P(HELD_WORDS, className="muted", id="owner-held-unlogged"))
    elif not owners:
        children.append(html.H3(f"Nobody owned {partition} at {when} (per this run's logs)."))
        gap = next((g for g in data.unowned(group)["gaps"] if g["topic"] == split[0] and g["partition"] == split[1]
                    and g["from_ms"] <= at_ms <= g["to_ms"]), None)
        if gap is not None and gap["estimated"]:
            children.append(html.P("Estimated: " + "; ".join(figures.UNOWNED_ESTIMATED_WHY[w] for w in gap["why"])
                                   + ".", className="muted", id="owner-estimated"))
    for label, key in (("before", "previous"), ("after", "next")):
        if result[key]:
            children.append(html.Div(f"{label}: {_interval(result[key])}", className="muted"))
    children += [html.P(w, className="muted") for w in components.left_out_words(data, group)]
    children.append(dcc.Link("see this moment on the group timeline →",
                             href=urls.group_url("", group, at_ms - 60_000, at_ms + 60_000)))
    return html.Div(children, id="owner-answer", className="panel")


HELD_WORDS = ("No interval in the logs covers this time, but a stable generation gave the partition to a member "
              "whose assignment no line shows (an eager generation assigns every partition, and no known "
              "assignment holds it), which held it from the generation's Stable until the rebalance that ended "
              "it: not counted as time with no owner (pipeline.figures.unlogged_owned_spans).")


def layout(data: RunData, params: dict[str, str]) -> html.Div:
    groups = data.groups()
    group = params.get("group") if params.get("group") in groups else None
    partition = params.get("partition")
    at_ms = urls.parse_time(params.get("at"))
    parts = data.partitions(group) if group else []
    result: Any = html.Div("Pick a group and a partition, type a time, and ask.", className="muted",
                           id="owner-answer")
    if group and partition and at_ms is not None:
        result = answer(data, group, partition, at_ms)
    elif params.get("at") and at_ms is None:
        result = html.Div(f"Cannot read the time {params.get('at')!r}: use ISO 8601 or epoch milliseconds.",
                          className="error", id="owner-answer")
    return components.page(
        "Who owned partition P at time T?",
        html.Div(className="form", children=[
            html.Label("group", htmlFor="owner-group"),
            dcc.Dropdown(id="owner-group", options=[{"label": g, "value": g} for g in groups], value=group,
                         className="dropdown", placeholder="group"),
            html.Label("partition", htmlFor="owner-partition"),
            dcc.Dropdown(id="owner-partition", options=[{"label": p, "value": p} for p in parts], value=partition,
                         className="dropdown", placeholder="topic-N"),
            html.Label("time (UTC)", htmlFor="owner-at"),
            dcc.Input(id="owner-at", type="text", value=urls.fmt_ms(at_ms) if at_ms is not None else "",
                      placeholder="2026-01-01T00:02:30Z or epoch ms", className="win-input"),
            html.Button("who owned it?", id="owner-ask", n_clicks=0),
        ]),
        result,
    )


def ask_search(group: str | None, partition: str | None, at_text: str | None) -> str:
    at_ms = urls.parse_time(at_text)
    return urls.owner_url("", group or "", partition, at_ms if at_ms is not None else at_text).removeprefix("/owner")


def register(app: Any, data: RunData) -> None:
    @app.callback(Output("owner-partition", "options"), Input("owner-group", "value"), prevent_initial_call=True)
    def partitions_of(group):
        return [{"label": p, "value": p} for p in (data.partitions(group) if group else [])]

    @app.callback(Output("url", "search", allow_duplicate=True), Input("owner-ask", "n_clicks"),
                  Input("owner-at", "n_submit"), State("owner-group", "value"), State("owner-partition", "value"),
                  State("owner-at", "value"), prevent_initial_call=True)
    def ask(_clicks, _submit, group, partition, at_text):
        if not _clicks and not _submit:
            raise PreventUpdate
        return ask_search(group, partition, at_text)
