"""The KIP-848 (consumer protocol) reference model against its conformance cases.

Shared examples (../shared/conformance/kip848-*-examples.json) and our own cases
(tests/coordinator/data/kip848-*.json, restating Kafka's GroupMetadataManagerTest,
CurrentAssignmentBuilderTest, OffsetMetadataManagerTest and assignor tests) run through
`python -m pipeline.coordinator.conformance`, which tells their format from their content.
"""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.coordinator.conformance import load_cases, run_file
from pipeline.coordinator.consumer_protocol import assignors as A
from pipeline.coordinator.consumer_protocol.conformance import (
    _assignor_input,
    _by_name,
    check_assignor_case,
    check_scenario,
)
from pipeline.coordinator.consumer_protocol.members import assignment_json, norm_assignment

DATA = Path(__file__).resolve().parent / "data"
OWN_SCENARIOS = DATA / "kip848-scenarios.json"
OWN_ASSIGNORS = DATA / "kip848-assignors.json"


def _cli(repo_root, path):
    return subprocess.run([sys.executable, "-m", "pipeline.coordinator.conformance", str(path)], cwd=repo_root,
                          capture_output=True, text=True, timeout=120)


def _shared(shared_dir, name):
    return shared_dir / "conformance" / name


@pytest.mark.parametrize("name", ["kip848-scenarios-examples.json", "kip848-assignors-examples.json"])
def test_shared_examples_all_pass_via_cli(repo_root, shared_dir, name):
    path = _shared(shared_dir, name)
    cases = json.loads(path.read_text())
    proc = _cli(repo_root, path)
    lines = proc.stdout.strip().splitlines()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert lines[-1] == f"{len(cases)} passed, 0 failed"
    assert [ln.split()[0] for ln in lines[:-1]] == [c["id"] for c in cases]


@pytest.mark.parametrize("path", [OWN_SCENARIOS, OWN_ASSIGNORS], ids=lambda p: p.name)
def test_own_cases_all_pass_via_cli(repo_root, path):
    cases = json.loads(path.read_text())
    proc = _cli(repo_root, path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == f"{len(cases)} passed, 0 failed"


def test_own_cases_cover_the_brief():
    scenarios = json.loads(OWN_SCENARIOS.read_text())
    assignor_cases = json.loads(OWN_ASSIGNORS.read_text())
    coordinator = [c for c in scenarios if c.get("kind") != "reconcile"]
    assert len(coordinator) >= 40 and len(scenarios) - len(coordinator) >= 15
    assert {c["category"] for c in assignor_cases} == {"range", "uniform-homogeneous", "uniform-heterogeneous"}
    for case in scenarios + assignor_cases:  # every case names the Kafka test it restates
        assert case["source"]["method"].startswith("test") and case["source"]["commit"]
    assert len({c["id"] for c in scenarios}) == len(scenarios)
    assert len({c["id"] for c in assignor_cases}) == len(assignor_cases)


def test_formats_are_told_apart_by_content(shared_dir):
    assert load_cases(str(_shared(shared_dir, "kip848-scenarios-examples.json")))[0] == "kip848-scenarios"
    assert load_cases(str(_shared(shared_dir, "kip848-assignors-examples.json")))[0] == "kip848-assignors"
    assert load_cases(str(_shared(shared_dir, "scenarios-examples.json")))[0] == "scenarios"
    assert load_cases(str(_shared(shared_dir, "assignors-examples.json")))[0] == "assignors"
    assert load_cases(str(OWN_SCENARIOS))[0] == "kip848-scenarios"


def _case(path, case_id):
    return copy.deepcopy(next(c for c in json.loads(path.read_text()) if c["id"] == case_id))


def test_a_wrong_expectation_reports_the_first_differing_field(tmp_path, repo_root, shared_dir):
    case = _case(_shared(shared_dir, "kip848-scenarios-examples.json"), "join-second-member-unreleased")
    step = case["steps"][2]["expect"]
    step["member_epoch"] = 12  # the model says 11
    step["group_epoch_after"] = 99  # a later mismatch must not be the one reported
    result = check_scenario(case)
    assert result == "step 3 (heartbeat at 0): member_epoch: expected 12, got 11"
    good = _case(_shared(shared_dir, "kip848-scenarios-examples.json"), "hb-fenced-member-epoch")
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps([good, case]))
    proc = _cli(repo_root, path)
    out = proc.stdout.strip().splitlines()
    assert proc.returncode == 1
    assert out == ["hb-fenced-member-epoch PASS",
                   "join-second-member-unreleased FAIL step 3 (heartbeat at 0): member_epoch: expected 12, got 11",
                   "1 passed, 1 failed"]


