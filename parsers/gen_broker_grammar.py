"""Generate `parsers/grammars/broker.lark` and `parsers/broker_rules.py` from the broker rows of
the message-template catalogue (`kafka-coordinator-log-templates.tsv`).

Why generated: the catalogue lists ~320 distinct broker coordinator templates across 0.9 .. 4.x.
Writing each as a hand-made Lark rule invites typos in the literal text; generating them keeps the
grammar a faithful, reviewable copy of the catalogue (each rule carries a comment naming the Kafka
source file and version range it mirrors) while the few judgement calls (what each `{}` means, which
event kind a family maps to) live here, in one place, as small tables.

Run:  python -m parsers.gen_broker_grammar [path/to/kafka-coordinator-log-templates.tsv]
The outputs are committed; the generator is only re-run when the catalogue changes.
"""

from __future__ import annotations

import csv
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_TSV = HERE.parent.parent / "shared" / "formats" / "kafka-coordinator-log-templates.tsv"

# event class of the catalogue -> event kind (parsers.events.Kind values)
CLASS_KIND = {
    "rebalance_prepare": "broker_rebalance_preparing",
    "group_stabilized": "broker_group_stabilized",
    "assignment_received": "broker_assignment_received",
    "member_removed": "broker_member_removed",
    "member_joined": "broker_member_joined",
    "member_fenced": "broker_member_fenced",
    "group_empty": "broker_group_empty",
    "group_dead": "broker_group_dead",
    "group_load": "broker_group_loaded",  # "unload" templates -> broker_group_unloaded (see kind_for)
    "offsets_expired": "broker_offsets_expired",
    "rebalance_failed": "broker_rebalance_failed",
    "subscription_change": "broker_subscription_changed",
    "offset_commit": "broker_offset_committed",
    "offset_commit_failed": "broker_offset_commit_failed",
    "offset_fetch": "broker_offset_fetched",
    "group_state_change": "broker_group_state_changed",
    "group_migration": "broker_group_migrated",
    "group_metadata_write": "broker_group_metadata_write_failed",
    "coordinator_lifecycle": "broker_coordinator_lifecycle",
    "coordinator_runtime": "broker_coordinator_runtime",
}

_UNLOAD = re.compile(r"[Uu]nload|no longer a coordinator|Resigned|on follower transition|Removed \{\} cached")


def kind_for(event_class: str, template: str) -> str:
    kind = CLASS_KIND[event_class]
    if kind == "broker_group_loaded" and _UNLOAD.search(template):
        return "broker_group_unloaded"
    if kind == "broker_coordinator_lifecycle" and template.startswith("Elected as the group coordinator"):
        return "broker_group_loaded"
    if kind == "broker_coordinator_lifecycle" and template.startswith("Resigned as the group coordinator"):
        return "broker_group_unloaded"
    return kind


# Hole naming: (regex on the literal text before the hole, regex on the literal after it, name).
# First match wins. Names that are Event fields go to the event; the others land in `extra`.
# A name ending in "#" is an integer. "tp" is a TopicPartition ("__consumer_offsets-12").
_HOLE_RULES: list[tuple[str, str, str]] = [
    (r"\[GroupId $|\[GroupId=$|\[Group $", r"", "group_id"),
    (r"Member\[group\.instance\.id $", r"", "instance_id"),
    (r"member\.id $|member\.id: $|memberId: $", r"", "member_id"),
    (r"group\.instance\.id: $|groupInstanceId: $", r"", "instance_id"),
    (r"existing memberId=$|current memberId=$", r"", "existing_member_id"),
    (r"Request memberId=$|with memberId=$", r"", "member_id"),
    (r"groupInstanceId=$|[Ii]nstance id $|static member $|^Static member $", r"", "instance_id"),
    (r"Static member $", r"\.groupInstanceId", "instance_id"),
    (r"replace the existing member $|old member id $|old member $|Replacing previously mapped member $|"
     r"owned by member $|existing member $|is owned by member $", r"", "old_member_id"),
    (r"new leader $", r"", "new_leader"),
    (r"^Member $", r" was elected", "new_leader"),
    (r"from leader $", r"", "leader"),
    (r"with leader: $", r"", "leader"),
    (r"[Mm]ember id $|[Mm]ember $|[Mm]ember with id $|consumer $|new member $|Member $", r"", "member_id"),
    (r"(?:re)?joining member $", r"", "member_id"),
    (r"[Mm]embers $", r"", "members_list"),
    (r"generation $|generation=$|old generation $|with generation $", r"", "generation#"),
    (r"old generation $", r"", "generation#"),
    (r"epoch=$", r"", "member_epoch#"),
    (r"previousEpoch=$", r"", "previous_member_epoch#"),
    (r"group epoch to $|for epoch $|for group epoch $|epoch $|in epoch $|current epoch $|from epoch $", r"", "epoch#"),
    (r"with epoch $|coordinator epoch $|for coordinator epoch $|current epoch is $", r"", "epoch#"),
    (r"is larger than or equals to $", r"", "other_epoch#"),
    (r"state=$", r"", "member_state"),
    (r"in state $|in unexpected group state $|to the $|to $|context is in $|in $", r" state", "state"),
    (r"in state $|in unexpected group state $", r"", "state"),
    (r"transitioned from $", r"", "from_state"),
    (r"(?:Member \{\} )?transitioned from \{\} to $", r"", "to_state"),
    (r"\(reason: $|client reason: $", r"", "reason"),
    (r"[Ww]ith \{\} members\.?$|has $", r" members", "members#"),
    (r"with $", r" members", "members#"),
    (r"members, $", r" of which are static", "static_members#"),
    (r"within $", r"ms", "timeout_ms#"),
    (r" in $|in $", r"ms|ms\.| milliseconds", "duration_ms#"),
    (r"delay of $", r"ms", "delay_ms#"),
    (r"where $", r"ms was spent", "scheduler_ms#"),
    (r"of which $", r" milliseconds was spent", "scheduler_ms#"),
    (r"Loaded $", r" records", "records#"),
    (r"total to $", r" bytes", "bytes#"),
    (r"larger \($", r" bytes", "bytes#"),
    (r"buffer size \($|load\.buffer\.size \($", r" bytes", "buffer_bytes#"),
    (r"[Ff]ailed due to: $|failed due to $|due to: $|due to $|due to `$|malformed: $", r"", "error"),
    (r"returning UNKNOWN|unexpected error: $", r"", "error"),
    (r"for partition \{\}-$|partition=\{\}-$|topic \{\}, partition $|and partition $|partition $", r"", "partition#"),
    (r"for partition $|partition=$", r"-", "topic"),
    (r"with topic $", r"", "topic"),
    (r"with offset $|and offset $|record offset $|with offset \{\} committed, but not loaded since its offset is older than current offset $", r"", "offset#"),
    (r"producer id=?$|producer $", r"", "producer_id"),
    (r"producer epoch=?$", r"", "producer_epoch"),
    (r"the $", r" protocol", "protocol"),
    (r"with '$", r"' assignor", "assignor"),
    (r"for the timer $|for timer $", r"", "timer"),
    (r"[Gg]roup '?$|group: $|of group $|group $|[Gg]roup $|generic group $|consumer group $|"
     r"classic group $|for the group $|after group $|for group $|in group $|for an unknown classic group $|"
     r"the classic group $|the consumer group $", r"", "group_id"),
    (r"^(?:Member|Pending member) \{\} (?:has left )?group $|was not found in $|of $", r"", "group_id"),
    (r"incremented to $|high watermark of \{\} to $|updated for \{\} to $|offset of \{\} to $", r"", "offset#"),
    (r"from $|for $|to $|in $|of $|coordinator $|partition $|event $|operation $|timer $|records to $", r"", "tp"),
]
_HOLE_RULES_C = [(re.compile(p), re.compile("^(?:" + n + ")"), name) for p, n, name in _HOLE_RULES]

