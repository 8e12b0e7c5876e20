import pytest

from dashboard.data import RunData, bucket_downsample, manifest_sections, split_evidence
from pipeline.rundir import RunDirError
from tests.dashboard import rundirs
from tests.dashboard.rundirs import M1, M2, M3, ORD, PAY, T0


def test_group_summary(small_data):
    s = small_data.group_summary().set_index("group_id")
    assert list(s.index) == ["inventory/eu", "orders", "payments"]
    pay = s.loc[PAY]
    assert (pay.rebalances, pay.rebalancing_ms, pay.members_seen) == (4, 3500 + 4500 + 3400 + 46000, 3)
    assert (pay.critical, pay.high, pay.medium, pay.low) == (1, 1, 1, 0)
    assert (s.loc[ORD].critical, s.loc[ORD].high, s.loc["inventory/eu", "info"]) == (1, 1, 1)


def test_generation_phases_take_completing_from_the_last_join(small_data):
    ph = small_data.generation_phases(PAY).set_index("generation")
    assert ph.loc[2, "completing_ms"] == T0 + 124 * 1000 - 200
    assert ph.loc[4, "started_ms"] == T0 + 400_000 and ph.loc[4, "stabilized_ms"] == T0 + 446_000


def test_lane_points_classify_expiries_and_keep_sparse_events(small_data):
    pts = small_data.lane_points(PAY, None, None)
    expiry = pts[pts["category"] == "expiry"]
    assert sorted(expiry["kind"]) == ["broker_member_removed", "poll_timeout"]  # "session expired" reason
    assert set(pts.loc[pts["category"] == "join", "lane"]) == {M1, M2, M3}
    few = small_data.lane_points(PAY, None, None, max_points=100)
    assert len(few) < len(pts)
    assert len(few[few["category"] == "join"]) == len(pts[pts["category"] == "join"])  # never bucketed
    assert few["count"].sum() == len(pts)  # every event is accounted for in some bucket


def test_window_filters_lane_points(small_data):
    pts = small_data.lane_points(PAY, T0 + 100_000, T0 + 130_000)
    assert pts["ts_ms"].between(T0 + 100_000, T0 + 130_000).all()
    assert "poll_timeout" in set(pts["kind"])


def test_ownership_grid_names_the_owner(small_data):
    grid = small_data.ownership_grid(PAY, T0, T0 + 400_000, buckets=400)  # 1 s buckets
    assert grid["partitions"] == [f"payments-{i}" for i in range(6)]
    row = grid["z"][grid["partitions"].index("payments-4")]
    members = grid["members"]
    assert members[row[60]] == M3      # t = 60.5 s: generation 1
    assert members[row[150]] == M2     # t = 150.5 s: generation 2 (M3 gone)
    assert row[122] is None            # t = 122.5 s: rebalancing, nobody owns it


def test_owner_at(small_data):
    res = small_data.owner_at(PAY, "payments", 4, T0 + 150_000)
    assert (res["owner"]["member_id"], res["owner"]["generation"]) == (M2, 2)
    assert res["previous"]["member_id"] == M3 and res["next"]["generation"] == 3
    assert small_data.owner_at(PAY, "payments", 4, T0 + 122_000)["owner"] is None


def test_offset_ranges(small_data):
    ranges = small_data.offset_ranges(ORD, "orders", 2)
    assert ranges[["what", "from_offset", "to_offset", "count"]].values.tolist() == [
        ["reprocessed", 1080, 1200, 120], ["skipped", 1400, 1900, 500]]
    summ = small_data.offset_partitions(ORD).set_index("partition_name")
    assert summ.loc["orders-2"].tolist() == [9, 1, 1, 0, 1950]


def test_evidence_lines(small_data):
    ev = small_data.evidence_lines(["logs/broker-1/server.log:77", "logs/nowhere.log:1", "junk"])
    assert ev["raw"].tolist()[0] == rundirs.XSS
    assert ev["raw"].isna().tolist() == [False, True, True]
    assert split_evidence("s3a://b/k:x.log:12") == ("s3a://b/k:x.log", 12)


def test_unparsed_shapes(small_data):
    shapes = small_data.unparsed_shapes().set_index("shape")
    assert shapes.loc["ConsumerCoordinator: Rebalance <*> in <*> ms", "lines"] == 2
    assert len(small_data.unparsed_lines(contains="SCRIPT")) == 1


