"""Duplicates, clock skew, event order, missing times, settings from the logs, the pandas bridge."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pandas as pd
import pyarrow as pa

from parsers.events import Event
from pipeline import schemas
from pipeline.replay import ReplaySettings, replay_group, replay_group_frame
from tests.replay import scenarios as S
from tests.replay.builders import Host, merged
from tests.replay.scenarios import T0


def summary(r):
    return ([(g["generation"], g["cause"], g["trigger_member"], tuple(g["members"])) for g in r.generations],
            sorted((f["kind"], tuple(f["members"]), tuple(f["partitions"])) for f in r.findings))


def test_same_file_ingested_twice_is_deduplicated():
    events = S.session_expiry_broker()
    # the copy of a file keeps the evidence of the source that sorts first ("hostB/app.log")
    copy = [replace(e, source=e.source + ".copy") for e in events if "hostB" in e.source]
    once, twice = replay_group(events), replay_group(events + copy)
    assert twice.stats["duplicates_dropped"] == len(copy)
    assert once.generations == twice.generations and once.findings == twice.findings
    assert once.ownership == twice.ownership


def test_repeated_identical_lines_within_one_file_are_kept():
    a = Host("hostA/app.log", "c-a")
    a.join(T0, 1, "A", ["t-0"])
    for _ in range(3):
        a.ev(T0 + 5_000, "heartbeat_succeeded", raw="same line")
    r = replay_group(a.events)
    assert r.stats["duplicates_dropped"] == 0 and r.stats["events"] == 7


def test_input_order_does_not_matter():
    events = S.session_expiry_broker() + S.skip_after_reset()
    want = summary(replay_group(events))
    for seed in range(3):
        shuffled = list(events)
        random.Random(seed).shuffle(shuffled)
        assert summary(replay_group(shuffled)) == want


def test_clock_skew_between_hosts_changes_no_conclusion():
    def build(skew):
        a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b", skew_ms=skew)
        S.stable_pair(a, b)
        b.revoke(T0 + 60_000, ["t-2", "t-3"])
        b.ev(T0 + 60_010, "leave_group", member_id="B", reason="the consumer is being closed")
        a.revoke(T0 + 61_000, ["t-0", "t-1"])
        a.join(T0 + 61_001, 3, "A", ["t-0", "t-1", "t-2", "t-3"])
        return merged(a, b)

    base = replay_group(build(0))
    for skew in (-1_500, 1_500):
        r = replay_group(build(skew))
        assert summary(r) == summary(base)
        assert not [f for f in r.findings if f["kind"] == "double_ownership"]
    # B's clock 1.5 s behind makes its assignment look earlier than A's revoke: within tolerance
    overlap = replay_group(build(-1_500), ReplaySettings(skew_tolerance_ms=100))
    assert sorted(f["partitions"] for f in overlap.findings if f["kind"] == "double_ownership") == [["t-2"], ["t-3"]]


def test_untimed_lines_take_the_time_of_the_line_before():
    a = Host("hostA/app.log", "c-a")
    a.join(T0, 1, "A", ["t-0"])
    e = a.ev(T0 + 10, "leave_group", member_id="A", reason="the consumer is being closed")
    events = [*a.events[:-1], replace(e, ts_ms=None)]
    r = replay_group(events)
    m = r.memberships[0]
    assert (m["left_ms"], m["leave_reason"]) == (T0 + 160, "shutdown")


def test_empty_and_odd_input_does_not_crash():
    r = replay_group([])
    assert (r.generations, r.memberships, r.ownership, r.findings) == ([], [], [], [])
    odd = [
        Event("x.log", 1, "client", "unparsed", "\x00\xffgarbage", ts_ms=None),
        Event("x.log", 2, "client", "join_succeeded", "no generation", ts_ms=5, member_id="M"),
        Event("x.log", 3, "client", "offset_committed", "no partition", ts_ms=6, offset=3),
        Event("x.log", 4, "client", "partitions_assigned", "bad tp", ts_ms=7, partitions=("weird",)),
        Event("x.log", 5, "broker", "broker_rebalance_preparing", "no generation at all", ts_ms=8),
        Event("x.log", 6, "client", "something_new", "future kind", ts_ms=9),
    ]
    r = replay_group(odd)
    assert r.generations == [] and r.ownership[0]["topic"] == "weird" and r.ownership[0]["partition"] is None


def test_settings_from_logs_and_version_defaults():
    a = Host("hostA/app.log", "c-a")
    a.ev(T0 - 100, "unparsed", raw="\tsession.timeout.ms = 10000")
    a.ev(T0 - 99, "unparsed", raw="\tmax.poll.interval.ms = 600000")
    a.join(T0, 1, "A", ["t-0"])
    r = replay_group(a.events)
    cfg = r.settings
    assert (cfg.session_timeout_ms, cfg.max_poll_interval_ms, cfg.rebalance_timeout_ms) == (10_000, 600_000, 600_000)
    assert cfg.origin["session_timeout_ms"] == "log hostA/app.log:1"
    old = Host("hostA/app.log", "c-a")
    old.ev(T0, "join_started", kafka_version_hint="2.8.1")
    assert replay_group(old.events).settings.session_timeout_ms == 10_000
    ancient = Host("hostA/app.log", "c-a")
    ancient.ev(T0, "join_started", kafka_version_hint="0.10.0.1")
    cfg = replay_group(ancient.events).settings
    assert (cfg.max_poll_interval_ms, cfg.rebalance_timeout_ms) == (None, 30_000)
    cfg = replay_group(a.events, ReplaySettings(session_timeout_ms=30_000)).settings
    assert (cfg.session_timeout_ms, cfg.origin["session_timeout_ms"]) == (30_000, "set")


def test_broker_member_metadata_prints_the_session_timeout():
    k = Host("broker1/server.log", side="broker")
    k.ev(T0, "broker_member_removed", member_id="X", reason="left",
         raw="Member MemberMetadata(memberId=X, groupInstanceId=None, clientId=rdkafka, clientHost=/192.0.2.16, "
             "sessionTimeoutMs=30000, rebalanceTimeoutMs=30000, supportedProtocols=List(range)) has left group "
             "payments through explicit `LeaveGroup`; client reason: not provided")
    cfg = replay_group(k.events).settings
    assert (cfg.session_timeout_ms, cfg.rebalance_timeout_ms) == (30_000, 30_000)


def events_frame(events):
    rows = []
    for e in events:
        d = e.to_dict()
        d["extra_json"] = json.dumps(d.pop("extra"))
        rows.append(d)
    return pd.DataFrame(rows, columns=schemas.columns("events"))


def test_frame_bridge_matches_direct_replay_and_fits_arrow():
    events = S.session_expiry_broker()
    frames = replay_group_frame(events_frame(events))
    direct = replay_group(events)
    assert set(frames) == {"generations", "memberships", "ownership", "findings"}
    for name, df in frames.items():
        assert list(df.columns) == schemas.columns(name)
        assert len(df) == len(direct.table(name))
        pa.Table.from_pandas(df, schema=schemas.arrow_schema(name), preserve_index=False)
    g = frames["generations"].set_index("generation")
    assert g.loc[3, "cause"] == "session_expiry" and list(g.loc[3, "members"]) == ["A"]
    assert g.loc[2, "leader"] == "A"    # came through extra_json ({"is_leader": true})


def test_frame_bridge_with_nulls_from_parquet_and_no_rows():
    df = events_frame(S.poll_timeout())
    df = pa.Table.from_pandas(df, schema=schemas.arrow_schema("events"), preserve_index=False).to_pandas()
    frames = replay_group_frame(df)
    assert frames["generations"]["cause"].tolist() == ["member_joined", "member_joined", "poll_timeout"]
    empty = replay_group_frame(df.iloc[0:0])
    assert all(len(f) == 0 and list(f.columns) == schemas.columns(n) for n, f in empty.items())


def test_multi_partition_commit_map_and_dump_member_settings():
    a, d = Host("hostA/app.log", "c-a"), Host("dump/offsets.txt", side="offsets")
    d.ev(T0, "group_metadata_record", generation=4, protocol="range",
         extra={"protocol_type": "consumer", "members": [
             {"member_id": "A", "client_id": "c-a", "host": "/10.0.0.1", "session_timeout_ms": 25000,
              "rebalance_timeout_ms": 120000, "partitions": ["t-0", "t-1"]}]})
    a.ev(T0 + 1_000, "offset_committed", partitions=("t-0", "t-1"), extra={"offsets": {"t-0": 50, "t-1": 70}})
    a.ev(T0 + 9_000, "offset_committed", partitions=("t-0", "t-1"), extra={"offsets": {"t-0": 40, "t-1": 90}})
    r = replay_group(merged(d, a))
    assert (r.settings.session_timeout_ms, r.settings.rebalance_timeout_ms) == (25_000, 120_000)
    (g,) = r.generations
    assert (g["generation"], g["members"], json.loads(g["assignment_json"])) == (4, ["A"], {"A": ["t-0", "t-1"]})
    assert r.memberships[0]["host"] == "/10.0.0.1" and r.memberships[0]["client_id"] == "c-a"
    (rw,) = [f for f in r.findings if f["kind"] == "offset_rewind"]
    assert rw["partitions"] == ["t-0"] and json.loads(rw["details_json"])["from_offset"] == 40
