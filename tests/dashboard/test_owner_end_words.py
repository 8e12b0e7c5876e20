"""The owner page's words for the ends group_tables gives an interval its owner's log does not show:
its last heartbeat before a session expiry (estimated), and the coordinator's line of its LeaveGroup."""

from __future__ import annotations

from dashboard.pages.owner import end_words


def test_last_heartbeat_and_left_ends_are_worded():
    own = end_words({"end_reason": "last_heartbeat", "inferred": False, "generation": 3})
    assert own.startswith(" (estimated: ") and "one session timeout before the removal" in own
    inf = end_words({"end_reason": "last_heartbeat", "inferred": True, "generation": 3})
    assert "estimated: the replay inferred this interval from generation 3's" in inf
    assert "its end is its last heartbeat, one session timeout before the coordinator removed it" in inf
    assert "last heartbeat) is the replay's" not in inf
    left = end_words({"end_reason": "left", "inferred": False})
    assert "LeaveGroup, as the coordinator logged it" in left and "ended by left" not in left
    # the others unchanged: a revoke its own log shows is not estimated
    assert end_words({"end_reason": "revoked", "inferred": False}) == " (ended by revoked)"
