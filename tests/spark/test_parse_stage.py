"""parse_stage.parse_batches without a JVM: split rows in, outcome batches out (the function the
Python workers run)."""

from __future__ import annotations

import sys
import types

import pyarrow as pa

from pipeline.spark import parse_stage
from tests.spark.conftest import ABSTRACT_COORDINATOR, client


def split_batch(splits: list[tuple[int, str, int, int, list[tuple[int, str]]]]) -> pa.RecordBatch:
    """(split_no, spath, block, n_lines, [(idx, text)]) per split, the candidates packed as the
    scan returns them (lines.CAND_COLUMNS: idx, text joined by \n, chars)."""
    return pa.record_batch({
        "split_no": pa.array([s[0] for s in splits], pa.int32()),
        "spath": [s[1] for s in splits],
        "block": pa.array([s[2] for s in splits], pa.int64()),
        "n_lines": pa.array([s[3] for s in splits], pa.int64()),
        "problem": pa.array([None] * len(splits), pa.string()),
        "idx": pa.array([[i for i, _ in s[4]] for s in splits], pa.list_(pa.int64())),
        "text": pa.array(["\n".join(t for _, t in s[4]) for s in splits], pa.string()),
        "chars": pa.array([[len(t) for _, t in s[4]] for s in splits], pa.list_(pa.int32())),
    })


def outcomes(batches, formats, module="parsers", max_chars=400):
    out = [r for b in parse_stage.parse_batches(iter(batches), formats, module, max_chars) for r in b.to_pylist()]
    return [r for r in out if r["has_event"]], {r["split_no"]: r for r in out if r["status"] == parse_stage.SPLIT}


def test_events_keep_split_relative_line_numbers_and_every_split_is_counted():
    trace = [client("10:00:00,000", "Rebalance failed.", logger=ABSTRACT_COORDINATOR),
             "org.apache.kafka.common.errors.RebalanceInProgressException: The group is rebalancing",
             "\tat org.apache.kafka.Frame.run(Frame.java:1)"]
    hb = client("10:00:05,000", "Received successful Heartbeat response", level="DEBUG", logger=ABSTRACT_COORDINATOR)
    long_line = client("10:00:06,000", "Committed offset 1 for partition t-0 " + "y" * 500, level="DEBUG")
    batch = split_batch([
        (0, "file:/a.log", 0, 40, [(3, trace[0]), (4, trace[1]), (5, trace[2]), (40, hb)]),   # idx 40: handed over
        (1, "file:/a.log", 4096, 25, [(7, long_line)]),
        (2, "file:/b.log", 0, 3, []),
    ])
    fmt = {"file:/a.log": ("a.log", "log", "log4j", ()), "file:/b.log": ("b.log", "log", "log4j", ())}
    events, splits = outcomes([batch], fmt)
    by_line = {(e["split_no"], e["line_no"]): e for e in events}
    assert set(by_line) == {(0, 4), (0, 41), (1, 8)}
    assert "RebalanceInProgressException" in by_line[(0, 4)]["raw"] and by_line[(0, 4)]["source"] == "a.log"
    over = by_line[(1, 8)]
    assert (over["status"], over["kind"], over["layout"]) == ("unparsed", "unparsed", "log4j")
    assert over["why"].startswith("overlong line: ") and over["raw"] == long_line
    assert by_line[(0, 41)]["layout"] is None                   # parsed rows: unparsed-table columns empty
    assert {k: (s["n_lines"], s["n_cands"], s["n_parsed"], s["n_ignored"], s["n_unparsed"])
            for k, s in splits.items()} == {0: (40, 4, 4, 0, 0), 1: (25, 1, 0, 0, 1), 2: (3, 0, 0, 0, 0)}


def test_a_parser_exception_makes_that_line_unparsed_and_parsing_goes_on(monkeypatch):
    import parsers

    def parse_lines(source, lines, fmt):
        for no, text in lines:
            if "boom" in text:
                raise KeyError("bad state")
            yield parsers.LineOutcome(no, "ignored", None, None)

    fake = types.ModuleType("fake_parsers_for_test")
    fake.FileFormat, fake.parse_lines = parsers.FileFormat, parse_lines
    monkeypatch.setitem(sys.modules, "fake_parsers_for_test", fake)
    batch = split_batch([(0, "file:/a.log", 0, 5, [(0, "one"), (1, "boom here"), (2, "three")])])
    events, splits = outcomes([batch], {"file:/a.log": ("a.log", "log", "plain", ())}, module="fake_parsers_for_test")
    assert [(e["line_no"], e["status"], e["raw"]) for e in events] == [(2, "unparsed", "boom here")]
    assert events[0]["why"] == "parser error: KeyError: 'bad state'"
    assert (splits[0]["n_ignored"], splits[0]["n_unparsed"]) == (2, 1)


