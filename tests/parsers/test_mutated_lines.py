"""No input line can raise (issue 16): real lines of every format (client and broker logs in their
layouts, offsets dumps, describe tables, JSON logs), mutated the way damaged or hostile input is
(numbers swapped for '--1', 'NaN', huge or negative values, characters cut, junk inserted, the line
truncated), are read with one outcome per line and no exception. Fixed seed in CI (tests/conftest.py)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsers.reader import parse_lines, sniff

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "real_logs"


def _corpus() -> list[tuple[str, list[str]]]:
    """(name, lines) of files of every format: the sample scenarios' logs, dumps and describe
    tables, and shared/real_logs where present."""
    files = sorted(p for p in (REPO / "sample_logs").rglob("*") if p.is_file() and p.suffix in (".log", ".txt", ".json"))
    files += sorted(SHARED.glob("*.log")) if SHARED.is_dir() else []
    out = []
    for p in files:
        lines = p.read_text(encoding="utf-8", errors="replace").splitlines()[:400]
        if lines:
            out.append((p.name, lines))
    return out


CORPUS = _corpus()
NUMBER = re.compile(r"-?\d+")
BAD_NUMBERS = ["--1", "-1", "NaN", "Infinity", "null", "99999999999999999999999", "1e309", "0x1F", "", "²", "٣",
               "-0", "+5", "1.5", '"7"', "[]", "{}"]


@st.composite
def mutated_file(draw):
    name, lines = draw(st.sampled_from(CORPUS))
    lines = list(lines)
    for _ in range(draw(st.integers(1, 25))):
        i = draw(st.integers(0, len(lines) - 1))
        line = lines[i]
        how = draw(st.sampled_from(["number", "number", "number", "cut", "insert", "truncate", "duplicate"]))
        if how == "number" and NUMBER.search(line):
            # every number of the line, each replaced or kept (one bad field among good ones, or many)
            bad = draw(st.lists(st.sampled_from(BAD_NUMBERS + ["keep"] * 4), min_size=len(NUMBER.findall(line)),
                                max_size=len(NUMBER.findall(line))))
            it = iter(bad)
            line = NUMBER.sub(lambda m, it=it: m.group(0) if (b := next(it)) == "keep" else b, line)
        elif how == "cut" and line:
            a = draw(st.integers(0, len(line) - 1))
            line = line[:a] + line[a + draw(st.integers(1, 20)):]
        elif how == "insert":
            a = draw(st.integers(0, len(line)))
            junk = draw(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12))
            line = line[:a] + junk + line[a:]
        elif how == "truncate":
            line = line[: draw(st.integers(0, max(len(line) - 1, 0)))]
        else:
            lines.insert(i, line)
        lines[i] = line
    return name, lines


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated_file())
def test_mutated_real_lines_never_raise_and_each_gets_one_outcome(case):
    name, lines = case
    fmt = sniff(lines[:200], name)
    outcomes = list(parse_lines(name, list(enumerate(lines, 1)), fmt))
    assert [o.line_no for o in outcomes] == list(range(1, len(lines) + 1))
    assert all(o.status in ("parsed", "ignored", "unparsed") for o in outcomes)
