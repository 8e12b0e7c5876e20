"""Incident reports from a RUN_DIR: build the model once, render it as Markdown, HTML or JSON."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from parsers import json_text
from pipeline.report.model import build_report

FORMATS = ("md", "html", "json")


def render(report: dict[str, Any], fmt: str) -> str:
    if fmt == "md":
        from pipeline.report.markdown import render_markdown

        return render_markdown(report)
    if fmt == "html":
        from pipeline.report.html import render_html

        return render_html(report)
    if fmt == "json":
        return json_text.dumps(report, indent=2, ensure_ascii=False) + "\n"
    raise ValueError(f"unknown report format {fmt!r} (choose from {', '.join(FORMATS)})")


def json_schema() -> dict[str, Any]:
    return json.loads(resources.files("pipeline.report").joinpath("report.schema.json").read_text("utf-8"))


__all__ = ["FORMATS", "build_report", "json_schema", "render"]
