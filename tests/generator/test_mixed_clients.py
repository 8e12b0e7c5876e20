"""A group of Java, kafka-python 2.3.0 and confluent-kafka-python (librdkafka 2.3.0) members
(pipeline/generator/scenarios.py mixed_clients_kafka_python, a variation): generated, parsed and
replayed, its truth comes back exactly: generations with members and causes (the kafka-python
member's poll-timeout leave carries no reason; its own log says why), each member's client library
and version from its own lines, every client line read by its own client's rules, and the offset
ranges processed twice (estimated where no line states a bound)."""

from __future__ import annotations

import json
import os

from pipeline.generator.generate import write_scenario
from pipeline.generator.scenarios import variations
from pipeline.replay import replay_group
from tests.generator.folder_events import folder_events

SCENARIO = "mixed_clients_kafka_python"


def test_mixed_java_kafka_python_librdkafka_group_equals_truth(tmp_path):
    folder = str(tmp_path / SCENARIO)
    write_scenario(variations()[SCENARIO], folder)
    truth = json.load(open(os.path.join(folder, "truth.json"), encoding="utf-8"))
    evs = folder_events(folder)
    assert [e for e in evs if e.kind == "unparsed"] == []
    by_file = {}
    for e in evs:
        by_file.setdefault(os.path.basename(e.source), set()).add(e.client_library)
    assert by_file["geo-kp-1.log"] == {"kafka-python"} and by_file["geo-kp-2.log"] == {"kafka-python"}
    assert by_file["geo-ckp-1.log"] == {"librdkafka"} and by_file["geo-java-1.log"] == {None}

    r = replay_group([e for e in evs if e.group_id == truth["group_id"]])
    mine = {g["generation"]: g for g in r.generations}
    assert sorted(mine) == [g["generation"] for g in truth["generations"]] == [1, 2, 3, 4, 5]
    for g in truth["generations"]:
        m = mine[g["generation"]]
        assert (m["cause"], m["trigger_member"]) == (g["cause"]["kind"], g["cause"]["member_id"]), g["generation"]
        assert m["members"] == sorted(x["member_id"] for x in g["members"])
        assert abs(m["started_ms"] - g["rebalance_started_ms"]) <= 1_500
    assert mine[2]["cause"] == "poll_timeout" and "heartbeat thread" in mine[2]["cause_detail"]
    libs = {(m["member_id"], m["client_library"], m["client_version"]) for m in r.table("memberships")}
    assert libs == {(m["member_id"], m["client_library"], m["client_version"] if m["client_library"] != "java" else None)
                    for m in truth["members"]}
    # offset ranges processed twice: the proven bound exact, the other estimated, nothing else
    rewinds = sorted((f["partitions"][0], json.loads(f["details_json"])) for f in r.findings if f["kind"] == "offset_rewind")
    want = sorted((t["partition"], t["from"], t["knowable"]) for t in truth["reprocessed"])
    assert [(tp, d["from_offset"], bool(d.get("estimated"))) for tp, d in rewinds] == [
        (tp, frm, not (k["from"] and k["to"])) for tp, frm, k in want]
    assert not [f for f in r.findings if f["kind"] in ("double_ownership", "unexplained", "offset_skip")]
