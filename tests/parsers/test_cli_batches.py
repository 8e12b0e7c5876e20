"""The lists `coordscope parse` reads (parse_path(..., rendered=True, batched=True)): a line the
reader renders itself comes as a plain tuple (line_no, kind, JSON line), every other outcome as a
LineOutcome; the writer and the file's counts read both (twenty-first session, branch parsecpu)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from parsers import client, parse_path
from parsers.event_json import Rendered, event_line
from parsers.reader import LineOutcome, parse_lines

REPO = Path(__file__).resolve().parents[2]
LOGGER = "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"


def _log(tmp_path: Path) -> Path:
    """Rendered lines (new bodies, repeated tails), a line no rule takes (unparsed), a non-ASCII line
    (general path, an Event), a continuation line and a broker line."""
    lines = []
    for i in range(40):
        t = f"[2024-03-01 10:00:{i % 60:02d},{i:03d}]"
        lines += [
            f"{t} INFO [Consumer clientId=c-{i % 3}, groupId=g] Committed offset {i} for partition orders-{i % 4} ({LOGGER})",
            f"{t} INFO [Consumer clientId=c-1, groupId=g] Received successful Heartbeat response "
            "(org.apache.kafka.clients.consumer.internals.AbstractCoordinator)",
        ]
        if i % 10 == 3:
            lines += [f"{t} INFO [Consumer clientId=c-1, groupId=gé] (Re-)joining group ({LOGGER})",
                      f"{t} WARN [Consumer clientId=c-1, groupId=g] Something coordinator-ish nobody wrote ({LOGGER})",
                      f"{t} ERROR [Consumer clientId=c-1, groupId=g] Offset commit failed on partition orders-1 "
                      f"at offset {i}: The coordinator is not aware of this member. ({LOGGER})",
                      "java.lang.IllegalStateException: boom",
                      f"{t} INFO [GroupCoordinator 1]: Preparing to rebalance group g in state PreparingRebalance "
                      "with old generation 3 (__consumer_offsets-1) (reason: x) (kafka.coordinator.group.GroupCoordinator)"]
    path = tmp_path / "app.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _one_by_one(path: Path):
    client.clear_memos()
    outcomes, summary = parse_path(str(path), rendered=True)
    return list(outcomes), summary


def _batched(path: Path):
    client.clear_memos()
    batches, summary = parse_path(str(path), rendered=True, batched=True)
    return [o for b in batches for o in b], summary


def _same_outcomes_and_counts(path: Path) -> tuple[int, int]:
    """The batched items of a file against its one-by-one outcomes; (items, plain tuples)."""
    plain, s1 = _one_by_one(path)
    items, s2 = _batched(path)
    assert len(plain) == len(items), path
    compact = 0
    for a, b in zip(plain, items, strict=True):
        if type(b) is tuple:
            compact += 1
            # (line_no, kind, line) stands for a parsed outcome whose event is Rendered(kind, line)
            assert len(b) == 3 and (a.line_no, a.status, a.why) == (b[0], "parsed", None), (path, b[0])
            assert type(a.event) is Rendered and (a.event.kind, a.event.line) == (b[1], b[2]), (path, b[0])
        else:
            assert type(b) is LineOutcome and b == a, (path, b)
    # the counts, kinds in the same (first-seen) order
    assert s2.to_dict() == s1.to_dict(), path
    assert list(s2.kinds.items()) == list(s1.kinds.items()), path
    assert s2.parsed + s2.ignored + s2.unparsed == s2.lines_read == len(items), path
    return len(items), compact


def test_batched_items_are_the_outcomes_and_the_counts_the_same(tmp_path):
    path = _log(tmp_path)
    n, compact = _same_outcomes_and_counts(path)
    _plain, s = _one_by_one(path)
    assert n // 2 < compact < n and s.unparsed > 0 and s.parsed > compact


def test_batched_items_on_the_sample_logs():
    files = sorted(p for p in (REPO / "sample_logs").rglob("*.log") if p.is_file())
    assert files
    totals = [_same_outcomes_and_counts(p) for p in files]
    assert sum(c for _n, c in totals) > 300


def test_count_batch_reads_plain_tuples_and_outcomes():
    from parsers.reader import _count_batch

    ev = Rendered("join_started", b"{}\n")
    batch = [(1, "offset_committed", b"{}\n"), LineOutcome(2, "parsed", ev, None), LineOutcome(3, "ignored", None, None),
             (4, "join_started", b"{}\n"), LineOutcome(5, "unparsed", None, "no client rule matched"),
             (6, "offset_committed", b"{}\n")]
    counts: dict[str, int] = {}
    tallies = [0, 0]
    _count_batch(batch, counts, tallies)
    assert tallies == [4, 1]
    assert list(counts.items()) == [("offset_committed", 2), ("join_started", 2)]
    _count_batch(batch[:1], counts, tallies)
    assert tallies == [5, 1] and counts["offset_committed"] == 3


def test_the_writer_takes_plain_tuples_rendered_and_events(tmp_path):
    from pipeline.commands.parse import _write_events

    path = _log(tmp_path)
    plain, _s = _one_by_one(path)
    items, _s = _batched(path)
    events = [o for o in plain if o.event is not None and type(o.event) is not Rendered]
    assert events, "the file has lines the reader does not render"
    out = io.BytesIO()
    # the batched items in lists of 7, and the one-by-one outcomes (Rendered events) in one list
    _write_events([items[i:i + 7] for i in range(0, len(items), 7)], out.write)
    want = b"".join(o.event.line if type(o.event) is Rendered else event_line(o.event, o.why if o.status == "unparsed" else None)
                    for o in plain if o.event is not None)
    assert out.getvalue() == want
    again = io.BytesIO()
    _write_events([plain], again.write)
    assert again.getvalue() == want


def test_lines_of_a_str_subclass_read_as_their_text_and_other_objects_refused():
    class Line(str):
        pass

    texts = [f"[2024-03-01 10:00:0{i},000] INFO [Consumer clientId=c-1, groupId=g] Committed offset {i} for partition "
             f"orders-3 ({LOGGER})" for i in range(5)] * 2
    client.clear_memos()
    want = list(parse_lines("x.log", list(enumerate(texts, 1))))
    client.clear_memos()
    got = list(parse_lines("x.log", [(n, Line(t)) for n, t in enumerate(texts, 1)]))
    assert [(o.line_no, o.status, o.event) for o in got] == [(o.line_no, o.status, o.event) for o in want]
    assert all(o.status == "parsed" for o in got)
    with pytest.raises(TypeError):
        list(parse_lines("x.log", [(1, texts[0]), (2, texts[1].encode())]))
