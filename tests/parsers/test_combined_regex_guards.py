"""The combined rule regexes' speed-ups keep every match (parsers/client.py `_guard_lazy`): a
lookahead for the literal after a lazy `.*?` placeholder, and a lazy `\\S*?` placeholder before a
space written greedy. For every rule they change, the rule's own regex and the guarded one are
compared on its template filled with texts that hold, lack, repeat or cut that literal; and each
bucket's combined regex against the same alternation without guards."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from parsers import client

GUARDED_RULES = [r for r in client.ALL_RULES if client._guard_lazy(r.regex.pattern) != r.regex.pattern]


def _view(m: re.Match | None):
    return None if m is None else (m.span(), m.groups(), m.lastgroup)


def _same(rule: client.Rule, text: str) -> None:
    plain = re.compile(rule.regex.pattern, re.S)
    guarded = re.compile(client._guard_lazy(rule.regex.pattern), re.S)
    assert _view(guarded.match(text)) == _view(plain.match(text)), (rule.name, text)


def _literals(template: str) -> list[str]:
    return [seg for seg in template.replace("\\n", "\n").split("{}") if seg]


def test_the_guards_are_what_the_comment_says():
    joined = client.RULES_BY_NAME["successfully_joined_group_with_generation"]
    assert client._guard_lazy(joined.regex.pattern) == (
        r"^Successfully\ joined\ group\ (?=.*\ with\ generation\ )(?P<group_id>.*?)\ with\ generation\ "
        r"(?P<generation>-?\d+)\s*$")
    member = client.RULES_BY_NAME["member_with_epoch_transitioned_from_to"]
    assert r"(?P<member_id>\S*)\ with\ epoch" in client._guard_lazy(member.regex.pattern)
    # an optional last literal character is not required: not part of the lookahead
    assert client._guard_lazy(r"^a\ (?P<x>.*?)\ bcde?f") == r"^a\ (?=.*\ bcd)(?P<x>.*?)\ bcde?f"
    # too short a literal, or none: unchanged
    assert client._guard_lazy(r"^a\ (?P<x>.*?)\ b") == r"^a\ (?P<x>.*?)\ b"
    assert client._guard_lazy(r"^a\ (?P<x>.*?)(?:\ bcdef|\ ghijk)") == r"^a\ (?P<x>.*?)(?:\ bcdef|\ ghijk)"
    assert len(GUARDED_RULES) > 100
    # the build cache's copy is the transform of this file (a stale entry would be a new key)
    assert all(client._guarded(r.regex.pattern) == client._guard_lazy(r.regex.pattern) for r in client.ALL_RULES)


def test_templates_filled_with_sample_values_match_alike():
    for r in GUARDED_RULES:
        if not r.template:
            continue
        lits = _literals(r.template)
        for fill in ("x", "my-group", "consumer-1-9a8b", "5", "", "a b", " ".join(lits), "Generation{generationId=5}"):
            text = r.template.replace("\\n", "\n").replace("{}", fill)
            _same(r, text)
            _same(r, text[: len(text) // 2])  # cut: the literal after a placeholder is missing
            for lit in lits:  # one literal dropped, or doubled
                _same(r, text.replace(lit, "", 1))
                _same(r, text.replace(lit, lit + lit, 1))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_random_fillings_match_alike(data):
    r = data.draw(st.sampled_from([r for r in GUARDED_RULES if r.template]))
    lits = _literals(r.template)
    piece = st.one_of(st.text(alphabet="ab -.:{}=,'\n\t05", max_size=6), st.sampled_from(lits),
                      st.sampled_from([lit.strip() for lit in lits]))
    parts = r.template.replace("\\n", "\n").split("{}")
    text = parts[0]
    for seg in parts[1:]:
        text += "".join(data.draw(st.lists(piece, max_size=3))) + (seg if data.draw(st.booleans()) else seg[1:])
    _same(r, text)
    _same(r, text[: data.draw(st.integers(min_value=0, max_value=len(text)))])


def _numbered_groups(pattern: str, i: int) -> str:
    return re.sub(r"\(\?P<(\w+)>", rf"(?P<r{i}__\1>", pattern)


def test_each_buckets_combined_regex_equals_the_unguarded_alternation():
    samples = [r.template.replace("\\n", "\n").replace("{}", fill)
               for r in client.ALL_RULES if r.template for fill in ("x", "5", "a b c", "g-1 with epoch 7")]
    for bucket in (*client._BUCKETS.values(), client._GENERIC):
        for _first, _sig, combo in bucket.groups:
            for part in (combo.single, combo.multi):
                if part is None:
                    continue
                rx, rules = part[0], part[1]
                plain = re.compile("|".join(f"(?P<r{i}>{_numbered_groups(r.regex.pattern, i)})"
                                            for i, r in enumerate(rules)), re.S)
                words = {r.regex.pattern.lstrip("^").split("\\ ")[0] for r in rules}
                for text in samples:
                    if text.split(" ")[0] in words or len(rules) < 3:
                        assert _view(rx.match(text)) == _view(plain.match(text)), text
