"""Consumer-group lines of clients that are not Java: librdkafka (and its bindings), KafkaJS,
kafka-python and aiokafka (issue 22); the Go clients Sarama, franz-go and segmentio/kafka-go.

`parse_line(line, logger, state)` offers one line to each client's parser and returns the first
answer: a `Match` (an event of the shared vocabulary, `client_library` set), `IGNORE` (a known line
of such a client with no event), `UNRECOGNISED` (a coordinator line of such a client that no rule
knows: the reader keeps it as unparsed) or None (not a line of these clients). The reader offers it
only the lines no Java rule took. `state` is a small dict per input file (library versions seen,
which Python client the file's logger names showed). Client defaults per version:
parsers/foreign/defaults.py.

The clients' parsers are imported on first need (a run of Java client lines never needs
librdkafka's or KafkaJS's rules); their candidate words are in parsers/foreign/words.py.
"""

from __future__ import annotations

from typing import Any

from parsers import layouts
from parsers.base import Match
from parsers.build_cache import compile_regex
from parsers.foreign import words
from parsers.foreign.common import IGNORE, UNRECOGNISED

__all__ = ["CANDIDATE_WORDS", "IGNORE", "UNRECOGNISED", "claims", "parse_line", "rule_source"]

_RD_GATE = ("#consumer-", "[thrd:", "fac", "Application maximum poll interval", "JoinGroup failed: ", "response error: ")
# confluent-kafka-python's log_cb text: `logger.log(level, "%s [%s] %s", fac, name, message)`
# (confluent_kafka.c `log_cb`, 1.0-2.x) with librdkafka's `[thrd:NAME]: ` message prefix
_PY_LOG_CB = compile_regex(r"[A-Z0-9_]{2,24} \[[^\]\s]+\] \[thrd:")
_JS_GATE = ("kafkajs", "[ConsumerGroup]", "[Consumer]", "[Runner]", "[Connection]", "[Cluster]")
# the Go clients (goclients.py): Sarama's paths, franz-go's group key (BasicLogger "; group: ", its
# first key; JSON "group":, logfmt group=), its levels and pre-0.6 words, kafka-go's wordings.
# Substrings, not one regex: `in` finds each at C speed, an alternation of this size tried at every
# position of a line costs ~0.2 M instructions a line. Offered before librdkafka's parser (Sarama's
# "JoinGroup failed: group instance id ..." is not a librdkafka consumer error)
_GO_GATE = ("client/coordinator", "consumergroup/", "consumer-group/", "JoinGroup failed: group instance",
            "client was not authorized to access group", "Consumer Group ", "loop check partition", "sarama", "producer/",
            "txnmgr/", "consumer/broker/",
            "; group: ", '"group":', "group=", "memberID", "[INFO] ", "[WARN] ", "[ERROR] ", "[DEBUG] ", "synced",
            "onRevoke", "revoking prior", "heartbeat", "joining group", "new group session", "entering On", "fetch offsets",
            "for group", "joinGroup", "Syncing ", "as member", "Leaving group", "kafka reader", "committed offsets",
            "subscribed to", "consumer group", "found member", "found topic/partition", "assigned member",
            "membership changed", "Problem getting partitions", "Partition changes", "Failed to join group",
            "Failed to sync group", "Failed to fetch offsets", "to assign group")
# a record whose layout named a Java or Python client's logger is not a Go client's line
_NOT_GO_LOGGERS = ("org.apache.kafka.", "o.a.k.", "kafka.coordinator", "kafka.consumer", "aiokafka")


# the parser modules, once imported (_rd(), _js(), _py())
_RD: Any = None
_JS: Any = None
_PY: Any = None
_GO: Any = None


def _rd() -> Any:
    global _RD
    from parsers.foreign import librdkafka

    _RD = librdkafka
    return _RD


def _js() -> Any:
    global _JS
    from parsers.foreign import kafkajs

    _JS = kafkajs
    return _JS


def _go() -> Any:
    global _GO
    from parsers.foreign import goclients

    _GO = goclients
    return _GO


