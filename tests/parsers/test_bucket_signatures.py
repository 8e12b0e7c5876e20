"""A big bucket's groups are asked only when their signature phrase is in the line
(client._signature): every line a rule matches must hold its rule's signature. Templates with a run
of spaces (written `\\s+` in the rule regex, so a log may show one space or a tab there) end a phrase
at the run: the longer phrase after it is used ("Member {} with epoch {} generated the  heartbeat to
leave ..." -> "heartbeat to leave ...", not "with epoch", which most lines of the bucket hold)."""

from __future__ import annotations

import re

from parsers import catalog_tools, client


def _filled(template: str) -> list[str]:
    base = catalog_tools.unescape(template).rstrip("\n")
    return [v.replace("{}", "x-1") for v in (base, re.sub(r" {2,}", " ", base), re.sub(r" {2,}", "\t", base))]


def test_every_matched_line_holds_its_rule_signature():
    checked = 0
    for bucket in client._BUCKETS.values():
        for _first, sig, combo in bucket.groups:
            for rule in combo.rules:
                if not sig or not rule.template:
                    continue
                for text in _filled(rule.template):
                    if rule.regex.match(text):
                        checked += 1
                        assert sig in text, (rule.name, sig, text)
    assert checked > 300


def test_a_run_of_spaces_ends_a_signature_phrase():
    by_name = {r.name: r for r in client.ALL_RULES}
    rule = by_name["member_with_epoch_generated_the_heartbeat"]
    assert client._signature(rule).startswith("heartbeat to leave due to expired poll timer")
    # the bucket's commonest wording holds "with epoch" but not this phrase: that group is not asked
    line = "Member m-1 with epoch 3 transitioned from STABLE to RECONCILING."
    assert "with epoch" in line and client._signature(rule) not in line
    assert client._match_body(line, "ConsumerMembershipManager")[1] == "member_state_changed"
