"""Skipped and reprocessed offset ranges: what the evidence proves, what is estimated, and the
confounders that look like a skip but are not (catch-up after a restart, a 0.9-1.0 consumer's
resume line worded as a "reset")."""

from __future__ import annotations

import json

from pipeline.replay import ReplaySettings, replay_group
from tests.replay.builders import Host, merged
from tests.replay.scenarios import T0


def _ranges(result, kind: str) -> list[tuple]:
    out = []
    for f in result.findings:
        if f["kind"] == kind:
            d = json.loads(f["details_json"])
            out.append((f["partitions"][0], d["from_offset"], d["to_offset_exclusive"], bool(d.get("estimated"))))
    return sorted(out)


def _dump_commits(dump: Host, start: int, end: int, every: int, first: int, pace_per_s: int) -> int:
    off = first
    for t in range(start, end + 1, every):
        dump.ev(t, "offset_record", topic="t", partition=0, offset=off)
        off += pace_per_s * every // 1000
    return off - pace_per_s * every // 1000


def test_crashed_010_owner_without_resume_line_gives_an_estimated_range_from_its_last_commit():
    """0.10 at INFO logs no resume line: the new owner starts from the last committed offset (dump),
    the crashed owner's progress after it is estimated from its pace, never stated as exact."""
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    dump, k = Host("dump/offsets.txt", side="offsets"), Host("broker/server.log", side="broker")
    a.join(T0, 1, "A", ["t-0"])
    last = _dump_commits(dump, T0 + 5_000, T0 + 55_000, 5_000, 1_000, 40)      # 40 records/s, last at T0+55 s
    # A dies at about T0+57 s without a line; its interval ends wherever the log ends (here before its last commit)
    k.failed(T0 + 67_000, "A")
    b.join(T0 + 70_000, 2, "B", ["t-0"])
    dump.ev(T0 + 75_000, "offset_record", topic="t", partition=0, offset=last + 400)
    r = replay_group(merged(a, b, dump, k), ReplaySettings(session_timeout_ms=10_000))
    (rng,) = _ranges(r, "offset_rewind")
    assert rng[0] == "t-0" and rng[1] == last and rng[3] is True and rng[2] > last
    (f,) = [f for f in r.findings if f["kind"] == "offset_rewind"]
    assert "estimated" in f["title"] and "an estimate" in f["explanation"]
    assert _ranges(r, "offset_skip") == []


def test_resume_after_restart_catching_up_is_not_a_skip():
    """A consumer restarted after a pause resumes from the committed offset and works through its
    backlog; a 0.9-1.0 consumer logs that resume as `Resetting offset for partition X to the committed
    offset N` (Fetcher, DEBUG). Its commits then advance in big steps: no offset was skipped."""
    a = Host("hostA/app.log", "c-a")
    a.join(T0, 1, "A", ["t-0"])
    for i, off in enumerate((1_000, 1_200, 1_400)):
        a.ev(T0 + 5_000 * (i + 1), "offset_committed", topic="t", partition=0, offset=off)
    a.ev(T0 + 16_000, "leave_group", member_id="A", reason="the consumer is being closed")
    # restarted an hour later; commits made meanwhile by a host whose logs are not here
    a.join(T0 + 3_600_000, 3, "A2", ["t-0"])
    a.ev(T0 + 3_600_200, "offset_reset", topic="t", partition=0, offset=9_000,
         raw="Resetting offset for partition t-0 to the committed offset 9000")
    for i, off in enumerate((15_000, 21_000, 21_200)):
        a.ev(T0 + 3_605_000 + 5_000 * i, "offset_committed", topic="t", partition=0, offset=off)
    r = replay_group(merged(a))
    assert _ranges(r, "offset_skip") == [] and _ranges(r, "offset_rewind") == []


def test_skip_from_zero_without_committed_offset_is_estimated():
    a = Host("hostA/app.log", "c-a")
    a.join(T0, 1, "A", ["t-1"])
    a.ev(T0 + 200, "no_committed_offset", topic="t", partition=1)
    a.ev(T0 + 210, "offset_reset", topic="t", partition=1, offset=1_079,
         raw="Resetting offset for partition t-1 to position FetchPosition{offset=1079, offsetEpoch=Optional.empty}.")
    r = replay_group(merged(a))
    assert _ranges(r, "offset_skip") == [("t-1", 0, 1_079, True)]
    (f,) = [f for f in r.findings if f["kind"] == "offset_skip"]
    assert "estimated" in f["title"] and "no line states the log's start offset" in f["explanation"]


