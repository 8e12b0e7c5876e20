"""tables.py and replay_stage.timeline on hand-written events (DataFrame level)."""

from __future__ import annotations

import pytest

from pipeline import schemas

pytestmark = pytest.mark.spark

T0 = 1_714_557_600_000   # 2024-05-01T10:00:00Z


def ev(source, line_no, kind, ts=None, side="client", **kw):
    row = {c: None for c in schemas.columns("events")}
    row.update(source=source, line_no=line_no, kind=kind, ts_ms=None if ts is None else T0 + ts, side=side,
               raw=kw.pop("raw", f"{source}:{line_no}:{kind}"), **kw)
    return row


def frame(spark, rows):
    return spark.createDataFrame(rows, schemas.ddl("events"))


C = {"group_id": "g1", "client_id": "c1"}


def test_heartbeat_gaps_flag_silences_over_the_session_timeout(spark):
    from pipeline.spark.tables import heartbeat_gaps

    rows = [
        ev("c.log", 1, "join_succeeded", 0, generation=3, member_id="m1", **C),
        ev("c.log", 2, "heartbeat_succeeded", 3_000, **C),
        # a second consumer that printed its ConsumerConfig: its limit wins for it
        ev("d.log", 1, "client_config", 0, group_id="g1", client_id="c2",
           extra_json='{"settings": {"session.timeout.ms": "20000", "max.poll.interval.ms": "60000"}}'),
        ev("d.log", 2, "heartbeat_succeeded", 1_000, group_id="g1", client_id="c2"),
        ev("d.log", 3, "heartbeat_succeeded", 31_000, group_id="g1", client_id="c2"),
        ev("c.log", 3, "heartbeat_succeeded", 3_500, **C),          # 500 ms: chatter, not kept
        ev("c.log", 4, "heartbeat_succeeded", 53_500, **C),         # 50 s > the group's printed 20 s
        ev("c.log", 5, "heartbeat_succeeded", 56_500, kafka_version_hint="2.8", **C),   # 3 s: not exceeded
    ]
    all_gaps = heartbeat_gaps(frame(spark, rows)).collect()
    c2 = sorted((r["kind"], r["gap_ms"], r["limit_ms"], r["exceeded"]) for r in all_gaps if r["client_id"] == "c2")
    # log silences are not measured against any limit (they say nothing about heartbeats or polls)
    assert c2 == [("heartbeat", 30_000, 20_000, True), ("log", 1_000, None, None), ("log", 30_000, None, None)]
    got = sorted((r for r in all_gaps if r["client_id"] == "c1"), key=lambda r: (r["kind"], r["start_ms"]))
    hb = [r for r in got if r["kind"] == "heartbeat"]
    # c1 prints no ConsumerConfig: the group's printed session.timeout.ms (c2's 20000) is its limit,
    # the same for every gap of the member (was: 45000, then 10000 from one line's version hint)
    assert [(r["gap_ms"], r["limit_ms"], r["exceeded"]) for r in hb] == [(50_000, 20_000, True), (3_000, 20_000, False)]
    assert hb[0]["evidence"] == ["c.log:3", "c.log:4"] and hb[0]["member_id"] == "m1"
    log = [(r["gap_ms"], r["exceeded"]) for r in got if r["kind"] == "log"]
    assert log == [(3_000, None), (50_000, None), (3_000, None)]


def test_info_only_logs_measure_no_heartbeat_gaps(spark):
    """A healthy rolling deploy logged at INFO: "Attempt to heartbeat failed since group is
    rebalancing" lines 40 s apart are not a 40 s heartbeat silence (the successful heartbeats in
    between are DEBUG lines that are not in the log)."""
    from pipeline.spark.tables import heartbeat_gaps

    rows = [
        ev("c.log", 1, "join_succeeded", 0, generation=1, member_id="m1", kafka_version_hint="2.8.1", **C),
        ev("c.log", 2, "heartbeat_failed", 40_000, error="REBALANCE_IN_PROGRESS", **C),
        ev("c.log", 3, "join_succeeded", 41_000, generation=2, member_id="m1", **C),
        ev("c.log", 4, "heartbeat_failed", 90_000, error="REBALANCE_IN_PROGRESS", **C),
    ]
    got = heartbeat_gaps(frame(spark, rows)).collect()
    assert not [r for r in got if r["kind"] == "heartbeat"]
    assert not [r for r in got if r["exceeded"]]
    assert sorted(r["gap_ms"] for r in got if r["kind"] == "log") == [1_000, 40_000, 49_000]


