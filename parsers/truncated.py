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
`extra.truncated_after` (the placeholders read whole). Broker messages cut inside their text are read
the same way from the generated grammar's rules (read_cut_broker, below: literal strings and hole
terminals in place of template text and placeholders), and a Strimzi `(%c) [%t]` suffix cut inside the
thread (`... (kafka.coordinator.group.GroupCoordinator) [executor-Hea`) like a cut `(%c)`."""

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


# " (kafka.coordinator.group.GroupCoordinator) [executor-Heartb": Strimzi's broker layout
# "%d{ISO8601} %p %m (%c) [%t]%n" (its log4j configuration 0.x-0.4x) cut inside the thread after a whole "(%c)"
_CUT_THREAD = compile_regex(r" \((?:[A-Za-z_$][\w$]*\.)+[\w$]*\) \[[^\]]*$")


def without_cut_logger(message: str) -> str | None:
    """The message before a log4j `(%c)` suffix cut inside the logger name (or a `(%c) [%t]` suffix cut
    inside the thread), or None."""
    if message[-1:] == ")":
        return None
    m = _CUT_LOGGER.search(message) or _CUT_THREAD.search(message)
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


# --- broker messages cut short ------------------------------------------------------------------------
# The broker rules are the generated grammar parsers/grammars/broker.lark (gen_broker_grammar.py, from the
# template catalogue): each rule is a sequence of literal strings and hole terminals `H<n>: /value(?=next
# literal)/`. A cut message is read as for the client templates above: the text is a prefix of one kind's
# rules, shows MIN_LITERAL characters of their literal text and at least one whole value, and ends inside
# a hole or the literal after it; each whole value must match its hole's pattern (without the lookahead).
_RULE_LINE = re.compile(r'^(?P<rule>[a-z_]+\d*): (?P<body>(?:"(?:[^"\\]|\\.)*"|H\d+)(?: (?:"(?:[^"\\]|\\.)*"|H\d+))*)$', re.M)
_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|(H\d+)')
_HOLE_LINE = re.compile(r"^(?P<name>H\d+): /(?P<pattern>.*)/$", re.M)


@cache
def _broker_shapes() -> dict[str, list[tuple[str, tuple[str, ...], tuple[tuple[str, Any], ...]]]]:
    """{first word: [(rule, literals, ((hole, value pattern), ...))]} of the broker grammar's rules that
    are plain sequences (literal, hole, literal, ...); read once, on the first cut broker line."""
    from parsers import broker

    text = broker._grammar()
    holes: dict[str, Any] = {}
    for m in _HOLE_LINE.finditer(text):
        pat = m["pattern"].replace("\\/", "/")
        la = pat.rfind("(?=")
        if la > 0 and pat.endswith(")"):
            pat = pat[:la]
        try:
            holes[m["name"]] = re.compile("(?:" + pat + ")", re.S)
        except re.error:
            continue
    out: dict[str, list[tuple[str, tuple[str, ...], tuple[tuple[str, Any], ...]]]] = {}
    for m in _RULE_LINE.finditer(text):
        rule = m["rule"]
        if rule not in broker.RULES:
            continue
        lits: list[str] = [""]
        hs: list[tuple[str, Any]] = []
        ok = True
        for t in _TOKEN.finditer(m["body"]):
            if t.group(1) is not None:
                lits[-1] += t.group(1).encode("utf-8").decode("unicode_escape") if "\\" in t.group(1) else t.group(1)
            else:
                if t.group(2) not in holes:
                    ok = False
                    break
                hs.append((str(len(hs)), holes[t.group(2)]))  # by position: a hole terminal may recur
                lits.append("")
        if not ok or not hs or len(lits[0]) < 4:
            continue
        out.setdefault(lits[0].split(" ", 1)[0], []).append((rule, tuple(lits), tuple(hs)))
    return out


def read_cut_broker(message: str, logger: str | None) -> Match | None:
    """A broker message (its `[GroupCoordinator N]: ` ident included) cut inside one kind's rules, or None."""
    from parsers import broker

    text = message.split("\n", 1)[0].strip()
    m = broker._IDENT.match(text) if text.startswith("[Group") else None
    if m is None and not (logger and broker._COORD_LOGGER.search(logger)):
        return None  # only a coordinator's line (its ident or logger) is taken for a cut broker message
    body = text[m.end():] if m else text
    if len(body) < MIN_LITERAL:
        return None
    found: list[tuple[int, str, list[str]]] = []
    for rule, lits, hs in _broker_shapes().get(body.split(" ", 1)[0], ()):
        got = _cut_values(body, lits, hs)
        if got is None or got[1] < MIN_LITERAL:
            continue
        values = [got[0][h] for h, _rx in hs]
        whole = []
        for v in values:
            if v is None:
                break
            whole.append(v)
        if whole:
            found.append((got[1], rule, whole))
    if not found:
        return None
    best = max(n for n, _r, _w in found)
    top = [(r, w) for n, r, w in found if n == best]
    if len({broker.RULES[r][0] for r, _w in top}) != 1:
        return None  # the text begins rules of different kinds: it does not say which
    rule, whole = top[0]
    kind, fields = broker._fields(rule, whole)
    if len({broker.GROUP_TYPES.get(r) for r, _w in top}) > 1:
        fields.pop("group_type", None)  # rules of both group types begin so: the text does not say which
    extra = dict(fields.pop("extra", None) or {})
    extra["truncated"] = "message"
    extra["truncated_after"] = [n.rstrip("#") for n in broker.RULES[rule][1][: len(whole)]]
    if m:
        b1, b2, b3, part = m.group("b1", "b2", "b3", "part")
        fields["coordinator"] = b1 or b2 or b3
        if part is not None:
            extra.setdefault("offsets_partition", int(part))
    fields["extra"] = extra
    return Match(rule, kind, fields)
