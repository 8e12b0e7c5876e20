"""pipeline/spark/buckets.py (pure pyarrow, no JVM): the parse stage stages its outcomes in row
groups by group bucket, and the per-group pass's task for a bucket reads back exactly that
bucket's rows, in scope, with exact line numbers, grouped."""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline import schemas
from pipeline.spark import buckets
from pipeline.spark.parse_stage import OUTCOME_FIELDS

SCHEMA = schemas.arrow_schema_of(OUTCOME_FIELDS)
COLS = schemas.columns("events")


def _rows(seed: int, n: int, splits: list[tuple[str, int]]) -> list[dict]:
    """n staged event rows of a few groups (and some of no group), over `splits` (spath, split_no),
    with split-relative line numbers in order and some rows without a time."""
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        spath, split_no = splits[i % len(splits)]
        r = {c: None for c, _ in OUTCOME_FIELDS}
        r.update(spath=spath, split_no=split_no, status="parsed", has_event=True, source=spath.rsplit("/", 1)[-1],
                 line_no=i + 1, side="client", kind="heartbeat_succeeded", raw=f"line {seed}-{i}",
                 group_id=rnd.choice(["orders", "billing", "search-indexer", "ünïcode-group", None, "hot", "hot"]),
                 ts_ms=None if rnd.random() < 0.1 else 1_000 + rnd.randint(0, 10_000))
        out.append(r)
    return out


def _stage(tmp_path, parts: list[list[dict]], n: int, batch_rows: int = 7) -> list[str]:
    for part, rows in enumerate(parts):
        f = buckets.BucketedFile(str(tmp_path), part, 0, SCHEMA, n)
        for lo in range(0, len(rows), batch_rows):
            f.write(pa.RecordBatch.from_pylist(rows[lo:lo + batch_rows], schema=SCHEMA))
        f.close()
    return buckets.staged_files(str(tmp_path))


def test_bucket_of_is_a_stable_hash_of_the_group_id():
    # crc32 of the UTF-8 bytes: the same in every process (Python's hash() of a str is salted)
    assert [buckets.bucket_of(g, 4) for g in ("orders", "billing", "search-indexer", "ünïcode-group")] == [2, 2, 3, 2]
    assert buckets.bucket_of("orders", 1000) == 662
    assert buckets.bucket_of(None, 4) == buckets.NULL_BUCKET == 0
    assert buckets.bucket_of("orders", 1) == 0
    code = "from pipeline.spark.buckets import bucket_of; print(bucket_of('search-indexer', 7))"
    seen = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": seed, "PYTHONPATH": "."}).stdout.strip() for seed in ("1", "2")}
    assert seen == {str(buckets.bucket_of("search-indexer", 7))}


def test_bucket_column_is_bucket_of_per_row():
    col = pa.chunked_array([pa.array(["orders", None, "billing"]), pa.array(["orders", "hot"])])
    assert buckets.bucket_column(col, 5).tolist() == [buckets.bucket_of(g, 5) for g in
                                                      ["orders", None, "billing", "orders", "hot"]]


@pytest.mark.parametrize("flush", [3, 1_000])
def test_every_row_is_read_exactly_once_across_buckets_grouped_in_staged_order(tmp_path, monkeypatch, flush):
    """Three parse tasks' files (several row groups per bucket when flushes are small): reading
    every bucket gives every staged row once, each group whole in its own bucket, groups in order
    (no group first), a group's rows in file order and then staged order."""
    monkeypatch.setattr(buckets, "FLUSH_ROWS", flush)
    n = 3
    parts = [_rows(s, 60, [(f"file:/f{s}.log", s * 2), (f"file:/f{s}.log", s * 2 + 1)]) for s in range(3)]
    files = _stage(tmp_path, parts, n)
    assert len(files) == 3
    if flush == 3:
        assert max(pq.ParquetFile(f).metadata.num_row_groups for f in files) > n
    seen: Counter = Counter()
    for b in range(n):
        got = list(buckets.bucket_groups(files, b, COLS, []))
        keys = [g for g, _ in got]
        assert keys == sorted(keys, key=lambda g: (g is not None, g or ""))
        assert len(set(keys)) == len(keys)          # a group comes once, whole
        for gid, table in got:
            assert buckets.bucket_of(gid, n) == b
            assert table.schema.names == COLS
            assert set(table.column("group_id").to_pylist()) == {gid}
            want = [(r["source"], r["line_no"]) for p in parts for r in p if r["group_id"] == gid]
            assert list(zip(table.column("source").to_pylist(), table.column("line_no").to_pylist(),
                            strict=True)) == want
            seen.update(zip(table.column("source").to_pylist(), table.column("line_no").to_pylist(), strict=True))
    assert seen == Counter((r["source"], r["line_no"]) for p in parts for r in p)


