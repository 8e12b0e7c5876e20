"""kafka-python and aiokafka coordinator lines -> event fields.

The envelope is whatever Python logging layout the application chose (`%(levelname)s:%(name)s:%(message)s`
of basicConfig, `%(asctime)s %(levelname)s %(name)s %(message)s`, `%(asctime)s - %(name)s - %(levelname)s
- %(message)s`, JSON formatters, ...): the rules are searched in the whole line, so no layout has to be
known. The logger name, when the line shows one (`kafka.coordinator`, `kafka.coordinator.consumer`,
`kafka.coordinator.heartbeat`, `kafka.consumer.fetcher`, `aiokafka.consumer.group_coordinator`,
`aiokafka.consumer.fetcher`), tells the library apart where both print the same words; otherwise the
rule's own library does, and a wording both libraries print is marked with both candidates.

Each rule names the module and versions it mirrors: kafka-python kafka/coordinator/base.py,
consumer.py, kafka/consumer/fetcher.py (1.0-3.0, tags read: 1.3.5, 1.4.7, 2.0.2, 2.2.0, 2.2.10,
2.3.0, 3.0.0 and master a3b3836f) and aiokafka aiokafka/consumer/group_coordinator.py, fetcher.py
(0.5.0-0.14.0). The values are Python reprs: partitions as sets of
`TopicPartition(topic='t', partition=0)`, offsets as `OffsetAndMetadata(offset=5, ...)`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from parsers.base import Match
from parsers.build_cache import compile_regex
from parsers.foreign import words
from parsers.foreign.common import IGNORE, UNRECOGNISED, iso_ms, match, oam_offset, tp_repr_list, tp_repr_one

KP, AIO = "kafka-python", "aiokafka"
# the client modules' logger names (logging.getLogger(__name__) and kafka-python 3.0's named loggers);
# not the broker's Scala loggers (kafka.coordinator.group.GroupCoordinator, kafka.coordinator.transaction.*)
_LOGGER = compile_regex(r"(?<![\w.])(?P<logger>aiokafka\.consumer(?:\.(?:group_coordinator|fetcher|consumer|subscription_state))?"
                     r"|aiokafka\.group_coordinator"  # the module's path in aiokafka 0.0.1-0.3.x
                     r"|kafka\.coordinator(?:\.(?:base|consumer|heartbeat|assignors\.\w+))?"
                     r"|kafka\.consumer\.(?:fetcher|group|subscription_state))(?![\w.])")
_LEVEL = compile_regex(r"\b(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\b")
# what a Python logging layout puts right before the message: nothing, a space, ':' (basicConfig), '-',
# ']' or '|' (and a tab)
_MESSAGE_START = frozenset(["", " ", ":", "-", "]", "|", "\t"])
_NODE_ID = compile_regex(r"\bnode_?[iI]d=['\"]?(?:coordinator-)?(-?\d+)")
_MEMBER_VERSION = compile_regex(r"(kafka-python|aiokafka)-(\d+\.\d+\.\d+\w*)-")


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    libs: tuple[str, ...]  # the libraries that print this wording
    regex: re.Pattern[str]
    kind: str | None | Any  # or a function of the match's groups
    source: str


RULES: list[Rule] = []
_NO_ERROR = compile_regex(r"\berror_code=0\b")
_COORDINATOR_ID = compile_regex(r"\b(?:coordinator_id|node_id)=(-?\d+)")
_REQ_GROUP = compile_regex(r"\bgroup(?:_id)?='(?P<group>[^']*)'")
_REQ_MEMBER = compile_regex(r"\bmember_id='(?P<member>[^']*)'")


def _r(name: str, libs: tuple[str, ...], pattern: str, kind: Any, source: str) -> None:
    RULES.append(Rule(name, libs, compile_regex(pattern), kind, source))  # build cache: parsers/build_cache.py


BOTH = (KP, AIO)
GRP = r"(?P<group>[^\s']+)"
# coordinator (kafka-python base.py; aiokafka group_coordinator.py)
_r("discovered", BOTH, r"Discovered coordinator (?P<coordinator>\S+) for group " + GRP + r"$", "coordinator_discovered",
   "kafka-python base.py 1.3-3.0; aiokafka 0.5-0.14")
_r("coordinator_dead", BOTH, r"Marking the coordinator dead \(node (?P<coordinator>[^)]*)\) ?for group (?P<group>[^\s':]+?)(?:: (?P<error>.*?))?\.?$",
   "coordinator_lost", "kafka-python base.py 1.3-3.0 (': %s.'); aiokafka 0.5-0.14 (no error, no space)")
# kafka-python kafka/cluster.py add_group_coordinator 1.0.0-2.1.6 (logger kafka.cluster): "Group coordinator for %s is %s"
# with a BrokerMetadata namedtuple repr (kafka/structs.py: nodeId, host, port, rack); add_coordinator 2.2.0-2.x
# "Coordinator for %s/%s is %s" (coord_type 'group'), 3.0 key_type.name ('GROUP'); 2.2+ node ids are 'coordinator-N'
_r("group_coordinator_is", (KP,), r"Group coordinator for " + GRP + r" is (?P<broker>BrokerMetadata\(.*)$", "coordinator_discovered",
   "kafka-python cluster.py 1.0.0-2.1.6 (kafka.cluster)")
_r("coordinator_for_is", (KP,), r"Coordinator for (?:group|GROUP)/(?P<group>\S+) is (?P<broker>\w+\(.*)$", "coordinator_discovered",
   "kafka-python cluster.py 2.2.0-3.0 (kafka.cluster)")
_r("lookup_failed", (KP,), r"Group [Cc]oordinator lookup for group " + GRP + r" failed: (?P<error>.*)$", "coordinator_lookup",
   "kafka-python base.py 1.3-3.0")
_r("coordinator_request_failed", BOTH, r"Group Coordinator Request failed: (?P<error>.*)$", "coordinator_lookup",
   "kafka-python base.py 1.3-3.0; aiokafka 0.5-0.14")
_r("coordinator_request", BOTH, r"Sending group coordinator request for group " + GRP + r" to broker (?P<coordinator>[^\s:]+)(?:: .*)?$",
   "coordinator_lookup", "kafka-python base.py 1.2.0-2.2.x, 3.0 (': %s' the request); aiokafka group_coordinator.py 0.3-0.4 (debug)")
_r("coordinator_response", BOTH, r"Received group coordinator response (?P<response>(?:GroupCoordinator|FindCoordinator)Response_v\d+\(.*)$",
   lambda g: "coordinator_discovered" if _NO_ERROR.search(g["response"]) else "coordinator_lookup",
   "kafka-python base.py 1.2.0-2.2.x; aiokafka group_coordinator.py 0.3-0.4, client.py 0.5-0.14 (debug)")
_r("join_sent", BOTH, r"Sending JoinGroup \((?P<request>JoinGroupRequest_v\d+\(.*)\) to coordinator (?P<coordinator>\S+)$", "join_started",
   "kafka-python base.py 1.2.0-3.0; aiokafka group_coordinator.py 0.3-0.14 (debug)")
_r("coordinator_not_available", (KP,), r"Group Coordinator Not Available; retry$", "coordinator_lookup", "kafka-python base.py 1.3-3.0 (debug)")
_r("session_expired", (KP,), r"Heartbeat session expired, marking coordinator dead$", "coordinator_lost",
   "kafka-python base.py 1.4-3.0 (HeartbeatThread)")
_r("session_expired_aio", BOTH, r"Heartbeat session expired - marking coordinator dead$", "coordinator_lost",
   "kafka-python base.py <=1.3.5 (read at 1.0.0, 1.2.0, 1.3.5) (HeartbeatTask); aiokafka group_coordinator.py 0.5-0.14")
_r("coordinator_unknown_hb", (KP,), r"Coordinator unknown during heartbeat -- will retry$", "heartbeat_failed",
   "kafka-python base.py <=1.3.5 (read at 1.0.0, 1.2.0, 1.3.5) (HeartbeatTask)")
_r("hb_retrying", (KP,), r"Heartbeat failed \((?P<error>.*)\); retrying$", "heartbeat_failed", "kafka-python base.py <=1.3.5 (read at 1.0.0, 1.2.0, 1.3.5) (HeartbeatTask)")
_r("hb_skipping", (KP,), r"Skipping heartbeat: no auto-assignment or waiting on rebalance$", None, "kafka-python base.py <=1.3.5 (read at 1.0.0, 1.2.0, 1.3.5)")
_r("hb_no_group_aio", (AIO,), r"Skipping heartbeat: no active group: (?P<error>.*)$", "heartbeat_failed",
   "aiokafka group_coordinator.py 0.0.1-0.3.x (read at v0.0.1, v0.1.0, v0.3.0: the heartbeat task could not ensure an active group)")
_r("coordinator_unrecognized", (KP,), r"Unrecognized failure in Group Coordinator Request: (?P<error>.*)$", "coordinator_lookup",
   "kafka-python base.py <=1.3.5 (read at 1.0.0, 1.2.0, 1.3.5)")
# join and sync
_r("rejoining", BOTH, r"\(Re-\)joining group " + GRP + r"$", "join_started", "kafka-python base.py 1.3-3.0; aiokafka 0.5-0.14")
_r("joined", (KP,), r"Successfully joined group " + GRP + r" with generation (?P<generation>-?\d+)$", "join_succeeded",
   "kafka-python base.py 1.3-2.2.9")
_r("joined_generation", (KP,), r"Successfully joined group " + GRP + r" <Generation (?P<generation>-?\d+) \(member_id: (?P<member>\S*), protocol: (?P<protocol>[^)]*)\)>$",
   "join_succeeded", "kafka-python base.py 2.2.10-3.0 (Generation.__str__)")
_r("joined_aio", BOTH, r"Joined group '(?P<group>[^']*)' \(generation (?P<generation>-?\d+)\) with member_id (?P<member>\S+)$",
   "join_succeeded", "kafka-python base.py <=1.3.5 (read at 1.0.0, 1.2.0, 1.3.5); aiokafka group_coordinator.py 0.5-0.14")
_r("synced_aio", (AIO,), r"Successfully synced group " + GRP + r" with generation (?P<generation>-?\d+)$", "sync_succeeded",
   "aiokafka group_coordinator.py 0.5-0.14")
_r("elected_leader", BOTH, r"Elected group leader -- performing partition assignments using (?P<assignor>\S+)$", "assignment_received",
   "kafka-python base.py 1.3-3.0; aiokafka 0.5-0.14 (the leader about to assign: the fact of Java's 'Performing assignment"
   " using strategy {} with subscriptions {}', ConsumerCoordinator.java 1.0+, read as assignment_received; extra.leader)")
_r("join_loading", BOTH, r"Attempt to join group " + GRP + r" rejected since coordinator (?P<coordinator>\S+) is loading the group\.$",
   "join_failed", "kafka-python base.py; aiokafka (debug)")
_r("join_unknown_member", BOTH, r"Attempt to join group " + GRP + r" failed due to unknown member id$", "join_failed",
   "kafka-python base.py; aiokafka (debug)")
_r("join_obsolete", BOTH, r"Attempt to join group " + GRP + r" failed due to obsolete coordinator information: (?P<error>.*)$",
   "join_failed", "kafka-python base.py; aiokafka (debug)")
_r("join_fatal", BOTH, r"Attempt to join group (?:" + GRP + r" )?failed due to fatal error: (?P<error>.*)$", "join_failed",
   "kafka-python base.py (with group); aiokafka (without)")
_r("join_rebalancing", (KP,), r"Attempt to join group " + GRP + r" failed due to RebalanceInProgressError, .*$", "join_failed",
   "kafka-python base.py 2.2-3.0")
_r("join_member_id", (KP,), r"Received member id (?P<member>\S+) for group " + GRP + r"; will retry join-group$", "join_failed",
   "kafka-python base.py 2.2-3.0 (MEMBER_ID_REQUIRED)")
_r("join_unexpected", BOTH, r"Unexpected error in join group(?: '(?P<group>[^']*)')? response: (?P<error>.*)$", "join_failed",
   "kafka-python base.py; aiokafka")
_r("sync_failed", BOTH, r"SyncGroup for group " + GRP + r" failed due to (?P<error>.*?)(?:; (?:reseting generation|marking coordinator dead))?[.,]?$",
   "sync_failed", "kafka-python base.py 1.3-3.0; aiokafka 0.5-0.14")
_r("sync_unexpected", BOTH, r"Unexpected error from SyncGroup: (?P<error>.*)$", "sync_failed", "kafka-python base.py; aiokafka")
# assignment
_r("assigned", BOTH, r"Setting newly assigned partitions (?P<parts>.*) for group " + GRP + r"$", "partitions_assigned",
   "kafka-python consumer.py 1.3-3.0; aiokafka 0.5-0.14")
_r("revoked", BOTH, r"Revoking previously assigned partitions (?P<parts>.*) for group " + GRP + r"(?P<on_close> on close)?$",
   "partitions_revoked", "kafka-python consumer.py 1.3-3.0 (' on close' 3.0); aiokafka 0.5-0.14")
_r("lost", (KP,), r"Group " + GRP + r" lost membership; forcibly revoking (?P<parts>.*)$", "partitions_lost", "kafka-python consumer.py 3.0")
_r("cooperative_complete", (KP,), r"Cooperative rebalance complete for group " + GRP + r": owned=(?P<owned>.*), assigned=(?P<parts>.*), revoked=(?P<revoked>.*), added=(?P<added>.*)$",
   "partitions_assigned", "kafka-python consumer.py 3.0")
_r("cooperative_revoke", (KP,), r"Cooperative pre-rebalance for group " + GRP + r": revoking (?P<parts>.*) \(no longer in subscription\)$",
   "partitions_revoked", "kafka-python consumer.py 3.0")
_r("finished_assignment", BOTH, r"Finished assignment for group " + GRP + r": (?P<assignment>.*)$", None, "kafka-python consumer.py; aiokafka (debug)")
_r("performing_assignment", BOTH, r"Performing assignment for group " + GRP + r" using strategy (?P<assignor>\S+) with subscriptions", None,
   "kafka-python consumer.py; aiokafka (debug)")
# heartbeats and poll
_r("hb_coordinator", BOTH, r"Heartbeat failed for group " + GRP + r": coordinator \(node (?P<coordinator>[^)]*)\) is either not started or not valid$",
   "coordinator_lost", "kafka-python base.py 1.3-3.0; aiokafka 0.5-0.14")
_r("hb_rebalancing", BOTH, r"Heartbeat failed for group " + GRP + r" because it is rebalancing$", "heartbeat_failed",
   "kafka-python base.py 1.3-2.x; aiokafka 0.5-0.14")
_r("hb_rebalancing_3", (KP,), r"Group " + GRP + r" is rebalancing; rejoining\.$", "heartbeat_failed", "kafka-python base.py 3.0")
_r("hb_generation", BOTH, r"Heartbeat failed for group " + GRP + r": generation id is not\s+current\.$", "heartbeat_failed",
   "kafka-python base.py 1.3-3.0; aiokafka 0.5-0.14 (two spaces: sic)")
_r("hb_fenced", (KP,), r"Heartbeat failed for group " + GRP + r" due to fenced id error: (?P<instance>.*)$", "member_fenced",
   "kafka-python base.py 2.2-3.0")
_r("hb_unknown_member", (KP,), r"Heartbeat: local member_id was not recognized; this consumer needs to re-join$", "heartbeat_failed",
   "kafka-python base.py 1.3-3.0")
_r("hb_unknown_member_aio", (AIO,), r"Heartbeat failed: local member_id was not recognized; resetting and re-joining group$",
   "heartbeat_failed", "aiokafka group_coordinator.py 0.5-0.14")
_r("hb_auth", (KP,), r"Heartbeat failed: authorization error: (?P<error>.*)$", "heartbeat_failed", "kafka-python base.py")
_r("hb_unhandled", (KP,), r"Heartbeat failed: Unhandled error: (?P<error>.*)$", "heartbeat_failed", "kafka-python base.py")
_r("hb_send_failed", (AIO,), r"Heartbeat send request failed: (?P<error>.*)\. Will retry\.$", "heartbeat_failed", "aiokafka 0.5-0.14")
_r("hb_failed_aio", (AIO,), r"Heartbeat failed: (?P<error>.*)$", "heartbeat_failed", "aiokafka 0.5-0.14 ('%r')")
_r("hb_ok", BOTH, r"Received successful heartbeat response for group " + GRP + r"$", "heartbeat_succeeded",
   "kafka-python base.py; aiokafka (debug)")
_r("hb_sent", BOTH, r"Heartbeat: (?P<group>[^\s\[]+)\[(?P<generation>-?\d+)\] (?P<member>\S+)$", "heartbeat_sent",
   "kafka-python base.py; aiokafka (debug 'Heartbeat: %s[%s] %s')")
_r("poll_expired", (KP,), r"Heartbeat poll expired, leaving group$", "poll_timeout", "kafka-python base.py 1.4-2.2.9")
_r("poll_timeout", (KP,), r"Consumer poll timeout has expired\. This means the time between subsequent calls to poll\(\).*$", "poll_timeout",
   "kafka-python base.py 2.2.10-3.0")
_r("hb_thread_start", (KP,), r"Starting new heartbeat thread$", "heartbeat_thread", "kafka-python base.py 1.4-2.x")
_r("hb_thread_stop", (KP,), r"Stopping heartbeat thread$", "heartbeat_thread", "kafka-python base.py 1.4-2.x")
# subscriptions (kafka-python kafka/consumer/subscription_state.py; aiokafka subscription_state.py, consumer.py)
_r("subscription_update", BOTH, r"Updating subscribed topics to: (?P<topics>.*)$", "subscription_changed",
   "kafka-python subscription_state.py 1.3-3.0; aiokafka 0.5-0.14")
_r("subscribed_aio", (AIO,), r"Subscribed to topic(?:\(s\)| pattern): (?P<topics>.*)$", "subscription_changed", "aiokafka consumer.py 0.5-0.14")
_r("subscribed_pattern", (KP,), r"Subscribing to pattern: /(?P<topics>.*)/$", "subscription_changed", "kafka-python subscription_state.py")
_r("unsubscribed_aio", (AIO,), r"Unsubscribed all topics or patterns and assigned partitions$", "subscription_changed", "aiokafka consumer.py")
_r("updated_assignment", (KP,), r"Updated partition assignment: (?P<assignment>.*)$", None,
   "kafka-python subscription_state.py (no event: the coordinator's 'Setting newly assigned partitions' follows)")
# leaving
_r("leaving", (KP,), r"Leaving consumer group \((?P<group>[^)]*)\)\.$", "leave_group", "kafka-python base.py 1.4-2.x")
_r("leaving_3", (KP,), r"Leaving consumer group " + GRP + r" \(member (?P<member>[^)]*)\)\.$", "leave_group", "kafka-python base.py 3.0")
_r("leave_ok", BOTH, r"LeaveGroup request (?:for group \S+ |for member \S+ / group instance \S+ )?(?:returned successfully|succeeded)$", None,
   "kafka-python base.py; aiokafka")
_r("leave_failed", BOTH, r"LeaveGroup request (?:for group \S+ |for member \S+ / group instance \S+ )?failed(?: with error)?: (?P<error>.*)$", None,
   "kafka-python base.py; aiokafka")
# commits
_r("committed", (KP,), r"Group " + GRP + r" committed offset (?P<offset_repr>.*) for partition (?P<tp>TopicPartition\(.*\))$", "offset_committed",
   "kafka-python consumer.py (debug)")
_r("committed_aio", (AIO,), r"Committed offset (?P<offset_repr>.*) for partition (?P<tp>TopicPartition\(.*\))$", "offset_committed",
   "aiokafka group_coordinator.py (debug)")
_r("autocommit_done", (KP,), r"Completed autocommit of offsets (?P<offsets>.*) for group " + GRP + r"$", "offset_committed",
   "kafka-python consumer.py (debug)")
_r("commit_sent", BOTH, r"Sending offset-commit request with (?P<offsets>.*) for group " + GRP + r" to (?P<coordinator>\S+)$", "offset_commit_sent",
   "kafka-python consumer.py; aiokafka (debug)")
_r("commit_partition_failed", (KP,), r"Group " + GRP + r" failed to commit partition (?P<tp>TopicPartition\(.*?\)) at offset (?P<offset_repr>.*?): (?P<error>.*)$",
   "offset_commit_failed", "kafka-python consumer.py")
_r("commit_partition_failed_aio", (AIO,), r"OffsetCommit failed for group " + GRP + r" on partition (?P<tp>TopicPartition\(.*?\)) with offset (?P<offset_repr>.*?): (?P<error>.*)$",
   "offset_commit_failed", "aiokafka group_coordinator.py")
_r("commit_retry_aio", BOTH, r"OffsetCommit failed for group " + GRP + r" (?:on partition (?P<tp>TopicPartition\(.*?\)) due to (?P<error>.*?), will retry|because group is initializing \((?P<error2>.*?)\), will retry|due to a coordinator error \((?P<error3>.*?)\), will find new coordinator and retry|due to group error \((?P<error4>.*?)\), will rejoin)$",
   "offset_commit_failed", "aiokafka group_coordinator.py; kafka-python consumer.py 1.0.0-1.0.2 (read at 1.0.0, 1.0.2)")
_r("commit_failed_aio", (AIO,), r"OffsetCommit failed for group " + GRP + r" - (?P<error>.*)$", "offset_commit_failed", "aiokafka group_coordinator.py")
_r("commit_failed_group", (KP,), r"OffsetCommit for group " + GRP + r" failed(?: on partition (?P<tp>TopicPartition\(.*?\)))?(?: due to fenced id error)?:? (?P<error>.*)$",
   "offset_commit_failed", "kafka-python consumer.py")
_r("pre_rebalance_commit_failed", (KP,), r"Pre-rebalance offset commit failed: (?P<error>.*)$", "offset_commit_failed",
   "kafka-python consumer.py 2.2-3.0")
_r("commit_failed", (KP,), r"Offset commit failed: (?P<error>.*)$", "offset_commit_failed", "kafka-python consumer.py 1.3-3.0")
_r("auto_commit_failed", BOTH, r"Auto offset commit failed(?: for group " + GRP + r")?: (?P<error>.*)$", "offset_commit_failed",
   "kafka-python consumer.py 1.3-3.0 (with group); aiokafka 0.5-0.14 (without)")
_r("commit_not_active", (KP,), r"Failing OffsetCommit request since the consumer is not part of an active group$", "offset_commit_failed",
   "kafka-python consumer.py 2.0-3.0")
_r("commit_unauthorized", BOTH, r"Not authorized to commit (?:offsets for group " + GRP + r"|to topics (?P<topics>.*?)(?: for group (?P<group2>\S+))?|failed for unauthorized topics .*)$",
   "offset_commit_failed", "kafka-python consumer.py; aiokafka")
_r("commit_failed_unauth_aio", (AIO,), r"OffsetCommit failed for unauthorized topics (?P<topics>.*)$", "offset_commit_failed", "aiokafka")
# protocol debug lines (kafka-python conn.py '%s Response %d (%s ms): %s' 1.4.0-3.0, protocol/parser.py
# 'Processing response %s' 1.4.0-2.x; aiokafka conn.py '%s Response %d: %s' 0.3-0.14): a group API's
# response dumped, no coordinator fact a person reads
_r("response_dump", BOTH, r"Response \d+(?: \([\d.]+ ms\))?: (?:JoinGroup|SyncGroup|Heartbeat|LeaveGroup|OffsetCommit|OffsetFetch|GroupCoordinator|FindCoordinator)Response_v\d+\(.*$",
   None, "kafka-python conn.py 1.4.0-3.0; aiokafka conn.py 0.3-0.14 (debug)")
_r("processing_response", (KP,), r"Processing response (?:JoinGroup|SyncGroup|Heartbeat|LeaveGroup|OffsetCommit|OffsetFetch|GroupCoordinator|FindCoordinator)Response_v\d+$",
   None, "kafka-python protocol/parser.py 1.4.0-2.x (debug)")
# offsets fetched / reset
_r("no_committed", (KP,), r"Group " + GRP + r" has no committed offset for partition (?P<tp>TopicPartition\(.*\))$", "no_committed_offset",
   "kafka-python consumer.py (debug)")
# kafka-python coordinator/consumer.py 1.3-2.0.x (debug) "Group %s fetching committed offsets for partitions: %s":
# the OffsetFetch request, no fact until its answer ("committed offset" / "has no committed offset" lines)
_r("fetching_committed", (KP,), r"Group " + GRP + r" fetching committed offsets for partitions: (?P<tps>.*)$", None,
   "kafka-python consumer.py 1.3-2.0.x (debug)")
_r("no_committed_aio", (AIO,), r"No committed offset for partition (?P<tp>TopicPartition\(.*\))$", "no_committed_offset", "aiokafka (debug)")
_r("set_committed", (KP,), r"Setting offset for partition (?P<tp>TopicPartition\(.*?\)) to the committed offset (?P<offset_repr>.*)$",
   "offset_fetched", "kafka-python consumer.py 2.2-3.0 (debug)")
_r("reset_committed", (KP,), r"Resetting offset for partition (?P<tp>TopicPartition\(.*?\)) to the committed offset (?P<offset_repr>.*)$",
   "offset_fetched", "kafka-python fetcher.py 1.3-2.0 (debug)")
_r("reset_offset", (KP,), r"Resetting offset for partition (?P<tp>TopicPartition\(.*?\)) to offset (?P<offset>-?\d+)\.$", "offset_reset",
   "kafka-python fetcher.py 2.2-3.0")
_r("reset_strategy", (KP,), r"Resetting offset for partition (?P<tp>TopicPartition\(.*?\)) to (?P<strategy>\w+) offset\.$", "offset_reset",
   "kafka-python fetcher.py 1.3-2.0 (debug)")
_r("out_of_range", BOTH, r"Fetch offset (?P<offset>-?\d+) is out of range for (?:topic-)?partition (?P<tp>TopicPartition\(.*?\))(?P<resetting>, resetting offset)?$",
   "offset_reset", "kafka-python fetcher.py; aiokafka fetcher.py")

# kafka-python kafka/errors.py (kafka/common.py 1.0.x) and aiokafka aiokafka/errors.py BrokerResponseError
# classes -> errno (read at kafka-python 1.0.0, 2.0.2, 2.2.0, 3.0.0; aiokafka 0.14.0; the 2.2+ names
# Coordinator*/NotCoordinatorError beside the older Group*/NotCoordinatorForGroupError), and errno ->
# Kafka's own error name (clients Errors.java: the name the rest of coordscope uses; kafka-python's
# `message` differs for some, e.g. 'NOT_COORDINATOR_FOR_CONSUMER')
_ERRNO_OF_CLASS = {
    "OffsetOutOfRangeError": 1, "UnknownTopicOrPartitionError": 3, "NotLeaderForPartitionError": 6,
    "RequestTimedOutError": 7, "OffsetMetadataTooLargeError": 12, "GroupLoadInProgressError": 14,
    "CoordinatorLoadInProgressError": 14, "GroupCoordinatorNotAvailableError": 15, "CoordinatorNotAvailableError": 15,
    "NotCoordinatorForGroupError": 16, "NotCoordinatorError": 16, "IllegalGenerationError": 22,
    "InconsistentGroupProtocolError": 23, "InvalidGroupIdError": 24, "UnknownMemberIdError": 25,
    "InvalidSessionTimeoutError": 26, "RebalanceInProgressError": 27, "InvalidCommitOffsetSizeError": 28,
    "TopicAuthorizationFailedError": 29, "GroupAuthorizationFailedError": 30, "MemberIdRequiredError": 79,
    "FencedInstanceIdError": 82,
}
_KAFKA_ERROR_NAME = {
    1: "OFFSET_OUT_OF_RANGE", 3: "UNKNOWN_TOPIC_OR_PARTITION", 6: "NOT_LEADER_OR_FOLLOWER", 7: "REQUEST_TIMED_OUT",
    12: "OFFSET_METADATA_TOO_LARGE", 14: "COORDINATOR_LOAD_IN_PROGRESS", 15: "COORDINATOR_NOT_AVAILABLE",
    16: "NOT_COORDINATOR", 22: "ILLEGAL_GENERATION", 23: "INCONSISTENT_GROUP_PROTOCOL", 24: "INVALID_GROUP_ID",
    25: "UNKNOWN_MEMBER_ID", 26: "INVALID_SESSION_TIMEOUT", 27: "REBALANCE_IN_PROGRESS", 28: "INVALID_COMMIT_OFFSET_SIZE",
    29: "TOPIC_AUTHORIZATION_FAILED", 30: "GROUP_AUTHORIZATION_FAILED", 79: "MEMBER_ID_REQUIRED", 82: "FENCED_INSTANCE_ID",
}
# the str() of such an error: "IllegalGenerationError - 22 - <description>" (kafka-python 1.0.x common.py),
# "[Error 22] IllegalGenerationError: <args>" (kafka-python 1.3-3.0, aiokafka), "IllegalGenerationError"
# or "IllegalGenerationError: <args>" (no errno: KafkaError.__str__), maybe in a repr "IllegalGenerationError(...)"
_PY_ERROR = compile_regex(r"(?:\[Error (?P<errno>-?\d+)\] )?(?P<cls>[A-Z]\w*Error)(?: - (?P<errno2>-?\d+) - |: |\(|$)")


def kafka_error_name(text: str) -> str | None:
    """Kafka's error name for a kafka-python/aiokafka error as these clients print it, or None."""
    m = _PY_ERROR.match(text)
    if m is None:
        return None
    errno = m["errno"] or m["errno2"]
    code = int(errno) if errno is not None else _ERRNO_OF_CLASS.get(m["cls"])
    return _KAFKA_ERROR_NAME.get(code) if code is not None else None


