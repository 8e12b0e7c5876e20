"""`__consumer_offsets` dumps -> offset_record / group_metadata_record / tombstone matches.

Shapes (facts in shared/formats/consumer-offsets-dump-formats.md):
- A: kafka-console-consumer with the Scala formatters (0.9 .. 3.9): `[g,t,p]::OffsetAndMetadata(...)`,
  `[g,t,p]::[OffsetMetadata[...],CommitTime ..,ExpirationTime ..]`, `g::GroupMetadata(...)`, `::NULL`;
- B: `kafka-dump-log --offsets-decoder` record lines `... key: K payload: V` with text keys (0.10 .. 3.7)
  or JSON keys/payloads (3.8+);
- C: the tools-module JSON formatters (3.9 / 4.x), `{"key":...,"value":...}`, possibly several per line.

Text shapes go through the LALR grammar `grammars/offsets_dump.lark`; JSON is read with `json` (it is
JSON; a second grammar for it would only be slower). Structural lines (shell commands, `Dumping ...`,
batch headers, `...` elisions, deprecation warnings) are IGNORE.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from parsers.base import IGNORE, Match, _Ignore
from parsers.build_cache import compile_regex
from parsers.commands import is_command
from parsers.lark_regex import CompiledStart, cached_starts, match_start
from parsers.values import is_int, is_uint

CANDIDATE_WORDS: tuple[str, ...] = ("::", " key: ", '{"key":', "OffsetAndMetadata", "GroupMetadata")

# DumpLogSegments record line: "[| ]offset: N <record fields> key: K[ payload: V]" (cut with str.find)
_RECORD_HEAD = compile_regex(r"\|?\s*offset: (\d+)\b")
_CREATE_TIME = compile_regex(r"\b(?:CreateTime|LogAppendTime): (-?\d+)")
# shell commands and their continuations, tool banners, batch headers, elisions (matched at the start)
_STRUCTURAL = compile_regex(
    r"(?:\$ |# |> |\.\.\.|…|Dumping |Starting offset: |Log starting offset: |baseOffset: |WARNING: |"
    r"Processed a total of |\s+--)"
)
_MEMBER_SPLIT = compile_regex(r"(?:^|, )(\S+) -> (?=MemberMetadata\(|\[)")
_MM_FIELD = compile_regex(
    r"(memberId|groupInstanceId|clientId|clientHost|sessionTimeoutMs|rebalanceTimeoutMs|supportedProtocols)="
    r"((?:List\([^)]*\))|[^,]*)"
)
_ASSIGNMENT = compile_regex(r"([^{},=]+)=\[([^\]]*)\]")


@lru_cache(maxsize=1)
def _grammar() -> str:
    # the package's own file, as parsers/grammar.py reads client.lark (importlib.resources would
    # import tempfile, shutil, random, bz2, lzma: ~8 M instructions of a run that reaches this grammar)
    from pathlib import Path

    return (Path(__file__).with_name("grammars") / "offsets_dump.lark").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _parser() -> Any:
    from lark import Lark

    return Lark(_grammar(), parser="lalr", lexer="contextual", start=list(_STARTS), cache=True)


_STARTS = ("formatter_line", "dump_key")


@lru_cache(maxsize=1)
def _compiled() -> Mapping[str, CompiledStart]:
    # compiled at first use, the regex sources from the build cache (parsers/lark_regex.cached_starts)
    return cached_starts("offsets_dump", _grammar(), _parser, _STARTS)


def _parse(text: str, start: str) -> tuple[str, tuple[str | None, ...]] | None:
    """(rule, tokens) through the regexes compiled from the grammar (fast path)."""
    return match_start(_compiled()[start], text)


def lark_parse(text: str, start: str = "formatter_line") -> tuple[str | None, str]:
    """The same through Lark's LALR parser: (rule, "") or (None, where matching stopped)."""
    from lark.exceptions import UnexpectedInput

    try:
        return str(_parser().parse(text, start=start).data), ""
    except UnexpectedInput as exc:
        return None, f"stopped at column {exc.column}: {str(exc).splitlines()[0]}"


