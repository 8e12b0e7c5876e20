"""Consumer-protocol (KIP-848) and streams (KIP-1071) groups: group epochs, target assignments and
each member's epochs and reconciliations, from the broker's GroupMetadataManager lines and the
clients' membership-manager lines, cross-checked (docs/replay.md "Consumer protocol").

Mirrors the 4.x group coordinator (apache/kafka group-coordinator, GroupMetadataManager.java 3.8+ /
4.0): a member joining, leaving or being fenced bumps the group epoch (a join logs "Bumped group epoch
to N."; a leave or a fence bumps it silently in consumerGroupFenceMember, the next "Computed a new target
assignment for epoch N" shows it); each member then converges to the new target epoch by epoch
(CurrentAssignmentBuilder: UNREVOKED_PARTITIONS while it still owns partitions it must give up,
UNRELEASED_PARTITIONS while partitions it gets are still owned by others, STABLE when reconciled).
Clients (AbstractMembershipManager 3.7+ / ConsumerMembershipManager 4.0) log their state
transitions with their member epoch and each reconciliation ("Reconciling assignment with local
epoch N": assigned, owned, added, revoked).

Output rows: one `generations` row per group epoch (generation = group epoch), one `memberships`
row per member and group epoch it belonged to, and the consumer-protocol findings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from parsers.events import Event
from pipeline.replay_rules.findings import make
from pipeline.replay_rules.lazy_text import contains_any
from pipeline.replay_rules.settings import EffectiveSettings
from pipeline.replay_rules.state import _file_name, stream_namer

PROTOCOL_TYPE = {"consumer": "consumer (KIP-848)", "streams": "streams (KIP-1071)"}
# GroupCoordinatorConfig 4.0: group.consumer.session.timeout.ms / group.consumer.heartbeat.interval.ms
BROKER_SESSION_MS = 45000
BROKER_HEARTBEAT_MS = 5000
CAUSE_WINDOW_MS = 2000  # a join/leave/fence line this close before an epoch is what bumped it
SESSION_EXPIRED = "session expired"
REBALANCE_TIMEOUT = "failed to transition from epoch"


def group_type_of(events: list[Event]) -> str | None:
    """The group's type as the logs state it: a `group_type` on events (broker wordings of 3.7+
    coordinators, 3.7+ client membership managers), else `group.protocol = consumer` printed in a
    ConsumerConfig block. None when nothing says (a classic group, or unknown)."""
    counts: dict[str, int] = {}
    for ev in events:
        if ev.group_type:
            counts[ev.group_type] = counts.get(ev.group_type, 0) + 1
    for t in ("share", "streams", "consumer"):
        if counts.get(t):
            return t
    for ev in events:
        if ev.kind == "client_config":
            proto = str(((ev.extra or {}).get("settings") or {}).get("group.protocol", "")).strip().lower()
            if proto == "consumer":
                return "consumer"
    return None


def modern_sources(events: list[Event]) -> dict[str, int]:
    """Client logs of consumer-protocol (or streams) members -> the first line from which they are: a member
    epoch, a group type, or group.protocol=consumer printed (a log may start with a classic consumer)."""
    out: dict[str, int] = {}
    for ev in events:
        if ev.side != "client":
            continue
        if ev.group_type in ("consumer", "streams") or ev.kind == "member_state_changed" or (
                ev.kind == "client_config"
                and str(((ev.extra or {}).get("settings") or {}).get("group.protocol", "")).lower() == "consumer"):
            out[ev.source] = min(out.get(ev.source, ev.line_no), ev.line_no)
    return out


def classic_part(events: list[Event]) -> list[Event]:
    """The events of a group's classic incarnation (a group that moved to the consumer protocol): classic
    clients' lines and the broker's classic-group lines (GroupCoordinator / the 4.x classic group wordings)."""
    modern = modern_sources(events)
    out = []
    for ev in events:
        x = ev.extra or {}
        if ev.side == "client" and ev.source in modern and ev.line_no >= modern[ev.source]:
            continue
        if ev.side == "broker" and (ev.group_type in ("consumer", "streams", "share") or ev.member_epoch is not None
                                    or x.get("group_epoch") is not None):
            continue
        out.append(ev)
    return out


@dataclass
class MemberEpoch:
    """One member at one group epoch."""

    member_id: str
    epoch: int
    client_id: str | None = None
    instance_id: str | None = None
    host: str | None = None
    reached_ms: int | None = None  # its member epoch became this epoch
    acked_ms: int | None = None  # STABLE at this epoch (acknowledged)
    states: list[str] = field(default_factory=list)
    assigned: list[str] | None = None
    owned: list[str] | None = None
    added: list[str] | None = None
    revoked: list[str] | None = None
    left_ms: int | None = None
    leave_reason: str | None = None
    fence_error: str | None = None
    evidence: list[str] = field(default_factory=list)
    acked_unknown: bool = False  # its client's lines do not show when it reached this epoch
    by_broker: bool = False  # a broker "new assignment state" line put it at this epoch
    by_client: list[str] = field(default_factory=list)  # client lines stating this epoch (evidence)


@dataclass
class Epoch:
    epoch: int
    started_ms: int | None = None
    start_logged: bool = False  # "Bumped group epoch to N." (else inferred from a target or a member)
    target_ms: int | None = None
    assignor: str | None = None
    cause: str | None = None
    cause_detail: str | None = None
    trigger: str | None = None
    inferred: bool = True
    from_removal: bool = False  # started by a fence or leave (its bump is not logged on its own)
    evidence: list[str] = field(default_factory=list)


@dataclass
class Removal:
    member_id: str
    ts_ms: int | None
    reason: str  # session_expiry | rebalance_timeout | left | fenced
    detail: str
    evidence: list[str]
    timeout_ms: int | None = None
    from_epoch: int | None = None
    used: bool = False


class ConsumerGroupReplay:
    """One pass over a consumer-protocol group's ordered events."""

    def __init__(self, group_id: str | None, group_type: str, cfg: EffectiveSettings) -> None:
        self.gid, self.gtype, self.cfg = group_id, group_type, cfg
        self.epochs: dict[int, Epoch] = {}
        self.rows: dict[tuple[str, int], MemberEpoch] = {}
        self.member_epoch: dict[str, int] = {}  # member -> its current member epoch
        self.lives: dict[str, list[list[int | None]]] = {}  # member -> [[joined, removed], ...]
        self.stream_member: dict[tuple[str, str | None], str] = {}
        self.member_source: dict[str, str] = {}
        self.client_of: dict[str, str | None] = {}
        self.instance_of: dict[str, str | None] = {}
        self.pending: list[tuple[int, str, str, str, list[str]]] = []  # (ts, cause, member, detail, evidence)
        self.removals: list[Removal] = []
        self.client_fences: list[tuple[int | None, str, str, list[str]]] = []  # (ts, member, error, evidence)
        self.joins: list[tuple[int | None, str, list[str]]] = []
        self.broker_seen = False
        self.rebalance_timeout: dict[str, int] = {}
        self.static_replaced: list[tuple[int | None, str, str, str, list[str]]] = []
        self.replaced_by: dict[str, str] = {}  # new member id -> the static member it replaced
        self.poll_timeouts: dict[str, int | None] = {}  # member -> its client's poll-timer expiry
        self.arrival: dict[str, tuple[int, int | None]] = {}  # member -> (epoch, ts) of a STABLE -> RECONCILING
        self.last_ms: int | None = None
        self.stream_of: Any = _file_name

    # ------------------------------------------------------------------ pass
    def run(self, events: list[Event]) -> ConsumerGroupReplay:
        # a client log's name, with the line's origin in a file of several processes (state.stream_namer)
        self.stream_of = stream_namer(events, rotation=False)
        for ev in events:
            if ev.ts_ms is not None:
                self.last_ms = ev.ts_ms if self.last_ms is None else max(self.last_ms, ev.ts_ms)
            if ev.side == "broker":
                self._broker(ev)
            else:
                self._client(ev)
        return self

    def _epoch(self, n: int, ts: int | None, ev: Event, logged: bool = False) -> Epoch:
        e = self.epochs.get(n)
        if e is None:
            e = self.epochs[n] = Epoch(n, started_ms=ts)
            self._explain(e)
        if logged and not e.start_logged:
            e.start_logged, e.inferred = True, False
            e.started_ms = ts
        e.evidence.append(ev.evidence)
        return e

    def _explain(self, e: Epoch) -> None:
        """The cause of a bump: the join, leave or fence logged just before it (a fence or leave bumps
        the epoch without a line of its own), else unknown."""
        best = None
        for p in self.pending:
            if e.started_ms is None or p[0] <= e.started_ms:
                best = p
        if best is None:
            e.cause = "unknown"
            e.cause_detail = ("No line of the logs says why the group epoch was bumped (a subscription or metadata "
                              "change, or a member the logs do not show).")
            return
        self.pending.remove(best)
        ts, e.cause, e.trigger, e.cause_detail, ev = best
        e.evidence.extend(ev)
        if self.broker_seen and any(rm.member_id == e.trigger and rm.ts_ms == ts for rm in self.removals):
            # consumerGroupFenceMember bumps the epoch in the same write as the removal, without a line
            e.started_ms, e.inferred, e.from_removal = ts, False, True

    def _row(self, member: str, epoch: int, ev: Event | None = None) -> MemberEpoch:
        r = self.rows.get((member, epoch))
        if r is None:
            r = self.rows[(member, epoch)] = MemberEpoch(member, epoch, self.client_of.get(member),
                                                        self.instance_of.get(member), self.member_source.get(member))
        if ev is not None:
            r.evidence.append(ev.evidence)
            if ev.side == "client":
                r.client_id = r.client_id or ev.client_id
                r.host = r.host or self.stream_of(ev)
        return r

    def _reach(self, member: str, epoch: int, ts: int | None, ev: Event) -> MemberEpoch:
        r = self._row(member, epoch, ev)
        if r.reached_ms is None or (ts is not None and ts < r.reached_ms):
            r.reached_ms = ts
        if epoch > self.member_epoch.get(member, 0):
            self.member_epoch[member] = epoch
        if member not in self.lives:
            self.lives[member] = [[ts, None]]
        return r

    def _joined(self, member: str, ts: int | None) -> None:
        """A join (broker line, or the client's JOINING): a new life unless one is open (the broker's
        line and the client's transition of one join)."""
        lives = self.lives.setdefault(member, [])
        if lives and lives[-1][1] is None:
            if ts is not None and (lives[-1][0] is None or ts < lives[-1][0]):
                lives[-1][0] = ts
            return
        lives.append([ts, None])

    # ------------------------------------------------------------------ broker (GroupMetadataManager 3.8+/4.0)
    def _broker(self, ev: Event) -> None:
        x = ev.extra or {}
        if ev.group_type == "classic" or (ev.kind in ("broker_member_joined", "broker_member_removed")
                                          and ev.group_type not in ("consumer", "streams")):
            return  # the group's classic incarnation (classic_part replays it)
        self.broker_seen = True
        ts = ev.ts_ms
        if ev.kind == "broker_member_joined" and ev.member_id:
            # "[GroupId G] Member X joins the consumer group using the consumer protocol." / static joins
            if ev.instance_id:
                self.instance_of[ev.member_id] = ev.instance_id
            old = x.get("old_member_id") or x.get("existing_member_id") or x.get("replaced_member_id")
            if old:
                # "Static member with instance id I re-joins the consumer group ... Created a new member N to
                # replace the existing member O." (replaceMember: N takes O's assignment and epoch, no bump)
                self.static_replaced.append((ts, ev.instance_id or "?", str(old), ev.member_id, [ev.evidence]))
                lives = self.lives.setdefault(str(old), [[None, None]])
                if lives[-1][1] is None:
                    lives[-1][1] = ts
                self._joined(ev.member_id, ts)
                self.replaced_by[ev.member_id] = str(old)
                return
            self.joins.append((ts, ev.member_id, [ev.evidence]))
            if ev.member_id in self.replaced_by and self.lives.get(ev.member_id, [[None, 1]])[-1][1] is None:
                return  # the replacement's own "Static member N ... joins" line: the same join
            self._joined(ev.member_id, ts)
            self.pending.append((ts or 0, "member_joined", ev.member_id,
                                 f"Member {ev.member_id} joined the group (broker line).", [ev.evidence]))
        elif ev.kind == "broker_rebalance_preparing" and x.get("group_epoch") is not None:
            # "[GroupId G] Bumped group epoch to N."
            self._epoch(int(x["group_epoch"]), ts, ev, logged=True)
        elif ev.kind == "broker_assignment_received" and x.get("group_epoch") is not None and ev.member_epoch is None:
            # "[GroupId G] Computed a new target assignment for epoch N with 'A' assignor in Tms."
            e = self._epoch(int(x["group_epoch"]), ts, ev)
            e.target_ms = e.target_ms or ts
            e.assignor = e.assignor or x.get("assignor")
        elif ev.kind == "broker_assignment_received" and ev.member_epoch is not None and ev.member_id:
            # DEBUG "[GroupId G] Member X new assignment state: epoch=N, previousEpoch=M, state=S, ..."
            n = int(ev.member_epoch)
            if n <= 0:
                return
            self._epoch(n, ts, ev)
            r = self._reach(ev.member_id, n, ts, ev)
            r.by_broker = True
            state = str(x.get("member_state") or "").upper()
            if state and (not r.states or r.states[-1] != state):
                r.states.append(state)
            if state == "STABLE" and r.acked_ms is None:
                r.acked_ms = ts
            if x.get("revoked_partitions"):
                r.revoked = r.revoked or list(x["revoked_partitions"])
            if x.get("assigned_tasks"):   # streams (KIP-1071): TasksTuple(activeTasks={0=[0, 1]}, ...)
                r.assigned = tasks_of(str(x["assigned_tasks"]))
                r.revoked = tasks_of(str(x.get("revoked_tasks") or "")) or None
        elif ev.kind == "broker_member_removed" and ev.member_id and "temporarily left" in (ev.raw or ""):
            # consumerGroupStaticMemberGroupLeave: a static member leaving with epoch -2 keeps its place and its
            # assignment until its session expires; no epoch bump
            r = self._row(ev.member_id, self.member_epoch.get(ev.member_id) or self._epoch_at(ts) or 0, ev)
            r.states.append("LEAVING (static, epoch -2)")
        elif ev.kind in ("broker_member_fenced", "broker_member_removed") and ev.member_id:
            reason = str(ev.reason or "")
            polled = self.poll_timeouts.get(ev.member_id)
            if ev.kind == "broker_member_removed" and polled is not None and ts is not None and 0 <= ts - polled <= 10_000:
                kind, detail = "poll_timeout", (f"Member {ev.member_id} left the group: its poll loop exceeded "
                                                "max.poll.interval.ms, so its client sent a leave heartbeat and stays "
                                                "STALE until its next poll().")
            elif ev.kind == "broker_member_removed":
                kind, detail = "left", f"Member {ev.member_id} left the group (broker line)."
            elif SESSION_EXPIRED in reason:
                kind = "session_expiry"
                detail = (f"The coordinator fenced member {ev.member_id}: its session expired (no heartbeat for "
                          f"{self._session_words()}).")
            elif REBALANCE_TIMEOUT in reason or x.get("timeout_ms") is not None:
                kind = "rebalance_timeout"
                detail = (f"The coordinator fenced member {ev.member_id}: it did not finish revoking partitions "
                          f"(leave epoch {ev.member_epoch if ev.member_epoch is not None else '?'}) within its "
                          f"rebalance timeout of {x.get('timeout_ms', '?')} ms.")
            else:
                kind, detail = "fenced", f"The coordinator fenced member {ev.member_id} because {reason}".rstrip(".") + "."
            if ev.kind == "broker_member_fenced" and x.get("instance_id") and x.get("existing_member_id"):
                return  # FENCED_INSTANCE_ID of a static member: a rejected request, nothing bumps
            rm = Removal(ev.member_id, ts, kind, detail, [ev.evidence],
                         int(x["timeout_ms"]) if x.get("timeout_ms") is not None else None,
                         int(ev.member_epoch) if ev.member_epoch is not None else None)
            self.removals.append(rm)
            lives = self.lives.setdefault(ev.member_id, [[None, None]])
            if lives[-1][1] is None:
                lives[-1][1] = ts
            self.pending.append((ts or 0, {"left": "member_left", "fenced": "unknown"}.get(kind, kind), ev.member_id,
                                 detail, [ev.evidence]))

    def _session_words(self) -> str:
        return f"{BROKER_SESSION_MS} ms, group.consumer.session.timeout.ms (the 4.x broker default, assumed: not printed in the logs)"

    # ------------------------------------------------------------------ client (AbstractMembershipManager 3.7+)
    def _client(self, ev: Event) -> None:
        x = ev.extra or {}
        src = self.stream_of(ev)
        key = (src, ev.client_id)
        mid = ev.member_id if ev.member_id and ev.member_id != "<no ID>" else self.stream_member.get(key)
        if ev.member_id and ev.member_id != "<no ID>":
            self.stream_member[key] = ev.member_id
            self.member_source.setdefault(ev.member_id, src)
            self.client_of.setdefault(ev.member_id, ev.client_id)
        if ev.kind == "client_config":
            s = x.get("settings") or {}
            try:
                self.rebalance_timeout[src] = int(str(s.get("max.poll.interval.ms")))
            except (TypeError, ValueError):
                pass
            return
        if mid is None:
            return
        if ev.kind == "member_state_changed":
            frm = str(x.get("from_state") or "").upper()
            to = str(x.get("to_state") or "").upper()
            epoch = ev.member_epoch
            if to == "JOINING" and not self.broker_seen:
                self.pending.append((ev.ts_ms or 0, "member_joined", mid,
                                     f"Member {mid} joined the group ({'rejoined after ' + frm if frm not in ('', 'UNSUBSCRIBED') else 'client log'}).",
                                     [ev.evidence]))
            if to == "JOINING":
                self._joined(mid, ev.ts_ms)
                self.member_epoch[mid] = 0
            if to == "FATAL":   # refused (e.g. a classic group it cannot join) or failed: no longer a member
                lives = self.lives.get(mid)
                if lives and lives[-1][1] is None:
                    lives[-1][1] = ev.ts_ms
                if frm == "JOINING":
                    # its join was refused (GROUP_ID_NOT_FOUND from a classic group, an unsupported version:
                    # ConsumerMembershipManager 3.7+ transitionToFatal): it bumped nothing
                    self.pending = [p for p in self.pending if not (p[1] == "member_joined" and p[2] == mid)]
            if epoch is not None and epoch > 0:
                if not self.broker_seen and epoch not in self.epochs:
                    self._epoch(epoch, ev.ts_ms, ev)
                prior = self.rows.get((mid, epoch))
                known = self.member_epoch.get(mid, 0)
                if (frm == "STABLE" and (prior is None or prior.reached_ms is None)) or (
                        prior is not None and prior.acked_unknown):
                    # the first line at epoch N leaves STABLE. CurrentAssignmentBuilder keeps a member that must
                    # revoke at its old epoch, so with partitions to revoke this is the move away from N, which
                    # it reached silently before (an unchanged assignment logs nothing; its later STABLE at N is
                    # the ack of the next epoch, sent before the response): both times unknown. With nothing to
                    # revoke and N above its known epoch, it reached N now: the "Reconciling assignment" line
                    # that follows decides (_arrival)
                    r = self._row(mid, epoch, ev)
                    r.acked_unknown = True
                    if frm == "STABLE" and to == "RECONCILING" and epoch > known and prior is None:
                        self.arrival[mid] = (epoch, ev.ts_ms)
                    self.member_epoch[mid] = max(known, epoch)
                else:
                    r = self._reach(mid, epoch, ev.ts_ms, ev)
                r.by_client.append(ev.evidence)
                if to in ("RECONCILING", "ACKNOWLEDGING", "STABLE", "FENCED", "LEAVING", "PREPARE_LEAVING") \
                        and (not r.states or r.states[-1] != to):
                    r.states.append(to)
                if to == "STABLE" and r.acked_ms is None and not r.acked_unknown:
                    r.acked_ms = ev.ts_ms
                if to in ("LEAVING", "PREPARE_LEAVING") and r.left_ms is None:
                    r.left_ms, r.leave_reason = ev.ts_ms, "left"
                    if not self.broker_seen:
                        self.pending.append((ev.ts_ms or 0, "member_left", mid, f"Member {mid} left the group "
                                             "(client log).", [ev.evidence]))
                if to == "FENCED":
                    r.left_ms = r.left_ms or ev.ts_ms
                    r.leave_reason = r.leave_reason or "fenced"
        elif ev.kind == "assignment_received" and x.get("assigned_active_tasks") is not None:
            # streams client (StreamsMembershipManager 4.1+): "Assigned tasks with local epoch L ..."
            epoch = self.member_epoch.get(mid)
            if epoch:
                r = self._row(mid, epoch, ev)
                r.assigned = [f"active {t}" for t in x.get("assigned_active_tasks") or []]
                r.owned = [f"active {t}" for t in x.get("owned_active_tasks") or []]
                r.revoked = [f"active {t}" for t in x.get("active_tasks_to_revoke") or []]
        elif ev.kind == "assignment_received" and x.get("owned_partitions") is not None:
            # "Reconciling assignment with local epoch L" (L counts the member's own assignments, not epochs)
            self._arrival(mid, not x.get("revoked_partitions"))
            epoch = self.member_epoch.get(mid)
            if epoch:
                r = self._row(mid, epoch, ev)
                r.assigned = list(ev.partitions or [])
                r.owned = list(x.get("owned_partitions") or [])
                r.added = list(x.get("added_partitions") or [])
                r.revoked = list(x.get("revoked_partitions") or [])
        elif ev.kind == "poll_timeout":
            # AbstractHeartbeatRequestManager 3.7+: "consumer poll timeout has expired" / AbstractMembershipManager
            # "... generated the heartbeat to leave due to expired poll timer. It will remain stale": the member
            # leaves (epoch -1) and stays STALE until its next poll
            self.poll_timeouts[mid] = ev.ts_ms
            epoch = self.member_epoch.get(mid)
            if epoch:
                r = self._row(mid, epoch, ev)
                if not r.states or r.states[-1] != "STALE":
                    r.states.append("STALE")
                if r.left_ms is None:
                    r.left_ms, r.leave_reason = ev.ts_ms, "poll_timeout"
        elif ev.kind == "member_fenced":
            rule = str(x.get("rule") or "")
            err = ev.error or ""
            if "unknown" in rule or "is not a member" in err or "UNKNOWN_MEMBER_ID" in err:
                code = "UNKNOWN_MEMBER_ID"
            elif "epoch" in rule or "member epoch" in err or "FENCED_MEMBER_EPOCH" in err:
                code = "FENCED_MEMBER_EPOCH"
            elif "instance" in rule or "FENCED_INSTANCE_ID" in err:
                code = "FENCED_INSTANCE_ID"
            else:
                code = err or "fenced"
            self.client_fences.append((ev.ts_ms, mid, code, [ev.evidence]))
            epoch = self.member_epoch.get(mid)
            if epoch:
                r = self._row(mid, epoch, ev)
                r.fence_error = r.fence_error or code

    def _arrival(self, mid: str, nothing_revoked: bool) -> None:
        """Resolve a STABLE -> RECONCILING at a new epoch N: without partitions to revoke the member reached N
        at that transition (its epoch moves with the added partitions); with some, it is the move away."""
        got = self.arrival.pop(mid, None)
        if got is None or not nothing_revoked:
            return
        epoch, ts = got
        r = self.rows.get((mid, epoch))
        if r is not None and r.reached_ms is None:
            r.reached_ms, r.acked_unknown = ts, False
            if not r.states or r.states[-1] != "RECONCILING":
                r.states.append("RECONCILING")

    # ------------------------------------------------------------------ output
    def _members_at(self, e: Epoch, nxt: Epoch | None) -> list[str]:
        t0 = e.started_ms
        out = []
        for m, lives in self.lives.items():
            for first, removed in lives:
                if first is not None and t0 is not None and first > t0:
                    continue
                if removed is not None and t0 is not None and removed <= t0:
                    continue
                out.append(m)
                break
        for (m, n) in self.rows:
            if n == e.epoch and m not in out:
                out.append(m)
        return sorted(out)

    def finish(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
        # removals: which epoch a member left in
        for rm in self.removals:
            epoch = self._epoch_at(rm.ts_ms, before=True)
            if epoch is None:
                continue
            r = self._row(rm.member_id, epoch)
            if rm.reason != "left" or r.left_ms is None:
                r.left_ms = rm.ts_ms
                r.leave_reason = rm.reason
            r.evidence.extend(rm.evidence)
        for ts, mid, code, evid in self.client_fences:
            epoch = self._epoch_at(ts)
            prior = [rm for rm in self.removals if rm.member_id == mid and rm.ts_ms is not None and ts is not None
                     and rm.ts_ms <= ts]
            if prior:
                prior[-1].detail += f" Its client learned it at its next heartbeat ({code})."
                prior[-1].evidence.extend(evid)
        gens, mems = [], []
        order = sorted(self.epochs)
        counted = self._counted_through(order)
        late = self._late_starts(order)
        for i, n in enumerate(order):
            e = self.epochs[n]
            nxt = self.epochs[order[i + 1]] if i + 1 < len(order) else None
            members = self._members_at(e, nxt)
            ended = nxt.started_ms if nxt else self.last_ms
            acks = [self.rows[(m, n)].acked_ms for m in members if (m, n) in self.rows]
            converged = (max(a for a in acks if a is not None)
                         if acks and len(acks) == len(members) and all(a is not None for a in acks) else None)
            assignment = {m: self.rows[(m, n)].assigned for m in members
                          if (m, n) in self.rows and self.rows[(m, n)].assigned is not None}
            detail = e.cause_detail or ""
            if n in late:
                # known only from a line after a later epoch began: the join or leave _explain took for its
                # cause (the last one before that line) may be a later epoch's
                e.cause, e.trigger = "unknown", None
                detail = (f"No line of the logs says why the group epoch was bumped: the first line naming it comes "
                          f"after epoch {late[n]} began, so when it began, and what came just before, is not in "
                          "the logs.")
            if not self.broker_seen:
                detail += " No broker log of the group: the epoch is known from its members' lines only."
            elif e.from_removal:
                detail += (" The coordinator bumps the epoch in the same write as the removal without a line of "
                           "its own (consumerGroupFenceMember): the removal line gives its time.")
            elif not e.start_logged:
                detail += " The bump itself is not logged; its time is the first line naming the epoch."
            gens.append({
                "group_id": self.gid, "generation": n, "protocol_type": PROTOCOL_TYPE.get(self.gtype, self.gtype),
                "protocol": e.assignor, "leader": None, "members": members,
                "member_count": len(members) if n <= counted else None,
                "assignment_json": _json(assignment), "started_ms": e.started_ms, "stabilized_ms": converged,
                "ended_ms": ended,
                "rebalance_ms": converged - e.started_ms if converged is not None and e.started_ms is not None else None,
                "cause": e.cause or "unknown", "cause_detail": detail.strip(), "trigger_member": e.trigger,
                "coordinator": None, "inferred": e.inferred, "evidence": _uniq(e.evidence),
            })
            for m in members:
                r = self._row(m, n)
                target = e.target_ms or e.started_ms
                mems.append({
                    "group_id": self.gid, "generation": n, "member_id": m, "client_id": r.client_id or self.client_of.get(m),
                    "instance_id": r.instance_id or self.instance_of.get(m), "host": r.host or self.member_source.get(m),
                    "is_leader": None, "joined_ms": r.reached_ms, "synced_ms": r.acked_ms,
                    "assigned": r.assigned, "revoked": r.revoked, "left_ms": r.left_ms, "leave_reason": r.leave_reason,
                    "client_library": None, "client_version": None,
                    "evidence": _uniq(r.evidence),
                    "member_state": r.states[-1] if r.states else None, "states": r.states or None,
                    "owned": r.owned, "added": r.added,
                    "reconcile_ms": (r.acked_ms - target if r.acked_ms is not None and target is not None
                                     and r.acked_ms >= target else None),
                    "fence_error": r.fence_error,
                })
        return gens, mems, self.findings(gens, mems)

    def _late_starts(self, order: list[int]) -> dict[int, int]:
        """Epochs whose start, inferred from the first line naming them, comes after a later epoch's start
        (a member that learned of it late): epochs are bumped in order, so that time is not its start. It
        is dropped (null), and the later epoch returned for the words."""
        out: dict[int, int] = {}
        for i, n in enumerate(order):
            e = self.epochs[n]
            if e.start_logged or e.from_removal or e.started_ms is None:
                continue
            after = [m for m in order[i + 1:] if self.epochs[m].started_ms is not None
                     and self.epochs[m].started_ms < e.started_ms]
            if after:
                out[n] = after[0]
                e.started_ms = None
        return out

    def _counted_through(self, order: list[int]) -> int:
        """The last group epoch whose members the logs name all of: a member's own log knows nothing of
        the others, so a count needs the coordinator's lines from the group's creation on ("Bumped group
        epoch to 1": a consumer group starts at epoch 0, GroupMetadataManager 3.7+/4.x) through every bump
        since (each join or subscription change bumps with a line; a fence or leave bumps in the removal's
        write, whose line we have). A gap in the broker's log leaves the count unknown from there on."""
        through = 0
        for n in order:
            e = self.epochs[n]
            if not self.broker_seen or n != through + 1 or not (e.start_logged or e.from_removal):
                break
            through = n
        return through

    def _cross_check(self) -> list[dict[str, Any]]:
        return [make(self.gid, "unexplained", "medium", r.reached_ms, r.reached_ms, members=[r.member_id],
                     generation=r.epoch, title=f"client and broker disagree about member {r.member_id}",
                     explanation=(f"Member {r.member_id}: {why}. Either lines are missing from one side (a gap in a "
                                  "log, a rotated file) or the two logs are not of the same group incarnation."),
                     details={"epoch": r.epoch, "protocol": "consumer"}, evidence=r.evidence[:6])
                for r, why in _cross_check_rows(self.rows)]

    def _epoch_at(self, ts: int | None, before: bool = False) -> int | None:
        """The group epoch current at `ts`; `before`: the one a removal at `ts` ended (its own bump
        starts at the same time)."""
        best = None
        for n in sorted(self.epochs):
            st = self.epochs[n].started_ms
            if ts is None or st is None or st < ts or (st == ts and not before):
                best = n
        return best

    # ------------------------------------------------------------------ findings
    def findings(self, gens: list[dict[str, Any]], mems: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for rm in self.removals:
            fences = [f for f in self.client_fences if f[1] == rm.member_id and rm.ts_ms is not None
                      and f[0] is not None and f[0] >= rm.ts_ms]
            errs = sorted({f[2] for f in fences})
            if rm.reason == "session_expiry":
                out.append(make(self.gid, "session_expiry", "high", rm.ts_ms, rm.ts_ms, members=[rm.member_id],
                                generation=self._epoch_at(rm.ts_ms, before=True),
                                title=f"Member {rm.member_id} fenced: its session expired",
                                explanation=rm.detail + " A dynamic member fenced by its session timeout is not a "
                                "static-member fencing: the process stopped heartbeating (a pause, a freeze or a "
                                "crash)." + (f" Its next heartbeat was answered with {', '.join(errs)} and it "
                                             "rejoined with epoch 0." if errs else ""),
                                details={"fenced_by": "session_expiry", "client_errors": errs,
                                         "session_timeout_ms": BROKER_SESSION_MS, "session_timeout_assumed": True,
                                         "protocol": "consumer"},
                                evidence=[*rm.evidence, *(e for f in fences for e in f[3])]))
            elif rm.reason == "rebalance_timeout":
                out.append(make(self.gid, "rebalance_stuck", "high", rm.ts_ms, rm.ts_ms, members=[rm.member_id],
                                generation=self._epoch_at(rm.ts_ms, before=True),
                                title=f"Member {rm.member_id} stuck reconciling: revocation not acknowledged within "
                                      f"its rebalance timeout",
                                explanation=rm.detail + " Its onPartitionsRevoked callback (or the commit before it) "
                                "took longer than max.poll.interval.ms, which the consumer protocol uses as the "
                                "rebalance timeout; the partitions it had to give up waited for it, then the "
                                "coordinator fenced it." + (f" Its client then got {', '.join(errs)}." if errs else ""),
                                details={"fenced_by": "rebalance_timeout", "timeout_ms": rm.timeout_ms,
                                         "member_epoch": rm.from_epoch, "client_errors": errs, "protocol": "consumer"},
                                evidence=[*rm.evidence, *(e for f in fences for e in f[3])]))
        # fenced on the client side with no broker line (no broker log, or an epoch fencing)
        for ts, mid, code, evid in self.client_fences:
            if any(rm.member_id == mid and rm.ts_ms is not None and ts is not None and rm.ts_ms <= ts
                   for rm in self.removals):
                continue
            if code == "FENCED_INSTANCE_ID":
                continue  # static fencing: the classic rules report it
            out.append(make(self.gid, "member_fenced", "medium", ts, ts, members=[mid], generation=self._epoch_at(ts),
                            title=f"Member {mid} fenced ({code})",
                            explanation=(f"The coordinator answered member {mid}'s heartbeat with {code}: "
                                         + ("its member epoch was not the one the coordinator knew (a lost "
                                            "response, or a member already replaced); " if code == "FENCED_MEMBER_EPOCH"
                                            else "the coordinator no longer knew it (removed after its session "
                                                 "expired, or fenced for a slow revocation; ")
                                         + ("no broker log shows why)." if not self.broker_seen else
                                            "the broker log does not name the removal).")
                                         + " The member gave up its partitions and rejoined with epoch 0."),
                            details={"error": code, "protocol": "consumer"}, evidence=list(evid)))
        for ts, inst, old, new, evid in self.static_replaced:
            out.append(make(self.gid, "static_member_fenced", "medium", ts, ts, members=[old, new],
                            title=f"static member {inst} replaced", generation=self._epoch_at(ts),
                            explanation=(f"A process with group.instance.id {inst!r} rejoined as {new}, replacing "
                                         f"{old} (a static member restart; its assignment is kept)."),
                            details={"instance_id": inst, "replaced": old, "by": new}, evidence=list(evid)))
        out += self._cross_check()
        # epochs that never converge
        rto = max(self.rebalance_timeout.values(), default=self.cfg.max_poll_interval_ms or 300000)
        for g in gens:
            if g["stabilized_ms"] is not None or g["started_ms"] is None or g["ended_ms"] is None:
                continue
            if g["ended_ms"] - g["started_ms"] > rto:
                waiting = sorted(m["member_id"] for m in mems if m["generation"] == g["generation"]
                                 and m["synced_ms"] is None)
                out.append(make(self.gid, "rebalance_stuck", "medium", g["started_ms"], g["ended_ms"],
                                members=waiting, generation=g["generation"],
                                title=f"group epoch {g['generation']} never converged",
                                explanation=(f"For {(g['ended_ms'] - g['started_ms']) / 1000:.1f} s (more than the "
                                             f"rebalance timeout, {rto} ms) not every member acknowledged epoch "
                                             f"{g['generation']}: " + ", ".join(waiting) + " did not reach it in the "
                                             "logs."),
                                details={"rebalance_timeout_ms": rto, "waiting": waiting, "protocol": "consumer"},
                                evidence=g["evidence"][:5]))
        return out


def _cross_check_rows(rows: dict[tuple[str, int], MemberEpoch]) -> list[tuple[MemberEpoch, str]]:
    """Client and broker disagreeing about one member: with the broker's DEBUG "new assignment state" lines
    for a member, every epoch its client states must be one the broker gave it (AbstractMembershipManager
    takes its epoch only from heartbeat responses). (Partitions are not compared: the client's "Reconciling"
    line at epoch N may already be the move away from N, while the broker still holds it at N.)"""
    debug_members = {m for (m, _), r in rows.items() if r.by_broker}
    out = []
    for (m, n), r in sorted(rows.items()):
        if m not in debug_members:
            continue
        if r.by_client and not r.by_broker:
            out.append((r, f"its client states member epoch {n}, which no broker line gave it"))
    return out


def _uniq(xs: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for x in xs:
        if x and x not in seen:
            seen.add(x)
            out.append(x)
    return out


def _json(v: Any) -> str:
    import json
    return json.dumps(v, sort_keys=True)


def tasks_of(text: str) -> list[str]:
    """Streams tasks of a broker TasksTuple: `TasksTuple(activeTasks={0=[0, 1]}, standbyTasks={1=[2]}, ...)` ->
    ["active 0_0", "active 0_1", "standby 1_2"] (TaskId.toString is subtopology_partition)."""
    out = []
    for kind, body in re.findall(r"(active|standby|warmup)Tasks=\{(.*?)\}(?=,\s*\w+Tasks=|\)|$)", text):
        for sub, parts in re.findall(r"([^=,\s]+)=\[([^\]]*)\]", body):
            out += [f"{kind} {sub}_{p.strip()}" for p in parts.split(",") if p.strip()]
    return out


MIGRATION_WORDS = ("Cannot upgrade", "Cannot downgrade", "is not a consumer group", "is not a classic group")


def _migration_lines(events: list[Event]) -> list[Event]:
    """The lines of a migration refusal: the broker's kind, or any of MIGRATION_WORDS in the line. Plain
    substring tests (lazy_text.contains_any: in Arrow for texts left there, else `in`): this runs on every
    line of the group, where an alternation regex tries every position (4x slower)."""
    return [e for e, hit in zip(events, contains_any(events, MIGRATION_WORDS), strict=True) if hit or e.kind == "broker_group_migrated"]


assert all(_migration_lines([Event("s", 1, "broker", "k", w)]) for w in MIGRATION_WORDS)


def migration_findings(group_id: str | None, events: list[Event]) -> list[dict[str, Any]]:
    """A group stuck migrating between the classic and the consumer protocol (GroupMetadataManager 3.8+/4.x
    online upgrade/downgrade): "Cannot upgrade classic group G to consumer group because ...", "Cannot
    downgrade consumer group G ...", or members rejected with "Group G is not a consumer group"."""
    hits = _migration_lines(events)
    if not hits:
        return []
    broker = [e for e in hits if e.side == "broker"]
    counted = broker or hits   # one refusal: the broker's line and the client's error; count the broker's
    first = hits[0]
    reason = (first.raw or "").split(" because ", 1)[1].split(" (org.")[0].rstrip(".") if " because " in (first.raw or "") else None
    up = any("upgrade" in (e.raw or "") or "is not a consumer group" in (e.raw or "") for e in hits)
    ts = [e.ts_ms for e in counted if e.ts_ms is not None]
    return [make(group_id, "migration_stuck", "high" if len(counted) > 1 else "medium", min(ts) if ts else None,
                 max(ts) if ts else None,
                 title=f"group {'cannot move to the consumer protocol' if up else 'cannot move back to the classic protocol'}"
                       f" ({len(counted)} time(s))",
                 explanation=("The coordinator refused to convert the group "
                              + ("from classic to consumer (KIP-848 online upgrade)" if up else
                                 "from consumer to classic (online downgrade)")
                              + (f" because {reason}" if reason else "") + ". Members using the other protocol "
                              "cannot join until every member uses one protocol or the migration policy "
                              "(group.consumer.migration.policy) allows it."),
                 details={"count": len(counted), "direction": "upgrade" if up else "downgrade", "reason": reason},
                 evidence=[e.evidence for e in hits[:10]])]


def share_group_finding(group_id: str | None, events: list[Event]) -> dict[str, Any]:
    """Share groups (KIP-932) have no generations, rebalances or partition ownership of a consumer group:
    they are reported as their type, not replayed."""
    evs = [e for e in events if e.group_type == "share"][:5]
    ts = [e.ts_ms for e in events if e.ts_ms is not None]
    return make(group_id, "unexplained", "info", min(ts) if ts else None, max(ts) if ts else None,
                title=f"share group {group_id} (KIP-932): not replayed",
                explanation=("This is a share group (KIP-932): its members share partitions record by record, "
                             "without generations, ownership or rebalances of a consumer group. Its lines are parsed "
                             "and kept in the events table; the replay does not model it."),
                details={"group_type": "share"}, evidence=[e.evidence for e in evs])
