"""pipeline.timeline_facts.table_facts (the ingest pass's column-wise facts) against the list
functions it replaces in the pass (shared_counts, anchor_diffs), on rows with copies, repeats,
unknown times and texts, and joins of several generations."""

from __future__ import annotations

from collections import Counter

import pyarrow as pa
import pytest

from pipeline import schemas
from pipeline import timeline_facts as tf


def _table(rows):
    return pa.Table.from_pylist([{"line_no": i + 1, "side": "client", **r} for i, r in enumerate(rows)],
                                schema=schemas.arrow_schema("events"))


ROWS = [
    # b.log copies two lines of a.log (same text and time); c.log shares one line of a.log's text at
    # another time (not shared); a.log repeats a line (both copies count for a.log)
    dict(group_id="g", source="a.log", raw="x1", ts_ms=10, kind="heartbeat_succeeded"),
    dict(group_id="g", source="b.log", raw="x1", ts_ms=10, kind="heartbeat_succeeded"),
    dict(group_id="g", source="a.log", raw="x2", ts_ms=20, kind="join_succeeded", generation=3),
    dict(group_id="g", source="b.log", raw="x2", ts_ms=20, kind="join_succeeded", generation=3),
    dict(group_id="g", source="c.log", raw="x2", ts_ms=21, kind="join_succeeded", generation=3),
    dict(group_id="g", source="a.log", raw="x3", ts_ms=30, kind="offset_committed"),
    dict(group_id="g", source="a.log", raw="x3", ts_ms=30, kind="offset_committed"),
    # unknown times and texts are key values too: the None keys meet
    dict(group_id="g", source="c.log", raw="u", ts_ms=None, kind="join_started"),
    dict(group_id="g", source="b.log", raw="u", ts_ms=None, kind="join_started"),
    dict(group_id="g", source="c.log", raw=None, ts_ms=40, kind="unparsed"),
    dict(group_id="g", source="b.log", raw=None, ts_ms=40, kind="unparsed"),
    # a broker reference for generation 4; a join without a generation or time is no anchor
    dict(group_id="g", source="broker.log", raw="s4", ts_ms=50, kind="broker_group_stabilized", generation=4),
    dict(group_id="g", source="a.log", raw="j4", ts_ms=53, kind="join_succeeded", generation=4),
    dict(group_id="g", source="c.log", raw="j4c", ts_ms=49, kind="join_succeeded", generation=4),
    dict(group_id="g", source="c.log", raw="j?", ts_ms=None, kind="join_succeeded", generation=5),
]


def _dictionaries(table: pa.Table, chunk: int) -> pa.Table:
    """`table` as a big group reaches the pass (buckets.bucket_groups): source, kind and raw's
    neighbours as Arrow dictionaries, each chunk (staged file) with a dictionary of its own."""
    parts = []
    for b in table.to_batches(max_chunksize=chunk):
        t = pa.Table.from_batches([b])
        for c in ("source", "kind"):
            i = t.schema.get_field_index(c)
            t = t.set_column(i, c, t.column(c).dictionary_encode())
        parts.append(t)
    return pa.concat_tables(parts)


