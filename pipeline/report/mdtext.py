"""Log text made inert for Markdown: whatever a log line says, a Markdown renderer shows it as text.

Log-derived strings (group and member ids, titles, explanations, causes, evidence lines) reach the
report; a renderer that allows raw HTML (CommonMark does) would run `<script>` or `<img onerror>`
from them, and `[x](javascript:...)` would become a link. So:
- prose (`text`): one line; `&` and `<` become entities (no HTML, no autolink, no entity tricks),
  and `>` where it would start a quote;
  Markdown punctuation is backslash-escaped (no emphasis, links, images, table cells);
- inline code (`code`): a backtick fence longer than any backtick run inside, one line;
- fenced lines (`fenced_line`): no line break and no closing fence inside.
"""

from __future__ import annotations

import re

# Markdown punctuation that can open emphasis, links, images, code, table cells, escapes or
# strikethrough anywhere in a line. `(` `)` `!` need no escape once `[` `]` are escaped; `_` only
# outside words (CommonMark and Python-Markdown ignore intraword underscores: poll_timeout stays).
_PUNCT = re.compile(r"([\\`*\[\]|~])|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
# Line breaks of every kind a renderer might honour (CommonMark: \n, \r, \r\n; others to be safe).
_BREAKS = re.compile(r"[\r\n\x0b\x0c\x85\u2028\u2029]+")
# A block marker where a field starts a line: a list ("1. ", "- ", "+ "), a heading, a rule.
_LINE_START = re.compile(r"^(\s*)(?:(\d+)([.)])|([-+=#]))")


def one_line(value: object) -> str:
    return _BREAKS.sub(" ", "" if value is None else str(value))


def text(value: object, line_start: bool = False) -> str:
    """Prose or a table cell: shown as typed, never markup. `line_start`: the text begins a
    Markdown line, where "1." or "#" would start a list or a heading."""
    # `<` starts every tag and autolink; `&` an entity; `>` alone is harmless except as a quote
    # marker at the start of a line ("3 -> 3" stays readable)
    s = one_line(value).replace("&", "&amp;").replace("<", "&lt;")
    s = _PUNCT.sub(lambda m: "\\" + m.group(0), s)
    if line_start and s.lstrip().startswith(">"):
        s = s.replace(">", "&gt;", 1)
    if line_start:
        s = _LINE_START.sub(lambda m: m.group(1) + (f"{m.group(2)}\\{m.group(3)}" if m.group(2) else "\\" + m.group(4)), s)
    return s


def code(value: object) -> str:
    """An inline code span holding `value` verbatim (renderers escape HTML inside code)."""
    s = one_line(value)
    longest = max((len(run) for run in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or not s.strip() else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def fenced_line(value: object) -> str:
    """A line inside a ``` fence: one line, and no ``` or ~~~ that could close or reopen a fence."""
    return one_line(value).replace("```", "'''").replace("~~~", "'''")
