"""group_tables.ownership's `last_line` ends (the ingest's observed ownership): an owner's end its own
log does not show is its stream's last line, only when another assignment follows; a held interval
nobody takes later keeps no end. Both ways: each rule on a case where it applies and one where it
must not."""

from __future__ import annotations

import pyarrow as pa

from pipeline import group_series, group_tables, schemas

T = 1_700_000_000_000


def _row(source, line, ts, kind, member=None, client="c", parts=None, gen=None):
    r = {c: None for c in schemas.columns("events")}
    r.update(source=source, line_no=line, ts_ms=T + ts, side="client", kind=kind, group_id="g", client_id=client,
             member_id=member, partitions=parts, generation=gen, raw=kind)
    return r


def _own(rows):
    t = pa.Table.from_pylist(rows, schema=schemas.arrow_schema("events"))
    lives = group_tables.streams_lines(t, group_series.origins)
    return sorted((r["client_id"], r["member_id"], r["start_ms"] - T, None if r["end_ms"] is None else r["end_ms"] - T,
                   r["end_reason"]) for r in group_tables.ownership(t.to_pylist(), (), lives))


def test_a_crashed_owner_ends_at_its_last_line_when_another_owner_follows():
    rows = [_row("a.log", 1, 0, "join_succeeded", "m1", gen=1), _row("a.log", 2, 10, "partitions_assigned", "m1", parts=["t-0"]),
            _row("a.log", 3, 500, "heartbeat_sent", "m1"),                                     # its last line
            _row("b.log", 1, 9_000, "partitions_assigned", "m2", client="d", parts=["t-0"])]   # another owner
    assert _own(rows) == [("c", "m1", 10, 500, "last_line"), ("d", "m2", 9_000, None, "log_end")]
    # nobody takes it later: held at the end, no end
    assert _own(rows[:3]) == [("c", "m1", 10, None, "log_end")]


def test_a_restart_without_a_revoke_ends_the_old_member_before_its_consumer_is_created_again():
    rows = [_row("a.log", 1, 0, "partitions_assigned", "m1", parts=["t-0"]),
            _row("a.log", 2, 300, "heartbeat_sent", "m1"),
            _row("a.log", 3, 5_000, "client_config"),                    # the consumer created again
            _row("a.log", 4, 5_100, "join_succeeded", "m2", gen=2),
            _row("a.log", 5, 5_200, "partitions_assigned", "m2", parts=["t-0"])]
    assert _own(rows) == [("c", "m1", 0, 300, "last_line"), ("c", "m2", 5_200, None, "log_end")]
    # a revoke first: the revoke ends it (no last_line)
    revoked = rows[:2] + [_row("a.log", 6, 400, "partitions_revoked", "m1", parts=["t-0"])] + rows[2:]
    assert ("c", "m1", 0, 400, "revoked") in _own(revoked)


def test_a_restarted_process_ends_what_it_held_though_no_one_takes_it_later():
    # the old process held t-0; the new one (its consumer created again) gets t-1: nothing names t-0
    # again, yet the process that held it is gone, so it ends at that process's last line
    rows = [_row("a.log", 1, 0, "join_succeeded", gen=8), _row("a.log", 2, 10, "partitions_assigned", parts=["t-0"], gen=8),
            _row("a.log", 3, 700, "heartbeat_sent", gen=8),                   # the old process's last line
            _row("a.log", 4, 30_000, "client_config"),                       # created again: a restart
            _row("a.log", 5, 30_300, "join_succeeded", gen=10),
            _row("a.log", 6, 33_000, "partitions_assigned", parts=["t-1"], gen=10)]
    assert _own(rows) == [("c", None, 10, 700, "last_line"), ("c", None, 33_000, None, "log_end")]
    # no restart (the same process joins again and gets t-1): t-0 stays held at the end, no end
    same = rows[:3] + rows[4:]
    assert ("c", None, 10, None, "log_end") in _own(same)


