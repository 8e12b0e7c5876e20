"""rebalance_stuck, every part of what it says, at its thresholds.

The broker prepares a rebalance at +20 s (C joins); the group reaches Stable when the leader's
assignment arrives (GroupCoordinator.handleSyncGroup, "Assignment received from leader"), `took`
later; a later rebalance (D joins) starts 120 s after that, so the stuck generation's own end and
its Stable time differ. The limit is the rebalance timeout (max.poll.interval.ms since KIP-62,
AbstractCoordinator 0.10.1+), reported beyond it plus the clock-skew tolerance (2 s)."""

from __future__ import annotations

import json

from pipeline.replay import ReplaySettings, replay_group
from tests.replay.builders import Host, merged
from tests.replay.scenarios import T0, stable_pair

START = T0 + 20_000


def stuck_for(took: int, *, config: dict | None = None) -> list:
    a, b, k = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b"), Host("broker1/server.log", side="broker")
    if config:
        a.ev(T0 - 1_000, "client_config", extra={"settings": config})
    stable_pair(a, b)
    k.preparing(START, 2, "Adding new member C with group instance id None; client reason: not provided")
    k.stabilized(START + took - 100, 3, 2)
    k.assignment(START + took, 3, "A")
    k.preparing(START + took + 120_000, 3, "Adding new member D with group instance id None; client reason: not provided")
    return merged(a, b, k)


def never_completed(last_line_after: int) -> list:
    """No Stable after the prepare: B's log goes on `last_line_after` ms past it."""
    a, b, k = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b"), Host("broker1/server.log", side="broker")
    stable_pair(a, b)
    k.preparing(START, 2, "Adding new member C with group instance id None; client reason: not provided")
    a.ev(START + 500, "heartbeat_failed", error="REBALANCE_IN_PROGRESS")
    a.ev(START + 600, "join_started")
    b.ev(START + last_line_after, "heartbeat_sent")
    return merged(a, b, k)


def stuck(events, settings: ReplaySettings | None = None) -> list[dict]:
    return [f for f in replay_group(events, settings).findings if f["kind"] == "rebalance_stuck"]


WHY = (" (the JoinGroup's rebalanceTimeoutMs, i.e. max.poll.interval.ms). The coordinator waits that long for "
       "every member to rejoin; members still inside a long poll loop or a slow onPartitionsRevoked callback hold "
       "the whole group.")


def test_a_rebalance_longer_than_its_timeout_every_field():
    (f,) = stuck(stuck_for(400_100))
    assert (f["severity"], f["generation"], f["start_ms"], f["end_ms"]) == ("high", 3, START, START + 400_100)
    assert f["title"] == "rebalance to generation 3 took 6.7 min"
    assert f["members"] == ["B"]            # in generation 2, not in 3 (A and C): did not make it
    assert f["explanation"] == ("The rebalance that began at generation 2 took 6.7 min, beyond its rebalance timeout "
                                "of 300000 ms (assumed: not printed in the logs)" + WHY
                                + " Members that did not make it: B.")
    assert json.loads(f["details_json"]) == {"rebalance_ms": 400_100, "rebalance_timeout_ms": 300_000,
                                             "not_rejoined": ["B"]}
    assert f["evidence"] == ["broker1/server.log:1", "broker1/server.log:3", "broker1/server.log:2"]


def test_the_threshold_is_the_timeout_plus_the_skew_tolerance():
    assert stuck(stuck_for(302_000)) == []
    (f,) = stuck(stuck_for(302_001))
    assert f["title"] == "rebalance to generation 3 took 5.0 min"
    # the same against a timeout set for the replay (then not "assumed")
    assert stuck(stuck_for(400_100), ReplaySettings(max_poll_interval_ms=398_100)) == []
    (f,) = stuck(stuck_for(400_100), ReplaySettings(max_poll_interval_ms=398_099))
    assert "timeout of 398099 ms (the JoinGroup's" in f["explanation"]


def test_a_timeout_the_logs_print_or_the_user_sets_is_not_called_assumed():
    (printed,) = stuck(stuck_for(400_100, config={"max.poll.interval.ms": "300000"}))
    assert "beyond its rebalance timeout of 300000 ms (the JoinGroup's" in printed["explanation"]
    (set_rto,) = stuck(stuck_for(400_100), ReplaySettings(rebalance_timeout_ms=300_000))
    assert "assumed" not in set_rto["explanation"]


