"""RUN_DIR fixtures for the dashboard, written with pipeline.rundir (the real Parquet layout).

`build_small(dir)`: three groups with realistic coordinator stories (a poll timeout, a session
expiry, a rejoin; commits with a rewind and a skip; findings with evidence; unparsed lines, one
carrying `<script>`). The facts the tests assert are the module constants below.
`build_big(dir, events)`: one group with `events` events (heartbeats, commits, rebalances) for the
benchmark and the responsiveness checks.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from pipeline.rundir import write_manifest, write_table

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z
SEC = 1000

PAY = "payments"
ORD = "orders"
INV = "inventory/eu"  # a group id with a slash: URLs must carry it as a query value
M1 = "consumer-payments-1-2d1f7c1e-5b0a-4f59-9c7e-0a8f1e6b3c11"
M2 = "consumer-payments-2-8e0c6a55-0d3b-4a77-b1f3-6f2d9c0e4a22"
M3 = "consumer-payments-3-f3a9b2c4-7e61-4c0d-a8b5-1c9e2d7f5b33"
O1 = "consumer-orders-1-11111111-2222-3333-4444-555555555555"
O2 = "consumer-orders-2-66666666-7777-8888-9999-000000000000"
I1 = "consumer-inventory-1-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
XSS_TITLE = "<img src=x onerror=\"window.__coordscope_xss=2\">"
XSS = "<script>window.__coordscope_xss = 1</script> ERROR weird line <b>bold</b>"

CLIENT_LOG = "logs/payments-app-1.log"
CLIENT_LOG2 = "logs/payments-app-2.log"
BROKER_LOG = "logs/broker-1/server.log"
ORDERS_LOG = "logs/orders-app.log"


def _iso(ms: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]


class _Lines:
    """Accumulates events per source with consecutive line numbers; returns `source:line` refs."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.next_line: dict[str, int] = defaultdict(lambda: 1)

    def add(self, source: str, ts: int, kind: str, group: str, text: str, **fields: Any) -> str:
        line = self.next_line[source]
        self.next_line[source] += 1
        side = "broker" if "broker" in source else "client"
        logger = "kafka.coordinator.group.GroupCoordinator" if side == "broker" else \
            "o.a.k.c.c.internals.ConsumerCoordinator"
        raw = f"[{_iso(ts)}] INFO {logger}: {text}"
        self.events.append({"source": source, "line_no": line, "ts_ms": ts, "side": side, "kind": kind,
                            "group_id": group, "raw": raw, "kafka_version_hint": "3.7", **fields})
        return f"{source}:{line}"


