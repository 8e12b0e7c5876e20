"""Which events the replay can take: every field of its declared type and in Kafka's range.

Replay input comes from files a user hands over (event JSON lines, run directories); a line with a
string where a number belongs, a null source, a negative generation or a garbage partition list
would otherwise crash the replay deep inside (comparisons, sorting, arithmetic) and lose every
other group. Such an event is rejected with a reason naming the field; the rest is replayed.

Ranges follow Kafka's types: generationId and member epochs are int32 (-1 = no generation,
Generation.NO_GENERATION; epochs -1/-2 = leaving, ConsumerGroupHeartbeatRequest 3.7+),
partitions int32 >= 0, offsets int64 (-1 = no offset, OffsetAndMetadata / ListOffsets).
"""

from __future__ import annotations

import math
import re
from typing import Any

from parsers.events import Event, Side

INT32_MAX = 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

# field -> (lowest, highest) for integer fields
INT_RANGES: dict[str, tuple[int, int]] = {
    "line_no": (0, INT64_MAX),
    "ts_ms": (INT64_MIN, INT64_MAX),
    "generation": (-1, INT32_MAX),
    "member_epoch": (-2, INT32_MAX),
    "partition": (0, INT32_MAX),
    "offset": (-1, INT64_MAX),
}
REQUIRED_STR = ("source", "side", "kind", "raw")
OPTIONAL_STR = ("group_id", "client_id", "member_id", "instance_id", "protocol", "coordinator", "reason", "error",
                "topic", "kafka_version_hint")
SIDES = frozenset(s.value for s in Side)
# topic-partition as Kafka prints it (TopicPartition.toString: topic + "-" + partition)
TOPIC_PARTITION = re.compile(r"^\S+-\d{1,10}$")
# extra keys the replay reads, with the shapes it can use (others are carried, never interpreted)
EXTRA_SHAPES: dict[str, tuple[type, ...]] = {
    "old_generation": (int,), "assignments": (dict,), "assignment": (dict, list), "members": (list, int),
    "offsets": (dict, list), "settings": (dict,), "leader": (str, int), "leader_id": (str, int),
    "host": (str,), "client_host": (str,), "origin": (str,), "coordinator_id": (str, int), "to_state": (str,),
    "new_state": (str,), "state": (str,), "protocol": (str,), "protocol_type": (str,), "is_leader": (bool,),
}


def show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _int_problem(name: str, value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and not math.isfinite(value):
            return f"{name} is {show(value)}, not a number"
        return f"{name} is {show(value)}, not an integer"
    low, high = INT_RANGES[name]
    if not low <= value <= high:
        return f"{name} {value} is out of range ({low}..{high})"
    return None


def problem(ev: Event) -> str | None:
    """Why the replay cannot take this event, or None when it can."""
    for name in REQUIRED_STR:
        value = getattr(ev, name)
        if not isinstance(value, str) or (name != "raw" and not value):
            return f"{name} is {show(value)}, not a non-empty string" if name != "raw" else \
                f"raw is {show(value)}, not a string"
    if ev.side not in SIDES:
        return f"side {show(ev.side)} is none of {', '.join(sorted(SIDES))}"
    for name in OPTIONAL_STR:
        value = getattr(ev, name)
        if value is not None and not isinstance(value, str):
            return f"{name} is {show(value)}, not a string"
    for name in INT_RANGES:
        value = getattr(ev, name)
        if value is None and name != "line_no":
            continue
        why = _int_problem(name, value)
        if why:
            return why
    if ev.partitions is not None:
        if not isinstance(ev.partitions, tuple | list):
            return f"partitions is {show(ev.partitions)}, not a list"
        for p in ev.partitions:
            if not isinstance(p, str) or not TOPIC_PARTITION.match(p):
                return f"partitions holds {show(p)}, not a topic-partition name"
            if int(p.rpartition("-")[2]) > INT32_MAX:
                return f"partitions holds {show(p)}, whose partition number is out of range"
    if not isinstance(ev.extra, dict):
        return f"extra is {show(ev.extra)}, not an object"
    for key, shapes in EXTRA_SHAPES.items():
        value = ev.extra.get(key)
        if value is None:
            continue
        if not isinstance(value, shapes) or (isinstance(value, bool) and bool not in shapes):
            return f"extra.{key} is {show(value)}, not {' or '.join(t.__name__ for t in shapes)}"
        if key == "members" and ev.kind == "group_metadata_record" and not isinstance(value, list):
            # a __consumer_offsets group record lists its members (GroupMetadataManager); broker log
            # lines count them ("with 3 members"), so an int is fine elsewhere
            return f"extra.members is {show(value)}, not the list a group metadata record holds"
        if key == "old_generation":
            why = _int_problem("generation", value)
            if why:
                return "extra.old_" + why
        if key in ("assignments", "assignment") and isinstance(value, dict):
            for parts in value.values():
                if parts is not None and not (isinstance(parts, list) and all(isinstance(x, str) for x in parts)):
                    return f"extra.{key} holds {show(parts)}, not a list of partition names"
        if key == "assignment" and isinstance(value, list) and not all(isinstance(x, str) for x in value):
            return "extra.assignment holds a value that is not a partition name"
    return None