def test_a_crashing_hosts_log_beside_the_brokers_ends_each_crashed_process_by_its_crash():
    """rebalance_storm with search-indexer-4.log and the broker's log only: each crashed process of
    that host (the truth's `crash` ends) ends no later than its crash, and the one alive at the end
    (the truth's open interval) is held to the end; before, two crashed processes were drawn holding
    their partitions to the end of the log."""
    import json
    from pathlib import Path

    from parsers import parse_path
    from tests.replay.arrow_tables import events_table

    root = Path(__file__).resolve().parents[1] / "sample_logs" / "rebalance_storm"
    truth = json.loads((root / "truth.json").read_text())
    host = {m["member_id"]: m["host"] for m in truth["members"]}
    crashed = sorted((tp, o["from_ms"], o["to_ms"]) for tp, ivs in truth["ownership"].items() for o in ivs
                     if host.get(o["member_id"]) == "search-indexer-4" and o["end"] == "crash")
    alive = sorted((tp, o["from_ms"]) for tp, ivs in truth["ownership"].items() for o in ivs
                   if host.get(o["member_id"]) == "search-indexer-4" and o["to_ms"] is None)
    events = [oc.event for p in ("search-indexer-4.log", "kafka-1-server.log") for oc in parse_path(str(root / p))[0]
              if oc.event is not None and oc.event.group_id == "search-indexer"]
    t = events_table(events)
    # as the ingest's group pass: each row with its origin (the "pid:N" of this Spring Boot layout)
    cols = t.append_column("origin", group_series.origins(t.column("extra_json"), None)).to_pydict()
    rows = group_tables.observed_ownership(cols, (), frozenset(), group_tables.streams_lines(t, group_series.origins))
    got = sorted((f"{r['topic']}-{r['partition']}", r["start_ms"], r["end_ms"]) for r in rows)
    assert len(got) == len(crashed) + len(alive) == 16
    held_to_end = [(tp, s) for tp, s, e in got if e is None]
    assert len(held_to_end) == len(alive) == 2
    for (tp, s), (ttp, ts) in zip(held_to_end, alive, strict=True):
        assert tp == ttp and 0 <= s - ts < 100
    ended = [g for g in got if g[2] is not None]
    for (tp, s, e), (ttp, ts, te) in zip(ended, crashed, strict=True):
        assert tp == ttp and 0 <= s - ts < 100     # the assignment line, ~40 ms after the truth's start
        assert s <= e <= te                        # held at least to its last line, never past its crash


def _iv(member, start, end, reason, inferred=False, part=0):
    return {"group_id": "g", "topic": "t", "partition": part, "member_id": member, "client_id": "c", "generation": 1,
            "start_ms": T + start, "end_ms": None if end is None else T + end, "end_reason": reason,
            "evidence": ["a.log:1"], "inferred": inferred}


def _expiry(member, removal, last_seen=None, session=45_000, assumed=False, how="broker_removal_line"):
    import json

    return {"kind": "session_expiry", "members": [member], "start_ms": T + removal, "end_ms": T + removal,
            "evidence": ["k.log:76"], "details_json": json.dumps({
                "expiry_time": how, "last_seen_ms": None if last_seen is None else T + last_seen,
                "session_timeout_assumed": assumed, "session_timeout_ms": session})}


def _ends(rows):
    return [(r["member_id"], r["start_ms"] - T, None if r["end_ms"] is None else r["end_ms"] - T, r["end_reason"])
            for r in rows]


def test_an_owner_held_at_its_log_end_ends_at_its_last_line_when_an_inferred_interval_follows():
    rows = [_row("a.log", 1, 0, "join_succeeded", "m1", gen=1), _row("a.log", 2, 10, "partitions_assigned", "m1", parts=["t-0"]),
            _row("a.log", 3, 500, "heartbeat_sent", "m1")]
    t = pa.Table.from_pylist(rows, schema=schemas.arrow_schema("events"))
    unresolved = []
    own = group_tables.ownership(t.to_pylist(), (), group_tables.streams_lines(t, group_series.origins), unresolved)
    assert _ends(own) == [("m1", 10, None, "log_end")] and len(unresolved) == 1
    # the replay's interval of a member whose log is missing starts later: m1's ends at its last line
    group_tables.ends_at_last_line_before(unresolved, [_iv("m2", 9_000, None, "log_end", inferred=True)])
    assert _ends(own) == [("m1", 10, 500, "last_line")] and own[0]["evidence"] == ["a.log:2", "a.log:3"]
    # one that starts before it (or another partition's) does not end it
    own2 = group_tables.ownership(t.to_pylist(), (), group_tables.streams_lines(t, group_series.origins), unresolved := [])
    group_tables.ends_at_last_line_before(unresolved, [_iv("m2", 5, None, "log_end", inferred=True),
                                                       _iv("m2", 9_000, None, "log_end", inferred=True, part=1)])
    assert _ends(own2) == [("m1", 10, None, "log_end")]


