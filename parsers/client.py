"""Kafka client coordinator messages -> Match (AbstractCoordinator, ConsumerCoordinator, the 3.7+/4.x
membership, heartbeat and commit request managers, Connect's WorkerCoordinator, Streams threads).

How a message is matched (fast and explainable):
1. the LogContext prefix (`[Consumer clientId=.., groupId=..] `, `[Consumer instanceId=.., ...]`,
   `[Worker clientId=.., groupId=..] `, `stream-thread [..] `) is split off and parsed once per
   distinct prefix;
2. the body's first word selects a bucket of rules (one per catalog template, see
   `parsers/client_catalog.py`, plus the hand-written rules below); one combined regex per bucket
   finds the rule, that rule's own regex extracts the fields;
3. placeholder values (Generation{...}, nodes, partition lists, offset maps, request dumps) are
   decoded by `parsers.values` (memoised), and the whole body result is memoised, so constant
   messages (heartbeats, "(Re-)joining group") cost one dictionary lookup.

`parse_client_message` returns a Match, IGNORE (a Kafka line with no coordination event) or None
(a line that looks like a coordinator line but matches no rule: the reader keeps it as `unparsed`).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import parsers as _package
from parsers import values
from parsers.base import IGNORE, Match
from parsers.build_cache import compile_code, compile_regex, derived
from parsers.client_catalog import RULES as CATALOG_RULES
from parsers.grammar import parse_prefix

try:  # Cython's pure-Python mode: this module is also compiled when installed (parsers/_accel.py)
    import cython
except ModuleNotFoundError:
    from parsers._cython_names import cython

# LogContext prefixes: KafkaConsumer.java 1.0-2.2 ("[Consumer clientId=.., groupId=..] "), 2.3+ with
# "instanceId=" (KIP-345), ConsumerUtils.createLogContext 3.7+; Connect WorkerGroupMember.java
# ("[Worker clientId=.., groupId=..] ") 1.0+; ShareConsumer 4.x.
PREFIX = compile_regex(
    r"\[(?P<ctx>Consumer|Worker|ShareConsumer|Producer|AdminClient|StreamsKafkaClient|[A-Z][A-Za-z]*)"
    r" (?:instanceId=(?P<instance>[^,\]]*), )?clientId=(?P<client>[^,\]]*)"
    r"(?:, groupId=(?P<group>[^\]]*))?\] "
)
# Kafka Streams StreamThread/KafkaStreams LogContext: "stream-thread [name] ", "stream-client [name]"
STREAMS_PREFIX = compile_regex(r"stream-(?P<scope>thread|client) \[(?P<name>[^\]]*)\] ?")


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    kind: str | None  # None: the rule recognises the line as carrying no event (IGNORE)
    regex: re.Pattern[str]
    source: str
    first: str
    last: str
    weak_loggers: tuple[str, ...] = ()
    template: str = ""

    @property
    def multiline(self) -> bool:
        return "\n" in self.regex.pattern or "\\n" in self.regex.pattern

    @property
    def version_hint(self) -> str | None:
        if not self.first:
            return None
        last = "current" if self.last in ("current",) else self.last
        return f"{self.first}..{last}"


# Hand-written rules for wordings the template catalog does not class as coordinator events but
# which matter (tried before the catalog rules).
HAND_RULES: tuple[Rule, ...] = (
    # AbstractCoordinator.java 0.9.0.x DEBUG: "Issuing request (JOIN_GROUP: {...}) to coordinator N"
    Rule("issuing_request", "join_started",
         compile_regex(r"^Issuing request \((?P<api>JOIN_GROUP): (?P<struct>.*)\) to coordinator (?P<coordinator>\S+)\s*$"),
         "AbstractCoordinator.java", "0.9.0.0", "0.9.0.1"),
    # Connect DistributedHerder.java 2.3+ (incremental cooperative; protocol version 1/2)
    Rule("connect_joined_with_assignment", "assignment_received",
         compile_regex(r"^Joined group at generation (?P<generation>-?\d+) with protocol version (?P<protocol_version>\d+) "
                    r"and got assignment: (?P<connect_assignment>.*?)(?: with rebalance delay: (?P<delay_ms>\d+))?\s*$"),
         "DistributedHerder.java", "2.3.0", "current"),
    # Connect DistributedHerder.java 0.10-2.2 (eager protocol)
    Rule("connect_joined_eager", "assignment_received",
         compile_regex(r"^Joined group and got assignment: (?P<connect_assignment>.*)$"),
         "DistributedHerder.java", "0.10.0.0", "2.2.2"),
    # Connect WorkerCoordinator.java onJoinPrepare 2.3+: "Rebalance started"
    Rule("connect_rebalance_started", "rebalance_started", compile_regex(r"^Rebalance started\s*$"),
         "WorkerCoordinator.java", "2.3.0", "current"),
    # Streams StreamThread.java / KafkaStreams.java: "State transition from A to B"
    Rule("streams_state_transition", "streams_state_changed",
         compile_regex(r"^State transition from (?P<from_state>[A-Z_]+) to (?P<to_state>[A-Z_]+)\s*$"),
         "StreamThread.java,KafkaStreams.java", "1.0.0", "current"),
    # AbstractCoordinator.java DEBUG, the coordinator lookup's response (ClientResponse#toString):
    # 0.10.2.0-0.11.0.x "Received GroupCoordinator response {} for group {}", 1.0.0 "Received
    # GroupCoordinator response {}", 1.0.1+ "Received FindCoordinator response {}"; the node is read from
    # the responseBody (Struct, FindCoordinatorResponse(node=..) or *Data(nodeId, host, port[, coordinators]))
    Rule("received_groupcoordinator_response_for_group", "coordinator_discovered",
         compile_regex(r"^Received GroupCoordinator response (?P<coord_response>.*) for group (?P<group_id>\S+)\s*$", re.S),
         "AbstractCoordinator.java", "0.10.2.0", "0.11.0.2"),
    Rule("received_groupcoordinator_response", "coordinator_discovered",
         compile_regex(r"^Received GroupCoordinator response (?P<coord_response>.*?)\s*$", re.S),
         "AbstractCoordinator.java", "1.0.0", "1.0.0"),
    Rule("received_findcoordinator_response", "coordinator_discovered",
         compile_regex(r"^Received FindCoordinator response (?P<coord_response>.*?)\s*$", re.S),
         "AbstractCoordinator.java", "1.0.1", "current"),
    # Connect DistributedHerder.java 0.10.0.0+ (unchanged to trunk 2024-10): the worker's config offset
    # is behind the leader's assignment, so it calls member.requestRejoin()
    Rule("connect_forcing_rebalance", "join_started",
         compile_regex(r"^(?P<reason>Current config state offset (?P<config_offset>-?\d+) does not match group assignment "
                    r"(?P<assignment_offset>-?\d+))\. Forcing rebalance\.\s*$"),
         "DistributedHerder.java", "0.10.0.0", "current"),
    # Connect WorkerCoordinator.java 2.4.0+ (incremental cooperative): no coordinator for
    # scheduled.rebalance.max.delay.ms, the worker revokes its own connectors and tasks
    Rule("connect_coordinator_unreachable", "coordinator_lost",
         compile_regex(r"^Broker coordinator was unreachable for (?P<unreachable_ms>-?\d+)ms\. Revoking previous assignment "
                    r"(?P<connect_assignment>.*) to avoid running tasks while not being a member the group\s*$", re.S),
         "WorkerCoordinator.java", "2.4.0", "current"),
    # Streams StreamsMembershipManager.java (clients, KIP-1071 streams groups; 4.1+): a multi-line
    # record "Assigned tasks with local epoch {}\n\tMember: {}\n\tAssigned active tasks: {}\n..." (the
    # TAB lines are optional here: a grep keeps only the first line); later trunk (025be5d1) adds
    # " and group {}" ("is ready" / "is not ready") after the epoch. The local epoch counts the member's
    # own assignments (LocalAssignment.localEpoch), it is not the member epoch: extra.local_epoch
    Rule("streams_assigned_tasks", "assignment_received",
         compile_regex(r"^Assigned tasks with local epoch (?P<local_epoch>-?\d+)(?: and group (?P<group_ready>is (?:not )?ready))?"
                    r"\n\tMember:[ \t]*(?P<member_id>\S*)(?P<streams_tasks>\n.*)?\s*$", re.S),
         "StreamsMembershipManager.java", "trunk-0013464c", "current"),
    Rule("streams_assigned_tasks_first_line", "assignment_received",
         compile_regex(r"^Assigned tasks with local epoch (?P<local_epoch>-?\d+)(?: and group (?P<group_ready>is (?:not )?ready))?\s*$"),
         "StreamsMembershipManager.java", "trunk-0013464c", "current"),
    # StreamsMembershipManager.java (trunk 025be5d1) names tasks, not partitions, when it revokes active
    # tasks ("Revoking previously assigned active tasks {}", "Revoking previously assigned and now lost
    # active tasks {}") and assigns them ("Assigning active tasks {{}}, standby tasks {{}}, and warm-up tasks
    # {{}} to the member."): known lines without an event (which partitions go is not printed)
    Rule("streams_revoking_active_tasks", None,
         compile_regex(r"^Revoking previously assigned (?:and now lost )?active tasks .*$", re.S),
         "StreamsMembershipManager.java", "trunk-025be5d1", "current"),
    Rule("streams_assigning_tasks", None,
         compile_regex(r"^Assigning active tasks \{.*\}, standby tasks \{.*\}, and warm-up tasks \{.*\} to the member\.\s*$", re.S),
         "StreamsMembershipManager.java", "trunk-025be5d1", "current"),
    # AsyncKafkaConsumer.java 3.7+ unsubscribe(): "Unsubscribing all topics or patterns and assigned partitions {}"
    # (the partitions it holds then: extra.owned_partitions), before the membership manager leaves; the
    # "Unsubscribed all topics or patterns and assigned partitions" after it is a catalog rule
    Rule("async_unsubscribing", "subscription_changed",
         compile_regex(r"^Unsubscribing all topics or patterns and assigned partitions (?P<partitions_2>.*?)\s*$"),
         "AsyncKafkaConsumer.java", "3.7.0", "current"),
    # ShareConsumerImpl.java (KIP-932, trunk 2024-10 / 4.0): "Subscribed to topics: {}", "Unsubscribed all topics"
    Rule("share_subscribed", "subscription_changed",
         compile_regex(r"^Subscribed to topics: (?P<topics>.*?)\s*$"), "ShareConsumerImpl.java", "trunk-2024-10-25", "current"),
    Rule("share_unsubscribed", "subscription_changed",
         compile_regex(r"^Unsubscribed all topics\s*$"), "ShareConsumerImpl.java", "trunk-2024-10-25", "current"),
    # AsyncKafkaConsumer.java 3.8+ close(): "Releasing assignment and leaving group before closing consumer"
    # (the member starts leaving: the leave heartbeat follows its callbacks) and "Completed releasing
    # assignment and sending leave group to close consumer" (the leave heartbeat has been sent)
    Rule("async_close_releasing_assignment", "leave_group",
         compile_regex(r"^Releasing assignment and leaving group before closing consumer\s*$"),
         "AsyncKafkaConsumer.java", "3.8.0", "current"),
    Rule("async_close_completed_releasing", "leave_group",
         compile_regex(r"^Completed releasing assignment and sending leave group to close consumer\s*$"),
         "AsyncKafkaConsumer.java", "3.8.0", "current"),
    # Connect DistributedHerder.java 2.3.x only (between the eager "Joined group and got assignment" of
    # 0.10-2.2 and 2.4's "with protocol version"): "Joined group at generation {} and got assignment: {}"
    Rule("connect_joined_at_generation", "assignment_received",
         compile_regex(r"^Joined group at generation (?P<generation>-?\d+) and got assignment: (?P<connect_assignment>.*?)\s*$"),
         "DistributedHerder.java", "2.3.0", "2.3.1"),
    # Streams StreamsRebalanceListener.java 2.4.0+ (StreamThread.java's listener before): "at state {}:
    # partitions {} lost due to missed rebalance.\n\tlost active tasks: {}\n..." (TAB lines optional: a grep
    # keeps only the first)
    Rule("streams_partitions_lost", "partitions_lost",
         compile_regex(r"^at state (?P<state>[A-Z_]+): partitions (?P<partitions>\[[^\]]*\]) lost due to missed rebalance\."
                       r"(?:\s.*)?$", re.S),
         "StreamsRebalanceListener.java", "2.4.0", "current"),
    # the catalog rules of these templates do not capture their values (the template's arguments are
    # expressions: an errorMessage built from the FetchPosition, a ternary epoch): read them here.
    # Fetcher.java 2.6-3.4, AbstractFetch/FetchCollector 3.5+: "Fetch position {} is out of range for
    # partition {}, resetting offset" ({} = FetchPosition{offset=N, ...})
    Rule("fetch_position_is_out_of_range", "offset_reset",
         compile_regex(r"^Fetch position (?P<position>.*?) is out of range for partition (?P<tp>\S+), resetting offset\s*$"),
         "AbstractFetch.java,FetchCollector.java,Fetcher.java", "2.6.0", "current"),
    # CommitRequestManager.java 3.9+: the epoch the member last sent (STALE_MEMBER_EPOCH: implied error)
    Rule("offsetcommit_failed_for_member_with_stale", "offset_commit_failed",
         compile_regex(r"^OffsetCommit failed for member (?P<member_id>\S*?) with stale member epoch error\. "
                       r"Last epoch sent: (?:(?P<member_epoch>-?\d+)|.*?)\s*$"),
         "CommitRequestManager.java", "3.9.0", "current", template="OffsetCommit failed for member {} with stale member epoch error. Last epoch sent: {}"),
    # Fetcher.java 0.9.0.0-1.0.2 "Resetting offset for partition {} to the committed offset {}": the
    # position taken from the group's committed offset, the same fact as 1.1+'s "Setting offset for
    # partition {} to the committed offset {}" (offset_fetched), not an auto.offset.reset
    Rule("resetting_offset_for_partition_to_the", "offset_fetched",
         compile_regex(r"^Resetting offset for partition (?P<tp>\S+?) to the committed offset (?P<offset>-?\d+)\s*$"),
         "Fetcher.java", "0.9.0.0", "1.0.2"),
    # ConsumerCoordinator.java 2.4.0-2.5.1 onJoinComplete: "Updating assignment with\nnow assigned partitions:
    # {}\ncompare with previously owned partitions: {}\nnewly added partitions: {}\nrevoked partitions: {}\n".
    # Its continuation lines are not indented, so behind Kafka's "[%d] %p %m (%c)%n" the record reaches the
    # rules soft-wrapped (reader._soft_wrap: its lines glued with single spaces, up to the "(%c)" line):
    # this rule reads that one-line form (the catalog's rule of the same template reads the newline form)
    Rule("updating_assignment_with_glued", "assignment_received",
         compile_regex(r"^Updating assignment with now assigned partitions: ?(?P<partitions>.*?) ?\bcompare with previously owned "
                       r"partitions: ?(?P<partitions_2>.*?) ?\bnewly added partitions: ?(?P<partitions_3>.*?) ?\brevoked "
                       r"partitions: ?(?P<partitions_4>.*?)\s*$"),
         "ConsumerCoordinator.java", "2.4.0", "2.5.1"),
    # Streams StreamThread.java 1.0-2.x: timing of the rebalance listener callbacks (no event)
    Rule("streams_callback_timing", None,
         compile_regex(r"^partition (?:revocation|assignment) took \d+ ms\."), "StreamThread.java", "1.0.0", "2.3.1"),
)

# Connect WorkerSinkTask.java 0.10.0-trunk (2024-10; unchanged wordings, levels: the commit lines INFO
# until 2.7, DEBUG from 2.8): the sink task's own commit bookkeeping, after its "{} " = the task's toString
# "WorkerSinkTask{id=conn-0}". Only _connect_task_body tries them (after cutting that name and Connect
# 2.3+'s MDC context "[conn|task-0] "): kept out of the buckets, no other line pays for them.
CONNECT_TASK_RULES: tuple[Rule, ...] = (
    Rule("connect_sink_committing", "offset_commit_sent",
         compile_regex(r"^Committing offsets (?P<commit_mode>a?synchronously) using sequence number (?P<sequence>\d+): (?P<offsets>\{.*\})\s*$"),
         "WorkerSinkTask.java", "0.10.0.0", "current"),
    Rule("connect_sink_commit_finished", "offset_committed",
         compile_regex(r"^Finished offset commit successfully in (?P<duration_ms>\d+) ms for sequence number (?P<sequence>\d+): "
                       r"(?P<offsets>\{.*\})\s*$"),
         "WorkerSinkTask.java", "0.10.0.0", "current"),
    Rule("connect_sink_commit_failed", "offset_commit_failed",
         compile_regex(r"^(?P<reason>Offset commit failed), rewinding to last committed offsets\s*$"),
         "WorkerSinkTask.java", "0.10.0.0", "current"),
    Rule("connect_sink_commit_threw", "offset_commit_failed",
         compile_regex(r"^Commit of offsets threw an unexpected exception for sequence number (?P<sequence>\d+): (?P<error>.*?)\s*$"),
         "WorkerSinkTask.java", "0.10.0.0", "current"),
    Rule("connect_sink_commit_timed_out", "offset_commit_failed",
         compile_regex(r"^(?P<reason>Commit of offsets timed out)\s*$"), "WorkerSinkTask.java", "1.0.0", "current"),
    Rule("connect_sink_rewinding", "offset_seek",
         compile_regex(r"^Rewinding topic partition (?P<tp>\S+) to offset (?P<offset>-?\d+)\s*$"),
         "WorkerSinkTask.java", "0.10.0.0", "current"),
    Rule("connect_sink_rewind", "offset_seek",
         compile_regex(r"^Rewind (?P<tp>\S+) to offset (?P<offset>-?\d+)\s*$"), "WorkerSinkTask.java", "0.10.0.0", "current"),
)

# the kinds whose meaning a reason may change, and the new consumer's reasons
# (kafka-coordinator-reason-strings.tsv) that change what a line means
_REASON_RULE_KINDS = ("leave_group", "join_started", "generation_reset")
_REASON_KINDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (compile_regex(r"consumer poll timeout has expired", re.I), "poll_timeout"),
    (compile_regex(r"rebalance failed due to"), "rebalance_failed"),
)

# Errors that a wording states in words, not as a printed name (AbstractCoordinator.java 0.9-2.x heartbeat
# and join handlers, ConsumerCoordinator.java's SyncGroup, CommitRequestManager.java 3.9+): the Errors
# constant the handler branch is for, matched on the rule's template (or its regex) when the decoder is
# made: a constant store, nothing per line. Wordings whose branch covers several errors (coordinator
# "either not started or not valid", "obsolete coordinator information") name none.
_IMPLIED_ERRORS: tuple[tuple[re.Pattern[str], str], ...] = (
    # 0.9 "Attempt to heart beat failed since the group is rebalancing", 0.10.0-0.10.1 "heart beat failed for
    # group {} since it is rebalancing", 0.10.2-0.11 "heartbeat failed for group {} since ..", 1.0-2.x "since
    # group is rebalancing"; SyncGroup 0.10-0.11 "failed due to coordinator rebalance", 1.0-2.4 "failed
    # because the group began another rebalance"
    (compile_regex(r"Attempt to heart ?beat failed(?: for group \S+)? since (?:the group is |it is |group is )rebalancing"
                   r"|SyncGroup (?:for group \S+ )?failed (?:due to coordinator rebalance|because the group began another rebalance)"),
     "REBALANCE_IN_PROGRESS"),
    # 0.9-0.11 "since generation id is not legal", 1.0-2.x "since generation {} is not current"
    (compile_regex(r"Attempt to heart ?beat failed(?: for group \S+)? since generation (?:id is not legal|\S+ is not current)"),
     "ILLEGAL_GENERATION"),
    # 0.9-0.11 "since member id is not valid", 1.0-2.x "failed for since member id {} is not valid"; join:
    # 0.9 "failed due to unknown member id, resetting and retrying", 0.10-2.x "failed due to unknown member id."
    (compile_regex(r"Attempt to heart ?beat failed(?: for group \S+| for)? since member id (?:\S+ )?is not valid"
                   r"|Attempt to join group (?:\S+ )?failed due to unknown member id"), "UNKNOWN_MEMBER_ID"),
    # 0.9-2.x "Attempt to join group [{}] rejected since coordinator [{}] is loading the group."
    (compile_regex(r"Attempt to join group (?:\S+ )?rejected since coordinator (?:\S+ )?is loading the group"),
     "COORDINATOR_LOAD_IN_PROGRESS"),
    # CommitRequestManager.java 3.9+
    (compile_regex(r"OffsetCommit failed for member \S+ with stale member epoch error"), "STALE_MEMBER_EPOCH"),
    # HeartbeatRequestManager.java 3.7-3.9 / AbstractHeartbeatRequestManager.java 4.0+ onErrorResponse: the
    # String.format message of each case (the broker's errorMessage follows after " in {}ms: ")
    (compile_regex(r"\S+ failed for member \S+ because epoch \S+ is fenced\."), "FENCED_MEMBER_EPOCH"),
    (compile_regex(r"\S+ failed because member \S+ is unknown\."), "UNKNOWN_MEMBER_ID"),
    (compile_regex(r"\S+ failed because the group coordinator .* is incorrect\."), "NOT_COORDINATOR"),
    (compile_regex(r"\S+ failed because the group coordinator .* is not available\."), "COORDINATOR_NOT_AVAILABLE"),
    (compile_regex(r"\S+ failed because the group coordinator .* is still loading\."), "COORDINATOR_LOAD_IN_PROGRESS"),
)
_IMPLIED_START = ("Attempt to ", "SyncGroup ", "OffsetCommit failed for member ", "{} failed ",
                  "GroupHeartbeatRequest failed ")


def _implied_error(rule: Rule) -> str | None:
    """The error `rule`'s wording states in words (anchored at the template's start: one match per
    pattern, for the few templates that start like these)."""
    text = rule.template or rule.regex.pattern.lstrip("^").replace("\\", "")
    if not text.startswith(_IMPLIED_START):
        return None
    for rx, err in _IMPLIED_ERRORS:
        if rx.match(text):
            return err
    return None


# AbstractCoordinator.java 3.0+ resetStateOnResponseError / 2.5-2.8 resetGenerationOnResponseError:
# the reason "encountered {Errors} from {ApiKeys} response" names the error
_ENCOUNTERED = compile_regex(r"encountered ([A-Z][A-Z_]+) from [A-Z_]+ response")


# loggers (simple class names) whose lines are coordinator lines by construction
COORDINATOR_LOGGERS = frozenset({
    "AbstractCoordinator", "ConsumerCoordinator", "WorkerCoordinator", "MembershipManagerImpl",
    "ConsumerMembershipManager", "AbstractMembershipManager", "ShareMembershipManager",
    "HeartbeatRequestManager", "ConsumerHeartbeatRequestManager", "AbstractHeartbeatRequestManager",
    "CommitRequestManager", "CoordinatorRequestManager", "ConsumerRebalanceListenerInvoker",
    "StreamsRebalanceListener", "StreamsPartitionAssignor",
})
# wording that marks a coordinator line whatever the logger says
# (each alternative contains a CANDIDATE_WORDS entry, so the JVM-side filter keeps these lines too)
STRONG = compile_regex(
    r"[Gg]eneration|[Cc]oordinator|[Rr]ebalanc|[Hh]eartbeat|JoinGroup|SyncGroup|LeaveGroup|OffsetCommit|"
    r"OffsetFetch|committed offset|member epoch|with epoch|newly assigned|assigned partitions|"
    r"[Rr]evok|joining group|joined group|[Ss]ubscribed to|auto-commit|[Rr]esetting offset|[Ss]eeking to"
)

# literal substrings, one of which every line any client rule can match contains
CANDIDATE_WORDS: tuple[str, ...] = ()  # filled below from the rules


def _compile_rules() -> tuple[list[Rule], dict[str, list[Rule]], list[Rule]]:
    rules: list[Rule] = list(HAND_RULES)
    hand = {r.name for r in HAND_RULES}
    for name, kind, _cls, rx, src, first, last, weak, template in CATALOG_RULES:
        if name in hand:  # a hand rule of the same name reads more of the message (see HAND_RULES)
            continue
        rules.append(Rule(name, kind, compile_regex(rx, re.S), src, first, last, tuple(weak), template))
    buckets: dict[str, list[Rule]] = {}
    generic: list[Rule] = []
    for r in rules:
        key = _literal_first_word(r.regex.pattern)
        if key:
            buckets.setdefault(key, []).append(r)
        else:
            generic.append(r)
    return rules, buckets, generic


def _literal_first_word(pattern: str) -> str:
    """The first word of a `^literal...` rule regex, unescaped; '' when it starts with a group."""
    p = pattern[1:] if pattern.startswith("^") else pattern
    out = []
    i = 0
    while i < len(p):
        c = p[i]
        if c == "\\" and i + 1 < len(p):
            nxt = p[i + 1]
            if nxt == " " or nxt in "sdwSDWn":
                break
            out.append(nxt)
            i += 2
            continue
        if c in "([.*+?|{$^":
            return ""
        if c == " ":
            break
        out.append(c)
        i += 1
    return "".join(out)


# A lazy placeholder followed by literal text, `(?P<g>.*?)\ with\ generation\ `, makes Python's
# regex engine try the rest of the pattern at every later position of a line that does not hold
# that text (sre has no literal shortcut for lazy repeats): "Successfully joined group {} with
# generation {}" cost ~1.5 µs on every "Successfully joined group with generation Generation{..}"
# line before its neighbour rule matched. In the combined regexes (not in the rules' own) such a
# placeholder gets a lookahead for its literal, `(?=.*\ with\ generation\ )`: a greedy `.*`
# followed by a literal, which sre scans for in C. The lookahead only states what the rest of the
# alternative requires anyway (the literal after the placeholder, somewhere after this position;
# `.` matches everything under re.S, as in the placeholder), holds no group and consumes nothing,
# so every match (and every group of it) is the same (tests/parsers/test_fast_paths.py).
_LAZY_ANY = re.compile(r"\(\?P<\w+>\.\*\?\)")
_LITERAL_ATOM = re.compile(r"\\[^A-Za-z0-9]|[^.^$*+?{}\[\]\\|()]")
_QUANTIFIER = frozenset("*+?{")
_GUARD_MIN = 4  # literal characters worth a lookahead


# A lazy run of non-space characters followed by a space, `(?P<member_id>\S*?)\ with`, can only end
# where the run of non-space characters ends: written greedy it is the same match (sre then skips
# the retries at every character of a member id).
_LAZY_NONSPACE = re.compile(r"(\(\?P<\w+>\\S[*+])\?(\)\\ )")


def _guard_lazy(pattern: str) -> str:
    """`pattern` with a lookahead for the literal after each lazy `.*?` placeholder, and lazy
    non-space placeholders before a space made greedy (see above)."""
    if "\\S" in pattern:
        pattern = _LAZY_NONSPACE.sub(r"\1\2", pattern)
    if "(?P<" not in pattern or ".*?)" not in pattern:
        return pattern
    out = []
    last = 0
    for m in _LAZY_ANY.finditer(pattern):
        atoms = []
        pos = m.end()
        while True:
            a = _LITERAL_ATOM.match(pattern, pos)
            if a is None:
                break
            atoms.append(a.group())
            pos = a.end()
        if atoms and pattern[pos:pos + 1] in _QUANTIFIER and pos < len(pattern):
            atoms.pop()  # the last atom is optional or repeated: not required as written
        if len(atoms) >= _GUARD_MIN:
            out.append(pattern[last:m.start()])
            out.append(f"(?=.*{''.join(atoms)})")
            last = m.start()
    if not out:
        return pattern
    out.append(pattern[last:])
    return "".join(out)


_GUARDED: dict[str, str] | None = None  # rule pattern -> _guard_lazy(pattern), for the rules of ALL_RULES


def _guarded(pattern: str) -> str:
    """_guard_lazy(pattern), from the build cache for the rules' own patterns (the transform of
    ~460 patterns is ~10 ms of every process's start), keyed by this file's text and the patterns."""
    global _GUARDED
    if _GUARDED is None:
        patterns = sorted({r.regex.pattern for r in ALL_RULES})
        # (crc32, not build_cache.source_hash: ~1 ms less; the entry is plain strings, and this
        # file's text is part of the key, so an edit of _guard_lazy is a new key; found beside the
        # package's __init__.py: this module's __file__ is its extension's when it runs compiled,
        # parsers/_accel.py)
        text = "\0".join((Path(_package.__file__).with_name("client.py").read_text(encoding="utf-8"), *patterns)).encode("utf-8", "surrogatepass")
        key = f"{zlib.crc32(text):08x}-{len(text)}"
        _GUARDED = derived("client:guarded", key, lambda: {p: _guard_lazy(p) for p in patterns})
    g = _GUARDED.get(pattern)
    return g if g is not None else _guard_lazy(pattern)


class _Combo:
    """Rules found and decoded with one combined regex (one match per line)."""

    __slots__ = ("rules", "single", "multi")

    def __init__(self, rules: list[Rule]) -> None:
        self.rules = rules
        self.__class__ = _UnmadeCombo  # single and multi are made on their first use

    @staticmethod
    def _combine(rules: list[Rule]):
        if not rules:
            return None
        alts = []
        for i, r in enumerate(rules):
            body = re.sub(r"\(\?P<(\w+)>", rf"(?P<r{i}__\1>", _guarded(r.regex.pattern))
            alts.append(f"(?P<r{i}>{body})")
        rx = compile_regex("|".join(alts), re.S)
        # per rule: its decoder, generated from its plan (group number in the combined regex,
        # handler, field key for each placeholder with a handler) once here instead of a plan loop
        # with a handler call per placeholder and line
        # (built on a rule's first match: a file hits a few dozen of the ~460 rules, and making a
        # decoder costs ~20 µs of every process's start)
        decoders: list[Any] = []
        for i, r in enumerate(rules):
            plan = []
            for n in r.regex.groupindex:
                h = _handler(n)
                if h is not None:
                    plan.append((rx.groupindex[f"r{i}__{n}"], h, n))
            decoders.append(_LazyDecoder(plan, r, decoders, i))
        return rx, rules, decoders, {f"r{i}": i for i in range(len(rules))}

    def locate(self, head: str, full: str, logger_cls: str | None) -> tuple[Rule, Any, Any] | None:
        """(rule, match, decoder) of the rule that matches, or for the weak-logger fallback
        (rule, None, groupdict); nothing decoded yet."""
        multi = self.multi
        if multi is not None and "\n" in full:
            found = self._locate(multi, full, logger_cls)
            if found is not None:
                return found
        single = self.single
        return None if single is None else self._locate(single, head, logger_cls)

    def _locate(self, combo: Any, text: str, logger_cls: str | None) -> tuple[Rule, Any, Any] | None:
        rx, rules, decoders, index = combo
        m = rx.match(text)
        if m is None:
            return None
        idx = index[m.lastgroup]
        r = rules[idx]
        if r.weak_loggers and logger_cls not in r.weak_loggers:
            # a near-empty template outside its logger: try the remaining rules one by one
            found = self._find_slow(text, logger_cls, rules[idx + 1:])
            return None if found is None else (found[0], None, found[1])
        return r, m, decoders[idx]

    # (head and full: the message body the reader sliced, an exact str; single: this combo's tuple)
    @cython.locals(head=str, full=str, single=tuple)
    def find(self, head: str, full: str, logger_cls: str | None) -> tuple[str, str | None, dict, dict] | None:
        """The body's result, (rule name, kind, fields, extra + {"rule": name}), or None."""
        if self.multi is None or "\n" not in full:  # the usual one-line case, written out
            single = self.single
            if single is None:
                return None
            rx, rules, decoders, index = single
            m = rx.match(head)
            if m is None:
                return None
            idx = index[m.lastgroup]
            r = rules[idx]
            if not r.weak_loggers or logger_cls in r.weak_loggers:
                return decoders[idx](m)  # type: ignore[no-any-return]
        return _decoded(self.locate(head, full, logger_cls))

    @staticmethod
    def _find_slow(text: str, logger_cls: str | None, rules: list[Rule]) -> tuple[Rule, dict[str, str | None]] | None:
        for r in rules:
            if r.weak_loggers and logger_cls not in r.weak_loggers:
                continue
            fm = r.regex.match(text)
            if fm is not None:
                return r, fm.groupdict()
        return None


