"""The request handlers of the classic group coordinator.

Scala: kafka.coordinator.group.GroupCoordinator (3.8.0) with DelayedJoin / InitialDelayedJoin /
DelayedHeartbeat / DelayedSync. Java: org.apache.kafka.coordinator.group.GroupMetadataManager
(classicGroup* methods), OffsetMetadataManager and GroupCoordinatorService (trunk 2024-10-25).
Where the two differ the code branches on `self._scala` and says so.

Kafka answers a parked JoinGroup/SyncGroup through a callback (Scala) or a future (Java); here the
request returns a `Ticket`, and an answer given later lands in the ticket, in `drain_delivered()`
and in the optional `on_delivered` callback. Answers produced while serving the very request that
owns the ticket count as its immediate response.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from . import errors as E
from . import states as S
from .config import CoordinatorConfig
from .group import Group
from .member import Member
from .partitioning import partition_for
from .responses import (
    CommitResponse,
    CoordinatorEvent,
    Delivered,
    FetchResponse,
    GroupSnapshot,
    HeartbeatResponse,
    JoinResponse,
    LeaveResponse,
    MemberSnapshot,
    SyncResponse,
    Ticket,
    join_error,
    sync_error,
)
from .timers import TimerWheel

# APIs that accept an empty group id (GroupCoordinator.isValidGroupId, Scala 3.8.0; Java
# GroupCoordinatorService checks isGroupIdNotEmpty only for the group-management APIs)
_EMPTY_ID_OK = frozenset({"commit", "fetch", "describe", "delete"})

# heartbeat answers carry only an error: share one immutable response per error
_HEARTBEAT_RESPONSES = {err: HeartbeatResponse(err) for err in E.CODES}

_STAT_KEYS = {op: f"requests_{op}" for op in ("join", "sync", "heartbeat", "leave", "commit", "fetch")}

INITIAL = "initial"
NORMAL = "normal"


class GroupCoordinator:
    def __init__(self, config: CoordinatorConfig | None = None, *,
                 on_delivered: Callable[[Delivered], None] | None = None,
                 start_ms: int = 0, keep_events: bool = True, queue_delivered: bool = True) -> None:
        self.config = config or CoordinatorConfig()
        self._scala = self.config.is_scala
        self._timers = TimerWheel(start_ms)
        self._groups: dict[str, Group] = {}
        self._persisted: dict[str, dict] = {}  # what __consumer_offsets holds per group (for elect)
        self._delivered: list[Delivered] = []
        self._events: list[CoordinatorEvent] = []
        self._keep_events = keep_events
        self._queue_delivered = queue_delivered
        self._on_delivered = on_delivered
        self._next_request = 0
        self._id_counter = 0
        self._current: Ticket | None = None
        owned = self.config.owned_offsets_partitions
        self._owned: set[int] | None = None if owned is None else set(owned)
        self.stats: Counter[str] = Counter()
        self._partitions: dict[str, int] = {}

    # ================================================================== clock, queues, snapshots
    @property
    def now_ms(self) -> int:
        return self._timers.now_ms

    def advance_time(self, now_ms: int) -> int:
        """Move the clock forward to `now_ms`, firing due timers in deadline order."""
        if now_ms < self._timers.now_ms:
            self.stats["clock_backwards"] += 1
            return 0
        fired = self._timers.advance(int(now_ms))
        self.stats["timers_fired"] += fired
        return fired

    def next_deadline(self) -> int | None:
        """When the next timer is due (None: nothing scheduled)."""
        return self._timers.next_deadline()

    def drain_delivered(self) -> list[Delivered]:
        out, self._delivered = self._delivered, []
        return out

    def drain_events(self) -> list[CoordinatorEvent]:
        out, self._events = self._events, []
        return out

    def groups(self) -> list[str]:
        return list(self._groups)

    def partition_for(self, group_id: str) -> int:
        p = self._partitions.get(group_id)
        if p is None:
            p = self._partitions[group_id] = partition_for(group_id, self.config.offsets_topic_num_partitions)
        return p

    def group(self, group_id: str) -> GroupSnapshot | None:
        g = self._groups.get(group_id)
        if g is None:
            return None
        members = tuple(
            MemberSnapshot(
                member_id=m.member_id, instance_id=m.instance_id, client_id=m.client_id,
                session_timeout_ms=m.session_timeout_ms, rebalance_timeout_ms=m.rebalance_timeout_ms,
                protocols=m.protocols, assignment=m.assignment, awaiting_join=m.is_awaiting_join,
                awaiting_sync=m.is_awaiting_sync, is_new=m.is_new,
                session_deadline_ms=self._timers.deadline(("hb", g.group_id, m.member_id)),
            )
            for m in g.members.values()
        )
        return GroupSnapshot(
            group_id=g.group_id, state=g.state, generation=g.generation, leader=g.leader_id,
            protocol_type=g.protocol_type, protocol=g.protocol, members=members,
            pending_members=tuple(g.pending_members), static_members=dict(g.static_members),
            pending_sync=tuple(g.pending_sync),
            assignment={m.member_id: m.assignment for m in g.members.values()},
            offsets=dict(g.offsets),
        )

    # ================================================================== plumbing
    def _begin(self, now_ms: int | None) -> None:
        if now_ms is None:
            return
        timers = self._timers
        heap = timers._heap
        if now_ms == timers._now and (not heap or heap[0][0] > now_ms):
            return  # same instant, nothing due: the common case of a burst of requests
        self.advance_time(now_ms)

    def _ticket(self, op: str, group_id: str, member_id: str) -> Ticket:
        self._next_request += 1
        self.stats[_STAT_KEYS.get(op) or f"requests_{op}"] += 1
        return Ticket(self._next_request, op, group_id, member_id, self._timers._now)


    def _deliver(self, ticket: Ticket, response: Any) -> None:
        ticket.response = response
        ticket.answered_at_ms = self._timers._now
        if ticket is self._current:
            return  # answered while its own request is being served: an immediate response
        d = Delivered(ticket.request_id, ticket.op, ticket.group_id, ticket.member_id,
                      self._timers.now_ms, response)
        if self._queue_delivered:
            self._delivered.append(d)
        if self._on_delivered is not None:
            self._on_delivered(d)

    def _event(self, group: Group, kind: str, member_id: str | None = None, reason: str | None = None,
               **detail: Any) -> None:
        if self._keep_events:
            self._events.append(CoordinatorEvent(self._timers.now_ms, group.group_id, kind, member_id,
                                                 group.generation, reason, detail))

    def _generate_member_id(self, client_id: str, instance_id: str | None) -> str:
        """GroupMetadata.generateMemberId: `clientId-UUID` (dynamic) or `groupInstanceId-UUID`
        (static). Kafka's UUID is random; here it is derived from a counter so runs repeat."""
        self._id_counter += 1
        u = uuid.UUID(int=(self.config.member_id_seed << 64) | self._id_counter, version=4)
        return f"{instance_id if instance_id is not None else client_id}-{u}"

    def _validate_group_status(self, group_id: str, api: str) -> str | None:
        """GroupCoordinator.validateGroupStatus (Scala 3.8.0): group id, then coordinator ownership."""
        if group_id is None or (group_id == "" and api not in _EMPTY_ID_OK):
            return E.INVALID_GROUP_ID
        if not self._is_coordinator_for(group_id):
            return E.NOT_COORDINATOR
        return None

    def _is_coordinator_for(self, group_id: str) -> bool:
        return self._owned is None or self.partition_for(group_id) in self._owned

    def _live(self, group: Group) -> bool:
        return self._groups.get(group.group_id) is group

    def _create_group(self, group_id: str) -> Group:
        g = Group(group_id, self._timers.now_ms)
        self._groups[group_id] = g
        self._event(g, "group_created")
        return g

    # ------------------------------------------------------------------ timers
    def _schedule_heartbeat(self, group: Group, member: Member, timeout_ms: int | None = None) -> None:
        """completeAndScheduleNextExpiration (Scala) / rescheduleClassicGroupMemberHeartbeat (Java)."""
        mid = member.member_id
        t = member.session_timeout_ms if timeout_ms is None else timeout_ms
        self._timers.schedule(("hb", group.group_id, mid), t, lambda: self._expire_heartbeat(group, mid))

    def _schedule_pending_expiration(self, group: Group, member_id: str, timeout_ms: int) -> None:
        """addPendingMemberExpiration (Scala) / the heartbeat key of a pending member (Java)."""
        self._timers.schedule(("hb", group.group_id, member_id), timeout_ms,
                              lambda: self._expire_heartbeat(group, member_id))

    def _cancel_heartbeat(self, group: Group, member_id: str) -> None:
        self._timers.cancel(("hb", group.group_id, member_id))

    def _schedule_join(self, group: Group, kind: str, delay_ms: int, action: Callable[[], None]) -> None:
        group.join_timer_kind = kind
        self._timers.schedule(("join", group.group_id), delay_ms, action)

    def _cancel_join(self, group: Group) -> None:
        group.join_timer_kind = None
        self._timers.cancel(("join", group.group_id))

    # ================================================================== JoinGroup
    def join(self, group_id: str, member_id: str = "", *, instance_id: str | None = None,
             client_id: str = "consumer", client_host: str = "/127.0.0.1",
             protocol_type: str = "consumer", protocols: Iterable = (("range", b""),),
             session_timeout_ms: int = 45000, rebalance_timeout_ms: int = 300000,
             require_known_member_id: bool = True, supports_skip_assignment: bool = True,
             new_member_id: str | None = None, reason: str | None = None,
             now_ms: int | None = None) -> Ticket:
        """GroupCoordinator.handleJoinGroup (Scala) / GroupMetadataManager.classicGroupJoin (Java).

        `new_member_id`: the id to use if this request makes the coordinator generate one (replay of
        an id seen in the logs); otherwise a deterministic `client_id-UUID` is generated."""
        self._begin(now_ms)
        member_id = member_id or ""
        protos = tuple((str(n), m) for n, m in protocols)
        t = self._ticket("join", group_id, member_id)
        previous, self._current = self._current, t
        try:
            self._join(t, group_id, member_id, instance_id, client_id, client_host, protocol_type or "",
                       protos, session_timeout_ms, rebalance_timeout_ms, require_known_member_id,
                       supports_skip_assignment, new_member_id, reason)
        finally:
            self._current = previous
        return t

    def _join(self, t: Ticket, group_id: str, member_id: str, instance_id: str | None, client_id: str,
              client_host: str, protocol_type: str, protocols: tuple, session_timeout_ms: int,
              rebalance_timeout_ms: int, require_known: bool, supports_skip: bool,
              new_member_id: str | None, reason: str | None) -> None:
        cfg = self.config
        bad_timeout = not (cfg.group_min_session_timeout_ms <= session_timeout_ms
                           <= cfg.group_max_session_timeout_ms)
        if self._scala:
            # Scala: validateGroupStatus (INVALID_GROUP_ID, NOT_COORDINATOR) before the timeout check
            err = self._validate_group_status(group_id, "join")
            if err is None and bad_timeout:
                err = E.INVALID_SESSION_TIMEOUT
            if err is not None:
                return self._deliver(t, join_error(member_id, err))
        else:
            # Java GroupCoordinatorService.joinGroup: group id, session timeout, then the partition
            # (NOT_COORDINATOR comes from the runtime with an empty member id)
            if group_id == "":
                return self._deliver(t, join_error(member_id, E.INVALID_GROUP_ID))
            if bad_timeout:
                return self._deliver(t, join_error(member_id, E.INVALID_SESSION_TIMEOUT))
            if not self._is_coordinator_for(group_id):
                return self._deliver(t, join_error("", E.NOT_COORDINATOR))

        is_unknown = member_id == ""
        group = self._groups.get(group_id)
        if group is None:
            # getOrMaybeCreateGroup: created only for an empty member id
            if not is_unknown:
                return self._deliver(t, join_error(member_id, E.UNKNOWN_MEMBER_ID))
            group = self._create_group(group_id)

        if not self._accept_joining_member(group, member_id):
            # the refused id is dropped from the group and the pending set (no rebalance)
            was_member = group.has(member_id)
            group.remove(member_id)
            if was_member:
                self._event(group, "member_removed", member_id, "max_size")
            self._deliver(t, join_error("", E.GROUP_MAX_SIZE_REACHED))
        elif is_unknown:
            self._new_member_join(t, group, instance_id, require_known, supports_skip, client_id,
                                  client_host, rebalance_timeout_ms, session_timeout_ms, protocol_type,
                                  protocols, new_member_id, reason)
        else:
            self._current_member_join(t, group, member_id, instance_id, client_id, client_host,
                                      rebalance_timeout_ms, session_timeout_ms, protocol_type, protocols,
                                      reason)

        # Scala handleJoinGroup ends with rebalancePurgatory.checkAndComplete(GroupJoinKey)
        if self._scala and self._live(group) and group.is_(S.PREPARING_REBALANCE):
            self._scala_try_complete_join(group)

    def _accept_joining_member(self, group: Group, member_id: str) -> bool:
        """GroupCoordinator.acceptJoiningMember (Scala) / GroupMetadataManager.acceptJoiningMember."""
        max_size = self.config.group_max_size
        if group.state in (S.EMPTY, S.DEAD):
            return True
        if group.is_(S.PREPARING_REBALANCE):
            # counts members already parked in JoinGroup, so late re-joiners are kicked out
            return (group.has(member_id) and group.get(member_id).is_awaiting_join) or \
                group.num_awaiting_join < max_size
        return group.has(member_id) or group.size < max_size

    def _new_member_join(self, t: Ticket, group: Group, instance_id: str | None, require_known: bool,
                         supports_skip: bool, client_id: str, client_host: str, rebalance_timeout_ms: int,
                         session_timeout_ms: int, protocol_type: str, protocols: tuple,
                         new_member_id: str | None, reason: str | None) -> None:
        """doNewMemberJoinGroup (Scala) / classicGroupJoinNewMember (Java)."""
        if group.is_(S.DEAD):
            return self._deliver(t, join_error("", E.COORDINATOR_NOT_AVAILABLE))
        if not group.supports_protocols(protocol_type, {n for n, _ in protocols}):
            return self._deliver(t, join_error("", E.INCONSISTENT_GROUP_PROTOCOL))
        if new_member_id and (group.has(new_member_id) or group.is_pending_member(new_member_id)):
            # a replayed id that is already taken cannot be handed out twice: generate one instead
            self.stats["new_member_id_in_use"] += 1
            new_member_id = None
        new_id = new_member_id or self._generate_member_id(client_id, instance_id)
        t.member_id = new_id
        if instance_id is not None:
            # doStaticNewMemberJoinGroup: a known instance id replaces its old member id
            old_id = group.current_static_member_id(instance_id)
            if old_id is not None:
                return self._update_static_member_and_rebalance(
                    t, group, old_id, new_id, instance_id, protocols, rebalance_timeout_ms,
                    session_timeout_ms, supports_skip)
            return self._add_member_and_rebalance(t, group, new_id, instance_id, client_id, client_host,
                                                  rebalance_timeout_ms, session_timeout_ms, protocol_type,
                                                  protocols, reason)
        if require_known:
            # doDynamicNewMemberJoinGroup, JoinGroup v4+: hand out an id, expect a second JoinGroup
            group.pending_members[new_id] = None
            self._schedule_pending_expiration(group, new_id, session_timeout_ms)
            self._event(group, "member_pending", new_id)
            return self._deliver(t, join_error(new_id, E.MEMBER_ID_REQUIRED))
        return self._add_member_and_rebalance(t, group, new_id, None, client_id, client_host,
                                              rebalance_timeout_ms, session_timeout_ms, protocol_type,
                                              protocols, reason)

    def _validate_current_member(self, group: Group, member_id: str, instance_id: str | None) -> str | None:
        """validateCurrentMember (Scala) / ClassicGroup.validateMember (Java): the instance id must
        map to this member id (else UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID), the member must exist."""
        if instance_id is not None:
            current = group.current_static_member_id(instance_id)
            if current is None:
                return E.UNKNOWN_MEMBER_ID
            if current != member_id:
                return E.FENCED_INSTANCE_ID
        if not group.has(member_id):
            return E.UNKNOWN_MEMBER_ID
        return None

    def _current_member_join(self, t: Ticket, group: Group, member_id: str, instance_id: str | None,
                             client_id: str, client_host: str, rebalance_timeout_ms: int,
                             session_timeout_ms: int, protocol_type: str, protocols: tuple,
                             reason: str | None) -> None:
        """doCurrentMemberJoinGroup (Scala) / classicGroupJoinExistingMember (Java)."""
        if group.is_(S.DEAD):
            return self._deliver(t, join_error(member_id, E.COORDINATOR_NOT_AVAILABLE))
        if not group.supports_protocols(protocol_type, {n for n, _ in protocols}):
            return self._deliver(t, join_error(member_id, E.INCONSISTENT_GROUP_PROTOCOL))
        if group.is_pending_member(member_id):
            if instance_id is not None:
                # Kafka throws IllegalStateException here; the broker answers UNKNOWN_SERVER_ERROR
                return self._deliver(t, join_error(member_id, E.UNKNOWN_SERVER_ERROR))
            return self._add_member_and_rebalance(t, group, member_id, None, client_id, client_host,
                                                  rebalance_timeout_ms, session_timeout_ms, protocol_type,
                                                  protocols, reason)
        err = self._validate_current_member(group, member_id, instance_id)
        if err is not None:
            return self._deliver(t, join_error(member_id, err))
        member = group.get(member_id)
        if group.is_(S.PREPARING_REBALANCE):
            return self._update_member_and_rebalance(t, group, member, protocols, rebalance_timeout_ms,
                                                     session_timeout_ms, "member_rejoined")
        if group.is_(S.COMPLETING_REBALANCE):
            if member.matches(protocols):
                # same metadata: the member lost the JoinGroup answer; repeat the current generation
                return self._deliver(t, self._current_generation_response(
                    group, member_id, with_members=group.is_leader(member_id)))
            return self._update_member_and_rebalance(t, group, member, protocols, rebalance_timeout_ms,
                                                     session_timeout_ms, "metadata_changed")
        if group.is_(S.STABLE):
            if group.is_leader(member_id):
                # a leader JoinGroup always rebalances (lets it react to topic metadata changes)
                return self._update_member_and_rebalance(t, group, member, protocols, rebalance_timeout_ms,
                                                         session_timeout_ms, "leader_rejoined")
            if not member.matches(protocols):
                return self._update_member_and_rebalance(t, group, member, protocols, rebalance_timeout_ms,
                                                         session_timeout_ms, "metadata_changed")
            return self._deliver(t, self._current_generation_response(group, member_id, with_members=False))
        # Empty: unexpected for a known member; make it reset and rejoin
        return self._deliver(t, join_error(member_id, E.UNKNOWN_MEMBER_ID))

    def _current_generation_response(self, group: Group, member_id: str, with_members: bool,
                                     leader: str | None = None, skip: bool = False) -> JoinResponse:
        return JoinResponse(
            error=E.NONE, member_id=member_id, generation=group.generation,
            protocol_type=group.protocol_type, protocol=group.protocol,
            leader=(group.leader_id if leader is None else leader) or "",
            members=group.current_member_metadata() if with_members else (),
            skip_assignment=skip,
        )

    def _add_member_and_rebalance(self, t: Ticket, group: Group, member_id: str, instance_id: str | None,
                                  client_id: str, client_host: str, rebalance_timeout_ms: int,
                                  session_timeout_ms: int, protocol_type: str, protocols: tuple,
                                  reason: str | None) -> None:
        """addMemberAndRebalance (Scala) / addMemberThenRebalanceOrCompleteJoin (Java)."""
        member = Member(member_id, instance_id, client_id, client_host, rebalance_timeout_ms,
                        session_timeout_ms, protocol_type, protocols, is_new=True)
        # newMemberAdded lets the initial rebalance delay be extended: Scala only while the group
        # has never completed a generation, Java whenever this rebalance started from Empty
        if group.is_(S.PREPARING_REBALANCE) and (
                group.generation == 0 if self._scala else group.previous_state == S.EMPTY):
            group.new_member_added = True
        group.add(member, t)
        t.member_id = member_id
        # a new member's JoinGroup may wait at most new_member_join_timeout_ms (NewMemberJoinTimeoutMs)
        self._schedule_heartbeat(group, member, self.config.new_member_join_timeout_ms)
        self._event(group, "member_added", member_id, reason, instance_id=instance_id)
        self._maybe_prepare_rebalance_or_complete(group, "member_joined", member_id)

    def _update_member_and_rebalance(self, t: Ticket, group: Group, member: Member, protocols: tuple,
                                     rebalance_timeout_ms: int, session_timeout_ms: int, reason: str) -> None:
        """updateMemberAndRebalance (Scala) / updateMemberThenRebalanceOrCompleteJoin (Java)."""
        group.update_member(member, protocols, rebalance_timeout_ms, session_timeout_ms, t)
        self._maybe_prepare_rebalance_or_complete(group, reason, member.member_id)

    def _update_static_member_and_rebalance(self, t: Ticket, group: Group, old_id: str, new_id: str,
                                            instance_id: str, protocols: tuple, rebalance_timeout_ms: int,
                                            session_timeout_ms: int, supports_skip: bool) -> None:
        """updateStaticMemberAndRebalance (Scala) / updateStaticMemberThenRebalanceOrCompleteJoin."""
        current_leader = group.leader_id
        member = group.replace_static_member(instance_id, old_id, new_id, self._deliver,
                                             keep_is_new=self._scala)
        self._cancel_heartbeat(group, old_id)
        self._schedule_heartbeat(group, member)  # with the session timeout known before this request
        self._event(group, "static_member_replaced", new_id, None, old_member_id=old_id,
                    instance_id=instance_id)
        group.update_member(member, protocols, rebalance_timeout_ms, session_timeout_ms, t)
        if group.is_(S.STABLE):
            if group.protocol == group.select_protocol():
                # the protocol stays: persist the new id, answer at once without a rebalance
                self._persist(group)
                if supports_skip:
                    # JoinGroup v9+: a static leader learns it leads but skips the assignment
                    is_leader = group.is_leader(new_id)
                    resp = self._current_generation_response(group, new_id, with_members=is_leader,
                                                             skip=is_leader)
                else:
                    # < v9: name the old leader id so a restarted leader does not run an assignment
                    resp = self._current_generation_response(group, new_id, with_members=False,
                                                             leader=current_leader or "")
                group.maybe_invoke_join(member, resp, self._deliver)
            else:
                self._maybe_prepare_rebalance_or_complete(group, "static_protocol_changed", new_id)
        elif group.is_(S.COMPLETING_REBALANCE):
            # the leader may already hold the old id in its assignment: rebalance
            self._prepare_rebalance(group, "static_member_replaced", new_id)
        elif group.is_(S.PREPARING_REBALANCE) and not self._scala:
            self._java_maybe_complete_join_phase(group)

    # ------------------------------------------------------------------ rebalance machinery
    def _maybe_prepare_rebalance_or_complete(self, group: Group, reason: str, member_id: str | None = None) -> None:
        """maybePrepareRebalance (Scala; the join check follows in handleJoinGroup) /
        maybePrepareRebalanceOrCompleteJoin (Java)."""
        if S.can_rebalance(group.state):
            self._prepare_rebalance(group, reason, member_id)
        elif not self._scala:
            self._java_maybe_complete_join_phase(group)

    def _prepare_rebalance(self, group: Group, reason: str, member_id: str | None = None) -> None:
        """GroupCoordinator.prepareRebalance (Scala) / GroupMetadataManager.prepareRebalance (Java)."""
        if group.is_(S.COMPLETING_REBALANCE):
            # parked SyncGroups learn that a new rebalance started
            self._reset_and_propagate_assignment_error(group, E.REBALANCE_IN_PROGRESS)
        self._remove_sync_expiration(group)
        initial = group.is_(S.EMPTY)
        group.transition_to(S.PREPARING_REBALANCE, self._timers.now_ms)
        self._event(group, "rebalance_prepared", member_id, reason, initial=initial)
        if initial:
            # InitialDelayedJoin: wait group.initial.rebalance.delay.ms for more members
            delay = self.config.group_initial_rebalance_delay_ms
            remaining = max(group.rebalance_timeout_ms() - delay, 0)
            self._schedule_initial_join(group, delay, remaining)
        elif group.has_all_members_joined():
            self._complete_join(group)
        else:
            self._schedule_join(group, NORMAL, group.rebalance_timeout_ms(), lambda: self._on_join_timer(group))

    def _schedule_initial_join(self, group: Group, delay: int, remaining: int) -> None:
        self._schedule_join(group, INITIAL, delay, lambda: self._on_initial_join_timer(group, delay, remaining))

    def _on_initial_join_timer(self, group: Group, delay: int, remaining: int) -> None:
        """InitialDelayedJoin.onComplete (Scala) / tryCompleteInitialRebalanceElseSchedule (Java)."""
        group.join_timer_kind = None
        if not self._live(group):
            return
        if group.new_member_added and remaining != 0:
            group.new_member_added = False
            new_delay = min(self.config.group_initial_rebalance_delay_ms, remaining)
            new_remaining = max(remaining - delay, 0)
            self._schedule_initial_join(group, new_delay, new_remaining)
        else:
            self._complete_join(group)

    def _on_join_timer(self, group: Group) -> None:
        """DelayedJoin expiration: the rebalance timeout ends the join phase."""
        group.join_timer_kind = None
        if self._live(group):
            self._complete_join(group)

    def _scala_try_complete_join(self, group: Group) -> None:
        """rebalancePurgatory.checkAndComplete(GroupJoinKey) -> DelayedJoin.tryComplete (Scala):
        completes once all members joined; an InitialDelayedJoin never completes early."""
        if group.is_(S.PREPARING_REBALANCE) and group.join_timer_kind != INITIAL \
                and group.has_all_members_joined():
            self._complete_join(group)

    def _java_maybe_complete_join_phase(self, group: Group) -> None:
        """GroupMetadataManager.maybeCompleteJoinPhase (Java): not during the initial rebalance."""
        if group.is_(S.PREPARING_REBALANCE) and group.previous_state != S.EMPTY \
                and group.has_all_members_joined():
            self._complete_join(group)

    def _complete_join(self, group: Group) -> None:
        """onCompleteJoin (Scala) / completeClassicGroupJoin (Java)."""
        self._cancel_join(group)
        for m in [m for m in group.not_yet_rejoined() if not m.is_static]:
            # dynamic members that did not rejoin in time are dropped; static ones are kept
            group.remove(m.member_id)
            self._cancel_heartbeat(group, m.member_id)
            self._event(group, "member_removed", m.member_id, "not_rejoined")
        if group.is_(S.DEAD):
            return
        if not group.maybe_elect_new_joined_leader() and group.members:
            # nobody rejoined but (static) members remain: wait another rebalance timeout
            self._schedule_join(group, NORMAL, group.rebalance_timeout_ms(), lambda: self._on_join_timer(group))
            self._event(group, "join_postponed", None, "no_member_rejoined")
            return
        group.init_next_generation(self._timers.now_ms)
        if group.is_(S.EMPTY):
            self._persist(group)
            self._event(group, "group_empty")
            return
        self._event(group, "join_completed", group.leader_id, None, protocol=group.protocol,
                    members=tuple(group.members))
        for m in list(group.members.values()):
            resp = self._current_generation_response(group, m.member_id,
                                                     with_members=group.is_leader(m.member_id))
            group.maybe_invoke_join(m, resp, self._deliver)
            self._schedule_heartbeat(group, m)
            m.is_new = False
            group.pending_sync[m.member_id] = None
        self._schedule_pending_sync(group)

    def _schedule_pending_sync(self, group: Group) -> None:
        """schedulePendingSync: every member must send SyncGroup within the rebalance timeout."""
        generation = group.generation
        self._timers.schedule(("sync", group.group_id), group.rebalance_timeout_ms(),
                              lambda: self._expire_pending_sync(group, generation))

    def _remove_sync_expiration(self, group: Group) -> None:
        group.pending_sync.clear()
        self._timers.cancel(("sync", group.group_id))

    def _remove_pending_sync_member(self, group: Group, member_id: str) -> None:
        """removePendingSyncMember: the sync timer is done once everybody synced."""
        group.pending_sync.pop(member_id, None)
        if not group.pending_sync or group.state in (S.DEAD, S.EMPTY, S.PREPARING_REBALANCE):
            self._timers.cancel(("sync", group.group_id))

    def _expire_pending_sync(self, group: Group, generation: int) -> None:
        """onExpirePendingSync (Scala) / expirePendingSync (Java)."""
        if not self._live(group) or generation != group.generation:
            return
        if group.state not in (S.COMPLETING_REBALANCE, S.STABLE) or not group.pending_sync:
            return
        missing = list(group.pending_sync)
        for mid in missing:
            if group.has(mid):
                self._event(group, "member_removed", mid, "sync_timeout")
            group.remove(mid)
            self._cancel_heartbeat(group, mid)
        self._prepare_rebalance(group, "sync_timeout", missing[0] if len(missing) == 1 else None)

    def _reset_and_propagate_assignment_error(self, group: Group, error: str) -> None:
        for m in group.members.values():
            m.assignment = b""
        self._propagate_assignment(group, error)

    def _propagate_assignment(self, group: Group, error: str) -> None:
        """propagateAssignment: answer parked SyncGroups; each answered member's session restarts."""
        ok = error == E.NONE
        for m in list(group.members.values()):
            resp = SyncResponse(error=error, protocol_type=group.protocol_type if ok else None,
                                protocol=group.protocol if ok else None, assignment=m.assignment)
            if group.maybe_invoke_sync(m, resp, self._deliver):
                self._schedule_heartbeat(group, m)

    # ------------------------------------------------------------------ expiry and removal
    def _expire_heartbeat(self, group: Group, member_id: str) -> None:
        """onExpireHeartbeat (Scala) / expireClassicGroupMemberHeartbeat (Java)."""
        if not self._live(group) or group.is_(S.DEAD):
            return
        if group.is_pending_member(member_id):
            self._event(group, "member_removed", member_id, "pending_expired")
            group.remove(member_id)
            self._after_pending_removed(group)
            return
        if not group.has(member_id):
            return
        member = group.get(member_id)
        if member.has_satisfied_heartbeat():
            return
        reason = "join_timeout" if member.is_new else "session_timeout"
        self._remove_member_and_update_group(group, member, reason, on_leave=False)

    def _after_pending_removed(self, group: Group) -> None:
        """removePendingMemberAndUpdateGroup: Scala re-checks the DelayedJoin; Java completes the
        join at once when everyone left has joined, even during the initial delay."""
        if not group.is_(S.PREPARING_REBALANCE):
            return
        if self._scala:
            self._scala_try_complete_join(group)
        elif group.has_all_members_joined():
            self._complete_join(group)

    def _remove_member_and_update_group(self, group: Group, member: Member, reason: str, on_leave: bool) -> None:
        """removeMemberAndUpdateGroup (Scala) / removeMemberAndUpdateClassicGroup (Java)."""
        # a parked JoinGroup (new member timing out) is told to retry with an empty id
        group.maybe_invoke_join(member, join_error("", E.UNKNOWN_MEMBER_ID), self._deliver)
        group.remove(member.member_id)
        self._cancel_heartbeat(group, member.member_id)
        self._event(group, "member_removed", member.member_id, reason)
        if group.state in (S.STABLE, S.COMPLETING_REBALANCE):
            self._maybe_prepare_rebalance_or_complete(group, "member_left" if on_leave else reason,
                                                      member.member_id)
        elif group.is_(S.PREPARING_REBALANCE):
            if self._scala:
                self._scala_try_complete_join(group)
            elif on_leave:
                pass  # Java LeaveGroup re-checks once after the whole batch (classicGroupLeaveToClassicGroup)
            elif group.has_all_members_joined():
                self._complete_join(group)

    # ================================================================== SyncGroup
    def sync(self, group_id: str, member_id: str, generation: int, *, instance_id: str | None = None,
             protocol_type: str | None = None, protocol_name: str | None = None,
             assignment: dict[str, Any] | None = None, now_ms: int | None = None) -> Ticket:
        """handleSyncGroup (Scala) / classicGroupSync (Java)."""
        self._begin(now_ms)
        t = self._ticket("sync", group_id, member_id)
        previous, self._current = self._current, t
        try:
            self._sync(t, group_id, member_id, generation, instance_id, protocol_type, protocol_name,
                       assignment or {})
        finally:
            self._current = previous
        return t

    def _sync(self, t: Ticket, group_id: str, member_id: str, generation: int, instance_id: str | None,
              protocol_type: str | None, protocol_name: str | None, assignment: dict) -> None:
        err = self._validate_group_status(group_id, "sync")
        if err is not None:
            return self._deliver(t, sync_error(err))
        group = self._groups.get(group_id)
        if group is None:
            return self._deliver(t, sync_error(E.UNKNOWN_MEMBER_ID))
        if not self._scala and group.is_(S.EMPTY):
            return self._deliver(t, sync_error(E.UNKNOWN_MEMBER_ID))  # Java: before validation
        err = self._validate_sync(group, generation, member_id, instance_id, protocol_type, protocol_name)
        if err is not None:
            return self._deliver(t, sync_error(err))
        if group.is_(S.EMPTY):
            return self._deliver(t, sync_error(E.UNKNOWN_MEMBER_ID))
        if group.is_(S.PREPARING_REBALANCE):
            return self._deliver(t, sync_error(E.REBALANCE_IN_PROGRESS))
        member = group.get(member_id)
        if group.is_(S.COMPLETING_REBALANCE):
            member.awaiting_sync = t
            self._remove_pending_sync_member(group, member_id)
            if group.is_leader(member_id):
                # the leader's assignment completes the generation; members it omits get nothing
                for m in group.members.values():
                    m.assignment = assignment.get(m.member_id, b"")
                self._propagate_assignment(group, E.NONE)
                group.transition_to(S.STABLE, self._timers.now_ms)
                self._persist(group)
                self._event(group, "group_stable", member_id, None,
                            missing=tuple(mid for mid in group.members if mid not in assignment))
            return None
        # Stable: answer the stored assignment
        self._remove_pending_sync_member(group, member_id)
        self._deliver(t, SyncResponse(E.NONE, group.protocol_type, group.protocol, member.assignment))
        if self._scala:
            self._schedule_heartbeat(group, member)  # Scala refreshes the session here, Java does not

    def _validate_sync(self, group: Group, generation: int, member_id: str, instance_id: str | None,
                       protocol_type: str | None, protocol_name: str | None) -> str | None:
        """validateSyncGroup (Scala) / GroupMetadataManager.validateSyncGroup (Java)."""
        if group.is_(S.DEAD):
            return E.COORDINATOR_NOT_AVAILABLE
        err = self._validate_current_member(group, member_id, instance_id)
        if err is not None:
            return err
        if generation != group.generation:
            return E.ILLEGAL_GENERATION
        if self._scala:
            # Scala: a given type/name must equal the group's (a group without one rejects it)
            if protocol_type is not None and group.protocol_type != protocol_type:
                return E.INCONSISTENT_GROUP_PROTOCOL
            if protocol_name is not None and group.protocol != protocol_name:
                return E.INCONSISTENT_GROUP_PROTOCOL
        else:
            # Java isProtocolInconsistent: only when both sides are set and differ
            if protocol_type is not None and group.protocol_type is not None and protocol_type != group.protocol_type:
                return E.INCONSISTENT_GROUP_PROTOCOL
            if protocol_name is not None and group.protocol is not None and protocol_name != group.protocol:
                return E.INCONSISTENT_GROUP_PROTOCOL
        return None

    # ================================================================== Heartbeat
    def heartbeat(self, group_id: str, member_id: str, generation: int, *, instance_id: str | None = None,
                  now_ms: int | None = None) -> Ticket:
        """handleHeartbeat (Scala) / classicGroupHeartbeat (Java)."""
        self._begin(now_ms)
        t = self._ticket("heartbeat", group_id, member_id)
        previous, self._current = self._current, t
        try:
            err = self._heartbeat(group_id, member_id, generation, instance_id)
            resp = _HEARTBEAT_RESPONSES.get(err)
            self._deliver(t, resp if resp is not None else HeartbeatResponse(err))
        finally:
            self._current = previous
        return t

    def _heartbeat(self, group_id: str, member_id: str, generation: int, instance_id: str | None) -> str:
        err = self._validate_group_status(group_id, "heartbeat")
        if err is not None:
            return err
        group = self._groups.get(group_id)
        if group is None:
            return E.UNKNOWN_MEMBER_ID
        if group.is_(S.DEAD):
            return E.COORDINATOR_NOT_AVAILABLE
        err = self._validate_current_member(group, member_id, instance_id)
        if err is not None:
            return err
        if generation != group.generation:
            return E.ILLEGAL_GENERATION
        if group.is_(S.EMPTY):
            return E.UNKNOWN_MEMBER_ID
        self._schedule_heartbeat(group, group.get(member_id))
        if group.is_(S.PREPARING_REBALANCE):
            return E.REBALANCE_IN_PROGRESS  # tells the member to rejoin
        return E.NONE

    # ================================================================== LeaveGroup
    def leave(self, group_id: str, members: Iterable, *, now_ms: int | None = None) -> Ticket:
        """handleLeaveGroup (Scala) / classicGroupLeave (Java). `members`: (member_id, instance_id)
        pairs (LeaveGroup v3+ batch); a bare string is a member id without instance id."""
        self._begin(now_ms)
        identities = [(m, None) if isinstance(m, str) else (m[0] or "", m[1]) for m in members]
        t = self._ticket("leave", group_id, identities[0][0] if len(identities) == 1 else "")
        previous, self._current = self._current, t
        try:
            self._deliver(t, self._leave(group_id, identities))
        finally:
            self._current = previous
        return t

    def _leave(self, group_id: str, identities: list[tuple[str, str | None]]) -> LeaveResponse:
        err = self._validate_group_status(group_id, "leave")
        if err is not None:
            return LeaveResponse(err, ())
        group = self._groups.get(group_id)
        if group is None:
            return LeaveResponse(E.NONE, tuple(E.UNKNOWN_MEMBER_ID for _ in identities))
        if group.is_(S.DEAD):
            return LeaveResponse(E.COORDINATOR_NOT_AVAILABLE, ())
        results: list[str] = []
        for member_id, instance_id in identities:
            if member_id == "":
                # admin removal by group.instance.id alone
                current = group.current_static_member_id(instance_id)
                if current is None:
                    results.append(E.UNKNOWN_MEMBER_ID)
                else:
                    self._remove_current_member(group, current)
                    results.append(E.NONE)
            elif group.is_pending_member(member_id):
                group.remove(member_id)
                self._cancel_heartbeat(group, member_id)
                self._event(group, "member_removed", member_id, "leave")
                if self._scala and group.is_(S.PREPARING_REBALANCE):
                    self._scala_try_complete_join(group)
                results.append(E.NONE)
            else:
                err = self._validate_current_member(group, member_id, instance_id)
                if err is None:
                    self._remove_current_member(group, member_id)
                    results.append(E.NONE)
                else:
                    results.append(err)
        if not self._scala and any(r == E.NONE for r in results):
            # Java reacts once after the whole batch
            if group.state in (S.STABLE, S.COMPLETING_REBALANCE):
                self._maybe_prepare_rebalance_or_complete(group, "member_left")
            elif group.is_(S.PREPARING_REBALANCE):
                self._java_maybe_complete_join_phase(group)
        return LeaveResponse(E.NONE, tuple(results))

    def _remove_current_member(self, group: Group, member_id: str) -> None:
        """removeCurrentMemberFromGroup (Scala; rebalances per member) /
        removeCurrentMemberFromClassicGroup (Java; the batch decides afterwards)."""
        member = group.get(member_id)
        if self._scala:
            self._remove_member_and_update_group(group, member, "leave", on_leave=True)
        else:
            self._cancel_heartbeat(group, member_id)
            group.maybe_invoke_join(member, join_error("", E.UNKNOWN_MEMBER_ID), self._deliver)
            group.remove(member_id)
            self._event(group, "member_removed", member_id, "leave")

    # ================================================================== OffsetCommit / OffsetFetch
    def commit(self, group_id: str, member_id: str = "", generation: int = -1,
               offsets: dict[str, int] | None = None, *, instance_id: str | None = None,
               api_version: int = 8, now_ms: int | None = None) -> Ticket:
        """handleCommitOffsets (Scala) / OffsetMetadataManager.commitOffset (Java), non-transactional."""
        self._begin(now_ms)
        offsets = dict(offsets or {})
        t = self._ticket("commit", group_id, member_id or "")
        previous, self._current = self._current, t
        try:
            err = self._commit(group_id, member_id or "", generation, offsets, instance_id, api_version)
            self._deliver(t, CommitResponse(err, {p: err for p in offsets}))
        finally:
            self._current = previous
        return t

    def _commit(self, group_id: str, member_id: str, generation: int, offsets: dict[str, int],
                instance_id: str | None, api_version: int) -> str:
        err = self._validate_group_status(group_id, "commit")
        if err is not None:
            return err
        group = self._groups.get(group_id)
        if group is None:
            if generation < 0:
                # a simple consumer / admin commit creates an Empty group without protocol type
                group = self._create_group(group_id)
            elif not self._scala and api_version >= 9:
                return E.GROUP_ID_NOT_FOUND  # Java OffsetMetadataManager.validateOffsetCommit, v9+
            else:
                return E.ILLEGAL_GENERATION
        err = self._validate_offset_commit(group, generation, member_id, instance_id)
        if err is not None:
            return err
        if group.is_(S.COMPLETING_REBALANCE):
            return E.REBALANCE_IN_PROGRESS  # valid member of the new generation, assignment not known yet
        if group.state in (S.STABLE, S.PREPARING_REBALANCE):
            self._schedule_heartbeat(group, group.get(member_id))  # a commit also proves liveness
        for p, off in offsets.items():
            group.offsets[p] = int(off)
        if group.group_id not in self._persisted:
            # offsets alone are enough for a reload to recreate the (Empty) group
            self._persisted[group.group_id] = {
                "generation": 0, "protocol_type": None, "protocol": None, "leader": None,
                "members": [], "offsets": group.offsets}
        self._event(group, "offsets_committed", member_id or None, None, offsets=dict(offsets),
                    commit_generation=generation)
        return E.NONE

    def _validate_offset_commit(self, group: Group, generation: int, member_id: str,
                                instance_id: str | None) -> str | None:
        """validateOffsetCommit (Scala) / ClassicGroup.validateOffsetCommit (Java)."""
        if group.is_(S.DEAD):
            return E.COORDINATOR_NOT_AVAILABLE
        if generation < 0 and group.is_(S.EMPTY):
            return None  # not using group management: allowed while the group is Empty
        if generation >= 0 or member_id != "" or instance_id is not None:
            err = self._validate_current_member(group, member_id, instance_id)
            if err is not None:
                return err
            if generation != group.generation:
                return E.ILLEGAL_GENERATION
            return None
        if not group.is_(S.EMPTY):
            return E.UNKNOWN_MEMBER_ID  # only members may commit to a non-empty group
        return None

    def fetch_offsets(self, group_id: str, partitions: Iterable[str] | None = None, *,
                      now_ms: int | None = None) -> Ticket:
        """handleFetchOffsets: stored offsets in any state, -1 where none (requireStable not modelled)."""
        self._begin(now_ms)
        t = self._ticket("fetch", group_id, "")
        previous, self._current = self._current, t
        try:
            err = self._validate_group_status(group_id, "fetch")
            if err is not None:
                self._deliver(t, FetchResponse(err, {}))
            else:
                g = self._groups.get(group_id)
                stored = g.offsets if g is not None else {}
                if partitions is None:
                    result = dict(stored)
                else:
                    result = {p: stored.get(p, -1) for p in partitions}
                self._deliver(t, FetchResponse(E.NONE, result))
        finally:
            self._current = previous
        return t

    # ================================================================== group deletion, failover
    def delete_group(self, group_id: str, *, now_ms: int | None = None) -> str:
        """handleDeleteGroups (Scala) / GroupMetadataManager.validateDeleteGroup + tombstones (Java)."""
        self._begin(now_ms)
        err = self._validate_group_status(group_id, "delete")
        if err is not None:
            return err
        group = self._groups.get(group_id)
        if group is None or group.is_(S.DEAD):
            return E.GROUP_ID_NOT_FOUND
        if not group.is_(S.EMPTY):
            return E.NON_EMPTY_GROUP
        group.transition_to(S.DEAD, self._timers.now_ms)
        self._event(group, "group_dead", None, "deleted")
        self._drop_group(group)
        self._persisted.pop(group_id, None)
        return E.NONE

    def mark_dead(self, group_id: str, *, now_ms: int | None = None) -> bool:
        """Leave the group in the Dead state without unloading it: the transient state a request can
        meet right after another thread deleted or unloaded the group (Kafka's tests reach it with
        `group.transitionTo(Dead)`). Requests then get COORDINATOR_NOT_AVAILABLE."""
        self._begin(now_ms)
        group = self._groups.get(group_id)
        if group is None:
            return False
        group.transition_to(S.DEAD, self._timers.now_ms)
        for mid in list(group.members) + list(group.pending_members):
            self._cancel_heartbeat(group, mid)
        self._cancel_join(group)
        self._timers.cancel(("sync", group.group_id))
        self._event(group, "group_dead", None, "marked")
        return True

    def _drop_group(self, group: Group) -> None:
        for mid in list(group.members) + list(group.pending_members):
            self._cancel_heartbeat(group, mid)
        self._timers.cancel(("join", group.group_id))
        self._timers.cancel(("sync", group.group_id))
        del self._groups[group.group_id]

    def resign(self, partition: int, *, now_ms: int | None = None) -> list[str]:
        """onResignation -> onGroupUnloaded: this broker stops leading `partition`; its groups turn
        Dead, parked JoinGroups (PreparingRebalance) or SyncGroups (Stable/CompletingRebalance) are
        answered NOT_COORDINATOR. Returns the unloaded group ids."""
        self._begin(now_ms)
        if self._owned is None:
            self._owned = set(range(self.config.offsets_topic_num_partitions))
        self._owned.discard(partition)
        unloaded = []
        for gid in [g for g in self._groups if self.partition_for(g) == partition]:
            group = self._groups[gid]
            previous = group.state
            group.transition_to(S.DEAD, self._timers.now_ms)
            for m in list(group.members.values()):
                if previous == S.PREPARING_REBALANCE:
                    group.maybe_invoke_join(m, join_error(m.member_id, E.NOT_COORDINATOR), self._deliver)
                elif previous in (S.STABLE, S.COMPLETING_REBALANCE):
                    group.maybe_invoke_sync(m, sync_error(E.NOT_COORDINATOR), self._deliver)
            self._event(group, "group_dead", None, "unloaded", previous_state=previous)
            self._drop_group(group)
            unloaded.append(gid)
        return unloaded

    def elect(self, partition: int, *, now_ms: int | None = None) -> list[str]:
        """onElection -> load the partition's groups from what was persisted, then onGroupLoaded:
        an over-capacity group rebalances; every member's session timer starts afresh.
        Returns the loaded group ids."""
        self._begin(now_ms)
        if self._owned is not None:
            self._owned.add(partition)
        loaded = []
        for gid, rec in list(self._persisted.items()):
            if self.partition_for(gid) != partition or gid in self._groups:
                continue
            group = self._load_group(gid, rec)
            loaded.append(gid)
            if group.size > self.config.group_max_size:
                self._prepare_rebalance(group, "over_capacity")
            for m in list(group.members.values()):
                self._schedule_heartbeat(group, m)
        return loaded

    def _persist(self, group: Group) -> None:
        """The GroupMetadata record Kafka writes (storeGroup): at SyncGroup from the leader, when a
        generation ends Empty, and on a static member id change in Stable. Offsets are persisted by
        every accepted commit (the record shares the group's offsets map)."""
        if group.state in (S.STABLE, S.EMPTY):
            self._persisted[group.group_id] = {
                "generation": group.generation, "protocol_type": group.protocol_type,
                "protocol": group.protocol, "leader": group.leader_id,
                "members": [(m.member_id, m.instance_id, m.client_id, m.client_host, m.rebalance_timeout_ms,
                             m.session_timeout_ms, m.protocol_type, m.protocols, m.assignment)
                            for m in group.members.values()],
                "offsets": group.offsets,
            }

    def _load_group(self, group_id: str, rec: dict) -> Group:
        g = Group(group_id, self._timers.now_ms, state=S.STABLE if rec["members"] else S.EMPTY)
        g.generation = rec["generation"]
        g.protocol_type = rec["protocol_type"]
        g.protocol = rec["protocol"]
        for (mid, iid, cid, host, rto, sto, ptype, protos, assignment) in rec["members"]:
            m = Member(mid, iid, cid, host, rto, sto, ptype, protos, assignment)
            g.add(m, None)
        g.leader_id = rec["leader"] if rec["leader"] in g.members else next(iter(g.members), None)
        g.offsets = rec["offsets"]  # shared with the record: later commits stay persisted
        self._groups[group_id] = g
        self._event(g, "group_loaded", None, None, state=g.state)
        return g
