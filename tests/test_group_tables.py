"""pipeline.group_tables (pure, no JVM): the per-group heartbeat gaps, offset history and
observed ownership the ingest writes from its one per-group pass. The same scenarios as
tests/spark/test_tables.py (the Spark window code they mirror); tests/spark/test_group_tables_twin.py
checks both give the same rows on random mixes."""

from __future__ import annotations

from pipeline import schemas
from pipeline.group_series import group_tables
from pipeline.group_tables import GROUP_COLUMNS, session_limit

T0 = 1_714_557_600_000
C = {"group_id": "g1", "client_id": "c1"}


def ev(source, line_no, kind, ts=None, side="client", **kw):
    row = {c: None for c in schemas.columns("events")}
    row.update(source=source, line_no=line_no, kind=kind, ts_ms=None if ts is None else T0 + ts, side=side,
               raw=kw.pop("raw", f"{source}:{line_no}:{kind}"), **kw)
    return row


def tables(rows, memberships=()):
    return group_tables({c: [r[c] for r in rows] for c in GROUP_COLUMNS}, list(memberships))


def test_session_limit_follows_the_clients_version():
    assert [session_limit(v) for v in ("0.10.0.1", "0.10.1", "2.8.1", "3.0", None, "junk")] == [
        30_000, 10_000, 10_000, 45_000, 45_000, 45_000]


def test_heartbeat_gaps_against_the_printed_or_default_session_timeout():
    rows = [
        ev("c.log", 1, "join_succeeded", 0, generation=3, member_id="m1", **C),
        ev("c.log", 2, "heartbeat_succeeded", 3_000, **C),
        ev("d.log", 1, "client_config", 0, group_id="g1", client_id="c2",
           extra_json='{"settings": {"session.timeout.ms": "20000"}}'),
        ev("d.log", 2, "heartbeat_succeeded", 1_000, group_id="g1", client_id="c2"),
        ev("d.log", 3, "heartbeat_succeeded", 31_000, group_id="g1", client_id="c2"),
        ev("c.log", 3, "heartbeat_succeeded", 3_500, **C),
        ev("c.log", 4, "heartbeat_succeeded", 53_500, **C),
        ev("c.log", 5, "heartbeat_succeeded", 56_500, kafka_version_hint="2.8", **C),
    ]
    gaps = tables(rows)["heartbeat_gaps"]
    c2 = sorted((r["kind"], r["gap_ms"], r["limit_ms"], r["exceeded"]) for r in gaps if r["client_id"] == "c2")
    assert c2 == [("heartbeat", 30_000, 20_000, True), ("log", 1_000, None, None), ("log", 30_000, None, None)]
    hb = sorted((r for r in gaps if r["client_id"] == "c1" and r["kind"] == "heartbeat"), key=lambda r: r["start_ms"])
    assert [(r["gap_ms"], r["limit_ms"], r["exceeded"]) for r in hb] == [(50_000, 20_000, True), (3_000, 20_000, False)]
    assert hb[0]["evidence"] == ["c.log:3", "c.log:4"] and hb[0]["member_id"] == "m1"


def test_the_expired_members_gap_ends_at_the_brokers_expiry():
    hint = {"kafka_version_hint": "2.8.1"}
    rows = [
        ev("c.log", 1, "join_succeeded", 0, generation=1, member_id="m1", **hint, **C),
        *(ev("c.log", 2 + i, "heartbeat_succeeded", 3_000 * (i + 1), **C) for i in range(4)),
        ev("e.log", 1, "join_succeeded", 50, generation=1, member_id="m2", group_id="g1", client_id="c3", **hint),
        ev("k.log", 1, "broker_member_removed", 22_000, side="broker", group_id="g1", member_id="m1",
           raw="[GroupCoordinator 1]: Member m1 in group g1 has failed, removing it from the group"),
        ev("k.log", 2, "broker_member_removed", 30_000, side="broker", group_id="g1", member_id="m2",
           raw="[GroupCoordinator 1]: Member m2 in group g1 has failed, removing it from the group"),
    ]
    got = {r["member_id"]: r for r in tables(rows)["heartbeat_gaps"] if r["exceeded"]}
    m1, m2 = got["m1"], got["m2"]
    assert (m1["kind"], m1["start_ms"], m1["end_ms"], m1["gap_ms"], m1["limit_ms"]) == (
        "heartbeat", T0 + 12_000, T0 + 22_000, 10_000, 10_000)
    assert m1["evidence"] == ["c.log:5", "k.log:1"] and (m1["client_id"], m1["source"]) == ("c1", "c.log")
    assert (m2["kind"], m2["start_ms"], m2["gap_ms"], m2["evidence"]) == ("expiry", T0 + 20_000, 10_000, ["k.log:2"])


def test_offset_history_flags_and_member_context():
    tp = {"group_id": "g1", "topic": "t", "partition": 0}
    rows = [ev("c.log", 1, "join_succeeded", 0, generation=7, member_id="m1", **C)]
    for i, off in enumerate([100, 110, 125, 120]):
        rows.append(ev("c.log", 10 + i, "offset_committed", 1000 * (i + 1), offset=off, client_id="c1", **tp))
    rows.append(ev("c.log", 20, "offset_reset", 9_000, offset=900, client_id="c1", **tp,
                   raw="Resetting offset for partition t-0 to the committed offset 900"))
    got = sorted(tables(rows)["offset_commits"], key=lambda r: r["ts_ms"])
    assert [(r["flag"], r["delta"], r["source_kind"]) for r in got] == [
        ("first", None, "offset_committed"), ("commit", 10, "offset_committed"), ("commit", 15, "offset_committed"),
        ("rewind", -5, "offset_committed"), ("fetched", 780, "offset_fetched")]
    assert {(r["generation"], r["member_id"]) for r in got} == {(7, "m1")}


