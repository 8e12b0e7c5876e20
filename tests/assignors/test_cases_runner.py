"""The assignor-case runner: mismatch reporting, malformed input, and the command line."""

import copy
import json
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.coordinator.assignors.cases import main, run_case

STICKY = {
    "id": "s1",
    "assignor": "sticky",
    "partitions_per_topic": {"topic1": 3, "topic2": 3},
    "subscriptions": {"consumer1": {"topics": ["topic1", "topic2"], "owned_partitions": []},
                      "consumer2": {"topics": ["topic1", "topic2"], "owned_partitions": []}},
    "expected": {"consumer1": ["topic1-0", "topic1-2", "topic2-1"], "consumer2": ["topic1-1", "topic2-0", "topic2-2"]},
    "properties": ["valid", "balanced", "fully_balanced", "complete"],
    "partitions_transferring_ownership": {},
    "check": "exact",
}


def test_passing_case_returns_none():
    assert run_case(STICKY) is None


def test_wrong_expected_names_member_and_partitions():
    case = copy.deepcopy(STICKY)
    case["expected"]["consumer1"] = ["topic1-0", "topic1-1", "topic2-1"]
    assert run_case(case) == ("expected: consumer1 expected [topic1-0, topic1-1, topic2-1] "
                              "got [topic1-0, topic1-2, topic2-1]")


def test_partial_expected_only_checks_listed_members():
    case = copy.deepcopy(STICKY)
    del case["expected"]["consumer2"]
    assert run_case(case) == "expected: consumer2 got [topic1-1, topic2-0, topic2-2], expected no entry"
    case["partial_expected"] = True
    assert run_case(case) is None


def test_transferring_ownership_mismatch_reported():
    case = copy.deepcopy(STICKY)
    case["partitions_transferring_ownership"] = None
    assert run_case(case).startswith("partitions_transferring_ownership: expected null (general algorithm) got {}")


def test_failing_property_reported():
    case = copy.deepcopy(STICKY)
    case["check"] = "properties"
    case["properties"] = ["exact_sizes"]
    case["exact_sizes"] = {"consumer1": 2}
    assert run_case(case) == "exact_sizes: consumer1 has 3 partitions, expected 2"


def test_cooperative_followup_expected_is_checked():
    case = {
        "id": "c1", "assignor": "cooperative-sticky", "partitions_per_topic": {"topic": 3},
        "subscriptions": {"consumer1": {"topics": ["topic"], "owned_partitions": ["topic-0", "topic-1", "topic-2"], "generation": 1},
                          "consumer2": {"topics": ["topic"], "owned_partitions": [], "generation": 1}},
        "expected": {"consumer1": ["topic-0", "topic-1"], "consumer2": []},
        "expected_after_followup_rebalance": {"consumer1": ["topic-0", "topic-1"], "consumer2": ["topic-2"]},
        "properties": ["valid", "complete", "fully_balanced", "no_partition_revoked_and_assigned"],
        "partitions_transferring_ownership": {"topic-2": "consumer2"},
        "check": "exact",
    }
    assert run_case(case) is None
    case["expected_after_followup_rebalance"]["consumer2"] = []
    assert run_case(case).startswith("expected_after_followup_rebalance: consumer2 expected [] got [topic-2]")


def test_malformed_cases_give_one_line_reasons():
    assert run_case({"assignor": "bogus"}) == "unknown assignor 'bogus'"
    assert run_case([]) == "malformed case: not an object"
    bad_tp = copy.deepcopy(STICKY)
    bad_tp["subscriptions"]["consumer1"]["owned_partitions"] = ["topic1"]
    assert run_case(bad_tp) == "error: bad topic-partition 'topic1': expected 'topic-<partition number>'"
    bad_count = copy.deepcopy(STICKY)
    bad_count["partitions_per_topic"]["topic1"] = "3"
    assert run_case(bad_count) == "error: bad partition count 'topic1': '3' (expected a non-negative int)"
    no_topics = copy.deepcopy(STICKY)
    del no_topics["subscriptions"]["consumer2"]["topics"]
    assert run_case(no_topics) == "error: subscription of consumer2 has no 'topics'"
    unknown_prop = copy.deepcopy(STICKY)
    unknown_prop["properties"] = ["sparkly"]
    assert run_case(unknown_prop) == "unknown property 'sparkly'"


def test_main_prints_one_line_per_case_and_totals(tmp_path, capsys):
    wrong = copy.deepcopy(STICKY)
    wrong["id"] = "s2"
    wrong["expected"]["consumer2"] = []
    path = tmp_path / "cases.json"
    path.write_text(json.dumps([STICKY, wrong]))
    assert main([str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "s1: pass"
    assert lines[1].startswith("s2: FAIL expected: consumer2 expected [] got [topic1-1, topic2-0, topic2-2]")
    assert lines[-1] == "1 passed, 1 failed"


def test_main_rejects_unreadable_files(tmp_path, capsys):
    assert main([str(tmp_path / "missing.json")]) == 2
    assert "cannot read assignor cases" in capsys.readouterr().err
    notlist = tmp_path / "obj.json"
    notlist.write_text("{}")
    assert main([str(notlist)]) == 2
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\xff\xfe not json")
    assert main([str(garbage)]) == 2
    assert main([]) == 2


def test_module_entry_point(tmp_path, repo_root):
    path = tmp_path / "cases.json"
    path.write_text(json.dumps([STICKY]))
    proc = subprocess.run([sys.executable, "-m", "pipeline.coordinator.assignors.cases", str(path)],
                          cwd=repo_root, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["s1: pass", "1 passed, 0 failed"]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 5) | st.sampled_from(["t", "t-0", "t-x", "", "consumer1", "sticky"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["topics", "owned_partitions", "generation", "expected", "t", "consumer1", "rack"]), children, max_size=4),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries({
    "id": st.just("fuzz"),
    "assignor": st.sampled_from(["range", "roundrobin", "sticky", "cooperative-sticky", "nope", 3]),
    "partitions_per_topic": JSON,
    "subscriptions": JSON,
    "expected": JSON,
    "check": st.sampled_from(["exact", "properties", "other", None]),
    "properties": JSON,
    "partitions_transferring_ownership": JSON,
    "keep_owned": JSON, "exact_sizes": JSON, "per_topic_counts": JSON, "max_partitions_per_member": JSON,
    "java_hashmap_iteration_order": JSON, "partial_expected": JSON, "expected_after_followup_rebalance": JSON,
    "partition_racks": JSON, "subscriptions_map_capacity": JSON,
}))
def test_run_case_never_raises_on_garbage(case):
    out = run_case(case)
    assert out is None or (isinstance(out, str) and "\n" not in out)
