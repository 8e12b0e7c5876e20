"""`coordscope dashboard RUN_DIR`: serve the Dash dashboard over a run directory (no JVM)."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "dashboard",
        help="serve the dashboard over a RUN_DIR written by 'coordscope ingest'",
        description="Serve a Dash dashboard over RUN_DIR: groups, generations, members, partitions, "
        "offsets, findings with their evidence lines, and unparsed lines. It reads the Parquet tables "
        "with pyarrow (no JVM) and binds to 127.0.0.1 unless --host says otherwise. Page addresses are "
        "documented in docs/dashboard.md.",
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="directory written by 'coordscope ingest --out'")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1; 0.0.0.0 exposes the logs to your network)")
    p.add_argument("--port", type=int, default=8050, help="TCP port (default 8050)")
    p.add_argument("--allow-host", dest="allow_hosts", action="append", default=[], metavar="NAME",
                   help="also answer requests addressed to this Host name (repeatable; e.g. the name a "
                   "reverse proxy forwards); any other Host gets 400 (DNS rebinding)")
    p.add_argument("--debug", action="store_true",
                   help="development only: Dash debug mode on Werkzeug's server (reloader, error overlay); "
                   "loopback addresses only")
    return p


def check_run_dir(run_dir: str) -> Path:
    """The RUN_DIR as a path, or UsageError naming what is wrong with it."""
    from pipeline import rundir
    from pipeline.cli import UsageError

    path = Path(run_dir)
    if not path.exists():
        raise UsageError(f"RUN_DIR {run_dir} does not exist (write one with 'coordscope ingest ... --out {run_dir}')")
    if not path.is_dir():
        raise UsageError(f"RUN_DIR {run_dir} is not a directory")
    try:
        rundir.validate(path)
    except rundir.RunDirError as exc:
        raise UsageError(str(exc)) from None
    return path


def run(args: argparse.Namespace) -> int:
    from pipeline.cli import UsageError

    path = check_run_dir(args.run_dir)
    if not 0 < args.port < 65536:
        raise UsageError(f"--port {args.port} is not a TCP port (1-65535)")
    from dashboard.security import is_loopback

    if args.debug and not is_loopback(args.host):
        raise UsageError("--debug runs a development server; it only binds a loopback address")
    from dashboard.app import create_app
    from dashboard.serve import PortBusy, serve

    app = create_app(path)
    if args.debug:
        print(f"coordscope dashboard: debug mode on http://{args.host}:{args.port}/", flush=True)
        app.run(host=args.host, port=args.port, debug=True)
        return 0
    try:
        serve(app, path, args.host, args.port, tuple(args.allow_hosts))
    except PortBusy as exc:
        raise UsageError(str(exc)) from None
    return 0
