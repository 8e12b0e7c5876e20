"""The reader's fast paths give exactly the outcomes of its general path (parsers/reader.py):
`_LogParser.run_log4j` (the loop parse_lines uses for unwrapped log4j files: loose split, light
records, tail memo) against feeding every line through `_LogParser.feed`, on mixes of the shapes a
log4j file holds; and its loose split against layouts.LOG4J."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from parsers import parse_lines
from parsers.reader import FileFormat, _LogParser

FMT = FileFormat("log", "log4j")
CC = "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"
SHAPES = [
    f"[2024-03-01 10:15:30,123] INFO [Consumer clientId=c1, groupId=g1] (Re-)joining group ({CC})",
    f"[2024-03-01 10:15:29,001] INFO [Consumer clientId=c1, groupId=g1] Committed offset 7 for partition t-0 ({CC})",
    f"[2024-03-01 10:15:31,500] WARN [Consumer clientId=c1, groupId=g1] Offset commit failed on partition t-0 at offset 7: boom ({CC})",
    "[2024-03-01 10:15:32,000] INFO [GroupCoordinator 1]: Preparing to rebalance group g1 in state PreparingRebalance "
    "with old generation 4 (__consumer_offsets-12) (reason: x) (kafka.coordinator.group.GroupCoordinator)",
    "[2024-03-01 10:15:33,000] INFO Kafka version: 3.7.0 (org.apache.kafka.common.utils.AppInfoParser)",
    "[2024-03-01 10:15:34,000] INFO ConsumerConfig values: (org.apache.kafka.clients.consumer.ConsumerConfig)",
    "\tgroup.id = g1",
    "\tat org.apache.kafka.clients.Foo.bar(Foo.java:12)",
    "Caused by: java.lang.IllegalStateException: x",
    "",
    "   ",
    f"[2024-03-01 10:15:35,000] INFO  ({CC})",
    f"[2024-03-01 10:15:36,000] INFO [Consumer clientId=c1, groupId=g1] Member é with epoch 1 transitioned from A to B. ({CC})",
    f"[2024-03-01 10:15:37,000] INFO [Consumer clientId=c1, groupId=g1] bad \x01\x02 bytes ({CC})",
    "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f",
    "plain text line with Heartbeat in it",
    f"[2024-03-01 10:15:38.000] DEBUG [Consumer clientId=c1, groupId=g1] Received successful Heartbeat response ({CC}:123)",
    # run_log4j's loose split and its checks (time, level, logger) against layouts.LOG4J
    f"[2024-03-01T10:15:39.001] INFO [Consumer clientId=c1, groupId=g1] Committed offset 8 for partition t-1 ({CC})",
    f"[2024-03-01 10:15:39,12Z] INFO [Consumer clientId=c1, groupId=g1] Committed offset 8 for partition t-1 ({CC})",
    f"[2024-03-01 10:15:40] INFO [Consumer clientId=c1, groupId=g1] Committed offset 8 for partition t-1 ({CC})",
    f"[2024-03-01 10:15:40,123+01:00] INFO [Consumer clientId=c1, groupId=g1] (Re-)joining group ({CC})",
    f"[2024-13-45 10:15:41,123] INFO [Consumer clientId=c1, groupId=g1] (Re-)joining group ({CC})",
    f"[2024-03-01 10:15:4x,123] INFO [Consumer clientId=c1, groupId=g1] (Re-)joining group ({CC})",
    f"[2024-03-01 10:15:42,123] WARNING [Consumer clientId=c1, groupId=g1] (Re-)joining group ({CC})",
    f"[2024-03-01 10:15:42,123] WARNINGX [Consumer clientId=c1, groupId=g1] (Re-)joining group ({CC})",
    f"[2024-03-01 10:15:42,123] info [Consumer clientId=c1, groupId=g1] (Re-)joining group ({CC})",
    f"[2024-03-01 10:15:42,124] INFO \t [Consumer clientId=c1, groupId=g1] (Re-)joining group ({CC})",
    "[2024-03-01 10:15:43,000] INFO [Consumer clientId=c1, groupId=g1] (Re-)joining group (a,b)",
    "[2024-03-01 10:15:43,000] INFO [Consumer clientId=c1, groupId=g1] (Re-)joining group (a b)",
    "[2024-03-01 10:15:43,000] INFO [Consumer clientId=c1, groupId=g1] (Re-)joining group (x\x01y)",
    "[2024-03-01 10:15:43,000] INFO [Consumer clientId=c1, groupId=g1] (Re-)joining group (Coordinator$1:77)",
    "[2024-03-01 10:15:43,000] INFO [Consumer clientId=c1, groupId=g1] Heartbeat (x) (Foo.java:12) (AbstractCoordinator)",
    f"[2024-03-01 10:15:44,000] INFO [Consumer clientId=c1, groupId=g1] (Re-)joining group ({CC})\n",
    f"[2024-03-01 10:15:44,000] INFO [Consumer clientId=c1, groupId=g1] (Re-)joining group ({CC})\r",
    f"[2024-03-01 10:15:44,001] INFO [Consumer clientId=c1, groupId=g1] Heartbeat\nsplit ({CC})",
    f"[2024-03-01 10:15:44,002] INFO  [Consumer clientId=c1, groupId=g1] Heartbeat lost ({CC})",
    f"[2024-03-01 10:15:44,003] INFO [Consumer clientId=c1, groupId=g1] Heartbeat (x) ({CC}) ({CC})",
    f"[2024-03-01 10:15:44,004] INFO [Consumer clientId=c1, groupId=g1] bad \x01\x02\x03\x04\x05\x06\x07\x08\x0e bytes ({CC})",
    # the client hot path's other outcomes, and what it leaves to the general path
    f"[2024-03-01 10:15:45,000] INFO stream-thread [app-1-StreamThread-1] State transition from RUNNING to PARTITIONS_REVOKED ({CC})",
    f"[2024-03-01 10:15:45,001] INFO [Foo] (Re-)joining group ({CC})",
    f"[2024-03-01 10:15:45,002] INFO [Consumer clientId=c1, groupId=g1] partition revocation took 5 ms. ({CC})",
    f"[2024-03-01 10:15:45,003] INFO [Consumer clientId=c1, groupId=g1] Heartbeat went somewhere odd ({CC})",
    "[2024-03-01 10:15:45,004] INFO [Consumer clientId=c1, groupId=g1] Cluster ID: abc (org.apache.kafka.clients.Metadata)",
    f"[2024-03-01 10:15:45,005] INFO [GroupCoordinator 1]: Member m-1 in group g1 has failed, removing it from the group ({CC})",
    "[2024-03-01 10:15:45,006] INFO [Consumer clientId=c1, groupId=g1] Adding newly assigned partitions: "
    + ", ".join(f"t-{i}" for i in range(3000)) + f" ({CC})",
    "[2024-03-01 10:15:46,000] INFO Kafka version: 2.8.1 (org.apache.kafka.common.utils.AppInfoParser)",
    f"[2024-03-01 10:15:46,500] INFO [Consumer clientId=c1, groupId=g1] Received successful Heartbeat response ({CC})",
]


def _via_feed(numbered: list[tuple[int, str]], stats: dict) -> list:
    lp = _LogParser("f.log", FMT, stats)
    out: list = []
    for no, text in numbered:
        lp.feed(no, text, out)
    lp.flush(out)
    return out


def _view(outcomes) -> list:
    return [(o.line_no, o.status, o.why, None if o.event is None else o.event.to_dict()) for o in outcomes]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(SHAPES), st.integers(min_value=1, max_value=3)), max_size=40))
def test_run_log4j_equals_feeding_every_line(picks):
    numbered, no = [], 0
    for text, step in picks:  # steps > 1 are gaps (lines filtered out upstream)
        no += step
        numbered.append((no, text))
    fast_stats: dict = {}
    fast = list(parse_lines("f.log", numbered, FMT, _stats=fast_stats))
    stats: dict = {"format": FMT}
    assert _view(fast) == _view(_via_feed(numbered, stats))
    assert fast_stats == stats  # clock_backwards, rejects
    assert [o.line_no for o in fast] == [n for n, _ in numbered]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(SHAPES[-18:] + SHAPES[:3]), max_size=60), st.booleans())
def test_tail_memo_hits_give_the_outcomes_of_feeding(picks, cold):
    """Lines drawn from few shapes repeat, so most of them are tail memo hits (with and without
    memos emptied first), across Kafka version lines and second changes."""
    from parsers import client

    if cold:
        client.clear_memos()
    numbered = list(enumerate(picks, 1))
    fast_stats: dict = {}
    fast = list(parse_lines("f.log", numbered, FMT, _stats=fast_stats))
    stats: dict = {"format": FMT}
    assert _view(fast) == _view(_via_feed(numbered, stats))
    assert fast_stats == stats


def test_tail_memo_serves_repeats_with_their_own_time_line_and_version():
    from parsers import client, reader

    client.clear_memos()
    line = f"[2024-03-01 10:15:30,{{ms:03d}}] INFO [Consumer clientId=c1, groupId=g1] Committed offset 7 for partition t-0 ({CC})"
    numbered = [(i, line.format(ms=i)) for i in range(1, 5)]
    numbered.append((5, "[2024-03-01 10:15:30,500] INFO Kafka version: 2.8.1 (org.apache.kafka.common.utils.AppInfoParser)"))
    numbered += [(i, line.format(ms=i)) for i in range(6, 9)]
    out = list(parse_lines("f.log", numbered, FMT))
    tail = line.format(ms=0)[26:]
    assert tail in reader._LINE_MEMO  # admitted on its second sight, hit from the third on
    events = [o.event for o in out if o.event is not None]
    assert [e.line_no for e in events] == [1, 2, 3, 4, 6, 7, 8]
    assert [e.ts_ms % 1000 for e in events] == [1, 2, 3, 4, 6, 7, 8]
    assert [e.kafka_version_hint for e in events] == ["0.9.0.0..current"] * 4 + ["2.8.1"] * 3
    assert all(e.raw == line.format(ms=e.line_no) and e.offset == 7 and e.group_id == "g1" for e in events)
    assert len({id(e.extra) for e in events}) == len(events)  # each event owns its extra
    assert _view(out) == _view(_via_feed(numbered, {"format": FMT}))
    client.clear_memos()
    assert not reader._LINE_MEMO and not reader._LINE_SEEN


_LOG4J_CHARS = st.sampled_from(list("[]() :,.-+TZ0123456789INFOWARNDEBUG$_\t\x01abcz") + ["INFO", "WARNING", " (", ") "])


@settings(max_examples=400, deadline=None)
@given(st.lists(_LOG4J_CHARS, max_size=40), st.sampled_from(["INFO", "WARNING", "WARNINGX", "info", "DEBUG"]),
       st.sampled_from(["2024-03-01 10:15:30,123", "2024-03-01T10:15:30.1", "2024-03-01 10:15:30",
                        "2024-03-01 10:15:30,12Z", "2024-03-01 10:15:3x,123", "x"]),
       st.sampled_from(["a.b.C", "C:12", "a,b", "a b", "C$1", "x\x01", ""]))
def test_loose_split_and_checks_agree_with_the_log4j_regex(parts, level, ts, logger):
    """What run_log4j accepts from its loose regex and checks has LOG4J's groups exactly, and every
    ASCII line LOG4J splits without a control character in the message is accepted."""
    from parsers import layouts, reader

    text = f"[{ts}] {level} {''.join(parts)} ({logger})"
    ref = layouts.LOG4J.match(text)
    m = reader._LOG4J_LOOSE.match(text)
    accepted = None
    if m is not None:
        t, lv, msg, lraw = m.groups()
        info = reader._logger_info(lraw)
        if (info is not None and lv in reader._LOG4J_LEVELS and reader._LOG4J_TIME.fullmatch(t) is not None
                and len(msg.encode().translate(None, reader._GARBAGE_BYTES)) == len(msg)):
            accepted = (t, lv, msg[:-1], info[0])
    if accepted is not None:
        assert ref is not None and ref.group("ts", "level", "msg", "logger") == accepted
    elif ref is not None and text.isascii():
        assert len(ref["msg"].encode().translate(None, reader._GARBAGE_BYTES)) != len(ref["msg"])


def test_body_memo_admits_on_second_sight_and_stays_bounded(monkeypatch):
    from parsers import client

    client.clear_memos()
    body, cls = "Committed offset 7 for partition t-0", "ConsumerCoordinator"
    first = client._parse_body(body, cls)
    assert (body, cls) in client._SEEN and (body, cls) not in client._MEMO  # seen once: not kept
    second = client._parse_body(body, cls)
    assert client._MEMO[(body, cls)] is second and second == first  # seen twice: kept
    assert client._parse_body(body, cls) is second  # and served from the memo
    assert first[:2] == ("committed_offset_for_partition", "offset_committed") and first[2]["offset"] == 7
    monkeypatch.setattr(client, "MEMO_ENTRIES", 3)
    monkeypatch.setattr(client, "SEEN_ENTRIES", 5)
    for i in range(20):
        for _ in range(2):
            client._parse_body(f"Committed offset {i} for partition t-0", cls)
        assert len(client._MEMO) <= 3 and len(client._SEEN) <= 5
    long_body = "Committed offset 1 for partition t-0" + " " * client.MEMO_MAX
    for _ in range(3):
        client._parse_body(long_body, cls)
    assert all(len(k[0]) <= client.MEMO_MAX for k in (*client._MEMO, *client._SEEN))
    client.clear_memos()
    assert not client._MEMO and not client._SEEN
