"""Compile flat Lark LALR rules into one anchored Python regex per start symbol (the fast path).

Why: the broker and dump grammars are flat (each rule is a sequence of terminals, one rule per message
family) and every hole terminal carries a lookahead for the literal that follows it, so the language of
a rule is exactly the concatenation of its terminal patterns. Lark's LALR parser walks such a line
token by token at ~10 us per token; one `re` match of the same concatenation runs in a few
microseconds. The regexes are *derived from the loaded grammar* at start-up, so the .lark file stays
the single spec; the Lark parser remains the explain/debug path and tests check both agree.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from parsers.build_cache import compile_regex, derived, source_hash


@dataclass(frozen=True)
class CompiledStart:
    regex: re.Pattern[str]
    # rule name -> (index of its first kept token group, number of kept tokens)
    groups: dict[str, tuple[int, int]]
    # regex group name -> (rule name, slice start, slice end) into m.groups(): the hot-path lookup
    by_label: dict[str, tuple[str, int, int]]


def start_sources(lark: Any, starts: list[str] | tuple[str, ...]) -> dict[str, tuple[str, dict, dict]]:
    """For each start symbol `?s: r1 | r2 | ...` whose rules are terminal sequences, the source of an
    anchored regex `(?:(?P<r1>...)|(?P<r2>...))\\Z` with one capturing group per token the tree would
    keep, and its CompiledStart maps: (pattern, groups, by_label), plain data."""
    term_re = {t.name: t.pattern.to_regexp() for t in lark.terminals}
    literal_len = {t.name: len(t.pattern.value) for t in lark.terminals if t.pattern.type == "str"}
    by_origin: dict[str, list[Any]] = {}
    for rule in lark.rules:
        by_origin.setdefault(rule.origin.name, []).append(rule)
    out: dict[str, tuple[str, dict, dict]] = {}
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
        out[start] = ("(?:" + "|".join(alts) + r")\Z", spans, by_label)
    return out


def compile_starts(lark: Any, starts: list[str] | tuple[str, ...]) -> dict[str, CompiledStart]:
    """start_sources, every start compiled now."""
    return {s: CompiledStart(re.compile(rx, re.S), spans, by_label)
            for s, (rx, spans, by_label) in start_sources(lark, starts).items()}


class LazyStarts(Mapping[str, CompiledStart]):
    """start_sources' regexes compiled on first use of their start symbol: a file that only needs
    one family (or, for the reader's fallback from client to broker rules, the start of one first
    word) does not compile the others (the broker grammar's ~70 starts took ~0.06 CPU-s at once)."""

    def __init__(self, sources: dict[str, tuple[str, dict, dict]]) -> None:
        self._sources = sources
        self._compiled: dict[str, CompiledStart] = {}

    def __getitem__(self, start: str) -> CompiledStart:
        c = self._compiled.get(start)
        if c is None:
            rx, spans, by_label = self._sources[start]
            c = self._compiled[start] = CompiledStart(compile_regex(rx, re.S), spans, by_label)
        return c

    def __contains__(self, start: object) -> bool:
        return start in self._sources

    def __iter__(self) -> Iterator[str]:
        return iter(self._sources)

    def __len__(self) -> int:
        return len(self._sources)


def cached_starts(name: str, grammar: str, load_lark: Callable[[], Any], starts: tuple[str, ...] | list[str]) -> LazyStarts:
    """LazyStarts for a grammar, its regex sources taken from the build cache (parsers/build_cache.py)
    when this grammar text, these starts, this module and this Lark were seen before: then Lark
    itself is not even loaded. `load_lark()` returns the Lark parser of `grammar`."""
    key = source_hash(grammar, repr(tuple(starts)), _THIS_SOURCE(), _lark_version())
    sources = derived(f"lark_regex:{name}", key, lambda: start_sources(load_lark(), starts))
    return LazyStarts(sources)


@lru_cache(maxsize=1)
def _THIS_SOURCE() -> str:  # noqa: N802 - a constant, computed once
    return Path(__file__).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _lark_version() -> str:
    """The installed Lark's version line, read without importing Lark (~0.03 s)."""
    spec = importlib.util.find_spec("lark")
    if spec is None or spec.origin is None:
        return "no lark"
    try:
        text = Path(spec.origin).read_text(encoding="utf-8")
    except OSError:
        return spec.origin
    return next((ln for ln in text.splitlines() if ln.startswith("__version__")), spec.origin)


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
