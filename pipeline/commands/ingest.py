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


GROUP_LINES = 20   # groups listed in the terminal summary, the busiest first


def _span(first_ms: int | None, last_ms: int | None) -> str:
    from pipeline.timefmt import iso

    if first_ms is None:
        return "no time in the logs"
    a, b = iso(first_ms), iso(last_ms)
    if a[:10] == b[:10]:
        return f"{a[:10]} {a[11:19]}-{b[11:19]} UTC"
    return f"{a[:19].replace('T', ' ')} to {b[:19].replace('T', ' ')} UTC"


def group_line(g: dict) -> str:
    """What happened to one group, where and when, in one line (figures of pipeline/figures.py,
    the same the report and the dashboard show)."""
    from pipeline.figures import rebalancing_total

    n = g["rebalances"]
    parts = [f"{g['group_id']}: {n:,} rebalance{'s' if n != 1 else ''}"]
    if n:
        parts[0] += f" ({rebalancing_total(g['rebalance_ms_total'], g['rebalances_timed'], n)})"
        if g.get("top_cause"):
            parts[0] += f", mostly {g['top_cause'].replace('_', ' ')} ({g['top_cause_count']:,})"
    if g["expelled"]:
        hosts = ", ".join(g["expelled_hosts"][:3]) + (" ..." if len(g["expelled_hosts"]) > 3 else "")
        parts.append(f"{g['expelled']:,} expelled ({hosts})")
    if g["reprocessed_offsets"]:
        parts.append(f"{g['reprocessed_offsets']:,} offsets reprocessed"
                     + (" (partly estimated)" if g["reprocessed_estimated"] else ""))
    if g["skipped_offsets"]:
        parts.append(f"{g['skipped_offsets']:,} offsets skipped"
                     + (" (partly estimated)" if g["skipped_estimated"] else ""))
    if g.get("lines_left_out"):
        parts.append(f"{g['lines_left_out']:,} line(s) of several consumers in one file left out (what only they "
                     "show is unknown)")
    sev = g["findings_by_severity"]
    parts.append("findings: " + (", ".join(f"{c:,} {k}" for k, c in sev.items()) if sev else "none"))
    return "; ".join(parts) + f"; {_span(g['first_ms'], g['last_ms'])}"


def summary_text(man: dict) -> str:
    s = man["summary"]
    acc = man["accounting"]
    lines = [
        f"coordscope ingest: done in {man['timings_s'].get('total', 0):.1f}s",
        f"  inputs      {acc['files_read']} files read, {acc['files_duplicate']} duplicate, "
        f"{acc['files_empty']} empty, {acc['files_rejected']} rejected",
        f"  lines       {acc['lines_read']:,} read = {acc['parsed']:,} parsed + {acc['ignored']:,} ignored + "
        f"{acc['unparsed']:,} unparsed" + ("" if acc["adds_up"] else "   (DOES NOT ADD UP, see manifest)"),
        f"  events      {s['events']:,}   groups {s['groups']:,}   generations {s['generations']:,}",
    ]
    sev = s.get("findings_by_severity") or {}
    lines.append("  findings    " + (", ".join(f"{n} {k}" for k, n in sev.items()) if sev else "none"))
    detail = s.get("groups_detail", [])
    for g in detail[:GROUP_LINES]:
        lines.append("    " + group_line(g))
    if len(detail) > GROUP_LINES or s["groups"] > len(detail):
        lines.append(f"    ... {s['groups'] - min(len(detail), GROUP_LINES):,} more groups: see the report")
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
        on_done=lambda man: print(summary_text(man), flush=True),
    )
    from pipeline.signals import interrupt_stops_everything

    try:
        with interrupt_stops_everything("ingest", lambda: remove_own_unfinished(args.out)):
            run_ingest(opts)
    except IngestError as exc:
        raise UsageError(str(exc)) from exc
    except JavaError as exc:
        print(f"coordscope ingest: error: {exc}", file=sys.stderr)
        return 3
    return 0    # the summary was printed by on_done, before the class archive's save


def remove_own_unfinished(out: str) -> str | None:
    """On Ctrl-C: remove the temporary RUN_DIR this process was writing (its owner file names our pid);
    the target itself is untouched (a complete earlier run stays as it was)."""
    import os
    import shutil
    from pathlib import Path

    from pipeline.spark import write as write_mod

    target = Path(write_mod.local_path(out)).absolute()
    removed = 0
    for tmp in target.parent.glob(f".{target.name}.tmp-*"):
        try:
            pid = (tmp / write_mod.OWNER_FILE).read_text(encoding="utf-8").split("\n")[0]
        except OSError:
            continue
        if tmp.is_dir() and not tmp.is_symlink() and pid == str(os.getpid()):
            shutil.rmtree(tmp, ignore_errors=True)
            removed += 1
    return f"removed its unfinished run directory; {target} was not written" if removed else None
