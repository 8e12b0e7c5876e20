"""Broker group-coordinator messages -> `Match` (the reader strips `[ts] LEVEL` and `(logger)`).

Pipeline for one message:
1. strip the coordinator ident (`[GroupCoordinator 2]: `, `[GroupMetadataManager brokerId=2] `,
   `[Group Metadata Manager on Broker 2]: `, `[GroupCoordinator id=2 topic=__consumer_offsets partition=7] `)
   with one regex, keeping the broker id and the `__consumer_offsets` partition;
2. pick the grammar start symbol from the message's first word (`s_preparing`, `s_member`, ...), so the
   LALR parser and its contextual lexer only see the handful of rules that can match;
3. parse with `grammars/broker.lark` (generated from the template catalogue, one rule per template);
4. turn the hole tokens into Event fields with the rule's hole names (`broker_rules.RULES`).

Results are memoized per message (the same coordinator line repeats a lot in a rebalance storm).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any

from parsers.base import IGNORE, Match, _Ignore
from parsers.broker_rules import CONTEXT_BOUND, GROUP_TYPES, RULES, STARTS, TEMPLATES, TEXT_WORDS
from parsers.build_cache import compile_regex
from parsers.lark_regex import CompiledStart, cached_starts, match_start
from parsers.values import is_uint

# Literal substrings of which every line these rules can match contains at least one (the reader
# builds CANDIDATE_REGEX from them). Templates without any of TEXT_WORDS ("Shutting down.", runtime
# internals) are only accepted behind a coordinator ident or logger, which contain "Coordinator"/"coordinator".
CANDIDATE_WORDS: tuple[str, ...] = ("GroupCoordinator", "GroupMetadataManager", "Group Metadata Manager",
                                    "[GroupId", *TEXT_WORDS)

# Kafka sources: GroupCoordinator.scala logIdent "[GroupCoordinator $brokerId]: " (0.9 .. 3.x);
# GroupMetadataManager.scala "[Group Metadata Manager on Broker $brokerId]: " (0.9 .. 0.11) and
# "[GroupMetadataManager brokerId=$brokerId] " (1.0+); GroupCoordinatorShard/CoordinatorRuntime LogContext
# "[GroupCoordinator id=$nodeId topic=$topic partition=$partition] " (3.7+ / 4.x).
_IDENT = compile_regex(
    r"\[(?:GroupCoordinator (?:id=)?(?P<b1>\d+)(?: topic=(?P<topic>\S+) partition=(?P<part>\d+))?"
    r"|GroupMetadataManager brokerId=(?P<b2>\d+)"
    r"|Group Metadata Manager on Broker (?P<b3>\d+))\]:? ?"
)
# Loggers of the group coordinator: kafka.coordinator.GroupCoordinator (0.9-0.10), kafka.coordinator.group.*
# (0.11+), org.apache.kafka.coordinator.group.* (3.6+), also abbreviated by logback ("k.c.g.GroupCoordinator").
_GROUP_CLASSES = ("GroupCoordinator", "GroupMetadataManager", "GroupMetadata", "MemberMetadata", "ClassicGroup",
                  "GenericGroup", "ConsumerGroup", "GroupCoordinatorService", "GroupCoordinatorShard",
                  "OffsetMetadataManager", "CoordinatorLoaderImpl", "DelayedJoin", "DelayedHeartbeat")
_COORD_LOGGER = compile_regex(r"coordinator\.group\.|\bc\.g\.|(?:^|\.)(?:" + "|".join(_GROUP_CLASSES) + r")(?:\$\w*)?$")
# The other coordinators share words and the runtime with the group coordinator; their lines are not ours.
_OTHER_COORDINATOR_LOGGER = compile_regex(r"coordinator\.(?:transaction|share)\.|Transaction(?:Coordinator|StateManager|"
                                       r"MarkerChannelManager)|ShareCoordinator")
_OTHER_COORDINATOR_IDENT = compile_regex(r"\[(?:TransactionCoordinator|Transaction State Manager|Transaction Marker|"
                                      r"ShareCoordinator)")

_MEMBER_METADATA = compile_regex(r"MemberMetadata\((.*)\)$", re.S)
_MM_FIELD = compile_regex(
    r"(memberId|groupInstanceId|clientId|clientHost|sessionTimeoutMs|rebalanceTimeoutMs)=([^,()]*(?:\([^()]*\))?)"
)
_TP_OFFSETS = compile_regex(r"__consumer_offsets-(\d+)$")
# GroupCoordinator.scala (2.1 .. 3.x) and GroupMetadataManager.java (3.6+) rebalance reasons
# ("leader {} re-joining group during {}" is lower-case in 2.7-2.8, "Leader" from 3.0)
_REASON_MEMBER = compile_regex(r"(?:[Mm]ember:?|[Ll]eader) (?!with\b|id\b)([^\s;,)]+)")
_REASON_INSTANCE = compile_regex(r"instance ?id (Some\([^)]*\)|Optional\[[^\]]*\]|[^\s;,)]+)")
_REASON_CLASS = (
    ("heartbeat expiration", "heartbeat_expiration"),
    ("LeaveGroup", "leave_group"),
    ("Adding new member", "new_member"),
    ("Updating metadata for static member", "static_member_update"),
    ("Updating metadata for member", "member_metadata_update"),
    ("re-joining group", "leader_rejoin"),
    ("joining group during", "member_rejoin"),
    ("pending sync request expiration", "pending_sync_expiration"),
    ("when storing group assignment", "sync_store_error"),
    ("over capacity", "over_capacity"),
    ("selectedProtocol will change", "static_protocol_change"),
    ("Downgrade group", "group_downgrade"),
    ("removing member", "member_removed"),
)

_WORD_START = {s[2:]: s for s in STARTS}
_STAR_START = "s__"


def _first_word_key(text: str) -> str | None:
    return _word_start(text.split(" ", 1)[0])


@lru_cache(maxsize=4096)
def _word_start(word: str) -> str | None:
    key = re.sub(r"[^A-Za-z0-9]", "_", word).lower()
    if key in _WORD_START:
        return _WORD_START[key]
    # templates whose first word runs into a hole ("[GroupId={}]")
    if "=" in word:
        key = re.sub(r"[^A-Za-z0-9]", "_", word.split("=", 1)[0] + "=").lower()
        return _WORD_START.get(key)
    return None


@lru_cache(maxsize=1)
def _compiled() -> Mapping[str, CompiledStart]:
    # each start's regex compiled at its first use; the regex sources kept in the build cache, so
    # that a run whose lines need few (or no) broker rules loads neither Lark nor the other starts
    return cached_starts("broker", _grammar(), _parser, STARTS)


@lru_cache(maxsize=1)
def _grammar() -> str:
    # the package's own file, as parsers/grammar.py reads client.lark (importlib.resources would
    # import tempfile, shutil, random, bz2, lzma: ~8 M instructions of a run that reaches this grammar)
    from pathlib import Path

    return (Path(__file__).with_name("grammars") / "broker.lark").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _parser() -> Any:
    from lark import Lark

    return Lark(_grammar(), parser="lalr", lexer="contextual", start=list(STARTS), cache=True)


def _member_metadata(value: str, out: dict[str, Any], extra: dict[str, Any], prefix: str = "") -> str:
    """`MemberMetadata(memberId=.., groupInstanceId=.., clientId=.., clientHost=.., ...)` -> member id;
    the other facts go to the event (for the member itself) or to `extra` (for a leader/old member)."""
    m = _MEMBER_METADATA.match(value)
    if not m:
        return value
    facts = dict(_MM_FIELD.findall(m.group(1)))
    member = facts.get("memberId", value)
    if prefix:
        return member
    iid = _instance(facts.get("groupInstanceId"))
    if iid:
        out["instance_id"] = iid
    if facts.get("clientId"):
        out["client_id"] = facts["clientId"]
    if facts.get("clientHost"):
        extra["host"] = facts["clientHost"]
    for k, name in (("sessionTimeoutMs", "session_timeout_ms"), ("rebalanceTimeoutMs", "rebalance_timeout_ms")):
        if is_uint(facts.get(k, "")):
            extra[name] = int(facts[k])
    return member


def _instance(value: str | None) -> str | None:
    """Scala Option / Java Optional / null renderings of a group.instance.id."""
    if value is None or value in ("None", "null", "Optional.empty", ""):
        return None
    for pre in ("Some(", "Optional["):
        if value.startswith(pre):
            return value[len(pre):-1]
    return value


def _reason_facts(reason: str, extra: dict[str, Any]) -> None:
    """What triggered a rebalance, from GroupCoordinator's reason strings (2.1+)."""
    for needle, cls in _REASON_CLASS:
        if needle in reason:
            extra["trigger"] = cls
            break
    mm = re.search(r"MemberMetadata\(memberId=([^,)]+)", reason)
    m = _REASON_MEMBER.search(reason)
    if mm:
        extra["trigger_member_id"] = mm.group(1)
    elif m:
        extra["trigger_member_id"] = m.group(1)
    m = _REASON_INSTANCE.search(reason)
    if m and _instance(m.group(1)):
        extra["trigger_instance_id"] = _instance(m.group(1))
    if "; client reason: " in reason:
        extra["client_reason"] = reason.split("; client reason: ", 1)[1]


