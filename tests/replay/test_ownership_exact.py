"""Who owned which partition when, stated exactly (pipeline/replay_rules/ownership.py).

The ownership table answers "who owned orders-7 at 02:13:05?" and feeds the double-ownership and
unowned-partition findings. These tests state it against facts, in both directions (every owner of
the truth found, nothing else stated), with times:

- every classic sample scenario (sample_logs/*/truth.json, "ownership"): from all its logs, each
  truth interval is found once with its member, generation, start and end (in the host's own clock:
  the truth's time plus the host's clock_skew_ms, as the logs print it), and no other interval; a
  crashed owner's end is the coordinator's removal of it (its session expiry), an owner still
  holding at the end of the story ends at the logs' end;
- from the broker's log and the dump alone (no member callbacks): each member owns its generation's
  assignment from the generation's Stable until the next rebalance began (eager), across rebalances
  while it keeps the partition (cooperative-sticky), until its expiry, or, for a static member
  replaced by its restart (KIP-345), until the replacement, from which its new id owns it;
- hand-built event sequences for the edges the samples do not reach: the clock-skew tolerance of a
  double ownership and the threshold of an unowned partition, both sides of each edge; a process
  that stopped logging and restarted; topic ids of KIP-848 broker lines.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.replay import replay_group
from pipeline.replay_rules import ownership as own
from pipeline.replay_rules.state import Interval
from tests.replay.builders import Host, merged
from tests.replay.scenarios import T0
from tests.replay.test_sample_properties import SCENARIOS, _events


def _replayed(scenario: str, sides: tuple[str, ...] | None = None):
    """The scenario's replay, computed afresh (the parse is cached): a replay cached across tests
    would hide a changed ownership rule from a mutation run, which forks each mutant's tests from a
    process that has already run them (test_sample_properties' _replayed is cached)."""
    events, truth = _events(scenario)
    if sides is not None:
        events = tuple(e for e in events if e.side in sides)
    return replay_group(list(events)), events, truth


# the logs print a revocation a few ms after the truth's time; a member's leave is ended at the
# broker's removal line, on the broker's clock, up to ~225 ms before the client's skewed revocation
# (rolling_deploy, scale_in_roundrobin); any wrong interval is seconds or generations off
TOL_MS = 250


def _same_member(mine: str, truth_iv: dict) -> bool:
    # a pre-1.0 client names no member id: the replay names the member by its log file (host)
    if mine.startswith("consumer@"):
        return Path(mine.split("@", 1)[1].split("#")[0]).stem == truth_iv["host"]
    return mine == truth_iv["member_id"]


def _expiry_ms(truth: dict, member_id: str) -> int:
    (t,) = [g["rebalance_started_ms"] for g in truth["generations"]
            if g["cause"]["kind"] == "session_expiry" and g["cause"].get("member_id") == member_id]
    return t


def _file_of(evidence: str) -> str:
    return Path(evidence.rsplit(":", 1)[0]).name


def _by_partition(r) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for o in r.ownership:
        out.setdefault(f"{o['topic']}-{o['partition']}", []).append(o)
    return {tp: sorted(ivs, key=lambda o: o["start_ms"]) for tp, ivs in out.items()}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_owner_of_the_truth_is_found_with_its_times_from_all_logs(scenario):
    r, _events, truth = _replayed(scenario)
    mine = _by_partition(r)
    client_of = {m["member_id"]: m["client_id"] for m in truth["members"]}
    assert sorted(mine) == sorted(truth["ownership"])          # no partition missed, none made up
    for tp, ivs in truth["ownership"].items():
        got = mine[tp]
        assert len(got) == len(ivs), (tp, [(o["member_id"], o["generation"]) for o in got])
        for o, t in zip(got, ivs, strict=True):
            skew = truth["hosts"].get(t["host"], {}).get("clock_skew_ms", 0)
            assert _same_member(o["member_id"], t) and o["generation"] == t["generation"], (tp, o, t)
            assert abs(o["start_ms"] - (t["from_ms"] + skew)) <= TOL_MS, (tp, o, t)
            if t["end"] is None:                                # still the owner when the story ends
                assert o["end_reason"] == "log_end", (tp, o)
            elif t["end"] == "crash":                           # owned until the coordinator removed it
                assert o["end_reason"] == "session_expiry", (tp, o)
                assert abs(o["end_ms"] - _expiry_ms(truth, t["member_id"])) <= TOL_MS, (tp, o, t)
            else:
                assert o["end_reason"] == t["end"] or (o["end_reason"], t["end"]) == ("left", "revoked"), (tp, o, t)
                assert abs(o["end_ms"] - (t["to_ms"] + skew)) <= TOL_MS, (tp, o, t)
            # the member's client id, and its own log's line as the first evidence
            # (librdkafka logs its handle's name, client.id + "#consumer-N"; a 0.9-0.11 client's lines
            # carry no client id)
            cid = o["client_id"]
            if o["member_id"].startswith("consumer@"):
                assert cid is None, (tp, o)
            else:
                assert cid == client_of[t["member_id"]] or cid.startswith(client_of[t["member_id"]] + "#consumer-"), o
            assert Path(_file_of(o["evidence"][0])).stem == t["host"], (tp, o)
            # every owner's own log shows its callbacks: nothing is the replay's inference
            assert o["inferred"] is False, (tp, o)
            # an owner the coordinator removed: the broker's line removing that member ends it (a
            # 0.9-0.10 broker names no member: its rebalance's line without that member's rejoin)
            if o["end_reason"] == "session_expiry":
                path, line_no = o["evidence"][-1].rsplit(":", 1)
                text = Path(path).read_text().splitlines()[int(line_no) - 1]
                assert "server.log" in path, o
                if not o["member_id"].startswith("consumer@"):
                    assert o["member_id"] in text and "removing it from the group" in text, (o, text)


def _log_end(events) -> int:
    return max(e.ts_ms for e in events if e.ts_ms is not None)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_an_owner_still_holding_at_the_end_ends_at_the_last_line_of_the_logs(scenario):
    r, events, truth = _replayed(scenario)
    open_ = {(tp, t["generation"]) for tp, ivs in truth["ownership"].items() for t in ivs if t["end"] is None}
    ends = {(f"{o['topic']}-{o['partition']}", o["generation"]): (o["end_ms"], o["end_reason"]) for o in r.ownership
            if o["end_reason"] == "log_end"}
    assert set(ends) == open_
    assert set(ends.values()) <= {(_log_end(events), "log_end")}


BROKER_SIDES = ("broker", "offsets", "describe")


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_owner_of_the_truth_is_found_from_the_broker_log_and_dump_alone(scenario):
    r, events, truth = _replayed(scenario, BROKER_SIDES)
    if not r.ownership:
        # a 0.10 broker or a dump without the group's metadata records: no assignment to read
        assert scenario in {"rebalance_storm", "rolling_deploy", "scale_in_roundrobin"}
        return
    gens = {g["generation"]: g for g in truth["generations"]}
    later = {g: [x for x in truth["generations"] if x["generation"] > g] for g in gens}
    mine = sorted((f"{o['topic']}-{o['partition']}", o["member_id"], o["generation"], o["start_ms"], o["end_ms"],
                   o["end_reason"]) for o in r.ownership)
    want = sorted((tp, t["member_id"], t["generation"]) for tp, ivs in truth["ownership"].items() for t in ivs)
    assert [m[:3] for m in mine] == want
    left_ms = {m["member_id"]: m["left_ms"] for m in truth["members"]}
    client_of = {m["member_id"]: m["client_id"] for m in truth["members"]}
    # the client ids the broker's log or the dump name (a dump's group metadata record lists each
    # member's clientId, GroupMetadataManager's value schema v1+)
    named = {e.member_id: e.client_id for e in events if e.side in ("broker", "offsets") and e.member_id and e.client_id}
    # ... and a dump's group metadata record names each member's clientId beside its memberId
    records = [e.raw.replace(" ", "") for e in events if e.side == "offsets" and '"members"' in e.raw]
    for mid, cid in client_of.items():
        if any(re.search(f'"memberId":"{re.escape(mid)}"[^}}]*?"clientId":"{re.escape(cid)}"', x) for x in records):
            named.setdefault(mid, cid)
    for o in r.ownership:
        # a client id only where a broker line or dump record names it, then the member's own
        assert o["client_id"] in (None, client_of[o["member_id"]]), o
        if o["member_id"] in named:
            assert o["client_id"] == named[o["member_id"]] == client_of[o["member_id"]], o
        # no member's own log is read here: every interval is the replay's inference
        assert o["inferred"] is True, o
        # the assignment's record (dump) or broker line first; the broker's line ending it last
        assert _file_of(o["evidence"][0]) == "consumer-offsets-dump.txt" or "server.log" in o["evidence"][0], o
        if o["end_reason"] not in ("log_end",):
            assert "server.log" in o["evidence"][-1], o
    replaced_at, replaced = {}, {}
    for tp, old_id, gen, _start, end, reason in mine:
        if reason == "fenced":     # a static member replaced by its own restart (KIP-345): its new id takes over
            replaced_at[(tp, gen)] = end
            replaced[(tp, gen)] = old_id
    for tp, mid, gen, start, end, reason in mine:
        g = gens[gen]
        if (tp, gen) in replaced_at and reason != "fenced":
            assert start == replaced_at[(tp, gen)], (tp, mid)        # the heir, from the replacement on
            # ... evidenced by the broker's line of that replacement (GroupCoordinator 2.3+)
            (o,) = [o for o in r.ownership if (f"{o['topic']}-{o['partition']}", o["member_id"], o["generation"])
                    == (tp, mid, gen)]
            path, line_no = o["evidence"][0].rsplit(":", 1)
            text = Path(path).read_text().splitlines()[int(line_no) - 1]
            assert "Static member" in text and f"Replacing previously mapped member {replaced[(tp, gen)]} " in text
            assert o["client_id"] == client_of[mid], o
        else:
            assert abs(start - g["stabilized_ms"]) <= 50, (tp, mid, gen)
            # the first evidence states the assignment: the generation's record naming the member, or
            # the broker's line naming it
            (o,) = [o for o in r.ownership if (f"{o['topic']}-{o['partition']}", o["member_id"], o["generation"])
                    == (tp, mid, gen)]
            path, line_no = o["evidence"][0].rsplit(":", 1)
            text = Path(path).read_text().splitlines()[int(line_no) - 1]
            assert mid in text, (tp, mid, gen, text)
            if "group_metadata" in text or '"type":"2"' in text:
                flat = text.replace(" ", "")
                assert f'"generation":{gen},' in flat or f'"generationId":{gen},' in flat, (tp, mid, gen, text)
        (t,) = [t for t in truth["ownership"][tp] if t["member_id"] == mid and t["generation"] == gen]
        assert (reason == "log_end") == (t["end"] is None), (tp, mid, gen, reason)
        if reason == "log_end":
            assert end == _log_end(events), (tp, mid)
        elif reason == "session_expiry":
            assert abs(end - _expiry_ms(truth, mid)) <= 50, (tp, mid)
        elif reason == "fenced":
            assert later[gen] and end < later[gen][0]["rebalance_started_ms"], (tp, mid)
        elif reason == "rebalance":   # eager, or a cooperative member losing it: until the next rebalance began
            assert abs(end - later[gen][0]["rebalance_started_ms"]) <= 50, (tp, mid, gen)
        else:   # its own leave (the broker's removal, with the reason the broker printed)
            assert reason in ("shutdown", "poll_timeout", "left"), (tp, mid, reason)
            assert abs(end - left_ms[mid]) <= 50, (tp, mid, gen)


# --- the two findings' edges, on intervals (ownership.double_ownership / ownership.unowned) ---

CFG = type("Cfg", (), {"skew_tolerance_ms": 2_000, "unowned_threshold_ms": 60_000})()


def iv(member, start, end, gen=1, tp="t-0") -> Interval:
    return Interval(tp, member, None, gen, start, f"{member}.log:{start}", end, "revoked" if end else None)


def parts(*ivs: Interval) -> dict[str, list[Interval]]:
    st = type("St", (), {"intervals": list(ivs)})()
    return own.by_partition(st)


def test_an_overlap_longer_than_the_clock_skew_tolerance_is_double_ownership_and_no_shorter_one():
    # A holds t-0 until 10.000 s; B was assigned it 2.001 s earlier: both held it for 2.001 s
    a, b = iv("A", 0, 10_000), iv("B", 7_999, 20_000, gen=2)
    assert own.double_ownership(parts(a, b), CFG) == [("t-0", a, b, 7_999, 10_000)]
    # 2.000 s is within the tolerance: two hosts' clocks may be that far apart
    assert own.double_ownership(parts(iv("A", 0, 10_000), iv("B", 8_000, 20_000, gen=2)), CFG) == []
    # the tolerance is the setting's, not a constant
    wide = type("Cfg", (), {"skew_tolerance_ms": 2_001, "unowned_threshold_ms": 60_000})()
    assert own.double_ownership(parts(iv("A", 0, 10_000), iv("B", 7_999, 20_000, gen=2)), wide) == []


def test_double_ownership_is_measured_against_the_owner_that_reaches_furthest():
    # A holds t-0 for 100 s; B holds it 10-20 s (overlap 10 s), C 30-40 s: C overlaps A, not B
    a, b, c = iv("A", 0, 100_000), iv("B", 10_000, 20_000, gen=2), iv("C", 30_000, 40_000, gen=3)
    assert own.double_ownership(parts(c, b, a), CFG) == [("t-0", a, b, 10_000, 20_000), ("t-0", a, c, 30_000, 40_000)]
    # an owner still holding (no end) overlaps up to the later one's end
    a, b = iv("A", 0, None), iv("B", 50_000, 60_000, gen=2)
    assert own.double_ownership(parts(a, b), CFG) == [("t-0", a, b, 50_000, 60_000)]
    # one member's own consecutive intervals are no double ownership, whatever their overlap
    assert own.double_ownership(parts(iv("A", 0, 10_000), iv("A", 5_000, 20_000, gen=2)), CFG) == []
    # other partitions are measured apart
    assert own.double_ownership(parts(iv("A", 0, 10_000), iv("B", 5_000, 20_000, gen=2, tp="t-1")), CFG) == []


def test_a_partition_without_owner_longer_than_the_threshold_is_reported_and_no_shorter_gap():
    a, b = iv("A", 0, 10_000), iv("B", 70_001, 80_000, gen=2)
    assert own.unowned(parts(a, b), CFG) == [("t-0", a, b, 60_001)]
    assert own.unowned(parts(iv("A", 0, 10_000), iv("B", 70_000, 80_000, gen=2)), CFG) == []
    narrow = type("Cfg", (), {"skew_tolerance_ms": 2_000, "unowned_threshold_ms": 59_999})()
    assert own.unowned(parts(iv("A", 0, 10_000), iv("B", 70_000, 80_000, gen=2)), narrow) != []


def test_a_gap_is_measured_from_the_owner_that_reached_furthest():
    # A held t-0 to 10 s, B (overlapping it) to 50 s; C got it at 110.001 s: unowned 60.001 s after B
    a, b, c = iv("A", 0, 10_000), iv("B", 1_000, 50_000, gen=2), iv("C", 110_001, 120_000, gen=3)
    assert own.unowned(parts(a, b, c), CFG) == [("t-0", b, c, 60_001)]
    # an earlier owner reaching past a later short one still counts: no gap
    a, b, c = iv("A", 0, 100_000), iv("B", 1_000, 2_000, gen=2), iv("C", 90_000, 120_000, gen=3)
    assert own.unowned(parts(a, b, c), CFG) == []
    # an owner without an end owns it to the end: nothing after it is a gap
    assert own.unowned(parts(iv("A", 0, None), iv("B", 500_000, 600_000, gen=2)), CFG) == []


def test_intervals_of_a_partition_are_ordered_by_start_then_end():
    a, b, c = iv("A", 5_000, 9_000), iv("B", 1_000, None), iv("C", 1_000, 3_000)
    assert own.by_partition(type("St", (), {"intervals": [a, b, c]})()) == {"t-0": [c, b, a]}


def test_topic_and_partition_of_a_row():
    assert own.split("orders-7") == ("orders", 7)
    assert own.split("my-topic-12") == ("my-topic", 12)
    assert own.split("weird") == ("weird", None)
    assert own.split("t-x") == ("t-x", None)
    assert own.split("-3") == ("-3", None)


# --- a process that stopped, woke up and was restarted (ownership.close_open) ---


def _zombie_then_restart(wake_ms: int):
    """B (t-2, t-3, generation 2) stops heartbeating after T0+21 s (a stall); A notices the rebalance
    at T0+67 s and takes everything in generation 3 (B expired); B's old process logs one more line
    at `wake_ms` (its commit rejected: UNKNOWN_MEMBER_ID), then B is restarted (a new process: a join
    without member id) and the group rebalances into generation 4."""
    from tests.replay.scenarios import stable_pair

    a, b = Host("hostA/app.log", "c-a"), Host("hostB/app.log", "c-b")
    stable_pair(a, b)
    b.heartbeats(T0 + 12_000, T0 + 21_000)
    a.heartbeats(T0 + 12_000, T0 + 66_000)
    a.ev(T0 + 67_000, "heartbeat_failed", error="REBALANCE_IN_PROGRESS")
    a.revoke(T0 + 67_010, ["t-0", "t-1"])
    a.join(T0 + 67_020, 3, "A", ["t-0", "t-1", "t-2", "t-3"])
    b.ev(wake_ms, "offset_commit_failed", error="UNKNOWN_MEMBER_ID")
    a.revoke(T0 + 100_000, ["t-0", "t-1", "t-2", "t-3"])
    a.join(T0 + 100_010, 4, "A", ["t-0", "t-1"])
    b.join(T0 + 100_000, 4, "B2", ["t-2", "t-3"])
    return replay_group(merged(a, b))


def _rows(r, member):
    return sorted((o["partition"], o["generation"], o["start_ms"] - T0, o["end_ms"] - T0, o["end_reason"])
                  for o in r.ownership if o["member_id"] == member)


def test_a_stalled_process_that_logs_again_after_the_group_moved_on_held_its_partitions_until_then():
    # B's last line (T0+90 s) comes after generation 3 formed without it (its rebalance began at
    # T0+67 s, when A's heartbeat was answered REBALANCE_IN_PROGRESS): B held t-2 and t-3 until then, not
    # until its last line; so nobody held them twice
    r = _zombie_then_restart(T0 + 90_000)
    assert _rows(r, "B") == [(2, 2, 11_080, 67_000, "process_gone"), (3, 2, 11_080, 67_000, "process_gone")]
    assert _rows(r, "A")[:3] == [(0, 1, 160, 10_500, "revoked"), (0, 2, 11_070, 67_010, "revoked"),
                                 (0, 3, 67_180, 100_000, "revoked")]
    assert [(o["start_ms"] - T0, o["end_ms"] - T0) for o in r.ownership
            if o["member_id"] == "A" and o["partition"] == 2] == [(160, 10_500), (67_180, 100_000)]
    assert [f["kind"] for f in r.findings if f["kind"] == "double_ownership"] == []


def test_a_stalled_process_silent_after_its_last_line_held_its_partitions_until_its_expiry():
    # B's last line with the group is its heartbeat at T0+21 s (a rejected commit is no sign of life):
    # the coordinator expired it session.timeout.ms (45 s, 3.x default) later, at T0+66 s; its
    # partitions were its own until then, not until its last line
    r = _zombie_then_restart(T0 + 22_000)
    assert _rows(r, "B") == [(2, 2, 11_080, 66_000, "session_expiry"), (3, 2, 11_080, 66_000, "session_expiry")]
    assert [(f["kind"], f["start_ms"] - T0, f["members"]) for f in r.findings if f["kind"] == "session_expiry"] == [
        ("session_expiry", 66_000, ["B"])]
    assert [f for f in r.findings if f["kind"] in ("double_ownership", "unowned_partitions")] == []


def _row_map(r, members=None):
    return {(o["topic"], o["partition"], o["member_id"], o["generation"]): (o["start_ms"], o["end_ms"], o["end_reason"])
            for o in r.ownership if members is None or o["member_id"] in members}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_with_one_members_log_beside_the_broker_log_and_dump_each_owner_is_read_from_the_best_source(scenario):
    # one client log, the broker's log and the dump: the logged member's intervals are its callbacks'
    # (as with every log), every other member's its assignment's (as from the broker alone), and
    # together they are the truth's owners, none missing, none made up
    events, truth = _events(scenario)
    broker_only = replay_group([e for e in events if e.side != "client"])
    if not broker_only.ownership:
        return      # (no assignment in the broker's log or dump: see the broker-alone test)
    every_log = replay_group(list(events))
    want = sorted((tp.rpartition("-")[0], int(tp.rpartition("-")[2]), t["member_id"], t["generation"])
                  for tp, ivs in truth["ownership"].items() for t in ivs)
    for host in sorted(truth["hosts"]):
        kept = [e for e in events if e.side != "client" or Path(e.source).stem == host]
        if len(kept) == len(events) - sum(e.side == "client" for e in events):
            continue    # (a host whose log is not in the scenario)
        r = replay_group(kept)
        assert sorted(_row_map(r)) == want, host
        end = max(e.ts_ms for e in kept if e.ts_ms is not None)
        logged = {m["member_id"] for m in truth["members"] if m["host"] == host}
        others = {m["member_id"] for m in truth["members"]} - logged

        def at_end(rows, end=end):
            return {k: (s, end if why == "log_end" else e, why) for k, (s, e, why) in rows.items()}

        assert _row_map(r, others) == at_end(_row_map(broker_only, others)), host
        assert _row_map(r, logged) == at_end(_row_map(every_log, logged)), host


# --- KIP-848 broker lines name partitions by topic id (ownership.name_topic_ids) ---

TID = "QLf_qZOk435wgRGI1zzedA"      # a topic id as GroupMetadataManager (3.8+ DEBUG) prints it


def _state(*assignments):
    from types import SimpleNamespace as NS

    members = {f"m{i}": NS(assigned=list(a)) for i, a in enumerate(assignments)}
    return NS(gens={1: NS(members=members)}), members


def test_one_topic_id_and_one_topic_name_are_the_same_topic():
    st, m = _state(["my-topic-0", "my-topic-1"], [f"{TID}-2", f"{TID}-0"], [])
    own.name_topic_ids(st)
    assert [x.assigned for x in m.values()] == [["my-topic-0", "my-topic-1"], ["my-topic-0", "my-topic-2"], []]


@pytest.mark.parametrize("assignments", [
    (["orders-0"], ["payments-1"], [f"{TID}-2"]),                    # two names: which one is the id's?
    (["orders-0"], [f"{TID}-2", "ZZf_qZOk435wgRGI1zzedA-1"]),        # two ids
    (["orders-0"], ["orders-1"]),                                    # no id
    ([f"{TID}-2"],),                                                 # no name
], ids=["two-names", "two-ids", "no-id", "no-name"])
def test_topic_ids_are_left_as_they_are_unless_one_name_meets_one_id(assignments):
    st, m = _state(*assignments)
    own.name_topic_ids(st)
    assert [x.assigned for x in m.values()] == [list(a) for a in assignments]


def test_a_topic_id_holding_a_hyphen_is_named_whole():
    # Uuid.toString is URL-safe base64 without padding (clients' org.apache.kafka.common.Uuid, 2.8+):
    # "-" and "_" are digits of it, so the id is everything before the last "-", not the first
    tid = "QLf_qZOk-35wgRGI1zzedA"
    st, m = _state(["my-topic-0"], [f"{tid}-2", f"{tid}-1"])
    own.name_topic_ids(st)
    assert [x.assigned for x in m.values()] == [["my-topic-0"], ["my-topic-1", "my-topic-2"]]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_crashed_owner_from_its_own_log_beside_the_brokers_ends_by_its_expiry(scenario):
    # Only the crashed member's log beside the broker's log and dump: each interval the truth ends
    # with the crash is found once, from its start, and ends between the process's last line before
    # the crash (it held the partition then) and the coordinator's expiry of it (it held nothing
    # after). A 0.10 broker names no member of a generation, and the restarted process's first lines
    # follow the crash in the same file: the old process's partitions end when the generation
    # without it began (the rebalance its expiry started), not at the new process's lines (main at
    # 566cbc3: 5.9-6.6 s after the expiry, 8 intervals of sample rebalance_storm).
    events, truth = _events(scenario)
    crashed = {t["host"] for ivs in truth["ownership"].values() for t in ivs if t["end"] == "crash"}
    for host in sorted(crashed):
        kept = [e for e in events if e.side != "client" or Path(e.source).stem == host]
        own_lines = sorted(e.ts_ms for e in kept if e.side == "client" and e.ts_ms is not None)
        r = replay_group(kept)
        skew = truth["hosts"][host].get("clock_skew_ms", 0)
        for tp, ivs in truth["ownership"].items():
            for t in (t for t in ivs if t["host"] == host and t["end"] == "crash"):
                got = [o for o in r.ownership if f"{o['topic']}-{o['partition']}" == tp
                       and o["generation"] == t["generation"]]
                assert len(got) == 1 and _same_member(got[0]["member_id"], t), (host, tp, t, got)
                o = got[0]
                assert abs(o["start_ms"] - (t["from_ms"] + skew)) <= TOL_MS, (host, tp, o, t)
                alive = max(x for x in own_lines if x <= t["to_ms"] + skew)
                assert alive <= o["end_ms"] <= _expiry_ms(truth, t["member_id"]) + TOL_MS, (host, tp, o, t, alive)
                assert o["end_reason"] in ("session_expiry", "process_gone"), o
