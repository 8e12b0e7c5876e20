"""Readable member names: the host (or client id) that tells members apart, plus a short id.

Member ids are `client.id-UUID`; several members of one deployment share the client id, so a lane
reads "10.0.0.7 · 9cce094f" (host and the UUID's tail) and the full id shows on hover."""

from __future__ import annotations

import re

import pandas as pd

from dashboard.data import RunData

UUID_SUFFIX = re.compile(r"-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)
LOG_SUFFIX = re.compile(r"\.(log|json|txt|out)(\.(gz|bz2|xz|zst))?$|\.(gz|bz2|xz|zst)$")


def short_tail(member: str) -> str:
    """The last 8 characters of the member id's UUID part (or of the id itself)."""
    text = str(member)
    if "@/" in text and not UUID_SUFFIX.search(text):  # the replay's name for a process that logs no member id
        return text.rsplit("/", 1)[-1][-24:]
    return text[-8:] if len(text) > 8 else text


# "FILE [ORIGIN]": a stream of a file split by its lines' origins (replay_rules.state.stream_namer),
# e.g. "pods.log [pod/orders-1/app]", "consumer@all.log [pid:4242]"
ORIGIN_STREAM = re.compile(r"^.*\S \[([^\[\]]+)\]$")


def _where(text: str) -> str:
    """A host as the run names it; a log file path (the process, when no host is logged) by its name;
    a stream of a file split by origin by its origin (the pod, container, host or PID)."""
    m = ORIGIN_STREAM.match(text.strip())
    if m:
        return m.group(1)
    text = text.strip().lstrip("/")
    if "/" in text:
        text = LOG_SUFFIX.sub("", text.rsplit("/", 1)[-1])
    return text


def _first(values: pd.Series) -> str | None:
    vals = [_where(str(v)) for v in values.dropna().tolist() if str(v).strip("/ ")]
    return max(set(vals), key=vals.count) if vals else None


def member_label(member: str, host: str | None, client_id: str | None, limit: int = 36) -> str:
    """'host · tail', else 'client-id · tail', else the id itself shortened in the middle."""
    text = str(member)
    if "@/" in text and not UUID_SUFFIX.search(text):  # the replay's name for a process with no member id
        head, _, path = text.partition("@")
        return f"{head}@{_where(path)}"[: limit]
    tail = short_tail(member)
    where = host or client_id or (UUID_SUFFIX.sub("", text) if UUID_SUFFIX.search(text) else None)
    if where and where != member:
        where = where if len(where) <= limit - len(tail) - 3 else where[: limit - len(tail) - 4] + "…"
        return f"{where} · {tail}"
    return text if len(text) <= limit else text[: limit - 9] + "…" + text[-8:]


def member_labels(data: RunData, group: str) -> dict[str, str]:
    """member id -> readable label, unique within the group (a clash adds more of the id)."""
    mems = data.group_rows("memberships", group)
    evs = data.group_events(group)
    out: dict[str, str] = {}
    for member in data.members(group):
        rows = mems[mems["member_id"] == member]
        host = _first(rows["host"]) if "host" in rows else None
        client = _first(rows["client_id"]) if "client_id" in rows else None
        if client is None and "actor" in evs:
            client = _first(evs.loc[evs["actor"] == member, "client_id"])
        out[member] = member_label(member, host, client)
    seen: dict[str, int] = {}
    for label in out.values():
        seen[label] = seen.get(label, 0) + 1
    for member, label in list(out.items()):
        if seen[label] > 1:  # two members with one host and one tail: show the whole id
            out[member] = str(member)
    return out
