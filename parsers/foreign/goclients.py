"""Consumer-group lines of the Go clients -> event fields: Sarama (IBM/sarama, Shopify/sarama until
1.37), franz-go (twmb/franz-go pkg/kgo) and segmentio/kafka-go.

The envelope is whatever the application's Go logger prints; `_record` finds (time, level, message,
key-values) in the shapes they print:

- the standard library's `log.Logger` (Sarama's `sarama.Logger` and kafka-go's `Logger`/`ErrorLogger`
  are usually one): optional prefix (`[sarama] `), `2006/01/02 15:04:05` with LstdFlags (`.000000` with
  Lmicroseconds), optional `file.go:12: ` (Lshortfile/Llongfile), the message (the prefix after the
  time with Lmsgprefix);
- franz-go's `kgo.BasicLogger` (pkg/kgo/logger.go, v0.1-v1.21): `<prefixFn()>[LEVEL] msg; key: val, key: val`;
- JSON lines: zap (`"ts"` epoch seconds or ISO 8601, `"level"`, `"msg"`), slog's JSONHandler
  (`"time"`, `"level"`, `"msg"`), logrus's JSONFormatter (`"time"`, `"level"`, `"msg"`), zerolog
  (`"time"`, `"level"`, `"message"`), with the caller's key-values as fields (franz-go's plugins kzap,
  kslog, klogrus, kzerolog, kphuslog pass its key-values through as fields);
- logfmt: slog's TextHandler, logrus's TextFormatter, go-kit log (`time=.. level=INFO msg="joining group" group=g`);
- zap's console encoder: `TIME<TAB>LEVEL<TAB>[LOGGER<TAB>][CALLER<TAB>]msg<TAB>{json fields}`.

Which client printed a line is told by its wording (the three clients share none): Sarama's
messages start with its subsystem path (`client/coordinator `, `consumergroup/`); franz-go's are fixed
messages with key-values (`joined` + `group`, `member_id`, `generation`, ...); kafka-go's are
printf texts naming the group. Every rule names the client source file and the tags it was read at
(tests/parsers/foreign/SOURCES.md): Sarama v1.3.0-v1.60.1 (every tag), franz-go v0.1.0-v1.21.5 (every
tag), kafka-go v0.1.0-v0.4.50 (every tag).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from parsers.build_cache import compile_regex
from parsers.foreign import words
from parsers.foreign.common import IGNORE, UNRECOGNISED, iso_ms, json_object, match
from parsers.timestamps import epoch_number_ms, parse_ts

SARAMA, FRANZ, KAFKA_GO = "sarama", "franz-go", "kafka-go"

# Kafka error codes (org.apache.kafka.common.protocol.Errors) of the group APIs: franz-go logs commit
# errors as `error_code`, kafka-go prints `[code] Title: description` (error.go Error())
_ERROR_CODES = {
    3: "UNKNOWN_TOPIC_OR_PARTITION", 12: "OFFSET_METADATA_TOO_LARGE", 14: "COORDINATOR_LOAD_IN_PROGRESS",
    15: "COORDINATOR_NOT_AVAILABLE", 16: "NOT_COORDINATOR", 22: "ILLEGAL_GENERATION", 23: "INCONSISTENT_GROUP_PROTOCOL",
    24: "INVALID_GROUP_ID", 25: "UNKNOWN_MEMBER_ID", 26: "INVALID_SESSION_TIMEOUT", 27: "REBALANCE_IN_PROGRESS",
    28: "INVALID_COMMIT_OFFSET_SIZE", 29: "TOPIC_AUTHORIZATION_FAILED", 30: "GROUP_AUTHORIZATION_FAILED",
    69: "GROUP_ID_NOT_FOUND", 79: "MEMBER_ID_REQUIRED", 81: "GROUP_MAX_SIZE_REACHED", 82: "FENCED_INSTANCE_ID",
    88: "UNSTABLE_OFFSET_COMMIT", 110: "FENCED_MEMBER_EPOCH", 111: "UNRELEASED_INSTANCE_ID", 113: "STALE_MEMBER_EPOCH",
}
# Sarama's KError texts (errors.go `func (err KError) Error()`, "kafka server: ..." 1.x) of the group errors
_SARAMA_ERRORS = {
    "The coordinator is still loading offsets and cannot currently process requests": "COORDINATOR_LOAD_IN_PROGRESS",
    "The coordinator is not available": "COORDINATOR_NOT_AVAILABLE",
    "Request was for a consumer group that is not coordinated by this broker": "NOT_COORDINATOR",
    "The provided generation id is not the current generation": "ILLEGAL_GENERATION",
    "The provided member is not known in the current generation": "UNKNOWN_MEMBER_ID",
    "A rebalance for the group is in progress. Please re-join the group": "REBALANCE_IN_PROGRESS",
    "The client is not authorized to access this group": "GROUP_AUTHORIZATION_FAILED",
    "The group member needs to have a valid member id before actually entering a consumer group": "MEMBER_ID_REQUIRED",
    "The broker rejected this static consumer since another consumer with the same group.instance.id has registered "
    "with a different member.id": "FENCED_INSTANCE_ID",
}
_KERR = compile_regex(r"^([A-Z][A-Z_]+[A-Z]): ")  # franz-go kerr.Error: "REBALANCE_IN_PROGRESS: The group is ..."
_KGO_ERR = compile_regex(r"^\[(\d+)\] [^:]+: ")  # kafka-go Error: "[27] Rebalance In Progress: the coordinator ..."


def error_name(text: Any) -> str | None:
    """The Kafka error name a Go client's error text states, else the text (None for none)."""
    if text is None:
        return None
    t = str(text).strip()
    if t in ("", "<nil>", "null", "nil"):
        return None
    m = _KERR.match(t)
    if m:
        return m[1]
    m = _KGO_ERR.match(t)
    if m and int(m[1]) in _ERROR_CODES:
        return _ERROR_CODES[int(m[1])]
    if t.startswith("kafka server: "):
        return _SARAMA_ERRORS.get(t[14:].rstrip("."), t)
    return t


# --- envelopes --------------------------------------------------------------------------------------

@dataclass(slots=True)
class _Rec:
    ts_ms: int | None
    level: str | None
    msg: str
    kv: dict[str, Any]  # the logger's key-values (franz-go's); {} for printf lines
    kv_text: bool  # the values are text (BasicLogger, logfmt), not JSON values


