"""Offset ranges processed twice (offset_rewind) or never (offset_skip): every figure a post-mortem
quotes (range, times, members, evidence, wording), and the edges of the rules that decide whether
a range is claimed at all. Written for the blind spots a mutation pass of
pipeline/replay_rules/offsets.py found (docs/testing.md, scripts/mutation_check.sh)."""

from __future__ import annotations

import json

import pytest

from pipeline.replay import replay_group
from tests.replay.builders import Host, merged
from tests.replay.scenarios import T0


def _ranges(result) -> list[dict]:
    out = []
    for f in result.findings:
        if f["kind"] in ("offset_rewind", "offset_skip"):
            d = json.loads(f["details_json"])
            out.append({"kind": f["kind"], "tp": f["partitions"][0], "from": d["from_offset"],
                        "to": d["to_offset_exclusive"], "estimated": d["estimated"],
                        "start": f["start_ms"] - T0, "end": f["end_ms"] - T0, "members": f["members"],
                        "evidence": f["evidence"], "explanation": f["explanation"]})
    return sorted(out, key=lambda r: (r["tp"], r["from"], r["kind"]))


def _commit_back(gap_ms: int, *, between: tuple | None = None) -> list:
    """A commits 500 on t-1, B (another host) commits 420 `gap_ms` later."""
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    a.ev(T0, "offset_committed", topic="t", partition=1, offset=500, member_id="A")
    if between is not None:
        a.ev(T0 + 1_000, between[0], topic="t", partition=1, offset=between[1], member_id="A")
    b.ev(T0 + gap_ms, "offset_committed", topic="t", partition=1, offset=420, member_id="B")
    return merged(a, b)


def test_a_commit_going_back_is_stated_with_its_times_members_and_evidence():
    (r,) = _ranges(replay_group(_commit_back(60_000)))
    assert (r["kind"], r["tp"], r["from"], r["to"], r["estimated"]) == ("offset_rewind", "t-1", 420, 500, False)
    # from the higher commit (A's, T0) to the lower one (B's, T0+60 s)
    assert (r["start"], r["end"]) == (0, 60_000)
    assert r["members"] == ["A", "B"]
    assert r["evidence"] == ["hostA/app.log:1", "hostB/app.log:1"]
    assert "the committed offset went back from 500 to 420" in r["explanation"]
    assert "80 records from offset 420 to 499" in r["explanation"]


@pytest.mark.parametrize("gap_ms, claimed", [(2_000, False), (2_001, True)])
def test_commits_of_two_hosts_are_ordered_only_beyond_the_skew_tolerance(gap_ms, claimed):
    """Two hosts' commits exactly clock.skew.tolerance.ms (2 s by default) apart may be in either
    order: no claim; one millisecond more and the order is certain."""
    got = _ranges(replay_group(_commit_back(gap_ms)))
    assert [(r["kind"], r["from"], r["to"]) for r in got] == ([("offset_rewind", 420, 500)] if claimed else [])


def test_a_record_without_an_offset_does_not_end_the_partition_history():
    """A partition's record whose offset the line does not state (offset None) is passed over:
    the records after it are still compared."""
    got = _ranges(replay_group(_commit_back(60_000, between=("offset_committed", None))))
    assert [(r["kind"], r["from"], r["to"], r["start"], r["end"]) for r in got] == [
        ("offset_rewind", 420, 500, 0, 60_000)]


def _failed_commit_then_resume(resume_raw: str) -> list:
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    a.join(T0, 1, "A", ["t-0"])
    a.ev(T0 + 1_000, "offset_committed", topic="t", partition=0, offset=100)
    a.ev(T0 + 9_000, "offset_commit_failed", topic="t", partition=0, offset=150, error="ILLEGAL_GENERATION",
         generation=1)
    b.ev(T0 + 9_500, "offset_reset", topic="t", partition=0, offset=100, raw=resume_raw)
    return merged(a, b)


