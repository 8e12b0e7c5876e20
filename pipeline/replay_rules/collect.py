"""The collecting pass: deduplicate, order, and fold one group's events into generations,
memberships, member lives, ownership intervals and observations.

Ordering: events are sorted by time, but every cross-host conclusion is drawn from generation
numbers and per-stream (single-clock) order, so a few seconds of skew between hosts do not change
which generation an event belongs to.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter
from typing import Any

from parsers.events import Event
from pipeline.replay_rules.lazy_text import iter_raw, raw_slices, replace_fields
from pipeline.replay_rules.reasons import (
    ASSIGNMENT_FROM_LEADER,
    PREPARE_OLD_GEN,
    STATIC_REPLACE,
    classify_leave,
    classify_prepare_reason,
    classify_removal,
    delivered_late,
)
from pipeline.replay_rules.settings import normalize_assignor
from pipeline.replay_rules.state import (
    Gen,
    Interval,
    MemberLife,
    Membership,
    Observation,
    Stream,
    _file_stream,
    static_id_of,
    stream_namer,
    stream_source,
)

JOINED_FRESH = "joined the group (consumer protocol, from UNSUBSCRIBED)"
# kinds logged by the consumer's own (poll) thread, not its heartbeat thread
_MAIN_THREAD = frozenset({"partitions_revoked", "partitions_lost", "partitions_assigned", "join_started",
                          "offset_committed", "offset_commit_failed", "offset_fetched", "sync_succeeded",
                          "join_succeeded", "generation_reset", "offset_fetch_sent", "assignment_started"})
# a prepare reason's member: "joined" enters generation N+1; "rejoined" is in N and N+1; "removed" is
# in N only (reasons.py lists the GroupCoordinator wordings)
_PREPARE_ROLE = {"member_joined": "joined", "static_member_restart": "joined", "leader_rejoin": "rejoined",
                 "metadata_or_subscription_change": "rejoined", "cooperative_follow_up": "rejoined",
                 "enforced_rebalance": "rejoined", "session_expiry": "removed", "member_left": "removed",
                 "poll_timeout": "removed"}
# commits the broker stored (no member named): see Collector._credit_holder
_COMMIT_RECORDS = frozenset({"offset_record", "broker_offset_committed"})
_MEMBER_COUNT = re.compile(r"with (\d+) members")
FENCING_ERRORS = ("FENCED_INSTANCE_ID", "FencedInstanceId")
STALE_ERRORS = ("ILLEGAL_GENERATION", "UNKNOWN_MEMBER_ID", "REBALANCE_IN_PROGRESS", "CommitFailed",
                "IllegalGeneration", "UnknownMemberId", "RebalanceInProgress")
EXPELLED_ERRORS = ("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION", "UnknownMemberId", "IllegalGeneration")


def dedupe_and_order(events: Iterable[Event]) -> tuple[list[Event], int, list[str]]:
    """Drop lines ingested twice (same raw text and time from another source: a copy of the file, or
    another part of the same rotated log), give untimed lines the time of the line before them in
    their source, and sort by (time, source, line).

    The n-th occurrence of a (raw, ts) pair in one source matches the n-th occurrence in another,
    so a file that legitimately repeats a line keeps every repetition. The source that sorts first
    keeps its evidence. Returns (events, duplicates dropped, evidence of the dropped copies)."""
    by_source: dict[str, list[Event]] = {}
    # Copies are found on a sample that two copies of one file share: its first lines and the lines
    # whose text hashes to 0 mod 16 (the same lines in every copy), so most lines cost no lookup.
    owner: dict[str, str] = {}
    sampled: dict[str, int] = {}
    pairs: dict[tuple[str, str], int] = {}
    untimed = False
    events = events if isinstance(events, list) else list(events)
    for part, texts in raw_slices(events):    # texts left in Arrow: a slice at a time
        for ev, raw in zip(part, texts, strict=True):
            src = ev.source
            lst = by_source.get(src)
            if lst is None:
                lst = by_source[src] = []
            lst.append(ev)
            if ev.line_no <= 64 or not hash(raw) & 15:
                sampled[src] = sampled.get(src, 0) + 1
                first = owner.setdefault(raw, src)
                if first != src:
                    pairs[(first, src)] = pairs.get((first, src), 0) + 1
            if ev.ts_ms is None:
                untimed = True
    sources = sorted(by_source)
    for src in sources:
        by_source[src].sort(key=_line_no)    # linear when already in line order
    # two sources are copies of one file when at least half the sampled lines of the smaller one recur
    # in the other; hosts that happen to log one identical line (old clients print no ids) are not
    # (the parts of one rotated log are not copies of each other: _rotation_overlaps finds what they share)
    copies = {(a, b) for (a, b), n in pairs.items() if 2 * n >= min(sampled[a], sampled[b])
              and stream_source(a) != stream_source(b)}
    in_copies = {x for pair in copies for x in pair}
    overlap = _rotation_overlaps(by_source)
    if not in_copies and not untimed and not overlap:
        kept = [ev for src in sources for ev in by_source[src]]
        kept.sort(key=_ts_only)
        return kept, 0, []
    kept: list[Event] = []
    dropped: list[str] = []
    nth: dict[tuple[str, str, int | None], int] = {}
    first_source: dict[tuple[str, int | None, int], str] = {}
    for src in sources:
        last_ts = None
        mine = by_source[src]
        copied = src in in_copies
        head = overlap.get(src, 0)
        for i, (ev, raw) in enumerate(zip(mine, iter_raw(mine) if copied else repeat(""), strict=False)):
            ts = ev.ts_ms
            if i < head:
                dropped.append(ev.evidence)
                continue
            if copied:
                k = (src, raw, ts)
                n = nth.get(k, 0)
                nth[k] = n + 1
                first = first_source.setdefault((raw, ts, n), src)
                if first != src and ((first, src) in copies or (src, first) in copies):
                    dropped.append(ev.evidence)
                    continue
            if ts is None:
                if last_ts is not None:
                    ev = replace_fields(ev, ts_ms=last_ts, extra={**ev.extra, "ts_inferred": True})
            else:
                last_ts = ts
            kept.append(ev)
    # stable sort by time keeps (source, line) order among equal times; untimed lines at the start
    # of a source (nothing to inherit) go first
    kept.sort(key=_ts_key)
    return kept, len(dropped), dropped


_line_no = attrgetter("line_no")


def _rotation_overlaps(by_source: dict[str, list[Event]]) -> dict[str, int]:
    """source -> how many of its first events repeat the last events of another part of the same
    rotated log (state.stream_source: "app.log.1" then "app.log"). The newer part may begin with the
    older one's last lines (logrotate's copytruncate copies lines the application writes meanwhile;
    a shipper reads a rotated file's tail again): those lines, and only those, count once. Only a
    run of whole events at the seam is dropped: a line repeated elsewhere (a burst of identical
    lines in one millisecond) is the application's, kept."""
    parts: dict[str | None, list[str]] = {}
    for src in by_source:
        parts.setdefault(stream_source(src), []).append(src)
    out: dict[str, int] = {}
    for same in parts.values():
        if len(same) < 2:
            continue
        keys = {src: [(raw, ev.ts_ms) for ev, raw in zip(by_source[src], iter_raw(by_source[src]), strict=True)]
                for src in same}
        same.sort()
        for i, x in enumerate(same):
            for y in same[i + 1:]:
                # (a part that is both the other's tail and head, a whole copy, loses it once: the
                # one whose name sorts last)
                k_xy, k_yx = _seam(keys[x], keys[y]), _seam(keys[y], keys[x])
                if k_xy and k_xy >= k_yx:
                    out[y] = max(out.get(y, 0), k_xy)
                elif k_yx:
                    out[x] = max(out.get(x, 0), k_yx)
    return out


