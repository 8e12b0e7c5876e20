"""Evidence text left in Arrow (pipeline.replay_rules.lazy_text): Events read with lazy_text=True
equal the eager ones field by field and in their text, the whole-timeline scans see the same texts,
and the replay of a group read from Arrow gives the same rows as the replay of its Events, also
with copied files, untimed lines and a group cut into many chunks and slices."""

from __future__ import annotations

import random
from dataclasses import fields
from pathlib import Path

import pyarrow as pa
import pytest

from parsers.events import Event
from pipeline.replay import events_from_arrow, replay_group, replay_group_rows
from pipeline.replay_rules import event_rows, lazy_text
from pipeline.replay_rules.collect import dedupe_and_order
from pipeline.replay_rules.consumer_groups import MIGRATION_WORDS
from tests.replay.arrow_tables import events_table, folder_events

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"


def _events(name: str) -> list[Event]:
    return folder_events(SAMPLES / name)


def _table(events: list[Event], chunk_rows: int | None = None) -> pa.Table:
    return events_table(events, chunk_rows)


def _fields(e: Event) -> tuple:
    return tuple(getattr(e, f.name) for f in fields(Event))


def _slot(e: Event):
    return Event.__dict__["raw"].__get__(e)


@pytest.fixture(params=[None, 7], ids=["one-chunk", "7-row-chunks"])
def chunk_rows(request):
    return request.param


def test_lazy_events_equal_the_eager_ones_field_by_field_and_text_stays_in_arrow(monkeypatch, chunk_rows):
    monkeypatch.setattr(event_rows, "SLICE_ROWS", 13)     # many slices: lists made per slice
    events = _events("gc_pause_session_expiry")
    random.Random(19).shuffle(events)
    table = _table(events, chunk_rows)
    eager = events_from_arrow(table)
    lazy = events_from_arrow(table, lazy_text=True)
    assert len(lazy) == len(eager) > 50
    # both directions: every lazy event is its eager one, and nothing of the eager one is lost
    assert [_fields(e) for e in lazy] == [_fields(e) for e in eager]
    assert [e.to_dict() for e in eager] == [e.to_dict() for e in lazy]
    assert [repr(e) for e in lazy] == [repr(e) for e in eager]
    assert all(isinstance(e, Event) and lazy_text.is_lazy(e) for e in lazy)
    assert not any(lazy_text.is_lazy(e) for e in eager)
    # the text is read from the column: the slot holds the row number, not a str
    assert all(isinstance(_slot(e), int) for e in lazy)
    assert {_slot(e) for e in lazy} == set(range(len(lazy)))
    # two lazy events compare as Events do (their texts included)
    assert lazy[0] == lazy[0] and lazy[0] != lazy[1]


def test_iter_raw_and_contains_any_see_the_eager_texts(monkeypatch, chunk_rows):
    monkeypatch.setattr(lazy_text, "SLICE_ROWS", 5)
    events = _events("consumer_migration") + _events("healthy_scale_out")
    table = _table(events, chunk_rows)
    eager = events_from_arrow(table)
    lazy = events_from_arrow(table, lazy_text=True)
    shuffled = list(range(len(lazy)))
    random.Random(3).shuffle(shuffled)         # rows out of order: takes from several chunks at once
    lz, eg = [lazy[i] for i in shuffled], [eager[i] for i in shuffled]
    assert list(lazy_text.iter_raw(lz)) == [e.raw for e in eg]
    assert list(lazy_text.iter_raw(eg)) == [e.raw for e in eg]
    for words in (MIGRATION_WORDS, ("Heartbeat",), ("no such words anywhere",)):
        want = [any(w in e.raw for w in words) for e in eg]
        assert lazy_text.contains_any(lz, words) == want == lazy_text.contains_any(eg, words)
    assert any(lazy_text.contains_any(lz, MIGRATION_WORDS)) and not all(lazy_text.contains_any(lz, MIGRATION_WORDS))


