"""Every sample_logs/ scenario ingested in one run and compared with its truth.json: generations,
causes, partition ownership and offset ranges. Runs once the generator (sample_logs), the parsers
and the replay have landed; skipped before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline import rundir

# one worker for the whole module under pytest-xdist: its ingest of sample_logs/ (samples_run) is built once, not once per worker
pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.xdist_group("test_samples")]

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"
# classic-protocol truths (coordscope-truth/1); consumer-protocol samples: tests/replay/test_consumer_protocol.py
SCENARIOS = sorted(p.parent.name for p in SAMPLES.glob("*/truth.json") if '"coordscope-truth/1"' in p.read_text()[:60])

# 0.10 consumers do not log their member id; ownership intervals are compared without it there.
NO_MEMBER_IDS = {"rebalance_storm"}


def _ready() -> str | None:
    if not SCENARIOS:
        return "no sample_logs/*/truth.json (generator not merged yet)"
    try:
        import parsers
        import pipeline.replay as replay
    except ImportError as exc:
        return f"parsers or replay not merged yet ({exc})"
    if not hasattr(parsers, "CANDIDATE_REGEX") or not hasattr(replay, "replay_group_rows"):
        return "parsers or replay not merged yet"
    return None


@pytest.fixture(scope="session")
def samples_run(request, tmp_path_factory):
    why = _ready()
    if why:
        pytest.skip(why)
    spark = request.getfixturevalue("spark")     # started only when there is something to run
    from pipeline.spark.job import IngestOptions, run_ingest

    out = tmp_path_factory.mktemp("samples") / "run"
    man = run_ingest(IngestOptions(inputs=[str(SAMPLES)], out=str(out), quiet=True), spark=spark)
    return out, man


def _truth(name: str) -> dict:
    return json.loads((SAMPLES / name / "truth.json").read_text())


def test_every_line_accounted(samples_run):
    out, man = samples_run
    acc = man["accounting"]
    assert acc["adds_up"] and acc["lines_read"] == acc["parsed"] + acc["ignored"] + acc["unparsed"]
    assert {r["source"].rsplit("/", 1)[1] for r in man["rejects"]} == {"truth.json", "README.md"}
    assert acc["unparsed"] == 0


@pytest.mark.parametrize("name", SCENARIOS)
def test_generations_and_causes(samples_run, name):
    out, _ = samples_run
    truth = _truth(name)
    gens = rundir.load_table(out, "generations")
    mine = gens[gens.group_id == truth["group_id"]].sort_values("generation")
    assert mine.generation.tolist() == [g["generation"] for g in truth["generations"]]
    assert mine.cause.tolist() == [g["cause"]["kind"] for g in truth["generations"]]


@pytest.mark.parametrize("name", SCENARIOS)
def test_ownership(samples_run, name):
    out, _ = samples_run
    truth = _truth(name)
    own = rundir.load_table(out, "ownership")
    own = own[own.group_id == truth["group_id"]]
    with_member = name not in NO_MEMBER_IDS
    expected = sorted((p, iv["generation"], iv["member_id"] if with_member else None)
                      for p, ivs in truth["ownership"].items() for iv in ivs)
    got = sorted((f"{t}-{p}", int(g), m if with_member else None)
                 for t, p, g, m in zip(own.topic, own.partition, own.generation, own.member_id, strict=True))
    assert got == expected


@pytest.mark.parametrize("name", SCENARIOS)
def test_offset_ranges(samples_run, name):
    out, _ = samples_run
    truth = _truth(name)
    oc = rundir.load_table(out, "offset_commits")
    oc = oc[oc.group_id == truth["group_id"]].sort_values(["ts_ms", "offset"])
    dump = oc[oc.side == "offsets"]
    final = {f"{t}-{p}": int(o) for t, p, o in zip(dump.topic, dump.partition, dump.offset, strict=True)}
    assert final == truth["final_committed"]
    # commits that went back: ranges the truth says were processed twice (others come from
    # uncommitted work after an expiry, which no commit shows)
    rewinds = {(f"{t}-{p}", int(o), int(prev)) for t, p, o, prev, f in
               zip(dump.topic, dump.partition, dump.offset, dump.prev_offset, dump.flag, strict=True) if f == "rewind"}
    reprocessed = {(r["partition"], r["from"], r["to"]) for r in truth["reprocessed"]}
    assert rewinds <= reprocessed
    if name == "offset_reset_skip_and_rewind":   # here every reprocessed range comes from a rewind
        assert rewinds == reprocessed and len(rewinds) == 8
    # auto.offset.reset jumps seen by the consumers: the skipped ranges that start at 0
    resets = {(f"{t}-{p}", int(o)) for t, p, o, f in
              zip(oc.topic, oc.partition, oc.offset, oc.flag, strict=True) if f == "reset"}
    assert resets == {(s["partition"], s["to"]) for s in truth["skipped"] if s["from"] == 0}
