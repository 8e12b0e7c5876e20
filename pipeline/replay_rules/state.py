"""Mutable records the collecting pass fills in; turned into table rows at the end."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

# the suffixes log rotation adds to a log file's name (".log", ".json", ".txt", ".out"): a number
# (log4j 1.x RollingFileAppender "app.log.1", log4j2/logback "%i", logrotate "app.log.2"), a date
# (log4j DailyRollingFileAppender "app.log.2024-03-13", "%d{yyyy-MM-dd-HH}", logrotate dateext
# "app.log-20240313"), then a compression (".gz", ".bz2", ".xz", ".zst")
_ROTATED = re.compile(r"(.+\.(?:log|json|jsonl|ndjson|txt|out|err))"
                      r"(?:\.\d{1,4}|[.-]\d{4}-?\d{2}-?\d{2}(?:[-_T]\d{2}(?:-?\d{2}){0,2})?)?(?:\.(?:gz|bz2|xz|zst))?")


@lru_cache(maxsize=4096)
def stream_source(source: str | None) -> str | None:
    """The log a file is part of: its name without the suffixes rotation adds ("app.log.1",
    "app.log.2.gz" and "app.log" are one log: one process's lines in time order, on one clock). The
    collector follows a client by (this, client id), so a member whose lines continue in the next
    rotated file stays one stream (before, its leave in "app.log" after its join in "app.log.1" was
    another, unnamed consumer's). Other names are kept as they are."""
    m = _ROTATED.fullmatch(source) if source else None
    return m[1] if m else source


ORIGIN = "origin"   # Event.extra key: where a line came from in a file of several (parsers/origin.py)


def _file_stream(ev: Any) -> str | None:
    return stream_source(ev.source)


def _file_name(ev: Any) -> str | None:
    return ev.source


def stream_namer(events: Any, rotation: bool = True) -> Any:
    """The function naming each event's stream for one group's replay: the log it is part of
    (stream_source), and, in a file whose lines carry several origins living at the same time, also
    the line's origin ("all.log [pod/orders-1/app]"): `kubectl logs --prefix`, stern, `docker
    compose logs`, collectors' JSON records, syslog/journald headers and Spring Boot's PID name each
    line's pod, container, host or process (parsers/origin.py), so each is one process's stream and
    the collector follows it as it follows a file of its own. A file with one origin keeps its name;
    so does a file whose origins follow one another (a process restarted into the same file with a
    new PID: the collector's restart rules read it as before). A line without an origin in a split
    file stays under the file's name (if such lines are of several processes, mixed_streams proves it
    and leaves them out). `rotation=False`: the file's own name, not its rotated log's."""
    spans: dict[str | None, dict[str, list[int | None]]] = {}
    for ev in events:
        x = ev.extra
        if not x or ev.side != "client":
            continue
        o = x.get(ORIGIN)
        if o is None:
            continue
        per = spans.get(ev.source)
        if per is None:
            per = spans[ev.source] = {}
        ts = ev.ts_ms
        span = per.get(o)
        if span is None:
            per[o] = [ts, ts]
        elif ts is not None:
            if span[0] is None or ts < span[0]:
                span[0] = ts
            if span[1] is None or ts > span[1]:
                span[1] = ts
    split = {src for src, per in spans.items() if len(per) > 1 and _overlap(list(per.values()))}
    if not split:
        return _file_stream if rotation else _file_name

    def named(ev: Any) -> str | None:
        src = stream_source(ev.source) if rotation else ev.source
        if ev.source in split:
            x = ev.extra
            o = x.get(ORIGIN) if x else None
            if o is not None:
                return f"{src} [{o}]"
        return src

    return named


def _overlap(spans: list[list[int | None]]) -> bool:
    """Do two of these (first, last) time spans overlap (an untimed one counts as overlapping)?"""
    if any(a is None or b is None for a, b in spans):
        return True
    spans = sorted(spans)  # type: ignore[arg-type]
    return any(spans[i + 1][0] <= spans[i][1] for i in range(len(spans) - 1))  # type: ignore[operator]


@dataclass(slots=True)
class Membership:
    """One member in one generation."""

    generation: int
    member_id: str
    client_id: str | None = None
    instance_id: str | None = None
    host: str | None = None
    is_leader: bool = False
    joined_ms: int | None = None
    synced_ms: int | None = None
    assigned: list[str] | None = None
    revoked: list[str] = field(default_factory=list)
    left_ms: int | None = None
    leave_reason: str | None = None
    leave_ev: str | None = None
    join_start_ms: int | None = None     # when this member began the JoinGroup that led here
    join_start_ev: str | None = None
    join_reason: str | None = None
    stream: tuple[str, str | None] | None = None
    replaced: str | None = None          # the member id this static member took over mid-generation
    inferred: str | None = None          # broker-only member: stated | carried | extended (broker_members.py)
    client_library: str | None = None    # java | librdkafka | kafkajs | ... from its own client lines (None: unknown)
    client_version: str | None = None    # the library's version where its log states it (librdkafka's INIT line)
    evidence: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Gen:
    """One generation as observed from every side."""

    generation: int
    members: dict[str, Membership] = field(default_factory=dict)
    protocol_type: str | None = None
    protocol: str | None = None
    protocols_seen: dict[str, str] = field(default_factory=dict)   # protocol -> first evidence
    leader: str | None = None
    prepare_ms: int | None = None        # broker "Preparing to rebalance ... old generation g-1"
    prepare_ev: str | None = None
    prepare_reason: str | None = None
    completing_ms: int | None = None     # broker "Stabilized group ... generation g" (join phase done)
    completing_ev: str | None = None
    broker_member_count: int | None = None   # "Stabilized group ... with N members" (2.x+)
    assignment_map_seen: bool = False    # the leader's "Finished assignment ...: {every member=...}" (2.4+)
    stable_ms: int | None = None         # broker "Assignment received from leader" (Stable entered)
    stable_ev: str | None = None
    empty_ms: int | None = None          # broker "Group ... with generation g is now empty"
    empty_ev: str | None = None
    record_ms: int | None = None         # __consumer_offsets group metadata record
    record_ev: str | None = None
    dead_ms: int | None = None
    coordinator: str | None = None
    rebalance_in_progress: list[tuple[int, str]] = field(default_factory=list)  # clients told "rebalancing" (for g-1 -> g)
    evidence: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Stream:
    """One client's log stream: (source, client_id). Its clock is one host's clock."""

    source: str
    client_id: str | None
    member_id: str | None = None
    instance_id: str | None = None
    gen: int | None = None
    last_ms: int | None = None
    left: bool = False
    pending_join: tuple[int, str, str | None] | None = None
    join_sent: bool = False      # a "(Re-)joining group" line (the JoinGroup sent) since the last join
    owned: dict[str, tuple[int, str, int | None, str | None]] = field(default_factory=dict)
    coordinator: str | None = None
    stalled: Observation | None = None      # a poll timeout waiting for the poll loop to come back
    pseudo_n: int = 0                       # (re)starts of a client that logs no member id
    protocol: str | None = None             # the assignor of its last generation
    coord_lost: bool = False                # it lost its coordinator since it last joined
    subscribed: frozenset[str] | None = None  # the topics of its last "Subscribed to topic(s)" line
    # taken for a new process (collect._new_process): (old member id, the intervals closed as
    # process_gone, the rejoin's time and evidence, cooperative?) until its next join shows its id
    suspect: tuple[str, list[Any], int | None, str, bool] | None = None


@dataclass(slots=True)
class MemberLife:
    """Signs of life of one member id (across streams)."""

    member_id: str
    last_ms: int | None = None
    last_event: Any = None               # the Event itself: its evidence string is built only if used
    last_hb_ms: int | None = None
    last_hb_event: Any = None
    first_ms: int | None = None
    source: str | None = None
    client_id: str | None = None
    instance_id: str | None = None
    removed_ms: int | None = None        # broker removed it (session expiry, leave ...)
    removed_reason: str | None = None
    removed_ev: str | None = None
    alive_after_removal: list[str] = field(default_factory=list)   # evidence of activity after removal
    # silences between consecutive heartbeats longer than the gap floor: (start, end, start ev, end ev)
    hb_gaps: list[tuple[int, int, str | None, str]] = field(default_factory=list)
    events: list[Any] = field(default_factory=list)     # every sign of life (Events), in time order
    hb_events: list[Any] = field(default_factory=list)  # the heartbeats among them
    commit_credits: int = 0              # signs of life that are commit records of partitions it alone held
    client_library: str | None = None    # a non-Java client's library/version hint from its own lines
    client_version: str | None = None

    @property
    def last_ev(self) -> str | None:
        return self.last_event.evidence if self.last_event is not None else None

    @property
    def last_hb_ev(self) -> str | None:
        return self.last_hb_event.evidence if self.last_hb_event is not None else None

    def next_after(self, t: int) -> int | None:
        """The first sign of life strictly after t (the end of a silence), if the member came back."""
        i = bisect.bisect_right(self.events, t, key=_ts)
        return self.events[i].ts_ms if i < len(self.events) else None

    def last_before(self, t: int) -> Any:
        """The member's last heartbeat at or before t, else its last sign of life of any kind (an Event)."""
        for evs in (self.hb_events, self.events):
            i = bisect.bisect_right(evs, t, key=_ts)
            if i:
                return evs[i - 1]
        return None


@dataclass(slots=True)
class Interval:
    topic_partition: str
    member_id: str | None
    client_id: str | None
    generation: int | None
    start_ms: int
    start_ev: str
    end_ms: int | None = None
    end_reason: str | None = None
    end_ev: str | None = None
    source: str | None = None
    # the end is the time a line was printed, which a binding's log queue delays to the application's
    # next poll() (reasons.delivered_late): the member gave the partition up earlier, by up to that delay
    end_late: bool = False
    # the interval is the replay's inference from a generation's assignment (the owner's own log shows
    # no partition callbacks: ownership.from_assignments, static_handover), not a consumer's own lines
    inferred: bool = False


@dataclass(slots=True)
class Observation:
    """A fact kept for the finding rules (expiries, fencing, commit failures, coordinator moves ...)."""

    kind: str
    ts_ms: int | None
    evidence: list[str]
    member_id: str | None = None
    generation: int | None = None
    facts: dict[str, Any] = field(default_factory=dict)


def _ts(ev: Any) -> int:
    return ev.ts_ms


def static_id_of(member_id: str, instance_id: str) -> bool:
    """Whether `member_id` is one the coordinator made for static member `instance_id`: the instance
    id + "-" + a UUID (GroupCoordinator / GroupMetadataManager generateMemberId, 2.3+), which names
    the instance of a member only the leader's assignment map names."""
    return member_id.startswith(instance_id + "-") and len(member_id) == len(instance_id) + 37
