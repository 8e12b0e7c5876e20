"""`coordscope demo`: the newcomer's one command (ingest sample_logs/, report, dashboard)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "demo",
        help="ingest sample_logs/, print the incident report and serve the dashboard",
        description="Ingest the bundled sample_logs/ into a run directory, print the incident "
        "report's summary and serve the dashboard on 127.0.0.1 (Ctrl-C stops it).",
    )
    p.add_argument("--no-serve", action="store_true", help="do not start the dashboard (scripts, tests)")
    return p


def run(args: argparse.Namespace) -> int:
    from pipeline.cli import build_parser

    build_parser().print_help()
    print("\ncoordscope demo: the demo pipeline is not built yet (ingest, report and dashboard are pending).")
    return 0
