"""The `coordscope` command line: a thin dispatcher over the subcommand modules.

Each subcommand lives in `pipeline/commands/<name>.py` and exposes
`register(subparsers) -> argparse.ArgumentParser` and `run(args) -> int`. Modules are imported
only when listed here; heavy imports (pyspark, dash) happen inside `run`, so `--help` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from pipeline import __version__
from pipeline.errors import UsageError  # re-exported: commands raise pipeline.cli.UsageError

# Subcommands in the order `--help` shows them.
SUBCOMMANDS: tuple[str, ...] = ("parse", "explain", "ingest", "replay", "report", "dashboard", "demo")


__all__ = ["SUBCOMMANDS", "UsageError", "build_parser", "console_main", "main"]

# Commands whose process may end without the interpreter's finalization (freeing every module's
# objects: ~45-80 M instructions after `coordscope parse` has loaded its rule tables). Their work is
# done when `main` returns: nothing of theirs runs at finalization but atexit handlers, run below.
_QUICK_EXIT = frozenset({"parse", "ingest"})


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line (no usage dump), exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


class _VersionAction(argparse.Action):
    """`--version`: the version and, on the same line, whether the parse hot path runs compiled or
    as Python and why (parsers/_accel.py; worked out only when asked)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest=dest, nargs=0, default=argparse.SUPPRESS,
                         help="show the version and whether the parse hot path runs compiled, and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: object, values: object, option_string: str | None = None) -> None:
        from parsers import _accel

        sys.stdout.write(f"coordscope {__version__} ({_accel.status()})\n")
        parser.exit(0)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser; with `only` (a subcommand's name) just that subcommand's, so that
    `coordscope parse FILE` does not import the other commands' modules (and what they import:
    datetime, pathlib, ...). A command line naming a subcommand is parsed the same by both: the
    other subcommands' parsers only matter for `--help`, the choices of an unknown command and
    their own arguments."""
    parser = _Parser(
        prog="coordscope",
        description="Log forensics for Kafka consumer-group coordination: parse client and broker "
        "coordinator logs, __consumer_offsets dumps and kafka-consumer-groups output, reconstruct "
        "every group's generations with Spark, replay them through a reference coordinator, and "
        "report what happened.",
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in SUBCOMMANDS if only is None else (only,):
        module = importlib.import_module(f"pipeline.commands.{name}")
        sp = module.register(sub)
        sp.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from pipeline.arrow_pool import prefer_system_allocator

    prefer_system_allocator()     # before any command imports pyarrow (pipeline/arrow_pool.py)
    command = None
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        # imports the named subcommand's module (every one's without a known name): Ctrl-C may land here too
        parser = build_parser(argv[0] if argv and argv[0] in SUBCOMMANDS else None)
        args = parser.parse_args(argv)
        command = args.command
        if not getattr(args, "_run", None):
            parser.print_help()
            return 0
        return int(args._run(args) or 0)
    except UsageError as exc:
        print(f"coordscope {command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # one line, exit 130 (128 + SIGINT) as shells expect; commands that start other processes
        # (ingest) stop them in their own handler, see pipeline/signals.py
        print(f"coordscope{' ' + command if command else ''}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def console_main(argv: Sequence[str] | None = None) -> int:
    """The process's entry (console script, `python -m pipeline.cli`): `main`, then, for the commands
    in _QUICK_EXIT, atexit handlers, standard output and error flushed, and `os._exit` with the
    status. If a flush fails (a closed pipe), the normal exit runs instead, so the status and
    messages stay what Python gives (exit status 120 on a failed flush at exit)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    status = main(argv)
    if argv and argv[0] in _QUICK_EXIT:
        _quick_exit(status)
    return status


def _quick_exit(status: int) -> None:
    import atexit
    import os

    atexit._run_exitfuncs()  # e.g. parsers/build_cache.py saves what this run compiled
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):  # a broken pipe, a closed stream: Python's own exit reports it
        return
    os._exit(status)


if __name__ == "__main__":
    sys.exit(console_main())
