"""The truth agrees with what the reference coordinator decides when the simulation's requests are
replayed through a fresh model (generations, leaders, members, protocols, assignments)."""

from __future__ import annotations

import pytest

from pipeline.coordinator import CoordinatorConfig, GroupCoordinator
from pipeline.generator.scenarios import by_name
from pipeline.generator.truth import build_truth


def replay(requests: list[dict], group: str, delay_ms: int, end_ms: int) -> list[dict]:
    coord = GroupCoordinator(CoordinatorConfig(impl="scala", group_initial_rebalance_delay_ms=delay_ms))
    gens: dict[int, dict] = {}

    def collect() -> None:
        for e in coord.drain_events():
            if e.kind == "join_completed":
                gens[e.generation] = {"generation": e.generation, "leader": e.member_id,
                                      "protocol": e.detail["protocol"], "members": sorted(e.detail["members"]),
                                      "assignment": {}}
            elif e.kind == "group_empty":
                gens[e.generation] = {"generation": e.generation, "leader": None, "protocol": None,
                                      "members": [], "assignment": {}}
            elif e.kind == "group_stable":
                snap = coord.group(group)
                gens[snap.generation]["assignment"] = {
                    m: sorted(p for p in a.decode().split(",") if p) for m, a in snap.assignment.items()}

    for r in requests:
        now, op = r["at_ms"], r["op"]
        if op == "join":
            coord.join(group, r["member_id"], instance_id=r["instance_id"], client_id=r["client_id"],
                       client_host="/" + r["host"], protocols=[(n, m.encode()) for n, m in r["protocols"]],
                       session_timeout_ms=r["session_ms"], rebalance_timeout_ms=r["rebalance_ms"],
                       require_known_member_id=r["require_known_member_id"], new_member_id=r["new_member_id"],
                       reason=r["reason"], now_ms=now)
        elif op == "sync":
            a = r["assignment"]
            coord.sync(group, r["member_id"], r["generation"],
                       assignment=None if a is None else {m: v.encode() for m, v in a.items()}, now_ms=now)
        elif op == "heartbeat":
            coord.heartbeat(group, r["member_id"], r["generation"], now_ms=now)
        elif op == "leave":
            coord.leave(group, [(r["member_id"], None)], now_ms=now)
        elif op == "resign":
            coord.resign(coord.partition_for(group), now_ms=now)
        elif op == "elect":
            coord.elect(coord.partition_for(group), now_ms=now)
        elif op == "commit":
            coord.commit(group, r["member_id"], r["generation"], dict(r["offsets"]), now_ms=now)
        collect()
    coord.advance_time(end_ms)
    collect()
    return [gens[k] for k in sorted(gens)]


@pytest.mark.parametrize("name", sorted(by_name()))
def test_truth_generations_match_replayed_model(name, simulations):
    sim = simulations[name]
    sc = sim.sc
    truth = build_truth(sim, {})
    got = replay(sim.driver.requests, sc.group_id, 0 if sc.broker_version == "0.10" else 3000, sc.duration_ms)
    want = [{"generation": g["generation"], "leader": g["leader"], "protocol": g["protocol"],
             "members": sorted(m["member_id"] for m in g["members"]),
             "assignment": {m: sorted(p) for m, p in g["assignment"].items()}} for g in truth["generations"]]
    assert [g["generation"] for g in got] == [g["generation"] for g in want]
    for g, w in zip(got, want, strict=True):
        assert g["leader"] == w["leader"], g["generation"]
        assert g["members"] == w["members"], g["generation"]
        assert g["protocol"] == w["protocol"], g["generation"]
        assert g["assignment"] == w["assignment"], g["generation"]
