"""The Python twin of the ingest's candidate filter with its gap codes (pipeline/spark/jvm/
SplitScanner.java, Gaps): which lines of a file the filter keeps, and for each kept line whose
dropped lines came before it (parsers.reader's GAP_* codes, which parse_lines(..., gaps=) reads).
The JVM scanner and this module decide the same thing (tests/spark/test_ingest_gaps.py); the
reader's own parse of a whole file needs none of it."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from parsers import layouts
from parsers import origin as _origin
from parsers.reader import (
    _CRI_LINE,
    GAP_ALL,
    GAP_NONE,
    GAP_OWN,
    MAX_ORIGINS,
    MAX_SOFT_WRAPPED,
    FileFormat,
    is_candidate,
    json_origins,
    origin_behind_ansi,
    origin_rule,
)

# The ingest's filter (pipeline/spark/jvm/SplitScanner.java; Python twin: filter_with_gaps) drops the
# lines that hold no candidate word, so the reader sees (line_no, text) pairs with gaps. Two file
# shapes need more than "lines are missing here" (docs/parsers.md, "Merged streams"):
#
# - merged streams (an origin wrapper outermost: kubectl --prefix, stern, docker compose, syslog): a
#   dropped line ends the record of its own origin only; other origins' records wait for their next
#   line (`_LogParser.parked`). The filter reads each line's origin wrapper (the same regex) and tells
#   the reader, per kept line, one GAP_* code: GAP_OWN when a line of this line's origin was dropped
#   since that origin's last kept line (its record ended there), GAP_ALL when a dropped line had no
#   origin (it ended whatever record was current) or this line has none and lines were dropped
#   before it, else GAP_NONE (a gap of other origins' lines only: nothing of this origin ended).
# - Kafka's own log4j layout, unwrapped (a pasted or soft-wrapped record, `_soft_wrap`): after a kept
#   line that starts like a log4j record ("[" and a digit) and does not end with its " (logger)", the
#   lines that may be pieces of it are kept too: not blank, not starting with a time, at most
#   MAX_SOFT_WRAPPED of them that hold no candidate word. A superset of what the reader's
#   `_soft_wrap` glues (it stops earlier: at the logger, at a layout line), so every glued piece
#   reaches the reader and no gap cuts the record.
# - CRI node logs (the kubelet's `<time> <stream> <P|F> ` lines, cri_rule): the line after a kept
#   partial (`P`) line is kept when it is a CRI line too (the partial lines are candidates themselves,
#   reader.BLOCK_TIME_REGEX), so a run of parts reaches the reader whole and `_cri_joined` joins it as
#   in `parse`; without it the last part (`F`, no candidate word in it) was dropped and the parts stood
#   alone.
# - a file of JSON records naming their origin (Fluent Bit / fluentd kubernetes metadata, journald's
#   _HOSTNAME and _PID, docker's container_name, ...: reader.json_origins): the key is the origin the
#   record names (json_key: origin.json_origin, the reader's own, on a line that is exactly one JSON
#   object; jvm/JsonOrigin.java on the JVM). A line that is not (a pasted object, a pretty-printed one)
#   has no key, as a line without a wrapper.
# - an origin wrapper behind terminal colours (stern's coloured names, docker compose's coloured
#   prefix): the origin is read after the colour codes are taken off (layouts.ANSI), as the reader does.
_ASCII_BLANK = frozenset(" \t\x0b\x0c")
_DIGITS = frozenset("0123456789")
_LOGGER_CHARS = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_.$-")


def soft_wrap_rule(fmt: FileFormat) -> bool:
    """Whether the filter keeps the possible pieces of soft-wrapped log4j records (see above)."""
    return fmt.kind == "log" and fmt.layout == "log4j" and not fmt.wrappers


def cri_rule(fmt: FileFormat) -> bool:
    """Whether the filter keeps the parts that follow a kept CRI partial line (see above): a log that
    the reader reads through `_cri_joined` (not the unwrapped log4j fast path) with the kubelet's time
    wrapper (layouts.K8S_TS: kubectl --timestamps and the CRI prefix)."""
    return fmt.kind == "log" and "k8s_ts" in fmt.wrappers and not soft_wrap_rule(fmt)


def cri_partial(text: str) -> bool:
    """A CRI partial line: `_cri_joined`'s test (its " P " look first, then _CRI_LINE, tag P)."""
    if " P " not in text[19:48]:
        return False
    m = _CRI_LINE.match(text)
    return m is not None and m.group(2) == "P"


JSON_MAX_DEPTH = 64   # jvm/JsonOrigin.java MAX_DEPTH: a deeper record has no key


def _no_constant(name: str) -> Any:
    raise ValueError(name)   # NaN, Infinity: not RFC 8259 JSON (JsonOrigin reads none)


def _too_deep(v: Any, depth: int) -> bool:
    if depth > JSON_MAX_DEPTH:
        return True
    if isinstance(v, dict):
        return any(_too_deep(x, depth + 1) for x in v.values())
    if isinstance(v, list):
        return any(_too_deep(x, depth + 1) for x in v)
    return False


