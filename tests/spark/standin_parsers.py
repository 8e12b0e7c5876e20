"""A tiny stand-in with the `parsers` API (PARSERS_API.md), used by these tests only.

It lets the Spark stages be tested on hand-written lines independent of the real grammars:
`2024-05-01 10:00:00,000 INFO [Consumer clientId=C, groupId=G] MESSAGE` for consumers and
`[2024-05-01 10:00:00,000] INFO [GroupCoordinator 1]: MESSAGE (kafka...)` for brokers; indented
lines continue the previous record.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from parsers.events import Event

CANDIDATE_REGEX = r"GroupCoordinator|Consumer clientId=|^\s+\S"


@dataclass(frozen=True)
class FileFormat:
    kind: str
    layout: str


@dataclass(frozen=True)
class LineOutcome:
    line_no: int
    status: str
    event: Event | None
    why: str | None


def sniff(first_lines: list[str], name: str = "") -> FileFormat:
    if not first_lines:
        return FileFormat("empty", "n/a")
    if any(ln.startswith("[") for ln in first_lines[:20]):
        return FileFormat("log", "log4j")
    return FileFormat("log", "bare")


_CLIENT = re.compile(r"^(\S+ \S+) (\w+) \[Consumer clientId=([^,]+), groupId=([^\]]+)\] (.*)$")
_BROKER = re.compile(r"^\[(\S+ \S+)\] (\w+) \[GroupCoordinator (\d+)\]: (.*?)(?: \(kafka\.[\w.]+\))?$")


def _ts(text: str) -> int:
    return int(datetime.strptime(text, "%Y-%m-%d %H:%M:%S,%f").replace(tzinfo=UTC).timestamp() * 1000)


def _client(msg: str) -> tuple[str, dict] | None:
    if m := re.match(r"Successfully joined group with generation Generation\{generationId=(\d+), memberId='([^']*)'", msg):
        return "join_succeeded", {"generation": int(m[1]), "member_id": m[2]}
    if m := re.match(r"Adding newly assigned partitions: (.*)$", msg):
        return "partitions_assigned", {"partitions": tuple(p.strip() for p in m[1].split(",") if p.strip())}
    if m := re.match(r"Revoke previously assigned partitions (.*)$", msg):
        return "partitions_revoked", {"partitions": tuple(p.strip() for p in m[1].split(",") if p.strip())}
    if msg.startswith("Received successful Heartbeat response"):
        return "heartbeat_succeeded", {}
    if m := re.match(r"Committed offset (\d+) for partition (.+)-(\d+)$", msg):
        return "offset_committed", {"offset": int(m[1]), "topic": m[2], "partition": int(m[3])}
    if msg.startswith("Member") and "sending LeaveGroup request" in msg:
        return "leave_group", {}
    if msg.startswith("Rebalance failed"):
        return "rebalance_failed", {}
    return None


def _broker(msg: str) -> tuple[str, dict] | None:
    if m := re.match(r"Stabilized group (\S+) generation (\d+)", msg):
        return "broker_group_stabilized", {"group_id": m[1], "generation": int(m[2])}
    if m := re.match(r"Preparing to rebalance group (\S+) .*with old generation (\d+)", msg):
        return "broker_rebalance_preparing", {"group_id": m[1], "generation": int(m[2])}
    return None


def parse_lines(source: str, lines: Iterable[tuple[int, str]], fmt: FileFormat | None = None) -> Iterator[LineOutcome]:
    open_record = False
    for line_no, text in lines:
        if text[:1].isspace() and text.strip():
            yield LineOutcome(line_no, "parsed" if open_record else "ignored", None, None)
            continue
        open_record = False
        if "BOOM" in text:
            raise RuntimeError("stand-in parser failure")
        if m := _CLIENT.match(text):
            hit = _client(m[5])
            base = {"ts_ms": _ts(m[1]), "client_id": m[3], "group_id": m[4]}
            side = "client"
        elif m := _BROKER.match(text):
            hit = _broker(m[4])
            base = {"ts_ms": _ts(m[1]), "coordinator": m[3]}
            side = "broker"
        else:
            yield LineOutcome(line_no, "ignored", None, None)
            continue
        if hit is None:
            ev = Event(source=source, line_no=line_no, side=side, kind="unparsed", raw=text, ts_ms=base["ts_ms"],
                       extra={"shape": "no rule"})
            yield LineOutcome(line_no, "unparsed", ev, "no rule matched")
            continue
        kind, fields = hit
        ev = Event(source=source, line_no=line_no, side=side, kind=kind, raw=text, **{**base, **fields})
        open_record = True
        yield LineOutcome(line_no, "parsed", ev, None)