# Per-template overrides where the context rules above guess wrong (template -> hole names).
OVERRIDES: dict[str, list[str]] = {
    "Preparing to rebalance group {} with old generation {} ({}-{})":
        ["group_id", "generation#", "offsets_topic", "offsets_partition#"],
    "Preparing to rebalance group {} in state {} with old generation {} ({}-{}) (reason: {})":
        ["group_id", "state", "generation#", "offsets_topic", "offsets_partition#", "reason"],
    "Stabilized group {} generation {} ({}-{})": ["group_id", "generation#", "offsets_topic", "offsets_partition#"],
    "Stabilized group {} generation {} ({}-{}) with {} members":
        ["group_id", "generation#", "offsets_topic", "offsets_partition#", "members#"],
    "Group {} with generation {} is now empty ({}-{})":
        ["group_id", "generation#", "offsets_topic", "offsets_partition#"],
    "Sending empty assignment to member {} of {} for generation {} with no errors":
        ["member_id", "group_id", "generation#"],
    "Setting empty assignments for members {} of {} for generation {}": ["members_list", "group_id", "generation#"],
    "Setting empty assignments for members {} of {} for generation {}.": ["members_list", "group_id", "generation#"],
    "{} Member with unknown member id joins group {} in {} state. Created a new member id {} for this member and add to the group.":
        ["membership", "group_id", "state", "member_id"],
    # GroupMetadata.scala 2.5 .. 2.7 interpolates `$member.groupInstanceId`: Scala prints the whole
    # MemberMetadata(memberId=.., groupInstanceId=Some(..), ..) and then the literal ".groupInstanceId"
    "Static member {}.groupInstanceId of group {} loaded with member id {} at generation {}.":
        ["member_id", "group_id", "member_id", "generation#"],
    "Adding new static member {} to group {} with member id {}.": ["instance_id", "group_id", "member_id"],
    "Static member {} of group {} with unknown member id rejoins, assigning new member id {}, while old member id {} will be removed.":
        ["instance_id", "group_id", "member_id", "old_member_id"],
    "Static member {} with unknown member id rejoins, assigning new member id {}, while old member {} will be removed.":
        ["instance_id", "member_id", "old_member_id"],
    "Static member joins during {} stage will not trigger rebalance.": ["state"],
    "Failed to persist metadata for group {} static member {} with group instance id {} due to {}. Reverting to old member id {}.":
        ["group_id", "member_id", "instance_id", "error", "old_member_id"],
    "Failed to write empty metadata for group {}: {}": ["group_id", "error"],
    "Failed to persist metadata for group {}: {}": ["group_id", "error"],
    "Failed to invoke join callback for {} due to {}.": ["member_id", "error"],
    "Failed to invoke sync callback for {} due to {}.": ["member_id", "error"],
    "Offset commit {} from group {} consumer {} with generation {} failed when appending to log due to {}":
        ["offsets", "group_id", "member_id", "generation#", "error"],
    "Offset commit {} from group {}, consumer {} with generation {} failed when appending to log due to {}":
        ["offsets", "group_id", "member_id", "generation#", "error"],
    "Getting offsets {} for group {}.": ["partitions_list", "group_id"],
    "Getting offsets of {} for group {}.": ["partitions_list", "group_id"],
    "Initialized offsets {} for group {}": ["offsets", "group_id"],
    "Expired offsets from group '{}': {}": ["group_id", "offsets"],
    "Found {} expired offsets.": ["count#"],
    "Removed {} expired offsets in {} milliseconds.": ["count#", "duration_ms#"],
    "Marked {} offsets in {} for deletion.": ["count#", "tp"],
    "Removing expired offset and metadata for {}: {}": ["key", "offsets"],
    "Removing expired offset and metadata for {}, {}: {}": ["group_id", "key", "offsets"],
    "Removing expired/deleted offset and metadata for {}, {}: {}": ["group_id", "key", "offsets"],
    "Failed to mark {} expired offsets for deletion in {}.": ["count#", "tp"],
    "Failed to append {} tombstones to {} for expired offsets and/or metadata for group {}.": ["count#", "tp", "group_id"],
    "Successfully appended {} tombstones to {} for expired offsets and/or metadata for group {}": ["count#", "tp", "group_id"],
    "Failed to append {} tombstones to {} for expired/deleted offsets and/or metadata for group {}.": ["count#", "tp", "group_id"],
    "Successfully appended {} tombstones to {} for expired/deleted offsets and/or metadata for group {}": ["count#", "tp", "group_id"],
    "[GroupId {}] Expired offset for partition={}-{}": ["group_id", "topic", "partition#"],
    "[GroupId {}] Removing expired offset and metadata for {}": ["group_id", "key"],
    "The following groups were deleted: {}": ["groups"],
    "The following groups were deleted: {}. A total of {} offsets were removed.": ["groups", "count#"],
    "Removed {} offsets associated with deleted partitions: {}.": ["count#", "partitions_list"],
    "The following offsets of the group {} were deleted: {}. A total of {} offsets were removed.":
        ["group_id", "partitions_list", "count#"],
    "Could not delete offsets for deleted partitions {} due to: {}.": ["partitions_list", "error"],
    "Generated {} tombstone records while cleaning up group metadata in {} milliseconds.": ["count#", "duration_ms#"],
    "Generated {} tombstone records in {} milliseconds while deleting offsets for partitions {}.":
        ["count#", "duration_ms#", "partitions_list"],
    "Removed group {} with an unknown group type {}.": ["group_id", "group_type"],
    "Loaded group {} with an unknown group type {}.": ["group_id", "group_type"],
    "onUnloaded group with an unknown group type {}.": ["group_type"],
    "Failed to mark group {} as deleted in {}.": ["group_id", "tp"],
    "Group {} removed from the metadata cache and marked for deletion in {}.": ["group_id", "tp"],
    "Removed offset for {} due to tombstone entry.": ["key"],
    "Ignoring redundant tombstone for {}.": ["key"],
    "Loaded offset {} for {}.": ["offsets", "key"],
    "Loaded group metadata {} with offsets {} and pending offsets {}": ["group_metadata", "offsets", "pending_offsets"],
    "Loaded generic group {} with {} members.": ["group_id", "members#"],
    "Loaded consumer group {} with {} members.": ["group_id", "members#"],
    "Loaded classic group {} with {} members.": ["group_id", "members#"],
    "Loaded member {} in group {} with generation {}.": ["member_id", "group_id", "generation#"],
    "Loaded member {} in generic group {}.": ["member_id", "group_id"],
    "Loaded member {} in consumer group {}.": ["member_id", "group_id"],
    "Loaded member {} in classic group {}.": ["member_id", "group_id"],
    "Attempt to load group {} from log with generation {} failed because there is already a cached group with generation {}":
        ["group_id", "generation#", "cached_generation#"],
    "BrokerId {} is no longer a coordinator for the group {}. Proceeding cleanup for other alive groups":
        ["broker_id#", "group_id"],
    "Group {} has moved away from {} after transaction marker was written but before the cache was updated. The cache on the new group owner will be updated instead.":
        ["group_id", "broker_id#"],
    "Removed {} cached groups for {} on follower transition.": ["count#", "tp"],
    "Removed {} cached offsets for {} on follower transition.": ["count#", "tp"],
    "Finished unloading {}. Removed {} cached offsets and {} cached groups.": ["tp", "offsets_removed#", "groups_removed#"],
    "Finished unloading {} for coordinator epoch {}. Removed {} cached offsets and {} cached groups.":
        ["tp", "epoch#", "offsets_removed#", "groups_removed#"],
    "Finished loading offsets from {} in {} milliseconds.": ["tp", "duration_ms#"],
    "Finished loading offsets and group metadata from {} in {} milliseconds.": ["tp", "duration_ms#"],
    "Finished loading offsets and group metadata from {} in {} milliseconds, of which {} milliseconds was spent in the scheduler.":
        ["tp", "duration_ms#", "scheduler_ms#"],
    "Finished loading offsets and group metadata from {} in {} milliseconds for epoch {}, of which {} milliseconds was spent in the scheduler.":
        ["tp", "duration_ms#", "epoch#", "scheduler_ms#"],
    "Finished loading of metadata from {} with epoch {} in {}ms where {}ms was spent in the scheduler. Loaded {} records which total to {} bytes.":
        ["tp", "epoch#", "duration_ms#", "scheduler_ms#", "records#", "bytes#"],
    "Finished loading of metadata from {} with epoch {} and LoadSummary={}.": ["tp", "epoch#", "summary"],
    "Loaded offsets and group metadata from {} with buffer larger ({} bytes) than configured offsets.load.buffer.size ({} bytes)":
        ["tp", "bytes#", "buffer_bytes#"],
    "Loaded metadata from {} with buffer larger ({} bytes) than configured buffer size ({} bytes).":
        ["tp", "bytes#", "buffer_bytes#"],
    "Unknown record type {} while loading offsets and group metadata from {}. Ignoring it. It could be a left over from an aborted upgrade.":
        ["record_type", "tp"],
    "Unknown message key with version {} while loading offsets and group metadata from {}. Ignoring it. It could be a left over from an aborted upgrade.":
        ["record_type", "tp"],
    "Received notification of heartbeat expiration for member {} after group {} had already been unloaded or deleted.":
        ["member_id", "group_id"],
    "Received notification of heartbeat expiration for member {} after group {} had already been deleted or upgraded.":
        ["member_id", "group_id"],
    "TxnOffsetCommit for producer {} and group {} with offset {} committed and loaded into the cache.":
        ["producer_id", "group_id", "offsets"],
    "TxnOffsetCommit for producer {} and group {} with offset {} committed, but not loaded since its offset is older than current offset {}.":
        ["producer_id", "group_id", "offsets", "current_offsets"],
    "TxnOffsetCommit for producer {} and group {} with offsets {} aborted": ["producer_id", "group_id", "offsets"],
    "TxnOffsetCommit for producer {} and group {} with offsets {} is pending": ["producer_id", "group_id", "offsets"],
    "TxnOffsetCommit for producer {} and group {} with offsets {} failed to be appended to the log":
        ["producer_id", "group_id", "offsets"],
    "group: {} with leader: {} has received offset commits from consumers as well as transactional producers. Mixing both types of offset commits will generally result in surprises and should be avoided.":
        ["group_id", "leader"],
    "[GroupId {}] Committing offsets {} for partition {}-{} from member {} with leader epoch {}.":
        ["group_id", "offset#", "topic", "partition#", "member_id", "leader_epoch"],
    "[GroupId {}] Committing transactional offsets {} for partition {}-{} from member {} with leader epoch {}.":
        ["group_id", "offset#", "topic", "partition#", "member_id", "leader_epoch"],
    "Committed transaction offset commit for producer id {} in group {} with topic {}, partition {}, and offset {}.":
        ["producer_id", "group_id", "topic", "partition#", "offset#"],
    "Committed transactional offset commit {} for producer id {} in group {} with topic {} and partition {}.":
        ["offsets", "producer_id", "group_id", "topic", "partition#"],
    "Skipped the materialization of transactional offset commit {} for producer id {} in group {} with topic {}, partition {} since its record offset {} is smaller than the record offset {} of the last committed offset.":
        ["offsets", "producer_id", "group_id", "topic", "partition#", "record_offset#", "last_record_offset#"],
    "Replaying offset commit with key {}, value {}": ["key", "value"],
    "Replaying transactional offset commit with producer id {}, key {}, value {}": ["producer_id", "key", "value"],
    "Update committed offset of {} to {}.": ["tp", "offset#"],
    "Creating simple consumer group {} via manual offset commit.": ["group_id"],
    "Could not fetch offsets for group {} (not group coordinator).": ["group_id"],
    "Could not fetch offsets for group {} (not group coordinator)": ["group_id"],
    "Could not fetch offsets for group {} (not offset coordinator).": ["group_id"],
    "Appending metadata message for group {} generation {} failed due to unexpected error: {}":
        ["group_id", "generation#", "error"],
    "Appending metadata message for group {} generation {} failed due to {}, returning UNKNOWN error code to the client":
        ["group_id", "generation#", "error"],
    "Metadata from group {} with generation {} failed when appending to log due to {}": ["group_id", "generation#", "error"],
    "Group {} generation {} is dead and removed": ["group_id", "generation#"],
    "Group {} transitioned to Dead in generation {}": ["group_id", "generation#"],
    "Attempt to add rejoining member {} of group {} in unexpected group state {}": ["member_id", "group_id", "state"],
    "Received unexpected notification of sync expiration after group {} already transitioned to the {} state.":
        ["group_id", "state"],
    "Received unexpected notification of sync expiration after group {} already transitioned to {} state.":
        ["group_id", "state"],
    "Received unexpected notification of sync expiration for {} with an old generation {} while the group has {}.":
        ["group_id", "generation#", "current_generation#"],
    "[GroupId {}] Ignoring revocation timeout for {} because the member state does not match the expected state.":
        ["group_id", "member_id"],
    "[GroupId {}] Ignoring rebalance timeout for {} because the member left the epoch {}.":
        ["group_id", "member_id", "member_epoch#"],
    "[GroupId {}] Could not fence {} because the group does not exist.": ["group_id", "member_id"],
    "[GroupId {}] Could not fence {} because the member does not exist.": ["group_id", "member_id"],
    "[GroupId {}] Could not fence {}} because the group does not exist.": ["group_id", "member_id"],
    "[GroupId {}] Member {} fenced from the group because {}.": ["group_id", "member_id", "reason"],
    "[GroupId {}] Member {} fenced from the group because it failed to transition from epoch {} within {}ms.":
        ["group_id", "member_id", "member_epoch#", "timeout_ms#"],
    "Request memberId={} for static member with groupInstanceId={} is fenced by existing memberId={} during operation {}":
        ["member_id", "instance_id", "existing_member_id", "operation"],
    "Request memberId={} for static member with groupInstanceId={} is fenced by current memberId={} during operation {}":
        ["member_id", "instance_id", "existing_member_id", "operation"],
    "Group leader [memberId: {}, groupInstanceId: {}] failed to join before the rebalance timeout. Member {} was elected as the new leader.":
        ["member_id", "instance_id", "new_leader"],
    "Group leader [member.id: {}, group.instance.id: {}] failed to join before rebalance timeout, while new leader {} was elected.":
        ["member_id", "instance_id", "new_leader"],
    "Cannot complete join phase of group {} because not all the members have rejoined. Members={}, AwaitingJoinResponses={}, PendingJoinMembers={}.":
        ["group_id", "members#", "awaiting_join#", "pending_join#"],
    "Cannot complete join phase of group {} because the group is in {} state.": ["group_id", "state"],
    "Failed to parse Consumer Protocol {}:{} of group {}. Consumer group coordinator is not aware of the subscribed topics.":
        ["protocol_type", "protocol", "group_id"],
    "[GroupId {}] Member {} updated its subscribed regex to: {}.": ["group_id", "member_id", "regex"],
    "[GroupId {}] Member {} updated its subscribed topics to: {}.": ["group_id", "member_id", "topics"],
    "[GroupId {}] Computed new subscription metadata: {}.": ["group_id", "subscription_metadata"],
    "[GroupId {}] Couldn't parse regular expression '{}' due to `{}`. Ignoring it.": ["group_id", "regex", "error"],
    "[GroupId {}] Received updated regular expressions: {}.": ["group_id", "regex"],
    "[GroupId {}] Refreshing regular expressions: {}": ["group_id", "regex"],
    "[GroupId {}] Scanned {} topics to refresh regular expressions {} in {}ms.":
        ["group_id", "count#", "regex", "duration_ms#"],
    # the epoch of a target assignment is the group epoch (GroupMetadataManager.java 3.7+)
    "[GroupId {}] Computed a new target assignment for epoch {}: {}.": ["group_id", "group_epoch#", "assignment"],
    "[GroupId {}] Computed a new target assignment for epoch {} with '{}' assignor: {}.":
        ["group_id", "group_epoch#", "assignor", "assignment"],
    "[GroupId {}] Computed a new target assignment for epoch {} with '{}' assignor in {}ms: {}.":
        ["group_id", "group_epoch#", "assignor", "duration_ms#", "assignment"],
    "[GroupId {}] Computed a new target assignment for epoch {} with '{}' assignor in {}ms.":
        ["group_id", "group_epoch#", "assignor", "duration_ms#"],
    "[GroupId {}] Bumped group epoch to {}.": ["group_id", "group_epoch#"],
    "[GroupId {}] Member {} new assignment state: epoch={}, previousEpoch={}, state={}, assignedPartitions={} and revokedPartitions={}.":
        ["group_id", "member_id", "member_epoch#", "previous_member_epoch#", "member_state", "assigned", "revoked"],
    "[GroupId {}] Member {} new assignment state: epoch={}, previousEpoch={}, state={}, assignedPartitions={}.":
        ["group_id", "member_id", "member_epoch#", "previous_member_epoch#", "member_state", "assigned"],
    "Assignment received from leader {} for group {} for generation {}. The group has {} members, {} of which are static.":
        ["leader", "group_id", "generation#", "members#", "static_members#"],
    "Assignment received from leader for group {} for generation {}. The group has {} members, {} of which are static.":
        ["group_id", "generation#", "members#", "static_members#"],
    "[GroupId {}] Member {} transitioned from {} to {}.": ["group_id", "member_id", "from_state", "to_state"],
    "Transition from {} to {}.": ["from_state", "to_state"],
    "Loading group metadata for {} with generation {}": ["group_id", "generation#"],
    "Unloading group metadata for {} with generation {}": ["group_id", "generation#"],
    "Group {} removed members who haven't sent their sync request: {}": ["group_id", "members_list"],
    "Replaying end transaction marker from {} at offset {} to abort transaction with producer id {} and producer epoch {}.":
        ["tp", "record_offset#", "producer_id", "producer_epoch"],
    "Replaying end transaction marker from {} at offset {} to commit transaction with producer id {} and producer epoch {}.":
        ["tp", "record_offset#", "producer_id", "producer_epoch"],
    "Replaying record {} from {} at offset {} with producer id {} and producer epoch {}.":
        ["record", "tp", "record_offset#", "producer_id", "producer_epoch"],
    "Replaying record {} to {} failed due to: {}.": ["record", "tp", "error"],
    "The state machine of the coordinator {} is out of sync with the underlying log. The last written offset returned is {} while the coordinator expected {}. The coordinator will be reloaded in order to re-synchronize the state machine.":
        ["tp", "record_offset#", "expected_offset#"],
    "Group {} remove dynamic members who haven't joined: {}": ["group_id", "members_list"],
    "Group {} removed dynamic members who haven't joined: {}": ["group_id", "members_list"],
    "Group {} removed members who haven't sent their sync requests: {}": ["group_id", "members_list"],
    "Member id {} was not found in {} during heartbeat expiration.": ["member_id", "group_id"],
    "Member id {} was not found in {} during heartbeat completion check": ["member_id", "group_id"],
    "[GroupId {}] Static member with unknown member id and instance id {} re-joins the consumer group. Created a new member {} to replace the existing member {}.":
        ["group_id", "instance_id", "member_id", "old_member_id"],
    "[GroupId {}] Static member with instance id {} re-joins the consumer group using the {} protocol. Created a new member {} to replace the existing member {}.":
        ["group_id", "instance_id", "protocol", "member_id", "old_member_id"],
    "[GroupId {}] Static member {} with instance id {} cannot join the group because the instance id is is owned by member {}.":
        ["group_id", "member_id", "instance_id", "old_member_id"],
    "[GroupId {}] Static member {} with instance id {} cannot join the group because the instance id is owned by member {}.":
        ["group_id", "member_id", "instance_id", "old_member_id"],
    "[GroupId {}] Static member {} with instance id {} is fenced by existing member {}.":
        ["group_id", "member_id", "instance_id", "existing_member_id"],
    "Elected as the group coordinator for partition {}": ["tp"],
    "Elected as the group coordinator for partition {} in epoch {}": ["tp", "epoch#"],
    "Resigned as the group coordinator for partition {}": ["tp"],
    "Resigned as the group coordinator for partition {} in epoch {}": ["tp", "epoch#"],
    "[GroupId={}] Unloaded group metadata for group epoch {}.": ["group_id", "epoch#"],
    "[GroupId={}] Unloading group metadata for generation {}.": ["group_id", "generation#"],
    "Cannot downgrade the consumer group {}: fail to parse the Consumer Protocol {}.": ["group_id", "error"],
    "Cannot upgrade classic group {} to consumer group: {}.": ["group_id", "error"],
    "Scheduled execution of transaction completion for {} with producer id={}, producer epoch={}, coordinator epoch={} and transaction result={}.":
        ["tp", "producer_id", "producer_epoch", "epoch#", "result"],
    "Aborted transactional offset commits for producer id {}.": ["producer_id"],
    "Committed transactional offset commits for producer id {}.": ["producer_id"],
}

