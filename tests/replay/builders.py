"""Hand-written event logs for replay tests: one `Host` per log file, lines numbered as written."""

from __future__ import annotations

from typing import Any

from parsers.events import Event

GROUP = "payments"


class Host:
    """One log file. Client hosts log as one client id; the broker logs GroupCoordinator lines."""

    def __init__(self, source: str, client_id: str | None = None, side: str = "client", group: str = GROUP,
                 skew_ms: int = 0) -> None:
        self.source, self.client_id, self.side, self.group = source, client_id, side, group
        self.line = 0
        self.skew_ms = skew_ms
        self.events: list[Event] = []

    def ev(self, ts: int, kind: str, raw: str | None = None, **kw: Any) -> Event:
        self.line += 1
        if "partitions" in kw and kw["partitions"] is not None:
            kw["partitions"] = tuple(kw["partitions"])
        if self.side == "client":
            kw.setdefault("client_id", self.client_id)
        ts = ts + self.skew_ms
        text = raw or (f"{ts} [Consumer clientId={self.client_id}, groupId={self.group}] {kind} "
                       + " ".join(f"{k}={v}" for k, v in sorted(kw.items()) if k != "client_id"))
        e = Event(source=self.source, line_no=self.line, side=self.side, kind=kind, raw=text, ts_ms=ts,
                  group_id=self.group, **kw)
        self.events.append(e)
        return e

    # --- client shorthands (AbstractCoordinator / ConsumerCoordinator messages)
    def join(self, ts: int, gen: int, member: str, parts: list[str], *, protocol: str = "range",
             reason: str | None = None, took: int = 100, **kw: Any) -> None:
        self.ev(ts, "join_started", reason=reason)
        self.ev(ts + took, "join_succeeded", member_id=member, generation=gen, protocol=protocol, **kw)
        self.ev(ts + took + 50, "sync_succeeded", member_id=member, generation=gen, protocol=protocol)
        self.ev(ts + took + 60, "partitions_assigned", partitions=parts)

    def revoke(self, ts: int, parts: list[str]) -> None:
        self.ev(ts, "partitions_revoked", partitions=parts)

    def heartbeats(self, start: int, end: int, every: int = 3000) -> None:
        for t in range(start, end + 1, every):
            self.ev(t, "heartbeat_succeeded")

    # --- broker shorthands (kafka.coordinator.group.GroupCoordinator 3.x wording)
    def preparing(self, ts: int, old_gen: int, reason: str) -> Event:
        return self.ev(ts, "broker_rebalance_preparing", reason=reason, generation=old_gen,
                       raw=f"[GroupCoordinator 1]: Preparing to rebalance group {self.group} in state "
                           f"PreparingRebalance with old generation {old_gen} (__consumer_offsets-12) "
                           f"(reason: {reason})")

    def stabilized(self, ts: int, gen: int, n: int) -> Event:
        return self.ev(ts, "broker_group_stabilized", generation=gen,
                       raw=f"[GroupCoordinator 1]: Stabilized group {self.group} generation {gen} "
                           f"(__consumer_offsets-12) with {n} members")

    def assignment(self, ts: int, gen: int, leader: str) -> Event:
        return self.ev(ts, "broker_assignment_received", generation=gen,
                       raw=f"[GroupCoordinator 1]: Assignment received from leader {leader} for group "
                           f"{self.group} for generation {gen}. The group has 2 members, 0 of which are static.")

    def failed(self, ts: int, member: str) -> Event:
        return self.ev(ts, "broker_member_removed", member_id=member, reason="failed",
                       raw=f"[GroupCoordinator 1]: Member {member} in group {self.group} has failed, "
                           "removing it from the group")


def merged(*hosts: Host) -> list[Event]:
    out: list[Event] = []
    for h in hosts:
        out.extend(h.events)
    return out
