"""Log text in the Markdown report stays text under a renderer that allows raw HTML (CommonMark,
as markdown-it-py renders it): no tag, attribute or link comes from a log line, and the hostile
text is still shown (nothing dropped). `--dashboard-url` accepts only http(s) addresses."""

from __future__ import annotations

import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipeline import rundir, schemas
from pipeline.report import build_report, render
from tests.report.fixture_run import write_problem_run

markdown_it = pytest.importorskip("markdown_it")

PAYLOADS = {
    "script": "<script>alert(1)</script>",
    "img": "<img src=x onerror=alert(2)>",
    "links": "[x](javascript:alert(3)) ![y](javascript:alert(4)) <javascript:alert(5)> <http://evil.example/>",
    "backticks": "`` ` <img src=x onerror=alert(6)> ` ``",
    "line-breaks": "\r```\r<script>alert(7)</script>\r```\n~~~\n<script>alert(7)</script>",
    "table-cell": "| <b onmouseover=alert(8)>x</b> | <svg/onload=alert(8)>",
    "heading": "\n# <iframe src=javascript:alert(9)>\n1. <details open ontoggle=alert(9)>",
    "entity": "&lt;script&gt;alert(10)&lt;/script&gt; &#60;img src=x onerror=alert(10)&#62;",
}
# Columns whose text comes from log lines (ids, names, titles, explanations, causes, raw lines).
HOSTILE_COLUMNS = {"group_id", "member_id", "members", "leader", "protocol", "title", "explanation",
                   "cause_detail", "raw", "topic", "partitions", "client_id", "leave_reason", "assigned"}
ALLOWED_TAGS = {"h1", "h2", "h3", "h4", "p", "strong", "em", "code", "pre", "table", "thead", "tbody",
                "tr", "th", "td", "ul", "ol", "li", "a", "br", "hr"}


def _hostile_run(tmp_path: Path, payload: str) -> Path:
    """The problem run of fixture_run with the payload appended to every log-derived string."""
    clean = write_problem_run(tmp_path / "clean")
    run = tmp_path / "hostile"

    def spoil(v):
        if isinstance(v, str):
            return v + payload
        if isinstance(v, list):
            return [spoil(x) for x in v]
        return v

    for table in schemas.TABLES:
        files = sorted(str(f) for f in (clean / table).glob("*.parquet"))
        rows = pq.read_table(files[0]).to_pylist() if files else []
        for row in rows:
            for col in HOSTILE_COLUMNS & row.keys():
                row[col] = spoil(row[col])
        rundir.write_table(run, table, rows)
    rundir.write_manifest(run, rundir.load_manifest(clean))
    return run


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.bad: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in ALLOWED_TAGS:
            self.bad.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on") or (name == "href" and not (value or "").startswith(("http://", "https://"))) \
                    or name not in {"href", "class", "style"}:
                self.bad.append(f"<{tag} {name}={value!r}>")

    def handle_data(self, data):
        self.text.append(data)


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_log_text_never_becomes_html(tmp_path, name):
    payload = PAYLOADS[name]
    md = render(build_report(_hostile_run(tmp_path, payload), dashboard_url="http://127.0.0.1:8050"), "md")
    html = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render(md)
    tags = _Tags()
    tags.feed(html)
    assert tags.bad == [], f"active markup from log text: {tags.bad[:5]}"
    # shown, not dropped: every word of the payload is visible text of the rendered page
    visible = " ".join(" ".join(tags.text).split())
    for word in ("alert", "script", "onerror", "javascript"):
        if word in payload:
            assert word in visible, word
    # the report's own structure survived: headings, the timeline table, the dashboard links
    assert "<h2>Summary</h2>" in html and "<table>" in html
    assert '<a href="http://127.0.0.1:8050/group?group=payments' in html


@pytest.mark.parametrize("url", ["javascript:alert(1)//", "data:text/html,<script>alert(1)</script>",
                                 "ftp://host/", "//evil.example", "http://", "http:// evil", "http://u:p@host/",
                                 "http://host/?x=1", "file:///etc/passwd", "vbscript:x"])
def test_report_refuses_dashboard_urls_that_are_not_http(repo_root, tmp_path, url):
    run = write_problem_run(tmp_path / "run")
    res = subprocess.run([sys.executable, "-m", "pipeline.cli", "report", str(run), "--dashboard-url", url],
                         capture_output=True, text=True, cwd=repo_root, timeout=120)
    assert res.returncode == 2 and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("coordscope report: error: --dashboard-url"), res.stderr


@pytest.mark.parametrize("url", ["http://127.0.0.1:8050", "https://dash.example.com/coordscope/"])
def test_report_links_http_dashboards(tmp_path, url):
    md = render(build_report(write_problem_run(tmp_path / "run"), dashboard_url=url), "md")
    assert f"]({url.rstrip('/')}/group?group=payments" in md
