"""offsets.estimate_lost_progress, called directly on hand-built offset records and owner intervals:
the range a new owner processes again after a hand-over whose end no log line names, with every
figure a post-mortem quotes (range, times, members, evidence, wording, the `estimated` flag).

The Kafka facts the expected values follow from (ConsumerCoordinator / AbstractCoordinator, all
versions unless said): a new owner resumes from the group's last committed offset C; an owner that
gives a partition up in a rebalance or on close commits first when enable.auto.commit=true
(onJoinPrepare / close), so a commit at its revocation leaves nothing to redo; an owner thrown out
(its partitions lost, its process gone, fenced, its generation reset, a poll timeout, its log
ending) commits nothing on its way out, so what it processed after C is processed again. A dead
process stops heartbeating and the coordinator expires it session.timeout.ms later
(GroupCoordinator.onExpireHeartbeat), before the hand-over; a member leaving on a poll timeout
(KIP-62, 0.10.1+) had not polled for max.poll.interval.ms. The old owner's pace is taken from its
own commits. Written for the blind spots the mutation pass of offsets.py found (docs/testing.md).

The scenario unless a test says otherwise: A (hostA/app.log) commits 1000 at 10 s and 2000 at 20 s
on t-0, 100 records/s; B (hostB/app.log) is assigned t-0 at 38 s and logs its resume from the
committed offset 2000 at 38.2 s; session.timeout.ms 10 s, heartbeat.interval.ms 3 s,
clock.skew.tolerance.ms 2 s.
"""

from __future__ import annotations

import dataclasses

import pytest

from parsers.events import Event
from pipeline.replay_rules.offsets import estimate_lost_progress
from pipeline.replay_rules.settings import EffectiveSettings
from pipeline.replay_rules.state import Interval

CFG = EffectiveSettings(session_timeout_ms=10_000, max_poll_interval_ms=300_000, heartbeat_interval_ms=3_000,
                        rebalance_timeout_ms=300_000, assignor="range", initial_rebalance_delay_ms=0,
                        version=(3, 6, 0), storm_count=5, storm_window_ms=600_000, skew_tolerance_ms=2_000,
                        unowned_threshold_ms=30_000)


class Log:
    """One log file's offset records, as the collecting pass makes them:
    (kind, ts, topic, partition, offset, member, reason, event)."""

    def __init__(self, source: str) -> None:
        self.source, self.line = source, 0

    def rec(self, kind: str, ts: int, offset: int | None, member: str | None = None, partition: int = 0,
            raw: str | None = None) -> tuple:
        self.line += 1
        ev = Event(source=self.source, line_no=self.line, side="client", kind=kind, raw=raw or kind, ts_ms=ts)
        return (kind, ts, "t", partition, offset, member, None, ev)


def _a_commits(a: Log, member: str | None = "A") -> list:
    return [a.rec("offset_committed", 10_000, 1_000, member), a.rec("offset_committed", 20_000, 2_000, member)]


def _owners(a_end: int, a_reason: str, *, a_member: str | None = "A", b_member: str | None = "B") -> list:
    return [Interval("t-0", a_member, "c-a", 1, 0, "hostA/app.log:0", end_ms=a_end, end_reason=a_reason,
                     source="hostA/app.log"),
            Interval("t-0", b_member, "c-b", 2, 38_000, "hostB/app.log:0", source="hostB/app.log")]


def _ranges(issues) -> list[tuple]:
    return [(i.kind, i.topic, i.partition, i.from_offset, i.to_offset, i.estimated, i.start_ms, i.end_ms, i.members,
             i.evidence) for i in issues]


def _estimate(records, intervals, cfg=CFG, **kw):
    return estimate_lost_progress(sorted(records, key=lambda r: r[1]), intervals, [], cfg, **kw)


def _base(a_end: int, a_reason: str, **kw) -> list:
    a, b = Log("hostA/app.log"), Log("hostB/app.log")
    recs = _a_commits(a) + [b.rec("offset_fetched", 38_200, 2_000)]
    return _ranges(_estimate(recs, _owners(a_end, a_reason), **kw))


# --- who commits on the way out, and who does not ------------------------------------------------

@pytest.mark.parametrize("reason", ["lost", "process_gone", "log_end", "poll_timeout", "member_fenced",
                                    "generation_reset"])
