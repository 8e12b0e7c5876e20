"""The ingest of files that merge two consumers' start-ups line by line, in every layout that names a
line's origin (kubectl --prefix, stern, docker compose, journalctl short, Fluent Bit JSON records,
journald JSON export; tests/parsers/test_interleaved_origins.py builds them): the JVM candidate filter
keeps every line of both ConsumerConfig blocks (the prefixed TAB lines, the JSON records whose text
starts with an escaped TAB), the parse stage reads each block with its own origin's lines, and the
events table says what `coordscope parse` says, settings included. Before (main at 794acbf) every
block lost its settings, and the JSON records' settings lines did not even pass the JVM filter."""

from __future__ import annotations

import json

import pytest

from pipeline import rundir
from tests.parsers.test_interleaved_origins import CONSUMERS, SHAPES, alternated, settings
from tests.spark.conftest import run_ingest_inputs


@pytest.mark.spark
def test_ingest_reads_interleaved_blocks_of_every_origin_layout(spark, tmp_path):
    from parsers.reader import parse_path

    logs = tmp_path / "logs"
    logs.mkdir()
    for shape, (wrap, _origin_of) in SHAPES.items():
        lines, _owner = alternated(wrap)
        (logs / f"{shape}.log").write_text("\n".join(lines) + "\n")
    out = tmp_path / "run"
    man = run_ingest_inputs(spark, logs, out)
    assert man["accounting"]["adds_up"]

    events = rundir.load_table(out, "events")
    for shape, (_wrap, origin_of) in SHAPES.items():
        path = str(logs / f"{shape}.log")
        mine = events[events.source == path]
        got = sorted((int(r.line_no), r.kind, r.kafka_version_hint, r.extra_json) for r in mine.itertuples())
        outcomes, _summary = parse_path(path)
        want = sorted((o.event.line_no, o.event.kind, o.event.kafka_version_hint, json.dumps(o.event.extra))
                      for o in outcomes if o.event is not None)
        assert [g[:3] for g in got] == [w[:3] for w in want], shape
        assert [json.loads(g[3]) for g in got] == [json.loads(w[3]) for w in want], shape
        configs = {json.loads(r.extra_json)["origin"]: json.loads(r.extra_json)["settings"]
                   for r in mine.itertuples() if r.kind == "client_config"}
        assert configs == {origin_of(p): settings(p) for p in CONSUMERS}, shape
        joins = {json.loads(r.extra_json)["origin"]: r.kafka_version_hint
                 for r in mine.itertuples() if r.kind == "join_started"}
        assert joins == {origin_of(p): CONSUMERS[p][3] for p in CONSUMERS}, shape
