"""Every broker template of the catalogue (non-`other` event class) parses: holes filled with
realistic values, the kind and the extracted fields are checked."""

from __future__ import annotations

import csv
import re

import pytest

from parsers.broker import parse_broker_message
from parsers.gen_broker_grammar import name_holes

# catalogue event class -> event kind (written out here, independently of the generator's table)
EXPECTED_KIND = {
    "rebalance_prepare": "broker_rebalance_preparing",
    "group_stabilized": "broker_group_stabilized",
    "assignment_received": "broker_assignment_received",
    "member_removed": "broker_member_removed",
    "member_joined": "broker_member_joined",
    "member_fenced": "broker_member_fenced",
    "group_empty": "broker_group_empty",
    "group_dead": "broker_group_dead",
    "offsets_expired": "broker_offsets_expired",
    "rebalance_failed": "broker_rebalance_failed",
    "subscription_change": "broker_subscription_changed",
    "offset_commit": "broker_offset_committed",
    "offset_commit_failed": "broker_offset_commit_failed",
    "offset_fetch": "broker_offset_fetched",
    "group_state_change": "broker_group_state_changed",
    "group_migration": "broker_group_migrated",
    "group_metadata_write": "broker_group_metadata_write_failed",
    "coordinator_lifecycle": "broker_coordinator_lifecycle",
    "coordinator_runtime": "broker_coordinator_runtime",
}

GROUP = "payments.settlement-v2"
MEMBER = "consumer-payments-7-3f1c2e4a-0b1d-4c55-9e8f-2a1b3c4d5e6f"
VALUES = {
    "group_id": GROUP,
    "member_id": MEMBER,
    "old_member_id": "consumer-payments-7-11111111-2222-3333-4444-555555555555",
    "existing_member_id": "consumer-payments-7-99999999-2222-3333-4444-555555555555",
    "new_leader": "consumer-payments-3-aaaaaaaa-2222-3333-4444-555555555555",
    "leader": "consumer-payments-1-bbbbbbbb-2222-3333-4444-555555555555",
    "instance_id": "payments-pod-7",
    "state": "PreparingRebalance",
    "member_state": "UNREVOKED_PARTITIONS",
    "from_state": "LOADING",
    "to_state": "ACTIVE",
    "reason": "removing member consumer-payments-7-3f1c2e4a on heartbeat expiration",
    "error": "org.apache.kafka.common.errors.NotLeaderOrFollowerException: This server is not the leader",
    "tp": "__consumer_offsets-12",
    "topic": "orders.v1",
    "protocol": "consumer",
    "protocol_type": "consumer",
    "assignor": "uniform",
    "group_type": "share",
    "membership": "Dynamic",
    "offsets_topic": "__consumer_offsets",
}
INTS = {"generation": 42, "partition": 5, "offset": 98765, "member_epoch": 17, "offsets_partition": 12}


def fill(name: str) -> str:
    base = re.sub(r"_\d+$", "", name.rstrip("#"))
    if name.endswith("#"):
        return str(INTS.get(base, 3))
    if base in ("producer_id", "producer_epoch", "record_type", "leader_epoch"):
        return "4001"
    if base in VALUES:
        return VALUES[base]
    # lists, maps, record dumps: the free-text holes
    return "Set(orders.v1-0, orders.v1-1)"


def broker_rows(shared_dir):
    path = shared_dir / "formats" / "kafka-coordinator-log-templates.tsv"
    with path.open(newline="") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
                if r["side"] == "broker" and r["event"] != "other"]
    assert len(rows) > 400
    return rows


def expected_kind(row) -> str:
    kind = EXPECTED_KIND.get(row["event"], "")
    t = row["template"]
    if row["event"] == "group_load" or t.startswith(("Elected as", "Resigned as")):
        unload = re.search(r"[Uu]nload|no longer a coordinator|Resigned|follower transition|Removed \{\} cached", t)
        kind = "broker_group_unloaded" if unload else "broker_group_loaded"
    return kind


