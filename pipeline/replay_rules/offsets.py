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
from typing import Any

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


def analyse(records: list[tuple], cfg: EffectiveSettings) -> list[OffsetIssue]:
    """`records` in time order (the collecting pass appends them so)."""
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
        seen: set[tuple[str, int, int]] = set()

        def emit(kind: str, lo: int, hi: int, first: _Mark, ts: int, event: Any, member: str | None, how: str,
                 seen: set = seen, topic: str = topic, part: int = part) -> None:
            key = (kind, lo, hi)
            if lo >= hi or key in seen:
                return
            seen.add(key)
            members = sorted({m for m in (first.member, member) if m})
            issues.append(OffsetIssue(kind, topic, part, lo, hi, first.ts, ts, members,
                                      [first.ev, event.evidence], how))

        for kind, ts, _t, _p, off, member, reason, event in rs:
            if off is None:
                continue
            if kind in COMMITS:
                if last_commit is not None:
                    if off < last_commit.offset and (last_commit.event.source == event.source
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
                if last_commit is not None and off > last_commit.offset:
                    emit("offset_skip", last_commit.offset, off, last_commit, ts, event, member,
                         f"the position was reset to {off} ({reason or 'auto.offset.reset'}) past the last "
                         f"committed offset {last_commit.offset}")
                elif high is not None and off < high.offset:
                    emit("offset_rewind", off, high.offset, high, ts, event, member,
                         f"the position was reset back to {off} ({reason or 'auto.offset.reset'}) although offsets "
                         f"up to {high.offset} had been processed")
    return issues
