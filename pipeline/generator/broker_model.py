"""The seam between the simulation and the coordinator model.

`ModelDriver` sends the simulated clients' requests to the coordinator core (the reference model in
`pipeline/coordinator/`, through `reference_core.ReferenceCore`), records every request (so tests can replay them through a fresh model), and turns the differences
between the group snapshots before and after each request into what the broker decided: broker
log facts (rebalance prepared, stabilized, member removed, group empty ...) and the generations of
the truth file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from random import Random
from typing import Any

from pipeline.generator.reference_core import Completion, ReferenceCore


def make_core(rng: Random, initial_rebalance_delay_ms: int = 3000) -> ReferenceCore:
    """The coordinator core the simulation drives: the reference model behind the request adapter."""
    return ReferenceCore(rng, initial_rebalance_delay_ms)


@dataclass
class BrokerFact:
    ts: int
    key: str
    args: dict[str, Any]


@dataclass
class GenerationTruth:
    generation: int
    opened_ms: int | None
    cause: dict[str, Any]
    protocol: str | None = None
    leader: str | None = None
    members: list[dict[str, Any]] = field(default_factory=list)
    assignment: dict[str, list[str]] = field(default_factory=dict)
    joined_ms: int | None = None
    stabilized_ms: int | None = None
    ended_ms: int | None = None


class ModelDriver:
    def __init__(self, core: Any, group_id: str) -> None:
        self.core = core
        self.group_id = group_id
        self.requests: list[dict[str, Any]] = []
        self.facts: list[BrokerFact] = []
        self.generations: list[GenerationTruth] = []
        self.removals: list[dict[str, Any]] = []
        self._open_cause: dict[str, Any] | None = None
        self._opened_ms: int | None = None
        self._prev = core.snapshot(group_id)
        self.suspended = False  # between resign and elect the group is not loaded anywhere

    # each public call: advance timers, apply the request, diff the snapshot
    def advance(self, now: int) -> list[Completion]:
        out = self.core.advance(now)
        if out or self.core.snapshot(self.group_id) != self._prev:
            self._diff(now, {"op": "timer"})
        return out

    def resign(self, now: int) -> list[Completion]:
        self.requests.append({"at_ms": now, "op": "resign"})
        self.suspended = True
        return self.core.resign(now, self.group_id)

    def elect(self, now: int) -> list[Completion]:
        self.requests.append({"at_ms": now, "op": "elect"})
        out = self.core.elect(now, self.group_id)
        self.suspended = False
        loaded = self.core.snapshot(self.group_id)
        if (loaded["generation"], loaded["leader"], sorted(loaded["members"])) == \
                (self._prev["generation"], self._prev["leader"], sorted(self._prev["members"])):
            self._prev = loaded  # the same group, reloaded: nothing was decided
        else:
            self._diff(now, {"op": "elect"})
        return out

    def join(self, now: int, **kw: Any) -> list[Completion]:
        self.requests.append({"at_ms": now, "op": "join", **kw})
        out = self.core.join(now, self.group_id, **kw)
        for ref, resp in out:
            if ref == kw["ref"] and resp.get("error") == "MEMBER_ID_REQUIRED":
                self.facts.append(BrokerFact(now, "member_id_created", {
                    "state": self._prev["state"], "member_id": resp["member_id"]}))
            if ref == kw["ref"] and resp.get("static_rejoin"):
                self.facts.append(BrokerFact(now, "static_replaced", {
                    "instance_id": kw["instance_id"], "state": self._prev["state"],
                    "old": self._static_old(kw["instance_id"]), "member_id": resp["member_id"]}))
        self._diff(now, {"op": "join", **kw})
        return out

    def sync(self, now: int, **kw: Any) -> list[Completion]:
        self.requests.append({"at_ms": now, "op": "sync", **kw})
        out = self.core.sync(now, self.group_id, **kw)
        self._diff(now, {"op": "sync", **kw})
        return out

    def heartbeat(self, now: int, **kw: Any) -> str:
        self.requests.append({"at_ms": now, "op": "heartbeat", **kw})
        err = self.core.heartbeat(now, self.group_id, **kw)
        self._diff(now, {"op": "heartbeat", **kw})
        return err

    def leave(self, now: int, client_cause: str | None = None, client_side: str | None = None,
              **kw: Any) -> tuple[str, list[Completion]]:
        """`client_cause`: why the client left when its LeaveGroup cannot say it (librdkafka sends
        no reason): recorded in the truth's cause, never seen by the broker."""
        self.requests.append({"at_ms": now, "op": "leave", **kw})
        err, out = self.core.leave(now, self.group_id, **kw)
        self._diff(now, {"op": "leave", "client_cause": client_cause, "client_side": client_side, **kw})
        return err, out

    def commit(self, now: int, **kw: Any) -> str:
        self.requests.append({"at_ms": now, "op": "commit", **kw})
        err = self.core.commit(now, self.group_id, **kw)
        self._diff(now, {"op": "commit", **kw})
        return err

    def _static_old(self, iid: str) -> str | None:
        for mid, m in self._prev["members"].items():
            if m["instance_id"] == iid:
                return mid
        return None

    def _cause(self, req: dict[str, Any], before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
        gone = [m for m in before["members"] if m not in after["members"]]
        op = req["op"]
        if op == "join":
            mid = req.get("member_id") or ""
            if mid and mid in before["members"]:
                if "need to revoke partitions" in (req.get("reason") or ""):
                    # COOPERATIVE: the member revoked what moved away and rejoins so that the
                    # partitions reach their new owners (ConsumerCoordinator.onJoinComplete)
                    return {"kind": "cooperative_follow_up", "member_id": mid,
                            "leader": mid == before["leader"], "detail": req.get("reason")}
                if mid == before["leader"]:
                    # the leader rejoins when its metadata snapshot changed (ConsumerCoordinator
                    # rejoinNeededOrPending); anything else is a plain leader rejoin
                    kind = ("metadata_or_subscription_change"
                            if "metadata has changed" in (req.get("reason") or "") or
                            "subscription has changed" in (req.get("reason") or "") else "leader_rejoin")
                    return {"kind": kind, "member_id": mid, "leader": True, "detail": req.get("reason")}
                return {"kind": "metadata_or_subscription_change", "member_id": mid, "detail": req.get("reason")}
            new = [m for m in after["members"] if m not in before["members"]]
            if req.get("instance_id") and gone:
                return {"kind": "static_member_restart", "member_id": new[0] if new else None,
                        "instance_id": req.get("instance_id"), "replaced": gone[0]}
            return {"kind": "member_joined", "member_id": new[0] if new else mid,
                    "instance_id": req.get("instance_id"), "detail": req.get("reason")}
        if op == "leave":
            kind = "poll_timeout" if "poll timeout" in (req.get("reason") or "") else "member_left"
            if req.get("client_cause"):
                return {"kind": req["client_cause"], "member_id": req["member_id"], "detail": req.get("reason"),
                        "client_side": req.get("client_side")}
            return {"kind": kind, "member_id": req["member_id"], "detail": req.get("reason")}
        if op == "timer" and gone:
            return {"kind": "session_expiry", "member_id": gone[0]}
        return {"kind": "other", "detail": op}

    def _diff(self, now: int, req: dict[str, Any]) -> None:
        if self.suspended:
            return
        before, after = self._prev, self.core.snapshot(self.group_id)
        self._prev = after
        if before == after:
            return
        gone = [m for m in before["members"] if m not in after["members"]]
        for mid in gone:
            if req["op"] == "leave" and req.get("member_id") == mid:
                why = "leave_group"
            elif req["op"] == "timer" and before["state"] == "PreparingRebalance" and \
                    after["generation"] > before["generation"]:
                why = "not_rejoined"
            elif req["op"] == "join" and req.get("instance_id") and \
                    before["members"][mid]["instance_id"] == req.get("instance_id"):
                why = "static_replaced"
            else:
                why = "session_expiry"
            self.removals.append({"ts": now, "member_id": mid, "why": why,
                                  "reason": req.get("reason") if why == "leave_group" else None})
            if why == "leave_group":
                self.facts.append(BrokerFact(now, "member_left", {
                    "member_id": mid, "instance_id": before["members"][mid]["instance_id"],
                    "reason": req.get("reason") or "not provided"}))
            elif why == "session_expiry":
                self.facts.append(BrokerFact(now, "member_failed", {"member_id": mid}))
            elif why == "not_rejoined":
                self.facts.append(BrokerFact(now, "removed_not_joined", {"member_id": mid}))
        if req["op"] == "join" and not req.get("member_id") and req.get("instance_id"):
            new = [m for m in after["members"] if m not in before["members"]]
            if new and not gone:
                self.facts.append(BrokerFact(now, "static_added", {
                    "instance_id": req["instance_id"], "state": before["state"], "member_id": new[0]}))
        if after["state"] == "PreparingRebalance" and before["state"] != "PreparingRebalance":
            cause = self._cause(req, before, after)
            self._open_cause, self._opened_ms = cause, now
            self.facts.append(BrokerFact(now, "prepare_rebalance", {
                "state": after["state"], "old_generation": before["generation"], "cause": cause,
                "members": before["members"], "leader": before["leader"]}))
            if self.generations and self.generations[-1].ended_ms is None:
                self.generations[-1].ended_ms = now
        if after["generation"] > before["generation"]:
            if self.generations and self.generations[-1].ended_ms is None:
                self.generations[-1].ended_ms = now
            g = GenerationTruth(after["generation"], self._opened_ms, self._open_cause or {"kind": "other"},
                                after["protocol"], after["leader"], joined_ms=now)
            g.members = [{"member_id": mid, **{k: v for k, v in m.items() if k != "assignment"}}
                         for mid, m in after["members"].items()]
            self.generations.append(g)
            self._open_cause = None
            if after["members"]:
                self.facts.append(BrokerFact(now, "stabilized", {
                    "generation": after["generation"], "members": len(after["members"])}))
            else:
                g.ended_ms = now
                self.facts.append(BrokerFact(now, "group_empty", {"generation": after["generation"]}))
        elif after["state"] == "Empty" and before["state"] != "Empty":
            self.facts.append(BrokerFact(now, "group_empty", {"generation": after["generation"]}))
        if after["state"] == "Stable" and before["state"] == "CompletingRebalance":
            g = self.generations[-1]
            g.stabilized_ms = now
            g.assignment = {mid: sorted(_decode(m["assignment"]), key=_tp_key)
                            for mid, m in after["members"].items()}
            static = sum(1 for m in after["members"].values() if m["instance_id"])
            self.facts.append(BrokerFact(now, "assignment_received", {
                "leader": after["leader"], "generation": after["generation"],
                "members": len(after["members"]), "static": static}))

    def finish(self, now: int) -> None:
        if self.generations and self.generations[-1].ended_ms is None and \
                self.generations[-1].stabilized_ms is None and not self.generations[-1].members:
            self.generations[-1].ended_ms = now


def encode(parts: list[str]) -> str:
    """The opaque assignment token sent in SyncGroup (a comma list of topic-partitions)."""
    return ",".join(parts)


def _decode(token: str) -> list[str]:
    return [p for p in token.split(",") if p]


def _tp_key(tp: str) -> tuple[str, int]:
    t, _, p = tp.rpartition("-")
    return t, int(p)
