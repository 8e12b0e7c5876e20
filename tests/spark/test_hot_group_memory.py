"""What a hot group's task holds at once (pure pyarrow, no JVM): the per-group pass hands a group's
rows to the replay, which frees every column but `raw` once its Events are built; the events table
is written a row group at a time, never as a copy of the whole group; and `bucket_groups` gives
each group buffers of its own, so that freeing one group's rows frees them. Asserted through
Arrow's allocation count (pyarrow.total_allocated_bytes), not through time or RSS."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pipeline import group_series, schemas
from pipeline import group_tables as gt
from pipeline.spark import buckets, group_pass
from pipeline.spark.parse_stage import OUTCOME_FIELDS
from tests.replay.arrow_tables import events_table, folder_events

SAMPLE = Path(__file__).resolve().parents[2] / "sample_logs" / "gc_pause_session_expiry"


def _group_rows() -> tuple[str, pa.Table]:
    events = [e for e in folder_events(SAMPLE) if e.group_id]
    gid = max({e.group_id for e in events}, key=lambda g: sum(e.group_id == g for e in events))
    table = events_table([e for e in events if e.group_id == gid], chunk_rows=97)
    return gid, table.select(schemas.columns("events")).cast(schemas.arrow_schema("events"))


def test_the_replay_frees_every_column_but_raw_before_it_runs(tmp_path, monkeypatch):
    gid, table = _group_rows()
    base = pa.total_allocated_bytes() - table.nbytes
    raw_bytes = table.column("raw").nbytes
    # what ownership keeps of the rows until the replay is done (a filtered copy of a few columns)
    # (and each line's origin, cut from extra_json: group_series.origins)
    ownership_bytes = (table.select([c for c in gt.OWNERSHIP_COLUMNS if c != "origin"]).nbytes
                       + group_series.origins(table.column("extra_json")).nbytes)
    held: list[int] = []
    monkeypatch.setattr(group_pass, "FLUSH_ROWS", 16)     # the group counts as big (its heap trimmed)
    monkeypatch.setattr(group_pass, "trim_heap", lambda: held.append(pa.total_allocated_bytes() - base),
                        raising=False)
    for t in group_pass.GROUP_TABLES:
        (tmp_path / t).mkdir()
    writers = group_pass.GroupWriters(str(tmp_path), 0, 0, group_pass.GROUP_TABLES)

    def groups(box):     # as bucket_groups: no reference kept once the group is yielded
        yield gid, box.pop()

    groups = groups([table])
    del table
    # (its series in another task, as a hot group's)
    # (the events table not written here: a writer's own buffers would count; see the next test)
    group_pass.replay_units(groups, writers, "pipeline.replay", True, False, frozenset([gid]))
    # trimmed at the task's start, after the big group's rows are read, and when the replay freed them
    assert len(held) == 3, "the replay did not report its rows freed"
    # while the replay runs, the group's Arrow memory is its `raw` column and ownership's copy
    assert held[-1] <= raw_bytes + ownership_bytes, (held[-1], raw_bytes, ownership_bytes)
    out = pq.read_table(tmp_path / "generations")
    assert out.num_rows > 0


def test_a_big_group_is_written_a_row_group_at_a_time(tmp_path, monkeypatch):
    _gid, table = _group_rows()
    table = pa.concat_tables([table] * 8)
    monkeypatch.setattr(group_pass, "FLUSH_ROWS", 64)
    monkeypatch.setattr(group_pass, "BIG_EVENTS_ROWS", 16)
    assert table.num_rows > 4 * 64
    base = pa.total_allocated_bytes()
    extra: list[int] = []
    (tmp_path / "events").mkdir()
    writers = group_pass.GroupWriters(str(tmp_path), 0, 0, ("events",))
    write = writers.files["events"].write

    def recording(batch):
        extra.append(pa.total_allocated_bytes() - base)
        write(batch)

    monkeypatch.setattr(writers.files["events"], "write", recording)
    writers.add_events(table)
    writers.close()
    # never more than one row group's copy beside the group's rows (the whole group was copied before)
    assert extra and max(extra) <= table.nbytes // 4, (max(extra), table.nbytes)
    assert pq.read_table(tmp_path / "events").equals(table.combine_chunks())
    # a big group's row groups are BIG_EVENTS_ROWS rows, smaller than the buffered ones (FLUSH_ROWS):
    # each is decoded and encoded whole, which sets the write's transient memory
    meta = pq.ParquetFile(next((tmp_path / "events").glob("*.parquet"))).metadata
    sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    assert max(sizes) == 16 and sum(sizes) == table.num_rows, sizes


def test_bucket_groups_gives_each_group_buffers_of_its_own(tmp_path):
    schema = schemas.arrow_schema_of(OUTCOME_FIELDS)
    rows = []
    for i in range(600):
        r = {c: None for c, _ in OUTCOME_FIELDS}
        r.update(spath="/l/a.log", split_no=0, status="parsed", has_event=True, source="a.log", line_no=i + 1,
                 side="client", kind="heartbeat_succeeded", raw=f"line {i}", ts_ms=1_000 + i,
                 group_id=["orders", "billing", "hot", "hot"][i % 4])
        rows.append(r)
    f = buckets.BucketedFile(str(tmp_path), 0, 0, schema, 1)
    f.write(pa.RecordBatch.from_pylist(rows, schema=schema))
    f.close()
    groups = dict(buckets.bucket_groups(buckets.staged_files(str(tmp_path)), 0, schemas.columns("events"), [0]))
    assert sorted(groups) == ["billing", "hot", "orders"]
    assert [groups["hot"].num_rows, groups["orders"].num_rows] == [300, 150]

    def spans(t: pa.Table) -> list[tuple[int, int]]:
        return [(b.address, b.address + b.size) for col in t.columns for ch in col.chunks
                for b in ch.buffers() if b is not None and b.size]

    for g, t in groups.items():
        for other, u in groups.items():
            if other != g:
                assert not any(a < d and c < b for a, b in spans(t) for c, d in spans(u)), (g, other)


def _staged_group(tmp_path) -> tuple[str, pa.Table, list[str]]:
    """The sample's busiest group staged as the parse stage stages it (two files, one bucket)."""
    gid, table = _group_rows()
    schema = buckets.staged_schema(schemas.arrow_schema_of(OUTCOME_FIELDS))
    n = table.num_rows
    extra = {"spath": pa.array(["/l/a.log"] * n), "split_no": pa.array([0] * n, pa.int32()),
             "status": pa.array(["parsed"] * n), "has_event": pa.array([True] * n)}
    full = pa.table({f.name: table.column(f.name) if f.name in table.schema.names
                     else extra.get(f.name, pa.nulls(n, f.type)) for f in schema
                     if f.name not in buckets.SERIES_STAGED.values()})
    for part, rows in enumerate((full.slice(0, n // 2), full.slice(n // 2))):
        f = buckets.BucketedFile(str(tmp_path / "staged"), part, 0, schema, 1)
        for b in rows.to_batches(max_chunksize=50):
            f.write(b)
        f.close()
    return gid, table, buckets.staged_files(str(tmp_path / "staged"))


def _pass_tables(run_dir: Path, groups) -> dict[str, pa.Table]:
    tables = (*group_pass.GROUP_TABLES, "events")
    for t in tables:
        (run_dir / t).mkdir(parents=True)
    res = group_pass.replay_units(groups, group_pass.GroupWriters(str(run_dir), 0, 0, tables), "pipeline.replay",
                                  True, True, frozenset())
    out = {t: pq.read_table(run_dir / t) for t in tables}
    out["result"] = pa.Table.from_batches([res])
    return out


def test_a_big_group_is_read_as_dictionaries_and_every_table_is_the_same(tmp_path, monkeypatch):
    """A big group's repetitive strings (source, kind, client_id, extra_json...) come as Arrow
    dictionaries (each distinct text stored once), a small group's as plain strings; the pass's
    tables (events, replay, ownership, series, the timeline's facts) are the same row for row as
    from plain columns."""
    (tmp_path / "staged").mkdir()
    gid, table, files = _staged_group(tmp_path)
    cols = schemas.columns("events")
    plain = dict(buckets.bucket_groups(files, 0, cols, [0]))[gid]
    monkeypatch.setattr(buckets, "COMBINE_MAX_ROWS", 64)      # the group counts as big
    packed = dict(buckets.bucket_groups(files, 0, cols, [0], dictionaries=True))[gid]
    kinds = {f.name: f.type for f in packed.schema}
    for c in ("source", "kind", "side", "client_id", "extra_json", "member_id"):
        assert pa.types.is_dictionary(kinds[c]), c
    for c in ("raw", "group_id", "line_no", "partitions"):
        assert not pa.types.is_dictionary(kinds[c]), c
    assert packed.nbytes < plain.nbytes * 0.8, (packed.nbytes, plain.nbytes)
    assert buckets.decoded(packed).equals(plain)
    assert plain.num_rows == table.num_rows
    monkeypatch.setattr(buckets, "COMBINE_MAX_ROWS", 10 ** 9)     # a small group: plain
    small = dict(buckets.bucket_groups(files, 0, cols, [0], dictionaries=True))[gid]
    assert small.schema == plain.schema and small.equals(plain)

    monkeypatch.setattr(group_pass, "FLUSH_ROWS", 16)     # written and trimmed as a big group
    want = _pass_tables(tmp_path / "plain", iter([(gid, plain)]))
    got = _pass_tables(tmp_path / "packed", iter([(gid, packed)]))
    assert want["generations"].num_rows and want["heartbeat_gaps"].num_rows and want["ownership"].num_rows
    for t, w in want.items():
        assert got[t].schema == w.schema, t
        assert got[t].to_pylist() == w.to_pylist(), t


def test_a_pass_task_allocates_arrow_apart_and_puts_the_pool_back():
    """Arrow's buffers of a pass task come from jemalloc (apart from Python's glibc heap) when this
    pyarrow has it; the process's pool is the same again after the task."""
    before = pa.default_memory_pool().backend_name
    try:
        has_jemalloc = pa.jemalloc_memory_pool() is not None
    except NotImplementedError:
        has_jemalloc = False
    with group_pass.arrow_pool_apart():
        inside = pa.default_memory_pool().backend_name
        buf = pa.array(range(1000))
    assert inside == ("jemalloc" if has_jemalloc else before)
    assert pa.default_memory_pool().backend_name == before
    assert buf.sum().as_py() == sum(range(1000))
