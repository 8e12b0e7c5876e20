"""A member whose log is quiet for longer than its session, then rejoins with the same member id:
the same process, alive all along (heartbeats and commits are DEBUG lines), not a crashed one.

A Java consumer at INFO logs nothing between rebalances; a cooperative member that rejoins on its
own (a metadata change, 2.4-3.0) logs only "(Re-)joining group", and a pasted excerpt may lack the
eager revocation line. A restarted process always gets a new member id (the id holds a UUID; a
static member is given a new one too), so an unchanged id proves the process lived on: its
partitions were not dropped at its last line, and nobody was without them for an hour."""

from __future__ import annotations

import pytest

from pipeline.replay import replay_group
from tests.replay.builders import Host, merged
from tests.replay.scenarios import T0

HOUR = 3_600_000


def quiet_then_rejoin(protocol: str, second_id: str) -> list:
    a = Host("hostA/app.log", "c-a")
    a.ev(T0, "join_started")
    a.ev(T0 + 100, "join_succeeded", member_id="A", generation=1, protocol=protocol)
    a.ev(T0 + 200, "partitions_assigned", partitions=["t-0", "t-1"])
    a.ev(T0 + HOUR, "join_started")                      # nothing logged for an hour before it
    a.ev(T0 + HOUR + 100, "join_succeeded", member_id=second_id, generation=2, protocol=protocol)
    a.ev(T0 + HOUR + 200, "partitions_assigned", partitions=["t-0", "t-1"])
    a.ev(T0 + 2 * HOUR, "offset_committed", partitions=["t-0"], offset=5)
    return merged(a)


def rows(r) -> list[tuple]:
    return sorted((o["topic"], o["partition"], o["member_id"], o["generation"], o["start_ms"] - T0,
                   o["end_ms"] - T0, o["end_reason"]) for o in r.ownership)


def test_an_eager_member_back_with_its_id_gave_its_partitions_up_when_it_rejoined():
    r = replay_group(quiet_then_rejoin("range", "A"))
    # one member's log: why generation 2 formed is not in it (a 'leader rejoined' guess was made of
    # an unproven lone leader); nothing about ownership
    assert [(f["kind"], f["generation"]) for f in r.findings] == [("unexplained", 2)]
    assert rows(r) == [("t", 0, "A", 1, 200, HOUR, "revoked"), ("t", 0, "A", 2, HOUR + 200, 2 * HOUR, "log_end"),
                       ("t", 1, "A", 1, 200, HOUR, "revoked"), ("t", 1, "A", 2, HOUR + 200, 2 * HOUR, "log_end")]
    assert [m["member_id"] for m in r.memberships] == ["A", "A"]


def test_a_cooperative_member_back_with_its_id_kept_its_partitions():
    r = replay_group(quiet_then_rejoin("cooperative-sticky", "A"))
    # one member's log: why generation 2 formed is not in it (a 'leader rejoined' guess was made of
    # an unproven lone leader); nothing about ownership
    assert [(f["kind"], f["generation"]) for f in r.findings] == [("unexplained", 2)]
    assert rows(r) == [("t", 0, "A", 1, 200, 2 * HOUR, "log_end"), ("t", 1, "A", 1, 200, 2 * HOUR, "log_end")]


@pytest.mark.parametrize("protocol", ["range", "cooperative-sticky"])
def test_a_new_member_id_after_the_silence_is_a_new_process(protocol):
    # the old process went quiet and a new one (new id) joined an hour later: the old member's
    # partitions ended with it (its expiry, inferred from its session), not at the rejoin
    r = replay_group(quiet_then_rejoin(protocol, "A2"))
    old = [row for row in rows(r) if row[2] == "A"]
    assert old and all(row[6] == "session_expiry" and row[5] == 200 + 45_000 for row in old)
    assert [f["members"] for f in r.findings if f["kind"] == "session_expiry"] == [["A"]]


def test_kafka_2_6_cooperative_lines_an_hour_apart_keep_one_owner(tmp_path):
    """The same story in Kafka 2.6's own INFO lines (AbstractCoordinator, ConsumerCoordinator
    "Updating assignment with ..."), parsed: before, the ownership table ended both partitions at
    10:00:00.170 ("process_gone") and had nobody own them afterwards."""
    from parsers import parse_path

    member = "consumer-g-1-5c3f2a77-1b1e-4a57-9d6e-0b8d2f3c9e11"
    prefix, pkg = "[Consumer clientId=consumer-g-1, groupId=g] ", "org.apache.kafka.clients.consumer.internals."

    def rebalance(ts: str, gen: int, owned: str, added: str) -> list[str]:
        g = f"Generation{{generationId={gen}, memberId='{member}', protocol='cooperative-sticky'}}"
        return [f"[{ts},000] INFO {prefix}(Re-)joining group ({pkg}AbstractCoordinator)",
                f"[{ts},100] INFO {prefix}Successfully joined group with generation {g} ({pkg}AbstractCoordinator)",
                f"[{ts},150] INFO {prefix}Successfully synced group in generation {g} ({pkg}AbstractCoordinator)",
                f"[{ts},160] INFO {prefix}Updating assignment with",
                "\tAssigned partitions:                       [t-0, t-1]",
                f"\tCurrent owned partitions:                  {owned}",
                f"\tAdded partitions (assigned - owned):       {added}",
                "\tRevoked partitions (owned - assigned):     []",
                f" ({pkg}ConsumerCoordinator)",
                f"[{ts},170] INFO {prefix}Adding newly assigned partitions: {added.strip('[]')} ({pkg}ConsumerCoordinator)"]

    log = tmp_path / "app.log"
    log.write_text("\n".join(rebalance("2024-03-01 10:00:00", 1, "[]", "[t-0, t-1]")
                             + rebalance("2024-03-01 11:00:00", 2, "[t-0, t-1]", "[]")) + "\n")
    outcomes, _ = parse_path(str(log))
    r = replay_group([o.event for o in outcomes if o.event is not None])
    t0 = 1_709_287_200_000          # 2024-03-01 10:00:00 UTC
    assert sorted((o["partition"], o["member_id"], o["start_ms"] - t0, o["end_ms"] - t0, o["end_reason"])
                  for o in r.ownership) == [(0, member, 170, HOUR + 170, "log_end"), (1, member, 170, HOUR + 170, "log_end")]
    # one member's log: why generation 2 formed is not in it (a 'leader rejoined' guess was made of
    # an unproven lone leader); nothing about ownership
    assert [(f["kind"], f["generation"]) for f in r.findings] == [("unexplained", 2)]
