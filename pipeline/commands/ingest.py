"""`coordscope ingest`: raw logs -> RUN_DIR (Parquet tables + manifest.json) with Spark.

Thin: argument parsing, time parsing and the end-of-run summary. The job is pipeline/spark/job.py.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "ingest",
        help="read logs with Spark and reconstruct every group's generations, ownership and findings",
        description="Read consumer and broker logs, __consumer_offsets dumps and kafka-consumer-groups "
        "output (files, directories, globs; plain or .gz; local paths or hdfs:// / s3a:// URIs), parse "
        "the coordinator lines on the Spark workers, merge them into one timeline per group and write "
        "the RUN_DIR tables (Parquet) and manifest.json.",
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="log files, directories or globs (quote globs)")
    p.add_argument("--out", required=True, metavar="RUN_DIR", help="run directory to create (local path)")
    p.add_argument("--master", default="local[*]", help="Spark master URL (default local[*]; e.g. spark://host:7077)")
    p.add_argument("--group", metavar="G", help="keep only events of consumer group G")
    p.add_argument("--since", metavar="T", help="keep events at or after T (ISO 8601, UTC when no zone; or epoch ms)")
    p.add_argument("--until", metavar="T", help="keep events before T (ISO 8601 or epoch ms)")
    p.add_argument("--overwrite", action="store_true", help="replace RUN_DIR if it exists")
    p.add_argument("--layout", metavar="NAME", help="force the log layout of every log file (skip sniffing)")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="extra Spark configuration")
    p.add_argument("--tz", metavar="ZONE", help="zone of log times written without one (IANA name; default UTC)")
    p.add_argument("--quiet", "-q", action="store_true", help="no stage progress on stderr")
    return p


def parse_time(text: str | None, flag: str) -> int | None:
    """ISO 8601 (naive means UTC) or epoch milliseconds -> epoch ms."""
    from pipeline.cli import UsageError

    if text is None:
        return None
    t = text.strip()
    if t.isdigit():
        return int(t)
    try:
        dt = datetime.fromisoformat(t.replace("Z", "+00:00").replace(" ", "T", 1))
    except ValueError as exc:
        raise UsageError(f"{flag} {text!r}: not an ISO 8601 time (e.g. 2024-05-01T10:15:00Z) or epoch ms") from exc
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return int(dt.timestamp() * 1000)


def summary_text(man: dict) -> str:
    s = man["summary"]
    acc = man["accounting"]
    lines = [
        f"coordscope ingest: done in {man['timings_s'].get('total', 0):.1f}s",
        f"  inputs      {acc['files_read']} files read, {acc['files_duplicate']} duplicate, "
        f"{acc['files_empty']} empty, {acc['files_rejected']} rejected",
        f"  lines       {acc['lines_read']:,} read = {acc['parsed']:,} parsed + {acc['ignored']:,} ignored + "
        f"{acc['unparsed']:,} unparsed" + ("" if acc["adds_up"] else "   (DOES NOT ADD UP, see manifest)"),
        f"  events      {s['events']:,}   groups {s['groups']}   generations {s['generations']}",
    ]
    sev = s.get("findings_by_severity") or {}
    lines.append("  findings    " + (", ".join(f"{n} {k}" for k, n in sev.items()) if sev else "none"))
    for g in s.get("busiest_groups", [])[:5]:
        lines.append(f"    {g['group_id']}: {g['generations']} generations (last {g['max_generation']})")
    for r in man.get("rejects", [])[:5]:
        lines.append(f"  rejected    {r['source']}: {r['reason']}")
    if len(man.get("rejects", [])) > 5:
        lines.append(f"  ... {len(man['rejects']) - 5} more rejects in manifest.json")
    for w in man.get("warnings", [])[:5]:
        lines.append(f"  warning     {w}")
    lines.append(f"  RUN_DIR     {man['run_dir']}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from pipeline.cli import UsageError
    from pipeline.commands.parse import _set_tz
    from pipeline.spark.job import IngestError, IngestOptions, run_ingest
    from pipeline.spark.session import JavaError

    _set_tz(getattr(args, "tz", None), UsageError)
    since, until = parse_time(args.since, "--since"), parse_time(args.until, "--until")
    if since is not None and until is not None and until <= since:
        raise UsageError("--until must be later than --since")
    conf = {}
    for kv in args.conf:
        if "=" not in kv:
            raise UsageError(f"--conf {kv!r}: expected KEY=VALUE")
        k, v = kv.split("=", 1)
        conf[k.strip()] = v.strip()
    opts = IngestOptions(
        inputs=list(args.inputs), out=args.out, master=args.master, group=args.group, since_ms=since,
        until_ms=until, overwrite=args.overwrite, layout=args.layout, quiet=args.quiet, extra_conf=conf,
        argv=["coordscope", *sys.argv[1:]],
    )
    try:
        man = run_ingest(opts)
    except IngestError as exc:
        raise UsageError(str(exc)) from exc
    except JavaError as exc:
        print(f"coordscope ingest: error: {exc}", file=sys.stderr)
        return 3
    print(summary_text(man))
    return 0
