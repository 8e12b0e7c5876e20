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
    p.add_argument("--debug", action="store_true", help="Dash debug mode (reloader and error overlay)")
    return p


def check_run_dir(run_dir: str) -> Path:
    """The RUN_DIR as a path, or UsageError naming what is wrong with it."""
    from pipeline import rundir, schemas
    from pipeline.cli import UsageError

    path = Path(run_dir)
    if not path.exists():
        raise UsageError(f"RUN_DIR {run_dir} does not exist (write one with 'coordscope ingest ... --out {run_dir}')")
    if not path.is_dir():
        raise UsageError(f"RUN_DIR {run_dir} is not a directory")
    try:
        rundir.load_manifest(path)
    except rundir.RunDirError as exc:
        raise UsageError(str(exc)) from None
    except ValueError as exc:
        raise UsageError(f"{run_dir}/manifest.json is unreadable ({exc}); re-run 'coordscope ingest'") from None
    missing = [t for t in schemas.TABLES if not (path / t).is_dir()]
    if missing:
        raise UsageError(f"RUN_DIR {run_dir} is incomplete: no table folder for {', '.join(missing)}; "
                         "re-run 'coordscope ingest'")
    return path


def run(args: argparse.Namespace) -> int:
    from pipeline.cli import UsageError

    path = check_run_dir(args.run_dir)
    if not 0 < args.port < 65536:
        raise UsageError(f"--port {args.port} is not a TCP port (1-65535)")
    from dashboard.app import create_app

    app = create_app(path)
    print(f"coordscope dashboard: serving {path} on http://{args.host}:{args.port}/ (Ctrl-C stops it)", flush=True)
    app.run(host=args.host, port=args.port, debug=args.debug)
    return 0
