"""What each named scenario must show, checked on its truth.json and on the rendered files."""

from __future__ import annotations

import json
from collections import Counter


def truth(generated, name):
    return json.loads((generated[name] / "truth.json").read_text(encoding="utf-8"))


def text(generated, name, file):
    return (generated[name] / file).read_text(encoding="utf-8")


def causes(t):
    return [g["cause"]["kind"] for g in t["generations"]]


def test_every_stable_generation_assigns_each_partition_once(generated):
    for name in generated:
        t = truth(generated, name)
        for g in t["generations"]:
            if not g["members"] or g["stabilized_ms"] is None:
                continue
            parts = [p for ps in g["assignment"].values() for p in ps]
            assert len(parts) == len(set(parts)), (name, g["generation"])
            assert set(g["assignment"]) == {m["member_id"] for m in g["members"]}, (name, g["generation"])
            assert g["leader"] in g["assignment"], (name, g["generation"])


def test_healthy_scale_out(generated):
    t = truth(generated, "healthy_scale_out")
    assert causes(t) == ["member_joined"] * 3
    last = t["generations"][-1]
    assert sorted(len(p) for p in last["assignment"].values()) == [2, 2, 2, 2]
    assert t["skipped"] == [] and t["reprocessed"] == []


def test_rolling_deploy(generated):
    t = truth(generated, "rolling_deploy")
    assert causes(t) == ["member_joined"] + ["member_left", "member_joined"] * 4
    left = [m for m in t["members"] if m["leave"]]
    assert len(left) == 4 and all(m["leave"] == {"why": "leave_group", "reason": "the consumer is being closed",
                                                  "client_side": "closed gracefully (LeaveGroup)"} for m in left)
    log = text(generated, "rolling_deploy", "billing-worker-2.log")
    assert "sending LeaveGroup request to coordinator" in log and " INFO " in log and "--- [" in log


def test_poll_timeout(generated):
    t = truth(generated, "poll_timeout_slow_processing")
    assert causes(t) == ["member_joined", "poll_timeout", "member_joined"]
    slow = [m for m in t["members"] if m["host"] == "fraud-scorer-2" and m["leave"]]
    assert slow[0]["leave"]["why"] == "leave_group"
    assert slow[0]["leave"]["reason"] == "consumer poll timeout has expired."
    assert "max.poll.interval.ms" in slow[0]["leave"]["client_side"]
    assert t["reprocessed"], "the partitions taken from the slow member are re-read from the last commit"
    recs = [json.loads(line) for line in text(generated, "poll_timeout_slow_processing", "fraud-scorer-2.json").splitlines()]
    assert any(r["message"].endswith("with max.poll.records.") and r["level"] == "WARN" for r in recs)
    assert any("CommitFailedException" in r.get("stack_trace", "") for r in recs)


def test_gc_pause_session_expiry(generated):
    t = truth(generated, "gc_pause_session_expiry")
    assert causes(t) == ["member_joined", "session_expiry", "member_joined"]
    expired = [m for m in t["members"] if m["leave"] and m["leave"]["why"] == "session_expiry"]
    assert [m["host"] for m in expired] == ["inventory-sync-3"]
    assert expired[0]["leave"]["client_side"] == "process paused (GC) past session.timeout.ms"
    gen2 = t["generations"][1]
    assert gen2["cause"]["member_id"] == expired[0]["member_id"]
    # the paused member still believed it owned its partitions after the broker gave them away
    own = [o for ps in t["ownership"].values() for o in ps if o["member_id"] == expired[0]["member_id"]]
    assert own and all(o["to_ms"] > gen2["stabilized_ms"] for o in own)
    log = text(generated, "gc_pause_session_expiry", "inventory-sync-3.log")
    assert "failed due to UNKNOWN_MEMBER_ID, resetting generation" in log


def test_rebalance_storm(generated):
    t = truth(generated, "rebalance_storm")
    c = Counter(causes(t))
    assert len(t["generations"]) >= 15 and c["session_expiry"] == 7
    crashed = [m for m in t["members"] if m["leave"] and m["leave"]["client_side"] == "process crashed (no LeaveGroup)"]
    assert len(crashed) == 7 and {m["leave"]["why"] for m in crashed} == {"session_expiry"}
    server = text(generated, "rebalance_storm", "kafka-1-server.log")
    assert server.count("Preparing to restabilize group search-indexer") == len(t["generations"])
    assert "(kafka.coordinator.GroupCoordinator)" in server  # 0.10 logger name


