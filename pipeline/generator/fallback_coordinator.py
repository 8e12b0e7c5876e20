"""A compact classic group coordinator used only while the reference model is not importable.

The generator talks to "a coordinator" through `broker_model.CoordinatorPort`; this module is the
stand-in implementation of that port. It mirrors the Scala coordinator of Kafka 3.8
(core/src/main/scala/kafka/coordinator/group/GroupCoordinator.scala, GroupMetadata.scala,
DelayedJoin.scala, DelayedHeartbeat.scala), restricted to what the generator's clients send:
dynamic members with the member-id handshake (JoinGroup v4+), static members (group.instance.id),
the initial rebalance delay, join/sync/session timers, LeaveGroup, Heartbeat and OffsetCommit.
Time comes only from the callers (`now` in ms).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from random import Random
from typing import Any

Response = dict[str, Any]
Completion = tuple[str, Response]


@dataclass
class _Member:
    member_id: str
    instance_id: str | None
    client_id: str
    host: str
    protocols: list[tuple[str, str]]
    session_ms: int
    rebalance_ms: int
    deadline: int
    join_ref: str | None = None
    sync_ref: str | None = None
    assignment: str = ""


@dataclass
class _Group:
    group_id: str
    state: str = "Empty"
    generation: int = 0
    protocol: str | None = None
    leader: str | None = None
    members: dict[str, _Member] = field(default_factory=dict)
    pending: dict[str, int] = field(default_factory=dict)  # MEMBER_ID_REQUIRED ids -> expiry
    static: dict[str, str] = field(default_factory=dict)
    join_deadline: int | None = None
    initial_delay: int | None = None  # remaining budget of the initial-delay timer
    new_member_added: bool = False
    sync_deadline: int | None = None
    awaiting_sync: set[str] = field(default_factory=set)


class FallbackCoordinator:
    """Classic group coordinator (Scala 3.8 semantics) for one broker's groups."""

    def __init__(self, rng: Random, initial_rebalance_delay_ms: int = 3000,
                 new_member_join_timeout_ms: int = 300000) -> None:
        self._rng = rng
        self.initial_delay_ms = initial_rebalance_delay_ms
        self.new_member_join_timeout_ms = new_member_join_timeout_ms
        self.groups: dict[str, _Group] = {}
        self.offsets: dict[str, dict[str, int]] = {}

    # ids: GroupCoordinator.scala newMemberId = clientId + "-" + UUID
    def new_member_id(self, client_id: str, instance_id: str | None) -> str:
        # GroupMetadata.generateMemberId: clientId-UUID (dynamic) / groupInstanceId-UUID (static)
        u = uuid.UUID(int=self._rng.getrandbits(128), version=4)
        return f"{instance_id if instance_id is not None else client_id}-{u}"

    def _new_member_id(self, client_id: str) -> str:
        nid, self._next_id = getattr(self, "_next_id", None), None
        return nid or self.new_member_id(client_id, None)

    def _group(self, gid: str) -> _Group:
        return self.groups.setdefault(gid, _Group(gid))

    # -- JoinGroup (GroupCoordinator.handleJoinGroup, doNewMemberJoinGroup, doCurrentMemberJoinGroup,
    #    doStaticNewMemberJoinGroup; Kafka 2.3-3.9)
    def join(self, now: int, group_id: str, ref: str, member_id: str, instance_id: str | None,
             client_id: str, host: str, protocols: list[tuple[str, str]], session_ms: int,
             rebalance_ms: int, require_known_member_id: bool = True, new_member_id: str | None = None,
             reason: str | None = None) -> list[Completion]:
        g = self._group(group_id)
        self._next_id = new_member_id
        out: list[Completion] = []
        if g.state != "Empty" and g.members and g.protocol is not None:
            names = {n for n, _ in protocols}
            if not any(all(p in {n for n, _ in m.protocols} for m in g.members.values()) and p in names
                       for p in names):
                return [(ref, {"error": "INCONSISTENT_GROUP_PROTOCOL", "generation": -1})]
        if not member_id:
            if instance_id is not None and instance_id in g.static:
                old = g.static[instance_id]
                m = g.members.pop(old)
                new_id = self._new_member_id(client_id)
                if m.join_ref:
                    out.append((m.join_ref, {"error": "FENCED_INSTANCE_ID", "generation": -1}))
                if m.sync_ref:
                    out.append((m.sync_ref, {"error": "FENCED_INSTANCE_ID", "generation": -1}))
                m.member_id, m.join_ref, m.sync_ref = new_id, None, None
                m.protocols, m.deadline = protocols, now + session_ms
                g.members[new_id] = m
                g.static[instance_id] = new_id
                if g.leader == old:
                    g.leader = new_id
                if g.state == "Stable" and self._select_protocol(g) == g.protocol:
                    # static member replaced without changing the protocol: no rebalance (2.6.1+)
                    out.append((ref, {"error": "NONE", "member_id": new_id, "generation": g.generation,
                                      "leader": g.leader, "protocol": g.protocol, "members": [],
                                      "static_rejoin": True}))
                    return out
                m.join_ref = ref
                self._prepare_rebalance(now, g, f"Updating metadata for static member {new_id}")
                out += self._maybe_complete_join(now, g)
                return out
            new_id = self._new_member_id(client_id)
            if instance_id is None and require_known_member_id:
                g.pending[new_id] = now + session_ms
                return [(ref, {"error": "MEMBER_ID_REQUIRED", "member_id": new_id, "generation": -1})]
            return out + self._add_member(now, g, ref, new_id, instance_id, client_id, host, protocols,
                                          session_ms, rebalance_ms)
        if member_id in g.pending:
            del g.pending[member_id]
            return self._add_member(now, g, ref, member_id, instance_id, client_id, host, protocols,
                                    session_ms, rebalance_ms)
        m = g.members.get(member_id)
        if m is None:
            return [(ref, {"error": "UNKNOWN_MEMBER_ID", "generation": -1})]
        if m.join_ref and m.join_ref != ref:
            m.join_ref = None  # a superseded parked join is never answered
        changed = m.protocols != protocols
        m.protocols, m.session_ms, m.rebalance_ms = protocols, session_ms, rebalance_ms
        if g.state == "PreparingRebalance":
            m.join_ref = ref
            return self._maybe_complete_join(now, g)
        if g.state == "CompletingRebalance":
            if not changed:
                return [(ref, self._join_answer(g, m))]
            m.join_ref = ref
            self._prepare_rebalance(now, g, f"Updating metadata for member {member_id} during CompletingRebalance")
            return self._maybe_complete_join(now, g)
        if g.state == "Stable":
            if member_id == g.leader or changed:
                m.join_ref = ref
                why = (f"Leader {member_id} re-joining group during Stable" if member_id == g.leader
                       else f"Updating metadata for member {member_id} during Stable")
                self._prepare_rebalance(now, g, why)
                return self._maybe_complete_join(now, g)
            m.deadline = now + m.session_ms
            return [(ref, self._join_answer(g, m))]
        return [(ref, {"error": "UNKNOWN_MEMBER_ID", "generation": -1})]

    def _add_member(self, now: int, g: _Group, ref: str, mid: str, iid: str | None, cid: str, host: str,
                    protocols: list[tuple[str, str]], session_ms: int, rebalance_ms: int) -> list[Completion]:
        m = _Member(mid, iid, cid, host, protocols, session_ms, rebalance_ms,
                    now + self.new_member_join_timeout_ms, join_ref=ref)
        g.members[mid] = m
        if iid is not None:
            g.static[iid] = mid
        if g.leader is None:
            g.leader = mid
        g.new_member_added = True
        if g.state in ("Stable", "CompletingRebalance", "Empty"):
            self._prepare_rebalance(now, g, f"Adding new member {mid} with group instance id {iid}")
        return self._maybe_complete_join(now, g)

    def _join_answer(self, g: _Group, m: _Member) -> Response:
        leader = m.member_id == g.leader
        members = [(x.member_id, x.instance_id, dict(x.protocols).get(g.protocol or "", ""))
                   for x in g.members.values()] if leader else []
        return {"error": "NONE", "member_id": m.member_id, "generation": g.generation,
                "leader": g.leader, "protocol": g.protocol, "members": members}

    # GroupCoordinator.prepareRebalance (+ InitialDelayedJoin for Empty groups)
    def _prepare_rebalance(self, now: int, g: _Group, reason: str) -> list[Completion]:
        out: list[Completion] = []
        if g.state == "CompletingRebalance":
            for m in g.members.values():
                if m.sync_ref:
                    out.append((m.sync_ref, {"error": "REBALANCE_IN_PROGRESS", "assignment": ""}))
                    m.sync_ref = None
        g.awaiting_sync.clear()
        g.sync_deadline = None
        timeout = max((m.rebalance_ms for m in g.members.values()), default=0)
        if g.state == "Empty":
            g.initial_delay = timeout
            g.join_deadline = now + min(self.initial_delay_ms, timeout)
            g.new_member_added = False
        else:
            g.initial_delay = None
            g.join_deadline = now + timeout
        g.state = "PreparingRebalance"
        self.last_reason = reason
        self._pending_out = out
        return out

    def _maybe_complete_join(self, now: int, g: _Group) -> list[Completion]:
        out, self._pending_out = getattr(self, "_pending_out", []), []
        if g.state != "PreparingRebalance" or g.initial_delay is not None:
            return out
        if all(m.join_ref for m in g.members.values()) and not g.pending:
            out += self._complete_join(now, g)
        return out

    def _select_protocol(self, g: _Group) -> str | None:
        if not g.members:
            return None
        common = set.intersection(*({n for n, _ in m.protocols} for m in g.members.values()))
        votes: dict[str, int] = {}
        for m in g.members.values():
            for n, _ in m.protocols:
                if n in common:
                    votes[n] = votes.get(n, 0) + 1
                    break
        return max(sorted(votes), key=lambda n: votes[n]) if votes else None

    # GroupCoordinator.onCompleteJoin
    def _complete_join(self, now: int, g: _Group) -> list[Completion]:
        out: list[Completion] = []
        for mid in [mid for mid, m in g.members.items() if not m.join_ref and m.instance_id is None]:
            self._remove(g, mid)
        g.join_deadline = None
        if g.members and not any(m.join_ref for m in g.members.values()):
            g.join_deadline = now + max(m.rebalance_ms for m in g.members.values())
            return out
        if g.leader not in g.members or not g.members[g.leader].join_ref:
            g.leader = next((mid for mid, m in g.members.items() if m.join_ref), None)
        g.generation += 1
        if not g.members:
            g.state, g.protocol, g.leader = "Empty", None, None
            return out
        g.protocol = self._select_protocol(g)
        g.state = "CompletingRebalance"
        for m in g.members.values():
            if m.join_ref:
                out.append((m.join_ref, self._join_answer(g, m)))
                m.join_ref = None
            m.deadline = now + m.session_ms
            m.assignment = ""
        g.awaiting_sync = set(g.members)
        g.sync_deadline = now + max(m.rebalance_ms for m in g.members.values())
        return out

    def _remove(self, g: _Group, mid: str) -> list[Completion]:
        m = g.members.pop(mid)
        out: list[Completion] = []
        if m.join_ref:
            out.append((m.join_ref, {"error": "UNKNOWN_MEMBER_ID", "generation": -1}))
        if m.sync_ref:
            out.append((m.sync_ref, {"error": "UNKNOWN_MEMBER_ID", "assignment": ""}))
        if m.instance_id is not None and g.static.get(m.instance_id) == mid:
            del g.static[m.instance_id]
        g.awaiting_sync.discard(mid)
        if g.leader == mid:
            g.leader = next(iter(g.members), None)
        return out

    def _remove_and_rebalance(self, now: int, g: _Group, mid: str, reason: str) -> list[Completion]:
        out = self._remove(g, mid)
        if g.state in ("Stable", "CompletingRebalance"):
            out += self._prepare_rebalance(now, g, reason)
            self._pending_out = []
        elif g.state == "PreparingRebalance":
            out += self._maybe_complete_join(now, g)
        return out

    # -- SyncGroup (GroupCoordinator.handleSyncGroup / doSyncGroup)
    def sync(self, now: int, group_id: str, ref: str, member_id: str, generation: int,
             assignment: dict[str, str] | None) -> list[Completion]:
        g = self._group(group_id)
        m = g.members.get(member_id)
        if m is None:
            return [(ref, {"error": "UNKNOWN_MEMBER_ID", "assignment": ""})]
        if generation != g.generation:
            return [(ref, {"error": "ILLEGAL_GENERATION", "assignment": ""})]
        if g.state == "PreparingRebalance":
            return [(ref, {"error": "REBALANCE_IN_PROGRESS", "assignment": ""})]
        g.awaiting_sync.discard(member_id)
        m.deadline = now + m.session_ms
        if g.state == "Stable":
            return [(ref, {"error": "NONE", "assignment": m.assignment})]
        m.sync_ref = ref
        out: list[Completion] = []
        if member_id == g.leader and assignment is not None:
            for x in g.members.values():
                x.assignment = assignment.get(x.member_id, "")
            g.state = "Stable"
            g.sync_deadline = None
            for x in g.members.values():
                if x.sync_ref:
                    out.append((x.sync_ref, {"error": "NONE", "assignment": x.assignment}))
                    x.sync_ref = None
        return out

    # -- Heartbeat (GroupCoordinator.handleHeartbeat)
    def heartbeat(self, now: int, group_id: str, member_id: str, generation: int) -> str:
        g = self._group(group_id)
        m = g.members.get(member_id)
        if m is None:
            return "UNKNOWN_MEMBER_ID"
        if generation != g.generation:
            return "ILLEGAL_GENERATION"
        m.deadline = now + m.session_ms
        if g.state == "PreparingRebalance":
            return "REBALANCE_IN_PROGRESS"
        return "NONE"

    # -- LeaveGroup (GroupCoordinator.handleLeaveGroup)
    def leave(self, now: int, group_id: str, member_id: str, reason: str) -> tuple[str, list[Completion]]:
        g = self._group(group_id)
        if member_id in g.pending:
            del g.pending[member_id]
            return "NONE", self._maybe_complete_join(now, g)
        if member_id not in g.members:
            return "UNKNOWN_MEMBER_ID", []
        return "NONE", self._remove_and_rebalance(
            now, g, member_id, f"removing member {member_id} on LeaveGroup; client reason: {reason}")

    # -- OffsetCommit (GroupCoordinator.handleCommitOffsets / doCommitOffsets)
    def commit(self, now: int, group_id: str, member_id: str, generation: int,
               offsets: dict[str, int]) -> str:
        g = self._group(group_id)
        if generation < 0 and g.state == "Empty":
            self.offsets.setdefault(group_id, {}).update(offsets)
            return "NONE"
        m = g.members.get(member_id)
        if m is None:
            return "UNKNOWN_MEMBER_ID"
        if generation != g.generation:
            return "ILLEGAL_GENERATION"
        if g.state == "CompletingRebalance":
            return "REBALANCE_IN_PROGRESS"
        m.deadline = now + m.session_ms
        self.offsets.setdefault(group_id, {}).update(offsets)
        return "NONE"

    # -- coordinator failover: the group is persisted, so it comes back as it was; sessions restart
    def resign(self, now: int, group_id: str) -> list[Completion]:
        return []

    def elect(self, now: int, group_id: str) -> list[Completion]:
        for m in self._group(group_id).members.values():
            m.deadline = now + m.session_ms
        return []

    # -- timers: DelayedHeartbeat, DelayedJoin / InitialDelayedJoin, DelayedSync
    def advance(self, now: int) -> list[Completion]:
        out: list[Completion] = []
        for g in self.groups.values():
            while True:
                due = self._next_due(g)
                if due is None or due[0] > now:
                    break
                t, what, arg = due
                if what == "pending":
                    del g.pending[arg]
                    out += self._maybe_complete_join(t, g)
                elif what == "session":
                    out += self._remove_and_rebalance(
                        t, g, arg, f"removing member {arg} on heartbeat expiration")
                elif what == "join":
                    if g.initial_delay is not None:
                        budget = g.initial_delay - self.initial_delay_ms
                        if g.new_member_added and budget > 0:
                            g.new_member_added = False
                            g.initial_delay = budget
                            g.join_deadline = t + min(self.initial_delay_ms, budget)
                            continue
                        g.initial_delay = None
                    out += self._complete_join(t, g)
                elif what == "sync":
                    g.sync_deadline = None
                    lagging = sorted(g.awaiting_sync)
                    for mid in lagging:
                        out += self._remove(g, mid)
                    if lagging:
                        out += self._prepare_rebalance(t, g, "Removing member(s) that did not sync in time")
                        self._pending_out = []
        return out

    def _next_due(self, g: _Group) -> tuple[int, str, str] | None:
        cands: list[tuple[int, str, str]] = [(t, "pending", mid) for mid, t in g.pending.items()]
        for mid, m in g.members.items():
            if not (g.state == "PreparingRebalance" and m.join_ref) and not m.sync_ref:
                cands.append((m.deadline, "session", mid))
        if g.join_deadline is not None:
            cands.append((g.join_deadline, "join", ""))
        if g.sync_deadline is not None:
            cands.append((g.sync_deadline, "sync", ""))
        return min(cands) if cands else None

    def snapshot(self, group_id: str) -> dict[str, Any]:
        g = self._group(group_id)
        return {
            "state": g.state, "generation": g.generation, "protocol": g.protocol, "leader": g.leader,
            "members": {mid: {"instance_id": m.instance_id, "client_id": m.client_id, "host": m.host,
                              "session_ms": m.session_ms, "rebalance_ms": m.rebalance_ms,
                              "assignment": m.assignment}
                        for mid, m in g.members.items()},
            "reason": getattr(self, "last_reason", None),
        }
