"""Named hand-written scenarios, each a list of events with a known story."""

from __future__ import annotations

from parsers.events import Event
from tests.replay.builders import Host, merged

T0 = 1_700_000_000_000


def stable_pair(a: Host, b: Host, gen: int = 2, t: int = T0) -> None:
    """Members A (leader) and B share t-0..t-3 in `gen` (A joined alone in gen-1)."""
    a.join(t, gen - 1, "A", ["t-0", "t-1", "t-2", "t-3"])
    b.ev(t + 10_000, "join_started")
    a.revoke(t + 10_500, ["t-0", "t-1", "t-2", "t-3"])
    a.ev(t + 10_501, "join_started")
    b.ev(t + 11_000, "join_succeeded", member_id="B", generation=gen, protocol="range")
    a.ev(t + 11_000, "join_succeeded", member_id="A", generation=gen, protocol="range", extra={"is_leader": True})
    a.ev(t + 11_050, "sync_succeeded", member_id="A", generation=gen, protocol="range")
    b.ev(t + 11_060, "sync_succeeded", member_id="B", generation=gen, protocol="range")
    a.ev(t + 11_070, "partitions_assigned", partitions=("t-0", "t-1"))
    b.ev(t + 11_080, "partitions_assigned", partitions=("t-2", "t-3"))


def member_left() -> list[Event]:
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    stable_pair(a, b)
    b.revoke(T0 + 60_000, ["t-2", "t-3"])
    b.ev(T0 + 60_010, "leave_group", member_id="B", reason="the consumer is being closed")
    a.revoke(T0 + 61_000, ["t-0", "t-1"])
    a.join(T0 + 61_001, 3, "A", ["t-0", "t-1", "t-2", "t-3"])
    return merged(a, b)


def poll_timeout() -> list[Event]:
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    stable_pair(a, b)
    b.ev(T0 + 311_000, "poll_timeout")
    b.ev(T0 + 311_001, "leave_group", member_id="B", reason="consumer poll timeout has expired.")
    a.revoke(T0 + 312_000, ["t-0", "t-1"])
    a.join(T0 + 312_001, 3, "A", ["t-0", "t-1", "t-2", "t-3"])
    return merged(a, b)


def session_expiry_broker() -> list[Event]:
    """B stops heartbeating (GC pause); the broker expires it; B wakes up and loses its partitions late."""
    a, b, k = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b"), Host("broker1/server.log", side="broker")
    stable_pair(a, b)
    k.assignment(T0 + 11_055, 2, "A")
    b.heartbeats(T0 + 12_000, T0 + 21_000)              # last heartbeat at T0+21000
    k.failed(T0 + 66_000, "B")
    k.preparing(T0 + 66_000, 2, "removing member B on heartbeat expiration")
    a.ev(T0 + 67_000, "heartbeat_failed", error="REBALANCE_IN_PROGRESS")
    a.revoke(T0 + 67_010, ["t-0", "t-1"])
    a.join(T0 + 67_020, 3, "A", ["t-0", "t-1", "t-2", "t-3"])
    k.stabilized(T0 + 67_120, 3, 1)
    k.assignment(T0 + 67_170, 3, "A")
    b.ev(T0 + 90_000, "heartbeat_failed", error="UNKNOWN_MEMBER_ID")
    b.ev(T0 + 90_010, "partitions_lost", partitions=("t-2", "t-3"))
    return merged(a, b, k)


def session_expiry_inferred() -> list[Event]:
    """Same story without broker logs: B's host simply goes quiet (crash)."""
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    stable_pair(a, b)
    b.heartbeats(T0 + 12_000, T0 + 21_000)
    a.heartbeats(T0 + 12_000, T0 + 66_000)
    a.ev(T0 + 67_000, "heartbeat_failed", error="REBALANCE_IN_PROGRESS")
    a.revoke(T0 + 67_010, ["t-0", "t-1"])
    a.join(T0 + 67_020, 3, "A", ["t-0", "t-1", "t-2", "t-3"])
    return merged(a, b)


def static_restart() -> list[Event]:
    a = Host("hostA/app.log", "c-a")
    b = Host("hostB/app.log", "c-b")
    a.join(T0, 1, "A", ["t-0", "t-1"], instance_id="inst-a")
    b.ev(T0 + 1_000, "join_started", instance_id="inst-b")
    a.revoke(T0 + 1_100, ["t-0", "t-1"])
    a.ev(T0 + 1_101, "join_started")
    b.ev(T0 + 2_000, "join_succeeded", member_id="B1", generation=2, protocol="range", instance_id="inst-b")
    a.ev(T0 + 2_000, "join_succeeded", member_id="A", generation=2, protocol="range", instance_id="inst-a")
    b.ev(T0 + 2_050, "sync_succeeded", member_id="B1", generation=2)
    a.ev(T0 + 2_050, "sync_succeeded", member_id="A", generation=2)
    b2 = Host("hostB/app.log.restarted", "c-b")
    b2.ev(T0 + 20_000, "join_started", instance_id="inst-b")
    a.ev(T0 + 20_500, "join_started")
    b2.ev(T0 + 21_000, "join_succeeded", member_id="B2", generation=3, protocol="range", instance_id="inst-b")
    a.ev(T0 + 21_000, "join_succeeded", member_id="A", generation=3, protocol="range")
    return merged(a, b, b2)