def test_only_schema_tables_can_be_loaded(small_data):
    for name in ("../../etc/passwd", "/etc/passwd", "events/../..", "manifest.json"):
        with pytest.raises(KeyError):
            small_data.table(name)


def test_incomplete_run_dir_is_refused(tmp_path):
    with pytest.raises(RunDirError):
        RunData(tmp_path)


def test_manifest_sections_flatten_unknown_keys():
    flat, tables = manifest_sections({"lines": {"read": 3, "parsed": 2}, "inputs": [{"path": "a"}], "v": [1, 2],
                                      "groups": [{"g": "x", "sev": {"high": 2, "low": 1}, "hosts": ["h1", "h2"]}]})
    assert {"key": "lines.read", "value": 3} in flat and {"key": "v", "value": "1, 2"} in flat
    # nested values read as words, never as raw JSON
    assert tables == {"inputs": [{"path": "a"}], "groups": [{"g": "x", "sev": "high: 2, low: 1", "hosts": "h1, h2"}]}


def test_bucket_downsample_bounds_rows():
    import pandas as pd

    frame = pd.DataFrame({"t": range(100_000), "k": ["a", "b"] * 50_000})
    out = bucket_downsample(frame, "t", ["k"], 1000)
    assert len(out) <= 1000 and out["count"].sum() == 100_000


def test_lines_without_member_id_speak_for_their_process(tmp_path):
    from pipeline import schemas
    from pipeline.rundir import write_manifest, write_table

    for table in schemas.TABLES:
        write_table(tmp_path, table, [])
    ev = [  # (source, line, side, client_id, member_id)
        ("a.log", 1, "client", "c-1", None), ("a.log", 2, "client", "c-1", "m-1"), ("a.log", 3, "client", "c-1", None),
        ("a.log", 4, "client", "c-1", "m-2"), ("a.log", 5, "client", "c-1", None),
        ("a.log", 6, "client", "c-2", None),                      # another consumer in the same process
        ("b.log", 1, "client", None, None),                       # a pre-1.0 client: no ids at all
        ("broker.log", 1, "broker", None, None),                  # a broker line names no member
    ]
    write_table(tmp_path, "events", [{"source": s, "line_no": n, "side": side, "client_id": c, "member_id": m,
                                      "ts_ms": T0 + n, "kind": "heartbeat_succeeded", "group_id": "g"}
                                     for s, n, side, c, m in ev])
    write_manifest(tmp_path, {})
    actors = RunData(tmp_path).group_events("g").set_index(["source", "line_no"])["actor"]
    assert [actors[("a.log", n)] for n in range(1, 7)] == ["m-1", "m-1", "m-1", "m-2", "m-2", "c-2"]
    assert actors[("b.log", 1)] == "consumer@b.log"
    assert actors[("broker.log", 1)] is None or actors[("broker.log", 1)] != actors[("broker.log", 1)]


def test_derived_shapes_group_lines_of_one_family():
    from dashboard.data import derive_shape

    a = derive_shape("[2026-01-01 00:01:00,000] INFO Rebalance 12 for c-8e0c6a55-0d3b-4a77-b1f3-6f2d9c0e4a22 in 1.5 ms")
    b = derive_shape("[2026-01-02 10:11:12,345] INFO Rebalance 7 for c-11111111-2222-3333-4444-555555555555 in 20 ms")
    assert a == b == "[<*>] INFO Rebalance <*> for c-<*> in <*> ms"
    assert derive_shape("") == "(empty line)" and len(derive_shape("x" * 500)) == 161


def test_owner_at_names_every_owner_of_a_double_ownership(tmp_path):
    """A zombie and its successor both own the partition for a while: both are the answer."""
    from pipeline import rundir as rd

    base = 1_700_000_000_000
    rows = [
        {"group_id": "g", "topic": "t", "partition": 0, "member_id": "zombie", "generation": 1,
         "start_ms": base, "end_ms": base + 40_000, "end_reason": "lost", "evidence": ["a.log:3"]},
        {"group_id": "g", "topic": "t", "partition": 0, "member_id": "successor", "generation": 2,
         "start_ms": base + 10_000, "end_ms": None, "end_reason": None, "evidence": ["b.log:9"]},
    ]
    rd.write_table(tmp_path, "ownership", rows)
    rd.write_manifest(tmp_path, {"tool": "coordscope ingest", "inputs": []})
    data = RunData(tmp_path)
    both = data.owner_at("g", "t", 0, base + 20_000)
    assert [o["member_id"] for o in both["owners"]] == ["zombie", "successor"]
    alone = data.owner_at("g", "t", 0, base + 5_000)
    assert [o["member_id"] for o in alone["owners"]] == ["zombie"] and alone["next"]["member_id"] == "successor"
    from dashboard.pages.owner import answer

    text = str(answer(data, "g", "t-0", base + 20_000))
    assert "owned by 2 members at once" in text and "zombie" in text and "successor" in text


