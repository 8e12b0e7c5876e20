"""The generator's offset confounders (pipeline/generator/scenarios.py VARIATIONS), generated, parsed and
replayed: the skipped and reprocessed ranges equal truth.json in both directions. A backlog caught up
after a restart is not a skip; an admin reset to earliest while the group is stopped is a reprocessed
range with both bounds proven by committed offsets."""

from __future__ import annotations

import json
import os

import pytest

from pipeline.generator.generate import write_scenario
from pipeline.generator.scenarios import variations


def _replayed(folder: str, group: str):
    from parsers import parse_path
    from pipeline.replay import replay_group

    evs = []
    for name in sorted(os.listdir(folder)):
        if name == "truth.json":
            continue
        outcomes, _ = parse_path(os.path.join(folder, name))
        evs += [o.event for o in outcomes if o.event is not None and o.event.kind != "unparsed"
                and o.event.group_id in (None, group)]
    return replay_group(evs)


@pytest.mark.parametrize("name", ["backlog_catch_up_after_restart", "admin_reset_while_stopped"])
def test_offset_ranges_of_confounders_equal_truth(tmp_path, name):
    folder = str(tmp_path / name)
    write_scenario(variations()[name], folder)
    truth = json.load(open(os.path.join(folder, "truth.json"), encoding="utf-8"))
    result = _replayed(folder, truth["group_id"])
    for kind, finding in (("skipped", "offset_skip"), ("reprocessed", "offset_rewind")):
        want = sorted((r["partition"], r["from"], r["to"]) for r in truth[kind])
        assert all(r["knowable"] == {"from": True, "to": True} for r in truth[kind])
        got = sorted((f["partitions"][0], json.loads(f["details_json"])["from_offset"],
                      json.loads(f["details_json"])["to_offset_exclusive"]) for f in result.findings
                     if f["kind"] == finding)
        assert got == want, kind
        assert not any(json.loads(f["details_json"]).get("estimated") for f in result.findings
                       if f["kind"] == finding)
    if name == "backlog_catch_up_after_restart":
        assert truth["skipped"] == [] and truth["reprocessed"] == []
    else:
        assert len(truth["reprocessed"]) == 4 and truth["admin_resets"][0]["mode"] == "earliest"
