"""A file merging several pods' logs (`kubectl logs -l ... --prefix`, stern, compose, Fluent Bit /
journald / syslog exports: each line names its origin, parsers/origin.py) holds several hosts'
clocks. The ingest measures and corrects each origin's clock apart (pipeline.timeline_facts
.clock_resolver, pipeline.timeline_corrections.shift): with ONE pod's clock seconds off, the merged
file's timeline, memberships, ownership, findings and per-group tables (heartbeat gaps, offset
commits, observed ownership) equal, times included, those of the pods' own files with the same
skew, and state nothing the scenario's truth contradicts; with equal clocks nothing is corrected.

Before (main at 794acbf) the merged file had one clock: its offset was the median of all its pods'
anchors, so one pod's skew was not corrected at all (the other pods outvote it) or, with two pods,
spread onto the other one. Every classic sample with all its clients merged by `kubectl logs
--prefix` and the first client's clock 5 s ahead: no offset measured for the file, and 56 facts
contradicting the truth in 10 of 11 scenarios (rebalance_storm 24: members joining generations
before they were started, partitions owned by two members; rolling_deploy 8; healthy_scale_out 6).
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from pipeline import group_series, schemas
from pipeline import timeline_facts as tf
from pipeline.replay import replay_group
from tests.replay import perturb as P
from tests.replay.test_origin_tables import _rows
from tests.replay.test_partial_logs_truth import result_contradictions
from tests.replay.test_perturbed_logs_truth import _origin_files, _scenarios

SKEW_MIN_MS = 1_000   # pipeline.spark.replay_stage.SKEW_MIN_MS (not imported: it imports pyspark)
# (syslog and journald exports write each line of a multi-line record (a ConsumerConfig block) as a
# message of its own, which a merge interleaves with the other pods' lines: the reader collects such
# records per origin, parsers/reader.py "parked", so they are merges like the others)
SHAPES = {"kubectl logs --prefix": P.kubectl_prefix, "stern": P.stern_prefix, "docker compose logs": P.compose_prefix,
          "Fluent Bit kubernetes JSON": P.fluent_bit_json, "syslog RFC 3164": P.syslog_3164,
          "syslog RFC 5424": P.syslog_5424, "journald JSON": P.journald_json}
CASES = [("kubectl logs --prefix", 5_000), ("kubectl logs --prefix", -4_000), ("stern", 5_000),
         ("docker compose logs", -4_000), ("Fluent Bit kubernetes JSON", 5_000), ("syslog RFC 3164", 5_000),
         ("syslog RFC 5424", -4_000), ("journald JSON", 5_000)]
REPLAY_TABLES = ("generations", "memberships", "ownership", "findings")


def _same(rows: list[dict], names: dict[str, str]) -> list[str]:
    """Rows to compare across the two runs: evidence (file:line) and finding ids (hashed from the
    stream names) left out, each stream's name (the merged file's "FILE [ORIGIN]") as its pod's own
    file's."""
    out = []
    for r in rows:
        text = json.dumps({k: v for k, v in r.items() if k not in ("evidence", "finding_id")}, sort_keys=True, default=str)
        for a, b in names.items():
            text = text.replace(a, b)
        out.append(text)
    return sorted(out)


def _group_tables(events, group: str) -> dict[str, list[str]]:
    """heartbeat_gaps, offset_commits, ownership of the group's corrected events (the ingest's group
    pass computes them from the same rows), without source, evidence and client id."""
    t = pa.Table.from_pylist([r for r in _rows(events) if r["group_id"] == group], schema=schemas.arrow_schema("events"))
    got = group_series.group_tables(t.to_pydict())
    return {name: sorted(json.dumps({k: v for k, v in r.items() if k not in ("source", "evidence", "client_id")},
                                    sort_keys=True) for r in rows) for name, rows in got.items()}


def _runs(folder: Path, truth: dict, base: dict[str, list[str]], wrap, victim: str | None, shift: int):
    """(separate files, merged file) runs: each (result, offsets, corrected events), the victim's
    clock `shift` ms off in both; with the origin -> file map of the merged file. The separate files
    are in the merge's shape too (a collector exporting each pod's lines to a file of its own: one
    origin per file), so the two runs differ only in the merge."""
    clocks = dict(base)
    if victim is not None:
        clocks |= P.clock_off(victim, base[victim], shift)
    wrapped = wrap(clocks)
    origins = _origin_files(wrapped, folder.name)
    merged = P.interleaved(wrapped, chunk=3, name="pods.log")
    out = []
    for files in (wrapped, merged):
        events = [e for e in P.parsed(files, folder.name) if e.group_id == truth["group_id"]]
        ingested, _copies, offsets = P.ingested_events(events)     # (test_perturbed_logs_truth._replayed)
        out.append((replay_group(sorted(ingested, key=lambda e: e.ts_ms or 0)), offsets, ingested))
    return out, origins