def _seam(a: list[tuple[str, int | None]], b: list[tuple[str, int | None]]) -> int:
    """The length of the longest tail of `a` that `b` begins with."""
    if not a or not b:
        return 0
    for p in range(max(0, len(a) - len(b)), len(a)):
        if a[p] == b[0] and a[p:] == b[:len(a) - p]:
            return len(a) - p
    return 0


def _ts_key(ev: Event) -> int:
    ts = ev.ts_ms
    return -1 if ts is None else ts


_ts_only = attrgetter("ts_ms")


@dataclass
class GroupState:
    group_id: str | None
    gens: dict[int, Gen] = field(default_factory=dict)
    streams: dict[tuple[str, str | None], Stream] = field(default_factory=dict)
    lives: dict[str, MemberLife] = field(default_factory=dict)
    intervals: list[Interval] = field(default_factory=list)
    obs: list[Observation] = field(default_factory=list)
    # (kind, ts, topic, partition, offset, member, reason, Event), in time order
    offsets: list[tuple[str, int, str, int, int | None, str | None, str | None, Event]] = field(default_factory=list)
    coordinator: str | None = None
    coordinators: dict[str, str] = field(default_factory=dict)   # "id" | "address" -> last seen
    broker_gen: int | None = None
    first_ms: int | None = None
    last_ms: int | None = None
    last_ev: str | None = None
    n_events: int = 0
    duplicates: int = 0
    instance_of: dict[str, str] = field(default_factory=dict)   # member id -> group.instance.id
    # source -> client id -> the assignors its ConsumerConfig offers, in order (None: a custom class)
    assignors: dict[str, dict[str | None, tuple[str | None, ...]]] = field(default_factory=dict)
    pseudo_ids: set[str] = field(default_factory=set)          # names given to members that log no id
    # evidence -> its stream ("FILE [ORIGIN]") for the lines of a file split by origin: whose clock timed it
    clock_of: dict[str, str] = field(default_factory=dict)
    by_kind: dict[str, list[Observation]] = field(default_factory=dict)   # obs indexed after the pass
    # the evidence ("source:line") of lines whose time a clock step leaves uncertain
    # (pipeline.timeline_corrections marks them): nothing is timed by them
    clock_uncertain: frozenset[str] = frozenset()

    def index(self) -> None:
        self.by_kind = {}
        for ob in self.obs:
            self.by_kind.setdefault(ob.kind, []).append(ob)

    def observed(self, kind: str) -> list[Observation]:
        return self.by_kind.get(kind, [])