def json_key(text: str) -> str | None:
    """The filter's key of a JSON record's line: the origin it names (origin.json_origin, what the reader
    puts in Event.extra["origin"] for it: layouts.split_json), when the line is exactly one JSON object
    ("{" first, "}" last, no NaN / Infinity, at most JSON_MAX_DEPTH deep); else None."""
    if text[:1] != "{" or text[-1:] != "}":
        return None
    try:
        obj = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or _too_deep(obj, 1):
        return None
    return _origin.json_origin(obj)


def origin_key(m: Any) -> str:
    """The filter's key of a line's origin: the wrapper match's groups, syslog's nil "-" as empty,
    joined by NUL. One key per origin (ORIGIN_WRAPPERS' functions are one-to-one on these groups),
    as jvm/SplitScanner.java's Gaps computes it."""
    return "\0".join("" if g is None or g == "-" else g for g in m.groups())


def _time_start(text: str) -> bool:
    """`_TIME_START` at position 0 of a line that does not start with whitespace, by characters."""
    i = 1 if text[:1] == "[" else 0
    j = i
    while j < len(text) and j - i < 4 and text[j] in _DIGITS:
        j += 1
    return j > i and j + 1 < len(text) and text[j] in "-/:." and text[j + 1] in _DIGITS


def _logger_end(text: str) -> bool:
    """The line ends with log4j's " (logger)" or " (logger:line)" (layouts.LOG4J's end, by ASCII
    characters): its record has its logger, so no soft-wrapped piece follows it."""
    if len(text) < 4 or text[-1] != ")":
        return False
    k = len(text) - 2
    d = k
    while d > 0 and text[d] in _DIGITS:
        d -= 1
    if d < k and text[d] == ":":
        k = d - 1
    s = k
    while s > 0 and text[s] in _LOGGER_CHARS:
        s -= 1
    return s < k and s > 0 and text[s] == "(" and text[s - 1] == " "


def filter_with_gaps(lines: Iterable[tuple[int, str]], fmt: FileFormat,
                     counts: Counter | None = None) -> Iterator[tuple[int, str, int]]:
    """The Python twin of the ingest's filter (jvm/SplitScanner.java, one split): (line_no, text,
    GAP_* code) of the lines kept: the candidates (is_candidate), in a log4j file the possible pieces
    of a soft-wrapped record, in a CRI log the parts after a kept partial line. A line's origin is its
    wrapper's (origin_rule, behind colour codes too) or its JSON record's (json_key). The code is
    GAP_ALL after any dropped line when the file's lines have no origins (the reader then ends every
    record at a gap, as without codes)."""
    wrapper = origin_rule(fmt)
    rx = layouts.WRAPPERS[wrapper].match if wrapper is not None else None
    soft = soft_wrap_rule(fmt)
    ansi = origin_behind_ansi(fmt)
    jkeys = rx is None and json_origins(fmt)
    cri = cri_rule(fmt)
    cri_next = False   # the last line was a kept CRI partial line
    follow = 0
    clean: set[str] = set()
    dropped = keyless_dropped = False
    for no, text in lines:
        keep = is_candidate(text)
        if soft:
            if not text or text[0] in _ASCII_BLANK:
                if all(c in _ASCII_BLANK for c in text):
                    follow = 0
            elif _time_start(text):
                follow = 0
            if not keep and follow:
                keep = True
                follow -= 1
            if keep and text[:1] == "[" and text[1:2] in _DIGITS and not _logger_end(text):
                follow = MAX_SOFT_WRAPPED
        if cri:
            if not keep and cri_next and _CRI_LINE.match(text) is not None:
                keep = True
            cri_next = keep and cri_partial(text)
        if rx is not None:
            m = rx(layouts.strip_ansi(text) if ansi else text)
            key = origin_key(m) if m is not None else None
        else:
            key = json_key(text) if jkeys else None
        if not keep:
            if counts is not None:
                counts["ignored"] += 1
            dropped = True
            if key is None:
                keyless_dropped = True
            else:
                clean.discard(key)
            continue
        if rx is None and not jkeys:
            code = GAP_ALL if dropped else GAP_NONE
        elif keyless_dropped or (key is None and dropped):
            code = GAP_ALL
        elif key is not None and key not in clean:
            code = GAP_OWN
        else:
            code = GAP_NONE
        if key is not None:
            if len(clean) >= MAX_ORIGINS:
                clean.clear()
            clean.add(key)
        dropped = keyless_dropped = False
        yield no, text, code


def gap_codes(kept: Iterable[tuple[int, str, int]]) -> tuple[list[tuple[int, str]], dict[int, int]]:
    """filter_with_gaps' lines as parse_lines takes them: the pairs, and the codes that are not GAP_NONE."""
    pairs: list[tuple[int, str]] = []
    codes: dict[int, int] = {}
    for no, text, code in kept:
        pairs.append((no, text))
        if code:
            codes[no] = code
    return pairs, codes


__all__ = ["cri_partial", "cri_rule", "filter_with_gaps", "gap_codes", "json_key", "origin_key", "soft_wrap_rule"]
