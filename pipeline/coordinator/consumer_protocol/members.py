"""A consumer-group member and its reconciliation state machine.

Mirrors `modern/consumer/ConsumerGroupMember.java`, `modern/MemberState.java` and
`modern/consumer/CurrentAssignmentBuilder.java` (apache/kafka group-coordinator, trunk 1eb7644349cb).
An assignment is `{topic_id: frozenset(partitions)}` without empty topics (Kafka's `Map<Uuid, Set<Integer>>`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

Assignment = dict[str, frozenset[int]]

LEAVE_GROUP_MEMBER_EPOCH = -1  # ConsumerGroupHeartbeatRequest.LEAVE_GROUP_MEMBER_EPOCH
LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2  # ConsumerGroupHeartbeatRequest.LEAVE_GROUP_STATIC_MEMBER_EPOCH


class MemberState:
    """modern/MemberState.java."""

    STABLE = "STABLE"
    UNREVOKED_PARTITIONS = "UNREVOKED_PARTITIONS"
    UNRELEASED_PARTITIONS = "UNRELEASED_PARTITIONS"
    UNKNOWN = "UNKNOWN"
    ALL = (STABLE, UNREVOKED_PARTITIONS, UNRELEASED_PARTITIONS, UNKNOWN)


class FencedMemberEpoch(Exception):
    """CurrentAssignmentBuilder throws FencedMemberEpochException (UNKNOWN state, owned not empty)."""


def norm_assignment(value: Mapping[str, Iterable[int]] | None) -> Assignment:
    """Canonical assignment: frozensets, empty topics dropped (Kafka never stores empty sets)."""
    out: Assignment = {}
    for topic, parts in (value or {}).items():
        ps = frozenset(int(p) for p in parts)
        if ps:
            out[str(topic)] = ps
    return out


def assignment_json(value: Mapping[str, frozenset[int]]) -> dict[str, list[int]]:
    return {t: sorted(ps) for t, ps in sorted(value.items())}


@dataclass(frozen=True)
class Member:
    """ConsumerGroupMember: defaults are those of `ConsumerGroupMember.Builder(memberId)`."""

    member_id: str
    member_epoch: int = 0
    previous_member_epoch: int = -1
    state: str = MemberState.STABLE
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: frozenset[str] = frozenset()
    subscribed_topic_regex: str = ""
    server_assignor: str | None = None
    assigned: Assignment = field(default_factory=dict)
    pending_revocation: Assignment = field(default_factory=dict)
    uses_classic_protocol: bool = False

    def is_reconciled_to(self, target_epoch: int) -> bool:
        # ModernGroupMember.isReconciledTo
        return self.state == MemberState.STABLE and self.member_epoch == target_epoch

    def with_epoch(self, epoch: int, **changes: Any) -> Member:
        # ConsumerGroupMember.Builder.updateMemberEpoch: previous := the epoch before the update
        return replace(self, member_epoch=epoch, previous_member_epoch=self.member_epoch, **changes)

    def snapshot(self) -> dict[str, Any]:
        return {
            "member_id": self.member_id, "state": self.state, "member_epoch": self.member_epoch,
            "previous_member_epoch": self.previous_member_epoch, "instance_id": self.instance_id,
            "rack_id": self.rack_id, "rebalance_timeout_ms": self.rebalance_timeout_ms,
            "subscribed_topic_names": sorted(self.subscribed_topic_names),
            "subscribed_topic_regex": self.subscribed_topic_regex,
            "server_assignor": self.server_assignor, "assigned": assignment_json(self.assigned),
            "pending_revocation": assignment_json(self.pending_revocation),
            "uses_classic_protocol": self.uses_classic_protocol, "client_id": self.client_id,
        }


def _owns_any(owned: Mapping[str, Iterable[int]] | None, partitions: Assignment) -> bool:
    # CurrentAssignmentBuilder.ownsRevokedPartitions: owned partitions not reported (null) = still owned
    if owned is None:
        return True
    return any(int(p) in partitions.get(topic, frozenset()) for topic, ps in owned.items() for p in ps)


def _next_assignment(member: Member, epoch: int, target_epoch: int, target: Assignment,
                     partition_epoch: Callable[[str, int], int],
                     owned: Mapping[str, Iterable[int]] | None) -> Member:
    """CurrentAssignmentBuilder.computeNextAssignment."""
    kept_all: Assignment = {}
    revoke_all: Assignment = {}
    add_all: Assignment = {}
    unreleased = False
    for topic in set(target) | set(member.assigned):
        tgt = target.get(topic, frozenset())
        current = member.assigned.get(topic, frozenset())
        kept = current & tgt
        revoke = current - kept
        # a partition still owned by anyone at some epoch (epoch != -1) is not handed over yet
        pending = {p for p in tgt - kept if partition_epoch(topic, p) == -1}
        if len(pending) != len(tgt - kept):
            unreleased = True
        if kept:
            kept_all[topic] = frozenset(kept)
        if revoke:
            revoke_all[topic] = frozenset(revoke)
        if pending:
            add_all[topic] = frozenset(pending)
    if revoke_all and _owns_any(owned, revoke_all):
        # revoke first: stay at the current epoch until the client acknowledges the revocation
        return member.with_epoch(epoch, state=MemberState.UNREVOKED_PARTITIONS, assigned=kept_all,
                                 pending_revocation=revoke_all)
    if add_all:
        merged = dict(kept_all)
        for topic, ps in add_all.items():
            merged[topic] = merged.get(topic, frozenset()) | ps
        state = MemberState.UNRELEASED_PARTITIONS if unreleased else MemberState.STABLE
        return member.with_epoch(target_epoch, state=state, assigned=merged, pending_revocation={})
    state = MemberState.UNRELEASED_PARTITIONS if unreleased else MemberState.STABLE
    return member.with_epoch(target_epoch, state=state, assigned=kept_all, pending_revocation={})


def reconcile(member: Member, target_epoch: int, target: Assignment,
              partition_epoch: Callable[[str, int], int],
              owned: Mapping[str, Iterable[int]] | None) -> Member:
    """CurrentAssignmentBuilder.build: the member's next state towards the target assignment.

    `owned` is the request's topic_partitions (None = not sent). Raises FencedMemberEpoch for a member in
    an UNKNOWN state that does not report an empty owned list."""
    if member.state == MemberState.STABLE:
        if member.member_epoch != target_epoch:
            return _next_assignment(member, member.member_epoch, target_epoch, target, partition_epoch, owned)
        return member
    if member.state == MemberState.UNREVOKED_PARTITIONS:
        if _owns_any(owned, member.pending_revocation):
            return member
        return _next_assignment(member, member.member_epoch + 1, target_epoch, target, partition_epoch, owned)
    if member.state == MemberState.UNRELEASED_PARTITIONS:
        return _next_assignment(member, member.member_epoch, target_epoch, target, partition_epoch, owned)
    # UNKNOWN: only reachable after a downgrade; the member must rejoin from scratch
    if owned is None or len(owned) > 0:
        raise FencedMemberEpoch("member in an unknown state must report an empty owned list")
    return _next_assignment(member, target_epoch, target_epoch, target, partition_epoch, owned)