def test_every_broker_template_parses(shared_dir):
    failures = []
    for row in broker_rows(shared_dir):
        template = row["template"].rstrip()
        names = name_holes(template)
        parts = template.split("{}")
        message = parts[0] + "".join(fill(n) + lit for n, lit in zip(names, parts[1:], strict=True))
        m = parse_broker_message("[GroupCoordinator 3]: " + message, "kafka.coordinator.group.GroupCoordinator")
        if m is None:
            failures.append(f"no rule: {message}")
            continue
        if m.kind != expected_kind(row):
            failures.append(f"kind {m.kind} != {expected_kind(row)}: {message}")
        if m.fields.get("coordinator") != "3":
            failures.append(f"coordinator lost: {message}")
        for name in names:
            base = name.rstrip("#")
            if base in ("group_id", "member_id", "instance_id", "generation", "member_epoch", "topic",
                        "partition", "offset", "reason", "error", "protocol"):
                want = int(fill(name)) if name.endswith("#") else fill(name)
                if m.fields.get(base) != want:
                    failures.append(f"{base}={m.fields.get(base)!r} != {want!r}: {message}")
        # independent of the hole names: what the template text itself promises
        if re.search(r"(?:[Gg]roup|\[GroupId=?|of group) (?:')?\{\}", template) and "group_id" not in m.fields:
            failures.append(f"group id missing: {message}")
        if re.search(r"generation \{\}", template) and m.fields.get("generation") != 42:
            failures.append(f"generation missing: {message}")
    assert not failures, "\n".join(failures[:40])


