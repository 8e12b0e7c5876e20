"""The generated decoders (parsers/client.py `_decoder`: the commonest handlers written inline, a
`setdefault` written as a store where no earlier placeholder can have set the key) give exactly
what calling every placeholder's handler in plan order gives: the same rule, kind, fields and extra,
keys in the same order. Checked on every client template of the catalog, rendered with the sample
values and with variants that make handlers set nothing, set a key twice or take their other
branch (null and redacted values, offset maps of several partitions, a partition list)."""

from __future__ import annotations

import csv
import re

from parsers import client
from parsers.catalog_tools import hole_fields, render


def _reference(rule: client.Rule, plan: list[tuple[int, object, str]], m: re.Match) -> tuple:
    """What the decoder computed before the handlers were written inline: one call per placeholder."""
    fields: dict = {}
    extra: dict = {}
    for num, h, key in plan:
        raw = m.group(num)
        if raw is not None:
            h(raw.strip(), fields, extra, key)  # type: ignore[operator]
    implied = client._implied_error(rule)  # an error the wording states in words (session 20)
    if implied and "error" in rule.regex.groupindex:
        # the heartbeat managers' cases (pastes6): the wording's error wins, the printed text is kept apart
        printed = fields.get("error")
        if printed is not None and printed != implied:
            extra["error_message"] = printed
        fields["error"] = implied
    elif implied:
        fields.setdefault("error", implied)
    if "reason" in rule.regex.groupindex:  # "encountered {Errors} from {ApiKeys} response"
        reason = fields.get("reason")
        em = client._ENCOUNTERED.search(reason) if reason and "encountered " in reason else None
        if em:
            fields.setdefault("error", em.group(1))
    kind = rule.kind
    if "coord_response" in rule.regex.groupindex:
        kind = extra.pop("kind", kind)
    if rule.kind in client._REASON_RULE_KINDS:
        reason = fields.get("reason")
        if reason:
            kind = client._reason_kind(kind, reason)
    if rule.version_hint:
        fields.setdefault("kafka_version_hint", rule.version_hint)
    extra["rule"] = rule.name
    return rule.name, kind, fields, extra


def _combos():
    for bucket in (*client._BUCKETS.values(), client._GENERIC):
        for _first, _sig, combo in bucket.groups:
            for part in (combo.single, combo.multi):
                if part is not None:
                    yield part


def _plan(rx: re.Pattern, i: int, rule: client.Rule) -> list[tuple[int, object, str]]:
    plan = []
    for n in rule.regex.groupindex:
        h = client._handler(n)
        if h is not None:
            plan.append((rx.groupindex[f"r{i}__{n}"], h, n))
    return plan


def _bodies(shared_dir) -> list[str]:
    path = shared_dir / "formats" / "kafka-coordinator-log-templates.tsv"
    with path.open(encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t") if r["side"] == "client"]
    out = []
    for r in rows:
        fields = hole_fields(r["template"], r["notes"])
        line = render(r["template"], fields)
        out.append(line)
        # handlers that find nothing / take their other branch
        out.append(line.replace("consumer-my-group-1-", "null").replace("orders-3", "..."))
        out.append(re.sub(r"Generation\{[^}]*\}", "null", line))
        out.append(re.sub(r"\{orders-3=OffsetAndMetadata\{[^}]*\}\}",
                          "{orders-3=OffsetAndMetadata{offset=42, leaderEpoch=0, metadata=''}, "
                          "orders-4=OffsetAndMetadata{offset=7, leaderEpoch=null, metadata=''}}", line))
        out.append(re.sub(r"\{orders-3=OffsetAndMetadata\{[^}]*\}\}", "[orders-3, orders-5]", line))
        out.append(line.replace("orders-3", "orders-x"))
    return out


def test_generated_decoders_equal_the_handlers_called_in_order(shared_dir):
    bodies = _bodies(shared_dir)
    assert len(bodies) > 3000
    compared = set()
    for rx, rules, _decoders, index in _combos():
        for body in bodies:
            m = rx.match(body.split("\n", 1)[0]) if "\n" not in body or rx.flags & re.S == 0 else rx.match(body)
            if m is None:
                m = rx.match(body)
            if m is None:
                continue
            i = index[m.lastgroup]
            rule = rules[i]
            plan = _plan(rx, i, rule)
            got = client._decoder(plan, rule)(m)
            want = _reference(rule, plan, m)
            assert got == want, (rule.name, body)
            # the same insertion order (callers copy and merge these dicts)
            assert list(got[2]) == list(want[2]) and list(got[3]) == list(want[3]), (rule.name, body)
            compared.add(rule.name)
    # most rules of the catalog are reached (the rest are hand-written rules for other renderings)
    assert len(compared) > 400, len(compared)
