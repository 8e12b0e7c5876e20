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
from functools import lru_cache
from importlib import resources
from typing import Any

from parsers.base import Match
from parsers.broker_rules import CONTEXT_BOUND, RULES, STARTS, TEXT_WORDS

# Literal substrings of which every line these rules can match contains at least one (the reader
# builds CANDIDATE_REGEX from them). Templates without any of TEXT_WORDS ("Shutting down.", runtime
# internals) are only accepted behind a coordinator ident or logger, which contain "Coordinator"/"coordinator".
CANDIDATE_WORDS: tuple[str, ...] = ("GroupCoordinator", "GroupMetadataManager", "Group Metadata Manager",
                                    "[GroupId", *TEXT_WORDS)

# Kafka sources: GroupCoordinator.scala logIdent "[GroupCoordinator $brokerId]: " (0.9 .. 3.x);
# GroupMetadataManager.scala "[Group Metadata Manager on Broker $brokerId]: " (0.9 .. 0.11) and
# "[GroupMetadataManager brokerId=$brokerId] " (1.0+); GroupCoordinatorShard/CoordinatorRuntime LogContext
# "[GroupCoordinator id=$nodeId topic=$topic partition=$partition] " (3.7+ / 4.x).
_IDENT = re.compile(
    r"\[(?:GroupCoordinator (?:id=)?(?P<b1>\d+)(?: topic=(?P<topic>\S+) partition=(?P<part>\d+))?"
    r"|GroupMetadataManager brokerId=(?P<b2>\d+)"
    r"|Group Metadata Manager on Broker (?P<b3>\d+))\]:? ?"
)
_COORD_LOGGER = re.compile(r"[Cc]oordinator|GroupMetadataManager|GroupMetadata\b|ClassicGroup|GenericGroup")

_MEMBER_METADATA = re.compile(r"MemberMetadata\((.*)\)$", re.S)
_MM_FIELD = re.compile(
    r"(memberId|groupInstanceId|clientId|clientHost|sessionTimeoutMs|rebalanceTimeoutMs)=([^,()]*(?:\([^()]*\))?)"
)
_TP_OFFSETS = re.compile(r"__consumer_offsets-(\d+)$")
_REASON_MEMBER = re.compile(r"(?:[Mm]ember|Leader) (?!with\b|id\b)(\S+?)(?:[;,]|\s|$)")
_REASON_INSTANCE = re.compile(r"group instance ?id (Some\([^)]*\)|Optional\[[^\]]*\]|[^\s;,)]+)")
_REASON_CLASS = (
    ("heartbeat expiration", "heartbeat_expiration"),
    ("LeaveGroup", "leave_group"),
    ("Adding new member", "new_member"),
    ("Updating metadata for member", "member_metadata_update"),
    ("re-joining group", "leader_rejoin"),
    ("removing member", "member_removed"),
)

_WORD_START = {s[2:]: s for s in STARTS}
_STAR_START = "s__"


def _first_word_key(text: str) -> str | None:
    word = text.split(" ", 1)[0]
    key = re.sub(r"[^A-Za-z0-9]", "_", word).lower()
    if key in _WORD_START:
        return _WORD_START[key]
    # templates whose first word runs into a hole ("[GroupId={}]")
    if "=" in word:
        key = re.sub(r"[^A-Za-z0-9]", "_", word.split("=", 1)[0] + "=").lower()
        return _WORD_START.get(key)
    return None


@lru_cache(maxsize=1)
def _parser() -> Any:
    from lark import Lark

    grammar = resources.files("parsers").joinpath("grammars/broker.lark").read_text()
    return Lark(grammar, parser="lalr", lexer="contextual", start=list(STARTS), cache=True)


def _try(start: str, text: str) -> Any:
    from lark.exceptions import LarkError

    try:
        return _parser().parse(text, start=start)
    except LarkError:
        return None


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
        if facts.get(k, "").isdigit():
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
    m = _REASON_MEMBER.search(reason)
    if m:
        extra["trigger_member_id"] = m.group(1)
    m = _REASON_INSTANCE.search(reason)
    if m and _instance(m.group(1)):
        extra["trigger_instance_id"] = _instance(m.group(1))
    if "; client reason: " in reason:
        extra["client_reason"] = reason.split("; client reason: ", 1)[1]


_EVENT_FIELDS = {"group_id", "member_id", "instance_id", "generation", "member_epoch", "protocol", "reason",
                 "error", "topic", "partition", "offset", "client_id"}
_MEMBER_EXTRA = {"leader", "old_member_id", "existing_member_id", "new_leader"}


def _fields(rule: str, tokens: list[Any]) -> tuple[str, dict[str, Any]]:
    kind, names = RULES[rule]
    out: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for name, tok in zip(names, tokens, strict=False):
        value: Any = str(tok)
        key = name.rstrip("#")
        if name.endswith("#"):
            try:
                value = int(value)
            except ValueError:
                pass
        if key == "member_id":
            value = _member_metadata(value, out, extra)
        elif key in _MEMBER_EXTRA:
            value = _member_metadata(value, out, extra, prefix=key)
        elif key == "instance_id":
            value = _instance(value)
            if value is None:
                continue
        elif key == "tp":
            m = _TP_OFFSETS.search(value)
            if m:
                extra["offsets_partition"] = int(m.group(1))
        elif key == "offsets_partition":
            extra["offsets_partition"] = value
            continue
        elif key == "offsets_topic":
            continue
        if key in _EVENT_FIELDS:
            out[key] = value
        else:
            extra[key] = value
    if "reason" in out and kind == "broker_rebalance_preparing":
        _reason_facts(out["reason"], extra)
    if extra:
        out["extra"] = extra
    return kind, out


@lru_cache(maxsize=8192)
def _parse_body(text: str) -> tuple[str, str, tuple[tuple[str, Any], ...]] | None:
    start = _first_word_key(text)
    tree = _try(start, text) if start else None
    if tree is None and _STAR_START in STARTS:
        tree = _try(_STAR_START, text)
    if tree is None:
        return None
    rule = str(tree.data)
    kind, fields = _fields(rule, tree.children)
    return rule, kind, tuple(fields.items())


def looks_like_broker_message(message: str, logger: str | None = None) -> bool:
    """True when the line comes from the group coordinator: its ident prefix or its logger says so."""
    return bool(_IDENT.match(message.lstrip()) or (logger and _COORD_LOGGER.search(logger)))


def parse_broker_message(message: str, logger: str | None = None) -> Match | None:
    """One broker coordinator message (no timestamp/level/logger) -> Match, or None when no rule fits."""
    if not message:
        return None
    text = message.strip()
    ident: dict[str, Any] = {}
    m = _IDENT.match(text)
    if m:
        ident["coordinator"] = m.group("b1") or m.group("b2") or m.group("b3")
        if m.group("part") is not None:
            ident["offsets_partition"] = int(m.group("part"))
        text = text[m.end():]
    parsed = _parse_body(text)
    if parsed is None:
        return None
    rule, kind, items = parsed
    if rule in CONTEXT_BOUND and not m and not (logger and _COORD_LOGGER.search(logger)):
        return None  # "Shutting down." from some other component
    fields = dict(items)
    if "extra" in fields:
        fields["extra"] = dict(fields["extra"])
    if ident:
        fields["coordinator"] = ident["coordinator"]
        if "offsets_partition" in ident:
            fields.setdefault("extra", {}).setdefault("offsets_partition", ident["offsets_partition"])
    return Match(rule, kind, fields)
