"""Adapter: the reference coordinator (`pipeline.coordinator.GroupCoordinator`) behind the small
request API the simulation uses: join/sync/heartbeat/leave/commit/resign/elect/advance take the
time in ms and return the parked or immediate answers as (request ref, response dict) pairs;
`snapshot` gives the group as plain data."""

from __future__ import annotations

import uuid
from random import Random
from typing import Any

from pipeline.coordinator import CoordinatorConfig, GroupCoordinator

Completion = tuple[str, dict[str, Any]]


def _join_dict(r: Any) -> dict[str, Any]:
    return {"error": r.error, "member_id": r.member_id, "generation": r.generation, "leader": r.leader,
            "protocol": r.protocol,
            "members": [(m, i, meta.decode() if isinstance(meta, bytes) else meta) for m, i, meta in r.members]}


def _sync_dict(r: Any) -> dict[str, Any]:
    a = r.assignment
    return {"error": r.error, "assignment": a.decode() if isinstance(a, bytes) else (a or "")}


class ReferenceCore:
    """Scala-mode reference coordinator (the broker versions the generator renders are <= 3.x)."""

    def __init__(self, rng: Random, initial_rebalance_delay_ms: int = 3000, impl: str = "scala") -> None:
        self._rng = rng
        self.coord = GroupCoordinator(CoordinatorConfig(
            impl=impl, group_initial_rebalance_delay_ms=initial_rebalance_delay_ms))
        self._refs: dict[int, str] = {}
        self._hosts: dict[str, str] = {}

    def new_member_id(self, client_id: str, instance_id: str | None) -> str:
        # GroupMetadata.generateMemberId: clientId-UUID (dynamic) / groupInstanceId-UUID (static)
        u = uuid.UUID(int=self._rng.getrandbits(128), version=4)
        return f"{instance_id if instance_id is not None else client_id}-{u}"

    def _collect(self) -> list[Completion]:
        out: list[Completion] = []
        for d in self.coord.drain_delivered():
            ref = self._refs.pop(d.request_id, None)
            if ref is None:
                continue
            out.append((ref, _join_dict(d.response) if d.op == "join" else _sync_dict(d.response)))
        return out

    def join(self, now: int, group_id: str, ref: str, member_id: str, instance_id: str | None, client_id: str,
             host: str, protocols: list[tuple[str, str]], session_ms: int, rebalance_ms: int,
             require_known_member_id: bool = True, new_member_id: str | None = None,
             reason: str | None = None) -> list[Completion]:
        t = self.coord.join(group_id, member_id, instance_id=instance_id, client_id=client_id,
                            client_host="/" + host, protocols=[(n, m.encode()) for n, m in protocols],
                            session_timeout_ms=session_ms, rebalance_timeout_ms=rebalance_ms,
                            require_known_member_id=require_known_member_id,
                            new_member_id=new_member_id, reason=reason, now_ms=now)
        out = self._collect()
        if t.pending:
            self._refs[t.request_id] = ref
        else:
            resp = _join_dict(t.response)
            if resp["error"] == "NONE" and not member_id and instance_id is not None and \
                    not any(r == ref for r, _ in out):
                resp["static_rejoin"] = True
            out.append((ref, resp))
        if new_member_id:
            self._hosts[new_member_id] = host
        if member_id:
            self._hosts[member_id] = host
        return out

    def sync(self, now: int, group_id: str, ref: str, member_id: str, generation: int,
             assignment: dict[str, str] | None) -> list[Completion]:
        t = self.coord.sync(group_id, member_id, generation,
                            assignment=None if assignment is None else {m: a.encode() for m, a in assignment.items()},
                            now_ms=now)
        out = self._collect()
        if t.pending:
            self._refs[t.request_id] = ref
        else:
            out.append((ref, _sync_dict(t.response)))
        return out

    def heartbeat(self, now: int, group_id: str, member_id: str, generation: int) -> str:
        return str(self.coord.heartbeat(group_id, member_id, generation, now_ms=now).error)

    def leave(self, now: int, group_id: str, member_id: str, reason: str) -> tuple[str, list[Completion]]:
        t = self.coord.leave(group_id, [(member_id, None)], now_ms=now)
        r = t.response
        err = r.member_errors[0] if r.error == "NONE" and r.member_errors else r.error
        return err, self._collect()

    def commit(self, now: int, group_id: str, member_id: str, generation: int, offsets: dict[str, int]) -> str:
        r = self.coord.commit(group_id, member_id, generation, dict(offsets), now_ms=now).response
        if r.error == "NONE" and r.partition_errors:
            errs = {e for e in r.partition_errors.values()} if isinstance(r.partition_errors, dict) else set()
            errs.discard("NONE")
            if errs:
                return sorted(errs)[0]
        return r.error

    # coordinator failover (GroupCoordinator.onResignation / onElection): unload, then reload from the log
    def resign(self, now: int, group_id: str) -> list[Completion]:
        self.coord.resign(self.coord.partition_for(group_id), now_ms=now)
        return self._collect()

    def elect(self, now: int, group_id: str) -> list[Completion]:
        self.coord.elect(self.coord.partition_for(group_id), now_ms=now)
        return self._collect()

    def advance(self, now: int) -> list[Completion]:
        if now > self.coord.now_ms:
            self.coord.advance_time(now)
        return self._collect()

    def snapshot(self, group_id: str) -> dict[str, Any]:
        g = self.coord.group(group_id)
        if g is None:
            return {"state": "Empty", "generation": 0, "protocol": None, "leader": None, "members": {}}
        members = {}
        for m in g.members:
            a = g.assignment.get(m.member_id, m.assignment)
            members[m.member_id] = {"instance_id": m.instance_id, "client_id": m.client_id,
                                    "host": self._hosts.get(m.member_id, ""),
                                    "session_ms": m.session_timeout_ms, "rebalance_ms": m.rebalance_timeout_ms,
                                    "assignment": a.decode() if isinstance(a, bytes) else (a or "")}
        return {"state": g.state, "generation": g.generation, "protocol": g.protocol, "leader": g.leader,
                "members": members}