# what looks_like_offsets_dump looks for, compiled once: it runs on the first lines of every input
_SNIFF_BRACKET_KEY = compile_regex(r"^\[[^\]]*,[^\],]*,\d+\]::")
_SNIFF_DUMP_KEY = compile_regex(r" key: (?:offset(?:_commit)?::|group_metadata::|metadata::|\{\")")
_SNIFF_NULL_VALUE = compile_regex(r"^[^\s\[]\S*::NULL$")

def looks_like_offsets_dump(lines: list[str]) -> bool:
    """True when the first lines are a __consumer_offsets dump of any of the known shapes."""
    hits = 0
    for line in lines[:200]:
        s = line.strip()
        if ("--offsets-decoder" in s or "OffsetsMessageFormatter" in s or "GroupMetadataMessageFormatter" in s) \
                and is_command(s):
            return True
        if s.startswith('{"key":{') or _SNIFF_BRACKET_KEY.match(s) or "::GroupMetadata(" in s:
            hits += 1
        elif (_RECORD_HEAD.match(s) or s.startswith("key: ")) and _SNIFF_DUMP_KEY.search(" " + s):
            hits += 1
        elif _SNIFF_NULL_VALUE.match(s):
            hits += 1
    return hits > 0


# a formatter record's start: "[group,topic,partition]::" (OffsetsMessageFormatter) or "group::" followed by
# a value (GroupMetadataMessageFormatter), GroupMetadataManager.scala 0.9 .. 3.x, tools/.../consumer 3.8+
_RECORD_START = compile_regex(r"^(?:\[[^\]]*,[^\],]*,\d+\]|[^\s\[:]+)::\S")
MAX_WRAPPED_LINES = 8


def open_brackets(s: str) -> int:
    return s.count("(") + s.count("[") - s.count(")") - s.count("]")


def opens_wrapped_record(text: str) -> bool:
    """Whether `text` begins a formatter record whose brackets are left open: the rest of the record was
    wrapped onto the following lines (an editor's or a document's soft wrap of a long
    `[g,t,p]::OffsetAndMetadata(offset=7, leaderEpoch=.., commitTimestamp=.., expireTimestamp=None)`)."""
    s = text.strip()
    return _RECORD_START.match(s) is not None and open_brackets(s) > 0


def continues_wrapped_record(joined: str, text: str) -> bool:
    """Whether `text` continues the open record `joined`: it starts no record or structure of its own."""
    s = text.strip()
    return bool(s) and open_brackets(joined) > 0 and _RECORD_START.match(s) is None \
        and _STRUCTURAL.match(s) is None and not s.startswith("{")


def join_wrapped(joined: str, text: str) -> str:
    """A wrapped line glued back: directly after a break at a space (the space kept), after ", " where the
    wrap ate the space (the formatters separate fields with ", "), else directly (a cut inside a value)."""
    if joined[-1:].isspace():
        return joined + text.lstrip()
    return joined + (" " if joined.endswith(",") else "") + text.strip()


def parse_offsets_dump_line(line: str) -> Match | _Ignore | None:
    """One dump line -> Match (the first record of the line), IGNORE (structure), None (unknown record).
    Lines of the 3.9+ JSON formatters can hold several records: the count is in extra["records_on_line"];
    `parse_offsets_dump_records` returns them all."""
    res = parse_offsets_dump_records(line)
    if isinstance(res, list):
        if len(res) > 1:
            first = res[0]
            extra = dict(first.fields.get("extra", {}))
            extra["records_on_line"] = len(res)
            return Match(first.rule, first.kind, {**first.fields, "extra": extra})
        return res[0]
    return res


MAX_LINE = 1_000_000
"""Longer lines are not parsed (None: kept as unparsed by the reader); a GroupMetadata record with
thousands of members stays well below this."""


def parse_offsets_dump_records(line: str) -> list[Match] | _Ignore | None:
    res = _records(line)
    if isinstance(res, list):
        for m in res:
            _set_group_type(m)
    return res


# __consumer_offsets record types (group-coordinator/src/main/resources/common/message/*Key.json,
# "validVersions" of the key = the record type; apache/kafka trunk 2024-10): 2 GroupMetadataKey (classic
# groups only), 3-8 ConsumerGroup*Key (KIP-848), 9-15 ShareGroup*Key (KIP-932); later types are not mapped.
_RECORD_TYPE_GROUP_TYPE = {2: "classic", **{t: "consumer" for t in range(3, 9)}, **{t: "share" for t in range(9, 16)}}


