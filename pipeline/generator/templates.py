"""Exact message templates per Kafka version, copied from shared/formats/kafka-coordinator-log-templates.tsv.

Eras: "0.10" = 0.10.2.1, "2.x" = 2.8.1, "3.x" = 3.6.1, "4.x" = 4.0 (trunk-2024-12-27, classic consumer).
Each entry: name -> {era: (logger, template)}. `{}` placeholders are filled in order (SLF4J style).
tests/generator/test_templates.py checks every template against the TSV row and its version range.
"""

from __future__ import annotations

AC = "org.apache.kafka.clients.consumer.internals.AbstractCoordinator"
CC = "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"
CRLI = "org.apache.kafka.clients.consumer.internals.ConsumerRebalanceListenerInvoker"
CU = "org.apache.kafka.clients.consumer.internals.ConsumerUtils"
SS = "org.apache.kafka.clients.consumer.internals.SubscriptionState"
KC = "org.apache.kafka.clients.consumer.KafkaConsumer"
CKC = "org.apache.kafka.clients.consumer.internals.ClassicKafkaConsumer"
GC = "kafka.coordinator.group.GroupCoordinator"
GC_OLD = "kafka.coordinator.GroupCoordinator"
GMM = "kafka.coordinator.group.GroupMetadataManager"
GMM_OLD = "kafka.coordinator.GroupMetadataManager"
GM_OBJ = "kafka.coordinator.group.GroupMetadata$"

POLL_TIMEOUT_TEXT = (
    "consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer "
    "than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too "
    "much time processing messages. You can address this either by increasing max.poll.interval.ms or by "
    "reducing the maximum size of batches returned in poll() with max.poll.records.")

# AbstractCoordinator logs under its own name up to 2.8.x, under the runtime class from 3.0.0
_AC = {"2.x": AC, "3.x": CC, "4.x": CC}


def _same(logger_by_era: dict[str, str], text: str) -> dict[str, tuple[str, str]]:
    return {era: (lg, text) for era, lg in logger_by_era.items()}