def test_the_expired_members_gap_ends_at_the_brokers_expiry(spark):
    from pipeline.spark.tables import heartbeat_gaps

    hint = {"kafka_version_hint": "2.8.1"}
    rows = [
        # m1 logs its heartbeats (DEBUG), then stops; the broker expires it 10 s after its last one
        ev("c.log", 1, "join_succeeded", 0, generation=1, member_id="m1", **hint, **C),
        *(ev("c.log", 2 + i, "heartbeat_succeeded", 3_000 * (i + 1), **C) for i in range(4)),
        # m2 logs at INFO only: its silence is known only from the broker's line
        ev("e.log", 1, "join_succeeded", 50, generation=1, member_id="m2", group_id="g1", client_id="c3", **hint),
        ev("e.log", 2, "partitions_assigned", 60, partitions=["t-1"], group_id="g1", client_id="c3"),
        ev("k.log", 1, "broker_member_removed", 22_000, side="broker", group_id="g1", member_id="m1",
           raw="[GroupCoordinator 1]: Member m1 in group g1 has failed, removing it from the group"),
        ev("k.log", 2, "broker_member_removed", 30_000, side="broker", group_id="g1", member_id="m2",
           raw="[GroupCoordinator 1]: Member m2 in group g1 has failed, removing it from the group"),
        # m5 logs heartbeats but no version: its group's clients are 2.8.1, so 10 s is its limit too
        ev("f.log", 1, "join_succeeded", 100, generation=1, member_id="m5", group_id="g1", client_id="c5"),
        ev("f.log", 2, "heartbeat_succeeded", 3_000, group_id="g1", client_id="c5"),
        ev("f.log", 3, "heartbeat_succeeded", 14_000, group_id="g1", client_id="c5"),
    ]
    got = {r["member_id"]: r for r in heartbeat_gaps(frame(spark, rows)).collect() if r["exceeded"]}
    assert sorted(got) == ["m1", "m2", "m5"]
    assert (got["m5"]["gap_ms"], got["m5"]["limit_ms"]) == (11_000, 10_000)
    m1, m2 = got["m1"], got["m2"]
    assert (m1["kind"], m1["start_ms"], m1["end_ms"], m1["gap_ms"], m1["limit_ms"]) == (
        "heartbeat", T0 + 12_000, T0 + 22_000, 10_000, 10_000)
    assert m1["evidence"] == ["c.log:5", "k.log:1"] and (m1["client_id"], m1["source"]) == ("c1", "c.log")
    # INFO only: session.timeout.ms ending at the broker's line, its start estimated (kind expiry)
    assert (m2["kind"], m2["start_ms"], m2["end_ms"], m2["gap_ms"], m2["limit_ms"]) == (
        "expiry", T0 + 20_000, T0 + 30_000, 10_000, 10_000)
    assert m2["evidence"] == ["k.log:2"]


def test_offset_commits_flags(spark):
    from pipeline.spark.tables import offset_commits

    tp = {"group_id": "g1", "topic": "t", "partition": 0}
    rows = [ev("c.log", 1, "join_succeeded", 0, generation=7, member_id="m1", **C)]
    offsets = [100, 110, 120, 130, 125, 50_000, 50_010]
    for i, off in enumerate(offsets):
        rows.append(ev("c.log", 10 + i, "offset_committed", 1000 * (i + 1), offset=off, client_id="c1", **tp))
    rows.append(ev("dump.txt", 1, "offset_record", 500, side="offsets", offset=99, **tp))
    got = offset_commits(frame(spark, rows)).orderBy("side", "ts_ms").collect()
    client = [r for r in got if r["side"] == "client"]
    # a jump forward is not flagged a skip here (catch-up after a restart looks the same); the replay decides
    assert [r["flag"] for r in client] == ["first", "commit", "commit", "commit", "rewind", "commit", "commit"]
    assert [r["delta"] for r in client][1:] == [10, 10, 10, -5, 49_875, 10]
    assert client[4]["prev_offset"] == 130 and client[4]["evidence"] == ["c.log:14"]
    assert {(r["generation"], r["member_id"]) for r in client} == {(7, "m1")}
    (dump,) = [r for r in got if r["side"] == "offsets"]
    assert dump["flag"] == "first" and dump["offset"] == 99