def _rejoin(auto_commit: str | None) -> list:
    """A keeps t-0 across a rebalance (eager: revoked, assigned again); its last commit is 1 s before
    the revocation (within the 2 s clock-skew tolerance of the dump's broker clock)."""
    a, dump = Host("hostA/app.log", "c-a"), Host("dump/offsets.txt", side="offsets")
    if auto_commit is not None:
        a.ev(T0 - 1_000, "client_config", extra={"settings": {"enable.auto.commit": auto_commit}})
    a.join(T0, 1, "A", ["t-0"])
    _dump_commits(dump, T0 + 5_000, T0 + 30_000, 5_000, 1_000, 100)          # last: 3500 at T0+30 s
    a.revoke(T0 + 31_000, ["t-0"])
    a.join(T0 + 31_100, 2, "A", ["t-0"])
    a.ev(T0 + 31_300, "offset_fetched", topic="t", partition=0, offset=3_500)
    dump.ev(T0 + 36_000, "offset_record", topic="t", partition=0, offset=4_000)
    return merged(a, dump)


def test_same_member_rejoining_with_manual_commits_reprocesses_an_estimated_range():
    """enable.auto.commit=false printed: the application's periodic commit 1 s before the revocation
    is not a commit on revocation; what A processed in that second is processed again (estimated)."""
    assert _ranges(replay_group(_rejoin("false")), "offset_rewind") == [("t-0", 3_500, 3_600, True)]
    # auto-commit (printed, or Kafka's default when nothing is printed) commits in onJoinPrepare: the
    # commit within the clock-skew tolerance of the revocation is that commit, nothing is lost
    assert _ranges(replay_group(_rejoin("true")), "offset_rewind") == []
    assert _ranges(replay_group(_rejoin(None)), "offset_rewind") == []


def test_auto_commit_on_revocation_loses_nothing():
    a, dump = Host("hostA/app.log", "c-a"), Host("dump/offsets.txt", side="offsets")
    a.join(T0, 1, "A", ["t-0"])
    _dump_commits(dump, T0 + 5_000, T0 + 30_000, 5_000, 1_000, 100)
    dump.ev(T0 + 32_990, "offset_record", topic="t", partition=0, offset=3_799)  # onJoinPrepare's commit
    a.revoke(T0 + 33_000, ["t-0"])
    a.join(T0 + 33_100, 2, "A", ["t-0"])
    a.ev(T0 + 33_300, "offset_fetched", topic="t", partition=0, offset=3_799)
    assert _ranges(replay_group(merged(a, dump)), "offset_rewind") == []


def test_owner_leaving_on_a_poll_timeout_stopped_fetching_max_poll_interval_before():
    """KIP-62: the heartbeat thread leaves the group when poll() was not called for max.poll.interval.ms;
    the member fetched nothing after its last poll, so its lost progress ends there (estimated)."""
    a, b, dump = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b"), Host("dump/offsets.txt", side="offsets")
    a.join(T0, 1, "A", ["t-0"])
    _dump_commits(dump, T0 + 5_000, T0 + 30_000, 5_000, 1_000, 100)          # last: 3500 at T0+30 s
    a.ev(T0 + 95_000, "poll_timeout", member_id="A")                         # last poll at T0+35 s
    a.ev(T0 + 95_010, "leave_group", member_id="A", reason="consumer poll timeout has expired")
    b.join(T0 + 96_000, 2, "B", ["t-0"])
    b.ev(T0 + 96_200, "offset_fetched", topic="t", partition=0, offset=3_500)
    dump.ev(T0 + 101_000, "offset_record", topic="t", partition=0, offset=4_500)
    r = replay_group(merged(a, b, dump), ReplaySettings(max_poll_interval_ms=60_000))
    assert _ranges(r, "offset_rewind") == [("t-0", 3_500, 4_000, True)]      # 100 records/s x 5 s
