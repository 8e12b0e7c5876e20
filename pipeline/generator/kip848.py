"""Consumer-protocol (KIP-848, Kafka 4.x) scenarios: members driven against the reference model
(pipeline.coordinator.consumer_protocol.ConsumerCoordinator), rendered in Kafka 4.0's wordings, with
truth.json.

The broker's decisions (member epochs, group epoch bumps, target assignments, partitions held back
until released, session and rebalance timeouts) come from the model; the clients are a simplified
AsyncKafkaConsumer (AbstractMembershipManager / ConsumerMembershipManager / AbstractHeartbeatRequestManager
of apache/kafka 4.0): they heartbeat every group.consumer.heartbeat.interval.ms, reconcile each new
assignment (revoke, then add, then acknowledge), and rejoin with epoch 0 after being fenced. Not
modelled on the client: the poll timer (KIP-848 "stale" member), auto-commits, fetch lines.

Wordings (apache/kafka 4.0 sources):
- client AbstractMembershipManager.transitionTo: "Member {} with epoch {} transitioned from {} to {}."
- client AbstractMembershipManager.reconcile: "Reconciling assignment with local epoch {}\\n\\tMember: ..."
- client ConsumerRebalanceListenerInvoker: "Revoke previously assigned partitions {}", "Adding newly
  assigned partitions: {}", "Lost previously assigned partitions {}"
- client AbstractHeartbeatRequestManager.onErrorResponse (logInfo "{} in {}ms: {}"):
  "ConsumerGroupHeartbeatRequest failed because member {} is unknown." / "... failed for member {}
  because epoch {} is fenced."
- broker GroupMetadataManager: "[GroupId {}] Member {} joins the consumer group using the consumer
  protocol.", "Bumped group epoch to {}.", "Computed a new target assignment for epoch {} with '{}'
  assignor in {}ms.", "Member {} new assignment state: epoch=..." (DEBUG), "Member {} fenced from the
  group because {}." (session: "the member session expired."; rebalance: "it failed to transition from
  epoch {} within {}ms."), "Member {} left the consumer group."
  The epoch bump of a fence or a leave (consumerGroupFenceMember) is not logged.
"""

from __future__ import annotations

import base64
import json
import os
import uuid
from dataclasses import dataclass, field
from random import Random
from typing import Any

from pipeline.coordinator.consumer_protocol.coordinator import ConsumerCoordinator, ConsumerCoordinatorConfig
from pipeline.generator.layouts import ts_log4j

CMM = "org.apache.kafka.clients.consumer.internals.ConsumerMembershipManager"
CC = "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"
CHB = "org.apache.kafka.clients.consumer.internals.ConsumerHeartbeatRequestManager"
INV = "org.apache.kafka.clients.consumer.internals.ConsumerRebalanceListenerInvoker"
GMM = "org.apache.kafka.coordinator.group.GroupMetadataManager"
DAY = 86_400_000
MIN = 60_000
TICK = 100  # ms between simulation steps (timers fire at the first step at or after their deadline)


@dataclass
class KMember:
    name: str  # host name
    ip: str
    join_ms: int
    instance_id: str | None = None
    leave_ms: int | None = None  # graceful close (leave heartbeat, epoch -1)
    stall: tuple[int, int] | None = None  # the process is frozen (no heartbeat, no line) in [start, end)
    revoke_ms: int = 3  # how long onPartitionsRevoked runs


@dataclass
class KScenario:
    name: str
    seed: int
    group_id: str
    topics: dict[str, int]
    members: list[KMember]
    duration_ms: int
    session_ms: int = 45000  # group.consumer.session.timeout.ms (broker)
    heartbeat_ms: int = 5000  # group.consumer.heartbeat.interval.ms (broker)
    max_poll_ms: int = 300000  # client max.poll.interval.ms = the member's rebalance timeout
    assignor: str = "uniform"
    broker_debug: bool = False  # GroupMetadataManager at DEBUG (prints "new assignment state")
    # classic members of the group before it moves to the consumer protocol: (host, join_ms, leave_ms); the
    # broker refuses to convert the group while they are in it (group.consumer.migration.policy=disabled)
    classic: list[tuple[str, int, int]] = field(default_factory=list)
    restart_after_fatal_ms: int = 30000  # the application re-creates a consumer that failed fatally
    epoch_ms: int = 0
    title: str = ""
    story: str = ""


