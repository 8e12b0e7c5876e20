"""Issue 17: one small file per logging setup (tests/parsers/corpus/, built by corpus/_make.py from
each setup's documented default layout) around the same Kafka messages; every line must yield what
its `.expect.json` says (kind, group, member, generation, partitions, time), and no other line may
yield an event."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from parsers.reader import parse_path

CORPUS = Path(__file__).parent / "corpus"
FILES = sorted(p for p in CORPUS.glob("*.log"))
FIELDS = ("kind", "group_id", "member_id", "generation", "partitions")


def _ms(iso: str) -> int:
    return int(dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_corpus_file_yields_its_expectations(path: Path) -> None:
    expect = {e["line"]: e for e in json.loads(path.with_suffix(".expect.json").read_text())}
    outcomes, summary = parse_path(str(path))
    got = {o.line_no: o for o in outcomes}
    assert summary.balanced
    problems = []
    for no, o in sorted(got.items()):
        e = expect.get(no)
        ev = o.event
        if e is None:
            if o.status == "parsed" and ev is not None:
                problems.append((no, "unexpected event", ev.kind))
            continue
        if o.status != "parsed" or ev is None:
            problems.append((no, "not parsed", o.status, o.why))
            continue
        for f in FIELDS:
            want = e.get(f)
            have = getattr(ev, f)
            if f == "partitions" and have is not None:
                have = list(have)
            if have != want:
                problems.append((no, f, have, want))
        if "level" in e and (ev.extra or {}).get("level") != e["level"]:  # the level the line states
            problems.append((no, "level", (ev.extra or {}).get("level"), e["level"]))
        want_ts = _ms(e["ts"]) if "ts" in e else None
        if ev.ts_ms != want_ts:
            problems.append((no, "ts_ms", ev.ts_ms, want_ts))
    assert not problems, problems


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_corpus_file_reads_the_same_through_the_candidate_filter(path: Path) -> None:
    """What Spark's ingest does (the JVM keeps only CANDIDATE_REGEX lines and the workers parse them
    with gaps in the line numbers) gives the same events as a full parse."""
    from parsers.reader import _encoding, parse_lines, prefilter, sniff

    raw = path.read_bytes()  # decoded as parse_path does (UTF-16 with its byte order mark)
    lines = list(enumerate(raw.decode(_encoding(raw[:2]), errors="replace").splitlines(), 1))
    fmt = sniff([t for _, t in lines[:200]])
    full = {o.line_no: o.event for o in parse_lines("f", lines, fmt) if o.event is not None}
    kept = {o.line_no: o.event for o in parse_lines("f", prefilter(lines), fmt) if o.event is not None}
    assert kept == full