def test_a_0_9_resume_worded_as_reset_to_the_committed_offset_is_a_resume():
    """0.9-1.0 Fetcher (DEBUG) logs the resume from the committed offset as `Resetting offset for
    partition X to the committed offset N`: B resumes at 100 after A processed up to 150 (its commit of
    150 failed): 100-149 are processed again, said as a resume, not as an auto.offset.reset."""
    (r,) = _ranges(replay_group(_failed_commit_then_resume(
        "Resetting offset for partition t-0 to the committed offset 100")))
    assert (r["kind"], r["from"], r["to"], r["estimated"], r["start"], r["end"]) == (
        "offset_rewind", 100, 150, False, 9_000, 9_500)
    assert r["evidence"] == ["hostA/app.log:6", "hostB/app.log:1"] and r["members"] == ["A"]
    assert "a member resumed from the committed offset 100 although offsets up to 150" in r["explanation"]
    # the 2.x+ wording of a real reset to the same position is an auto.offset.reset, worded so
    (r,) = _ranges(replay_group(_failed_commit_then_resume(
        "Resetting offset for partition t-0 to position FetchPosition{offset=100, offsetEpoch=Optional.empty}.")))
    assert (r["kind"], r["from"], r["to"]) == ("offset_rewind", 100, 150)
    assert "the position was reset back to 100" in r["explanation"]


def test_the_same_range_evidenced_twice_is_one_finding():
    """B resumes from 100 twice (a quick second rebalance before it committed): 100-149 is one range
    processed again, not two (a second finding would double the records in any total)."""
    events = _failed_commit_then_resume("Resetting offset for partition t-0 to the committed offset 100")
    c = Host("hostC/app.log", "c-c")
    c.ev(T0 + 12_000, "offset_fetched", topic="t", partition=0, offset=100)
    got = _ranges(replay_group(events + merged(c)))
    assert [(r["kind"], r["from"], r["to"], r["end"]) for r in got] == [("offset_rewind", 100, 150, 9_500)]


def test_a_reset_is_a_skip_from_zero_only_when_the_log_says_there_was_no_committed_offset():
    """A reset to 1079 with no commit known: only `Found no committed offset` proves the skip of
    0-1078 (estimated: the log's start offset is unknown); without that line the logs may simply start
    after the group's last commit, and nothing is claimed."""
    def run(with_no_commit_line: bool) -> list[dict]:
        a = Host("hostA/app.log", "c-a")
        a.join(T0, 1, "A", ["t-1"])
        if with_no_commit_line:
            a.ev(T0 + 200, "no_committed_offset", topic="t", partition=1)
        a.ev(T0 + 210, "offset_reset", topic="t", partition=1, offset=1_079,
             raw="Resetting offset for partition t-1 to position FetchPosition{offset=1079, offsetEpoch=Optional.empty}.")
        return _ranges(replay_group(merged(a)))

    assert run(False) == []
    (r,) = run(True)
    assert (r["kind"], r["from"], r["to"], r["estimated"], r["start"], r["end"]) == (
        "offset_skip", 0, 1_079, True, 210, 210)
    assert r["evidence"] == ["hostA/app.log:6"]


def _admin_reset(forward_at: int) -> list:
    """A leaves at T0+9 s, the broker says the group is empty at T0+9.01 s, A's commit on close lands
    in the dump at T0+9.02 s; later the committed offset is moved to 900 and then back to 700."""
    a, d, k = Host("hostA/app.log", "c-a"), Host("dump/offsets.txt", side="offsets"), Host("broker1/server.log", side="broker")
    a.join(T0, 1, "A", ["t-0"])
    d.ev(T0 + 5_000, "offset_record", topic="t", partition=0, offset=400)
    a.ev(T0 + 9_000, "leave_group", member_id="A", reason="the consumer is being closed")
    k.ev(T0 + 9_010, "broker_group_empty", generation=2,
         raw="[GroupCoordinator 1]: Group payments with generation 2 is now empty (__consumer_offsets-12)")
    d.ev(T0 + 9_020, "offset_record", topic="t", partition=0, offset=410)
    d.ev(T0 + forward_at, "offset_record", topic="t", partition=0, offset=900)
    d.ev(T0 + 90_000, "offset_record", topic="t", partition=0, offset=700)
    return merged(a, d, k)


