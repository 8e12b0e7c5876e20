"""`coordscope report RUN_DIR`: the incident report for post-mortems."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "report",
        help="write the incident report of a run (Markdown, HTML or JSON)",
        description="Summarise a run directory written by 'coordscope ingest': impact in numbers, each "
        "group's rebalance timeline with causes and evidence lines, findings by severity and "
        "recommendations.",
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="directory written by 'coordscope ingest'")
    p.add_argument("--group", help="only this consumer group")
    p.add_argument("--since", help="start of the time window (ISO 8601, UTC if no zone, or epoch ms)")
    p.add_argument("--until", help="end of the time window (ISO 8601 or epoch ms)")
    p.add_argument("--format", choices=("md", "html", "json"), default="md", help="output format (default md)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    p.add_argument("--dashboard-url", metavar="URL",
                   help="base address of a running dashboard (e.g. http://127.0.0.1:8050) to link into")
    return p


def run(args: argparse.Namespace) -> int:
    from pipeline.cli import UsageError
    from pipeline.report import build_report, render
    from pipeline.rundir import RunDirError
    from pipeline.timefmt import parse_time

    if not Path(args.run_dir).is_dir():
        raise UsageError(f"run directory {args.run_dir!r} does not exist")
    try:
        since = parse_time(args.since) if args.since else None
        until = parse_time(args.until) if args.until else None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if since is not None and until is not None and until < since:
        raise UsageError("--until is before --since")
    if args.dashboard_url is not None:
        from pipeline.report.model import dashboard_base

        try:
            dashboard_base(args.dashboard_url)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    try:
        report = build_report(args.run_dir, args.group, since, until, args.dashboard_url)
    except (RunDirError, LookupError) as exc:
        raise UsageError(str(exc).strip("'\"")) from None
    text = render(report, args.format)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"coordscope report: wrote {args.output} ({report['verdict'].replace('_', ' ')})", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