class _UnmadeCombo(_Combo):
    """A _Combo whose combined regexes are not made yet: the first read of `single` or `multi`
    makes both (a run asks a few dozen of the ~250 combos; making one is ~0.1-0.3 ms of rewriting
    and loading its regex) and turns it into a plain _Combo, whose attribute reads then skip the
    `__getattr__` hook (a class with one pays it on every read). Two threads may both make them:
    equal results."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name not in ("single", "multi"):
            raise AttributeError(name)
        single = self._combine([r for r in self.rules if not r.multiline])
        multi = self._combine([r for r in self.rules if r.multiline])
        self.single, self.multi = single, multi
        self.__class__ = _Combo
        return single if name == "single" else multi


def _signature(rule: Rule) -> str:
    """The longest literal phrase after a template's first placeholder ("Member {} with epoch {}
    transitioned from {} to {}." -> "transitioned from"): a substring test on it narrows a big
    bucket before any regex runs. Phrases with line breaks are not used, and a run of spaces ends a
    phrase (the rule regexes allow those to vary: catalog_tools.template_regex writes a run as
    `\\s+`, a single space as itself): "Member {} with epoch {} generated the  heartbeat to leave
    ..." -> "heartbeat to leave ...", not "with epoch", which most lines of the bucket hold."""
    parts = rule.template.replace("\\n", "\n").replace("\\t", "\t").split("{}") if rule.template else []
    best = ""
    for seg in parts[1:]:
        if "\n" in seg or "\t" in seg:
            continue
        for piece in seg.split("  "):
            piece = piece.strip(" .,:;()[]'")
            if len(piece) > len(best):
                best = piece
    return best if len(best) >= 4 else ""