# Templates the catalogue does not hold yet, each with its hole names and origin (read from Kafka's source;
# tests/parsers/wordings/SOURCES.md lists them). KIP-1071 streams groups and 4.1+ share/consumer wording
# of group-coordinator/.../GroupMetadataManager.java as at apache/kafka commit 0013464c (trunk after 4.0).
_GMM_41 = "GroupMetadataManager.java trunk-0013464c..current"  # first release not checked here (KIP-1071: 4.1)
_GMM_4X = "GroupMetadataManager.java trunk-a53788bf..current"  # after the 2024-10 mirror; first release not checked here
EXTRA_TEMPLATES: list[tuple[str, str, str, list[str]]] = [
    ("[GroupId {}][MemberId {}] Member joins the streams group.", "member_joined", _GMM_41,
     ["group_id", "member_id"]),
    ("[GroupId {}][MemberId {}] Member {} left the streams group.", "member_removed", _GMM_41,
     ["group_id", "member_id", "leaving_member_id"]),
    ("[GroupId {}] Streams member {} fenced from the group because {}.", "member_fenced", _GMM_41,
     ["group_id", "member_id", "reason"]),
    ("[GroupId {}][MemberId {}] Member's new assignment state: epoch={}, previousEpoch={}, state={}, "
     "assignedTasks={} and tasksPendingRevocation={}.", "assignment_received", _GMM_41,
     ["group_id", "member_id", "member_epoch#", "previous_member_epoch#", "member_state", "assigned_tasks",
      "revoked_tasks"]),
    ("[GroupId {}][MemberId {}] Bumped streams group epoch to {} with metadata hash {} and validated topic epoch {}.",
     "rebalance_prepare", _GMM_41, ["group_id", "member_id", "group_epoch#", "metadata_hash", "topology_epoch#"]),
    ("[GroupId {}][MemberId {}] Assignment configurations changed to {}. Triggering rebalance.",
     "rebalance_prepare", _GMM_41, ["group_id", "member_id", "assignment_configs"]),
    ("[GroupId {}][MemberId {}] Member initialized the topology with epoch {}", "subscription_change", _GMM_41,
     ["group_id", "member_id", "topology_epoch#"]),
    ("[GroupId {}][MemberId {}] Member joined with stale topology epoch {}", "subscription_change", _GMM_41,
     ["group_id", "member_id", "topology_epoch#"]),
    ("[GroupId {}][MemberId {}] Member joined with currently initialized topology {}", "subscription_change",
     _GMM_41, ["group_id", "member_id", "topology_epoch#"]),
    ("[GroupId {}][MemberId {}] Computed new metadata hash: {}.", "subscription_change", _GMM_41,
     ["group_id", "member_id", "metadata_hash"]),
    ("[GroupId {}][MemberId {}] Configuring the topology {}", "subscription_change", _GMM_41,
     ["group_id", "member_id", "topology"]),
    ("[GroupId {}] Bumped group epoch to {} with metadata hash {}.", "rebalance_prepare", _GMM_41,
     ["group_id", "group_epoch#", "metadata_hash"]),
    ("[GroupId {}] Computed new metadata hash: {}.", "subscription_change", _GMM_41, ["group_id", "metadata_hash"]),
    # online migration between classic and consumer groups (KIP-848), GroupMetadataManager.java as stored at
    # apache/kafka commit a53788bf (trunk, 4.x): convertToConsumerGroup / convertToClassicGroup
    ("[GroupId {}] Converted the classic group to a consumer group.", "group_migration", _GMM_4X, ["group_id"]),
    ("[GroupId {}] Converted the consumer group to a classic group.", "group_migration", _GMM_4X, ["group_id"]),
]
OVERRIDES.update({t: names for t, _c, _o, names in EXTRA_TEMPLATES})

