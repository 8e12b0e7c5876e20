"""Compile flat Lark LALR rules into one anchored Python regex per start symbol (the fast path).

Why: the broker and dump grammars are flat (each rule is a sequence of terminals, one rule per message
family) and every hole terminal carries a lookahead for the literal that follows it, so the language of
a rule is exactly the concatenation of its terminal patterns. Lark's LALR parser walks such a line
token by token at ~10 us per token; one `re` match of the same concatenation runs in a few
microseconds. The regexes are *derived from the loaded grammar* at start-up, so the .lark file stays
the single spec; the Lark parser remains the explain/debug path and tests check both agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CompiledStart:
    regex: re.Pattern[str]
    # rule name -> (index of its first kept token group, number of kept tokens)
    groups: dict[str, tuple[int, int]]
    # regex group name -> (rule name, slice start, slice end) into m.groups(): the hot-path lookup
    by_label: dict[str, tuple[str, int, int]]


def compile_starts(lark: Any, starts: list[str] | tuple[str, ...]) -> dict[str, CompiledStart]:
    """For each start symbol `?s: r1 | r2 | ...` whose rules are terminal sequences, an anchored regex
    `(?:(?P<r1>...)|(?P<r2>...))\\Z` with one capturing group per token the tree would keep."""
    term_re = {t.name: t.pattern.to_regexp() for t in lark.terminals}
    literal_len = {t.name: len(t.pattern.value) for t in lark.terminals if t.pattern.type == "str"}
    by_origin: dict[str, list[Any]] = {}
    for rule in lark.rules:
        by_origin.setdefault(rule.origin.name, []).append(rule)
    out: dict[str, CompiledStart] = {}
    for start in starts:
        alts: list[str] = []
        spans: dict[str, tuple[int, int]] = {}
        next_group = 1
        rules = []
        for srule in by_origin.get(start, []):
            if len(srule.expansion) != 1 or srule.expansion[0].is_term:
                raise ValueError(f"start {start} must be an alternation of rule names")
            rules.extend(by_origin[srule.expansion[0].name])
        # most literal text first: of two rules that differ by a comma or a brace, the longer one is the
        # more specific, and a regex alternation (unlike the contextual lexer) takes the first that fits
        rules.sort(key=lambda r: -sum(literal_len.get(sym.name, 0) for sym in r.expansion))
        for rule in rules:
            name = rule.origin.name
            parts: list[str] = []
            kept = 0
            for sym in rule.expansion:
                if not sym.is_term:
                    raise ValueError(f"rule {name} is not flat")
                pat = term_re[sym.name]
                if sym.filter_out:
                    parts.append(f"(?:{pat})")
                else:
                    parts.append(f"({pat})")
                    kept += 1
            label = rule.alias or name
            alts.append(f"(?P<{_group_name(label)}>{''.join(parts)})")
            spans[label] = (next_group + 1, kept)
            next_group += 1 + kept
        by_label = {_group_name(r): (r, first - 1, first - 1 + n) for r, (first, n) in spans.items()}
        out[start] = CompiledStart(re.compile("(?:" + "|".join(alts) + r")\Z", re.S), spans, by_label)
    return out


def _group_name(rule: str) -> str:
    return "r_" + re.sub(r"\W", "_", rule)


def match_start(compiled: CompiledStart, text: str) -> tuple[str, tuple[str | None, ...]] | None:
    """(rule name, kept tokens) of the rule that matches the whole text, or None."""
    m = compiled.regex.match(text)
    if m is None:
        return None
    hit = compiled.by_label.get(m.lastgroup or "")
    if hit is None:
        return None
    rule, a, b = hit
    return rule, m.groups()[a:b]
