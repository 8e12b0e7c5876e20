"""When the member whose removal formed a generation was the group's last one, nobody took its
partitions over: a finding must not say they were reassigned (or "given to others"). The group's
emptiness is what kafka.coordinator.group.GroupCoordinator (2.x-3.x) prints as "Group G with
generation N is now empty"; and the other direction: with members left, the partitions were
reassigned in that generation."""

from __future__ import annotations

from pipeline.replay import replay_group
from tests.replay import scenarios as S
from tests.replay.builders import Host, merged
from tests.replay.test_broker_only import T0, _broker, empty, three_x


def _one(findings: list[dict], kind: str) -> dict:
    found = [f for f in findings if f["kind"] == kind]
    assert len(found) == 1, [f["kind"] for f in findings]
    return found[0]


def test_expiry_of_the_last_member_does_not_claim_a_reassignment():
    k = _broker()
    k.failed(T0 + 5_000, "X")
    k.preparing(T0 + 5_000, 1, "removing member X on heartbeat expiration")
    empty(k, T0 + 5_000, 2)
    f = _one(replay_group(merged(k)).findings, "session_expiry")
    assert (f["generation"], f["start_ms"]) == (1, T0 + 5_000)
    assert "were reassigned" not in f["explanation"]
    assert "Generation 2 has no member (the group became empty), so its partitions were not reassigned" \
        in f["explanation"]


def test_expiry_with_members_left_names_the_generation_that_took_the_partitions():
    f = _one(replay_group(three_x()).findings, "session_expiry")
    assert f["members"] == ["C"] and f["start_ms"] == T0 + 60_000
    assert f["explanation"].endswith(" Its partitions were reassigned in generation 2.")
    assert "no member" not in f["explanation"]


def _lone_poll_timeout() -> list:
    """B alone in generation 1 exceeds max.poll.interval.ms and leaves; the broker empties the group."""
    b, k = Host("hostB/app.log", "c-b"), _broker()
    b.join(T0, 1, "B", ["t-0", "t-1"])
    k.stabilized(T0 + 5, 1, 1)
    b.ev(T0 + 311_000, "poll_timeout")
    b.ev(T0 + 311_001, "leave_group", member_id="B", reason="consumer poll timeout has expired.")
    k.preparing(T0 + 311_002, 1, "removing member B on LeaveGroup; client reason: consumer poll timeout has expired.")
    empty(k, T0 + 311_002, 2)
    return merged(b, k)


def test_poll_timeout_of_the_last_member_gives_its_partitions_to_nobody():
    r = replay_group(_lone_poll_timeout())
    assert [(g["generation"], g["member_count"]) for g in r.generations] == [(1, 1), (2, 0)]
    f = _one(r.findings, "poll_timeout")
    assert f["members"] == ["B"] and f["start_ms"] == T0 + 311_000
    assert "given to others" not in f["explanation"] and "new owner" not in f["explanation"]
    assert "no member was left, so its partitions have no owner until a member joins again" in f["explanation"]


def test_poll_timeout_with_a_member_left_gives_its_partitions_to_others():
    f = _one(replay_group(S.poll_timeout()).findings, "poll_timeout")
    assert f["members"] == ["B"]
    assert "its partitions were given to others" in f["explanation"]
    assert "processed again by the new owner" in f["explanation"]
    assert "no member was left" not in f["explanation"]
