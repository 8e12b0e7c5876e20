"""`coordscope explain 'LINE'`: the grammar debugger (layout, rule or where matching failed, fields)."""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "explain",
        help="show how one log line is parsed: layout, prefix, matching rule (or closest rules) and fields",
        description="Explain how coordscope reads one line: the detected layout and wrappers, the split "
        "header fields, the LogContext prefix, the rule that matched (with its Kafka source file and "
        "versions) and the extracted fields; for an unmatched line the closest rules and where they "
        "diverge. Continuation lines may follow after newlines; '-' reads the line(s) from standard input.",
    )
    p.add_argument("line", metavar="LINE", help="the log line (quote it), or '-' for standard input")
    p.add_argument("--layout", metavar="NAME", help="force the layout instead of detecting it")
    p.add_argument("--json", action="store_true", help="print the explanation as JSON")
    return p


def run(args: argparse.Namespace) -> int:
    from parsers import layouts
    from parsers.explain import explain_line
    from pipeline.cli import UsageError

    if args.layout is not None and args.layout not in layouts.LAYOUTS:
        raise UsageError(f"unknown layout {args.layout!r}; known layouts: {', '.join(sorted(layouts.LAYOUTS))}")
    line = sys.stdin.read() if args.line == "-" else args.line
    line = line.rstrip("\r\n")
    if not line.strip():
        raise UsageError("the line is empty")
    info = explain_line(line, args.layout)
    if args.json:
        print(json.dumps(info, ensure_ascii=False, indent=2))
        return 0 if info["result"] != "unparsed" else 1
    w = sys.stdout.write
    if info.get("kind_of_input"):
        w(f"input:     {info['kind_of_input']} line\n")
    else:
        w(f"layout:    {info['layout']}  ({info['layout_doc']})\n")
    if info["wrappers"]:
        w(f"wrappers:  {', '.join(info['wrappers'])}\n")
    if info.get("layout_note"):
        w(f"note:      {info['layout_note']}\n")
    for key in ("ts_ms", "level", "thread", "logger"):
        if info.get(key) is not None:
            w(f"{key + ':':<10} {info[key]}\n")
    w(f"message:   {info['message']}\n")
    if info["prefix"]:
        w("prefix:    " + ", ".join(f"{k}={v}" for k, v in info["prefix"].items()) + "\n")
    w(f"side:      {info['side']}\n")
    w(f"result:    {info['result']}\n")
    if info["result"] == "parsed":
        w(f"rule:      {info['rule']}" + (f"  ({info.get('source')} {info.get('versions') or ''})".rstrip() + ""
                                           if info.get("source") else "") + "\n")
        if info.get("template"):
            w(f"template:  {info['template']}\n")
        w(f"kind:      {info['kind']}\n")
        w("fields:\n")
        for k, v in info["fields"].items():
            w(f"  {k} = {v!r}\n")
        return 0
    w(f"why:       {info.get('why')}\n")
    for near in info.get("closest_rules", []):
        w(f"  closest: {near['rule']} (similarity {near['similarity']}, {near['source']} {near['versions']})\n")
        w(f"           template: {near['template']}\n")
        w(f"           the message agrees with the template's leading text for {near['agrees_for_chars']} "
          f"character(s)\n")
    return 1 if info["result"] == "unparsed" else 0