def _set_group_type(m: Match) -> None:
    """A GroupMetadata record (the text formatters of 0.9-3.x print no other group record) is a classic
    group's; a 3.7+ JSON record of type 3..15 a consumer or share group's."""
    extra = m.fields.get("extra") or {}
    if "record_type" in extra:
        gtype = _RECORD_TYPE_GROUP_TYPE.get(extra["record_type"])
    elif m.kind == "group_metadata_record" or extra.get("record") == "group_metadata":
        gtype = "classic"
    else:
        return
    if gtype is not None:
        m.fields["group_type"] = gtype


def _json_int(v: Any) -> bool:
    """A JSON number that is an integer (not a bool, not a string such as "--1")."""
    return isinstance(v, int) and not isinstance(v, bool)


def _records(line: str) -> list[Match] | _Ignore | None:
    if len(line) > MAX_LINE:
        return None
    s = line.strip()
    if not s or _STRUCTURAL.match(line) or _STRUCTURAL.match(s) or s.endswith("\\") or is_command(s):
        return IGNORE  # (is_command: the tool's command line after any prompt, "root@host:/# ", "% ")
    if s.startswith("{"):
        return _timed(_json_formatter_records(s))
    head = _RECORD_HEAD.match(s)
    if head:
        k = s.find(" key: ", head.end())
        if k < 0:
            return IGNORE  # a record line without key/payload (control record, 0.10 tombstone)
        p = s.find(" payload: ", k + 6)
        key, payload = (s[k + 6:p], s[p + 10:]) if p >= 0 else (s[k + 6:], None)
        return _timed(_dump_record(int(head.group(1)), s[head.end():k], key, payload))
    if s.startswith("key: ") and _SNIFF_DUMP_KEY.match(" " + s):
        # a DumpLogSegments record pasted from its "key: " on (the excerpt left out the record's head:
        # "offset: N position: P CreateTime: T ..."): the key and payload read as in a whole record
        p = s.find(" payload: ", 5)
        key, payload = (s[5:p], s[p + 10:]) if p >= 0 else (s[5:], None)
        return _timed(_dump_record(None, "", key, payload))
    if "::" in s:
        one = _formatter_line(s)
        return [one] if one else None
    return None


# ---------------------------------------------------------------- A: Scala formatters


def _formatter_line(s: str) -> Match | None:
    hit = _parse(s, "formatter_line")
    if hit is None:
        return None
    rule, tok = hit
    t = [x or "" for x in tok]
    if rule in ("oam_old", "oam_new", "offset_tombstone"):
        group, topic, partition = _split_gtp(t[0])
        if partition is None:
            return None
        base = {"group_id": group, "topic": topic, "partition": partition}
        if rule == "offset_tombstone":
            return Match("formatter_offset_tombstone", "tombstone", {**base, "extra": {"record": "offset_commit"}})
        if rule == "oam_old":
            _g, offset, meta, commit, expire = t
            meta = meta[1:]  # the terminal carries the "," before the metadata
            extra = {"metadata": "" if meta == "NO_METADATA" else meta, "expire_ms": int(expire),
                     "format": "OffsetMetadata (0.9-2.0)"}
            return Match("formatter_offset_metadata_old", "offset_record",
                         {**base, "offset": int(offset), "ts_ms": int(commit), "extra": extra})
        _g, offset, epoch, meta, commit, expire = t
        extra = {"leader_epoch": _epoch(epoch), "metadata": meta[len(", metadata="):], "expire_ms": _expire(expire),
                 "format": "OffsetAndMetadata (2.1-3.9)"}
        return Match("formatter_offset_and_metadata", "offset_record",
                     {**base, "offset": int(offset), "ts_ms": int(commit), "extra": extra})
    group = t[0]
    if rule == "group_tombstone":
        return Match("formatter_group_tombstone", "tombstone", {"group_id": group, "extra": {"record": "group_metadata"}})
    if rule == "gm_old":
        parts = t[1].split(",", 3)
        if len(parts) < 4:
            return None
        _g, pt, state, members = parts
        mlist = _members_map(members)
        extra = {"protocol_type": pt, "state": state, "members": mlist, "member_count": len(mlist),
                 "format": "GroupMetadata (0.9-0.10)"}
        return Match("formatter_group_metadata_old", "group_metadata_record", {"group_id": group, "extra": extra})
    _key, gid, gen, pt, state, members = t
    pt_v = pt[5:-1] if pt.startswith("Some(") else None
    mlist = _members_map(members)
    extra = {"protocol_type": pt_v, "state": state, "members": mlist, "member_count": len(mlist),
             "format": "GroupMetadata (0.11-3.9)"}
    return Match("formatter_group_metadata", "group_metadata_record",
                 {"group_id": gid, "generation": int(gen), "extra": extra})


