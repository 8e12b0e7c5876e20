"""Skipped and reprocessed offset ranges of every sample scenario, from the report JSON over the demo's
run directory, against truth.json, in both directions (nothing missed, nothing false).

A truth range whose both bounds the files prove (truth `knowable`) must be reported exactly and not
marked estimated; a range with an unproven bound must be reported, marked estimated, and equal on the
bound that is proven. Every reported range must be one of the truth's ranges by the same rule.
The headline states the same totals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.slow]

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"


def _truth_ranges(kind: str) -> list[dict]:
    out = []
    for f in sorted(SAMPLES.glob("*/truth.json")):
        t = json.loads(f.read_text())
        for r in t[kind]:
            topic, _, p = r["partition"].rpartition("-")
            known = r.get("knowable", {"from": True, "to": True})
            out.append({"group_id": t["group_id"], "topic": topic, "partition": int(p), "from": r["from"],
                        "to": r["to"], "exact": known["from"] and known["to"], "known": known})
    return out


def _matches(t: dict, r: dict) -> bool:
    if (t["group_id"], t["topic"], t["partition"]) != (r["group_id"], r["topic"], r["partition"]):
        return False
    if t["exact"]:
        return (r["from_offset"], r["to_offset"]) == (t["from"], t["to"]) and not r.get("estimated")
    return (bool(r.get("estimated")) and r["to_offset"] > r["from_offset"]
            and (not t["known"]["from"] or r["from_offset"] == t["from"])
            and (not t["known"]["to"] or r["to_offset"] == t["to"]))


def _key(r: dict) -> tuple:
    return (r["group_id"], r["topic"], r["partition"], r.get("from", r.get("from_offset")),
            r.get("to", r.get("to_offset")))


@pytest.fixture(scope="module")
def report(sample_run):
    from pipeline.report.model import build_report

    return build_report(sample_run)


@pytest.mark.parametrize("kind,key", [("skipped", "skipped_ranges"), ("reprocessed", "reprocessed_ranges")])
def test_offset_ranges_equal_truth(report, kind, key):
    truth = _truth_ranges(kind)
    mine = report["summary"]["impact"][key]
    missed = [_key(t) for t in truth if sum(_matches(t, r) for r in mine) != 1]
    false = [(_key(r), r.get("estimated")) for r in mine if sum(_matches(t, r) for t in truth) != 1]
    assert (missed, false) == ([], []), f"{kind}: missed {missed}; false {false}"


def test_headline_totals_equal_truth(report):
    imp = report["summary"]["impact"]
    skipped = _truth_ranges("skipped")
    exact_skipped = sum(t["to"] - t["from"] for t in skipped if t["exact"])
    assert sum(r["count"] for r in imp["skipped_ranges"] if not r.get("estimated")) == exact_skipped
    assert len(imp["skipped_ranges"]) == len(skipped)
    assert len(imp["reprocessed_ranges"]) == len(_truth_ranges("reprocessed"))
    # what is estimated is said so in the headline
    if any(r.get("estimated") for r in imp["skipped_ranges"] + imp["reprocessed_ranges"]):
        assert "estimated" in report["summary"]["headline"]


def test_each_skipped_range_states_the_cause_the_truth_gives(report):
    """Every skipped range's finding names what moved the offset, as truth.json's `cause` says: an
    administrator's reset (kafka-consumer-groups --reset-offsets) or the client's auto.offset.reset,
    never the other one."""
    causes = {}
    for f in sorted(SAMPLES.glob("*/truth.json")):
        t = json.loads(f.read_text())
        for r in t["skipped"]:
            causes[(t["group_id"], r["partition"], r["to"])] = "admin reset" in r["cause"]
    assert any(causes.values()) and not all(causes.values())      # both kinds are in the samples
    seen = {}
    for g in report["groups"]:
        for f in g["findings"]:
            if f["kind"] == "offset_skip":
                d = f["details"]
                seen[(g["group_id"], f"{d['topic']}-{d['partition']}", d["to_offset_exclusive"])] = f["explanation"]
    assert seen.keys() == causes.keys()
    for key, admin in causes.items():
        said = seen[key]
        assert ("kafka-consumer-groups --reset-offsets" in said) is admin, (key, said)
        assert ("This is what auto.offset.reset=latest does" in said) is not admin, (key, said)