# lower-case letters from the commonest to the rarest in English text
_LETTERS_BY_FREQUENCY = "etaoinshrdlcumwfgypbvkjxqz"


def _rarest_letter(sig: str) -> str:
    """The signature's rarest lower-case letter ("" when it has none: `"" in head` is true)."""
    letters = [c for c in set(sig) if c in _LETTERS_BY_FREQUENCY]
    return max(letters, key=_LETTERS_BY_FREQUENCY.index) if letters else ""


class _Bucket:
    """Rules sharing a first word, sub-grouped by signature word; the rule that comes first in the
    bucket's order (most specific) wins when several groups match."""

    __slots__ = ("groups", "order", "only", "fitting")

    def __init__(self, rules: list[Rule]) -> None:
        self.order = {r.name: i for i, r in enumerate(rules)}
        by_sig: dict[str, list[Rule]] = {}
        for r in rules:
            by_sig.setdefault(_signature(r) if len(rules) > 8 else "", []).append(r)
        # (first rule's position, signature, combo), by position: once a rule matched, the groups
        # whose rules all come after it cannot win and are not asked
        self.groups = sorted(((self.order[rs[0].name], sig, _Combo(rs)) for sig, rs in by_sig.items()),
                             key=lambda g: g[0])
        # most buckets are one group without a signature: their combo is asked directly
        self.only = self.groups[0][2] if len(self.groups) == 1 and not self.groups[0][1] else None
        # fitting[n]: the groups whose signature is not longer than n characters (a longer one cannot
        # be in a head of n characters), in the same order; the last entry serves longer heads
        # (made on the bucket's first one-line search: most buckets are never asked)
        self.fitting: list[tuple[Any, ...]] | None = None

    def _fitting(self) -> list[tuple[Any, ...]]:
        # each as (first rule's position, signature, its rarest letter, combo): the letter is looked
        # for first (one character: memchr, ~1/4 of a phrase's search on a 150-character head)
        longest = max(len(sig) for _first, sig, _combo in self.groups)
        groups = [(first, sig, _rarest_letter(sig), combo) for first, sig, combo in self.groups]
        self.fitting = [tuple(g for g in groups if len(g[1]) <= n) for n in range(longest + 1)]
        return self.fitting

    # (head and full: as _Combo.find's; the loop's parts: this bucket's own tuples, made by _fitting)
    @cython.locals(head=str, full=str, fitting=list, sig=str, rare=str, single=tuple, hit=tuple)
    def find(self, head: str, full: str, logger_cls: str | None) -> tuple[str, str | None, dict, dict] | None:
        if self.only is not None:
            return self.only.find(head, full, logger_cls)
        if "\n" not in full:  # one line: only the single-line combos, _Combo.locate written out
            best = None
            best_pos = len(self.order)
            fitting = self.fitting
            if fitting is None:
                fitting = self._fitting()
            for first, sig, rare, combo in fitting[len(head) if len(head) < len(fitting) else -1]:
                if first > best_pos:
                    break
                if sig and (rare not in head or sig not in head):
                    continue
                single = combo.single
                if single is None:
                    continue
                m = single[0].match(head)
                if m is None:
                    continue
                rules = single[1]
                idx = single[3][m.lastgroup]
                r = rules[idx]
                hit: tuple[Rule, Any, Any]
                if r.weak_loggers and logger_cls not in r.weak_loggers:
                    slow = combo._find_slow(head, logger_cls, rules[idx + 1:])
                    if slow is None:
                        continue
                    hit = (slow[0], None, slow[1])
                else:
                    hit = (r, m, single[2][idx])
                pos = self.order[hit[0].name]
                if pos < best_pos:
                    best, best_pos = hit, pos
            if best is not None and best[1] is not None:  # _decoded, written out for a regex match
                return best[2](best[1])  # type: ignore[no-any-return]
            return _decoded(best)
        best = None
        best_pos = len(self.order)
        order = self.order
        for first, sig, combo in self.groups:
            if first > best_pos:
                break
            if sig and sig not in head:
                continue
            found = combo.locate(head, full, logger_cls)
            if found is not None:
                pos = order[found[0].name]
                if pos < best_pos:
                    best, best_pos = found, pos
        return _decoded(best)  # only the winner is decoded




