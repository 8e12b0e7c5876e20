"""The ingest against `coordscope parse` on the non-Java clients' logs (tests/parsers/foreign/logs):
the JVM-side candidate filter keeps every line the foreign parsers read (their candidate words are
in CANDIDATE_REGEX), and the events table holds exactly what the parsers find, client_library included."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline import rundir
from tests.spark.conftest import run_ingest_inputs

LOGS = Path(__file__).parent.parent / "parsers" / "foreign" / "logs"
KEY = ("line_no", "kind", "group_id", "generation", "member_id", "ts_ms", "client_library")


def _norm(v):
    if v is None or v != v:
        return None
    return int(v) if isinstance(v, float) and v.is_integer() else v


@pytest.mark.spark
def test_ingest_finds_what_parse_finds_in_non_java_client_logs(spark, tmp_path):
    from parsers.reader import parse_path

    logs = tmp_path / "logs"
    shutil.copytree(LOGS, logs)
    out = tmp_path / "run"
    man = run_ingest_inputs(spark, logs, out)
    events = rundir.load_table(out, "events")
    checked = 0
    for p in sorted(logs.iterdir()):
        outcomes, _summary = parse_path(str(p))
        want = sorted(tuple(_norm(getattr(oc.event, k)) for k in KEY) for oc in outcomes if oc.event is not None)
        got = sorted(tuple(_norm(r[k]) for k in KEY) for r in events[events.source == str(p)].to_dict("records"))
        assert got == want, p.name
        checked += len(want)
    assert checked == 61  # 59 events (2 elected-leader lines since branch pastes2) and 2 unparsed candidate lines (tests/parsers/foreign/test_reader_files.py)
    assert set(events.client_library.dropna()) == {"librdkafka", "kafkajs", "kafka-python", "aiokafka"}
    assert man["accounting"]["adds_up"]
