"""A consumer-protocol (KIP-848) group's host clocks, measured against the broker's log: each
member's join is logged by the coordinator ("Member m joins the consumer group", then "Bumped group
epoch to n") and by the member (its first line at epoch n), which anchors its file's clock
(pipeline.timeline_facts.epoch_anchor_diffs).

Before (main at a8acb3f), these groups had no anchor: with every sample's broker log and one
member's clock 5 s behind, 90 s ahead or 3 min behind, 21 of 48 replays stated a false epoch fact
(an epoch's member count, its start, its trigger). After: 0 of 64, with 5 s ahead too.
"""

from __future__ import annotations

import json

import pytest

from tests.replay import perturb as P
from tests.replay.test_consumer_partial_logs import epoch_contradictions
from tests.replay.test_perturbed_logs_truth import KIP848, _replayed

SHIFTS = {"clock +5 s": 5_000, "clock -5 s": -5_000, "clock +90 s": 90_000, "clock -3 min": -180_000}


@pytest.mark.parametrize("shift", sorted(SHIFTS))
def test_with_the_brokers_log_a_members_clock_off_states_nothing_false(repo_root, shift):
    wrong, runs, measured = {}, 0, 0
    for scenario in KIP848:
        folder = repo_root / "sample_logs" / scenario
        truth = json.loads((folder / "truth.json").read_text())
        every = {n: P.read_lines(folder / n) for n in sorted(truth["files"])}
        for victim in (n for n, what in sorted(truth["files"].items()) if what.startswith("client")):
            files = every | P.clock_off(victim, every[victim], SHIFTS[shift])
            r, _copies, offsets = _replayed(folder, truth, files)
            runs += 1
            measured += abs(offsets.get(f"{scenario}/{victim}", 0) - SHIFTS[shift]) < 1_000
            epochs = [g for g in r.generations if g["protocol_type"] == "consumer (KIP-848)"]
            found = epoch_contradictions(epochs, r.findings, truth)
            if found:
                wrong[f"{scenario}: {victim}"] = found[:3]
    assert runs == 16 and wrong == {}
    # the offset itself is measured for the member whose clock is off (every one logs its join)
    assert measured == runs