CLIENT: dict[str, dict[str, tuple[str, str]]] = {
    "discovered": {"0.10": (AC, "Discovered coordinator {} for group {}."),
                   **_same(_AC, "Discovered group coordinator {}")},
    "join_start": {"0.10": (AC, "(Re-)joining group {}"), **_same(_AC, "(Re-)joining group")},
    "request_rejoin": _same({"3.x": CC, "4.x": CC}, "Request joining group due to: {}"),
    "joined": {"0.10": (AC, "Successfully joined group {} with generation {}"),
               **_same(_AC, "Successfully joined group with generation {}")},
    "assignment_done": _same({"2.x": CC, "3.x": CC, "4.x": CC}, "Finished assignment for group at generation {}: {}"),
    "synced": _same(_AC, "Successfully synced group in generation {}"),
    "notify_assignor": _same({"2.x": CC, "3.x": CC, "4.x": CC}, "Notifying assignor about the new {}"),
    "assigned": {"0.10": (CC, "Setting newly assigned partitions {} for group {}"),
                 "2.x": (CC, "Adding newly assigned partitions: {}"),
                 "3.x": (CC, "Adding newly assigned partitions: {}"),
                 "4.x": (CRLI, "Adding newly assigned partitions: {}")},
    "revoked": {"0.10": (CC, "Revoking previously assigned partitions {} for group {}"),
                "2.x": (CC, "Revoke previously assigned partitions {}"),
                "3.x": (CC, "Revoke previously assigned partitions {}"),
                "4.x": (CRLI, "Revoke previously assigned partitions {}")},
    "lost_giving_away": {
        "2.x": (CC, "Giving away all assigned partitions as lost since generation has been reset,indicating "
                    "that consumer is no longer part of the group"),
        **_same({"3.x": CC, "4.x": CC}, "Giving away all assigned partitions as lost since generation/memberID "
                "has been reset,indicating that consumer is in old state or no longer part of the group")},
    "lost": {"2.x": (CC, "Lost previously assigned partitions {}"), "3.x": (CC, "Lost previously assigned partitions {}"),
             "4.x": (CRLI, "Lost previously assigned partitions {}")},
    "committed_position": {"2.x": (CC, "Setting offset for partition {} to the committed offset {}"),
                           "3.x": (CC, "Setting offset for partition {} to the committed offset {}"),
                           "4.x": (CU, "Setting offset for partition {} to the committed offset {}")},
    "no_committed": _same({"2.x": CC, "3.x": CC, "4.x": CC}, "Found no committed offset for partition {}"),
    "reset_position": _same({"2.x": SS, "3.x": SS, "4.x": SS}, "Resetting offset for partition {} to position {}."),
    "hb_rebalancing": {"2.x": (AC, "Attempt to heartbeat failed since group is rebalancing")},
    "hb_reset": _same(_AC, "Attempt to heartbeat with {} and group instance id {} failed due to {}, resetting generation"),
    "resetting_generation": _same({"3.x": CC, "4.x": CC}, "Resetting generation {}due to: {}"),
    "poll_timeout_warn": _same({"3.x": CC, "4.x": CC}, POLL_TIMEOUT_TEXT),
    "leave": _same(_AC, "Member {} sending LeaveGroup request to coordinator {} due to {}"),
    "coordinator_lost": {"0.10": (AC, "Marking the coordinator {} dead for group {}"),
                         "2.x": (AC, "Group coordinator {} is unavailable or invalid due to cause: {}.isDisconnected: {}. Rediscovery will be attempted."),
                         **_same({"3.x": CC, "4.x": CC}, "Group coordinator {} is unavailable or invalid due to cause: {}. isDisconnected: {}. Rediscovery will be attempted.")},
    "commit_failed_partition": {"0.10": (CC, "Group {} failed to commit partition {} at offset {}: {}"),
                                **_same({"2.x": CC, "3.x": CC, "4.x": CC}, "Offset commit failed on partition {} at offset {}: {}")},
    "auto_commit_failed_sync": {"0.10": (CC, "Auto-commit of offsets {} failed for group {}: {}"),
                                **_same({"2.x": CC, "3.x": CC, "4.x": CC}, "Synchronous auto-commit of offsets {} failed: {}")},
    "auto_commit_failed_async": {"0.10": (CC, "Auto-commit of offsets {} failed for group {}: {}"),
                                 **_same({"2.x": CC, "3.x": CC, "4.x": CC}, "Asynchronous auto-commit of offsets {} failed: {}")},
    "commit_failed_generation": _same({"2.x": CC, "3.x": CC, "4.x": CC}, "OffsetCommit failed with {}: {}"),
    "sync_failed_rebalance": _same(_AC, "SyncGroup failed: The group began another rebalance. Need to re-join the group. Sent generation was {}"),
    "join_failed": _same(_AC, "JoinGroup failed: {} Need to re-join the group. Sent generation was {}"),
    "metadata_changed": {"2.x": (CC, "Requesting to re-join the group and trigger rebalance since the assignment metadata has changed from {} to {}"),
                         **_same({"3.x": CC, "4.x": CC}, "Request joining group due to: {}")},
    "updating_assignment": _same({"2.x": CC, "3.x": CC, "4.x": CC},
                                 "Updating assignment with\n\tAssigned partitions:                       {}\n"
                                 "\tCurrent owned partitions:                  {}\n"
                                 "\tAdded partitions (assigned - owned):       {}\n"
                                 "\tRevoked partitions (owned - assigned):     {}\n"),
    "need_revoke": {"2.x": (CC, "Need to revoke partitions {} and re-join the group")},
    "subscribed": {"2.x": (KC, "Subscribed to topic(s): {}"), "3.x": (KC, "Subscribed to topic(s): {}"),
                   "4.x": (CKC, "Subscribed to topic(s): {}")},
}