def _payments(lines: _Lines) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    parts = [f"payments-{i}" for i in range(6)]
    assign = {  # generation -> member -> partitions
        1: {M1: parts[0:2], M2: parts[2:4], M3: parts[4:6]},
        2: {M1: parts[0:3], M2: parts[3:6]},
        3: {M1: parts[0:2], M2: parts[2:4], M3: parts[4:6]},
        4: {M1: parts[0:3], M3: parts[3:6]},
    }
    # (generation, started, completing, stable, ended, cause, detail, trigger)
    gens = [
        (1, T0, T0 + 3 * SEC, T0 + 3500, T0 + 120 * SEC, "initial_join", "3 members joined an empty group", M1),
        (2, T0 + 120 * SEC, T0 + 124 * SEC, T0 + 124500, T0 + 200 * SEC, "poll_timeout",
         f"{M3} exceeded max.poll.interval.ms (300000 ms) and left the group", M3),
        (3, T0 + 200 * SEC, T0 + 203 * SEC, T0 + 203400, T0 + 400 * SEC, "member_joined",
         f"{M3} rejoined", M3),
        (4, T0 + 400 * SEC, T0 + 445 * SEC, T0 + 446 * SEC, None, "session_timeout",
         f"{M2} missed heartbeats for 45000 ms (session.timeout.ms 45000) and was removed", M2),
    ]
    for gen, started, completing, stable, ended, cause, detail, trigger in gens:
        ev = lines.add(BROKER_LOG, started, "broker_rebalance_preparing", PAY,
                       f"[GroupCoordinator 1]: Preparing to rebalance group {PAY} in state PreparingRebalance "
                       f"with old generation {gen - 1} (__consumer_offsets-12) (reason: {cause})",
                       generation=gen - 1, reason=cause)
        members = sorted(assign[gen])
        for m in members:
            src = CLIENT_LOG if m == M1 else CLIENT_LOG2
            ej = lines.add(src, completing - 200, "join_succeeded", PAY,
                           f"[Consumer clientId={m[:20]}, groupId={PAY}] Successfully joined group with generation "
                           f"Generation{{generationId={gen}, memberId='{m}', protocol='range'}}",
                           member_id=m, client_id=m[:20], generation=gen, protocol="range")
            es = lines.add(src, stable - 100, "sync_succeeded", PAY,
                           f"[Consumer clientId={m[:20]}, groupId={PAY}] Successfully synced group in generation "
                           f"Generation{{generationId={gen}, memberId='{m}', protocol='range'}}",
                           member_id=m, client_id=m[:20], generation=gen)
            lines.add(src, stable, "partitions_assigned", PAY,
                      f"[Consumer clientId={m[:20]}, groupId={PAY}] Adding newly assigned partitions: "
                      f"{', '.join(assign[gen][m])}", member_id=m, client_id=m[:20], generation=gen,
                      partitions=assign[gen][m])
            left, reason = None, None
            if gen == 1 and m == M3:
                left, reason = T0 + 120 * SEC, "poll_timeout"
            if gen == 3 and m == M2:
                left, reason = T0 + 400 * SEC, "session_expiry"
            out["memberships"].append({
                "group_id": PAY, "generation": gen, "member_id": m, "client_id": m[:20], "host": f"/10.0.0.{members.index(m) + 11}", "is_leader": m == M1, "joined_ms": completing - 200,
                "synced_ms": stable - 100, "assigned": assign[gen][m], "revoked": [],
                "left_ms": left, "leave_reason": reason, "evidence": [ej, es]})
            for p in assign[gen][m]:
                topic, _, num = p.rpartition("-")
                end = ended if (left is None) else left
                out["ownership"].append({
                    "group_id": PAY, "topic": topic, "partition": int(num), "member_id": m,
                    "client_id": m[:20], "generation": gen, "start_ms": stable, "end_ms": end,
                    "end_reason": reason or ("rebalance" if ended else None), "evidence": [es]})
        eb = lines.add(BROKER_LOG, stable, "broker_group_stabilized", PAY,
                       f"[GroupCoordinator 1]: Assignment received from leader {M1} for group {PAY} for generation {gen}. "
                       f"The group has {len(members)} members, 0 of which are static.", generation=gen)
        out["generations"].append({
            "group_id": PAY, "generation": gen, "protocol_type": "consumer", "protocol": "range", "leader": M1,
            "members": members, "member_count": len(members), "assignment_json": json.dumps(assign[gen]),
            "started_ms": started, "stabilized_ms": stable, "ended_ms": ended, "rebalance_ms": stable - started,
            "cause": cause, "cause_detail": detail, "trigger_member": trigger, "coordinator": "1",
            "inferred": False, "evidence": [ev, eb]})
    # heartbeats every 3 s for each live member, with M2 silent for 45 s before it was removed
    for m, src in ((M1, CLIENT_LOG), (M2, CLIENT_LOG2), (M3, CLIENT_LOG2)):
        prev_ref, prev_t = None, None
        for t in range(T0 + 4 * SEC, T0 + 440 * SEC, 3 * SEC):
            if m == M2 and T0 + 352 * SEC < t < T0 + 398 * SEC:
                continue
            if m == M3 and T0 + 118 * SEC < t < T0 + 205 * SEC:
                continue
            if m == M2 and t > T0 + 400 * SEC:
                continue
            ref = lines.add(src, t, "heartbeat_succeeded", PAY,
                            f"[Consumer clientId={m[:20]}, groupId={PAY}] Received successful Heartbeat response",
                            member_id=m, client_id=m[:20])
            if prev_t is not None:
                gap = t - prev_t
                out["heartbeat_gaps"].append({
                    "group_id": PAY, "member_id": m, "client_id": m[:20], "source": src, "kind": "heartbeat",
                    "start_ms": prev_t, "end_ms": t, "gap_ms": gap, "limit_ms": 45000, "exceeded": gap > 45000,
                    "evidence": [prev_ref, ref]})
            prev_ref, prev_t = ref, t
    # M3's poll gap that caused generation 2
    p1 = lines.add(CLIENT_LOG2, T0 - 185 * SEC, "offset_committed", PAY,
                   f"[Consumer clientId={M3[:20]}, groupId={PAY}] Committed offset 500 for partition payments-4",
                   member_id=M3, client_id=M3[:20], topic="payments", partition=4, offset=500)
    p2 = lines.add(CLIENT_LOG2, T0 + 120 * SEC, "poll_timeout", PAY,
                   f"[Consumer clientId={M3[:20]}, groupId={PAY}] consumer poll timeout has expired. This means the "
                   "time between subsequent calls to poll() was longer than the configured max.poll.interval.ms",
                   member_id=M3, client_id=M3[:20], reason="max.poll.interval.ms")
    out["heartbeat_gaps"] += [
        {"group_id": PAY, "member_id": M3, "client_id": M3[:20], "source": CLIENT_LOG2, "kind": "poll",
         "start_ms": T0 - 185 * SEC, "end_ms": T0 + 120 * SEC, "gap_ms": 305 * SEC, "limit_ms": 300000,
         "exceeded": True, "evidence": [p1, p2]},
        {"group_id": PAY, "member_id": M3, "client_id": M3[:20], "source": CLIENT_LOG2, "kind": "poll",
         "start_ms": T0 + 210 * SEC, "end_ms": T0 + 260 * SEC, "gap_ms": 50 * SEC, "limit_ms": 300000,
         "exceeded": False, "evidence": [p2, p2]},
    ]
    rm = lines.add(BROKER_LOG, T0 + 400 * SEC, "broker_member_removed", PAY,
                   f"[GroupCoordinator 1]: Member {M2} in group {PAY} has failed, removing it from the group "
                   "(reason: session expired)", member_id=M2, reason="session expired")
    out["findings"] += [
        {"finding_id": "F-pay-1", "kind": "poll_timeout_rebalance", "severity": "high", "group_id": PAY,
         "start_ms": T0 + 120 * SEC, "end_ms": T0 + 124500, "members": [M3], "partitions": ["payments-4", "payments-5"],
         "generation": 2, "title": f"{M3[:20]} exceeded max.poll.interval.ms and triggered generation 2",
         "explanation": "The member did not call poll() for 305000 ms (limit 300000 ms); the coordinator removed it.",
         "details_json": json.dumps({"gap_ms": 305000, "limit_ms": 300000}), "evidence": [p1, p2]},
        {"finding_id": "F-pay-2", "kind": "session_expiry", "severity": "critical", "group_id": PAY,
         "start_ms": T0 + 352 * SEC, "end_ms": T0 + 446 * SEC, "members": [M2], "partitions": ["payments-2", "payments-3"],
         "generation": 4, "title": f"{M2[:20]} session expired after 48000 ms without heartbeats",
         "explanation": "No heartbeat for longer than session.timeout.ms 45000 ms; generation 4 rebalance took 46 s.",
         "details_json": json.dumps({"gap_ms": 48000, "limit_ms": 45000}), "evidence": [rm]},
        {"finding_id": "F-pay-3", "kind": "slow_rebalance", "severity": "medium", "group_id": PAY,
         "start_ms": T0 + 400 * SEC, "end_ms": T0 + 446 * SEC, "members": [], "partitions": [], "generation": 4,
         "title": "generation 4 took 46000 ms to stabilize", "explanation": "The join phase waited for the session "
         "timeout of the dead member.", "details_json": "{}", "evidence": [rm]},
    ]
    return out


