"""Issue 21: the group page of a KIP-848 consumer-protocol group shows each member's epochs, and
they are the epochs the scenario's truth holds (sample_logs/consumer_*); a classic group shows no
such section."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dashboard.data import RunData
from dashboard.pages.group import _epochs_section

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"


def _table(section) -> list[dict]:
    tables = [c for c in section if getattr(c, "id", None) == "group-epochs"]
    return tables[0].data if tables else []


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["consumer_scale_out", "consumer_fenced_after_stall", "consumer_slow_revocation"])
def test_epochs_per_member_match_the_truth(sample_run, scenario):
    truth = json.loads((SAMPLES / scenario / "truth.json").read_text())
    data = RunData(sample_run)
    rows = _table(_epochs_section(data, truth["group_id"]))
    assert rows, "no epochs table on a consumer-protocol group page"
    mems = data.group_rows("memberships", truth["group_id"]).sort_values(["member_id", "generation"])
    shown, unknown = set(), set()
    for r, mid in zip(rows, mems["member_id"], strict=True):
        if r["shown"] == "a line shows it":
            shown.add((mid, int(r["epoch"])))
        elif r["shown"].startswith("unknown"):
            unknown.add((mid, int(r["epoch"])))
    want = {(m, e["member_epoch"]) for m, hist in truth["member_history"].items() for e in hist
            if e["event"] == "epoch" and e.get("member_epoch", 0) > 0}
    # nothing false: an epoch a line shows is one the member had; nothing missed: every epoch it
    # had is on the page, shown or marked unknown
    assert shown <= want, sorted(shown - want)
    assert want <= shown | unknown, sorted(want - shown - unknown)
    assert shown, "no epoch is shown by a line"


@pytest.mark.spark
@pytest.mark.slow
def test_a_classic_group_has_no_epochs_section(sample_run):
    assert _epochs_section(RunData(sample_run), "billing-events") == []
