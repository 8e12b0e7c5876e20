"""pipeline.group_series (pure, no JVM): heartbeat gaps and offset history computed column-wise.
The cases a column-wise pass can get wrong where a row-by-row walk cannot: one row, a member
that rejoins, equal times, nulls, and the ingest's input split in several chunks (the pass
reads long texts chunk by chunk). tests/test_group_tables.py holds the rules' own cases;
tests/spark/test_group_tables_twin.py checks both tables against the Spark window code."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute as pc

from pipeline import group_series, schemas
from pipeline.group_series import group_tables
from pipeline.group_tables import PRINTED_LATE_MARKERS

T0 = 1_714_557_600_000
C = {"group_id": "g1", "client_id": "c1"}
LATE = '{"binding": "python", "facility": "HEARTBEAT", "librdkafka_rule": "heartbeat_sent"}'


def ev(source, line_no, kind, ts=None, side="client", **kw):
    row = {c: None for c in schemas.columns("events")}
    row.update(source=source, line_no=line_no, kind=kind, ts_ms=None if ts is None else T0 + ts, side=side,
               raw=kw.pop("raw", f"{source}:{line_no}:{kind}"), **kw)
    return row


def tables(rows):
    cols = {c: [r[c] for r in rows] for c in schemas.columns("events")}
    return group_tables(cols)


def arrow(rows, chunk=None):
    t = pa.Table.from_pylist(rows, schema=schemas.arrow_schema("events"))
    if chunk:
        t = pa.Table.from_batches(t.to_batches(max_chunksize=chunk))
    return t


def gaps(rows):
    return sorted((r["kind"], r["member_id"], r["start_ms"] - T0, r["end_ms"] - T0, r["limit_ms"], r["exceeded"],
                   tuple(r["evidence"])) for r in tables(rows)["heartbeat_gaps"])


def history(rows):
    """The offset_commits rows in time order (none first)."""
    return sorted(((r["topic"], r["partition"], r["side"], r["ts_ms"] - T0 if r["ts_ms"] is not None else None,
                    r["offset"], r["prev_offset"], r["delta"], r["flag"], r["member_id"], r["generation"],
                    tuple(r["evidence"])) for r in tables(rows)["offset_commits"]),
                  key=lambda h: (h[0], h[1], h[2], h[3] is not None, h[3] or 0, h[10]))


def test_one_row_gives_no_gap_and_a_first_offset():
    assert tables([ev("c.log", 1, "heartbeat_succeeded", 0, **C)])["heartbeat_gaps"] == []
    rows = [ev("c.log", 1, "offset_committed", 0, topic="t", partition=0, offset=5, **C)]
    assert history(rows) == [("t", 0, "client", 0, 5, None, None, "first", None, None, ("c.log:1",))]
    assert tables([]) == {"heartbeat_gaps": [], "offset_commits": [], "ownership": []}


def test_a_member_that_rejoins_names_each_gap_and_commit_by_the_member_then():
    rows = [
        ev("c.log", 1, "join_succeeded", 0, member_id="m1", generation=1, **C),
        ev("c.log", 2, "heartbeat_succeeded", 3_000, **C),
        ev("c.log", 3, "offset_committed", 4_000, topic="t", partition=0, offset=10, **C),
        ev("c.log", 4, "join_succeeded", 9_000, member_id="m2", generation=2, **C),
        ev("c.log", 5, "heartbeat_succeeded", 12_000, **C),
        ev("c.log", 6, "offset_committed", 13_000, topic="t", partition=0, offset=20, **C),
        # a new member id (an old one back, m1, would prove the file of two processes: its lines
        # are then left out, test_a_file_proven_of_several_consumers_gives_no_rows)
        ev("c.log", 7, "join_succeeded", 20_000, member_id="m3", generation=3, **C),
        ev("c.log", 8, "heartbeat_succeeded", 21_000, **C),
        ev("c.log", 9, "offset_committed", 22_000, topic="t", partition=0, offset=15, **C),
    ]
    hb = [g for g in gaps(rows) if g[0] == "heartbeat"]
    assert hb == [("heartbeat", "m2", 3_000, 12_000, 45_000, False, ("c.log:2", "c.log:5")),
                  ("heartbeat", "m3", 12_000, 21_000, 45_000, False, ("c.log:5", "c.log:8"))]
    assert [(h[3], h[8], h[9], h[7], h[6]) for h in history(rows)] == [
        (4_000, "m1", 1, "first", None), (13_000, "m2", 2, "commit", 10), (22_000, "m3", 3, "rewind", -5)]


def test_equal_times_follow_the_line_numbers_and_the_file_names():
    rows = [
        ev("c.log", 2, "heartbeat_succeeded", 5_000, **C),
        ev("c.log", 1, "heartbeat_succeeded", 5_000, member_id="m1", **C),
        ev("c.log", 3, "heartbeat_succeeded", 7_000, **C),
        # the same second in two files: the partition's history orders them by file name
        ev("b.log", 9, "offset_committed", 1_000, topic="t", partition=1, offset=30, group_id="g1", client_id="c2"),
        ev("a.log", 9, "offset_committed", 1_000, topic="t", partition=1, offset=40, group_id="g1", client_id="c3"),
    ]
    assert gaps(rows) == [("heartbeat", "m1", 5_000, 7_000, 45_000, False, ("c.log:2", "c.log:3")),
                          ("log", "m1", 5_000, 7_000, None, None, ("c.log:2", "c.log:3"))]
    assert [(h[4], h[5], h[7], h[10]) for h in history(rows)] == [(40, None, "first", ("a.log:9",)),
                                                                  (30, 40, "rewind", ("b.log:9",))]


def test_nulls_leave_rows_out_of_the_streams_not_out_of_the_history():
    rows = [
        ev("c.log", 1, "heartbeat_succeeded", 0, **C),
        ev("c.log", 2, "heartbeat_succeeded", None, **C),                                 # no time
        ev("c.log", 3, "heartbeat_succeeded", 2_000, group_id="g1"),                      # no client
        ev("c.log", 4, "heartbeat_succeeded", 4_000, **C),
        ev("c.log", 5, "offset_committed", None, topic="t", partition=0, offset=7, **C),  # no time: first
        ev("c.log", 6, "offset_committed", 1_000, topic="t", partition=0, offset=9, member_id="m9", **C),
        ev("c.log", 7, "offset_committed", 1_500, topic="t", partition=None, offset=9, **C),  # no partition
        ev(None, 8, "offset_committed", 2_000, topic="t", partition=0, offset=9, **C),    # no file name
    ]
    # (the member id of line 6 names the rows of its stream from there on, in time order)
    assert gaps(rows) == [("heartbeat", "m9", 0, 4_000, 45_000, False, ("c.log:1", "c.log:4")),
                          ("log", "m9", 0, 1_000, None, None, ("c.log:1", "c.log:6")),
                          ("log", "m9", 1_500, 4_000, None, None, ("c.log:7", "c.log:4"))]
    assert [(h[3], h[4], h[5], h[7], h[8], h[10]) for h in history(rows)] == [
        (None, 7, None, "first", None, ("c.log:5",)), (1_000, 9, 7, "commit", "m9", ("c.log:6",)),
        (2_000, 9, 9, "commit", None, ("8",))]


def test_the_tables_do_not_depend_on_how_the_rows_are_chunked():
    """The ingest hands a group over as slices of several record batches; the printed-late words
    are looked for chunk by chunk and may straddle two values of a chunk."""
    rows = [ev("p.log", 1, "join_succeeded", 0, member_id="rdkafka-1", generation=1, **C)]
    for i in range(40):
        late = i % 3 == 0
        rows.append(ev("p.log", 2 + i, "heartbeat_sent", 1_500 * i, extra_json=LATE if late else None, **C))
        if i % 5 == 0:
            rows.append(ev("p.log", 100 + i, "offset_reset" if i % 2 == 0 else "offset_committed", 1_500 * i + 1,
                           topic="t", partition=0, offset=i, **C,
                           raw="Resetting offset ... to the committed offset 3" if i % 4 == 0 else "x"))
    # one value ends with the first word's start, the next begins with its end
    half = len(PRINTED_LATE_MARKERS[0]) // 2
    rows.append(ev("p.log", 200, "heartbeat_sent", 70_000, extra_json=PRINTED_LATE_MARKERS[0][:half], **C))
    rows.append(ev("p.log", 201, "heartbeat_sent", 72_000,
                   extra_json=PRINTED_LATE_MARKERS[0][half:] + PRINTED_LATE_MARKERS[1], **C))
    rows.append(ev("k.log", 1, "broker_member_removed", 73_000, side="broker", group_id="g1", member_id="rdkafka-1",
                   raw="Member rdkafka-1 in group g1 has failed, removing it from the group"))
    whole = group_series.series_tables(arrow(rows))
    assert whole["heartbeat_gaps"].num_rows and whole["offset_commits"].num_rows
    assert "fetched" in whole["offset_commits"].column("flag").to_pylist()
    for chunk in (1, 2, 7, 16):
        got = group_series.series_tables(arrow(rows[::-1], chunk))
        for t in whole:
            assert sorted(map(str, got[t].to_pylist())) == sorted(map(str, whole[t].to_pylist())), (t, chunk)
            assert got[t].schema == schemas.arrow_schema(t)
    # the straddling pair counts as heartbeats (neither value holds the words): a gap from 70 s to 72 s
    assert {("heartbeat", 70_000, 72_000)} <= {(r["kind"], r["start_ms"] - T0, r["end_ms"] - T0)
                                               for r in whole["heartbeat_gaps"].to_pylist()}


def test_a_printed_session_timeout_no_bigint_holds_is_no_setting():
    """A client_config line printing session.timeout.ms beyond a bigint (a damaged or hostile
    log) is read as no setting: the version's default applies, and the limit column (bigint)
    can be written."""
    rows = [
        ev("c.log", 1, "client_config", 0, extra_json='{"settings": {"session.timeout.ms": "99999999999999999999"}}', **C),
        ev("c.log", 2, "heartbeat_succeeded", 1_000, **C),
        ev("c.log", 3, "heartbeat_succeeded", 50_000, **C),
    ]
    assert [g[:6] for g in gaps(rows) if g[0] == "heartbeat"] == [("heartbeat", None, 1_000, 50_000, 45_000, True)]
    assert group_series.heartbeat_gaps(arrow(rows)).column("limit_ms").to_pylist() == [45_000, None, None]


def _dictionary_chunks(t: pa.Table, chunk: int) -> pa.Table:
    """`t` in chunks of `chunk` rows, its string columns dictionary-encoded per chunk (each chunk
    its own dictionary, as the pass reads a big group's rows from several staged files)."""
    batches = []
    for b in t.to_batches(max_chunksize=chunk):
        batches.append(pa.RecordBatch.from_arrays(
            [c.dictionary_encode() if pa.types.is_string(c.type) and f.name != "raw" else c
             for f, c in zip(b.schema, b.columns, strict=True)], names=b.schema.names))
    return pa.Table.from_batches(batches)


def test_the_tables_are_the_same_from_dictionary_columns():
    """A big group's strings arrive as Arrow dictionaries (pipeline/spark/buckets.py): codes are
    taken from the dictionaries, rows decoded only where output; the tables equal the plain ones,
    printed-late heartbeats (a text search in extra_json) included."""
    rows = [ev("p.log", 1, "join_succeeded", 0, member_id="rdkafka-1", generation=1, **C)]
    for i in range(40):
        rows.append(ev("p.log", 2 + i, "heartbeat_sent", 1_500 * i, extra_json=LATE if i % 3 == 0 else None, **C))
        if i % 5 == 0:
            rows.append(ev("p.log", 100 + i, "offset_reset" if i % 2 == 0 else "offset_committed", 1_500 * i + 1,
                           topic="t", partition=0, offset=i, member_id=None if i % 10 else "rdkafka-1", **C,
                           raw="Resetting offset ... to the committed offset 3" if i % 4 == 0 else "x"))
    rows.append(ev("k.log", 1, "broker_member_removed", 73_000, side="broker", group_id="g1", member_id="rdkafka-1",
                   raw="Member rdkafka-1 in group g1 has failed, removing it from the group"))
    whole = group_series.series_tables(arrow(rows))
    assert whole["heartbeat_gaps"].num_rows and whole["offset_commits"].num_rows
    for chunk in (1, 7, 1000):
        got = group_series.series_tables(_dictionary_chunks(arrow(rows), chunk))
        for t in whole:
            assert got[t].schema == whole[t].schema, (t, chunk)
            assert got[t].to_pylist() == whole[t].to_pylist(), (t, chunk)
    # Columns.codes numbers a dictionary column's values as dictionary_encode numbers the plain
    # values (first appearance, null one code), a value repeated in the dictionary counted once
    values = ["b", None, "a", "b", "c", None, "a"]
    dup = pa.DictionaryArray.from_arrays(pa.array([2, None, 1, 0, 3, None, 1], pa.int32()),
                                         pa.array(["b", "a", "b", "c"]))
    for a in (pa.array(values).dictionary_encode(), dup):
        t = pa.table({"kind": a})
        codes, distinct = group_series.Columns(t).codes("kind")
        want = pc.dictionary_encode(pa.array(values), null_encoding="encode")
        assert codes.tolist() == want.indices.to_pylist()
        assert distinct == want.dictionary.to_pylist() == ["b", None, "a", "c"]


def test_a_file_proven_of_several_consumers_gives_no_rows():
    """A member id back after another in one file and client id (two processes' lines: the replay
    leaves them out, replay_rules.mixed_streams) feeds none of the tables; another file's stream
    stays; the same lines naming their origins are two streams, each measured."""
    def lines(origin_a=None, origin_b=None):
        extra = [None if o is None else json.dumps({"origin": o}) for o in (origin_a, origin_b)]
        return [
            ev("c.log", 1, "join_succeeded", 0, member_id="m1", generation=1, extra_json=extra[0], **C),
            ev("c.log", 2, "join_succeeded", 1_000, member_id="m2", generation=1, extra_json=extra[1], **C),
            ev("c.log", 3, "heartbeat_succeeded", 4_000, extra_json=extra[0], **C),
            ev("c.log", 4, "offset_committed", 5_000, topic="t", partition=0, offset=10, extra_json=extra[0], **C),
            ev("c.log", 5, "partitions_assigned", 6_000, member_id="m1", partitions=["t-0"], extra_json=extra[0], **C),
            ev("c.log", 6, "heartbeat_succeeded", 9_000, member_id="m2", extra_json=extra[1], **C),
            ev("d.log", 1, "join_succeeded", 0, member_id="m3", generation=1, **C),
            ev("d.log", 2, "heartbeat_succeeded", 3_000, **C),
            ev("d.log", 3, "heartbeat_succeeded", 7_000, **C),
        ]
    mixed = lines()
    assert group_series.left_out_streams(arrow(mixed)) == {("c1", "c.log", None)}
    got = tables(mixed)
    assert got["ownership"] == [] and got["offset_commits"] == []
    assert {e.split(":")[0] for g in got["heartbeat_gaps"] for e in g["evidence"]} == {"d.log"}
    assert sorted((g["kind"], g["member_id"], g["gap_ms"]) for g in got["heartbeat_gaps"]) == [
        ("heartbeat", "m3", 4_000), ("log", "m3", 3_000), ("log", "m3", 4_000)]   # d.log's own
    split = lines("pod/a", "pod/b")
    assert group_series.left_out_streams(arrow(split)) == frozenset()
    got = tables(split)
    assert [o["member_id"] for o in got["ownership"]] == ["m1"]
    assert len(got["offset_commits"]) == 1
    assert {(g["kind"], g["member_id"], g["gap_ms"]) for g in got["heartbeat_gaps"]} >= {("log", "m2", 8_000)}


def test_the_narrowed_proof_finds_the_streams_the_whole_rows_prove():
    """group_series.left_out_streams hands the proof only the rows it reads (a member, an instance, a
    join, each stream's first line, each origin's first and last timed line): the same streams as
    group_tables.left_out_streams over every row, on random mixes with origins and untimed lines."""
    from pipeline import group_tables as gt
    from tests.spark.test_group_tables_twin import random_events

    found = 0
    for seed in range(24):
        rows = random_events(seed)
        for g in sorted({r["group_id"] for r in rows}):
            mine = [r for r in rows if r["group_id"] == g]
            whole = {c: [r.get(c) for r in mine] for c in gt.LEFT_OUT_COLUMNS if c != "origin"}
            whole["origin"] = [gt.origin_of(r["extra_json"]) for r in mine]
            want = gt.left_out_streams(whole)
            assert group_series.left_out_streams(arrow(mine)) == want, (seed, g)
            found += bool(want)
    assert found > 10


def test_origins_equal_origin_of_per_row_in_every_array_form():
    """group_series.origins (a regex in Arrow, a byte search per chunk) gives group_tables.origin_of
    of each row's extra_json, plain, chunked, dictionary-encoded and masked."""
    import json as _json

    from pipeline import group_tables as gt

    texts = [None, "", '{"a": 1}', _json.dumps({"rule": "x", "origin": "pod/prod/a-0/app"}),
             _json.dumps({"origin": 'host:a"b/pid:1'}), _json.dumps({"origin": "é/x"}, ensure_ascii=False),
             _json.dumps({"origin": "é/x"}), '{"origin": 5}', '{"origin":"pid:42","settings":{"origin":"no"}}',
             _json.dumps({"binding": "python", "librdkafka_rule": "heartbeat_sent"})]
    want = [gt.origin_of(t) for t in texts]
    assert want[3] == "pod/prod/a-0/app" and want[4] == 'host:a"b/pid:1' and want[7] is None and want[8] == "pid:42"
    a = pa.array(texts, pa.string())
    assert group_series.origins(a).to_pylist() == want
    assert group_series.origins(pa.chunked_array([a.slice(0, 3), a.slice(3, 0), a.slice(3)])).to_pylist() == want
    assert group_series.origins(pa.chunked_array([a.slice(0, 3)])).to_pylist() == want[:3]   # no origin at all
    assert group_series.origins(a.dictionary_encode()).to_pylist() == want
    mask = [i % 2 == 1 for i in range(len(texts))]
    assert group_series.origins(a, pa.array(mask)).to_pylist() == [w for w, m in zip(want, mask, strict=True) if m]
