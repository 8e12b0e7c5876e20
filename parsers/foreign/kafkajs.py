"""KafkaJS consumer-group lines -> event fields.

KafkaJS logs a message and an object of extra fields per entry (src/loggers/index.js: timestamp,
logger 'kafkajs', message, then the caller's fields). Its default logCreator (src/loggers/console.js,
1.0-2.2.4) prints `JSON.stringify({level, ...log, message: "[Namespace] message"})`; custom
logCreators print text such as `INFO [ConsumerGroup] Consumer has joined the group {"groupId":...}`
or feed a JSON logger (pino, winston) whose own keys surround the same fields. Both are read: the
namespace and message from `[Namespace] message`, the fields from the line's JSON object (the whole
line, or the `{...}` after the message).

Namespaces read (the loggers that concern the group): ConsumerGroup (src/consumer/consumerGroup.js),
Consumer (src/consumer/index.js), Runner (src/consumer/runner.js), Connection
(src/network/connection.js, responses of the group APIs only), Cluster (src/cluster/index.js,
coordinator lookup). Versions read: v1.0.0, v1.4.0, v1.10.0, v1.12.0, v1.14.0, v1.15.0, v1.16.0, v2.0.0 and master
55b0b416 (2.2.4).
"""

from __future__ import annotations

import re
from typing import Any

from parsers.build_cache import compile_regex
from parsers.foreign import words
from parsers.foreign.common import IGNORE, UNRECOGNISED, iso_ms, json_object, match
from parsers.timestamps import parse_ts

LIBRARY = "kafkajs"
NAMESPACES = ("ConsumerGroup", "Consumer", "Runner", "Connection", "Cluster", "OffsetManager", "FetchManager")
_NS = compile_regex(r"\[(?P<ns>ConsumerGroup|Consumer|Runner|Connection|Cluster|OffsetManager|FetchManager|Fetcher \d+)\] (?P<msg>.*)$")
_GROUP_APIS = {  # src/network/connection.js `Response ${apiName}(key: ..., version: ...)`: api -> (kind on error, kind on success)
    "Heartbeat": ("heartbeat_failed", "heartbeat_succeeded"),
    "JoinGroup": ("join_failed", None),
    "SyncGroup": ("sync_failed", None),
    "OffsetCommit": ("offset_commit_failed", None),
    "OffsetFetch": (None, None),
    "LeaveGroup": (None, None),
    "GroupCoordinator": ("coordinator_lookup", None),
    "FindCoordinator": ("coordinator_lookup", None),
}
_REQUEST = compile_regex(r"(?P<dir>Request|Response) (?P<api>\w+)\(key: (?P<key>\d+), version: (?P<version>\d+)\)$")