def test_a_rebalance_that_never_completed():
    assert stuck(never_completed(302_000)) == []
    (f,) = stuck(never_completed(302_001))
    assert (f["start_ms"], f["end_ms"], f["generation"]) == (START, START + 302_001, 3)
    assert f["title"] == "rebalance to generation 3 never completed"
    # A and B were told of the rebalance and C joins: nobody is known to be missing
    assert f["members"] == [] and "did not make it" not in f["explanation"]
    assert f["explanation"] == ("The rebalance that began at generation 2 did not complete in the logs, beyond its "
                                "rebalance timeout of 300000 ms (assumed: not printed in the logs)" + WHY)
    assert json.loads(f["details_json"]) == {"rebalance_ms": None, "rebalance_timeout_ms": 300_000,
                                             "not_rejoined": []}


def test_a_group_that_became_empty_before_is_still_judged_after():
    # generation 3 empties the group (its last member left); the stuck rebalance is the next one
    a, k = Host("hostA/app.log", "c-a"), Host("broker1/server.log", side="broker")
    a.join(T0, 1, "A", ["t-0"])
    k.preparing(T0 + 5_000, 1, "Removing member A on LeaveGroup; client reason: the consumer is being closed")
    k.ev(T0 + 5_010, "broker_group_empty", generation=2,
         raw="[GroupCoordinator 1]: Group payments with generation 2 is now empty (__consumer_offsets-12)")
    k.preparing(T0 + 60_000, 2, "Adding new member E with group instance id None; client reason: not provided")
    k.stabilized(T0 + 460_000, 3, 1)
    k.assignment(T0 + 460_100, 3, "E")
    (f,) = stuck(merged(a, k))
    assert (f["generation"], f["start_ms"], f["end_ms"]) == (3, T0 + 60_000, T0 + 460_100)


def test_logs_that_begin_inside_the_history_name_nobody_as_missing():
    # the first generation in the logs is 5 (the broker's prepare names old generation 4, of which
    # nothing else is known): still judged, and nobody is said not to have rejoined
    k = Host("broker1/server.log", side="broker")
    k.preparing(T0, 4, "Adding new member C with group instance id None; client reason: not provided")
    k.stabilized(T0 + 399_900, 5, 2)
    k.assignment(T0 + 400_000, 5, "C")
    (f,) = stuck(merged(k))
    assert (f["generation"], f["members"], f["title"]) == (5, [], "rebalance to generation 5 took 6.7 min")


def test_a_generation_shown_stable_by_commits_does_not_hide_a_later_stuck_one():
    # generation 3's Stable is not logged but A commits in it (so it completed: not reported);
    # generation 4's rebalance then takes 6.7 min
    a, k = Host("hostA/app.log", "c-a"), Host("broker1/server.log", side="broker")
    a.join(T0, 2, "A", ["t-0"])
    k.preparing(T0 + 10_000, 2, "Adding new member C with group instance id None; client reason: not provided")
    a.ev(T0 + 10_100, "join_started")
    a.ev(T0 + 10_200, "join_succeeded", member_id="A", generation=3, protocol="range")
    for i in range(70):
        a.ev(T0 + 15_000 + i * 5_000, "offset_committed", partitions=["t-0"], offset=100 + i)
    k.preparing(T0 + 400_000, 3, "Adding new member D with group instance id None; client reason: not provided")
    k.stabilized(T0 + 799_900, 4, 3)
    k.assignment(T0 + 800_000, 4, "A")
    assert [(f["generation"], f["title"]) for f in stuck(merged(a, k))] == [
        (4, "rebalance to generation 4 took 6.7 min")]


def test_a_client_log_that_begins_with_a_long_join():
    # nothing of generation 4 at all (no broker log): A's join to 5 took 6.7 min
    a = Host("hostA/app.log", "c-a")
    a.join(T0, 5, "A", ["t-0"], took=400_000)
    (f,) = stuck(merged(a))
    assert (f["generation"], f["start_ms"], f["end_ms"], f["members"]) == (5, T0, T0 + 400_050, [])


def test_a_0_9_client_waits_its_session_timeout_said_so():
    # JoinGroup v0 (clients before 0.10.1, KIP-62) carries no rebalance timeout: the coordinator
    # waits session.timeout.ms (default 30000 there). Before: "rebalance timeout of 30000 ms (the
    # JoinGroup's rebalanceTimeoutMs, i.e. max.poll.interval.ms)", an assumed value stated as fact
    import dataclasses

    events = [dataclasses.replace(e, kafka_version_hint="0.9.0.1") if e.side == "client" else e
              for e in stuck_for(400_100)]
    (f,) = stuck(events)
    assert ("beyond its rebalance timeout of 30000 ms (assumed: not printed in the logs) (session.timeout.ms: "
            "clients before Kafka 0.10.1 send no rebalance timeout, JoinGroup v0). The coordinator waits") in f["explanation"]
    assert "max.poll.interval.ms" not in f["explanation"]