# The group's type a template proves (Event.group_type): the Scala GroupCoordinator (0.9-3.x) only had
# classic groups, so a wording it printed is a classic-group line also where GroupMetadataManager.java
# (3.6+) kept it; otherwise the wording names the type ("consumer group", "share group", "streams
# group", "[MemberId" of the streams code, "classic group"/"generic group"), or it stays unknown
# ("Computed a new target assignment" is printed for consumer, share and streams groups alike).
_TYPE_WORDS = (("streams", re.compile(r"streams group|Streams member|\]\[MemberId |assignedTasks=")),
               ("share", re.compile(r"share group|share protocol")),
               ("consumer", re.compile(r"consumer group")),
               ("classic", re.compile(r"classic group|generic group")))


# wordings whose type only the code path tells: in GroupMetadataManager.java the two-list form of
# "new assignment state" is printed by maybeReconcile(ConsumerGroupMember) only (3.8.0 .. 0013464c), the
# assignedPartitions-only form by maybeReconcile(ShareGroupMember) only (3.9.0 .. 0013464c)
TEMPLATE_GROUP_TYPES = {
    "[GroupId {}] Member {} new assignment state: epoch={}, previousEpoch={}, state={}, assignedPartitions={} "
    "and revokedPartitions={}.": "consumer",
    "[GroupId {}] Member {} new assignment state: epoch={}, previousEpoch={}, state={}, assignedPartitions={}.": "share",
    # OffsetMetadataManager.java: a "simple consumer group" is an empty classic group
    "[GroupId {}] Creating a simple consumer group via manual offset commit.": "classic",
}