@pytest.mark.parametrize(
    "message, kind, fields, extra",
    [
        # GroupCoordinator.scala 0.9-0.10.2: the restabilize wording
        ("[GroupCoordinator 0]: Preparing to restabilize group blackberry with old generation 0",
         "broker_rebalance_preparing", {"group_id": "blackberry", "generation": 0, "coordinator": "0"}, {}),
        # GroupCoordinator.scala 0.11-2.0: partition in parentheses, no reason
        ("[GroupCoordinator 1]: Preparing to rebalance group g1 with old generation 5 (__consumer_offsets-44)",
         "broker_rebalance_preparing", {"group_id": "g1", "generation": 5}, {"offsets_partition": 44}),
        # 3.2+: LeaveGroup reason with client reason
        ("[GroupCoordinator 1]: Preparing to rebalance group g1 in state PreparingRebalance with old generation 9 "
         "(__consumer_offsets-3) (reason: removing member m-1 on LeaveGroup; client reason: the consumer is being closed)",
         "broker_rebalance_preparing", {"group_id": "g1", "generation": 9},
         {"trigger": "leave_group", "trigger_member_id": "m-1", "client_reason": "the consumer is being closed"}),
        # 2.4+: static member join reason
        ("[GroupCoordinator 1]: Preparing to rebalance group g1 in state PreparingRebalance with old generation 9 "
         "(__consumer_offsets-3) (reason: Adding new member m-2 with group instance id Some(pod-2))",
         "broker_rebalance_preparing", {"group_id": "g1"},
         {"trigger": "new_member", "trigger_member_id": "m-2", "trigger_instance_id": "pod-2"}),
        # GroupMetadataManager.java 3.6+ (new coordinator, classic group) behind the 3.7+ LogContext
        ("[GroupCoordinator id=2 topic=__consumer_offsets partition=17] Preparing to rebalance group g2 in state "
         "PreparingRebalance with old generation 4 (reason: Adding new member m-9 with group instance id null; "
         "client reason: need to re-join with the given member-id: m-9).",
         "broker_rebalance_preparing", {"group_id": "g2", "generation": 4, "coordinator": "2"},
         {"offsets_partition": 17, "trigger": "new_member", "trigger_member_id": "m-9"}),
        ("[GroupCoordinator id=2 topic=__consumer_offsets partition=17] [GroupId g3] Member m-5 fenced from the "
         "group because its session expired.", "broker_member_fenced", {"group_id": "g3", "member_id": "m-5"},
         {"offsets_partition": 17}),
        ("[GroupCoordinator id=2 topic=__consumer_offsets partition=17] [GroupId g3] Member m-5 new assignment state: "
         "epoch=12, previousEpoch=11, state=STABLE, assignedPartitions=[orders-0, orders-1].",
         "broker_assignment_received", {"group_id": "g3", "member_id": "m-5", "member_epoch": 12},
         {"previous_member_epoch": 11, "member_state": "STABLE", "assigned": "[orders-0, orders-1]"}),
        # GroupCoordinator.scala 0.11+: member ids with "/", "<", ">" (Erlang brod clients)
        ("[GroupCoordinator 0]: Member nonode@nohost/<0.1083.0>-3cd8a2d1 in group opal has failed, removing it from the group",
         "broker_member_removed", {"member_id": "nonode@nohost/<0.1083.0>-3cd8a2d1", "group_id": "opal"}, {}),
        # GroupCoordinator.scala 2.4-2.8 static member leaves
        ("[GroupCoordinator 0]: Member[group.instance.id Some(pod-1), member.id m-1] in group g has left, removing it from the group",
         "broker_member_removed", {"member_id": "m-1", "instance_id": "pod-1", "group_id": "g"}, {}),
        # GroupMetadataManager.scala 1.0+ ident
        ("[GroupMetadataManager brokerId=4] Removed 12 expired offsets in 3 milliseconds.",
         "broker_offsets_expired", {"coordinator": "4"}, {"count": 12, "duration_ms": 3}),
        # GroupMetadataManager.scala 0.9-0.11 ident
        ("[Group Metadata Manager on Broker 4]: Loading offsets and group metadata from [__consumer_offsets,7]",
         "broker_group_loaded", {"coordinator": "4"}, {"tp": "[__consumer_offsets,7]"}),
        ("[GroupMetadataManager brokerId=4] Finished loading offsets and group metadata from __consumer_offsets-7 in "
         "25 milliseconds for epoch 3, of which 1 milliseconds was spent in the scheduler.",
         "broker_group_loaded", {"coordinator": "4"}, {"offsets_partition": 7, "duration_ms": 25, "epoch": 3}),
        ("[GroupCoordinator 1]: Group g with generation 8 is now empty (__consumer_offsets-9)",
         "broker_group_empty", {"group_id": "g", "generation": 8}, {"offsets_partition": 9}),
        ("[GroupMetadataManager brokerId=1] Group g transitioned to Dead in generation 8",
         "broker_group_dead", {"group_id": "g", "generation": 8}, {}),
        ("[GroupCoordinator 1]: Static member with groupInstanceId=pod-3 and unknown member id joins group g in Stable "
         "state. Replacing previously mapped member m-old with this groupInstanceId.",
         "broker_member_joined", {"instance_id": "pod-3", "group_id": "g"}, {"old_member_id": "m-old", "state": "Stable"}),
    ],
)
def test_broker_wordings(message, kind, fields, extra):
    m = parse_broker_message(message, None)
    assert m is not None, message
    assert m.kind == kind
    for k, v in fields.items():
        assert m.fields.get(k) == v, (k, m.fields)
    for k, v in extra.items():
        assert m.fields.get("extra", {}).get(k) == v, (k, m.fields)


def test_generic_lines_need_coordinator_context():
    assert parse_broker_message("Shutting down.", "kafka.server.ReplicaManager") is None
    assert parse_broker_message("Shutting down.", "kafka.coordinator.group.GroupCoordinator").kind == (
        "broker_coordinator_lifecycle")
    assert parse_broker_message("[GroupCoordinator 2]: Startup complete.", None).fields["coordinator"] == "2"


