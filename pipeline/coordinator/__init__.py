"""The embedded reference model of Kafka's classic group coordinator (pure Python, event time).

See docs/coordinator.md for the API; every rule names the Kafka class and version it mirrors.
"""

from .config import JAVA, SCALA, CoordinatorConfig
from .coordinator import GroupCoordinator
from .partitioning import java_string_hash, kafka_abs, partition_for
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
)

__all__ = [
    "JAVA",
    "SCALA",
    "CommitResponse",
    "CoordinatorConfig",
    "CoordinatorEvent",
    "Delivered",
    "FetchResponse",
    "GroupCoordinator",
    "GroupSnapshot",
    "HeartbeatResponse",
    "JoinResponse",
    "LeaveResponse",
    "MemberSnapshot",
    "SyncResponse",
    "Ticket",
    "java_string_hash",
    "kafka_abs",
    "partition_for",
]