_EVENT_FIELDS = {"group_id", "member_id", "instance_id", "generation", "member_epoch", "protocol", "reason",
                 "error", "topic", "partition", "offset", "client_id"}
_MEMBER_EXTRA = {"leader", "old_member_id", "existing_member_id", "new_leader"}


_ASSIGNED_ITEM = compile_regex(r"^(?P<topic>\S+)-(?P<part>\d+)$")


def _assignment_state(extra: dict[str, Any]) -> None:
    """GroupMetadataManager.java 3.8+ "new assignment state: .., assignedPartitions=[..] and
    revokedPartitions=[..]": Utils.assignmentToString prints `<topic id>-<partition>` (the topic's Uuid,
    not its name), so the lists are kept as printed and marked `partitions_named_by: topic_id`."""
    lists = {}
    for key, out_key in (("assigned", "assigned_partitions"), ("revoked", "revoked_partitions")):
        text = extra.get(key)
        if text is None and key == "revoked":  # 3.9+ share groups print the assigned list only
            continue
        if not isinstance(text, str) or not (text.startswith("[") and text.endswith("]")):
            return  # not the printed list: keep the text only
        items = [x.strip() for x in text[1:-1].split(",") if x.strip()]
        if not all(_ASSIGNED_ITEM.match(x) for x in items):
            return
        lists[out_key] = items
    for out_key, items in lists.items():
        extra[out_key] = items
    extra["partitions_named_by"] = "topic_id"


