"""`coordscope parse`: log files, dumps and describe tables -> JSON lines of events."""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections import Counter, deque
from contextlib import contextmanager

try:  # Cython's pure-Python mode: this module is also compiled when installed (parsers/_accel.py)
    import cython
except ModuleNotFoundError:
    from parsers._cython_names import cython


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "parse",
        help="parse logs/dumps into coordination events (JSON lines on stdout, summary on stderr)",
        description="Parse Kafka client and broker coordinator logs, __consumer_offsets dumps and "
        "kafka-consumer-groups --describe output. Prints one JSON object per event (parsed and "
        "unparsed candidate lines; not the ignored ones) on standard output and the line accounting "
        "(lines read, ignored, parsed, unparsed, per-kind counts, each file's layout) on standard "
        "error. Files may be gzip-compressed; directories are read recursively; '-' reads standard input.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="file, directory or '-' for standard input")
    p.add_argument("--layout", metavar="NAME",
                   help="force the log layout instead of detecting it (see 'docs/parsers.md'; "
                   "e.g. log4j, log4j_logger_line, spring_boot, logback, yy_slash, json, jul, "
                   "slf4j_simple, bare, streams, plain)")
    p.add_argument("--tz", metavar="ZONE", help="zone of times written without one (IANA name, e.g. Europe/Berlin; "
                   "default UTC); the summary states it")
    p.add_argument("--summary-json", action="store_true", help="print the summary on stderr as one JSON object")
    p.add_argument("--no-events", action="store_true", help="only the summary (no events on stdout)")
    return p


def _inputs(paths: list[str]):
    """(path, None) for each file to parse, in order, or (path, FileSummary) for an entry that is
    not parsed and why: the same listing and duplicate rule as `coordscope ingest`
    (pipeline/input_files.py), so both commands read the same files."""
    from parsers.reader import FileSummary
    from pipeline import input_files

    dups = input_files.Duplicates()
    for path in paths:
        if path == "-":
            yield path, None
            continue
        try:
            entries = input_files.expand(path)
        except input_files.InputError as exc:
            s = FileSummary(source=path, kind="missing")
            s.messages.append(f"{path}: no such file" if str(exc).startswith("input not found") else str(exc))
            yield path, s
            continue
        for e in entries:
            if isinstance(e, input_files.Skipped):
                unreadable = e.reason.startswith(("cannot", "permission"))
                s = FileSummary(source=e.path, kind="unreadable" if unreadable else "skipped")
                s.messages.append(f"{e.path}: {e.reason}")
                yield e.path, s
                continue
            earlier = dups.of(e.path, e.size) if e.size else None
            if earlier is not None:
                s = FileSummary(source=e.path, kind="duplicate")
                s.messages.append(f"{e.path}: duplicate of {earlier} (identical content; read once)")
                yield e.path, s
                continue
            yield e.path, None


def run(args: argparse.Namespace) -> int:
    with _settled_gc():
        return _run(args)


@contextmanager
def _settled_gc():
    """What is imported (compiled rules, tables: most of the heap) lives as long as the process:
    it is built with the collector off, then frozen out of the collector's passes, and young
    objects are collected every 20,000 allocations instead of 700 (what each line makes is freed by
    reference counting; the collector only looks for cycles). Measured on 100,000 lines: GC CPU
    0.08 s -> 0.02 s, peak memory unchanged (56 MB). Restored on the way out (a caller's process)."""
    enabled, threshold = gc.isenabled(), gc.get_threshold()
    gc.disable()
    try:
        import parsers.event_json  # noqa: F401
        import parsers.reader  # noqa: F401

        gc.freeze()
        gc.set_threshold(20_000, 50, 50)
        gc.enable()
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
        (gc.enable if enabled else gc.disable)()


def _run(args: argparse.Namespace) -> int:
    from parsers import layouts
    from parsers.reader import parse_path, parse_stream
    from pipeline.cli import UsageError

    if args.layout is not None and args.layout not in layouts.LAYOUTS:
        raise UsageError(f"unknown layout {args.layout!r}; known layouts: {', '.join(sorted(layouts.LAYOUTS))}")
    _set_tz(getattr(args, "tz", None), UsageError)
    if args.paths.count("-") > 1:
        raise UsageError("'-' (standard input) may be given only once")
    write = _binary_writer()
    totals: Counter = Counter()
    kinds: Counter = Counter()
    files: list[dict] = []
    failed = 0
    for path, not_read in _inputs(args.paths):
        if not_read is not None:
            outcomes, summary = iter(()), not_read
        elif path == "-":
            outcomes, summary = parse_stream(sys.stdin.buffer, "-", args.layout, rendered=not args.no_events,
                                             batched=True)
        else:
            outcomes, summary = parse_path(path, args.layout, rendered=not args.no_events, batched=True)
        if args.no_events:
            deque(outcomes, maxlen=0)  # run the reader to the end (the summary), at C speed
        else:
            _write_events(outcomes, write)  # lists of outcomes
        if summary.kind in ("missing", "unreadable"):
            failed += 1
        for key in ("lines_read", "parsed", "ignored", "unparsed", "rejected", "decode_errors", "clock_backwards"):
            totals[key] += getattr(summary, key)
        kinds.update(summary.kinds)
        files.append(summary.to_dict())
    sys.stdout.flush()
    _print_summary(files, totals, kinds, args.summary_json)
    return 1 if failed else 0