def test_offset_history_holds_fetched_sought_reset_and_described_offsets(spark):
    """Fetched committed offsets (2.x+ wording and the 0.9-1.0 `Resetting offset ... to the committed
    offset`), seeks, auto.offset.reset positions and --describe CURRENT-OFFSET rows are in the offset
    history with their source kind; prev_offset is the last committed offset before them."""
    from pipeline.spark.tables import offset_commits

    tp = {"group_id": "g1", "topic": "t", "partition": 0}
    rows = [ev("c.log", 1, "join_succeeded", 0, generation=3, member_id="m1", **C),
            ev("c.log", 2, "offset_fetched", 100, offset=500, client_id="c1", **tp,
               raw="Setting offset for partition t-0 to the committed offset FetchPosition{offset=500, ...}"),
            ev("c.log", 3, "offset_committed", 5_000, offset=700, client_id="c1", **tp),
            ev("c.log", 4, "offset_seek", 6_000, offset=650, client_id="c1", **tp),
            ev("c.log", 5, "offset_reset", 7_000, offset=900, client_id="c1", **tp,
               raw="Resetting offset for partition t-0 to the committed offset 900"),
            ev("c.log", 6, "offset_reset", 8_000, offset=2_000, client_id="c1", **tp,
               raw="Resetting offset for partition t-0 to position FetchPosition{offset=2000, ...}."),
            ev("d.txt", 9, "describe_row", 60_000, side="describe", offset=2_100, **tp)]
    got = offset_commits(frame(spark, rows)).orderBy("side", "ts_ms").collect()
    assert [(r["side"], r["offset"], r["flag"], r["source_kind"], r["prev_offset"]) for r in got] == [
        ("client", 500, "fetched", "offset_fetched", None),
        ("client", 700, "first", "offset_committed", None),
        ("client", 650, "seek", "offset_seek", 700),
        ("client", 900, "fetched", "offset_fetched", 700),
        ("client", 2_000, "reset", "offset_reset", 700),
        ("describe", 2_100, "describe", "describe_row", None)]
    assert got[0]["member_id"] == "m1" and got[0]["evidence"] == ["c.log:2"]


def test_ownership_intervals(spark):
    from pipeline.spark.tables import ownership

    rows = [
        ev("c.log", 1, "join_succeeded", 0, generation=1, member_id="m1", **C),
        ev("c.log", 2, "partitions_assigned", 100, partitions=["t-0", "t-1"], **C),
        ev("c.log", 20, "partitions_assigned", 101, partitions=["t-0", "t-1"], **C),   # announced twice
        ev("c.log", 3, "partitions_revoked", 5_000, partitions=["t-1"], **C),
        ev("c.log", 4, "join_succeeded", 6_000, generation=2, member_id="m1", **C),
        ev("c.log", 5, "partitions_assigned", 6_100, partitions=["t-2"], **C),
        ev("c.log", 6, "leave_group", 9_000, **C),
        ev("d.log", 1, "partitions_assigned", 7_000, partitions=["t-1"], group_id="g1", client_id="c2"),
        # c3 crashes and restarts: a new generation announces t-3 again without a revoke
        ev("e.log", 1, "join_succeeded", 1_000, generation=1, member_id="m3", group_id="g1", client_id="c3"),
        ev("e.log", 2, "partitions_assigned", 1_100, partitions=["t-3"], group_id="g1", client_id="c3"),
        ev("e.log", 3, "join_succeeded", 30_000, generation=2, member_id="m3b", group_id="g1", client_id="c3"),
        ev("e.log", 4, "partitions_assigned", 30_100, partitions=["t-3"], group_id="g1", client_id="c3"),
    ]
    got = sorted((r["client_id"], r["topic"], r["partition"], r["generation"], r["start_ms"] - T0,
                   r["end_ms"] - T0 if r["end_ms"] else None, r["end_reason"]) for r in ownership(frame(spark, rows)).collect())
    assert got == [
        ("c1", "t", 0, 1, 100, 9_000, "leave_group"),
        ("c1", "t", 1, 1, 100, 5_000, "revoked"),
        ("c1", "t", 2, 2, 6_100, 9_000, "leave_group"),
        ("c2", "t", 1, None, 7_000, None, "log_end"),
        # (no revoke: the old member's end is not in its log; it ends at the stream's last line before
        # the new member's assignment, here the restarted process's join, as group_tables.ownership does)
        ("c3", "t", 3, 1, 1_100, 30_000, "last_line"),
        ("c3", "t", 3, 2, 30_100, None, "log_end"),
    ]


