"""The ingest of a file holding several hosts' logs, each line with its origin (parsers/origin.py):
`kubectl logs -l app=inventory-sync --prefix` of the three consumers of sample gc_pause_session_expiry,
interleaved as kubectl's concurrent streams write them, beside the broker's log and the dumps. The
events table carries each line's origin in extra_json end to end (the JVM filter keeps the prefixed
TAB lines of the ConsumerConfig blocks, the parse stage reads the wrapper), and the replay stage splits
the file by origin: the generations and causes are the truth's, nothing is left out. Before (main at
a8acb3f) the file's lines were left out of the replay ("lines of several consumers under client id")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipeline import rundir
from tests.replay import perturb as P
from tests.spark.conftest import run_ingest_inputs

SAMPLE = Path(__file__).parent.parent.parent / "sample_logs" / "gc_pause_session_expiry"


@pytest.mark.spark
def test_ingest_splits_a_file_of_several_pods_by_its_lines_origins(spark, tmp_path):
    from parsers.reader import parse_path

    truth = json.loads((SAMPLE / "truth.json").read_text())
    clients = sorted(n for n, what in truth["files"].items() if what.startswith("client"))
    logs = tmp_path / "logs"
    logs.mkdir()
    for n, what in truth["files"].items():
        if not what.startswith("client"):
            shutil.copy(SAMPLE / n, logs / n)
    wrapped = P.kubectl_prefix({n: P.read_lines(SAMPLE / n) for n in clients})
    (name, lines), = P.interleaved(wrapped, chunk=3, name="inventory-sync-pods.log").items()
    (logs / name).write_text("\n".join(lines) + "\n")
    out = tmp_path / "run"
    man = run_ingest_inputs(spark, logs, out)
    assert man["accounting"]["adds_up"]

    merged = str(logs / name)
    events = rundir.load_table(out, "events")
    mine = events[events.source == merged]
    got = sorted((int(r.line_no), r.kind, json.loads(r.extra_json or "{}").get("origin")) for r in mine.itertuples())
    outcomes, _summary = parse_path(merged)
    want = sorted((oc.event.line_no, oc.event.kind, oc.event.extra.get("origin")) for oc in outcomes
                  if oc.event is not None)
    assert got == want
    pods = {f"pod/{P.pod_name(n)}/app" for n in clients}
    assert {o for _n, _k, o in got} == pods
    # the ConsumerConfig blocks' prefixed TAB lines reached the parser: each pod's settings are read
    configs = [json.loads(r.extra_json) for r in mine.itertuples() if r.kind == "client_config"]
    assert configs and all(c["settings"].get("session.timeout.ms") for c in configs)

    gens = rundir.load_table(out, "generations")
    g = gens[gens.group_id == truth["group_id"]].sort_values("generation")
    assert g.generation.tolist() == [x["generation"] for x in truth["generations"]]
    assert g.cause.tolist() == [x["cause"]["kind"] for x in truth["generations"]]
    findings = rundir.load_table(out, "findings")
    assert not any("lines of several consumers" in t for t in findings.title)
    mems = rundir.load_table(out, "memberships")
    hosts = {h for h in mems.host.dropna() if h.startswith(merged)}
    assert hosts == {f"{merged} [{p}]" for p in pods}
