"""A broker older than 2.2 does not log every removal, so a member named in one generation cannot be
carried into the next on the strength of "no removal logged since".

GroupCoordinator logs an expiry ("Member X in group G has failed, removing it from the group") at
INFO from 1.0 (TRACE/DEBUG in 0.9-0.11), a LeaveGroup ("has left, removing it") at INFO from 2.2
(DEBUG before), and prints the rebalance reason in "Preparing to rebalance ... (reason: ...)" from 2.2
(kafka.coordinator.group.GroupCoordinator, tags 0.10.2.1, 1.0.0, 2.1.0, 2.2.0). With 0.10's lines
("Preparing to restabilize group G with old generation N", no member named anywhere) and a pre-1.0
client that crash-loops (no member id in its lines either), the replay used to keep the first process
in the next generation and place its expiry one rebalance late: "session_expiry" stated for a
rebalance a new process's join began, and a partition "had no owner for 2.2 min" stated as proven
(sample_logs/rebalance_storm, search-indexer-4.log with kafka-1-server.log)."""

from __future__ import annotations

import json

from pipeline.replay import replay_group
from tests.replay.builders import Host, merged

T0 = 1_700_000_000_000
G = "payments"


def _old_broker(with_reasons: bool) -> Host:
    """Three rebalances of a group whose broker names no member: 0.10 wording, or 2.2+ wording (with
    the reasons such a broker prints, which name nobody here either)."""
    k = Host("broker1/server.log", side="broker")
    for ts, old in ((T0, 0), (T0 + 60_000, 1), (T0 + 150_000, 2)):
        if with_reasons:
            k.preparing(ts, old, "triggered by a test")
        else:
            k.ev(ts, "broker_rebalance_preparing", generation=old,
                 raw=f"[GroupCoordinator 1]: Preparing to restabilize group {G} with old generation {old}")
        k.ev(ts + 2_000, "broker_group_stabilized", generation=old + 1,
             raw=f"[GroupCoordinator 1]: Stabilized group {G} generation {old + 1}")
    return k


def _crash_looping_client() -> Host:
    """A 0.10 client (no member id in its lines): its first process joins generation 1 and holds t-0,
    logs nothing more, and a new process on the host joins generation 3."""
    c = Host("worker-1.log", client_id="consumer-1")
    c.join(T0 + 1_000, 1, None, ["t-0"])
    c.join(T0 + 149_990, 3, None, ["t-0"])
    return c


def _replay(with_reasons: bool):
    events = sorted(merged(_old_broker(with_reasons), _crash_looping_client()), key=lambda e: e.ts_ms or 0)
    r = replay_group(events)
    return r, {g["generation"]: g for g in r.generations}


def test_a_pre_2_2_broker_carries_no_member_into_a_generation_no_line_names_it_in():
    r, gens = _replay(with_reasons=False)
    first, second = "consumer-1@worker-1.log", "consumer-1@worker-1.log#2"
    assert gens[1]["members"] == [first]
    # generation 2: the first process may have expired at its rebalance (the broker would not say)
    assert gens[2]["members"] == [] and gens[2]["member_count"] is None
    # generation 3: the new process's join; the old one's expiry is not placed here with confidence
    assert gens[3]["members"] == [second]
    assert not (gens[3]["cause"] == "session_expiry" and gens[3]["trigger_member"] == first)
    assert gens[2]["cause"] == "unknown" and gens[3]["cause"] in ("unknown", "member_joined")
    # t-0's gap: from the old process's last line to the new one's assignment, an upper bound only
    gaps = [f for f in r.findings if f["kind"] == "unowned_partitions"]
    assert gaps and all(f["title"].endswith("(unproven)") for f in gaps)
    assert all(json.loads(f["details_json"]).get("first_owner_end") == "last_line" for f in gaps)


def test_a_2_2_broker_that_logs_removals_carries_the_member_on():
    # the same lines from a broker that prints reasons (2.2+): it logs every removal at INFO, and none
    # is logged, so the first process was still a member of generation 2
    _r, gens = _replay(with_reasons=True)
    assert gens[2]["members"] == ["consumer-1@worker-1.log"]


