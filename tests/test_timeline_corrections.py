"""pipeline/timeline_corrections.py: a group's rows corrected as replay_stage.timeline corrects them
with Spark (the Spark twin is compared in tests/spark/test_group_pass.py): the lines of a copy
whose first source (smallest file name with the same raw text and time) is its original are
dropped, nothing else; skewed files' times are shifted, timeless rows untouched."""

from __future__ import annotations

import random

import pyarrow as pa

from pipeline import schemas
from pipeline.timeline_corrections import corrected, dedupe, shift


def _table(rows: list[dict]) -> pa.Table:
    full = [{**{c: None for c in schemas.columns("events")}, **r} for r in rows]
    return pa.Table.from_pylist(full, schema=schemas.arrow_schema("events"))


def _reference_dedupe(rows: list[dict], copies: set) -> list[dict]:
    first: dict = {}
    for r in rows:
        k = (r["raw"], r["ts_ms"])
        first[k] = min(first.get(k, r["source"]), r["source"])
    return [r for r in rows if (r["source"], first[(r["raw"], r["ts_ms"])]) not in copies]


def test_dedupe_drops_only_the_copy_lines_whose_first_source_is_the_original():
    rows = [
        {"source": "a.log", "line_no": 1, "raw": "x", "ts_ms": 10},
        {"source": "b.log", "line_no": 1, "raw": "x", "ts_ms": 10},    # copy of a.log's line: dropped
        {"source": "b.log", "line_no": 2, "raw": "y", "ts_ms": 20},    # only in b.log: kept
        {"source": "b.log", "line_no": 3, "raw": "x", "ts_ms": 11},    # other time: kept
        {"source": "a.log", "line_no": 2, "raw": "t", "ts_ms": None},
        {"source": "b.log", "line_no": 4, "raw": "t", "ts_ms": None},  # unknown times are equal: dropped
        {"source": "0.log", "line_no": 1, "raw": "z", "ts_ms": 30},
        {"source": "b.log", "line_no": 5, "raw": "z", "ts_ms": 30},    # first source 0.log, not a pair: kept
        {"source": "a.log", "line_no": 3, "raw": "z", "ts_ms": 30},    # a.log is no copy: kept
        {"source": "b.log", "line_no": 6, "raw": "x", "ts_ms": 10},    # a repeat in the copy: dropped too
    ]
    got = dedupe(_table(rows), {("b.log", "a.log")}).to_pylist()
    assert [(r["source"], r["line_no"]) for r in got] == [
        ("a.log", 1), ("b.log", 2), ("b.log", 3), ("a.log", 2), ("0.log", 1), ("b.log", 5), ("a.log", 3)]
    assert dedupe(_table(rows), set()).num_rows == len(rows)


def test_dedupe_matches_the_rule_on_random_rows():
    rnd = random.Random(5)
    for _ in range(20):
        rows = [{"source": rnd.choice(["a.log", "b.log", "c.log"]), "line_no": i, "raw": rnd.choice("pqrs"),
                 "ts_ms": rnd.choice([None, 1, 2, 3])} for i in range(60)]
        copies = {("b.log", "a.log"), ("c.log", "b.log")}
        want = _reference_dedupe(rows, copies)
        got = dedupe(_table(rows), copies).to_pylist()
        assert [(r["source"], r["line_no"]) for r in got] == [(r["source"], r["line_no"]) for r in want]


def test_shift_subtracts_each_files_offset_and_keeps_timeless_rows():
    rows = [{"source": "a.log", "line_no": 1, "ts_ms": 5_000}, {"source": "b.log", "line_no": 1, "ts_ms": 5_000},
            {"source": "b.log", "line_no": 2, "ts_ms": None}, {"source": "c.log", "line_no": 1, "ts_ms": 100}]
    got = shift(_table(rows), {"b.log": 2_500, "c.log": -40}).column("ts_ms").to_pylist()
    assert got == [5_000, 2_500, None, 140]
    assert shift(_table(rows), {"z.log": 1}).column("ts_ms").to_pylist() == [5_000, 5_000, None, 100]


