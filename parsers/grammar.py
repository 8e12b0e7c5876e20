"""The client value grammar (parsers/grammars/client.lark): LALR parsers built once per process.

`parse_value(text)` turns a placeholder's Java toString rendering into plain Python data
(dict with "@type" for objects and nodes, dict for maps, list, str); `parse_prefix(text)` reads a
LogContext prefix. Both are memoised; both return None for text outside the grammar, so callers
keep their regex fallback.
"""

from __future__ import annotations

from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from parsers.build_cache import compile_regex

GRAMMAR = Path(__file__).with_name("grammars") / "client.lark"


@cache
def _parser(start: str):
    from lark import Lark, Transformer, v_args

    @v_args(inline=True)
    class _ToPython(Transformer):
        def object(self, name, members=None):
            d = {"@type": str(name)}
            if members:
                d.update(members)
            return d

        def map(self, members=None):
            return dict(members) if members else {}

        def members(self, *items):
            return list(items)

        def member(self, key, value=None):
            return str(key), value

        def list(self, *items):
            return [i for i in items if i is not None]

        def optional(self, value):
            return value

        def node(self, hostport, nid, rack, fenced=None):
            host, _, port = str(hostport).rpartition(":")
            d: dict[str, Any] = {"@type": "Node", "host": host, "port": port, "id": str(nid), "rack": str(rack)}
            if fenced is not None:
                d["isFenced"] = str(fenced)
            return d

        def scalar(self, *tokens):
            text = " ".join(str(t) for t in tokens)
            return text[1:-1] if text.startswith("'") and text.endswith("'") and len(text) >= 2 else text

        def prefix(self, context, *rest):
            d: dict[str, Any] = {"context": str(context).strip()}
            for r in rest:
                if isinstance(r, tuple):
                    d[r[0]] = r[1]
                elif r is not None:
                    d["client_id"] = str(r)
            return d

        def instance(self, value=None):
            return "instance_id", str(value) if value is not None else None

        def group(self, value=None):
            return "group_id", str(value) if value is not None else None

    # one LALR parser per start symbol; the transformer runs inline (no parse tree is built)
    return Lark.open(str(GRAMMAR), start=start, parser="lalr", lexer="contextual", transformer=_ToPython(), cache=True)


# A value whose first character is a digit or "-" starts with an ATOM token (NAME and KEY start
# with a letter or "_"; map, list, optional and QUOTED with "{", "[", "Optional[" and "'"), so it can
# only be a `node` (ATOM then "(id:") or a `scalar` (ATOM and BRACKETED tokens only: none of
# ",=(){}'" outside brackets). Text that is neither (a placeholder captured with part of its
# neighbour, e.g. "2147483646 rack: null): JoinGroupResponseData(...)") is refused here: Lark
# would refuse it too, through an exception, at ~300 µs (tests/parsers/test_value_grammar.py).
_NODE_HEAD = compile_regex(r"[^\s,=(){}\[\]']+\s*\(id:")
_BRACKETED = compile_regex(r"\[[^\[\]]*\]")
_NOT_IN_SCALAR = compile_regex(r"[,=(){}']")


def _surely_not_a_value(text: str) -> bool:
    if (text[:1].isdigit() or text[:1] == "-") and _NODE_HEAD.match(text) is None \
            and _NOT_IN_SCALAR.search(_BRACKETED.sub("", text)) is not None:
        return True
    # Outside QUOTED and BRACKETED tokens, the grammar's only parentheses and braces are the pairs
    # of `object`, `map` and `node` ("(id:" ... ")"): text without quotes or brackets whose
    # parentheses or braces do not pair up (a value cut short, "host:9092 (id") has no reading
    return ("'" not in text and "[" not in text
            and (text.count("(") != text.count(")") or text.count("{") != text.count("}")))


@lru_cache(maxsize=16384)
def parse_value(text: str) -> Any:
    text = text.strip()
    if _surely_not_a_value(text):
        return None
    from lark.exceptions import LarkError  # (here: text refused above never imports Lark)

    try:
        return _parser("value").parse(text)
    except (LarkError, TypeError, ValueError):  # inline transformers raise directly
        return None


@lru_cache(maxsize=4096)
def parse_prefix(text: str) -> dict[str, Any] | None:
    from lark.exceptions import LarkError

    try:
        return _parser("prefix").parse(text)
    except (LarkError, TypeError, ValueError):
        return None
