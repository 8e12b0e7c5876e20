"""`explain_line`: how one log line is read (layout, prefix, rule or where matching failed, fields).

The grammar debugger behind `coordscope explain`; pure, no I/O.
"""

from __future__ import annotations

import difflib
from typing import Any

from parsers import client, foreign, layouts, reader, truncated
from parsers.base import IGNORE, Match


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


def _explain_record(kind: str, lines: list[str]) -> dict[str, Any]:
    """A `__consumer_offsets` dump line, or a describe table (header line(s) then rows)."""
    out: dict[str, Any] = {"line": lines[-1], "wrappers": [], "layout": "n/a", "layout_doc": kind,
                           "ts_ms": None, "level": None, "thread": None, "logger": None,
                           "message": lines[-1], "candidate": reader.is_candidate(lines[-1]), "prefix": {},
                           "side": "offsets" if kind == "offsets_dump" else "describe", "kind_of_input": kind}
    if kind == "offsets_dump":
        res = reader.offsets_dump.parse_offsets_dump_line(lines[-1])
    else:
        dp = reader.groups_describe.DescribeParser()
        res = None
        for ln in lines:  # the header lines set the columns of the rows after them
            res = dp.feed(ln)
    if res is IGNORE:
        out["result"], out["why"] = "ignored", f"a {kind} line with no record (header, banner, separator)"
    elif res is None:
        out["result"], out["why"] = "unparsed", f"no {kind} rule matched"
    else:
        out["result"], out["rule"], out["kind"] = "parsed", res.rule, res.kind
        out["fields"] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in res.fields.items()}
    return out


def _explain_foreign(out: dict[str, Any], text: str, sp: layouts.Split) -> dict[str, Any] | None:
    """The outcome of parsers/foreign for a line no Java rule took (or one surely a non-Java client's)."""
    res = foreign.parse_line(text, sp.logger, {}, sp.message)
    if res is None:
        return None
    out["side"] = "client"
    if res is foreign.UNRECOGNISED:
        out["result"] = "unparsed"
        out["why"] = "a consumer-group line of a non-Java client (librdkafka/KafkaJS/kafka-python/aiokafka) that no rule knows"
        return out
    if res is IGNORE:
        out["result"] = "ignored"
        out["why"] = "a non-Java client's line that carries no coordination event"
        return out
    out["result"] = "parsed"
    out["rule"] = res.rule
    out["source"] = foreign.rule_source(res.rule)
    out["versions"] = ""
    out["kind"] = res.kind
    out["fields"] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in res.fields.items()}
    return out


def explain_line(line: str, layout: str | None = None) -> dict[str, Any]:
    lines = line.split("\n")
    if layout is None:
        if reader.offsets_dump.looks_like_offsets_dump(lines):
            return _explain_record("offsets_dump", lines)
        if reader.groups_describe.looks_like_groups_describe(lines):
            return _explain_record("groups_describe", lines)
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
    if lay.fallback is not None and sp.logger is None and sp.message[-1:] != ")":
        whole = truncated.without_cut_logger(sp.message)  # the "(%c)" suffix cut inside the logger (as the reader)
        if whole is not None:
            sp = layouts.Split(sp.ts_ms, sp.level, sp.thread, sp.logger, whole, sp.extra)
            out["message"], out["truncated"] = whole, "logger"
    # the reader reads a miss as cut short only where the message ends its line as written
    at_end = len(lines) == 1 and text.rstrip().endswith(sp.message.rstrip()[-40:]) and sp.message.strip() != ""
    message = sp.message if len(lines) == 1 else sp.message + "\n" + "\n".join(lines[1:])
    out["candidate"] = reader.is_candidate(message)
    prefix, body = client.split_prefix(message)
    out["prefix"] = {k: v for k, v in prefix.items()}
    cfg = reader.config_block.parse_config_block(message, None)
    if cfg is not None:  # an `XxxConfig values:` dump (parsers/config_block.py, AbstractConfig.logAll)
        out["side"] = "broker" if isinstance(cfg, Match) and cfg.kind == "broker_config" else "client"
        out["source"] = "clients/src/main/java/org/apache/kafka/common/config/AbstractConfig.java (logAll, 0.9-4.x)"
        if not isinstance(cfg, Match):
            out["result"] = "ignored"
            out["why"] = "a configuration dump of a class other than ConsumerConfig / KafkaConfig"
            return out
        out["result"] = "parsed"
        out["rule"] = cfg.rule
        out["kind"] = cfg.kind
        out["fields"] = dict(cfg.fields)
        return out
    if foreign.claims(text, sp.logger):  # a non-Java client's line (parsers/foreign): read before the Java rules
        done = _explain_foreign(out, text, sp)
        if done is not None:
            return done
    if reader._is_broker(sp.logger, message):
        out["side"] = "broker"
        res = reader.broker.parse_broker_message(message, sp.logger)
        if res is None and at_end and (whole := truncated.without_cut_logger(message)) is not None:
            message, out["message"], out["truncated"] = whole, whole, "logger"
            res = reader.broker.parse_broker_message(message, sp.logger)
        if res is None and "***" in message:  # a redaction glued to a word (as the reader)
            alt = reader.broker.parse_broker_message(reader._GLUED_REDACTION.sub(" ", message), sp.logger)
            res = alt if isinstance(alt, Match) else res
        if res is None and at_end:
            cut = truncated.read_cut_broker(message, sp.logger)  # cut short inside a rule's text (as the reader)
            if cut is not None:
                res, out["truncated"] = cut, "message"
        b = reader.broker.explain_broker_message(message, sp.logger)  # the broker module explains its rules
        out["broker_explain"] = b
        if not isinstance(res, Match):
            out["result"] = "ignored" if res is IGNORE else "unparsed"
            out["why"] = b.get("why") or ("not a group-coordinator line" if res is IGNORE else "no broker rule matched")
            out["closest_rules"] = [
                {"rule": c.get("rule"), "similarity": c.get("similarity"), "template": c.get("template"),
                 "agrees_for_chars": _divergence(b.get("body", ""), c.get("template") or ""),
                 "source": c.get("source"), "versions": ""} for c in b.get("closest", [])]
            return out
        out["result"] = "parsed"
        out["rule"] = res.rule
        out["template"] = b.get("template")
        out["source"] = b.get("source")
        out["versions"] = ""
        out["kind"] = res.kind
        out["fields"] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in res.fields.items()}
        return out
    else:
        out["side"] = "client"
        res = client.parse_client_message(message, sp.logger)
        if res is None and message and not message[-1].isspace():  # an empty last value whose trailing space was dropped
            res = client.parse_client_message(message + " ", sp.logger)
            if message[-1] != ":" and isinstance(res, Match) and res.fields.get("partitions") != ():
                res = None  # after " {}" only an empty partition list (as the reader)
    if res is IGNORE or res is None:  # what the reader then offers the non-Java clients' parsers
        done = _explain_foreign(out, text, sp)
        if done is not None:
            return done
    if res is IGNORE:
        out["result"] = "ignored"
        out["why"] = "matched a rule for a line with no coordination event" if client._parse_body(
            body, client.logger_class(sp.logger)) else "not a coordinator line (no rule, no coordinator wording)"
        return out
    if res is None and at_end:
        cut = truncated.read_cut(message, sp.logger)  # cut short inside a template (parsers/truncated.py)
        if cut is not None:
            res, out["truncated"] = cut, "message"
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