def test_unknown_coordinator_message_is_none():
    assert parse_broker_message("[GroupCoordinator 2]: Something new in Kafka 9.0 for group g", None) is None
    assert parse_broker_message("", None) is None


def test_candidate_words_cover_templates(shared_dir):
    from parsers.broker import CANDIDATE_WORDS

    for row in broker_rows(shared_dir):
        t = row["template"]
        full = "[GroupCoordinator 1]: " + t  # generic ones only parse behind the ident or logger
        assert any(w in full for w in CANDIDATE_WORDS)
        if not any(w in t for w in CANDIDATE_WORDS):
            # context-bound: without ident and coordinator logger it must not match at all
            msg = t.replace("{}", "7")
            assert parse_broker_message(msg, "kafka.server.KafkaApis") is None, t
            assert parse_broker_message(msg, "org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime") or (
                parse_broker_message("[GroupCoordinator 1]: " + msg, None)), t


def test_fast_path_agrees_with_the_lark_parser(shared_dir):
    """The regexes compiled from broker.lark and Lark's own LALR parse give the same rule and fields."""
    from parsers.broker import _parse_body, lark_parse_body

    checked = 0
    for row in broker_rows(shared_dir):
        template = row["template"].rstrip()
        names = name_holes(template)
        parts = template.split("{}")
        message = parts[0] + "".join(fill(n) + lit for n, lit in zip(names, parts[1:], strict=True))
        fast = _parse_body(message)
        rule, kind, fields = lark_parse_body(message)
        assert fast is not None and rule is not None, (message, kind)
        assert (fast[0], fast[1], dict(fast[2])) == (rule, kind, fields), message
        checked += 1
    assert checked > 400


def test_lark_path_explains_where_matching_stopped():
    from parsers.broker import lark_parse_body

    rule, why, fields = lark_parse_body("Preparing to rebalance group g1 because of reasons")
    assert rule is None and "column" in why and fields == {}


def test_generated_grammar_is_up_to_date(shared_dir, repo_root):
    from parsers.gen_broker_grammar import generate

    grammar, rules = generate(shared_dir / "formats" / "kafka-coordinator-log-templates.tsv")
    assert (repo_root / "parsers" / "grammars" / "broker.lark").read_text() == grammar, (
        "re-run: python -m parsers.gen_broker_grammar")
    assert (repo_root / "parsers" / "broker_rules.py").read_text() == rules


def test_every_rule_names_its_kafka_source():
    from importlib import resources

    lines = resources.files("parsers").joinpath("grammars/broker.lark").read_text().splitlines()
    rule_lines = [i for i, line in enumerate(lines) if re.match(r"^[a-z_]+_\d+: ", line)]
    assert len(rule_lines) == 317 + 15  # the catalogue's templates + gen_broker_grammar.EXTRA_TEMPLATES
    for i in rule_lines:
        assert re.match(r"^// \w+\.(?:scala|java) \S+\.\.\S+", lines[i - 1]), lines[i]


