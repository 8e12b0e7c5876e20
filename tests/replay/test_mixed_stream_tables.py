"""The ingest's per-group tables (heartbeat_gaps, offset_commits, observed ownership) leave out the
lines of a stream the replay leaves out: a file holding several consumers' lines under one client id,
with no origin on its lines to split it (pipeline/replay_rules/mixed_streams.py). Views of one run
never disagree: what the replay calls unknown, no table states.

Before (2bc2538), gc_pause_session_expiry's three consumer logs concatenated into one file (no
origin: `cat`) gave four `log` gaps measured between two processes' lines (member ...643bd 5178 ms
from all.log:23 to all.log:337, which are two hosts' lines; the expired member ...49d09's 189.5 s GC
silence read as 6218 ms) and 18 ownership intervals of which 6 were false (partitions 0 and 1
"reassigned" from the stalled member at 02:03:11.255, then "lost" by the other member ...643bd at
02:03:17.678), while the replay left the file out as "lines of several consumers"."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from pipeline import group_series, schemas
from pipeline.replay import replay_group
from pipeline.replay_rules.state import stream_source
from tests.replay import perturb as P
from tests.replay.test_origin_tables import _rows
from tests.replay.test_partial_logs_truth import _classic_scenarios, _client_logs

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"
MERGED = {"concatenated in the wrong order": lambda fs: P.concatenated(dict(reversed(fs.items()))),
          "interleaved by a collector": P.interleaved}
STALLED = "consumer-inventory-sync-1-7c6e1a26-305c-45bd-95b4-f2ae93049d09"


def _table(events, group: str) -> pa.Table:
    return pa.Table.from_pylist([r for r in _rows(events) if r["group_id"] == group],
                                schema=schemas.arrow_schema("events"))


def _tables(t: pa.Table) -> dict[str, list[str]]:
    got = group_series.group_tables(t.to_pydict())
    return {name: sorted(json.dumps(r, sort_keys=True) for r in rows) for name, rows in got.items()}


def _told(findings) -> set[tuple[str, str]]:
    """(stream, client id) of the replay's "lines of several consumers" findings."""
    out = set()
    for f in findings:
        if "lines of several consumers" in f["title"]:
            d = json.loads(f["details_json"])
            out.add((d["source"], d["client_id"]))
    return out


def _named(keys, split: set[str]) -> set[tuple[str, str]]:
    """Left-out table streams (client_id, source, origin) as the replay names them."""
    return {(stream_source(s) + (f" [{o}]" if o is not None and s in split else ""), c) for c, s, o in keys}


@pytest.mark.parametrize("how", sorted(MERGED))
def test_a_merged_file_the_replay_leaves_out_feeds_no_table(repo_root, how):
    """Every merge of a classic sample's client logs (each adjacent pair and all of them) without
    origins: the tables leave out exactly the streams the replay tells left out, and are then
    the tables of the other files alone (as if the merged file were not given)."""
    wrong, told = {}, 0
    for scenario in _classic_scenarios(repo_root):
        folder = repo_root / "sample_logs" / scenario
        truth = json.loads((folder / "truth.json").read_text())
        base = {p.name: P.read_lines(p) for p in _client_logs(folder, truth)}
        names = list(base)
        for merged in [*zip(names, names[1:], strict=False), tuple(names)]:
            rest = {n: x for n, x in base.items() if n not in merged}
            (name, lines), = MERGED[how]({n: base[n] for n in merged}).items()
            events = [e for e in P.parsed({**rest, name: lines}, scenario) if e.group_id == truth["group_id"]]
            r = replay_group(events)
            t = _table(events, truth["group_id"])
            left = group_series.left_out_streams(t)
            key = f"{scenario}: {'+'.join(merged)}"
            if _named(left, set()) != _told(r.findings):
                wrong[key] = (sorted(_named(left, set())), sorted(_told(r.findings)))
                continue
            if not left:
                continue      # (a Spring Boot file names each line's PID: split, nothing left out)
            told += 1
            alone = [e for e in P.parsed(rest, scenario) if e.group_id == truth["group_id"]]
            if _tables(t) != _tables(_table(alone, truth["group_id"])):
                wrong[key] = "tables differ from the other files' alone"
    assert wrong == {}
    assert told >= 24


def _gc(files_of) -> tuple[dict, list]:
    d = SAMPLES / "gc_pause_session_expiry"
    clients = {n: P.read_lines(d / n) for n in ("inventory-sync-1.log", "inventory-sync-2.log", "inventory-sync-3.log")}
    files = {**files_of(clients), "kafka-1-server.log": P.read_lines(d / "kafka-1-server.log")}
    events = [e for e in P.parsed(files, "gc") if e.group_id == "inventory-sync"]
    return group_series.group_tables(_table(events, "inventory-sync").to_pydict()), replay_group(events).findings