def _uuid(rng: Random) -> str:
    """A Kafka Uuid's toString(): 16 random bytes in URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(rng.getrandbits(128).to_bytes(16, "big")).decode().rstrip("=")


@dataclass
class _Client:
    spec: KMember
    member_id: str
    client_id: str
    lines: list[tuple[int, str, str, str]] = field(default_factory=list)  # (ms, level, logger, message)
    started: bool = False
    gone: bool = False
    state: str = "UNSUBSCRIBED"
    epoch: int = 0
    owned: set[tuple[str, int]] = field(default_factory=set)
    target: set[tuple[str, int]] | None = None  # the assignment being reconciled
    queued: set[tuple[str, int]] | None = None  # a newer assignment received while reconciling
    recon_done: int | None = None
    recon_revoked: set[tuple[str, int]] = field(default_factory=set)
    fenced_pending: bool = False  # fenced while a callback runs: lose and rejoin when it returns
    local_epoch: int = -1
    next_hb: int = 0
    restart_at: int | None = None  # a FATAL consumer is re-created by the application (new member id)
    member_ids: list[str] = field(default_factory=list)


class KipSim:
    def __init__(self, sc: KScenario) -> None:
        self.sc = sc
        rng = Random(sc.seed)
        self.topic_ids = {t: _uuid(rng) for t in sorted(sc.topics)}
        self.id_topics = {v: k for k, v in self.topic_ids.items()}
        self.coord = ConsumerCoordinator(
            ConsumerCoordinatorConfig(session_timeout_ms=sc.session_ms, heartbeat_interval_ms=sc.heartbeat_ms,
                                      assignors=(sc.assignor, "range" if sc.assignor == "uniform" else "uniform")),
            topics={t: (self.topic_ids[t], n) for t, n in sc.topics.items()})
        self.clients = [_Client(m, _uuid(rng), f"consumer-{sc.group_id}-1") for m in sc.members]
        self.broker: list[tuple[int, str, str]] = []  # (ms, level, message)
        self.truth_epochs: list[dict[str, Any]] = []  # group epoch bumps
        self.truth_targets: list[dict[str, Any]] = []
        self.truth_members: dict[str, list[dict[str, Any]]] = {}  # member id -> its epoch history
        self.truth_fencings: list[dict[str, Any]] = []
        self.truth_leaves: list[dict[str, Any]] = []
        self.truth_reconciliations: list[dict[str, Any]] = []
        self.classic_lines: dict[str, list[tuple[int, str, str, str]]] = {}
        self.truth_classic: list[dict[str, Any]] = []
        self.truth_refusals: list[dict[str, Any]] = []
        self.classic_empty_ms: int | None = None
        self.group_epoch = 0
        self.announced: set[str] = set()  # members whose join the broker logged (a rejoin is a new join)
        self.rng = Random(sc.seed * 7 + 1)

    # ------------------------------------------------------------------ rendering helpers
    def _tp(self, parts: set[tuple[str, int]]) -> str:
        return "[" + ", ".join(f"{t}-{p}" for t, p in sorted(parts)) + "]"

    def _tp_list(self, parts: set[tuple[str, int]]) -> str:
        return ", ".join(f"{t}-{p}" for t, p in sorted(parts))

    def _by_id(self, parts: set[tuple[str, int]]) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for t, p in sorted(parts):
            out.setdefault(self.topic_ids[t], []).append(p)
        return out

    def _from_id(self, assignment: Any) -> set[tuple[str, int]]:
        return {(self.id_topics[tid], int(p)) for tid, ps in (assignment or {}).items() for p in ps}

    def _blog(self, ms: int, msg: str, level: str = "INFO") -> None:
        self.broker.append((ms, level, f"[GroupId {self.sc.group_id}] {msg}"))

    def _clog(self, c: _Client, ms: int, msg: str, level: str = "INFO", logger: str = CMM) -> None:
        c.lines.append((ms, level, logger, msg))

    def _transition(self, c: _Client, ms: int, to: str) -> None:
        self._clog(c, ms, f"Member {c.member_id} with epoch {c.epoch} transitioned from {c.state} to {to}.")
        c.state = to

    def _member_truth(self, c: _Client, ms: int, what: str, **kw: Any) -> None:
        self.truth_members.setdefault(c.member_id, []).append({"ms": ms, "event": what, **kw})

    # ------------------------------------------------------------------ broker side of one call
    def _broker_records(self, ms: int, records: list[Any], leaving: str | None = None,
                        cause: tuple[str, str] | None = None) -> None:
        for r in records:
            if r.type == "MemberMetadata" and leaving is None:
                m = r.get("member_obj")
                if m.member_id not in self.announced:
                    self.announced.add(m.member_id)
                    self._blog(ms, f"Member {m.member_id} joins the consumer group using the consumer protocol.")
            elif r.type == "GroupEpoch":
                self.group_epoch = int(r.get("epoch"))
                joined = next((x.get("member_obj").member_id for x in records if x.type == "MemberMetadata"), None)
                why = cause or (("member_joined", joined) if joined else ("unknown", None))
                self.truth_epochs.append({"epoch": self.group_epoch, "ms": ms, "logged": leaving is None,
                                          "cause": why[0], "trigger_member": why[1]})
                if leaving is None:
                    self._blog(ms, f"Bumped group epoch to {self.group_epoch}.")
            elif r.type == "TargetAssignmentEpoch":
                took = self.rng.randrange(0, 3)
                self._blog(ms, f"Computed a new target assignment for epoch {r.get('epoch')} with "
                               f"'{self.sc.assignor}' assignor in {took}ms.")
                g = self.coord.consumer_group(self.sc.group_id)
                self.truth_targets.append({"epoch": int(r.get("epoch")), "ms": ms, "assignment": {
                    mid: sorted(f"{t}-{p}" for t, p in self._from_id(a)) for mid, a in sorted(g.target_assignment.items())
                    if mid in g.members}})
            elif r.type == "CurrentAssignment":
                m = r.get("member_obj")
                if self.sc.broker_debug:
                    def ids(a: Any) -> str:
                        return "[" + ", ".join(f"{tid}-{p}" for tid, ps in a.items() for p in sorted(ps)) + "]"
                    self._blog(ms, f"Member {m.member_id} new assignment state: epoch={m.member_epoch}, "
                                   f"previousEpoch={m.previous_member_epoch}, state={m.state}, "
                                   f"assignedPartitions={ids(m.assigned)} and "
                                   f"revokedPartitions={ids(m.pending_revocation)}.", "DEBUG")

    # ------------------------------------------------------------------ the loop
    def run(self) -> KipSim:
        sc = self.sc
        if sc.classic:
            self._classic_phase()
            self.coord.seed_classic_group(sc.group_id, "Stable")
        for t in range(0, sc.duration_ms + 1, TICK):
            if self.classic_empty_ms is not None and t >= self.classic_empty_ms \
                    and not hasattr(self.coord.groups.get(sc.group_id), "members_by_epoch") \
                    and type(self.coord.groups.get(sc.group_id)).__name__ == "ClassicGroupStub" \
                    and getattr(self.coord.groups.get(sc.group_id), "state", "") != "Empty":
                self.coord.seed_classic_group(sc.group_id, "Empty")  # the last classic member left
            self._fire_timers(t)
            for c in self.clients:
                self._step(c, t)
        return self

    def _fire_timers(self, t: int) -> None:
        g = self.coord.groups.get(self.sc.group_id)
        kinds = {}
        if g is not None and hasattr(g, "members"):
            for mid, m in g.members.items():
                r = self.coord.timer_deadline("rebalance", self.sc.group_id, mid)
                kinds[mid] = ("rebalance", m.member_epoch, m.rebalance_timeout_ms) if r is not None and r <= t \
                    else ("session", m.member_epoch, None)
        fenced = self.coord.advance_time(t)
        records = list(self.coord.last_records)
        for mid in fenced:
            kind, epoch, timeout = kinds.get(mid, ("session", None, None))
            if kind == "rebalance":
                reason = f"it failed to transition from epoch {epoch} within {timeout}ms"
                cause = "rebalance_timeout"
            else:
                reason = "the member session expired."
                cause = "session_expiry"
            self._blog(t, f"Member {mid} fenced from the group because {reason}.")
            self.announced.discard(mid)
            self.truth_fencings.append({"member_id": mid, "ms": t, "side": "broker", "cause": cause,
                                        "member_epoch": epoch})
        if fenced:
            c0 = self.truth_fencings[-1]
            self._broker_records(t, records, leaving="fenced", cause=(c0["cause"], c0["member_id"]))

    def _step(self, c: _Client, t: int) -> None:
        s = c.spec
        if c.gone:
            return
        if s.stall and s.stall[0] <= t < s.stall[1]:
            return
        if not c.started:
            if t < s.join_ms:
                return
            c.started = True
            self._startup(c, t)
            self._transition(c, t, "JOINING")
            self._member_truth(c, t, "joined")
            self._heartbeat(c, t + 5)
            return
        if c.state == "FATAL":
            if c.restart_at is not None and t >= c.restart_at:
                c.restart_at = None
                c.member_id = _uuid(self.rng)   # a new KafkaConsumer: a new member id (KIP-1082)
                c.state, c.epoch = "UNSUBSCRIBED", 0
                self._transition(c, t, "JOINING")
                self._member_truth(c, t, "joined")
                self._heartbeat(c, t + 5)
            return
        if s.leave_ms is not None and t >= s.leave_ms and c.state not in ("LEAVING", "UNSUBSCRIBED"):
            self._leave(c, t)
            return
        if c.recon_done is not None and t >= c.recon_done:
            self._finish_reconciliation(c, c.recon_done)
        if c.state != "FENCED" and t >= c.next_hb:
            self._heartbeat(c, t)

    def _startup(self, c: _Client, t: int) -> None:
        sc = self.sc
        cfg = {"bootstrap.servers": "[kafka-1.prod.internal:9092]", "client.id": c.client_id,
               "enable.auto.commit": "true", "group.id": sc.group_id,
               "group.instance.id": c.spec.instance_id or "null", "group.protocol": "consumer",
               "group.remote.assignor": "null", "max.poll.interval.ms": sc.max_poll_ms, "max.poll.records": 500}
        body = "ConsumerConfig values: \n" + "\n".join(f"\t{k} = {v}" for k, v in sorted(cfg.items()))
        c.lines.append((t - 200, "INFO", "org.apache.kafka.clients.consumer.ConsumerConfig", body))
        for msg in ("Kafka version: 4.0.0", "Kafka commitId: 985bc99521dd22bb", f"Kafka startTimeMs: {sc.epoch_ms + t - 150}"):
            c.lines.append((t - 150, "INFO", "org.apache.kafka.common.utils.AppInfoParser", msg))

    def _heartbeat(self, c: _Client, t: int) -> None:
        sc = self.sc
        if c.state == "ACKNOWLEDGING":
            if c.queued is not None:
                self._transition(c, t, "RECONCILING")
            else:
                self._transition(c, t, "STABLE")
                self._member_truth(c, t, "stable", member_epoch=c.epoch, owned=sorted(f"{a}-{b}" for a, b in c.owned))
        joining = c.epoch == 0
        resp = self.coord.heartbeat(
            sc.group_id, c.member_id, c.epoch, instance_id=c.spec.instance_id,
            rebalance_timeout_ms=sc.max_poll_ms if joining else -1,
            subscribed_topic_names=sorted(sc.topics) if joining else None,
            topic_partitions=self._by_id(c.owned), now_ms=t)
        c.next_hb = t + sc.heartbeat_ms
        if resp.error == "GROUP_ID_NOT_FOUND":
            self._refused(c, t)
            return
        if resp.error != "NONE":
            self._fenced(c, t, resp.error)
            return
        self._broker_records(t, list(self.coord.last_records))
        if resp.member_epoch is not None and resp.member_epoch != c.epoch:
            self._member_truth(c, t, "epoch", member_epoch=resp.member_epoch)
            c.epoch = resp.member_epoch
        if c.state == "RECONCILING" and c.queued is not None and c.recon_done is None:
            new, c.queued = c.queued, None
            self._reconcile(c, t, new)
        if resp.assignment is not None:
            new = self._from_id(resp.assignment)
            if c.recon_done is not None:
                c.queued = new
            elif new != c.owned or c.state == "JOINING":
                if c.state != "RECONCILING":
                    self._transition(c, t, "RECONCILING")
                self._reconcile(c, t, new)

    def _reconcile(self, c: _Client, t: int, new: set[tuple[str, int]]) -> None:
        c.local_epoch += 1
        added, revoked = new - c.owned, c.owned - new
        self._clog(c, t + 1,
                   f"Reconciling assignment with local epoch {c.local_epoch}\n"
                   f"\tMember:                                    {c.member_id}\n"
                   f"\tAssigned partitions:                       {self._tp(new)}\n"
                   f"\tCurrent owned partitions:                  {self._tp(c.owned)}\n"
                   f"\tAdded partitions (assigned - owned):       {self._tp(added)}\n"
                   f"\tRevoked partitions (owned - assigned):     {self._tp(revoked)}\n")
        c.target, c.recon_revoked = new, revoked
        took = c.spec.revoke_ms if revoked else 2
        if revoked:
            self._clog(c, t + 2, f"Revoke previously assigned partitions {self._tp_list(revoked)}", logger=INV)
        c.recon_done = t + 2 + took
        self.truth_reconciliations.append({
            "member_id": c.member_id, "member_epoch": c.epoch, "started_ms": t,
            "assigned": sorted(f"{a}-{b}" for a, b in new), "owned": sorted(f"{a}-{b}" for a, b in c.owned),
            "added": sorted(f"{a}-{b}" for a, b in added), "revoked": sorted(f"{a}-{b}" for a, b in revoked),
            "acknowledged_ms": None})

    def _finish_reconciliation(self, c: _Client, t: int) -> None:
        assert c.target is not None
        added = c.target - c.owned
        c.owned = set(c.target)
        c.recon_done = None
        if c.fenced_pending:
            self._lose_and_rejoin(c, t)
            return
        if added:
            self._clog(c, t, f"Adding newly assigned partitions: {self._tp_list(added)}", logger=INV)
        for r in reversed(self.truth_reconciliations):
            if r["member_id"] == c.member_id and r["acknowledged_ms"] is None:
                r["acknowledged_ms"] = t + 1
                break
        self._transition(c, t + 1, "ACKNOWLEDGING")
        self._heartbeat(c, t + 1)

    def _refused(self, c: _Client, t: int) -> None:
        """getOrMaybeCreateConsumerGroup: a non-empty classic group is not converted (validateOnlineUpgrade,
        migration policy disabled): GROUP_ID_NOT_FOUND, fatal for the client (AbstractHeartbeatRequestManager
        default branch, then transitionToFatal)."""
        g = self.sc.group_id
        self.broker.append((t, "INFO", f"Cannot upgrade classic group {g} to consumer group because online upgrade "
                                       "is disabled."))
        self._clog(c, t + 5, f"ConsumerGroupHeartbeatRequest failed due to unexpected error GROUP_ID_NOT_FOUND: "
                             f"Group {g} is not a consumer group", "ERROR", CHB)
        self._clog(c, t + 6, f"Member {c.member_id} with epoch {c.epoch} transitioned to fatal state", "ERROR")
        self._transition(c, t + 6, "FATAL")
        self.truth_refusals.append({"member_id": c.member_id, "ms": t, "host": c.spec.name})
        c.restart_at = t + self.sc.restart_after_fatal_ms

    # ------------------------------------------------------------------ classic phase (scripted)
    def _classic_phase(self) -> None:
        """Classic members (3.9 clients, group.protocol=classic, range) against the 4.0 coordinator's classic
        group: one rebalance to generation 1 (initial delay 3 s), LeaveGroup on close; the group is empty once
        the last leaves. Wordings: GroupMetadataManager 4.0 (classic group), AbstractCoordinator /
        ConsumerCoordinator 3.9."""
        sc, g = self.sc, self.sc.group_id
        rng = Random(sc.seed * 13 + 5)
        ids = {h: f"consumer-{g}-1-{uuid.UUID(int=rng.getrandbits(128))}" for h, _, _ in sc.classic}
        for h, _, _ in sc.classic:
            self.classic_lines[h] = []
        first = min(j for _, j, _ in sc.classic)
        parts = [(t, p) for t in sorted(sc.topics) for p in range(sc.topics[t])]
        order = sorted(ids.values())
        per = -(-len(parts) // len(order))
        assign = {mid: parts[i * per:(i + 1) * per] for i, mid in enumerate(order)}
        leader = ids[min(sc.classic, key=lambda x: x[1])[0]]
        stable = first + 8 + 3000
        for h, j, _ in sc.classic:
            mid, out = ids[h], self.classic_lines[h]
            cfg = {"client.id": f"consumer-{g}-1", "group.id": g, "group.protocol": "classic",
                   "max.poll.interval.ms": sc.max_poll_ms, "partition.assignment.strategy":
                   "[class org.apache.kafka.clients.consumer.RangeAssignor]", "session.timeout.ms": 45000}
            out.append((j - 200, "INFO", "org.apache.kafka.clients.consumer.ConsumerConfig", "ConsumerConfig values: \n"
                        + "\n".join(f"\t{k} = {v}" for k, v in sorted(cfg.items()))))
            out.append((j - 150, "INFO", "org.apache.kafka.common.utils.AppInfoParser", "Kafka version: 3.9.0"))
            out += [(j, "INFO", CC, "(Re-)joining group"),
                    (j + 5, "INFO", CC, f"Request joining group due to: need to re-join with the given member-id: {mid}"),
                    (j + 6, "INFO", CC, "(Re-)joining group")]
            state = "Empty" if j == first else "PreparingRebalance"
            self.broker.append((j + 3, "INFO", f"Dynamic member with unknown member id joins group {g} in {state} state. "
                                               f"Created a new member id {mid} and requesting the member to rejoin with "
                                               "this id."))
            if j == first:
                self.broker.append((j + 8, "INFO", f"Preparing to rebalance group {g} in state PreparingRebalance with "
                                                   f"old generation 0 (reason: Adding new member {mid} with group instance "
                                                   f"id null; client reason: need to re-join with the given member-id: "
                                                   f"{mid})."))
            gen = f"Generation{{generationId=1, memberId='{mid}', protocol='range'}}"
            mine = ", ".join(f"{t}-{p}" for t, p in assign[mid])
            out.append((stable + 2, "INFO", CC, f"Successfully joined group with generation {gen}"))
            if mid == leader:
                body = ", ".join(f"{m}=Assignment(partitions=[{', '.join(f'{t}-{p}' for t, p in assign[m])}])"
                                 for m in order)
                out.append((stable + 4, "INFO", CC, f"Finished assignment for group at generation 1: {{{body}}}"))
            out += [(stable + 8, "INFO", CC, f"Successfully synced group in generation {gen}"),
                    (stable + 9, "INFO", CC, f"Notifying assignor about the new Assignment(partitions=[{mine}])"),
                    (stable + 10, "INFO", CC, f"Adding newly assigned partitions: {mine}")]
        self.broker.append((stable, "INFO", f"Stabilized group {g} generation 1 with {len(ids)} members."))
        self.broker.append((stable + 6, "INFO", f"Assignment received from leader {leader} for group {g} for generation 1. "
                                                f"The group has {len(ids)} members, 0 of which are static."))
        leaves = sorted((lv, h) for h, _, lv in sc.classic)
        for i, (lv, h) in enumerate(leaves):
            mid, out = ids[h], self.classic_lines[h]
            mine = ", ".join(f"{t}-{p}" for t, p in assign[mid])
            out += [(lv, "INFO", CC, f"Revoke previously assigned partitions {mine}"),
                    (lv + 5, "INFO", CC, f"Member {mid} sending LeaveGroup request to coordinator "
                                         "kafka-1.prod.internal:9092 (id: 2147483646 rack: null) due to the consumer is "
                                         "being closed")]
            self.broker.append((lv + 7, "INFO", f"[Group {g}] Member {mid} has left group through explicit `LeaveGroup` "
                                                "request; client reason: the consumer is being closed"))
            if i == 0:
                self.broker.append((lv + 8, "INFO", f"Preparing to rebalance group {g} in state PreparingRebalance with "
                                                    f"old generation 1 (reason: explicit `LeaveGroup` request for ({mid}) "
                                                    "members.)."))
        empty = leaves[-1][0] + 9
        self.broker.append((empty, "INFO", f"Group {g} with generation 2 is now empty."))
        self.classic_empty_ms = empty
        self.truth_classic = [
            {"generation": 1, "started_ms": first + 8, "stabilized_ms": stable + 6, "ended_ms": leaves[0][0] + 8,
             "members": sorted(ids.values()), "leader": leader,
             "assignment": {m: [f"{t}-{p}" for t, p in assign[m]] for m in order}},
            {"generation": 2, "started_ms": leaves[0][0] + 8, "stabilized_ms": None, "ended_ms": empty,
             "members": [], "leader": None, "assignment": {}}]

    def _fenced(self, c: _Client, t: int, error: str) -> None:
        gm = self.coord.consumer_group(self.sc.group_id).members if self.sc.group_id in self.coord.groups else {}
        if error == "UNKNOWN_MEMBER_ID":
            msg = (f"ConsumerGroupHeartbeatRequest failed because member {c.member_id} is unknown. in 0ms: "
                   f"Member {c.member_id} is not a member of group {self.sc.group_id}.")
        else:
            known = gm[c.member_id].member_epoch if c.member_id in gm else 0
            rel = "greater" if c.epoch > known else "smaller"
            msg = (f"ConsumerGroupHeartbeatRequest failed for member {c.member_id} because epoch {c.epoch} is fenced. "
                   f"in 0ms: The consumer group member has a {rel} member epoch ({c.epoch}) than the one known by "
                   f"the group coordinator ({known}). The member must abandon all its partitions and rejoin.")
        self._clog(c, t, msg, logger=CHB)
        self.truth_fencings.append({"member_id": c.member_id, "ms": t, "side": "client", "error": error,
                                    "member_epoch": c.epoch})
        self._transition(c, t, "FENCED")
        c.queued = None
        if c.recon_done is not None:
            c.fenced_pending = True  # the callback still runs on the application thread
            return
        self._lose_and_rejoin(c, t + 1)

    def _lose_and_rejoin(self, c: _Client, t: int) -> None:
        c.fenced_pending = False
        if c.owned:
            self._clog(c, t, f"Lost previously assigned partitions {self._tp_list(c.owned)}", logger=INV)
        c.owned = set()
        c.target = None
        c.local_epoch = -1
        c.epoch = 0
        self._transition(c, t + 1, "JOINING")
        self._member_truth(c, t + 1, "rejoined")
        c.next_hb = t + 2

    def _leave(self, c: _Client, t: int) -> None:
        self._transition(c, t, "PREPARE_LEAVING")
        if c.owned:
            self._clog(c, t + 1, f"Revoke previously assigned partitions {self._tp_list(c.owned)}", logger=INV)
        self._transition(c, t + 5, "LEAVING")
        resp = self.coord.heartbeat(self.sc.group_id, c.member_id, -1, instance_id=c.spec.instance_id, now_ms=t + 5)
        if resp.error == "NONE":
            self._blog(t + 5, f"Member {c.member_id} left the consumer group.")
            self.announced.discard(c.member_id)
            self._broker_records(t + 5, list(self.coord.last_records), leaving="left",
                                 cause=("member_left", c.member_id))
        self.truth_leaves.append({"member_id": c.member_id, "ms": t + 5, "member_epoch": c.epoch})
        c.owned = set()
        c.epoch = -1
        self._transition(c, t + 8, "UNSUBSCRIBED")
        c.gone = True

    # ------------------------------------------------------------------ output
    def client_lines(self, c: _Client) -> list[str]:
        prefix = f"[Consumer clientId={c.client_id}, groupId={self.sc.group_id}] "
        out = []
        for ms, level, logger, msg in sorted(c.lines, key=lambda x: x[0]):
            p = "" if logger.endswith(("ConsumerConfig", "AppInfoParser")) else prefix
            out.append(f"[{ts_log4j(self.sc.epoch_ms + ms)}] {level} {p}{msg} ({logger})")
        return out

    def classic_client_lines(self, host: str) -> list[str]:
        prefix = f"[Consumer clientId=consumer-{self.sc.group_id}-1, groupId={self.sc.group_id}] "
        out = []
        for ms, level, logger, msg in sorted(self.classic_lines[host], key=lambda x: x[0]):
            p = "" if logger.endswith(("ConsumerConfig", "AppInfoParser")) else prefix
            out.append(f"[{ts_log4j(self.sc.epoch_ms + ms)}] {level} {p}{msg} ({logger})")
        return out

    def broker_lines(self) -> list[str]:
        prefix = "[GroupCoordinator id=1 topic=__consumer_offsets partition=17] "
        return [f"[{ts_log4j(self.sc.epoch_ms + ms)}] {level} {prefix}{msg} ({GMM})"
                for ms, level, msg in sorted(self.broker, key=lambda x: x[0])]

    def truth(self) -> dict[str, Any]:
        sc, e = self.sc, self.sc.epoch_ms
        def abs_(d: dict[str, Any]) -> dict[str, Any]:
            return {k: (v + e if k.endswith("_ms") and isinstance(v, int) or k == "ms" else v) for k, v in d.items()}
        return {
            "schema": "coordscope-truth-kip848/1", "scenario": sc.name, "title": sc.title, "seed": sc.seed,
            "group_id": sc.group_id, "group_type": "consumer", "client_version": "4.0.0", "broker_version": "4.0.0",
            "start_ms": e, "end_ms": e + sc.duration_ms,
            "config": {"group.consumer.session.timeout.ms": sc.session_ms,
                       "group.consumer.heartbeat.interval.ms": sc.heartbeat_ms,
                       "max.poll.interval.ms": sc.max_poll_ms, "group.consumer.assignors": sc.assignor,
                       "broker_debug": sc.broker_debug},
            "topics": {t: {"topic_id": self.topic_ids[t], "partitions": n} for t, n in sc.topics.items()},
            "hosts": {c.spec.name: {"member_id": c.member_id, "client_id": c.client_id, "instance_id": c.spec.instance_id}
                      for c in self.clients},
            "group_epochs": [abs_(x) for x in self.truth_epochs],
            "target_assignments": [abs_(x) for x in self.truth_targets],
            "member_history": {m: [abs_(x) for x in h] for m, h in self.truth_members.items()},
            "reconciliations": [abs_(x) for x in self.truth_reconciliations],
            "fencings": [abs_(x) for x in self.truth_fencings],
            "leaves": [abs_(x) for x in self.truth_leaves],
            "classic_generations": [abs_(x) for x in self.truth_classic],
            # offset ranges never processed / processed twice (the shared truth keys; no commits are modelled)
            "skipped": [], "reprocessed": [],
            "migration_refusals": [abs_(x) for x in self.truth_refusals],
            "story": sc.story,
        }


# ---------------------------------------------------------------------- the scenarios

def consumer_scale_out() -> KScenario:
    ms = [KMember("ledger-1", "10.0.4.11", 1000), KMember("ledger-2", "10.0.4.12", 1600),
          KMember("ledger-3", "10.0.4.13", 90_000), KMember("ledger-4", "10.0.4.14", 150_000)]
    return KScenario("consumer_scale_out", 4801, "ledger-projector", {"ledger-entries": 8}, ms, 4 * MIN,
                     title="Consumer protocol: scale-out from 2 to 4 members (uniform assignor)",
                     story="Two 4.0 consumers with group.protocol=consumer share 8 partitions; two more start at "
                           "02:01:30 and 02:02:30. Each join bumps the group epoch; the existing members revoke "
                           "what moves, the new member gets those partitions only once they are released "
                           "(UNRELEASED_PARTITIONS), then every member converges to the new epoch. Broker at INFO.")


def consumer_fenced_after_stall() -> KScenario:
    ms = [KMember("pricing-1", "10.0.5.11", 1000), KMember("pricing-2", "10.0.5.12", 1500,
                                                            stall=(120_000, 190_000)),
          KMember("pricing-3", "10.0.5.13", 2000)]
    return KScenario("consumer_fenced_after_stall", 4802, "price-updates", {"prices": 6}, ms, 5 * MIN,
                     broker_debug=True,
                     title="Consumer protocol: a dynamic member fenced after a 70 s stall (session expiry)",
                     story="pricing-2's process freezes for 70 s from 02:02:00. The broker fences it 45 s after "
                           "its last heartbeat (group.consumer.session.timeout.ms default), bumps the group epoch "
                           "and hands its partitions to the others. When the process resumes, its heartbeat "
                           "gets UNKNOWN_MEMBER_ID: it loses its partitions and rejoins with epoch 0. A dynamic "
                           "member: no static fencing. Broker GroupMetadataManager at DEBUG.")


def consumer_slow_revocation() -> KScenario:
    ms = [KMember("audit-1", "10.0.6.11", 1000), KMember("audit-2", "10.0.6.12", 1500),
          KMember("audit-3", "10.0.6.13", 2000, revoke_ms=75_000), KMember("audit-4", "10.0.6.14", 60_000)]
    return KScenario("consumer_slow_revocation", 4803, "audit-sink", {"audit-events": 6}, ms, 4 * MIN,
                     max_poll_ms=60_000, broker_debug=True,
                     title="Consumer protocol: a revocation not acknowledged within the rebalance timeout",
                     story="audit-4 joins at 02:01:00; audit-3 must give up a partition but its "
                           "onPartitionsRevoked takes 75 s. Its rebalance timeout (max.poll.interval.ms = 60 s) "
                           "expires first: the broker fences it, audit-4 gets the partition, and audit-3 rejoins "
                           "once its callback returns. Broker GroupMetadataManager at DEBUG.")


def consumer_migration() -> KScenario:
    ms = [KMember("stock-3", "10.0.7.13", 60_000), KMember("stock-1", "10.0.7.11", 170_000),
          KMember("stock-2", "10.0.7.12", 171_000)]
    return KScenario("consumer_migration", 4804, "stock-sync", {"stock-updates": 4}, ms, 4 * MIN,
                     classic=[("stock-1", 1000, 150_000), ("stock-2", 1500, 150_300)],
                     title="Classic -> consumer migration: refused while classic members remain, then offline",
                     story="Two 3.9 consumers (group.protocol=classic) form generation 1. At 02:01:00 an upgraded 4.0 "
                           "consumer (group.protocol=consumer) starts; the broker (group.consumer.migration.policy="
                           "disabled) refuses to convert the non-empty classic group: GROUP_ID_NOT_FOUND, fatal, and "
                           "the application retries every 30 s (four refusals, the last between the two leaves). At 02:02:30 the classic consumers "
                           "stop; the empty classic group is replaced by a consumer group, which the upgraded "
                           "consumer and the restarted hosts join (group epochs 1-3). Broker at INFO.")


ALL = (consumer_scale_out, consumer_fenced_after_stall, consumer_slow_revocation, consumer_migration)
FIRST_DAY_MS = 1_748_829_600_000  # 2025-06-02T02:00:00Z


def by_name() -> dict[str, KScenario]:
    out = {}
    for i, f in enumerate(ALL):
        sc = f()
        sc.epoch_ms = FIRST_DAY_MS + i * DAY
        out[f.__name__] = sc
    return out


def write_scenario(sc: KScenario, out_dir: str) -> dict[str, str]:
    from pipeline.generator.generate import compact_json
    os.makedirs(out_dir, exist_ok=True)
    sim = KipSim(sc).run()
    files: dict[str, str] = {}
    for c in sim.clients:
        _write(os.path.join(out_dir, f"{c.spec.name}.log"), sim.client_lines(c))
        files[f"{c.spec.name}.log"] = "client (4.0.0, log4j, group.protocol=consumer)"
    for host in sorted(sim.classic_lines):
        _write(os.path.join(out_dir, f"{host}-classic.log"), sim.classic_client_lines(host))
        files[f"{host}-classic.log"] = "client (3.9.0, log4j, group.protocol=classic)"
    _write(os.path.join(out_dir, "kafka-1-server.log"), sim.broker_lines())
    files["kafka-1-server.log"] = "broker server.log (broker 1, 4.0.0)"
    truth = sim.truth()
    truth["files"] = files
    with open(os.path.join(out_dir, "truth.json"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(compact_json(truth) + "\n")
    return files


def _write(path: str, lines: list[str]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("\n".join(lines) + "\n")


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True)