class Collector:
    """Folds ordered events into a GroupState. One instance per group; no shared state."""

    def __init__(self, group_id: str | None, session_timeout_ms: int, heartbeat_interval_ms: int = 3000,
                 stream_of: Any = None) -> None:
        self.st = GroupState(group_id)
        # event -> the name of its log stream: the file, or "FILE [ORIGIN]" in a file of several
        # processes whose lines name their origin (state.stream_namer; made from the events in run)
        self.stream_of = stream_of
        self.session_timeout_ms = session_timeout_ms
        self._stable_seen: set[tuple[int, str]] = set()
        # partition -> the streams whose process holds it now (a commit record names no member)
        self._holders: dict[str, list[Stream]] = {}
        # (time, member ids) of the last group metadata record listing the members (a dump's)
        self._roster: tuple[int | None, set[str]] | None = None
        # heartbeat silences shorter than this are ordinary jitter, not worth keeping
        self.gap_floor_ms = max(2 * heartbeat_interval_ms, 5_000)
        # kind -> handler, as functions of the class (bound methods held by the instance would make a
        # reference cycle: the group's whole state would wait for the cyclic collector, paused in workers)
        cls = type(self)
        self._dispatch = {
            "heartbeat_succeeded": cls._heartbeat_ok,
            "heartbeat_sent": cls._heartbeat_ok,          # DEBUG "Sending Heartbeat request" (parsers, additive kind)
            "rebalance_started": cls._join_started,       # Connect WorkerCoordinator "Rebalance started"
            "broker_member_fenced": cls._broker_member_fenced,
            "broker_offset_committed": cls._offset,
            "broker_offset_commit_failed": cls._offset_commit_failed,
            "heartbeat_failed": cls._heartbeat_failed,
            "join_started": cls._join_started,
            "join_succeeded": cls._join_succeeded,
            "join_failed": cls._join_failed,
            "sync_succeeded": cls._sync_succeeded,
            "sync_failed": cls._sync_failed,
            "assignment_received": cls._assignment_received,
            "partitions_assigned": cls._partitions_assigned,
            "partitions_revoked": cls._partitions_revoked,
            "partitions_lost": cls._partitions_lost,
            "leave_group": cls._leave_group,
            "poll_timeout": cls._poll_timeout,
            "member_fenced": cls._member_fenced,
            "generation_reset": cls._touch,
            "rebalance_failed": cls._touch,
            "member_state_changed": cls._member_state_changed,
            "subscription_changed": cls._subscription_changed,
            "coordinator_discovered": cls._coordinator_discovered,
            "coordinator_lost": cls._coordinator_lost,
            "offset_committed": cls._offset,
            "offset_commit_failed": cls._offset_commit_failed,
            "offset_fetched": cls._offset,
            # a request, a failure, the leader's computation: the member's sign of life, no offset or assignment
            "offset_fetch_sent": cls._touch,
            "offset_fetch_failed": cls._touch,
            "assignment_started": cls._touch,
            "no_committed_offset": cls._offset,
            "offset_reset": cls._offset,
            "offset_seek": cls._offset,
            "offset_record": cls._offset,
            "describe_row": cls._describe_row,
            "broker_rebalance_preparing": cls._broker_preparing,
            "broker_group_stabilized": cls._broker_stabilized,
            "broker_assignment_received": cls._broker_assignment,
            "broker_member_removed": cls._broker_member_removed,
            "broker_member_joined": cls._broker_member_joined,
            "broker_group_empty": cls._broker_group_empty,
            "broker_group_dead": cls._broker_group_dead,
            "broker_group_loaded": cls._broker_group_loaded,
            "broker_group_unloaded": cls._broker_group_unloaded,
            "group_metadata_record": cls._group_metadata_record,
            "tombstone": cls._tombstone,
            "client_config": cls._client_config,
        }

    # ---------------------------------------------------------------- driver
    def run(self, ordered: list[Event]) -> GroupState:
        st = self.st
        if self.stream_of is None:
            self.stream_of = stream_namer(ordered)
        if self.stream_of is not _file_stream:
            # a file split by its lines' origins holds several hosts' clocks: each line's, by its evidence
            name = self.stream_of
            st.clock_of = {ev.evidence: n for ev in ordered
                           if ev.side == "client" and (n := name(ev)) != stream_source(ev.source)}
        dispatch = self._dispatch
        touch = type(self)._touch
        for ev in ordered:
            ts = ev.ts_ms
            if ts is not None:
                if st.first_ms is None:
                    st.first_ms = ts
                if st.last_ms is None or ts >= st.last_ms:
                    st.last_ms, st.last_ev = ts, None
            dispatch.get(ev.kind, touch)(self, ev)
        st.n_events = len(ordered)
        st.clock_uncertain = frozenset(ev.evidence for ev in ordered if "clock_uncertain_ms" in ev.extra)
        if ordered:
            st.last_ev = ordered[-1].evidence
        self._libraries_from_lives()
        st.index()
        return st

    def _libraries_from_lives(self) -> None:
        """A client whose join line names no generation (KafkaJS: `Consumer has joined the group` has
        none) leaves its memberships without a client line: its member id's other lines say which
        library (and version hint) it runs."""
        for gen in self.st.gens.values():
            for mid, m in gen.members.items():
                lf = self.st.lives.get(mid)
                if lf is None or lf.client_library is None:
                    continue
                if m.client_library is None:
                    m.client_library = lf.client_library
                if m.client_version is None:
                    m.client_version = lf.client_version

    # ---------------------------------------------------------------- helpers
    def gen(self, g: int) -> Gen:
        rec = self.st.gens.get(g)
        if rec is None:
            rec = self.st.gens[g] = Gen(g)
        return rec

    def membership(self, g: int, member_id: str, ev: Event | None = None, stream: Stream | None = None) -> Membership:
        gen = self.gen(g)
        m = gen.members.get(member_id)
        if m is None:
            m = gen.members[member_id] = Membership(g, member_id)
        if stream is not None:
            m.stream = (stream.source, stream.client_id)
            m.client_id = m.client_id or stream.client_id
            m.host = m.host or stream.source
            m.instance_id = m.instance_id or stream.instance_id
        if ev is not None:
            m.evidence.append(ev.evidence)
            if ev.side == "client" and m.client_library is None:
                # a Java client's events name no library (parsers: client_library is None for them)
                m.client_library = ev.client_library or "java"
            if ev.side == "client" and m.client_version is None and ev.extra:
                m.client_version = ev.extra.get("client_version")
            if ev.instance_id and not m.instance_id:
                m.instance_id = ev.instance_id
            host = ev.extra.get("host") or ev.extra.get("client_host") if ev.extra else None
            if host and ev.side != "client":
                m.host = m.host or str(host)
        return m

    def stream(self, ev: Event) -> Stream:
        key = (self.stream_of(ev), ev.client_id)
        s = self.st.streams.get(key)
        if s is None:
            s = self.st.streams[key] = Stream(key[0], ev.client_id)
        if ev.member_id and ev.member_id != s.member_id:
            s.member_id = ev.member_id
            s.left = False
        if ev.instance_id:
            s.instance_id = ev.instance_id
        return s

    def life(self, member_id: str) -> MemberLife:
        lf = self.st.lives.get(member_id)
        if lf is None:
            lf = self.st.lives[member_id] = MemberLife(member_id)
        return lf

    def _alive(self, s: Stream, ev: Event, heartbeat: bool = False) -> None:
        ts = ev.ts_ms
        s.last_ms = ts
        if s.stalled is not None and ev.kind in _MAIN_THREAD:
            # the poll loop is back: the end of the stall that caused a poll timeout
            s.stalled.facts["resumed_ms"], s.stalled.facts["resumed_ev"] = ts, ev.evidence
            s.stalled = None
        mid = s.member_id
        if mid is None:
            return
        lf = self.st.lives.get(mid)
        if lf is None:
            lf = self.life(mid)
        if lf.first_ms is None:
            lf.first_ms, lf.source, lf.client_id = ts, s.source, s.client_id
            lf.instance_id = s.instance_id
        lf.last_ms, lf.last_event = ts, ev
        if ev.side == "client" and ev.client_library:
            lf.client_library = lf.client_library or ev.client_library
            if ev.extra and ev.extra.get("client_version"):
                # the latest: a hint bounded by the wordings seen so far (KafkaJS) only tightens
                lf.client_version = ev.extra["client_version"]
        if ts is not None:
            lf.events.append(ev)
            if heartbeat:
                prev = lf.last_hb_ms
                if prev is not None and ts - prev > self.gap_floor_ms:
                    lf.hb_gaps.append((prev, ts, lf.last_hb_ev, ev.evidence))
                lf.last_hb_ms, lf.last_hb_event = ts, ev
                lf.hb_events.append(ev)
            if lf.removed_ms is not None and ts > lf.removed_ms and len(lf.alive_after_removal) < 5:
                lf.alive_after_removal.append(ev.evidence)

    def _touch(self, ev: Event) -> None:
        if ev.side == "client":
            self._alive(self.stream(ev), ev)

    # ---------------------------------------------------------------- client rules
    def _client_config(self, ev: Event) -> None:
        """ConsumerConfig values (AbstractConfig.logAll, every version): the assignors this process
        offers in its JoinGroup, in preference order (ConsumerCoordinator.metadata, 0.9+)."""
        self._touch(ev)
        settings = ev.extra.get("settings") if ev.extra else None
        text = settings.get("partition.assignment.strategy") if isinstance(settings, dict) else None
        if not text:
            return
        names = []
        for item in str(text).strip().strip("[]").split(","):
            if not item.strip():
                continue
            try:
                names.append(normalize_assignor(item))
            except ValueError:
                names.append(None)     # a custom assignor: its protocol name is not in the config
        self.st.assignors.setdefault(self.stream_of(ev), {})[ev.client_id] = tuple(names)

    def _heartbeat_ok(self, ev: Event) -> None:
        # the most frequent line of a DEBUG client log: keep this path short
        if ev.client_library is not None and ev.kind == "heartbeat_sent" and delivered_late(ev):
            return  # printed when the application next polled: its time says nothing of the heartbeat's
        s = self.st.streams.get((self.stream_of(ev), ev.client_id))
        if s is None or (ev.member_id and ev.member_id != s.member_id) or ev.instance_id:
            s = self.stream(ev)
        self._alive(s, ev, heartbeat=True)

    def _heartbeat_failed(self, ev: Event) -> None:
        s = self.stream(ev)
        self._alive(s, ev)
        err = (ev.error or "") + " " + (ev.reason or "")
        # 0.9-2.8 print no error name: "Attempt to heartbeat failed since group is rebalancing"
        # (1.0-2.8), "... for group G since it is rebalancing." (0.10-0.11), "... since the group is
        # rebalancing, try to re-join group." (0.9), AbstractCoordinator.HeartbeatResponseHandler
        told = "is rebalancing" in (ev.raw or "")
        if told or "REBALANCE_IN_PROGRESS" in err or "rebalanc" in err.lower():
            # AbstractCoordinator.HeartbeatResponseHandler: REBALANCE_IN_PROGRESS -> the group is
            # already preparing the next generation; the client rejoins
            if s.gen is not None:
                self.gen(s.gen + 1).rebalance_in_progress.append((ev.ts_ms or 0, ev.evidence))
        if any(e in err for e in FENCING_ERRORS):
            self._fenced(ev, s)
        elif any(e in err for e in EXPELLED_ERRORS):
            self.st.obs.append(Observation("expelled_seen", ev.ts_ms, [ev.evidence], s.member_id, s.gen,
                                           {"error": ev.error}))

    def _new_process(self, s: Stream, ev: Event) -> None:
        """Notice that a client's log now comes from a new process (restart): the old member is gone.

        A client that left, or fell silent beyond its session, starts over with a new member id. And
        a live eager member revokes everything before it rejoins (ConsumerCoordinator.onJoinPrepare
        logs the revocation before AbstractCoordinator's "(Re-)joining group", 0.9+) and rediscovers
        its coordinator only after losing it; so a join or a discovery from a stream still holding
        partitions, without those steps, is a new process on the same host."""
        if ev.member_id or ev.reason:
            # "Request joining group due to: ..." (3.0+) comes from a live member, before its revocation
            return
        eager_holding = bool(s.owned) and s.gen is not None and not (s.protocol or "").startswith("cooperative")
        silent = s.last_ms is not None and ev.ts_ms is not None and ev.ts_ms - s.last_ms > self.session_timeout_ms
        fresh = s.left or silent or (eager_holding and (ev.kind != "coordinator_discovered" or not s.coord_lost))
        if not fresh:
            return
        # whatever the old process still held ends with it (refined to its expiry afterwards)
        closed: list[Interval] = []
        if s.owned and s.last_ms is not None:
            last = Event(s.source, 0, "client", "process_gone", "", ts_ms=s.last_ms)
            n = len(self.st.intervals)
            self._close(s, list(s.owned), last, "process_gone")
            closed = self.st.intervals[n:]
        # kept until its next join: the same member id back means the same process (a restarted
        # one gets a new id), only quiet in its log (_same_process); pre-1.0 ids are our own names
        old = s.member_id
        s.suspect = ((old, closed, ev.ts_ms, ev.evidence, (s.protocol or "").startswith("cooperative"))
                     if closed and old is not None and old not in self.st.pseudo_ids else None)
        s.member_id, s.gen, s.left, s.coord_lost = None, None, False, False

    def _same_process(self, s: Stream, member_id: str | None) -> None:
        """A join by the member id that _new_process took for a gone process: that process was
        alive, its log only quiet (heartbeats and commits are DEBUG lines; a cooperative member
        that rejoins on its own logs nothing before "(Re-)joining group" in 2.4-3.0). What it held
        was not dropped at its last line: an eager member gave it up when it rejoined (onJoinPrepare
        revokes everything; the line is not in these logs), a cooperative one kept it."""
        if s.suspect is None:
            return
        old, closed, ts, evidence, cooperative = s.suspect
        s.suspect = None
        if member_id != old:
            return
        # an eager member revokes in onJoinPrepare, just before its "(Re-)joining group": when the line
        # taken for a new process's came before that (a coordinator discovery whose "coordinator is
        # unavailable" line is not in the log: a lossy shipper), it held its partitions until then
        if s.pending_join is not None and ts is not None and s.pending_join[0] > ts:
            ts, evidence = s.pending_join[0], s.pending_join[1]
        reopened: set[int] = set()
        for iv in closed:
            if cooperative and iv.topic_partition not in s.owned:
                reopened.add(id(iv))
                s.owned[iv.topic_partition] = (iv.start_ms, iv.start_ev, iv.generation, iv.member_id)
                self._holders.setdefault(iv.topic_partition, []).append(s)
            elif not cooperative and ts is not None:
                iv.end_ms, iv.end_reason, iv.end_ev = ts, "revoked", evidence
        if reopened:    # one pass over the intervals, not one per reopened partition
            self.st.intervals[:] = [x for x in self.st.intervals if id(x) not in reopened]

    def _join_started(self, ev: Event) -> None:
        s = self.stream(ev)
        self._new_process(s, ev)
        if not ev.reason:
            s.join_sent = True
        if s.pending_join is None:
            s.pending_join = (ev.ts_ms or 0, ev.evidence, ev.reason)
        elif s.pending_join[2] is None and ev.reason:
            # "(Re-)joining group" and "Request joining group due to: <reason>" come in either order
            # (3.x; KIP-394's "need to re-join with the given member-id" after the first): one join,
            # timed by its first line, with the reason its lines give
            s.pending_join = (s.pending_join[0], s.pending_join[1], ev.reason)
        if s.gen is not None and ev.reason and "already rebalancing" in ev.reason:
            # "Request joining group due to: group is already rebalancing" (AbstractCoordinator's
            # heartbeat handler, 3.0+) and "offset commit failed since group is already rebalancing"
            # (ConsumerCoordinator, 3.0+): the member was told REBALANCE_IN_PROGRESS, as a failed
            # heartbeat line says it
            self.gen(s.gen + 1).rebalance_in_progress.append((ev.ts_ms or 0, ev.evidence))
        self._alive(s, ev)

    def _join_succeeded(self, ev: Event) -> None:
        s = self.stream(ev)
        g = ev.generation
        if g is not None and ev.member_id is None and s.member_id is None:
            # clients before 1.0 log no member id: name the process after its log stream, one name per
            # (re)start; pipeline.replay_rules.aliases later swaps in the real id where the broker's or
            # a dump's records identify it
            s.pseudo_n += 1
            s.member_id = f"{s.client_id or 'consumer'}@{s.source}" + (f"#{s.pseudo_n}" if s.pseudo_n > 1 else "")
            self.st.pseudo_ids.add(s.member_id)
        self._alive(s, ev)
        mid = ev.member_id or s.member_id
        self._same_process(s, ev.member_id)
        if g is None or g < 1 or mid is None:   # -1 is AbstractCoordinator.Generation.NO_GENERATION
            return
        prev = s.gen
        s.coord_lost = False
        if ev.protocol:
            s.protocol = ev.protocol
        if prev is not None and g < prev:
            self.st.obs.append(Observation("generation_backwards", ev.ts_ms, [ev.evidence], mid, g,
                                           {"previous_generation": prev}))
        s.gen = g
        m = self.membership(g, mid, ev, s)
        m.joined_ms = m.joined_ms if m.joined_ms is not None else ev.ts_ms
        if m.instance_id:
            # a static member that restarts while the group is Stable gets a new member id in the same
            # generation, without a rebalance (GroupCoordinator.updateStaticMemberAndRebalance, 2.3+)
            for other in self.gen(g).members.values():
                # (a member named only by the leader's map shows its instance in its id)
                same = other.instance_id == m.instance_id or (
                    other.instance_id is None and static_id_of(other.member_id, m.instance_id))
                if other is not m and same and other.left_ms is None \
                        and (other.joined_ms or 0) <= (m.joined_ms or 0):
                    other.left_ms, other.leave_reason, other.leave_ev = ev.ts_ms, "static_replaced", ev.evidence
                    m.replaced = other.member_id
        s.join_sent = False
        if s.pending_join is not None:
            m.join_start_ms, m.join_start_ev, m.join_reason = s.pending_join
            m.evidence.append(m.join_start_ev)
            s.pending_join = None
        gen = self.gen(g)
        if ev.protocol:
            gen.protocols_seen.setdefault(ev.protocol, ev.evidence)
            gen.protocol = gen.protocol or ev.protocol
        self._leader_facts(gen, mid, ev)
        if ev.coordinator:
            gen.coordinator = gen.coordinator or ev.coordinator
        elif s.coordinator:
            gen.coordinator = gen.coordinator or s.coordinator

    def _leader_facts(self, gen: Gen, mid: str, ev: Event) -> None:
        x = ev.extra
        if not x:
            return
        leader = x.get("leader") or x.get("leader_id")
        if leader:
            gen.leader = str(leader)
        if x.get("is_leader") is True:
            gen.leader = mid
        assignments = x.get("assignments") or x.get("assignment")
        if isinstance(assignments, dict):
            # ConsumerCoordinator (2.4+, leader only): "Finished assignment for group at generation N: {...}"
            gen.leader = gen.leader or mid
            gen.assignment_map_seen = True
            for member, parts in assignments.items():
                mm = self.membership(gen.generation, str(member))   # not `ev`: its instance id is the leader's
                mm.evidence.append(ev.evidence)
                if mm.assigned is None:
                    mm.assigned = sorted(map(str, parts or []))

    def _member_state_changed(self, ev: Event) -> None:
        """KIP-848 consumer protocol (3.7+ AsyncKafkaConsumer, MembershipManager): no generations; the
        member epoch is the group epoch of the assignment it reconciles, so each epoch a member
        reaches is taken as its generation (docs/replay.md)."""
        s = self.stream(ev)
        self._alive(s, ev)
        x = ev.extra or {}
        to = str(x.get("to_state") or x.get("new_state") or x.get("state") or "").upper()
        mid, epoch = ev.member_id or s.member_id, ev.member_epoch
        if mid is None:
            return
        if to in ("LEAVING", "PREPARE_LEAVING", "UNSUBSCRIBED") and s.gen is not None:
            m = self.membership(s.gen, mid, ev, s)
            if m.left_ms is None:
                m.left_ms, m.leave_reason, m.leave_ev = ev.ts_ms, "left", ev.evidence
            self._close(s, list(s.owned), ev, "left")
            return
        if to == "FENCED":
            self._fenced(ev, s)
            return
        if to == "JOINING":
            frm = str(x.get("from_state") or x.get("old_state") or "").upper()
            if s.pending_join is None:
                why = JOINED_FRESH if frm in ("UNSUBSCRIBED", "") else f"rejoining from {frm}"
                s.pending_join = (ev.ts_ms or 0, ev.evidence, why)
            return
        if epoch is None or epoch <= 0 or to not in ("RECONCILING", "ACKNOWLEDGING", "STABLE"):
            return
        if s.gen is None or epoch > s.gen:
            s.gen = epoch
        m = self.membership(epoch, mid, ev, s)
        gen = self.gen(epoch)
        gen.protocol_type = gen.protocol_type or "consumer (KIP-848)"
        if m.joined_ms is None:
            m.joined_ms = ev.ts_ms
            if s.pending_join is not None:
                m.join_start_ms, m.join_start_ev, m.join_reason = s.pending_join
                s.pending_join = None
        if to == "STABLE" and (epoch, mid) not in self._stable_seen:
            # the member acknowledged its assignment for this epoch: its "sync"
            self._stable_seen.add((epoch, mid))
            m.synced_ms = ev.ts_ms

    def _join_failed(self, ev: Event) -> None:
        s = self.stream(ev)
        self._alive(s, ev)
        err = f"{ev.error or ''} {ev.reason or ''}"
        if "INCONSISTENT_GROUP_PROTOCOL" in err or "InconsistentGroupProtocol" in err:
            self.st.obs.append(Observation("inconsistent_protocol", ev.ts_ms, [ev.evidence], s.member_id, s.gen,
                                           {"error": ev.error, "client_id": ev.client_id, "protocol": ev.protocol}))
        elif any(e in err for e in FENCING_ERRORS):
            self._fenced(ev, s)
        elif "MEMBER_ID_REQUIRED" in err and ev.member_id:
            s.member_id = ev.member_id

    def _sync_succeeded(self, ev: Event) -> None:
        s = self.stream(ev)
        self._alive(s, ev)
        g = ev.generation if ev.generation is not None else s.gen
        mid = ev.member_id or s.member_id
        if g is None or g < 1 or mid is None:
            return
        # a sync of a generation this stream has no join line of, after a join it began: that join's
        # "Successfully joined" line is not in the log (lost), its JoinGroup response came before this
        # SyncGroup (AbstractCoordinator.JoinGroupResponseHandler -> sendSyncGroupRequest, 0.9+): the
        # begun join is this generation's
        lost_join = ev.generation is not None and (s.gen is None or g > s.gen) and s.pending_join is not None
        if s.gen is None or g > s.gen:
            s.gen = g
        m = self.membership(g, mid, ev, s)
        if lost_join:
            if m.join_start_ms is None and m.joined_ms is None:
                m.join_start_ms, m.join_start_ev, m.join_reason = s.pending_join
                m.evidence.append(m.join_start_ev)
            s.pending_join, s.join_sent = None, False
        if m.synced_ms is None:
            m.synced_ms = ev.ts_ms
        if ev.protocol:
            gen = self.gen(g)
            gen.protocols_seen.setdefault(ev.protocol, ev.evidence)
            gen.protocol = gen.protocol or ev.protocol
        self._leader_facts(self.gen(g), mid, ev)

    def _sync_failed(self, ev: Event) -> None:
        s = self.stream(ev)
        self._alive(s, ev)
        err = f"{ev.error or ''} {ev.reason or ''}"
        if any(e in err for e in FENCING_ERRORS):
            self._fenced(ev, s)

    def _assignment_received(self, ev: Event) -> None:
        s = self.stream(ev)
        self._alive(s, ev)
        g = ev.generation if ev.generation is not None else s.gen
        if ev.extra and isinstance(ev.extra.get("assignments"), dict) and g is not None and s.member_id:
            # the leader's "Finished assignment for group at generation N: {member=Assignment(...)}"
            self._leader_facts(self.gen(g), s.member_id, ev)
            return
        if s.gen is None or s.member_id is None or ev.partitions is None:
            return
        m = self.membership(ev.generation if ev.generation is not None else s.gen, s.member_id, ev, s)
        m.assigned = sorted(ev.partitions)

    def _partitions_assigned(self, ev: Event) -> None:
        s = self.stream(ev)
        self._alive(s, ev)
        ts = ev.ts_ms or 0
        if s.join_sent and s.gen is not None:
            # an assignment after "(Re-)joining group" with no "Successfully joined" line since, in a log
            # that has them (AbstractCoordinator logs one per join, 0.9+): the join's line is lost, and
            # this assignment is of a later generation than the last one logged, which one is unknown
            s.gen, s.pending_join, s.join_sent = None, None, False
        for tp in ev.partitions or ():
            if tp not in s.owned:
                s.owned[tp] = (ts, ev.evidence, s.gen, s.member_id)
                self._holders.setdefault(tp, []).append(s)
        if s.gen is not None and s.member_id is not None:
            m = self.membership(s.gen, s.member_id, ev, s)
            if m.synced_ms is None:
                m.synced_ms = ev.ts_ms
            # the member's whole assignment in this generation is what it owns after the callback;
            # a line that does not list its partitions (librdkafka without debug=cgrp) leaves an
            # unknown assignment unknown, not empty. "Notifying assignor about the new Assignment(...)"
            # (ConsumerCoordinator.onJoinComplete, 2.6+) lists the whole new assignment itself, before a
            # cooperative member revokes what it loses: that list, not what it owns at that moment
            if ev.partitions is not None and ev.extra and ev.extra.get("rule") == "notifying_assignor_about_the_new":
                m.assigned = sorted(ev.partitions)
            elif (ev.partitions is not None or s.owned) and (m.assigned is None or not set(s.owned) <= set(m.assigned)):
                m.assigned = sorted(s.owned)

    def _close(self, s: Stream, tps: Iterable[str], ev: Event, reason: str) -> list[str]:
        closed = []
        for tp in tps:
            got = s.owned.pop(tp, None)
            if got is None:
                continue
            holders = self._holders.get(tp)
            if holders and s in holders:
                holders.remove(s)
            start, sev, g, mid = got
            end, eev, late = ev.ts_ms, ev.evidence, delivered_late(ev)
            lf = self.st.lives.get(mid) if mid else None
            if lf is not None and lf.removed_reason in ("left", "poll_timeout") and lf.removed_ms is not None \
                    and end is not None and start is not None and start <= lf.removed_ms < end:
                # a member sends LeaveGroup after giving its partitions up (Java: onPartitionsRevoked/
                # Lost before maybeLeaveGroup; librdkafka: the assignment is revoked as lost when
                # MAXPOLL leaves): a client line printed later (a binding's log queue, served when the
                # application next polls) does not extend its ownership past the broker's removal
                end, eev, late = lf.removed_ms, lf.removed_ev or ev.evidence, False
            self.st.intervals.append(Interval(tp, mid, s.client_id, g, start, sev, end, reason, eev,
                                              s.source, late))
            closed.append(tp)
        return closed

    def _partitions_revoked(self, ev: Event, reason: str = "revoked") -> None:
        s = self.stream(ev)
        self._alive(s, ev)
        parts = list(ev.partitions) if ev.partitions is not None else list(s.owned)
        self._close(s, parts, ev, reason)
        if s.gen is not None and s.member_id is not None and parts:
            m = self.membership(s.gen, s.member_id, ev, s)
            m.revoked.extend(p for p in parts if p not in m.revoked)

    def _partitions_lost(self, ev: Event) -> None:
        self._partitions_revoked(ev, "lost")

    def _leave_group(self, ev: Event) -> None:
        s = self.stream(ev)
        stalled = s.stalled
        self._alive(s, ev)
        why = classify_leave(ev.reason, ev.raw)
        if why == "left" and stalled is not None and stalled.member_id in (None, ev.member_id or s.member_id):
            # a reason-less "leaving" line right after the member's poll timeout, its poll loop not back
            # yet: the heartbeat thread's leave of that timeout (kafka-python base.py HeartbeatThread:
            # "Consumer poll timeout has expired ..." then "Leaving consumer group g (member m).")
            why = "poll_timeout"
        mid = ev.member_id or s.member_id
        if mid is not None and s.gen is not None:
            m = self.membership(s.gen, mid, ev, s)
            if m.left_ms is None:
                m.left_ms, m.leave_reason, m.leave_ev = ev.ts_ms, why, ev.evidence
            elif m.leave_reason == "left" and why != "left":
                # the broker's "has left" line (2.x prints no client reason) came first: the client's
                # own line says why (shutdown, poll timeout ...)
                m.leave_reason = why
                m.leave_ev = m.leave_ev or ev.evidence
        self.st.obs.append(Observation("leave", ev.ts_ms, [ev.evidence], mid, s.gen, {"why": why, "reason": ev.reason}))
        # the member gave up its partitions with its membership (the broker reassigns them now);
        # a callback logged later by the same process cannot extend that
        self._close(s, list(s.owned), ev, why)
        s.left = True

    def _poll_timeout(self, ev: Event) -> None:
        s = self.stream(ev)
        self._alive(s, ev)
        mid = ev.member_id or s.member_id
        if mid is not None and s.gen is not None:
            m = self.membership(s.gen, mid, ev, s)
            if m.left_ms is None or m.leave_reason != "poll_timeout":
                # the broker's removal line may come first: a client whose lines are printed when the
                # application next polls (librdkafka through a binding's log queue) logs its poll
                # timeout after the LeaveGroup it sent; the member left at the earlier time
                left = ev.ts_ms
                if m.left_ms is not None and ev.ts_ms is not None and m.leave_reason == "left" and m.left_ms < ev.ts_ms:
                    left = m.left_ms  # the broker's reason-less LeaveGroup line
                m.left_ms, m.leave_reason, m.leave_ev = left, "poll_timeout", ev.evidence
        ob = Observation("poll_timeout", ev.ts_ms, [ev.evidence], mid, s.gen,
                         {"client_id": s.client_id, "source": s.source})
        self.st.obs.append(ob)
        s.stalled = ob
        if not (ev.instance_id or s.instance_id):
            # a dynamic member leaves the group when its poll timeout expires (the heartbeat thread's
            # maybeLeaveGroup, KIP-62, 0.10.1+; librdkafka's MAXPOLL leave): its partitions are the
            # broker's to reassign from then, whatever callback the application logs when it next
            # polls (a static member sends no LeaveGroup: AbstractCoordinator.isDynamicMember)
            self._close(s, list(s.owned), ev, "poll_timeout")

    def _fenced(self, ev: Event, s: Stream) -> None:
        self.st.obs.append(Observation("fenced", ev.ts_ms, [ev.evidence], ev.member_id or s.member_id, s.gen,
                                       {"instance_id": ev.instance_id or s.instance_id, "error": ev.error,
                                        "client_id": s.client_id}))

    def _member_fenced(self, ev: Event) -> None:
        s = self.stream(ev)
        self._alive(s, ev)
        self._fenced(ev, s)

    def _subscription_changed(self, ev: Event) -> None:
        s = self.stream(ev)
        self._alive(s, ev)
        # KafkaConsumer.subscribe (0.9+) logs "Subscribed to topic(s): ..." on every call, the first of a
        # (re)started process too: only a call naming other topics than the stream's last one changes
        # the subscription (a static member's restart with the same topics starts no rebalance, KIP-345)
        text = str((ev.extra or {}).get("topics") or "")
        topics = frozenset(t.strip() for t in text.split(",") if t.strip()) or None
        before = s.subscribed
        s.subscribed = topics or before
        if before is None or topics is None or topics == before:
            return
        self.st.obs.append(Observation("subscription_changed", ev.ts_ms, [ev.evidence], s.member_id, s.gen, {}))

    def _coordinator_change(self, ev: Event, new: str | None, how: str) -> None:
        st = self.st
        if new is None:
            return
        # a broker id and a host:port cannot be compared: each kind of name is followed on its own
        space = "id" if new.isdigit() else "address"
        old = st.coordinators.get(space)
        if old is not None and new != old:
            st.obs.append(Observation("coordinator_change", ev.ts_ms, [ev.evidence], None, st.broker_gen,
                                      {"from": old, "to": new, "how": how}))
        st.coordinators[space] = new
        st.coordinator = new

    def _coordinator_discovered(self, ev: Event) -> None:
        s = self.stream(ev)
        if s.gen is not None:
            self._new_process(s, ev)
        self._alive(s, ev)
        coord = _node_of(ev.coordinator, ev.extra)
        if coord is not None:
            s.coordinator = coord
            self._coordinator_change(ev, coord, "discovered by a client")

    def _coordinator_lost(self, ev: Event) -> None:
        s = self.stream(ev)
        s.coord_lost = True
        self._alive(s, ev)
        self.st.obs.append(Observation("coordinator_lost", ev.ts_ms, [ev.evidence], s.member_id, s.gen,
                                       {"coordinator": ev.coordinator, "reason": ev.reason}))

    # ---------------------------------------------------------------- offsets
    def _offset(self, ev: Event) -> None:
        if ev.side == "client":
            # a busy consumer's commits are the second most frequent line: the stream lookup inline
            s = self.st.streams.get((self.stream_of(ev), ev.client_id))
            if s is None or (ev.member_id and ev.member_id != s.member_id) or ev.instance_id:
                s = self.stream(ev)
            self._alive(s, ev)
            mid = s.member_id
        else:
            mid = ev.member_id
        ts = ev.ts_ms
        if ts is None or ts < 0:
            return   # an untimed snapshot (a describe row) cannot be ordered against commits
        if ev.side != "client" and ev.kind in _COMMIT_RECORDS:
            self._credit_holder(ev)
        topic, part = ev.topic, ev.partition
        if topic is not None and part is not None and not ev.extra.get("offsets"):
            self.st.offsets.append((ev.kind, ts, topic, part, ev.offset, mid, ev.reason or ev.error, ev))
            return
        kind, why = ev.kind, ev.reason or ev.error
        many = ev.extra.get("offsets") if ev.extra else None
        if isinstance(many, dict) and len(many) > 1:
            # one commit of several partitions ({t-0=OffsetAndMetadata{offset=6, ...}, ...})
            for tp, off in many.items():
                topic, _, p = str(tp).rpartition("-")
                if topic and p.isdigit() and isinstance(off, int):
                    self.st.offsets.append((kind, ts, topic, int(p), off, mid, why, ev))
            return
        topic, part = ev.topic, ev.partition
        if (topic is None or part is None) and ev.partitions and len(ev.partitions) == 1:
            topic, _, p = ev.partitions[0].rpartition("-")
            part = int(p) if p.isdigit() else None
        if topic is None or part is None:
            return
        # the Event itself rides along: its evidence string is built only for a finding
        self.st.offsets.append((kind, ts, topic, part, ev.offset, mid, why, ev))

    def _credit_holder(self, ev: Event) -> None:
        """A commit stored by the broker (a __consumer_offsets record, a broker commit line) names no
        member (OffsetCommitValue has no member field, all versions), but the coordinator accepts a
        group commit only from a current member (GroupCoordinator.handleCommitOffsets: generation
        check), and a consumer commits only partitions it holds. So a commit of a partition that
        exactly one live process holds is that process's sign of life: it was still processing."""
        ts = ev.ts_ms
        if ts is None:
            return
        tps = [f"{ev.topic}-{ev.partition}"] if ev.topic is not None and ev.partition is not None else []
        many = ev.extra.get("offsets") if ev.extra else None
        if isinstance(many, dict):
            tps.extend(str(tp) for tp in many)
        credited: set[int] = set()
        for tp in tps:
            holders = self._holders.get(tp)
            if not holders or len(holders) != 1:
                continue
            s = holders[0]
            if id(s) in credited or s.left or (s.last_ms is not None and ts < s.last_ms):
                continue
            lf = self.st.lives.get(s.member_id) if s.member_id else None
            if lf is not None and lf.removed_ms is not None and ts > lf.removed_ms:
                # the broker removed that member before: a commit now is a later owner's (whose log is
                # not in the input), as the coordinator takes no group commit from a removed member
                continue
            roster = self._roster
            if roster is not None and roster[0] is not None and roster[0] <= ts and s.member_id \
                    and s.member_id not in roster[1]:
                continue   # the group's last member list (a group metadata record) no longer has it
            credited.add(id(s))
            s.last_ms = ts
            if lf is not None:
                lf.last_ms, lf.last_event = ts, ev
                lf.events.append(ev)
                lf.commit_credits += 1

    def _offset_commit_failed(self, ev: Event) -> None:
        s = self.stream(ev) if ev.side == "client" else None
        if s is not None:
            self._alive(s, ev)
        err = f"{ev.error or ''} {ev.reason or ''} {ev.raw}"
        if any(e in err for e in STALE_ERRORS) or "generation" in err.lower() or "rebalanc" in err.lower():
            self.st.obs.append(Observation(
                "stale_commit", ev.ts_ms, [ev.evidence], ev.member_id or (s.member_id if s else None),
                ev.generation if ev.generation is not None else (s.gen if s else None),
                {"error": ev.error, "reason": ev.reason, "partitions": list(ev.partitions or ()),
                 "topic": ev.topic, "partition": ev.partition, "offset": ev.offset}))
        if ev.offset is not None or (ev.extra and ev.extra.get("offsets")):
            self._offset(ev)

    def _describe_row(self, ev: Event) -> None:
        self.st.obs.append(Observation("describe", ev.ts_ms, [ev.evidence], ev.member_id, None,
                                       {"topic": ev.topic, "partition": ev.partition, "client_id": ev.client_id}))
        if ev.offset is not None:
            self._offset(ev)

    # ---------------------------------------------------------------- broker rules
    def _broker_preparing(self, ev: Event) -> None:
        # GroupCoordinator.prepareRebalance: "Preparing to rebalance group G in state S with old
        # generation N (...) (reason: R)"; the generation being prepared is N+1
        m = PREPARE_OLD_GEN.search(ev.raw or "")
        if m:
            old = int(m.group(1))
        elif ev.extra and ev.extra.get("old_generation") is not None:
            old = int(ev.extra["old_generation"])
        elif ev.generation is not None:
            old = ev.generation
        else:
            return
        if old < 0:
            return
        if old >= 1:
            # generation N existed (the broker says so) even when no other line of it is in the logs
            before = self.gen(old)
            if not before.evidence:
                before.evidence.append(ev.evidence)
        g = self.gen(old + 1)
        if g.prepare_ms is None:
            g.prepare_ms, g.prepare_ev, g.prepare_reason = ev.ts_ms, ev.evidence, ev.reason
            g.coordinator = g.coordinator or _node_of(ev.coordinator, ev.extra)
            cause, member, _ = classify_prepare_reason(ev.reason)
            role = _PREPARE_ROLE.get(cause)
            if member and role:
                # the member the reason names: which of the two generations it belongs to
                self.st.obs.append(Observation("broker_named", ev.ts_ms, [ev.evidence], member, old + 1,
                                               {"role": role}))
        g.evidence.append(ev.evidence)
        self.st.broker_gen = old
        self._coordinator_change(ev, _node_of(ev.coordinator, ev.extra), "broker log")

    def _broker_stabilized(self, ev: Event) -> None:
        # GroupCoordinator.onCompleteJoin: "Stabilized group G generation N" when the join phase
        # completes (CompletingRebalance), before the leader's SyncGroup
        if ev.generation is None or ev.generation < 1:
            return
        g = self.gen(ev.generation)
        if g.completing_ms is None:
            g.completing_ms, g.completing_ev = ev.ts_ms, ev.evidence
            n = _MEMBER_COUNT.search(ev.raw or "")
            if n:
                g.broker_member_count = int(n.group(1))
        g.evidence.append(ev.evidence)
        g.coordinator = g.coordinator or _node_of(ev.coordinator, ev.extra)
        self.st.broker_gen = ev.generation
        self._coordinator_change(ev, _node_of(ev.coordinator, ev.extra), "broker log")

    def _broker_epoch(self, ev: Event) -> None:
        """KIP-848 consumer groups (GroupMetadataManager 3.8+): "[GroupId G] Member X new assignment
        state: epoch=N, previousEpoch=M, state=S, assignedPartitions=..." The member epoch is the group
        epoch of the assignment the member now holds, as on the client side (_member_state_changed):
        each epoch becomes a generation row; state STABLE is the member's "sync"."""
        epoch, mid = ev.member_epoch, ev.member_id
        if epoch is None or epoch <= 0 or not mid:
            return
        x = ev.extra or {}
        gen = self.gen(epoch)
        gen.protocol_type = gen.protocol_type or "consumer (KIP-848)"
        gen.evidence.append(ev.evidence)
        m = self.membership(epoch, mid, ev)
        m.joined_ms = m.joined_ms if m.joined_ms is not None else ev.ts_ms
        if str(x.get("member_state") or "").upper() == "STABLE" and m.synced_ms is None:
            m.synced_ms = ev.ts_ms
        parts = _partition_list(x.get("assigned"))
        if parts is not None and m.assigned is None:
            m.assigned = parts
        self.st.obs.append(Observation("broker_named", ev.ts_ms, [ev.evidence], mid, epoch, {"role": "epoch"}))

    def _broker_assignment(self, ev: Event) -> None:
        # GroupCoordinator.handleSyncGroup: "Assignment received from leader [X] for group G for
        # generation N" -> setAndPropagateAssignment, the group becomes Stable
        if ev.generation is None and ev.member_epoch is not None:
            self._broker_epoch(ev)
            return
        g_no = ev.generation if ev.generation is not None else self.st.broker_gen
        if g_no is None or g_no < 1:
            return
        g = self.gen(g_no)
        if g.stable_ms is None:
            g.stable_ms, g.stable_ev = ev.ts_ms, ev.evidence
        g.evidence.append(ev.evidence)
        m = ASSIGNMENT_FROM_LEADER.search(ev.raw or "")
        leader = (m.group(1) if m else None) or ev.member_id or (ev.extra.get("leader") if ev.extra else None)
        if leader:
            g.leader = str(leader)
            self.st.obs.append(Observation("broker_named", ev.ts_ms, [ev.evidence], g.leader, g_no, {"role": "leader"}))
        self.st.broker_gen = g_no

    def _broker_member_removed(self, ev: Event) -> None:
        mid = ev.member_id
        if mid is None:
            return
        if "Pending member" in (ev.raw or ""):
            # GroupCoordinator 2.2+ (KIP-394): a member id handed out with MEMBER_ID_REQUIRED whose
            # JoinGroup never came back ("Pending member X ... removed after session timeout
            # expiration", "... is leaving", "... has left through explicit LeaveGroup"): it never
            # was in a generation, so it neither left one nor was expelled from one
            self.st.obs.append(Observation("pending_removed", ev.ts_ms, [ev.evidence], mid, self.st.broker_gen, {}))
            return
        why = classify_removal(ev.reason, ev.raw)
        lf = self.life(mid)
        if lf.removed_ms is None or (ev.ts_ms is not None and ev.ts_ms > lf.removed_ms + self.session_timeout_ms):
            lf.removed_ms, lf.removed_reason, lf.removed_ev = ev.ts_ms, why, ev.evidence
            lf.alive_after_removal = []
        g = self.st.broker_gen
        if g is not None and g in self.st.gens:
            mem = self.st.gens[g].members.get(mid)
            if mem is not None and mem.left_ms is None:
                mem.left_ms, mem.leave_reason, mem.leave_ev = ev.ts_ms, why, ev.evidence
                mem.evidence.append(ev.evidence)
        self.st.obs.append(Observation("removed", ev.ts_ms, [ev.evidence], mid, g, {"why": why}))

    def _broker_member_joined(self, ev: Event) -> None:
        m = STATIC_REPLACE.search(ev.raw or "")
        old_id = ev.extra.get("old_member_id") if ev.extra else None
        if m is None and old_id and ev.instance_id:
            # GroupCoordinator 2.7+ / GroupMetadataManager: "Static member with groupInstanceId=I and
            # unknown member id joins group G in Stable state. Replacing previously mapped member OLD
            # with this groupInstanceId." (the new id is named later, e.g. as the leader)
            self.st.instance_of[str(old_id)] = ev.instance_id
            self.st.obs.append(Observation("static_replaced", ev.ts_ms, [ev.evidence], str(old_id), self.st.broker_gen,
                                           {"instance_id": ev.instance_id, "new_member": None, "old_member": old_id}))
            lf = self.life(str(old_id))
            lf.removed_ms, lf.removed_reason, lf.removed_ev = ev.ts_ms, "fenced", ev.evidence
            lf.alive_after_removal = []
        if m:
            # GroupCoordinator.updateStaticMemberAndRebalance (2.3+): the old member id is fenced
            instance, new, old = m.group(1), m.group(2), m.group(3)
            self.st.instance_of[new] = instance
            self.st.instance_of[old] = instance
            self.st.obs.append(Observation("static_replaced", ev.ts_ms, [ev.evidence], old, self.st.broker_gen,
                                           {"instance_id": instance, "new_member": new, "old_member": old}))
            lf = self.life(old)
            lf.removed_ms, lf.removed_reason, lf.removed_ev = ev.ts_ms, "fenced", ev.evidence
            lf.alive_after_removal = []
        elif ev.member_id and ev.instance_id:
            self.st.instance_of[ev.member_id] = ev.instance_id
        # "Dynamic member with unknown member id joins group G in S state. Created a new member id X"
        # (GroupCoordinator 2.4+, GroupMetadataManager 3.6+), "Pending dynamic member with id X joins"
        # (3.0+), a static member's new id: X joins the generation the group forms next
        new_id = m.group(2) if m else ev.member_id
        if new_id:
            self.st.obs.append(Observation("broker_named", ev.ts_ms, [ev.evidence], new_id, None, {"role": "joined"}))

    def _broker_member_fenced(self, ev: Event) -> None:
        # GroupCoordinator / GroupMetadataManager: a static member fenced by a newer one (FENCED_INSTANCE_ID)
        self.st.obs.append(Observation("fenced", ev.ts_ms, [ev.evidence], ev.member_id, self.st.broker_gen,
                                       {"instance_id": ev.instance_id, "error": ev.error or "FENCED_INSTANCE_ID"}))

    def _broker_group_empty(self, ev: Event) -> None:
        if ev.generation is None:
            return
        g = self.gen(ev.generation)
        g.empty_ms, g.empty_ev = ev.ts_ms, ev.evidence
        g.evidence.append(ev.evidence)
        self.st.broker_gen = ev.generation

    def _broker_group_dead(self, ev: Event) -> None:
        g = ev.generation if ev.generation is not None else self.st.broker_gen
        if g is not None and g in self.st.gens:
            rec = self.st.gens[g]
            rec.dead_ms = rec.dead_ms or ev.ts_ms
            rec.evidence.append(ev.evidence)
        self.st.obs.append(Observation("group_dead", ev.ts_ms, [ev.evidence], None, g, {}))

    def _broker_group_loaded(self, ev: Event) -> None:
        node = _node_of(ev.coordinator, ev.extra)
        self.st.obs.append(Observation("group_loaded", ev.ts_ms, [ev.evidence], None, ev.generation,
                                       {"coordinator": node}))
        self._coordinator_change(ev, node, "group loaded by a broker")

    def _broker_group_unloaded(self, ev: Event) -> None:
        self.st.obs.append(Observation("group_unloaded", ev.ts_ms, [ev.evidence], None, ev.generation,
                                       {"coordinator": _node_of(ev.coordinator, ev.extra)}))

    def _group_metadata_record(self, ev: Event) -> None:
        # GroupMetadataManager.storeGroup: written when the leader's assignment is stored (Stable)
        if ev.generation is None:
            return
        g = self.gen(ev.generation)
        if g.record_ms is None:
            g.record_ms, g.record_ev = ev.ts_ms, ev.evidence
        g.evidence.append(ev.evidence)
        x = ev.extra or {}
        g.protocol = g.protocol or ev.protocol or x.get("protocol")
        g.protocol_type = g.protocol_type or x.get("protocol_type")
        if x.get("leader"):
            g.leader = str(x["leader"])
        listed = x.get("members")
        if isinstance(listed, list):
            g.broker_member_count = len(listed)
            # the group's members from then on (until a later record): whose commits _credit_holder may credit
            self._roster = (ev.ts_ms, {str(m.get("member_id") or m.get("memberId") or "") if isinstance(m, dict)
                                       else str(m) for m in listed})
            if not listed and g.empty_ms is None:
                # the record of a group with no members: written when the join phase completes with
                # nobody left (GroupCoordinator.onCompleteJoin -> Empty, 0.11+)
                g.empty_ms, g.empty_ev = ev.ts_ms, ev.evidence
        for item in x.get("members") or ():
            if isinstance(item, dict):
                mid = item.get("member_id") or item.get("memberId")
                if not mid:
                    continue
                mm = self.membership(ev.generation, str(mid), ev)
                mm.client_id = mm.client_id or item.get("client_id") or item.get("clientId")
                mm.instance_id = mm.instance_id or item.get("instance_id") or item.get("groupInstanceId")
                # the coordinator's clientHost names the host; a client stream's only its file
                mm.host = item.get("host") or item.get("clientHost") or mm.host
                parts = item.get("assignment") or item.get("partitions")
                if parts is not None and mm.assigned is None:
                    mm.assigned = sorted(map(str, parts))
            elif item:
                self.membership(ev.generation, str(item), ev)

    def _tombstone(self, ev: Event) -> None:
        if ev.topic is None:   # a group metadata tombstone: the group was deleted
            self.st.obs.append(Observation("group_dead", ev.ts_ms, [ev.evidence], None, self.st.broker_gen, {}))