@pytest.mark.parametrize("how", sorted(MERGED))
def test_gc_pause_merged_without_origins_states_no_gap_or_interval_of_the_merged_file(how):
    got, findings = _gc(MERGED[how])
    assert len(_told(findings)) == 1
    # what only the broker states stays: the member's expiry at its removal; its stream, and the
    # session.timeout.ms only the left-out file printed, are unknown (no gap, no limit: not a default)
    assert [(g["kind"], g["member_id"], g["gap_ms"], g["limit_ms"], g["source"], g["client_id"], g["evidence"])
            for g in got["heartbeat_gaps"]] == [("expiry", STALLED, None, None, None, None, ["gc/kafka-1-server.log:38"])]
    assert got["ownership"] == [] and got["offset_commits"] == []


@pytest.mark.parametrize("files_of", [lambda fs: fs, lambda fs: P.concatenated(P.kubectl_prefix(fs)),
                                      lambda fs: P.interleaved(P.stern_prefix(fs))],
                         ids=["separate files", "kubectl --prefix", "stern"])
def test_gc_pause_separate_or_split_by_origin_keeps_its_facts(files_of):
    got, findings = _gc(files_of)
    assert _told(findings) == set()
    gaps = sorted((g["kind"], g["member_id"][-5:], g["gap_ms"]) for g in got["heartbeat_gaps"])
    # the stalled member's 189.5 s silence (the GC pause and its expiry) and the other members' own
    assert ("log", "49d09", 189_526) in gaps and ("expiry", "49d09", 10_000) in gaps
    assert len(gaps) == 10
    ends = sorted((o["partition"], o["end_reason"], o["end_ms"]) for o in got["ownership"] if o["member_id"] == STALLED)
    assert ends == [(0, "lost", 1710381797678), (1, "lost", 1710381797678)]
    assert len(got["ownership"]) == 18


def test_one_origin_holding_two_processes_is_left_out_of_the_tables_and_the_others_stay():
    """A file split by its origins, one origin holding two hosts' lines (two containers under one
    pod name): that origin's stream is left out of the tables, as of the replay; the other's rows are
    its own file's."""
    folder = SAMPLES / "healthy_scale_out"
    base = {n: P.read_lines(folder / n) for n in ("orders-app-2.log", "orders-app-3.log", "orders-app-4.log")}
    pods = {"orders-app-2.log": "orders-app-2", "orders-app-3.log": "orders-app-0", "orders-app-4.log": "orders-app-0"}
    wrapped = {n: [f"[pod/{pods[n]}/app] {x}" for x in lines] for n, lines in base.items()}
    for how in sorted(MERGED):
        merged = MERGED[how](wrapped)
        (name,) = merged
        events = [e for e in P.parsed(merged, "hs") if e.group_id == "orders-enricher"]
        t = _table(events, "orders-enricher")
        left = group_series.left_out_streams(t)
        assert _named(left, {f"hs/{name}"}) == _told(replay_group(events).findings) == {
            (f"hs/{name} [pod/orders-app-0/app]", "consumer-orders-enricher-1")}
        got = group_series.group_tables(t.to_pydict())
        alone = group_series.group_tables(_table([e for e in P.parsed({"orders-app-2.log": base["orders-app-2.log"]}, "hs")
                                                  if e.group_id == "orders-enricher"], "orders-enricher").to_pydict())
        for table in ("heartbeat_gaps", "ownership"):
            mine = [r for r in got[table] if r.get("kind") != "expiry"]
            want = [r for r in alone[table] if r.get("kind") != "expiry"]
            assert len(mine) == len(want) > 0, table
            assert all(e.startswith(f"hs/{name}:") for r in mine for e in r["evidence"])


@pytest.mark.parametrize("how", sorted(MERGED))
def test_a_split_groups_series_task_proves_the_same_streams_on_its_narrow_rows(how):
    """A group holding a large share of the rows has its series tables computed in a task of its own,
    on the rows in the series width (group_pass.series_width: no partitions, raw and extra_json
    narrowed): it finds the same left-out streams as the replay unit, on the whole rows."""
    from pipeline.spark.group_pass import series_unit_rows, series_width

    d = SAMPLES / "gc_pause_session_expiry"
    clients = {n: P.read_lines(d / n) for n in ("inventory-sync-1.log", "inventory-sync-2.log", "inventory-sync-3.log")}
    files = {**MERGED[how](clients), "kafka-1-server.log": P.read_lines(d / "kafka-1-server.log")}
    t = _table(P.parsed(files, "gc"), "inventory-sync")
    whole = group_series.left_out_streams(t)
    assert len(whole) == 1
    assert group_series.left_out_streams(series_width(t)) == whole
    alone = series_unit_rows(series_width(t))
    assert {k: v.to_pylist() for k, v in alone.items()} == {
        k: v.to_pylist() for k, v in group_series.series_tables(t, whole).items()}