def broker_reason(reason: str) -> list[Event]:
    a, b, k = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b"), Host("broker1/server.log", side="broker")
    stable_pair(a, b)
    k.preparing(T0 + 100_000, 2, reason)
    a.join(T0 + 100_100, 3, "A", ["t-0", "t-1"])
    b.join(T0 + 100_100, 3, "B", ["t-2", "t-3"])
    return merged(a, b, k)


def coordinator_failover() -> list[Event]:
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    a.ev(T0 - 1_000, "coordinator_discovered", coordinator="1")
    b.ev(T0 - 1_000, "coordinator_discovered", coordinator="1")
    stable_pair(a, b)
    for h in (a, b):
        h.ev(T0 + 30_000, "coordinator_lost", coordinator="1", reason="error response NOT_COORDINATOR")
        h.ev(T0 + 30_500, "coordinator_discovered", coordinator="2")
    a.join(T0 + 35_000, 3, "A", ["t-0", "t-1"])
    b.join(T0 + 35_010, 3, "B", ["t-2", "t-3"])
    return merged(a, b)


def unknown_cause() -> list[Event]:
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    a.join(T0, 5, "A", ["t-0", "t-1"])
    b.join(T0, 5, "B", ["t-2", "t-3"])
    a.join(T0 + 40_000, 6, "A", ["t-0", "t-1"])
    b.join(T0 + 40_000, 6, "B", ["t-2", "t-3"])
    return merged(a, b)


def storm(n: int = 6, every_ms: int = 20_000) -> list[Event]:
    """B crash-loops: joins, is killed, rejoins as a new member; the broker logs every rebalance."""
    k = Host("broker1/server.log", side="broker")
    a = Host("hostA/app.log", "c-a")
    a.join(T0, 1, "A", ["t-0", "t-1"])
    t = T0 + 1_000
    for i in range(n):
        g = 2 + i
        mid = f"B{i}"
        if i % 2 == 0:
            k.preparing(t, g - 1, f"Adding new member {mid} with group instance id None; client reason: not provided")
        else:
            k.preparing(t, g - 1, f"removing member B{i - 1} on heartbeat expiration")
        k.stabilized(t + 100, g, 2)
        k.assignment(t + 150, g, "A")
        t += every_ms
    return merged(a, k)


def stuck() -> list[Event]:
    """A rebalance waits 400 s for a member stuck in a long poll loop (max.poll.interval.ms 300000)."""
    a, b, k = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b"), Host("broker1/server.log", side="broker")
    stable_pair(a, b)
    k.preparing(T0 + 20_000, 2, "Adding new member C with group instance id None; client reason: not provided")
    k.stabilized(T0 + 420_000, 3, 2)
    k.assignment(T0 + 420_100, 3, "A")
    return merged(a, b, k)


def fenced() -> list[Event]:
    a = Host("hostA/app.log", "c-a")
    a.join(T0, 1, "A", ["t-0"], instance_id="inst-a")
    a.ev(T0 + 5_000, "heartbeat_failed", error="FENCED_INSTANCE_ID", instance_id="inst-a")
    return merged(a)


def inconsistent_protocol() -> list[Event]:
    a, c = Host("hostA/app.log", "c-a"), Host("hostC/app.log", "c-c")
    a.join(T0, 1, "A", ["t-0"])
    c.ev(T0 + 5_000, "join_failed", error="INCONSISTENT_GROUP_PROTOCOL", protocol="roundrobin")
    return merged(a, c)


def rewind_after_failed_commit() -> list[Event]:
    """A commits 100, processes to 150, its commit of 150 fails (rebalance); B resumes at 100."""
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    a.join(T0, 1, "A", ["t-0"])
    a.ev(T0 + 1_000, "offset_committed", topic="t", partition=0, offset=100)
    a.ev(T0 + 9_000, "offset_commit_failed", topic="t", partition=0, offset=150, error="ILLEGAL_GENERATION",
         generation=1)
    b.ev(T0 + 9_500, "offset_fetched", topic="t", partition=0, offset=100)
    return merged(a, b)


def skip_after_reset() -> list[Event]:
    """The dump shows a commit of 200; later the offsets expired and the consumer reset to latest (500)."""
    d, a = Host("dump/offsets.txt", side="offsets"), Host("hostA/app.log", "c-a")
    d.ev(T0, "offset_record", topic="t", partition=0, offset=200)
    a.ev(T0 + 86_400_000, "no_committed_offset", topic="t", partition=0)
    a.ev(T0 + 86_400_001, "offset_reset", topic="t", partition=0, offset=500, reason="latest")
    return merged(d, a)


def unowned() -> list[Event]:
    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    a.join(T0, 1, "A", ["t-0"])
    a.revoke(T0 + 10_000, ["t-0"])
    a.ev(T0 + 10_001, "leave_group", member_id="A", reason="the consumer is being closed")
    b.join(T0 + 100_000, 2, "B", ["t-0"])
    return merged(a, b)


def generation_gap() -> list[Event]:
    a = Host("hostA/app.log", "c-a")
    a.join(T0, 3, "A", ["t-0"])
    a.join(T0 + 30_000, 6, "A", ["t-0"])
    return merged(a)
