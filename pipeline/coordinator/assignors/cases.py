"""Run assignor conformance cases (../shared/conformance/FORMAT-AND-RULES.md, section 2).

``run_case(case) -> None | str``: None when the model gives Kafka's answer, else a one-line
description of the first mismatch. ``python -m pipeline.coordinator.assignors.cases FILE...``
prints one line per case and ``N passed, N failed``; exit status 1 on any failure, 2 on bad input.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping

from . import ASSIGNORS, AssignorError, assign_detailed, cooperative_rounds, parse_tp, to_subscriptions
from . import properties as P

KNOWN_PROPERTIES = {
    "valid", "complete", "fully_balanced", "balanced", "keep_owned", "exact_sizes",
    "max_partitions_per_member", "per_topic_counts", "no_partition_revoked_and_assigned",
}


def _fmt(tps) -> str:
    return "[" + ", ".join(sorted(str(tp) for tp in tps)) + "]"


def _tps(values, what: str):
    if not isinstance(values, list):
        raise AssignorError(f"{what} must be a list of 'topic-p' strings")
    return [parse_tp(v) for v in values]


def _compare(expected: Mapping, got: Mapping, partial: bool, label: str) -> str | None:
    if not isinstance(expected, Mapping):
        return f"{label}: expected must be an object {{member: [partitions]}}"
    for member, tps in expected.items():
        want = set(_tps(tps, f"{label}[{member}]"))
        if member not in got:
            return f"{label}: member {member} missing from the assignment"
        have = set(got[member])
        if want != have:
            return f"{label}: {member} expected {_fmt(want)} got {_fmt(have)}"
    if not partial:
        for member, tps in got.items():
            if member not in expected and tps:
                return f"{label}: {member} got {_fmt(tps)}, expected no entry"
    return None


def _check_properties(case: Mapping, subs, ppt, final, rounds) -> str | None:
    props = case.get("properties") or []
    if not isinstance(props, list):
        return "properties must be a list"
    for name in props:
        if name not in KNOWN_PROPERTIES:
            return f"unknown property {name!r}"
        if name == "valid":
            err = P.check_valid(final, subs, ppt)
        elif name == "complete":
            err = P.check_complete(final, subs, ppt)
        elif name == "fully_balanced":
            err = P.check_fully_balanced(final)
        elif name == "balanced":
            err = P.check_balanced(final)
        elif name == "keep_owned":
            keep = {m: _tps(v, f"keep_owned[{m}]") for m, v in (case.get("keep_owned") or {}).items()}
            err = P.check_keep_owned(final, keep)
        elif name == "exact_sizes":
            err = P.check_exact_sizes(final, case.get("exact_sizes") or {})
        elif name == "max_partitions_per_member":
            err = P.check_max_partitions(final, int(case["max_partitions_per_member"]))
        elif name == "per_topic_counts":
            err = P.check_per_topic_counts(final, subs, case.get("per_topic_counts") or {})
        else:  # no_partition_revoked_and_assigned: in every round
            err = None
            for round_subs, outcome in rounds:
                err = P.check_no_revoked_and_assigned(outcome.assignment, round_subs)
                if err:
                    break
        if err:
            return err
    return None


def run_case(case: dict) -> str | None:
    """None if the case passes, else a one-line description of the first mismatch."""
    try:
        return _run(case)
    except AssignorError as exc:
        return f"error: {exc}"
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        return f"malformed case: {type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001 - one failed case must not stop a file of cases
        return f"model error: {type(exc).__name__}: {exc}"


def _run(case: dict) -> str | None:
    if not isinstance(case, Mapping):
        return "malformed case: not an object"
    name = case.get("assignor")
    if name not in ASSIGNORS:
        return f"unknown assignor {name!r}"
    ppt = case.get("partitions_per_topic") or {}
    subs = to_subscriptions(case.get("subscriptions") or {})
    order = case.get("java_hashmap_iteration_order")
    if order is not None and sorted(order) != sorted(subs):
        order = None  # the hint names other members: fall back to the modelled HashMap order
    racks = case.get("partition_racks")  # extension: replica racks per partition
    if racks is not None and name == "roundrobin":
        return "partition_racks: the roundrobin assignor is not rack-aware"
    prefer = bool(case.get("prefer_rack_aware_logic"))
    capacity = case.get("subscriptions_map_capacity")  # extension: subscriptions built as new HashMap<>(n)
    if capacity is not None and (isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1):
        return f"subscriptions_map_capacity must be a positive int, got {capacity!r}"

    if name == "cooperative-sticky":
        rounds = cooperative_rounds(subs, ppt, member_order=order, partition_racks=racks, prefer_rack_aware_logic=prefer,
                                    subscriptions_map_capacity=capacity)
    else:
        rounds = [(subs, assign_detailed(name, subs, ppt, member_order=order, partition_racks=racks,
                                          prefer_rack_aware_logic=prefer, subscriptions_map_capacity=capacity))]
    first = rounds[0][1]
    final = rounds[-1][1].assignment

    check = case.get("check", "exact")
    if check == "exact":
        if "expected" not in case:
            return "exact case without 'expected'"
        err = _compare(case["expected"], first.assignment, bool(case.get("partial_expected")), "expected")
        if err:
            return err
    elif check != "properties":
        return f"unknown check {check!r}"
    if name == "cooperative-sticky" and case.get("expected_after_followup_rebalance") is not None:
        err = _compare(case["expected_after_followup_rebalance"], final, bool(case.get("partial_expected")),
                       "expected_after_followup_rebalance")
        if err:
            return err

    err = _check_properties(case, subs, ppt, final, rounds)
    if err:
        return err

    if "partitions_transferring_ownership" in case and name in ("sticky", "cooperative-sticky"):
        want = case["partitions_transferring_ownership"]
        got = first.partitions_transferring_ownership
        if want is None or got is None:
            if want is not got:
                return (f"partitions_transferring_ownership: expected {'null (general algorithm)' if want is None else want} "
                        f"got {'null (general algorithm)' if got is None else {str(k): v for k, v in got.items()}}")
        else:
            want_map = {parse_tp(k): v for k, v in want.items()}
            if want_map != got:
                return (f"partitions_transferring_ownership: expected {dict(sorted(want.items()))} "
                        f"got { {str(k): v for k, v in sorted(got.items())} }")
    return None


def load_cases(path: str) -> list:
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, list):
        raise ValueError("an assignor-case file is a JSON list of cases")
    return data


def run_file(path: str, out=None) -> tuple[int, int]:
    out = out or sys.stdout
    cases = load_cases(path)
    passed = failed = 0
    for i, case in enumerate(cases):
        cid = case.get("id", f"#{i}") if isinstance(case, Mapping) else f"#{i}"
        err = run_case(case)
        if err is None:
            passed += 1
            print(f"{cid}: pass", file=out)
        else:
            failed += 1
            print(f"{cid}: FAIL {err}", file=out)
    return passed, failed


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m pipeline.coordinator.assignors.cases FILE [FILE...]", file=sys.stderr)
        return 2
    passed = failed = 0
    for path in args:
        try:
            p, f = run_file(path)
        except (OSError, ValueError) as exc:
            print(f"{path}: cannot read assignor cases: {exc}", file=sys.stderr)
            return 2
        passed += p
        failed += f
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
