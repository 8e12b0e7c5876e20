"""'rebalance to generation N never completed' only when nothing shows the generation Stable.

A member joins generation 2 and then commits offsets every 5 s for 16 minutes, but the lines that
say its SyncGroup completed ("Successfully synced group", "Adding newly assigned partitions") are
not in the excerpt. The coordinator accepts a member's commit only outside CompletingRebalance
(GroupCoordinator.handleCommitOffsets: REBALANCE_IN_PROGRESS while the group awaits the leader's
SyncGroup), so the rebalance completed: no "rebalance_stuck" (it said "never completed", high)."""

from __future__ import annotations

from pipeline.replay import replay_group
from tests.replay.builders import Host, merged
from tests.replay.scenarios import T0


def join_without_sync(first_commit_after_ms: int | None) -> list:
    a = Host("hostA/app.log", "c-a")
    a.join(T0, 1, "A", ["t-0"])
    a.ev(T0 + 60_000, "join_started")
    a.ev(T0 + 60_100, "join_succeeded", member_id="A", generation=2, protocol="range")
    if first_commit_after_ms is None:
        a.ev(T0 + 1_060_100, "heartbeat_sent")            # alive, but nothing shows Stable
    else:
        for i in range(200):
            a.ev(T0 + 60_100 + first_commit_after_ms + i * 5_000, "offset_committed", partitions=["t-0"],
                 offset=100 + i)
    return merged(a)


def stuck(events) -> list[dict]:
    return [f for f in replay_group(events).findings if f["kind"] == "rebalance_stuck"]


def test_commits_in_the_generation_show_it_completed():
    assert stuck(join_without_sync(5_000)) == []
    # a first commit 10 min after the join: Stable by then, when exactly is not in the logs
    assert stuck(join_without_sync(600_000)) == []


def test_without_any_sign_of_stable_it_is_still_reported():
    (f,) = stuck(join_without_sync(None))
    assert f["title"] == "rebalance to generation 2 never completed" and f["severity"] == "high"
