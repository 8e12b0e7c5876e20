"""What the coordinator hands back: responses, tickets for parked requests, snapshots, events.

Field sets mirror the JoinGroup/SyncGroup/Heartbeat/LeaveGroup/OffsetCommit/OffsetFetch response
messages (clients/src/main/resources/common/message/*Response.json, 3.8.0), reduced to what the
coordinator decides; errors are Kafka error names (see errors.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import errors as E

NO_GENERATION = -1  # GroupCoordinator.NoGeneration
NO_LEADER = ""  # GroupCoordinator.NoLeader


@dataclass(frozen=True)
class JoinResponse:
    error: str
    member_id: str
    generation: int = NO_GENERATION
    protocol_type: str | None = None
    protocol: str | None = None
    leader: str = NO_LEADER
    # the leader's member list: (member_id, instance_id, metadata of the selected protocol); () otherwise
    members: tuple[tuple[str, str | None, Any], ...] = ()
    skip_assignment: bool = False


@dataclass(frozen=True)
class SyncResponse:
    error: str
    protocol_type: str | None = None
    protocol: str | None = None
    assignment: Any = b""


@dataclass(frozen=True)
class HeartbeatResponse:
    error: str


@dataclass(frozen=True)
class LeaveResponse:
    error: str
    member_errors: tuple[str, ...] = ()


@dataclass(frozen=True)
class CommitResponse:
    error: str  # the first partition error (all partitions share it in the classic coordinator)
    partition_errors: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class FetchResponse:
    error: str
    offsets: dict[str, int] = field(default_factory=dict)


Response = JoinResponse | SyncResponse | HeartbeatResponse | LeaveResponse | CommitResponse | FetchResponse


@dataclass(eq=False)
class Ticket:
    """One request. `response` is None while the request is parked (JoinGroup / SyncGroup)."""

    request_id: int
    op: str
    group_id: str
    member_id: str
    at_ms: int
    response: Any = None
    answered_at_ms: int | None = None

    @property
    def pending(self) -> bool:
        return self.response is None

    @property
    def error(self) -> str | None:
        return None if self.response is None else self.response.error

    def __repr__(self) -> str:
        state = "pending" if self.pending else repr(self.response)
        return f"Ticket(#{self.request_id} {self.op} {self.group_id}/{self.member_id or '-'}: {state})"


@dataclass(frozen=True)
class Delivered:
    """A parked request answered later (by a timer, or by another member's request)."""

    request_id: int
    op: str
    group_id: str
    member_id: str
    at_ms: int
    response: Any


@dataclass(frozen=True)
class MemberSnapshot:
    member_id: str
    instance_id: str | None
    client_id: str
    session_timeout_ms: int
    rebalance_timeout_ms: int
    protocols: tuple[tuple[str, Any], ...]
    assignment: Any
    awaiting_join: bool
    awaiting_sync: bool
    is_new: bool
    session_deadline_ms: int | None


@dataclass(frozen=True)
class GroupSnapshot:
    group_id: str
    state: str
    generation: int
    leader: str | None
    protocol_type: str | None
    protocol: str | None
    members: tuple[MemberSnapshot, ...]
    pending_members: tuple[str, ...]
    static_members: dict[str, str]
    pending_sync: tuple[str, ...]
    assignment: dict[str, Any]
    offsets: dict[str, int]

    @property
    def member_ids(self) -> tuple[str, ...]:
        return tuple(m.member_id for m in self.members)

    def member(self, member_id: str) -> MemberSnapshot | None:
        for m in self.members:
            if m.member_id == member_id:
                return m
        return None


@dataclass(frozen=True)
class CoordinatorEvent:
    """Something the broker did and why: the replay's window onto the coordinator's reasoning."""

    at_ms: int
    group_id: str
    kind: str
    member_id: str | None = None
    generation: int | None = None
    reason: str | None = None
    detail: dict = field(default_factory=dict)


def join_error(member_id: str, error: str) -> JoinResponse:
    """JoinGroupResult.apply(memberId, error) (GroupCoordinator.scala 3.8.0)."""
    return JoinResponse(error=error, member_id=member_id)


def sync_error(error: str) -> SyncResponse:
    """SyncGroupResult.apply(error)."""
    return SyncResponse(error=error)


OK = E.NONE
