"""What the non-Java client parsers share: the result markers, the envelope facts of a line
(time, level, logger) and value readers for the clients' own renderings of partitions and offsets."""

from __future__ import annotations

from typing import Any

from parsers.base import IGNORE, Match
from parsers.build_cache import compile_regex
from parsers.layouts import json_object  # one JSON-line reader for every layout (re-exported)
from parsers.timestamps import epoch_number_ms, parse_ts


class _Unrecognised:
    """Marker: the line is a foreign client's coordinator line, but no rule knows its wording
    (the reader counts it `unparsed`, with its raw text)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNRECOGNISED"


UNRECOGNISED = _Unrecognised()
__all__ = ["IGNORE", "UNRECOGNISED", "Match", "match", "iso_ms", "json_object", "tp_repr_list", "rd_tp_list"]


def match(rule: str, kind: str, library: str, fields: dict[str, Any], extra: dict[str, Any]) -> Match:
    """A Match whose fields name the client library; None values are dropped."""
    f = {k: v for k, v in fields.items() if v is not None}
    f["client_library"] = library
    x = {k: v for k, v in extra.items() if v is not None}
    if x:
        f["extra"] = x
    return Match(rule, kind, f)


# a date-time anywhere in the text before the message (Python logging's asctime, .NET's DateTime,
# Go's RFC 3339, ISO 8601 in JSON): the first one found
_ISO_ANY = compile_regex(r"\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:\s*(?:Z|UTC|[+-]\d{2}:?\d{2}))?")


def iso_ms(text: str) -> int | None:
    m = _ISO_ANY.search(text)
    return parse_ts(m.group(0)) if m else None


def epoch_text_ms(text: str) -> int | None:
    try:
        return epoch_number_ms(float(text))
    except (ValueError, OverflowError):
        return None


# Python's repr of kafka-python's / aiokafka's TopicPartition namedtuple (kafka/structs.py,
# aiokafka/structs.py): "TopicPartition(topic='orders', partition=3)"; under Python 2 (kafka-python 1.x)
# the topic is a unicode repr, "TopicPartition(topic=u'orders', partition=3)", and a set is "set([...])"
_TP_REPR = compile_regex(r"TopicPartition\(topic=u?(['\"])(?P<topic>.*?)\1, partition=(?P<partition>\d+)\)")
_OAM_REPR = compile_regex(r"OffsetAndMetadata\(offset=(?P<offset>-?\d+)")


def tp_repr_list(text: str) -> tuple[str, ...] | None:
    """`topic-N` for every TopicPartition repr in the text; () for an empty set/list/frozenset;
    None when the text is neither."""
    found = tuple(f"{m['topic']}-{m['partition']}" for m in _TP_REPR.finditer(text))
    if found:
        return found
    if text.strip() in ("set()", "frozenset()", "[]", "{}", "()", "frozenset({})", "set([])", "frozenset([])"):
        return ()
    return None


def tp_repr_one(text: str) -> tuple[str, int] | None:
    m = _TP_REPR.search(text)
    return (m["topic"], int(m["partition"])) if m else None


def oam_offset(text: str) -> int | None:
    """The offset of an OffsetAndMetadata repr, or of a bare integer."""
    m = _OAM_REPR.search(text)
    if m:
        return int(m["offset"])
    t = text.strip()
    return int(t) if t.lstrip("-").isdigit() and t.isascii() else None


# librdkafka's rd_kafka_topic_partition_list_str (rdkafka_partition.c): "topic[0]@12(err), ..."
# (<= 2.3) and "topic(topicid)[0]@12(err), ..." (2.4+, KIP-848 topic ids; "(null)" when unknown)
_RD_TP = compile_regex(r"(?P<topic>\(null\)|[^\s,()\[\]]+)(?:\((?P<tid>[^)]*)\))?\[(?P<partition>\d+)\](?:@(?P<offset>-?\d+))?")


def rd_tp_list(text: str) -> tuple[tuple[str, ...], bool]:
    """(partitions as `topic-N`, named by topic id?) of a librdkafka partition-list string."""
    out = []
    by_id = False
    for m in _RD_TP.finditer(text):
        topic = m["topic"]
        if topic == "(null)" and m["tid"] and m["tid"] != "(null)":
            topic, by_id = m["tid"], True
        out.append(f"{topic}-{m['partition']}")
    return tuple(out), by_id