_LEVELS = frozenset(["DEBUG", "INFO", "WARN", "WARNING", "ERROR", "DPANIC", "PANIC", "FATAL", "TRACE"])
# log.LstdFlags "2006/01/02 15:04:05", Lmicroseconds ".000000"; then Lshortfile/Llongfile "file.go:12: "
_STD_TIME = compile_regex(r"(?<!\d)(\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,9})?) (?:\S+\.go:\d+: )?")
_BASIC = compile_regex(r"\[(ERROR|WARN|INFO|DEBUG)\] ")  # franz-go basicLogger: "[" + level.String() + "] "
_LOGFMT = compile_regex(r'(?:^|(?<=\s))([A-Za-z_][\w.\-]*)=("(?:[^"\\]|\\.)*"|[^\s"]*)')
_TS_KEYS = ("ts", "time", "timestamp", "T", "@timestamp", "t")
_MSG_KEYS = ("msg", "message", "M")
_LEVEL_KEYS = ("level", "lvl", "L", "severity")


def _ts_of(v: Any) -> int | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int | float):
        return epoch_number_ms(v)
    if isinstance(v, str):
        s = v.strip()
        if s.replace(".", "", 1).isdigit():
            try:
                return epoch_number_ms(float(s))
            except ValueError:
                return None
        return parse_ts(s) if s else None
    return None


def _level(v: Any) -> str | None:
    if not isinstance(v, str) or not v:
        return None
    u = v.strip().upper()
    return "WARN" if u == "WARNING" else u


def _unquote(v: str) -> str:
    if len(v) >= 2 and v[0] == '"' and v[-1] == '"':
        return re.sub(r'\\(.)', r"\1", v[1:-1])
    return v


def _text_time(text: str) -> tuple[int | None, int]:
    """(time, end of the stdlib-log header) of a text line: log.LstdFlags' date first, else the first
    ISO 8601 date-time (a prefixFn's, a wrapper's)."""
    m = _STD_TIME.search(text)
    if m is not None:
        return parse_ts(m[1]), m.end()
    return iso_ms(text[:80]), 0


def _basic_kv(text: str, keys: frozenset[str]) -> dict[str, str]:
    """franz-go BasicLogger's `key: val, key: val` (fmt %v values, which may hold ', '): split where a
    known key follows ', '."""
    out: dict[str, str] = {}
    bounds = [0]
    for m in _KV_SPLIT.finditer(text):
        if m[1] in keys:
            bounds.append(m.start())
    bounds.append(len(text))
    for a, b in zip(bounds, bounds[1:], strict=False):
        part = text[a:b]
        if part.startswith(", "):
            part = part[2:]
        k, sep, v = part.partition(": ")
        if sep:
            out[k] = v
    return out


_KV_SPLIT = compile_regex(r", ([A-Za-z_][A-Za-z0-9_]*): ")


def _record(line: str) -> _Rec | None:
    s = line.strip()
    if s.startswith("{"):
        obj = json_object(s)
        if obj is None:
            return None
        msg = next((obj[k] for k in _MSG_KEYS if isinstance(obj.get(k), str)), None)
        if msg is None:
            inner = obj.get("log")  # docker json-file: the Go line inside
            if isinstance(inner, str) and not inner.lstrip().startswith("{"):
                rec = _record(inner)
                if rec is not None and rec.ts_ms is None:
                    rec.ts_ms = _ts_of(obj.get("time"))
                return rec
            return None
        ts = next((t for t in (_ts_of(obj.get(k)) for k in _TS_KEYS if k in obj) if t is not None), None)
        lvl = next((_level(obj[k]) for k in _LEVEL_KEYS if isinstance(obj.get(k), str)), None)
        return _Rec(ts, lvl, msg, obj, False)
    m = _BASIC.search(s)
    if m is not None:
        ts, _ = _text_time(s[:m.start()])
        return _Rec(ts, m[1], s[m.end():], {}, True)  # message and key-values split by the rule
    if "msg=" in s:
        kv = {k: _unquote(v) for k, v in _LOGFMT.findall(s)}
        if "msg" in kv:
            msg = kv.pop("msg")
            ts = next((t for t in (_ts_of(kv.get(k)) for k in _TS_KEYS if k in kv) if t is not None), None)
            lvl = next((_level(kv[k]) for k in _LEVEL_KEYS if k in kv), None)
            return _Rec(ts if ts is not None else iso_ms(s[:40]), lvl, msg, kv, True)
    if "\t" in s:
        parts = s.split("\t")
        if len(parts) >= 3 and parts[1].strip().upper() in _LEVELS:
            fields: dict[str, Any] = {}
            rest = parts[2:]
            if len(rest) > 1 and rest[-1].lstrip().startswith("{"):
                fields = json_object(rest[-1]) or {}
                rest = rest[:-1]
            return _Rec(_ts_of(parts[0]) or iso_ms(parts[0]), _level(parts[1]), rest[-1], fields, False)
    ts, end = _text_time(s)
    return _Rec(ts, None, s[end:], {}, True)


# --- partitions and offsets in Go's renderings ------------------------------------------------------

_GO_MAP_TP = compile_regex(r"([^\s:\[\]{}]+):\[([\d ]*)\]")  # fmt %v of map[string][]int32: map[t:[0 1] u:[2]]
_MTPS = compile_regex(r"([^\s,\[\]{}]+)\[([\d ]*)\]")  # franz-go mtps.String(): "t[0 1], u[2]"
_KGO_TP_OFFSET = compile_regex(r"\{topic:(\S+) partition:(\d+)\}:(-?\d+)")  # kafka-go map[topicPartition]int64 %+v


def _sorted_tps(tps: list[str]) -> tuple[str, ...]:
    return tuple(sorted(set(tps), key=lambda s: (s.rsplit("-", 1)[0], int(s.rsplit("-", 1)[1]))))


def go_partitions(v: Any) -> tuple[str, ...] | None:
    """`topic-N` of a Go topic->partitions value: fmt's `map[t:[0 1]]`, franz-go's `t[0 1], u[2]`, a
    JSON object {"t": [0, 1]} (zap/slog/logrus JSON of a map); () for an empty one, None for none."""
    if isinstance(v, dict):
        out: list[str] = []
        for t, ps in v.items():
            if isinstance(ps, list):
                out.extend(f"{t}-{p}" for p in ps if isinstance(p, int) and not isinstance(p, bool))
        return _sorted_tps(out)
    if not isinstance(v, str):
        return None
    s = v.strip()
    if s in ("", "map[]", "{}", "<nil>"):
        return ()
    rx = _GO_MAP_TP if s.startswith("map[") else _MTPS
    if s.startswith("map["):
        s = s[4:-1] if s.endswith("]") else s[4:]
    out = [f"{m[1]}-{p}" for m in rx.finditer(s) for p in m[2].split()]
    return _sorted_tps(out) if out else None