def test_timeline_drops_copies_from_other_files_and_corrects_skew(spark):
    from pipeline.spark.replay_stage import timeline

    b = {"group_id": "g1", "side": "broker"}
    rows = [
        ev("broker.log", 1, "broker_group_stabilized", 1_000, generation=1, **b),
        ev("broker.log", 2, "broker_group_stabilized", 20_000, generation=2, **b),
        # consumer host clock 90 s ahead
        ev("c1.log", 1, "join_succeeded", 91_010, generation=1, member_id="m1", raw="J1", **C),
        ev("c1.log", 2, "join_succeeded", 110_020, generation=2, member_id="m1", raw="J2", **C),
        ev("c1.log", 3, "heartbeat_succeeded", 112_000, raw="HB", **C),
        ev("c1.log", 4, "heartbeat_succeeded", 112_000, raw="HB", **C),          # same file: kept
        # a second copy of c1's log under another name (overlapping rotated file)
        ev("c1.log.1", 7, "heartbeat_succeeded", 112_000, raw="HB", **C),
        # two hosts print the same client-less line in the same millisecond: both are real
        ev("c2.log", 5, "coordinator_discovered", 2_000, raw="Discovered coordinator", group_id="g1"),
        ev("c3.log", 5, "coordinator_discovered", 2_000, raw="Discovered coordinator", group_id="g1"),
        ev("c3.log", 6, "heartbeat_succeeded", 2_500, raw="own line", group_id="g1"),
        # consumer in sync with the broker (10 ms latency): not corrected
        ev("c2.log", 1, "join_succeeded", 1_010, generation=1, member_id="m2", raw="K1", group_id="g1", client_id="c2"),
    ]
    tl, offsets = timeline(frame(spark, rows))
    assert offsets == {"c1.log": 90_010}
    got = {(r["source"], r["line_no"]): r["ts_ms"] - T0 for r in tl.collect()}
    assert ("c1.log.1", 7) not in got
    assert ("c2.log", 5) in got and ("c3.log", 5) in got
    assert got[("c1.log", 3)] == got[("c1.log", 4)] == 112_000 - 90_010
    assert got[("c1.log", 1)] == 1_000 and got[("c2.log", 1)] == 1_010


def test_timeline_without_copies_or_skew_is_the_events_themselves(spark):
    """The usual case costs no join: the same DataFrame comes back."""
    from pipeline.spark.replay_stage import timeline

    events = frame(spark, [
        ev("c1.log", 1, "join_succeeded", 1_000, generation=1, member_id="m1", raw="J1", group_id="g1", client_id="c1"),
        ev("c2.log", 1, "join_succeeded", 1_010, generation=1, member_id="m2", raw="J2", group_id="g1", client_id="c2"),
    ])
    tl, offsets = timeline(events)
    assert tl is events and offsets == {}