def _set_tz(tz: str | None, error: type[Exception]) -> None:
    """--tz: naive times are read in this zone, here and in Spark's workers (COORDSCOPE_TZ)."""
    import os

    from parsers.timestamps import set_naive_zone

    if tz is None:
        return
    try:
        set_naive_zone(tz)
    except (ValueError, KeyError, OSError) as exc:
        raise error(f"--tz {tz!r}: unknown time zone ({exc})") from exc
    os.environ["COORDSCOPE_TZ"] = tz


@cython.locals(batch=list, lines=list, t=tuple, r=tuple)
def _write_events(batches, write) -> None:
    """Every event (parsed, and unparsed with its reason) as one JSON line, one write per list of
    outcomes (the reader's lists of ~256: ~64 KB of JSON, below malloc's mmap threshold).
    The reader hands most events already written (parse_path(..., rendered=True, batched=True):
    a plain tuple (line_no, kind, line) in place of the outcome, the same bytes event_line writes),
    the others as Events (in LineOutcomes)."""
    from parsers.event_json import Rendered, event_writer

    event_line = event_writer()
    lines: list[bytes] = []
    add = lines.append
    for batch in batches:
        for o in batch:  # LineOutcome(line_no, status, event, why), read by index (no property calls)
            if type(o) is tuple:  # a line the reader wrote: (line_no, kind, line)
                add(o[2])
                continue
            # compiled, a LineOutcome and a Rendered are read as the tuples they are: Cython indexes
            # an object that is not exactly a tuple through its sq_item slot, which a tuple subclass
            # has as the generic slot_sq_item (a Python-level __getitem__ lookup and call, ~750
            # instructions an index: 2 per event, ~3% of a parse)
            t = cython.cast(tuple, o) if cython.compiled else o
            ev = t[2]
            if ev is None:
                continue
            if type(ev) is Rendered:
                r = cython.cast(tuple, ev) if cython.compiled else ev
                add(r[1])
            else:
                add(event_line(ev, t[3] if t[1] == "unparsed" else None))
        if lines:
            write(b"".join(lines))
            lines.clear()


def _binary_writer():
    """Writes bytes to standard output: to its binary buffer (after what its text layer holds), or
    as text where standard output has no buffer (a StringIO put there by a caller)."""
    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    if buffer is None:
        return lambda data: out.write(data.decode("utf-8", "surrogateescape"))
    out.flush()
    return buffer.write


def _print_summary(files: list[dict], totals: Counter, kinds: Counter, as_json: bool) -> None:
    err = sys.stderr
    if as_json:
        err.write(json.dumps({"files": files, "totals": dict(totals), "kinds": dict(kinds)}) + "\n")
        return
    for f in files:
        if f["kind"] in ("missing", "unreadable", "skipped", "duplicate"):
            for m in f["messages"]:
                err.write(f"coordscope parse: {m}\n")
            continue
        wrappers = f" wrappers={','.join(f['wrappers'])}" if f["wrappers"] else ""
        err.write(f"{f['source']}: {f['kind']} layout={f['layout']}{wrappers} lines={f['lines_read']} "
                  f"parsed={f['parsed']} ignored={f['ignored']} unparsed={f['unparsed']} "
                  f"rejected={f['rejected']}\n")
        for m in f["messages"]:
            err.write(f"  note: {m}\n")
    err.write(f"total: {len(files)} input(s), lines read {totals['lines_read']}, ignored {totals['ignored']}, "
              f"parsed {totals['parsed']}, unparsed {totals['unparsed']}, rejected {totals['rejected']}, "
              f"unanchored {sum(f.get('unanchored', 0) for f in files)}; times without a zone read as "
              f"{files[0].get('naive_zone', 'UTC') if files else 'UTC'}\n")
    if kinds:
        err.write("kinds: " + ", ".join(f"{k}={v}" for k, v in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
                  + "\n")
