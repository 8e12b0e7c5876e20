"""Reading replay input: a RUN_DIR (its `events` table) or event JSON lines as `coordscope parse` prints.

Bad lines are counted and explained, never fatal: the caller reports them. A line that is JSON but
not an event the replay can take (a field of the wrong type or out of Kafka's range, see
`validate`) is rejected with the field named."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from parsers.events import Event
from pipeline.replay_rules import validate


@dataclass
class Loaded:
    by_group: dict[str | None, list[Event]] = field(default_factory=dict)
    lines: int = 0
    rejected: list[tuple[int, str]] = field(default_factory=list)     # (line number, why)
    kind: str = "jsonl"


def load(path: str, group: str | None = None) -> Loaded:
    p = Path(path)
    if p.is_dir():
        return _load_run_dir(p, group)
    if not p.is_file():
        raise FileNotFoundError(f"{path} is neither a run directory nor a file of event JSON lines")
    return _load_jsonl(p, group)


def _load_run_dir(p: Path, group: str | None) -> Loaded:
    import pyarrow.dataset as ds

    from pipeline import rundir
    from pipeline.replay_rules.event_rows import events_from_frame

    rundir.validate(p)               # RunDirError for an incomplete or damaged run
    filters = (ds.field("group_id") == group) if group is not None else None
    pdf = rundir.load_table(p, "events", filters=filters)
    out = Loaded(kind="run_dir", lines=len(pdf))
    for n, ev in enumerate(events_from_frame(pdf), 1):
        why = validate.problem(ev)
        if why:
            out.rejected.append((n, f"{ev.source}:{ev.line_no}: {why}"))
            continue
        out.by_group.setdefault(ev.group_id, []).append(ev)
    return out


def _load_jsonl(p: Path, group: str | None) -> Loaded:
    out = Loaded()
    with p.open("rb") as fh:
        for n, raw in enumerate(fh, 1):
            out.lines = n
            text = raw.decode("utf-8", errors="replace").strip()
            if not text:
                continue
            try:
                d = json.loads(text)
            except ValueError as exc:
                out.rejected.append((n, f"not JSON ({exc.msg})"))
                continue
            if not isinstance(d, dict):
                out.rejected.append((n, "not a JSON object"))
                continue
            if "extra" not in d and isinstance(d.get("extra_json"), str):
                try:
                    d["extra"] = json.loads(d["extra_json"])
                except ValueError:
                    d["extra"] = {}
            missing = [k for k in ("source", "line_no", "side", "kind") if d.get(k) is None]
            if missing:
                out.rejected.append((n, "missing " + ", ".join(missing)))
                continue
            d.setdefault("raw", "")
            if d.get("partitions") is not None and not isinstance(d["partitions"], list):
                # tuple("t-0,t-1") would make partitions of single characters
                out.rejected.append((n, f"partitions is {validate.show(d['partitions'])}, not a list"))
                continue
            try:
                ev = Event.from_dict(d)
            except (TypeError, ValueError) as exc:
                out.rejected.append((n, f"not an event ({exc})"))
                continue
            why = validate.problem(ev)
            if why:
                out.rejected.append((n, why))
                continue
            if group is not None and ev.group_id != group:
                continue
            out.by_group.setdefault(ev.group_id, []).append(ev)
    return out
