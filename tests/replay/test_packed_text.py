"""A big group's evidence texts kept compressed during its replay (pipeline.replay_rules.packed_text):
every text read back is the column's, by row, by rows in any order and by word search (both
directions: no hit missed, none false, a word spanning two lines is no hit), and once a big group's
Events are built from its handed-over rows, Arrow holds a fraction of its `raw` column, not the
column. Asserted through Arrow's allocation count, no timing."""

from __future__ import annotations

import gc
import random

import pyarrow as pa
import pytest

from pipeline import replay
from pipeline.replay_rules import event_rows, lazy_text, packed_text
from pipeline.replay_rules.event_rows import Handover
from tests.replay.arrow_tables import events_table
from tests.replay.test_compact_rows import _canonical, _group

pytestmark = pytest.mark.skipif(not packed_text.available(), reason="no LZ4 in this pyarrow")


def _texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    words = ["Heartbeat", "Committed offset", "Revoke", "Ünïcødé ✓", "", "member consumer-1-a", "Join"]
    return [" ".join(rng.choice(words) for _ in range(rng.randint(0, 6))) + ("" if i % 7 else f" #{i}")
            for i in range(n)]


@pytest.mark.parametrize("layout", ["one-chunk", "chunks", "sliced-large"])
def test_packed_texts_read_as_the_column(layout):
    values = _texts(3 * packed_text.BLOCK_ROWS + 37, 5)
    if layout == "one-chunk":
        col = pa.chunked_array([pa.array(values)])
    elif layout == "chunks":      # chunk ends inside blocks
        col = pa.chunked_array([pa.array(values[a:a + 101]) for a in range(0, len(values), 101)])
    else:                         # a large_string chunk that is a slice of a bigger array
        col = pa.chunked_array([pa.array(["x"] * 9 + values + ["y"], pa.large_string()).slice(9, len(values))])
    packed = packed_text.PackedTexts(col)
    assert len(packed) == len(values)
    assert [packed.text(i) for i in range(len(values))] == values
    rows = list(range(len(values)))
    random.Random(2).shuffle(rows)
    assert packed.texts(rows) == [values[r] for r in rows]
    assert packed.texts(list(range(250, 700))) == values[250:700]
    assert packed.texts([5, 5, 800, 5]) == [values[5], values[5], values[800], values[5]]
    with pytest.raises(IndexError):
        packed.text(len(values))
    for words in (("Heartbeat",), ("Ünïcødé",), ("Revoke", "Join"), ("no such words",), ("",),
                  ("offset Revoke",)):
        want = [any(w in v for w in words) for v in values]
        assert packed.containing(words).tolist() == want, words
    # a word whose bytes span the end of one line and the start of the next is no hit
    pair = packed_text.PackedTexts(pa.chunked_array([pa.array(["ab", "cd"])]))
    assert pair.containing(("bc",)).tolist() == [False, False]
    assert packed.nbytes() < sum(len(v.encode()) for v in values)


def test_a_big_groups_replay_holds_its_texts_compressed():
    events = _group(40)
    assert len(events) >= event_rows._SHARE_MIN_ROWS
    table = events_table(events, chunk_rows=997)
    want = replay.replay_group_rows(table)          # the same rows through the replay's own entry
    raw_bytes = table.column("raw").nbytes
    gc.collect()
    base = pa.total_allocated_bytes() - table.nbytes
    box = [table]
    del table
    lazy = event_rows.events_from_arrow(Handover(box.pop()), lazy_text=True)
    held = pa.total_allocated_bytes() - base
    # the column is gone: what Arrow holds now is a fraction of it (the compressed blocks are bytes)
    assert held < raw_bytes // 4, (held, raw_bytes)
    texts = type(lazy[-1])._texts
    assert texts.column is None and texts.packed is not None
    assert [e.raw for e in lazy[:40]] == [e.raw for e in sorted(events, key=lambda e: (e.ts_ms is not None,
                                                                                    e.ts_ms or 0, e.source,
                                                                                    e.line_no))[:40]]
    lazy_text.release(lazy)
    with pytest.raises(RuntimeError):
        _ = lazy[0].raw
    again = events_table(events, chunk_rows=997)
    assert _canonical(replay.replay_group_rows(again)) == _canonical(want)
