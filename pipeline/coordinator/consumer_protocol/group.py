"""A consumer group's hard state, changed only by replaying the records the coordinator writes.

Mirrors `modern/ModernGroup.java`, `modern/consumer/ConsumerGroup.java` and the consumer-group
`replay(...)` methods of `GroupMetadataManager.java` (apache/kafka trunk 1eb7644349cb). As in Kafka,
a request handler reads this state, writes records, and the records are replayed afterwards: a
request that fails writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .javamaps import TimelineHashMapOrder
from .members import LEAVE_GROUP_MEMBER_EPOCH, Assignment, Member, norm_assignment


@dataclass(frozen=True)
class Record:
    """One coordinator record: `type` and its fields (record shapes of FORMAT-KIP848.md §1.3)."""

    type: str
    fields: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.fields).get(key, default)


def record(type_: str, **fields: Any) -> Record:
    return Record(type_, tuple(fields.items()))


# GroupCoordinatorRecordHelpers: the records the consumer-group handlers write
def member_metadata_record(m: Member) -> Record:
    return record("MemberMetadata", member=m.member_id, member_obj=m)


def current_assignment_record(m: Member) -> Record:
    return record("CurrentAssignment", member=m.member_id, member_obj=m)


class ConsumerGroup:
    """ConsumerGroup: members, static members, epochs, target assignment, subscription metadata."""

    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        self.group_epoch = 0
        self.assignment_epoch = 0  # target assignment epoch
        self.members: dict[str, Member] = {}
        self.static_members: dict[str, str] = {}  # instance id -> member id
        self.target_assignment: dict[str, Assignment] = {}
        # topic name -> (topic id, partitions): ConsumerGroupPartitionMetadataValue
        self.subscription_metadata: dict[str, tuple[str, int]] = {}
        # not persisted: a loaded (or newly created) group has an expired deadline (DeadlineAndEpoch.EMPTY)
        self.metadata_refresh_deadline: tuple[int, int] = (0, 0)
        self.partition_epochs: dict[tuple[str, int], int] = {}
        # ConsumerGroup.serverAssignors: a TimelineHashMap<String, Integer> whose iteration order settles a tie
        # in computePreferredServerAssignor (javamaps.py); updated by every updateMember / removeMember
        self.server_assignors = TimelineHashMapOrder()
        # ConsumerGroup.members is a TimelineHashMap too: its iteration order is the order in which
        # TargetAssignmentBuilder.build fills its HashMap of member specs (which decides the order of colliding ids)
        self.member_order = TimelineHashMapOrder()

    # ----------------------------------------------------------------------------- derived state
    @property
    def state(self) -> str:
        """ConsumerGroup.maybeUpdateGroupState."""
        if not self.members:
            return "Empty"
        if self.group_epoch > self.assignment_epoch:
            return "Assigning"
        if any(not m.is_reconciled_to(self.assignment_epoch) for m in self.members.values()):
            return "Reconciling"
        return "Stable"

    def subscribed_topic_names(self) -> dict[str, int]:
        """ModernGroup.subscribedTopicNames: topic name -> number of subscribed members."""
        return compute_subscribed_topic_names(self.members.values())

    def static_member(self, instance_id: str | None) -> Member | None:
        if instance_id is None or instance_id not in self.static_members:
            return None
        return self.members.get(self.static_members[instance_id])

    def current_partition_epoch(self, topic_id: str, partition: int) -> int:
        """ConsumerGroup.currentPartitionEpoch: the epoch of the member owning it, -1 when free."""
        return self.partition_epochs.get((topic_id, int(partition)), -1)

    def target_for(self, member_id: str, instance_id: str | None) -> Assignment:
        """ConsumerGroup.targetAssignment(memberId, instanceId): a static member reads its instance's target."""
        if instance_id is None:
            return self.target_assignment.get(member_id, {})
        previous = self.static_members.get(instance_id)
        if previous is not None:
            return self.target_assignment.get(previous, {})
        return {}

    def server_assignor_counts(self) -> dict[str, int]:
        """ConsumerGroup.serverAssignors: server assignor name -> members naming it."""
        return dict(self.server_assignors.counts)

    def has_metadata_expired(self, now_ms: int) -> bool:
        """ModernGroup.hasMetadataExpired: deadline reached, or a bump that set it was not written."""
        deadline, epoch = self.metadata_refresh_deadline
        return now_ms >= deadline or self.group_epoch < epoch

    def inverted_target(self) -> set[tuple[str, int]]:
        return {(t, p) for a in self.target_assignment.values() for t, ps in a.items() for p in ps}

    # ----------------------------------------------------------------------------- replay
    def replay(self, rec: Record) -> None:
        kind = rec.type
        if kind == "MemberMetadata":
            new = rec.get("member_obj")
            old = self.members.get(new.member_id)
            if old is not None:  # ConsumerGroupMember.Builder.updateWith(ConsumerGroupMemberMetadataValue)
                new = replace(old, instance_id=new.instance_id, rack_id=new.rack_id, client_id=new.client_id,
                              client_host=new.client_host, subscribed_topic_names=new.subscribed_topic_names,
                              subscribed_topic_regex=new.subscribed_topic_regex,
                              server_assignor=new.server_assignor, rebalance_timeout_ms=new.rebalance_timeout_ms,
                              uses_classic_protocol=new.uses_classic_protocol)
            else:
                new = replace(new, member_epoch=0, previous_member_epoch=-1, state="STABLE", assigned={},
                              pending_revocation={})
            self._update_member(new)
        elif kind == "MemberMetadataTombstone":
            self._remove_member(rec.get("member"))
        elif kind == "PartitionMetadata":
            self.subscription_metadata = dict(rec.get("metadata"))
        elif kind == "GroupEpoch":
            self.group_epoch = int(rec.get("epoch"))
        elif kind == "TargetAssignment":
            self.target_assignment[rec.get("member")] = norm_assignment(rec.get("assignment"))
        elif kind == "TargetAssignmentTombstone":
            self.target_assignment.pop(rec.get("member"), None)
        elif kind == "TargetAssignmentEpoch":
            self.assignment_epoch = int(rec.get("epoch"))
        elif kind == "CurrentAssignment":
            cur = rec.get("member_obj")
            old = self.members.get(cur.member_id) or Member(cur.member_id)
            # Builder.updateWith(ConsumerGroupCurrentMemberAssignmentValue)
            self._update_member(replace(old, member_epoch=cur.member_epoch,
                                        previous_member_epoch=cur.previous_member_epoch, state=cur.state,
                                        assigned=dict(cur.assigned), pending_revocation=dict(cur.pending_revocation)))
        elif kind == "CurrentAssignmentTombstone":
            old = self.members.get(rec.get("member"))
            if old is not None:  # the replay keeps the member at epoch -1 with nothing until its metadata goes
                self._update_member(replace(old, member_epoch=LEAVE_GROUP_MEMBER_EPOCH,
                                            previous_member_epoch=LEAVE_GROUP_MEMBER_EPOCH, assigned={},
                                            pending_revocation={}))
        else:
            raise ValueError(f"cannot replay record type {kind!r}")

    def _update_member(self, new: Member) -> None:
        """ConsumerGroup.updateMember (partition epochs follow the member's assigned/pending partitions)."""
        old = self.members.get(new.member_id)
        self._drop_partition_epochs(old)
        self.members[new.member_id] = new
        self.member_order.put(new.member_id)
        self._update_server_assignors(old, new)
        for a in (new.assigned, new.pending_revocation):
            for t, ps in a.items():
                for p in ps:
                    self.partition_epochs[(t, p)] = new.member_epoch
        if new.instance_id is not None:
            self.static_members[new.instance_id] = new.member_id

    def _remove_member(self, member_id: str) -> None:
        """ConsumerGroup.removeMember."""
        old = self.members.pop(member_id, None)
        self.member_order.remove(member_id)
        self._drop_partition_epochs(old)
        self._update_server_assignors(old, None)
        if old is not None and old.instance_id is not None:
            self.static_members.pop(old.instance_id, None)

    def _update_server_assignors(self, old: Member | None, new: Member | None) -> None:
        # ConsumerGroup.maybeUpdateServerAssignors: compute(old name, decValue), then compute(new name, incValue)
        if old is not None and old.server_assignor is not None:
            self.server_assignors.compute(old.server_assignor, -1)
        if new is not None and new.server_assignor is not None:
            self.server_assignors.compute(new.server_assignor, +1)

    def _drop_partition_epochs(self, old: Member | None) -> None:
        if old is None:
            return
        for a in (old.assigned, old.pending_revocation):
            for t, ps in a.items():
                for p in ps:
                    if self.partition_epochs.get((t, p)) == old.member_epoch:
                        del self.partition_epochs[(t, p)]


def compute_subscribed_topic_names(members) -> dict[str, int]:
    counts: dict[str, int] = {}
    for m in members:
        for t in m.subscribed_topic_names:
            counts[t] = counts.get(t, 0) + 1
    return counts
