"""'unexplained' findings stated exactly: a rebalance whose cause the logs do not hold, generations
missing from the logs (one, or a run of them), with their spans, details and evidence."""

from __future__ import annotations

import json

from pipeline.replay import replay_group
from tests.replay import scenarios as S
from tests.replay.builders import Host, merged
from tests.replay.scenarios import T0

BROKER = "broker GroupCoordinator log (its 'Preparing to rebalance' line names the reason)"


def unexplained(events) -> list[dict]:
    return [f for f in replay_group(events).findings if f["kind"] == "unexplained"]


def test_a_cause_not_in_the_logs_spans_the_rebalance_to_stable():
    f5, f6 = unexplained(S.unknown_cause())
    assert (f6["generation"], f6["severity"], f6["start_ms"], f6["end_ms"]) == (6, "low", T0 + 40_000, T0 + 40_150)
    assert f6["title"] == "cause of the rebalance to generation 6 not in the logs"
    assert json.loads(f6["details_json"]) == {"missing": [BROKER, "a rejoin reason in the clients' logs (printed from Kafka 3.0)"]}
    assert f6["explanation"] == ("Nothing in the logs shows why generation 6 was formed; missing evidence: " + BROKER
                                 + "; a rejoin reason in the clients' logs (printed from Kafka 3.0). How long the "
                                 "rebalance took is not in the logs: no broker line and no line of the member that "
                                 "started it time its start; the first line of it in the logs comes 0.1 s before it "
                                 "was stable, so it took at least that.")
    assert f6["evidence"] == ["hostA/app.log:6", "hostB/app.log:6"]
    assert json.loads(f5["details_json"])["missing"][1] == "any log of generation 4 (the logs begin inside this history)"


def test_a_rebalance_never_stable_in_the_logs_spans_to_their_end():
    a = Host("hostA/app.log", "c-a")
    a.join(T0, 5, "A", ["t-0"])
    a.ev(T0 + 40_000, "join_started")
    a.ev(T0 + 40_100, "join_succeeded", member_id="A", generation=6, protocol="range")
    a.ev(T0 + 70_000, "heartbeat_sent")
    (f,) = [f for f in unexplained(merged(a)) if f["generation"] == 6]
    assert (f["start_ms"], f["end_ms"]) == (T0 + 40_000, T0 + 70_000)


def test_one_missing_generation():
    a = Host("hostA/app.log", "c-a")
    a.join(T0, 3, "A", ["t-0"])
    a.join(T0 + 30_000, 5, "A", ["t-0"])
    gap = [f for f in unexplained(merged(a)) if "missing from the logs" in f["title"]]
    assert [(f["generation"], f["title"], f["start_ms"], f["end_ms"]) for f in gap] == [
        (4, "generation 4 missing from the logs", T0 + 30_000, T0 + 30_000)]
    assert json.loads(gap[0]["details_json"]) == {"missing_generations": [4]}
    assert gap[0]["explanation"] == ("The group went from generation 3 to 5; the generation number grows by one per "
                                     "rebalance, so the logs miss 1 rebalance(s) (missing evidence: the broker log "
                                     "and the clients' logs of that period).")
    # the generation after the gap: its predecessor is missing, not the logs' beginning
    (after,) = [f for f in unexplained(merged(a)) if f["generation"] == 5]
    assert json.loads(after["details_json"])["missing"][1] == "any log of generation 4 (the logs go from generation 3 to 5)"


def test_a_run_of_missing_generations():
    gap = [f for f in unexplained(S.generation_gap()) if "missing from the logs" in f["title"]]
    assert [(f["generation"], f["title"]) for f in gap] == [(4, "generations 4-5 missing from the logs")]
    assert json.loads(gap[0]["details_json"]) == {"missing_generations": [4, 5]}
    assert gap[0]["evidence"] == ["hostA/app.log:2", "hostA/app.log:6"]
    assert "so the logs miss 2 rebalance(s)" in gap[0]["explanation"]


def test_a_member_gone_without_a_line_names_what_is_missing():
    # B is in generation 5, not in 6, and no line says why: its own log and the broker's are missing
    # (B named only by A's map, the leader's "Finished assignment")
    a = Host("hostA/app.log", "c-a")
    a.join(T0, 5, "A", ["t-0"])
    a.ev(T0 + 101, "assignment_received", generation=5, extra={"assignments": {"A": ["t-0"], "B": ["t-1"]}})
    a.join(T0 + 40_000, 6, "A", ["t-0", "t-1"])
    a.ev(T0 + 40_101, "assignment_received", generation=6, extra={"assignments": {"A": ["t-0", "t-1"]}})
    (f,) = [f for f in unexplained(merged(a)) if f["generation"] == 6]
    assert f["title"] == "cause of the rebalance to generation 6 not in the logs"
    assert json.loads(f["details_json"])["missing"] == ["client log of B", "broker GroupCoordinator log"]