def _split_gtp(gtp: str) -> tuple[str, str, int | None]:
    """GroupTopicPartition.toString "[g,t,p]": topics cannot hold commas, groups can: split from the right."""
    parts = gtp.rsplit(",", 2)
    if len(parts) != 3 or not is_int(parts[2]):
        return gtp, "", None
    return parts[0], parts[1], int(parts[2])


def _epoch(text: str) -> int | None:
    return int(text[9:-1]) if text.startswith("Optional[") else None


def _expire(text: str) -> int | None:
    return int(text[5:-1]) if text.startswith("Some(") else None


def _members_map(text: str) -> list[dict[str, Any]]:
    """Scala `Map(id -> MemberMetadata(...), ...)` / `HashMap(...)` / 0.9 `Map(id -> [id,client,host,timeout])`."""
    inner = text[text.index("(") + 1: -1] if "(" in text else text
    heads = list(_MEMBER_SPLIT.finditer(inner))
    members = []
    for i, h in enumerate(heads):
        body = inner[h.end(): heads[i + 1].start() if i + 1 < len(heads) else len(inner)]
        if body.startswith("["):
            f = body.strip("[]").split(",")
            m: dict[str, Any] = {"member_id": f[0]}
            if len(f) >= 4:
                m.update(client_id=f[1], host=f[2], session_timeout_ms=_int(f[3]))
        else:
            facts = dict(_MM_FIELD.findall(body))
            m = {"member_id": facts.get("memberId", h.group(1)), "client_id": facts.get("clientId"),
                 "host": facts.get("clientHost"), "session_timeout_ms": _int(facts.get("sessionTimeoutMs")),
                 "rebalance_timeout_ms": _int(facts.get("rebalanceTimeoutMs"))}
            iid = facts.get("groupInstanceId")
            if iid and iid.startswith("Some("):
                m["instance_id"] = iid[5:-1]
            if facts.get("supportedProtocols", "").startswith("List("):
                m["protocols"] = [p.strip() for p in facts["supportedProtocols"][5:-1].split(",") if p.strip()]
        members.append({k: v for k, v in m.items() if v is not None})
    return members


def _int(v: Any) -> int | None:
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


# ---------------------------------------------------------------- B: DumpLogSegments --offsets-decoder


def _timed(matches: list[Match] | None) -> list[Match] | None:
    """A group metadata record's time: when its group entered the state it stores (the value's
    currentStateTimestamp, GroupMetadataManager 2.1+ value v2+), else when the coordinator appended it
    (the batch's CreateTime: GroupMetadataManager.storeGroup writes it as the group becomes Stable or
    Empty, 0.9+). Offset commits get theirs in _dump_record."""
    for m in matches or ():
        if m.kind == "group_metadata_record" and m.fields.get("ts_ms") is None:
            x = m.fields.get("extra") or {}
            at = x.get("current_state_ms") if isinstance(x.get("current_state_ms"), int) and x["current_state_ms"] > 0 \
                else x.get("create_time_ms")
            if isinstance(at, int):
                m.fields["ts_ms"] = at
    return matches