@pytest.mark.parametrize("chunk", [None, 3, "dictionaries"], ids=["one-chunk", "batches-of-3", "dictionaries"])
def test_table_facts_equal_the_list_functions_in_both_directions(chunk):
    table = _table(ROWS)
    cols = table.select(list(tf.FACT_COLUMNS)).to_pydict()
    if chunk == "dictionaries":
        table = _dictionaries(table, 4)
        assert pa.types.is_dictionary(table.schema.field("source").type) and table.column("source").num_chunks > 1
        # the chunks' dictionaries differ (a file's own values, in its own order)
        assert len({tuple(ch.dictionary.to_pylist()) for ch in table.column("source").chunks}) > 1
    elif chunk:     # as the pass gets a group: slices of several record batches
        table = pa.Table.from_batches(table.to_batches(max_chunksize=chunk))
        assert table.column("raw").num_chunks > 1
    shared, diffs = tf.table_facts(table)
    assert shared == Counter(tf.shared_counts(cols))
    assert diffs == tf.anchor_diffs(cols)
    # the facts themselves: b.log's copies and the unknown-key lines point at the smallest file
    assert shared == Counter({("a.log", "a.log"): 5, ("b.log", "a.log"): 2, ("b.log", "b.log"): 2,
                              ("c.log", "c.log"): 3, ("c.log", "b.log"): 2, ("broker.log", "broker.log"): 1})
    # (source, difference to the generation's reference, the join's line, the reference sure:
    # three files' joins or the broker's line)
    assert diffs == [("a.log", 0, 3, True), ("b.log", 0, 4, True), ("c.log", 1, 5, True), ("a.log", 3, 13, True),
                     ("c.log", -1, 14, True)]


def test_table_facts_without_shared_lines_and_empty():
    table = _table([dict(group_id="g", source=f"{s}.log", raw=f"r{i}", ts_ms=i, kind="heartbeat_succeeded")
                    for i, s in enumerate("abcab")])
    assert tf.table_facts(table) == (Counter({("a.log", "a.log"): 2, ("b.log", "b.log"): 2, ("c.log", "c.log"): 1}), [])
    assert tf.table_facts(_table([])) == (Counter(), [])


BACK_ROWS = [
    # a.log's clock goes back 30 s at its line 4 (rows in line order); b.log's rows come in two runs,
    # the second before the first in the table, with a 2 s step back between them; c.log goes back
    # by less than STEP_MIN_MS (an async appender's reordering) and has a row without a time
    dict(group_id="g", source="a.log", line_no=1, ts_ms=100_000, kind="join_started"),
    dict(group_id="g", source="a.log", line_no=2, ts_ms=101_000, kind="heartbeat_succeeded"),
    dict(group_id="g", source="b.log", line_no=9, ts_ms=50_000, kind="heartbeat_succeeded"),
    dict(group_id="g", source="a.log", line_no=3, ts_ms=102_000, kind="heartbeat_succeeded"),
    dict(group_id="g", source="a.log", line_no=4, ts_ms=73_000, kind="heartbeat_succeeded"),
    dict(group_id="g", source="c.log", line_no=1, ts_ms=10_000, kind="heartbeat_succeeded"),
    dict(group_id="g", source="c.log", line_no=2, ts_ms=None, kind="heartbeat_succeeded"),
    dict(group_id="g", source="c.log", line_no=3, ts_ms=9_500, kind="heartbeat_succeeded"),
    dict(group_id="g", source="b.log", line_no=5, ts_ms=52_000, kind="heartbeat_succeeded"),
]


@pytest.mark.parametrize("chunk", [None, 2, "dictionaries"], ids=["one-chunk", "batches-of-2", "dictionaries"])
def test_table_backs_equal_back_jumps(chunk):
    rows = [{"raw": "r", **r} for r in BACK_ROWS]
    table = pa.Table.from_pylist([{"side": "client", **r} for r in rows], schema=schemas.arrow_schema("events"))
    cols = table.select(list(tf.FACT_COLUMNS)).to_pydict()
    if chunk == "dictionaries":
        table = _dictionaries(table, 4)
    elif chunk:
        table = pa.Table.from_batches(table.to_batches(max_chunksize=chunk))
    want = [("a.log", 4, -29_000), ("b.log", 9, -2_000)]
    assert sorted(tf.back_jumps(cols)) == want
    assert sorted(tf.table_backs(table)) == want
    # in file order already (one run per file): the same, without sorting
    ordered = pa.Table.from_pylist(sorted(rows, key=lambda r: (r["source"], r["line_no"])),
                                   schema=schemas.arrow_schema("events"))
    assert sorted(tf.table_backs(ordered)) == want