def _orders(lines: _Lines) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    start = T0 + 50 * SEC
    for gen, (t, ms, ended) in enumerate([(start, [O1, O2], start + 300 * SEC), (start + 300 * SEC, [O1], None)], 1):
        ej = lines.add(ORDERS_LOG, t + 1000, "join_succeeded", ORD, f"Successfully joined group with generation {gen}",
                       member_id=ms[0], generation=gen)
        out["generations"].append({
            "group_id": ORD, "generation": gen, "protocol_type": "consumer", "protocol": "cooperative-sticky",
            "leader": O1, "members": ms, "member_count": len(ms), "assignment_json": "{}", "started_ms": t,
            "stabilized_ms": t + 2000, "ended_ms": ended, "rebalance_ms": 2000,
            "cause": "initial_join" if gen == 1 else "member_left",
            "cause_detail": "first members" if gen == 1 else f"{O2} left the group (shutdown)",
            "trigger_member": ms[0] if gen == 1 else O2, "coordinator": "1", "inferred": gen == 2, "evidence": [ej]})
        for i, m in enumerate(ms):
            parts = [0, 1, 2, 3] if len(ms) == 1 else [i * 2, i * 2 + 1]
            out["memberships"].append({
                "group_id": ORD, "generation": gen, "member_id": m, "client_id": m[:18], "is_leader": m == O1,
                "joined_ms": t + 1000, "synced_ms": t + 2000, "assigned": [f"orders-{p}" for p in parts],
                "revoked": [], "left_ms": ended if (gen == 1 and m == O2) else None,
                "leave_reason": "shutdown" if (gen == 1 and m == O2) else None, "evidence": [ej]})
            for p in parts:
                out["ownership"].append({"group_id": ORD, "topic": "orders", "partition": p, "member_id": m,
                                         "client_id": m[:18], "generation": gen, "start_ms": t + 2000,
                                         "end_ms": ended, "end_reason": "rebalance" if ended else None,
                                         "evidence": [ej]})
    # orders-2: steady commits, one rewind (1200 -> 1080: 120 reprocessed) and one skip (1400 -> 1900)
    offsets = [1000, 1100, 1200, 1080, 1150, 1300, 1400, 1900, 1950]
    prev = None
    for i, off in enumerate(offsets):
        t = start + (30 + i * 30) * SEC
        ref = lines.add(ORDERS_LOG, t, "offset_committed", ORD, f"Committed offset {off} for partition orders-2",
                        member_id=O2 if i < 8 else O1, topic="orders", partition=2, offset=off)
        flag = "first" if prev is None else ("rewind" if off < prev else ("skip" if off - prev > 300 else "commit"))
        out["offset_commits"].append({
            "group_id": ORD, "topic": "orders", "partition": 2, "ts_ms": t, "offset": off, "prev_offset": prev,
            "delta": None if prev is None else off - prev, "generation": 1 if i < 8 else 2,
            "member_id": O2 if i < 8 else O1, "side": "client", "flag": flag, "evidence": [ref]})
        if flag == "rewind":
            rew = ref
        if flag == "skip":
            skp = ref
        prev = off
    for i, off in enumerate([10, 20, 30]):
        t = start + (40 + i * 60) * SEC
        ref = lines.add(ORDERS_LOG, t, "offset_committed", ORD, f"Committed offset {off} for partition orders-0",
                        member_id=O1, topic="orders", partition=0, offset=off)
        out["offset_commits"].append({
            "group_id": ORD, "topic": "orders", "partition": 0, "ts_ms": t, "offset": off,
            "prev_offset": None if i == 0 else off - 10, "delta": None if i == 0 else 10, "generation": 1,
            "member_id": O1, "side": "client", "flag": "first" if i == 0 else "commit", "evidence": [ref]})
    out["findings"] += [
        {"finding_id": "F-ord-1", "kind": "offset_rewind", "severity": "critical", "group_id": ORD,
         "start_ms": start + 120 * SEC, "end_ms": start + 120 * SEC, "members": [O2], "partitions": ["orders-2"],
         "generation": 1, "title": "orders-2 rewound from 1200 to 1080: 120 offsets processed twice",
         "explanation": "A commit went backwards.",
         "details_json": json.dumps({"topic": "orders", "partition": 2, "from_offset": 1080, "to_offset_exclusive": 1200}),
         "evidence": [rew]},
        {"finding_id": "F-ord-2", "kind": "offset_skip", "severity": "high", "group_id": ORD,
         "start_ms": start + 240 * SEC, "end_ms": start + 240 * SEC, "members": [O2], "partitions": ["orders-2"],
         "generation": 1, "title": "orders-2 jumped from 1400 to 1900: 500 offsets never processed",
         "explanation": "A commit skipped ahead.",
         "details_json": json.dumps({"topic": "orders", "partition": 2, "from_offset": 1400, "to_offset_exclusive": 1900}),
         "evidence": [skp]},
    ]
    return out


