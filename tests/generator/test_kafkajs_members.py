"""A KafkaJS-only group (pipeline/generator/scenarios.py kafkajs_batch_session_expiry, a variation):
generated in KafkaJS 2.2.4's own JSON console lines, parsed and replayed; its truth comes back:
generations with members and causes (the member whose eachBatch outlasted its 30 s session is
expired by the broker: session_expiry, and the fate text is KafkaJS's, not a GC pause), each member's
library kafkajs with a version hint that admits the truth's version, and no false finding."""

from __future__ import annotations

import json
import os

import pytest

from pipeline.generator.generate import simulate, write_scenario
from pipeline.generator.scenario import ConsumerSpec
from pipeline.generator.scenarios import by_name, variations
from pipeline.replay import replay_group
from tests.generator.folder_events import folder_events

SCENARIO = "kafkajs_batch_session_expiry"


def _admits(hint: str, version: str) -> bool:
    low = tuple(int(x) for x in hint.removeprefix(">=").split("."))
    return hint.startswith(">=") and tuple(int(x) for x in version.split(".")) >= low


def test_kafkajs_group_is_a_variation_only():
    assert SCENARIO in variations() and SCENARIO not in by_name()


def test_kafkajs_lines_are_what_kafkajs_prints(tmp_path):
    folder = str(tmp_path / SCENARIO)
    write_scenario(variations()[SCENARIO], folder)
    lines = open(os.path.join(folder, "ledger-js-2.log"), encoding="utf-8").read().splitlines()
    objs = [json.loads(x) for x in lines]
    # src/loggers/console.js: level, timestamp, logger, message first, then the caller's fields
    assert all(list(o)[:4] == ["level", "timestamp", "logger", "message"] for o in objs)
    joined = [o for o in objs if o["message"] == "[ConsumerGroup] Consumer has joined the group"]
    assert len(joined) == 3  # generations 1, 3 (as a new member) and 4 (after ledger-js-3 stopped)
    assert list(joined[0])[4:] == ["groupId", "memberId", "leaderId", "isLeader", "memberAssignment",
                                   "groupProtocol", "duration"]
    assert joined[0]["groupProtocol"] == "RoundRobinAssigner" and joined[0]["memberId"].startswith("kafkajs-")
    assert joined[0]["memberId"] != joined[1]["memberId"] == joined[2]["memberId"]  # rejoined without its member id
    stopped = [o for o in json.loads("[" + ",".join(open(os.path.join(folder, "ledger-js-3.log"), encoding="utf-8")
                                               .read().splitlines()) + "]") if o["message"] == "[Consumer] Stopped"]
    assert len(stopped) == 1 and stopped[0]["groupId"] == "ledger-sync"
    msgs = [o["message"] for o in objs if o["logger"] == "kafkajs"]
    i = msgs.index("[Connection] Response OffsetCommit(key: 8, version: 5)")
    assert msgs[i + 1] == "[Runner] The coordinator is not aware of this member, re-joining the group"
    assert objs[[o["message"] for o in objs].index(msgs[i])]["error"] == "The coordinator is not aware of this member"
    broker = open(os.path.join(folder, "kafka-1-server.log"), encoding="utf-8").read()
    assert "on heartbeat expiration" in broker
    assert "client reason: need to re-join" not in broker  # JoinGroup v5: KafkaJS sends no reason


def test_kafkajs_group_replays_to_its_truth(tmp_path):
    folder = str(tmp_path / SCENARIO)
    write_scenario(variations()[SCENARIO], folder)
    truth = json.load(open(os.path.join(folder, "truth.json"), encoding="utf-8"))
    evs = folder_events(folder)
    assert [e for e in evs if e.kind == "unparsed"] == []
    client = [e for e in evs if e.side == "client"]
    assert client and {e.client_library for e in client} == {"kafkajs"}

    r = replay_group([e for e in evs if e.group_id == truth["group_id"]])
    mine = {g["generation"]: g for g in r.generations}
    assert sorted(mine) == [g["generation"] for g in truth["generations"]] == [1, 2, 3, 4]
    for g in truth["generations"]:
        m = mine[g["generation"]]
        assert (m["cause"], m["trigger_member"]) == (g["cause"]["kind"], g["cause"]["member_id"]), g["generation"]
        assert m["members"] == sorted(x["member_id"] for x in g["members"])
        assert abs(m["started_ms"] - g["rebalance_started_ms"]) <= 1_500
    assert truth["generations"][3]["cause"]["kind"] == "member_left"  # ledger-js-3 stopped: [Consumer] Stopped
    expired = truth["generations"][1]["cause"]
    assert expired["kind"] == "session_expiry"
    for m in r.table("memberships"):
        assert m["client_library"] == "kafkajs", m
        assert _admits(m["client_version"], "2.2.4"), m
    assert {t["client_version"] for t in truth["members"]} == {"2.2.4"}
    exp = [f for f in r.findings if f["kind"] == "session_expiry"]
    assert [f["members"] for f in exp] == [[expired["member_id"]]]
    assert "KafkaJS sends heartbeats only" in exp[0]["explanation"] and "GC" not in exp[0]["explanation"]
    assert abs(exp[0]["start_ms"] - truth["generations"][1]["rebalance_started_ms"]) <= 1_500
    # the expired member's batch is processed again by the new owners: from its last commit (proven),
    # to an end no line states (estimated)
    rewinds = sorted((f["partitions"][0], json.loads(f["details_json"])) for f in r.findings if f["kind"] == "offset_rewind")
    want = sorted((t["partition"], t["from"], t["knowable"]) for t in truth["reprocessed"])
    assert len(want) == 3 and [(tp, d["from_offset"], bool(d.get("estimated"))) for tp, d in rewinds] == [
        (tp, frm, not (k["from"] and k["to"])) for tp, frm, k in want]
    # nothing false: the zombie's rejected commit is real; no pause, poll timeout or skip is claimed
    kinds = {f["kind"] for f in r.findings}
    assert kinds <= {"session_expiry", "stale_generation_commit", "offset_rewind", "double_ownership"}, kinds
    assert not [g for g in r.generations if g["cause"] in ("poll_timeout", "gc_pause")]


def test_java_and_kafkajs_members_cannot_form_one_group():
    """KafkaJS offers only RoundRobinAssigner, Java's range: the broker would answer
    INCONSISTENT_GROUP_PROTOCOL, so the generator refuses such a scenario rather than invent a group."""
    sc = variations()[SCENARIO]
    sc.consumers = [*sc.consumers[:2], ConsumerSpec(name="ledger-java-1", ip="10.0.5.61", start_ms=4000)]
    with pytest.raises(ValueError, match="no protocol in common"):
        simulate(sc)