def test_an_administrators_resets_state_their_ranges_times_and_evidence():
    skip, rewind = _ranges(replay_group(_admin_reset(60_000)))
    assert (skip["kind"], skip["from"], skip["to"], skip["estimated"]) == ("offset_skip", 410, 900, False)
    assert (skip["start"], skip["end"]) == (9_020, 60_000)
    assert skip["evidence"] == ["dump/offsets.txt:2", "dump/offsets.txt:3"]
    assert "moved forward from 410 to 900 while the group had no members" in skip["explanation"]
    # an administrator's move, not the client's auto.offset.reset: the closing sentence says which
    assert "kafka-consumer-groups --reset-offsets" in skip["explanation"]
    assert "auto.offset.reset" not in skip["explanation"]
    assert (rewind["kind"], rewind["from"], rewind["to"], rewind["estimated"]) == ("offset_rewind", 700, 900, False)
    # from the commit of 900 (the highest offset processed) to the move back
    assert (rewind["start"], rewind["end"]) == (60_000, 90_000)
    assert rewind["evidence"] == ["dump/offsets.txt:3", "dump/offsets.txt:4"]
    assert "moved back to 700 while the group had no members" in rewind["explanation"]
    assert "offsets up to 900 had been processed" in rewind["explanation"]
    assert skip["members"] == rewind["members"] == []      # a dump names no member


@pytest.mark.parametrize("forward_at, admin", [(14_009, False), (14_010, True)])
def test_a_commit_is_an_administrators_only_five_seconds_into_the_empty_span(forward_at, admin):
    """Members' own last commits can land just after the group emptied: only a commit at least
    max(skew tolerance, 5 s) after the broker's "is now empty" (T0+9.01 s) is an administrator's.
    Before that, a forward commit is ordinary progress (no skip); the later move back to 700 is a
    rewind either way."""
    got = [(r["kind"], r["from"], r["to"]) for r in _ranges(replay_group(_admin_reset(forward_at)))]
    assert got == ([("offset_skip", 410, 900)] if admin else []) + [("offset_rewind", 700, 900)]


def test_estimated_progress_needs_commits_apart_in_time():
    """The old owner's pace is offsets per second between its recent commits; commits within one
    millisecond give no pace, so no estimate (and no division by zero). 10 s apart they do."""
    def run(second_commit_at: int) -> list[dict]:
        a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
        a.join(T0, 1, "A", ["t-0"])
        a.ev(T0 + 20_000 - second_commit_at, "offset_committed", topic="t", partition=0, offset=1_000)
        a.ev(T0 + 20_000, "offset_committed", topic="t", partition=0, offset=2_000)
        a.revoke(T0 + 26_000, ["t-0"])                                           # 6 s later, no commit
        a.ev(T0 + 26_001, "leave_group", member_id="A", reason="the consumer is being closed")
        b.join(T0 + 26_500, 2, "B", ["t-0"])
        b.ev(T0 + 26_700, "offset_fetched", topic="t", partition=0, offset=2_000)
        return _ranges(replay_group(merged(a, b)))

    assert run(0) == []
    (r,) = run(10_000)                                  # 100 records/s for 6 s
    assert (r["kind"], r["from"], r["to"], r["estimated"], r["start"], r["end"]) == (
        "offset_rewind", 2_000, 2_600, True, 20_000, 26_700)


def test_a_reset_to_offset_1_without_a_committed_offset_skips_exactly_one_record():
    a = Host("hostA/app.log", "c-a")
    a.join(T0, 1, "A", ["t-1"])
    a.ev(T0 + 200, "no_committed_offset", topic="t", partition=1)
    a.ev(T0 + 210, "offset_reset", topic="t", partition=1, offset=1)
    assert [(r["kind"], r["from"], r["to"]) for r in _ranges(replay_group(merged(a)))] == [("offset_skip", 0, 1)]


def test_a_range_processed_again_starts_when_its_highest_offset_was_first_processed():
    """A commits 500 at T0; B, the next owner, commits the same 500 at T0+30 s before processing
    anything; C then resumes at 420. Offsets up to 500 were processed by T0 (A's commit): the range
    starts there, and names A (who processed them) and C (who processes them again)."""
    a, b, c = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b"), Host("hostC/app.log", "c-c")
    a.ev(T0, "offset_committed", topic="t", partition=0, offset=500, member_id="A")
    b.ev(T0 + 30_000, "offset_committed", topic="t", partition=0, offset=500, member_id="B")
    c.ev(T0 + 60_000, "offset_fetched", topic="t", partition=0, offset=420, member_id="C")
    (r,) = _ranges(replay_group(merged(a, b, c)))
    assert (r["kind"], r["from"], r["to"], r["start"], r["end"]) == ("offset_rewind", 420, 500, 0, 60_000)
    assert r["members"] == ["A", "C"] and r["evidence"] == ["hostA/app.log:1", "hostC/app.log:1"]