def test_an_owner_removed_on_session_expiry_owned_until_its_last_heartbeat():
    # its log's last line at 153 s, the broker's removal at 314.255 s, session.timeout.ms 45 s stated:
    # the last heartbeat reached the coordinator at 269.255 s (cooperative_scale_out's risk-aggregator-2)
    rows = [_iv("m1", 8_000, 153_474, "last_line"), _iv("m3", 316_784, None, "log_end")]
    group_tables.ends_at_last_heartbeat(rows, [_expiry("m1", 314_255)])
    assert _ends(rows) == [("m1", 8_000, 269_255, "last_heartbeat"), ("m3", 316_784, None, "log_end")]
    assert rows[0]["evidence"] == ["a.log:1", "k.log:76"]
    # the replay's interval of the same member (its log missing), ended at the removal: the same end
    inf = [_iv("m1", 8_000, 314_255, "session_expiry", inferred=True), _iv("m3", 316_784, None, "log_end")]
    group_tables.ends_at_last_heartbeat(inf, [_expiry("m1", 314_255)])
    assert _ends(inf)[0] == ("m1", 8_000, 269_255, "last_heartbeat")
    # the member's own last sign of life, when the finding measured it, wins over the timeout
    own = [_iv("m1", 8_000, 153_474, "last_line")]
    group_tables.ends_at_last_heartbeat(own, [_expiry("m1", 314_255, last_seen=270_100)])
    assert _ends(own) == [("m1", 8_000, 270_100, "last_heartbeat")]


def test_the_last_heartbeat_is_not_taken_where_the_logs_show_more_or_cannot_time_it():
    def after(rows, findings):
        group_tables.ends_at_last_heartbeat(rows, findings)
        return _ends(rows)

    # an end its own log shows (a revoke) stays
    assert after([_iv("m1", 8_000, 100_000, "revoked")], [_expiry("m1", 314_255)]) == [("m1", 8_000, 100_000, "revoked")]
    # a session timeout no line states (the default assumed): no end moved
    assert after([_iv("m1", 8_000, 153_474, "last_line")], [_expiry("m1", 314_255, assumed=True)]) == [
        ("m1", 8_000, 153_474, "last_line")]
    # an expiry no broker line times (estimated from a last line): no heartbeat time
    assert after([_iv("m1", 8_000, 153_474, "last_line")], [_expiry("m1", 314_255, how="last_line_plus_timeout")]) == [
        ("m1", 8_000, 153_474, "last_line")]
    # another member's expiry: nothing
    assert after([_iv("m1", 8_000, 153_474, "last_line")], [_expiry("m2", 314_255)]) == [("m1", 8_000, 153_474, "last_line")]
    # never past the next owner's start (no double ownership made up)
    assert after([_iv("m1", 8_000, 153_474, "last_line"), _iv("m3", 200_000, None, "log_end")],
                 [_expiry("m1", 314_255)]) == [("m1", 8_000, 200_000, "last_heartbeat"), ("m3", 200_000, None, "log_end")]
    # a last line after the heartbeat bound: stays
    assert after([_iv("m1", 8_000, 280_000, "last_line")], [_expiry("m1", 314_255)]) == [("m1", 8_000, 280_000, "last_line")]


def test_a_late_revoke_after_the_coordinators_leave_line_ends_at_the_leave():
    # mixed_clients_max_poll: librdkafka's member leaves at 420.295 s (the broker's line), its binding prints
    # the revoke at 450.199 s; a Java member holds the partition from 422.618 s
    leaves = {"py": [(T + 420_295, "k.log:92")]}
    rows = [_iv("py", 7_237, 450_199, "revoked"), _iv("java", 422_618, 451_241, "revoked")]
    group_tables.ends_at_leave(rows, leaves)
    assert _ends(rows) == [("py", 7_237, 420_295, "left"), ("java", 422_618, 451_241, "revoked")]
    assert rows[0]["evidence"] == ["a.log:1", "k.log:92"]
    # no other owner before its own end: a revoke printed a little after the broker's line stays
    rows = [_iv("py", 7_237, 420_400, "revoked"), _iv("java", 422_618, 451_241, "revoked")]
    group_tables.ends_at_leave(rows, leaves)
    assert _ends(rows)[0] == ("py", 7_237, 420_400, "revoked")
    # a leave before the interval began (an earlier member life) or another member's: nothing
    rows = [_iv("py", 421_000, 450_199, "revoked"), _iv("java", 422_618, 451_241, "revoked")]
    group_tables.ends_at_leave(rows, leaves)
    assert _ends(rows)[0] == ("py", 421_000, 450_199, "revoked")
    rows = [_iv("other", 7_237, 450_199, "revoked"), _iv("java", 422_618, 451_241, "revoked")]
    group_tables.ends_at_leave(rows, leaves)
    assert _ends(rows)[0] == ("other", 7_237, 450_199, "revoked")