def test_event_rows_are_staged_by_the_worker_and_only_split_rows_go_back(tmp_path):
    """stage_batches writes a task's event outcomes to one Parquet file, renamed into place when
    the task's input is done; a second attempt of the same task replaces that file whole."""
    import pyarrow.parquet as pq

    hb = client("10:00:05,000", "Received successful Heartbeat response", level="DEBUG", logger=ABSTRACT_COORDINATOR)
    batch = split_batch([(0, "file:/a.log", 0, 9, [(2, hb), (5, hb)]), (1, "file:/a.log", 4096, 4, [])])
    fmt = {"file:/a.log": ("a.log", "log", "log4j", ())}
    schema = parse_stage.schemas.arrow_schema_of(parse_stage.OUTCOME_FIELDS)
    for attempt in (0, 1):
        staged = parse_stage.StagedFile(str(tmp_path), 3, attempt, schema)
        back = [r for b in parse_stage.stage_batches(iter([batch]), fmt, "parsers", 400, staged) for r in b.to_pylist()]
        assert [(r["split_no"], r["n_lines"], r["n_cands"], r["n_parsed"]) for r in back] == [(0, 9, 2, 2), (1, 4, 0, 0)]
        assert set(back[0]) == {n for n, _ in parse_stage.SPLIT_FIELDS}
        assert sorted(p.name for p in tmp_path.iterdir()) == ["part-00003.parquet"]
        rows = pq.read_table(tmp_path / "part-00003.parquet").to_pylist()
        assert [(r["line_no"], r["kind"], r["has_event"]) for r in rows] == [(3, "heartbeat_succeeded", True),
                                                                           (6, "heartbeat_succeeded", True)]


def test_a_task_without_events_stages_no_file(tmp_path):
    batch = split_batch([(0, "file:/a.log", 0, 3, [])])
    staged = parse_stage.StagedFile(str(tmp_path), 0, 0, parse_stage.schemas.arrow_schema_of(parse_stage.OUTCOME_FIELDS))
    back = [r for b in parse_stage.stage_batches(iter([batch]), {}, "parsers", 400, staged) for r in b.to_pylist()]
    assert [r["n_lines"] for r in back] == [3] and list(tmp_path.iterdir()) == []


def test_event_columns_keep_the_schema_types_and_partitions_pyarrow_refuses_go_through_str():
    """_event_columns converts each field's list with the schema's type; a batch holding
    partitions pyarrow refuses as they are (ints) converts them with str(): both batches give the
    same rows, nulls and types as the schema's."""
    from parsers.events import Event

    schema = pa.schema([f for f in parse_stage.schemas.arrow_schema_of(parse_stage.OUTCOME_FIELDS)])
    evs = [Event("a.log", 3, "client", "partitions_assigned", "raw 3", ts_ms=1_700_000_000_123, group_id="g",
                 generation=7, partitions=("t-0", "t-1"), offset=2**40, extra={"rule": "r"}),
           Event("a.log", 9, "client", "heartbeat_succeeded", "raw 9", member_id="m-1", member_epoch=None)]
    fast = parse_stage._event_columns(evs, schema)
    ints = [Event("a.log", 3, "client", "partitions_assigned", "raw 3", ts_ms=1_700_000_000_123, group_id="g",
                  generation=7, partitions=("t-0", "t-1"), offset=2**40, extra={"rule": "r"}),
            Event("a.log", 9, "client", "heartbeat_succeeded", "raw 9", member_id="m-1", partitions=(5,))]
    slow = parse_stage._event_columns(ints, schema)
    assert set(fast) == set(slow) == set(parse_stage._STRUCT_FIELDS)
    for name in parse_stage._STRUCT_FIELDS:
        assert fast[name].type == slow[name].type == schema.field(name).type
    assert fast["partitions"].to_pylist() == [["t-0", "t-1"], None]
    assert slow["partitions"].to_pylist() == [["t-0", "t-1"], ["5"]]
    assert [fast[n].to_pylist() for n in parse_stage._STRUCT_FIELDS if n != "partitions"] == \
        [slow[n].to_pylist() for n in parse_stage._STRUCT_FIELDS if n != "partitions"]
    assert fast["line_no"].to_pylist() == [3, 9] and fast["offset"].to_pylist() == [2**40, None]
    assert fast["ts_ms"].to_pylist() == [1_700_000_000_123, None] and fast["generation"].to_pylist() == [7, None]
    assert fast["member_id"].to_pylist() == [None, "m-1"] and fast["kind"].to_pylist() == ["partitions_assigned",
                                                                                            "heartbeat_succeeded"]