def _kgo_offset(text: str) -> int:
    """kafka-go's humanOffset (reader.go v0.4.32+): its FirstOffset (-2) and LastOffset (-1) by name."""
    return -2 if text == "first offset" else -1 if text == "last offset" else int(text)


def _int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        return int(v.strip())
    return None


def _str(v: Any) -> str | None:
    if v is None or isinstance(v, dict | list):
        return None
    s = str(v)
    return None if s in ("", "<nil>", "null") else s


# --- rules ------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    lib: str
    regex: re.Pattern[str]
    kind: str | None  # None: a known line without an event (counted ignored)
    source: str


RULES: list[Rule] = []


# kafka-go's texts are plain words: read only where a message starts (the line's start after the
# envelope, or after a prefix's ': ', '] ' or '| ': Lmsgprefix, a syslog or journald header)
_AT_START = r"(?:^|(?<=: )|(?<=\] )|(?<=\| ))"


def _r(name: str, lib: str, pattern: str, kind: str | None, source: str) -> None:
    if lib == KAFKA_GO:
        pattern = _AT_START + "(?:" + pattern + ")"
    RULES.append(Rule(name, lib, compile_regex(pattern), kind, source))


# Sarama (Logger / DebugLogger: stdlib log; messages end in "\n", which log.Printf does not double)
_SG = r"(?:consumer ?g(?:r)?oup )?(?P<group>\S+)"  # "consumergoup" (sic) 1.3-1.9, "consumergroup" 1.10-1.36, the key alone 1.37+
_r("coordinator_requesting", SARAMA, r"client/coordinator [Rr]equesting coordinator for " + _SG + r" from (?P<broker>\S+?)\.?$",
   "coordinator_lookup", "client.go getConsumerMetadata/findCoordinator v1.3.0-v1.60.1 ('Requesting ... consumergoup %s from %s.' 1.3, "
   "'consumergoup' 1.4-1.9, 'consumergroup' 1.10-1.36, '%s' 1.37+; DebugLogger 1.30+)")
_r("coordinator_is", SARAMA, r"client/coordinator [Cc]oordinator for " + _SG + r" is #(?P<coordinator>-?\d+) \((?P<broker>[^)]*)\)\.?$",
   "coordinator_discovered", "client.go v1.3.0-v1.60.1 ('(%s:%d).' 1.3, 'consumergoup' 1.4-1.9, 'consumergroup' 1.10-1.36, '%s' 1.37+)")
_r("coordinator_not_available", SARAMA, r"client/coordinator [Cc]oordinator for " + _SG + r" is not available\.?$",
   "coordinator_lookup", "client.go v1.3.0-v1.60.1 ('consumer group %s' until 1.36, '%s' 1.37+)")
_r("coordinator_not_authorized", SARAMA, r"client was not authorized to access group (?P<group>\S+) while attempting to find coordinator$",
   "coordinator_lookup", "client.go findCoordinator v1.24.0-v1.60.1")
_r("coordinator_other", SARAMA, r"client/coordinator (?:[Rr]equest to broker \S+ failed: |[Rr]etrying after \d+ms|no available broker"
   r"|[Tt]he __(?:consumer_offsets|transaction_state) topic is not initialized)", None, "client.go v1.3.0-v1.60.1")
_r("instance_fenced", SARAMA, r"JoinGroup failed: group instance id (?P<instance>\S+) has been fenced$", "member_fenced",
   "consumer_group.go newSession JoinGroup and SyncGroup v1.34.0-v1.60.1, consumer_group_session.go heartbeatLoop v1.60.1 "
   "(the same wording on all three)")
_r("lost_ownership", SARAMA, r"consumergroup/(?P<group>\S+): lost ownership of (?P<claims>map\[.*\]) due to (?P<error>.*)$",
   "partitions_lost", "consumer_group.go lostHeldAssignment v1.60.1")
_r("heartbeat_stopped", SARAMA, r"consumergroup/session/(?P<member>.+)/(?P<generation>-?\d+) heartbeat loop stopped$", "heartbeat_thread",
   "consumer_group.go/consumer_group_session.go heartbeatLoop v1.31.1-v1.60.1")
_r("session_released", SARAMA, r"consumergroup/session/(?P<member>.+)/(?P<generation>-?\d+) released$", "partitions_revoked",
   "consumer_group.go/consumer_group_session.go release v1.31.1-v1.60.1 (after ConsumerGroupHandler.Cleanup: every claim of the session)")
_r("group_other", SARAMA, r"consumergroup/\S+:? (?:falling back to static user data|loop check partition number|topic \S+ get partition number failed)"
   r"|consumer-group/claim \S+ retrying after |Consumer Group (?:refresh metadata failed|topic \S+ get partition number failed)"
   r"|loop check partition number coroutine will exit",
   None, "consumer_group.go / consumer_group_session.go v1.19.0-v1.60.1 (metadata checks, claim retries, user-data fallback)")

# franz-go (pkg/kgo consumer_group.go, consumer_group_848.go; msg then key-values)
_FRANZ: dict[str, tuple[str, str | None, str]] = {}  # message -> (rule, kind, source)


def _f(rule: str, kind: str | None, source: str, *messages: str) -> None:
    for m in messages:
        _FRANZ[m] = (rule, kind, source)


_f("joining", "join_started", "consumer_group.go joinAndSync v0.1.0-v1.21.5 (info; 'group' key v0.6+)", "joining group")
_f("joined", "join_succeeded", "consumer_group.go handleJoinResp v0.1.0-v1.21.5 (info; group, member_id, instance_id, generation, "
   "[balance_protocol,] leader; memberID/instanceID keys until v0.6)",
   "joined", "joined, balancing group", "joined as leader but unable to balance group due to KIP-345 limitations",
   "joined, skipping assignment even though leader (KIP-814)")
_f("join_member_id_required", "join_failed", "consumer_group.go handleJoinResp v0.1.0-v1.21.5 (info)",
   "join returned MemberIDRequired, rejoining with response's MemberID")
