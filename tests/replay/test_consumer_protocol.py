"""Consumer-protocol (KIP-848) groups: the sample scenarios of pipeline/generator/kip848.py replayed against
their truth.json (group epochs with causes and times, member epochs, reconciliations, fencings), and the
wrong answers of the classic replay on such a group (one generation per member epoch seen, "no broker
line", a dynamic member fenced after its session expired reported as a static member fenced, classic
defaults)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from parsers.events import Event
from pipeline.replay import replay_group

SCENARIOS = ["consumer_scale_out", "consumer_fenced_after_stall", "consumer_slow_revocation", "consumer_migration"]


@pytest.fixture(scope="module", params=SCENARIOS)
def replayed(request, repo_root):
    folder = repo_root / "sample_logs" / request.param
    files = sorted(str(p) for p in folder.iterdir() if p.name != "truth.json")
    out = subprocess.run([sys.executable, "-m", "pipeline.cli", "parse", *files], cwd=repo_root,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    truth = json.loads((folder / "truth.json").read_text())
    events = [Event.from_dict(json.loads(line)) for line in out.stdout.splitlines() if line.strip()]
    return replay_group([e for e in events if e.group_id == truth["group_id"]]), truth


def test_group_epochs_times_and_causes(replayed):
    r, truth = replayed
    mine = [(g["generation"], g["started_ms"], g["cause"], g["trigger_member"], g["protocol_type"])
            for g in r.generations if g["protocol_type"] == "consumer (KIP-848)"]
    want = [(e["epoch"], e["ms"], e["cause"], e["trigger_member"], "consumer (KIP-848)") for e in truth["group_epochs"]]
    assert mine == want


def test_member_epochs(replayed):
    r, truth = replayed
    mine = {(m["member_id"], m["generation"], m["joined_ms"]) for m in r.memberships
            if m["joined_ms"] is not None and m["states"] is not None}   # consumer-protocol rows
    want = {(mid, h["member_epoch"], h["ms"]) for mid, hist in truth["member_history"].items() for h in hist
            if h["event"] == "epoch"}
    if truth["config"]["broker_debug"]:   # the broker's "new assignment state" names every epoch of every member
        assert mine == want
    else:   # INFO: only epochs the clients' lines show; none of them false
        assert mine and mine <= want


def test_reconciliations(replayed):
    r, truth = replayed
    last = {}
    for rec in truth["reconciliations"]:
        last[(rec["member_id"], rec["member_epoch"])] = rec
    rows = {(m["member_id"], m["generation"]): m for m in r.memberships if m["states"] is not None}
    for key, rec in last.items():
        m = rows[key]
        assert (m["assigned"], m["owned"], m["added"], m["revoked"]) == (
            rec["assigned"], rec["owned"], rec["added"], rec["revoked"]), key


def test_fencings_by_cause_and_error(replayed):
    r, truth = replayed
    broker = {(f["member_id"], f["ms"], f["cause"]) for f in truth["fencings"] if f["side"] == "broker"}
    mine = {(f["members"][0], f["start_ms"], json.loads(f["details_json"])["fenced_by"]) for f in r.findings
            if f["kind"] in ("session_expiry", "rebalance_stuck") and "fenced_by" in f["details_json"]}
    assert mine == broker
    client = {(f["member_id"], f["error"]) for f in truth["fencings"] if f["side"] == "client"}
    assert {(m["member_id"], m["fence_error"]) for m in r.memberships if m["fence_error"]} == client
    # a dynamic member fenced after its session expired is never a static member fencing
    assert not [f for f in r.findings if f["kind"] == "static_member_fenced"]
    assert not [f for f in r.findings if f["kind"] == "rebalance_storm"]


def test_no_false_missing_broker_log_and_4x_defaults(replayed):
    r, truth = replayed
    text = " ".join([g["cause_detail"] for g in r.generations] + [f["explanation"] for f in r.findings])
    assert "no broker line" not in text.lower() and "No broker log" not in text
    assert not [f for f in r.findings if f["kind"] == "unexplained"]   # the two sides agree (cross-check)
    assert len([f for f in r.findings if f["kind"] == "migration_stuck"]) == (1 if truth["migration_refusals"] else 0)


def test_classic_to_consumer_migration(repo_root):
    folder = repo_root / "sample_logs" / "consumer_migration"
    truth = json.loads((folder / "truth.json").read_text())
    r = replay_group(_sample_events(repo_root, "consumer_migration"))
    classic = [(g["generation"], g["started_ms"], g["members"], g["leader"]) for g in r.generations
               if g["protocol_type"] == "consumer"]
    assert classic == [(g["generation"], g["started_ms"], g["members"], g["leader"]) for g in truth["classic_generations"]]
    stuck = [f for f in r.findings if f["kind"] == "migration_stuck"]
    refusals = truth["migration_refusals"]
    assert [(f["start_ms"], f["end_ms"], json.loads(f["details_json"])["count"]) for f in stuck] == [
        (refusals[0]["ms"], refusals[-1]["ms"], len(refusals))]
    assert stuck[0]["severity"] == "high" and "online upgrade is disabled" in stuck[0]["explanation"]
    # the refused consumers (FATAL) were never members of an epoch
    refused = {x["member_id"] for x in refusals}
    assert not refused & {m for g in r.generations for m in g["members"]}
    cfg = r.settings
    assert (cfg.session_timeout_ms, cfg.heartbeat_interval_ms, cfg.assignor) == (45000, 5000, "uniform")
    assert "group.consumer.session.timeout.ms" in cfg.origin["session_timeout_ms"]
    assert cfg.rebalance_timeout_ms == truth["config"]["max.poll.interval.ms"]


def test_share_group_not_replayed_as_consumer_group():
    ev = Event(source="b.log", line_no=1, side="broker", kind="broker_member_joined", raw="...", ts_ms=1000,
               group_id="shares", member_id="s-1", group_type="share")
    r = replay_group([ev])
    assert r.generations == [] and r.memberships == []
    assert [f["title"] for f in r.findings] == ["share group shares (KIP-932): not replayed"]


def test_report_explains_a_consumer_protocol_incident(repo_root):
    from pipeline.report.markdown import _consumer_protocol_markdown
    from pipeline.report.model import consumer_protocol_story

    folder = repo_root / "sample_logs" / "consumer_fenced_after_stall"
    files = sorted(str(p) for p in folder.iterdir() if p.name != "truth.json")
    out = subprocess.run([sys.executable, "-m", "pipeline.cli", "parse", *files], cwd=repo_root,
                         capture_output=True, text=True, timeout=600)
    r = replay_group([Event.from_dict(json.loads(line)) for line in out.stdout.splitlines() if line.strip()])
    story = consumer_protocol_story(r.generations, r.memberships)
    assert story is not None and story["group_type"] == "consumer"
    text = "\n".join(_consumer_protocol_markdown({"consumer_protocol": story}))
    assert "### Consumer protocol (KIP-848)" in text
    assert "The group epoch went from 1 to 5 (5 epochs in the logs): 4 by member joined, 1 by session expiry." in text
    assert ("Epoch 4 (2025-06-03T02:02:41.700Z): The coordinator fenced member 8U9fkUU-uWKiudlLkLeUQg: its session "
            "expired") in text
    assert ("Member 8U9fkUU-uWKiudlLkLeUQg learned it was fenced at epoch 3 from a UNKNOWN_MEMBER_ID heartbeat "
            "error") in text
    assert [e["epoch"] for e in story["member_epochs"]["8U9fkUU-uWKiudlLkLeUQg"]] == [2, 3, 5]
    assert consumer_protocol_story([{"protocol_type": "consumer", "generation": 1}], []) is None  # classic
    from pipeline.report.model import _consumer_protocol_recommendations
    recs = [{"id": "raise-session-timeout", "setting": "session.timeout.ms",
             "text": "... raise session.timeout.ms to about 75000 ms (keep heartbeat.interval.ms at a third of it)."}]
    _consumer_protocol_recommendations(recs)
    assert recs[0]["setting"] == "group.consumer.session.timeout.ms" and "heartbeat.interval.ms" not in recs[0]["text"]


def _sample_events(repo_root, name):
    folder = repo_root / "sample_logs" / name
    files = sorted(str(p) for p in folder.iterdir() if p.name != "truth.json")
    out = subprocess.run([sys.executable, "-m", "pipeline.cli", "parse", *files], cwd=repo_root,
                         capture_output=True, text=True, timeout=600)
    return [Event.from_dict(json.loads(line)) for line in out.stdout.splitlines() if line.strip()]


def test_what_if_session_timeout_through_the_consumer_model(repo_root):
    from pipeline.replay import what_if

    observed, w = what_if(_sample_events(repo_root, "consumer_fenced_after_stall"), {"session.timeout.ms": "90000"})
    assert w.changed == {"session.timeout.ms": (45000, 90000)}
    # evidence: the broker fenced at 02:02:41.700, so its last heartbeat was 45 s before; it resumed at 02:03:10.000
    assert [(a["member"], a["silence_ms"]) for a in w.expulsions_avoided] == [("8U9fkUU-uWKiudlLkLeUQg", 73300)]
    assert [a["generation"] for a in w.rebalances_avoided] == [4, 5]
    # the model, driven by the same behaviour, reproduces the observed 5 epochs and 1 fencing, then 3 and none
    assert (w.model["rebalances_observed_settings"], w.model["rebalances_new_settings"]) == (5, 3)
    assert w.model["expelled_new_settings"] == []
    assert len(w.model["expelled_observed_settings"]) == 1


def test_what_if_rebalance_timeout_and_assignor(repo_root):
    from pipeline.replay import what_if

    events = _sample_events(repo_root, "consumer_slow_revocation")
    _, w = what_if(events, {"max.poll.interval.ms": "120000"})
    assert [a["generation"] for a in w.rebalances_avoided] == [5, 6]   # the fence and the rejoin
    assert "its revocation took 75000 ms" in w.rebalances_avoided[0]["why"]   # Revoke line -> its Lost line
    assert (w.model["rebalances_observed_settings"], w.model["rebalances_new_settings"]) == (6, 4)
    _, w = what_if(events, {"partition.assignment.strategy": "range"})
    assert w.assignor["from"] == "uniform" and w.assignor["to"] == "range"
    assert w.model["rebalances_observed_settings"] == 6


# ---------------------------------------------------------------- hand-written 4.x logs (Kafka 4.0 wordings)
GMM = "(org.apache.kafka.coordinator.group.GroupMetadataManager)"
CMM = "(org.apache.kafka.clients.consumer.internals.ConsumerMembershipManager)"
CHB = "(org.apache.kafka.clients.consumer.internals.ConsumerHeartbeatRequestManager)"
GC = "[GroupCoordinator id=1 topic=__consumer_offsets partition=3] "


def _parse(repo_root, tmp_path, files: dict[str, list[str]]):
    paths = []
    for name, lines in files.items():
        p = tmp_path / name
        p.write_text("\n".join(lines) + "\n")
        paths.append(str(p))
    out = subprocess.run([sys.executable, "-m", "pipeline.cli", "parse", *paths], cwd=repo_root,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return [Event.from_dict(json.loads(line)) for line in out.stdout.splitlines() if line.strip()]


def _client(ts: str, msg: str, logger: str = CMM, group: str = "orders") -> str:
    return f"[2025-07-01 10:{ts}] INFO [Consumer clientId=c-1, groupId={group}] {msg} {logger}"


def test_client_only_member_epochs_1_to_6_are_six_epochs(repo_root, tmp_path):
    """No broker log: a member whose epochs went 1 -> 6 (classic replay: one generation, 'no broker line')."""
    m = "Mj4Ti9sXQCKpmlr8x4hoeA"
    lines = [_client("00:00,000", f"Member {m} with epoch 0 transitioned from UNSUBSCRIBED to JOINING.")]
    for e in range(1, 7):
        lines += [_client(f"0{e}:00,000", f"Member {m} with epoch {e} transitioned from {'JOINING' if e == 1 else 'STABLE'} to RECONCILING."),
                  _client(f"0{e}:00,010", f"Member {m} with epoch {e} transitioned from RECONCILING to ACKNOWLEDGING."),
                  _client(f"0{e}:00,011", f"Member {m} with epoch {e} transitioned from ACKNOWLEDGING to STABLE.")]
    lines.append(_client("07:00,000", f"ConsumerGroupHeartbeatRequest failed for member {m} because epoch 6 is fenced. "
                         "in 0ms: The consumer group member has a smaller member epoch (6) than the one known by the "
                         "group coordinator (7). The member must abandon all its partitions and rejoin.", CHB))
    lines.append(_client("07:00,001", f"Member {m} with epoch 6 transitioned from STABLE to FENCED."))
    r = replay_group(_parse(repo_root, tmp_path, {"app-1.log": lines}))
    assert [g["generation"] for g in r.generations] == [1, 2, 3, 4, 5, 6]
    assert all("No broker log of the group" in g["cause_detail"] for g in r.generations)
    assert not any("no broker line" in f["explanation"].lower() for f in r.findings)
    # epoch 1 reached at its RECONCILING line; later epochs: the first line at N leaves STABLE, so the member
    # reached N silently: unknown, never guessed
    rows = {m_["generation"]: m_ for m_ in r.memberships}
    assert (rows[1]["joined_ms"], rows[1]["synced_ms"]) == (1751364060000, 1751364060011)
    assert rows[6]["fence_error"] == "FENCED_MEMBER_EPOCH" and rows[6]["leave_reason"] == "fenced"
    fenced = [f for f in r.findings if f["kind"] == "member_fenced"]
    assert [(f["members"], json.loads(f["details_json"])["error"]) for f in fenced] == [([m], "FENCED_MEMBER_EPOCH")]
    assert not [f for f in r.findings if f["kind"] in ("static_member_fenced", "rebalance_storm")]


def test_static_member_replaced_and_temporary_leave(repo_root, tmp_path):
    lines = [
        f"[2025-07-01 10:00:00,000] INFO {GC}[GroupId billing] Static member OldMemberAAAAAAAAAAAAA with instance id "
        f"billing-0 joins the consumer group using the consumer protocol. {GMM}",
        f"[2025-07-01 10:00:00,000] INFO {GC}[GroupId billing] Bumped group epoch to 1. {GMM}",
        f"[2025-07-01 10:00:00,001] INFO {GC}[GroupId billing] Computed a new target assignment for epoch 1 with "
        f"'uniform' assignor in 1ms. {GMM}",
        f"[2025-07-01 10:01:00,000] INFO {GC}[GroupId billing] Static Member OldMemberAAAAAAAAAAAAA with instance id "
        f"billing-0 temporarily left the consumer group. {GMM}",
        f"[2025-07-01 10:01:20,000] INFO {GC}[GroupId billing] Static member with instance id billing-0 re-joins the "
        f"consumer group using the consumer protocol. Created a new member NewMemberAAAAAAAAAAAAA to replace the "
        f"existing member OldMemberAAAAAAAAAAAAA. {GMM}",
    ]
    r = replay_group(_parse(repo_root, tmp_path, {"kafka-1-server.log": lines}))
    assert [(g["generation"], g["cause"], g["trigger_member"]) for g in r.generations] == [
        (1, "member_joined", "OldMemberAAAAAAAAAAAAA")]   # a static leave (-2) and its replacement bump nothing
    rep = [f for f in r.findings if f["kind"] == "static_member_fenced"]
    assert [(f["severity"], f["title"], f["members"]) for f in rep] == [
        ("medium", "static member billing-0 replaced", ["NewMemberAAAAAAAAAAAAA", "OldMemberAAAAAAAAAAAAA"])]


def test_streams_group_member_epochs_and_tasks(repo_root, tmp_path):
    lines = [
        f"[2025-09-01 10:00:00,000] INFO {GC}[GroupId app][MemberId m-1] Member joins the streams group. {GMM}",
        f"[2025-09-01 10:00:00,001] INFO {GC}[GroupId app][MemberId m-1] Member's new assignment state: epoch=3, "
        f"previousEpoch=2, state=STABLE, assignedTasks=TasksTuple(activeTasks={{0=[0, 1]}}, standbyTasks={{1=[2]}}, "
        f"warmupTasks={{}}) and tasksPendingRevocation=TasksTuple(activeTasks={{}}, standbyTasks={{}}, warmupTasks={{}}). {GMM}",
    ]
    r = replay_group(_parse(repo_root, tmp_path, {"kafka-1-server.log": lines}))
    assert [(g["generation"], g["protocol_type"]) for g in r.generations] == [(3, "streams (KIP-1071)")]
    assert [(m["member_id"], m["assigned"], m["member_state"]) for m in r.memberships] == [
        ("m-1", ["active 0_0", "active 0_1", "standby 1_2"], "STABLE")]


def test_group_stuck_migrating(repo_root, tmp_path):
    lines = [f"[2025-07-01 10:0{i}:00,000] INFO {GC}Cannot upgrade classic group legacy to consumer group because "
             f"the online upgrade is disabled. {GMM}" for i in range(3)]
    r = replay_group(_parse(repo_root, tmp_path, {"kafka-1-server.log": lines}))
    f = [x for x in r.findings if x["kind"] == "migration_stuck"]
    assert [(x["severity"], x["title"], x["start_ms"], x["end_ms"]) for x in f] == [
        ("high", "group cannot move to the consumer protocol (3 time(s))", 1751364000000, 1751364120000)]
    assert json.loads(f[0]["details_json"])["reason"] == "the online upgrade is disabled"


def test_classic_generations_kept_when_the_group_moves_to_the_consumer_protocol(repo_root, tmp_path):
    ac = "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)"
    gen = "Generation{generationId=3, memberId='consumer-orders-1-5b1f', protocol='range'}"
    classic = [
        _client("00:00,000", "(Re-)joining group", ac),
        _client("00:00,100", f"Successfully joined group with generation {gen}", ac),
        _client("00:00,200", f"Successfully synced group in generation {gen}", ac),
    ]
    m = "Mj4Ti9sXQCKpmlr8x4hoeA"
    modern = [
        _client("05:00,000", f"Member {m} with epoch 0 transitioned from UNSUBSCRIBED to JOINING."),
        _client("05:00,100", f"Member {m} with epoch 4 transitioned from JOINING to RECONCILING."),
        _client("05:00,200", f"Member {m} with epoch 4 transitioned from RECONCILING to ACKNOWLEDGING."),
        _client("05:00,201", f"Member {m} with epoch 4 transitioned from ACKNOWLEDGING to STABLE."),
    ]
    broker = [f"[2025-07-01 10:05:00,050] INFO {GC}[GroupId orders] Member {m} joins the consumer group using the "
              f"consumer protocol. {GMM}",
              f"[2025-07-01 10:05:00,050] INFO {GC}[GroupId orders] Bumped group epoch to 4. {GMM}"]
    r = replay_group(_parse(repo_root, tmp_path, {"app-1.log": classic + modern, "kafka-1-server.log": broker}))
    assert [(g["generation"], g["protocol_type"]) for g in r.generations] == [(3, "consumer"), (4, "consumer (KIP-848)")]
    assert [(x["generation"], x["member_id"]) for x in r.memberships] == [(3, "consumer-orders-1-5b1f"), (4, m)]


def test_client_and_broker_cross_checked(repo_root, tmp_path):
    """With the broker's DEBUG lines for a member, an epoch its client states that the broker never gave it is
    reported (the samples, whose two sides agree, have no such finding: test_fencings_... above)."""
    m = "Mj4Ti9sXQCKpmlr8x4hoeA"
    broker = [f"[2025-07-01 10:00:00,000] INFO {GC}[GroupId orders] Member {m} joins the consumer group using the "
              f"consumer protocol. {GMM}",
              f"[2025-07-01 10:00:00,000] INFO {GC}[GroupId orders] Bumped group epoch to 1. {GMM}",
              f"[2025-07-01 10:00:00,001] DEBUG {GC}[GroupId orders] Member {m} new assignment state: epoch=1, "
              f"previousEpoch=0, state=STABLE, assignedPartitions=[] and revokedPartitions=[]. {GMM}"]
    client = [_client("00:00,000", f"Member {m} with epoch 0 transitioned from UNSUBSCRIBED to JOINING."),
              _client("00:00,002", f"Member {m} with epoch 1 transitioned from JOINING to RECONCILING."),
              _client("00:00,003", f"Member {m} with epoch 1 transitioned from RECONCILING to ACKNOWLEDGING."),
              _client("00:00,004", f"Member {m} with epoch 1 transitioned from ACKNOWLEDGING to STABLE."),
              _client("01:00,000", f"Member {m} with epoch 7 transitioned from STABLE to RECONCILING."),
              _client("01:00,002", f"Member {m} with epoch 7 transitioned from RECONCILING to ACKNOWLEDGING.")]
    r = replay_group(_parse(repo_root, tmp_path, {"app-1.log": client, "kafka-1-server.log": broker}))
    f = [x for x in r.findings if x["kind"] == "unexplained"]
    assert [(x["title"], x["generation"]) for x in f] == [(f"client and broker disagree about member {m}", 7)]
    assert "its client states member epoch 7, which no broker line gave it" in f[0]["explanation"]


# ---------------------------------------------------------------- any consumer-protocol events: no crash, rows fit
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pipeline import schemas  # noqa: E402

_EXTRAS = [{}, {"from_state": "UNSUBSCRIBED", "to_state": "JOINING"}, {"from_state": "STABLE", "to_state": "RECONCILING"},
           {"from_state": "RECONCILING", "to_state": "STABLE"}, {"to_state": "FENCED"}, {"to_state": "LEAVING"},
           {"group_epoch": 3, "assignor": "uniform"}, {"member_state": "UNREVOKED_PARTITIONS", "revoked_partitions": ["x-1"]},
           {"owned_partitions": ["t-0"], "added_partitions": [], "revoked_partitions": ["t-0"]},
           {"assigned_tasks": "TasksTuple(activeTasks={0=[0]}, standbyTasks={}, warmupTasks={})"},
           {"timeout_ms": 1000}, {"old_member_id": "B"}, {"rule": "failed_because_member_is_unknown_in"},
           {"settings": {"group.protocol": "consumer", "max.poll.interval.ms": "x"}}, {"assigned_active_tasks": ["0_1"]}]


@st.composite
def _modern_events(draw):
    return Event(
        source=draw(st.sampled_from(["h1.log", "h2.log", "broker.log"])),
        line_no=draw(st.integers(min_value=1, max_value=40)), side=draw(st.sampled_from(["client", "broker"])),
        kind=draw(st.sampled_from(["member_state_changed", "assignment_received", "member_fenced", "client_config",
                                   "broker_member_joined", "broker_member_removed", "broker_member_fenced",
                                   "broker_rebalance_preparing", "broker_assignment_received", "broker_group_migrated",
                                   "partitions_revoked", "partitions_lost", "partitions_assigned"])),
        raw=draw(st.sampled_from(["", "temporarily left", "Cannot upgrade classic group g to consumer group because x.",
                                  "x"])),
        ts_ms=draw(st.one_of(st.none(), st.integers(min_value=0, max_value=100_000))), group_id="g",
        client_id=draw(st.sampled_from([None, "c-1"])), member_id=draw(st.sampled_from([None, "A", "B", "<no ID>"])),
        instance_id=draw(st.sampled_from([None, "i-1"])),
        member_epoch=draw(st.one_of(st.none(), st.integers(min_value=-2, max_value=5))),
        group_type=draw(st.sampled_from([None, "consumer", "streams", "share"])),
        partitions=draw(st.one_of(st.none(), st.just(("t-0", "t-1")))),
        reason=draw(st.sampled_from([None, "the member session expired.", "it failed to transition from epoch 2 "
                                     "within 100ms"])),
        error=draw(st.sampled_from([None, "Member A is not a member of group g."])), extra=draw(st.sampled_from(_EXTRAS)))


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_modern_events(), max_size=40))
def test_any_consumer_protocol_events_replay_without_crashing(evs):
    r = replay_group(evs)
    for name in ("generations", "memberships", "findings"):
        for row in r.table(name):
            assert list(row) == schemas.columns(name)
            for col, typ in schemas.TABLES[name]:
                v = row[col]
                if v is not None and typ == "array<string>":
                    assert isinstance(v, list) and all(isinstance(x, str) for x in v), (name, col, v)
                elif v is not None and typ in ("bigint", "int"):
                    assert isinstance(v, int) and not isinstance(v, bool), (name, col, v)
    for f in r.findings:
        json.loads(f["details_json"])
        assert f["evidence"], f["title"]


def test_poll_timeout_leave_is_the_cause_and_the_member_is_stale(repo_root, tmp_path):
    m, n = "Mj4Ti9sXQCKpmlr8x4hoeA", "Nk5Uj0tYRDLqnms9y5ipfB"
    broker = [f"[2025-07-01 10:00:00,000] INFO {GC}[GroupId orders] Member {m} joins the consumer group using the "
              f"consumer protocol. {GMM}",
              f"[2025-07-01 10:00:00,000] INFO {GC}[GroupId orders] Bumped group epoch to 1. {GMM}",
              f"[2025-07-01 10:00:01,000] INFO {GC}[GroupId orders] Member {n} joins the consumer group using the "
              f"consumer protocol. {GMM}",
              f"[2025-07-01 10:00:01,000] INFO {GC}[GroupId orders] Bumped group epoch to 2. {GMM}",
              f"[2025-07-01 10:06:00,020] INFO {GC}[GroupId orders] Member {m} left the consumer group. {GMM}",
              f"[2025-07-01 10:06:04,000] INFO {GC}[GroupId orders] Computed a new target assignment for epoch 3 with "
              f"'uniform' assignor in 1ms. {GMM}"]
    client = [_client("00:00,000", f"Member {m} with epoch 0 transitioned from UNSUBSCRIBED to JOINING."),
              _client("00:00,002", f"Member {m} with epoch 1 transitioned from JOINING to RECONCILING."),
              _client("00:00,004", f"Member {m} with epoch 1 transitioned from RECONCILING to ACKNOWLEDGING."),
              _client("00:00,005", f"Member {m} with epoch 1 transitioned from ACKNOWLEDGING to STABLE."),
              _client("01:00,000", f"Member {m} with epoch 2 transitioned from STABLE to RECONCILING."),
              _client("01:00,004", f"Member {m} with epoch 2 transitioned from RECONCILING to ACKNOWLEDGING."),
              _client("06:00,000", f"Member {m} with epoch 2 generated the heartbeat to leave due to expired poll "
                                   "timer. It will remain stale (no heartbeat) until it rejoins the group on the next "
                                   "consumer poll.").replace("] INFO [", "] DEBUG [")]
    r = replay_group(_parse(repo_root, tmp_path, {"app-1.log": client, "kafka-1-server.log": broker}))
    g3 = [g for g in r.generations if g["generation"] == 3][0]
    assert (g3["cause"], g3["trigger_member"], g3["started_ms"]) == ("poll_timeout", m, 1751364360020)
    row = [x for x in r.memberships if x["member_id"] == m and x["generation"] == 2][0]
    assert row["states"][-1] == "STALE" and row["leave_reason"] == "poll_timeout"