def _candidate_words() -> tuple[str, ...]:
    # a cover of every client template's literal text (tests check each rendered template contains
    # one), chosen to avoid what non-coordinator lines carry: not "roup" (every LogContext prefix has
    # "groupId="), not "partition"/"offset" alone (broker log housekeeping is full of them)
    return (
        "oordinator", "eneration", "ommit", "eartbeat", "ssign", "evok", "evocation", "ebalanc",
        "ubscri", "Member", "member", "epoch", "group ", "Group", "oined group", "joining group",
        "active group", "oll timeout", "econcil", "nstance", "Protocol Name", "ffsetFetch", "ffset fetch",
        "esetting offset", "esponded successfully", "failed because", "failed due to",
        "completed with error", "State transition", "etch offset", "etching offset", "eeking to",
        "User provided listener", "nstable offsets", "pause flag", "ms: ",
        "Rewind",  # Connect WorkerSinkTask.java 0.10+ "Rewinding topic partition", "Rewind {} to offset" (session 20)
    )


CANDIDATE_WORDS = _candidate_words()


@lru_cache(maxsize=4096)
def logger_class(logger: str | None) -> str | None:
    if not logger:
        return None
    cls = logger.rsplit(".", 1)[-1]
    return cls.split(":", 1)[0]


# The grammar's `prefix` rule (grammars/client.lark) for the commonest prefixes, without Lark: every
# value a run of id characters (no space, comma, bracket or quote), the parts in the rule's order.
# On such text the rule has exactly one reading (CONTEXT, then PVALUEs that end where these runs
# end), so the groups are the grammar's values (tests/parsers/test_value_grammar.py compares both on
# generated prefixes). Reading a file of such prefixes then never imports Lark (~25 ms of every
# `coordscope parse`, plus ~0.07 ms a distinct prefix).
_PLAIN_PREFIX = compile_regex(
    r"\[(Consumer|Worker|ShareConsumer|Producer|AdminClient|StreamsKafkaClient) "
    r"(?:instanceId=([A-Za-z0-9._\-]+), )?clientId=([A-Za-z0-9._\-]+)(?:, groupId=([A-Za-z0-9._\-]+))?\] "
)


