"""The member's fate in a session_expiry finding (FindingRules._fate): paused, restarted or stopped,
with the time it states and the evidence line that proves it, and the clock-skew edge between a
line "before" and "after" the broker's removal. The scenario is tests/replay/test_expiries.py's:
the broker removes B at T0+60 s (session.timeout.ms 10 s); B's log is written from T0+20 s on by
each test. Written for the survivors of the mutation pass of pipeline/replay_rules/findings.py
(docs/testing.md)."""

from __future__ import annotations

import json

import pytest

from pipeline.replay import replay_group
from tests.replay.builders import Host
from tests.replay.test_expiries import T0, TEN_S, B, _expiry, _two_members


def _fate(tail) -> tuple[str, str, list[str]]:
    f = _expiry(replay_group(_two_members(tail), TEN_S))
    return json.loads(f["details_json"])["member_fate"], f["explanation"], f["evidence"]


def test_a_paused_member_is_said_to_log_again_after_the_time_it_did():
    """B's heartbeat fails with UNKNOWN_MEMBER_ID at T0+75 s: 15 s after the removal, its 6th line."""
    fate, text, ev = _fate(lambda b: b.ev(T0 + 75_000, "heartbeat_failed", member_id=B, error="UNKNOWN_MEMBER_ID"))
    assert fate == "paused" and "The same process logged again 15.0 s after the removal, so it was paused" in text
    assert "hostB/app.log:6" in ev


def test_a_restart_is_timed_from_the_removal_and_evidenced_by_both_processes_lines():
    """A new process on hostB joins at T0+70 s and gets its member id at T0+70.1 s: the new member's
    first line, 10.1 s after the removal (the join_started line before it carries no member id);
    B's last line (its commit at T0+20 s, line 5) and the new member's first line (7) are the evidence."""
    def restarted(b: Host) -> None:
        b.ev(T0 + 70_000, "join_started")
        b.ev(T0 + 70_100, "join_succeeded", member_id="c-b-3333", generation=2, protocol="range")
    fate, text, ev = _fate(restarted)
    assert fate == "restarted" and "a new process started on the same host (its first line as a member came 10.1 s after the removal)" in text
    assert {"hostB/app.log:5", "hostB/app.log:7"} <= set(ev)


@pytest.mark.parametrize("to_state, fate", [("LEAVING", "stopped"), ("PREPARE_LEAVING", "stopped"),
                                            ("STABLE", "stopped")])
def test_a_consumer_protocol_member_leaving_when_removed_was_shutting_down(to_state, fate):
    """KIP-848 clients log their state machine (MembershipManagerImpl: -> PREPARE_LEAVING / LEAVING on
    close); a member moving to a leaving state right after the removal (within the skew tolerance)
    was closing; a move to STABLE there is no close: its process never logged again after it."""
    got, text, ev = _fate(lambda b: b.ev(T0 + 61_000, "member_state_changed", member_id=B,
                                         extra={"from_state": "STABLE", "to_state": to_state}))
    assert got == fate
    assert ("shutting down" in text) == (to_state != "STABLE")
    if to_state != "STABLE":
        assert "hostB/app.log:6" in ev


@pytest.mark.parametrize("at, fate", [(62_000, "stopped"), (62_001, "paused")])
def test_a_line_within_the_skew_tolerance_of_the_removal_is_not_a_return(at, fate):
    """B's line 2 s (the clock-skew tolerance) after the broker's removal may precede it on one clock:
    not proof that B came back; 2.001 s after, it is."""
    got, _, _ = _fate(lambda b: b.ev(T0 + at, "offset_committed", topic="t", partition=2, offset=150, member_id=B))
    assert got == fate