@cache
def _plan(rule: str) -> tuple[str, tuple[tuple[str, bool, str], ...]]:
    """Per rule, once: (kind, [(field key, is int, how to store)]) from the generated hole names."""
    kind, names = RULES[rule]
    steps = []
    for name in names:
        key = name.rstrip("#")
        if key == "member_id":
            how = "member"
        elif key in _MEMBER_EXTRA:
            how = "member_extra"
        elif key == "instance_id":
            how = "instance"
        elif key == "tp":
            how = "tp"
        elif key == "offsets_partition":
            how = "extra"
        elif key == "offsets_topic":
            how = "skip"
        else:
            how = "event" if key in _EVENT_FIELDS else "extra"
        steps.append((key, name.endswith("#"), how))
    return kind, tuple(steps)


def _fields(rule: str, tokens: list[Any]) -> tuple[str, dict[str, Any]]:
    kind, steps = _plan(rule)
    out: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for (key, is_int, how), value in zip(steps, tokens, strict=False):
        if is_int:
            try:
                value = int(value)
            except ValueError:
                if value.startswith("OptionalInt["):  # an epoch hole (gen_broker_grammar.hole_pattern)
                    value = int(value[12:-1])
                elif value == "OptionalInt.empty":
                    continue
        if how == "event":
            out[key] = value
        elif how == "extra":
            extra[key] = value
        elif how == "member":
            out[key] = _member_metadata(value, out, extra) if value.startswith("MemberMetadata(") else value
        elif how == "member_extra":
            extra[key] = _member_metadata(value, out, extra, prefix=key) if value.startswith("MemberMetadata(") else value
        elif how == "instance":
            value = _instance(value)
            if value is not None:
                out[key] = value
        elif how == "tp":
            extra[key] = value
            if value.startswith("__consumer_offsets-") and is_uint(value[19:]):
                extra["offsets_partition"] = int(value[19:])
            elif value.startswith("[__consumer_offsets,") and value.endswith("]") and is_uint(value[20:-1]):
                # 0.9 .. 0.10's TopicAndPartition.toString "[topic,partition]" (GroupMetadataManager.scala
                # "Loading offsets and group metadata from {}", "Finished loading offsets from {} in {} milliseconds.")
                extra["offsets_partition"] = int(value[20:-1])
    if kind == "broker_rebalance_preparing" and "reason" in out:
        _reason_facts(out["reason"], extra)
    if "assigned" in extra:
        _assignment_state(extra)
        if "assigned_partitions" in extra:
            out["partitions"] = tuple(extra["assigned_partitions"])
    gtype = GROUP_TYPES.get(rule)
    if gtype is not None:
        out["group_type"] = gtype
    if extra:
        out["extra"] = extra
    return kind, out


