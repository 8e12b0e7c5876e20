"""`coordscope replay INPUT`: one group's timeline and findings, and what-if replays under other settings."""

from __future__ import annotations

import argparse
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
    from parsers import json_text
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
        print(rejected_summary(loaded), file=sys.stderr)
    groups = sorted(loaded.by_group, key=lambda g: (g is None, g or ""))
    if not groups:
        raise UsageError(f"no events of group {args.group!r} in {args.input}" if args.group
                         else f"no events in {args.input}")
    docs = []
    said: set[str] = set()
    for gid in groups:
        events = loaded.by_group[gid]
        # a run directory's findings of ownership are those of its ownership table (docs/replay.md,
        # One ownership): the replay is given that table, as the ingest gave it
        table = _run_ownership(args.input, gid) if loaded.kind == "run_dir" else None
        result = replay_group(events, ownership_final=None if table is None else (lambda *_a, t=table: t))
        for note in result.settings.notes:      # a printed setting that could not be used, and what was
            if note not in said:
                said.add(note)
                print(f"coordscope replay: note: {note}", file=sys.stderr)
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
        sys.stdout.write(json_text.dumps(docs if len(docs) > 1 else docs[0], indent=2, default=str))
        sys.stdout.write("\n")
    return 0


def _run_ownership(run_dir: str, group: str | None) -> list[dict] | None:
    """The group's rows of the run directory's ownership table (None: the run has none)."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    from pipeline import rundir, schemas

    try:
        df = rundir.load_table(run_dir, "ownership", filters=(ds.field("group_id") == group) if group is not None
                               else ds.field("group_id").is_null())
    except rundir.RunDirError:
        return None
    # (through Arrow: pandas holds a null int column as floats)
    return pa.Table.from_pandas(df, schema=schemas.arrow_schema("ownership"), preserve_index=False).to_pylist()


def rejected_summary(loaded) -> str:
    """One line: how many input lines were rejected, why (by field, most frequent first), the first."""
    from collections import Counter

    by_field = Counter(_field(why) for _, why in loaded.rejected)
    fields = ", ".join(f"{n} {name}" for name, n in by_field.most_common())
    first_line, why = loaded.rejected[0]
    unit = "row" if loaded.kind == "run_dir" else "line"
    return (f"coordscope replay: {len(loaded.rejected)} of {loaded.lines} input {unit}(s) rejected ({fields}); "
            f"first: {unit} {first_line}: {why}")


def _model(events, result, new_cfg):
    """The reference coordinator's replay of the members' behaviour, when the model is available."""
    try:
        from pipeline.replay_rules import model_drive
    except ImportError:
        return None
    return model_drive.compare(events, result, new_cfg)


def _field(why: str) -> str:
    """What a rejection reason is about: the field it names, or the kind of garbage."""
    why = why.split(": ", 1)[1] if why.count(": ") and ":" in why.split(" ")[0] else why   # run rows: "src:n: ..."
    for prefix, label in (("not JSON", "not JSON"), ("not a JSON object", "not an object"),
                          ("missing ", "missing fields"), ("not an event", "not an event")):
        if why.startswith(prefix):
            return label
    return why.split(" ")[0]
