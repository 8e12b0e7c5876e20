"""The reader's fast paths give exactly the outcomes of its general path (parsers/reader.py):
`_LogParser.run_log4j` (the loop parse_lines uses for unwrapped log4j files) against feeding every
line through `_LogParser.feed`, on mixes of the shapes a log4j file holds."""

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