# (namespace, message regex, rule name, kind, source): kind None = known line, no event
_RULES: list[tuple[str, re.Pattern[str], str, str | None, str]] = [
    ("ConsumerGroup", compile_regex(r"Consumer has joined the group$"), "joined", "join_succeeded",
     "consumerGroup.js joinAndSync 1.15-2.2 (info)"),
    ("Runner", compile_regex(r"Consumer has joined the group$"), "joined", "join_succeeded",
     "runner.js join 1.0-1.14 (info; groupId, memberId, leaderId only until 1.3, + isLeader, memberAssignment, duration 1.4+, groupProtocol 1.10+)"),
    ("ConsumerGroup", compile_regex(r"Received assignment$"), "received_assignment", "assignment_received",
     "consumerGroup.js sync 1.0-2.2 (debug)"),
    ("ConsumerGroup", compile_regex(r"Offset out of range, resetting to default offset$"), "offset_reset", "offset_reset",
     "consumerGroup.js recoverFromOffsetOutOfRange 1.12-2.2 (error)"),
    ("ConsumerGroup", compile_regex(r"Seek offset$"), "seek", "offset_seek", "consumerGroup.js (debug)"),
    # the leader's JoinGroup result, logged in sync() before it assigns: the member, its generation and its
    # leadership (debug); the info "Consumer has joined the group" follows only after SyncGroup
    ("ConsumerGroup", compile_regex(r"Chosen as group leader$"), "chosen_leader", "join_succeeded",
     "consumerGroup.js sync 0.8-2.2.4 (debug; groupId, generationId, memberId, topics)"),
    ("ConsumerGroup", compile_regex(r"Group assignment$|Consumer group received unsubscribed topics"
                                 r"|Consumer is not aware of all assigned partitions|Pausing fetching|Resuming fetching"
                                 r"|Preferred read replica|Stale cluster metadata|Offset out of range while fetching from follower"
                                 r"|.*, resync group$|.*, refreshing metadata and retrying"), "no_event", None, "consumerGroup.js"),
    ("Runner", compile_regex(r"The group is rebalancing, re-joining$"), "rebalancing", "join_started",
     "runner.js 1.0-2.2 (error until 1.15, warn 1.16+)"),
    ("Runner", compile_regex(r"The coordinator is not aware of this member, re-joining the group$"), "unknown_member", "generation_reset",
     "runner.js 1.0-2.2 (error)"),
    ("Runner", compile_regex(r"Error while committing offsets, trying again\.\.\.$"), "commit_retry", "offset_commit_failed", "runner.js (debug)"),
    ("Runner", compile_regex(r"consumer not running, exiting$|Error while scheduling fetch manager|stop consumer group$"
                          r"|waiting for consumer to finish|Error when calling each(?:Message|Batch)"), "no_event", None, "runner.js"),
    ("Consumer", compile_regex(r"Crash: (?P<error_name>[^:]+): (?P<error>.*)$"), "crash", "leave_group", "consumer/index.js onCrash 1.0-2.2 (error)"),
    ("Consumer", compile_regex(r"Stopped$"), "stopped", "leave_group", "consumer/index.js stop 1.0-2.2 (info)"),
    ("Consumer", compile_regex(r"Starting$|Restarting the consumer in \d+ms$|consumer has stopped, disconnecting"
                            r"|Caught error when|Subscription based on RegExp|consumer#run was called|Failed to execute listener"),
     "no_event", None, "consumer/index.js"),
    ("Cluster", compile_regex(r"Found group coordinator$"), "coordinator_found", "coordinator_discovered", "cluster/index.js (debug)"),
    ("Cluster", compile_regex(r"Group coordinator not available, retrying\.\.\.$|Tried to find group coordinator$"), "coordinator_retry",
     "coordinator_lookup", "cluster/index.js (debug)"),
]

_ERROR_NAMES = {  # KafkaJS protocol error messages (src/protocol/error.js) -> Kafka error names
    "The group is rebalancing, so a rejoin is needed": "REBALANCE_IN_PROGRESS",
    "The coordinator is not aware of this member": "UNKNOWN_MEMBER_ID",
    "Specified group generation id is not valid": "ILLEGAL_GENERATION",
    "This is not the correct coordinator for this group": "NOT_COORDINATOR",
    "The coordinator is not available": "COORDINATOR_NOT_AVAILABLE",
    # Kafka's Errors.MEMBER_ID_REQUIRED (code 79, 2.2+), as KafkaJS's error.js copies it (JoinGroup v4+)
    "The group member needs to have a valid member id before actually entering a consumer group": "MEMBER_ID_REQUIRED",
    "The broker returned an invalid or out of range fencing epoch": "FENCED_INSTANCE_ID",
}