_f("join_unknown_member", "join_failed", "consumer_group.go handleJoinResp v0.1.0-v1.21.5 (info)",
   "join returned UnknownMemberID, rejoining without a member id")
_f("join_failed", "join_failed", "consumer_group.go joinAndSync v0.1.0-v1.21.5 (warn)", "join group failed")
_f("syncing", "sync_started", "consumer_group.go joinAndSync v0.1.0-v1.21.5 (info; protocol_type, protocol)", "syncing")
_f("synced", "assignment_received", "consumer_group.go handleSyncResp v0.6.10-v1.21.5 ('synced', assigned), v0.1.0-v0.8.6 "
   "('synced successfully')", "synced", "synced successfully")
_f("sync_failed", "sync_failed", "consumer_group.go joinAndSync v0.1.0-v1.21.5 ('sync group failed' warn; 'sync failed' until v0.6.1)",
   "sync group failed", "sync failed")
_f("sync_rebalancing", "sync_failed", "consumer_group.go joinAndSync v0.1.0-v1.21.5 (info)", "sync failed with RebalanceInProgress, rejoining")
_f("session_begun", "partitions_assigned", "consumer_group.go setupAssignedAndHeartbeat v0.4.1-v1.21.5 (info; added, lost)",
   "new group session begun")
_f("revoking", "partitions_revoked", "consumer_group.go revoke v0.1.0-v1.21.5 (info; revoking)",
   "eager consumer revoking prior assigned partitions",
   "cooperative consumer revoking prior assigned partitions because leaving group")
_f("on_revoke", "partitions_revoked", "consumer_group.go revoke v0.1.0-v1.18.1 ('cooperative consumer calling onRevoke'), "
   "v1.19.0-v1.21.5 ('calling onRevoke at the end of a session'; lost, stage)",
   "cooperative consumer calling onRevoke", "calling onRevoke at the end of a session",
   "cooperative consumer calling onRevoke at the end of a session even though no partitions were lost",
   "consumer calling onRevoke at the end of a session; consumer did not change any client-side subscription")
_f("heartbeat_errored", "heartbeat_failed", "consumer_group.go heartbeat v0.1.0-v1.21.5 (info; err; 'again while waiting' v0.6.10+, "
   "'hit retryable error' v1.21+)",
   "heartbeat errored", "heartbeat errored again while waiting for user revoke to finish",
   "heartbeat hit retryable error, retrying", "heartbeat hit retryable error, max retries reached",
   "consumer group heartbeat hit retriable broker error, retrying")
_f("heartbeating", "heartbeat_sent", "consumer_group.go heartbeat v0.1.0-v1.21.5 (debug)", "heartbeating")
_f("heartbeat_complete", "heartbeat_succeeded", "consumer_group.go heartbeat v0.1.0-v1.21.5 (debug; err: an error -> no event, "
   "'heartbeat errored' follows)", "heartbeat complete")
_f("heartbeat_loop", "heartbeat_thread", "consumer_group.go setupAssignedAndHeartbeat v0.1.0-v1.21.5 ('beginning'), "
   "v0.1.0-v1.3.5 ('complete')", "beginning heartbeat loop", "heartbeat loop complete")
_f("forced_rejoin", "join_started", "consumer_group.go heartbeat v1.2.2-v1.21.5 (info; why)", "forced rejoin quitting heartbeat loop")
_f("manage_errored", "rebalance_failed", "consumer_group.go manage v0.1.0-v1.18.1 ('join and sync loop errored'), "
   "v1.19.0-v1.21.5 ('group manage loop errored'; err, consecutive_errors, backoff)",
   "join and sync loop errored", "group manage loop errored")
_f("leaving", "leave_group", "consumer_group.go leave v0.1.0-v1.21.5; consumer_group_848.go leave v1.19.0-v1.21.5 (info)",
   "leaving group", "leaving next-gen group")
_f("commit_partition_failed", "offset_commit_failed", "consumer_group.go handleCommitResp / defaultCommitCallback v0.1.0-v1.21.5 "
   "(topic, partition, error_code | error)",
   "unable to commit offset for topic partition", "in default commit: unable to commit offsets for topic partition",
   "in autocommit: unable to commit offsets for topic partition", "in revoke: unable to commit offsets for topic partition")
_f("commit_failed", "offset_commit_failed", "consumer_group.go defaultCommitCallback v0.7.0-v1.21.5 ('default commit failed'), "
   "v0.1.0-v0.6.14 ('autocommit failed', 'default revoke BlockingCommitOffsets failed')",
   "default commit failed", "autocommit failed", "default revoke BlockingCommitOffsets failed")
_f("kip848_assignment", "assignment_received", "consumer_group_848.go v1.19.0-v1.21.5 (info; member_id, generation = member epoch, now_assigned)",
   "consumer group heartbeat detected an updated assignment; exited heartbeat loop to assign & reentering",
   "consumer group initial heartbeat received assignment")
_f("kip848_fenced", "member_fenced", "consumer_group_848.go v1.19.0-v1.20.6 ('saw fenced member epoch'), v1.21.0-v1.21.5 "
   "('heartbeat error, abandoning assignment')",
   "consumer group heartbeat saw fenced member epoch, abandoning assignment and rejoining",
   "consumer group heartbeat error, abandoning assignment and rejoining with new member id")
_f("on_lost", "partitions_lost", "consumer_group.go newGroupConsumer callback wrappers v0.10.2-v1.4.x ('entering OnLost'), "
   "v1.5.0-v1.21.5 ('entering OnPartitionsLost') (debug; with: the partitions handed to the callback)",
   "entering OnLost", "entering OnPartitionsLost")
_f("on_assigned_revoked", None, "consumer_group.go callback wrappers v0.10.2-v1.21.5 (debug; 'new group session begun' and "
   "'calling onRevoke' state the same partitions)",
   "entering OnAssigned", "entering OnRevoked", "entering OnPartitionsAssigned", "entering OnPartitionsRevoked")
# share groups (KIP-932), consumer_share.go v1.21.0-v1.21.5
_f("share_assigning", "assignment_received", "consumer_share.go assignPartitions v1.21.0-v1.21.5 (info; assignments)",
   "assigning share partitions")
_f("share_heartbeating", "heartbeat_sent", "consumer_share.go v1.21.0-v1.21.5 (debug; member_id, member_epoch)",
   "share group heartbeating")
