"""The shape of the candidate regex: its literal alternatives and the rest (pure Python, no JVM).

Used twice on the JVM side of ingest: `literal_alternatives` feeds the Java Aho-Corasick filter
(pipeline/spark/jvm.py), and `fast_regex` is the rlike fallback when that filter is unavailable.
"""

from __future__ import annotations

_META = set("\\.[]{}()*+?^$|")


def _split_top(rx: str) -> list[str]:
    """Top-level alternatives of a regex (escapes and groups respected)."""
    parts, depth, cur, i = [], 0, "", 0
    while i < len(rx):
        c = rx[i]
        if c == "\\" and i + 1 < len(rx):
            cur += rx[i:i + 2]
            i += 2
            continue
        depth += (c == "(") - (c == ")")
        if c == "|" and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    parts.append(cur)
    return parts


def _literal(alt: str) -> str | None:
    """The literal text of an alternative, or None when it uses regex syntax."""
    out, i = "", 0
    while i < len(alt):
        c = alt[i]
        if c == "\\":
            if i + 1 < len(alt) and alt[i + 1] in _META:
                out += alt[i + 1]
                i += 2
                continue
            return None
        if c in _META:
            return None
        out += c
        i += 1
    return out or None


def _esc(c: str) -> str:
    return "\\" + c if c in _META or c in "-" else c


def _trie(words: list[str]) -> str:
    root: dict = {}
    for w in words:
        node = root
        for c in w:
            node = node.setdefault(c, {})
        node[""] = {}

    def emit(node: dict) -> str:
        if "" in node:
            return ""          # a word ends here: longer continuations add nothing to "contains"
        alts = [_esc(c) + emit(node[c]) for c in sorted(node)]
        return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"

    return emit(root)


def fast_regex(regex: str) -> str:
    """The same language as `regex` for `find` (Spark's rlike), faster on the JVM.

    java.util.regex tries every alternative at every position of a line. The literal alternatives
    of the candidate regex are rewritten as a trie behind a one-character lookahead, and literals
    that contain another literal are dropped (the shorter one already matches): measured 2.4x on
    the candidate filter. Non-literal alternatives are kept as they are. Equivalence with the
    original is tested on real and generated lines (tests/spark/test_lines.py).
    """
    shape = literal_alternatives(regex)
    if shape is None:
        return regex
    lits, rest = shape
    if len(lits) < 2:
        return regex
    lits = sorted({w for w in lits if not any(o != w and o in w for o in lits)})
    first = "".join(sorted({_esc(w[0]) if w[0] not in "]^" else "\\" + w[0] for w in lits}))
    return "|".join([f"(?=[{first}]){_trie(lits)}", *rest])


def literal_alternatives(regex: str) -> tuple[list[str], list[str]] | None:
    """(literal words, other top-level alternatives) of `regex`, or None when it has no literal.

    A top-level alternative counts as words when it is a plain literal or a non-capturing group of
    plain literals, e.g. `(?:Coordinator|group )`. Searching for any word or any other alternative
    is the same as searching for `regex`.
    """
    words: list[str] = []
    rest: list[str] = []
    for part in _split_top(regex):
        inner = part[3:-1] if part.startswith("(?:") and part.endswith(")") else None
        alts = _split_top(inner) if inner is not None and _split_top(inner) != [inner] else [part]
        found = [_literal(a) for a in alts]
        if all(found):
            words.extend(w for w in found if w)
        else:
            rest.append(part)
    return (sorted(set(words)), rest) if words else None


def java_flavour(regex: str) -> str:
    """`regex` (Python `re` syntax, str semantics) for java.util.regex with UNICODE_CHARACTER_CLASS.

    With that flag Java's \\w, \\d and \\s are Unicode-aware like Python's; Python's \\s also takes
    the four separators U+001C-U+001F (str.isspace), which Java's White_Space does not: they are
    added. The candidate decision on the JVM is then the parsers' own (tests/spark/test_lines.py).
    """
    out, i, in_class = [], 0, False
    while i < len(regex):
        c = regex[i]
        if c == "\\" and i + 1 < len(regex):
            pair = regex[i:i + 2]
            if pair == "\\s":
                out.append("\\s\\x1c-\\x1f" if in_class else "[\\s\\x1c-\\x1f]")
            else:
                out.append(pair)
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
            out.append(c)
            if regex[i + 1:i + 2] == "^":     # a negated class: its leading ^ is not a literal
                out.append("^")
                i += 1
            if regex[i + 1:i + 2] == "]":     # a leading ] is a literal member
                out.append("]")
                i += 1
        elif c == "]" and in_class:
            in_class = False
            out.append(c)
        else:
            out.append(c)
        i += 1
    return "".join(out)