def group_type_for(t: Template) -> str | None:
    if t.text in TEMPLATE_GROUP_TYPES:
        return TEMPLATE_GROUP_TYPES[t.text]
    if any(".scala " in o for o in t.origins):
        return "classic"
    found = {name for name, rx in _TYPE_WORDS if rx.search(t.text)}
    return found.pop() if len(found) == 1 else None


# Names whose values may contain spaces (lists, errors, reasons, toString dumps).
FREE_TEXT = {
    "reason", "error", "members_list", "offsets", "partitions_list", "groups", "group_metadata", "pending_offsets",
    "summary", "key", "value", "assignment", "assigned", "revoked", "subscription_metadata", "topics", "regex",
    "current_offsets", "result", "operation", "timer", "arg", "record", "assigned_tasks", "revoked_tasks",
    "assignment_configs", "topology",
}
MEMBER_LIKE = {"member_id", "old_member_id", "existing_member_id", "new_leader", "leader"}
# values copied into the common Event columns; everything else goes to `extra`
EVENT_FIELDS = {"group_id", "member_id", "instance_id", "generation", "member_epoch", "protocol", "reason",
                "error", "topic", "partition", "offset", "client_id"}


# Words in the message text that make a line a coordinator candidate even without its ident or logger.
# Templates whose literal text has none of them (CoordinatorRuntime internals, "Shutting down.") are
# context-bound: accepted only behind a coordinator ident or logger (see parsers/broker.py).
TEXT_WORDS = ("group", "Group", "member", "Member", "offsets", "Offset", "coordinator", "Coordinator", "generation")