_MAX_INT = 2147483647
_TP_LIST = re.compile(r"([^\s\[\]{},=]+)-(\d+)")
_TOPIC_MAP = re.compile(r"([^\s\[\]{},=]+)=\[([\d,\s]*)\]")


def _partition_list(text: Any) -> list[str] | None:
    """"[t-0, t-1]" or "{t=[0, 1]}" (a topic name or id per key) -> ["t-0", "t-1"]; None if absent."""
    if text is None:
        return None
    if isinstance(text, (list, tuple)):
        return sorted(map(str, text))
    text = str(text)
    if "=" in text:
        return sorted(f"{t}-{p.strip()}" for t, ps in _TOPIC_MAP.findall(text) for p in ps.split(",") if p.strip())
    return sorted(f"{t}-{p}" for t, p in _TP_LIST.findall(text))


def _node_of(coordinator: Any, extra: dict[str, Any] | None) -> str | None:
    """A coordinator as a broker id where the line allows it. Clients connect to the coordinator under
    the id Integer.MAX_VALUE - broker id (AbstractCoordinator, 0.9+), printed as "(id: 2147483646 ...)"."""
    cid = extra.get("coordinator_id") if extra else None
    if isinstance(cid, str) and cid.lstrip("-").isdigit():
        cid = int(cid)
    if isinstance(cid, int):
        return str(_MAX_INT - cid) if cid > _MAX_INT // 2 else str(cid)
    if coordinator is not None:
        text = str(coordinator)
        m = _ID_IN_TEXT.search(text)
        if m:
            n = int(m.group(1))
            return str(_MAX_INT - n) if n > _MAX_INT // 2 else str(n)
        return text
    if extra:
        for k in ("coordinator", "broker_id", "node_id"):
            if extra.get(k) is not None:
                return str(extra[k])
    return None


_ID_IN_TEXT = re.compile(r"\(id: (\d+)")
