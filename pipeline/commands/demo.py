"""`coordscope demo`: the newcomer's one command.

Ingests the bundled sample_logs/ into a run directory (through the same `ingest` command a user
runs), prints the incident report's summary, writes the full report next to the run, and serves
the dashboard on 127.0.0.1 until Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DEFAULT_OUT = "runs/demo"


def default_samples() -> Path:
    return Path(__file__).resolve().parents[2] / "sample_logs"


def sample_inputs(samples: Path) -> list[Path]:
    """The scenario logs (plain and JSON lines), dumps and describe snapshots; not the READMEs or
    the truth files beside them."""
    if not samples.is_dir():
        return []
    files = sorted(p for p in samples.rglob("*")
                   if p.is_file() and p.name != "truth.json" and p.suffix not in (".md", ".py"))
    # quote sources as short relative paths in reports when the samples are under the working directory
    cwd = Path.cwd().resolve()
    return [p.resolve().relative_to(cwd) if p.resolve().is_relative_to(cwd) else p for p in files]


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "demo",
        help="ingest sample_logs/, print the incident report and serve the dashboard",
        description="Ingest the bundled sample_logs/ into a run directory, print the incident "
        "report's summary and serve the dashboard on 127.0.0.1 (Ctrl-C stops it).",
    )
    p.add_argument("--samples", metavar="DIR", help="scenario logs to ingest (default: the repository's sample_logs/)")
    p.add_argument("--out", metavar="RUN_DIR", default=DEFAULT_OUT, help=f"run directory (default {DEFAULT_OUT}; replaced)")
    p.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    p.add_argument("--port", type=int, default=8050, help="dashboard port (default 8050)")
    p.add_argument("--no-serve", action="store_true", help="do not start the dashboard (scripts, tests)")
    return p


def run(args: argparse.Namespace) -> int:
    from pipeline.cli import UsageError, main
    from pipeline.report import build_report, render
    from pipeline.report.markdown import summary_markdown

    samples = Path(args.samples) if args.samples else default_samples()
    inputs = sample_inputs(samples)
    if not inputs:
        raise UsageError(f"no sample logs found in {samples}")
    out = Path(args.out)
    print(f"coordscope demo: ingesting {len(inputs)} files of {samples} into {out} ...", file=sys.stderr)
    rc = main(["ingest", *map(str, inputs), "--out", str(out), "--overwrite", "--master", args.master])
    if rc != 0:
        print(f"coordscope demo: ingest failed (exit {rc})", file=sys.stderr)
        return rc
    if "pyspark" in sys.modules:
        # the report and the dashboard read RUN_DIR with pyarrow: the JVM is not kept while serving
        from pipeline.spark.session import stop_jvm

        stop_jvm()
    dashboard = None if args.no_serve else f"http://127.0.0.1:{args.port}"
    report = build_report(out, dashboard_url=dashboard)
    for fmt in ("md", "html"):
        (out.parent / f"{out.name}-report.{fmt}").write_text(render(report, fmt), encoding="utf-8")
    print(summary_markdown(report))
    print(f"Full report: {out.parent / (out.name + '-report.md')} and {out.parent / (out.name + '-report.html')}")
    print(f"More: coordscope report {out} --group GROUP --format html -o report.html")
    if args.no_serve:
        return 0
    print(f"\nDashboard on {dashboard}/ (Ctrl-C stops it)", flush=True)
    return main(["dashboard", str(out), "--host", "127.0.0.1", "--port", str(args.port)])
