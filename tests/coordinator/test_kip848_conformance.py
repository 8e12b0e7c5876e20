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
MORE_SCENARIOS = DATA / "kip848-more-scenarios.json"  # second batch: scripts/kip848_cases_more.py
MORE_ASSIGNORS = DATA / "kip848-more-assignors.json"
B_SCENARIOS = DATA / "kip848-b-scenarios.json"  # third batch: scripts/kip848_cases_b.py
B_ASSIGNORS = DATA / "kip848-b-assignors.json"


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


@pytest.mark.parametrize("path", [OWN_SCENARIOS, OWN_ASSIGNORS, MORE_SCENARIOS, MORE_ASSIGNORS, B_SCENARIOS,
                                  B_ASSIGNORS], ids=lambda p: p.name)
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


# ---------------------------------------------------------------------------------- second batch
_TEST_ROOT = "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/"


def test_more_cases_cover_the_kafka_test_classes():
    """The second batch restates >= 100 more assertions, each naming its Java test and snapshot, across the
    test classes of the brief; ids are unique over every own file."""
    more = json.loads(MORE_SCENARIOS.read_text())
    more_a = json.loads(MORE_ASSIGNORS.read_text())
    assert len(more) + len(more_a) >= 100
    for case in more + more_a:
        src = case["source"]
        assert src["method"].startswith("test") and src["commit"] and src["tag"], case["id"]
        assert src["suite"].startswith(_TEST_ROOT), case["id"]
    suites = {c["source"]["suite"].rsplit("/", 1)[1] for c in more + more_a}
    assert {"GroupMetadataManagerTest.java", "ConsumerGroupTest.java", "TargetAssignmentBuilderTest.java",
            "CurrentAssignmentBuilderTest.java", "OffsetMetadataManagerTest.java", "RangeAssignorTest.java",
            "OptimizedUniformAssignmentBuilderTest.java"} <= suites
    everything = (json.loads(OWN_SCENARIOS.read_text()) + json.loads(OWN_ASSIGNORS.read_text()) + more + more_a
                  + json.loads(B_SCENARIOS.read_text()) + json.loads(B_ASSIGNORS.read_text()))
    ids = [c["id"] for c in everything]
    assert len(ids) == len(set(ids))
    assert load_cases(str(MORE_SCENARIOS))[0] == "kip848-scenarios"
    assert load_cases(str(MORE_ASSIGNORS))[0] == "kip848-assignors"


def _spoil(case):
    """Change one expected value of the case so that a model agreeing with the original cannot agree."""
    if case.get("kind") == "reconcile":
        exp = case["expect"]
        case["expect"] = ({"error": "FENCED_MEMBER_EPOCH"} if exp.get("unchanged") else
                          {"unchanged": True} if "error" in exp else dict(exp, member_epoch=exp["member_epoch"] + 100))
        return
    if "check" in case and "steps" not in case:  # assignor case
        case["check"], case["expected"] = "exact", {"nobody": {}}
        return
    step = [s for s in case["steps"] if s.get("expect")][-1]
    exp = step["expect"]
    if "error" in exp:
        exp["error"] = "UNKNOWN_SERVER_ERROR" if exp["error"] == "NONE" else "NONE"
    elif "group_state_after" in exp:
        exp["group_state_after"] = "Dead"
    elif "fenced" in exp:
        exp["fenced"] = exp["fenced"] + ["nobody"]
    else:
        key = next(iter(exp))
        exp[key] = {"spoiled": True}


@pytest.mark.parametrize("path", [MORE_SCENARIOS, MORE_ASSIGNORS, B_SCENARIOS, B_ASSIGNORS], ids=lambda p: p.name)
def test_every_more_case_can_fail(path):
    """Each case of the second batch checks something: spoiling one expectation makes it fail."""
    for case in json.loads(path.read_text()):
        spoiled = copy.deepcopy(case)
        _spoil(spoiled)
        check = check_scenario if "steps" in case or case.get("kind") == "reconcile" else check_assignor_case
        assert check(case) is None, case["id"]
        assert check(spoiled) is not None, case["id"]