def test_failed_commits_raise_the_processed_mark_only_upwards():
    """t-0: A commits 100; its commit of 200 fails at T0+5 s (200 processed), a late failure of 150 at
    T0+7 s and a repeated failure of 200 at T0+8 s change nothing; B resumes at 100: 100-199 again,
    from T0+5 s. t-1: a failed commit is the partition's first record (the log starts there)."""
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    a.join(T0, 1, "A", ["t-0", "t-1"])
    a.ev(T0 + 1_000, "offset_committed", topic="t", partition=0, offset=100)
    a.ev(T0 + 2_000, "offset_commit_failed", topic="t", partition=1, offset=50, error="ILLEGAL_GENERATION")
    for at, off in ((5_000, 200), (7_000, 150), (8_000, 200)):
        a.ev(T0 + at, "offset_commit_failed", topic="t", partition=0, offset=off, error="ILLEGAL_GENERATION")
    b.ev(T0 + 9_500, "offset_fetched", topic="t", partition=0, offset=100)
    b.ev(T0 + 9_600, "offset_fetched", topic="t", partition=1, offset=40)
    got = [(r["tp"], r["from"], r["to"], r["start"], r["end"], r["members"]) for r in _ranges(replay_group(merged(a, b)))]
    assert got == [("t-0", 100, 200, 5_000, 9_500, ["A"]), ("t-1", 40, 50, 2_000, 9_600, ["A"])]


def test_an_application_seeking_back_reprocesses_and_is_said_so():
    """B's rebalance listener seeks t-0 back to 120 (KafkaConsumer.seek: `Seeking to offset 120 for
    partition t-0`) after A had processed up to 200."""
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    a.join(T0, 1, "A", ["t-0"])
    a.ev(T0 + 5_000, "offset_committed", topic="t", partition=0, offset=100)
    a.ev(T0 + 10_000, "offset_committed", topic="t", partition=0, offset=200)
    a.revoke(T0 + 10_500, ["t-0"])
    a.ev(T0 + 10_501, "leave_group", member_id="A", reason="the consumer is being closed")
    b.join(T0 + 11_000, 2, "B", ["t-0"])
    b.ev(T0 + 11_200, "offset_seek", topic="t", partition=0, offset=120)
    rewinds = [r for r in _ranges(replay_group(merged(a, b))) if not r["estimated"]]
    assert [(r["kind"], r["from"], r["to"], r["start"], r["end"], r["members"]) for r in rewinds] == [
        ("offset_rewind", 120, 200, 10_000, 11_200, ["A", "B"])]
    assert "the application sought back to 120 although offsets up to 200 had already been processed" in (
        rewinds[0]["explanation"])


@pytest.mark.parametrize("reason, said", [("latest", "(latest)"), (None, "(auto.offset.reset)")])
def test_a_reset_past_the_last_commit_states_range_times_members_and_why(reason, said):
    """The dump shows a commit of 200 at T0; a day later A (member A) resets t-0 to 500: 200-499 were
    never processed, from the commit to the reset. The reason is the client's when it logged one."""
    d, a = Host("dump/offsets.txt", side="offsets"), Host("hostA/app.log", "c-a")
    d.ev(T0, "offset_record", topic="t", partition=0, offset=200)
    a.join(T0 + 86_400_000, 5, "A", ["t-0"])
    a.ev(T0 + 86_400_500, "offset_reset", topic="t", partition=0, offset=500, reason=reason)
    (r,) = _ranges(replay_group(merged(d, a)))
    assert (r["kind"], r["from"], r["to"], r["estimated"], r["start"], r["end"]) == (
        "offset_skip", 200, 500, False, 0, 86_400_500)
    assert r["members"] == ["A"] and r["evidence"] == ["dump/offsets.txt:1", "hostA/app.log:5"]
    assert f"the position was reset to 500 {said} past the last committed offset 200" in r["explanation"]
    assert "This is what auto.offset.reset=latest does" in r["explanation"]
    assert "--reset-offsets" not in r["explanation"]