def test_an_owner_thrown_out_one_second_after_its_commit_left_that_second_to_redo(reason):
    """A's last commit is 1 s before its interval ends without a revocation: nothing commits on the
    way out, so the 100 records of that second are processed again by B from 2000."""
    assert _base(21_000, reason) == [("offset_rewind", "t", 0, 2_000, 2_100, True, 20_000, 38_200, ["A", "B"],
                                      ["hostA/app.log:2", "hostB/app.log:1"])]


@pytest.mark.parametrize("reason", ["revoked", "left", "rebalance"])
def test_an_owner_giving_the_partition_up_within_the_skew_of_its_commit_lost_nothing(reason):
    """The same commit 1 s before a revocation or a LeaveGroup (auto-commit, Kafka's default) is the
    commit on the way out: B resumes from what A had processed, nothing is done twice."""
    assert _base(21_000, reason) == []


def test_with_auto_commit_off_a_commit_near_the_revocation_proves_nothing():
    """enable.auto.commit=false printed by A: its periodic commit 1 s before the revocation may not be
    a commit on revocation, so the second after it is processed again (estimated); true: nothing."""
    assert _base(21_000, "revoked", auto_commit={"hostA/app.log": False}) == [
        ("offset_rewind", "t", 0, 2_000, 2_100, True, 20_000, 38_200, ["A", "B"],
         ["hostA/app.log:2", "hostB/app.log:1"])]
    assert _base(21_000, "revoked", auto_commit={"hostA/app.log": True}) == []
    assert _base(21_000, "revoked", auto_commit={"hostB/app.log": False}) == []   # another host's setting


@pytest.mark.parametrize("reason, to", [("lost", 2_820), ("process_gone", 2_820), ("revoked", 3_700)])
def test_a_dead_owner_stopped_a_session_timeout_before_the_hand_over(reason, to):
    """A's interval ends after B took t-0 (a zombie learns late, at 40 s). A member whose process
    died or whose partitions were lost was expelled session.timeout.ms (10 s) after it stopped, and B
    resumed at 38.2 s: A stopped by 28.2 s, 8.2 s after its commit, 820 records. A revocation at
    37 s is a live owner giving t-0 up without a commit: 17 s of work, 1700 records."""
    end = 37_000 if reason == "revoked" else 40_000
    (r,) = _base(end, reason)
    assert r[:8] == ("offset_rewind", "t", 0, 2_000, to, True, 20_000, 38_200)


def test_a_poll_timeout_stops_the_work_max_poll_interval_before_the_member_left():
    """A left on a poll timeout at 36 s with max.poll.interval.ms 10 s: it last polled at 26 s, 6 s
    after its commit (600 records). A poll timeout of another member, or one before A's last commit,
    or after the hand-over, says nothing about A."""
    cfg = dataclasses.replace(CFG, max_poll_interval_ms=10_000)
    assert _base(37_000, "poll_timeout", cfg=cfg, poll_timeouts={"A": [36_000]})[0][3:6] == (2_000, 2_600, True)
    for timeouts in ({"Z": [36_000]}, {"A": [19_999]}, {"A": [40_201]}):
        assert _base(37_000, "poll_timeout", cfg=cfg, poll_timeouts=timeouts)[0][3:6] == (2_000, 3_700, True)
    # on the edges of [last commit, resume + skew] it counts: 40.2 s - 10 s = 30.2 s, 1020 records
    assert _base(37_000, "poll_timeout", cfg=cfg, poll_timeouts={"A": [40_200]})[0][3:6] == (2_000, 3_020, True)
    # at its commit: A was alive then, so it worked past it; gone a session timeout before B resumed
    assert _base(37_000, "poll_timeout", cfg=cfg, poll_timeouts={"A": [20_000]})[0][3:6] == (2_000, 2_820, True)
    assert _base(37_000, "poll_timeout", cfg=cfg, poll_timeouts={"A": [34_000, 36_000]})[0][3:6] == (
        2_000, 2_400, True)


# --- which commit the new owner resumed from -----------------------------------------------------