def test_replace_fields_keeps_the_text_in_arrow_and_release_drops_the_column():
    events = _events("gc_pause_session_expiry")[:20]
    lazy = events_from_arrow(_table(events), lazy_text=True)
    ev = lazy[3]
    moved = lazy_text.replace_fields(ev, ts_ms=5, extra={"ts_inferred": True})
    assert isinstance(_slot(moved), int) and moved.raw == ev.raw and moved.ts_ms == 5
    plain = lazy_text.replace_fields(events[3], ts_ms=5)
    assert type(plain) is Event and plain.raw == events[3].raw
    given = lazy_text.replace_fields(ev, raw="other text")
    assert given.raw == "other text" and _slot(given) == "other text"
    lazy_text.release(lazy)
    assert given.raw == "other text"          # a text held as a str stays readable
    with pytest.raises(RuntimeError):
        _ = ev.raw


def _copied_and_untimed(events: list[Event]) -> list[Event]:
    """The group's lines, one file ingested twice under another name, and lines without a time."""
    from dataclasses import replace

    src = sorted({e.source for e in events})[0]
    copy = [replace(e, source=src + ".copy") for e in events if e.source == src]
    untimed = [replace(e, ts_ms=None, line_no=e.line_no + 100_000) for e in events[::9]]
    return events + copy + untimed


@pytest.mark.parametrize("sample", ["gc_pause_session_expiry", "consumer_migration", "rebalance_storm",
                                    "offset_reset_skip_and_rewind", "mixed_clients_max_poll"])
def test_replay_from_arrow_with_lazy_text_equals_the_replay_of_the_events(monkeypatch, sample):
    monkeypatch.setattr(lazy_text, "SLICE_ROWS", 11)
    monkeypatch.setattr(event_rows, "SLICE_ROWS", 17)
    events = _events(sample)
    group = max({e.group_id for e in events if e.group_id}, key=lambda g: sum(e.group_id == g for e in events))
    mine = _copied_and_untimed([e for e in events if e.group_id == group])
    expected = replay_group(events_from_arrow(_table(mine)))
    _kept, dropped, _ = dedupe_and_order(events_from_arrow(_table(mine), lazy_text=True))
    assert dropped > 0 and expected.stats["duplicates_dropped"] == dropped   # the copy was found either way
    rows = replay_group_rows(_table(mine, chunk_rows=23))
    for name in ("generations", "memberships", "ownership", "findings"):
        assert rows[name] == expected.table(name), name
    assert rows["generations"] or rows["findings"]


@pytest.mark.parametrize("string_type", [pa.string(), pa.large_string(), pa.string_view()])
def test_containing_searches_each_rows_bytes_only(string_type):
    """A word across two rows' bytes is no match; non-ASCII text, repeats in one row, the last row,
    empty rows and a column of several (sliced) chunks: the same answers as Python's `in`."""
    texts = ["abc", "def", "ab", "cdef", "é timeout é", "", "timeout timeout", "xx", "é", "tail bcd"]
    col = pa.chunked_array([pa.array(texts[:3], string_type), pa.array(["pad"] + texts[3:], string_type).slice(1)])
    store = lazy_text.ArrowTexts(col)
    for words in (("bcd",), ("cde",), ("timeout",), ("é",), ("é t", "xx"), ("fab",), ("",), ("bcd", "def")):
        assert store.containing(words).tolist() == [any(w in t for w in words) for t in texts], words
    assert store.texts([9, 0, 4, 3]) == [texts[9], texts[0], texts[4], texts[3]]
    assert store.texts([3, 4, 5]) == texts[3:6] and store.text(4) == texts[4]
    assert store.texts([3, 5, 4, 6]) == [texts[3], texts[5], texts[4], texts[6]]      # near rows, out of order
    assert store.texts([2, 2, 1]) == [texts[2], texts[2], texts[1]]