def test_copies_are_dropped_on_the_times_as_logged_then_clocks_shifted():
    rows = [{"source": "a.log", "line_no": 1, "raw": "x", "ts_ms": 10_000},
            {"source": "b.log", "line_no": 1, "raw": "x", "ts_ms": 10_000}]
    got = corrected(_table(rows), {("b.log", "a.log")}, {"a.log": 1_000, "b.log": 9_999}).to_pylist()
    assert [(r["source"], r["ts_ms"]) for r in got] == [("a.log", 9_000)]


def test_shift_takes_each_origins_offset_in_a_file_measured_per_origin():
    # m.log merges two pods' lines and was measured per origin (its clocks keyed "m.log<SEP>origin",
    # "m.log<SEP>" for its lines naming none): each row takes its own origin's offset, pod/b none. p.log
    # names one origin and is one clock: every row of it takes the file's offset, whatever it names
    import json

    from pipeline.timeline_facts import CLOCK_SEP, table_clock_keys

    def o(x):
        return json.dumps({"origin": x, "thread": "main"})

    rows = [{"source": "m.log", "line_no": 1, "ts_ms": 10_000, "extra_json": o("pod/a")},
            {"source": "m.log", "line_no": 2, "ts_ms": 10_000, "extra_json": o("pod/b")},
            {"source": "m.log", "line_no": 3, "ts_ms": 10_000, "extra_json": None},
            {"source": "m.log", "line_no": 4, "ts_ms": None, "extra_json": o("pod/a")},
            {"source": "p.log", "line_no": 1, "ts_ms": 10_000, "extra_json": o("pid:7")},
            {"source": "q.log", "line_no": 1, "ts_ms": 10_000, "extra_json": None}]
    t = _table(rows)
    offsets = {f"m.log{CLOCK_SEP}pod/a": 4_000, f"m.log{CLOCK_SEP}": 1_500, "p.log": 2_000}
    assert shift(t, offsets).column("ts_ms").to_pylist() == [6_000, 10_000, 8_500, None, 8_000, 10_000]
    # the file's offset, where the file is one clock, moves every row of it, pod/a's and pod/b's alike
    assert shift(t, {"m.log": 3_000}).column("ts_ms").to_pylist() == [7_000, 7_000, 7_000, None, 10_000, 10_000]
    assert table_clock_keys(t).to_pylist() == [f"m.log{CLOCK_SEP}pod/a", f"m.log{CLOCK_SEP}pod/b", "m.log",
                                               f"m.log{CLOCK_SEP}pod/a", f"p.log{CLOCK_SEP}pid:7", "q.log"]


def test_back_jumps_are_per_origin_in_a_merged_file():
    # two pods' lines interleaved, pod/b's clock 5 s behind pod/a's: the file's times go back at every
    # seam, but neither pod's own times go back (nothing to read as a clock set back); pod/a's clock
    # set back 3 s at its line 5 is its one jump
    import json

    from pipeline import timeline_facts as tf

    rows = []
    for i in range(1, 7):
        rows.append({"source": "m.log", "line_no": 2 * i - 1, "ts_ms": 20_000 + 100 * i - (3_000 if i >= 3 else 0),
                     "extra_json": json.dumps({"origin": "pod/a"})})
        rows.append({"source": "m.log", "line_no": 2 * i, "ts_ms": 15_000 + 100 * i,
                     "extra_json": json.dumps({"origin": "pod/b"})})
    cols = {c: [r.get(c) for r in rows] for c in ("source", "line_no", "ts_ms", "extra_json")}
    want = [(f"m.log{tf.CLOCK_SEP}pod/a", 5, -2_900)]
    assert tf.back_jumps(cols) == want
    assert tf.table_backs(_table(rows)) == want