def _dump_record(log_offset: int | None, mid: str, key: str, payload: str | None) -> list[Match] | None:
    key = key.strip()
    payload = payload.strip() if payload is not None else None
    ct = _CREATE_TIME.search(mid)
    base_extra: dict[str, Any] = {"log_offset": log_offset} if log_offset is not None else {}
    if ct:
        base_extra["create_time_ms"] = int(ct.group(1))
    if key.startswith("{"):
        try:
            k = json.loads(key)
            v = None if payload in (None, "<DELETE>") else json.loads(payload)
        except (ValueError, TypeError, RecursionError):
            return None
        if isinstance(k, dict) and isinstance(k.get("metadata"), str):  # 1.0 .. 2.4 group key
            if v is None:
                return [Match("dump_json_group_tombstone", "tombstone",
                              {"group_id": k["metadata"], "extra": {**base_extra, "record": "group_metadata"}})]
            return [_group_from_text_json("dump_json_metadata_key", k["metadata"], v, base_extra)] if isinstance(
                v, dict) else None
        rec = _json_record(k, v, base_extra, "dump_json", type_field=("type", "version"))
        return [rec] if rec else None
    hit = _parse(key, "dump_key")
    if hit is None:
        return None
    rule, tok = hit
    parts = [x or "" for x in tok]
    if rule in ("key_offset_v0", "key_offset_commit"):
        if rule == "key_offset_v0":  # offset::group:topic:partition
            gtp = parts[0].rsplit(":", 2)
            if len(gtp) != 3 or not is_uint(gtp[2]):
                return None
            group, topic, part = gtp[0], gtp[1], int(gtp[2])
        else:  # offset_commit::group=g,partition=topic-p
            group = parts[0]
            tp = parts[1].rsplit("-", 1)
            if len(tp) != 2 or not is_uint(tp[1]):
                return None
            topic, part = tp[0], int(tp[1])
        base = {"group_id": group, "topic": topic, "partition": part}
        if payload is None or payload == "<DELETE>":
            return [Match(f"dump_{rule}_tombstone", "tombstone", {**base, "extra": {**base_extra, "record": "offset_commit"}})]
        if rule == "key_offset_v0":  # payload "offset" or "offset:metadata"
            off, _, meta = payload.partition(":")
        else:  # "offset=N[,metadata=M]"
            if not payload.startswith("offset="):
                return None
            off, _, meta = payload[7:].partition(",metadata=")
        if not is_int(off):
            return None
        fields = {**base, "offset": int(off), "extra": {**base_extra, "metadata": meta}}
        if ct:
            fields["ts_ms"] = int(ct.group(1))  # no commit time in the text forms: the record's append time
        return [Match(f"dump_{rule}", "offset_record", fields)]
    # group metadata keys
    group = parts[0]
    if rule == "key_metadata_v0" and group.startswith("{"):
        return None
    if payload is None or payload == "<DELETE>":
        return [Match(f"dump_{rule}_tombstone", "tombstone",
                      {"group_id": group, "extra": {**base_extra, "record": "group_metadata"}})]
    if payload.startswith("{"):
        try:
            v = json.loads(payload)
        except (ValueError, RecursionError):
            return None
        return [_group_from_text_json(f"dump_{rule}", group, v, base_extra)]
    # 0.10-0.11: protocolType:protocol:generationId:assignment
    f = payload.split(":", 3)
    if len(f) < 3 or not is_int(f[2]):
        return None
    extra = {**base_extra, "protocol_type": f[0], "members": _assignment(f[3] if len(f) > 3 else "")}
    extra["member_count"] = len(extra["members"])
    return [Match(f"dump_{rule}", "group_metadata_record",
                  {"group_id": group, "generation": int(f[2]), "protocol": f[1] or None, "extra": extra})]


def _group_from_text_json(rule: str, group: str, v: dict[str, Any], base_extra: dict[str, Any]) -> Match:
    """1.0-3.7 `{"protocolType":..,"protocol":..,"generationId":..,"assignment":"{m=[t-0, t-1]}"}`."""
    members = _assignment(v.get("assignment") or "")
    extra = {**base_extra, "protocol_type": v.get("protocolType"), "members": members, "member_count": len(members)}
    return Match(rule, "group_metadata_record",
                 {"group_id": group, "generation": v.get("generationId"), "protocol": v.get("protocol"), "extra": extra})


def _assignment(text: str) -> list[dict[str, Any]]:
    return [{"member_id": mid.strip(), "partitions": [p.strip() for p in parts.split(",") if p.strip()]}
            for mid, parts in _ASSIGNMENT.findall(text)]


# ---------------------------------------------------------------- JSON keys/values (B3, C1, C2)