@pytest.mark.parametrize("reason, said", [("earliest", "(earliest)"), (None, "(auto.offset.reset)")])
def test_a_reset_back_below_what_was_processed_states_range_times_members_and_why(reason, said):
    """A (member A) commits 100, its commit of 150 fails at T0+9 s; B (member B) resets t-0 to 100
    (2.x+ wording: an auto.offset.reset, not a resume): 100-149 again, from A's failed commit to B's reset."""
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    a.join(T0, 1, "A", ["t-0"])
    a.ev(T0 + 1_000, "offset_committed", topic="t", partition=0, offset=100)
    a.ev(T0 + 9_000, "offset_commit_failed", topic="t", partition=0, offset=150, error="ILLEGAL_GENERATION")
    b.join(T0 + 9_100, 2, "B", ["t-0"])
    b.ev(T0 + 9_500, "offset_reset", topic="t", partition=0, offset=100, reason=reason,
         raw="Resetting offset for partition t-0 to position FetchPosition{offset=100, offsetEpoch=Optional.empty}.")
    rewinds = [r for r in _ranges(replay_group(merged(a, b))) if not r["estimated"]]
    assert [(r["kind"], r["from"], r["to"], r["start"], r["end"], r["members"]) for r in rewinds] == [
        ("offset_rewind", 100, 150, 9_000, 9_500, ["A", "B"])]
    assert rewinds[0]["evidence"] == ["hostA/app.log:6", "hostB/app.log:5"]
    assert (f"the position was reset back to 100 {said} although offsets up to 150 had been processed"
            in rewinds[0]["explanation"])


def test_enable_auto_commit_is_read_from_each_log_whatever_came_before():
    """A printed enable.auto.commit=false at start-up; another log's line earlier in the timeline
    does not hide it: A's progress in the second before its revocation is processed again (estimated)."""
    from tests.replay.test_offset_evidence import _rejoin

    other = Host("hostZ/app.log", "c-z")
    other.ev(T0 - 5_000, "heartbeat_succeeded")
    got = _ranges(replay_group(_rejoin("false") + merged(other)))
    assert [(r["kind"], r["from"], r["to"], r["estimated"]) for r in got] == [("offset_rewind", 3_500, 3_600, True)]
    assert _ranges(replay_group(_rejoin("true") + merged(other))) == []


def _handover_without_commit(*, failed_commit: int | None = None, extra_partition: bool = False) -> list:
    """A owns t-0 (and s-9 when `extra_partition`), commits 1000 and 2000 (100 records/s), gives t-0
    up 6 s later without a commit; B resumes t-0 at 2000. s-9 stays A's (one owner: no hand-over;
    it sorts before t-0)."""
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    a.join(T0, 1, "A", ["s-9", "t-0"] if extra_partition else ["t-0"])
    if extra_partition:
        a.ev(T0 + 5_000, "offset_committed", topic="s", partition=9, offset=7)
    a.ev(T0 + 10_000, "offset_committed", topic="t", partition=0, offset=1_000)
    a.ev(T0 + 20_000, "offset_committed", topic="t", partition=0, offset=2_000)
    if failed_commit is not None:
        a.ev(T0 + 25_900, "offset_commit_failed", topic="t", partition=0, offset=failed_commit,
             error="REBALANCE_IN_PROGRESS")
    a.revoke(T0 + 26_000, ["t-0"])
    b.join(T0 + 26_500, 2, "B", ["t-0"])
    b.ev(T0 + 26_700, "offset_fetched", topic="t", partition=0, offset=2_000)
    return merged(a, b)


def test_an_exact_range_is_not_also_reported_as_an_estimate():
    """A's commit of 2590 failed just before the revocation: 2000-2589 are processed again, exactly
    (the failed commit names the end); the estimate of the same hand-over is not added beside it."""
    got = _ranges(replay_group(_handover_without_commit(failed_commit=2_590)))
    assert [(r["kind"], r["from"], r["to"], r["estimated"]) for r in got] == [("offset_rewind", 2_000, 2_590, False)]


def test_a_partition_without_hand_over_does_not_stop_the_others_estimates():
    got = _ranges(replay_group(_handover_without_commit(extra_partition=True)))
    assert [(r["tp"], r["from"], r["to"], r["estimated"]) for r in got] == [("t-0", 2_000, 2_600, True)]