_f("share_lost_membership", "member_fenced", "consumer_share.go v1.21.0-v1.21.5 (info; member_id, generation = member epoch, err)",
   "share group heartbeat lost membership, resetting epoch")
_f("share_leaving", "leave_group", "consumer_share.go v1.21.0-v1.21.5 (info; member_id)", "leaving share group")
_f("share_no_event", None, "consumer_share.go v1.21.0-v1.21.5",
   "beginning to manage the share group lifecycle", "share group manage loop hit a retryable error, retrying",
   "share group heartbeat complete", "purging share group topics")
_f("kip848_epoch", "heartbeat_succeeded", "consumer_group_848.go v1.19.0-v1.21.5 (debug; member, epoch)",
   "storing member and epoch", "storing epoch")
# known franz-go group lines without a fact of the vocabulary (consumer_group.go, consumer_group_848.go v0.1.0-v1.21.5)
_f("no_event", None, "consumer_group.go / consumer_group_848.go v0.1.0-v1.21.5",
   "beginning to manage the group lifecycle", "beginning to manage the next-gen group lifecycle", "beginning autocommit loop",
   "tried to leave group but we have no member ID yet, returning early", "heartbeat saw a change in group status; partitions were added or lost",
   "falling back to standard consumer group management due to lack of broker support",
   "received fenced member epoch with epoch 0; clearing member ID to forcefully join as a new member",
   "consumer group initial heartbeat hit retryable error, backing off and retrying",
   "ignoring consumer group heartbeat response with an invalid negative member epoch",
   "UnreleasedInstanceID after 3 retries - static instance is held by another member; check for duplicate InstanceID config or an unclean peer shutdown",
   "group protocol downgraded from cooperative to eager; all partitions will be revoked before consuming resumes from committed offsets",
   "downgrading from cooperative group to eager group, this is not supported per KIP-429!",
   "sync assignment parse failed", "sync assignment raw", "unable to balance", "consumer regular expressions evaluated on new topics",
   "member was assigned topic that we did not ask for in ConsumeTopics! skipping assigning this topic!",
   "member was assigned topic that we did not ask for in AssignGroup! skipping assigning this topic!",
   "BUG! member was assigned topic that we did not ask for in AssignGroup! skipping assigning this topic!",
   "fetching offsets", "fetch offsets returned", "fetched committed offsets", "fetching offsets for added partitions",
   "fetch offsets failed", "fetch offsets failed due to context cancelation", "fetch offsets failed with non-retriable error",
   "fetch offsets failed with non-retryable error", "fetch offsets failed with group-level error",
   "fetch offsets failed with UnstableOffsetCommit, waiting 1s and retrying",
   "fetch offsets failed with retryable partition error, waiting 1s and retrying",
   "fetch offsets returned stale member epoch, forcing heartbeat and retrying",
   "fetch offsets: stale member epoch after 10 retries, giving up",
   "fetch offsets failed for partition; injecting error and continuing with remaining partitions",
   "fetch offsets has an empty topic even after a TopicID lookup, this is unexpected, skipping response partition",
   "fetch offsets response had an empty topic name for a TopicID that was in the request, using the request's topic name",
   "fetch offsets response omitted requested partitions, waiting 1s and retrying",
   "fetch offsets response repeatedly omitted a requested partition; injecting error and continuing with remaining partitions",
   "broker returned topic in OffsetFetch response that we did not request, skipping",
   "broker returned partition in OffsetFetch response that we did not request, skipping",
   "autocommitting", "autocommit canceled", "default commit canceled", "skipping autocommit due to no offsets to commit",
   "issuing commit", "updated committed", "updated uncommitted", "in CommitOffsets", "left CommitOffsets",
   "in CommitOffsetsSync", "left CommitOffsetsSync", "in BlockingCommitOffsets", "left BlockingCommitOffsets",
   "canceling prior commit to issue another", "waiting for prior commit to finish before issuing another",
   "blocking commits from join&sync", "unblocking commits from join&sync", "grabbed join/sync mu on first try",
   "grabbed join/sync mu after waiting", "not grabbing mu because context canceled",
   "received an OffsetCommitResponse after our group session has ended, unable to handle this (were we kicked from the group?)",
   "CommitOffsets spanned a rebalance, we are cooperative and did not lose any partition we were trying to commit, recommitting",
   "offset commit got stale member epoch, retrying with updated epoch", "offset commit: stale member epoch after 10 retries, giving up",
   "offset commit returned a fatal group member error, triggering rejoin",
   "received STALE_MEMBER_EPOCH while committing; forced immediate heartbeat to load the latest generation",
   "received STALE_MEMBER_EPOCH while committing; forced immediate heartbeat to load the latest generation but received an error",
   "received STALE_MEMBER_EPOCH while committing; unable to force heartbeat; returning original stale error",
   "prepared to issue find coordinator request")
# the keys franz-go passes on these lines (BasicLogger's "key: val" is split at these only)
_FRANZ_KEYS = frozenset([
    "group", "member_id", "memberID", "member", "instance_id", "instanceID", "instance", "generation", "epoch", "leader",
    "balance_protocol", "protocol_type", "protocol", "err", "error", "added", "assigned", "lost", "revoking", "now_assigned",
    "stage", "why", "is848", "topic", "partition", "commit_from", "commit_to", "commit_epoch", "error_code",
    "consecutive_errors", "backoff", "retries", "attempt", "unreleased_instance_retries", "with", "to", "context_expired",
    "require_stable", "topic_id", "omitted", "coordinator_type", "coordinator_keys", "uncommitted",
    "member_epoch", "assignments", "topics", "new_member_epoch",
])
_FRANZ_MSGS = tuple(sorted(_FRANZ, key=len, reverse=True))  # longest first: "joined, balancing group" before "joined"

# segmentio/kafka-go (Reader/ConsumerGroup Logger and ErrorLogger: printf texts; %v of the group id)
_G = r"(?P<group>\S+?)"
_r("join_succeeded", KAFKA_GO, r"joinGroup succeeded for response, " + _G + r"\.\s+generationID=(?P<generation>-?\d+), memberID=(?P<member>\S*)$",
   "join_succeeded", "reader.go joinGroup v0.1.0-v0.3.0, consumergroup.go joinGroup v0.3.1-v0.4.50 (Logger; the join's one line "
   "in every version: 'joined group'/'Joined group' 0.3.1+ repeat it)")