def _json_formatter_records(s: str) -> list[Match] | None:
    """3.9 / 4.x tools formatters: one or more `{"key":..,"value":..}` objects glued together."""
    dec = json.JSONDecoder()
    out: list[Match] = []
    i = 0
    while i < len(s):
        try:
            obj, end = dec.raw_decode(s, i)
        except (ValueError, RecursionError):
            return out or None
        i = end
        while i < len(s) and s[i] in " \t,":
            i += 1
        if not isinstance(obj, dict) or "key" not in obj:
            return out or None
        rec = _json_record(obj.get("key"), obj.get("value"), {}, "formatter_json", type_field=("type", "version"))
        if rec is None:
            return out or None
        out.append(rec)
    return out or None


def _json_record(key: Any, value: Any, base_extra: dict[str, Any], rule: str,
                 type_field: tuple[str, ...]) -> Match | None:
    if not isinstance(key, dict) or not isinstance(key.get("data"), dict):
        return None
    ktype = next((key[t] for t in type_field if t in key), None)
    try:
        ktype = int(ktype) if ktype is not None else None
    except (TypeError, ValueError):
        return None
    kd = key["data"]
    vd = value.get("data") if isinstance(value, dict) else None
    vver = value.get("version") if isinstance(value, dict) else None
    extra = dict(base_extra)
    if ktype in (0, 1):  # OffsetCommitKey
        if not _json_int(kd.get("partition")):
            return None  # a malformed record: unparsed, never a partition that is not a number
        base = {"group_id": kd.get("group"), "topic": kd.get("topic"), "partition": kd.get("partition")}
        if value is None:
            return Match(f"{rule}_offset_tombstone", "tombstone", {**base, "extra": {**extra, "record": "offset_commit"}})
        if not isinstance(vd, dict):
            return None
        if not _json_int(vd.get("offset")) or not (vd.get("commitTimestamp") is None or _json_int(vd["commitTimestamp"])):
            return None
        extra.update(leader_epoch=vd.get("leaderEpoch"), metadata=vd.get("metadata"),
                     expire_ms=vd.get("expireTimestamp"), value_version=_int(vver))
        fields = {**base, "offset": vd.get("offset"), "extra": {k: v for k, v in extra.items() if v is not None}}
        if vd.get("commitTimestamp") is not None:
            fields["ts_ms"] = vd["commitTimestamp"]
        return Match(f"{rule}_offset_commit", "offset_record", fields)
    if ktype == 2:  # GroupMetadataKey
        group = kd.get("group")
        if value is None:
            return Match(f"{rule}_group_tombstone", "tombstone", {"group_id": group, "extra": {**extra, "record": "group_metadata"}})
        if not isinstance(vd, dict):
            return None
        members = []
        for mm in vd.get("members") or []:
            m = {"member_id": mm.get("memberId"), "instance_id": mm.get("groupInstanceId"),
                 "client_id": mm.get("clientId"), "host": mm.get("clientHost"),
                 "session_timeout_ms": mm.get("sessionTimeout"), "rebalance_timeout_ms": mm.get("rebalanceTimeout")}
            asg = mm.get("assignment")
            if isinstance(asg, dict):
                m["partitions"] = [f"{tp['topic']}-{p}" for tp in asg.get("assignedPartitions") or []
                                   for p in tp.get("partitions") or []]
            members.append({k: v for k, v in m.items() if v is not None})
        extra.update(protocol_type=vd.get("protocolType"), leader=vd.get("leader"),
                     current_state_ms=vd.get("currentStateTimestamp"), members=members, member_count=len(members),
                     value_version=_int(vver))
        if not (vd.get("generation") is None or _json_int(vd["generation"])):
            return None
        return Match(f"{rule}_group_metadata", "group_metadata_record",
                     {"group_id": group, "generation": vd.get("generation"), "protocol": vd.get("protocol"),
                      "extra": {k: v for k, v in extra.items() if v is not None}})
    if ktype is not None and ktype >= 3:
        # KIP-848 consumer-group / share-group records: kept as facts of the group, not offsets
        group = kd.get("groupId") or kd.get("group")
        extra.update(record_type=ktype, key=kd, value=vd)
        kind = "tombstone" if value is None else "group_metadata_record"
        kfields: dict[str, Any] = {"group_id": group, "extra": extra}
        if isinstance(vd, dict) and isinstance(vd.get("epoch"), int):
            kfields["generation"] = vd["epoch"]
        if "memberId" in kd:
            kfields["member_id"] = kd["memberId"]
        return Match(f"{rule}_record_type_{ktype}", kind, kfields)
    return None
