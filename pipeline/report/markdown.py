"""Markdown rendering of the report model (renders well on GitHub).

Every string that comes from a run (ids, titles, explanations, causes, evidence lines) goes through
`mdtext` (text, code or fenced_line), so log text is shown, never rendered as HTML or links; links
are only the dashboard addresses, which the report command accepts only as http(s)."""

from __future__ import annotations

from typing import Any

from pipeline.report.mdtext import code, fenced_line, text
from pipeline.report.model import leader_words, rebalancing_words, total_longest_cell, unowned_cell

SEV_MARK = {"critical": "🟥 critical", "high": "🟧 high", "medium": "🟨 medium", "low": "🟦 low", "info": "ℹ️ info"}


def _cell(v: Any) -> str:
    """Table cell text: escaped prose (pipes and line breaks would break the table)."""
    return text(v)


def _num(v: Any) -> Any:
    """A count as a person reads it (27,568); the JSON report keeps the raw number."""
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else v


def _link(label: str, url: str) -> str:
    """A Markdown link to a dashboard address (http(s) only, checked by the report command);
    <>, spaces and parentheses are percent-encoded so the address cannot end the link early."""
    safe = "".join(c if c not in '<>() "\'\\`' and c.isprintable() else f"%{ord(c):02X}" for c in url)
    return f"[{label}]({safe})"


def _quote(evidence: list[dict[str, Any]]) -> list[str]:
    if not evidence:
        return []
    lines = ["```text"]
    for e in evidence:
        raw = e.get("raw") or "(line text not in the run)"
        lines.append(fenced_line(f"{e['ref']}  {raw}"))
    lines.append("```")
    return lines


def summary_markdown(report: dict[str, Any]) -> str:
    s = report["summary"]
    imp = s["impact"]
    out = ["## Summary", "", f"**{text(s['headline'])}**", ""]
    if s["first"]:
        out.append(f"Time span: {text(s['first'])} to {text(s['last'])}. "
                   f"Groups: {', '.join(text(g) for g in s['groups']) or 'none'}.")
        out.append("")
    out += [
        "| impact | value |", "|---|---|",
        f"| rebalances | {imp['rebalances']:,} |",
        f"| time spent rebalancing (total / longest) | {text(total_longest_cell(imp))} |",
        f"| partition-seconds with no owner in the logs | {text(unowned_cell(imp))} |",
        f"| members expelled | {len(imp['members_expelled']):,} |",
        f"| offsets reprocessed | {imp['reprocessed_messages']:,} in {len(imp['reprocessed_ranges']):,} range(s) |",
        f"| offsets skipped (possible data loss) | {imp['skipped_messages']:,} in {len(imp['skipped_ranges']):,} range(s) |",
        "| findings | " + ", ".join(f"{n:,} {sev}" for sev, n in s["findings_by_severity"].items() if n) + " |"
        if any(s["findings_by_severity"].values()) else "| findings | none |",
        "",
    ]
    if imp["members_expelled"]:
        out += ["Members expelled:", ""]
        out += [f"- {code(e['member_id'])} ({text(e['group_id'])}, generation {text(e['generation'])}): "
                f"{text(e['reason'])} at {text(e['at'])}"
                for e in imp["members_expelled"]]
        out.append("")
    for key, label in (("reprocessed_ranges", "Reprocessed"), ("skipped_ranges", "Skipped (never processed)")):
        if imp[key]:
            out += [f"{label} offset ranges:", ""]
            out += [f"- {text(r['group_id'])} {text(r['topic'])}-{text(r['partition'])}: "
                    f"[{text(_num(r['from_offset']))}, {text(_num(r['to_offset']))}) "
                    f"= {'about ' if r.get('estimated') else ''}{text(_num(r['count']))} offsets, at {text(r['at'])}"
                    f"{' (estimated: a bound no log line states)' if r.get('estimated') else ''}" for r in imp[key]]
            out.append("")
    if s.get("time_corrections"):
        out += ["Times corrected before the replay (the evidence lines below show the times as logged):", ""]
        out += [f"- {code(c['source'])}: {text(c['sentence'])}" for c in s["time_corrections"]]
        out.append("")
    if s["top_findings"]:
        out += ["Top findings:", ""]
        # numbered in the text itself: the summary is also printed to a terminal, unrendered
        out += [f"{i}. **{text(f['title'])}** ({text(f['severity'])}, {text(f['group_id'])}): "
                f"{text(f['explanation'])}"
                for i, f in enumerate(s["top_findings"], 1)]
        out.append("")
    return "\n".join(out)