def test_an_overlong_line_is_unparsed_in_its_own_split_only():
    """Splits of one batch after and before a split with an overlong line parse all their lines."""
    hb = client("10:00:05,000", "Received successful Heartbeat response", level="DEBUG", logger=ABSTRACT_COORDINATOR)
    long_line = client("10:00:06,000", "Committed offset 1 for partition t-0 " + "y" * 500, level="DEBUG")
    batch = split_batch([
        (0, "file:/a.log", 0, 10, [(1, hb), (2, hb)]),
        (1, "file:/a.log", 4096, 10, [(0, hb), (7, long_line), (8, hb)]),
        (2, "file:/a.log", 8192, 10, [(4, hb)]),
    ])
    events, splits = outcomes([batch], {"file:/a.log": ("a.log", "log", "log4j", ())})
    assert sorted((e["split_no"], e["line_no"], e["status"]) for e in events) == [
        (0, 2, "parsed"), (0, 3, "parsed"), (1, 1, "parsed"), (1, 8, "unparsed"), (1, 9, "parsed"), (2, 5, "parsed")]
    assert {k: (s["n_cands"], s["n_parsed"], s["n_unparsed"]) for k, s in splits.items()} == {
        0: (2, 2, 0), 1: (3, 2, 1), 2: (1, 1, 0)}


def test_packed_candidates_of_a_sliced_batch_keep_their_lines():
    """A batch that is a slice of a larger one (its list columns' offsets start past 0): each
    split's texts, empty ones included, go with their own indexes and lengths."""
    hb = client("10:00:05,000", "Received successful Heartbeat response", level="DEBUG", logger=ABSTRACT_COORDINATOR)
    long_line = client("10:00:06,000", "Committed offset 1 for partition t-0 " + "é" * 500, level="DEBUG")
    batch = split_batch([
        (0, "file:/a.log", 0, 10, [(1, hb), (2, "")]),
        (1, "file:/a.log", 4096, 10, [(0, "ünï"), (7, long_line), (8, "")]),
        (2, "file:/a.log", 8192, 10, [(4, hb)]),
    ]).slice(1)
    assert batch.column("idx").offsets[0].as_py() == 2
    events, splits = outcomes([batch], {"file:/a.log": ("a.log", "log", "log4j", ())})
    assert [(e["split_no"], e["line_no"], e["status"], e["raw"]) for e in events if e["status"] == "unparsed"] == [
        (1, 8, "unparsed", long_line)]
    assert sorted((e["split_no"], e["line_no"]) for e in events) == [(1, 8), (2, 5)]
    assert {k: (s["n_cands"], s["n_parsed"], s["n_ignored"], s["n_unparsed"]) for k, s in splits.items()} == {
        1: (3, 0, 2, 1), 2: (1, 1, 0, 0)}


def test_a_text_that_does_not_hold_one_piece_per_index_stops_the_task():
    """The pieces of a split's text and its indexes must agree one for one: otherwise every line
    number after the disagreement would be wrong, so the task fails instead."""
    import pytest

    batch = split_batch([(0, "file:/a.log", 0, 10, [(1, "one"), (2, "two")])])
    batch = batch.set_column(batch.schema.get_field_index("text"), "text", pa.array(["one\ntwo\nthree"]))
    with pytest.raises(ValueError, match="2 candidate lines but 3 texts"):
        outcomes([batch], {"file:/a.log": ("a.log", "log", "log4j", ())})


def test_extra_json_is_exact_for_equal_values_of_other_types():
    """True == 1 == 1.0 in Python, but their JSON differs: events of one batch whose `extra` holds
    each of them under the same key keep their own extra_json; equal extras still share one."""
    from parsers.events import Event

    extras = [{"flag": True}, {"flag": 1}, {"flag": 1.0}, {"flag": True}, {}, {"rule": "r", "level": "INFO"}]
    evs = [Event("a.log", i + 1, "client", "heartbeat_succeeded", f"raw {i}", extra=x) for i, x in enumerate(extras)]
    out = parse_stage.OutcomeColumns()
    out.add_outcomes("file:/a.log", 0, "log4j", [(e.line_no, "parsed", e, None) for e in evs])
    events, _ = out.batches(parse_stage.schemas.arrow_schema_of(parse_stage.OUTCOME_FIELDS))
    assert events.column("extra_json").to_pylist() == ['{"flag": true}', '{"flag": 1}', '{"flag": 1.0}',
                                                       '{"flag": true}', None, '{"level": "INFO", "rule": "r"}']
    assert events.column("line_no").to_pylist() == [1, 2, 3, 4, 5, 6]
    assert events.column("spath").to_pylist() == ["file:/a.log"] * 6 and events.column("has_event").to_pylist() == [True] * 6
