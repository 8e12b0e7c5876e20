"""Offset history per partition: ranges processed twice (rewind) and ranges never processed (skip).

A consumer resumes a partition from the group's committed offset (ConsumerCoordinator.refreshCommittedOffsets,
logged by ConsumerUtils/ConsumerCoordinator "Setting offset for partition X to the committed offset"); with
no committed offset, or one out of range, it resets per auto.offset.reset (SubscriptionState /
Fetcher "Resetting offset for partition X to position ..."). So:
  * a commit lower than the previous commit, or a resume position lower than what was already
    processed (a commit attempted but failed, e.g. CommitFailedException after a rebalance), means the
    records in between are processed twice;
  * a reset to a position above the last commit means the records in between are never processed.
Offsets from different hosts are compared only when their order is certain: same source, or more
than the clock-skew tolerance apart.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any

from pipeline.replay_rules.settings import EffectiveSettings
from pipeline.replay_rules.state import _file_stream

COMMITS = ("offset_committed", "offset_record", "describe_row")


@dataclass
class OffsetIssue:
    kind: str                 # offset_rewind | offset_skip
    topic: str
    partition: int
    from_offset: int          # first offset of the range (inclusive)
    to_offset: int            # end of the range (exclusive)
    start_ms: int
    end_ms: int
    members: list[str]
    evidence: list[str]
    how: str                  # plain words
    estimated: bool = False   # a bound no log line states (said so in `how` and in the finding)
    by_admin: bool = False    # the committed offset was moved while the group was empty (not by a member)


def position_kind(kind: str, event: Any) -> str:
    """0.9-1.0 Fetcher logs the committed offset a consumer resumes from as `Resetting offset for
    partition X to the committed offset N` (Fetcher.java 0.9.0.0-1.0.2, DEBUG): a fetched committed
    offset, not an auto.offset.reset jump."""
    if kind == "offset_reset" and "to the committed offset" in (getattr(event, "raw", None) or ""):
        return "offset_fetched"
    return kind


class _Mark:
    """A remembered offset: where it came from (the Event, for evidence and its host's clock)."""

    __slots__ = ("offset", "ts", "event", "member")

    def __init__(self, offset: int, ts: int, event: Any, member: str | None) -> None:
        self.offset, self.ts, self.event, self.member = offset, ts, event, member

    @property
    def ev(self) -> str:
        return self.event.evidence

    @property
    def source(self) -> str:
        return self.event.source


def analyse(records: list[tuple], cfg: EffectiveSettings,
            empty_spans: list[tuple[int, int]] | None = None, stream_of: Any = None) -> list[OffsetIssue]:
    """`records` in time order (the collecting pass appends them so). `empty_spans`: when the group
    had no members; a commit then comes from an administrator (kafka-consumer-groups --reset-offsets
    refuses to run against an active group, ConsumerGroupCommand 0.11+). `stream_of`: an event's log
    stream (state.stream_namer; by default its file)."""
    stream_of = stream_of or _file_stream
    # the members' own last commits can land just after the group emptied (commit on close, host
    # clocks): only a commit some seconds into an empty span is taken for an administrator's
    margin = max(cfg.skew_tolerance_ms, 5_000)
    spans = sorted((a + margin, b) for a, b in (empty_spans or []) if b > a + margin)

    def admin(ts: int) -> bool:
        return any(a <= ts < b for a, b in spans)

    by_tp: dict[tuple[str, int], list[tuple]] = {}
    for r in records:
        key = (r[2], r[3])
        lst = by_tp.get(key)
        if lst is None:
            lst = by_tp[key] = []
        lst.append(r)
    issues: list[OffsetIssue] = []
    skew = cfg.skew_tolerance_ms
    for (topic, part), rs in sorted(by_tp.items()):
        last_commit: _Mark | None = None
        high: _Mark | None = None
        no_commit = False
        seen: set[tuple[str, int, int]] = set()

        def emit(kind: str, lo: int, hi: int, first: _Mark, ts: int, event: Any, member: str | None, how: str,
                 by_admin: bool = False, seen: set = seen, topic: str = topic, part: int = part) -> None:
            key = (kind, lo, hi)
            if lo >= hi or key in seen:
                return
            seen.add(key)
            members = sorted({m for m in (first.member, member) if m})
            issues.append(OffsetIssue(kind, topic, part, lo, hi, first.ts, ts, members,
                                      [first.ev, event.evidence], how, by_admin=by_admin))

        for kind, ts, _t, _p, off, member, reason, event in rs:
            kind = position_kind(kind, event)
            if kind == "no_committed_offset":
                no_commit = True
                continue
            if off is None:
                continue
            if kind in COMMITS:
                if spans and last_commit is not None and admin(ts):
                    if off > last_commit.offset:
                        emit("offset_skip", last_commit.offset, off, last_commit, ts, event, member,
                             f"the committed offset was moved forward from {last_commit.offset} to {off} while the "
                             "group had no members (an administrator's offset reset)", by_admin=True)
                    elif high is not None and off < high.offset:
                        emit("offset_rewind", off, high.offset, high, ts, event, member,
                             f"the committed offset was moved back to {off} while the group had no members (an "
                             f"administrator's offset reset), although offsets up to {high.offset} had been processed",
                             by_admin=True)
                    last_commit = _Mark(off, ts, event, member)
                    high = last_commit
                    continue
                if last_commit is not None:
                    if off < last_commit.offset and (stream_of(last_commit.event) == stream_of(event)
                                                     or ts - last_commit.ts > skew):
                        emit("offset_rewind", off, last_commit.offset, last_commit, ts, event, member,
                             f"the committed offset went back from {last_commit.offset} to {off}")
                    if last_commit.offset == off and last_commit.member == member:
                        last_commit.ts, last_commit.event = ts, event    # a repeated commit: no new mark
                        continue
                last_commit = _Mark(off, ts, event, member)
                if high is None or off > high.offset:
                    high = last_commit
            elif kind == "offset_commit_failed":
                if high is None or off > high.offset:
                    high = _Mark(off, ts, event, member)
            elif kind in ("offset_fetched", "offset_seek"):
                # same host: its order is certain; another host: the resume follows the handover
                if high is not None and off < high.offset:
                    what = ("the application sought back to" if kind == "offset_seek"
                            else "a member resumed from the committed offset")
                    emit("offset_rewind", off, high.offset, high, ts, event, member,
                         f"{what} {off} although offsets up to {high.offset} had already been processed")
            elif kind == "offset_reset":
                if last_commit is None and no_commit and off > 0:
                    # SubscriptionState.resetInitializingPositions with no committed offset: a reset to a
                    # position above 0 is auto.offset.reset=latest unless retention already removed the
                    # older records; the range assumes the log starts at 0 (a new partition)
                    start = _Mark(0, ts, event, member)
                    emit("offset_skip", 0, off, start, ts, event, member,
                         f"with no committed offset the position was reset to {off} (auto.offset.reset=latest); "
                         "the range assumes the partition's log starts at 0 (an estimate: no line states the "
                         "log's start offset)")
                    if issues and issues[-1].kind == "offset_skip" and issues[-1].from_offset == 0:
                        issues[-1].estimated = True
                elif last_commit is not None and off > last_commit.offset:
                    emit("offset_skip", last_commit.offset, off, last_commit, ts, event, member,
                         f"the position was reset to {off} ({reason or 'auto.offset.reset'}) past the last "
                         f"committed offset {last_commit.offset}")
                elif high is not None and off < high.offset:
                    emit("offset_rewind", off, high.offset, high, ts, event, member,
                         f"the position was reset back to {off} ({reason or 'auto.offset.reset'}) although offsets "
                         f"up to {high.offset} had been processed")
    return issues


def auto_commit_by_source(events: Any, stream_of: Any = None) -> dict[str, bool]:
    """enable.auto.commit as each client log printed it (ConsumerConfig values:, AbstractConfig.logAll,
    all versions), by log stream (`stream_of`: state.stream_namer; by default the file); a stream
    that printed nothing is absent (Kafka's default is true, Spring's false)."""
    stream_of = stream_of or _file_stream
    out: dict[str, bool] = {}
    for ev in events:
        if ev.kind != "client_config" or stream_of(ev) in out:
            continue
        settings = ev.extra.get("settings") if ev.extra else None
        value = settings.get("enable.auto.commit") if isinstance(settings, dict) else None
        if value is not None and str(value).strip().lower() in ("true", "false"):
            out[stream_of(ev)] = str(value).strip().lower() == "true"
    return out


def poll_timeouts(observations: list) -> dict[str, list[int]]:
    """{member id: times it was seen leaving on a poll timeout} from the collected observations."""
    out: dict[str, list[int]] = {}
    for ob in observations:
        if ob.kind == "poll_timeout" and ob.member_id and ob.ts_ms is not None:
            out.setdefault(ob.member_id, []).append(ob.ts_ms)
    return out


class _EndedBefore:
    """The owner intervals of one partition that started before a given time, queried by their end:
    `latest(start, lo, hi)` is the interval that started before `start` and ended latest within
    [lo, hi] (the first in start order among equal ends), or None. The hand-overs are visited in
    start order, so the intervals are added once each: O(log n) per query instead of a scan of
    every interval per hand-over (quadratic on a long-lived, often rebalanced group)."""

    def __init__(self, owned: list) -> None:
        self.owned = owned                      # sorted by start_ms
        self.starts = [iv.start_ms for iv in owned]
        self.ends: list[tuple[int, int]] = []   # (end_ms, index in owned), sorted
        self.added = 0

    def latest(self, start: int, lo: int, hi: int) -> Any:
        upto = bisect.bisect_left(self.starts, start)
        while self.added < upto:
            iv = self.owned[self.added]
            if iv.end_ms is not None:
                bisect.insort(self.ends, (iv.end_ms, self.added))
            self.added += 1
        i = bisect.bisect_right(self.ends, (hi, len(self.owned)))
        if not i or self.ends[i - 1][0] < lo:
            return None
        first = bisect.bisect_left(self.ends, (self.ends[i - 1][0], -1))
        return self.owned[self.ends[first][1]]


def estimate_lost_progress(records: list[tuple], intervals: list, already: list[OffsetIssue],
                           cfg: EffectiveSettings | None = None,
                           auto_commit: dict[str, bool] | None = None,
                           poll_timeouts: dict[str, list[int]] | None = None,
                           stream_of: Any = None) -> list[OffsetIssue]:
    """Ranges processed twice after a hand-over, whose end no log line names.

    A new owner (another member, or the same member after it lost or gave up the partition) resumes
    from the last committed offset C (ConsumerCoordinator.refreshCommittedOffsetsIfNeeded, all
    versions; logged as `Setting offset for partition X to the committed offset C` 2.x+, or at DEBUG
    `Resetting offset for partition X to the committed offset C` 0.9-1.0; a 0.10 consumer logging at
    INFO says nothing, and C is then the last committed offset before its assignment). When the previous
    owner kept processing after its last commit (expelled, poll timeout, crash, a revocation without a
    commit), what it did after C is processed again. C is proven by the commit; the end is not logged:
    the old owner's pace (offsets per second between its own recent commits) times the time it kept
    working after that commit gives the likely end, and the range is marked estimated.
    An owner that gives the partition up in a rebalance commits first when enable.auto.commit=true
    (ConsumerCoordinator.onJoinPrepare, 0.9+), with enable.auto.commit=false only if the application
    commits in onPartitionsRevoked. A last commit clearly before the revocation (more than the clock
    skew tolerance) gives an estimated range; one within the tolerance counts as the commit on revocation unless the owner printed
    enable.auto.commit=false (then its periodic commit and the revocation cannot be told apart, and
    the range is estimated)."""
    stream_of = stream_of or _file_stream
    exact = {(i.topic, i.partition, i.from_offset) for i in already if i.kind == "offset_rewind"}
    skew = cfg.skew_tolerance_ms if cfg is not None else 2_000
    by_tp: dict[tuple[str, int], list[tuple]] = {}
    for r in records:
        if r[0] in COMMITS or position_kind(r[0], r[7]) == "offset_fetched":
            by_tp.setdefault((r[2], r[3]), []).append(r)
    ivs: dict[str, list] = {}
    for iv in intervals:
        ivs.setdefault(iv.topic_partition, []).append(iv)
    out: list[OffsetIssue] = []
    done: set[tuple[str, int, int]] = set()
    for (topic, part), rs in sorted(by_tp.items()):
        tp = f"{topic}-{part}"
        owned = sorted(ivs.get(tp, []), key=lambda iv: iv.start_ms)
        if len(owned) < 2:
            continue
        commits = [r for r in rs if r[0] in COMMITS and r[4] is not None and r[0] != "describe_row"]
        commit_ts = [r[1] for r in commits]
        fetched = [r for r in rs if r[0] not in COMMITS and r[4] is not None]
        fetched_ts = [r[1] for r in fetched]
        in_order = all(a <= b for a, b in zip(fetched_ts, fetched_ts[1:], strict=False))
        ended = _EndedBefore(owned)
        for new in owned[1:]:
            resume_ts = new.start_ms
            # the resume line of this owner, when it logged one (within a few seconds of its assignment);
            # the records come in time order (a bisection then, not a scan per owner)
            if in_order:
                near = fetched[bisect.bisect_left(fetched_ts, resume_ts - skew):
                               bisect.bisect_right(fetched_ts, resume_ts + 10_000)]
            else:
                near = [r for r in fetched if resume_ts - skew <= r[1] <= resume_ts + 10_000]
            line = next((r for r in near if stream_of(r[7]) == new.source or r[5] == new.member_id),
                        near[0] if near else None)
            if line is not None:
                resume_ts = line[1]
            # an expelled owner (a zombie) learns it lost the partition after the new owner took it
            old = ended.latest(new.start_ms, resume_ts - 600_000, resume_ts + 60_000)
            if old is None:
                continue
            # the commit it resumed from (made at the latest when the old owner revoked, before the new
            # assignment) may carry another host's (the broker's) clock. An owner expired by the
            # coordinator commits nothing after its expiry (GroupCoordinator answers UNKNOWN_MEMBER_ID)
            # and nobody else owns the partition until the new assignment: a later commit is the new
            # owner's own progress (a client committing after every batch, KafkaJS, makes one within
            # the tolerance)
            cap = resume_ts + skew
            if old.end_reason == "session_expiry" and old.end_ms is not None:
                cap = min(cap, old.end_ms + skew)
            i = bisect.bisect_right(commit_ts, cap)
            if not i:
                continue
            if line is not None:
                while i and commits[i - 1][4] != line[4]:   # commits after the resumed offset are not its source
                    i -= 1
                if not i:
                    continue
            last = commits[i - 1]
            c = last[4]
            if (topic, part, c) in exact or (topic, part, c) in done:
                continue
            stop = min(old.end_ms, resume_ts)
            if old.end_reason in ("session_expiry", "lost", "process_gone") and cfg is not None:
                # an expired member's last heartbeat reached the coordinator session.timeout.ms before
                # it expired the member (GroupCoordinator.onExpireHeartbeat), and it would have sent
                # the next one within heartbeat.interval.ms had it kept running: it stopped working in
                # [expiry - session, expiry - session + heartbeat): its middle is taken, and the range
                # is said to be estimated
                # (the window needs the expiry's own time; without it the hand-over bounds the stop)
                if old.end_reason == "session_expiry":
                    latest = old.end_ms - cfg.session_timeout_ms + max(cfg.heartbeat_interval_ms or 0, 0) // 2
                else:
                    latest = resume_ts - cfg.session_timeout_ms
                stop = min(stop, max(last[1], latest))
            expelled = old.end_reason in ("session_expiry", "lost", "process_gone", "log_end", "poll_timeout",
                                          "member_fenced", "generation_reset")
            if cfg is not None and old.member_id:
                # a member that left on a poll timeout (KIP-62 heartbeat thread, 0.10.1+) stopped polling
                # max.poll.interval.ms before: it fetched nothing after that
                left = [t for t in (poll_timeouts or {}).get(old.member_id, ()) if last[1] <= t <= resume_ts + skew]
                if left:
                    stop = min(stop, max(last[1], min(left) - cfg.max_poll_interval_ms))
            if expelled and stop <= last[1] and cfg is not None:
                # the owner's interval ends before its own last commit (a client that logs nothing
                # between its assignment and its death, 0.10 at INFO): it was alive at that commit and
                # gone session.timeout.ms before the coordinator expired it, before the hand-over
                stop = max(last[1], resume_ts - cfg.session_timeout_ms)
            if not expelled:
                # the last commit at the hand-over (within the clock-skew tolerance) is the commit on
                # revocation unless the owner printed enable.auto.commit=false
                if stop - last[1] <= skew and (auto_commit or {}).get(old.source or "", True):
                    continue
            worked = stop - last[1]
            pace = _pace(commits[max(0, i - 6):i])
            if pace is None or worked <= 0:
                continue
            n = int(pace * worked)
            if n <= 0:
                continue
            done.add((topic, part, c))
            members = sorted({m for m in (old.member_id, new.member_id) if m})
            ev = line[7].evidence if line is not None else new.start_ev
            how = (f"{old.member_id or 'the previous owner'} gave up the partition ({old.end_reason}) about "
                   f"{worked / 1000:.1f} s after the last commit at offset {c}; at its pace of {pace * 1000:.1f} "
                   f"records/s it had processed about {n} more, which {new.member_id or 'the next owner'} "
                   f"processed again from {c} (an estimate: no log line shows where the old owner stopped)")
            out.append(OffsetIssue("offset_rewind", topic, part, c, c + n, last[1], resume_ts, members,
                                   [last[7].evidence, ev], how, estimated=True))
    return out


def _pace(commits: list[tuple]) -> float | None:
    """Offsets per ms between the first and last of these commits (None if they do not advance)."""
    if len(commits) < 2:
        return None
    (t0, o0), (t1, o1) = (commits[0][1], commits[0][4]), (commits[-1][1], commits[-1][4])
    if t1 <= t0 or o1 <= o0:
        return None
    return (o1 - o0) / (t1 - t0)
