"""Ground truth of a simulated scenario (schema in docs/generator.md, `coordscope-truth/1`)."""

from __future__ import annotations

from typing import Any

from pipeline.generator.clients import (
    KAFKA_PYTHON_VERSION,
    KAFKAJS_VERSION,
    RDKAFKA_VERSION,
    is_kafka_python,
    is_kafkajs,
    is_librdkafka,
    setting,
)
from pipeline.generator.sim import Simulation
from pipeline.generator.templates import ERA_VERSION

SCHEMA = "coordscope-truth/1"


def _abs(sim: Simulation, ms: int | None) -> int | None:
    return None if ms is None else sim.sc.epoch_ms + ms


def build_truth(sim: Simulation, files: dict[str, str]) -> dict[str, Any]:
    sc = sim.sc
    A = lambda ms: _abs(sim, ms)  # noqa: E731
    gens = []
    for g in sim.driver.generations:
        gens.append({
            "generation": g.generation, "protocol": g.protocol, "leader": g.leader,
            "members": [{"member_id": m["member_id"], "client_id": m["client_id"], "client_host": m["host"],
                         "instance_id": m["instance_id"]} for m in g.members],
            "assignment": g.assignment, "cause": g.cause,
            "rebalance_started_ms": A(g.opened_ms), "joined_ms": A(g.joined_ms),
            "stabilized_ms": A(g.stabilized_ms), "ended_ms": A(g.ended_ms)})
    members = []
    for m in sim.members_truth.values():
        members.append({**m, "joined_ms": A(m["joined_ms"]), "left_ms": A(m["left_ms"]),
                        **_library_of(sim, m["host"])})
    ownership: dict[str, list[dict[str, Any]]] = {}
    for o in sim.ownership:
        ownership.setdefault(o["partition"], []).append({
            "member_id": o["member_id"], "host": o["host"], "generation": o["generation"],
            "from_ms": A(o["from_ms"]), "to_ms": A(o["to_ms"]), "end": o.get("end")})
    commits: dict[str, list[dict[str, Any]]] = {}
    last: dict[str, int] = {}
    for c in sim.commits:
        if last.get(c["partition"]) == c["offset"] and c["kind"] != "admin_reset":
            continue  # an auto-commit repeating the same offset changes nothing
        last[c["partition"]] = c["offset"]
        commits.setdefault(c["partition"], []).append({
            "ts_ms": A(c["ts"]), "offset": c["offset"], "member_id": c["member_id"],
            "generation": c["generation"], "kind": c["kind"]})
    return {
        "schema": SCHEMA, "scenario": sc.name, "title": sc.title, "seed": sc.seed, "group_id": sc.group_id,
        "client_version": sc.client_version, "broker_version": sc.broker_version, "layout": sc.layout,
        "start_ms": sc.epoch_ms, "end_ms": sc.epoch_ms + sc.duration_ms,
        "config": _config(sim),
        "topics": {t: {"initial_partitions": n, "final_partitions": sim.partitions[t]} for t, n in sc.topics.items()},
        "topic_changes": [{**c, "ts": A(c["ts"])} for c in getattr(sim, "topic_changes", [])],
        "coordinators": [{"broker": c["broker"], "from_ms": A(c["from_ms"]), "to_ms": A(c["to_ms"])}
                         for c in sim.coordinator_log],
        "hosts": {c.spec.name: {"ip": c.spec.ip, "client_id": c.client_id, "instance_id": c.spec.instance_id,
                                "clock_skew_ms": sim.skew[c.spec.name], **_library_of(sim, c.spec.name)}
                  for c in sim.clients.values()},
        "generations": gens,
        "members": members,
        "ownership": ownership,
        "commit_requests": len(sim.commits),
        "commits": commits,
        "final_committed": dict(sorted(sim.committed.items())),
        "admin_resets": [{"ts_ms": A(r["ts"]), "mode": r["mode"], "error": r["error"]}
                         for r in getattr(sim, "admin_resets", [])],
        "reprocessed": [{**r, "first_ts_ms": A(r["first_ts_ms"]), "again_ts_ms": A(r["again_ts_ms"]),
                         "knowable": knowable(sim, r)} for r in reprocessed_ranges(sim)],
        "skipped": [{**s, "ts_ms": A(s["ts_ms"]), "knowable": knowable(sim, s)} for s in skipped_ranges(sim)],
        "files": files,
    }


def _config(sim: Simulation) -> dict[str, Any]:
    sc = sim.sc
    strategy = list(sc.consumers[0].assignors) if sc.consumers else []
    if sc.consumers and all(is_kafkajs(c) for c in sc.consumers):
        # KafkaJS's own settings (clients.py): no max poll interval; rebalanceTimeout is JoinGroup's
        spec = sc.consumers[0]
        return {"session.timeout.ms": setting(spec, "session.timeout.ms", sc.session_ms),
                "heartbeat.interval.ms": setting(spec, "heartbeat.interval.ms", sc.heartbeat_ms),
                "max.poll.interval.ms": None,
                "rebalance.timeout.ms": setting(spec, "max.poll.interval.ms", sc.max_poll_ms),
                "partition.assignment.strategy": strategy}
    return {"session.timeout.ms": sc.session_ms, "heartbeat.interval.ms": sc.heartbeat_ms,
            "max.poll.interval.ms": sc.max_poll_ms, "partition.assignment.strategy": strategy}