def test_coordinator_failover(generated):
    t = truth(generated, "coordinator_failover")
    assert [c["broker"] for c in t["coordinators"]] == [1, 3]
    assert causes(t) == ["member_joined", "member_joined"]  # the failover itself does not rebalance
    assert "Elected as the group coordinator for partition" in text(generated, "coordinator_failover", "kafka-3-server.log")
    assert "Resigned as the group coordinator" in text(generated, "coordinator_failover", "kafka-1-server.log")
    client = text(generated, "coordinator_failover", "shipping-router-1.log")
    assert "error response NOT_COORDINATOR. isDisconnected: false" in client
    assert "(org.apache.kafka.clients.consumer.internals.ConsumerUtils)" in client  # 4.x wording


def test_offset_reset_skip_and_rewind(generated):
    t = truth(generated, "offset_reset_skip_and_rewind")
    new_parts = {s["partition"] for s in t["skipped"] if s["from"] == 0}
    assert new_parts == {"ledger-6", "ledger-7"}
    assert any("admin reset" in s["cause"] for s in t["skipped"])
    assert any("rewind" in r["cause"] for r in t["reprocessed"])
    assert [r["mode"] for r in t["admin_resets"]] == ["latest", "shift"]
    assert t["topics"]["ledger"] == {"initial_partitions": 6, "final_partitions": 8}
    assert causes(t)[1] == "metadata_or_subscription_change"
    assert t["generations"][1]["cause"]["detail"] == "cached metadata has changed"


def test_static_member_restart(generated):
    t = truth(generated, "static_member_restart")
    assert causes(t) == ["member_joined", "session_expiry", "member_joined"]
    server = text(generated, "static_member_restart", "kafka-1-server.log")
    assert server.count("Replacing previously mapped member") == 2
    assert all(m["member_id"].startswith(m["instance_id"] + "-") for m in t["members"])


def test_scale_in_roundrobin(generated):
    t = truth(generated, "scale_in_roundrobin")
    assert causes(t) == ["member_joined", "member_left", "member_left"]
    assert {g["protocol"] for g in t["generations"]} == {"roundrobin"}
    last = t["generations"][-1]["assignment"]
    assert sorted(len(p) for p in last.values()) == [4, 4]
    assert sorted(p for ps in last.values() for p in ps) == sorted(
        [f"emails-{i}" for i in range(6)] + ["email-retries-0", "email-retries-1"])


def test_cooperative_scale_out(generated):
    t = truth(generated, "cooperative_scale_out")
    assert causes(t) == ["member_joined", "member_joined", "cooperative_follow_up", "session_expiry"]
    g2, g3 = t["generations"][1], t["generations"][2]
    newcomer = g2["cause"]["member_id"]
    # the first round withholds the partitions still owned by others; the follow-up hands them over
    assert g2["assignment"][newcomer] == [] and len(g3["assignment"][newcomer]) == 3
    kept = {m: set(p) for m, p in g2["assignment"].items() if m != newcomer}
    assert all(kept[m] <= set(g3["assignment"][m]) for m in kept)
    log = text(generated, "cooperative_scale_out", "risk-aggregator-1.log")
    assert "Updating assignment with\n\tAssigned partitions:" in log
    assert "as indicated by the current assignment and re-join" in log


def test_admin_reset_to_earliest_reprocesses_from_log_start(tmp_path):
    from pipeline.generator.generate import write_scenario
    from pipeline.generator.scenario import Action, ConsumerSpec, Scenario

    cs = [ConsumerSpec("app-1", "10.0.0.1"), ConsumerSpec("app-2", "10.0.0.2")]
    acts = [Action(120_000, "stop", "app-1"), Action(120_000, "stop", "app-2"),
            Action(130_000, "reset_offsets", args={"to": "earliest"}),
            Action(140_000, "start", "app-1"), Action(140_000, "start", "app-2")]
    sc = Scenario(name="earliest", seed=5, group_id="g-earliest", topics={"t": 2}, consumers=cs, actions=acts,
                  duration_ms=240_000, produce_rate=5.0)
    write_scenario(sc, str(tmp_path))
    t = json.loads((tmp_path / "truth.json").read_text(encoding="utf-8"))
    assert [r["mode"] for r in t["admin_resets"]] == ["earliest"]
    admin = [c for cs_ in t["commits"].values() for c in cs_ if c["kind"] == "admin_reset"]
    assert len(admin) == 2 and all(c["member_id"] is None and c["generation"] == -1 for c in admin)
    rewound = {r["partition"] for r in t["reprocessed"] if "rewind" in r["cause"]}
    assert rewound == {"t-0", "t-1"}
    for r in t["reprocessed"]:
        start = t["commits"][r["partition"]][0]["offset"]  # first commit = where the group was at start
        assert r["from"] >= start - 40