def test_an_expired_owner_commits_nothing_after_its_expiry():
    """A expired at 30 s (session_expiry); B logs no resume line (a 0.10 client at INFO) and commits
    its own progress, 2100 at 39 s. The coordinator refuses A's commits after its expiry and nobody
    else owned t-0 before B: B resumed from A's 2000, not from B's own 2100. A's last heartbeat
    reached the coordinator at 20 s (expiry - session timeout); it stopped in the middle of the next
    heartbeat interval, 21.5 s: 150 records again."""
    a, b = Log("hostA/app.log"), Log("hostB/app.log")
    recs = _a_commits(a) + [b.rec("offset_committed", 39_000, 2_100, "B")]
    got = _ranges(_estimate(recs, _owners(30_000, "session_expiry")))
    assert got == [("offset_rewind", "t", 0, 2_000, 2_150, True, 20_000, 38_000, ["A", "B"],
                    ["hostA/app.log:2", "hostB/app.log:0"])]


def test_the_new_owners_own_resume_line_names_the_offset_not_another_consumers():
    """Another consumer's line about t-0 (D resumed 1500, 0.7 s before) lies in the window around B's
    assignment; B's own line (its file, or its member id from a rotated file) says 2000, and A's
    commit of 2000 is the one B resumed from: 17 s of A's work after it (revoked at 37 s, no commit)."""
    for b_src, b_member in (("hostB/app.log", None), ("hostB/app.log.1", "B")):
        a, b, d = Log("hostA/app.log"), Log(b_src), Log("hostD/app.log")
        recs = _a_commits(a) + [d.rec("offset_fetched", 37_500, 1_500),
                                b.rec("offset_fetched", 38_200, 2_000, b_member)]
        assert _ranges(_estimate(recs, _owners(37_000, "revoked"))) == [
            ("offset_rewind", "t", 0, 2_000, 3_700, True, 20_000, 38_200, ["A", "B"],
             ["hostA/app.log:2", f"{b_src}:1"])]


def test_a_describe_row_is_not_a_commit():
    """kafka-consumer-groups --describe printing CURRENT-OFFSET 2000 at 21 s shows the committed offset,
    it is not a commit by A: the range, its start and A's pace stay those of A's own commits."""
    a, b, tool = Log("hostA/app.log"), Log("hostB/app.log"), Log("describe.txt")
    recs = _a_commits(a) + [tool.rec("describe_row", 21_000, 2_000), b.rec("offset_fetched", 38_200, 2_000)]
    assert _ranges(_estimate(recs, _owners(37_000, "revoked"))) == [
        ("offset_rewind", "t", 0, 2_000, 3_700, True, 20_000, 38_200, ["A", "B"],
         ["hostA/app.log:2", "hostB/app.log:1"])]


# --- the words ------------------------------------------------------------------------------------

def test_unknown_member_ids_are_named_as_the_previous_and_the_next_owner():
    a, b = Log("hostA/app.log"), Log("hostB/app.log")
    recs = _a_commits(a, None) + [b.rec("offset_fetched", 38_200, 2_000)]
    (i,) = _estimate(recs, _owners(37_000, "revoked", a_member=None, b_member=None))
    assert (i.from_offset, i.to_offset, i.members, i.estimated) == (2_000, 3_700, [], True)
    assert i.how == ("the previous owner gave up the partition (revoked) about 17.0 s after the last commit at "
                     "offset 2000; at its pace of 100.0 records/s it had processed about 1700 more, which the "
                     "next owner processed again from 2000 (an estimate: no log line shows where the old owner "
                     "stopped)")


def test_the_pace_is_the_owners_recent_one_and_the_words_give_its_figures():
    """A started slowly (500 at 10 s, 1200 at 20 s) then committed 1000 more every 10 s up to 7000 at
    80 s: its pace is that of its recent commits (the last six: 2000 at 30 s to 7000 at 80 s, 100
    records/s), not the slow start's. It was revoked 60 s after its last commit without committing
    (B's resume line says 7000): 6000 records again."""
    a, b = Log("hostA/app.log"), Log("hostB/app.log")
    recs = [a.rec("offset_committed", 10_000, 500, "A"), a.rec("offset_committed", 20_000, 1_200, "A")]
    recs += [a.rec("offset_committed", 30_000 + 10_000 * k, 2_000 + 1_000 * k, "A") for k in range(6)]
    recs.append(b.rec("offset_fetched", 141_200, 7_000))
    owners = [Interval("t-0", "A", "c-a", 1, 0, "hostA/app.log:0", end_ms=140_000, end_reason="revoked",
                       source="hostA/app.log"),
              Interval("t-0", "B", "c-b", 2, 141_000, "hostB/app.log:0", source="hostB/app.log")]
    (i,) = _estimate(recs, owners)
    assert (i.from_offset, i.to_offset, i.start_ms, i.end_ms, i.evidence) == (
        7_000, 13_000, 80_000, 141_200, ["hostA/app.log:8", "hostB/app.log:1"])
    assert i.how.startswith("A gave up the partition (revoked) about 60.0 s after the last commit at offset 7000; "
                            "at its pace of 100.0 records/s it had processed about 6000 more, which B processed "
                            "again from 7000")


