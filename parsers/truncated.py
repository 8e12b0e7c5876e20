"""Lines cut short: what a Kafka line still says when its end is missing.

Pasted and collected logs lose the end of long lines: a terminal or a viewer cuts at its width
(`less -S`, `cut -c1-200`, a table cell of a log UI), an issue excerpt or a chat message stops
mid-line, a collector truncates records at its maximum size. Two shapes are read here, only for a
line no rule read as a whole (the reader's miss path, never the per-line hot path):

- the log4j `(%c)` suffix cut inside the logger name, `... (__consumer_offsets-25) (kafka.coordinator.group.GroupCoordinat`:
  the message before it is whole (log4j `%m (%c)%n`, Kafka's config/log4j.properties 0.9-3.9 and
  connect-log4j.properties; log4j2.yaml in 4.x) and is read again without it;
- a client message cut inside its template (the template catalog,
  shared/formats/kafka-coordinator-log-templates.tsv, as parsers/client_catalog.py holds it): the text
  is a prefix of exactly one kind's templates, the cut lies inside a placeholder or the literal text
  after it, and the placeholders before the cut are whole: their values are read as for a whole line,
  those at and after the cut are not (never a guess). `Group coordinator kafka-1:9092 (id: 2147483646 rack:
  null) is unavailable or inv` is `coordinator_lost` with its coordinator; `... due to cause: coordinator
  unavail` as well, without the cause. A cut inside the first value, or inside the last one of a
template that ends with it (no literal text after it to tell a cut from a value no rule accepts),
is not read.

Only a message that ends its line as written is taken for cut (the reader checks): a layout's text
after the message (log4j's ` (%c)`, the rest of a JSON object) shows the message whole, so a whole
line missing its last value (`... dead for group  (org.apache...AbstractCoordinator)`) stays unparsed.

Events read from a cut line carry `extra.truncated` ("logger" or "message") and, for the second shape,
`extra.truncated_after` (the placeholders read whole). Broker messages cut inside their text stay
unparsed (their rules are a grammar, not templates)."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from parsers import client
from parsers.base import Match
from parsers.build_cache import compile_regex

# " (kafka.coordinator.group.GroupCoordinat" / " (org.apache.kafka.clients.consumer.internals.Abst":
# an opening parenthesis, at least two dotted name parts and no closing parenthesis at the end
_CUT_LOGGER = compile_regex(r" \((?:[A-Za-z_$][\w$]*\.)+[\w$]*$")
MIN_LITERAL = 16  # characters of template text a cut message must show (a shorter start says too little)


def without_cut_logger(message: str) -> str | None:
    """The message before a log4j `(%c)` suffix cut inside the logger name, or None."""
    if message[-1:] == ")":
        return None
    m = _CUT_LOGGER.search(message)
    return message[: m.start()].rstrip() if m is not None and m.start() > 0 else None


def _group_patterns(pattern: str) -> list[tuple[str, str]]:
    """(name, sub-pattern) of each named group of a rule regex, in order (top level or nested)."""
    out: list[tuple[str, str]] = []
    i = 0
    while True:
        i = pattern.find("(?P<", i)
        if i < 0:
            return out
        if i > 0 and pattern[i - 1] == "\\":
            i += 1
            continue
        j = pattern.index(">", i)
        name, depth, k = pattern[i + 4:j], 1, j + 1
        while k < len(pattern) and depth:
            c = pattern[k]
            if c == "\\":
                k += 2
                continue
            if c == "[":  # a character class: parentheses inside it do not count
                k = pattern.index("]", k + 2) + 1
                continue
            depth += c == "("
            depth -= c == ")"
            k += 1
        out.append((name, pattern[j + 1:k - 1]))
        i = j


@cache
def _shape(rule_name: str) -> tuple[tuple[str, ...], tuple[tuple[str, Any], ...]] | None:
    """The rule's template literals and its placeholders' (group name, compiled sub-pattern), when the
    template and the regex agree one placeholder to one group (else None: not read when cut)."""
    rule = client.RULES_BY_NAME[rule_name]
    t = rule.template
    if not t or "\n" in t or rule.multiline or rule.kind is None:
        return None
    lits = tuple(t.split("{}"))
    groups = _group_patterns(rule.regex.pattern)
    if len(groups) != len(lits) - 1 or len(lits[0]) < 4:
        return None
    return lits, tuple((name, compile_regex("(?:" + sub + ")", re.S)) for name, sub in groups)


def _cut_values(body: str, lits: tuple[str, ...], groups: tuple[tuple[str, Any], ...]) -> tuple[dict[str, str | None], int] | None:
    """{group: value or None} and the template characters the body shows, when the body is the
    template cut short; None when it is not (a literal disagrees, or nothing is cut)."""
    if not body.startswith(lits[0]):
        return None
    pos, shown = len(lits[0]), len(lits[0])
    values: dict[str, str | None] = {name: None for name, _ in groups}
    for i, (name, rx) in enumerate(groups):
        lit = lits[i + 1]
        idx = body.find(lit, pos) if lit else -1
        if idx >= 0 and not (i + 1 == len(groups) and idx + len(lit) == len(body)):
            if rx.fullmatch(body, pos, idx) is None:
                return None
            values[name] = body[pos:idx]
            pos, shown = idx + len(lit), shown + len(lit)
            continue
        if idx >= 0:
            return None  # the whole template: a value no rule accepts, not a cut
        if not lit:
            # the template ends with this placeholder: a cut inside it cannot be told from a whole line
            # whose last value no rule accepts (text a layout appended, a new value shape)
            return None
        tail = body[pos:]
        # the cut inside the literal after this placeholder: the longest start of it the body ends with
        for k in range(min(len(lit) - 1, len(tail)), 1, -1):
            if tail.endswith(lit[:k]) and rx.fullmatch(tail, 0, len(tail) - k) is not None:
                values[name] = tail[: len(tail) - k]
                shown += k
                break
        return values, shown
    return None


def read_cut(message: str, logger: str | None) -> Match | None:
    """A client message (LogContext prefix included) cut inside one kind's templates, or None."""
    prefix, body = client.split_prefix(message)
    body = body.rstrip()
    if "\n" in body or len(body) < MIN_LITERAL:
        return None
    rules = client._BUCKET_RULES.get(body.partition(" ")[0], ())
    found: list[tuple[int, Any, dict[str, str | None]]] = []
    for rule in rules:
        shape = _shape(rule.name)
        if shape is None:
            continue
        if rule.weak_loggers and client.logger_class(logger) not in rule.weak_loggers:
            continue
        got = _cut_values(body, *shape)
        # enough template text, and at least one value read whole (a cut inside the first value says
        # no more than the template's first words)
        if got is not None and got[1] >= MIN_LITERAL and any(v is not None for v in got[0].values()):
            found.append((got[1], rule, got[0]))
    if not found:
        return None
    best = max(n for n, _r, _v in found)
    top = [(r, v) for n, r, v in found if n == best]
    if len({r.kind for r, _v in top}) != 1:
        return None  # the text begins templates of different kinds: it does not say which
    rule, vals = top[0]
    kind, fields = client._fields_from(rule, vals)
    if kind is None:
        return None
    extra = dict(prefix.pop("extra", None) or {})
    extra.update(fields.pop("extra", None) or {})
    extra["truncated"] = "message"
    extra["truncated_after"] = [name for name, _ in _shape(rule.name)[1] if vals[name] is not None]  # type: ignore[index]
    prefix.pop("context", None)
    out = {**prefix, **fields}
    if rule.version_hint:
        out.setdefault("kafka_version_hint", rule.version_hint)
    gt = client._group_type(rule.name, client.logger_class(logger))
    if gt is not None:
        out.setdefault("group_type", gt)
    out["extra"] = extra
    return Match(rule.name, kind, out)