_r("joined_group", KAFKA_GO, r"[jJ]oined group " + _G + r" as member (?P<member>\S*) in generation (?P<generation>-?\d+)$",
   None, "consumergroup.go joinGroup / nextGeneration v0.3.1-v0.4.50 (the join 'joinGroup succeeded for response' states)")
_r("sync_started", KAFKA_GO, r"Syncing (?P<count>\d+) assignments for generation (?P<generation>-?\d+) as member (?P<member>\S*)$",
   "sync_started", "reader.go v0.2.0-v0.3.0, consumergroup.go syncGroup v0.3.1-v0.4.50 (Logger)")
_r("sync_finished", KAFKA_GO, r"sync group finished for group, " + _G + r"$", "sync_succeeded",
   "reader.go v0.1.0-v0.3.0, consumergroup.go syncGroup v0.3.1-v0.4.50 (Logger)")
_r("empty_assignment", KAFKA_GO, r"received empty assignments for group, " + _G + r" as member (?P<member>\S*) for generation (?P<generation>-?\d+)$",
   "assignment_received", "reader.go v0.2.3-v0.3.0, consumergroup.go syncGroup v0.3.1-v0.4.50 (Logger)")
_r("subscribed", KAFKA_GO, r"subscribed to topics and partitions: (?P<offsets>map\[.*\])$", "partitions_assigned",
   "reader.go v0.4.12-v0.4.50 (Logger; %+v of map[topicPartition]int64, the start offsets)")
_r("subscribed_old", KAFKA_GO, r"subscribed to partitions: (?P<offsets>map\[.*\])$", "partitions_assigned",
   "reader.go v0.1.0-v0.4.11 (Logger; %+v of map[int]int64: partition -> offset of the reader's one topic)")
_r("join_failed", KAFKA_GO, r"Failed to join group " + _G + r": (?P<error>.*)$", "join_failed",
   "consumergroup.go nextGeneration v0.3.1-v0.4.50 (ErrorLogger)")
_r("sync_failed", KAFKA_GO, r"Failed to sync group " + _G + r": (?P<error>.*)$", "sync_failed",
   "consumergroup.go nextGeneration v0.3.1-v0.4.50 (ErrorLogger)")
_r("coordinator_failed", KAFKA_GO, r"Unable to establish connection to consumer group coordinator for group " + _G + r": (?P<error>.*)$",
   "coordinator_lookup", "consumergroup.go nextGeneration v0.3.1-v0.4.50 (ErrorLogger)")
_r("coordinator_set", KAFKA_GO, r"coordinator for group, " + _G + r", set to (?P<broker>\S+)$", "coordinator_discovered",
   "reader.go v0.1.0-v0.3.0 (Logger; the coordinator's address)")
_r("leaving", KAFKA_GO, r"Leaving group " + _G + r", member (?P<member>\S*)$", "leave_group",
   "consumergroup.go leaveGroup v0.3.1-v0.4.50 (Logger)")
_r("heartbeat_started", KAFKA_GO, r"started heartbeat for group, " + _G + r" \[(?P<interval>[^\]]*)\]$", "heartbeat_thread",
   "reader.go v0.1.0-v0.3.0, consumergroup.go heartbeatLoop v0.3.1-v0.4.50 (Logger)")
_r("heartbeat_stopped", KAFKA_GO, r"stopped heartbeat for group " + _G + r"$", "heartbeat_thread",
   "consumergroup.go heartbeatLoop v0.3.4-v0.4.50 (Logger)")
_r("partition_changes", KAFKA_GO, r"Partition changes found, reba?lancing group: " + _G + r"\.$", "join_started",
   "consumergroup.go partitionWatcher v0.3.1-v0.4.50 ('reblancing' until v0.4.47), reader.go v0.2.3-v0.3.0 (Logger)")
_r("rebalancing", KAFKA_GO, r"rebalancing consumer group, " + _G + r"$", "join_started", "reader.go rebalance v0.1.0-v0.3.0 (Logger)")
_r("committed", KAFKA_GO, r"committed offsets for group " + _G + r": ?$", "offset_committed",
   "consumergroup.go CommitOffsets v0.3.1-v0.4.50 (Logger; then one '\\ttopic: %s' line a topic, '\\t\\tpartition %d: %d' a partition)")
_r("committed_old", KAFKA_GO, r"committed offsets: (?P<offsets>map\[.*\])$", "offset_committed",
   "reader.go commitOffsetsWithRetry v0.1.0-v0.3.0 (Logger; %v of map[string]map[int]int64)")
_r("seeking", KAFKA_GO, r"the kafka reader for partition (?P<partition>\d+) of (?P<topic>\S+) is seeking to offset (?P<offset>-?\d+|first offset|last offset)$",
   "offset_seek", "reader.go reader.run v0.1.0-v0.4.50 (Logger; %d of toHumanOffset: 'first offset'/'last offset' for -2/-1 from v0.4.32)")
_r("skipping_to_first", KAFKA_GO, r"the kafka reader is reading before the first offset for partition (?P<partition>\d+) of (?P<topic>\S+), "
   r"skipping from offset (?P<from>-?\d+|first offset|last offset) to (?P<offset>-?\d+) \(\d+ messages\)$", "offset_reset",
   "reader.go reader.run v0.1.0-v0.4.50 (ErrorLogger; the from offset through toHumanOffset from v0.4.32)")
_r("other", KAFKA_GO, r"(?:selected as leader for group, |using '[^']*' (?:balancer|strategy) to assign group, |found member: |found topic/partition: "
   r"|assigned member/topic/partitions |response membership changed\. |Failed to fetch offsets for group |leave group failed for group, "
   r"|started partition watcher for group, |stopped partition watcher for group, |Problem getting partitions "
   r"|started commit for group |stopped commit for group |entering loop for consumer group, |initializing kafka reader for partition "
   r"|setting the offset of the kafka reader for partition |the kafka reader is reading passed the last offset |looking up offset of kafka reader "
   r"|kafka reader failed to read lag of partition |error initializing the kafka reader for partition |failed to read from current broker "
   r"|no messages received from kafka within the allocated time |the kafka reader got an (?:unknown )?error )",
   None, "reader.go v0.1.0-v0.4.50, consumergroup.go v0.3.1-v0.4.50 (leader's plan, watchers, commit loop, partition readers)")

# the first words of the printf rules, to pick the rules to try (the rules of a line's client only)
_SARAMA_GATE = ("client/coordinator", "consumergroup/", "consumer-group/", "JoinGroup failed: group instance id",
                "client was not authorized to access group", "Consumer Group ", "loop check partition number")
