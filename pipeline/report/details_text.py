"""A finding's machine-readable details (details_json) as sentences a person reads, never as JSON.

A few finding kinds get a sentence of their own; any other key is told as "label: value" with
durations, times, counts and lists written out (the JSON report keeps the raw values)."""

from __future__ import annotations

import json
from typing import Any

from pipeline.figures import number
from pipeline.timefmt import duration, iso

# keys whose value is an instant (epoch ms), not a length of time
INSTANT_KEYS = {"removed_ms", "last_heartbeat_ms", "at_ms", "start_ms", "end_ms", "expired_ms", "left_ms",
                "joined_ms", "first_ms", "last_ms"}
LABELS = {
    "overlap_ms": "overlap", "silence_ms": "silence", "session_timeout_ms": "session.timeout.ms",
    "max_poll_interval_ms": "max.poll.interval.ms", "rebalance_timeout_ms": "rebalance timeout",
    "rebalance_ms": "rebalance took", "gap_ms": "gap", "threshold_ms": "threshold", "window_ms": "window",
    "count": "count", "causes": "causes", "not_rejoined": "members that did not rejoin in time",
    "instance_id": "static instance id (group.instance.id)", "protocols": "protocols seen",
    "missing": "missing", "missing_generations": "generations missing from the logs",
    "removed_ms": "removed by the broker at", "last_heartbeat_ms": "last heartbeat at",
    "expiry_time": "expiry time taken from", "group_generation": "group generation",
    "from_offset": "from offset", "to_offset": "to offset", "topic": "topic", "partition": "partition",
    "member": "member", "generation": "generation", "end_reason": "why it ended", "estimated": "estimated",
}


# what a finding's expiry_time says (pipeline/replay_rules/generations.py), in words
EXPIRY_TIME_WORDS = {
    "broker_removal_line": "the broker's removal line",
    "broker_rebalance_line": "the broker's 'Preparing to rebalance' line",
    "estimated": "an estimate: the member's last sign of life + session.timeout.ms",
    "estimated_from_rebalance": "an estimate: one heartbeat interval before another member was told of the rebalance",
    "estimated_window": "the earliest it can have been (the member's last sign of life + session.timeout.ms); "
                        "it came before a member that stayed rejoined",
    "unknown": "nothing in the logs",
}


def _label(key: str) -> str:
    return LABELS.get(key, key.replace("_ms", "").replace("_", " "))


def _value(key: str, value: Any) -> str:
    if value is None:
        return "unknown"
    if isinstance(value, dict):
        return ", ".join(f"{_label(k)} {_value(k, v)}" for k, v in value.items() if v not in (None, [], {}))
    if isinstance(value, (list, tuple)):
        return ", ".join(_value(key, v) for v in value) or "none"
    if isinstance(value, (int, float)) and not isinstance(value, bool) and key.endswith("_ms"):
        if key in INSTANT_KEYS or value > 10**12:
            return iso(value) or "unknown"
        return f"{duration(value)} ({number(int(value))} ms)" if value >= 1000 else f"{number(int(value))} ms"
    if key == "expiry_time" and value in EXPIRY_TIME_WORDS:
        return EXPIRY_TIME_WORDS[value]
    if key.endswith("_time") and isinstance(value, str):
        return value.replace("_", " ")
    return number(value)


def _special(kind: str, d: dict[str, Any]) -> tuple[list[str], set[str]]:
    """Sentences for the kinds whose details read better as one sentence; the keys they used."""
    if isinstance(d.get("earlier"), dict) and isinstance(d.get("later"), dict):
        a, b = d["earlier"], d["later"]
        text = (f"{a.get('member', 'a member')} (generation {number(a.get('generation'))}) still owned the partition "
                f"when {b.get('member', 'another member')} (generation {number(b.get('generation'))}) was given it")
        if d.get("overlap_ms") is not None:
            text += f"; both owned it for {_value('overlap_ms', d['overlap_ms'])}"
        if a.get("end_reason"):
            text += f"; the first one's ownership ended by {str(a['end_reason']).replace('_', ' ')}"
        return [text + "."], {"earlier", "later", "overlap_ms"}
    if "from_offset" in d and "to_offset" in d:
        where = f"{d.get('topic')}-{d.get('partition')}" if d.get("topic") is not None else "the partition"
        text = f"Offsets {number(d['from_offset'])} to {number(d['to_offset'])} of {where}"
        if isinstance(d.get("count"), (int, float)):
            text += f" ({'about ' if d.get('estimated') else ''}{number(d['count'])} offsets)"
        return [text + "."], {"from_offset", "to_offset", "topic", "partition", "count", "estimated"}
    if "silence_ms" in d and "session_timeout_ms" in d:
        timeout = _value("session_timeout_ms", d["session_timeout_ms"])
        if d["silence_ms"] is None:
            return [f"How long the member was silent is not in the logs; session.timeout.ms = {timeout}."], \
                {"silence_ms", "session_timeout_ms"}
        return [f"The member was silent for {_value('silence_ms', d['silence_ms'])}, longer than session.timeout.ms "
                f"= {timeout}."], {"silence_ms", "session_timeout_ms"}
    if "rebalance_ms" in d and "rebalance_timeout_ms" in d:
        return [f"The rebalance took {_value('rebalance_ms', d['rebalance_ms'])}; the rebalance timeout is "
                f"{_value('rebalance_timeout_ms', d['rebalance_timeout_ms'])}."], {"rebalance_ms", "rebalance_timeout_ms"}
    return [], set()


def details_sentences(details: dict[str, Any] | str | None, kind: str = "") -> list[str]:
    """Sentences for a finding's details (a dict, or its JSON text); [] when there is nothing to say."""
    if isinstance(details, str):
        try:
            details = json.loads(details) if details.strip() else {}
        except ValueError:
            return [str(details)]
    if not isinstance(details, dict) or not details:
        return []
    out, used = _special(kind, details)
    for key, value in details.items():
        if key in used or value in (None, [], {}, ""):
            continue
        label = _label(key)
        out.append(f"{label[:1].upper()}{label[1:]}: {_value(key, value)}.")
    return out
