"""Values embedded in Kafka client messages (Java `toString` renderings) -> Event fields.

Each function takes the text of one `{}` placeholder. Structured values (Generation{..}, nodes,
Coordinator(..), request/response dumps, assignment maps, FetchPosition{..}) are parsed by the
LALR value grammar (parsers/grammars/client.lark via parsers.grammar); the flat, high-volume ones
(partition lists, commit offset maps) by a regex with the same meaning (tests check both agree),
and every function falls back to a regex when text is outside the grammar (truncated or redacted
lines). Results are memoised: the same generation, node or partition list recurs on many lines.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from parsers.build_cache import compile_regex
from parsers.grammar import parse_value

# AbstractCoordinator.Generation#toString (1.0+): Generation{generationId=5, memberId='m', protocol='range'}
_GENERATION = compile_regex(r"Generation\{generationId=(-?\d+), memberId='([^']*)', protocol='([^']*)'\}")
# Node#toString: "host:port (id: 1 rack: null)" (+ " isFenced: false" in 3.7+); older "Node(1, host, port)"
_NODE = compile_regex(r"(?P<host>\S+?):(?P<port>\d+) \(id: (?P<id>-?\d+|\.\.\.) rack: [^)]*\)")
_NODE_ANY = compile_regex(r"(?P<host>\S+) \(id: (?P<id>\S+) rack: [^)]*\)")
_NODE_OLD = compile_regex(r"Node\((?P<id>-?\d+), (?P<host>[^,]+), (?P<port>\d+)\)")
# 3.7+ CoordinatorRequestManager: Coordinator(key='g', nodeId=1, host='kafka', port=29092, errorCode=0, ...)
_COORD_DATA = compile_regex(r"nodeId=(?P<id>-?\d+), host='(?P<host>[^']*)', port=(?P<port>\d+)")
# TopicPartition#toString is "topic-N"; topic names are [a-zA-Z0-9._-]
_TP = compile_regex(r"(?<![\w.\-])([A-Za-z0-9._\-]+)-(\d+)(?![\w.\-])")
_TP_ONE = compile_regex(r"([A-Za-z0-9._\-]+)-(\d+)$")
# OffsetAndMetadata{offset=6, leaderEpoch=0, metadata=''} keyed by partition in commit maps
_OFFSET_TAIL = compile_regex(r"(-?\d+)(?:, leaderEpoch=([^,}]*))?")
_FETCH_POSITION = compile_regex(r"offset=(-?\d+)")
_FETCH_POSITION_HEAD = compile_regex(r"FetchPosition\{offset=(-?\d+)[,}]")
# Struct / *Data toString keys of the 0.9-2.x request/response dumps and 2.x+ generated messages
_STRUCT_KEYS = compile_regex(
    r"\b(generation_id|generationId|member_id|memberId|memberEpoch|member_epoch|group_id|groupId|"
    r"leader_id|leader|protocol_name|protocolName|group_protocol|error_code|errorCode|"
    r"group_instance_id|groupInstanceId)=('?)([^,)}\s']*)\2"
)
_STRUCT_FIELD = {
    "generation_id": "generation", "generationId": "generation",
    "member_id": "member_id", "memberId": "member_id",
    "memberEpoch": "member_epoch", "member_epoch": "member_epoch",
    "group_id": "group_id", "groupId": "group_id",
    "leader_id": "leader", "leader": "leader",
    "protocol_name": "protocol", "protocolName": "protocol", "group_protocol": "protocol",
    "error_code": "error_code", "errorCode": "error_code",
    "group_instance_id": "instance_id", "groupInstanceId": "instance_id",
}


@lru_cache(maxsize=8192)
def generation(text: str) -> tuple[int | None, str | None, str | None]:
    """Generation{...} or a bare integer -> (generation, member_id, protocol)."""
    m = _GENERATION.fullmatch(text.strip())
    if m:  # fast path for the exact rendering; the grammar handles the rest (groups(): one call, not three)
        gen, member, proto = m.groups()
        return int(gen), member or None, proto or None
    v = parse_value(text) if "Generation{" in text else None
    if isinstance(v, dict) and v.get("@type") == "Generation":
        try:
            return int(v["generationId"]), v.get("memberId") or None, v.get("protocol") or None
        except (KeyError, TypeError, ValueError):
            pass
    m = _GENERATION.search(text)
    if m:
        return int(m.group(1)), m.group(2) or None, m.group(3) or None
    t = text.strip()
    if is_int(t):
        return int(t), None, None
    return None, None, None


_STRICT_INT = compile_regex(r"-?[0-9]+")
_STRICT_UINT = compile_regex(r"[0-9]+")


def is_int(text: str) -> bool:
    """True when int(text) is a plain ASCII integer: str.isdigit() alone also accepts "²" (int() raises)
    and lstrip("-") accepts "--1"; every numeric field conversion of the rule handlers checks with this.
    The same as `_STRICT_INT.fullmatch(text) is not None` (an ASCII string of digits is exactly [0-9]+),
    without a regex call (tests/parsers/test_value_grammar.py compares both)."""
    digits = text[1:] if text[:1] == "-" else text
    return digits.isascii() and digits.isdigit()


def is_uint(text: str) -> bool:
    """`_STRICT_UINT.fullmatch(text) is not None`, by str methods."""
    return text.isascii() and text.isdigit()


@lru_cache(maxsize=4096)
def node(text: str) -> tuple[str | None, int | None]:
    """A coordinator rendering -> ("host:port" or id text, node id)."""
    m = _NODE.fullmatch(text.strip())
    if m:  # fast path for the exact Node rendering; the grammar handles the rest
        return f"{m.group('host')}:{m.group('port')}", int(m.group("id"))
    v = parse_value(text) if "(" in text else None
    if isinstance(v, dict) and v.get("@type") in ("Node", "Coordinator"):
        host = v.get("host")
        port = v.get("port")
        nid = v.get("id", v.get("nodeId"))
        if host in (None, "...") or nid in (None, "..."):
            return None, None
        try:
            return (f"{host}:{port}" if port else host), int(nid)
        except (TypeError, ValueError):
            return (f"{host}:{port}" if port else host), None
    for rx in (_NODE, _COORD_DATA, _NODE_OLD):
        m = rx.search(text)
        if m:
            nid = m.group("id")
            host = m.group("host")
            if host == "..." or nid == "...":
                return None, None  # redacted by whoever pasted the log
            return f"{host}:{m.group('port')}", int(nid)
    m = _NODE_ANY.search(text)
    if m is not None:
        host, nid = m.group("host"), m.group("id")
        if host == "..." or nid == "...":
            return None, None
        return host, int(nid) if is_int(nid) else None
    t = text.strip().rstrip(".")
    if is_int(t):
        return t, int(t)
    if not t or t in ("...", "null"):
        return None, None
    return t, None


@lru_cache(maxsize=16384)
def partitions(text: str) -> tuple[str, ...]:
    """Every "topic-N" in a partition list/set/map rendering, in order, without duplicates."""
    seen: dict[str, None] = {}
    for m in _TP.finditer(text):
        seen.setdefault(f"{m.group(1)}-{m.group(2)}", None)
    return tuple(seen)


@lru_cache(maxsize=8192)
def topic_partition(text: str) -> tuple[str | None, int | None]:
    """"topic-N" -> (topic, N); (None, None) for anything else (TopicPartition#toString)."""
    topic, sep, part = text.strip().rpartition("-")
    if not sep or not is_uint(part) or not topic or " " in topic:
        return None, None
    return topic, int(part)


# A commit map of one partition exactly as OffsetAndMetadata#toString writes it (2.1+: "offset=N,
# leaderEpoch=Optional[E], metadata='m'"; before: "offset=N, metadata='m'"), the commonest commit: one
# fullmatch gives what offsets_map's general code would (that code runs ~4 str.find/rfind calls, a
# rpartition and a regex: ~16,000 instructions). No "=" in the epoch and metadata: the text then
# holds exactly one "=OffsetAndMetadata{offset=", as that code requires for this result; a digit of
# another script after the offset (which \d there would take) fails the match.
_ONE_OFFSET = compile_regex(r"\{([^\s{}]*-[0-9]+)=OffsetAndMetadata\{offset=(-?[0-9]+)(?!\d)"
                            r"(?:, leaderEpoch=([^,}=]*))?(?:, metadata='[^'=]*')?\}\}")


@lru_cache(maxsize=8192)
def offsets_map(text: str) -> tuple[tuple[str, int, str | None], ...]:
    """{tp=OffsetAndMetadata{offset=N, leaderEpoch=E, ...}, ...} -> ((tp, offset, epoch), ...).

    Split on the fixed marker instead of scanning with a regex at every position (commit maps are
    on the hot path and can hold hundreds of partitions)."""
    one = _ONE_OFFSET.fullmatch(text)
    if one is not None:
        tp, off, epoch = one.groups()
        return ((tp, int(off), epoch),)
    marker = "=OffsetAndMetadata{offset="
    k = text.find(marker)
    if k < 0:
        return ()
    if text.find(marker, k + 1) < 0:  # one partition, the commonest commit: the loop below, in place
        tp = text[max(text.rfind("{", 0, k), text.rfind(" ", 0, k)) + 1:k]
        m = _OFFSET_TAIL.match(text, k + len(marker))
        if m is None or not is_uint(tp.rpartition("-")[2]):
            return ()
        return ((tp, int(m.group(1)), m.group(2)),)
    pieces = text.split(marker)
    out = []
    for before, after in zip(pieces[:-1], pieces[1:], strict=True):
        tp = before[max(before.rfind("{"), before.rfind(" ")) + 1:]
        m = _OFFSET_TAIL.match(after)
        if m is None or not is_uint(tp.rpartition("-")[2]):
            continue
        out.append((tp, int(m.group(1)), m.group(2)))
    return tuple(out)


def fetch_position_offset(text: str) -> int | None:
    t = text.strip()
    if is_int(t):
        return int(t)
    m = _FETCH_POSITION_HEAD.match(t)
    if m:  # FetchPosition{offset=N, ...}: the offset comes first
        return int(m.group(1))
    v = parse_value(t) if "{" in t else None
    if isinstance(v, dict) and is_int(str(v.get("offset", ""))):
        return int(v["offset"])
    m = _FETCH_POSITION.search(t)
    return int(m.group(1)) if m else None


def _struct_value(field: str, v: Any) -> Any:
    if field in ("generation", "member_epoch", "error_code"):
        try:
            return int(v)
        except (TypeError, ValueError):
            return None
    return None if v in (None, "", "null") else v


# A flat Struct / generated *Data toString, the commonest dump ("JoinGroupResponseData(throttleTimeMs=0,
# errorCode=0, generationId=5, ..., members=[])"): one object or map whose members are quoted strings,
# bare atoms, empty values or empty lists. Read with the value grammar's own token definitions
# (NAME, KEY, QUOTED, ATOM of parsers/grammars/client.lark), to the same result as parse_value
# (tests/parsers/test_value_grammar.py checks it differentially) at ~1/30 of the cost of Lark's
# pure-Python LALR loop; anything else goes to the grammar.
_FLAT_MEMBER = r"[A-Za-z_][A-Za-z0-9_.\-]*=(?:'[^']*'|[^\s,=(){}\[\]']+|\[\])?"
_FLAT_MEMBERS = rf"(?:{_FLAT_MEMBER}(?:, ?{_FLAT_MEMBER})*)?"
_FLAT = compile_regex(rf"([A-Z][A-Za-z0-9_$]*)(?:\(({_FLAT_MEMBERS})\)|\{{({_FLAT_MEMBERS})\}})|\{{({_FLAT_MEMBERS})\}}")
_FLAT_ITEM = compile_regex(r"([A-Za-z_][A-Za-z0-9_.\-]*)=('[^']*'|[^\s,=(){}\[\]']+|\[\])?")


def flat_value(text: str) -> dict[str, Any] | None:
    """parse_value(text) for a flat object/map rendering; None when the text is not one (the
    caller then asks the grammar)."""
    m = _FLAT.fullmatch(text.strip())
    if m is None:
        return None
    name, paren, brace, bare = m.groups()
    d: dict[str, Any] = {"@type": name} if name is not None else {}
    body = paren if paren is not None else brace if brace is not None else bare
    for key, val in _FLAT_ITEM.findall(body):
        # the grammar's transformer: QUOTED loses its quotes, "[]" is an empty list, no value is None
        if not val:
            d[key] = None
        elif val[0] == "'":
            d[key] = val[1:-1]
        elif val == "[]":
            d[key] = []
        else:
            d[key] = val
    return d


@lru_cache(maxsize=4096)
def struct_fields(text: str) -> tuple[tuple[str, Any], ...]:
    """Known keys of a request/response dump -> ((field, value), ...).

    Grammar first (top-level keys of the Struct/Data rendering, so a nested member's id does not
    shadow the response's own; flat renderings through `flat_value`, the grammar's fast twin);
    regex over the text (first occurrence wins) when the dump is truncated or otherwise outside
    the grammar."""
    out: dict[str, Any] = {}
    v = flat_value(text)
    if v is None:
        v = parse_value(text)
    if isinstance(v, dict):
        for k, val in v.items():
            f = _STRUCT_FIELD.get(k)
            if f is not None and f not in out and (val is None or isinstance(val, str)):
                conv = _struct_value(f, val)
                if conv is not None:
                    out[f] = conv
        return tuple(out.items())
    for m in _STRUCT_KEYS.finditer(text):
        f = _STRUCT_FIELD[m.group(1)]
        if f in out:
            continue
        conv = _struct_value(f, m.group(3))
        if conv is not None:
            out[f] = conv
    return tuple(out.items())


# ConsumerPartitionAssignor.Assignment#toString keyed by member (leader's "Finished assignment" map):
# {member-1=Assignment(partitions=[t-0, t-1]), member-2=Assignment(partitions=[t-2])}
_ASSIGNMENT_ENTRY = compile_regex(r"([^\s{},=]+)=Assignment\(partitions=\[([^\]]*)\]")


@lru_cache(maxsize=4096)
def assignment_map(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    v = parse_value(text) if "=Assignment(" in text else None
    if isinstance(v, dict) and all(isinstance(a, dict) and a.get("@type") == "Assignment" for a in v.values()):
        return tuple((member, tuple(a.get("partitions") or ())) for member, a in v.items())
    return tuple((m.group(1), partitions(m.group(2))) for m in _ASSIGNMENT_ENTRY.finditer(text))
