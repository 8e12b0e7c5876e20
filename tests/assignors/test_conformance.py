"""Every assignor conformance case passes: the shared examples and the cases ported from Kafka
3.8.0's assignor tests (tests/assignors/cases/, expected outputs taken from Kafka's own code)."""

import json
from pathlib import Path

import pytest

from pipeline.coordinator.assignors.cases import run_case
from tests.conftest import shared_missing

HERE = Path(__file__).parent


def _load(path: Path):
    return [pytest.param(c, id=c["id"]) for c in json.loads(path.read_text())]


# shared/ sits beside the checkout (tests/conftest.py SHARED)
EXAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "assignors-examples.json"
PORTED = sorted((HERE / "cases").glob("*.json"))
_MISSING = [pytest.param(None, id="shared-missing")]


@pytest.mark.parametrize("case", _load(EXAMPLES) if EXAMPLES.exists() else _MISSING)
def test_shared_example_cases(case):
    if case is None:
        shared_missing(EXAMPLES)
    assert run_case(case) is None


def test_shared_examples_are_all_present():
    if not EXAMPLES.exists():
        shared_missing(EXAMPLES)
    assert len(json.loads(EXAMPLES.read_text())) >= 18


@pytest.mark.parametrize("case", [p for f in PORTED for p in _load(f)])
def test_ported_kafka_cases(case):
    assert run_case(case) is None


def test_ported_files_cover_every_assignor_and_test_class():
    cases = [c for f in PORTED for c in json.loads(f.read_text())]
    assert {c["assignor"] for c in cases} == {"range", "roundrobin", "sticky", "cooperative-sticky"}
    assert {c["source"]["test_class"] for c in cases} >= {
        "RangeAssignorTest", "RoundRobinAssignorTest", "StickyAssignorTest",
        "CooperativeStickyAssignorTest", "AbstractStickyAssignorTest"}
    assert any("partition_racks" in c for c in cases)
    assert len({c["id"] for c in cases}) == len(cases)
    assert len(cases) >= 150


def _reference_cases():
    if not EXAMPLES.exists():
        return _MISSING
    return [pytest.param(c, id=c["id"]) for c in json.loads(EXAMPLES.read_text()) if "reference_output" in c]


@pytest.mark.parametrize("case", _reference_cases())
def test_properties_cases_also_match_kafkas_reference_output(case):
    # properties-only cases carry what Kafka 3.8.0 returned; the model reproduces it exactly
    from pipeline.coordinator.assignors import assign

    if case is None:
        shared_missing(EXAMPLES)
    got = assign(case["assignor"], case["subscriptions"], case["partitions_per_topic"])
    assert {m: sorted(v) for m, v in got.items()} == {m: sorted(v) for m, v in case["reference_output"].items()}