@lru_cache(maxsize=8192)
def _parse_body(text: str) -> tuple[str, str, tuple[tuple[str, Any], ...]] | None:
    """Fast path: the grammar's rules compiled to one anchored regex per start symbol."""
    compiled = _compiled()
    start = _first_word_key(text)
    hit = match_start(compiled[start], text) if start else None
    if hit is None and _STAR_START in compiled:
        hit = match_start(compiled[_STAR_START], text)
    if hit is None:
        return None
    rule, tokens = hit
    kind, fields = _fields(rule, list(tokens))
    return rule, kind, tuple(fields.items())


def lark_parse_body(text: str) -> tuple[str, str, dict[str, Any]] | tuple[None, str, dict[str, Any]]:
    """The same parse through the Lark LALR parser (for `coordscope explain` and the equivalence tests):
    (rule, kind, fields) or (None, why, {}) with Lark's account of where matching stopped."""
    from lark.exceptions import UnexpectedInput

    start = _first_word_key(text)
    tried = [s for s in (start, _STAR_START) if s and s in STARTS]
    why = "no grammar start for the first word"
    for s in tried:
        try:
            tree = _parser().parse(text, start=s)
        except UnexpectedInput as exc:
            why = f"start {s}: stopped at column {exc.column}: {str(exc).splitlines()[0]}"
            continue
        kind, fields = _fields(str(tree.data), [str(t) for t in tree.children])
        return str(tree.data), kind, fields
    return None, why, {}


def looks_like_broker_message(message: str, logger: str | None = None) -> bool:
    """True when the line comes from the group coordinator: its ident prefix or its logger says so."""
    return bool(_IDENT.match(message.lstrip()) or (logger and _COORD_LOGGER.search(logger)))


def _other_coordinator(text: str, logger: str | None) -> bool:
    """Transaction / share coordinator lines (same packages, same runtime, not consumer-group facts)."""
    if text.startswith("[") and _OTHER_COORDINATOR_IDENT.match(text):
        return True
    return bool(logger and _OTHER_COORDINATOR_LOGGER.search(logger) and not text.startswith("[Group"))


