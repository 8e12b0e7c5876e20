"""A sample scenario's RUN_DIR built without Spark: the sample's files parsed, the ingest's timeline
corrections applied (copies dropped, skewed clocks shifted), then the per-group pass's own functions
(pipeline.spark.group_pass.replay_unit_rows and series_unit_rows: plain Python and Arrow, no JVM)
and the JVM-free writer. What the report and the dashboard read of ownership is then the table the
ingest writes for the same events."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from pipeline import rundir

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"


def sample_files(scenario: str) -> dict[str, list[str]]:
    """The scenario's input files (truth.json's `files`), name -> lines."""
    from tests.replay import perturb as P

    folder = SAMPLES / scenario
    truth = json.loads((folder / "truth.json").read_text())
    return {name: P.read_lines(folder / name) for name in sorted(truth["files"]) if (folder / name).is_file()}


def write_pure_run(run_dir: Path, scenario: str,
                   change: Callable[[dict[str, list[str]]], dict[str, list[str]]] | None = None) -> Path:
    """RUN_DIR of `scenario`'s group from its files (after `change`, e.g. one file left out)."""
    from pipeline.spark.group_pass import replay_unit_rows, series_unit_rows
    from tests.replay import perturb as P
    from tests.replay.arrow_tables import events_table

    truth = json.loads((SAMPLES / scenario / "truth.json").read_text())
    files = sample_files(scenario)
    if change is not None:
        files = change(files)
    events = [e for e in P.parsed(files, scenario) if e.group_id == truth["group_id"]]
    events, _copies, _offsets = P.ingested_events(events)
    table = events_table(events)
    tables = replay_unit_rows(table, "pipeline.replay")
    tables.update({k: v.to_pylist() for k, v in series_unit_rows(table).items()})
    rundir.write_table(run_dir, "events", events_table(events).to_pylist())
    for name, rows in tables.items():
        rundir.write_table(run_dir, name, rows)
    rundir.write_manifest(run_dir, {"inputs": [{"path": n} for n in files],
                                    "accounting": {"read": 0, "parsed": len(events), "ignored": 0, "unparsed": 0}})
    return run_dir