def _version_hint(ns: str, name: str, level: Any, state: dict[str, Any] | None) -> str | None:
    """KafkaJS prints no version; its wordings bound it from below (the tags' sources): the join line
    moved from [Runner] to [ConsumerGroup] in 1.15.0 (consumerGroup.js joinAndSync), and the
    runner's 'The group is rebalancing, re-joining' went from error to warn in 1.16.0. The file's
    highest bound so far, as '>=1.16.0' (None while its lines bound nothing)."""
    since = None
    if name == "joined" and ns == "ConsumerGroup":
        since = (1, 15, 0)
    elif name == "rebalancing" and level == "WARN":
        since = (1, 16, 0)
    if state is None:
        return ">=" + ".".join(map(str, since)) if since else None
    if since is not None and since > state.get("kafkajs_since", (0, 0, 0)):
        state["kafkajs_since"] = since
    best = state.get("kafkajs_since")
    return ">=" + ".".join(map(str, best)) if best else None


def _parts(assignment: Any) -> tuple[str, ...] | None:
    """{topic: [partitions]} (memberAssignment) -> ('topic-N', ...)."""
    if not isinstance(assignment, dict):
        return None
    out = []
    for topic, parts in assignment.items():
        if isinstance(parts, list):
            out.extend(f"{topic}-{p}" for p in parts if isinstance(p, int) and not isinstance(p, bool))
    return tuple(sorted(out, key=lambda s: (s.rsplit("-", 1)[0], int(s.rsplit("-", 1)[1]))))


def _record(line: str) -> tuple[str, str, dict[str, Any]] | None:
    """(namespace, message, fields) of a KafkaJS entry, or None."""
    head = line.lstrip()[:1]
    obj = json_object(line) if head == "{" or head == '"' else None
    if obj is not None:
        msg = obj.get("message", obj.get("msg"))
        if not isinstance(msg, str):
            return None
        m = _NS.match(msg)
        if m is None and _NS.search(msg) is not None and obj.get("logger") is None:
            # an application's JSON logger fed the text of a custom logCreator: {"msg": "ERROR
            # [Runner] The group is rebalancing, re-joining {\"groupId\":...}", ...}: that text is the entry
            inner_rec = _record(msg) if not msg.lstrip().startswith("{") else None
            if inner_rec is not None:
                return inner_rec
        if m is None:
            # the winston logCreator of KafkaJS's "Custom logging" docs: `const { message, ...extra } = log;
            # logger.log({ level, message, extra })`: no namespace, the fields under "extra"
            inner = obj.get("extra")
            if isinstance(inner, dict) and inner.get("logger") == "kafkajs":
                return "", msg, {**obj, **inner}
            return None
        if obj.get("logger") not in (None, "kafkajs") and "namespace" not in obj:
            return None
        return m["ns"], m["msg"], obj
    m = _NS.search(line)
    if m is None:
        return None
    text = m["msg"]
    extra: dict[str, Any] = {}
    brace = text.find(" {")
    if brace >= 0:
        obj = json_object(text[brace + 1:])
        if obj is not None:
            extra, text = obj, text[:brace]
    extra.setdefault("_head", line[: m.start()])
    return m["ns"], text.rstrip(), extra


