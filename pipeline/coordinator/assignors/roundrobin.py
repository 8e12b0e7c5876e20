"""RoundRobinAssignor (Kafka 3.8.0, clients/.../consumer/RoundRobinAssignor.java).

All partitions of all subscribed topics with metadata, sorted by topic (TreeSet) then partition,
are dealt over the members in MemberInfo order (a circular iterator); a member not subscribed to
the partition's topic is skipped. Deterministic: no HashMap order is involved.
"""

from __future__ import annotations

from collections.abc import Mapping

from .javaorder import java_str_key
from .model import Subscription, TopicPartition, member_sort_key


def assign_roundrobin(partitions_per_topic: Mapping[str, int],
                      subscriptions: Mapping[str, Subscription]) -> dict[str, list[TopicPartition]]:
    assignment: dict[str, list[TopicPartition]] = {m: [] for m in subscriptions}
    members = sorted(subscriptions, key=lambda m: member_sort_key(m, subscriptions[m].group_instance_id))
    if not members:
        return assignment
    topics = sorted({t for s in subscriptions.values() for t in s.topics}, key=java_str_key)
    pos = 0  # CircularIterator position: the member peek() returns
    for topic in topics:
        n = partitions_per_topic.get(topic)
        if n is None:
            continue
        for p in range(n):
            while topic not in subscriptions[members[pos]].topics:
                pos = (pos + 1) % len(members)
            assignment[members[pos]].append(TopicPartition(topic, p))
            pos = (pos + 1) % len(members)
    return assignment
