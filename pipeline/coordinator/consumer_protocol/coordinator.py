"""The 4.x group coordinator's consumer-group (KIP-848) request handling, timers and commits.

Mirrors `GroupMetadataManager.java` (apache/kafka trunk 1eb7644349cb): `consumerGroupHeartbeat`,
`consumerGroupLeave`, `consumerGroupFenceMember`, the session / rebalance timers, `onNewMetadataImage`,
and `OffsetMetadataManager.validateOffsetCommit` + `ConsumerGroup.validateOffsetCommit`.
Each handler reads the group, collects the records it writes, and only then replays them (so a
failed request changes nothing but the non-persisted refresh deadline, as in Kafka).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pipeline.coordinator.assignors.javaorder import JavaHashMapOrder, java_hashmap_order, java_string_hash

from . import assignors as A
from .group import (
    ConsumerGroup,
    Record,
    compute_subscribed_topic_names,
    current_assignment_record,
    member_metadata_record,
    record,
)
from .javamaps import JavaHashMapCopy
from .members import (
    LEAVE_GROUP_MEMBER_EPOCH,
    LEAVE_GROUP_STATIC_MEMBER_EPOCH,
    Assignment,
    FencedMemberEpoch,
    Member,
    MemberState,
    norm_assignment,
    reconcile,
)

Owned = Mapping[str, Iterable[int]] | None
MockAssignor = Callable[[list[A.MemberSpec]], Mapping[str, Assignment]]


class KafkaApiError(Exception):
    """An ApiException: `name` is the Kafka error name (FENCED_MEMBER_EPOCH, ...)."""

    def __init__(self, name: str, message: str = "") -> None:
        super().__init__(f"{name}: {message}" if message else name)
        self.name = name


@dataclass(frozen=True)
class ConsumerCoordinatorConfig:
    """Broker settings of the consumer protocol (GroupCoordinatorConfig; defaults = Kafka 4.0 defaults)."""

    session_timeout_ms: int = 45000  # group.consumer.session.timeout.ms
    heartbeat_interval_ms: int = 5000  # group.consumer.heartbeat.interval.ms
    max_size: int | None = None  # group.consumer.max.size (None = unbounded)
    metadata_refresh_interval_ms: int = 2147483647
    migration_policy: str = "disabled"
    assignors: tuple[str, ...] = ("uniform", "range")  # group.consumer.assignors; the first is the default
    assignor_mode: str = "real"  # "real" | "mock" | "noop" (the tests' MockPartitionAssignor / NoOpPartitionAssignor)
    client_id: str = "client"
    client_host: str = "/127.0.0.1"


@dataclass(frozen=True)
class HeartbeatResponse:
    """ConsumerGroupHeartbeatResponseData; `assignment` None = not in the response."""

    error: str = "NONE"
    member_id: str | None = None
    member_epoch: int | None = None
    heartbeat_interval_ms: int | None = None
    assignment: Assignment | None = None
    member_id_generated: bool = False


@dataclass(frozen=True)
class CommitResponse:
    error: str = "NONE"
    partition_errors: dict[str, str] = field(default_factory=dict)


@dataclass
class ClassicGroupStub:
    """A classic group seen from the consumer-protocol side: only its state matters here."""

    group_id: str
    state: str = "Empty"
    members: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Timer:
    deadline_ms: int
    seq: int
    kind: str  # "session" | "rebalance"
    group_id: str
    member_id: str
    epoch: int = 0


class ConsumerCoordinator:
    """One coordinator shard serving consumer groups. Time comes only from the caller."""

    def __init__(self, config: ConsumerCoordinatorConfig | None = None, *, topics: Mapping[str, tuple[str, int]] | None = None,
                 mock_assignor: MockAssignor | None = None, member_id_seed: int = 0) -> None:
        self.config = config or ConsumerCoordinatorConfig()
        self.topics: dict[str, tuple[str, int]] = dict(topics or {})  # name -> (topic id, partitions)
        self.groups: dict[str, ConsumerGroup | ClassicGroupStub] = {}
        self.group_configs: dict[str, dict[str, int]] = {}
        self.offsets: dict[str, dict[str, int]] = {}
        self.mock_assignor = mock_assignor
        self.now_ms = 0
        self._timers: dict[tuple[str, str, str], _Timer] = {}
        self._seq = 0
        self._id_counter = member_id_seed
        self.last_records: list[Record] = []  # records written by the last call (or timers fired)
        self.fenced: list[str] = []  # members removed by the timers of the last advance

    # ------------------------------------------------------------------------ clock and timers
    def advance_time(self, now_ms: int) -> list[str]:
        """Fire every timer due at `now_ms` (MockCoordinatorTimer: deadline <= now), in deadline order."""
        self.fenced = []
        self.last_records = []
        if now_ms > self.now_ms:
            self.now_ms = now_ms
        while True:
            due = [t for t in self._timers.values() if t.deadline_ms <= self.now_ms]
            if not due:
                break
            t = min(due, key=lambda x: (x.deadline_ms, x.seq))
            del self._timers[(t.kind, t.group_id, t.member_id)]
            self._fire(t)
        return list(self.fenced)

    def _schedule(self, kind: str, group_id: str, member_id: str, delay_ms: int, epoch: int = 0) -> None:
        self._seq += 1
        self._timers[(kind, group_id, member_id)] = _Timer(self.now_ms + delay_ms, self._seq, kind, group_id,
                                                            member_id, epoch)

    def _cancel(self, kind: str, group_id: str, member_id: str) -> None:
        self._timers.pop((kind, group_id, member_id), None)

    def timer_deadline(self, kind: str, group_id: str, member_id: str) -> int | None:
        t = self._timers.get((kind, group_id, member_id))
        return t.deadline_ms if t else None

    def _fire(self, t: _Timer) -> None:
        group = self.groups.get(t.group_id)
        if not isinstance(group, ConsumerGroup) or t.member_id not in group.members:
            return  # consumerGroupFenceMemberOperation: group or member gone, nothing to do
        member = group.members[t.member_id]
        if t.kind == "rebalance" and member.member_epoch != t.epoch:
            return  # scheduleConsumerGroupRebalanceTimeout: the member left that epoch in time
        records = self._fence_records(group, member)
        self._apply(group, records)
        self.last_records.extend(records)
        self.fenced.append(t.member_id)

    def move_clock(self, now_ms: int | None) -> None:
        """Before an input at `now_ms`: when the clock moves forward, fire the timers due by then (`fenced`
        keeps what they removed); at an unchanged time nothing fires, as in Kafka's tests where timers run
        only when time passes (MockCoordinatorTimer.poll after MockTime.sleep). `last_records` is then
        cleared for the input's own records."""
        if now_ms is not None and now_ms > self.now_ms:
            self.advance_time(now_ms)
        else:
            self.fenced = []
        self.last_records = []

    # ------------------------------------------------------------------------ helpers
    def _session_timeout(self, group_id: str) -> int:
        # GroupMetadataManager.consumerGroupSessionTimeoutMs: dynamic group config, else the broker's
        return int(self.group_configs.get(group_id, {}).get("consumer.session.timeout.ms", self.config.session_timeout_ms))

    def _heartbeat_interval(self, group_id: str) -> int:
        return int(self.group_configs.get(group_id, {}).get("consumer.heartbeat.interval.ms",
                                                            self.config.heartbeat_interval_ms))

    def _apply(self, group: ConsumerGroup, records: list[Record]) -> None:
        for r in records:
            if r.type == "ClassicGroupMetadataTombstone":
                self.groups.pop(group.group_id, None)
                continue
            self.groups[group.group_id] = group
            group.replay(r)

    def _subscription_metadata(self, names: Iterable[str]) -> dict[str, tuple[str, int]]:
        """ModernGroup.computeSubscriptionMetadata: the subscribed topics that exist in the image."""
        return {n: self.topics[n] for n in names if n in self.topics}

    def consumer_group(self, group_id: str) -> ConsumerGroup:
        """GroupMetadataManager.consumerGroup: GROUP_ID_NOT_FOUND if absent or not a consumer group."""
        g = self.groups.get(group_id)
        if not isinstance(g, ConsumerGroup):
            raise KafkaApiError("GROUP_ID_NOT_FOUND", f"Consumer group {group_id} not found.")
        return g

    # ------------------------------------------------------------------------ heartbeat
    def heartbeat(self, group_id: str, member_id: str, member_epoch: int, *, instance_id: str | None = None,
                  rack_id: str | None = None, rebalance_timeout_ms: int = -1,
                  subscribed_topic_names: list[str] | None = None, subscribed_topic_regex: str | None = None,
                  server_assignor: str | None = None, topic_partitions: Owned = None,
                  now_ms: int | None = None) -> HeartbeatResponse:
        """GroupMetadataManager.consumerGroupHeartbeat(context, request): validation, then leave or heartbeat."""
        self.move_clock(now_ms)
        try:
            self._validate(group_id, member_id, member_epoch, instance_id, rack_id, rebalance_timeout_ms,
                           subscribed_topic_names, subscribed_topic_regex, server_assignor, topic_partitions)
            if member_epoch in (LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH):
                return self._leave(group_id, instance_id, member_id, member_epoch)
            return self._heartbeat(group_id, member_id, member_epoch, instance_id, rack_id, rebalance_timeout_ms,
                                   subscribed_topic_names, subscribed_topic_regex, server_assignor, topic_partitions)
        except KafkaApiError as exc:
            self.last_records = []
            return HeartbeatResponse(error=exc.name)

    def _validate(self, group_id, member_id, epoch, instance_id, rack_id, rebalance_timeout_ms, names, regex,
                  server_assignor, owned) -> None:
        """throwIfConsumerGroupHeartbeatRequestIsInvalid (checks in Kafka's order)."""
        def blank(s: str | None) -> bool:  # throwIfEmptyString: set but empty after trim
            return s is not None and not s.strip()

        if group_id is None or blank(group_id):
            raise KafkaApiError("INVALID_REQUEST", "GroupId can't be empty.")
        if blank(instance_id):
            raise KafkaApiError("INVALID_REQUEST", "InstanceId can't be empty.")
        if blank(rack_id):
            raise KafkaApiError("INVALID_REQUEST", "RackId can't be empty.")
        if regex is not None:
            raise KafkaApiError("INVALID_REQUEST", "SubscribedTopicRegex is not supported yet.")
        if epoch > 0 or epoch == LEAVE_GROUP_MEMBER_EPOCH:
            if member_id is None or blank(member_id):
                raise KafkaApiError("INVALID_REQUEST", "MemberId can't be empty.")
        elif epoch == 0:
            if rebalance_timeout_ms == -1:
                raise KafkaApiError("INVALID_REQUEST", "RebalanceTimeoutMs must be provided in first request.")
            if owned is None or len(owned) > 0:
                raise KafkaApiError("INVALID_REQUEST", "TopicPartitions must be empty when (re-)joining.")
            if not names:
                raise KafkaApiError("INVALID_REQUEST", "SubscribedTopicNames must be set in first request.")
        elif epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
            if member_id is None or blank(member_id):
                raise KafkaApiError("INVALID_REQUEST", "MemberId can't be empty.")
            if instance_id is None:
                raise KafkaApiError("INVALID_REQUEST", "InstanceId can't be null.")
        else:
            raise KafkaApiError("INVALID_REQUEST", "MemberEpoch is invalid.")
        if server_assignor is not None and server_assignor not in self.config.assignors:
            raise KafkaApiError("UNSUPPORTED_ASSIGNOR", f"ServerAssignor {server_assignor} is not supported.")

    def _get_or_create_group(self, group_id: str, create: bool, records: list[Record]) -> tuple[ConsumerGroup, bool]:
        """getOrMaybeCreateConsumerGroup: (group, created). A new group is materialized by the replay."""
        g = self.groups.get(group_id)
        if g is None and not create:
            raise KafkaApiError("GROUP_ID_NOT_FOUND", f"Consumer group {group_id} not found.")
        if g is None:
            return ConsumerGroup(group_id), True
        if isinstance(g, ClassicGroupStub):
            # maybeDeleteEmptyClassicGroup: an Empty classic group is deleted (tombstone) and replaced
            if create and g.state == "Empty" and not g.members:
                records.append(record("ClassicGroupMetadataTombstone"))
                return ConsumerGroup(group_id), True
            # online upgrade of a non-empty classic group (validateOnlineUpgrade) is not modelled:
            # with the migration policy disabled Kafka refuses it the same way
            raise KafkaApiError("GROUP_ID_NOT_FOUND", f"Group {group_id} is not a consumer group")
        return g, False

    def _throw_if_full(self, group: ConsumerGroup, member_id: str) -> None:
        """throwIfConsumerGroupIsFull: only a member already in the group may heartbeat a full group."""
        limit = self.config.max_size
        if limit is not None and len(group.members) >= limit and (not member_id or member_id not in group.members):
            raise KafkaApiError("GROUP_MAX_SIZE_REACHED",
                                f"The consumer group has reached its maximum capacity of {limit} members.")

    @staticmethod
    def _is_subset(owned: Owned, assigned: Assignment) -> bool:
        # GroupMetadataManager.isSubset
        if owned is None:
            return False
        for topic, ps in owned.items():
            have = assigned.get(topic)
            if have is None:
                return False
            if any(int(p) not in have for p in ps):
                return False
        return True

    def _check_epoch(self, member: Member, epoch: int, owned: Owned) -> None:
        """throwIfConsumerGroupMemberEpochIsInvalid: a lost response may be retried with the previous
        epoch if the member owns only partitions it is assigned."""
        if epoch > member.member_epoch:
            raise KafkaApiError("FENCED_MEMBER_EPOCH", "greater member epoch than the coordinator's")
        if epoch < member.member_epoch:
            if epoch != member.previous_member_epoch or not self._is_subset(owned, member.assigned):
                raise KafkaApiError("FENCED_MEMBER_EPOCH", "smaller member epoch than the coordinator's")

    def _replacement_records(self, group: ConsumerGroup, old: Member, new: Member, records: list[Record]) -> None:
        """replaceMember: old id's tombstones (timers kept), then the copy, its target and current assignment."""
        records.extend(_remove_member_records(old.member_id))
        records.append(member_metadata_record(new))
        records.append(record("TargetAssignment", member=new.member_id,
                              assignment=dict(group.target_assignment.get(old.member_id, {}))))
        records.append(current_assignment_record(new))

    def _lookup_member(self, group: ConsumerGroup, member_id: str, epoch: int, instance_id: str | None,
                       owned: Owned, create: bool, records: list[Record]) -> Member:
        if instance_id is None:
            # getOrMaybeSubscribeDynamicConsumerGroupMember
            member = group.members.get(member_id)
            if member is None:
                if not create:
                    raise KafkaApiError("UNKNOWN_MEMBER_ID", f"Member {member_id} is not a member of group {group.group_id}.")
                member = Member(member_id)
            self._check_epoch(member, epoch, owned)
            return member
        # getOrMaybeSubscribeStaticConsumerGroupMember
        existing = group.static_member(instance_id)
        if create:
            if existing is None:
                return group.members.get(member_id) or Member(member_id)
            if not existing.uses_classic_protocol and existing.member_epoch != LEAVE_GROUP_STATIC_MEMBER_EPOCH:
                # throwIfInstanceIdIsUnreleased: the instance is still held by a live member
                raise KafkaApiError("UNRELEASED_INSTANCE_ID",
                                    f"instance id {instance_id} is owned by {existing.member_id}")
            new = replace(existing, member_id=member_id, member_epoch=0, previous_member_epoch=0)
            self._replacement_records(group, existing, new, records)
            return new
        if existing is None:  # throwIfStaticMemberIsUnknown
            raise KafkaApiError("UNKNOWN_MEMBER_ID", f"Instance id {instance_id} is unknown.")
        if existing.member_id != member_id:  # throwIfInstanceIdIsFenced
            raise KafkaApiError("FENCED_INSTANCE_ID", f"instance id {instance_id} fenced by {existing.member_id}")
        self._check_epoch(existing, epoch, owned)
        return existing

    def _generate_member_id(self) -> str:
        # Uuid.randomUuid().toString(): deterministic here (a counter-derived UUID)
        self._id_counter += 1
        return str(uuid.UUID(int=(0x848 << 96) | self._id_counter))

    def _heartbeat(self, group_id, member_id, epoch, instance_id, rack_id, rebalance_timeout_ms, names, regex,
                   server_assignor, owned) -> HeartbeatResponse:
        """GroupMetadataManager.consumerGroupHeartbeat (private): update member, maybe bump the group epoch,
        maybe compute a new target assignment, reconcile the member, re-arm its session."""
        now = self.now_ms
        records: list[Record] = []
        create = epoch == 0
        group, created = self._get_or_create_group(group_id, create, records)
        self._throw_if_full(group, member_id)
        generated = False
        if not member_id:
            member_id = self._generate_member_id()
            generated = True
        member = self._lookup_member(group, member_id, epoch, instance_id, owned, create, records)

        # 1. update the member (ConsumerGroupMember.Builder.maybeUpdate*)
        updated = replace(
            member,
            instance_id=instance_id if instance_id is not None else member.instance_id,
            rack_id=rack_id if rack_id is not None else member.rack_id,
            rebalance_timeout_ms=rebalance_timeout_ms if rebalance_timeout_ms != -1 else member.rebalance_timeout_ms,
            server_assignor=server_assignor if server_assignor is not None else member.server_assignor,
            subscribed_topic_names=frozenset(names) if names is not None else member.subscribed_topic_names,
            subscribed_topic_regex=regex if regex is not None else member.subscribed_topic_regex,
            client_id=self.config.client_id, client_host=self.config.client_host, uses_classic_protocol=False,
        )
        bump = False
        if updated != member:  # hasMemberSubscriptionChanged: any change is persisted, a subscription change bumps
            records.append(member_metadata_record(updated))
            bump = (updated.subscribed_topic_names != member.subscribed_topic_names
                    or updated.subscribed_topic_regex != member.subscribed_topic_regex)

        group_epoch = group.group_epoch
        sub_meta = group.subscription_metadata
        all_members = list(group.members.values())
        names_map = compute_subscribed_topic_names(all_members)
        sub_type = _subscription_type(names_map, len(group.members))
        if bump or group.has_metadata_expired(now):
            # the subscription metadata is recomputed on a subscription change or an expired deadline
            names_map = _adjust_counts(compute_subscribed_topic_names(all_members), member, updated)
            sub_meta = self._subscription_metadata(names_map)
            num_members = len(group.members)
            if updated.member_id not in group.members and not (
                    updated.instance_id is not None and updated.instance_id in group.static_members):
                num_members += 1
            sub_type = _subscription_type(names_map, num_members)
            if sub_meta != group.subscription_metadata:
                bump = True
                records.append(record("PartitionMetadata", metadata=dict(sub_meta)))
            if bump:
                group_epoch += 1
                records.append(record("GroupEpoch", epoch=group_epoch))
            group.metadata_refresh_deadline = (now + self.config.metadata_refresh_interval_ms, group_epoch)

        # 2. a new target assignment when the group epoch moved past the target assignment epoch
        if group_epoch > group.assignment_epoch:
            target = self._update_target_assignment(group, group_epoch, member, updated, sub_meta, sub_type, records)
            target_epoch = group_epoch
        else:
            target_epoch = group.assignment_epoch
            target = group.target_for(updated.member_id, updated.instance_id)

        # 3. reconcile the member towards the target (maybeReconcile)
        before_reconcile = updated
        if not updated.is_reconciled_to(target_epoch):
            try:
                updated = reconcile(updated, target_epoch, target, group.current_partition_epoch, owned)
            except FencedMemberEpoch as exc:
                raise KafkaApiError("FENCED_MEMBER_EPOCH", str(exc)) from None
            if updated != before_reconcile:
                records.append(current_assignment_record(updated))
                if updated.state == MemberState.UNREVOKED_PARTITIONS:
                    # scheduleConsumerGroupRebalanceTimeout: bound to the epoch the member must leave
                    self._schedule("rebalance", group_id, updated.member_id, updated.rebalance_timeout_ms,
                                   updated.member_epoch)
                else:
                    self._cancel("rebalance", group_id, updated.member_id)

        self._schedule("session", group_id, member_id, self._session_timeout(group_id))
        self._apply(group, records)
        if created:
            # the handler's group object is not the one the replay materializes: its deadline is lost
            group.metadata_refresh_deadline = (0, 0)
        self.last_records = records

        full = epoch == 0 or (rebalance_timeout_ms != -1 and names is not None and owned is not None)
        assignment = dict(updated.assigned) if full or updated.assigned != member.assigned else None
        return HeartbeatResponse(error="NONE", member_id=updated.member_id, member_epoch=updated.member_epoch,
                                 heartbeat_interval_ms=self._heartbeat_interval(group_id), assignment=assignment,
                                 member_id_generated=generated)

    def _preferred_assignor(self, group: ConsumerGroup, member: Member, updated: Member) -> str:
        """ConsumerGroup.computePreferredServerAssignor(member, updatedMember) (trunk 1eb7644349cb, 3.8.0-3.9.0):
        `new HashMap<>(serverAssignors)`, `compute(old name, decValue)`, `compute(new name, incValue)`, then
        `entrySet().stream().max(comparingByValue())` (the first of equal counts); empty -> the default.
        A tie is settled by that HashMap's iteration order, which `JavaHashMapCopy` reproduces: e.g. with one
        member on uniform, a member joining with range makes range win the 1-1 tie (compute prepends the new
        key to its bucket), and a member re-sending range against one uniform member keeps range."""
        counts = JavaHashMapCopy(list(group.server_assignors), group.server_assignor_counts())
        if member.server_assignor is not None:  # Utils.decValue
            counts.compute(member.server_assignor, -1)
        if updated.server_assignor is not None:  # Utils.incValue
            counts.compute(updated.server_assignor, +1)
        best = counts.max_by_value()
        return best if best is not None else self.config.assignors[0]

    def _update_target_assignment(self, group: ConsumerGroup, group_epoch: int, member: Member, updated: Member,
                                  sub_meta: Mapping[str, tuple[str, int]], sub_type: str,
                                  records: list[Record]) -> Assignment:
        """updateTargetAssignment + TargetAssignmentBuilder.build: run the assignor over every member (the
        updated one replacing its old self, a replaced static member removed), write the changed targets."""
        assignor = self._preferred_assignor(group, member, updated)
        members: dict[str, Member] = dict(group.members)
        current: dict[str, Assignment] = {mid: group.target_assignment.get(mid, {}) for mid in members}
        members[updated.member_id] = updated
        if updated.instance_id is not None:
            previous = group.static_members.get(updated.instance_id)
            current[updated.member_id] = group.target_assignment.get(
                previous if previous is not None and previous != updated.member_id else updated.member_id, {})
            if previous is not None and previous != updated.member_id:
                members.pop(previous, None)
                current.pop(previous, None)
        else:
            current[updated.member_id] = group.target_assignment.get(updated.member_id, {})
        topic_ids = {name: tid for name, (tid, _) in self.topics.items()}
        # TargetAssignmentBuilder.build: memberSpecs = new HashMap<>() filled by members.forEach (the group's
        # TimelineHashMap order), then the updated member put and a replaced static member removed; its key
        # order is GroupSpecImpl.memberIds() (Java String hash buckets, colliding ids in insertion order)
        spec_order = JavaHashMapOrder(java_string_hash)
        for mid in group.member_order:
            spec_order.add(mid)
        spec_order.add(updated.member_id)
        for mid in list(spec_order):
            if mid not in members:
                spec_order.remove(mid)
        member_ids = list(spec_order)
        specs = []
        for mid in member_ids:
            m = members[mid]
            # TopicIds walks the member's HashSet<String> of names (filled in request order; the model keeps a
            # set, so colliding names are put in sorted order: deterministic whatever PYTHONHASHSEED is)
            subscribed = tuple(topic_ids[n] for n in java_hashmap_order(sorted(m.subscribed_topic_names))
                               if n in topic_ids)
            cur = current.get(mid, {})
            specs.append(A.MemberSpec(mid, subscribed, m.instance_id, m.rack_id, _record_map_order(cur)))
        describer = {tid: n for _, (tid, n) in sub_meta.items()}
        try:
            if self.config.assignor_mode == "mock":
                result = dict(self.mock_assignor(specs)) if self.mock_assignor else {}
            elif self.config.assignor_mode == "noop":
                result = {s.member_id: norm_assignment(s.current) for s in specs}
            else:
                result = A.assign(assignor, specs, describer, sub_type, group.inverted_target())
        except A.PartitionAssignorError as exc:
            raise KafkaApiError("UNKNOWN_SERVER_ERROR",
                                f"Failed to compute a new target assignment for epoch {group_epoch}: {exc}") from None
        except A.AssignorStateError as exc:
            # an unchecked exception out of the assignor: the runtime maps it to UNKNOWN_SERVER_ERROR
            # (Errors.forException), nothing is written
            raise KafkaApiError("UNKNOWN_SERVER_ERROR", str(exc)) from None
        # TargetAssignmentBuilder.build writes the changed targets walking memberSpecs.keySet(): a HashMap
        # keyed by member id, so Java's String-hash order (the tests compare these records unordered)
        for mid in member_ids:
            new = norm_assignment(result.get(mid))
            if mid not in group.target_assignment or group.target_assignment[mid] != new:
                records.append(record("TargetAssignment", member=mid, assignment=new))
        records.append(record("TargetAssignmentEpoch", epoch=group_epoch))
        return norm_assignment(result.get(updated.member_id))

    # ------------------------------------------------------------------------ leave and fencing
    def _leave(self, group_id: str, instance_id: str | None, member_id: str, epoch: int) -> HeartbeatResponse:
        """consumerGroupLeave: -1 removes the member; -2 keeps a static member's place (epoch -2)."""
        group = self.consumer_group(group_id)
        if instance_id is None:
            member = group.members.get(member_id)
            if member is None:
                raise KafkaApiError("UNKNOWN_MEMBER_ID", f"Member {member_id} is not a member of group {group_id}.")
            records = self._fence_records(group, member)
        else:
            member = group.static_member(instance_id)
            if member is None:
                raise KafkaApiError("UNKNOWN_MEMBER_ID", f"Instance id {instance_id} is unknown.")
            if member.member_id != member_id:
                raise KafkaApiError("FENCED_INSTANCE_ID", f"instance id {instance_id} fenced by {member.member_id}")
            if epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
                # consumerGroupStaticMemberGroupLeave: one current-assignment record, no bump, timers untouched
                leaving = replace(member, member_epoch=LEAVE_GROUP_STATIC_MEMBER_EPOCH, pending_revocation={})
                records = [current_assignment_record(leaving)]
                self._apply(group, records)
                self.last_records = records
                return HeartbeatResponse(error="NONE", member_id=member.member_id,
                                         member_epoch=LEAVE_GROUP_STATIC_MEMBER_EPOCH, heartbeat_interval_ms=0)
            records = self._fence_records(group, member)
        self._apply(group, records)
        self.last_records = records
        return HeartbeatResponse(error="NONE", member_id=member_id, member_epoch=epoch, heartbeat_interval_ms=0)

    def _fence_records(self, group: ConsumerGroup, member: Member) -> list[Record]:
        """consumerGroupFenceMember: tombstones, subscription metadata without the member, epoch + 1,
        timers cancelled. (The online downgrade to a classic group needs classic members: not modelled.)"""
        records = _remove_member_records(member.member_id)
        names = _adjust_counts(group.subscribed_topic_names(), member, None)
        sub_meta = self._subscription_metadata(names)
        if sub_meta != group.subscription_metadata:
            records.append(record("PartitionMetadata", metadata=dict(sub_meta)))
        records.append(record("GroupEpoch", epoch=group.group_epoch + 1))
        self._cancel("session", group.group_id, member.member_id)
        self._cancel("rebalance", group.group_id, member.member_id)
        return records

    # ------------------------------------------------------------------------ other inputs
    def update_metadata(self, topics: Mapping[str, tuple[str, int]], deleted: Iterable[str] = (),
                        now_ms: int | None = None) -> None:
        """onNewMetadataImage: groups subscribed to a created, changed or deleted topic refresh their metadata."""
        self.move_clock(now_ms)
        changed = set(topics) | set(deleted)
        for name in deleted:
            self.topics.pop(name, None)
        for name, value in topics.items():
            self.topics[name] = (str(value[0]), int(value[1]))
        for g in self.groups.values():
            if isinstance(g, ConsumerGroup) and changed & set(g.subscribed_topic_names()):
                g.metadata_refresh_deadline = (0, 0)  # requestMetadataRefresh: DeadlineAndEpoch.EMPTY

    def set_group_config(self, group_id: str, configs: Mapping[str, int], now_ms: int | None = None) -> None:
        """GroupConfigManager: dynamic `consumer.session.timeout.ms` / `consumer.heartbeat.interval.ms`."""
        self.move_clock(now_ms)
        # GroupConfigManager.updateGroupConfig: the new properties over the broker defaults (not a merge)
        self.group_configs[group_id] = {k: int(v) for k, v in configs.items()}

    def seed_group(self, group_id: str, *, group_epoch: int, assignment_epoch: int, members: list[Member],
                   target_assignment: Mapping[str, Assignment],
                   subscription_metadata: Mapping[str, tuple[str, int]] | None = None) -> None:
        """Load a group from its records (the tests' ConsumerGroupBuilder): no timers, expired refresh deadline."""
        group = ConsumerGroup(group_id)
        # ConsumerGroupBuilder.build walks its HashMap<String, ConsumerGroupMember> (Java String-hash order)
        by_id = {m.member_id: m for m in members}
        members = [by_id[mid] for mid in java_hashmap_order(by_id)]
        records: list[Record] = [member_metadata_record(m) for m in members]
        if subscription_metadata is None:
            subscription_metadata = self._subscription_metadata(
                sorted({t for m in members for t in m.subscribed_topic_names}))
        if subscription_metadata:
            records.append(record("PartitionMetadata", metadata=dict(subscription_metadata)))
        records.append(record("GroupEpoch", epoch=group_epoch))
        for mid, a in target_assignment.items():
            records.append(record("TargetAssignment", member=mid, assignment=norm_assignment(a)))
        records.append(record("TargetAssignmentEpoch", epoch=assignment_epoch))
        records.extend(current_assignment_record(m) for m in members)
        self._apply(group, records)
        self.groups[group_id] = group

    def seed_classic_group(self, group_id: str, state: str = "Empty") -> None:
        self.groups[group_id] = ClassicGroupStub(group_id, state)

    def commit(self, group_id: str, member_id: str, member_epoch: int, offsets: Mapping[str, int], *,
               instance_id: str | None = None, api_version: int = 9, now_ms: int | None = None) -> CommitResponse:
        """OffsetMetadataManager.commitOffset -> validateOffsetCommit, then Group.validateOffsetCommit."""
        self.move_clock(now_ms)
        try:
            g = self.groups.get(group_id)
            if g is None:
                if member_epoch < 0:
                    # a "simple" group created by a manual commit (getOrMaybeCreateClassicGroup)
                    g = ClassicGroupStub(group_id, "Empty")
                    self.groups[group_id] = g
                elif api_version >= 9:
                    raise KafkaApiError("GROUP_ID_NOT_FOUND", f"group {group_id} not found")
                else:
                    raise KafkaApiError("ILLEGAL_GENERATION")
            if isinstance(g, ConsumerGroup):
                self._validate_consumer_commit(g, member_id, member_epoch, api_version)
            else:
                self._validate_classic_commit(g, member_id, member_epoch, instance_id)
        except KafkaApiError as exc:
            return CommitResponse(exc.name, {tp: exc.name for tp in offsets})
        self.offsets.setdefault(group_id, {}).update({tp: int(o) for tp, o in offsets.items()})
        return CommitResponse("NONE", {tp: "NONE" for tp in offsets})

    @staticmethod
    def _validate_consumer_commit(g: ConsumerGroup, member_id: str, epoch: int, api_version: int) -> None:
        """ConsumerGroup.validateOffsetCommit."""
        if epoch < 0 and not g.members:
            return  # admin client / manual assignment committing to an empty group
        m = g.members.get(member_id)
        if m is None:
            raise KafkaApiError("UNKNOWN_MEMBER_ID")
        if not m.uses_classic_protocol and api_version < 9:
            raise KafkaApiError("UNSUPPORTED_VERSION", "OffsetCommit version 9 or above must be used")
        if epoch != m.member_epoch:  # validateMemberEpoch
            raise KafkaApiError("ILLEGAL_GENERATION" if m.uses_classic_protocol else "STALE_MEMBER_EPOCH")

    @staticmethod
    def _validate_classic_commit(g: ClassicGroupStub, member_id: str, generation: int, instance_id: str | None) -> None:
        """ClassicGroup.validateOffsetCommit for a classic group without members."""
        if g.state == "Dead":
            raise KafkaApiError("COORDINATOR_NOT_AVAILABLE")
        if generation < 0 and g.state == "Empty":
            return
        if generation >= 0 or member_id or instance_id is not None:
            raise KafkaApiError("UNKNOWN_MEMBER_ID")
        if g.state != "Empty":
            raise KafkaApiError("UNKNOWN_MEMBER_ID")