def test_an_unexplained_rebalance_on_an_old_broker_asks_for_the_reason_not_for_the_log_it_has():
    # the broker's log is in the input; its 0.10 "Preparing to restabilize" line prints no reason (the
    # reason is printed from 2.2): asking for "the broker GroupCoordinator log" would be untrue
    _r, gens = _replay(with_reasons=False)
    detail = gens[2]["cause_detail"]
    assert "broker GroupCoordinator log" not in detail
    assert "which the broker's 'Preparing to rebalance' line prints from Kafka 2.2 (this broker's line has none)" in detail


def test_generation_1_from_a_broker_log_alone_is_formed_by_joins():
    # a classic group starts empty at generation 0 (GroupMetadata): its first generation is formed by
    # members joining, even when no line names them (0.10 lines name nobody); the later ones stay unknown
    events = _old_broker(with_reasons=False).events
    gens = {g["generation"]: g for g in replay_group(events).generations}
    assert (gens[1]["cause"], gens[1]["trigger_member"], gens[1]["members"]) == ("member_joined", None, [])
    assert gens[2]["cause"] == gens[3]["cause"] == "unknown"


def test_a_rebalance_the_given_broker_log_does_not_show_asks_for_the_coordinator_of_then(repo_root):
    # sample coordinator_failover: broker 1 coordinated the group until it failed, broker 3 after; with
    # broker 1's log and the dump, generation 2 (formed on broker 3) is known from the dump only: the
    # missing evidence is the log of the broker that coordinated the group then, not "the broker log"
    # the input already holds
    from tests.replay.test_partial_logs_truth import _events

    folder = repo_root / "sample_logs" / "coordinator_failover"
    events = sorted((e for n in ("kafka-1-server.log", "consumer-offsets-dump.txt") for e in _events(folder / n)
                     if e.group_id == "shipping-router"), key=lambda e: e.ts_ms or 0)
    gens = {g["generation"]: g for g in replay_group(events).generations}
    assert gens[2]["cause"] == "unknown"
    assert ("missing evidence: the GroupCoordinator log of the broker that coordinated the group then (its "
            "'Preparing to rebalance' line names the reason; the broker logs here do not show this rebalance)"
            in gens[2]["cause_detail"])


def test_an_expiry_no_line_times_is_a_window_when_a_survivor_rejoins_much_later(repo_root):
    # sample rebalance_storm, the client logs of hosts 1 and 4 only (0.10: no member ids, no broker):
    # host 4's first process logs its last Kafka line at 02:00:04 and crashes at 02:02:00; it was
    # expired at 02:02:09, when host 1 rejoined. Before: "expelled" at 02:00:14 (last line + 10 s) with
    # "its heartbeats stopped about 10.0 s before it was removed", and the rebalance "took 117.4 s"
    from tests.replay.test_partial_logs_truth import _events

    folder = repo_root / "sample_logs" / "rebalance_storm"
    events = sorted((e for n in ("search-indexer-1.log", "search-indexer-4.log") for e in _events(folder / n)
                     if e.group_id == "search-indexer"), key=lambda e: e.ts_ms or 0)
    r = replay_group(events)
    g3 = next(g for g in r.generations if g["generation"] == 3)
    assert g3["cause"] == "session_expiry" and g3["rebalance_ms"] is None
    assert "No line times the expiry" in g3["cause_detail"] and "heartbeats stopped about" not in g3["cause_detail"]
    exp = next(f for f in r.findings if f["kind"] == "session_expiry" and f["generation"] == 2)
    d = json.loads(exp["details_json"])
    assert d["expiry_time"] == "estimated_window" and d["silence_ms"] is None
    assert "the time given is the earliest it can have been" in exp["explanation"]
    assert exp["explanation"].count("earliest it can have been") == 2   # the cause's and its time's, not a third