def _library_of(sim: Simulation, host: str) -> dict[str, Any]:
    """The member's client library and version, only for scenarios whose members are not all Java
    (the other scenarios' truth stays as it was)."""
    if all(c.client == "java" for c in sim.sc.consumers):
        return {}
    spec = sim.clients[host].spec
    if is_librdkafka(spec):
        return {"client_library": "librdkafka", "client_version": RDKAFKA_VERSION,
                "binding": f"confluent-kafka-python {RDKAFKA_VERSION}"}
    if is_kafka_python(spec):
        return {"client_library": "kafka-python", "client_version": KAFKA_PYTHON_VERSION}
    if is_kafkajs(spec):
        return {"client_library": "kafkajs", "client_version": KAFKAJS_VERSION}
    return {"client_library": "java", "client_version": ERA_VERSION[sim.sc.client_version]}


def reprocessed_ranges(sim: Simulation) -> list[dict[str, Any]]:
    """Offsets delivered to the application more than once, merged into ranges."""
    out: list[dict[str, Any]] = []
    by_tp: dict[str, list[dict[str, Any]]] = {}
    for r in sim.processed:
        by_tp.setdefault(r["partition"], []).append(r)
    for tp, rs in sorted(by_tp.items()):
        rs.sort(key=lambda r: (r["start_ms"], r["from"]))
        seen: list[tuple[int, int, dict[str, Any]]] = []  # merged, disjoint, sorted by offset
        for r in rs:
            for a, b, first in seen:
                if a >= r["to"]:
                    break
                lo, hi = max(a, r["from"]), min(b, r["to"])
                if lo < hi:
                    cause = _cause_before(sim, tp, r["start_ms"])
                    last = out[-1] if out else None
                    if last and last["partition"] == tp and last["to"] == lo and \
                            last["again_member_id"] == r["member_id"] and last["cause"] == cause:
                        last["to"] = hi
                    else:
                        out.append({"partition": tp, "from": lo, "to": hi, "first_member_id": first["member_id"],
                                    "again_member_id": r["member_id"], "first_ts_ms": first["start_ms"],
                                    "again_ts_ms": r["start_ms"], "cause": cause})
            _insert(seen, (r["from"], r["to"], r))
    return out


def _insert(seen: list[tuple[int, int, dict[str, Any]]], item: tuple[int, int, dict[str, Any]]) -> None:
    """Insert an interval, keeping the list sorted and disjoint (the earliest processing wins)."""
    a, b, r = item
    pieces = [(a, b)]
    for x, y, _first in seen:
        nxt = []
        for p, q in pieces:
            if q <= x or p >= y:
                nxt.append((p, q))
            else:
                if p < x:
                    nxt.append((p, x))
                if q > y:
                    nxt.append((y, q))
        pieces = nxt
    out = seen + [(p, q, r) for p, q in pieces]
    out.sort(key=lambda t: t[0])
    merged: list[tuple[int, int, dict[str, Any]]] = []
    for t in out:  # adjacent ranges first processed by the same member collapse into one
        if merged and merged[-1][1] == t[0] and merged[-1][2]["member_id"] == t[2]["member_id"]:
            merged[-1] = (merged[-1][0], t[1], merged[-1][2])
        else:
            merged.append(t)
    seen[:] = merged


def _cause_before(sim: Simulation, tp: str, t: int) -> str:
    jumps = [j for j in sim.position_jumps if j["partition"] == tp and j["ts"] <= t and j["to"] < j["from"]]
    if jumps and any(r["kind"] == "admin_reset" and r["partition"] == tp and r["ts"] <= jumps[-1]["ts"]
                     and r["offset"] == jumps[-1]["to"] for r in sim.commits):
        return "offset rewind (committed offset moved back by an admin reset)"
    return "rebalance: the new owner resumed from the last committed offset, before the previous owner's progress"


def skipped_ranges(sim: Simulation) -> list[dict[str, Any]]:
    """Offsets never delivered because a consumer's position jumped forward."""
    out = []
    for j in sim.position_jumps:
        if j["to"] > j["from"]:
            why = j["why"]
            if why == "committed offset":
                why = "committed offset moved forward by an admin reset (to latest)"
            out.append({"partition": j["partition"], "from": j["from"], "to": j["to"], "ts_ms": j["ts"],
                        "member_id": j["member_id"], "cause": why})
    return out


def knowable(sim: Simulation, rng: dict[str, Any]) -> dict[str, bool]:
    """Which bounds of an offset range the scenario's files prove.

    A bound is proven when it is an offset some line states for that partition: a committed offset
    (every successful commit is a record of the __consumer_offsets dump, an administrator's reset
    included) or a position a consumer logged (`Resetting offset for partition X to position ...`,
    `Setting offset for partition X to the committed offset ...`). What an application processed
    past its last commit is logged nowhere: the end of a range processed twice after a rebalance
    is then only an estimate, and so is the start 0 of a range skipped on a partition that had no
    committed offset (the log's start offset is not logged)."""
    tp = rng["partition"]
    stated = {c["offset"] for c in sim.commits if c["partition"] == tp}
    stated |= {j["to"] for j in sim.position_jumps if j["partition"] == tp}
    return {"from": rng["from"] in stated, "to": rng["to"] in stated}