@pytest.mark.parametrize("shape,shift", CASES)
def test_one_pods_clock_off_in_a_merged_file_is_corrected_as_its_own_file(repo_root, shape, shift):
    wrong, runs, exact = {}, 0, 0
    for folder, truth, base in _scenarios(repo_root):
        for victim in base:
            ((sep, sep_off, sep_ev), (mer, mer_off, mer_ev)), origins = _runs(folder, truth, base, SHAPES[shape],
                                                                              victim, shift)
            runs += 1
            key = f"{folder.name}: {victim}"
            # the offsets: each pod's, under its origin, the one its own file gets
            by_file = {}
            for clock, off in mer_off.items():
                src, origin, split = tf.key_parts(clock)
                by_file[f"{folder.name}/{origins.get(origin, '?')}" if split else src] = off
            if by_file != sep_off:
                wrong[key + " offsets"] = (sep_off, {k.replace(tf.CLOCK_SEP, " | "): v for k, v in mer_off.items()})
            exact += set(sep_off) == {f"{folder.name}/{victim}"} and abs(sep_off[f"{folder.name}/{victim}"] - shift) < SKEW_MIN_MS
            names = {f"{folder.name}/pods.log [{o}]": f"{folder.name}/{f}" for o, f in origins.items()}
            for t in REPLAY_TABLES:
                if _same(getattr(mer, t), names) != _same(getattr(sep, t), {}):
                    wrong[f"{key} {t}"] = "differs"
            if _group_tables(mer_ev, truth["group_id"]) != _group_tables(sep_ev, truth["group_id"]):
                wrong[f"{key} group tables"] = "differ"
            found = result_contradictions(mer, truth, origins)
            if found and not result_contradictions(sep, truth):
                wrong[f"{key} truth"] = found[:3]
    assert runs >= 40
    assert wrong == {}
    # the victim's own offset is the shift (within the hosts' sub-second skews), and no other pod gets
    # one, in all runs but mixed_clients_max_poll's: its Python members log no join the anchors read,
    # so a Python pod's clock is not measured, and of its two Java pods the earlier join is the
    # reference (the other one is corrected): in its separate files alike
    assert exact >= runs - 4


@pytest.mark.parametrize("shape", ["kubectl logs --prefix", "Fluent Bit kubernetes JSON", "syslog RFC 3164",
                                   "journald JSON"])
def test_a_merged_file_with_equal_clocks_is_not_corrected(repo_root, shape):
    # the same merges with no clock moved: no offset anywhere, and the merged file's results are its
    # pods' own files' (the hosts' own sub-second skews stay below the correction's second)
    wrong = {}
    for folder, truth, base in _scenarios(repo_root):
        ((sep, sep_off, sep_ev), (mer, mer_off, mer_ev)), origins = _runs(folder, truth, base, SHAPES[shape], None, 0)
        if sep_off or mer_off:
            wrong[folder.name] = (sep_off, mer_off)
        names = {f"{folder.name}/pods.log [{o}]": f"{folder.name}/{f}" for o, f in origins.items()}
        if any(_same(getattr(mer, t), names) != _same(getattr(sep, t), {}) for t in REPLAY_TABLES) or \
                _group_tables(mer_ev, truth["group_id"]) != _group_tables(sep_ev, truth["group_id"]):
            wrong[folder.name + " results"] = "differ"
        if mer_ev != [e for e in P.parsed(P.interleaved(SHAPES[shape](base), chunk=3, name="pods.log"), folder.name)
                      if e.group_id == truth["group_id"]]:
            wrong[folder.name + " events"] = "changed"
    assert wrong == {}