def test_scope_filters_keep_timeless_events_and_drop_other_groups(tmp_path):
    parts = [_rows(7, 200, [("file:/a.log", 0)])]
    files = _stage(tmp_path, parts, 2)
    rows = parts[0]

    def read(**scope):
        return Counter((gid, ln) for b in range(2) for gid, t in buckets.bucket_groups(files, b, COLS, [], **scope)
                       for ln in t.column("line_no").to_pylist())

    def want(keep):
        return Counter((r["group_id"], r["line_no"]) for r in rows if keep(r))

    assert read(group="orders") == want(lambda r: r["group_id"] == "orders")
    assert read(since_ms=5_000) == want(lambda r: r["ts_ms"] is None or r["ts_ms"] >= 5_000)
    assert read(until_ms=5_000) == want(lambda r: r["ts_ms"] is None or r["ts_ms"] < 5_000)
    assert read(group="hot", since_ms=3_000, until_ms=6_000) == want(
        lambda r: r["group_id"] == "hot" and (r["ts_ms"] is None or 3_000 <= r["ts_ms"] < 6_000))
    assert any(r["ts_ms"] is None and r["group_id"] == "hot" for r in rows)
    only = Counter((gid, ln) for gid, t in buckets.bucket_groups(files, buckets.bucket_of("hot", 2), COLS, [],
                                                                 only_groups=frozenset(["hot"]))
                   for ln in t.column("line_no").to_pylist())
    assert only == want(lambda r: r["group_id"] == "hot")


def test_line_numbers_are_made_exact_by_the_split_offsets(tmp_path):
    """line_no is staged relative to its split; offsets[split_no] (lines.line_offsets) is added;
    split numbers beyond the offsets get 0."""
    rows = _rows(3, 30, [("file:/a.log", 0), ("file:/a.log", 1), ("file:/a.log", 5)])
    files = _stage(tmp_path, [rows], 2)
    offsets = [0, 1_000, 0, 0]      # split 5 is not in the list
    got = Counter((t2, ln) for b in range(2) for _g, t in buckets.bucket_groups(files, b, COLS, offsets)
                  for t2, ln in zip(t.column("raw").to_pylist(), t.column("line_no").to_pylist(), strict=True))
    add = {0: 0, 1: 1_000, 5: 0}
    assert got == Counter((r["raw"], r["line_no"] + add[r["split_no"]]) for r in rows)


def test_a_retried_task_replaces_its_file_and_hidden_files_are_not_read(tmp_path):
    rows = _rows(1, 20, [("file:/a.log", 0)])
    for attempt in (0, 1):
        f = buckets.BucketedFile(str(tmp_path), 4, attempt, SCHEMA, 3)
        f.write(pa.RecordBatch.from_pylist(rows, schema=SCHEMA))
        f.close()
    pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), tmp_path / ".part-00005.attempt-0.parquet")
    files = buckets.staged_files(str(tmp_path))
    assert [f.rsplit("/", 1)[-1] for f in files] == ["part-00004.parquet"]
    assert sum(t.num_rows for b in range(3) for _g, t in buckets.bucket_groups(files, b, COLS, [])) == 20


def test_a_staged_file_without_bucket_metadata_is_refused(tmp_path):
    pq.write_table(pa.Table.from_pylist(_rows(1, 5, [("file:/a.log", 0)]), schema=SCHEMA), tmp_path / "part-00000.parquet")
    with pytest.raises(ValueError, match="row_group_buckets"):
        list(buckets.bucket_groups(buckets.staged_files(str(tmp_path)), 0, COLS, []))