@pytest.mark.parametrize("a_end, want", [(20_005, []), (20_010, [(2_000, 2_001)])])
def test_less_than_one_record_of_work_is_no_range(a_end, want):
    """A's partition lost 5 ms after its commit, at 100 records/s: half a record, nothing to redo;
    10 ms: one record, 2000."""
    assert [r[3:5] for r in _base(a_end, "lost")] == want


@pytest.mark.parametrize("a_end, want", [(22_000, []), (22_001, [(2_000, 2_200)])])
def test_the_commit_on_revocation_window_ends_at_the_skew_tolerance_inclusive(a_end, want):
    """A commit 2 s (the tolerance) before the revocation is the commit on revocation; 2.001 s is not."""
    assert [r[3:5] for r in _base(a_end, "revoked")] == want


def test_a_0_9_resume_line_worded_as_a_reset_to_the_committed_offset_is_the_resume_line():
    """0.9-1.0 Fetcher logs the resume as `Resetting offset for partition t-0 to the committed offset
    2000` (DEBUG): B's resume time and evidence are that line's."""
    a, b = Log("hostA/app.log"), Log("hostB/app.log")
    recs = _a_commits(a) + [b.rec("offset_reset", 38_200, 2_000,
                                  raw="Resetting offset for partition t-0 to the committed offset 2000")]
    assert _ranges(_estimate(recs, _owners(37_000, "revoked"))) == [
        ("offset_rewind", "t", 0, 2_000, 3_700, True, 20_000, 38_200, ["A", "B"],
         ["hostA/app.log:2", "hostB/app.log:1"])]


@pytest.mark.parametrize("at, own", [(48_000, True), (48_001, False)])
def test_a_resume_line_counts_up_to_ten_seconds_after_the_assignment(at, own):
    """B's resume line 10 s after its assignment is its resume line (end of the range, evidence);
    10.001 s after, the hand-over is bounded by the assignment itself."""
    a, b = Log("hostA/app.log"), Log("hostB/app.log")
    recs = _a_commits(a) + [b.rec("offset_fetched", at, 2_000)]
    (r,) = _ranges(_estimate(recs, _owners(37_000, "revoked")))
    assert r[7:] == ((at, ["A", "B"], ["hostA/app.log:2", "hostB/app.log:1"]) if own
                     else (38_000, ["A", "B"], ["hostA/app.log:2", "hostB/app.log:0"]))


def test_the_only_resume_line_near_an_owner_of_unknown_host_is_taken():
    """B's assignment comes without its log file (no source) and its resume line names no member:
    the one resume line near the assignment is B's."""
    a, b = Log("hostA/app.log"), Log("hostB/app.log")
    recs = _a_commits(a) + [b.rec("offset_fetched", 38_200, 2_000)]
    owners = _owners(37_000, "revoked")
    owners[1].source = None
    (r,) = _ranges(_estimate(recs, owners))
    assert r[3:] == (2_000, 3_700, True, 20_000, 38_200, ["A", "B"], ["hostA/app.log:2", "hostB/app.log:1"])


def test_commits_after_the_resumed_offset_are_not_where_the_new_owner_resumed():
    """B resumed from 2000 (its line) and committed its own 2100 at 39 s, within the window: the range
    starts at A's 2000, at 20 s."""
    a, b = Log("hostA/app.log"), Log("hostB/app.log")
    recs = _a_commits(a) + [b.rec("offset_fetched", 38_200, 2_000), b.rec("offset_committed", 39_000, 2_100, "B")]
    (r,) = _ranges(_estimate(recs, _owners(37_000, "revoked")))
    assert r[3:8] == (2_000, 3_700, True, 20_000, 38_200)


