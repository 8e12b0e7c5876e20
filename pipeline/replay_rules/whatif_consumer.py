"""What-if for consumer-protocol (KIP-848) groups, through the consumer-protocol reference model.

The members' observed behaviour is read from the logs (when each process joined and left, how long it was
frozen before a session-expiry fence, how long its revocations took) and replayed twice through
`pipeline.coordinator.consumer_protocol.ConsumerCoordinator` by the generator's 4.0 client
(pipeline/generator/kip848.py): with the settings in force and with the new ones. The answer counts group
epochs, fencings (session expiry, rebalance timeout) and partitions revoked under each.

Settings that matter here are the broker's: `session.timeout.ms` (= group.consumer.session.timeout.ms),
`heartbeat.interval.ms` (group.consumer.heartbeat.interval.ms), `partition.assignment.strategy` (the
server assignor: uniform or range) and the member's `max.poll.interval.ms` (its rebalance timeout).
"""

from __future__ import annotations

from typing import Any

from parsers.events import Event
from pipeline.replay_rules.settings import EffectiveSettings
from pipeline.replay_rules.state import stream_namer
from pipeline.replay_rules.whatif import WhatIf

SERVER_ASSIGNORS = ("uniform", "range")


def _behaviour(events: list[Event], result: Any) -> tuple[int, int, dict[str, int], list[dict[str, Any]]]:
    """(t0, duration, topics {name: partitions}, members [{name, member_id, join_ms, leave_ms, stall, revoke_ms}])
    relative to the first event; one member per client log (a process)."""
    cfg: EffectiveSettings = result.settings
    times = [e.ts_ms for e in events if e.ts_ms is not None]
    t0, t1 = min(times), max(times)
    topics: dict[str, int] = {}
    for e in events:
        if e.side == "client":
            for tp in e.partitions or ():
                topic, _, part = str(tp).rpartition("-")
                if topic and part.isdigit():
                    topics[topic] = max(topics.get(topic, 0), int(part) + 1)
    by_source: dict[str, list[Event]] = {}
    name = stream_namer(events, rotation=False)   # a file of several processes: one member per origin
    for e in events:
        if e.side == "client":
            by_source.setdefault(name(e), []).append(e)
    removals = [f for f in result.findings if f["kind"] == "session_expiry"]
    members = []
    for source, evs in sorted(by_source.items()):
        mid = next((e.member_id for e in evs if e.member_id and e.member_id != "<no ID>"), None)
        states = [(e, str((e.extra or {}).get("from_state") or "").upper(), str((e.extra or {}).get("to_state") or "").upper())
                  for e in evs if e.kind == "member_state_changed"]
        join = next((e.ts_ms for e, frm, to in states if to == "JOINING" and frm in ("UNSUBSCRIBED", "")), None)
        if join is None:
            continue
        leave = next((e.ts_ms for e, _, to in states if to in ("PREPARE_LEAVING", "LEAVING")), None)
        stall = None
        for f in removals:
            if mid in f["members"] and f["start_ms"] is not None:
                last_hb = f["start_ms"] - cfg.session_timeout_ms
                resume = next((e.ts_ms for e in evs if e.ts_ms is not None and e.ts_ms > f["start_ms"]), None)
                stall = (last_hb + 1 - t0, (resume if resume is not None else t1 + 1) - t0)
        revoke = 3
        for i, e in enumerate(evs):
            if e.kind == "partitions_revoked" and i + 1 < len(evs) and e.ts_ms is not None:
                # the callback returned: the partitions added next, lost next (fenced meanwhile), or the ack
                nxt = next((x.ts_ms for x in evs[i + 1:] if x.ts_ms is not None and (
                    x.kind in ("partitions_assigned", "partitions_lost") or (
                        x.kind == "member_state_changed"
                        and str((x.extra or {}).get("to_state") or "").upper() == "ACKNOWLEDGING"))), None)
                if nxt is not None:
                    revoke = max(revoke, nxt - e.ts_ms)
        members.append({"name": source, "member_id": mid, "join_ms": join - t0,
                        "leave_ms": leave - t0 if leave is not None else None, "stall": stall, "revoke_ms": revoke})
    return t0, t1 - t0, topics, members


