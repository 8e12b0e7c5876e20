"""Arbitrary (valid-typed) events never crash the replay, and its rows always fit the schema."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsers.events import Event, Kind
from pipeline import schemas
from pipeline.replay import replay_group, replay_group_frame

KINDS = [k.value for k in Kind] + ["process_gone", "something_new"]
small = st.one_of(st.none(), st.integers(min_value=-2, max_value=6))
names = st.one_of(st.none(), st.sampled_from(["A", "B", "C", "c-a", "inst-1"]))
sources = st.sampled_from(["h1.log", "h2.log", "broker.log", "dump.txt"])
raws = st.one_of(
    st.text(max_size=30),
    st.sampled_from([
        "Preparing to rebalance group g in state PreparingRebalance with old generation 2 (__consumer_offsets-1) "
        "(reason: removing member A on heartbeat expiration)",
        "Stabilized group g generation 3 (__consumer_offsets-1) with 2 members",
        "Assignment received from leader A for group g for generation 3",
        "Static member inst-1 of group g with unknown member id rejoins, assigning new member id B, while old "
        "member id A will be removed.",
        "\tsession.timeout.ms = 10000",
    ]))


@st.composite
def events(draw):
    kind = draw(st.sampled_from(KINDS))
    side = draw(st.sampled_from(["client", "broker", "offsets", "describe"]))
    parts = draw(st.one_of(st.none(), st.lists(st.sampled_from(["t-0", "t-1", "t-x", "u-2"]), max_size=3)))
    extra = draw(st.sampled_from([{}, {"is_leader": True}, {"assignments": {"A": ["t-0"], "B": ["t-1"]}},
                                  {"offsets": {"t-0": 5, "t-1": 7}}, {"members": [{"member_id": "A"}, "B"]},
                                  {"coordinator_id": 2147483646}, {"epoch": 3}]))
    return Event(
        source=draw(sources), line_no=draw(st.integers(min_value=1, max_value=40)), side=side, kind=kind,
        raw=draw(raws), ts_ms=draw(st.one_of(st.none(), st.integers(min_value=0, max_value=200_000))),
        group_id="g", client_id=draw(names), member_id=draw(names), instance_id=draw(names),
        generation=draw(small), protocol=draw(st.sampled_from([None, "range", "cooperative-sticky"])),
        partitions=tuple(parts) if parts is not None else None, coordinator=draw(st.sampled_from([None, "1", "2"])),
        reason=draw(st.sampled_from([None, "the consumer is being closed", "consumer poll timeout has expired.",
                                     "cached metadata has changed", "failed"])),
        error=draw(st.sampled_from([None, "REBALANCE_IN_PROGRESS", "UNKNOWN_MEMBER_ID", "FENCED_INSTANCE_ID",
                                    "INCONSISTENT_GROUP_PROTOCOL", "ILLEGAL_GENERATION"])),
        topic=draw(st.sampled_from([None, "t"])), partition=draw(small), offset=draw(small),
        extra=extra)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(events(), max_size=40))
def test_any_events_replay_without_crashing(evs):
    r = replay_group(evs)
    for name in ("generations", "memberships", "ownership", "findings"):
        for row in r.table(name):
            assert list(row) == schemas.columns(name)
            for col, typ in schemas.TABLES[name]:
                v = row[col]
                if v is None:
                    continue
                if typ == "array<string>":
                    assert isinstance(v, list) and all(isinstance(x, str) for x in v), (name, col, v)
                elif typ in ("bigint", "int"):
                    assert isinstance(v, int) and not isinstance(v, bool), (name, col, v)
                elif typ == "boolean":
                    assert isinstance(v, bool), (name, col, v)
                elif typ == "string":
                    assert isinstance(v, str), (name, col, v)
    for f in r.findings:
        json.loads(f["details_json"])
        assert f["severity"] in schemas.SEVERITIES and f["evidence"]


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(events(), max_size=25))
def test_any_events_through_the_frame_bridge(evs):
    import pandas as pd
    import pyarrow as pa

    rows = []
    for e in evs:
        d = e.to_dict()
        d["extra_json"] = json.dumps(d.pop("extra"))
        rows.append(d)
    frames = replay_group_frame(pd.DataFrame(rows, columns=schemas.columns("events")))
    for name, df in frames.items():
        pa.Table.from_pandas(df, schema=schemas.arrow_schema(name), preserve_index=False)