def render_markdown(report: dict[str, Any]) -> str:
    scope = report["scope"]
    title = "# Incident report" + (f": group {code(scope['group'])}" if scope["group"] else "")
    out = [title, ""]
    meta = f"coordscope {text(report['coordscope_version'])}, run {code(report['run_dir'])}"
    if scope["since"] or scope["until"]:
        meta += f", window {text(scope['since'] or '…')} to {text(scope['until'] or '…')}"
    out += [f"_{meta}_", "", summary_markdown(report)]
    for g in report["groups"]:
        out += [f"## Group {code(g['group_id'])}", ""]
        if g.get("dashboard_url"):
            out += [_link("Open in the dashboard", g["dashboard_url"]), ""]
        out += [f"{g['rebalances']:,} rebalance(s), {text(rebalancing_words(g))}, "
                f"{len(g['members_seen']):,} member(s) seen.", ""]
        out += [f"> {text(x['sentence'])}" for x in g.get("left_out") or []]
        if g.get("left_out"):
            out.append("")
        out += _consumer_protocol_markdown(g)
        if g["timeline"]:
            out += ["### Rebalance timeline", "",
                    "| gen | start | duration | cause | members in | members out | leader | assignor |",
                    "|---:|---|---:|---|---|---|---|---|"]
            for t in g["timeline"]:
                out.append("| " + " | ".join(_cell(v) for v in (
                    t["generation"], t["start"], t["duration"], t["cause"] + (" (inferred)" if t["inferred"] else ""),
                    ", ".join(t["members_in"]) or "-", ", ".join(t["members_out"]) or "-",
                    leader_words(t), t["protocol"])) + " |")
            out.append("")
            out.append("Causes and their evidence:")
            out.append("")
            for t in g["timeline"]:
                out.append(f"- **generation {text(t['generation'])}**: {text(t['cause_detail'] or t['cause'])}")
                out += ["  " + line for line in _quote(t["evidence"])]
            out.append("")
        out += ["### Findings", ""]
        if not g["findings"]:
            out += ["No findings for this group.", ""]
        for f in g["findings"]:
            out.append(f"#### {SEV_MARK.get(f['severity']) or text(f['severity'])}: {text(f['title'])}")
            out.append("")
            out.append(f"_{text(f['kind'])}, {text(f['span'])}_"
                       + (f" · {_link('dashboard', f['dashboard_url'])}" if f.get("dashboard_url") else ""))
            out.append("")
            out.append(text(f["explanation"], line_start=True))
            out.append("")
            if f["members"]:
                out.append("Members: " + ", ".join(code(m) for m in f["members"]))
            if f["partitions"]:
                out.append("Partitions: " + ", ".join(code(p) for p in f["partitions"]))
            out += _quote(f["evidence"])
            out.append("")
        out += ["### Recommendations", ""]
        if not g["recommendations"]:
            out += ["None: nothing in this group calls for a change.", ""]
        for r in g["recommendations"]:
            out.append(f"- **{text(r['title'])}.** {text(r['text'])}")
            if r["setting"]:
                out.append(f"  Setting: {code(r['setting'])}" + (f" = {code(r['value'])}" if r["value"] is not None else ""))
            if r["what_if"]:
                out.append(f"  What-if replay: {code(r['what_if']['command'])}")
                if r["what_if"].get("result"):
                    out.append(f"  Result: {text(r['what_if']['result'])}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _consumer_protocol_markdown(g: dict[str, Any]) -> list[str]:
    """The consumer-protocol (KIP-848) story of a group, one sentence per bullet; nothing for a classic group."""
    story = g.get("consumer_protocol")
    if not story:
        return []
    title = "### Consumer protocol (KIP-848)" if story["group_type"] == "consumer" else "### Streams protocol (KIP-1071)"
    return [title, "", *(f"- {_cell(w)}" for w in story["words"]), ""]