def _inventory(lines: _Lines) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    t = T0 + 10 * SEC
    ej = lines.add("logs/inventory.log", t, "join_succeeded", INV, "Successfully joined group with generation 1",
                   member_id=I1, generation=1)
    out["generations"].append({
        "group_id": INV, "generation": 1, "protocol_type": "consumer", "protocol": "range", "leader": I1,
        "members": [I1], "member_count": 1, "assignment_json": "{}", "started_ms": t - 500, "stabilized_ms": t + 100,
        "ended_ms": None, "rebalance_ms": 600, "cause": "initial_join", "cause_detail": "first member",
        "trigger_member": I1, "coordinator": "2", "inferred": False, "evidence": [ej]})
    out["findings"].append({
        "finding_id": "F-inv-1", "kind": "info_note", "severity": "info", "group_id": INV, "start_ms": t,
        "end_ms": t, "members": [I1], "partitions": [], "generation": 1,
        "title": "single-member group " + XSS_TITLE,
        "explanation": "Nothing to see.", "details_json": "{}", "evidence": [ej, "logs/broker-1/server.log:77"]})
    return out


UNPARSED = [
    ("logs/payments-app-1.log", 900, "client", "log4j", "o.a.k.c.c.internals.ConsumerCoordinator",
     "ConsumerCoordinator: Rebalance <*> in <*> ms", "no rule matched",
     "[2026-01-01 00:01:00,000] INFO ConsumerCoordinator: Rebalance finished in 412 ms"),
    ("logs/payments-app-1.log", 901, "client", "log4j", "o.a.k.c.c.internals.ConsumerCoordinator",
     "ConsumerCoordinator: Rebalance <*> in <*> ms", "no rule matched",
     "[2026-01-01 00:02:00,000] INFO ConsumerCoordinator: Rebalance finished in 97 ms"),
    ("logs/broker-1/server.log", 77, "broker", "log4j", "kafka.coordinator.group.GroupCoordinator",
     "GroupCoordinator <*>: <script>", "no rule matched", XSS),
    ("logs/garbage.bin", 1, None, None, None, "(binary)", "not UTF-8 text", "\\x00\\xff\\xfe binary junk"),
]


