"""Property tests: arbitrary text never makes the parsers raise, and results keep their contract."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsers.base import IGNORE, Match
from parsers.broker import explain_broker_message, parse_broker_message
from parsers.groups_describe import DescribeParser, looks_like_groups_describe
from parsers.offsets_dump import looks_like_offsets_dump, parse_offsets_dump_line, parse_offsets_dump_records

# text that looks like the real thing often enough to reach deep into the rules
FRAGMENTS = st.sampled_from([
    "[GroupCoordinator 1]: ", "[GroupId g] ", "Preparing to rebalance group ", " in state ", " with old generation ",
    " (__consumer_offsets-3)", " (reason: ", ")", "Member ", "MemberMetadata(memberId=", ", clientId=", " in group ",
    " has failed, removing it from the group", "Stabilized group ", " generation ", "::", "[g,t,0]",
    "OffsetAndMetadata(offset=", ", leaderEpoch=Optional[", "]", "NULL", "| offset: 1 CreateTime: 5 key: ",
    " payload: ", "offset_commit::group=", ",partition=", '{"key":{"version":1,"data":', "}", "{", "GROUP", " TOPIC",
    " PARTITION", " CURRENT-OFFSET", " -", " unknown", " 12", "\\", "$ ", "\t", "\x00", "é", "\ufffd", " ",
])
TEXT = st.one_of(st.text(max_size=300), st.lists(st.one_of(FRAGMENTS, st.text(max_size=8)), max_size=25).map("".join))
FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(TEXT, st.one_of(st.none(), st.text(max_size=40)))
def test_broker_never_raises(message, logger):
    m = parse_broker_message(message, logger)
    assert m is None or m is IGNORE or (isinstance(m, Match) and m.kind.startswith("broker_"))
    out = explain_broker_message(message, logger)
    assert out["result"] == ("unparsed" if m is None else "ignored" if m is IGNORE else "parsed")


@FAST
@given(TEXT)
def test_offsets_dump_never_raises(line):
    m = parse_offsets_dump_line(line)
    assert m is None or m is IGNORE or m.kind in ("offset_record", "group_metadata_record", "tombstone")
    recs = parse_offsets_dump_records(line)
    assert recs is None or recs is IGNORE or (isinstance(recs, list) and recs)
    looks_like_offsets_dump([line])


@FAST
@given(st.lists(TEXT, max_size=12))
def test_describe_never_raises_and_answers_every_line(lines):
    p = DescribeParser()
    out = [p.feed(line) for line in lines]
    assert len(out) == len(lines)
    assert all(o is None or o is IGNORE or o.kind == "describe_row" for o in out)
    looks_like_groups_describe(lines)
