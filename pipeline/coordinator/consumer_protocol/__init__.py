"""Reference model of Kafka's consumer-group protocol (KIP-848), as implemented by the 4.x group
coordinator (`group-coordinator` module, apache/kafka trunk 1eb7644349cb, 2024-10-25).

Pure: no clock, no I/O. Time only moves when the caller passes `now_ms` / calls `advance_time`.

* `members`     -- `ConsumerGroupMember` and the member state machine (`CurrentAssignmentBuilder`).
* `assignors`   -- server-side assignors: `range`, `uniform` (homogeneous/heterogeneous builders).
* `group`       -- `ConsumerGroup` / `ModernGroup`: state rebuilt by replaying the records written.
* `coordinator` -- `GroupMetadataManager.consumerGroupHeartbeat` and its helpers, timers, commits.
* `conformance` -- runner for the KIP-848 conformance format (shared/conformance/FORMAT-KIP848.md).
"""

from .assignors import PartitionAssignorError, assign
from .coordinator import ConsumerCoordinator, ConsumerCoordinatorConfig, HeartbeatResponse, KafkaApiError
from .members import Member, MemberState, reconcile

__all__ = [
    "ConsumerCoordinator", "ConsumerCoordinatorConfig", "HeartbeatResponse", "KafkaApiError", "Member",
    "MemberState", "PartitionAssignorError", "assign", "reconcile",
]