def _plain_prefix(prefix: str) -> dict[str, Any] | None:
    """parse_prefix(prefix) for a plain prefix (_PLAIN_PREFIX), None for any other text."""
    m = _PLAIN_PREFIX.fullmatch(prefix)
    if m is None:
        return None
    context, instance, client, group = m.groups()
    d: dict[str, Any] = {"context": context}
    if instance is not None:
        d["instance_id"] = instance
    d["client_id"] = client
    if group is not None:
        d["group_id"] = group
    return d


@lru_cache(maxsize=4096)
def _prefix_fields(prefix: str) -> tuple[tuple[str, Any], ...]:
    parsed = _plain_prefix(prefix)
    if parsed is None:
        parsed = parse_prefix(prefix)  # the grammar's `prefix` rule, once per distinct prefix
    if parsed is not None:
        out = [(k, v) for k, v in parsed.items() if v is not None and v not in ("...", "null")]
    else:
        m = PREFIX.match(prefix)
        if m is None:
            return ()
        out = [("context", m.group("ctx"))]
        for key, f in (("client", "client_id"), ("group", "group_id"), ("instance", "instance_id")):
            v = m.group(key)
            if v and v not in ("...", "null"):
                out.append((f, v))
    # ShareConsumerImpl's LogContext (3.9+, KIP-932): a share consumer is only ever in a share group
    if ("context", "ShareConsumer") in out:
        out.append(("group_type", "share"))
    return tuple(out)


# --- the group's type (classic | consumer | share | streams), from what printed the line ---------
# The class that logs a message proves the group protocol: AbstractCoordinator/ConsumerCoordinator
# and Connect's WorkerCoordinator/DistributedHerder run only the classic protocol; the 3.7+
# membership/heartbeat managers only the consumer (KIP-848), share (KIP-932) or streams (KIP-1071)
# protocol. Abstract* managers are shared (consumer and share), so their lines take the type from
# the logger or the LogContext prefix, or stay unknown.
_FILE_GROUP_TYPE = {
    "AbstractCoordinator.java": "classic", "ConsumerCoordinator.java": "classic",
    "WorkerCoordinator.java": "classic", "DistributedHerder.java": "classic", "WorkerGroupMember.java": "classic",
    "MembershipManagerImpl.java": "consumer", "ConsumerMembershipManager.java": "consumer",
    "ConsumerHeartbeatRequestManager.java": "consumer", "HeartbeatRequestManager.java": "consumer",
    "ShareMembershipManager.java": "share", "ShareHeartbeatRequestManager.java": "share",
    "ShareConsumerImpl.java": "share", "ShareConsumeRequestManager.java": "share",
    "StreamsMembershipManager.java": "streams", "StreamsGroupHeartbeatRequestManager.java": "streams",
}
# ClassicKafkaConsumer (3.7+) is the group.protocol=classic implementation
_LOGGER_GROUP_TYPE = {f[:-5]: t for f, t in _FILE_GROUP_TYPE.items()} | {"ClassicKafkaConsumer": "classic"}


def _rule_group_type(rule: Rule) -> str | None:
    types = {_FILE_GROUP_TYPE.get(f.strip()) for f in rule.source.split(",")}
    return types.pop() if len(types) == 1 else None


def _group_type(rule_name: str, logger_cls: str | None) -> str | None:
    t = _LOGGER_GROUP_TYPE.get(logger_cls) if logger_cls else None
    return t if t is not None else _RULE_GROUP_TYPES.get(rule_name)


def split_prefix(message: str) -> tuple[dict[str, Any], str]:
    """LogContext prefix fields and the message body."""
    if message.startswith("["):
        m = PREFIX.match(message)
        if m is not None:
            return dict(_prefix_fields(m.group(0))), message[m.end():]
        return {}, message
    if message.startswith("stream-"):
        m = STREAMS_PREFIX.match(message)
        if m is not None:
            fields: dict[str, Any] = {"context": f"stream-{m.group('scope')}"}
            fields["extra"] = {f"stream_{m.group('scope')}": m.group("name")}
            if m.group("scope") == "thread":
                fields["client_id"] = m.group("name")
            return fields, message[m.end():]
    return {}, message


# --- placeholder values -> Event fields: one handler per placeholder kind ----------------------
# handler(text, fields, extra, key); the key decides the handler once (cached), not per line

def _h_int(text: str, fields: dict, extra: dict, key: str) -> None:
    try:
        fields[key] = int(text)
    except ValueError:
        pass


def _h_str(text: str, fields: dict, extra: dict, key: str) -> None:
    if text and text not in ("...", "null"):
        fields[key] = text


def _h_generation(text: str, fields: dict, extra: dict, key: str) -> None:
    gen, member, proto = values.generation(text)
    if gen is not None:
        fields.setdefault("generation", gen)
    if member:
        fields.setdefault("member_id", member)
    if proto:
        fields.setdefault("protocol", proto)


def _h_coordinator(text: str, fields: dict, extra: dict, key: str) -> None:
    coord, nid = values.node(text)
    if coord is not None:
        fields.setdefault("coordinator", coord)
    if nid is not None:
        extra.setdefault("coordinator_id", nid)


def _h_tp(text: str, fields: dict, extra: dict, key: str) -> None:
    topic, part = values.topic_partition(text)
    if topic is not None:
        fields.setdefault("topic", topic)
        fields.setdefault("partition", part)
        fields.setdefault("partitions", (f"{topic}-{part}",))


def _h_position(text: str, fields: dict, extra: dict, key: str) -> None:
    off = values.fetch_position_offset(text)
    if off is not None:
        fields["offset"] = off


def _h_offsets(text: str, fields: dict, extra: dict, key: str) -> None:
    entries = values.offsets_map(text)
    if entries:
        if len(entries) == 1:  # the common case: one partition per commit line
            tp, off, _epoch = entries[0]
            topic, part = values.topic_partition(tp)
            fields.setdefault("partitions", (tp,))
            extra["offsets"] = {tp: off}
            if topic is not None:
                fields.setdefault("topic", topic)
                fields.setdefault("partition", part)
            fields.setdefault("offset", off)
            return
        fields.setdefault("partitions", tuple(e[0] for e in entries))
        extra["offsets"] = {e[0]: e[1] for e in entries}
        return
    parts = values.partitions(text)
    if parts:
        fields.setdefault("partitions", parts)


_PARTITION_EXTRA = {"partitions_2": "owned_partitions", "partitions_3": "added_partitions",
                    "partitions_4": "revoked_partitions"}


def _h_partitions(text: str, fields: dict, extra: dict, key: str) -> None:
    parts = values.partitions(text)
    if key in _PARTITION_EXTRA:
        extra[_PARTITION_EXTRA[key]] = list(parts)
    elif "partitions" not in fields:
        fields["partitions"] = parts
    if key.startswith("assignment"):
        assignments = values.assignment_map(text)
        if assignments:
            extra["assignments"] = {m: list(p) for m, p in assignments}


def _h_extra_str(text: str, fields: dict, extra: dict, key: str) -> None:
    extra[key] = text


def _h_extra_int(text: str, fields: dict, extra: dict, key: str) -> None:
    try:
        extra[key] = int(text)
    except ValueError:
        pass


def _h_error(text: str, fields: dict, extra: dict, key: str) -> None:
    fields.setdefault("error", text)