def _py() -> Any:
    global _PY
    from parsers.foreign import pyclients

    _PY = pyclients
    return _PY


_CLAIM_WORDS = ("TopicPartition(", "[thrd:", "#consumer-", '"logger":"kafkajs"')
_CLAIMED_LOGGERS: dict[str, bool] = {}


# kafka-python and aiokafka print Java 0.9/0.10's coordinator wordings (kafka/coordinator/base.py,
# consumer.py 1.x-2.x; aiokafka group_coordinator.py) with Python values that Java never prints: a
# coordinator named without Java's Node "(id: N rack: R)", a partition set() / frozenset(), an
# exception class of kafka.errors / aiokafka.errors ("CommitFailedError: ...", Java: "...Exception")
_PY_VALUES = compile_regex(r"Discovered coordinator (?!\S+ \(id: )\S+ for group \S+$|partitions (?:set\(\)|frozenset\()"
                        r"| for group \S+: [A-Z][A-Za-z]*Error\b"
                        # the str() of a kafka-python/aiokafka error (kafka/errors.py; 1.0.x kafka/common.py)
                        r"|: (?:\[Error -?\d+\] [A-Z]\w*Error\b|[A-Z]\w*Error - -?\d+ - )")
# the wordings they share with Java 0.9/0.10 whose values say nothing: theirs in a file whose other
# lines are surely one of these Python clients' (state["python_client_lines"], set by parse_line)
_SHARED_WORDINGS = ("(Re-)joining group ", "Successfully joined group ", "Revoking previously assigned partitions ",
                    "Setting newly assigned partitions ", "Auto offset commit failed for group ",
                    "Discovered coordinator ", "Heartbeat failed for group ", "Marking the coordinator ")


def claims(line: str, logger: str | None, state: dict[str, Any] | None = None) -> bool:
    """Is this line surely a non-Java client's, even where a Java rule reads its words? (its logger,
    from the layout or in its text, is a kafka-python/aiokafka module, or it shows a Python
    TopicPartition repr or another Python value, librdkafka's instance name or thread prefix, or
    KafkaJS's logger field; or `state`, the file's, has seen lines only kafka-python/aiokafka print
    and the line is one of the wordings they share with Java 0.9/0.10)"""
    if logger:
        known = _CLAIMED_LOGGERS.get(logger)
        if known is None:
            known = (_PY or _py()).is_client_logger(logger)
            if len(_CLAIMED_LOGGERS) < 4096:
                _CLAIMED_LOGGERS[logger] = known
        if known:
            return True
    if any(w in line for w in _CLAIM_WORDS):
        return True
    if ("Discovered coordinator " in line or "partitions " in line or "Error" in line) and _PY_VALUES.search(line.rstrip()):
        return True
    if state and state.get("python_client_lines") and any(w in line for w in _SHARED_WORDINGS):
        return True
    # a kafka-python/aiokafka logger name in the line's text (a layout the reader does not split:
    # "INFO:kafka.coordinator:...", "... INFO aiokafka.consumer.group_coordinator ...")
    return ("kafka." in line or "aiokafka" in line) and (_PY or _py()).names_client_logger(line)


