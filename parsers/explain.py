"""`explain_line`: how one log line is read (layout, prefix, rule or where matching failed, fields).

The grammar debugger behind `coordscope explain`; pure, no I/O.
"""

from __future__ import annotations

import difflib
from typing import Any

from parsers import client, layouts, reader
from parsers.base import IGNORE


def _closest_rules(body: str, n: int = 3) -> list[tuple[float, client.Rule]]:
    """Rules whose template's leading literal text agrees longest with the message, then by similarity."""
    head = body.split("\n", 1)[0]
    scored = [(_divergence(head, r.template), r) for r in client.ALL_RULES if r.template]
    scored.sort(key=lambda x: -x[0])
    best = [(difflib.SequenceMatcher(None, head[:300], r.template[:300], autojunk=False).ratio(), r)
            for _, r in scored[: n * 8]]
    best.sort(key=lambda x: (-_divergence(head, x[1].template), -x[0]))
    return best[:n]


def _divergence(body: str, template: str) -> int:
    """Characters of the message that agree with the template's literal text before it differs."""
    i = 0
    for a, b in zip(body, template.split("{}")[0], strict=False):
        if a != b:
            break
        i += 1
    return i


def explain_line(line: str, layout: str | None = None) -> dict[str, Any]:
    lines = line.split("\n")
    first = lines[0]
    wrappers = layouts.detect_wrappers([first])
    text = layouts.strip_wrappers(first, wrappers) if wrappers else first
    name = layout or layouts.best_layout([text])[0]
    lay = layouts.LAYOUTS[name]
    sp = lay.split(text) or layouts.Split(None, None, None, None, text)
    out: dict[str, Any] = {
        "line": first, "wrappers": list(wrappers), "layout": name, "layout_doc": lay.doc,
        "ts_ms": sp.ts_ms, "level": sp.level, "thread": sp.thread, "logger": sp.logger, "message": sp.message,
    }
    if lay.split(text) is None:
        out["layout_note"] = f"the line does not fit layout {name!r}; its whole text is taken as the message"
    message = sp.message if len(lines) == 1 else sp.message + "\n" + "\n".join(lines[1:])
    out["candidate"] = reader.is_candidate(message)
    prefix, body = client.split_prefix(message)
    out["prefix"] = {k: v for k, v in prefix.items()}
    if reader._is_broker(sp.logger, message):
        out["side"] = "broker"
        if reader.broker is None:
            out["result"] = "unparsed"
            out["why"] = "broker coordinator line; the broker grammar (parsers.broker) is not installed"
            return out
        res = reader.broker.parse_broker_message(message, sp.logger)
    else:
        out["side"] = "client"
        res = client.parse_client_message(message, sp.logger)
    if res is IGNORE:
        out["result"] = "ignored"
        out["why"] = "matched a rule for a line with no coordination event" if client._parse_body(
            body, client.logger_class(sp.logger)) else "not a coordinator line (no rule, no coordinator wording)"
        return out
    if res is None:
        out["result"] = "unparsed"
        near = []
        for ratio, r in _closest_rules(body):
            near.append({"rule": r.name, "similarity": round(ratio, 2), "template": r.template,
                         "agrees_for_chars": _divergence(body, r.template), "source": r.source,
                         "versions": r.version_hint})
        out["why"] = "looks like a coordinator line but no rule matched"
        out["closest_rules"] = near
        return out
    out["result"] = "parsed"
    out["rule"] = res.rule
    rule = client.RULES_BY_NAME.get(res.rule)
    if rule is not None:
        out["template"] = rule.template or rule.regex.pattern
        out["source"] = rule.source
        out["versions"] = rule.version_hint
    out["kind"] = res.kind
    out["fields"] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in res.fields.items()}
    return out
