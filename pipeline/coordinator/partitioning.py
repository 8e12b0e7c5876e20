"""Which `__consumer_offsets` partition (hence which coordinator) serves a group.

Mirrors kafka.coordinator.group.GroupMetadataManager.partitionFor (Scala, all versions) and
org.apache.kafka.coordinator.group.GroupCoordinatorService.partitionFor (Java, trunk):
`Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions`.
"""

from __future__ import annotations

_INT_MIN = -(2**31)


def java_string_hash(s: str) -> int:
    """java.lang.String.hashCode: s[0]*31^(n-1) + ... + s[n-1] over UTF-16 code units, 32-bit wrap."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h >= (1 << 31) else h


def kafka_abs(n: int) -> int:
    """org.apache.kafka.common.utils.Utils.abs: Integer.MIN_VALUE maps to 0, not to 2^31."""
    return 0 if n == _INT_MIN else abs(n)


def partition_for(group_id: str, num_partitions: int) -> int:
    """The `__consumer_offsets` partition of `group_id`."""
    if num_partitions <= 0:
        raise ValueError(f"offsets.topic.num.partitions must be positive, got {num_partitions}")
    return kafka_abs(java_string_hash(group_id)) % num_partitions