def _record_map_order(assignment: Mapping[str, Iterable[int]]) -> dict[str, list[int]]:
    """A member's target assignment in the iteration order Kafka's assignor sees it: the group keeps the
    target replayed from its TargetAssignment record (Assignment.fromRecord, trunk 1eb7644349cb and 3.8-3.9:
    Collectors.toMap -> HashMap<Uuid, ...> of `new HashSet<>(partitions)`), so topics come in HashMap order
    of their Uuids and partitions in HashSet<Integer> order. Topics sharing a bucket keep the order of the record's
    list, which is the order the target was stored in (a seed's order as given, as the tests' mkAssignment
    HashMap fills it; an assignor's output in the order it built the member's map). Topic symbols that are not
    Uuids keep that order too (no Java hash to mirror)."""
    topics = A.java_uuid_order(list(assignment))
    return {t: A.java_int_set_order(sorted(int(p) for p in assignment[t])) for t in topics}


def _remove_member_records(member_id: str) -> list[Record]:
    """GroupMetadataManager.removeMember: the tombstones, in this order."""
    return [record("CurrentAssignmentTombstone", member=member_id),
            record("TargetAssignmentTombstone", member=member_id),
            record("MemberMetadataTombstone", member=member_id)]


def _adjust_counts(counts: dict[str, int], old: Member | None, new: Member | None) -> dict[str, int]:
    """ModernGroup.computeSubscribedTopicNames(old, new): counts without `old`, with `new`."""
    out = dict(counts)
    if old is not None:
        for t in old.subscribed_topic_names:
            if t in out:
                out[t] -= 1
                if out[t] <= 0:
                    del out[t]
    if new is not None:
        for t in new.subscribed_topic_names:
            out[t] = out.get(t, 0) + 1
    return out


def _subscription_type(counts: Mapping[str, int], num_members: int) -> str:
    """ModernGroup.subscriptionType."""
    if not counts:
        return A.HOMOGENEOUS
    return A.HOMOGENEOUS if all(c == num_members for c in counts.values()) else A.HETEROGENEOUS
