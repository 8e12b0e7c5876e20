"""How many members a consumer-protocol (KIP-848) group had in each group epoch, and when the logs
cannot tell.

A member's own log names no other member: under the consumer protocol the coordinator computes
every assignment and a client learns only its own. So a count needs the coordinator's lines from
the group's creation ("Bumped group epoch to 1") through every bump since. Before this rule, one
member's log of the four-member sample `consumer_scale_out` said "1 member(s)" for epochs 2 and 3,
and a broker log that began mid-history gave counts of only the members it happened to show."""

from __future__ import annotations

import json

import pytest

from parsers.reader import parse_lines
from pipeline.replay import replay_group
from pipeline.replay_rules.render import timeline

SCENARIOS = ["consumer_scale_out", "consumer_fenced_after_stall", "consumer_slow_revocation", "consumer_migration"]


def events_of(files: dict[str, list[str]]) -> list:
    out = []
    for source, lines in files.items():
        out += [o.event for o in parse_lines(source, enumerate(lines, 1)) if o.event is not None]
    return out


def read(folder, names=None) -> dict[str, list[str]]:
    return {f"{folder.name}/{p.name}": p.read_text().splitlines() for p in sorted(folder.glob("*.log"))
            if names is None or p.name in names}


def kip848(r) -> dict[int, dict]:
    return {g["generation"]: g for g in r.generations if g["protocol_type"] == "consumer (KIP-848)"}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_with_the_coordinators_log_every_epochs_count_is_the_truths(repo_root, scenario):
    folder = repo_root / "sample_logs" / scenario
    truth = json.loads((folder / "truth.json").read_text())
    gens = kip848(replay_group([e for e in events_of(read(folder)) if e.group_id == truth["group_id"]]))
    want = {t["epoch"]: len(t["assignment"]) for t in truth["target_assignments"]}
    assert {n: g["member_count"] for n, g in gens.items()} == want
    assert all(len(g["members"]) == g["member_count"] for g in gens.values())


def test_one_members_log_proves_no_count(repo_root):
    folder = repo_root / "sample_logs" / "consumer_scale_out"
    for name in ("ledger-1.log", "ledger-2.log", "ledger-4.log"):
        r = replay_group(events_of(read(folder, {name})))
        gens = kip848(r)
        assert gens, name
        assert all(g["member_count"] is None for g in gens.values()), name
        text = timeline(r)
        assert "member(s)" not in text and "member count unknown" in text, name
        assert "no leader (the broker assigns)" in text and "leader ?" not in text, name
    # ledger-1 saw epochs 1-3; the group had 1, 2 and 3 members there: the members it names stay
    # what it saw (itself), and no count is made of them
    gens = kip848(replay_group(events_of(read(folder, {"ledger-1.log"}))))
    assert sorted(gens) == [1, 2, 3]
    assert [g["members"] for g in gens.values()] == [["9r6U6bILtlDLLYeDnPkGqw"]] * 3


def _broker_without(folder, drop) -> dict[str, list[str]]:
    files = read(folder)
    files["consumer_scale_out/kafka-1-server.log"] = [
        x for x in files["consumer_scale_out/kafka-1-server.log"] if not drop(x)]
    return files


def test_a_broker_log_beginning_after_the_groups_creation_proves_no_count(repo_root):
    folder = repo_root / "sample_logs" / "consumer_scale_out"
    # the broker's file begins at epoch 2: the first member's join and epoch 1 are not in it
    files = _broker_without(folder, lambda x: x.startswith("[2025-06-02 02:00:01,0"))
    gens = kip848(replay_group(events_of(files)))
    assert sorted(gens) == [1, 2, 3, 4]
    assert [g["member_count"] for g in gens.values()] == [None, None, None, None]


def test_a_gap_in_the_brokers_log_leaves_the_counts_after_it_unknown(repo_root):
    folder = repo_root / "sample_logs" / "consumer_scale_out"
    # the broker's lines of the bump to epoch 3 (02:01:30) are missing: epochs 1 and 2 stay counted
    files = _broker_without(folder, lambda x: x.startswith("[2025-06-02 02:01:30"))
    gens = kip848(replay_group(events_of(files)))
    # (no line left names epoch 3: the clients' INFO lines do not give their epoch)
    assert {n: g["member_count"] for n, g in gens.items()} == {1: 1, 2: 2, 4: None}
