"""librdkafka consumer-group lines (the C client under confluent-kafka-python/-go/-dotnet and
node-rdkafka) -> event fields.

A line is read in two steps. The envelope: librdkafka's own stderr layout
`%LEVEL|SECS.MS|FACILITY|NAME| [thrd:T]: message` (rd_kafka_log_print, rdkafka.c 1.0-2.x) or a
binding's rendering of the same (level, facility, instance name, text): confluent-kafka-python's
logger `FACILITY [NAME] text` (confluent_kafka.c log_cb), confluent-kafka-go's LogEvent.String()
`[time][NAME][FACILITY][level]text` (kafka/log.go), .NET's default Loggers.ConsoleLogger
`Level|yyyy-MM-dd HH:mm:ss.fff|NAME|FACILITY| text` (Loggers.cs), node-rdkafka's `event.log`
object `{severity, fac, message, name}` printed as JSON or by util.inspect, or Python's repr of
such a dict. Then the message, after its `[thrd:T]: ` (log.thread.name=true, the default) and the
broker name rd_rkb_dbg puts before it, is matched against one rule per format string of
rdkafka_cgrp.c, rdkafka_assignment.c, rdkafka_offset.c and rdkafka_request.c (versions per rule;
tests/parsers/foreign/SOURCES.md lists them). The facility, when the envelope names one, narrows
the rules; without one (a bare `message: '...'` line of util.inspect) every rule is tried.

A message of a consumer-group facility that no rule knows is UNRECOGNISED (counted unparsed); the
known format strings that carry no event (op dispatch, metadata, terminate bookkeeping) are IGNORE.
Lines of other facilities (BROKER, FETCH, METADATA, ...) are not consumer-group lines: None.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from parsers.build_cache import compile_regex
from parsers.foreign import words
from parsers.foreign.common import IGNORE, UNRECOGNISED, iso_ms, json_object, match, rd_tp_list

LIBRARY = "librdkafka"

# facilities of the consumer-group code (rdkafka_cgrp.c, rdkafka_assignment.c, rdkafka_offset.c and
# the group requests of rdkafka_request.c), 1.0-2.x; a line of one of these is a candidate
CGRP_FACILITIES = frozenset("""
CGRP CGRPSTATE CGRPJOINSTATE CGRPOP CGRPQUERY CGRPCOORD CGRPTERM CGRPTIMEOUT CGRPMETADATA COORD COORDSET
COORDCLEAR HEARTBEAT JOIN JOINGROUP SYNCGROUP GRPSYNC LEAVE LEAVEGROUP REJOIN NOREJOIN ASSIGN ASSIGNOR
ASSIGNMENT ASSIGNDONE COOPASSIGN UNASSIGN CLEARASSIGN REMOVEASSIGN REBALANCE REVOKE LOST COMMIT
COMMITFAIL AUTOCOMMIT OFFSET OFFSETFETCH FETCHSTART MAXPOLL MEMBERID MEMBERMETA SESSTMOUT SUBSCRIBE
SUBSCRIPTION UNSUBSCRIBE MODSUB GRPLEADER PARTADD PARTDEL SRVPEND STOPSERVE FATAL BARRIER
""".split())

_LEVELS = {"0": "EMERG", "1": "ALERT", "2": "CRIT", "3": "ERROR", "4": "WARNING", "5": "NOTICE",
           "6": "INFO", "7": "DEBUG"}
_NAME = r"[^\s|\[\]'\"]*#(?:consumer|producer)-\d+"


@dataclass(slots=True)
class Envelope:
    binding: str  # native | python | go | dotnet | node | dict | bare
    message: str
    facility: str | None = None
    name: str | None = None
    level: str | None = None
    ts_ms: int | None = None


# rdkafka.c rd_kafka_log_print (1.0-2.x): "%%%i|%u.%03u|%s|%s| %s\n"
_NATIVE = compile_regex(r"%(?P<lvl>[0-7])\|(?P<s>\d{9,11})\.(?P<ms>\d{3})\|(?P<fac>[A-Z0-9_]+)\|(?P<name>[^|]*)\| (?P<msg>.*)$")
# confluent-kafka-go kafka/log.go LogEvent.String(): "[%v][%s][%s][%d]%s" (time RFC 3339, name, tag, level)
_GO = compile_regex(r"\[(?P<ts>\d{4}-\d{2}-\d{2}T[^\]]*)\]\[(?P<name>[^\]]*)\]\[(?P<fac>[A-Z0-9_]+)\]\[(?P<lvl>\d)\](?P<msg>.*)$")
# confluent-kafka-dotnet Loggers.ConsoleLogger: "{Level}|{yyyy-MM-dd HH:mm:ss.fff}|{Name}|{Facility}| {Message}";
# also the common OnLog handler "{Name}|{Facility}| {Message}" of the examples
_DOTNET = compile_regex(r"(?:(?P<lvl>[A-Z][a-z]+)\|(?P<ts>\d{4}-\d{2}-\d{2} [\d:.]+)\|)?(?P<name>" + _NAME
                     + r")\|(?P<fac>[A-Z0-9_]+)\| ?(?P<msg>.*)$")
# confluent-kafka-python confluent_kafka.c log_cb: logger.log(level, "%s [%s] %s", fac, name, buf)
_PYTHON = compile_regex(r"(?<![\w|\[])(?P<fac>[A-Z][A-Z0-9_]+) \[(?P<name>" + _NAME + r")\] (?P<msg>.*)$")
# a dict-like record: node-rdkafka event.log {severity, fac, message, name}, as JSON, util.inspect or repr
_DICT_FAC = compile_regex(r"""['"]?\bfac['"]?\s*[:=]\s*['"](?P<fac>[A-Z0-9_]+)['"]""")
_DICT_NAME = compile_regex(r"""['"]?\bname['"]?\s*[:=]\s*['"](?P<name>""" + _NAME + r""")['"]""")
_DICT_SEV = compile_regex(r"""['"]?\bseverity['"]?\s*[:=]\s*(?P<lvl>[0-7])\b""")
_DICT_MSG = compile_regex(r"""['"]?\b(?:message|msg|buf|str)['"]?\s*[:=]\s*(?P<q>['"`])(?P<msg>(?:\\.|(?!(?P=q)).)*)(?P=q)""")
_PY_LEVEL = compile_regex(r"\b(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\b")
_BARE_NAME = compile_regex(r"[^\s|\[\]()'\"]*#(?:consumer|producer)-\d+")


def _unescape(text: str, quote: str) -> str:
    if "\\" not in text:
        return text
    try:
        return ast.literal_eval(quote + text + quote) if quote in "'\"" else text
    except (ValueError, SyntaxError):
        return text.replace("\\" + quote, quote)


def envelope(line: str) -> Envelope | None:
    """The envelope of a librdkafka line, or None when the line is not one."""
    if "|" in line:
        m = _NATIVE.search(line)
        if m:
            return Envelope("native", m["msg"], m["fac"], m["name"] or None, _LEVELS.get(m["lvl"]),
                            int(m["s"]) * 1000 + int(m["ms"]))
        m = _DOTNET.search(line)
        if m:
            lvl = m["lvl"].upper() if m["lvl"] else None
            return Envelope("dotnet", m["msg"], m["fac"], m["name"], lvl, iso_ms(m["ts"]) if m["ts"] else None)
    if "][" in line:
        m = _GO.search(line)
        if m:
            return Envelope("go", m["msg"].lstrip(), m["fac"], m["name"] or None, _LEVELS.get(m["lvl"]), iso_ms(m["ts"]))
    if "fac" in line and ("message" in line or "msg" in line or "str" in line):
        obj = json_object(line[line.find("{"):]) if "{" in line else None
        if obj is not None and isinstance(obj.get("fac"), str):
            msg = obj.get("message", obj.get("msg", obj.get("str", "")))
            sev = obj.get("severity", obj.get("level"))
            return Envelope("node", str(msg), obj["fac"], obj.get("name"),
                            _LEVELS.get(str(sev)) if sev is not None else None, None)
        fm, mm = _DICT_FAC.search(line), _DICT_MSG.search(line)
        if fm and mm:
            nm, sm = _DICT_NAME.search(line), _DICT_SEV.search(line)
            return Envelope("dict", _unescape(mm["msg"], mm["q"]), fm["fac"], nm["name"] if nm else None,
                            _LEVELS.get(sm["lvl"]) if sm else None, iso_ms(line[: line.find("{")]) if "{" in line else None)
    m = _PYTHON.search(line)
    if m:  # the Python logging layout's time and level, if it prints them, are before the facility
        head = line[: m.start()]
        lv = _PY_LEVEL.search(head)
        return Envelope("python", m["msg"], m["fac"], m["name"], lv.group(1) if lv else None, iso_ms(head))
    i = line.find("[thrd:")
    if i >= 0:  # only the message survived (util.inspect's `  message: '[thrd:..]: ..'` line, custom layouts)
        msg = line[i:]
        if i > 0 and line[i - 1] in "'\"`":
            q = line[i - 1]
            end = msg.rfind(q)
            msg = _unescape(msg[:end] if end > 0 else msg, q)
        # the instance name an application's log handler may print before it (.NET's
        # "From(rdkafka#consumer-1) [thrd:..]", "[rdkafka#consumer-1] [thrd:..]"): the client id
        nm = _BARE_NAME.search(line, 0, i) if "#" in line[:i] else None
        return Envelope("bare", msg, name=nm.group(0) if nm else None, ts_ms=iso_ms(line[:i]))
    return None


# --- rules ---------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    facilities: frozenset[str]  # the facilities librdkafka logs this format under
    regex: re.Pattern[str]
    kind: str | None | Callable[[dict[str, Any]], str | None]  # None: a known line with no event
    source: str  # librdkafka file and versions


RULES: list[Rule] = []


def _r(name: str, facs: str, pattern: str, kind: Any, source: str) -> None:
    RULES.append(Rule(name, frozenset(facs.split()), compile_regex(pattern), kind, source))  # build cache: parsers/build_cache.py


G = r'Group "(?P<group>[^"]*)"'
JS = r"join[- ]state"  # 1.0-1.5 spelled "join state", 1.6+ "join-state"

# group state machine (rdkafka_cgrp.c rd_kafka_cgrp_set_state / set_join_state)
_r("cgrp_state", "CGRPSTATE", G + r" changed state (?P<from_state>\S+) -> (?P<to_state>\S+) \((?:v\d+, )?" + JS
   + r" (?P<join_state>[^)]*)\)$", "member_state_changed", "rdkafka_cgrp.c 1.0-2.x ('v%d, ' until 1.5)")
_r("cgrp_join_state", "CGRPJOINSTATE", G + r" changed join state (?P<from_join_state>\S+) -> (?P<to_join_state>\S+) \((?:v\d+, )?state (?P<state>[^)]*)\)$",
   "member_state_changed", "rdkafka_cgrp.c 1.0-2.x")
# coordinator
_r("coord_is", "CGRPCOORD", G + r" coordinator is (?P<host>\S+):(?P<port>\d+) id (?P<coordinator>-?\d+)$",
   "coordinator_discovered", "rdkafka_cgrp.c rd_kafka_cgrp_handle_FindCoordinator 1.0-2.x")
_r("coord_change", "CGRPCOORD", G + r" changing coordinator (?P<previous_coordinator>-?\d+) -> (?P<coordinator>-?\d+)$",
   "coordinator_discovered", "rdkafka_cgrp.c rd_kafka_cgrp_coord_update 1.0-2.x")
_r("coord_set", "COORDSET", G + r" coordinator set to broker (?P<broker>\S+)$", "coordinator_discovered",
   "rdkafka_cgrp.c rd_kafka_cgrp_coord_set 1.0-2.x")
_r("coord_clear", "COORDCLEAR", G + r" broker (?P<broker>\S+) is no longer coordinator$", "coordinator_lost",
   "rdkafka_cgrp.c rd_kafka_cgrp_coord_clear_broker 1.0-2.x")
_r("coord_dead", "COORD", G + r": marking the coordinator \((?P<coordinator>-?\d+)\) dead: (?P<error>.*)$",
   "coordinator_lost", "rdkafka_cgrp.c rd_kafka_cgrp_coord_dead 1.0-2.x")
_r("coord_response_error", "CGRPCOORD", G + r" (?:FindCoordinator|GroupCoordinator) response error: (?P<error>.*)$",
   "coordinator_lookup", "rdkafka_cgrp.c ('GroupCoordinator' until 1.5, 'FindCoordinator' 1.6+)")
_r("coord_query", "CGRPQUERY", G + r": querying for coordinator: (?P<reason>.*)$", "coordinator_lookup",
   "rdkafka_cgrp.c rd_kafka_cgrp_coord_query 1.0-2.x")
_r("coord_query_failed", "CGRPQUERY", G + r": (?:no broker available for coordinator query|unable to send coordinator query): (?P<error>.*)$",
   "coordinator_lookup", "rdkafka_cgrp.c rd_kafka_cgrp_coord_query 1.0-2.x")
# join / sync
_r("joining", "JOIN", r'Joining group "(?P<group>[^"]*)" with (?P<topic_count>\d+) subscribed topic\(s\)(?: and member id "(?P<member>[^"]*)")?$',
   "join_started", "rdkafka_request.c rd_kafka_JoinGroupRequest 1.0-2.x (member id 1.9+)")
_r("rejoin", "REJOIN", G + r": (?P<verb>Joining|Rejoining) group(?: with (?P<owned>\d+) owned partition\(s\)| without an assignment)?: (?P<reason>.*)$",
   "join_started", "rdkafka_cgrp.c rd_kafka_cgrp_rejoin 1.6-2.x")
_r("rejoin_old", "REJOIN", G + r" (?:\(re\)joining|rejoining) in " + JS + r" (?P<join_state>\S+) with(?P<without>out)? (?:an assignment|(?P<owned>\d+) assigned partition\(s\))(?:: (?P<reason>.*))?$",
   "join_started", "rdkafka_cgrp.c 1.0-1.5 'rejoining ... with(out) an assignment', 1.6+ '(re)joining ... assigned partition(s)'")
_r("rejoin_metadata", "REJOIN", G + r": subscription updated from metadata change: rejoining group(?: in state (?P<state>\S+))?$",
   "join_started", "rdkafka_cgrp.c 1.0-2.x")


def _join_response(g: dict[str, Any]) -> str:
    return "join_succeeded" if g["error"] in ("(no error)", "Success", "No error") else "join_failed"


_r("join_response", "JOINGROUP", r"JoinGroup response: GenerationId (?P<generation>-?\d+), Protocol (?P<protocol>\S*), LeaderId (?P<leader>\S*?)(?P<me> \(me\))?, "
   r"my MemberId (?P<member>\S*), (?:member metadata count (?P<members>-?\d+)|(?P<members_old>-?\d+) members in group): (?P<error>.*)$",
   _join_response, "rdkafka_cgrp.c rd_kafka_cgrp_handle_JoinGroup ('N members in group' 1.0-1.5, 'member metadata count N' 1.6+)")
_r("join_failed", "JOINGROUP", r"JoinGroup failed: (?P<error>.*)$", "join_failed", "rdkafka_cgrp.c consumer error 1.0-2.x")
_r("sync_response", "SYNCGROUP", r"SyncGroup response: (?P<error>.*) \((?P<bytes>\d+) bytes of MemberState data\)$",
   lambda g: "sync_succeeded" if g["error"] in ("Success", "No error") else "sync_failed", "rdkafka_cgrp.c 1.9-2.x")
_r("sync_failed", "GRPSYNC", G + r": synchronization failed: (?P<error>.*): rejoining$", "sync_failed", "rdkafka_cgrp.c 1.0-2.x")
_r("assignor_failed", "ASSIGNOR", G + r': failed to run assignor "(?P<assignor>[^"]*)" for (?P<members>\d+) member\(s\): (?P<error>.*)$',
   "rebalance_failed", "rdkafka_cgrp.c rd_kafka_cgrp_assignor_run 1.0-2.x (warning)")
# assignment and revocation
_r("new_assignment", "ASSIGN", G + r": new assignment of (?P<count>\d+) partition\(s\) in " + JS + r" (?P<join_state>\S+)$",
   "assignment_received", "rdkafka_cgrp.c rd_kafka_cgrp_handle_assignment 1.0-2.x")
_r("delegating", "ASSIGN", G + r": delegating (?P<incremental>incremental )?(?P<op>assign|revoke) of (?P<count>\d+) partition\(s\) to application (?:rebalance callback )?on queue (?P<queue>\S+): (?P<reason>.*)$",
   lambda g: "partitions_assigned" if g["op"] == "assign" else "partitions_revoked",
   "rdkafka_cgrp.c rd_kafka_rebalance_op 1.0-2.x ('rebalance callback' until 1.5; incremental 1.6+)")
_r("assign_failed", "ASSIGN", G + r": application \*assign\(\) call failed: (?P<error>.*)$", "rebalance_failed", "rdkafka_cgrp.c 1.6-2.x (warning)")
_r("internal_assign_failed", "REBALANCE", G + r": internal (?:incremental )?(?P<op>assign|unassign) of (?P<count>\d+) partition\(s\) failed: (?P<error>.*): unassigning all partitions and rejoining$",
   "rebalance_failed", "rdkafka_cgrp.c 1.6-2.x (warning)")
_r("rebalance", "REBALANCE", G + r" (?P<what>initiating rebalance|is rebalancing) \((?P<protocol_type>\S+)\) in state (?P<state>\S+) \(join-state (?P<join_state>\S+)\) with (?P<count>\d+) assigned partition\(s\)(?P<lost> \(lost\))?: (?P<reason>.*)$",
   "join_started", "rdkafka_cgrp.c rd_kafka_cgrp_revoke_all_rejoin_maybe 1.6-2.x")
_r("rebalance_old", "REBALANCE", G + r" is rebalancing in state (?P<state>\S+) \(join-state (?P<join_state>\S+)\) with(?P<without>out)? assignment: (?P<reason>.*)$",
   "join_started", "rdkafka_cgrp.c rd_kafka_cgrp_rebalance 1.0-1.5")
_r("revoke_all", "REBALANCE", G + r": revoking all (?P<count>\d+) partition\(s\)(?P<terminating> \(terminating\))?(?P<lost> \(assignment lost\))?$",
   lambda g: "partitions_lost" if g["lost"] else "partitions_revoked", "rdkafka_cgrp.c 1.6-2.x")
_r("revoke_some", "REBALANCE", G + r" revoking (?P<count>\d+) of (?P<total>\d+) partition\(s\)$", "partitions_revoked", "rdkafka_cgrp.c 1.6-2.x")
_r("lost", "LOST", G + r": current assignment of (?P<count>\d+) partition\(s\) lost: (?P<reason>.*)$", "partitions_lost", "rdkafka_cgrp.c 1.6-2.x")
# heartbeats, session, poll
_r("heartbeat_sent", "HEARTBEAT", r'Heartbeat for group "(?P<group>[^"]*)" generation id (?P<generation>-?\d+)$', "heartbeat_sent",
   "rdkafka_request.c rd_kafka_HeartbeatRequest 1.0-2.x")
_r("heartbeat_error", "HEARTBEAT", G + r" heartbeat error response in state (?P<state>\S+) \(" + JS + r" (?P<join_state>\S+), (?P<count>\d+) partition\(s\) assigned\): (?P<error>.*)$",
   "heartbeat_failed", "rdkafka_cgrp.c rd_kafka_cgrp_handle_Heartbeat 1.0-2.x")
_r("heartbeat_coord_gone", "HEARTBEAT", r"Heartbeat failed due to coordinator \((?P<coordinator>[^)]*)\) no longer available: (?P<error>.*): re-querying for coordinator$",
   "heartbeat_failed", "rdkafka_cgrp.c 1.6-2.x")
_r("heartbeat_failed_old", "HEARTBEAT", r"Heartbeat failed: (?P<error>.*)$", "heartbeat_failed", "rdkafka_cgrp.c 1.0-1.5")
_r("session_timeout", "SESSTMOUT", r"Consumer group session timed out \(in join-state (?P<join_state>\S+)\) after (?P<elapsed_ms>\d+) ms without a successful response "
   r"from the group coordinator \(broker (?P<coordinator>-?\d+), last error was (?P<error>.*)\): revoking assignment and rejoining group$",
   "heartbeat_failed", "rdkafka_cgrp.c rd_kafka_cgrp_session_timeout_check 1.6-2.x (warning)")
_r("max_poll", "MAXPOLL", r"Application maximum poll interval \((?P<max_poll_interval_ms>\d+)ms\) exceeded by (?P<exceeded_by_ms>\d+)ms(?: \(adjust max\.poll\.interval\.ms for long-running message processing\))?(?:: (?P<action>leaving group))?$",
   "poll_timeout", "rdkafka_cgrp.c rd_kafka_cgrp_max_poll_interval_check 1.0-2.x (warning; the consumer error text without ': leaving group')")
_r("leave", "LEAVE", G + r": leave(?: \(in state (?P<state>\S+)\))?(?:: (?P<detail>.*))?$", "leave_group", "rdkafka_cgrp.c rd_kafka_cgrp_leave 1.0-2.x")
_r("member_id", "MEMBERID", G + r': updating member id "(?P<from_member>[^"]*)" -> "(?P<to_member>[^"]*)"$',
   lambda g: "generation_reset" if g["to_member"] in ("", "(not-set)") else "member_state_changed", "rdkafka_cgrp.c rd_kafka_cgrp_set_member_id 1.0-2.x")
_r("fatal", "FATAL CGRP", r"Fatal error: (?P<code>[^:]*): (?P<error>.*(?:[Cc]onsumer|GroupHeartbeat).*)$",
   lambda g: "member_fenced" if "fenced" in g["error"].lower() else "rebalance_failed", "rdkafka.c rd_kafka_set_fatal_error0 1.0-2.x (the consumer's fatal errors: static member fenced)")
_r("subscribe", "SUBSCRIBE", G + r": subscribe to new (?:unset )?subscription of (?P<topic_count>\d+) topics \(" + JS + r" (?P<join_state>\S+)\)$",
   "subscription_changed", "rdkafka_cgrp.c rd_kafka_cgrp_subscribe 1.0-2.x")
_r("unsubscribe", "UNSUBSCRIBE", G + r": unsubscribe from current (?:unset )?subscription of (?:size )?(?P<topic_count>\d+)(?: topics)? \((?P<detail>[^)]*)\)$",
   "subscription_changed", "rdkafka_cgrp.c rd_kafka_cgrp_unsubscribe 1.0-2.x ('of %d topics' until 1.5, 'of size %d' 1.6+)")
# commits and offsets
_r("commit_sent", "COMMIT", r"Committing offsets for (?P<count>\d+) partition\(s\)(?: with generation-id (?P<generation>-?\d+) in join-state (?P<join_state>\S+))?: (?P<reason>.*)$",
   "offset_commit_sent", "rdkafka_cgrp.c rd_kafka_cgrp_offsets_commit ('with generation-id' 1.9+)")
_r("commit_result", "COMMIT", r"OffsetCommit for (?P<count>\d+) partition\(s\)(?: in " + JS + r" (?P<join_state>\S+))?: (?P<reason>.*?): returned: (?P<error>.*)$",
   lambda g: "offset_committed" if g["error"] in ("Success", "No error") else "offset_commit_failed", "rdkafka_cgrp.c rd_kafka_cgrp_op_handle_OffsetCommit 1.0-2.x")
_r("commit_failed", "COMMITFAIL", r"Offset commit \((?P<reason>[^)]*)\) failed for (?P<failed>\d+)/(?P<count>\d+) partition\(s\)(?: in " + JS + r" (?P<join_state>\S+))?: (?P<error>.*)$",
   "offset_commit_failed", "rdkafka_cgrp.c 1.0-2.x (warning)")
_r("commit_failed_partition", "OFFSET COMMIT", r"OffsetCommit failed for (?P<topic>\S+) \[(?P<partition>\d+)\] at offset (?P<offset>-?\d+)(?: in " + JS + r" \S+)?: (?P<error>.*)$",
   "offset_commit_failed", "rdkafka_cgrp.c 1.0-2.x")
_r("commit_unavailable", "COMMIT", G + r": unable to OffsetCommit in state (?P<state>\S+): (?P<reason>.*?): (?:coordinator \((?P<coordinator>[^)]*)\) is unavailable: )?retrying later$",
   "offset_commit_failed", "rdkafka_cgrp.c 1.6-2.x")
_r("offset_reset", "OFFSET", r"(?P<topic>\S+) \[(?P<partition>\d+)\]: offset reset \(at (?:offset )?(?P<at>.*?)(?:, broker (?P<broker>-?\d+))?\) to (?P<to>.*?): (?P<tail>.*)$",
   "offset_reset", "rdkafka_offset.c rd_kafka_offset_reset ('at offset %s' 1.0-2.0, 'at %s' fetch position 2.1+; broker 1.7+)")
_r("offset_fetched", "OFFSETFETCH OFFSET", r"OffsetFetchResponse: (?P<topic>\S+) \[(?P<partition>\d+)\] offset (?P<offset>-?\d+)(?:, leader epoch (?P<leader_epoch>-?\d+))?(?:, metadata (?P<metadata_bytes>\d+) byte\(s\))?(?:: (?P<error>.*))?$",
   lambda g: "no_committed_offset" if g["offset"] == "-1001" else "offset_fetched", "rdkafka_request.c rd_kafka_handle_OffsetFetch 1.0-2.x")
# rdkafka_assignment.c rd_kafka_assignment_apply_offsets 1.6-2.x (CGRP debug context, so `debug=cgrp` logs it
# where rdkafka_request.c's OffsetFetchResponse line, TOPIC context, is absent): the committed offset
# OffsetFetch returned, rd_kafka_offset2str (a number, or INVALID when the group has none)
_r("pending_offset", "OFFSETFETCH", r"Adding (?P<topic>\S+) \[(?P<partition>\d+)\] back to pending list with offset (?:(?P<offset>-?\d+)|(?P<offset_name>[A-Z]+))$",
   lambda g: "offset_fetched" if g["offset"] is not None else ("no_committed_offset" if g["offset_name"] == "INVALID" else None),
   "rdkafka_assignment.c rd_kafka_assignment_apply_offsets 1.6-2.x (read at v1.6.0, v1.9.2, v2.3.0)")
_r("offset_fetch_failed", "OFFSET", r"Offset fetch error(?: for (?P<count>\d+) partition\(s\))?: (?P<error>.*)$", None,
   "rdkafka_cgrp.c / rdkafka_assignment.c 1.0-2.x (no event: the vocabulary has no fetch-failure kind)")
# KIP-848 (2.4+ group.protocol=consumer) and KIP-932 share groups (2.12+)
_r("cgh_response", "HEARTBEAT", r'(?P<api>Consumer|Share)GroupHeartbeat response received for member id "(?P<member>[^"]*)" with epoch (?P<member_epoch>-?\d+)$',
   "heartbeat_succeeded", "rdkafka_cgrp.c rd_kafka_cgrp_handle_ConsumerGroupHeartbeat 2.4-2.x")
_r("cgh_sent", "HEARTBEAT", r'ConsumerGroupHeartbeat of member id "(?P<member>[^"]*)", group id "(?P<group>[^"]*)", generation id (?P<member_epoch>-?\d+), group instance id "(?P<instance>[^"]*)", current assignment "(?P<current>[^"]*)".*$',
   "heartbeat_sent", "rdkafka_request.c rd_kafka_ConsumerGroupHeartbeatRequest 2.4-2.x")
_r("cgh_target", "HEARTBEAT", r'(?P<api>Consumer|Share)GroupHeartbeat (?:response )?received target assignment "(?P<parts>[^"]*)"$', "assignment_received",
   "rdkafka_cgrp.c 2.4-2.x")
_r("cgh_acked", "HEARTBEAT", r'Target assignment acked, new current assignment\s+"(?P<parts>[^"]*)"$', "partitions_assigned", "rdkafka_cgrp.c 2.4-2.x")
_r("cgh_coord", "HEARTBEAT", r"(?P<api>Consumer|Share)GroupHeartbeat failed due to coordinator \((?P<coordinator>[^)]*)\) (?:loading in progress|no longer available): (?P<error>.*?): (?:retrying|re-querying for coordinator)$",
   "heartbeat_failed", "rdkafka_cgrp.c 2.4-2.x")
_r("cgh_rejoin", "HEARTBEAT", r"(?P<api>Consumer|Share)GroupHeartbeat failed due to: (?P<error>.*): will rejoin the group$",
   lambda g: "member_fenced" if re.search(r"fenced|unknown member", g["error"], re.I) else "heartbeat_failed", "rdkafka_cgrp.c 2.4-2.x")
_r("cgh_failed", "HEARTBEAT", r"(?P<api>Consumer|Share)GroupHeartbeat failed: (?P<error>.*)$", "heartbeat_failed", "rdkafka_cgrp.c 2.4-2.x (warning)")
_r("cgh_lost", "HEARTBEAT", r"Revoking assignment as lost an rejoining in join state (?P<join_state>\S+)$", "partitions_lost", "rdkafka_cgrp.c 2.4-2.x (sic)")
_r("cgh_fatal", "HEARTBEAT FATAL", r"(?P<api>Consumer|Share)GroupHeartbeat fatal error: (?P<error>.*)$",
   lambda g: "member_fenced" if "fenced" in g["error"].lower() else "rebalance_failed", "rdkafka_cgrp.c 2.4-2.x")

# known format strings of consumer-group facilities that carry no event of the vocabulary (the
# reader counts them ignored, not unparsed); each from rdkafka_cgrp.c / rdkafka_assignment.c 1.0-2.x
_NO_EVENT = [
    r"Group \"[^\"]*\" received op ", r"Group \"[^\"]*\": join with \d+", r"Group \"[^\"]*\": postponing ",
    r"Group \"[^\"]*\": no matching topics", r"Leaving group$", r"Share consumer: leaving group$",
    r"LeaveGroup response", r"(?:Consumer|Share)GroupHeartbeat response (?:error )?received in state",
    r"I am elected leader for group", r"Elected leader for group", r"Unsupported assignment strategy",
    r"Group \"[^\"]*\": \"[^\"]*\" assignor run for", r"Group \"[^\"]*\": no longer leader",
    r"Group \"[^\"]*\": resetting group leader info", r"Group \"[^\"]*\": setting group assignment to",
    r"Group \"[^\"]*\": clearing group assignment", r"Group \"[^\"]*\": \d+ partition\(s\) being ",
    r"Group \"[^\"]*\": assigning \d+ partition", r"Group \"[^\"]*\": (?:not )?starting fetchers",
    r"Group \"[^\"]*\": assignment operations done", r"Group \"[^\"]*\": incremental assignment: ",
    r"Group \"[^\"]*\": unassign", r"Group \"[^\"]*\" is terminating", r"Group \"[^\"]*\": unassigning",
    r"Unassign not done yet", r"Group \"[^\"]*\": (?:add|delete) ", r"Group \"[^\"]*\": enqueue partition",
    r"Group \"[^\"]*\": waiting for ", r"Group \"[^\"]*\": timing out", r"Group \"[^\"]*\": timed out",
    r"Terminating group", r"Consumer group sub-system terminated", r"Group \"[^\"]*\": (?:modifying subscription|subscribe to new|invoking waiting|effective subscription|clearing subscribed|no topics in metadata)",
    r"Group \"[^\"]*\": unsubscribe from", r"Group \"[^\"]*\": skipping COOPERATIVE rebalance",
    r"Group \"[^\"]*\": rebalance \([^)]*\) already in progress", r"Group \"[^\"]*\": consumer is terminating",
    r"Group \"[^\"]*\": unexpected instruction to revoke", r"Group \"[^\"]*\": Not (?:re)?joining group",
    r"Group \"[^\"]*\": current assignment no longer considered lost", r"Group \"[^\"]*\": not committing assigned offsets",
    r"Group \"[^\"]*\": Partitions owned by members", r"Group \"[^\"]*\": COOPERATIVE protocol collection",
    r"Group \"[^\"]*\": \d+ partitions assigned to consumers", r"Group \"[^\"]*\": ops queue is disabled",
    r"Group \"[^\"]*\": Consumer .* treating assign as unassign", r"Group \"[^\"]*\": (?:\w+:\d+: )?new version barrier",
    r"Group \"[^\"]*\": ignoring Offset fetch response", r" Topic \S+ with \d+ partition\(s\)",
    r"\S+: metadata for ", r"[\w ]{1,40}: metadata for subscription ",  # rdkafka_cgrp.c "%s: metadata for subscription ..." ("consumer join") 1.0-2.x
    r"\S+: need to refresh metadata", r"Deferring \"[^\"]*\" offset commit",
    r"OffsetCommit internal error", r"JoinGroup response: discarding outdated", r"SyncGroup response: discarding outdated",
    r"Heartbeat response: discarding outdated", r"Expediting next heartbeat", r"Reconciliation ", r"Not reconciling ",
    r"Metadata (?:not found|available) for ", r"No metadata to request", r"Acknowledging target assignment",
    r"Sending new subscription", r"(?:Consumer|Share)GroupHeartbeat response received assigned_topic_partitions",
    r"Fetching committed offsets for \d+ pending", r"Fetch committed offsets ", r"Group \S+ OffsetFetchRequest",
    r"Enqueue OffsetCommitRequest", r"OffsetFetchResponse: \S+ \[\d+\] not found", r"Ignoring OffsetFetch response",
    r"Adding \S+ \[\d+\] back to pending", r"Current assignment of \d+ partition", r"(?:No current|Clearing current) (?:share )?assignment",
    r"Added \d+ partition\(s\) to ", r"Removed \d+ partition\(s\) ", r"Removing \S+ \[\d+\] from ", r"Served \d+ removed",
    r"Starting pending assigned partition", r"Querying committed offset for pending", r"Pending assignment partition",
    r"All partitions awaiting stop", r"Adding share partition", r"Share assignment served", r"Assignment dump",
    r"\S+ \[\d+\]: (?:offset file|Read offset|wrote offset|offset -?\d+ (?:not )?committed|commit: stored|using offset|stopping offset store)",
    r"Topic \S+ \[\d+\]: timed offset query", r"Failed to parse MemberMetadata", r"Broker does not support KIP-62",
    r"Suppressing subsequent fatal error", r"Fatal error: ", r"Deferring close request", r" \S+ \[\d+\] offset ",
]
_NO_EVENT_RX = compile_regex("(?:" + "|".join(_NO_EVENT) + ")")

# the consumer errors librdkafka hands the application (rd_kafka_consumer_err), which applications
# log themselves (confluent-kafka-python KafkaError str, Go/.NET error events): read anywhere in a line
_APP_ERRORS = [
    (compile_regex(r"Application maximum poll interval \((?P<max_poll_interval_ms>\d+)ms\) exceeded by (?P<exceeded_by_ms>\d+)ms"), "max_poll_error", "poll_timeout"),
    (compile_regex(r"\bJoinGroup failed: (?P<error>[^\"'}\n]*)"), "join_failed_error", "join_failed"),
    (compile_regex(r"\b(?:FindCoordinator|GroupCoordinator) response error: (?P<error>[^\"'}\n]*)"), "coord_error", "coordinator_lookup"),
]
_APP_ERROR_GATE = ("Application maximum poll interval", "JoinGroup failed: ", "response error: ")

# "[thrd:NAME]: " is printed when log.thread.name=true (the default, CONFIGURATION.md 0.9-2.x); with
# false the message starts with the broker's name (rd_rkb_dbg) or the text itself
_THREAD_AND_BROKER = compile_regex(r"(?:\[thrd:(?P<thread>[^\]]*)\]: )?(?:(?P<broker>[\w.\-]+:\d+/(?:\d+|bootstrap)|(?:sasl_)?(?:plaintext|ssl)://\S+?/(?:\d+|bootstrap)|GroupCoordinator(?:/\d+)?): )?")
_BROKER_NODE = compile_regex(r"/(\d+)$")
_ERR_TAIL = compile_regex(r": ((?:Broker|Local): [^:]*|Success|No error)$")

_INT_FIELDS = {"generation": "generation", "member_epoch": "member_epoch", "partition": "partition", "offset": "offset"}
_EXTRA_INTS = ("count", "total", "members", "members_old", "owned", "topic_count", "bytes", "failed", "elapsed_ms",
               "max_poll_interval_ms", "exceeded_by_ms", "leader_epoch", "metadata_bytes")


def _fields(rule: Rule, g: dict[str, Any], env: Envelope, thread: str | None, broker: str | None) -> tuple[dict, dict]:
    f: dict[str, Any] = {"group_id": g.get("group"), "member_id": g.get("member") or None,
                         "client_id": env.name, "instance_id": g.get("instance") or None}
    x: dict[str, Any] = {"facility": env.facility, "librdkafka_rule": rule.name, "binding": env.binding,
                         "thread": thread, "broker": broker}
    if env.level:
        x["level"] = env.level
    for key, col in _INT_FIELDS.items():
        if g.get(key) is not None:
            f[col] = int(g[key])
    for key in _EXTRA_INTS:
        if g.get(key) is not None:
            x[key] = int(g[key])
    if "members_old" in x:
        x["members"] = x.pop("members_old")
    for key in ("from_state", "to_state", "join_state", "from_join_state", "to_join_state", "state", "assignor",
                "op", "queue", "verb", "host", "port", "at", "to", "previous_coordinator", "broker", "code",
                "from_member", "to_member", "protocol_type", "action", "current"):
        if g.get(key):
            x[key] = g[key]
    if g.get("protocol"):
        f["protocol"] = g["protocol"]
    if g.get("topic"):
        f["topic"] = g["topic"]
    if g.get("coordinator") is not None:
        f["coordinator"] = g["coordinator"]
    elif rule.name in ("coord_set", "coord_clear"):
        nm = _BROKER_NODE.search(g["broker"])
        f["coordinator"] = nm.group(1) if nm else g["broker"]
    if g.get("reason"):
        f["reason"] = g["reason"]
    if g.get("error") and g["error"] not in ("(no error)", "Success", "No error"):
        f["error"] = g["error"].rstrip().rstrip(":")  # "%s: %s" with an empty detail leaves ": "
    if g.get("leader") is not None:
        x["leader"] = g["leader"]
        x["is_leader"] = bool(g.get("me"))
    if g.get("incremental"):
        x["incremental"] = True
    if g.get("lost"):
        x["assignment_lost"] = True
    if g.get("api") == "Share":
        f["group_type"] = "share"
    elif g.get("api") == "Consumer" or rule.name == "cgh_sent":
        f["group_type"] = "consumer"
    if g.get("parts") is not None:
        parts, by_id = rd_tp_list(g["parts"])
        f["partitions"] = parts
        if by_id:
            x["partitions_named_by"] = "topic_id"
    if rule.name == "member_id":
        f["member_id"] = g["from_member"] if f.get("member_id") is None and g["to_member"] in ("", "(not-set)") else g["to_member"]
        if f["member_id"] in ("", "(not-set)"):
            f["member_id"] = None
    if rule.name == "offset_reset":
        tail = g["tail"]
        em = _ERR_TAIL.search(tail)
        if em:
            f["reason"], err = tail[: em.start()], em.group(1)
            if err not in ("Success", "No error"):
                f["error"] = err
        else:
            f["reason"] = tail
        to = re.match(r"(?:offset )?(-?\d+)\b", g["to"])
        if to:
            f["offset"] = int(to.group(1))
    if rule.name == "commit_failed":
        parts, _ = rd_tp_list(g["error"])
        if parts:
            f["partitions"] = parts
    if rule.name == "session_timeout":
        f["reason"] = "session timed out"
    if rule.name == "max_poll":
        f["reason"] = "max.poll.interval.ms exceeded"
    if rule.name == "cgh_sent" and g.get("current") is not None:
        parts, by_id = rd_tp_list(g["current"])
        f["partitions"] = parts
        if by_id:
            x["partitions_named_by"] = "topic_id"
    return f, x


# rdkafka_partition.c rd_kafka_topic_partition_list_log (1.0-2.x): a header line and one line per
# partition, all under the caller's facility: "List with %d partition(s):", " %s [%d] offset %s%s%s"
_LIST_HEAD = compile_regex(r"List with (?P<n>\d+) partition\(s\):$")
_LIST_ITEM = compile_regex(r" (?P<topic>\S+) \[(?P<partition>\d+)\] offset (?P<offset>\S+)(?:: error: (?P<error>.*))?$")


def _partition_list(msg: str, fac: str, env: Envelope, state: dict[str, Any]) -> Any:
    """The partition lists librdkafka logs line by line. The ASSIGNMENT list (1.6+: the member's
    assignment from SyncGroup, rd_kafka_cgrp_handle_SyncGroup_memberstate) becomes one
    assignment_received event on its last line, its partitions gathered from the lines before
    (held per file and instance); the other lists (GRPASSIGNMENT, FETCHSTART and OFFSETFETCH of
    1.0-1.5) are known lines without an event. None: not a list line."""
    lists: dict = state.setdefault("rd_lists", {})
    key = (env.name, fac)
    hm = _LIST_HEAD.match(msg)
    if hm is not None:
        n = int(hm["n"])
        lists[key] = (n, [])
        return _assignment(fac, env, [], 0, state) if n == 0 else IGNORE
    im = _LIST_ITEM.match(msg)
    if im is None or key not in lists:
        return None
    n, parts = lists[key]
    parts.append(f"{im['topic']}-{im['partition']}")
    if len(parts) < n:
        return IGNORE
    del lists[key]
    return _assignment(fac, env, parts, n, state)


def _delegated_partitions(g: dict[str, Any], env: Envelope, f: dict[str, Any], x: dict[str, Any],
                          state: dict[str, Any]) -> None:
    """`delegating assign|revoke of N partition(s)` names only the count. When N is the size of the
    instance's last ASSIGNMENT list (assign) or of what it was last given (revoke), those are the
    partitions (eager: the whole assignment; cooperative: all of it is new, or all of it goes);
    otherwise `partitions` stays None (unknown)."""
    n = int(g["count"])
    if g["op"] == "assign":
        parts = state.get("rd_assignment", {}).get(env.name)
        if parts is not None and len(parts) == n:
            f["partitions"] = tuple(parts)
            x["partitions_from"] = "the ASSIGNMENT list before"
            state.setdefault("rd_owned", {})[env.name] = tuple(parts)
    else:
        owned = state.get("rd_owned", {}).get(env.name)
        if owned is not None and len(owned) == n:
            f["partitions"] = owned
            x["partitions_from"] = "the partitions last assigned"
            state["rd_owned"].pop(env.name, None)


def _assignment(fac: str, env: Envelope, parts: list[str], n: int, state: dict[str, Any]) -> Any:
    if fac != "ASSIGNMENT":
        return IGNORE
    state.setdefault("rd_assignment", {})[env.name] = tuple(parts)
    f: dict[str, Any] = {"client_id": env.name, "partitions": tuple(parts), "ts_ms": env.ts_ms}
    x = {"facility": fac, "librdkafka_rule": "assignment_list", "binding": env.binding, "level": env.level,
         "count": n, "partitions_from_lines": n + 1, "client_version": state.get("librdkafka_version")}
    return match("librdkafka.assignment_list", "assignment_received", LIBRARY, f, x)


def parse(line: str, state: dict[str, Any] | None = None) -> Any:
    """Match | IGNORE | UNRECOGNISED | None for one line (see the module docstring)."""
    env = envelope(line)
    if env is None:
        if any(w in line for w in _APP_ERROR_GATE):
            for rx, name, kind in _APP_ERRORS:
                m = rx.search(line)
                if m:
                    g = m.groupdict()
                    x = {"librdkafka_rule": name, "binding": "application error"}
                    f: dict[str, Any] = {"ts_ms": iso_ms(line[: m.start()])}
                    for k in ("max_poll_interval_ms", "exceeded_by_ms"):
                        if g.get(k):
                            x[k] = int(g[k])
                    if g.get("error"):
                        f["error"] = g["error"].strip()
                    if kind == "poll_timeout":
                        f["reason"] = "max.poll.interval.ms exceeded"
                        # the application's echo of the MAXPOLL warning this file already holds: the same fact
                        last = state.get("maxpoll") if state else None
                        if last is not None and last == (x.get("max_poll_interval_ms"), x.get("exceeded_by_ms")):
                            return IGNORE
                    return match(f"librdkafka.{name}", kind, LIBRARY, f, x)
        return None
    msg = env.message
    thread = broker = None
    tm = _THREAD_AND_BROKER.match(msg)
    if tm:
        thread, broker = tm["thread"], tm["broker"]
        msg = msg[tm.end():]
    msg = msg.rstrip()
    fac = env.facility
    if fac is not None and state is not None and (msg.startswith("List with ") or msg.startswith(" ")):
        listed = _partition_list(msg, fac, env, state)
        if listed is not None:
            return listed
    if fac is not None and fac not in CGRP_FACILITIES:
        # a line of another librdkafka subsystem (BROKER, FETCH, METADATA, PROTOCOL, ...): not a group line
        if fac == "INIT" and state is not None:  # rdkafka.c rd_kafka_new: "librdkafka v2.3.0 (0x20300ff) rdkafka#consumer-1 initialized ..."
            vm = re.search(r"librdkafka v(\S+) \(", msg)
            if vm:
                state["librdkafka_version"] = vm.group(1)
        return IGNORE
    if fac is None and "Group \"" not in msg and "Group" not in msg[:40] and "Heartbeat" not in msg[:40] \
            and "OffsetCommit" not in msg and "offset reset" not in msg and "maximum poll interval" not in msg \
            and not msg.startswith(("Joining group \"", "OffsetFetchResponse: ")):
        # (JOIN "Joining group \"%s\" with %d subscribed topic(s)..." 1.6+ and OFFSETFETCH
        # "OffsetFetchResponse: %s [%d] offset %lld" 0.11-2.x name the group or no group in their first words)
        # a bare `[thrd:..]` line of another facility (METADATA, BROKER, ...: the application's log
        # callback printed the message without the facility): librdkafka's, and no group line
        return IGNORE if tm is not None and tm["thread"] is not None else None
    for rule in RULES:
        if fac is not None and fac not in rule.facilities:
            continue
        m = rule.regex.match(msg)
        if m is None:
            continue
        g = m.groupdict()
        kind = rule.kind(g) if callable(rule.kind) else rule.kind
        if kind is None:
            return IGNORE
        f, x = _fields(rule, g, env, thread, broker)
        if env.ts_ms is not None:
            f["ts_ms"] = env.ts_ms
        if state is not None:
            if state.get("librdkafka_version"):
                x["client_version"] = state["librdkafka_version"]
            if rule.name == "max_poll":
                state["maxpoll"] = (x.get("max_poll_interval_ms"), x.get("exceeded_by_ms"))
            if rule.name == "delegating":
                _delegated_partitions(g, env, f, x, state)
            if rule.name in ("offset_fetched", "pending_offset"):
                # with debug=all both lines of one OffsetFetch are logged (TOPIC, then CGRP): one fact
                key = (env.name, f.get("topic"), f.get("partition"), f.get("offset"))
                fetched = state.setdefault("rd_fetched", {})
                if rule.name == "pending_offset" and fetched.get(key[:3], fetched) == key[3]:
                    return IGNORE
                if len(fetched) < 65536:
                    fetched[key[:3]] = key[3]
        return match(f"librdkafka.{rule.name}", kind, LIBRARY, f, x)
    if _NO_EVENT_RX.match(msg):
        return IGNORE
    return UNRECOGNISED if fac is not None or msg.startswith(("Group \"", "Heartbeat", "OffsetCommit")) else None


# words that make the JVM-side filter keep these lines (parsers/foreign/words.py says which)
CANDIDATE_WORDS: tuple[str, ...] = words.LIBRDKAFKA
