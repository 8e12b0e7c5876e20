"""The ingest against `coordscope parse` on the anonymized real logs of shared/real_logs/: the
Spark job (candidate filter on the JVM, split handover, the format sniffed once on the driver)
must find exactly the events the parsers find reading each file whole."""

from __future__ import annotations

import shutil

import pytest

from pipeline import rundir
from tests.spark.conftest import run_ingest_inputs

# one worker for the whole module under pytest-xdist: its ingest of shared/real_logs (real_run) is built once, not once per worker
pytestmark = pytest.mark.xdist_group("test_real_logs_ingest")

KEY = ("line_no", "kind", "group_id", "generation", "member_id", "ts_ms")


def _norm(v):
    if v is None or v != v:     # None or NaN (pandas' missing value)
        return None
    return int(v) if isinstance(v, float) and v.is_integer() else v


@pytest.fixture(scope="module")
def real_run(spark, shared_dir, tmp_path_factory):
    logs = tmp_path_factory.mktemp("real_logs")
    for p in sorted((shared_dir / "real_logs").glob("*.log")):
        shutil.copy(p, logs / p.name)
    out = tmp_path_factory.mktemp("runs") / "real"
    return logs, out, run_ingest_inputs(spark, logs, out)


@pytest.mark.spark
def test_ingest_finds_the_events_parse_finds_in_every_real_log(real_run):
    from parsers.reader import parse_path

    logs, out, man = real_run
    events = rundir.load_table(out, "events")
    checked = 0
    for p in sorted(logs.glob("*.log")):
        outcomes, _summary = parse_path(str(p))
        want = sorted(tuple(_norm(x) for x in (oc.line_no, oc.event.kind, oc.event.group_id, oc.event.generation,
                                               oc.event.member_id, oc.event.ts_ms))
                      for oc in outcomes if oc.event is not None)
        mine = events[events.source == str(p)]
        got = sorted(tuple(_norm(r[k]) for k in KEY) for r in mine.to_dict("records"))
        assert got == want, p.name
        checked += len(want)
    assert checked > 80
    assert man["accounting"]["adds_up"]


@pytest.mark.spark
def test_wrapped_lines_are_unwrapped_by_the_ingest(real_run):
    """A docker-compose prefix (`kafka_1  | `) and a trailing CloudWatch `,timestamp`: the sniffed
    wrappers reach the workers and the manifest."""
    logs, out, man = real_run
    entries = {e["source"].rsplit("/", 1)[1]: e for e in man["inputs"]}
    assert entries["031-broker-log4j.log"]["wrappers"] == ["compose"]
    assert entries["006-broker-log4j.log"]["wrappers"] == ["suffix"]
    for name, n in (("031-broker-log4j.log", 5), ("006-broker-log4j.log", 3)):
        assert (entries[name]["parsed"], entries[name]["unparsed"]) == (n, 0), name
    events = rundir.load_table(out, "events")
    stab = events[(events.source == str(logs / "031-broker-log4j.log")) & (events.kind == "broker_group_stabilized")]
    assert sorted(zip(stab.group_id, stab.generation, strict=True)) == [("opal_consumer", 14), ("opal_consumer", 15)]