def test_the_skewed_pods_times_are_the_truths_and_the_others_untouched(repo_root):
    # gc_pause_session_expiry, its three pods in one `kubectl logs --prefix` file, inventory-sync-1's clock
    # 5 s ahead. Its own lines are corrected by its offset (4796 ms, measured from its joins against the
    # other pods'); the other pods' lines keep their times as logged, so the stalled member's
    # (inventory-sync-3's) partitions are lost when it came back, 02:03:17.678, as the truth says
    folder = repo_root / "sample_logs" / "gc_pause_session_expiry"
    truth = json.loads((folder / "truth.json").read_text())
    base = {n: P.read_lines(folder / n) for n, what in sorted(truth["files"].items()) if what.startswith("client")}
    ((_sep, _so, sep_ev), (mer, mer_off, mer_ev)), origins = _runs(folder, truth, base, P.kubectl_prefix,
                                                                   "inventory-sync-1.log", 5_000)
    (clock, off), = mer_off.items()
    assert tf.key_parts(clock)[0] == "gc_pause_session_expiry/pods.log"
    assert origins[tf.key_parts(clock)[1]] == "inventory-sync-1.log" and off == 4_796
    logged = {(e.line_no, e.raw): e.ts_ms for e in P.parsed(
        P.interleaved(P.kubectl_prefix(base | P.clock_off("inventory-sync-1.log", base["inventory-sync-1.log"], 5_000)),
                      chunk=3, name="pods.log"), folder.name)}
    for e in mer_ev:
        if e.ts_ms is not None:
            moved = origins[e.extra["origin"]] == "inventory-sync-1.log"
            assert e.ts_ms == logged[(e.line_no, e.raw)] - (off if moved else 0)
    own = group_series.group_tables(pa.Table.from_pylist(
        [r for r in _rows(mer_ev) if r["group_id"] == truth["group_id"]], schema=schemas.arrow_schema("events")).to_pydict())
    stalled = "consumer-inventory-sync-1-7c6e1a26-305c-45bd-95b4-f2ae93049d09"
    ends = sorted((r["partition"], r["generation"], r["end_reason"], r["end_ms"]) for r in own["ownership"]
                  if r["member_id"] == stalled)
    assert ends == [(0, 1, "lost", 1710381797678), (1, 1, "lost", 1710381797678)]
    assert result_contradictions(mer, truth, origins) == []


def test_a_file_of_one_origin_is_one_clock():
    # a file whose anchors name one origin (Spring Boot's PID on every line of one process's log) is one
    # clock, keyed by the file as before; a file whose anchors name two is measured per origin, its
    # lines naming none a clock of their own
    diffs = [("a.log\x1fpid:7", 4_000, 10, True), ("a.log\x1fpid:7", 4_100, 20, True),
             ("m.log\x1fpod/x", 5_000, 3, True), ("m.log\x1fpod/y", 20, 4, True), ("m.log", 900, 5, True),
             ("b.log", -3_000, 2, True)]
    assert tf.clock_offsets(diffs) == {"a.log": (4_000, 2), "m.log\x1fpod/x": (5_000, 1), "m.log\x1fpod/y": (20, 1),
                                       "m.log\x1f": (900, 1), "b.log": (-3_000, 1)}
    assert tf.describe_clock("m.log\x1fpod/x") == "m.log, its lines of pod/x"
    assert tf.describe_clock("m.log\x1f") == "m.log, its lines naming no origin"
    assert tf.describe_clock("a.log") == "a.log"


def test_a_pods_clock_stepped_in_a_merged_file_is_that_origins_step():
    # anchors of two pods in one file, pod/x's clock set 30 s forward after its line 40: the step is
    # pod/x's, found in its own anchors' line order; pod/y, interleaved with it, has none (with one clock
    # for the file, the two pods' anchors alternate between two levels and no level holds two in a row)
    diffs = []
    for i, line in enumerate(range(10, 80, 10)):
        diffs.append(("m.log\x1fpod/x", 30_000 if line > 40 else 0, line, True))
        diffs.append(("m.log\x1fpod/y", 5 * i, line + 1, True))
    steps = tf.clock_steps(diffs)
    assert list(steps) == ["m.log\x1fpod/x"]
    first, (step,) = steps["m.log\x1fpod/x"]
    assert (first, step.after_line, step.first_line, step.offset_ms) == (0, 40, 50, 30_000)
    assert tf.describe_steps("m.log\x1fpod/x", first, (step,)) == (
        "m.log, its lines of pod/x runs +0 ms against its group's coordinator, then +30000 ms after line 40 "
        "(by line 50)")
