"""What the replay says is missing is missing: it never asks a user for an input the input holds.

Every sample scenario is replayed from each of its files alone and from each pair of them; every
cause and finding text is checked: with the group's broker lines in the input, none asks for "the
broker GroupCoordinator log" (it asks for the reason a 2.2+ broker prints, or for the log of the
broker that coordinated the group then); an unproven gap asks for a dump of the group's metadata
records, which an offsets-only dump does not hold (before: both asked for the very files given)."""

from __future__ import annotations

import itertools
import json

from pipeline.replay import replay_group
from tests.replay.test_partial_logs_truth import _events

GENERIC_BROKER_ASKS = ("missing evidence: broker GroupCoordinator log", "its client log and the broker's GroupCoordinator log")


def _texts(files, group):
    events = sorted((e for f in files for e in _events(f) if e.group_id == group), key=lambda e: e.ts_ms or 0)
    if not events:
        return False, []
    r = replay_group(events)
    has_broker = any(e.side == "broker" for e in events)
    return has_broker, [g["cause_detail"] or "" for g in r.generations] + [f["explanation"] for f in r.findings]


def test_no_text_asks_for_the_broker_log_the_input_holds(repo_root):
    wrong, checked = {}, 0
    for folder in sorted((repo_root / "sample_logs").iterdir()):
        truth_file = folder / "truth.json"
        if not truth_file.is_file():
            continue
        truth = json.loads(truth_file.read_text())
        names = sorted(truth["files"])
        for k in (1, 2):
            for combo in itertools.combinations(names, k):
                has_broker, texts = _texts([folder / n for n in combo], truth["group_id"])
                if not has_broker:
                    continue
                checked += 1
                bad = [t[:160] for t in texts if any(a in t for a in GENERIC_BROKER_ASKS)]
                if bad:
                    wrong[f"{folder.name}: {', '.join(combo)}"] = bad[:2]
    assert checked >= 60
    assert wrong == {}


def test_an_unproven_gap_asks_for_the_group_metadata_records_an_offsets_only_dump_lacks(repo_root):
    # rolling_deploy's dump is OffsetsMessageFormatter output (commits only): with one worker's log,
    # the gaps are unproven for members whose assignments nobody logged, and the ask must be for what
    # that dump is not
    folder = repo_root / "sample_logs" / "rolling_deploy"
    _b, texts = _texts([folder / "billing-worker-1.log", folder / "consumer-offsets-dump.txt"], "billing-events")
    gaps = [t for t in texts if t.startswith("No member whose assignment the logs show held")]
    assert gaps
    assert all("a __consumer_offsets dump of the group's metadata records (GroupMetadataMessageFormatter; an "
               "offsets-only dump holds no assignment)" in t for t in gaps)
