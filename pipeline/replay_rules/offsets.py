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

from dataclasses import dataclass

from pipeline.replay_rules.settings import EffectiveSettings

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


@dataclass
class _Mark:
    offset: int
    ts: int
    ev: str
    source: str
    member: str | None


def analyse(records: list[tuple], cfg: EffectiveSettings) -> list[OffsetIssue]:
    by_tp: dict[tuple[str, int], list[tuple]] = {}
    for r in records:
        by_tp.setdefault((r[2], r[3]), []).append(r)
    issues: list[OffsetIssue] = []
    for (topic, part), rs in sorted(by_tp.items()):
        rs.sort(key=lambda r: r[1])
        last_commit: _Mark | None = None
        high: _Mark | None = None
        seen: set[tuple[str, int, int]] = set()

        def order_certain(a: _Mark, ts: int, source: str) -> bool:
            return a.source == source or ts - a.ts > cfg.skew_tolerance_ms

        def emit(kind: str, lo: int, hi: int, first: _Mark, ts: int, ev: str, member: str | None, how: str,
                 seen: set = seen, topic: str = topic, part: int = part) -> None:
            key = (kind, lo, hi)
            if lo >= hi or key in seen:
                return
            seen.add(key)
            members = sorted({m for m in (first.member, member) if m})
            issues.append(OffsetIssue(kind, topic, part, lo, hi, first.ts, ts, members, [first.ev, ev], how))

        for kind, ts, _t, _p, off, member, reason, ev, source in rs:
            if off is None:
                continue
            if kind in COMMITS:
                if last_commit is not None and off < last_commit.offset and order_certain(last_commit, ts, source):
                    emit("offset_rewind", off, last_commit.offset, last_commit, ts, ev, member,
                         f"the committed offset went back from {last_commit.offset} to {off}")
                last_commit = _Mark(off, ts, ev, source, member)
                if high is None or off > high.offset:
                    high = _Mark(off, ts, ev, source, member)
            elif kind == "offset_commit_failed":
                if high is None or off > high.offset:
                    high = _Mark(off, ts, ev, source, member)
            elif kind in ("offset_fetched", "offset_seek"):
                # same host: its order is certain; another host: the resume follows the handover
                if high is not None and off < high.offset:
                    what = ("the application sought back to" if kind == "offset_seek"
                            else "a member resumed from the committed offset")
                    emit("offset_rewind", off, high.offset, high, ts, ev, member,
                         f"{what} {off} although offsets up to {high.offset} had already been processed")
            elif kind == "offset_reset":
                if last_commit is not None and off > last_commit.offset:
                    emit("offset_skip", last_commit.offset, off, last_commit, ts, ev, member,
                         f"the position was reset to {off} ({reason or 'auto.offset.reset'}) past the last "
                         f"committed offset {last_commit.offset}")
                elif high is not None and off < high.offset:
                    emit("offset_rewind", off, high.offset, high, ts, ev, member,
                         f"the position was reset back to {off} ({reason or 'auto.offset.reset'}) although offsets "
                         f"up to {high.offset} had been processed")
    return issues