MAX_MESSAGE = 65_536
"""Longer messages are not matched (None: the reader keeps them as unparsed). The rules' free-text
holes are lazy matches, quadratic on adversarial input; real coordinator messages are far shorter."""


def parse_broker_message(message: str, logger: str | None = None) -> Match | _Ignore | None:
    """One broker coordinator message (no timestamp/level/logger) -> Match, or None when no rule fits;
    IGNORE for transaction/share coordinator lines (their packages and words overlap ours)."""
    if len(message) > MAX_MESSAGE:
        return None
    # a record with continuation lines (stack trace of an ERROR line): the rules match its first line
    text = message.split("\n", 1)[0].strip() if "\n" in message else message.strip()
    m = _IDENT.match(text) if text.startswith("[Group") else None
    if m:
        text = text[m.end():]
    elif _other_coordinator(text, logger):
        return IGNORE
    # memo only short messages: a cache of long lines would hold megabytes
    parsed = _parse_body(text) if len(text) <= 1024 else _parse_body.__wrapped__(text)
    if parsed is None:
        return None
    rule, kind, items = parsed
    if rule in CONTEXT_BOUND and not m and not (logger and _COORD_LOGGER.search(logger)):
        return None  # "Shutting down." from some other component
    fields = dict(items)
    if "extra" in fields:
        fields["extra"] = dict(fields["extra"])
    if m:
        b1, b2, b3, part = m.group("b1", "b2", "b3", "part")
        fields["coordinator"] = b1 or b2 or b3
        if part is not None:
            fields.setdefault("extra", {}).setdefault("offsets_partition", int(part))
    return Match(rule, kind, fields)


def explain_broker_message(message: str, logger: str | None = None) -> dict[str, Any]:
    """For `coordscope explain`: the ident, the start symbol the first word chose, the rule that matched
    with its catalogue template and Kafka source, the fields; or, when nothing matched, where Lark's
    LALR parse stopped and the closest templates."""
    import difflib

    text = message.split("\n", 1)[0].strip()
    out: dict[str, Any] = {"side": "broker"}
    m = _IDENT.match(text)
    if m:
        out["ident"] = m.group(0).strip()
        text = text[m.end():]
    out["body"] = text
    out["start"] = _first_word_key(text) or _STAR_START
    res = parse_broker_message(message, logger)
    if res is IGNORE:
        out.update(result="ignored", why="a transaction or share coordinator line, not the group coordinator")
        return out
    if isinstance(res, Match):
        template, source = TEMPLATES[res.rule]
        out.update(result="parsed", rule=res.rule, kind=res.kind, template=template, source=source,
                   fields=res.fields)
        return out
    rule, why, _fields_ = lark_parse_body(text)
    if rule is not None and rule in CONTEXT_BOUND:
        out.update(result="unparsed", rule=rule,
                   why="matches a generic coordinator template, but the line has neither a coordinator "
                       "ident nor a coordinator logger")
        return out
    probe = text[:400]
    sm = difflib.SequenceMatcher(autojunk=False)
    sm.set_seq2(probe)
    rough = []
    for r, (t, src) in TEMPLATES.items():
        sm.set_seq1(t.replace("{}", ""))
        rough.append((sm.quick_ratio(), r, t, src))
    rough.sort(reverse=True)
    scored = []
    for _q, r, t, src in rough[:20]:  # exact ratio only for the best rough candidates
        sm.set_seq1(t.replace("{}", ""))
        scored.append((sm.ratio(), r, t, src))
    scored = sorted(scored, reverse=True)[:3]
    out.update(result="unparsed", why=why,
               closest=[{"rule": r, "similarity": round(ratio, 2), "template": t, "source": src}
                        for ratio, r, t, src in scored])
    return out

