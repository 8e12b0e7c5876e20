"""Self-contained HTML rendering: one file, Plotly inlined once, readable on screen and on paper."""

from __future__ import annotations

from html import escape
from typing import Any

from pipeline.report.details_text import details_sentences
from pipeline.report.figures import timeline_figure
from pipeline.report.model import (
    leader_words,
    rebalancing_cell,
    rebalancing_words,
    total_longest_cell,
    unowned_cell,
)

CSS = """
body{font:15px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1150px;color:#1d1d1f;padding:0 1rem}
h1{font-size:1.7rem}h2{border-bottom:2px solid #ddd;padding-bottom:.2rem;margin-top:2.2rem}
table{border-collapse:collapse;width:100%;margin:.6rem 0 1rem;font-size:.9rem}
th,td{border:1px solid #ccc;padding:.3rem .45rem;text-align:left;vertical-align:top}th{background:#f3f3f3}
td.num{text-align:right}.headline{font-size:1.15rem;font-weight:600;padding:.7rem 1rem;border-radius:6px}
.problems{background:#fdecea;border-left:6px solid #e4572e}.ok{background:#e8f5e9;border-left:6px solid #4c9f70}
pre{background:#f6f8fa;border:1px solid #e1e4e8;padding:.5rem;white-space:pre;overflow-x:auto;max-width:100%;font-size:.8rem;margin:.3rem 0}
details{margin:.3rem 0}summary{cursor:pointer;color:#0a58ca;font-size:.85rem}.wrap{overflow-x:auto;max-width:100%}
td{overflow-wrap:anywhere}td.nowrap{white-space:nowrap;overflow-wrap:normal}
.finding{border:1px solid #ddd;border-left:6px solid #888;padding:.3rem .9rem;margin:.4rem 0;border-radius:4px;page-break-inside:avoid}
.finding>summary{color:inherit;font-size:.95rem}
.sev-critical{border-left-color:#8b0000}.sev-high{border-left-color:#e4572e}.sev-medium{border-left-color:#f3a712}
.left-out{border-left:6px solid #f3a712;padding:.2rem .6rem;background:#fff8e6}
.sev-low{border-left-color:#29335c}.badge{color:#fff;border-radius:3px;padding:0 .4rem;font-size:.8rem;text-transform:uppercase;background:#888}
.b-critical{background:#8b0000}.b-high{background:#e4572e}.b-medium{background:#b07800}.b-low{background:#29335c}.meta{color:#555;font-size:.85rem}code{background:#f3f3f3;padding:0 .2rem}
@media print{body{margin:0;max-width:none;font-size:11pt}a{color:inherit;text-decoration:none}
.figure{page-break-inside:avoid}h2{page-break-before:auto}}
"""


def _e(v: Any) -> str:
    return escape("" if v is None else str(v))


def _n(v: Any) -> str:
    """A count as a person reads it: 27,568 (the JSON report keeps the raw number)."""
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else _e(v)


def _evidence(evidence: list[dict[str, Any]]) -> str:
    """The log lines behind a statement, folded: each on its own line, scrolling inside its box."""
    if not evidence:
        return ""
    lines = "\n".join(f"{e['ref']}  {e.get('raw') or '(line text not in the run)'}" for e in evidence)
    return (f"<details><summary>evidence ({len(evidence):,} line{'s' if len(evidence) != 1 else ''})</summary>"
            f"<pre>{escape(lines)}</pre></details>")


def _short(member: str | None) -> str:
    """A member id shortened in the middle (client id head, UUID tail); the full id on hover."""
    if not member:
        return "-"
    text = str(member)
    short = text if len(text) <= 30 else text[:19] + "…" + text[-8:]
    return f'<span title="{_e(text)}">{_e(short)}</span>'


def _ids(ids: list[str], fold_after: int = 4) -> str:
    """Member ids: a few inline (shortened, full on hover), more folded."""
    if not ids:
        return "-"
    if len(ids) <= fold_after:
        return ", ".join(_short(m) for m in ids)
    return f"<details><summary>{len(ids):,} members</summary>{_e(', '.join(ids))}</details>"


def _details_list(finding: dict[str, Any]) -> str:
    sentences = details_sentences(finding.get("details"), str(finding.get("kind") or ""))
    return "<ul>" + "".join(f"<li>{_e(t)}</li>" for t in sentences) + "</ul>" if sentences else ""


def _anchor(group_id: str) -> str:
    return "group-" + "".join(c if c.isalnum() or c in "-_" else "_" for c in group_id)


