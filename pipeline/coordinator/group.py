"""The in-memory state of one classic group.

Mirrors kafka.coordinator.group.GroupMetadata (Scala 3.8.0) and
org.apache.kafka.coordinator.group.classic.ClassicGroup (Java trunk 2024-10-25). Kafka keeps members
in a HashMap keyed by random ids, so "the first member" is implementation-defined there; the model
uses insertion order, which is deterministic and one of the orders Kafka could produce.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from . import states as S
from .member import Member
from .responses import JoinResponse, SyncResponse


class Group:
    def __init__(self, group_id: str, now_ms: int, state: str = S.EMPTY) -> None:
        self.group_id = group_id
        self.state = state
        self.previous_state: str | None = None  # ClassicGroup.previousState (Java)
        self.state_since_ms = now_ms
        self.protocol_type: str | None = None
        self.protocol: str | None = None
        self.generation = 0
        self.leader_id: str | None = None
        self.members: dict[str, Member] = {}
        self.static_members: dict[str, str] = {}  # group.instance.id -> member id
        self.pending_members: dict[str, None] = {}  # MEMBER_ID_REQUIRED ids (ordered set)
        self.pending_sync: dict[str, None] = {}  # members expected to send SyncGroup
        self.num_awaiting_join = 0
        self.supported_protocols: Counter[str] = Counter()
        self.new_member_added = False
        # which join timer runs ("initial" = InitialDelayedJoin, "normal" = DelayedJoin); Scala's
        # DelayedJoin completes early when all members joined, InitialDelayedJoin never does
        self.join_timer_kind: str | None = None
        self.offsets: dict[str, int] = {}

    # ----------------------------------------------------------------- queries
    def is_(self, state: str) -> bool:
        return self.state == state

    def has(self, member_id: str) -> bool:
        return member_id in self.members

    def get(self, member_id: str) -> Member:
        return self.members[member_id]

    @property
    def size(self) -> int:
        return len(self.members)

    def is_leader(self, member_id: str) -> bool:
        return self.leader_id is not None and self.leader_id == member_id

    def is_pending_member(self, member_id: str) -> bool:
        return member_id in self.pending_members

    def current_static_member_id(self, instance_id: str | None) -> str | None:
        return None if instance_id is None else self.static_members.get(instance_id)

    def has_all_members_joined(self) -> bool:
        """GroupMetadata.hasAllMembersJoined: every member parked in JoinGroup, no pending id left."""
        return len(self.members) == self.num_awaiting_join and not self.pending_members

    def not_yet_rejoined(self) -> list[Member]:
        return [m for m in self.members.values() if not m.is_awaiting_join]

    def rebalance_timeout_ms(self) -> int:
        """GroupMetadata.rebalanceTimeoutMs: the largest rebalance timeout of the members (0 if none)."""
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0)

    def candidate_protocols(self) -> set[str]:
        """GroupMetadata.candidateProtocols: protocols supported by every member."""
        n = len(self.members)
        return {p for p, count in self.supported_protocols.items() if count == n}

    def supports_protocols(self, protocol_type: str, protocol_names: set[str]) -> bool:
        """GroupMetadata.supportsProtocols / ClassicGroup.supportsProtocols."""
        if self.is_(S.EMPTY):
            return bool(protocol_type) and bool(protocol_names)
        n = len(self.members)
        return self.protocol_type == protocol_type and any(
            self.supported_protocols.get(p, 0) == n for p in protocol_names
        )

    def select_protocol(self) -> str:
        """GroupMetadata.selectProtocol: each member votes for its preferred candidate; most votes
        wins. Ties are broken by Kafka's HashMap order (unspecified); the model takes the protocol
        that reached the top count first in member order."""
        if not self.members:
            raise ValueError("cannot select a protocol for an empty group")
        candidates = self.candidate_protocols()
        votes: Counter[str] = Counter()
        order: list[str] = []
        for m in self.members.values():
            v = m.vote(candidates)
            if v not in votes:
                order.append(v)
            votes[v] += 1
        best = max(votes.values())
        return next(p for p in order if votes[p] == best)

    def current_member_metadata(self) -> tuple[tuple[str, str | None, Any], ...]:
        """GroupMetadata.currentMemberMetadata: what the leader's JoinGroup response lists."""
        assert self.protocol is not None
        return tuple((m.member_id, m.instance_id, m.metadata(self.protocol)) for m in self.members.values())

    # ----------------------------------------------------------------- changes
    def transition_to(self, state: str, now_ms: int) -> None:
        S.check_transition(self.state, state)
        self.previous_state = self.state
        self.state = state
        self.state_since_ms = now_ms

    def add(self, member: Member, ticket) -> None:
        """GroupMetadata.add (Scala 3.8.0) / ClassicGroup.add."""
        if member.instance_id is not None:
            if member.instance_id in self.static_members:
                raise ValueError(f"static member {member.instance_id} is already a member")
            self.static_members[member.instance_id] = member.member_id
        if not self.members:
            self.protocol_type = member.protocol_type
        if self.leader_id is None:
            self.leader_id = member.member_id
        self.members[member.member_id] = member
        self.supported_protocols.update(member.protocol_names())
        member.awaiting_join = ticket
        if member.is_awaiting_join:
            self.num_awaiting_join += 1
        self.pending_members.pop(member.member_id, None)

    def remove(self, member_id: str) -> Member | None:
        """GroupMetadata.remove: drop the member (no callbacks); a removed leader passes leadership
        to the first remaining member."""
        member = self.members.pop(member_id, None)
        if member is not None:
            self.supported_protocols.subtract(member.protocol_names())
            self.supported_protocols += Counter()  # drop zero counts
            if member.is_awaiting_join:
                self.num_awaiting_join -= 1
            if member.instance_id is not None:
                self.static_members.pop(member.instance_id, None)
        if self.is_leader(member_id):
            self.leader_id = next(iter(self.members), None)
        self.pending_members.pop(member_id, None)
        self.pending_sync.pop(member_id, None)
        return member

    def maybe_elect_new_joined_leader(self) -> bool:
        """GroupMetadata.maybeElectNewJoinedLeader: keep a leader that rejoined, else take the first
        member that did; False when there is no leader or nobody rejoined."""
        if self.leader_id is None:
            return False
        leader = self.members[self.leader_id]
        if leader.is_awaiting_join:
            return True
        for mid, m in self.members.items():
            if m.is_awaiting_join:
                self.leader_id = mid
                return True
        return False

    def update_member(self, member: Member, protocols, rebalance_timeout_ms: int, session_timeout_ms: int,
                      ticket) -> None:
        """GroupMetadata.updateMember: new protocols/timeouts and (re)park the JoinGroup; a ticket
        already parked is replaced without an answer."""
        self.supported_protocols.subtract(member.protocol_names())
        self.supported_protocols += Counter()
        member.protocols = tuple(protocols)
        self.supported_protocols.update(member.protocol_names())
        member.rebalance_timeout_ms = rebalance_timeout_ms
        member.session_timeout_ms = session_timeout_ms
        if ticket is not None and not member.is_awaiting_join:
            self.num_awaiting_join += 1
        elif ticket is None and member.is_awaiting_join:
            self.num_awaiting_join -= 1
        member.awaiting_join = ticket

    def maybe_invoke_join(self, member: Member, response: JoinResponse,
                          deliver: Callable[[Any, Any], None]) -> bool:
        """GroupMetadata.maybeInvokeJoinCallback."""
        if member.awaiting_join is None:
            return False
        ticket = member.awaiting_join
        member.awaiting_join = None
        self.num_awaiting_join -= 1
        deliver(ticket, response)
        return True

    def maybe_invoke_sync(self, member: Member, response: SyncResponse,
                          deliver: Callable[[Any, Any], None]) -> bool:
        """GroupMetadata.maybeInvokeSyncCallback; True when a parked SyncGroup was answered."""
        if member.awaiting_sync is None:
            return False
        ticket = member.awaiting_sync
        member.awaiting_sync = None
        deliver(ticket, response)
        return True

    def replace_static_member(self, instance_id: str, old_id: str, new_id: str,
                              deliver: Callable[[Any, Any], None], keep_is_new: bool = True) -> Member:
        """GroupMetadata.replaceStaticMember: the old id's parked JoinGroup/SyncGroup are fenced, the
        member object moves to the new id (keeping leadership)."""
        from . import errors as E
        from .responses import join_error, sync_error

        member = self.members.pop(old_id)
        self.maybe_invoke_join(member, join_error(old_id, E.FENCED_INSTANCE_ID), deliver)
        self.maybe_invoke_sync(member, sync_error(E.FENCED_INSTANCE_ID), deliver)
        member.member_id = new_id
        if not keep_is_new:
            member.is_new = False  # Java builds a fresh ClassicGroupMember (isNew = false)
        self.members[new_id] = member
        if self.is_leader(old_id):
            self.leader_id = new_id
        # Kafka leaves the old id in pendingSyncMembers (neither implementation touches it), so a
        # restarted static member that never synced under its old id still counts as "sync missing"
        self.static_members[instance_id] = new_id
        return member

    def init_next_generation(self, now_ms: int) -> None:
        """GroupMetadata.initNextGeneration."""
        self.generation += 1
        if self.members:
            self.protocol = self.select_protocol()
            self.transition_to(S.COMPLETING_REBALANCE, now_ms)
        else:
            self.protocol = None
            self.transition_to(S.EMPTY, now_ms)
        self.pending_sync.clear()
