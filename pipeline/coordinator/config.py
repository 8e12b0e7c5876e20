"""Coordinator settings; defaults are Kafka's broker defaults.

Sources: kafka.server.KafkaConfig / GroupCoordinatorConfig (3.8.0) and
org.apache.kafka.coordinator.group.GroupCoordinatorConfig (trunk 2024-10-25).
"""

from __future__ import annotations

from dataclasses import dataclass

SCALA = "scala"
JAVA = "java"
IMPLS = (SCALA, JAVA)


@dataclass(frozen=True)
class CoordinatorConfig:
    # "scala": kafka.coordinator.group.GroupCoordinator (<= 3.x);
    # "java": org.apache.kafka.coordinator.group.GroupMetadataManager (group-coordinator module, 4.x).
    impl: str = SCALA
    group_min_session_timeout_ms: int = 6000  # group.min.session.timeout.ms
    group_max_session_timeout_ms: int = 1800000  # group.max.session.timeout.ms (2.3.0+)
    group_max_size: int = 2147483647  # group.max.size (Int.MaxValue)
    group_initial_rebalance_delay_ms: int = 3000  # group.initial.rebalance.delay.ms
    # GroupCoordinator.NewMemberJoinTimeoutMs (Scala) / classicGroupNewMemberJoinTimeoutMs (Java): 5 minutes
    new_member_join_timeout_ms: int = 300000
    offsets_topic_num_partitions: int = 50  # offsets.topic.num.partitions
    # partitions of __consumer_offsets this coordinator leads; None = all of them
    owned_offsets_partitions: frozenset[int] | None = None
    # seed of the deterministic UUIDs in generated member ids (Kafka uses UUID.randomUUID)
    member_id_seed: int = 0

    def __post_init__(self) -> None:
        if self.impl not in IMPLS:
            raise ValueError(f"impl must be one of {IMPLS}, got {self.impl!r}")
        if self.group_min_session_timeout_ms > self.group_max_session_timeout_ms:
            raise ValueError("group_min_session_timeout_ms exceeds group_max_session_timeout_ms")
        if self.group_max_size < 1:
            raise ValueError("group_max_size must be at least 1")
        if self.group_initial_rebalance_delay_ms < 0 or self.new_member_join_timeout_ms < 0:
            raise ValueError("timeouts cannot be negative")
        if self.offsets_topic_num_partitions < 1:
            raise ValueError("offsets_topic_num_partitions must be positive")
        if self.owned_offsets_partitions is not None and not isinstance(self.owned_offsets_partitions, frozenset):
            object.__setattr__(self, "owned_offsets_partitions", frozenset(self.owned_offsets_partitions))

    @property
    def is_scala(self) -> bool:
        return self.impl == SCALA

    @property
    def is_java(self) -> bool:
        return self.impl == JAVA