def build_small(run_dir: str | Path) -> Path:
    run_dir = Path(run_dir)
    lines = _Lines()
    tables: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for part in (_payments(lines), _orders(lines), _inventory(lines)):
        for name, rows in part.items():
            tables[name] += rows
    tables["events"] = lines.events
    tables["unparsed"] = [dict(zip(["source", "line_no", "side", "layout", "logger", "shape", "why", "raw"],
                                   (s, n, side, lay, lg, sh, why, raw), strict=True)) | {"ts_ms": T0}
                          for s, n, side, lay, lg, sh, why, raw in UNPARSED]
    for name in ("events", "unparsed", "generations", "memberships", "heartbeat_gaps", "offset_commits",
                 "ownership", "findings"):
        write_table(run_dir, name, tables.get(name, []))
    n_events, n_unparsed = len(tables["events"]), len(tables["unparsed"])
    # the shape `coordscope ingest` writes (pipeline/spark/manifest.py), abridged
    inputs = [{"source": s, "size_bytes": 120 * c, "layout": "log4j", "status": "read", "lines_read": c - 1 + 10,
               "parsed": c - 1, "ignored": 10, "unparsed": 0} for s, c in sorted(lines.next_line.items())]
    inputs.append({"source": "logs/garbage.bin", "size_bytes": 4096, "layout": None, "status": "rejected",
                   "lines_read": 1, "parsed": 0, "ignored": 0, "unparsed": 1})
    read = sum(i["lines_read"] for i in inputs) + n_unparsed - 1
    write_manifest(run_dir, {
        "tool": "coordscope ingest", "versions": {"coordscope": "test", "spark": "4.0.0"},
        "inputs": inputs,
        "accounting": {"lines_read": read, "parsed": n_events, "ignored": 10 * (len(inputs) - 1),
                       "unparsed": n_unparsed, "adds_up": True},
        "rejects": [{"source": "logs/garbage.bin", "reason": "binary content"}],
        "timings_s": {"total": 4.2},
    })
    return run_dir