@pytest.mark.parametrize("z_end", [-700_000, 5_000])
def test_a_hand_over_without_a_previous_owner_or_commit_does_not_stop_the_later_ones(z_end):
    """Z owned t-0 before A (A assigned at 6 s). Z's end more than 600 s before A's assignment: no
    previous owner for that hand-over; at 5 s: no commit before it. Either way the later hand-over
    from A to B is still estimated."""
    a, b = Log("hostA/app.log"), Log("hostB/app.log")
    recs = _a_commits(a) + [b.rec("offset_fetched", 38_200, 2_000)]
    owners = [Interval("t-0", "Z", "c-z", 0, z_end - 10_000, "hostZ/app.log:0", end_ms=z_end, end_reason="revoked",
                       source="hostZ/app.log"),
              dataclasses.replace(_owners(37_000, "revoked")[0], start_ms=6_000), _owners(37_000, "revoked")[1]]
    assert [r[3:5] for r in _ranges(_estimate(recs, owners))] == [(2_000, 3_700)]


@pytest.mark.parametrize("a_end, found", [(38_200 - 600_000, True), (38_200 - 600_001, False),
                                          (38_200 + 60_000, True),
                                          (38_200 + 60_001, False)])
def test_the_previous_owner_ended_within_ten_minutes_before_to_a_minute_after_the_resume(a_end, found):
    """An owner that ended up to 600 s before the new owner resumed, or learns of its loss up to 60 s
    after (a zombie), is the previous owner; 1 ms beyond either bound it is not, nothing is estimated."""
    a, b = Log("hostA/app.log"), Log("hostB/app.log")
    recs = [a.rec("offset_committed", a_end - 700_000, 1_000, "A"), a.rec("offset_committed", a_end - 690_000, 2_000, "A"),
            b.rec("offset_fetched", 38_200, 2_000)]
    owners = [dataclasses.replace(_owners(a_end, "revoked")[0], start_ms=a_end - 800_000), _owners(0, "x")[1]]
    got = _ranges(_estimate(recs, owners))
    assert bool(got) == found


def test_a_commit_of_the_expired_owner_within_the_skew_of_its_expiry_counts():
    """A expired at 30 s on the broker's clock; A's own log shows its commit of 2500 at 31 s, within
    the 2 s clock-skew tolerance of the expiry: B resumed from 2500, not from 2000, and no range
    starts at 2000."""
    a = Log("hostA/app.log")
    recs = _a_commits(a) + [a.rec("offset_committed", 31_000, 2_500, "A")]
    assert [r[3] for r in _ranges(_estimate(recs, _owners(30_000, "session_expiry")))] in ([], [2_500])


@pytest.mark.parametrize("b_resumes", [2_000, 1_500])
def test_a_later_hand_over_is_estimated_whatever_the_earlier_ones_gave(b_resumes):
    """t-0 goes A -> B (38 s) -> C (46 s) -> D (81 s). C resumes from 2000 like B (a range already
    reported from 2000), or B's line names 1500, a commit no log shows; either way C commits 3000 at
    60 s and 4000 at 70 s and is revoked at 80 s without a commit, and D, resuming from 4000, redoes
    C's work after 70 s: a range from 4000, from 70 s to D's resume line at 81.2 s."""
    a, b, c, d = Log("hostA/app.log"), Log("hostB/app.log"), Log("hostC/app.log"), Log("hostD/app.log")
    recs = _a_commits(a) + [b.rec("offset_fetched", 38_200, b_resumes), c.rec("offset_fetched", 46_200, 2_000),
                            c.rec("offset_committed", 60_000, 3_000, "C"), c.rec("offset_committed", 70_000, 4_000, "C"),
                            d.rec("offset_fetched", 81_200, 4_000)]
    a_iv, b_iv = _owners(37_000, "revoked")
    b_iv.end_ms, b_iv.end_reason = 45_000, "revoked"
    owners = [a_iv, b_iv,
              Interval("t-0", "C", "c-c", 3, 46_000, "hostC/app.log:0", end_ms=80_000, end_reason="revoked",
                       source="hostC/app.log"),
              Interval("t-0", "D", "c-d", 4, 81_000, "hostD/app.log:0", source="hostD/app.log")]
    got = [(i.from_offset, i.start_ms, i.end_ms, i.members) for i in _estimate(recs, owners) if i.from_offset == 4_000]
    assert got == [(4_000, 70_000, 81_200, ["C", "D"])]
