"""Views of one run never disagree: a double_ownership or unowned_partitions finding and the
`ownership` table shown beside it (the dashboard's grid and "no owner" figure, the report's
figures) say the same, both ways (tests/ownership_agreement.py), on every sample scenario's RUN_DIR
as the ingest's per-group functions write it (tests/report/pure_run.py, no JVM), with every file,
with each client log left out, and with one client log and the broker's only.

Before (main at 888ef68), 16 disagreements over the 129 runs, every one a finding the table did not
show (the findings came from the replay's own intervals, the table from the consumers' callbacks
with its own ends):
- consumer_slow_revocation (every file; without audit-1, -2 or -4; audit-3 and the broker only): "audit-
  events-2 owned by two members for 12.1 s" (125.104-137.202 s) beside a table whose interval of
  QZySH0nN ended at its FENCED line (122.2 s). The truth (the generator's member_history: a fenced
  member's owned set is cleared when its lost callback returns, 137.202 s) holds the finding: the
  table now ends a fenced member's interval at that callback (group_tables.RELEASED_BY_CALLBACK).
- consumer_fenced_after_stall (four runs, prices-3 and -4): the finding's overlap ended at 190.001 s
  (the lost line), the table's at 190.000 s (the FENCED line): 1 ms, by the same rule.
- rolling_deploy, billing-worker-1 and the broker only (invoices-0/1/2): the gap's start was the
  broker's LeaveGroup line (179.983 s), the table's end the member's own revoke line (180.181 s; the
  truth's 180.000 s, within worker-1's 181 ms clock skew).
Now the findings are those of the table's intervals (replay_group's ownership_final): none."""

from __future__ import annotations

import json

import pytest

from pipeline import rundir
from tests.ownership_agreement import (
    OPEN,
    SAMPLES,
    disagreements,
    load_truth,
    truth_intervals,
    truth_side,
    truth_tolerance,
    two_owner_time,
    variants,
)
from tests.report.pure_run import write_pure_run

SCENARIOS = sorted(p.parent.name for p in SAMPLES.glob("*/truth.json"))
CASES = [(s, i, name) for s in SCENARIOS for i, (name, _c) in enumerate(variants(s))]


@pytest.mark.parametrize("scenario,i,name", CASES, ids=[f"{s}-{n}" for s, _i, n in CASES])
def test_ownership_findings_and_table_agree(tmp_path, scenario, i, name):
    change = variants(scenario)[i][1]
    run = write_pure_run(tmp_path / "run", scenario, change)
    got = disagreements(run)
    truth = load_truth(SAMPLES / scenario)
    assert got == [], [(d, truth_side(truth, d, truth_tolerance(truth))) for d in got]


# ------------------------------------------------------------------ the checker sees both ways

T0 = 1_700_000_000_000


def _own(member, start, end, tp=("t", 0), reason="revoked"):
    return {"group_id": "g", "topic": tp[0], "partition": tp[1], "member_id": member, "client_id": "c",
            "generation": 1, "start_ms": T0 + start, "end_ms": None if end is None else T0 + end,
            "end_reason": reason, "evidence": ["a.log:1"], "inferred": False}


def _finding(kind, start, end, tp="t-0", members=("A", "B")):
    return {"finding_id": f"{kind}{start}", "kind": kind, "severity": "critical", "group_id": "g",
            "start_ms": T0 + start, "end_ms": T0 + end, "members": list(members), "partitions": [tp],
            "generation": 1, "title": "x", "explanation": "x", "details_json": "{}", "evidence": []}


def _gen(n, start, end, members=2):
    return {"group_id": "g", "generation": n, "protocol_type": "consumer", "protocol": "range", "leader": None,
            "members": [], "member_count": members, "assignment_json": "{}", "started_ms": T0 + start,
            "stabilized_ms": T0 + start + 1, "ended_ms": None if end is None else T0 + end,
            "rebalance_ms": 1, "cause": None, "cause_detail": None, "trigger_member": None,
            "coordinator": None, "inferred": False, "evidence": []}


