"""Discrete-event simulation of one consumer group: clients, producers and the coordinator.

Clients follow the classic consumer (Kafka's AbstractCoordinator / ConsumerCoordinator): a poll loop
that processes batches, a heartbeat thread that also enforces max.poll.interval.ms, eager
rebalances (revoke on rejoin), auto or manual commits, and the member-id handshake. Everything the
broker decides comes from the coordinator core behind `broker_model.ModelDriver`. The simulation
writes semantic facts (`ClientFact`, `BrokerFact`) that the renderer turns into log lines, and the
ground truth (ownership, commits, processed ranges) for truth.json.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field
from random import Random
from typing import Any

from pipeline.generator.assign import Sub, assign
from pipeline.generator.broker_model import ModelDriver, encode, make_core
from pipeline.generator.clients import (
    KAFKAJS_ASSIGNORS,
    MAXPOLL_CHECK_MS,
    RDKAFKA_ASSIGNORS,
    client_id,
    is_kafka_python,
    is_kafkajs,
    is_librdkafka,
    sends_join_reason,
    sends_leave_reason,
    setting,
)
from pipeline.generator.scenario import Action, ConsumerSpec, Scenario

NET_MS = 2  # one-way network latency client <-> broker


@dataclass
class ClientFact:
    ts: int
    host: str
    thread: str  # "main" (poll loop) | "hb" (heartbeat thread) | "app"
    level: str
    key: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass
class Client:
    spec: ConsumerSpec
    client_id: str
    up: bool = False
    incarnation: int = 0
    state: str = "DOWN"  # DOWN | UNJOINED | JOINING | SYNCING | STABLE
    member_id: str = ""
    generation: int = -1
    protocol: str | None = None
    assigned: list[str] = field(default_factory=list)
    positions: dict[str, int] = field(default_factory=dict)
    last_poll: int = 0
    last_auto_commit: int = 0
    rejoin_reason: str | None = None
    lost: bool = False  # generation reset: partitions must be given away as lost
    paused_until: int = 0
    join_ref: str | None = None
    sync_ref: str | None = None
    slow_next_ms: int | None = None
    coordinator_known: bool = True
    left_on_poll_timeout: bool = False
    ref_seq: int = 0
    polling: bool = False
    last_hb: int = 0  # KafkaJS: when the runner last sent a heartbeat (consumerGroup.js lastRequest)


class Simulation:
    def __init__(self, sc: Scenario) -> None:
        self.sc = sc
        self.rng = Random(sc.seed)
        # group.initial.rebalance.delay.ms exists from 0.11.0.0 (default 3000)
        delay = 0 if sc.broker_version == "0.10" else 3000
        self.driver = ModelDriver(make_core(Random(sc.seed ^ 0x5EED), delay), sc.group_id)
        self.skew: dict[str, int] = {}
        self.high_water: dict[str, int] = {}  # highest offset handed to the application, per partition
        self.queue: list[tuple[int, int, Callable[..., None], tuple[Any, ...]]] = []
        self.seq = 0
        self.now = 0
        self.facts: list[ClientFact] = []
        self.partitions = dict(sc.topics)
        self.partition_born: dict[str, int] = {}
        self.clients = {c.name: Client(c, client_id(c, sc.group_id)) for c in sc.consumers}
        for c in sc.consumers:
            if (is_librdkafka(c) or is_kafka_python(c)) and c.assignors == ("range",):
                c.assignors = RDKAFKA_ASSIGNORS  # their default strategies: range, then roundrobin
            if is_kafkajs(c) and c.assignors == ("range",):
                c.assignors = KAFKAJS_ASSIGNORS  # KafkaJS's default assigner
        if sc.consumers and not set.intersection(*(set(c.assignors) for c in sc.consumers)):
            # GroupCoordinator answers such a JoinGroup INCONSISTENT_GROUP_PROTOCOL (e.g. KafkaJS's
            # RoundRobinAssigner beside Java's range): such a group cannot form; not simulated
            raise ValueError(f"{sc.name}: the members' assignors have no protocol in common "
                             f"({sorted({a for c in sc.consumers for a in c.assignors})})")
        self.coordinator = sc.coordinator
        self.coordinator_log: list[dict[str, Any]] = [{"broker": sc.coordinator, "from_ms": 0, "to_ms": None}]
        self.unreachable_until = -1
        self.committed: dict[str, int] = {}
        self.commits: list[dict[str, Any]] = []
        self.processed: list[dict[str, Any]] = []
        self.ownership: list[dict[str, Any]] = []
        self.position_jumps: list[dict[str, Any]] = []
        self.members_truth: dict[str, dict[str, Any]] = {}
        self.client_end: dict[str, str] = {}  # member id -> what its process did when it stopped being one
        self.snapshots: list[dict[str, Any]] = []
        self.base_offset: dict[str, int] = {}
        for t, n in sc.topics.items():
            for p in range(n):
                tp = f"{t}-{p}"
                self.partition_born[tp] = 0
                self.base_offset[tp] = self.rng.randrange(10_000, 900_000)
                if sc.initial_committed:
                    self.committed[tp] = self.log_end(tp, 0) - self.rng.randrange(0, 40)

    # ---- producers
    def log_end(self, tp: str, t: int) -> int:
        born = self.partition_born[tp]
        return self.base_offset.get(tp, 0) + int(max(0, t - born) * self.sc.produce_rate / 1000)

    # ---- event loop
    def at(self, t: int, fn: Callable[..., None], *args: Any) -> None:
        self.seq += 1
        heapq.heappush(self.queue, (t, self.seq, fn, args))

    # each member's own settings (its configuration, else its client library's default)
    def session_ms(self, c: Client) -> int:
        return setting(c.spec, "session.timeout.ms", self.sc.session_ms)

    def max_poll_ms(self, c: Client) -> int:
        return setting(c.spec, "max.poll.interval.ms", self.sc.max_poll_ms)

    def heartbeat_ms(self, c: Client) -> int:
        return setting(c.spec, "heartbeat.interval.ms", self.sc.heartbeat_ms)

    def fact(self, c: Client, thread: str, level: str, key: str, **args: Any) -> None:
        self.facts.append(ClientFact(self.now, c.spec.name, thread, level, key, args))

    def run(self) -> Simulation:
        for c in self.sc.consumers:
            self.at(c.start_ms, self._start, self.clients[c.name])
        for a in self.sc.actions:
            self.at(a.at_ms, self._action, a)
        while self.queue:
            t, _, fn, args = heapq.heappop(self.queue)
            if t > self.sc.duration_ms:
                break
            self.now = t
            self._broker_tick(t)
            fn(*args)
        self.now = self.sc.duration_ms
        self._broker_tick(self.now)
        self._describe()
        self._close_truth()
        return self

    def _broker_tick(self, t: int) -> None:
        self._deliver(self.driver.advance(t))

    def _deliver(self, completions: list[tuple[str, dict[str, Any]]]) -> None:
        for ref, resp in completions:
            name, _, rest = ref.partition("#")
            inc, _seq, kind = rest.split(":")
            self.at(self.now + NET_MS, self._on_response, self.clients[name], int(inc), kind, ref, resp)

    def _new_ref(self, c: Client, kind: str) -> str:
        c.ref_seq += 1
        return f"{c.spec.name}#{c.incarnation}:{c.ref_seq}:{kind}"

    def _alive(self, c: Client, inc: int) -> bool:
        return c.up and c.incarnation == inc

    def _paused(self, c: Client, fn: Callable[..., None], *args: Any) -> bool:
        if self.now < c.paused_until:
            self.at(c.paused_until, fn, *args)
            return True
        return False

    def _broker_up(self) -> bool:
        return self.now >= self.unreachable_until

    # ---- scenario actions
    def _action(self, a: Action) -> None:
        c = self.clients.get(a.target or "")
        if a.kind == "start" and c is not None:
            self._start(c)
        elif a.kind == "stop" and c is not None:
            self._stop(c)
        elif a.kind == "crash" and c is not None and c.up:
            self._crash(c, a.args.get("error", "java.lang.OutOfMemoryError: Java heap space"))
        elif a.kind == "gc_pause" and c is not None and c.up:
            c.paused_until = self.now + a.args["ms"]
            self.at(c.paused_until, self._resume_from_pause, c, c.incarnation, a.args["ms"])
        elif a.kind == "slow_batch" and c is not None:
            c.slow_next_ms = a.args["ms"]
        elif a.kind == "add_partitions":
            topic, total = a.args["topic"], a.args["total"]
            for p in range(self.partitions[topic], total):
                tp = f"{topic}-{p}"
                self.partition_born[tp] = self.now
                self.base_offset[tp] = 0
            self.partitions[topic] = total
            self.topic_changes = getattr(self, "topic_changes", []) + [
                {"ts": self.now, "topic": topic, "partitions": total}]
            # the leader's metadata refresh notices the change (metadata.max.age.ms or a fetch error)
            self.at(self.now + a.args.get("notice_ms", 20000), self._metadata_changed, topic, total)
        elif a.kind == "failover":
            self._failover(a.args["to"], a.args.get("outage_ms", 2500))
        elif a.kind == "reset_offsets":
            self._admin_reset(a.args)
        elif a.kind == "describe":
            self._describe()

    def _start(self, c: Client) -> None:
        if c.up:
            return
        c.up, c.incarnation = True, c.incarnation + 1
        c.state, c.member_id, c.generation, c.assigned = "UNJOINED", "", -1, []
        c.positions, c.rejoin_reason, c.lost, c.left_on_poll_timeout = {}, None, False, False
        c.polling = False
        self.fact(c, "main", "INFO", "startup", instance_id=c.spec.instance_id, client_id=c.client_id,
                  auto_commit=c.spec.auto_commit, assignors=c.spec.assignors, topics=sorted(self.sc.topics),
                  session_ms=self.session_ms(c), max_poll_ms=self.max_poll_ms(c),
                  heartbeat_ms=self.heartbeat_ms(c))
        self.at(self.now + 180 + self.rng.randrange(120), self._discover, c, c.incarnation)

    def _discover(self, c: Client, inc: int) -> None:
        if not self._alive(c, inc) or self._paused(c, self._discover, c, inc):
            return
        if not self._broker_up():
            self.at(self.unreachable_until + self.rng.randrange(50, 300), self._discover, c, inc)
            return
        c.coordinator_known = True
        self.fact(c, "main", "INFO", "discovered", broker=self.coordinator)
        if c.state in ("UNJOINED",):
            self._send_join(c)
        if not c.polling:
            c.polling = True
            if is_kafkajs(c.spec):  # no heartbeat thread: its runner heartbeats (_js_heartbeat)
                self.at(self.now + 5, self._js_tick, c, inc)
            else:
                self.at(self.now + 5, self._heartbeat, c, inc)
            if is_librdkafka(c.spec):
                self.at(self.now + MAXPOLL_CHECK_MS, self._rd_timer, c, inc, 1)

    def _stop(self, c: Client) -> None:
        if not c.up:
            return
        if c.state == "STABLE" and c.assigned:
            self._commit_positions(c, "close", sync=True)
            self._revoke(c, "main")
        self.client_end.setdefault(c.member_id, "closed (static member: no LeaveGroup)" if c.spec.instance_id
                                   else "closed gracefully (LeaveGroup)")
        if c.member_id and not c.spec.instance_id and c.state != "DOWN":
            # LeaveGroup v0-v1 of librdkafka and kafka-python carries no reason (clients.py)
            reason = "the consumer is being closed" if sends_leave_reason(c.spec) else None
            self.fact(c, "main", "INFO", "leave", member_id=c.member_id, reason=reason, broker=self.coordinator)
            self.at(self.now + NET_MS, self._send_leave, c.member_id, reason)
        self._end_ownership(c, "close")
        self.fact(c, "main", "INFO", "shutdown")
        c.up, c.state = False, "DOWN"

    def _send_leave(self, member_id: str, reason: str) -> None:
        _, out = self.driver.leave(self.now, member_id=member_id, reason=reason)
        self._deliver(out)

    def _crash(self, c: Client, error: str) -> None:
        self.client_end.setdefault(c.member_id, "process crashed (no LeaveGroup)")
        self.fact(c, "main", "ERROR", "crash", error=error)
        self._end_ownership(c, "crash")
        c.up, c.state = False, "DOWN"

    def _resume_from_pause(self, c: Client, inc: int, ms: int) -> None:
        if self._alive(c, inc):
            self.fact(c, "app", "WARN", "gc_pause", ms=ms)

    # ---- join / sync (AbstractCoordinator.joinGroupIfNeeded, JoinGroupResponseHandler, SyncGroupResponseHandler)
    def _send_join(self, c: Client) -> None:
        if not self._broker_up():
            self.at(self.unreachable_until + 50, self._send_join, c)
            return
        reason = c.rejoin_reason
        c.state, c.rejoin_reason = "JOINING", None
        self.fact(c, "main", "INFO", "join_start", reason=reason, member_id=c.member_id)
        ref = self._new_ref(c, "join")
        c.join_ref = ref
        self.at(self.now + NET_MS, self._broker_join, c, ref, c.member_id, reason)

    def _broker_join(self, c: Client, ref: str, member_id: str, reason: str | None) -> None:
        new_id = None if member_id else self.driver.core.new_member_id(c.client_id, c.spec.instance_id)
        out = self.driver.join(self.now, ref=ref, member_id=member_id, new_member_id=new_id, instance_id=c.spec.instance_id,
                               client_id=c.client_id, host=c.spec.ip,
                               protocols=[(a, self._metadata(c)) for a in c.spec.assignors],
                               session_ms=self.session_ms(c), rebalance_ms=self.max_poll_ms(c),
                               # JoinGroup v4+ (Java 2.2+, librdkafka 1.x+, kafka-python 2.2+)
                               require_known_member_id=self.sc.client_version != "0.10",
                               reason=(reason if sends_join_reason(c.spec) else None) or "not provided")
        self._deliver(out)

    def _cooperative(self, c: Client) -> bool:
        # ConsumerCoordinator: the protocol is COOPERATIVE when every offered assignor supports it
        return all(a == "cooperative-sticky" for a in c.spec.assignors)

    def _metadata(self, c: Client) -> str:
        """Subscription metadata: topics, and (2.4+) the partitions owned when joining."""
        owned = ",".join(c.assigned) if self._cooperative(c) else ""
        return ",".join(sorted(self.sc.topics)) + "|" + owned

    def _on_response(self, c: Client, inc: int, kind: str, ref: str, resp: dict[str, Any]) -> None:
        if not self._alive(c, inc):
            return
        if self.now < c.paused_until:
            self.at(c.paused_until, self._on_response, c, inc, kind, ref, resp)
            return
        if kind == "join" and ref == c.join_ref:
            self._on_join(c, resp)
        elif kind == "sync" and ref == c.sync_ref:
            self._on_sync(c, resp)

    def _on_join(self, c: Client, resp: dict[str, Any]) -> None:
        c.join_ref = None
        err = resp["error"]
        if err == "MEMBER_ID_REQUIRED":
            c.member_id = resp["member_id"]
            c.rejoin_reason = f"need to re-join with the given member-id: {c.member_id}"
            self.fact(c, "main", "INFO", "rejoin_requested", reason=c.rejoin_reason)
            self._send_join(c)
            return
        if err != "NONE":
            self.fact(c, "main", "INFO", "join_failed", error=err, generation=c.generation)
            if err in ("UNKNOWN_MEMBER_ID", "FENCED_INSTANCE_ID"):
                c.member_id = ""
            if err == "FENCED_INSTANCE_ID":
                self._crash(c, "org.apache.kafka.common.errors.FencedInstanceIdException: "
                               "The broker rejected this static consumer since another consumer with "
                               "the same group.instance.id has registered with a different member.id.")
                return
            c.state = "UNJOINED"
            self._send_join(c)
            return
        c.member_id, c.generation, c.protocol = resp["member_id"], resp["generation"], resp["protocol"]
        c.state = "SYNCING"
        self.members_truth.setdefault(c.member_id, {
            "member_id": c.member_id, "client_id": c.client_id, "host": c.spec.name, "ip": c.spec.ip,
            "instance_id": c.spec.instance_id, "joined_ms": self.now, "left_ms": None, "leave": None})
        leader = resp["leader"] == c.member_id
        self.fact(c, "main", "INFO", "joined", generation=c.generation, member_id=c.member_id,
                  protocol=c.protocol, leader=leader, leader_id=resp["leader"], members=len(resp.get("members") or []))
        assignment = None
        if leader and resp.get("members"):
            subs = []
            for mid, iid, _meta in resp["members"]:
                owner = next((x for x in self.clients.values() if x.member_id == mid), None)
                subs.append(Sub(mid, iid, tuple(sorted(self.sc.topics)),
                                tuple(owner.assigned) if owner else (), c.generation - 1))
            plan = assign(c.protocol or "range", subs, self.partitions)
            assignment = {m: encode(p) for m, p in plan.items()}
            self.fact(c, "main", "INFO", "assignment_done", generation=c.generation, plan=plan)
        ref = self._new_ref(c, "sync")
        c.sync_ref = ref
        self.at(self.now + NET_MS, self._broker_sync, c.member_id, c.generation, ref, assignment)

    def _broker_sync(self, mid: str, gen: int, ref: str, assignment: dict[str, str] | None) -> None:
        self._deliver(self.driver.sync(self.now, ref=ref, member_id=mid, generation=gen,
                                       assignment=assignment))

    def _on_sync(self, c: Client, resp: dict[str, Any]) -> None:
        c.sync_ref = None
        if resp["error"] != "NONE":
            self.fact(c, "main", "INFO", "sync_failed", error=resp["error"], generation=c.generation,
                      member_id=c.member_id, protocol=c.protocol)
            if resp["error"] in ("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION"):
                c.member_id, c.generation = ("" if resp["error"] == "UNKNOWN_MEMBER_ID" else c.member_id), -1
            c.state = "UNJOINED"
            self._send_join(c)
            return
        parts = [p for p in resp["assignment"].split(",") if p]
        self.fact(c, "main", "INFO", "synced", generation=c.generation, member_id=c.member_id,
                  protocol=c.protocol, partitions=parts)
        if self._cooperative(c):
            self._reconcile(c, parts)
            return
        c.state, c.assigned = "STABLE", parts
        c.last_hb = self.now  # the broker's session timer restarts with the SyncGroup
        self._take(c, parts)

    def _reconcile(self, c: Client, parts: list[str]) -> None:
        """ConsumerCoordinator.onJoinComplete, COOPERATIVE: revoke only what moved away, add the rest,
        and rejoin when something was revoked (its new owner gets it in the next rebalance)."""
        owned = list(c.assigned)
        added = [tp for tp in parts if tp not in owned]
        revoked = [tp for tp in owned if tp not in parts]
        self.fact(c, "main", "INFO", "updating_assignment", assigned=parts, owned=owned, added=added,
                  revoked=revoked)
        if revoked:
            self.fact(c, "main", "INFO", "revoked", partitions=revoked)
            for o in self.ownership:
                if o["to_ms"] is None and o["host"] == c.spec.name and o["partition"] in revoked:
                    o["to_ms"], o["end"] = self.now, "revoked"
            c.rejoin_reason = "need to revoke partitions and re-join"
            self.fact(c, "main", "INFO", "rejoin_requested",
                      reason=f"need to revoke partitions {_jlist(revoked)} as indicated by the current "
                             "assignment and re-join")
        c.state, c.assigned = "STABLE", parts
        self._take(c, added)

    def _take(self, c: Client, parts: list[str]) -> None:
        """Newly assigned partitions: ownership starts, positions come from the committed offsets."""
        for tp in parts:
            self.ownership.append({"partition": tp, "member_id": c.member_id, "host": c.spec.name,
                                   "generation": c.generation, "from_ms": self.now, "to_ms": None})
        self.fact(c, "main", "INFO", "assigned", partitions=parts)
        for tp in parts:
            if tp in self.committed:
                off = self.committed[tp]
                c.positions[tp] = off
                self.fact(c, "main", "INFO", "committed_position", tp=tp, offset=off,
                          leader_broker=self._leader_of(tp))
                self._jump(tp, off, "committed offset", c)
            else:
                off = self.log_end(tp, self.now)
                c.positions[tp] = off
                self.fact(c, "main", "INFO", "no_committed", tp=tp)
                self.fact(c, "main", "INFO", "reset_position", tp=tp, offset=off,
                          leader_broker=self._leader_of(tp))
                self._jump(tp, off, "auto.offset.reset=latest (no committed offset)", c)
        c.last_poll = self.now
        self.at(self.now + 1, self._poll, c, c.incarnation)

    def _leader_of(self, tp: str) -> int:
        return self.sc.brokers[sum(map(ord, tp)) % len(self.sc.brokers)]

    def _jump(self, tp: str, off: int, why: str, c: Client) -> None:
        high = self.high_water.get(tp)
        if high is None:
            high = self.committed.get(tp)
            if high is None:
                high = 0 if self.partition_born[tp] > 0 else None
        if high is not None and off != high:
            self.position_jumps.append({"ts": self.now, "partition": tp, "from": high, "to": off,
                                        "why": why, "member_id": c.member_id})

    # ---- poll loop (KafkaConsumer.poll -> ConsumerCoordinator.poll)
    def _poll(self, c: Client, inc: int) -> None:
        if not self._alive(c, inc) or self._paused(c, self._poll, c, inc):
            return
        if c.state in ("JOINING", "SYNCING"):
            return  # the join flow reschedules the poll
        c.last_poll = self.now
        if c.lost or c.left_on_poll_timeout:
            if c.assigned:
                self.fact(c, "main", "INFO", "lost", partitions=list(c.assigned), member_id=c.member_id,
                          generation=c.generation)
            self._end_ownership(c, "lost")
            c.assigned, c.lost, c.left_on_poll_timeout = [], False, False
            c.state = "UNJOINED"
        if c.state == "UNJOINED" or c.rejoin_reason is not None:
            if c.state == "STABLE":
                # KafkaJS committed after its last batch already (runner.js autoCommitOffsets)
                if c.spec.auto_commit and c.assigned and not is_kafkajs(c.spec):
                    self._commit_positions(c, "auto", sync=True)
                if not self._cooperative(c):  # COOPERATIVE keeps its partitions while rejoining
                    self._revoke(c, "main")
            if not c.coordinator_known:
                self.at(self.now + 100, self._poll, c, inc)
                return
            self._send_join(c)
            return
        if c.spec.auto_commit and self.now - c.last_auto_commit >= 5000 and c.assigned and \
                not is_librdkafka(c.spec) and not is_kafkajs(c.spec):  # librdkafka: its own timer (_rd_timer);
            # KafkaJS: after every batch (_js_after_batch)
            self._commit_positions(c, "auto", sync=False)
        batch: dict[str, tuple[int, int]] = {}
        room = c.spec.batch_records
        for tp in c.assigned:
            pos = c.positions.get(tp, 0)
            avail = max(0, self.log_end(tp, self.now) - pos)
            take = min(avail, max(1, room // max(1, len(c.assigned))), room)
            if take > 0:
                batch[tp] = (pos, pos + take)
                room -= take
        n = sum(b - a for a, b in batch.values())
        # a poll that finds little data waits up to fetch.max.wait.ms (500) for more
        proc = int(c.spec.processing_ms * max(0.05, n / c.spec.batch_records) * self.rng.uniform(0.7, 1.3)) + 5
        proc = max(proc, self.rng.randrange(250, 600))
        if c.slow_next_ms is not None and n > 0:
            proc, c.slow_next_ms = c.slow_next_ms, None
        for tp, (a, b) in batch.items():
            c.positions[tp] = b
            self.high_water[tp] = max(self.high_water.get(tp, b), b)
            self.processed.append({"partition": tp, "from": a, "to": b, "member_id": c.member_id,
                                   "host": c.spec.name, "start_ms": self.now, "end_ms": self.now + proc})
        if n:
            self.at(self.now + proc, self._batch_done, c, inc, n, proc, sorted(batch))
        else:
            if is_kafkajs(c.spec):  # runner.js fetch: no batches, heartbeat
                self._js_heartbeat(c)
            self.at(self.now + 100 + self.rng.randrange(400), self._poll, c, inc)

    def _batch_done(self, c: Client, inc: int, n: int, proc: int, parts: list[str]) -> None:
        if not self._alive(c, inc) or self._paused(c, self._batch_done, c, inc, n, proc, parts):
            return
        self.fact(c, "app", "INFO" if proc < 10000 else "WARN", "batch", records=n, ms=proc, partitions=parts)
        if is_kafkajs(c.spec):
            self._js_after_batch(c)
            self.at(self.now + 1, self._poll, c, inc)
            return
        if not c.spec.auto_commit and self.now - c.last_auto_commit >= 5000:
            # the application commits synchronously after a batch, at most every 5 s
            self._commit_positions(c, "manual", sync=True)
        self.at(self.now + 1, self._poll, c, inc)

    def _revoke(self, c: Client, thread: str) -> None:
        self.fact(c, thread, "INFO", "revoked", partitions=list(c.assigned))
        self._end_ownership(c, "revoked")
        c.assigned = []

    def _end_ownership(self, c: Client, why: str) -> None:
        for o in self.ownership:
            if o["to_ms"] is None and o["host"] == c.spec.name:  # one consumer per host
                o["to_ms"], o["end"] = self.now, why

    def _commit_positions(self, c: Client, kind: str, sync: bool) -> None:
        offsets = {tp: c.positions[tp] for tp in c.assigned if tp in c.positions}
        if not offsets:
            return
        c.last_auto_commit = self.now
        if not self._broker_up():
            self.fact(c, "main", "WARN", "commit_failed_coordinator", offsets=offsets, broker=self.coordinator)
            return
        err = self.driver.commit(self.now, member_id=c.member_id, generation=c.generation,
                                 offsets=offsets)
        if err == "NONE":
            for tp, off in offsets.items():
                self.committed[tp] = off
                self.commits.append({"ts": self.now, "partition": tp, "offset": off,
                                     "member_id": c.member_id, "generation": c.generation, "kind": kind})
            if is_librdkafka(c.spec):
                self.fact(c, "main", "DEBUG", "committed", offsets=offsets, generation=c.generation, kind=kind, sync=sync)
        else:
            self.fact(c, "main", "ERROR" if kind == "manual" else "WARN", "commit_failed", offsets=offsets,
                      error=err, kind=kind, sync=sync, broker=self.coordinator)
            if is_kafkajs(c.spec) and err in ("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION"):
                self._js_unknown_member(c, err)  # runner.js: the error ends the batch, the runner rejoins

    # ---- heartbeat thread (AbstractCoordinator.HeartbeatThread)
    def _heartbeat(self, c: Client, inc: int) -> None:
        if not self._alive(c, inc) or self._paused(c, self._heartbeat, c, inc):
            return
        nxt = self.now + self.heartbeat_ms(c)
        if c.state == "STABLE" and self.now - c.last_poll > self.max_poll_ms(c) and c.member_id and \
                not is_librdkafka(c.spec):  # librdkafka: its own 500 ms timer (_rd_timer)
            reason = "consumer poll timeout has expired."
            self.client_end.setdefault(c.member_id, "poll loop stalled past max.poll.interval.ms (LeaveGroup)")
            self.fact(c, "hb", "WARN", "poll_timeout", member_id=c.member_id, broker=self.coordinator)
            if sends_leave_reason(c.spec):
                self.at(self.now + NET_MS, self._send_leave, c.member_id, reason)
            else:  # kafka-python's heartbeat thread: LeaveGroup v0-v1, no reason
                mid = c.member_id
                self.at(self.now + NET_MS, lambda: self._deliver(
                    self.driver.leave(self.now, member_id=mid, reason=None, client_cause="poll_timeout",
                                      client_side="kafka-python heartbeat thread: 'Consumer poll timeout has "
                                                  "expired', LeaveGroup without a reason")[1]))
            self._end_ownership(c, "poll_timeout")
            c.left_on_poll_timeout, c.member_id, c.generation = True, "", -1
            c.state = "STABLE"
        elif c.state in ("STABLE", "SYNCING") and c.member_id and c.generation >= 0 and \
                not c.left_on_poll_timeout:
            if not self._broker_up():
                if c.coordinator_known:
                    c.coordinator_known = False
                    self.fact(c, "hb", "INFO", "coordinator_lost", broker=self.coordinator_log[-2]["broker"]
                              if len(self.coordinator_log) > 1 else self.coordinator, cause="NOT_COORDINATOR")
                    self.at(self.unreachable_until + self.rng.randrange(100, 600), self._discover, c, inc)
            else:
                if is_librdkafka(c.spec):
                    self.fact(c, "hb", "DEBUG", "hb_sent", generation=c.generation)
                err = self.driver.heartbeat(self.now, member_id=c.member_id, generation=c.generation)
                if err == "REBALANCE_IN_PROGRESS" and c.state == "STABLE" and c.rejoin_reason is None:
                    c.rejoin_reason = "group is already rebalancing"
                    self.fact(c, "hb", "INFO", "hb_rebalancing", reason=c.rejoin_reason)
                elif err in ("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION"):
                    paused = c.paused_until and self.now - c.paused_until < self.heartbeat_ms(c) * 2
                    self.client_end.setdefault(c.member_id, "process paused (GC) past session.timeout.ms" if paused
                                               else f"heartbeat answered {err}")
                    self.fact(c, "hb", "INFO", "hb_reset", error=err, generation=c.generation,
                              member_id=c.member_id, protocol=c.protocol, instance_id=c.spec.instance_id)
                    if err == "UNKNOWN_MEMBER_ID":
                        c.member_id = ""
                    c.generation, c.lost = -1, True
                    c.rejoin_reason = f"encountered {err} from HEARTBEAT response"
                    if c.state == "SYNCING":
                        c.state = "UNJOINED"
                        self._send_join(c)
        self.at(nxt, self._heartbeat, c, inc)

    # ---- KafkaJS's runner (src/consumer/runner.js handleBatch, v1.16-2.2.4): no heartbeat thread
    def _js_tick(self, c: Client, inc: int) -> None:
        """Nothing the client does: lets the broker's timers (join delay, session expiry) fire on time
        while the KafkaJS member waits in JoinGroup or in eachBatch (the Java clients' heartbeat
        thread does that for them)."""
        if self._alive(c, inc):
            self.at(self.now + 250, self._js_tick, c, inc)

    def _js_after_batch(self, c: Client) -> None:
        """After eachBatch returns: autoCommitOffsets (a commit per batch), then heartbeat. A member
        whose batch outlasted sessionTimeout was expired by the broker meanwhile: its commit is
        answered UNKNOWN_MEMBER_ID and the runner rejoins with no member id (a new member)."""
        if c.state != "STABLE" or not c.member_id:
            return
        if c.spec.auto_commit and c.assigned:
            mid = c.member_id
            self._commit_positions(c, "auto", sync=True)
            if c.member_id != mid or c.lost:
                return
        self._js_heartbeat(c)

    def _js_heartbeat(self, c: Client) -> None:
        """consumerGroup.js heartbeat({interval}): sent only when heartbeatInterval has passed since
        the last one; REBALANCE_IN_PROGRESS -> the runner rejoins with its member id,
        UNKNOWN_MEMBER_ID -> with none."""
        if c.state != "STABLE" or not c.member_id or self.now - c.last_hb < self.heartbeat_ms(c):
            return
        c.last_hb = self.now
        err = self.driver.heartbeat(self.now, member_id=c.member_id, generation=c.generation)
        if err == "REBALANCE_IN_PROGRESS" and c.rejoin_reason is None:
            self.fact(c, "main", "ERROR", "js_response_error", api="Heartbeat", error=err, broker=self.coordinator)
            c.rejoin_reason = "group is rebalancing"
            self.fact(c, "main", "WARN", "js_rebalancing", member_id=c.member_id, error=err)
        elif err in ("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION"):
            self.fact(c, "main", "ERROR", "js_response_error", api="Heartbeat", error=err, broker=self.coordinator)
            self._js_unknown_member(c, err)

    def _js_unknown_member(self, c: Client, err: str) -> None:
        self.client_end.setdefault(c.member_id, "eachBatch outlasted sessionTimeout: KafkaJS heartbeats only "
                                                "between batches (no heartbeat thread)")
        self.fact(c, "main", "ERROR", "js_unknown_member", member_id=c.member_id, error=err)
        c.member_id, c.generation, c.lost = "", -1, True

    # ---- librdkafka's own timers (rdkafka main thread, whatever the application does)
    def _rd_timer(self, c: Client, inc: int, tick: int) -> None:
        """rdkafka_cgrp.c (v1.0-2.x): the max.poll.interval.ms check every 500 ms, and the
        auto-commit timer (auto.commit.interval.ms) committing the offsets stored when poll()
        returned the messages (enable.auto.offset.store=true): both run while the application is
        busy. A poll interval exceeded makes the client itself leave the group
        (rd_kafka_cgrp_max_poll_interval_check_tmr_cb: MAXPOLL warning, LeaveGroup, member id
        reset, assignment revoked as lost); the application learns it on its next poll()."""
        if not self._alive(c, inc):
            return
        if c.state == "STABLE" and c.member_id and not c.left_on_poll_timeout:
            over = self.now - c.last_poll - self.max_poll_ms(c)
            if over > 0:
                self._rd_max_poll_exceeded(c, over)
            elif c.spec.auto_commit and c.assigned and tick % (setting(c.spec, "auto.commit.interval.ms", 5000)
                                                               // MAXPOLL_CHECK_MS) == 0:
                self._commit_positions(c, "auto", sync=False)
        self.at(self.now + MAXPOLL_CHECK_MS, self._rd_timer, c, inc, tick + 1)

    def _rd_max_poll_exceeded(self, c: Client, over: int) -> None:
        self.client_end.setdefault(c.member_id, "max.poll.interval.ms exceeded: the librdkafka client left "
                                                "the group itself (MAXPOLL, LeaveGroup)")
        self.fact(c, "main", "WARN", "rd_maxpoll", exceeded_ms=over, max_poll_ms=self.max_poll_ms(c),
                  member_id=c.member_id, partitions=list(c.assigned), generation=c.generation)
        mid = c.member_id
        self.at(self.now + NET_MS, lambda: self._deliver(
            self.driver.leave(self.now, member_id=mid, reason=None, client_cause="poll_timeout",
                              client_side="librdkafka MAXPOLL: max.poll.interval.ms exceeded, the client left the group")[1]))
        self._end_ownership(c, "poll_timeout")
        c.left_on_poll_timeout, c.member_id, c.generation = True, "", -1

    # ---- metadata change, failover, admin reset
    def _metadata_changed(self, topic: str, total: int) -> None:
        for c in self.clients.values():
            if c.up and c.state == "STABLE" and c.member_id and c.member_id == self._leader():
                c.rejoin_reason = "cached metadata has changed"
                self.fact(c, "main", "INFO", "metadata_changed", topic=topic, total=total)

    def _leader(self) -> str | None:
        return self.driver.core.snapshot(self.sc.group_id)["leader"]

    def _failover(self, to: int, outage_ms: int) -> None:
        old = self.coordinator
        self.coordinator_log[-1]["to_ms"] = self.now
        self.coordinator_log.append({"broker": to, "from_ms": self.now + outage_ms, "to_ms": None})
        self.coordinator = to
        self.unreachable_until = self.now + outage_ms
        snap = self.driver.core.snapshot(self.sc.group_id)
        self.driver.facts.append(_bf(self.now, "coordinator_resigned", broker=old))
        self.driver.facts.append(_bf(self.now + outage_ms - 40, "coordinator_elected", broker=to, snapshot=snap,
                                     offsets=len(self.committed)))
        self._deliver(self.driver.resign(self.now))
        self.at(self.now + outage_ms - 40, lambda: self._deliver(self.driver.elect(self.now)))

    def _admin_reset(self, args: dict[str, Any]) -> None:
        mode = args["to"]  # earliest | latest | shift
        offsets = {}
        for t, n in self.partitions.items():
            for p in range(n):
                tp = f"{t}-{p}"
                if mode == "latest":
                    offsets[tp] = self.log_end(tp, self.now)
                elif mode == "earliest":
                    offsets[tp] = self.base_offset[tp] if self.partition_born[tp] == 0 else 0
                else:
                    offsets[tp] = max(0, self.committed.get(tp, 0) + int(args["by"]))
        err = self.driver.commit(self.now, member_id="", generation=-1, offsets=offsets)
        if err == "NONE":
            for tp, off in offsets.items():
                old = self.committed.get(tp)
                self.committed[tp] = off
                self.commits.append({"ts": self.now, "partition": tp, "offset": off, "member_id": None,
                                     "generation": -1, "kind": "admin_reset", "previous": old})
        self.admin_resets = getattr(self, "admin_resets", []) + [
            {"ts": self.now, "mode": mode, "error": err, "offsets": offsets}]

    def _describe(self) -> None:
        snap = self.driver.core.snapshot(self.sc.group_id)
        rows = []
        for t, n in sorted(self.partitions.items()):
            for p in range(n):
                tp = f"{t}-{p}"
                owner = next((c for c in self.clients.values() if c.up and tp in c.assigned), None)
                rows.append({"topic": t, "partition": p, "committed": self.committed.get(tp),
                             "log_end": self.log_end(tp, self.now),
                             "member_id": owner.member_id if owner else None,
                             "host": owner.spec.ip if owner else None,
                             "client_id": owner.client_id if owner else None})
        self.snapshots.append({"ts": self.now, "state": snap["state"], "rows": rows})

    def _close_truth(self) -> None:
        self.driver.finish(self.now)
        for r in self.driver.removals:
            m = self.members_truth.get(r["member_id"])
            if m is not None and m["left_ms"] is None:
                m["left_ms"], m["leave"] = r["ts"], {"why": r["why"], "reason": r["reason"],
                                                     "client_side": self.client_end.get(r["member_id"])}


def _jlist(parts: list[str]) -> str:
    return "[" + ", ".join(parts) + "]"


def _bf(ts: int, key: str, **args: Any) -> Any:
    from pipeline.generator.broker_model import BrokerFact

    return BrokerFact(ts, key, args)