def name_holes(template: str) -> list[str]:
    if template in OVERRIDES:
        return OVERRIDES[template]
    parts = template.split("{}")
    names: list[str] = []
    for i in range(len(parts) - 1):
        before = "{}".join(parts[: i + 1])
        after = "{}".join(parts[i + 1:])
        tail = before[-60:]
        for pre, post, name in _HOLE_RULES_C:
            if pre.search(tail) and post.search(after):
                names.append(name)
                break
        else:
            names.append("arg")
    # the same name twice in one template: keep the later ones apart
    seen: dict[str, int] = {}
    out = []
    for n in names:
        base = n.rstrip("#")
        if base in seen:
            seen[base] += 1
            n = f"{base}_{seen[base]}" + ("#" if n.endswith("#") else "")
        else:
            seen[base] = 1
        out.append(n)
    return out


@dataclass
class Template:
    text: str
    event_class: str
    origins: list[str] = field(default_factory=list)  # "File.scala 0.11.0.0-current"


def read_templates(tsv: Path) -> list[Template]:
    by_text: dict[str, Template] = {}
    with tsv.open(newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
            if row["side"] != "broker" or row["event"] == "other":
                continue
            text = row["template"].rstrip()
            origin = f"{row['source_file'].rsplit('/', 1)[-1]} {row['first_version']}..{row['last_version']}"
            t = by_text.setdefault(text, Template(text, row["event"]))
            if origin not in t.origins:
                t.origins.append(origin)
    out = sorted(by_text.values(), key=lambda t: t.text)
    # after the catalogue's, so that adding one never renumbers a catalogue rule (rule names are in events)
    for text, event_class, origin, _names in EXTRA_TEMPLATES:
        if text in by_text:
            by_text[text].origins.append(origin)
        else:
            out.append(Template(text, event_class, [origin]))
    return out


def lark_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def lookahead(after: str, is_last_literal: bool) -> str:
    esc = re.escape(after)
    return f"(?={esc}$)" if is_last_literal else f"(?={esc})"


def hole_pattern(name: str, after: str, is_last_literal: bool) -> str:
    base = re.sub(r"_\d+$", "", name.rstrip("#"))
    if name.endswith("#"):
        if base == "epoch":
            # CoordinatorRuntime.java 3.7+ logs a partition's epoch as an OptionalInt
            # ("Scheduling unloading of metadata for {} with epoch {}": OptionalInt[5], OptionalInt.empty)
            return r"(?:-?\d+|OptionalInt\[-?\d+\]|OptionalInt\.empty)"
        return r"-?\d+"
    look = lookahead(after, is_last_literal) if after else "$"
    if base in FREE_TEXT or name.startswith("arg"):
        body = ".+" if is_last_literal or not after else ".+?"
        return body + look
    if base in MEMBER_LIKE:
        return r"(?:MemberMetadata\((?:[^()]|\([^()]*\))*\)|\S+)" + look
    return r"\S+" + look


def first_word(text: str) -> str:
    """Dispatch key: the message's first word (templates that start with a hole use '*')."""
    if text.startswith("{}"):
        return "*"
    w = text.split(" ", 1)[0]
    w = w.split("{}", 1)[0]
    return w


def dispatch_key(word: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", word).lower() or "blank"


def generate(tsv: Path) -> tuple[str, str]:
    templates = read_templates(tsv)
    terminals: dict[str, str] = {}  # pattern -> name
    rules_by_start: dict[str, list[str]] = {}
    lines: list[str] = []
    table: list[str] = []
    seen_seq: dict[tuple, str] = {}
    context_bound: list[str] = []
    family_count: dict[str, int] = {}
    sources: list[str] = []
    group_types: list[str] = []
    for t in templates:
        names = name_holes(t.text)
        parts = t.text.split("{}")
        assert len(names) == len(parts) - 1, (t.text, names)
        seq: list[str] = []
        for i, lit in enumerate(parts):
            if lit:
                seq.append(lark_str(lit))
            if i < len(names):
                after = parts[i + 1]
                last = i + 1 == len(parts) - 1
                pat = hole_pattern(names[i], after, last)
                term = terminals.setdefault(pat, f"H{len(terminals) + 1}")
                seq.append(term)
        key = tuple(seq)
        kind = kind_for(t.event_class, t.text)
        if key in seen_seq:
            continue
        family_count[t.event_class] = family_count.get(t.event_class, 0) + 1
        rule = f"{t.event_class}_{family_count[t.event_class]}"
        seen_seq[key] = rule
        literal_text = " ".join(parts)
        if not any(w in literal_text for w in TEXT_WORDS):
            context_bound.append(rule)
        start = "s_" + dispatch_key(first_word(t.text))
        rules_by_start.setdefault(start, []).append(rule)
        lines.append(f"// {'; '.join(t.origins)} [{t.event_class}]")
        lines.append(f"{rule}: {' '.join(seq)}")
        table.append(f"    {rule!r}: ({kind!r}, {tuple(names)!r}),  # {t.text[:80]!r}")
        gtype = group_type_for(t)
        if gtype is not None:
            group_types.append(f"    {rule!r}: {gtype!r},")
        sources.append(f"    {rule!r}: ({t.text!r}, {'; '.join(t.origins)!r}),")
    out = [
        "// Broker group-coordinator messages (the text after the log4j prefix and the coordinator ident).",
        "// GENERATED by parsers/gen_broker_grammar.py from kafka-coordinator-log-templates.tsv: one rule per",
        "// distinct template; the comment above each rule names the Kafka source file(s) and versions.",
        "// Hole terminals (H*) stop exactly before the literal text that follows them (regex lookahead), so the",
        "// contextual LALR lexer never has to guess where a group id, member id or reason ends.",
        "// Start symbols s_<word> group the rules by the message's first word (dispatch in parsers/broker.py).",
        "",
    ]
    for start, rules in sorted(rules_by_start.items()):
        out.append(f"?{start}: " + "\n    | ".join(rules))
    out.append("")
    out.extend(lines)
    out.append("")
    for pat, name in terminals.items():
        out.append(f"{name}: /{pat.replace('/', chr(92) + '/')}/")
    grammar = "\n".join(out) + "\n"
    starts = sorted(rules_by_start)
    py = [
        '"""GENERATED by parsers/gen_broker_grammar.py: rule -> (event kind, hole names). Do not edit by hand.',
        "",
        "Hole names ending in '#' are integers; names that are Event fields fill the event, the others go",
        'to `extra`."""',
        "",
        "from __future__ import annotations",
        "",
        f"STARTS: tuple[str, ...] = {tuple(starts)!r}",
        "",
        f"TEXT_WORDS: tuple[str, ...] = {TEXT_WORDS!r}",
        "",
        "# rules whose literal text has none of TEXT_WORDS: only trusted behind a coordinator ident or logger",
        f"CONTEXT_BOUND: frozenset[str] = frozenset({sorted(context_bound)!r})",
        "",
        "RULES: dict[str, tuple[str, tuple[str, ...]]] = {",
        *table,
        "}",
        "",
        "# rule -> the group type its wording proves (classic | consumer | share | streams); absent: unknown",
        "GROUP_TYPES: dict[str, str] = {",
        *group_types,
        "}",
        "",
        "# rule -> (catalogue template, Kafka source file(s) and versions), for `coordscope explain`",
        "TEMPLATES: dict[str, tuple[str, str]] = {",
        *sources,
        "}",
        "",
    ]
    return grammar, "\n".join(py)


def main(argv: list[str]) -> int:
    tsv = Path(argv[1]) if len(argv) > 1 else DEFAULT_TSV
    grammar, py = generate(tsv)
    (HERE / "grammars").mkdir(exist_ok=True)
    (HERE / "grammars" / "broker.lark").write_text(grammar)
    (HERE / "broker_rules.py").write_text(py)
    print(f"wrote {HERE / 'grammars' / 'broker.lark'} and {HERE / 'broker_rules.py'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