_KGO_RULES = [r for r in RULES if r.lib == KAFKA_GO]
_SARAMA_RULES = [r for r in RULES if r.lib == SARAMA]
# a Sarama coordinator or group path where a message starts (after the stdlib header, a Lmsgprefix
# prefix's '] ' or ': ')
_SARAMA_GROUP_PATH = compile_regex(r"(?:^|(?<=\] )|(?<=: ))(?:client/coordinator |consumergroup/)")
# Sarama's other subsystems' lines (client/metadata, client/brokers, producer/..., consumer/broker/...,
# txnmgr/...): known Sarama lines, not the group's
_SARAMA_OTHER = compile_regex(r"(?:^|(?<=\s))(?:client/(?:metadata|brokers|seedbrokers|broker)|producer/(?:leader|broker|txnmgr|txnmanager|shutdown)"
                           r"|consumer/(?:broker/)?\S+|txnmgr/\S+) ")


def _source_of(rule: str) -> str | None:
    lib, _, name = rule.partition(".")
    if lib == "franz_go":
        for n, _k, src in _FRANZ.values():
            if n == name:
                return "franz-go pkg/kgo/" + src
        return None
    for r in RULES:
        if r.name == name and r.lib.replace("-", "_") == lib:
            return ("sarama " if r.lib == SARAMA else "kafka-go ") + r.source
    return None


def _franz(rec: _Rec, line: str) -> Any:
    """The franz-go rule of a record whose message is one of its fixed messages, else None."""
    msg, kv = rec.msg, rec.kv
    if rec.kv_text and not kv:  # BasicLogger: "msg; key: val, ..." (or a stdlib line: "msg" alone)
        text = msg.rstrip()
        for known in _FRANZ_MSGS:
            if text.startswith(known) and (len(text) == len(known) or text.startswith("; ", len(known))):
                msg = known
                kv = _basic_kv(text[len(known) + 2:], _FRANZ_KEYS) if len(text) > len(known) else {}
                break
        else:
            if _BASIC.search(line) is None:
                return None
            msg, _, rest = text.partition("; ")  # a message no rule knows: its keys still tell a group line
            kv = _basic_kv(rest, _FRANZ_KEYS)
        if not kv and not _BASIC.search(line):  # a bare message in a stdlib line is not franz-go's
            return None
    got = _FRANZ.get(msg)
    if got is None:
        # a newer franz-go line of the group (its key) that no rule knows
        if rec.level is not None and "group" in kv and _str(kv.get("group")) and (kv.keys() & {"member_id", "generation", "err"}):
            return UNRECOGNISED
        return None
    rule, kind, _src = got
    if not (kv.keys() & _FRANZ_KEYS) and not _BASIC.search(line) and msg in ("joined", "synced", "syncing", "heartbeating"):
        return None  # a generic word with none of franz-go's keys: not surely its line
    if kind is None:
        return IGNORE
    f: dict[str, Any] = {"ts_ms": rec.ts_ms, "group_id": _str(kv.get("group"))}
    x: dict[str, Any] = {"go_rule": rule, "level": rec.level}
    f["member_id"] = _str(kv.get("member_id", kv.get("memberID", kv.get("member"))))
    f["instance_id"] = _str(kv.get("instance_id", kv.get("instanceID", kv.get("instance"))))
    gen = _int(kv.get("generation"))
    err = kv.get("err", kv.get("error"))
    if rule.startswith(("kip848", "share_")) or msg.startswith(("storing ", "leaving next-gen")):
        f["group_type"] = "share" if rule.startswith("share_") else "consumer"
        f["member_epoch"] = next((e for e in (gen, _int(kv.get("member_epoch")), _int(kv.get("epoch"))) if e is not None), None)
    else:
        f["generation"] = gen
    if rule == "joined":
        lead = kv.get("leader")
        x["is_leader"] = lead if isinstance(lead, bool) else (lead == "true" if isinstance(lead, str) else None)
        f["protocol"] = _str(kv.get("balance_protocol"))
        if msg.startswith("joined as leader but unable"):
            x["balance_skipped"] = "KIP-345"
        elif "KIP-814" in msg:
            x["balance_skipped"] = "KIP-814"
    elif rule == "syncing":
        f["protocol"] = _str(kv.get("protocol"))
        x["protocol_type"] = _str(kv.get("protocol_type"))
    elif rule == "synced":
        f["partitions"] = go_partitions(kv.get("assigned")) if "assigned" in kv else None
    elif rule == "session_begun":
        f["partitions"] = go_partitions(kv.get("added", kv.get("assigned")))
        lost = go_partitions(kv.get("lost"))
        if lost:
            x["lost_partitions"] = list(lost)
    elif rule == "revoking":
        f["partitions"] = go_partitions(kv.get("revoking"))
        f["reason"] = "leaving group" if "leaving group" in msg else "eager rebalance"
    elif rule == "on_revoke":
        f["partitions"] = go_partitions(kv.get("lost")) if "lost" in kv else ()
        x["stage"] = _str(kv.get("stage"))
        f["reason"] = "end of session"
    elif rule == "heartbeat_complete":
        if error_name(err) is not None:
            return IGNORE  # 'heartbeat errored' follows with the error
    elif rule == "heartbeat_loop":
        x["thread_state"] = "started" if msg.startswith("beginning") else "stopped"
    elif rule == "forced_rejoin":
        f["reason"] = _str(kv.get("why"))
    elif rule == "share_assigning":
        f["partitions"] = go_partitions(kv.get("assignments"))
    elif rule == "on_lost":
        f["partitions"] = go_partitions(kv.get("with"))
    elif rule == "kip848_assignment":
        f["partitions"] = go_partitions(kv.get("now_assigned"))
    elif rule == "kip848_epoch":
        f["member_id"] = _str(kv.get("member"))
    elif rule == "join_member_id_required":
        f["error"] = "MEMBER_ID_REQUIRED"
    elif rule == "join_unknown_member":
        f["error"] = "UNKNOWN_MEMBER_ID"
    elif rule == "sync_rebalancing":
        f["error"] = "REBALANCE_IN_PROGRESS"
    elif rule == "manage_errored":
        x["consecutive_errors"] = _int(kv.get("consecutive_errors"))
        x["backoff"] = _str(kv.get("backoff"))
    elif rule == "commit_partition_failed":
        f["topic"] = _str(kv.get("topic"))
        f["partition"] = _int(kv.get("partition"))
        f["offset"] = _int(kv.get("commit_to"))
        code = _int(kv.get("error_code"))
        if code is not None:
            x["error_code"] = code
            f["error"] = _ERROR_CODES.get(code, str(code))
    if "error" not in f and err is not None and not isinstance(err, dict | list):
        name = error_name(err)
        if name is not None:
            f["error"] = name
            if name != str(err).strip():
                x["error_message"] = str(err).strip()
    return match(f"franz_go.{rule}", kind, FRANZ, f, x)