def _h_reason(text: str, fields: dict, extra: dict, key: str) -> None:
    fields.setdefault("reason", text)


def _h_struct(text: str, fields: dict, extra: dict, key: str) -> None:
    for f, v in values.struct_fields(text):
        if f in ("generation", "member_id", "member_epoch", "protocol", "group_id", "instance_id"):
            fields.setdefault(f, v)
        else:
            extra.setdefault(f, v)


def _h_connect(text: str, fields: dict, extra: dict, key: str) -> None:
    # Connect ExtendedAssignment#toString: Assignment{error=0, leader='..', leaderUrl='..', offset=8, ...}
    for k2 in ("leaderUrl", "offset", "error"):
        m2 = re.search(rf"\b{k2}='?([^,'}}]*)'?", text)
        if m2:
            extra[f"connect_{k2}"] = m2.group(1)
    m2 = re.search(r"\bleader='([^']*)'", text)
    if m2:
        extra["leader"] = m2.group(1)


def _h_bool(text: str, fields: dict, extra: dict, key: str) -> None:
    extra[key] = text == "true"


# the coordinator in a FindCoordinator / GroupCoordinator response dump, whichever rendering:
# 3.0+ batched `coordinators=[Coordinator(key='g', nodeId=1, host='h', port=9092, errorCode=0, ..)]`,
# 2.3+ `FindCoordinatorResponseData(.., errorCode=0, errorMessage=.., nodeId=1, host='h', port=9092)`,
# 0.11-2.2 `FindCoordinatorResponse(.., error=NONE, node=h:9092 (id: 1 rack: null))`,
# 0.10.2-0.11 Struct `{error_code=0,coordinator={node_id=1,host=h,port=9092}}`
_RESP_COORDINATOR = compile_regex(r"Coordinator\((?P<body>[^()]*)\)")
_RESP_DATA = compile_regex(r"nodeId=(?P<id>-?\d+), host='(?P<host>[^']*)', port=(?P<port>-?\d+)")
_RESP_NODE = compile_regex(r"node=(?P<host>[^\s:,()]+):(?P<port>-?\d+) \(id: (?P<id>-?\d+)")
_RESP_STRUCT = compile_regex(r"coordinator=\{node_id=(?P<id>-?\d+),host=(?P<host>[^,}]*),port=(?P<port>-?\d+)")
_RESP_ERROR = compile_regex(r"\b(?:errorCode|error_code)=(?P<code>-?\d+)|\berror=(?P<name>[A-Z_]+)")


def _h_coord_response(text: str, fields: dict, extra: dict, key: str) -> None:
    """A response without error names its coordinator: `coordinator` = host:port and
    extra.coordinator_broker_id = the broker id as printed (the response's nodeId, not the
    Integer.MAX_VALUE - id connection id of "Discovered group coordinator" lines). A response with
    an error, or sent over a broken connection, found no coordinator: kind coordinator_lookup + error."""
    m = _RESP_COORDINATOR.search(text)
    scope = m.group("body") if m else text
    if "disconnected=true" in text:
        fields["error"] = "disconnected"
    em = _RESP_ERROR.search(scope)
    if em is not None and em.group("code") not in (None, "0"):
        fields.setdefault("error", f"error_code={em.group('code')}")
    elif em is not None and em.group("name") not in (None, "NONE"):
        fields.setdefault("error", em.group("name"))
    node = _RESP_DATA.search(scope) or _RESP_NODE.search(scope) or _RESP_STRUCT.search(scope)
    if "error" not in fields and node is not None:
        port = node.group("port")
        nid = node.group("id")
        if node.group("host") and int(port) > 0 and int(nid) >= 0:
            fields["coordinator"] = f"{node.group('host')}:{port}"
            extra["coordinator_broker_id"] = int(nid)
            return
    extra["kind"] = "coordinator_lookup"  # no coordinator in the response: a lookup, not a discovery


# StreamsMembershipManager "Assigned tasks with local epoch" record: "\tAssigned active tasks: [0_0, 1_2]"
_STREAMS_TASK_LINE = compile_regex(r"^[ \t]*(?P<label>[A-Za-z -]+?):[ \t]*(?P<tasks>.*?)[ \t]*$", re.M)


def _h_streams_tasks(text: str, fields: dict, extra: dict, key: str) -> None:
    for m in _STREAMS_TASK_LINE.finditer(text):
        label = re.sub(r"[^a-z]+", "_", m.group("label").lower()).strip("_")
        tasks = m.group("tasks").strip("[]{} ")
        extra[label] = [t.strip() for t in tasks.split(",") if t.strip()] if tasks else []


@lru_cache(maxsize=1024)
def _handler(key: str):
    base = key.rsplit("_", 1)[0] if key[-1:].isdigit() and key[-2:-1] == "_" else key
    if base in ("generation", "member_epoch", "offset"):
        return _h_int if base == key else None
    if base == "generation_obj":
        return _h_generation
    if base in ("group_id", "member_id", "instance_id", "protocol"):
        return _h_str if base == key else None
    table = {
        "coordinator": _h_coordinator, "tp": _h_tp, "position": _h_position, "offsets": _h_offsets,
        "partitions": _h_partitions, "assignment": _h_partitions, "from_state": _h_extra_str,
        "to_state": _h_extra_str, "error": _h_error, "reason": _h_reason, "struct": _h_struct,
        "connect_assignment": _h_connect, "disconnect_ms": _h_extra_int, "backoff_ms": _h_extra_int,
        "delay_ms": _h_extra_int, "protocol_version": _h_extra_int, "is_disconnected": _h_bool,
        "api": _h_extra_str, "request": _h_extra_str, "assignor": _h_extra_str, "topics": _h_extra_str,
        "coord_response": _h_coord_response, "streams_tasks": _h_streams_tasks, "config_offset": _h_extra_int,
        "assignment_offset": _h_extra_int, "unreachable_ms": _h_extra_int,
        "sequence": _h_extra_int, "duration_ms": _h_extra_int, "commit_mode": _h_extra_str,
        "local_epoch": _h_extra_int, "group_ready": _h_extra_str,
    }
    return table.get(base)


