"""Drive the reference coordinator (pipeline.coordinator) with the members' observed behaviour, once
with the settings in force and once with the what-if settings, and compare what the broker would do.

Each client process (one log stream: source, client id) becomes a scripted consumer:
  * it starts (JoinGroup with the member-id handshake, KIP-394) when its log shows its first join,
    and leaves (LeaveGroup) when its log shows a shutdown or unsubscribe; a process whose log stops
    early simply stops heartbeating (a crash);
  * its heartbeat thread sends a Heartbeat every heartbeat.interval.ms while Stable
    (AbstractCoordinator.HeartbeatThread), except during the silences its log shows (heartbeat gaps,
    the silence before an expiry);
  * a poll stall longer than max.poll.interval.ms makes the heartbeat thread leave the group
    (AbstractCoordinator.HeartbeatThread, KIP-62, 0.10.1+) and the process rejoins when its poll loop
    comes back;
  * on REBALANCE_IN_PROGRESS it rejoins with its member id, on UNKNOWN_MEMBER_ID /
    ILLEGAL_GENERATION with a fresh one (AbstractCoordinator.HeartbeatResponseHandler), and the
    leader sends an assignment in SyncGroup (the assignment's content does not change timing).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Any

from pipeline.replay_rules.collect import GroupState
from pipeline.replay_rules.settings import EffectiveSettings

MAX_HEARTBEATS = 2_000_000     # a bound on simulated work for very long histories


@dataclass
class Proc:
    name: str
    client_id: str
    instance_id: str | None
    lifetimes: list[tuple[int, int | None]] = field(default_factory=list)   # (start, clean leave or None)
    silences: list[tuple[int, int]] = field(default_factory=list)
    stalls: list[tuple[int, int | None]] = field(default_factory=list)      # (last poll, poll loop back)
    last_ms: int = 0
    # simulation state
    member_id: str = ""
    generation: int = -1
    state: str = "down"                  # down | joining | syncing | stable
    up: bool = False


def behaviours(st: GroupState, cfg: EffectiveSettings) -> tuple[list[Proc], int]:
    """The scripted processes, and how many members are seen only in broker/dump logs (not driven)."""
    procs: dict[tuple[str, str | None], Proc] = {}
    joins: dict[tuple[str, str | None], list[int]] = {}
    driven_members: set[str] = set()
    for gen in st.gens.values():
        for mem in gen.members.values():
            if mem.stream is None:
                continue
            start = mem.join_start_ms if mem.join_start_ms is not None else mem.joined_ms
            if start is None:
                continue
            joins.setdefault(mem.stream, []).append(start)
            driven_members.add(mem.member_id)
            if mem.stream not in procs:
                src, cid = mem.stream
                procs[mem.stream] = Proc(f"{cid or '?'}@{src}", cid or "consumer", mem.instance_id)
    clean: dict[tuple[str, str | None], list[int]] = {}
    for ob in st.observed("leave"):
        if ob.facts.get("why") in ("shutdown", "left", "unsubscribed") and ob.ts_ms is not None:
            lf = st.lives.get(ob.member_id or "")
            if lf is not None:
                clean.setdefault((lf.source, lf.client_id), []).append(ob.ts_ms)
    for key, p in procs.items():
        s = st.streams.get(key)
        p.last_ms = s.last_ms if s is not None and s.last_ms is not None else 0
        starts = sorted(joins[key])
        leaves = sorted(clean.get(key, []))
        t = starts[0]
        while t is not None:
            end = next((x for x in leaves if x >= t), None)
            p.lifetimes.append((t, end))
            t = next((x for x in starts if end is not None and x > end), None)
    # silences and stalls of every member id a process used
    floor = max(2 * cfg.heartbeat_interval_ms, 5_000)
    for lf in st.lives.values():
        p = procs.get((lf.source, lf.client_id))
        if p is None:
            continue
        for a, b, _, _ in lf.hb_gaps:
            p.silences.append((a, b))
        if lf.removed_reason == "session_expiry" and lf.removed_ms is not None:
            last = lf.last_hb_ms if lf.last_hb_ms is not None and lf.last_hb_ms <= lf.removed_ms else None
            if last is not None:
                back = lf.next_after(lf.removed_ms)
                p.silences.append((last, back if back is not None else (st.last_ms or last)))
    for ob in st.observed("poll_timeout"):
        p = procs.get((ob.facts.get("source"), ob.facts.get("client_id")))
        if p is not None and ob.ts_ms is not None and cfg.max_poll_interval_ms is not None:
            p.stalls.append((ob.ts_ms - cfg.max_poll_interval_ms, ob.facts.get("resumed_ms")))
    for p in procs.values():
        p.silences = sorted(x for x in set(p.silences) if x[1] - x[0] > floor)
    broker_only = len({m for g in st.gens.values() for m in g.members} - driven_members)
    return sorted(procs.values(), key=lambda p: p.name), broker_only


def _in(intervals: list[tuple[int, int]], t: int) -> bool:
    return any(a < t < b for a, b in intervals)


def simulate(procs: list[Proc], cfg: EffectiveSettings, end_ms: int, group_id: str, impl: str) -> dict[str, Any]:
    from pipeline.coordinator import CoordinatorConfig, GroupCoordinator

    coord = GroupCoordinator(CoordinatorConfig(impl=impl, group_initial_rebalance_delay_ms=cfg.initial_rebalance_delay_ms))
    q: list[tuple[int, int, str, int, Any]] = []
    seq = 0
    owner: dict[str, str] = {}
    by_request: dict[int, tuple[int, str]] = {}      # request id -> (proc index, op)
    stats = {"heartbeats": 0, "poll_timeouts": [], "truncated": False}

    def push(t: int, what: str, i: int, arg: Any = None) -> None:
        nonlocal seq
        seq += 1
        heapq.heappush(q, (t, seq, what, i, arg))

    for i, p in enumerate(procs):
        for start, leave in p.lifetimes:
            push(start, "start", i)
            if leave is not None:
                push(leave, "stop", i)
        if not any(leave is not None for _, leave in p.lifetimes[-1:]) and p.last_ms and end_ms - p.last_ms > cfg.session_timeout_ms:
            push(p.last_ms, "crash", i)
        for last_poll, back in p.stalls:
            if cfg.max_poll_interval_ms is not None and (back is None or back - last_poll > cfg.max_poll_interval_ms):
                push(last_poll + cfg.max_poll_interval_ms, "poll_timeout", i, back)

    rto = cfg.rebalance_timeout_ms

    def join(i: int, t: int, fresh: bool = False) -> None:
        p = procs[i]
        if fresh:
            p.member_id, p.generation = "", -1
        p.state = "joining"
        tk = coord.join(group_id, p.member_id, instance_id=p.instance_id, client_id=p.client_id,
                        protocols=((cfg.assignor, b""),), session_timeout_ms=cfg.session_timeout_ms,
                        rebalance_timeout_ms=rto, now_ms=t)
        handle(i, "join", tk.response, t, tk.request_id)

    def handle(i: int, op: str, resp: Any, t: int, request_id: int) -> None:
        p = procs[i]
        if resp is None:
            by_request[request_id] = (i, op)
            return
        if not p.up:
            return
        err = resp.error
        if op == "join":
            if err == "MEMBER_ID_REQUIRED":
                p.member_id = resp.member_id
                owner[p.member_id] = p.name
                join(i, t)
            elif err == "NONE":
                p.member_id, p.generation = resp.member_id, resp.generation
                owner[p.member_id] = p.name
                p.state = "syncing"
                assignment = {m[0]: b"" for m in resp.members} if resp.leader == p.member_id else None
                tk = coord.sync(group_id, p.member_id, p.generation, instance_id=p.instance_id,
                                assignment=assignment, now_ms=t)
                handle(i, "sync", tk.response, t, tk.request_id)
            elif err in ("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION"):
                join(i, t, fresh=True)
            elif err == "REBALANCE_IN_PROGRESS":
                join(i, t)
            else:
                p.state = "down"
        elif op == "sync":
            if err == "NONE":
                p.state = "stable"
            elif err == "REBALANCE_IN_PROGRESS":
                join(i, t)
            elif err in ("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION"):
                join(i, t, fresh=True)

    def deliveries(t: int) -> None:
        for d in coord.drain_delivered():
            got = by_request.pop(d.request_id, None)
            if got is not None:
                handle(got[0], got[1], d.response, max(t, d.at_ms), d.request_id)

    while q:
        t, _, what, i, arg = heapq.heappop(q)
        if t > end_ms:
            break
        p = procs[i]
        coord.advance_time(t)
        deliveries(t)
        if what == "start":
            if not p.up:
                p.up = True
                join(i, t, fresh=True)
                push(t + cfg.heartbeat_interval_ms, "hb", i)
        elif what in ("stop", "crash"):
            if p.up and what == "stop" and p.member_id:
                coord.leave(group_id, [(p.member_id, p.instance_id)], now_ms=t)
            p.up, p.state = False, "down"
        elif what == "poll_timeout":
            if p.up and p.member_id:
                coord.leave(group_id, [(p.member_id, p.instance_id)], now_ms=t)
                stats["poll_timeouts"].append(p.name)
                p.state = "down"
                p.member_id, p.generation = "", -1
                if arg is not None:
                    push(arg, "resume", i)
                else:
                    p.up = False
        elif what == "resume":
            if p.up and p.state == "down":
                join(i, t, fresh=True)
        elif what == "hb":
            if not p.up:
                continue
            if p.state == "stable" and not _in(p.silences, t):
                stats["heartbeats"] += 1
                tk = coord.heartbeat(group_id, p.member_id, p.generation, instance_id=p.instance_id, now_ms=t)
                err = tk.error
                if err == "REBALANCE_IN_PROGRESS":
                    join(i, t)
                elif err in ("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION", "FENCED_INSTANCE_ID"):
                    join(i, t, fresh=True)
            if stats["heartbeats"] >= MAX_HEARTBEATS:
                stats["truncated"] = True
                break
            push(t + cfg.heartbeat_interval_ms, "hb", i)
        deliveries(t)
    coord.advance_time(end_ms)
    deliveries(end_ms)
    rebalances, expelled = 0, []
    for e in coord.drain_events():
        if e.kind == "rebalance_prepared":
            rebalances += 1
        elif e.kind == "member_removed" and e.reason == "session_timeout":
            expelled.append(owner.get(e.member_id or "", e.member_id or "?"))
    return {"rebalances": rebalances, "expelled": expelled, "poll_timeouts": stats["poll_timeouts"],
            "heartbeats": stats["heartbeats"], "truncated": stats["truncated"]}


def compare(events: Any, result: Any, new_cfg: EffectiveSettings) -> dict[str, Any] | None:
    """Run the model with the observed and the what-if settings; None when nothing can be driven."""
    st, old_cfg = result.state, result.settings
    if st is None or old_cfg is None or st.last_ms is None:
        return None
    procs, broker_only = behaviours(st, old_cfg)
    if not procs:
        return None
    impl = "java" if old_cfg.version is not None and old_cfg.version >= (4, 0, 0) else "scala"
    gid = st.group_id or "group"

    def fresh() -> list[Proc]:
        return [Proc(p.name, p.client_id, p.instance_id, list(p.lifetimes), list(p.silences), list(p.stalls),
                     p.last_ms) for p in procs]

    before = simulate(fresh(), old_cfg, st.last_ms, gid, impl)
    after = simulate(fresh(), new_cfg, st.last_ms, gid, impl)
    return {"impl": impl, "processes": len(procs), "members_not_driven": broker_only,
            "rebalances_observed_settings": before["rebalances"], "rebalances_new_settings": after["rebalances"],
            "expelled_observed_settings": sorted(before["expelled"]), "expelled_new_settings": sorted(after["expelled"]),
            "poll_timeouts_observed_settings": before["poll_timeouts"],
            "poll_timeouts_new_settings": after["poll_timeouts"],
            "truncated": before["truncated"] or after["truncated"]}