def test_wrong_records_and_state_are_named(shared_dir):
    case = _case(_shared(shared_dir, "kip848-scenarios-examples.json"), "session-timeout-expiry")
    case["steps"][2]["expect"]["records"][4]["epoch"] = 3
    assert "records[4]: expected" in check_scenario(case)
    case = _case(_shared(shared_dir, "kip848-scenarios-examples.json"), "rebalance-timeout-expiry-while-revoking")
    case["steps"][6]["expect"]["rebalance_deadline_after"]["m1"] = 20001
    assert check_scenario(case) == ("step 7 (heartbeat at 10000): rebalance_deadline_after[m1]: expected 20001, "
                                    "got 20000")
    case = _case(_shared(shared_dir, "kip848-scenarios-examples.json"), "reconcile-stable-to-unrevoked")
    case["expect"]["member_epoch"] = 11
    assert check_scenario(case) == "member_epoch: expected 11, got 10"


def test_crashing_and_malformed_cases_fail_without_stopping_the_run(tmp_path, repo_root, shared_dir):
    cases = json.loads(_shared(shared_dir, "kip848-scenarios-examples.json").read_text())
    bad_op = copy.deepcopy(cases[0])
    bad_op["id"] = "bad-op"
    bad_op["steps"][1]["op"] = "explode"
    no_epoch = copy.deepcopy(cases[1])
    no_epoch["id"] = "no-epoch"
    del no_epoch["steps"][1]["member_epoch"]
    path = tmp_path / "c.json"
    path.write_text(json.dumps([bad_op, no_epoch, cases[2]]))
    proc = _cli(repo_root, path)
    out = proc.stdout.strip().splitlines()
    assert proc.returncode == 1
    assert out[0].startswith("bad-op FAIL ") and "unknown op 'explode'" in out[0]
    assert out[1].startswith("no-epoch FAIL ") and "member_epoch" in out[1]
    assert out[2] == f"{cases[2]['id']} PASS"
    assert out[-1] == "1 passed, 2 failed"


def test_assignor_case_mismatch_names_the_member(shared_dir):
    case = _case(_shared(shared_dir, "kip848-assignors-examples.json"), "range-two-members-same-subs")
    case["expected"]["B"]["topic1"] = [1, 2]
    assert check_assignor_case(case) == ("B: expected {'topic1': [1, 2], 'topic3': [1]}, "
                                         "got {'topic1': [2], 'topic3': [1]}")
    case = _case(_shared(shared_dir, "kip848-assignors-examples.json"), "uniform-het-nonexistent-topics")
    case["check"] = "exact"
    case["expected"] = {}
    assert check_assignor_case(case).startswith("raised PartitionAssignorException")


def test_uniform_heterogeneous_reproduces_kafka_reference_outputs(shared_dir):
    """Beyond the properties the format checks: the heterogeneous builder gives Kafka's exact answer
    in every case whose reference output the tests state."""
    cases = json.loads(OWN_ASSIGNORS.read_text()) + json.loads(
        _shared(shared_dir, "kip848-assignors-examples.json").read_text())
    checked = 0
    for case in cases:
        if "reference_output" not in case:
            continue
        specs, topics, name_of = _assignor_input(case)
        got = _by_name(A.assign(case["assignor"], specs, topics, case["subscription_type"]), name_of)
        want = {m: assignment_json(norm_assignment(a)) for m, a in case["reference_output"].items()}
        assert {m: assignment_json(a) for m, a in got.items()} == want, case["id"]
        checked += 1
    assert checked >= 9


def test_run_file_counts():
    out = io.StringIO()
    assert run_file(str(OWN_ASSIGNORS), out=out) == (len(json.loads(OWN_ASSIGNORS.read_text())), 0)
    assert out.getvalue().endswith(" passed, 0 failed\n")