# broker side: Scala GroupCoordinator (core/src/main/scala/kafka/coordinator/group/GroupCoordinator.scala)
BROKER: dict[str, dict[str, tuple[str, str]]] = {
    "member_id_created": {"3.x": (GC, "Dynamic member with unknown member id joins group {} in {} state. Created a new member id {} and request the member to rejoin with this id.")},
    "prepare_rebalance": {"0.10": (GC_OLD, "Preparing to restabilize group {} with old generation {}"),
                          "2.x": (GC, "Preparing to rebalance group {} in state {} with old generation {} ({}-{}) (reason: {})"),
                          "3.x": (GC, "Preparing to rebalance group {} in state {} with old generation {} ({}-{}) (reason: {})")},
    "member_failed": {"2.x": (GC, "Member {} in group {} has failed, removing it from the group"),
                      "3.x": (GC, "Member {} in group {} has failed, removing it from the group")},
    "member_left": {"2.x": (GC, "Member[group.instance.id {}, member.id {}] in group {} has left, removing it from the group"),
                    "3.x": (GC, "Member {} has left group {} through explicit `LeaveGroup`; client reason: {}")},
    "stabilized": {"0.10": (GC_OLD, "Stabilized group {} generation {}"),
                   "2.x": (GC, "Stabilized group {} generation {} ({}-{}) with {} members"),
                   "3.x": (GC, "Stabilized group {} generation {} ({}-{}) with {} members")},
    "assignment_received": {"0.10": (GC_OLD, "Assignment received from leader for group {} for generation {}"),
                            "2.x": (GC, "Assignment received from leader for group {} for generation {}. The group has {} members, {} of which are static."),
                            "3.x": (GC, "Assignment received from leader {} for group {} for generation {}. The group has {} members, {} of which are static.")},
    "group_empty": {"0.10": (GC_OLD, "Group {} with generation {} is now empty"),
                    "2.x": (GC, "Group {} with generation {} is now empty ({}-{})"),
                    "3.x": (GC, "Group {} with generation {} is now empty ({}-{})")},
    "static_replaced": {"3.x": (GC, "Static member with groupInstanceId={} and unknown member id joins group {} in {} state. Replacing previously mapped member {} with this groupInstanceId.")},
    "static_no_rebalance": {"3.x": (GC, "Static member which joins during Stable stage and doesn't affect selectProtocol will not trigger rebalance.")},
    "static_added": {"3.x": (GC, "Static member with groupInstanceId={} and unknown member id joins group {} in {} state. Created a new member id {} for this member and add to the group.")},
    "resigned": {"2.x": (GC, "Resigned as the group coordinator for partition {} in epoch {}"),
                 "3.x": (GC, "Resigned as the group coordinator for partition {} in epoch {}")},
    "elected": {"2.x": (GC, "Elected as the group coordinator for partition {} in epoch {}"),
                "3.x": (GC, "Elected as the group coordinator for partition {} in epoch {}")},
    "unloading": {"0.10": (GC_OLD, "Unloading group metadata for {} with generation {}"),
                  "2.x": (GC, "Unloading group metadata for {} with generation {}"),
                  "3.x": (GC, "Unloading group metadata for {} with generation {}")},
    "loading": {"0.10": (GC_OLD, "Loading group metadata for {} with generation {}"),
                "2.x": (GC, "Loading group metadata for {} with generation {}"),
                "3.x": (GC, "Loading group metadata for {} with generation {}")},
    "schedule_unload": {"2.x": (GMM, "Scheduling unloading of offsets and group metadata from {}"),
                        "3.x": (GMM, "Scheduling unloading of offsets and group metadata from {}")},
    "finished_unload": {"2.x": (GMM, "Finished unloading {} for coordinator epoch {}. Removed {} cached offsets and {} cached groups."),
                        "3.x": (GMM, "Finished unloading {} for coordinator epoch {}. Removed {} cached offsets and {} cached groups.")},
    "schedule_load": {"0.10": (GMM_OLD, "Loading offsets and group metadata from {}"),
                      "2.x": (GMM, "Scheduling loading of offsets and group metadata from {} for epoch {}"),
                      "3.x": (GMM, "Scheduling loading of offsets and group metadata from {} for epoch {}")},
    "loaded_member": {"2.x": (GM_OBJ, "Loaded member {} in group {} with generation {}."),
                      "3.x": (GM_OBJ, "Loaded member {} in group {} with generation {}.")},
    "finished_load": {"0.10": (GMM_OLD, "Finished loading offsets from {} in {} milliseconds."),
                      "2.x": (GMM, "Finished loading offsets and group metadata from {} in {} milliseconds for epoch {}, of which {} milliseconds was spent in the scheduler."),
                      "3.x": (GMM, "Finished loading offsets and group metadata from {} in {} milliseconds for epoch {}, of which {} milliseconds was spent in the scheduler.")},
    "expired_offsets": {"2.x": (GMM, "Removed {} expired offsets in {} milliseconds."),
                        "3.x": (GMM, "Removed {} expired offsets in {} milliseconds.")},
}

# the version number each era stands for, used to check templates against the TSV ranges
ERA_VERSION = {"0.10": "0.10.2.1", "2.x": "2.8.1", "3.x": "3.6.1", "4.x": "trunk-2024-12-27"}


def fill(template: str, *args: object) -> str:
    """SLF4J-style `{}` substitution (extra args are ignored, missing ones leave `{}`)."""
    parts = template.split("{}")
    out = [parts[0]]
    for i, rest in enumerate(parts[1:]):
        out.append(str(args[i]) if i < len(args) else "{}")
        out.append(rest)
    return "".join(out)