def test_uniform_orders_follow_java_hash_of_kafka_uuids():
    """UniformHomogeneousAssignmentBuilder walks `new HashSet<>(topicIds)` and the members' HashMap<Uuid,
    HashSet<Integer>> targets: for Kafka Uuids the model follows Uuid.hashCode; symbols keep their order."""
    ids = {"topic1": "T1-A4s3VTwiI5CTbEp6POw", "topic2": "T2-B4s3VTwiI5YHbPp6YUe",
           "topic3": "T3-CU8fVTLCz5YMkLoDQsa", "topic4": "T4-Tw9fVTLCz5HbPp6YQsa"}
    order = A.java_uuid_order([ids[t] for t in sorted(ids)], copied_set=True)
    # FORMAT-KIP848 section 2: the HashSet order of the tests' fixed topic ids is topic2, topic4, topic3, topic1
    assert order == [ids["topic2"], ids["topic4"], ids["topic3"], ids["topic1"]]
    assert A.kafka_uuid_hash(ids["topic1"]) == 418407434 and A.kafka_uuid_hash("foo-id") is None
    assert A.java_uuid_order(["foo-id", "bar-id"]) == ["foo-id", "bar-id"]
    assert A.java_int_set_order([3, 5, 17]) == [17, 3, 5]  # 17 lands in bucket 1 of a 16-slot table
    assert A.java_int_set_order(range(20)) == list(range(20))
    specs = [A.MemberSpec("A", (ids["topic1"], ids["topic3"])), A.MemberSpec("B", (ids["topic1"], ids["topic3"]))]
    got = A.assign("uniform", specs, {ids["topic1"]: 3, ids["topic3"]: 2}, "HOMOGENEOUS")
    assert {m: assignment_json(a) for m, a in got.items()} == {
        "A": {ids["topic1"]: [0], ids["topic3"]: [0, 1]}, "B": {ids["topic1"]: [1, 2]}}


def test_third_batch_covers_the_brief_areas():
    """kip848-b: metadata changes, subscription changes, heterogeneous groups, revocation, timers, fencing,
    static members and assignor selection, each case naming its Kafka test and snapshot."""
    cases = json.loads(B_SCENARIOS.read_text()) + json.loads(B_ASSIGNORS.read_text())
    for case in cases:
        src = case["source"]
        assert src["method"].startswith("test") and src["commit"] and src["tag"] and src.get("note"), case["id"]
        assert src["suite"].startswith(_TEST_ROOT), case["id"]
    cats = {c["category"] for c in cases}
    assert {"metadata_change", "subscription_change", "heterogeneous", "revocation", "rebalance_timeout",
            "session_timeout", "fencing", "static_member", "assignor_selection", "commit", "partition_epochs", "member_lookup", "member_order"} <= cats


def test_records_ignore_client_and_rack_and_member_after_knows_the_regex():
    """FORMAT-KIP848 1.3: client id/host, rack and record versions are not compared; the member's regex (empty
    by default, ConsumerGroupMember.Builder) is a member field."""
    case = {"id": "rack-ignored", "config": {"group_id": "g", "assignor_mode": "mock", "assignors": ["range"],
                                             "topics": {"foo": {"id": "foo-id", "partitions": 1}}},
            "steps": [{"at_ms": 0, "op": "heartbeat", "member_id": "m1", "member_epoch": 0, "rack_id": "r1",
                       "rebalance_timeout_ms": 5000, "subscribed_topic_names": ["foo"], "topic_partitions": {},
                       "expect": {"error": "NONE",
                                  "records_last": True,
                                  "records": [{"type": "MemberMetadata", "member": "m1", "rack": "r9",
                                               "client_id": "other", "subscribed_topic_names": ["foo"]}],
                                  "member_after": {"m1": {"subscribed_topic_regex": "", "rack_id": "r1"}}}}]}
    assert check_scenario(case) is not None  # records_last is the CurrentAssignment record, not MemberMetadata
    case["steps"][0]["expect"]["records"] = [{"type": "CurrentAssignment", "member": "m1", "rack": "r9",
                                              "client_host": "/10.0.0.1", "member_epoch": 1}]
    assert check_scenario(case) is None
    case["steps"][0]["expect"]["member_after"]["m1"]["subscribed_topic_regex"] = "foo.*"
    assert check_scenario(case) is not None