def build_big(run_dir: str | Path, events: int = 100_000, members: int = 10, partitions: int = 12,
              rebalance_every_s: int = 300) -> Path:
    """One hot group, `events` events: each member heartbeats every 3 s, commits every 15 s per
    owned partition, and the group rebalances every `rebalance_every_s` seconds."""
    run_dir = Path(run_dir)
    group = "hot-group"
    mids = [f"consumer-hot-{i}-{i:08d}-0000-4000-8000-{i:012d}" for i in range(members)]
    src = "logs/hot-app.log"
    ev: list[dict[str, Any]] = []
    gaps: list[dict[str, Any]] = []
    commits: list[dict[str, Any]] = []
    gens: list[dict[str, Any]] = []
    mems: list[dict[str, Any]] = []
    own: list[dict[str, Any]] = []
    last_hb: dict[str, int] = {}
    committed: dict[int, int] = defaultdict(int)
    t = T0
    gen = 0
    next_rebalance = T0
    line = 0
    while len(ev) < events:
        if t >= next_rebalance:
            gen += 1
            stable = t + 2000
            for i, m in enumerate(mids):
                line += 1
                ev.append({"source": src, "line_no": line, "ts_ms": t + 1000, "side": "client",
                           "kind": "join_succeeded", "group_id": group, "member_id": m, "generation": gen,
                           "raw": f"Successfully joined group with generation {gen} member {m}"})
                mine = [p for p in range(partitions) if (p + gen) % members == i]
                mems.append({"group_id": group, "generation": gen, "member_id": m, "joined_ms": t + 1000,
                             "synced_ms": stable, "assigned": [f"hot-{p}" for p in mine], "evidence": [f"{src}:{line}"]})
                for p in mine:
                    own.append({"group_id": group, "topic": "hot", "partition": p, "member_id": m,
                                "generation": gen, "start_ms": stable, "end_ms": t + rebalance_every_s * SEC,
                                "evidence": [f"{src}:{line}"]})
            gens.append({"group_id": group, "generation": gen, "protocol": "range", "members": mids,
                         "member_count": members, "started_ms": t, "stabilized_ms": stable,
                         "ended_ms": t + rebalance_every_s * SEC, "rebalance_ms": 2000,
                         "cause": "member_joined" if gen > 1 else "initial_join", "cause_detail": "periodic",
                         "evidence": [f"{src}:{line}"]})
            next_rebalance = t + rebalance_every_s * SEC
        for i, m in enumerate(mids):
            line += 1
            ts = t + i * 37
            ev.append({"source": src, "line_no": line, "ts_ms": ts, "side": "client", "kind": "heartbeat_succeeded",
                       "group_id": group, "member_id": m, "raw": f"Received successful Heartbeat response {m}"})
            if m in last_hb:
                g = ts - last_hb[m]
                gaps.append({"group_id": group, "member_id": m, "kind": "heartbeat", "start_ms": last_hb[m],
                             "end_ms": ts, "gap_ms": g, "limit_ms": 45000, "exceeded": g > 45000,
                             "evidence": [f"{src}:{line - members}", f"{src}:{line}"]})
            last_hb[m] = ts
        if (t - T0) % (15 * SEC) == 0:
            for p in range(partitions):
                line += 1
                prev = committed[p] or None
                committed[p] += 50
                commits.append({"group_id": group, "topic": "hot", "partition": p, "ts_ms": t + 500,
                                "offset": committed[p], "prev_offset": prev, "delta": 50 if prev else None,
                                "generation": gen, "member_id": mids[(p + gen) % members], "side": "client",
                                "flag": "commit" if prev else "first", "evidence": [f"{src}:{line}"]})
                ev.append({"source": src, "line_no": line, "ts_ms": t + 500, "side": "client",
                           "kind": "offset_committed", "group_id": group, "member_id": mids[(p + gen) % members],
                           "topic": "hot", "partition": p, "offset": committed[p],
                           "raw": f"Committed offset {committed[p]} for partition hot-{p}"})
        t += 3 * SEC
    findings = [{"finding_id": f"F-hot-{g['generation']}", "kind": "rebalance", "severity": "low",
                 "group_id": group, "start_ms": g["started_ms"], "end_ms": g["stabilized_ms"],
                 "generation": g["generation"], "title": f"rebalance to generation {g['generation']}",
                 "explanation": "periodic", "evidence": g["evidence"]} for g in gens]
    for name, rows in (("events", ev), ("unparsed", []), ("generations", gens), ("memberships", mems),
                       ("heartbeat_gaps", gaps), ("offset_commits", commits), ("ownership", own),
                       ("findings", findings)):
        write_table(run_dir, name, rows)
    write_manifest(run_dir, {"inputs": [{"path": src, "lines": line}],
                             "lines": {"read": line, "parsed": line, "unparsed": 0, "ignored": 0}})
    return run_dir
