"""A recommendation quotes a limit as the finding states it: an assumed version default says it is
assumed, a printed value is quoted plainly, and a limit nobody states is not invented
(pipeline/report/recommend.py `_limit`)."""

from __future__ import annotations

import json

from pipeline.replay import replay_group
from pipeline.report.recommend import recommend
from tests.replay import scenarios
from tests.replay.builders import Host, merged

T0 = scenarios.T0
ASSUMED = "a default assumed: the logs do not print it"


def _section() -> dict:
    return {"group_id": "g", "observed": {}, "timeline": []}


def _rec(findings: list[dict], rid: str) -> dict:
    (rec,) = [r for r in recommend(_section(), findings) if r["id"] == rid]
    return rec


def _finding(kind: str, **details) -> dict:
    return {"id": f"{kind}-{len(details)}", "kind": kind, "details": details}


def _with_details(findings: list[dict]) -> list[dict]:
    """The replay's findings as the report hands them to `recommend` (details parsed)."""
    return [{**f, "id": f["finding_id"], "details": json.loads(f["details_json"])} for f in findings]


def test_an_assumed_session_timeout_is_called_assumed():
    text = _rec([_finding("session_expiry", silence_ms=52_000, session_timeout_ms=45_000,
                          session_timeout_assumed=True)], "raise-session-timeout")["text"]
    assert f"longer than session.timeout.ms (45.0 s, {ASSUMED}); the longest silence was 52.0 s." in text


def test_a_printed_session_timeout_is_quoted_plainly():
    text = _rec([_finding("session_expiry", silence_ms=12_000, session_timeout_ms=10_000,
                          session_timeout_assumed=False)], "raise-session-timeout")["text"]
    assert "longer than session.timeout.ms (10.0 s); the longest silence was 12.0 s." in text
    assert "assumed" not in text


def test_the_smallest_limit_carries_its_own_word():
    # two findings, one printed 10 s and one assumed 45 s: the quoted 10 s is the printed one
    rec = _rec([_finding("session_expiry", silence_ms=12_000, session_timeout_ms=10_000,
                         session_timeout_assumed=False),
                _finding("session_expiry", silence_ms=50_000, session_timeout_ms=45_000,
                         session_timeout_assumed=True)], "raise-session-timeout")
    assert "session.timeout.ms (10.0 s);" in rec["text"] and "assumed" not in rec["text"]
    assert rec["value"] == 75_000                       # 1.5x the longest silence, rounded up to 5 s


def test_no_stated_limit_is_not_invented():
    # before: 45 s (session) and 5 min (poll) were quoted as if the logs showed them
    exp = _rec([_finding("session_expiry", silence_ms=20_000)], "raise-session-timeout")
    assert "session.timeout.ms (its value is not in the logs); the longest silence was 20.0 s." in exp["text"]
    assert "45.0 s" not in exp["text"] and exp["value"] == 30_000
    poll = _rec([_finding("poll_timeout")], "raise-max-poll-interval")
    assert "max.poll.interval.ms (its value is not in the logs); the logs do not show" in poll["text"]
    assert "5 min 00 s" not in poll["text"] and "e.g." not in poll["text"]
    assert poll["value"] is None and poll["what_if"] is None


def test_an_assumed_poll_interval_is_called_assumed_and_the_target_is_twice_it():
    rec = _rec([_finding("poll_timeout", max_poll_interval_ms=300_000, max_poll_interval_assumed=True)],
               "raise-max-poll-interval")
    assert f"longer than max.poll.interval.ms (5 min 00 s, {ASSUMED}); the logs do not show" in rec["text"]
    assert "(e.g. 600000 ms)" in rec["text"] and rec["value"] == 600_000


def test_through_the_replay_a_default_session_timeout_reads_assumed():
    # a 2.3.0 client that never printed session.timeout.ms: the replay assumes the 2.x default, 10 s
    a, k = Host("hostA/app.log", "c-a"), Host("broker1/server.log", side="broker")
    a.ev(T0, "join_started", kafka_version_hint="2.3.0")
    a.ev(T0 + 100, "join_succeeded", member_id="A", generation=1, protocol="range", kafka_version_hint="2.3.0")
    a.ev(T0 + 150, "partitions_assigned", partitions=("t-0",), kafka_version_hint="2.3.0")
    k.ev(T0 + 50_000, "broker_member_removed", member_id="A",
         raw="[GroupCoordinator 1]: Member A in group payments has failed, removing it from the group")
    r = replay_group(merged(a, k))
    text = _rec(_with_details(r.findings), "raise-session-timeout")["text"]
    assert f"session.timeout.ms (10.0 s, {ASSUMED})" in text


def test_through_the_replay_a_printed_session_timeout_is_plain():
    a, k = Host("hostA/app.log", "c-a"), Host("broker1/server.log", side="broker")
    a.ev(T0 - 1_000, "client_config", extra={"settings": {"session.timeout.ms": "25000"}},
         kafka_version_hint="2.3.0")
    a.ev(T0, "join_started", kafka_version_hint="2.3.0")
    a.ev(T0 + 100, "join_succeeded", member_id="A", generation=1, protocol="range", kafka_version_hint="2.3.0")
    a.ev(T0 + 150, "partitions_assigned", partitions=("t-0",), kafka_version_hint="2.3.0")
    k.ev(T0 + 50_000, "broker_member_removed", member_id="A",
         raw="[GroupCoordinator 1]: Member A in group payments has failed, removing it from the group")
    text = _rec(_with_details(replay_group(merged(a, k)).findings), "raise-session-timeout")["text"]
    assert "session.timeout.ms (25.0 s)" in text and "assumed" not in text


def test_through_the_replay_the_poll_timeout_finding_says_whether_its_limit_was_assumed():
    r = replay_group(scenarios.poll_timeout())
    (f,) = [f for f in _with_details(r.findings) if f["kind"] == "poll_timeout"]
    assert f["details"]["max_poll_interval_ms"] == 300_000
    assert f["details"]["max_poll_interval_assumed"] is True
    assert f"max.poll.interval.ms (5 min 00 s, {ASSUMED})" in _rec([f], "raise-max-poll-interval")["text"]