def _run(tmp_path, own, findings, gens=()):
    run = tmp_path / "run"
    rundir.write_table(run, "ownership", own)
    rundir.write_table(run, "findings", findings)
    rundir.write_table(run, "generations", list(gens) or [_gen(1, 0, None)])
    return run


def _kinds(got):
    return [(k, tp, lo - T0, hi - T0 if hi < OPEN else None) for k, _g, tp, lo, hi in got]


def test_a_double_ownership_the_table_shows_agrees_and_one_it_does_not_is_reported(tmp_path):
    own = [_own("A", 0, 30_000), _own("B", 20_000, None)]
    assert disagreements(_run(tmp_path, own, [_finding("double_ownership", 20_000, 30_000)])) == []
    # the finding claims 5 s more than the table shows
    got = disagreements(_run(tmp_path / "x", own, [_finding("double_ownership", 20_000, 35_000)]))
    assert _kinds(got) == [("double_not_in_table", "t-0", 30_000, 35_000)]
    # one member's two intervals are not two owners
    own = [_own("A", 0, 30_000), _own("A", 20_000, 40_000)]
    got = disagreements(_run(tmp_path / "y", own, [_finding("double_ownership", 20_000, 30_000)]))
    assert _kinds(got) == [("double_not_in_table", "t-0", 20_000, 30_000)]


def test_a_table_overlap_no_finding_states_is_reported_unless_within_the_skew_tolerance(tmp_path):
    own = [_own("A", 0, 30_000), _own("B", 20_000, None)]
    assert _kinds(disagreements(_run(tmp_path, own, []))) == [("double_not_in_findings", "t-0", 20_000, 30_000)]
    # 2 s: within the clock-skew tolerance the rule does not report
    own = [_own("A", 0, 22_000), _own("B", 20_000, None)]
    assert disagreements(_run(tmp_path / "x", own, [])) == []


def test_an_unowned_gap_the_table_shows_agrees_and_one_it_does_not_is_reported(tmp_path):
    own = [_own("A", 0, 10_000), _own("B", 100_000, None)]
    assert disagreements(_run(tmp_path, own, [_finding("unowned_partitions", 10_000, 100_000)])) == []
    # the table has an owner over part of what the finding calls unowned
    own2 = [_own("A", 0, 10_000), _own("C", 40_000, 50_000), _own("B", 100_000, None)]
    got = disagreements(_run(tmp_path / "x", own2, [_finding("unowned_partitions", 10_000, 100_000)]))
    assert _kinds(got) == [("unowned_not_in_table", "t-0", 40_000, 50_000)]
    # an unowned finding before the partition's first interval: no gap in the table there
    got = disagreements(_run(tmp_path / "y", own, [_finding("unowned_partitions", -80_000, 0),
                                                   _finding("unowned_partitions", 10_000, 100_000)]))
    assert _kinds(got) == [("unowned_not_in_table", "t-0", -80_000, 0)]


def test_a_long_table_gap_no_finding_states_is_reported_unless_the_group_was_empty(tmp_path):
    own = [_own("A", 0, 10_000), _own("B", 100_000, None)]
    assert _kinds(disagreements(_run(tmp_path, own, []))) == [("unowned_not_in_findings", "t-0", 10_000, 100_000)]
    # 60 s: not longer than the unowned threshold
    own = [_own("A", 0, 10_000), _own("B", 70_000, None)]
    assert disagreements(_run(tmp_path / "x", own, [])) == []
    # the group had no members for most of it (the rule's own exception)
    own = [_own("A", 0, 10_000), _own("B", 100_000, None)]
    gens = [_gen(1, 0, 10_000), _gen(2, 90_000, None)]
    assert disagreements(_run(tmp_path / "y", own, [], gens)) == []


# ------------------------------------------------------------------ the finding that changed sides