def test_ownership_intervals_and_unnamed_owners_named_by_the_replay():
    rows = [
        ev("c.log", 1, "join_succeeded", 0, generation=1, member_id="m1", **C),
        ev("c.log", 2, "partitions_assigned", 100, partitions=["t-0", "t-1"], **C),
        ev("c.log", 20, "partitions_assigned", 101, partitions=["t-0", "t-1"], **C),   # announced twice
        ev("c.log", 3, "partitions_revoked", 5_000, partitions=["t-1"], **C),
        ev("c.log", 6, "leave_group", 9_000, **C),
        # a 0.9 client names no member: the replay's sole holder of t-5 in generation 4 is its owner
        ev("o.log", 1, "join_succeeded", 10, generation=4, group_id="g1"),
        ev("o.log", 2, "partitions_assigned", 20, partitions=["t-5"], group_id="g1"),
    ]
    ms = [{"group_id": "g1", "generation": 4, "member_id": "old-1", "assigned": ["t-5"]}]
    got = sorted((r["client_id"] or "", r["topic"], r["partition"], r["member_id"], r["start_ms"] - T0,
                  r["end_ms"] - T0 if r["end_ms"] else None, r["end_reason"]) for r in tables(rows, ms)["ownership"])
    assert got == [("", "t", 5, "old-1", 20, None, "log_end"),
                   ("c1", "t", 0, "m1", 100, 9_000, "leave_group"),
                   ("c1", "t", 1, "m1", 100, 5_000, "revoked")]


def test_librdkafka_heartbeat_lines_printed_at_the_next_poll_are_no_heartbeat_gap():
    """confluent-kafka-python prints librdkafka's lines when the application polls (log queue): a
    330 s batch leaves its heartbeat lines printed together afterwards. That is a gap of the log
    (kind log), not of the heartbeats (the broker did not expire the member: no heartbeat row)."""
    late = '{"binding": "python", "facility": "HEARTBEAT", "librdkafka_rule": "heartbeat_sent"}'
    rows = [ev("p.log", 1, "join_succeeded", 0, generation=1, member_id="rdkafka-1", **C)]
    rows += [ev("p.log", 2 + i, "heartbeat_sent", 3_000 * i, extra_json=late, **C) for i in range(4)]
    rows += [ev("p.log", 6 + i, "heartbeat_sent", 340_000, extra_json=late, **C) for i in range(3)]
    gaps = tables(rows)["heartbeat_gaps"]
    assert sorted((r["kind"], r["gap_ms"], r["exceeded"]) for r in gaps) == [
        ("log", 3_000, None), ("log", 3_000, None), ("log", 3_000, None), ("log", 331_000, None)]
    # the same lines from a native librdkafka log (its own time) are heartbeats
    native = '{"binding": "native", "facility": "HEARTBEAT", "librdkafka_rule": "heartbeat_sent"}'
    for r in rows[1:]:
        r["extra_json"] = native
    hb = [r for r in tables(rows)["heartbeat_gaps"] if r["kind"] == "heartbeat"]
    assert sorted((r["gap_ms"], r["exceeded"]) for r in hb) == [(3_000, False)] * 3 + [(331_000, True)]


FENCED_ROWS = [
    # m1 is fenced at 10 s (its FENCED line) and its lost callback of t-0 comes at 25 s (the
    # application thread was busy in another callback): it holds t-0 until then
    ev("c.log", 1, "join_succeeded", 0, generation=1, member_id="m1", **C),
    ev("c.log", 2, "partitions_assigned", 100, partitions=["t-0"], **C),
    ev("c.log", 3, "member_fenced", 10_000, **C),
    ev("c.log", 4, "partitions_lost", 25_000, partitions=["t-0"], **C),
    # m2 is fenced and logs no callback after (its log ends): the fencing ends it
    ev("d.log", 1, "join_succeeded", 0, generation=1, member_id="m2", group_id="g1", client_id="c2"),
    ev("d.log", 2, "partitions_assigned", 100, partitions=["t-1"], group_id="g1", client_id="c2"),
    ev("d.log", 3, "member_fenced", 12_000, group_id="g1", client_id="c2"),
    # m3's generation is reset (classic fencing), then its callback gives t-2 up as lost
    ev("e.log", 1, "join_succeeded", 0, generation=1, member_id="m3", group_id="g1", client_id="c3"),
    ev("e.log", 2, "partitions_assigned", 100, partitions=["t-2"], group_id="g1", client_id="c3"),
    ev("e.log", 3, "generation_reset", 14_000, group_id="g1", client_id="c3"),
    ev("e.log", 4, "partitions_lost", 14_000, partitions=["t-2"], group_id="g1", client_id="c3"),
]
FENCED_WANT = [("t", 0, "m1", 100, 25_000, "lost"), ("t", 1, "m2", 100, 12_000, "member_fenced"),
               ("t", 2, "m3", 100, 14_000, "lost")]


def test_a_fenced_member_holds_its_partitions_until_its_lost_callback():
    """A fenced member releases its assignment when its onPartitionsLost callback completes
    (AbstractMembershipManager.transitionToFenced, 3.7+; classic: ConsumerCoordinator.onJoinPrepare
    after a generation reset, 2.4+): a fencing or reset line followed by the partition's lost (or
    revoked) callback ends nothing; without one, it ends the interval (group_tables.RELEASED_BY_CALLBACK,
    the replay's rule too: its findings and this table must agree). Before, m1's interval ended at
    10 s, its FENCED line."""
    got = sorted((r["topic"], r["partition"], r["member_id"], r["start_ms"] - T0, r["end_ms"] - T0,
                  r["end_reason"]) for r in tables(FENCED_ROWS)["ownership"])
    assert got == FENCED_WANT
