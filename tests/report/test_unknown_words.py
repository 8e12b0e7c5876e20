"""The report's words where the logs do not hold a fact: the headline does not call rebalances of
unknown cause "as expected", and a classic group's unknown leader reads "unknown", not "-"."""

from __future__ import annotations

from pipeline.report.model import _headline, leader_words

IMPACT = {"rebalances": 3, "members_expelled": [], "reprocessed_messages": 0, "skipped_messages": 0}


def _group(*causes: str) -> dict:
    return {"group_id": "g", "timeline": [{"cause": c} for c in causes]}


def test_a_calm_run_with_known_causes_rebalanced_as_expected():
    assert _headline(IMPACT, [_group("member_joined", "member_left")], problems=False) == (
        "Nothing wrong found: 1 group rebalanced only as expected, no member was expelled and no offset range "
        "was reprocessed or skipped.")


def test_causes_not_in_the_logs_are_not_called_expected():
    text = _headline(IMPACT, [_group("member_joined", "unknown", "unknown")], problems=False)
    assert text == ("Nothing wrong found in these logs: no member was expelled and no offset range was reprocessed "
                    "or skipped; the cause of 2 rebalances is not in the logs.")
    assert "as expected" not in text


def test_leader_words():
    assert leader_words({"leader": "A", "protocol_type": "consumer"}) == "A"
    assert leader_words({"leader": None, "protocol_type": "consumer"}) == "unknown"
    assert leader_words({"leader": None, "protocol_type": "consumer (KIP-848)"}) == "-"