def _run(topics: dict[str, int], members: list[dict[str, Any]], duration_ms: int, cfg: EffectiveSettings,
         group_id: str | None) -> dict[str, Any]:
    from pipeline.generator.kip848 import KipSim, KMember, KScenario

    assignor = cfg.assignor if cfg.assignor in SERVER_ASSIGNORS else "uniform"
    sc = KScenario("what-if", 848, group_id or "group", topics,
                   [KMember(m["name"], "0.0.0.0", m["join_ms"], leave_ms=m["leave_ms"], stall=m["stall"],
                            revoke_ms=m["revoke_ms"]) for m in members],
                   duration_ms + 10_000, session_ms=cfg.session_timeout_ms, heartbeat_ms=cfg.heartbeat_interval_ms,
                   max_poll_ms=cfg.max_poll_interval_ms or 300000, assignor=assignor)
    sim = KipSim(sc).run()
    names = {c.member_id: c.spec.name for c in sim.clients}
    fenced = [{"member": names.get(f["member_id"], f["member_id"]), "cause": f["cause"]}
              for f in sim.truth_fencings if f["side"] == "broker"]
    return {"epochs": len(sim.truth_epochs), "fenced": fenced, "assignor": assignor,
            "revoked": sum(len(r["revoked"]) for r in sim.truth_reconciliations)}


def analyse(events: list[Event], result: Any, new_cfg: EffectiveSettings) -> WhatIf:
    old: EffectiveSettings = result.settings
    names = (("session_timeout_ms", "session.timeout.ms"), ("heartbeat_interval_ms", "heartbeat.interval.ms"),
             ("max_poll_interval_ms", "max.poll.interval.ms"), ("assignor", "partition.assignment.strategy"))
    changed = {label: (getattr(old, a), getattr(new_cfg, a)) for a, label in names if getattr(old, a) != getattr(new_cfg, a)}
    w = WhatIf(group_id=result.group_id, changed=changed, rebalances_observed=len(result.generations))
    t0, span, topics, members = _behaviour(list(events), result)
    if not members or not topics:
        w.undetermined.append({"generation": None, "cause": None, "member": None,
                               "why": "no client log shows a member's behaviour: the model cannot be driven"})
        return w
    base, new = _run(topics, members, span, old, result.group_id), _run(topics, members, span, new_cfg, result.group_id)
    for f in result.findings:
        if f["kind"] != "session_expiry" or not f["members"]:
            continue
        mid = f["members"][0]
        m = next((x for x in members if x["member_id"] == mid), None)
        if m is None or m["stall"] is None:
            continue
        silence = m["stall"][1] - m["stall"][0] + 1
        if silence < new_cfg.session_timeout_ms:
            w.expulsions_avoided.append({"member": mid, "silence_ms": silence,
                                         "session_timeout_ms": (old.session_timeout_ms, new_cfg.session_timeout_ms)})
            gens = [g for g in result.generations if g["trigger_member"] == mid and g["started_ms"] is not None
                    and g["started_ms"] >= f["start_ms"]][:2]
            for g in gens:
                w.rebalances_avoided.append({"generation": g["generation"], "cause": g["cause"], "member": mid,
                                             "why": f"a {silence} ms silence stays under session.timeout.ms = "
                                                    f"{new_cfg.session_timeout_ms} (the member is not fenced and "
                                                    "does not rejoin)"})
    for f in result.findings:
        details = f.get("details_json") or ""
        if f["kind"] != "rebalance_stuck" or '"rebalance_timeout"' not in details or not f["members"]:
            continue
        mid = f["members"][0]
        m = next((x for x in members if x["member_id"] == mid), None)
        took = m["revoke_ms"] if m is not None else None
        new_limit = new_cfg.max_poll_interval_ms or 300000
        if took is None:
            w.undetermined.append({"generation": f["generation"], "cause": "rebalance_timeout", "member": mid,
                                   "why": "no client log shows how long its revocation took"})
        elif took < new_limit:
            gens = [g for g in result.generations if g["trigger_member"] == mid and g["started_ms"] is not None
                    and g["started_ms"] >= f["start_ms"]][:2]
            for g in gens:
                w.rebalances_avoided.append({"generation": g["generation"], "cause": g["cause"], "member": mid,
                                             "why": f"its revocation took {took} ms, under a rebalance timeout "
                                                    f"(max.poll.interval.ms) of {new_limit} ms: not fenced"})
    if old.assignor != new_cfg.assignor:
        w.assignor = {"from": base["assignor"], "to": new["assignor"],
                      "note": f"{base['revoked']} partition(s) revoked with '{base['assignor']}', {new['revoked']} "
                              f"with '{new['assignor']}' (server-side assignors of the consumer protocol)"}
    w.model = {"impl": "java, consumer protocol (KIP-848)", "rebalances_observed_settings": base["epochs"],
               "rebalances_new_settings": new["epochs"],
               "expelled_observed_settings": [f"{f['member']} ({f['cause']})" for f in base["fenced"]],
               "expelled_new_settings": [f"{f['member']} ({f['cause']})" for f in new["fenced"]]}
    return w