def _groups_table(groups: list[dict[str, Any]]) -> str:
    """One line per group: what happened where, each linking to its section."""
    if not groups:
        return ""
    rows = []
    for g in groups:
        sev: dict[str, int] = {}
        for f in g["findings"]:
            sev[f["severity"]] = sev.get(f["severity"], 0) + 1
        causes = sorted({t["cause"] for t in g["timeline"] if t.get("cause")})
        rows.append(f"<tr><td><a href='#{_anchor(g['group_id'])}'>{_e(g['group_id'])}</a></td>"
                    f"<td class=num>{_n(g['rebalances'])}</td><td class=nowrap>{_e(rebalancing_cell(g))}</td>"
                    f"<td>{_e(', '.join(causes) or '-')}</td><td class=num>{_n(len(g['members_seen']))}</td>"
                    f"<td>{_e(', '.join(f'{n:,} {k}' for k, n in sev.items()) or 'none')}</td></tr>")
    return ("<table><tr><th>group</th><th>rebalances</th><th>rebalancing</th><th>causes</th><th>members seen</th>"
            "<th>findings</th></tr>" + "".join(rows) + "</table>")


def _summary(report: dict[str, Any]) -> str:
    s, imp = report["summary"], report["summary"]["impact"]
    cls = "ok" if report["verdict"] == "nothing_wrong" else "problems"
    rows = [
        ("rebalances", _n(imp["rebalances"])),
        ("time spent rebalancing (total / longest)",
         total_longest_cell(imp)),   # (the rows are escaped once, below)
        ("partition-seconds with no owner in the logs", unowned_cell(imp)),
        ("members expelled", _n(len(imp["members_expelled"]))),
        ("offsets reprocessed", f"{_n(imp['reprocessed_messages'])} in {_n(len(imp['reprocessed_ranges']))} range(s)"),
        ("offsets skipped (possible data loss)",
         f"{_n(imp['skipped_messages'])} in {_n(len(imp['skipped_ranges']))} range(s)"),
        ("findings", ", ".join(f"{n:,} {sev}" for sev, n in s["findings_by_severity"].items() if n) or "none"),
    ]
    out = [f'<p class="headline {cls}">{_e(s["headline"])}</p>']
    if s["first"]:
        out.append(f"<p>Time span {_e(s['first'])} to {_e(s['last'])}; groups: {_e(', '.join(s['groups']))}.</p>")
    out.append("<table><tr><th>impact</th><th>value</th></tr>"
               + "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in rows) + "</table>")
    out.append(_groups_table(report["groups"]))
    for key, label in (("reprocessed_ranges", "Reprocessed offset ranges"),
                       ("skipped_ranges", "Skipped offset ranges (never processed)")):
        if imp[key]:
            out.append(f"<details><summary>{label} ({len(imp[key]):,})</summary><table><tr><th>group</th><th>partition</th><th>range</th><th>offsets</th>"
                       "<th>at</th></tr>" + "".join(
                           f"<tr><td>{_e(r['group_id'])}</td><td>{_e(r['topic'])}-{_e(r['partition'])}</td>"
                           f"<td>[{_n(r['from_offset'])}, {_n(r['to_offset'])}){' estimated' if r.get('estimated') else ''}</td>"
                           f"<td class=num>{'about ' if r.get('estimated') else ''}{_n(r['count'])}</td>"
                           f"<td class=nowrap>{_e(r['at'])}</td></tr>" for r in imp[key]) + "</table></details>")
    if imp["members_expelled"]:
        out.append(f"<details><summary>Members expelled ({len(imp['members_expelled']):,})</summary><ul>" + "".join(
            f"<li><code>{_e(e['member_id'])}</code> ({_e(e['group_id'])}, generation {_e(e['generation'])}): "
            f"{_e(e['reason'])} at {_e(e['at'])}</li>" for e in imp["members_expelled"]) + "</ul></details>")
    if s.get("time_corrections"):
        out.append("<p>Times corrected before the replay (the evidence lines show the times as logged):</p><ul>"
                   + "".join(f"<li><code>{_e(c['source'])}</code>: {_e(c['sentence'])}</li>"
                             for c in s["time_corrections"]) + "</ul>")
    if s["top_findings"]:
        out.append("<h3>Top findings</h3><ol>" + "".join(
            # titles only: the explanation is in the group's section, one click away
            f"<li><b>{_e(f['title'])}</b> ({_e(f['severity'])}, "
            f"<a href='#{_anchor(f['group_id'])}'>{_e(f['group_id'])}</a>)</li>"
            for f in s["top_findings"]) + "</ol>")
    return "\n".join(out)


def render_html(report: dict[str, Any]) -> str:
    scope = report["scope"]
    title = "Incident report" + (f": group {scope['group']}" if scope["group"] else "")
    body = [f"<h1>{_e(title)}</h1>",
            f"<p class=meta>coordscope {_e(report['coordscope_version'])}, run <code>{_e(report['run_dir'])}</code>"
            + (f", window {_e(scope['since'] or '…')} to {_e(scope['until'] or '…')}" if scope["since"] or scope["until"] else "")
            + "</p>", "<h2>Summary</h2>", _summary(report)]
    plotly_js_done = False
    for g in report["groups"]:
        link = f' <a href="{_e(g["dashboard_url"])}">open in the dashboard</a>' if g.get("dashboard_url") else ""
        body.append(f"<h2 id='{_anchor(g['group_id'])}'>Group <code>{_e(g['group_id'])}</code>{link}</h2>")
        body.append(f"<p>{_n(g['rebalances'])} rebalance(s), {_e(rebalancing_words(g))}, {_n(len(g['members_seen']))} member(s) seen, "
                    f"{_n(len(g['findings']))} finding(s).</p>")
        body += [f"<p class=left-out>{_e(x['sentence'])}</p>" for x in g.get("left_out") or []]
        fig = timeline_figure(g)
        if fig is not None:
            body.append('<div class="figure">' + fig.to_html(full_html=False, include_plotlyjs=not plotly_js_done,
                                                             config={"displaylogo": False}) + "</div>")
            plotly_js_done = True
        if g["timeline"]:
            # a long timeline folds (the chart above shows its shape); a short one stays open
            opened = " open" if len(g["timeline"]) <= 6 else ""
            body.append(f"<details{opened}><summary><h3 style='display:inline'>Rebalance timeline</h3> "
                        f"({len(g['timeline']):,} generations)</summary><div class=wrap><table><tr><th>gen</th><th>start</th><th>duration</th><th>cause</th>"
                        "<th>members in</th><th>members out</th><th>leader</th><th>assignor</th></tr>")
            for t in g["timeline"]:
                body.append(
                    f"<tr><td class=num>{_n(t['generation'])}</td><td class=nowrap>{_e(t['start'])}</td>"
                    f"<td class='num nowrap'>{_e(t['duration'])}</td>"
                    f"<td>{_e(t['cause'])}{' (inferred)' if t['inferred'] else ''}<br><small>{_e(t['cause_detail'])}</small>"
                    f"{_evidence(t['evidence'])}</td><td>{_ids(t['members_in'], 2)}</td>"
                    f"<td>{_ids(t['members_out'], 2)}</td><td>{_short(t['leader']) if t['leader'] else leader_words(t)}</td><td class=nowrap>{_e(t['protocol'])}</td></tr>")
            body.append("</table></div></details>")
        body.append("<h3>Findings</h3>")
        if not g["findings"]:
            body.append("<p>No findings for this group.</p>")
        for f in g["findings"]:
            link = f' · <a href="{_e(f["dashboard_url"])}">dashboard</a>' if f.get("dashboard_url") else ""
            # one line per finding (severity, title, when); the rest unfolds; critical ones open
            opened = " open" if f["severity"] == "critical" else ""
            body.append(
                f'<details class="finding sev-{_e(f["severity"])}"{opened}><summary><span class="badge b-{_e(f["severity"])}">'
                f'{_e(f["severity"])}</span> <b>{_e(f["title"])}</b> <span class=meta>{_e(f["start"] or f["span"])}</span></summary>'
                f"<p class=meta>{_e(f['kind'])}, {_e(f['span'])}{link}</p>"
                f"<p>{_e(f['explanation'])}</p>"
                + _details_list(f)
                + (f"<p>Members: {_ids(f['members'], 6)}</p>" if f["members"] else "")
                + (f"<p>Partitions: {_e(', '.join(f['partitions']))}</p>" if f["partitions"] else "")
                + _evidence(f["evidence"]) + "</details>")
        body.append("<h3>Recommendations</h3>")
        if not g["recommendations"]:
            body.append("<p>None: nothing in this group calls for a change.</p>")
        else:
            body.append("<ul>" + "".join(
                f"<li><b>{_e(r['title'])}.</b> {_e(r['text'])}"
                + (f"<br>Setting <code>{_e(r['setting'])}</code>" + (f" = <code>{_e(r['value'])}</code>" if r["value"] is not None else "") if r["setting"] else "")
                + (f"<br>What-if replay: <code>{_e(r['what_if']['command'])}</code>" if r["what_if"] else "")
                + (f"<br>Result: {_e(r['what_if']['result'])}" if r["what_if"] and r["what_if"].get("result") else "")
                + "</li>" for r in g["recommendations"]) + "</ul>")
    return ("<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
            f"<meta name=viewport content='width=device-width,initial-scale=1'><title>{_e(title)}</title>"
            f"<style>{CSS}</style></head><body>" + "\n".join(body) + "</body></html>\n")
