"""`coordscope replay INPUT`: one group's timeline and findings, and what-if replays under other settings."""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "replay",
        help="replay a group's events: timeline, causes, findings; --set for what-if",
        description="Replay one consumer group's events (a run directory from 'coordscope ingest', or the "
        "event JSON lines printed by 'coordscope parse') and print its generations with the cause of each "
        "rebalance, then its findings. With --set, evaluate the members' observed behaviour under other "
        "settings and print what would have differed (rebalances avoided, members not expelled).",
    )
    p.add_argument("input", metavar="INPUT", help="run directory, or a file of event JSON lines")
    p.add_argument("--group", help="the consumer group (default: every group in INPUT)")
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="NAME=VALUE",
                   help="what-if setting, repeatable: session.timeout.ms, max.poll.interval.ms, "
                   "heartbeat.interval.ms, rebalance.timeout.ms, partition.assignment.strategy, "
                   "group.initial.rebalance.delay.ms")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    return p


def run(args: argparse.Namespace) -> int:
    from pipeline.cli import UsageError
    from pipeline.replay import ReplaySettings, replay_group
    from pipeline.replay_rules import inputs, render, whatif
    from pipeline.replay_rules.consumer_groups import group_type_of
    from pipeline.replay_rules.settings import consumer_protocol_settings, resolve
    from pipeline.rundir import RunDirError

    changes: dict[str, str] = {}
    for item in args.sets:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise UsageError(f"--set needs NAME=VALUE, got {item!r}")
        changes[name.strip()] = value.strip()
    try:
        ReplaySettings().with_overrides(changes)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    try:
        loaded = inputs.load(args.input, args.group)
    except (FileNotFoundError, RunDirError, IsADirectoryError, PermissionError) as exc:
        raise UsageError(str(exc)) from None
    if loaded.rejected:
        first_line, why = loaded.rejected[0]
        print(f"coordscope replay: {len(loaded.rejected)} of {loaded.lines} input line(s) rejected "
              f"(first: line {first_line}: {why})", file=sys.stderr)
    groups = sorted(loaded.by_group, key=lambda g: (g is None, g or ""))
    if not groups:
        raise UsageError(f"no events of group {args.group!r} in {args.input}" if args.group
                         else f"no events in {args.input}")
    docs = []
    for gid in groups:
        events = loaded.by_group[gid]
        result = replay_group(events)
        w = None
        if changes and group_type_of(events) in ("consumer", "streams"):
            from pipeline.replay_rules import whatif_consumer  # KIP-848: through the consumer-protocol model
            new_cfg = consumer_protocol_settings(resolve(events, ReplaySettings().with_overrides(changes)))
            w = whatif_consumer.analyse(events, result, new_cfg)
        elif changes:
            new_cfg = resolve(events, ReplaySettings().with_overrides(changes))
            w = whatif.analyse(result.views, result.state, result.settings, new_cfg)
            w.model = _model(events, result, new_cfg)
        if args.format == "json":
            docs.append({"group_id": gid, "settings": result.settings.as_dict(), "stats": result.stats,
                         "generations": result.generations, "findings": result.findings,
                         "what_if": w.as_dict() if w else None})
        else:
            sys.stdout.write(render.timeline(result))
            if w is not None:
                sys.stdout.write("\n" + render.what_if(w))
            if gid != groups[-1]:
                sys.stdout.write("\n")
    if args.format == "json":
        json.dump(docs if len(docs) > 1 else docs[0], sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    return 0


def _model(events, result, new_cfg):
    """The reference coordinator's replay of the members' behaviour, when the model is available."""
    try:
        from pipeline.replay_rules import model_drive
    except ImportError:
        return None
    return model_drive.compare(events, result, new_cfg)
