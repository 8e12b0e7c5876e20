"""AbstractStickyAssignor.RackInfo (Kafka 3.8.0): consumer racks, replica racks per partition and the
rack-matching helpers of the sticky assignors.

Rack-aware sticky assignment is used only when some consumer has a rack, consumer and replica racks
overlap, and some partition is not on every rack (or the test-only preferRackAwareLogic is set),
as in AbstractPartitionAssignor.useRackAwareAssignment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .model import Subscription, TopicPartition


class RackInfo:
    def __init__(self, ppt: Mapping[str, int], subscriptions: Mapping[str, Subscription], order: Sequence[str],
                 partition_racks: Mapping[str, Sequence[frozenset[str]]] | None, prefer_rack_aware: bool = False) -> None:
        consumers_by_rack: dict[str, list[str]] = {}
        for member in order:  # the subscriptions HashMap walk
            rack = subscriptions[member].rack
            if rack:
                consumers_by_rack.setdefault(rack, []).append(member)
        racks_of: dict[TopicPartition, frozenset[str]] = {}
        all_partition_racks: set[str] = set()
        if consumers_by_rack:
            known = partition_racks or {}
            for topic, n in ppt.items():
                per = known.get(topic, ())
                for p in range(n):
                    racks = frozenset(r for r in per[p] if r) if p < len(per) else frozenset()
                    racks_of[TopicPartition(topic, p)] = racks
                    all_partition_racks |= racks
        consumer_racks = set(consumers_by_rack)
        use = bool(consumer_racks) and not consumer_racks.isdisjoint(all_partition_racks) and (
            prefer_rack_aware or any(r != all_partition_racks for r in racks_of.values()))
        if use:
            self.consumer_racks = {m: rack for rack, ms in consumers_by_rack.items() for m in ms}
            self.partition_racks = racks_of
        else:
            self.consumer_racks = {}
            self.partition_racks = {}
        # computed from the replica racks even when rack-aware assignment is off (as in Kafka)
        self.num_consumers_by_partition = {
            tp: sum(len(consumers_by_rack.get(r, ())) for r in racks) for tp, racks in racks_of.items()}

    def racks_mismatch(self, consumer: str, tp: TopicPartition) -> bool:
        rack = self.consumer_racks.get(consumer)
        if rack is None:
            return False
        replicas = self.partition_racks.get(tp)
        return replicas is None or rack not in replicas

    def sort_partitions_by_rack_consumers(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        if not self.num_consumers_by_partition:
            return partitions
        # List.sort is stable: partitions with fewer same-rack consumers first
        return sorted(partitions, key=lambda tp: self.num_consumers_by_partition.get(tp, 0))

    def next_rack_consumer(self, tp: TopicPartition, consumers: list[str], first: int) -> int:
        racks = self.partition_racks.get(tp)
        if not racks:
            return -1
        n = len(consumers)
        for i in range(n):
            index = (first + i) % n
            rack = self.consumer_racks.get(consumers[index])
            if rack is not None and rack in racks:
                return index
        return -1
