"""Consumer-protocol (KIP-848) groups from some of their members' logs and no broker log: every
group epoch's cause, trigger and start stated agrees with the scenario's truth.

Before: in sample `consumer_migration`, the upgraded member whose join the broker refused
(JOINING -> FATAL, GROUP_ID_NOT_FOUND) was named as the member whose join bumped epoch 2, 35 s
later; and epoch 2's start, taken from the first line naming it, came after epoch 3's."""

from __future__ import annotations

import itertools
import json

import pytest

from pipeline.replay import replay_group
from tests.replay.test_partial_logs_truth import _events

SCENARIOS = ["consumer_scale_out", "consumer_fenced_after_stall", "consumer_slow_revocation", "consumer_migration"]


def _epochs(files, group):
    events = sorted((e for f in files for e in _events(f) if e.group_id == group), key=lambda e: e.ts_ms or 0)
    return [g for g in replay_group(events).generations if g["protocol_type"] == "consumer (KIP-848)"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_set_of_files_and_excerpts_states_no_false_epoch_fact(repo_root, scenario):
    # every combination of the scenario's files (client logs, the broker's), whole and cut to three
    # time windows: an epoch's cause, trigger, member count and start, and proven unowned gaps, against
    # the truth (before: the broker's INFO log and one member's gave "prices-3 had no owner for 2.7
    # min"; excerpts of two members' logs gave 61.9 s gaps for partitions a member kept across epochs;
    # an epoch first named after a later one began took that one's join for its cause)
    folder = repo_root / "sample_logs" / scenario
    truth = json.loads((folder / "truth.json").read_text())
    files = [folder / n for n in sorted(truth["files"])]
    t0, span = truth["start_ms"], truth["end_ms"] - truth["start_ms"]
    wrong = []
    for k in range(1, len(files) + 1):
        for subset in itertools.combinations(files, k):
            for w in (None, (0.0, 0.5), (0.25, 0.75), (0.5, 1.0)):
                epochs, findings = _replayed(subset, truth["group_id"], None if w is None else
                                             (t0 + span * w[0], t0 + span * w[1]))
                names = [f.name for f in subset]
                wrong += [(*x, names, w) for x in epoch_contradictions(epochs, findings, truth)]
    assert wrong == []


def epoch_contradictions(epochs: list[dict], findings: list[dict], truth: dict) -> list[tuple]:
    """What a replay states of a consumer-protocol group's epochs that its truth contradicts: an
    epoch's cause and trigger, member count and start, their order, and proven unowned gaps."""
    want = {e["epoch"]: e for e in truth["group_epochs"]}
    counts = {x["epoch"]: len(x["assignment"]) for x in truth["target_assignments"]}
    wrong: list[tuple] = []
    for g in epochs:
        t, n = want[g["generation"]], g["generation"]
        if g["cause"] != "unknown" and (g["cause"], g["trigger_member"] or t["trigger_member"]) != (
                t["cause"], t["trigger_member"]):
            wrong.append((n, g["cause"], g["trigger_member"]))
        if g["member_count"] is not None and g["member_count"] != counts[n]:
            wrong.append((n, "count", g["member_count"]))
        if g["started_ms"] is not None and g["started_ms"] < t["ms"] - 5:
            wrong.append((n, "starts before the truth", g["started_ms"]))
    starts = [g["started_ms"] for g in epochs if g["started_ms"] is not None]
    if starts != sorted(starts):
        wrong.append(("epochs out of order", starts))
    wrong += [(f["title"],) for f in findings
              if f["kind"] == "unowned_partitions" and not f["title"].endswith("(unproven)")]
    return wrong


def _replayed(files, group, window):
    events = sorted((e for f in files for e in _events(f) if e.group_id == group and (
        window is None or (e.ts_ms is not None and window[0] <= e.ts_ms <= window[1]))), key=lambda e: e.ts_ms or 0)
    r = replay_group(events)
    return [g for g in r.generations if g["protocol_type"] == "consumer (KIP-848)"], r.findings


def test_a_refused_join_bumps_no_epoch_and_a_late_first_line_is_no_start(repo_root):
    folder = repo_root / "sample_logs" / "consumer_migration"
    epochs = {g["generation"]: g for g in _epochs([folder / "stock-1.log", folder / "stock-3.log"], "stock-sync")}
    # epoch 2 was stock-2's join (its log is not given); stock-3's first member S3wj... was refused at
    # 02:02:30 (JOINING -> FATAL) and its process joined again as cCi3... at 02:03:00.4 (epoch 3)
    assert (epochs[2]["cause"], epochs[2]["trigger_member"]) == ("unknown", None)
    assert "S3wj4wwtkv6m-rVRa-dAmQ" not in epochs[2]["cause_detail"]
    # stock-1 first names epoch 2 at 02:03:05.2, after epoch 3 began: that is no start
    assert epochs[2]["started_ms"] is None
    assert "the first line naming it comes after epoch 3 began" in epochs[2]["cause_detail"]
    assert (epochs[3]["cause"], epochs[3]["trigger_member"]) == ("member_joined", "cCi3Zz9viwH5JvcS_Rd8kA")
    assert epochs[3]["started_ms"] == 1749088980405


def test_with_every_log_a_kip848_gap_is_unproven_for_the_protocols_reason_not_a_missing_log(repo_root):
    # every file of sample consumer_slow_revocation: audit-events-5 waited 62.9 s between QZyS...'s
    # revocation and h4kx...'s assignment; a member keeping its partitions through epoch 4 logs nothing,
    # so the gap is unproven, and the words must not blame a log that is in the input
    folder = repo_root / "sample_logs" / "consumer_slow_revocation"
    _, findings = _replayed(sorted(folder.glob("*.log")), "audit-sink", None)
    (gap,) = [f for f in findings if f["kind"] == "unowned_partitions"]
    assert (gap["severity"], gap["title"]) == ("low", "audit-events-5: no owner in the logs for 62.9 s (unproven)")
    assert "not in the input" not in gap["explanation"] and "Add the missing members' logs" not in gap["explanation"]
    assert "a member keeping its partitions through an epoch logs nothing of it" in gap["explanation"]
