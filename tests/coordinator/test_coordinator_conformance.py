"""The conformance runner: the shared example scenarios pass, failures and bad files are reported."""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys

import pytest

from pipeline.coordinator.conformance import check_scenario, load_cases, run_scenario


@pytest.fixture(scope="module")
def examples(shared_dir):
    path = shared_dir / "conformance" / "scenarios-examples.json"
    return path, json.loads(path.read_text())


def _run(repo_root, *args):
    return subprocess.run([sys.executable, "-m", "pipeline.coordinator.conformance", *map(str, args)],
                          cwd=repo_root, capture_output=True, text=True, timeout=120)


def test_example_scenarios_all_pass_via_cli(repo_root, examples):
    path, cases = examples
    proc = _run(repo_root, path)
    lines = proc.stdout.strip().splitlines()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert lines[-1] == f"{len(cases)} passed, 0 failed"
    assert [ln.split()[0] for ln in lines[:-1]] == [c["id"] for c in cases]
    assert all(ln.endswith(" PASS") for ln in lines[:-1])


@pytest.mark.parametrize("impl", ["scala", "java"])
def test_each_example_passes_under_both_implementations(examples, impl):
    _, cases = examples
    for case in cases:
        assert run_scenario(case, impl) is None, case["id"]


def test_a_wrong_expectation_fails_with_the_first_mismatch(repo_root, examples, tmp_path):
    _, cases = examples
    case = copy.deepcopy(next(c for c in cases if c["id"] == "join-single-member-happy-path"))
    case["steps"][2]["expect"]["generation_after"] = 7  # the model says 1
    case["steps"][4]["expect"]["error"] = "ILLEGAL_GENERATION"  # later mismatch must not be reported
    result = check_scenario(case)
    assert result is not None and "step 3" in result and "generation_after: expected 7, got 1" in result
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([cases[0], case]))
    proc = _run(repo_root, bad)
    assert proc.returncode == 1
    out = proc.stdout.strip().splitlines()
    assert out[0] == f"{cases[0]['id']} PASS"
    assert out[1].startswith("join-single-member-happy-path FAIL ")
    assert out[-1] == "1 passed, 1 failed"


def test_parked_response_mismatch_names_the_ref(examples):
    _, cases = examples
    case = copy.deepcopy(next(c for c in cases if c["id"] == "sync-follower-before-leader"))
    case["steps"][-1]["responses"]["s2"]["assignment"] = "x0"
    assert "response s2: assignment: expected 'x0', got 'x1'" in check_scenario(case)


def test_still_pending_is_checked(examples):
    _, cases = examples
    case = copy.deepcopy(next(c for c in cases if c["id"] == "protocol-selection-by-vote"))
    case["steps"][4]["still_pending"] = ["j1"]  # j1 was answered at step 5
    assert "expected j1 still parked" in check_scenario(case)


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    (b"\xff\xfe\x00garbage", "not UTF-8"),
    (b'[{"id": "x", "steps": [', "not valid JSON"),
    (b"{}", "expected a non-empty JSON list"),
    (b'[{"id": "x"}]', "cannot tell scenarios"),
])
def test_unreadable_files_give_one_clear_line(repo_root, tmp_path, content, message):
    path = tmp_path / "cases.json"
    if content is not None:
        path.write_bytes(content)
    proc = _run(repo_root, path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and message in proc.stderr and "Traceback" not in proc.stderr


def test_file_kind_is_detected(shared_dir):
    kind, cases = load_cases(str(shared_dir / "conformance" / "assignors-examples.json"))
    assert kind == "assignors" and all("assignor" in c for c in cases)
    kind, _ = load_cases(str(shared_dir / "conformance" / "scenarios-examples.json"))
    assert kind == "scenarios"


def test_assignor_files_use_the_assignor_module_or_say_it_is_missing(repo_root, shared_dir):
    proc = _run(repo_root, shared_dir / "conformance" / "assignors-examples.json")
    if importlib.util.find_spec("pipeline.coordinator.assignors") is None:
        assert proc.returncode == 2
        assert "pipeline.coordinator.assignors.cases.run_case" in proc.stderr
        assert "Traceback" not in proc.stderr
    else:
        assert proc.stdout.strip().splitlines()[-1].endswith(" failed")


def test_a_case_that_crashes_the_model_is_a_failed_case(tmp_path, repo_root, examples):
    _, cases = examples
    case = copy.deepcopy(cases[0])
    case["steps"][0]["op"] = "explode"
    path = tmp_path / "c.json"
    path.write_text(json.dumps([case]))
    proc = _run(repo_root, path)
    assert proc.returncode == 1 and "unknown op 'explode'" in proc.stdout


def test_impl_specific_cases_run_only_under_their_implementation(repo_root):
    path = repo_root / "tests" / "coordinator" / "data" / "scenarios-divergences.json"
    cases = json.loads(path.read_text())
    proc = _run(repo_root, path)
    assert proc.returncode == 0 and proc.stdout.strip().splitlines()[-1] == f"{len(cases)} passed, 0 failed"
    for case in cases:
        if case.get("impl"):
            other = "java" if case["impl"] == "scala" else "scala"
            assert run_scenario(case, case["impl"]) is None
            assert run_scenario(case, other) is not None, f"{case['id']} does not tell the implementations apart"