def test_broker_leaves_reads_only_the_coordinators_leave_lines():
    def broker(line, ts, member, raw):
        r = {c: None for c in schemas.columns("events")}
        r.update(source="k.log", line_no=line, ts_ms=T + ts, side="broker", kind="broker_member_removed",
                 group_id="g", member_id=member, raw=raw)
        return r

    t = pa.Table.from_pylist([
        broker(1, 5, "m1", "Member m1 has left group g through explicit `LeaveGroup`; client reason: not provided"),
        broker(2, 6, "m2", "Member m2 in group g has left, removing it from the group"),
        broker(3, 7, "m3", "Member m3 in group g has failed, removing it from the group"),   # an expiry
    ], schema=schemas.arrow_schema("events"))
    assert group_tables.broker_leaves(t) == {"m1": [(T + 5, "k.log:1")], "m2": [(T + 6, "k.log:2")]}


def test_an_interval_held_at_its_log_end_of_an_expired_member_ends_at_its_last_heartbeat():
    # rebalance_storm's search-indexer-4 (0.10, no member ids): its interval of catalog-updates-3 is held
    # when its stream's log ends (no other owner in the logs); the coordinator expired it
    held = _iv("m1", 297_195, None, "log_end")
    group_tables.ends_at_last_heartbeat([held], [_expiry("m1", 319_254, session=10_000)], [(held, T + 300_000, "a.log:9")])
    assert _ends([held]) == [("m1", 297_195, 309_254, "last_heartbeat")]
    # its last line after the heartbeat (a paused process waking, logging): stays held
    held = _iv("m1", 297_195, None, "log_end")
    group_tables.ends_at_last_heartbeat([held], [_expiry("m1", 319_254, session=10_000)], [(held, T + 315_000, "a.log:9")])
    assert _ends([held]) == [("m1", 297_195, None, "log_end")]
    # not among the held (no last line known): stays
    held = _iv("m1", 297_195, None, "log_end")
    group_tables.ends_at_last_heartbeat([held], [_expiry("m1", 319_254, session=10_000)])
    assert _ends([held]) == [("m1", 297_195, None, "log_end")]


def _lives(t):
    return {k: (v.times.tolist(), v.line_nos.tolist(), v.created.tolist())
            for k, v in group_tables.streams_lines(t, group_series.origins).items()}


def _dictionary_chunks(t):
    """The same rows with every string column dictionary-encoded, in two chunks with dictionaries
    of their own (as a hot group's columns come from the staged files)."""
    h = t.num_rows // 2
    cols = {}
    for name in t.schema.names:
        c = t.column(name).combine_chunks()
        if pa.types.is_string(c.type):
            c = pa.chunked_array([c.slice(0, h).dictionary_encode(), c.slice(h).dictionary_encode()])
        cols[name] = c
    return pa.table(cols)


def test_streams_lines_orders_each_stream_and_keys_them_alike_plain_or_dictionary_encoded():
    rows = [_row("b.log", 4, 300, "heartbeat_sent", client="z"),
            _row("a.log", 2, 200, "heartbeat_sent"),
            _row("a.log", 9, 100, "client_config"),            # created: ConsumerConfig values
            _row("a.log", 1, 200, "heartbeat_sent"),            # same time: line order
            _row("a.log", 5, 50, "heartbeat_sent", client=None),
            _row("a.log", 3, 700, "client_config", client=None)]
    broker = _row("a.log", 6, 60, "join_started")
    broker["side"] = "broker"                                   # not a client line: in no stream
    untimed = _row("b.log", 7, 0, "heartbeat_sent", client="z")
    untimed["ts_ms"] = None                                     # no time: in no stream
    t = pa.Table.from_pylist([*rows, broker, untimed], schema=schemas.arrow_schema("events"))
    # (times, line numbers, creation times): a stream without a client id is restarted by every
    # creation in its file
    want = {("c", "a.log", None): ([T + 100, T + 200, T + 200], [9, 1, 2], [T + 100]),
            ("z", "b.log", None): ([T + 300], [4], []),
            (None, "a.log", None): ([T + 50, T + 700], [5, 3], [T + 100, T + 700])}
    assert _lives(t) == want
    assert list(_lives(t)) == [("c", "a.log", None), ("z", "b.log", None), (None, "a.log", None)]  # values, None last
    assert _lives(_dictionary_chunks(t)) == want