def _decoder(plan: list[tuple[int, Any, str]], rule: Rule):
    """decode(match) -> the body's result (rule name, kind, fields, extra + {"rule": name}) for one
    rule: its handlers in plan order, then what _fields_from and the version hint add, specialised
    to the rule. The commonest handlers are written inline (_INLINE: the same statements in the
    same order, no call per placeholder), and a `setdefault` of theirs is a plain store where no
    earlier placeholder of the rule can have set the key (a handler not written inline may set
    anything: after it, every such store stays a `setdefault`)."""
    ns: dict[str, Any] = {"_reason_kind": _reason_kind, "_gen": values.generation, "_node": values.node,
                          "_tp": values.topic_partition, "_offsets_map": values.offsets_map,
                          "_partitions": values.partitions, "_fetch_position": values.fetch_position_offset}
    lines = ["def decode(m):", "    fields = {}", "    extra = {}"]
    # keys that may be set so far (None: unknown, after a handler called, not written inline)
    maybe: set[str] | None = set()
    maybe_extra: set[str] | None = set()

    def put(ind: str, key: str, expr: str, where: str = "fields") -> None:
        """`where.setdefault(key, expr)`, as a store when the key cannot be set yet."""
        nonlocal maybe, maybe_extra
        known = maybe if where == "fields" else maybe_extra
        if known is not None and key not in known:
            lines.append(f"{ind}{where}[{key!r}] = {expr}")
            known.add(key)
        else:
            lines.append(f"{ind}{where}.setdefault({key!r}, {expr})")

    def int_store(ind: str, where: str, key: str) -> list[str]:
        # an int placeholder: stored when the text is a number (handlers _h_int / _h_extra_int)
        return [f"{ind}try:", f"{ind}    {where}[{key!r}] = int(text)", f"{ind}except ValueError:", f"{ind}    pass"]

    if len(plan) == 1:
        lines.append(f"    r0 = m.group({plan[0][0]})")
    elif plan:
        lines.append(f"    {', '.join(f'r{j}' for j in range(len(plan)))} = m.group({', '.join(str(n) for n, _h, _k in plan)})")
    for j, (_num, h, key) in enumerate(plan):
        lines += [f"    if r{j} is not None:", f"        text = r{j}.strip()"]
        i8 = " " * 8
        if h is _h_int:
            lines += int_store(i8, "fields", key)
            if maybe is not None:
                maybe.add(key)
        elif h is _h_str:
            lines += [f"{i8}if text and text not in ('...', 'null'):", f"{i8}    fields[{key!r}] = text"]
            if maybe is not None:
                maybe.add(key)
        elif h is _h_error or h is _h_reason:
            put(i8, "error" if h is _h_error else "reason", "text")
        elif h is _h_extra_str:
            lines.append(f"{i8}extra[{key!r}] = text")
            if maybe_extra is not None:
                maybe_extra.add(key)
        elif h is _h_extra_int:
            lines += int_store(i8, "extra", key)
            if maybe_extra is not None:
                maybe_extra.add(key)
        elif h is _h_generation:
            lines += [f"{i8}gen, member, proto = _gen(text)", f"{i8}if gen is not None:"]
            put(i8 + "    ", "generation", "gen")
            lines.append(f"{i8}if member:")
            put(i8 + "    ", "member_id", "member")
            lines.append(f"{i8}if proto:")
            put(i8 + "    ", "protocol", "proto")
        elif h is _h_coordinator:
            lines += [f"{i8}coord, nid = _node(text)", f"{i8}if coord is not None:"]
            put(i8 + "    ", "coordinator", "coord")
            lines.append(f"{i8}if nid is not None:")
            put(i8 + "    ", "coordinator_id", "nid", "extra")
        elif h is _h_tp:
            lines += [f"{i8}topic, part = _tp(text)", f"{i8}if topic is not None:"]
            put(i8 + "    ", "topic", "topic")
            put(i8 + "    ", "partition", "part")
            put(i8 + "    ", "partitions", "(f'{topic}-{part}',)")
        elif h is _h_position:
            lines += [f"{i8}off = _fetch_position(text)", f"{i8}if off is not None:", f"{i8}    fields['offset'] = off"]
            if maybe is not None:
                maybe.add("offset")
        elif h is _h_offsets:
            # (the stores of both branches are decided on the keys known before the handler)
            before, before_extra = (None if maybe is None else set(maybe)), (None if maybe_extra is None else set(maybe_extra))
            after: set[str] | None = set()
            lines += [f"{i8}entries = _offsets_map(text)", f"{i8}if entries:", f"{i8}    if len(entries) == 1:",
                      f"{i8}        tp, off, _epoch = entries[0]", f"{i8}        topic, part = _tp(tp)"]
            i16 = i8 + "        "
            put(i16, "partitions", "(tp,)")
            lines.append(f"{i16}extra['offsets'] = {{tp: off}}")
            lines.append(f"{i16}if topic is not None:")
            put(i16 + "    ", "topic", "topic")
            put(i16 + "    ", "partition", "part")
            put(i16, "offset", "off")
            after = maybe
            maybe = None if before is None else set(before)
            lines.append(f"{i8}    else:")
            put(i16, "partitions", "tuple(e[0] for e in entries)")
            lines.append(f"{i16}extra['offsets'] = {{e[0]: e[1] for e in entries}}")
            lines += [f"{i8}else:", f"{i8}    parts = _partitions(text)", f"{i8}    if parts:"]
            maybe = None if before is None else set(before)
            put(i16, "partitions", "parts")
            maybe = None if (before is None or after is None) else after | {"partitions"}
            if maybe_extra is not None:
                maybe_extra = (before_extra or set()) | {"offsets"}
        else:
            ns[f"_h{j}"] = h
            lines.append(f"{i8}_h{j}(text, fields, extra, {key!r})")
            maybe = maybe_extra = None
    implied = _implied_error(rule)
    if implied and "error" in rule.regex.groupindex:
        # the wording names the error; the text printed after it (the broker's errorMessage) is kept apart
        lines += ["    printed = fields.get('error')", f"    if printed is not None and printed != {implied!r}:",
                  "        extra['error_message'] = printed", f"    fields['error'] = {implied!r}"]
        if maybe is not None:
            maybe.add("error")
    elif implied:
        put("    ", "error", repr(implied))
    if "reason" in rule.regex.groupindex:
        ns["_encountered"] = _ENCOUNTERED
        lines += ["    reason = fields.get('reason')", "    if reason and 'encountered ' in reason:",
                  "        em = _encountered.search(reason)", "        if em:", "            fields.setdefault('error', em.group(1))"]
    lines.append(f"    kind = {rule.kind!r}")
    if "coord_response" in rule.regex.groupindex:  # the handler says when the response found no coordinator
        lines.append("    kind = extra.pop('kind', kind)")
    if rule.kind in _REASON_RULE_KINDS:
        lines += ["    reason = fields.get('reason')", "    if reason:", "        kind = _reason_kind(kind, reason)"]
    if rule.version_hint:
        put("    ", "kafka_version_hint", repr(rule.version_hint))
    lines += [f"    extra['rule'] = {rule.name!r}", f"    return {rule.name!r}, kind, fields, extra"]
    # the code object from the build cache when the same source was compiled before
    exec(compile_code("\n".join(lines), "<string>"), ns)  # noqa: S102 - generated from the rule's own placeholder names
    return ns["decode"]


class _LazyDecoder:
    """A stand-in for decoders[i] that makes the rule's decoder on its first call and puts it in
    its place (two threads may both make it: the same function)."""

    __slots__ = ("plan", "rule", "decoders", "i")

    def __init__(self, plan: list[tuple[int, Any, str]], rule: Rule, decoders: list[Any], i: int) -> None:
        self.plan, self.rule, self.decoders, self.i = plan, rule, decoders, i

    def make(self) -> Any:
        dec = self.decoders[self.i] = _decoder(self.plan, self.rule)
        return dec

    def __call__(self, m: Any) -> Any:
        return self.make()(m)


def make_all_combos() -> int:
    """Make every bucket's combined regexes now instead of at the bucket's first search (the Spark
    worker daemon, so that its forked workers share them); returns how many combos were made."""
    made = 0
    for bucket in (*_BUCKETS.values(), _GENERIC):
        for _first, _sig, combo in bucket.groups:
            if type(combo) is _UnmadeCombo:
                combo.single  # noqa: B018 - makes single and multi
                made += 1
    return made


def make_all_decoders() -> int:
    """Make every rule's decoder now instead of at its first match (tests, cache warm-up); returns
    how many were made."""
    made = 0
    for bucket in (*_BUCKETS.values(), _GENERIC):
        for _first, _sig, combo in bucket.groups:
            for part in (combo.single, combo.multi):
                for dec in part[2] if part is not None else ():
                    if type(dec) is _LazyDecoder:
                        dec.make()
                        made += 1
    return made


def _decoded(found: tuple[Rule, Any, Any] | None) -> tuple[str, str | None, dict, dict] | None:
    """The result for a located rule: its decoder run on the match, or for the weak-logger fallback
    (no match, a groupdict) the generic decoding."""
    if found is None:
        return None
    r, m, dec = found
    if m is not None:
        return dec(m)  # type: ignore[no-any-return]
    kind, fields = _fields_from(r, dec)
    extra = fields.pop("extra", None) or {}
    if r.version_hint:
        fields.setdefault("kafka_version_hint", r.version_hint)
    extra["rule"] = r.name
    return r.name, kind, fields, extra


def _reason_kind(kind: str | None, reason: str) -> str | None:
    for rx, k in _REASON_KINDS:
        if rx.search(reason):
            return k
    return kind


_HANDLERS: dict[str, Any] = {}  # placeholder name -> handler (or None), filled on first sight
_UNKNOWN = object()


def _fields_from(rule: Rule, groups: Any) -> tuple[str | None, dict[str, Any]]:
    """Event fields of a match: `groups` is either already decoded (fields, extra) by the combined
    regex's plan, or a groupdict (the weak-logger fallback) decoded here."""
    if type(groups) is tuple:
        fields, extra = groups
    else:
        fields, extra = {}, {}
        handlers = _HANDLERS
        for key, raw in groups.items():
            if raw is None:
                continue
            h = handlers.get(key, _UNKNOWN)
            if h is _UNKNOWN:
                h = handlers[key] = _handler(key)
            if h is not None:
                h(raw.strip(), fields, extra, key)
    kind = extra.pop("kind", rule.kind)
    reason = fields.get("reason")
    if reason and kind in _REASON_RULE_KINDS:
        kind = _reason_kind(kind, reason)
    if extra:
        fields["extra"] = extra
    return kind, fields


# the rules, bucketed by first word (built here: the buckets' decoding plans need the handlers)
ALL_RULES, _BUCKET_RULES, _GENERIC_RULES = _compile_rules()
_BUCKETS = {k: _Bucket(v) for k, v in _BUCKET_RULES.items()}
_GENERIC = _Bucket(_GENERIC_RULES)
RULES_BY_NAME = {r.name: r for r in (*ALL_RULES, *CONNECT_TASK_RULES)}
_RULE_GROUP_TYPES = {r.name: t for r in ALL_RULES if (t := _rule_group_type(r)) is not None}
_VERSION_HINTS = {r.name: r.version_hint for r in ALL_RULES}  # the property, computed once per rule


MEMO_MAX = 2048  # characters of a message body that may be memoised
# The body memo admits a body the second time it is seen. Most bodies of a real log occur once
# (member ids, offsets, epochs vary), and memoising those costs more than the repeats save: every
# entry is a tuple holding dicts, which CPython's cyclic GC never untracks and keeps traversing.
# Bodies that do repeat (heartbeats, state transitions, commits of an idle partition) repeat
# often, so they lose one hit. The memo is emptied when full (its hot bodies come back at their
# next sight, being in _SEEN); _SEEN, strings only, is emptied when it reaches SEEN_ENTRIES.
MEMO_ENTRIES = 4096
SEEN_ENTRIES = 16384
_MEMO: dict[tuple[str, str | None], Any] = {}
_SEEN: set[tuple[str, str | None]] = set()
_ABSENT = object()
_NO_ID = "<no ID>"


def _parse_body(body: str, logger_cls: str | None) -> tuple[str, str | None, dict[str, Any], dict[str, Any]] | None:
    """_match_body, memoised (see _MEMO): callers copy both dicts of the result."""
    res = _MEMO.get((body, logger_cls), _ABSENT)
    return _parse_body_miss(body, logger_cls) if res is _ABSENT else res  # type: ignore[no-any-return]