def parse_line(line: str, logger: str | None = None, state: dict[str, Any] | None = None,
               message: str | None = None, texts: list[str] | None = None) -> Any:
    """`message`: the layout's message of the line, when the layout found one (JSON lines: the
    Python clients' rules read the decoded message, not the JSON text); `texts`: the record's
    continuation lines (kafka-go's multi-line commit report)."""
    res = None
    if (line[:1] == "{" or line.lstrip()[:1] == "{") and ('"log"' in line or '"MESSAGE"' in line or '"textPayload"' in line):
        # a collector's record of one line (docker json-file `log`, journald `MESSAGE`, Cloud Logging
        # `textPayload`) whose line is the client's own JSON line (KafkaJS's default logCreator, a
        # python-json-logger record): the clients' parsers read that line, as in the client's own file
        inner = layouts.collector_line(line)
        if inner is not None and inner[:1] == "{":
            line = inner
    if (logger is None or not logger.startswith(_NOT_GO_LOGGERS)) and any(w in line for w in _GO_GATE):
        res = (_GO or _go()).parse(line, state, texts)
    if res is None and any(w in line for w in _RD_GATE):
        first = None
        if message is not None and line.lstrip()[:1] == "{" and _PY_LOG_CB.match(message) is not None:
            # a JSON record whose message is confluent-kafka-python's log_cb text ("FAC [name] [thrd:..]:
            # ..." through python-json-logger, structlog, a GCP/ECS formatter): read the decoded
            # message (the JSON text escapes librdkafka's quotes: Group \"g\"); node-rdkafka's
            # event.log objects keep the facility in a field of their own: the whole line then
            first = (_RD or _rd()).parse(message, state)
        res = first if isinstance(first, Match) else (_RD or _rd()).parse(line, state)
        if res is None:
            res = first
    if res is None and any(w in line for w in _JS_GATE):
        res = (_JS or _js()).parse(line, state)
    if res is None:
        json_line = message is not None and line.lstrip().startswith("{")
        res = (_PY or _py()).parse(message if json_line else line, logger, state)
    if isinstance(res, Match) and state is not None:
        _group_of_instance(res.fields, state)
        if res.fields.get("client_library") in ("kafka-python", "aiokafka"):
            state["python_client_lines"] = True  # the file is a Python client's: see claims()
    return res


def _group_of_instance(f: dict[str, Any], state: dict[str, Any]) -> None:
    """Many of these clients' lines do not name the group (librdkafka's JoinGroup/SyncGroup/commit/
    MAXPOLL lines, KafkaJS's [Connection] lines, kafka-python's heartbeat-thread lines). A consumer
    instance has one group.id, so the group its other lines in the file name is its group:
    librdkafka by instance name (rdkafka#consumer-N); the others when the file has named exactly one
    group. Such a group_id is marked extra.group_id_inferred."""
    lib = f.get("client_library") or "python"
    key = (lib, f.get("client_id")) if lib == "librdkafka" else (lib, None)
    groups: dict = state.setdefault("instance_groups", {})
    gid = f.get("group_id")
    if gid is not None:
        groups.setdefault(key, set()).add(gid)
        if lib == "librdkafka":
            groups[key] = {gid}  # the instance's latest group (a restarted process may use another)
        return
    seen = groups.get(key)
    if seen is not None and len(seen) == 1:
        f["group_id"] = next(iter(seen))
        f.setdefault("extra", {})["group_id_inferred"] = True


CANDIDATE_WORDS: tuple[str, ...] = tuple(sorted(set(words.LIBRDKAFKA) | set(words.KAFKAJS) | set(words.PYCLIENTS) | set(words.GOCLIENTS)))


def rule_source(rule: str) -> str | None:
    """The client source file and versions of a rule named as in `extra.rule` (for `coordscope explain`)."""
    lib, _, name = rule.partition(".")
    if lib in ("sarama", "franz_go", "kafka_go"):
        return (_GO or _go())._source_of(rule)
    librdkafka, kafkajs, pyclients = _RD or _rd(), _JS or _js(), _PY or _py()
    if lib == "librdkafka":
        if name == "assignment_list":
            return "rdkafka_partition.c rd_kafka_topic_partition_list_log; rdkafka_cgrp.c SyncGroup member state 1.6-2.x"
        if name in ("max_poll_error", "join_failed_error", "coord_error"):
            return "rdkafka_cgrp.c rd_kafka_consumer_err (the consumer error the application logs) 1.0-2.x"
        table = {r.name: r.source for r in librdkafka.RULES}
    elif lib in ("kafka_python", "aiokafka"):
        table = {r.name: r.source for r in pyclients.RULES}
    elif lib == "kafkajs":
        table = {n: src for _ns, _rx, n, _k, src in kafkajs._RULES}
        if name.startswith("connection_"):
            return "kafkajs src/network/connection.js 1.0-2.2"
    else:
        return None
    return table.get(name)
