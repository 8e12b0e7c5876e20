"""Markdown rendering of the report model (renders well on GitHub)."""

from __future__ import annotations

from typing import Any

from pipeline.timefmt import duration

SEV_MARK = {"critical": "🟥 critical", "high": "🟧 high", "medium": "🟨 medium", "low": "🟦 low", "info": "ℹ️ info"}


def _cell(v: Any) -> str:
    """Table cell text: pipes and newlines would break the table."""
    s = "" if v is None else str(v)
    return s.replace("|", "\\|").replace("\n", " ")


def _quote(evidence: list[dict[str, Any]]) -> list[str]:
    if not evidence:
        return []
    lines = ["```text"]
    for e in evidence:
        raw = (e.get("raw") or "(line text not in the run)").replace("```", "'''")
        lines.append(f"{e['ref']}  {raw}")
    lines.append("```")
    return lines


def summary_markdown(report: dict[str, Any]) -> str:
    s = report["summary"]
    imp = s["impact"]
    out = ["## Summary", "", f"**{s['headline']}**", ""]
    if s["first"]:
        out.append(f"Time span: {s['first']} to {s['last']}. Groups: {', '.join(s['groups']) or 'none'}.")
        out.append("")
    out += [
        "| impact | value |", "|---|---|",
        f"| rebalances | {imp['rebalances']} |",
        f"| time spent rebalancing (total / longest) | {duration(imp['rebalance_ms_total'])} / "
        f"{duration(imp['rebalance_ms_longest'])} |",
        f"| partition-seconds without an owner | {imp['unowned_partition_seconds']:g} |",
        f"| members expelled | {len(imp['members_expelled'])} |",
        f"| offsets reprocessed | {imp['reprocessed_messages']} in {len(imp['reprocessed_ranges'])} range(s) |",
        f"| offsets skipped (possible data loss) | {imp['skipped_messages']} in {len(imp['skipped_ranges'])} range(s) |",
        "| findings | " + ", ".join(f"{n} {sev}" for sev, n in s["findings_by_severity"].items() if n) + " |"
        if any(s["findings_by_severity"].values()) else "| findings | none |",
        "",
    ]
    if imp["members_expelled"]:
        out += ["Members expelled:", ""]
        out += [f"- `{e['member_id']}` ({e['group_id']}, generation {e['generation']}): {e['reason']} at {e['at']}"
                for e in imp["members_expelled"]]
        out.append("")
    for key, label in (("reprocessed_ranges", "Reprocessed"), ("skipped_ranges", "Skipped (never processed)")):
        if imp[key]:
            out += [f"{label} offset ranges:", ""]
            out += [f"- {r['group_id']} {r['topic']}-{r['partition']}: [{r['from_offset']}, {r['to_offset']}) "
                    f"= {'about ' if r.get('estimated') else ''}{r['count']} offsets, at {r['at']}"
                    f"{' (estimated: a bound no log line states)' if r.get('estimated') else ''}" for r in imp[key]]
            out.append("")
    if s["top_findings"]:
        out += ["Top findings:", ""]
        # numbered in the text itself: the summary is also printed to a terminal, unrendered
        out += [f"{i}. **{f['title']}** ({f['severity']}, {f['group_id']}): {f['explanation']}"
                for i, f in enumerate(s["top_findings"], 1)]
        out.append("")
    return "\n".join(out)


def render_markdown(report: dict[str, Any]) -> str:
    scope = report["scope"]
    title = "# Incident report" + (f": group `{scope['group']}`" if scope["group"] else "")
    out = [title, ""]
    meta = f"coordscope {report['coordscope_version']}, run `{report['run_dir']}`"
    if scope["since"] or scope["until"]:
        meta += f", window {scope['since'] or '…'} to {scope['until'] or '…'}"
    out += [f"_{meta}_", "", summary_markdown(report)]
    for g in report["groups"]:
        out += [f"## Group `{g['group_id']}`", ""]
        if g.get("dashboard_url"):
            out += [f"[Open in the dashboard]({g['dashboard_url']})", ""]
        out += [f"{g['rebalances']} rebalance(s), {duration(g['rebalance_ms_total'])} spent rebalancing "
                f"(longest {duration(g['rebalance_ms_longest'])}), {len(g['members_seen'])} member(s) seen.", ""]
        out += _consumer_protocol_markdown(g)
        if g["timeline"]:
            out += ["### Rebalance timeline", "",
                    "| gen | start | duration | cause | members in | members out | leader | assignor |",
                    "|---:|---|---:|---|---|---|---|---|"]
            for t in g["timeline"]:
                out.append("| " + " | ".join(_cell(v) for v in (
                    t["generation"], t["start"], t["duration"], t["cause"] + (" (inferred)" if t["inferred"] else ""),
                    ", ".join(t["members_in"]) or "-", ", ".join(t["members_out"]) or "-",
                    t["leader"], t["protocol"])) + " |")
            out.append("")
            out.append("Causes and their evidence:")
            out.append("")
            for t in g["timeline"]:
                out.append(f"- **generation {t['generation']}**: {t['cause_detail'] or t['cause']}")
                out += ["  " + line for line in _quote(t["evidence"])]
            out.append("")
        out += ["### Findings", ""]
        if not g["findings"]:
            out += ["No findings for this group.", ""]
        for f in g["findings"]:
            out.append(f"#### {SEV_MARK.get(f['severity'], f['severity'])}: {f['title']}")
            out.append("")
            span = f"{f['start']} to {f['end']}" if f["end"] and f["end"] != f["start"] else f["start"]
            out.append(f"_{f['kind']}, {span}_" + (f" · [dashboard]({f['dashboard_url']})" if f.get("dashboard_url") else ""))
            out.append("")
            out.append(f["explanation"])
            out.append("")
            if f["members"]:
                out.append("Members: " + ", ".join(f"`{m}`" for m in f["members"]))
            if f["partitions"]:
                out.append("Partitions: " + ", ".join(f"`{p}`" for p in f["partitions"]))
            out += _quote(f["evidence"])
            out.append("")
        out += ["### Recommendations", ""]
        if not g["recommendations"]:
            out += ["None: nothing in this group calls for a change.", ""]
        for r in g["recommendations"]:
            out.append(f"- **{r['title']}.** {r['text']}")
            if r["setting"]:
                out.append(f"  Setting: `{r['setting']}`" + (f" = `{r['value']}`" if r["value"] is not None else ""))
            if r["what_if"]:
                out.append(f"  What-if replay: `{r['what_if']['command']}`")
                if r["what_if"].get("result"):
                    out.append(f"  Result: {r['what_if']['result']}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _consumer_protocol_markdown(g: dict[str, Any]) -> list[str]:
    """The consumer-protocol (KIP-848) story of a group, one sentence per bullet; nothing for a classic group."""
    story = g.get("consumer_protocol")
    if not story:
        return []
    title = "### Consumer protocol (KIP-848)" if story["group_type"] == "consumer" else "### Streams protocol (KIP-1071)"
    return [title, "", *(f"- {_cell(w)}" for w in story["words"]), ""]