def test_a_fenced_member_holds_its_partitions_until_its_lost_callback_in_table_and_finding(tmp_path):
    """consumer_slow_revocation: audit-3 (QZySH0nN) is fenced at 122.2 s while its revocation callback
    runs (75 s); audit-4 is given audit-events-2 at 125.104 s; audit-3's "Lost previously assigned
    partitions audit-events-2" comes when the callback returns, 137.202 s. Kafka clears a fenced
    member's assignment when onPartitionsLost completes (AbstractMembershipManager.transitionToFenced,
    3.7+), and so does the generator whose truth this is. Before, the table ended the interval at the
    FENCED line (122.2 s) beside a finding of two owners from 125.104 s to 137.202 s."""
    truth = load_truth(SAMPLES / "consumer_slow_revocation")
    t0 = truth["start_ms"]
    run = write_pure_run(tmp_path / "run", "consumer_slow_revocation")
    own = rundir.load_table(run, "ownership")
    rows = own[(own["topic"] == "audit-events") & (own["partition"] == 2)]
    q = rows[rows["member_id"] == "QZySH0nNNjALYbMpFxgKBA"]
    assert [(int(r.end_ms) - t0, r.end_reason) for r in q.itertuples()] == [(137_202, "lost")]
    fnd = rundir.load_table(run, "findings")
    dbl = fnd[fnd["kind"] == "double_ownership"]
    assert [(list(r.partitions), int(r.start_ms) - t0, int(r.end_ms) - t0) for r in dbl.itertuples()] == \
        [(["audit-events-2"], 125_104, 137_202)]
    # the truth has both members holding it then (within the clocks' tolerance)
    tol = truth_tolerance(truth)
    both = two_owner_time(truth_intervals(truth)["audit-events-2"])
    assert any(lo <= t0 + 125_104 + tol and hi >= t0 + 137_202 - tol for lo, hi in both), both
    # the finding names the generations of its two owners (their epochs: the 4.x callback lines name
    # none, the replay's context does)
    assert json.loads(dbl.iloc[0]["details_json"])["earlier"]["generation"] == 3


def test_a_gap_after_an_owner_s_last_line_is_unproven(tmp_path):
    """rebalance_storm with search-indexer-4.log and the broker's log only: each of the host's
    processes is last seen holding catalog-updates-8/9 at its last line (the table's `last_line`),
    and the next is assigned them minutes later; members whose logs are missing held them in
    between (the truth). The finding says the gap is unproven (its start is the earliest the old
    owner can have stopped), never "had no owner"."""
    keep = {"search-indexer-4.log", "kafka-1-server.log"}
    run = write_pure_run(tmp_path / "run", "rebalance_storm", lambda fs: {n: x for n, x in fs.items() if n in keep})
    fnd = rundir.load_table(run, "findings")
    un = fnd[fnd["kind"] == "unowned_partitions"]
    assert len(un) > 0
    for r in un.itertuples():
        assert r.severity == "low" and r.title.endswith("(unproven)"), r.title
        assert json.loads(r.details_json).get("unproven") is True


def test_coordscope_replay_of_a_run_directory_states_the_runs_ownership_findings(tmp_path, repo_root):
    """`coordscope replay RUN_DIR` gives the ownership findings of the run's ownership table, as the
    ingest did: rebalance_storm without search-indexer-5.log, where the table ends search-indexer-4's
    crashed process at its last heartbeat (245.43 s; the truth's crash 248.0 s) and the replay's own
    interval at its removal (255.43 s). Without the table the command would say 73.7 s from 255.43 s
    beside a run that says 83.7 s from 245.43 s."""
    import subprocess
    import sys

    run = write_pure_run(tmp_path / "run", "rebalance_storm",
                         lambda fs: {n: x for n, x in fs.items() if n != "search-indexer-5.log"})
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "replay", str(run), "--format", "json"],
                       cwd=repo_root, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    kinds = ("double_ownership", "unowned_partitions")
    cli = sorted((f["kind"], f["start_ms"], f["end_ms"], f["title"]) for f in json.loads(r.stdout)["findings"]
                 if f["kind"] in kinds)
    fnd = rundir.load_table(run, "findings")
    ing = sorted((f["kind"], f["start_ms"], f["end_ms"], f["title"]) for f in fnd.to_dict("records") if f["kind"] in kinds)
    assert cli == ing and cli, (cli, ing)
    t0 = load_truth(SAMPLES / "rebalance_storm")["start_ms"]
    assert ("unowned_partitions", t0 + 245_430, t0 + 329_155,
            "catalog-updates-8: no owner in the logs for 83.7 s (unproven)") in cli