def test_manifest_tables_show_epoch_ms_columns_as_times():
    _flat, tables = manifest_sections({"groups_detail": [
        {"first_ms": 1_710_208_801_208, "rebalance_ms_total": 22_774, "last_ms": None, "n_ms": True}]})
    # a time since 1973 in an ..._ms column reads as a time; a duration or count stays a number
    assert tables["groups_detail"] == [{"first_ms": "2024-03-12T02:00:01.208Z", "rebalance_ms_total": 22_774,
                                        "last_ms": None, "n_ms": True}]


def test_a_run_written_before_a_column_was_added_still_opens(tmp_path):
    """A run directory of an earlier coordscope lacks ownership.inferred (schemas.ADDED_COLUMNS): it is
    read with the column null (not known), in the dashboard and the report; a column that is no later
    addition is still a damaged table."""
    import shutil

    import pyarrow.parquet as pq

    from pipeline import rundir
    from pipeline.report import build_report, render

    run = rundirs.build_small(tmp_path / "run")
    for f in (run / "ownership").glob("*.parquet"):
        t = pq.read_table(f)
        pq.write_table(t.drop(["inferred"]), f)
    rundir.validate(run)
    own = rundir.load_table(run, "ownership")
    assert len(own) and own["inferred"].isna().all()
    assert "partition-seconds with no owner" in render(build_report(str(run)), "md")
    data = RunData(run)
    grid = data.ownership_grid(PAY, T0, T0 + 400_000, buckets=400)
    assert grid["members"][grid["z"][grid["partitions"].index("payments-4")][60]] == M3
    assert data.owner_at(PAY, "payments", 4, T0 + 150_000)["owner"]["member_id"] == M2
    broken = tmp_path / "broken"
    shutil.copytree(run, broken)
    for f in (broken / "ownership").glob("*.parquet"):
        pq.write_table(pq.read_table(f).drop(["end_reason"]), f)
    with pytest.raises(RunDirError, match="end_reason"):
        rundir.validate(broken)


def test_ownership_grid_shows_every_owner_of_a_cell(tmp_path):
    """A cell two members owned at once is drawn as such (z = len(members), both in `owners`), and an
    interval that began earlier and is still open owns its cells though a later one has ended. On
    2b5e598 the grid took only the latest-started interval: the double showed one owner, and the
    partition showed no owner after a short nested interval ended."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from dashboard.figures import ownership_figure

    run = rundirs.build_small(tmp_path / "run")
    files = sorted((run / "ownership").glob("*.parquet"))
    table = pa.concat_tables([pq.read_table(f) for f in files])
    own = table.to_pandas()
    base = own[(own["group_id"] == PAY) & (own["partition"] == 4) & (own["member_id"] == M3)].iloc[0]
    assert base["start_ms"] <= T0 + 50_000 and base["end_ms"] >= T0 + 70_000
    extra = pd.DataFrame([base.to_dict() | {"member_id": M1, "start_ms": T0 + 55_000, "end_ms": T0 + 58_000},
                          base.to_dict() | {"member_id": M3, "start_ms": T0 + 62_000, "end_ms": T0 + 63_000}])
    for f in files:
        f.unlink()
    pq.write_table(pa.Table.from_pandas(pd.concat([own, extra], ignore_index=True), schema=table.schema,
                                        preserve_index=False), run / "ownership" / "part-0.parquet")
    grid = RunData(run).ownership_grid(PAY, T0, T0 + 400_000, buckets=400)
    members, row = grid["members"], grid["z"][grid["partitions"].index("payments-4")]
    cells = grid["owners"][grid["partitions"].index("payments-4")]
    assert row[56] == len(members) and sorted(members[i] for i in cells[56]) == sorted([M1, M3])
    assert members[row[60]] == M3 and [members[i] for i in cells[60]] == [M3]   # after M1's nested one ended
    assert members[row[64]] == M3                                                # after M3's own nested one
    hover = ownership_figure(grid).data[0].hovertext[grid["partitions"].index("payments-4")][56]
    assert "owned by 2 members at once" in hover and M1 in hover and M3 in hover