@pytest.mark.parametrize(
    "reason, trigger, member, instance",
    [
        # GroupCoordinator.scala 2.3 spelling, 2.4+ spelling with Some(..), 3.2+ with client reason
        ("Adding new member m-1 with group instanceid None", "new_member", "m-1", None),
        ("Adding new member m-1 with group instance id Some(pod-1); client reason: rebalance enforced by user",
         "new_member", "m-1", "pod-1"),
        ("removing member m-2 on heartbeat expiration", "heartbeat_expiration", "m-2", None),
        ("removing member m-2 on heartbeat expiration.", "heartbeat_expiration", "m-2", None),  # 3.6+ Java
        ("Removing member m-3 on LeaveGroup; client reason: the consumer is being closed", "leave_group", "m-3", None),
        ("Leader m-4 re-joining group during Stable; client reason: not provided", "leader_rejoin", "m-4", None),
        ("Member m-5 joining group during CompletingRebalance; client reason: x", "member_rejoin", "m-5", None),
        ("Updating metadata for member m-6 during Stable; client reason: x", "member_metadata_update", "m-6", None),
        ("Updating metadata for static member m-7 with instance id pod-7; client reason: x", "static_member_update",
         "m-7", "pod-7"),
        ("Error NOT_COORDINATOR when storing group assignment during SyncGroup (member: m-8)", "sync_store_error",
         "m-8", None),
        ("Removing Set(m-9, m-10) on pending sync request expiration", "pending_sync_expiration", None, None),
        ("removing member MemberMetadata(memberId=m-11, groupInstanceId=None, clientId=c) on heartbeat expiration",
         "heartbeat_expiration", "m-11", None),
        ("Freshly-loaded group is over capacity (10). Rebalancing in order to give a chance for consumers to commit "
         "offsets", "over_capacity", None, None),
    ],
)
def test_rebalance_reasons(reason, trigger, member, instance):
    m = parse_broker_message(
        f"[GroupCoordinator 1]: Preparing to rebalance group g in state Stable with old generation 3 "
        f"(__consumer_offsets-1) (reason: {reason})", None)
    assert m.fields["reason"] == reason
    extra = m.fields["extra"]
    assert extra.get("trigger") == trigger
    assert extra.get("trigger_member_id") == member
    assert extra.get("trigger_instance_id") == instance


def test_explain_names_the_template_and_its_source():
    from parsers.broker import explain_broker_message

    out = explain_broker_message(
        "[GroupCoordinator 0]: Stabilized group opal generation 15 (__consumer_offsets-7)", None)
    assert out["result"] == "parsed" and out["ident"] == "[GroupCoordinator 0]:"
    assert out["template"] == "Stabilized group {} generation {} ({}-{})"
    assert out["source"] == "GroupCoordinator.scala 0.11.0.0..2.7.2" and out["start"] == "s_stabilized"
    bad = explain_broker_message("[GroupCoordinator 0]: Stabilized group opal at generation 15", None)
    assert bad["result"] == "unparsed" and "column" in bad["why"]
    assert bad["closest"][0]["template"].startswith("Stabilized group {} generation {}")
    generic = explain_broker_message("Shutting down.", "kafka.server.ReplicaManager")
    assert generic["result"] == "unparsed" and "ident" in generic["why"]


def test_other_coordinators_are_ignored_and_group_loggers_recognised():
    from parsers.base import IGNORE
    from parsers.broker import looks_like_broker_message

    tc = "kafka.coordinator.transaction.TransactionCoordinator"
    assert parse_broker_message("[TransactionCoordinator id=1] Starting up.", tc) is IGNORE
    assert parse_broker_message("Shutting down.", tc) is IGNORE
    assert parse_broker_message("[ShareCoordinator id=1 topic=__share_group_state partition=3] Startup complete.",
                                "org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime") is IGNORE
    runtime = "org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime"
    m = parse_broker_message("[GroupCoordinator id=1 topic=__consumer_offsets partition=3] Started unloading "
                             "metadata for __consumer_offsets-3 with epoch 4.", runtime)
    assert m.kind == "broker_group_unloaded" and m.fields["extra"]["offsets_partition"] == 3
    for logger in ("kafka.coordinator.GroupCoordinator", "kafka.coordinator.group.GroupMetadataManager",
                   "org.apache.kafka.coordinator.group.GroupMetadataManager", "k.c.g.GroupCoordinator",
                   "kafka.coordinator.group.GroupMetadataManager$"):
        assert looks_like_broker_message("Shutting down.", logger), logger
        assert parse_broker_message("Shutting down.", logger).kind == "broker_coordinator_lifecycle"
    for logger in (tc, "kafka.server.ReplicaManager", "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"):
        assert not looks_like_broker_message("Shutting down.", logger), logger