# (body: a slice the reader made, an exact str)
@cython.locals(body=str)
def _parse_body_miss(body: str, logger_cls: str | None, key: tuple[str, str | None] | None = None
                     ) -> tuple[str, str | None, dict[str, Any], dict[str, Any]] | None:
    """_parse_body for a body not in the memo: match it, and admit it if seen before. `key`: the
    memo's key, (body, logger_cls), when the caller has built it for its lookup."""
    if key is None:
        key = (body, logger_cls)
    # 4.x memberIdInfoForLog(): a member without id yet; 3.7-3.9 printed it empty ("<" first: one
    # character is found by memchr, the phrase's search costs ~700 instructions on a long body)
    if "<" in body and _NO_ID in body:
        body = body.replace(_NO_ID, "")
    if "\n" in body:
        res = _match_body(body, logger_cls)
    else:  # _match_body for a one-line body, written out (and _Combo.find of a one-combo bucket)
        # the first word (partition copies the rest, and still costs ~700 instructions less than
        # find and a slice: callgrind, a 130-character body)
        bucket = _BUCKETS.get(body.partition(" ")[0])
        res = None
        if bucket is not None:
            only = bucket.only
            if only is None:
                res = bucket.find(body, body, logger_cls)
            elif only.single is not None:
                rx, rules, decoders, index = only.single
                m = rx.match(body)
                if m is not None:
                    idx = index[m.lastgroup]
                    weak = rules[idx].weak_loggers
                    res = decoders[idx](m) if not weak or logger_cls in weak else only.find(body, body, logger_cls)
        if res is None:
            res = _GENERIC.find(body, body, logger_cls)
    if res is None and "Task{id=" in body:
        res = _connect_task_body(body, logger_cls)
    if res is not None and res[1] is not None and "group_type" not in res[2]:
        # _group_type, written out (the types are non-empty strings: `or` takes the rule's when the
        # logger names none)
        gt = _LOGGER_GROUP_TYPE.get(logger_cls) or _RULE_GROUP_TYPES.get(res[0])
        if gt is not None:
            res[2]["group_type"] = gt
    if len(body) <= MEMO_MAX:  # a memo of huge messages would hold megabytes
        if key in _SEEN:
            if len(_MEMO) >= MEMO_ENTRIES:
                _MEMO.clear()
            _MEMO[key] = res
        else:
            if len(_SEEN) >= SEEN_ENTRIES:
                _SEEN.clear()
            _SEEN.add(key)
    return res


# Connect WorkerSinkTask/WorkerSourceTask messages start with the task's toString ("WorkerSinkTask{id=conn-0} ",
# WorkerTask.java 0.10+), behind Connect 2.3+'s "%X{connector.context}" ("[conn|task-0] ", KIP-449)
_CONNECT_TASK = compile_regex(r"^(?:\[(?P<ctx>[^\]\n|]+\|[^\]\n]+)\] )?Worker(?:Sink|Source)Task\{id=(?P<task>[^}\s]+)\} ")


def _connect_task_body(body: str, logger_cls: str | None) -> tuple[str, str | None, dict[str, Any], dict[str, Any]] | None:
    """A miss whose body is a Connect task's message: the rules read what follows the task's name."""
    m = _CONNECT_TASK.match(body)
    if m is None:
        return None
    rest = body[m.end():]
    global _CONNECT_TASK_DECODERS
    if _CONNECT_TASK_DECODERS is None:
        _CONNECT_TASK_DECODERS = [
            (r, _decoder([(r.regex.groupindex[n], h, n) for n in r.regex.groupindex if (h := _handler(n)) is not None], r))
            for r in CONNECT_TASK_RULES]
    for r, dec in _CONNECT_TASK_DECODERS:
        mm = r.regex.match(rest)
        if mm is not None:
            name, kind, fields, extra = dec(mm)
            extra["connect_task"] = m.group("task")
            return name, kind, fields, extra
    return None


_CONNECT_TASK_DECODERS: list[tuple[Rule, Any]] | None = None


def _match_body(body: str, logger_cls: str | None) -> tuple[str, str | None, dict[str, Any], dict[str, Any]] | None:
    """(rule name, kind, fields without "extra", extra + {"rule": name}) for a message body."""
    head = body.split("\n", 1)[0] if "\n" in body else body
    word = head.split(" ", 1)[0]
    found = None
    bucket = _BUCKETS.get(word)
    if bucket is not None:
        only = bucket.only
        found = only.find(head, body, logger_cls) if only is not None else bucket.find(head, body, logger_cls)
    if found is None:
        found = _GENERIC.find(head, body, logger_cls)
    return found


_KAFKA_LOGGER = compile_regex(r"(?:org\.apache\.kafka|o\.a\.k|o\.a\.kafka|kafka|k|a\.k|utils|internals|distributed)\.")


def kafka_logger(logger: str | None) -> bool:
    """Unknown (no logger in the layout) or a Kafka client/Connect/Streams logger, maybe abbreviated."""
    return not logger or _KAFKA_LOGGER.match(logger) is not None or logger_class(logger) in COORDINATOR_LOGGERS


def looks_like_coordinator_line(body: str, logger: str | None) -> bool:
    """Would an SRE expect a rule for this line? (then an unmatched line is `unparsed`, not ignored)"""
    if logger_class(logger) in COORDINATOR_LOGGERS:
        return True
    return kafka_logger(logger) and STRONG.search(body) is not None


@lru_cache(maxsize=4096)
def _prefix_at(prefix: str) -> tuple[tuple[str, Any], ...] | None:
    """Fields of a candidate "[...] " prefix, None when it is not a LogContext prefix."""
    m = PREFIX.match(prefix)
    if m is None or m.end() != len(prefix):
        return None
    return _prefix_fields(prefix)


def _split_fast(message: str) -> tuple[tuple[tuple[str, Any], ...], str]:
    if message[:1] == "[":
        end = message.find("] ")
        if end > 0:
            pf = _prefix_at(message[: end + 2])
            if pf is not None:
                return pf, message[end + 2:]
        return (), message
    if message[:7] == "stream-":
        d, body = split_prefix(message)
        return tuple(d.items()), body
    return (), message


# The tail memo of reader.run_log4j: what its hot path made of a line, keyed by the line's text
# after its "[yyyy-MM-dd HH:mm:ss,SSS] " (level, prefix, body and logger: everything the outcome
# depends on but the time, the line number and the file's Kafka version): (kind, event_row of the
# fields, extra, level, logger, message). A repeated client line (heartbeats, commits of an idle
# partition, state transitions of one member) then costs a dict lookup and an Event instead of
# the layout regex, the prefix split and the body memo. Admission and bounds as _MEMO's.
LINE_MEMO_MAX = 2048
LINE_MEMO_ENTRIES = 4096
LINE_SEEN_ENTRIES = 16384
LINE_MEMO: dict[str, tuple] = {}
LINE_SEEN: set[str] = set()


def clear_memos() -> None:
    """Forget every memoised message body, line tail and value (benchmarks start each timed run cold)."""
    from parsers import grammar, timestamps

    _MEMO.clear()
    _SEEN.clear()
    LINE_MEMO.clear()
    LINE_SEEN.clear()
    for f in (values.generation, values.node, values.partitions, values.offsets_map, values.struct_fields,
              values.topic_partition,
              values.assignment_map, grammar.parse_value, grammar.parse_prefix, _prefix_at, _prefix_fields, _prefix_dict,
              logger_class, timestamps._second_ms, timestamps._day_ms, timestamps._local_second_ms):
        f.cache_clear()


def parse_client(message: str, logger: str | None):
    """(rule, kind, fields) | IGNORE | None: parse_client_message without building a Match (hot path)."""
    prefix, body = _split_fast(message)
    res = _parse_body(body, logger_class(logger))
    if res is None:
        if looks_like_coordinator_line(body.split("\n", 1)[0], logger):
            return None
        return IGNORE
    rule, kind, cached, cached_extra = res
    if kind is None:
        return IGNORE
    fields = cached.copy()
    if len(cached_extra) > 1:
        fields["extra"] = {k: v for k, v in cached_extra.items() if k != "rule"}
    for k, v in prefix:
        if k == "extra":
            fields.setdefault("extra", {}).update(v)
        elif k not in fields and k != "context":
            fields[k] = v
    return rule, kind, fields


@lru_cache(maxsize=4096)
def _prefix_dict(prefix: str) -> dict[str, Any] | None:
    """The Event fields of a LogContext prefix ("context" left out), shared: callers copy it."""
    pairs = _prefix_at(prefix)
    return None if pairs is None else {k: v for k, v in pairs if k != "context"}


_NO_FIELDS: dict[str, Any] = {}


def parse_client_parts(message: str, logger: str | None):
    """What the reader builds an Event from: (rule, kind, fields, extra) as fresh dicts, with the
    rule name already in `extra` and no "extra" key in `fields` | IGNORE | None. The same result
    as parse_client, with one dict merge per line on a memo hit instead of copies and a loop."""
    if message[:1] == "[":
        end = message.find("] ")
        pf = _prefix_dict(message[: end + 2]) if end > 0 else None
        if pf is None:
            pf, body = _NO_FIELDS, message
        else:
            body = message[end + 2:]
    elif message[:7] == "stream-":  # Streams prefixes carry `extra` too: the general path
        res = parse_client(message, logger)
        if type(res) is not tuple:
            return res
        rule, kind, fields = res
        extra = fields.pop("extra", None) or {}
        extra["rule"] = rule
        return rule, kind, fields, extra
    else:
        pf, body = _NO_FIELDS, message
    cls = logger_class(logger)
    res = _MEMO.get((body, cls), _ABSENT)  # _parse_body, written out
    if res is _ABSENT:
        res = _parse_body_miss(body, cls)
    if res is None:
        if looks_like_coordinator_line(body.split("\n", 1)[0], logger):
            return None
        return IGNORE
    rule, kind, cached, extra = res
    if kind is None:
        return IGNORE
    return rule, kind, {**pf, **cached}, extra.copy()


def parse_client_message(message: str, logger: str | None) -> Match | Any | None:
    """One client log message (LogContext prefix included; continuation lines joined with '\\n')."""
    res = parse_client(message, logger)
    if res is None or res is IGNORE:
        return res
    return Match(*res)


def explain_rule(name: str) -> Rule | None:
    return RULES_BY_NAME.get(name)
