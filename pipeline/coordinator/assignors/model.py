"""Value types shared by the assignors: topic-partitions, member subscriptions, errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from .javaorder import java_str_key

# AbstractStickyAssignor.DEFAULT_GENERATION (Kafka 3.8.0): "no generation".
DEFAULT_GENERATION = -1


class AssignorError(ValueError):
    """Bad input, or an input on which Kafka's assignor itself throws (named in the message)."""


class TopicPartition(NamedTuple):
    topic: str
    partition: int

    def __str__(self) -> str:  # Kafka's TopicPartition.toString: "topic-partition"
        return f"{self.topic}-{self.partition}"


def parse_tp(text: str) -> TopicPartition:
    """Parse "topic-p" (the topic may itself contain '-': the partition is after the last one)."""
    if not isinstance(text, str):
        raise AssignorError(f"topic-partition must be a string like 'topic-0', got {text!r}")
    topic, sep, num = text.rpartition("-")
    if not sep or not topic or not num.isdigit():
        raise AssignorError(f"bad topic-partition {text!r}: expected 'topic-<partition number>'")
    return TopicPartition(topic, int(num))


def tp_sort_key(tp: TopicPartition) -> tuple[bytes, int]:
    """Utils.TopicPartitionComparator (Kafka 3.8.0): topic (String.compareTo), then partition."""
    return (java_str_key(tp.topic), tp.partition)


@dataclass(frozen=True)
class Subscription:
    """One member's ConsumerPartitionAssignor.Subscription, as the assignors see it.

    ``generation`` None means "no generation" (Kafka's Optional.empty / -1). ``rack`` is the
    client.rack of the member (used by the rack-aware range assignor only).
    """

    topics: tuple[str, ...]
    owned_partitions: tuple[TopicPartition, ...] = ()
    generation: int | None = None
    group_instance_id: str | None = None
    rack: str | None = None
    extra: dict = field(default_factory=dict, compare=False)

    @staticmethod
    def build(
        topics,
        owned_partitions=(),
        generation: int | None = None,
        group_instance_id: str | None = None,
        rack: str | None = None,
    ) -> Subscription:
        if isinstance(topics, str) or not all(isinstance(t, str) for t in topics):
            raise AssignorError(f"topics must be a list of topic names, got {topics!r}")
        owned = tuple(p if isinstance(p, TopicPartition) else parse_tp(p) for p in owned_partitions)
        if generation is not None and (not isinstance(generation, int) or generation < 0):
            if generation == DEFAULT_GENERATION:
                generation = None
            else:
                raise AssignorError(f"generation must be an int >= -1, got {generation!r}")
        return Subscription(tuple(topics), owned, generation, group_instance_id or None, rack or None)


def member_sort_key(member_id: str, group_instance_id: str | None) -> tuple[int, bytes]:
    """AbstractPartitionAssignor.MemberInfo.compareTo (Kafka 3.8.0): static members first, by
    group.instance.id; then dynamic members by member id (both String.compareTo)."""
    if group_instance_id is not None:
        return (0, java_str_key(group_instance_id))
    return (1, java_str_key(member_id))