def test_copies_are_decided_from_shared_counts_and_file_totals():
    """A file is a copy of an earlier one when more than half of all its events are first seen
    there: half exactly is not; lines shared with two earlier files count per file."""
    from pipeline.spark.replay_stage import copies_from_counts

    counts = [
        ("a.log", "a.log", 10),
        ("b.log", "a.log", 6), ("b.log", "b.log", 4),            # 6 of 10 shared with a.log
        ("c.log", "a.log", 5), ("c.log", "c.log", 5),            # half: not a copy
        ("d.log", "a.log", 4), ("d.log", "b.log", 4), ("d.log", "d.log", 1),   # 4 of 9 with each
    ]
    assert copies_from_counts(counts) == [("b.log", "a.log")]
    assert copies_from_counts([]) == []


def test_replay_keeps_inferred_ownership_only_where_no_consumer_shows_its_assignment():
    """replay_stage.shows_own_assignments: the groups tables.ownership covers (a client's
    partitions_assigned with partitions and a time) and no others."""
    import pyarrow as pa

    from pipeline.spark.replay_stage import shows_own_assignments

    def group(*rows):
        side, kind, ts, parts = zip(*rows, strict=True) if rows else ((), (), (), ())
        return pa.table({"side": pa.array(side, pa.string()), "kind": pa.array(kind, pa.string()),
                         "ts_ms": pa.array(ts, pa.int64()), "partitions": pa.array(parts, pa.list_(pa.string()))})

    assigned = ("client", "partitions_assigned", 5, ["t-0"])
    assert shows_own_assignments(group(("client", "join_succeeded", 1, None), assigned))
    assert not shows_own_assignments(group(("client", "partitions_assigned", 5, [])))          # empty assignment
    assert not shows_own_assignments(group(("client", "partitions_assigned", None, ["t-0"])))  # no time
    assert not shows_own_assignments(group(("broker", "partitions_assigned", 5, ["t-0"])))
    assert not shows_own_assignments(group(("client", "partitions_revoked", 5, ["t-0"]), ("client", None, 6, None)))
    assert not shows_own_assignments(group())


def test_a_consumer_protocol_session_fence_is_an_expiry(spark):
    """4.x consumer protocol (GroupMetadataManager): "Member X fenced from the group because the member session
    expired." ends an INFO-only member's silence like a classic expiry; other fence reasons do not."""
    from pipeline.spark.tables import heartbeat_gaps

    hint = {"kafka_version_hint": "4.0.0", "group_type": "consumer"}
    rows = [
        ev("c.log", 1, "member_state_changed", 0, member_id="m1", member_epoch=1, **hint, **C),
        ev("d.log", 1, "member_state_changed", 10, member_id="m2", member_epoch=2, group_id="g1", client_id="c2",
           **hint),
        ev("k.log", 1, "broker_member_fenced", 60_000, side="broker", group_id="g1", member_id="m1",
           reason="the member session expired.",
           raw="[GroupId g1] Member m1 fenced from the group because the member session expired.."),
        ev("k.log", 2, "broker_member_fenced", 70_000, side="broker", group_id="g1", member_id="m2",
           raw="[GroupId g1] Member m2 fenced from the group because it failed to transition from epoch 2 "
               "within 60000ms."),
    ]
    got = [r for r in heartbeat_gaps(frame(spark, rows)).collect() if r["kind"] == "expiry"]
    assert [(r["member_id"], r["end_ms"], r["limit_ms"], r["exceeded"]) for r in got] == [
        ("m1", T0 + 60_000, 45_000, True)]


def test_a_fenced_member_holds_its_partitions_until_its_lost_callback(spark):
    """tests/test_group_tables.py's case, on the Spark reference (group_tables.RELEASED_BY_CALLBACK)."""
    from pipeline.spark.tables import ownership
    from tests.test_group_tables import FENCED_ROWS, FENCED_WANT
    from tests.test_group_tables import T0 as T

    got = sorted((r["topic"], r["partition"], r["member_id"], r["start_ms"] - T, r["end_ms"] - T, r["end_reason"])
                 for r in ownership(frame(spark, FENCED_ROWS)).collect())
    assert got == FENCED_WANT
