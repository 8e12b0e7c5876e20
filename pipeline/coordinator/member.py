"""A member of a classic group.

Mirrors kafka.coordinator.group.MemberMetadata (Scala 3.8.0) and
org.apache.kafka.coordinator.group.classic.ClassicGroupMember (Java trunk 2024-10-25).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .responses import Ticket


@dataclass(eq=False)
class Member:
    member_id: str
    instance_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout_ms: int
    session_timeout_ms: int
    protocol_type: str
    protocols: tuple[tuple[str, Any], ...]  # ordered by preference: (name, opaque metadata)
    assignment: Any = b""
    awaiting_join: Ticket | None = None  # MemberMetadata.awaitingJoinCallback
    awaiting_sync: Ticket | None = None  # MemberMetadata.awaitingSyncCallback
    is_new: bool = False  # MemberMetadata.isNew: joined but never completed a join phase

    @property
    def is_static(self) -> bool:
        return self.instance_id is not None

    @property
    def is_awaiting_join(self) -> bool:
        return self.awaiting_join is not None

    @property
    def is_awaiting_sync(self) -> bool:
        return self.awaiting_sync is not None

    def protocol_names(self) -> set[str]:
        return {name for name, _ in self.protocols}

    def metadata(self, protocol: str) -> Any:
        """MemberMetadata.metadata(protocol)."""
        for name, meta in self.protocols:
            if name == protocol:
                return meta
        raise KeyError(f"member {self.member_id} does not support protocol {protocol}")

    def matches(self, protocols: tuple[tuple[str, Any], ...]) -> bool:
        """MemberMetadata.matches: same names and byte-equal metadata, in the same order."""
        return tuple(protocols) == tuple(self.protocols)

    def vote(self, candidates: set[str]) -> str:
        """MemberMetadata.vote: the member's most preferred protocol among the candidates."""
        for name, _ in self.protocols:
            if name in candidates:
                return name
        raise ValueError(f"member {self.member_id} supports none of the candidate protocols")

    def has_satisfied_heartbeat(self) -> bool:
        """MemberMetadata.hasSatisfiedHeartbeat / ClassicGroupMember.hasSatisfiedHeartbeat, evaluated
        when the session timer fires: a new member can expire even while parked in JoinGroup; an
        established member parked in JoinGroup or SyncGroup is never expired by its session timer."""
        if self.is_new:
            return False
        return self.is_awaiting_join or self.is_awaiting_sync