def _literal_prefix(pattern: str) -> str:
    """The literal text every match of a rule starts with (up to its first regex construct)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if i + 1 < len(pattern) and not pattern[i + 1].isalnum():
                out.append(pattern[i + 1])
                i += 2
                continue
            break
        if c in ".^$*+?{}[]|()":
            if c in "?*{" and out:
                out.pop()
            break
        out.append(c)
        i += 1
    return "".join(out)


# One search per line finds which rules can match: each rule's leading literal text, longest first
# (a line with none of them costs one regex search, not one per rule).
_BY_PREFIX: dict[str, list[Rule]] = {}
for _rule in RULES:
    _BY_PREFIX.setdefault(_literal_prefix(_rule.regex.pattern), []).append(_rule)
assert all(len(p) >= 5 for p in _BY_PREFIX), "a rule without a leading literal"
_GATE = compile_regex("|".join(re.escape(p) for p in sorted(_BY_PREFIX, key=len, reverse=True)))
_ORDER = {id(r): i for i, r in enumerate(RULES)}


def _candidates(line: str) -> list[Rule]:
    found: set[int] = set()
    out: list[Rule] = []
    for m in _GATE.finditer(line):
        text = m.group(0)
        for prefix, rules in _BY_PREFIX.items():
            if text.startswith(prefix):
                for r in rules:
                    if id(r) not in found:
                        found.add(id(r))
                        out.append(r)
    out.sort(key=lambda r: _ORDER[id(r)])
    return out


def is_client_logger(logger: str) -> bool:
    return _LOGGER.fullmatch(logger) is not None


def names_client_logger(line: str) -> bool:
    return _LOGGER.search(line) is not None


def _library(rule: Rule, logger: str | None, state: dict[str, Any] | None) -> tuple[str | None, tuple[str, ...]]:
    if logger:
        lib = AIO if logger.startswith("aiokafka") else KP
        if lib in rule.libs:
            return lib, ()
    if len(rule.libs) == 1:
        return rule.libs[0], ()
    seen = state.get("python_client") if state else None
    if seen in rule.libs:
        return seen, ()
    return None, rule.libs


# a Python logging format that prints the record's place after the message: "%(message)s,
# %(module)s-%(funcName)s-%(lineno)d" (logging.LogRecord attributes), e.g. ", consumer-_on_join_prepare-268"
_PLACE_SUFFIX = compile_regex(r", (?:[A-Za-z_]\w*)-(?:[A-Za-z_<>]\w*>?)-\d+$")


def parse(line: str, logger: str | None = None, state: dict[str, Any] | None = None) -> Any:
    """Match | IGNORE | None for one line (see the module docstring)."""
    res = _parse(line, logger, state)
    if (res is None or res is UNRECOGNISED) and line[-1:].isdigit():
        m = _PLACE_SUFFIX.search(line)
        if m is not None:
            alt = _parse(line[: m.start()], logger, state)
            if alt is not None and alt is not UNRECOGNISED:
                if isinstance(alt, Match):
                    alt.fields.setdefault("extra", {})["python_place"] = line[m.start() + 2:]
                return alt
    return res


def _parse(line: str, logger: str | None, state: dict[str, Any] | None) -> Any:
    rules = _candidates(line)
    lm = _LOGGER.search(line) if rules or "kafka" in line else None
    lg = lm.group("logger") if lm else (logger if logger and _LOGGER.fullmatch(logger) else None)
    if lg and lm and state is not None:
        state["python_client"] = AIO if lg.startswith("aiokafka") else KP
    for rule in rules:
        m = rule.regex.search(line)
        if m is None:
            continue
        head = line[: m.start()]
        if head.count('"') % 2 or head.count("'") % 2 or head[-1:] not in _MESSAGE_START:
            continue  # the wording quoted inside some other text, or glued to a word: not a log record
        if lg and (AIO if lg.startswith("aiokafka") else KP) not in rule.libs:
            continue
        g = m.groupdict()
        kind = rule.kind(g) if callable(rule.kind) else rule.kind
        if kind is None:
            return IGNORE
        lib, candidates = _library(rule, lg, state)
        f: dict[str, Any] = {"group_id": g.get("group") or g.get("group2"), "member_id": g.get("member") or None,
                             "ts_ms": iso_ms(head)}
        x: dict[str, Any] = {"python_rule": rule.name, "logger": lg}
        lv = _LEVEL.search(head)
        if lv:
            x["level"] = lv.group(1)
        if candidates:
            x["client_library_candidates"] = list(candidates)
        if g.get("generation") is not None:
            f["generation"] = int(g["generation"])
        if g.get("protocol") and g["protocol"] != "None":
            f["protocol"] = g["protocol"]
        if g.get("broker"):  # BrokerMetadata(nodeId=0, ...) 1.x; nodeId='coordinator-0' 2.2+; cut short in pastes
            bm = _NODE_ID.search(g["broker"])
            if bm:
                f["coordinator"] = bm.group(1)
        if g.get("coordinator"):
            c = g["coordinator"]
            f["coordinator"] = c[len("coordinator-"):] if c.startswith("coordinator-") else c
        err = g.get("error") or g.get("error2") or g.get("error3") or g.get("error4")
        if err:
            f["error"] = err.strip()
            name = kafka_error_name(f["error"])
            if name is not None:
                f["error"], x["error_message"] = name, f["error"]
        if g.get("parts") is not None:
            parts = tp_repr_list(g["parts"])
            if parts is None:
                return UNRECOGNISED
            f["partitions"] = parts
        for key in ("owned", "revoked", "added"):
            if g.get(key) is not None:
                x[key] = list(tp_repr_list(g[key]) or ())
        if g.get("tp"):
            tp = tp_repr_one(g["tp"])
            if tp:
                f["topic"], f["partition"] = tp
        if g.get("offset_repr") is not None:
            f["offset"] = oam_offset(g["offset_repr"])
        if g.get("offset") is not None:
            f["offset"] = int(g["offset"])
        if g.get("offsets") is not None:
            parts = tp_repr_list(g["offsets"])
            if parts:
                f["partitions"] = parts
        if g.get("strategy"):
            f["reason"] = f"reset to {g['strategy']}"
        if g.get("instance"):
            f["instance_id"] = g["instance"].strip()
        if g.get("response"):  # GroupCoordinatorResponse_v0(error_code=0, coordinator_id=1001, host=.., port=..)
            cm = _COORDINATOR_ID.search(g["response"])
            if cm and kind == "coordinator_discovered":
                f["coordinator"] = cm.group(1)
            if kind == "coordinator_lookup":
                f["error"] = g["response"]
        if g.get("request"):  # JoinGroupRequest_v0(group='g', session_timeout=.., member_id='', ...)
            rg, rm = _REQ_GROUP.search(g["request"]), _REQ_MEMBER.search(g["request"])
            f["group_id"] = f["group_id"] or (rg["group"] if rg else None)
            f["member_id"] = f["member_id"] or (rm["member"] if rm and rm["member"] else None)
        if g.get("assignor"):
            x["assignor"] = g["assignor"]
        if g.get("topics") is not None:
            x["topics"] = g["topics"]
        if rule.name in ("session_expired", "session_expired_aio"):
            f["reason"] = "heartbeat session expired"
        if rule.name in ("poll_expired", "poll_timeout"):
            f["reason"] = "max_poll_interval_ms exceeded"
        if rule.name == "out_of_range":
            f["reason"] = "fetch offset out of range"
            x["out_of_range_offset"] = f.pop("offset")
        if rule.name == "revoked" and g.get("on_close"):
            f["reason"] = "consumer closing"
        if rule.name.startswith("hb_") and "error" not in f:
            f["error"] = {"hb_rebalancing": "REBALANCE_IN_PROGRESS", "hb_rebalancing_3": "REBALANCE_IN_PROGRESS",
                          "hb_generation": "ILLEGAL_GENERATION", "hb_unknown_member": "UNKNOWN_MEMBER_ID",
                          "hb_unknown_member_aio": "UNKNOWN_MEMBER_ID", "hb_fenced": "FENCED_INSTANCE_ID",
                          "hb_coordinator": "NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE"}.get(rule.name)
        if rule.name == "join_unknown_member":
            f["error"] = "UNKNOWN_MEMBER_ID"
        if rule.name == "join_loading":
            f["error"] = "COORDINATOR_LOAD_IN_PROGRESS"
        if rule.name == "join_rebalancing":
            f["error"] = "REBALANCE_IN_PROGRESS"
        if rule.name == "join_member_id":
            f["error"] = "MEMBER_ID_REQUIRED"
        # the default client_id is "<library>-<version>" and the member id starts with it
        # (kafka-python consumer/group.py, aiokafka consumer.py): a version hint for the file
        vm = _MEMBER_VERSION.match(f.get("member_id") or "")
        if vm and state is not None:
            state[f"{vm.group(1)}_version"] = vm.group(2)
        ver = state.get(f"{lib}_version") if state and lib else None
        if ver:
            x["client_version"] = ver
        out = match(f"{'aiokafka' if lib == AIO else 'kafka_python'}.{rule.name}", kind, lib or KP, f, x)
        if lib is None:  # a wording both print and nothing on the line or in the file says which
            out.fields.pop("client_library", None)
        return out
    if lg and lg.startswith(("kafka.coordinator", "aiokafka.consumer.group_coordinator", "aiokafka.group_coordinator")):
        return UNRECOGNISED  # a coordinator module's line no rule knows
    if rules and "TopicPartition(" in line:
        # one of these clients' wordings with their Python values that no rule reads as a whole (text the
        # layout put after the message, say): not Java's, whose rule would read the repr as no partitions
        return UNRECOGNISED
    return None


CANDIDATE_WORDS: tuple[str, ...] = words.PYCLIENTS  # (parsers/foreign/words.py)