def parse(line: str, state: dict[str, Any] | None = None) -> Any:
    """Match | IGNORE | UNRECOGNISED | None for one line (see the module docstring)."""
    if "[" not in line and "kafkajs" not in line:
        return None
    rec = _record(line)
    if rec is None:
        return None
    ns, msg, obj = rec
    if ns.startswith("Fetcher") or ns in ("OffsetManager", "FetchManager"):
        return IGNORE
    ts = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None
    ts_ms = parse_ts(ts) if ts else iso_ms(obj.get("_head", ""))
    level = obj.get("level")
    if ns == "Connection" or (ns == "" and _REQUEST.match(msg)):
        ns = "Connection"
        rm = _REQUEST.match(msg)
        if rm is None or rm["api"] not in _GROUP_APIS:
            return IGNORE
        on_error, on_ok = _GROUP_APIS[rm["api"]]
        failed = obj.get("error") is not None
        kind = (on_error if failed else on_ok) if rm["dir"] == "Response" else ("heartbeat_sent" if rm["api"] == "Heartbeat" else None)
        if kind is None:
            return IGNORE
        f = {"client_id": obj.get("clientId"), "ts_ms": ts_ms}
        err = obj.get("error")
        if isinstance(err, str):
            f["error"] = _ERROR_NAMES.get(err, err)
        x = {"kafkajs_rule": f"connection_{rm['dir'].lower()}_{rm['api']}", "namespace": ns, "broker": obj.get("broker"),
             "api_version": int(rm["version"]), "error_message": err if isinstance(err, str) else None, "level": level}
        hint = _version_hint(ns, "", level, state)
        if hint:
            x["client_version"] = hint
        data = obj.get("data")
        if isinstance(data, dict) and rm["api"] == "Heartbeat" and not failed:
            x["throttle_time"] = data.get("throttleTime")
        return match(f"kafkajs.connection_{rm['api']}", kind, LIBRARY, f, x)
    for rns, rx, name, kind, _source in _RULES:
        if rns != ns and ns != "":  # "": a logCreator that drops the namespace: any namespace's rule
            continue
        m = rx.match(msg)
        if m is None:
            continue
        if kind is None:
            return IGNORE
        f: dict[str, Any] = {"group_id": obj.get("groupId"), "member_id": obj.get("memberId"), "ts_ms": ts_ms,
                             "client_id": obj.get("clientId")}
        x: dict[str, Any] = {"kafkajs_rule": name, "namespace": ns or rns, "level": level}
        hint = _version_hint(ns, name, level, state)
        if hint:
            x["client_version"] = hint
        gen = obj.get("generationId", obj.get("groupGenerationId"))
        if isinstance(gen, int) and not isinstance(gen, bool):
            f["generation"] = gen
        if name == "joined":
            f["protocol"] = obj.get("groupProtocol")
            x["leader"] = obj.get("leaderId")
            x["is_leader"] = obj.get("isLeader")
            x["duration_ms"] = obj.get("duration")
            f["partitions"] = _parts(obj.get("memberAssignment"))
        if name == "chosen_leader":
            x["leader"] = obj.get("memberId")
            x["is_leader"] = True
            if isinstance(obj.get("topics"), list):
                x["topics"] = obj["topics"]
        if name == "received_assignment":
            f["partitions"] = _parts(obj.get("memberAssignment"))
        if name in ("offset_reset", "seek"):
            f["topic"] = obj.get("topic")
            p = obj.get("partition")
            f["partition"] = p if isinstance(p, int) else None
            off = obj.get("offset")
            if isinstance(off, str | int) and str(off).lstrip("-").isdigit():
                f["offset"] = int(off)
            if name == "offset_reset":
                f["reason"] = "offset out of range"
        if name == "coordinator_found":
            node = obj.get("nodeId")
            f["coordinator"] = str(node) if node is not None else None
            x["broker"] = obj.get("broker")
        err = obj.get("error")
        if name == "crash":
            f["reason"] = "consumer crashed"
            f["error"] = f"{m['error_name']}: {m['error']}"
            x["retry_count"] = obj.get("retryCount")
        elif isinstance(err, str):
            f["error"] = _ERROR_NAMES.get(err, err)
            x["error_message"] = err
        elif isinstance(err, dict) and isinstance(err.get("type"), str):
            f["error"] = err["type"]
        if name == "rebalancing":
            f["reason"] = "group is rebalancing"
        if name == "unknown_member":
            f["reason"] = "coordinator is not aware of this member"
            f.setdefault("error", "UNKNOWN_MEMBER_ID")
        if name == "stopped":
            f["reason"] = "consumer stopped"
        return match(f"kafkajs.{name}", kind, LIBRARY, f, x)
    return UNRECOGNISED if ns in ("ConsumerGroup", "Runner") else IGNORE  # "" (no namespace): IGNORE


CANDIDATE_WORDS: tuple[str, ...] = words.KAFKAJS  # (parsers/foreign/words.py)
