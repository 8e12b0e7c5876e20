"""Shared drivers for the coordinator tests (the settings of Kafka's GroupCoordinatorTest)."""

from __future__ import annotations

from pipeline.coordinator import CoordinatorConfig, GroupCoordinator

GROUP = "groupId"
OTHER_GROUP = "otherGroup"  # __consumer_offsets partition 1: not owned in these tests
PROTOCOLS = (("range", b""),)


def make(impl: str = "scala", **overrides) -> GroupCoordinator:
    settings = dict(
        impl=impl,
        group_min_session_timeout_ms=10,
        group_max_session_timeout_ms=600000,
        group_max_size=4,
        group_initial_rebalance_delay_ms=50,
        offsets_topic_num_partitions=2,
        owned_offsets_partitions=frozenset({0}),
    )
    settings.update(overrides)
    return GroupCoordinator(CoordinatorConfig(**settings))


def join(c: GroupCoordinator, member: str = "", at: int | None = None, group: str = GROUP, **kw):
    kw.setdefault("protocols", PROTOCOLS)
    kw.setdefault("session_timeout_ms", 500)
    kw.setdefault("rebalance_timeout_ms", 500)
    kw.setdefault("require_known_member_id", False)
    kw.setdefault("client_id", "consumer-test")
    return c.join(group, member, now_ms=at, **kw)


def stable_group(c: GroupCoordinator, n: int = 1, at: int = 0, **kw) -> tuple[list[str], int]:
    """n dynamic members joined (one initial rebalance) and synced: (member ids, time reached)."""
    tickets = [join(c, at=at, **kw) for _ in range(n)]
    t = settle(c, tickets, at)
    ids = [tk.response.member_id for tk in tickets]
    gen = c.group(GROUP).generation
    leader = c.group(GROUP).leader
    c.sync(GROUP, leader, gen, assignment={m: f"a-{m}" for m in ids}, now_ms=t)
    for m in ids:
        if m != leader:
            c.sync(GROUP, m, gen, now_ms=t)
    c.drain_delivered()
    return ids, t


def settle(c: GroupCoordinator, tickets, at: int) -> int:
    """Advance timer by timer until every ticket is answered (the initial delay re-arms while
    members keep arriving); returns the time reached."""
    t = at
    while any(tk.pending for tk in tickets):
        t = c.next_deadline()
        assert t is not None, "parked requests but no timer left"
        c.advance_time(t)
    return t