@pytest.mark.parametrize("tolerance_ms, claimed", [(2_000, False), (500, True)])
def test_the_commit_on_revocation_window_is_the_configured_skew_tolerance(tolerance_ms, claimed):
    """A's last commit 1 s before its revocation is its commit on revocation (auto-commit) within a
    2 s tolerance; with clock.skew.tolerance.ms=500 it is an earlier periodic commit, and the second
    after it is processed again (estimated)."""
    from pipeline.replay import ReplaySettings
    from tests.replay.test_offset_evidence import _rejoin

    got = _ranges(replay_group(_rejoin("true"), ReplaySettings(skew_tolerance_ms=tolerance_ms)))
    assert [(r["from"], r["to"], r["estimated"]) for r in got] == ([(3_500, 3_600, True)] if claimed else [])


def test_a_printed_config_without_enable_auto_commit_means_kafkas_default():
    """A client_config line that does not list enable.auto.commit (a partial dump) leaves Kafka's
    default (true): the commit 1 s before the revocation is the commit on revocation, nothing is lost.
    A config line without settings at all does not break the replay."""
    from tests.replay.test_offset_evidence import _rejoin

    other = Host("hostA/app.log.0", "c-a")
    other.ev(T0 - 3_000, "client_config", extra={})
    for events in (_rejoin(None) + merged(other), [e for e in _rejoin("true")]):
        assert _ranges(replay_group(events)) == []
    partial = _rejoin("false")
    for e in partial:
        if e.kind == "client_config":
            e.extra["settings"] = {"max.poll.records": "500"}
    assert _ranges(replay_group(partial)) == []


def test_an_estimated_range_says_how_it_was_estimated():
    """The estimate's figures, in the words a post-mortem quotes: who gave the partition up and why,
    how long after which commit, at what pace, how many records, who processed them again; the
    evidence is the last commit and the new owner's resume line."""
    (r,) = _ranges(replay_group(_handover_without_commit()))
    assert (r["from"], r["to"], r["estimated"], r["start"], r["end"], r["members"]) == (
        2_000, 2_600, True, 20_000, 26_700, ["A", "B"])
    assert r["evidence"] == ["hostA/app.log:6", "hostB/app.log:5"]
    assert ("A gave up the partition (revoked) about 6.0 s after the last commit at offset 2000; at its pace "
            "of 100.0 records/s it had processed about 600 more, which B processed again from 2000 "
            "(an estimate: no log line shows where the old owner stopped)") in r["explanation"]


@pytest.mark.parametrize("heartbeat_ms, to, worked", [(3_000, 310, "5.5"), (10_000, 380, "9.0")])
def test_an_expired_owner_stopped_in_the_middle_of_its_last_heartbeat_interval(heartbeat_ms, to, worked):
    """B's last heartbeat is at T0+21 s (a GC pause); the broker expires it at T0+66 s
    (session.timeout.ms 45 s: GroupCoordinator.onExpireHeartbeat); B logs nothing after. It stopped
    working in [T0+21 s, T0+21 s + heartbeat.interval.ms): the middle is taken, 5.5 s (3 s interval)
    or 9 s (10 s interval) after its last commit of 200 at T0+17 s, at 20 records/s."""
    from pipeline.replay import ReplaySettings
    from tests.replay import scenarios as S

    events = [e for e in S.session_expiry_broker() if not (e.source == "hostB/app.log" and e.ts_ms >= T0 + 90_000)]
    b, a = Host("hostB/app.log.more", "c-b"), Host("hostA/app.log.more", "c-a")
    b.ev(T0 + 12_000, "offset_committed", topic="t", partition=2, offset=100, member_id="B")
    b.ev(T0 + 17_000, "offset_committed", topic="t", partition=2, offset=200, member_id="B")
    a.ev(T0 + 67_200, "offset_fetched", topic="t", partition=2, offset=200, member_id="A")
    (r,) = _ranges(replay_group(events + merged(b, a), ReplaySettings(heartbeat_interval_ms=heartbeat_ms)))
    assert (r["tp"], r["from"], r["to"], r["estimated"], r["start"], r["end"], r["members"]) == (
        "t-2", 200, to, True, 17_000, 67_200, ["A", "B"])
    assert f"B gave up the partition (session_expiry) about {worked} s after the last commit at offset 200" in (
        r["explanation"])
