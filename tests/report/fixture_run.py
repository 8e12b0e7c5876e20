"""Hand-made RUN_DIRs with known facts, written through the JVM-free writer."""

from __future__ import annotations

import json
from pathlib import Path

from pipeline import rundir

T0 = 1_763_863_200_000  # 2025-11-23T02:00:00Z
LINE_A = "[2025-11-23 02:00:10,000] INFO [GroupCoordinator 1]: Preparing to rebalance group payments in state PreparingRebalance with old generation 4 (__consumer_offsets-7) (reason: Adding new member c-2) (kafka.coordinator.group.GroupCoordinator)"
LINE_B = "2025-11-23 02:03:00.000 WARN [Consumer clientId=c-1, groupId=payments] consumer poll timeout has expired. <script>alert(1)</script>"


def write_problem_run(run_dir: Path) -> Path:
    g = "payments"
    rundir.write_table(run_dir, "events", [
        {"source": "broker/server.log", "line_no": 10, "ts_ms": T0 + 10_000, "side": "broker",
         "kind": "broker_rebalance_preparing", "group_id": g, "generation": 4, "raw": LINE_A},
        {"source": "hostA/app.log", "line_no": 77, "ts_ms": T0 + 180_000, "side": "client",
         "kind": "poll_timeout", "group_id": g, "client_id": "c-1", "raw": LINE_B},
    ])
    rundir.write_table(run_dir, "generations", [
        {"group_id": g, "generation": 5, "protocol_type": "consumer", "protocol": "range", "leader": "c-1-aaa",
         "members": ["c-1-aaa", "c-2-bbb"], "member_count": 2, "started_ms": T0 + 10_000,
         "stabilized_ms": T0 + 13_000, "ended_ms": T0 + 180_000, "rebalance_ms": 3_000, "cause": "member_joined",
         "cause_detail": "c-2-bbb joined the group", "inferred": False, "evidence": ["broker/server.log:10"]},
        {"group_id": g, "generation": 6, "protocol_type": "consumer", "protocol": "range", "leader": "c-2-bbb",
         "members": ["c-2-bbb"], "member_count": 1, "started_ms": T0 + 180_000,
         "stabilized_ms": T0 + 192_000, "ended_ms": T0 + 600_000, "rebalance_ms": 12_000, "cause": "poll_timeout",
         "cause_detail": "c-1-aaa exceeded max.poll.interval.ms", "inferred": False,
         "evidence": ["hostA/app.log:77"]},
    ])
    rundir.write_table(run_dir, "memberships", [
        {"group_id": g, "generation": 5, "member_id": "c-1-aaa", "client_id": "c-1", "is_leader": True,
         "joined_ms": T0 + 11_000, "synced_ms": T0 + 13_000, "assigned": ["orders-0"], "left_ms": T0 + 180_000,
         "leave_reason": "poll_timeout", "evidence": ["hostA/app.log:77"]},
        {"group_id": g, "generation": 5, "member_id": "c-2-bbb", "client_id": "c-2", "is_leader": False,
         "joined_ms": T0 + 11_500, "synced_ms": T0 + 13_000, "assigned": ["orders-1"], "evidence": []},
    ])
    rundir.write_table(run_dir, "ownership", [
        {"group_id": g, "topic": "orders", "partition": 0, "member_id": "c-1-aaa", "generation": 5,
         "start_ms": T0 + 13_000, "end_ms": T0 + 180_000},
        {"group_id": g, "topic": "orders", "partition": 0, "member_id": "c-2-bbb", "generation": 6,
         "start_ms": T0 + 192_000, "end_ms": T0 + 600_000},
        {"group_id": g, "topic": "orders", "partition": 1, "member_id": "c-2-bbb", "generation": 5,
         "start_ms": T0 + 13_000, "end_ms": T0 + 600_000},
    ])
    rundir.write_table(run_dir, "offset_commits", [
        {"group_id": g, "topic": "orders", "partition": 0, "ts_ms": T0 + 170_000, "offset": 1500,
         "prev_offset": 1400, "delta": 100, "flag": "commit", "evidence": []},
        {"group_id": g, "topic": "orders", "partition": 0, "ts_ms": T0 + 200_000, "offset": 1200,
         "prev_offset": 1500, "delta": -300, "flag": "rewind", "member_id": "c-2-bbb", "evidence": []},
        {"group_id": g, "topic": "orders", "partition": 1, "ts_ms": T0 + 300_000, "offset": 9000,
         "prev_offset": 8000, "delta": 1000, "flag": "skip", "member_id": "c-2-bbb", "evidence": []},
    ])
    rundir.write_table(run_dir, "findings", [
        {"finding_id": "f1", "kind": "poll_timeout", "severity": "high", "group_id": g,
         "start_ms": T0 + 13_000, "end_ms": T0 + 180_000, "members": ["c-1-aaa"], "partitions": ["orders-0"],
         "generation": 5, "title": "c-1-aaa left after exceeding max.poll.interval.ms",
         "explanation": "The poll loop of c-1 stalled for 420 s, longer than max.poll.interval.ms (300 s).",
         "details_json": json.dumps({"observed_ms": 420_000, "limit_ms": 300_000}),
         "evidence": ["hostA/app.log:77"]},
        {"finding_id": "f2", "kind": "offset_rewind", "severity": "medium", "group_id": g,
         "start_ms": T0 + 200_000, "end_ms": T0 + 200_000, "members": ["c-2-bbb"], "partitions": ["orders-0"],
         "generation": 6, "title": "orders-0 rewound by 300 offsets", "explanation": "Offsets 1200..1499 were processed twice.",
         "details_json": json.dumps({"topic": "orders", "partition": 0, "from_offset": 1200,
                                     "to_offset_exclusive": 1500}), "evidence": []},
        {"finding_id": "f4", "kind": "offset_rewind", "severity": "medium", "group_id": g,
         "start_ms": T0 + 400_000, "end_ms": T0 + 400_000, "members": ["c-2-bbb"], "partitions": ["orders-1"],
         "generation": 6, "title": "orders-1: about 50 records processed again (estimated)",
         "explanation": "Estimated from the commit pace.",
         "details_json": json.dumps({"topic": "orders", "partition": 1, "from_offset": 9000,
                                     "to_offset_exclusive": 9050, "estimated": True}), "evidence": []},
        {"finding_id": "f3", "kind": "coordinator_failover", "severity": "info", "group_id": g,
         "start_ms": T0 + 500_000, "end_ms": T0 + 500_000, "members": [], "partitions": [],
         "generation": 6, "title": "Coordinator moved", "explanation": "Broker 1 -> 2.",
         "details_json": "{}", "evidence": ["broker/server.log:10"]},
    ])
    rundir.write_manifest(run_dir, {"inputs": [{"path": "hostA/app.log", "layout": "log4j"}],
                                    "accounting": {"read": 100, "parsed": 2, "ignored": 98, "unparsed": 0}})
    return run_dir


def write_clean_run(run_dir: Path) -> Path:
    g = "inventory"
    rundir.write_table(run_dir, "generations", [
        {"group_id": g, "generation": 1, "protocol": "cooperative-sticky", "leader": "a-1", "members": ["a-1"],
         "member_count": 1, "started_ms": T0, "stabilized_ms": T0 + 100, "ended_ms": T0 + 60_000,
         "rebalance_ms": 100, "cause": "member_joined", "cause_detail": "first member joined", "inferred": False,
         "evidence": []},
    ])
    rundir.write_table(run_dir, "ownership", [
        {"group_id": g, "topic": "stock", "partition": 0, "member_id": "a-1", "generation": 1,
         "start_ms": T0 + 100, "end_ms": T0 + 60_000},
    ])
    rundir.write_manifest(run_dir, {"inputs": [], "accounting": {"read": 3, "parsed": 3, "ignored": 0, "unparsed": 0}})
    return run_dir