def _offsets_from_lines(texts: list[str]) -> dict[str, int]:
    """kafka-go's commit report lines: '\\ttopic: t' then '\\t\\tpartition p: offset'."""
    out: dict[str, int] = {}
    topic = None
    for t in texts:
        s = t.strip()
        if s.startswith("topic: "):
            topic = s[7:].strip()
        elif s.startswith("partition ") and topic is not None:
            p, _, off = s[10:].partition(": ")
            if p.isdigit() and off.strip().lstrip("-").isdigit():
                out[f"{topic}-{p}"] = int(off)
    return out


_GO_MAP_MAP = compile_regex(r"([^\s:\[\]]+):map\[([^\]]*)\]")  # map[t:map[0:15 1:20]]
_GO_INT_INT = compile_regex(r"(\d+):(-?\d+)")


def _printf(rec: _Rec, rules: list[Rule], texts: list[str] | None) -> Any:
    msg = rec.msg.rstrip()
    for r in rules:
        m = r.regex.search(msg)
        if m is None:
            continue
        if r.kind is None:
            return IGNORE
        g = m.groupdict()
        lib = r.lib
        f: dict[str, Any] = {"ts_ms": rec.ts_ms, "group_id": g.get("group")}
        x: dict[str, Any] = {"go_rule": r.name, "level": rec.level}
        f["member_id"] = g.get("member")
        f["instance_id"] = g.get("instance")
        if g.get("generation") is not None:
            f["generation"] = int(g["generation"])
        if g.get("error") is not None:
            name = error_name(g["error"])
            f["error"] = name
            if name != g["error"].strip():
                x["error_message"] = g["error"].strip()
        if g.get("coordinator") is not None:
            f["coordinator"] = g["coordinator"]
        if g.get("broker") is not None:
            x["coordinator_address" if r.kind == "coordinator_discovered" else "broker"] = g["broker"]
        if g.get("topic") is not None:
            f["topic"] = g["topic"]
            f["partition"] = int(g["partition"])
            f["offset"] = _kgo_offset(g["offset"])
        name = r.name
        if lib == SARAMA:
            if name.startswith("coordinator_") and f.get("group_id") is not None and "consumer" not in msg and "goup" not in msg:
                # 1.37+ logs every coordinator key alike: a transactional id's lookup reads the same
                x["coordinator_key"] = f["group_id"]
            if name == "coordinator_not_available":
                f["error"] = "COORDINATOR_NOT_AVAILABLE"
            elif name == "coordinator_not_authorized":
                f["error"] = "GROUP_AUTHORIZATION_FAILED"
            elif name == "instance_fenced":
                f["error"] = "FENCED_INSTANCE_ID"
            elif name == "lost_ownership":
                f["partitions"] = go_partitions(g["claims"])
            elif name == "heartbeat_stopped":
                x["thread_state"] = "stopped"
            elif name == "session_released":
                f["reason"] = "session released"
                x["all_claims"] = True
        else:
            if name == "empty_assignment":
                f["partitions"] = ()
            elif name == "sync_started":
                x["assignment_count"] = int(g["count"])
            elif name in ("heartbeat_started", "heartbeat_stopped"):
                x["thread_state"] = "started" if name == "heartbeat_started" else "stopped"
                if g.get("interval"):
                    x["interval"] = g["interval"]
            elif name == "partition_changes":
                f["reason"] = "partition count changed"
            elif name == "rebalancing":
                f["reason"] = "rebalance"
            elif name == "subscribed":
                offs = {f"{t}-{p}": int(o) for t, p, o in _KGO_TP_OFFSET.findall(g["offsets"])}
                f["partitions"] = _sorted_tps(list(offs))
                x["offsets"] = offs
            elif name == "subscribed_old":
                x["partition_numbers"] = sorted(int(p) for p, _o in _GO_INT_INT.findall(g["offsets"]))
            elif name == "committed":
                offs = _offsets_from_lines(texts or [])
                if not offs and "\n" in rec.msg:  # a JSON logger: the report inside the message
                    offs = _offsets_from_lines(rec.msg.split("\n")[1:])
                if offs:
                    x["offsets"] = offs
                    f["partitions"] = _sorted_tps(list(offs))
            elif name == "committed_old":
                offs = {f"{t}-{p}": int(o) for t, inner in _GO_MAP_MAP.findall(g["offsets"]) for p, o in _GO_INT_INT.findall(inner)}
                x["offsets"] = offs
                f["partitions"] = _sorted_tps(list(offs))
            elif name == "skipping_to_first":
                x["from_offset"] = _kgo_offset(g["from"])
                f["reason"] = "offset before the first offset"
        return match(f"{lib.replace('-', '_')}.{name}", r.kind, lib, f, x)
    return None


def parse(line: str, state: dict[str, Any] | None = None, texts: list[str] | None = None) -> Any:
    """Match | IGNORE | UNRECOGNISED | None for one line (see the module docstring). `texts`: the
    record's continuation lines (kafka-go's multi-line commit report)."""
    rec = _record(line)
    if rec is None:
        return None
    msg = rec.msg
    if not msg:
        return None
    if any(w in msg for w in _SARAMA_GATE):
        res = _printf(rec, _SARAMA_RULES, texts)
        if res is not None:
            return res
        if _SARAMA_GROUP_PATH.search(msg) is not None:
            return UNRECOGNISED  # a Sarama group line no rule knows
    res = _franz(rec, line)
    if res is not None:
        return res
    res = _printf(rec, _KGO_RULES, texts)
    if res is not None:
        return res
    if not rec.kv and ("sarama" in line or _STD_TIME.search(line) is not None) and _SARAMA_OTHER.search(msg) is not None:
        return IGNORE
    return None


CANDIDATE_WORDS: tuple[str, ...] = words.GOCLIENTS  # (parsers/foreign/words.py)
