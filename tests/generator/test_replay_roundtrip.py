"""End to end: the sample logs, parsed by `parsers` and replayed by `pipeline.replay`, give back the
generations and rebalance causes written in truth.json."""

from __future__ import annotations

import importlib.util
import json
import os

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("parsers.reader") is None or importlib.util.find_spec("pipeline.replay") is None,
    reason="parsers or replay not on this branch yet")


def _events(folder: str, group: str) -> list:
    from parsers import parse_path

    evs = []
    for name in sorted(os.listdir(folder)):
        if name in ("truth.json", "README.md"):
            continue
        outcomes, _ = parse_path(os.path.join(folder, name))
        evs += [o.event for o in outcomes if o.event is not None and o.event.kind != "unparsed"
                and o.event.group_id in (None, group)]
    return evs


@pytest.mark.parametrize("name", ["healthy_scale_out", "rolling_deploy", "poll_timeout_slow_processing",
                                  "gc_pause_session_expiry", "rebalance_storm", "coordinator_failover",
                                  "offset_reset_skip_and_rewind", "static_member_restart", "scale_in_roundrobin",
                                  "cooperative_scale_out"])
def test_replay_of_parsed_logs_matches_truth(name, repo_root):
    from pipeline.replay import replay_group

    folder = os.path.join(repo_root, "sample_logs", name)
    truth = json.load(open(os.path.join(folder, "truth.json"), encoding="utf-8"))
    result = replay_group(_events(folder, truth["group_id"]))
    got = {g["generation"]: g for g in result.generations}
    assert sorted(got) == [g["generation"] for g in truth["generations"]]
    for g in truth["generations"]:
        # exact: a static member that comes back after its expiry is a new member to the broker
        assert got[g["generation"]]["cause"] == g["cause"]["kind"], (g["generation"], got[g["generation"]]["cause"])
        if truth["client_version"] != "0.10" and g["leader"]:  # 0.10 clients never print member ids
            assert got[g["generation"]]["leader"] == g["leader"], g["generation"]