def test_the_series_columns_are_staged_narrow():
    """A staged file of the staged schema carries `raw` and `extra_json` a second time in the
    series' width: raw only on broker removals and offset resets, extra_json only on client_config
    lines and heartbeats printed late."""
    import json

    rows = []
    for i, (kind, raw, extra) in enumerate([
            ("broker_member_removed", "Member m1 has failed", None),
            ("heartbeat_succeeded", "hb", json.dumps({"binding": "python", "librdkafka_rule": "x"})),
            ("heartbeat_succeeded", "hb", json.dumps({"binding": "java"})),
            ("client_config", "ConsumerConfig values", json.dumps({"settings": {}})),
            ("join_succeeded", "joined", json.dumps({"a": 1}))]):
        r = {c: None for c, _ in OUTCOME_FIELDS}
        r.update(source="a.log", line_no=i + 1, split_no=0, kind=kind, raw=raw, extra_json=extra, group_id="g")
        rows.append(r)
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        f = buckets.BucketedFile(d, 0, 0, buckets.staged_schema(SCHEMA), 2)
        f.write(pa.RecordBatch.from_pylist(rows, schema=SCHEMA))
        f.close()
        t = pq.read_table(buckets.staged_files(d)[0])
    assert t.column("series_raw").to_pylist() == ["Member m1 has failed", None, None, None, None]
    assert t.column("series_extra_json").to_pylist() == [None, rows[1]["extra_json"], None, rows[3]["extra_json"], None]
    assert t.column("raw").to_pylist() == [r["raw"] for r in rows]


def test_series_narrowed_is_the_same_on_a_table_of_several_chunks():
    """series_narrowed on a record batch and on a table of two chunks (what group_pass hands it):
    the printed-late markers looked up per distinct extra_json give the same rows, nulls kept."""
    import json

    marked = json.dumps({"binding": "python", "librdkafka_rule": "x"})
    rows = []
    for i, (kind, extra) in enumerate([("heartbeat_succeeded", marked), ("heartbeat_failed", None),
                                       ("heartbeat_sent", json.dumps({"binding": "java"})),
                                       ("join_succeeded", marked), ("heartbeat_succeeded", marked)]):
        r = {c: None for c, _ in OUTCOME_FIELDS}
        r.update(source="a.log", line_no=i + 1, split_no=0, kind=kind, raw=f"r{i}", extra_json=extra, group_id="g")
        rows.append(r)
    batch = pa.RecordBatch.from_pylist(rows, schema=SCHEMA)
    table = pa.Table.from_batches([batch.slice(0, 2), batch.slice(2)])
    for got in (buckets.series_narrowed(batch), buckets.series_narrowed(table)):
        assert got[1].to_pylist() == [marked, None, None, None, marked]
        assert got[0].to_pylist() == [None] * 5


def test_statistics_are_kept_only_on_the_columns_readers_filter_on(tmp_path):
    """Spark's reads of the staged files filter on status, group_id and ts_ms: their row groups keep
    min/max statistics; the long texts (raw, extra_json, why and their series copies) are written
    without them, and read back the same."""
    rows = _rows(3, 40, [("file:/a.log", 0)])
    for r in rows:
        r["extra_json"], r["why"] = '{"rule": "r"}', None
    f = buckets.BucketedFile(str(tmp_path), 0, 0, buckets.staged_schema(SCHEMA), 1)
    f.write(pa.RecordBatch.from_pylist(rows, schema=SCHEMA))
    f.close()
    path = buckets.staged_files(str(tmp_path))[0]
    rg = pq.ParquetFile(path).metadata.row_group(0)
    stats = {rg.column(i).path_in_schema: rg.column(i).is_stats_set for i in range(rg.num_columns)}
    assert not any(stats[c] for c in ("raw", "series_raw", "extra_json", "series_extra_json", "why"))
    assert all(stats[c] for c in ("status", "group_id", "ts_ms", "line_no", "kind"))
    back = pq.read_table(path).select([c for c, _ in OUTCOME_FIELDS]).to_pylist()
    assert [(r["raw"], r["group_id"], r["ts_ms"], r["extra_json"]) for r in back] == \
        [(r["raw"], r["group_id"], r["ts_ms"], r["extra_json"]) for r in rows]
