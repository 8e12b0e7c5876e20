"""Build tests/coordinator/data/kip848-scenarios.json and kip848-assignors.json.

Every case restates, in the FORMAT-KIP848.md format, the inputs and the asserted values of one Kafka
test (apache/kafka trunk 1eb7644349cb, group-coordinator module); `source.method` names it, and
`source.note` says where an expectation is a deterministic reading of the code rather than an
assertion of the test. Run: python scripts/kip848_cases.py (rewrites both files).
"""

from __future__ import annotations

import json
from pathlib import Path

COMMIT = "1eb7644349cb07139d6a3c1ad1986979647cac99"
GMMT = "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTest.java"
OMMT = "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/OffsetMetadataManagerTest.java"
CABT = "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/consumer/CurrentAssignmentBuilderTest.java"
ASSIGNOR_DIR = "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/"
OUT = Path(__file__).resolve().parents[1] / "tests" / "coordinator" / "data"

FOO_BAR = {"foo": {"id": "foo-id", "partitions": 6}, "bar": {"id": "bar-id", "partitions": 3}}
SCENARIOS: list[dict] = []
ASSIGNORS: list[dict] = []


def config(topics=None, *, assignors=("range",), mode="mock", max_size=None, refresh=2147483647, group_id="fooup",
           session=45000, interval=5000):
    return {"group_id": group_id, "client_id": "client", "consumer_group_session_timeout_ms": session,
            "consumer_group_heartbeat_interval_ms": interval, "consumer_group_max_size": max_size,
            "consumer_group_metadata_refresh_interval_ms": refresh, "consumer_group_migration_policy": "disabled",
            "assignors": list(assignors), "assignor_mode": mode, "topics": topics if topics is not None else {}}


def scenario_adder(cases: list, commit: str, tag: str):
    """A `scenario(id_, category, suite, method, description, cfg, steps, *, note, version_sensitive)`
    appending a case of the format to `cases`, its source naming `commit` and `tag` (the later
    batches, scripts/kip848_cases_more.py and kip848_cases_b.py)."""
    def scenario(id_, category, suite, method, description, cfg, steps, *, note=None, version_sensitive=False):
        src = {"suite": suite, "method": method, "commit": commit, "tag": tag}
        if note:
            src["note"] = note
        case = {"id": id_, "category": category, "source": src, "description": description, "config": cfg,
                "steps": steps}
        if version_sensitive:
            case["version_sensitive"] = True
        cases.append(case)
    return scenario


def check(at, expect):
    return {"at_ms": at, "op": "check", "expect": expect}


def commit(at, member_id, epoch, offsets, expect, **fields):
    s = {"at_ms": at, "op": "commit", "member_id": member_id, "member_epoch": epoch, "offsets": offsets}
    s.update(fields)
    s["expect"] = expect
    return s


def scenario(id_, category, method, description, cfg, steps, *, note=None, suite=GMMT):
    src = {"suite": suite, "method": method, "commit": COMMIT}
    if note:
        src["note"] = note
    SCENARIOS.append({"id": id_, "category": category, "source": src, "description": description, "config": cfg,
                      "steps": steps})


def member(mid, epoch, prev, subs, assigned, *, state="STABLE", instance=None, assignor="range", rto=None,
           pending=None):
    m = {"member_id": mid, "state": state, "member_epoch": epoch, "previous_member_epoch": prev,
         "subscribed_topic_names": subs, "server_assignor": assignor, "assigned": assigned}
    if instance is not None:
        m["instance_id"] = instance
    if rto is not None:
        m["rebalance_timeout_ms"] = rto
    if pending:
        m["pending_revocation"] = pending
    return m


def seed(members, target, *, epoch=10, assignment_epoch=None, meta=None, at=0):
    s = {"at_ms": at, "op": "seed", "group_epoch": epoch,
         "assignment_epoch": epoch if assignment_epoch is None else assignment_epoch,
         "members": members, "target_assignment": target, "expect": {}}
    if meta is not None:
        s["subscription_metadata"] = meta
    return s


def prepare(assignment, at=0, fail=False):
    s = {"at_ms": at, "op": "prepare_assignment", "expect": {}}
    if fail:
        s["fail"] = True
    else:
        s["assignment"] = assignment
    return s


def hb(at, member_id, epoch, expect, **fields):
    s = {"at_ms": at, "op": "heartbeat", "member_id": member_id, "member_epoch": epoch}
    s.update(fields)
    s["expect"] = expect
    return s


def join(at, member_id, expect, subs=("foo", "bar"), rto=5000, assignor="range", **fields):
    f = {"rebalance_timeout_ms": rto, "subscribed_topic_names": list(subs), "topic_partitions": {}}
    if assignor is not None:
        f["server_assignor"] = assignor
    f.update(fields)
    return hb(at, member_id, 0, expect, **f)


def leave(at, member_id, epoch, expect, **fields):
    s = {"at_ms": at, "op": "leave", "member_id": member_id, "member_epoch": epoch}
    s.update(fields)
    s["expect"] = expect
    return s


def advance(at, expect):
    return {"at_ms": at, "op": "advance_time", "expect": expect}


def ca(mid, state, epoch, prev, assigned, pending=None):
    return {"type": "CurrentAssignment", "member": mid, "state": state, "member_epoch": epoch,
            "previous_member_epoch": prev, "assigned": assigned, "pending_revocation": pending or {}}


def mm(mid, subs, *, rto=None, assignor="range", instance=None):
    r = {"type": "MemberMetadata", "member": mid, "subscribed_topic_names": list(subs)}
    if instance is not None:
        r["instance_id"] = instance
    if rto is not None:
        r["rebalance_timeout_ms"] = rto
    if assignor is not None:
        r["server_assignor"] = assignor
    return r


def ta(mid, assignment):
    return {"type": "TargetAssignment", "member": mid, "assignment": assignment}


def tombstones(mid):
    return [{"type": "CurrentAssignmentTombstone", "member": mid}, {"type": "TargetAssignmentTombstone", "member": mid},
            {"type": "MemberMetadataTombstone", "member": mid}]


def epoch_rec(e):
    return {"type": "GroupEpoch", "epoch": e}


def ta_epoch(e):
    return {"type": "TargetAssignmentEpoch", "epoch": e}


def pm(topics):
    return {"type": "PartitionMetadata", "topics": topics}


def two_members_seed(m2_subs=("foo", "bar"), instance=False, rto=None):
    i1 = "m1" if instance else None
    i2 = "m2" if instance else None
    return seed([member("m1", 10, 9, ["foo", "bar"], {"foo-id": [0, 1, 2], "bar-id": [0, 1]}, instance=i1, rto=rto),
                 member("m2", 10, 9, list(m2_subs), {"foo-id": [3, 4, 5], "bar-id": [2]}, instance=i2, rto=rto)],
                {"m1": {"foo-id": [0, 1, 2], "bar-id": [0, 1]}, "m2": {"foo-id": [3, 4, 5], "bar-id": [2]}})


# ============================================================================ validation and lookup
def _validation():
    cfg = config()
    rid = {"member_id": "some-member"}
    scenario("validation-request-fields", "validation", "testConsumerHeartbeatRequestValidation",
             "Request validation happens before any group lookup: empty/blank group id, missing rebalance timeout, "
             "owned partitions or subscription at epoch 0, empty member id at epoch > 0, empty instance or rack id "
             "are INVALID_REQUEST; an unknown server assignor is UNSUPPORTED_ASSIGNOR; epoch -2 without instance id "
             "is INVALID_REQUEST.", cfg, [
                 hb(0, "", 0, {"error": "INVALID_REQUEST"}, group_id=""),
                 hb(0, "", 0, {"error": "INVALID_REQUEST"}, group_id="   "),
                 hb(0, "", 0, {"error": "INVALID_REQUEST", "group_state_after": None}, group_id="foo"),
                 hb(0, "", 0, {"error": "INVALID_REQUEST"}, group_id="foo", rebalance_timeout_ms=5000),
                 hb(0, "", 0, {"error": "INVALID_REQUEST"}, group_id="foo", rebalance_timeout_ms=5000,
                    topic_partitions={}),
                 hb(0, "", 1, {"error": "INVALID_REQUEST"}, group_id="foo"),
                 hb(0, "some-member", 1, {"error": "INVALID_REQUEST"}, group_id="foo", instance_id=""),
                 hb(0, "some-member", 1, {"error": "INVALID_REQUEST"}, group_id="foo", rack_id=""),
                 hb(0, "some-member", 1, {"error": "UNSUPPORTED_ASSIGNOR"}, group_id="foo", server_assignor="bar"),
                 leave(0, "some-member", -2, {"error": "INVALID_REQUEST"}, group_id="foo", rebalance_timeout_ms=5000,
                       subscribed_topic_names=["foo", "bar"], topic_partitions={}),
             ], note="Each request is the test's, in order; the group 'foo' never exists. Fields the test does not "
                     "set are absent (null / -1 / empty member id).")
    del rid
    scenario("validation-regex-not-supported", "validation", "testConsumerHeartbeatRegexValidation",
             "At this commit a subscribed topic regex is refused with INVALID_REQUEST.", cfg, [
                 hb(0, "", 0, {"error": "INVALID_REQUEST"}, group_id="foo", rebalance_timeout_ms=5000,
                    subscribed_topic_regex="t*"),
             ], note="version_sensitive: regex subscriptions are accepted by later releases (KIP-848 regex support).")
    SCENARIOS[-1]["version_sensitive"] = True
    scenario("join-generated-member-id", "join", "testMemberIdGeneration",
             "A member joining with an empty member id gets an id generated by the coordinator, epoch 1 and an "
             "empty (present) assignment when the metadata image has no topics.",
             config({}, group_id="group-foo"), [
                 prepare({}),
                 join(0, "", {"error": "NONE", "member_id_generated": True, "member_id": "new", "member_epoch": 1,
                              "heartbeat_interval_ms": 5000, "assignment": {}}, bind_member="new"),
             ], note="member_id 'new' is the symbol bound to the generated id.")
    scenario("unknown-group-nonzero-epoch", "lookup", "testUnknownGroupId",
             "A heartbeat with epoch > 0 to a group that does not exist is GROUP_ID_NOT_FOUND.", config(), [
                 hb(0, "m1", 100, {"error": "GROUP_ID_NOT_FOUND", "group_state_after": None}, rebalance_timeout_ms=5000,
                    subscribed_topic_names=["foo", "bar"], topic_partitions={}),
             ])
    scenario("unknown-member-nonzero-epoch", "lookup", "testUnknownMemberIdJoinsConsumerGroup",
             "After a first member created the group, an unknown member id with epoch 1 is UNKNOWN_MEMBER_ID.",
             config(assignors=("no-op",), mode="noop"), [
                 join(0, "m1", {"error": "NONE", "member_epoch": 1}, assignor="no-op"),
                 hb(0, "m2", 1, {"error": "UNKNOWN_MEMBER_ID", "members_after": ["m1"]}, rebalance_timeout_ms=5000,
                    subscribed_topic_names=["foo", "bar"], topic_partitions={}),
             ], note="The test's image has no topics (default context); members_after follows from the failed request "
                     "writing nothing.")
    scenario("static-epoch-validation", "fencing", "testConsumerGroupMemberEpochValidationForStaticMember",
             "Static member at epoch 100 (previous 99): epochs 200, 50 and 99 without owned partitions are "
             "FENCED_MEMBER_EPOCH; 99 with owned partitions that are a subset of the assignment is answered with 100.",
             config(), [
                 seed([member("m1", 100, 99, ["foo", "bar"], {"foo-id": [1, 2, 3]}, instance="m1", rto=5000)],
                      {"m1": {"foo-id": [1, 2, 3]}}, epoch=100, meta={}),
                 hb(0, "m1", 200, {"error": "FENCED_MEMBER_EPOCH"}, instance_id="m1", rebalance_timeout_ms=5000,
                    subscribed_topic_names=["foo", "bar"]),
                 hb(0, "m1", 50, {"error": "FENCED_MEMBER_EPOCH"}, instance_id="m1", rebalance_timeout_ms=5000,
                    subscribed_topic_names=["foo", "bar"]),
                 hb(0, "m1", 99, {"error": "FENCED_MEMBER_EPOCH"}, instance_id="m1", rebalance_timeout_ms=5000,
                    subscribed_topic_names=["foo", "bar"]),
                 hb(0, "m1", 99, {"error": "NONE", "member_epoch": 100}, instance_id="m1", rebalance_timeout_ms=5000,
                    subscribed_topic_names=["foo", "bar"], topic_partitions={"foo-id": [1, 2]}),
             ], note="Group built by replaying records without a subscription-metadata record; the topics image is "
                     "empty.")


_validation()


# ============================================================================ epochs and target assignment
def _epochs():
    scenario("subscription-change-bumps-epoch", "join", "testUpdatingSubscriptionTriggersNewTargetAssignment",
             "A stable member adds 'bar' to its subscription: member metadata, new subscription metadata (foo 6, bar 3), "
             "group epoch 11, new target and the member at epoch 11 with foo 0-5 and bar 0-2.",
             config(FOO_BAR), [
                 seed([member("m1", 10, 9, ["foo"], {"foo-id": [0, 1, 2, 3, 4, 5]})],
                      {"m1": {"foo-id": [0, 1, 2, 3, 4, 5]}}),
                 prepare({"m1": {"foo-id": [0, 1, 2, 3, 4, 5], "bar-id": [0, 1, 2]}}),
                 hb(0, "m1", 10, {
                     "error": "NONE", "member_id": "m1", "member_epoch": 11, "heartbeat_interval_ms": 5000,
                     "assignment": {"foo-id": [0, 1, 2, 3, 4, 5], "bar-id": [0, 1, 2]},
                     "records": [mm("m1", ["foo", "bar"]), pm({"foo": 6, "bar": 3}), epoch_rec(11),
                                 ta("m1", {"foo-id": [0, 1, 2, 3, 4, 5], "bar-id": [0, 1, 2]}), ta_epoch(11),
                                 ca("m1", "STABLE", 11, 10, {"foo-id": [0, 1, 2, 3, 4, 5], "bar-id": [0, 1, 2]})],
                     "group_state_after": "Stable"},
                    subscribed_topic_names=["foo", "bar"]),
             ], note="group_state_after follows from maybeUpdateGroupState.")
    scenario("static-new-member-bumps-epoch", "static_member", "testGroupEpochBumpWhenNewStaticMemberJoins",
             "A new static member joins a group of two static members: group epoch 11, a new target for all three; "
             "its partitions are still owned, so it is UNRELEASED_PARTITIONS at 11 with an empty assignment.",
             config(FOO_BAR), [
                 seed([member("m1", 10, 9, ["foo", "bar"], {"foo-id": [0, 1, 2], "bar-id": [0, 1]}, instance="m1"),
                       member("m2", 10, 9, ["foo", "bar", "zar"], {"foo-id": [3, 4, 5], "bar-id": [2]}, instance="m2")],
                      {"m1": {"foo-id": [0, 1, 2], "bar-id": [0, 1]}, "m2": {"foo-id": [3, 4, 5], "bar-id": [2]}}),
                 prepare({"m1": {"foo-id": [0, 1], "bar-id": [0]}, "m2": {"foo-id": [2, 3], "bar-id": [1]},
                          "m3": {"foo-id": [4, 5], "bar-id": [2]}}),
                 join(0, "m3", {
                     "error": "NONE", "member_id": "m3", "member_epoch": 11, "heartbeat_interval_ms": 5000,
                     "assignment": {},
                     "static_members_after": {"m1": "m1", "m2": "m2", "m3": "m3"},
                     "records": [mm("m3", ["foo", "bar"], rto=5000, instance="m3"), epoch_rec(11),
                                 ta("m1", {"foo-id": [0, 1], "bar-id": [0]}), ta("m2", {"foo-id": [2, 3], "bar-id": [1]}),
                                 ta("m3", {"foo-id": [4, 5], "bar-id": [2]}), ta_epoch(11),
                                 ca("m3", "UNRELEASED_PARTITIONS", 11, 0, {})],
                     "records_unordered_ranges": [[2, 5]]}, instance_id="m3"),
             ], note="'zar' is not in the image, so the subscription metadata stays foo+bar (no record).")
    scenario("static-rejoin-new-subscription", "static_member", "testStaticMemberRejoinsWithNewSubscribedTopics",
             "A static member leaves with -2 and rejoins under a new member id subscribing to foo and bar: the old id is "
             "tombstoned, the copy is written (epoch 0, old subscription), then the new subscription bumps the group "
             "epoch to 11 and the member gets foo 3-5 and bar 0-2 at once.",
             config(FOO_BAR), [
                 seed([member("m1", 10, 9, ["foo"], {"foo-id": [0, 1, 2]}, instance="instance-id-1", rto=5000),
                       member("m2", 10, 9, ["foo"], {"foo-id": [3, 4, 5]}, instance="instance-id-2", rto=5000)],
                      {"m1": {"foo-id": [0, 1, 2]}, "m2": {"foo-id": [3, 4, 5]}}, meta={"foo": 6}),
                 prepare({"m1": {"foo-id": [0, 1, 2]}, "m2-rejoin": {"foo-id": [3, 4, 5], "bar-id": [0, 1, 2]}}),
                 leave(0, "m2", -2, {"error": "NONE", "member_id": "m2", "member_epoch": -2,
                                     "records": [ca("m2", "STABLE", -2, 9, {"foo-id": [3, 4, 5]})]},
                       instance_id="instance-id-2"),
                 join(0, "m2-rejoin", {
                     "error": "NONE", "member_id": "m2-rejoin", "member_epoch": 11, "heartbeat_interval_ms": 5000,
                     "assignment": {"foo-id": [3, 4, 5], "bar-id": [0, 1, 2]},
                     "session_deadline_after": {"m2": None}, "rebalance_deadline_after": {"m2": None},
                     "records": tombstones("m2") + [
                         mm("m2-rejoin", ["foo"], rto=5000, instance="instance-id-2"),
                         ta("m2-rejoin", {"foo-id": [3, 4, 5]}),
                         ca("m2-rejoin", "STABLE", 0, 0, {"foo-id": [3, 4, 5]}),
                         mm("m2-rejoin", ["foo", "bar"], rto=5000, instance="instance-id-2"),
                         pm({"foo": 6, "bar": 3}), epoch_rec(11),
                         ta("m2-rejoin", {"foo-id": [3, 4, 5], "bar-id": [0, 1, 2]}), ta_epoch(11),
                         ca("m2-rejoin", "STABLE", 11, 0, {"foo-id": [3, 4, 5], "bar-id": [0, 1, 2]})]},
                      instance_id="instance-id-2"),
             ])
    scenario("static-temporary-leave-no-bump", "static_member", "testNoGroupEpochBumpWhenStaticMemberTemporarilyLeaves",
             "A static member leaving with epoch -2 keeps its place: one current-assignment record at epoch -2, no "
             "group epoch bump, response {member id, -2}.", config(FOO_BAR), [
                 two_members_seed(instance=True),
                 leave(0, "m2", -2, {"error": "NONE", "member_id": "m2", "member_epoch": -2, "heartbeat_interval_ms": 0,
                                     "assignment": None, "group_epoch_after": 10,
                                     "members_after": ["m1", "m2"],
                                     "member_after": {"m2": {"member_epoch": -2, "previous_member_epoch": 9}},
                                     "records": [ca("m2", "STABLE", -2, 9, {"foo-id": [3, 4, 5], "bar-id": [2]})]},
                       instance_id="m2", rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                       topic_partitions={}),
             ], note="group_epoch_after/members_after/member_after follow from the single record.")
    scenario("static-leave-minus-one-bumps-epoch", "leave", "testLeavingStaticMemberBumpsGroupEpoch",
             "A static member leaving with epoch -1 is removed like a dynamic one: tombstones, subscription metadata "
             "without 'zar', group epoch 11.", config(dict(FOO_BAR, zar={"id": "zar-id", "partitions": 1})), [
                 two_members_seed(m2_subs=("foo", "bar", "zar"), instance=True),
                 leave(0, "m2", -1, {"error": "NONE", "member_id": "m2", "member_epoch": -1,
                                     "static_members_after": {"m1": "m1"},
                                     "records": tombstones("m2") + [pm({"foo": 6, "bar": 3}), epoch_rec(11)]},
                       instance_id="m2", rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                       topic_partitions={}),
             ])
    scenario("static-instance-in-use-unreleased", "static_member",
             "testShouldThrownUnreleasedInstanceIdExceptionWhenNewMemberJoinsWithInUseInstanceId",
             "A new member id joining with an instance id still held by a live member (epoch 10) is UNRELEASED_INSTANCE_ID.",
             config({"foo": {"id": "foo-id", "partitions": 6}}), [
                 seed([member("m1", 10, 9, ["foo", "bar"], {"foo-id": [0, 1, 2]}, instance="m1")],
                      {"m1": {"foo-id": [0, 1, 2]}}),
                 join(0, "m2", {"error": "UNRELEASED_INSTANCE_ID", "members_after": ["m1"]}, instance_id="m1"),
             ])
    scenario("static-unknown-instance-nonzero-epoch", "static_member",
             "testShouldThrownUnknownMemberIdExceptionWhenUnknownStaticMemberJoins",
             "A static member with an unknown instance id and epoch 10 is UNKNOWN_MEMBER_ID.",
             config({"foo": {"id": "foo-id", "partitions": 6}}), [
                 seed([member("m1", 10, 9, ["foo", "bar"], {"foo-id": [0, 1, 2]}, instance="m1")],
                      {"m1": {"foo-id": [0, 1, 2]}}),
                 hb(0, "m2", 10, {"error": "UNKNOWN_MEMBER_ID"}, instance_id="m2", rebalance_timeout_ms=5000,
                    server_assignor="range", subscribed_topic_names=["foo", "bar"], topic_partitions={}),
             ])
    scenario("static-other-member-id-fenced", "static_member",
             "testShouldThrowFencedInstanceIdExceptionWhenStaticMemberWithDifferentMemberIdJoins",
             "A heartbeat (epoch 11) with a known instance id but another member id is FENCED_INSTANCE_ID.",
             config({"foo": {"id": "foo-id", "partitions": 6}}), [
                 seed([member("m1", 10, 9, ["foo", "bar"], {"foo-id": [0, 1, 2]}, instance="m1")],
                      {"m1": {"foo-id": [0, 1, 2]}}),
                 hb(0, "unknown-m1", 11, {"error": "FENCED_INSTANCE_ID"}, instance_id="m1", rebalance_timeout_ms=5000,
                    subscribed_topic_names=["foo", "bar"], topic_partitions={}),
             ])
    scenario("static-leave-unknown-instance", "static_member",
             "testShouldThrowUnknownMemberIdExceptionWhenUnknownStaticMemberLeaves",
             "A -2 leave naming an unknown instance id is UNKNOWN_MEMBER_ID.",
             config({"foo": {"id": "foo-id", "partitions": 6}}), [
                 seed([member("m1", 10, 9, ["foo", "bar"], {"foo-id": [0, 1, 2]}, instance="m1")],
                      {"m1": {"foo-id": [0, 1, 2]}}),
                 leave(0, "m1", -2, {"error": "UNKNOWN_MEMBER_ID"}, instance_id="unknown-m1", rebalance_timeout_ms=5000,
                       subscribed_topic_names=["foo", "bar"], topic_partitions={}),
             ])
    scenario("static-leave-other-member-id", "static_member",
             "testShouldThrowFencedInstanceIdExceptionWhenStaticMemberWithDifferentMemberIdLeaves",
             "A -2 leave for a known instance id from another member id is FENCED_INSTANCE_ID.",
             config({"foo": {"id": "foo-id", "partitions": 6}}), [
                 seed([member("m1", 10, 9, ["foo", "bar"], {"foo-id": [0, 1, 2]}, instance="m1")],
                      {"m1": {"foo-id": [0, 1, 2]}}),
                 leave(0, "unknown-m1", -2, {"error": "FENCED_INSTANCE_ID", "member_after": {"m1": {"member_epoch": 10}}},
                       instance_id="m1", rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                       topic_partitions={}),
             ])


_epochs()


# ============================================================================ reconciliation
def _reconciliation():
    F, B = "foo-id", "bar-id"
    steps = [
        seed([member("m1", 10, 9, ["foo", "bar"], {F: [0, 1, 2], B: [0, 1]}, rto=5000),
              member("m2", 10, 9, ["foo", "bar"], {F: [3, 4, 5], B: [2]}, rto=5000)],
             {"m1": {F: [0, 1, 2], B: [0, 1]}, "m2": {F: [3, 4, 5], B: [2]}}),
        prepare({"m1": {F: [0, 1], B: [0]}, "m2": {F: [2, 3], B: [2]}, "m3": {F: [4, 5], B: [1]}}),
        {"at_ms": 0, "op": "check", "expect": {"group_state_after": "Stable",
                                                "member_after": {"m1": {"state": "STABLE"}, "m2": {"state": "STABLE"}}}},
        join(0, "m3", {"error": "NONE", "member_id": "m3", "member_epoch": 11, "heartbeat_interval_ms": 5000,
                       "assignment": {}, "group_state_after": "Reconciling",
                       "member_after": {"m3": {"state": "UNRELEASED_PARTITIONS"}}}),
        hb(0, "m1", 10, {"error": "NONE", "member_id": "m1", "member_epoch": 10, "heartbeat_interval_ms": 5000,
                         "assignment": {F: [0, 1], B: [0]},
                         "records": [ca("m1", "UNREVOKED_PARTITIONS", 10, 10, {F: [0, 1], B: [0]}, {F: [2], B: [1]})],
                         "group_state_after": "Reconciling", "member_after": {"m1": {"state": "UNREVOKED_PARTITIONS"}}}),
        hb(0, "m2", 10, {"error": "NONE", "member_id": "m2", "member_epoch": 10, "heartbeat_interval_ms": 5000,
                         "assignment": {F: [3], B: [2]},
                         "records": [ca("m2", "UNREVOKED_PARTITIONS", 10, 10, {F: [3], B: [2]}, {F: [4, 5]})],
                         "group_state_after": "Reconciling", "member_after": {"m2": {"state": "UNREVOKED_PARTITIONS"}}}),
        hb(0, "m3", 11, {"error": "NONE", "member_id": "m3", "member_epoch": 11, "heartbeat_interval_ms": 5000,
                         "assignment": None, "records": [ca("m3", "UNRELEASED_PARTITIONS", 11, 11, {})],
                         "group_state_after": "Reconciling"}),
        hb(0, "m1", 10, {"error": "NONE", "member_id": "m1", "member_epoch": 11, "heartbeat_interval_ms": 5000,
                         "assignment": None, "records": [ca("m1", "STABLE", 11, 10, {F: [0, 1], B: [0]})],
                         "group_state_after": "Reconciling", "member_after": {"m1": {"state": "STABLE"}}},
           topic_partitions={F: [0, 1], B: [0]}),
        hb(0, "m2", 10, {"error": "NONE", "member_id": "m2", "member_epoch": 10, "heartbeat_interval_ms": 5000,
                         "assignment": None, "records": [], "group_state_after": "Reconciling",
                         "member_after": {"m2": {"state": "UNREVOKED_PARTITIONS"}}}),
        hb(0, "m3", 11, {"error": "NONE", "member_id": "m3", "member_epoch": 11, "heartbeat_interval_ms": 5000,
                         "assignment": {B: [1]}, "records": [ca("m3", "UNRELEASED_PARTITIONS", 11, 11, {B: [1]})],
                         "group_state_after": "Reconciling"}),
        hb(0, "m3", 11, {"error": "NONE", "member_id": "m3", "member_epoch": 11, "heartbeat_interval_ms": 5000,
                         "assignment": None, "records": [], "group_state_after": "Reconciling",
                         "member_after": {"m3": {"state": "UNRELEASED_PARTITIONS"}}}),
        hb(0, "m2", 10, {"error": "NONE", "member_id": "m2", "member_epoch": 11, "heartbeat_interval_ms": 5000,
                         "assignment": {F: [2, 3], B: [2]}, "records": [ca("m2", "STABLE", 11, 10, {F: [2, 3], B: [2]})],
                         "group_state_after": "Reconciling", "member_after": {"m2": {"state": "STABLE"}}},
           topic_partitions={F: [3], B: [2]}),
        hb(0, "m3", 11, {"error": "NONE", "member_id": "m3", "member_epoch": 11, "heartbeat_interval_ms": 5000,
                         "assignment": {F: [4, 5], B: [1]}, "records": [ca("m3", "STABLE", 11, 11, {F: [4, 5], B: [1]})],
                         "group_state_after": "Stable", "member_after": {"m3": {"state": "STABLE"}}},
           topic_partitions={B: [1]}),
    ]
    steps[3]["expect"]["records_last"] = ca("m3", "UNRELEASED_PARTITIONS", 11, 0, {})
    scenario("reconciliation-process-three-members", "reconciliation", "testReconciliationProcess",
             "A third member joins a stable group: the owners first revoke (UNREVOKED_PARTITIONS at 10), the newcomer "
             "waits (UNRELEASED_PARTITIONS at 11) and gets each partition only after its owner acknowledged the "
             "revocation; a member that still reports a partition to revoke stays where it is; the group is Stable "
             "once all three are STABLE at 11.", config(FOO_BAR), steps,
             note="The test asserts only the last record of the join (records_last); 'records': [] is the test's "
                  "assertEquals(emptyList, records).")


_reconciliation()


# ============================================================================ size, states, assignor failure
def _misc():
    scenario("max-size-new-member-rejected", "max_size", "testNewMemberIsRejectedWithMaximumMembersIsReached",
             "With group.consumer.max.size 2 and two members, a third member joining is GROUP_MAX_SIZE_REACHED; a "
             "member of the group still heartbeats.", config(FOO_BAR, max_size=2), [
                 two_members_seed(rto=5000),
                 join(0, "m3", {"error": "GROUP_MAX_SIZE_REACHED", "members_after": ["m1", "m2"],
                                "group_epoch_after": 10}),
                 join(0, "", {"error": "GROUP_MAX_SIZE_REACHED"}),
                 hb(0, "m1", 10, {"error": "NONE", "member_epoch": 10}),
             ], note="The last two steps follow from throwIfConsumerGroupIsFull (empty member id; known member): not "
                     "asserted by the test.")
    F = "foo-id"
    scenario("group-states-from-records", "group_state", "testConsumerGroupStates",
             "The group state is derived: no members -> Empty; group epoch above the target epoch -> Assigning; a "
             "member not STABLE at the target epoch -> Reconciling; everyone STABLE at it -> Stable.",
             config({"foo": {"id": F, "partitions": 6}}), [
                 seed([], {}, epoch=10, assignment_epoch=0),
                 {"at_ms": 0, "op": "check", "expect": {"group_state_after": "Empty"}},
                 seed([member("m1", 0, -1, ["foo"], {}, assignor=None)], {}, epoch=11, assignment_epoch=0),
                 {"at_ms": 0, "op": "check", "expect": {"group_state_after": "Assigning"}},
                 seed([member("m1", 0, -1, ["foo"], {}, assignor=None)], {"m1": {F: [1, 2, 3]}}, epoch=11),
                 {"at_ms": 0, "op": "check", "expect": {"group_state_after": "Reconciling"}},
                 seed([member("m1", 11, 10, ["foo"], {F: [1, 2, 3]}, state="UNREVOKED_PARTITIONS", assignor=None)],
                      {"m1": {F: [1, 2, 3]}}, epoch=11),
                 {"at_ms": 0, "op": "check", "expect": {"group_state_after": "Reconciling"}},
                 seed([member("m1", 11, 10, ["foo"], {F: [1, 2, 3]}, assignor=None)], {"m1": {F: [1, 2, 3]}}, epoch=11),
                 {"at_ms": 0, "op": "check", "expect": {"group_state_after": "Stable"}},
             ], note="The test replays records one by one on one group; each seed here loads the group as it stands "
                     "after those records (a seed replaces the group).")
    scenario("assignor-failure-unknown-server-error", "assignor", "testPartitionAssignorExceptionOnRegularHeartbeat",
             "When the assignor throws, the heartbeat fails with UNKNOWN_SERVER_ERROR and nothing is written (the "
             "group is not created).", config(FOO_BAR), [
                 prepare(None, fail=True),
                 join(0, "m1", {"error": "UNKNOWN_SERVER_ERROR", "group_state_after": None}),
             ], note="group_state_after: the new group would only be materialized by the records, which are not "
                     "written on an error.")


_misc()


# ============================================================================ metadata
def _metadata():
    scenario("metadata-change-requests-refresh", "metadata_change", "testOnNewMetadataImage",
             "A metadata change of a topic the group subscribes to resets the refresh deadline (expired at once); a "
             "change of another topic does not; the next heartbeat recomputes the subscription metadata and bumps the "
             "group epoch.", config({"foo": {"id": "foo-id", "partitions": 3}, "zed": {"id": "zed-id", "partitions": 1}},
                                   refresh=300000), [
                 seed([member("m1", 10, 10, ["foo"], {"foo-id": [0, 1, 2]}, rto=5000)], {"m1": {"foo-id": [0, 1, 2]}},
                      meta={"foo": 3}),
                 hb(1000, "m1", 10, {"error": "NONE", "member_epoch": 10, "records": [],
                                     "metadata_refresh_deadline_after": {"deadline_ms": 301000, "epoch": 10}}),
                 {"at_ms": 2000, "op": "metadata_change", "topics": {"zed": {"id": "zed-id", "partitions": 2}},
                  "expect": {"metadata_refresh_deadline_after": {"deadline_ms": 301000, "epoch": 10}}},
                 {"at_ms": 3000, "op": "metadata_change", "topics": {"foo": {"id": "foo-id", "partitions": 4}},
                  "expect": {"metadata_refresh_deadline_after": {"deadline_ms": 0, "epoch": 0}}},
                 prepare({"m1": {"foo-id": [0, 1, 2, 3]}}, at=4000),
                 hb(4000, "m1", 10, {"error": "NONE", "member_epoch": 11, "assignment": {"foo-id": [0, 1, 2, 3]},
                                     "subscription_metadata_after": {"foo": 4},
                                     "metadata_refresh_deadline_after": {"deadline_ms": 304000, "epoch": 11},
                                     "records": [pm({"foo": 4}), epoch_rec(11), ta("m1", {"foo-id": [0, 1, 2, 3]}),
                                                 ta_epoch(11), ca("m1", "STABLE", 11, 10, {"foo-id": [0, 1, 2, 3]})]}),
             ], note="The test checks hasMetadataExpired per group after onNewMetadataImage (groups subscribed to a "
                     "created, changed or deleted topic expire; others do not); the heartbeats around it follow "
                     "ModernGroup.hasMetadataExpired/setMetadataRefreshDeadline and consumerGroupHeartbeat.")
    scenario("metadata-topic-deleted", "metadata_change", "testOnNewMetadataImage",
             "Deleting a subscribed topic requests a refresh: the next heartbeat drops it from the subscription "
             "metadata, bumps the epoch and the member revokes its partitions.",
             config({"foo": {"id": "foo-id", "partitions": 2}, "bar": {"id": "bar-id", "partitions": 1}},
                    refresh=300000), [
                 seed([member("m1", 10, 10, ["foo", "bar"], {"foo-id": [0, 1], "bar-id": [0]}, rto=5000)],
                      {"m1": {"foo-id": [0, 1], "bar-id": [0]}}, meta={"foo": 2, "bar": 1}),
                 hb(0, "m1", 10, {"error": "NONE", "member_epoch": 10, "records": []}),
                 {"at_ms": 100, "op": "metadata_change", "topics": {}, "deleted": ["bar"],
                  "expect": {"metadata_refresh_deadline_after": {"deadline_ms": 0, "epoch": 0}}},
                 prepare({"m1": {"foo-id": [0, 1]}}, at=200),
                 hb(200, "m1", 10, {"error": "NONE", "member_epoch": 10, "assignment": {"foo-id": [0, 1]},
                                    "subscription_metadata_after": {"foo": 2},
                                    "member_after": {"m1": {"state": "UNREVOKED_PARTITIONS",
                                                            "pending_revocation": {"bar-id": [0]}}},
                                    "rebalance_deadline_after": {"m1": 5200},
                                    "records": [pm({"foo": 2}), epoch_rec(11), ta("m1", {"foo-id": [0, 1]}),
                                                ta_epoch(11),
                                                ca("m1", "UNREVOKED_PARTITIONS", 10, 10, {"foo-id": [0, 1]},
                                                   {"bar-id": [0]})]}),
             ], note="Deleted topics notify their groups (onNewMetadataImage); the rest follows consumerGroupHeartbeat "
                     "and CurrentAssignmentBuilder (owned partitions not sent = still owned).")


_metadata()


# ============================================================================ timers
def _timers():
    foo6 = {"foo": {"id": "foo-id", "partitions": 6}}
    scenario("session-timeout-lifecycle", "session_timeout", "testSessionTimeoutLifecycle",
             "Every accepted heartbeat re-arms the session timer (45 s); leaving with -1 cancels both timers.",
             config(foo6), [
                 prepare({"m1": {"foo-id": [0, 1, 2, 3, 4, 5]}}),
                 join(0, "m1", {"error": "NONE", "member_epoch": 1, "session_deadline_after": {"m1": 45000}},
                      subs=("foo",), rto=90000, assignor=None),
                 advance(5000, {"fenced": []}),
                 hb(5000, "m1", 1, {"error": "NONE", "member_epoch": 1, "session_deadline_after": {"m1": 50000}}),
                 advance(10000, {"fenced": []}),
                 leave(10000, "m1", -1, {"error": "NONE", "member_epoch": -1,
                                         "session_deadline_after": {"m1": None}, "rebalance_deadline_after": {"m1": None}}),
             ])
    scenario("session-timeout-static-after-temporary-leave", "session_timeout",
             "testSessionTimeoutExpirationStaticMember",
             "A static member that left with -2 keeps its session timer; when it expires the member is fenced: "
             "tombstones, empty subscription metadata, group epoch 2.", config(foo6), [
                 prepare({"m1": {"foo-id": [0, 1, 2, 3, 4, 5]}}),
                 join(0, "m1", {"error": "NONE", "member_epoch": 1, "session_deadline_after": {"m1": 45000}},
                      subs=("foo",), rto=90000, assignor=None, instance_id="m1"),
                 leave(0, "m1", -2, {"error": "NONE", "member_epoch": -2, "session_deadline_after": {"m1": 45000}},
                       instance_id="m1", rebalance_timeout_ms=90000, subscribed_topic_names=["foo"],
                       topic_partitions={}),
                 advance(45001, {"fenced": ["m1"], "members_after": [], "static_members_after": {},
                                 "group_epoch_after": 2, "group_state_after": "Empty",
                                 "session_deadline_after": {"m1": None}, "rebalance_deadline_after": {"m1": None},
                                 "records": tombstones("m1") + [pm({}), epoch_rec(2)]}),
             ])
    scenario("rebalance-timeout-lifecycle", "rebalance_timeout", "testRebalanceTimeoutLifecycle",
             "A member asked to revoke gets a rebalance timer of its (updated) rebalance timeout, 12 s; acknowledging "
             "the revocation moves it to epoch 2 and cancels the timer.",
             config({"foo": {"id": "foo-id", "partitions": 3}}), [
                 prepare({"m1": {"foo-id": [0, 1, 2]}}),
                 join(0, "m1", {"error": "NONE", "member_id": "m1", "member_epoch": 1, "heartbeat_interval_ms": 5000,
                                "assignment": {"foo-id": [0, 1, 2]}}, subs=("foo",), rto=180000, assignor=None),
                 advance(5000, {"fenced": []}),
                 prepare({"m1": {"foo-id": [0, 1]}, "m2": {"foo-id": [2]}}, at=5000),
                 join(5000, "m2", {"error": "NONE", "member_id": "m2", "member_epoch": 2, "heartbeat_interval_ms": 5000,
                                   "assignment": {}}, subs=("foo",), rto=90000, assignor=None),
                 advance(10000, {"fenced": []}),
                 hb(10000, "m1", 1, {"error": "NONE", "member_id": "m1", "member_epoch": 1, "heartbeat_interval_ms": 5000,
                                     "assignment": {"foo-id": [0, 1]}, "rebalance_deadline_after": {"m1": 22000}},
                    rebalance_timeout_ms=12000, subscribed_topic_names=["foo"]),
                 advance(15000, {"fenced": []}),
                 hb(15000, "m1", 1, {"error": "NONE", "member_id": "m1", "member_epoch": 2, "heartbeat_interval_ms": 5000,
                                     "assignment": None, "rebalance_deadline_after": {"m1": None}},
                    topic_partitions={"foo-id": [0, 1]}),
                 advance(22001, {"fenced": [], "members_after": ["m1", "m2"]}),
             ], note="The last step: the test runs the cancelled timeout's operation and asserts it writes nothing "
                     "(the member left epoch 1).")


_timers()


# ============================================================================ dynamic config, classic groups
def _config_and_classic():
    scenario("dynamic-group-config", "group_config", "testConsumerGroupDynamicConfigs",
             "A dynamic group config changes the session timeout (50 s) and heartbeat interval (10 s) used from the "
             "next heartbeat on.", config({"foo": {"id": "foo-id", "partitions": 6}}), [
                 prepare({"m1": {"foo-id": [0, 1, 2, 3, 4, 5]}}),
                 join(0, "m1", {"error": "NONE", "member_epoch": 1, "heartbeat_interval_ms": 5000,
                                "session_deadline_after": {"m1": 45000}}, subs=("foo",), rto=90000, assignor=None),
                 advance(5000, {"fenced": []}),
                 {"at_ms": 5000, "op": "group_config",
                  "configs": {"consumer.session.timeout.ms": 50000, "consumer.heartbeat.interval.ms": 10000},
                  "expect": {}},
                 hb(5000, "m1", 1, {"error": "NONE", "member_epoch": 1, "heartbeat_interval_ms": 10000,
                                    "session_deadline_after": {"m1": 55000}}),
                 advance(15000, {"fenced": []}),
                 leave(15000, "m1", -1, {"error": "NONE", "member_epoch": -1, "heartbeat_interval_ms": 0,
                                         "session_deadline_after": {"m1": None}, "rebalance_deadline_after": {"m1": None}}),
             ])
    scenario("classic-group-not-empty-refused", "upgrade", "testConsumerGroupHeartbeatWithNonEmptyClassicGroup",
             "A consumer-protocol join to a group id held by a classic group that is not Empty (PreparingRebalance) "
             "is GROUP_ID_NOT_FOUND while the migration policy is disabled; the classic group stays.",
             config({}, assignors=("no-op",), mode="noop", group_id="classic-group-id"), [
                 {"at_ms": 0, "op": "seed_classic", "state": "PreparingRebalance", "expect": {"group_type_after": "classic"}},
                 join(0, "m1", {"error": "GROUP_ID_NOT_FOUND", "group_type_after": "classic"}, assignor="no-op"),
             ])
    scenario("leave-unknown-group", "leave", "testConsumerGroupHeartbeatWithNonEmptyClassicGroup",
             "A leave (-1) needs an existing consumer group: GROUP_ID_NOT_FOUND for a classic group id and for an "
             "unknown one.", config({}, assignors=("no-op",), mode="noop", group_id="classic-group-id"), [
                 {"at_ms": 0, "op": "seed_classic", "state": "Empty", "expect": {}},
                 leave(0, "m1", -1, {"error": "GROUP_ID_NOT_FOUND", "group_type_after": "classic"}),
                 leave(0, "m1", -1, {"error": "GROUP_ID_NOT_FOUND", "group_type_after": None}, group_id="other"),
             ], note="Deterministic reading of consumerGroupLeave -> consumerGroup(groupId) (the test covers the "
                     "heartbeat path of the same lookup).")


_config_and_classic()


# ============================================================================ offset commits
def _commits():
    cfg = config({}, group_id="foo")
    offs = {"bar-0": 100}
    scenario("commit-unknown-group-by-version", "offset_commit", "testOffsetCommitWithUnknownGroup",
             "A commit with generation/epoch 10 to an unknown group: GROUP_ID_NOT_FOUND from OffsetCommit v9, "
             "ILLEGAL_GENERATION for older versions.", cfg, [
                 {"at_ms": 0, "op": "commit", "member_id": "member", "member_epoch": 10, "offsets": offs,
                  "api_version": 9, "expect": {"error": "GROUP_ID_NOT_FOUND", "group_state_after": None}},
                 {"at_ms": 0, "op": "commit", "member_id": "member", "member_epoch": 10, "offsets": offs,
                  "api_version": 8, "expect": {"error": "ILLEGAL_GENERATION"}},
                 {"at_ms": 0, "op": "commit", "member_id": "member", "member_epoch": 10, "offsets": offs,
                  "api_version": 2, "expect": {"error": "ILLEGAL_GENERATION"}},
             ], suite=OMMT)
    scenario("commit-simple-group-created", "offset_commit", "testSimpleGroupOffsetCommit",
             "A commit without member id and with epoch -1 to an unknown group creates a simple (classic) group and "
             "is accepted.", cfg, [
                 {"at_ms": 0, "op": "commit", "member_id": "", "member_epoch": -1, "offsets": offs,
                  "expect": {"error": "NONE", "partition_errors": {"bar-0": "NONE"}, "group_type_after": "classic"}},
             ], suite=OMMT)
    scenario("commit-consumer-group-unknown-member", "offset_commit", "testConsumerGroupOffsetCommitWithUnknownMemberId",
             "A commit with epoch 10 from an unknown member to an empty consumer group is UNKNOWN_MEMBER_ID.", cfg, [
                 seed([], {}, epoch=0),
                 {"at_ms": 0, "op": "commit", "member_id": "member", "member_epoch": 10, "offsets": offs,
                  "expect": {"error": "UNKNOWN_MEMBER_ID"}},
             ], suite=OMMT)
    scenario("commit-consumer-group-classic-member-illegal-generation", "offset_commit",
             "testConsumerGroupOffsetCommitWithIllegalGenerationId",
             "In a consumer group, a member that uses the classic protocol committing with a wrong generation gets "
             "ILLEGAL_GENERATION (not STALE_MEMBER_EPOCH).", cfg, [
                 seed([dict(member("member", 10, 10, [], {}, assignor=None), uses_classic_protocol=True)], {}, epoch=0),
                 {"at_ms": 0, "op": "commit", "member_id": "member", "member_epoch": 9, "offsets": offs,
                  "expect": {"error": "ILLEGAL_GENERATION"}},
                 {"at_ms": 0, "op": "commit", "member_id": "member", "member_epoch": 11, "offsets": offs,
                  "expect": {"error": "ILLEGAL_GENERATION"}},
             ], suite=OMMT)
    scenario("commit-consumer-group-from-admin", "offset_commit", "testConsumerGroupOffsetCommitFromAdminClient",
             "A commit without member id and epoch (-1) to an empty consumer group (the admin client) is accepted.",
             cfg, [
                 seed([], {}, epoch=0),
                 {"at_ms": 0, "op": "commit", "member_id": "", "member_epoch": -1, "offsets": offs,
                  "expect": {"error": "NONE", "partition_errors": {"bar-0": "NONE"}, "group_type_after": "consumer"}},
             ], suite=OMMT)
    scenario("commit-consumer-member-old-version", "offset_commit", "testConsumerGroupOffsetCommit",
             "A consumer-protocol member must commit with OffsetCommit v9+: v8 is UNSUPPORTED_VERSION; v9 with its "
             "epoch is accepted.", cfg, [
                 seed([member("member", 10, 10, [], {}, assignor=None)], {}, epoch=0),
                 {"at_ms": 0, "op": "commit", "member_id": "member", "member_epoch": 10, "offsets": offs,
                  "api_version": 8, "expect": {"error": "UNSUPPORTED_VERSION"}},
                 {"at_ms": 0, "op": "commit", "member_id": "member", "member_epoch": 10, "offsets": offs,
                  "api_version": 9, "expect": {"error": "NONE", "partition_errors": {"bar-0": "NONE"}}},
             ], suite=OMMT, note="The v8 step follows from ConsumerGroup.validateOffsetCommit (not a separate test "
                                 "at this commit); the v9 step is the test's.")


_commits()


# ============================================================================ whole flows with the real assignors
def _flows():
    foo6 = {"foo": {"id": "foo-id", "partitions": 6}}
    real_u = dict(assignors=("uniform", "range"), mode="real")
    F = "foo-id"
    scenario("uniform-scale-out-revoke-then-assign", "reconciliation", "testReconciliationProcess",
             "Real 'uniform' assignor (the default, first configured): m1 owns foo 0-5; m2 joins -> group epoch 2, "
             "target m1 0-2 / m2 3-5; m2 waits (UNRELEASED_PARTITIONS) until m1 has revoked 3-5 "
             "(UNREVOKED_PARTITIONS at epoch 1, rebalance timer), then both are STABLE at 2.",
             config(foo6, **real_u), [
                 join(0, "m1", {"error": "NONE", "member_epoch": 1, "assignment": {F: [0, 1, 2, 3, 4, 5]},
                                "records": [mm("m1", ["foo"], rto=10000, assignor=None), pm({"foo": 6}), epoch_rec(1),
                                            ta("m1", {F: [0, 1, 2, 3, 4, 5]}), ta_epoch(1),
                                            ca("m1", "STABLE", 1, 0, {F: [0, 1, 2, 3, 4, 5]})]},
                      subs=("foo",), rto=10000, assignor=None),
                 join(1000, "m2", {"error": "NONE", "member_epoch": 2, "assignment": {},
                                   "group_state_after": "Reconciling",
                                   "target_assignment_after": {"m1": {F: [0, 1, 2]}, "m2": {F: [3, 4, 5]}},
                                   "records": [mm("m2", ["foo"], rto=10000, assignor=None), epoch_rec(2),
                                               ta("m1", {F: [0, 1, 2]}), ta("m2", {F: [3, 4, 5]}), ta_epoch(2),
                                               ca("m2", "UNRELEASED_PARTITIONS", 2, 0, {})],
                                   "records_unordered_ranges": [[2, 4]]},
                      subs=("foo",), rto=10000, assignor=None),
                 hb(2000, "m1", 1, {"error": "NONE", "member_epoch": 1, "assignment": {F: [0, 1, 2]},
                                    "rebalance_deadline_after": {"m1": 12000},
                                    "records": [ca("m1", "UNREVOKED_PARTITIONS", 1, 1, {F: [0, 1, 2]}, {F: [3, 4, 5]})]}),
                 hb(3000, "m2", 2, {"error": "NONE", "member_epoch": 2, "assignment": None,
                                    "records": [ca("m2", "UNRELEASED_PARTITIONS", 2, 2, {})]}),
                 hb(4000, "m1", 1, {"error": "NONE", "member_epoch": 2, "assignment": None,
                                    "rebalance_deadline_after": {"m1": None},
                                    "records": [ca("m1", "STABLE", 2, 1, {F: [0, 1, 2]})]},
                    topic_partitions={F: [0, 1, 2]}),
                 hb(5000, "m2", 2, {"error": "NONE", "member_epoch": 2, "assignment": {F: [3, 4, 5]},
                                    "group_state_after": "Stable",
                                    "records": [ca("m2", "STABLE", 2, 2, {F: [3, 4, 5]})]}),
                 advance(12001, {"fenced": [], "members_after": ["m1", "m2"]}),
             ], note="Deterministic reading of UniformHomogeneousAssignmentBuilder (quota 3 each, m1 keeps its first 3 "
                     "partitions, the rest dealt to m2), CurrentAssignmentBuilder and consumerGroupHeartbeat; the flow "
                     "is the one testReconciliationProcess asserts with a mock assignor.")
    steps = [dict(st) for st in SCENARIOS[[c["id"] for c in SCENARIOS].index("reconciliation-process-three-members")]["steps"]]
    steps = [st for st in steps if st["op"] != "prepare_assignment"]
    scenario("range-real-reconciliation-three-members", "reconciliation", "testReconciliationProcess",
             "The reconciliation flow of testReconciliationProcess with the real 'range' assignor: for three members "
             "subscribed to foo (6) and bar (3) range gives m1 foo 0-1 bar 0, m2 foo 2-3 bar 1, m3 foo 4-5 bar 2; "
             "m2 must release bar 2 and wait for bar 1 from m1.",
             config(FOO_BAR, assignors=("range",), mode="real"), [
                 steps[0],
                 join(0, "m3", {"error": "NONE", "member_epoch": 11, "assignment": {},
                                "target_assignment_after": {"m1": {"foo-id": [0, 1], "bar-id": [0]},
                                                            "m2": {"foo-id": [2, 3], "bar-id": [1]},
                                                            "m3": {"foo-id": [4, 5], "bar-id": [2]}}}),
                 hb(0, "m1", 10, {"error": "NONE", "member_epoch": 10, "assignment": {"foo-id": [0, 1], "bar-id": [0]},
                                  "member_after": {"m1": {"state": "UNREVOKED_PARTITIONS",
                                                          "pending_revocation": {"foo-id": [2], "bar-id": [1]}}}}),
                 hb(0, "m2", 10, {"error": "NONE", "member_epoch": 10, "assignment": {"foo-id": [3]},
                                  "member_after": {"m2": {"state": "UNREVOKED_PARTITIONS",
                                                          "pending_revocation": {"foo-id": [4, 5], "bar-id": [2]}}}}),
                 hb(0, "m1", 10, {"error": "NONE", "member_epoch": 11, "assignment": None},
                    topic_partitions={"foo-id": [0, 1], "bar-id": [0]}),
                 hb(0, "m2", 10, {"error": "NONE", "member_epoch": 11, "assignment": {"foo-id": [2, 3], "bar-id": [1]}},
                    topic_partitions={"foo-id": [3]}),
                 hb(0, "m3", 11, {"error": "NONE", "member_epoch": 11, "assignment": {"foo-id": [4, 5], "bar-id": [2]},
                                  "group_state_after": "Stable"}),
             ], note="Deterministic reading of RangeAssignor (members sorted, 6/3 and 3/3) and CurrentAssignmentBuilder.")
    scenario("preferred-assignor-most-common", "assignor", "testNewJoiningMemberTriggersNewTargetAssignment",
             "The target is computed by the server assignor most members name (range: 2, uniform: 1), not by the "
             "joining member's: range gives m1 foo 0-1, m2 2-3, m3 4 (uniform would keep m2 on 3-4).",
             config({"foo": {"id": "foo-id", "partitions": 5}}, **real_u), [
                 seed([member("m1", 5, 4, ["foo"], {F: [0, 1, 2]}, rto=5000),
                       member("m2", 5, 4, ["foo"], {F: [3, 4]}, rto=5000)], {"m1": {F: [0, 1, 2]}, "m2": {F: [3, 4]}},
                      epoch=5),
                 join(0, "m3", {"error": "NONE", "member_epoch": 6, "assignment": {},
                                "target_assignment_after": {"m1": {F: [0, 1]}, "m2": {F: [2, 3]}, "m3": {F: [4]}}},
                      subs=("foo",), assignor="uniform"),
             ], note="ConsumerGroup.computePreferredServerAssignor (counts of server_assignor after the update) and "
                     "RangeAssignor; deterministic reading, not a test assertion.")
    scenario("default-assignor-when-none-named", "assignor", "testMemberJoinsEmptyConsumerGroup",
             "No member names a server assignor: the first configured one (range here) computes the target.",
             config({"foo": {"id": "foo-id", "partitions": 3}}, assignors=("range", "uniform"), mode="real"), [
                 join(0, "m1", {"error": "NONE", "member_epoch": 1, "assignment": {F: [0, 1, 2]}}, subs=("foo",),
                      assignor=None),
                 join(0, "m2", {"error": "NONE", "member_epoch": 2, "assignment": {},
                                "target_assignment_after": {"m1": {F: [0, 1]}, "m2": {F: [2]}}}, subs=("foo",),
                      assignor=None),
             ], note="updateTargetAssignment: computePreferredServerAssignor(...).orElse(default assignor).")
    scenario("leave-frees-partitions-for-waiting-member", "leave", "testLeavingMemberBumpsGroupEpoch",
             "m2 waits for partitions m1 still owns; m1 leaves (-1): group epoch 3 without a new target; m2's next "
             "heartbeat computes the target for epoch 3 (everything to m2) and m2 gets all partitions at once.",
             config({"foo": {"id": "foo-id", "partitions": 4}}, **real_u), [
                 join(0, "m1", {"error": "NONE", "member_epoch": 1, "assignment": {F: [0, 1, 2, 3]}}, subs=("foo",),
                      assignor=None),
                 join(1000, "m2", {"error": "NONE", "member_epoch": 2, "assignment": {},
                                   "member_after": {"m2": {"state": "UNRELEASED_PARTITIONS"}}},
                      subs=("foo",), assignor=None),
                 leave(2000, "m1", -1, {"error": "NONE", "member_epoch": -1, "group_epoch_after": 3,
                                        "assignment_epoch_after": 2, "group_state_after": "Assigning",
                                        "records": tombstones("m1") + [epoch_rec(3)]}),
                 hb(3000, "m2", 2, {"error": "NONE", "member_epoch": 3, "assignment": {F: [0, 1, 2, 3]},
                                    "group_state_after": "Stable",
                                    "records": [ta("m2", {F: [0, 1, 2, 3]}), ta_epoch(3),
                                                ca("m2", "STABLE", 3, 2, {F: [0, 1, 2, 3]})]}),
             ], note="Deterministic reading of consumerGroupFenceMember, UniformHomogeneousAssignmentBuilder and "
                     "CurrentAssignmentBuilder.")
    scenario("session-expiry-releases-partitions", "session_timeout", "testSessionTimeoutExpiration",
             "m1 stops heartbeating while m2 waits for its partitions: at m1's session expiry (45 s after its last "
             "heartbeat) m1 is fenced and m2 then gets everything.",
             config({"foo": {"id": "foo-id", "partitions": 2}}, **real_u), [
                 join(0, "m1", {"error": "NONE", "member_epoch": 1, "session_deadline_after": {"m1": 45000}},
                      subs=("foo",), assignor=None),
                 join(1000, "m2", {"error": "NONE", "member_epoch": 2, "assignment": {},
                                   "session_deadline_after": {"m2": 46000}}, subs=("foo",), assignor=None),
                 hb(40000, "m2", 2, {"error": "NONE", "member_epoch": 2, "session_deadline_after": {"m2": 85000}}),
                 advance(45001, {"fenced": ["m1"], "members_after": ["m2"], "group_epoch_after": 3,
                                 "records": tombstones("m1") + [epoch_rec(3)]}),
                 hb(46000, "m2", 2, {"error": "NONE", "member_epoch": 3, "assignment": {F: [0, 1]},
                                     "group_state_after": "Stable"}),
             ], note="Deterministic reading of the session timer (consumerGroupFenceMemberOperation) and the "
                     "heartbeat path.")
    scenario("revoking-member-without-rebalance-timeout", "rebalance_timeout", "testRebalanceTimeoutExpiration",
             "A member loaded without a rebalance timeout (-1) that must revoke gets a rebalance timer already due "
             "(now - 1 ms): nothing fires while the time stands still, the first tick fences it.",
             config(FOO_BAR), [
                 two_members_seed(),
                 prepare({"m1": {"foo-id": [0, 1, 2, 3, 4, 5], "bar-id": [0, 1, 2]}, "m2": {}}),
                 hb(0, "m2", 10, {"error": "NONE", "member_epoch": 10, "rebalance_deadline_after": {"m2": -1},
                                  "member_after": {"m2": {"state": "UNREVOKED_PARTITIONS"}}},
                    subscribed_topic_names=["foo"]),
                 {"at_ms": 0, "op": "check", "expect": {"fenced": [], "members_after": ["m1", "m2"]}},
                 advance(1, {"fenced": ["m2"], "members_after": ["m1"], "group_epoch_after": 12}),
             ], note="Deterministic reading of scheduleConsumerGroupRebalanceTimeout (delay = the member's rebalance "
                     "timeout, -1 when never set) and MockCoordinatorTimer (deadline = now + delay, fires on poll "
                     "when now >= deadline). The subscription change (foo only) bumps the epoch to 11; the fencing "
                     "to 12.")
    scenario("assignor-failure-then-refresh-again", "metadata_change", "testSubscriptionMetadataRefreshedAgainAfterWriteFailure",
             "A heartbeat that refreshes stale subscription metadata (foo 3 -> 6) fails in the assignor: nothing is "
             "written, but the refresh deadline now carries epoch 11 while the group is still at 10, so the next "
             "heartbeat refreshes again and succeeds with the same records the test asserts.",
             config({"foo": {"id": "foo-id", "partitions": 6}}, refresh=300000), [
                 seed([member("m1", 10, 10, ["foo", "bar"], {"foo-id": [0, 1, 2]}, rto=5000)],
                      {"m1": {"foo-id": [0, 1, 2]}}, meta={"foo": 3}),
                 prepare(None, fail=True),
                 hb(0, "m1", 10, {"error": "UNKNOWN_SERVER_ERROR", "group_epoch_after": 10,
                                  "subscription_metadata_after": {"foo": 3},
                                  "metadata_refresh_deadline_after": {"deadline_ms": 300000, "epoch": 11}}),
                 prepare({"m1": {"foo-id": [0, 1, 2, 3, 4, 5]}}),
                 hb(0, "m1", 10, {"error": "NONE", "member_id": "m1", "member_epoch": 11, "heartbeat_interval_ms": 5000,
                                  "assignment": {"foo-id": [0, 1, 2, 3, 4, 5]},
                                  "metadata_refresh_deadline_after": {"deadline_ms": 300000, "epoch": 11},
                                  "records": [pm({"foo": 6}), epoch_rec(11), ta("m1", {"foo-id": [0, 1, 2, 3, 4, 5]}),
                                              ta_epoch(11), ca("m1", "STABLE", 11, 10, {"foo-id": [0, 1, 2, 3, 4, 5]})]}),
             ], note="The test loses the first heartbeat's records by a rollback; here the assignor fails instead "
                     "(updateTargetAssignment -> UNKNOWN_SERVER_ERROR), which leaves the same in-memory deadline "
                     "(ModernGroup.hasMetadataExpired: group epoch < deadline epoch).")
    scenario("rejoin-epoch-zero-known-dynamic-member", "fencing", "testConsumerGroupMemberEpochValidation",
             "A known dynamic member sending epoch 0 again (same member id) is FENCED_MEMBER_EPOCH at this commit: "
             "0 is neither its epoch nor its previous epoch.", config(FOO_BAR), [
                 two_members_seed(rto=5000),
                 join(0, "m1", {"error": "FENCED_MEMBER_EPOCH", "member_after": {"m1": {"member_epoch": 10}}}),
             ], note="version_sensitive: later releases accept a rejoin with epoch 0 of a known member. "
                     "Deterministic reading of throwIfConsumerGroupMemberEpochIsInvalid.")
    SCENARIOS[-1]["version_sensitive"] = True
    scenario("static-replacement-refused-when-full", "max_size", "testNewMemberIsRejectedWithMaximumMembersIsReached",
             "The size check comes before the member lookup: a static member replacing its departed (-2) instance "
             "under a new member id is GROUP_MAX_SIZE_REACHED when the group is at its maximum size.",
             config(FOO_BAR, max_size=2), [
                 two_members_seed(instance=True, rto=5000),
                 leave(0, "m2", -2, {"error": "NONE", "member_epoch": -2}, instance_id="m2"),
                 join(0, "m2-new", {"error": "GROUP_MAX_SIZE_REACHED", "static_members_after": {"m1": "m1", "m2": "m2"}},
                      instance_id="m2"),
             ], note="Deterministic reading of consumerGroupHeartbeat (throwIfConsumerGroupIsFull before "
                     "getOrMaybeSubscribeStaticConsumerGroupMember).")
    scenario("assignor-change-no-epoch-bump", "heartbeat", "testUpdatingSubscriptionTriggersNewTargetAssignment",
             "Changing only the server assignor rewrites the member metadata but does not bump the group epoch.",
             config(FOO_BAR, assignors=("range", "uniform")), [
                 two_members_seed(rto=5000),
                 hb(0, "m1", 10, {"error": "NONE", "member_epoch": 10, "assignment": None, "group_epoch_after": 10,
                                  "records": [mm("m1", ["foo", "bar"], rto=5000, assignor="uniform")]},
                    server_assignor="uniform"),
             ], note="hasMemberSubscriptionChanged: only subscribed names/regex changes bump the epoch.")
    scenario("subscribed-topic-created-later", "metadata_change", "testSubscriptionMetadataRefreshedAfterGroupIsLoaded",
             "A member subscribes to foo and to zzz, which does not exist yet: only foo is in the subscription "
             "metadata and the target. When zzz is created the group refreshes its metadata at the next heartbeat, "
             "bumps the epoch and the member gets zzz too.",
             config({"foo": {"id": "foo-id", "partitions": 2}}, assignors=("range",), mode="real"), [
                 join(0, "m1", {"error": "NONE", "member_epoch": 1, "assignment": {F: [0, 1]},
                                "subscription_metadata_after": {"foo": 2}}, subs=("foo", "zzz")),
                 hb(100, "m1", 1, {"error": "NONE", "member_epoch": 1, "records": []}),
                 {"at_ms": 200, "op": "metadata_change", "topics": {"zzz": {"id": "zzz-id", "partitions": 1}},
                  "expect": {"metadata_refresh_deadline_after": {"deadline_ms": 0, "epoch": 0}}},
                 hb(300, "m1", 1, {"error": "NONE", "member_epoch": 2, "assignment": {F: [0, 1], "zzz-id": [0]},
                                   "subscription_metadata_after": {"foo": 2, "zzz": 1},
                                   "records": [pm({"foo": 2, "zzz": 1}), epoch_rec(2),
                                               ta("m1", {F: [0, 1], "zzz-id": [0]}), ta_epoch(2),
                                               ca("m1", "STABLE", 2, 1, {F: [0, 1], "zzz-id": [0]})]}),
             ], note="Deterministic reading of computeSubscriptionMetadata (topics absent from the image are left "
                     "out), TopicIds (unknown names are skipped) and onNewMetadataImage.")
    scenario("first-join-metadata-deadline-not-kept", "metadata_change", "testMemberJoinsEmptyConsumerGroup",
             "The group created by the first heartbeat is materialized by replaying its records, so the refresh "
             "deadline set while handling it is not kept: the next heartbeat recomputes the subscription metadata "
             "(unchanged: no record) and sets the deadline.",
             config({"foo": {"id": "foo-id", "partitions": 2}}, assignors=("range",), mode="real", refresh=300000), [
                 join(0, "m1", {"error": "NONE", "member_epoch": 1,
                                "metadata_refresh_deadline_after": {"deadline_ms": 0, "epoch": 0}}, subs=("foo",)),
                 hb(1000, "m1", 1, {"error": "NONE", "member_epoch": 1, "records": [],
                                    "metadata_refresh_deadline_after": {"deadline_ms": 301000, "epoch": 1}}),
             ], note="Deterministic reading of getOrMaybeCreateConsumerGroup (the new group is not put in the groups "
                     "map) and getOrMaybeCreatePersistedConsumerGroup (replay creates the group).")
    scenario("leave-unknown-dynamic-member", "leave", "testLeavingMemberBumpsGroupEpoch",
             "A -1 leave from a member id the group does not know is UNKNOWN_MEMBER_ID and changes nothing.",
             config(FOO_BAR), [
                 two_members_seed(rto=5000),
                 leave(0, "m9", -1, {"error": "UNKNOWN_MEMBER_ID", "group_epoch_after": 10, "members_after": ["m1", "m2"]}),
             ], note="Deterministic reading of consumerGroupLeave (getOrMaybeCreateMember(memberId, false)).")
    scenario("previous-epoch-retry-then-reconcile", "fencing", "testConsumerGroupMemberEpochValidation",
             "After a lost response a member retries with its previous epoch and a subset of its partitions: the "
             "request is accepted and answered with the current epoch; with a partition it does not own it is "
             "fenced.", config({"foo": {"id": "foo-id", "partitions": 4}}, assignors=("range",), mode="real"), [
                 join(0, "m1", {"error": "NONE", "member_epoch": 1, "assignment": {F: [0, 1, 2, 3]}}, subs=("foo",)),
                 hb(1000, "m1", 0, {"error": "INVALID_REQUEST"}, topic_partitions={F: [0, 1]}),
                 hb(1000, "m1", 0, {"error": "NONE", "member_epoch": 1, "assignment": {F: [0, 1, 2, 3]}},
                    rebalance_timeout_ms=5000, subscribed_topic_names=["foo"], topic_partitions={}),
             ], note="Epoch 0 without rebalance timeout/subscription is INVALID_REQUEST (validation first); a new "
                     "member m1's previous epoch is 0, so epoch 0 with an empty owned list is accepted as the previous "
                     "epoch. Deterministic reading of throwIfConsumerGroupMemberEpochIsInvalid.")


_flows()


# ============================================================================ CurrentAssignmentBuilder
def reconcile_case(id_, method, description, m, target_epoch, target, pe_default, owned, expect, by_topic=None,
                   note=None, tag=None, scenarios=None):
    """A member-state-machine case appended to `scenarios` (default this script's SCENARIOS)."""
    src = {"suite": CABT, "method": method, "commit": COMMIT}
    if tag:
        src["tag"] = tag
    if note:
        src["note"] = note
    pe = {"default": pe_default}
    if by_topic:
        pe["by_topic"] = by_topic
    (SCENARIOS if scenarios is None else scenarios).append({"id": id_, "category": "member_state_machine", "kind": "reconcile", "source": src,
                      "description": description, "member": m, "target_epoch": target_epoch, "target": target,
                      "partition_epoch": pe, "owned": owned, "expect": expect})


def mem(state, epoch, prev, assigned, pending=None):
    return {"state": state, "member_epoch": epoch, "previous_member_epoch": prev, "assigned": assigned,
            "pending_revocation": pending or {}}


def _cab():
    T1, T2 = "t1-id", "t2-id"
    base = mem("STABLE", 10, 10, {T1: [1, 2, 3], T2: [4, 5, 6]})
    reconcile_case("cab-stable-to-stable", "testStableToStable",
                   "STABLE at 10, same target at 11 (partitions owned at epoch 10 by this member): STABLE at 11.",
                   base, 11, {T1: [1, 2, 3], T2: [4, 5, 6]}, 10, "not_set",
                   mem("STABLE", 11, 10, {T1: [1, 2, 3], T2: [4, 5, 6]}))
    reconcile_case("cab-stable-new-free-partitions", "testStableToStableWithNewPartitions",
                   "STABLE at 10, target 11 adds free partitions: STABLE at 11 with them.",
                   base, 11, {T1: [1, 2, 3, 4], T2: [4, 5, 6, 7]}, -1, "not_set",
                   mem("STABLE", 11, 10, {T1: [1, 2, 3, 4], T2: [4, 5, 6, 7]}))
    reconcile_case("cab-stable-to-unrevoked", "testStableToUnrevokedPartitions",
                   "STABLE at 10, target 11 removes t1-1 and t2-4: UNREVOKED_PARTITIONS at 10.",
                   base, 11, {T1: [2, 3, 4], T2: [5, 6, 7]}, -1, "not_set",
                   mem("UNREVOKED_PARTITIONS", 10, 10, {T1: [2, 3], T2: [5, 6]}, {T1: [1], T2: [4]}))
    reconcile_case("cab-stable-to-unreleased", "testStableToUnreleasedPartitions",
                   "STABLE at 10, target 11 adds partitions still owned at epoch 10: UNRELEASED_PARTITIONS at 11 "
                   "without them.", base, 11, {T1: [1, 2, 3, 4], T2: [4, 5, 6, 7]}, 10, "not_set",
                   mem("UNRELEASED_PARTITIONS", 11, 10, {T1: [1, 2, 3], T2: [4, 5, 6]}))
    reconcile_case("cab-stable-to-unreleased-owned-empty",
                   "testStableToUnreleasedPartitionsWithOwnedPartitionsNotHavingRevokedPartitions",
                   "The member already reports no owned partitions: t2-6 is dropped without waiting, t2-7 (owned "
                   "at 10 by another) is unreleased: UNRELEASED_PARTITIONS at 11.",
                   base, 11, {T1: [1, 2, 3], T2: [4, 5, 7]}, -1, {},
                   mem("UNRELEASED_PARTITIONS", 11, 10, {T1: [1, 2, 3], T2: [4, 5]}), by_topic={T2: 10})
    unrevoked = mem("UNREVOKED_PARTITIONS", 10, 10, {T1: [2, 3], T2: [5, 6]}, {T1: [1], T2: [4]})
    reconcile_case("cab-unrevoked-to-stable", "testUnrevokedPartitionsToStable",
                   "UNREVOKED_PARTITIONS at 10, the member reports only its kept partitions: STABLE at 11.",
                   unrevoked, 11, {T1: [2, 3], T2: [5, 6]}, -1, {T1: [2, 3], T2: [5, 6]},
                   mem("STABLE", 11, 10, {T1: [2, 3], T2: [5, 6]}))
    reconcile_case("cab-unrevoked-remains-owned-not-set", "testRemainsInUnrevokedPartitions",
                   "UNREVOKED_PARTITIONS: owned partitions not reported -> unchanged.",
                   unrevoked, 12, {T1: [3], T2: [6]}, -1, "not_set", {"unchanged": True})
    reconcile_case("cab-unrevoked-remains-still-owns-t1", "testRemainsInUnrevokedPartitions",
                   "UNREVOKED_PARTITIONS: the member still reports t1-1 (pending revocation) -> unchanged.",
                   unrevoked, 12, {T1: [3], T2: [6]}, -1, {T1: [1, 2, 3], T2: [5, 6]}, {"unchanged": True})
    reconcile_case("cab-unrevoked-remains-still-owns-t2", "testRemainsInUnrevokedPartitions",
                   "UNREVOKED_PARTITIONS: the member still reports t2-4 (pending revocation) -> unchanged.",
                   unrevoked, 12, {T1: [3], T2: [6]}, -1, {T1: [2, 3], T2: [4, 5, 6]}, {"unchanged": True})
    reconcile_case("cab-unrevoked-to-unrevoked", "testUnrevokedPartitionsToUnrevokedPartitions",
                   "UNREVOKED_PARTITIONS at 10 acknowledges, but target 12 takes more away: UNREVOKED_PARTITIONS at 11.",
                   unrevoked, 12, {T1: [3], T2: [6]}, -1, {T1: [2, 3], T2: [5, 6]},
                   mem("UNREVOKED_PARTITIONS", 11, 10, {T1: [3], T2: [6]}, {T1: [2], T2: [5]}))
    reconcile_case("cab-unrevoked-to-unreleased", "testUnrevokedPartitionsToUnreleasedPartitions",
                   "UNREVOKED_PARTITIONS at 11 with nothing pending, target 11 adds partitions still owned at 10: "
                   "UNRELEASED_PARTITIONS at 11.",
                   mem("UNREVOKED_PARTITIONS", 11, 10, {T1: [2, 3], T2: [5, 6]}), 11,
                   {T1: [2, 3, 4], T2: [5, 6, 7]}, 10, {T1: [2, 3], T2: [5, 6]},
                   mem("UNRELEASED_PARTITIONS", 11, 11, {T1: [2, 3], T2: [5, 6]}))
    unreleased = mem("UNRELEASED_PARTITIONS", 11, 11, {T1: [2, 3], T2: [5, 6]})
    reconcile_case("cab-unreleased-to-stable", "testUnreleasedPartitionsToStable",
                   "UNRELEASED_PARTITIONS at 11, target 12 equal to what it has: STABLE at 12.",
                   unreleased, 12, {T1: [2, 3], T2: [5, 6]}, 10, "not_set",
                   mem("STABLE", 12, 11, {T1: [2, 3], T2: [5, 6]}))
    reconcile_case("cab-unreleased-to-stable-new-partitions", "testUnreleasedPartitionsToStableWithNewPartitions",
                   "UNRELEASED_PARTITIONS at 11: the awaited partitions were released: STABLE at 11 with them.",
                   unreleased, 11, {T1: [2, 3, 4], T2: [5, 6, 7]}, -1, "not_set",
                   mem("STABLE", 11, 11, {T1: [2, 3, 4], T2: [5, 6, 7]}))
    reconcile_case("cab-unreleased-stays", "testUnreleasedPartitionsToUnreleasedPartitions",
                   "UNRELEASED_PARTITIONS at 11: the awaited partitions are still owned: unchanged.",
                   unreleased, 11, {T1: [2, 3, 4], T2: [5, 6, 7]}, 10, "not_set", {"unchanged": True})
    reconcile_case("cab-unreleased-to-unrevoked", "testUnreleasedPartitionsToUnrevokedPartitions",
                   "UNRELEASED_PARTITIONS at 11, target 12 takes partitions away: UNREVOKED_PARTITIONS at 11.",
                   unreleased, 12, {T1: [3], T2: [6]}, 10, "not_set",
                   mem("UNREVOKED_PARTITIONS", 11, 11, {T1: [3], T2: [6]}, {T1: [2], T2: [5]}))
    unknown = mem("UNKNOWN", 11, 11, {T1: [3], T2: [6]}, {T1: [2], T2: [5]})
    reconcile_case("cab-unknown-fenced", "testUnknownState",
                   "UNKNOWN state, owned partitions not reported: FENCED_MEMBER_EPOCH.",
                   unknown, 12, {T1: [3], T2: [6]}, 10, "not_set", {"error": "FENCED_MEMBER_EPOCH"})
    reconcile_case("cab-unknown-rejoins-empty", "testUnknownState",
                   "UNKNOWN state, the member reports an empty owned list: reconciled from scratch, STABLE at 12.",
                   unknown, 12, {T1: [3], T2: [6]}, 11, {}, mem("STABLE", 12, 11, {T1: [3], T2: [6]}))


_cab()


# ============================================================================ server-side assignors
UUIDS = {"topic1": "T1-A4s3VTwiI5CTbEp6POw", "topic2": "T2-B4s3VTwiI5YHbPp6YUe", "topic3": "T3-CU8fVTLCz5YMkLoDQsa",
         "topic4": "T4-Tw9fVTLCz5HbPp6YQsa"}


def _uuid_hash(name: str) -> int:
    """org.apache.kafka.common.Uuid.hashCode of the tests' fixed topic ids."""
    import base64
    raw = base64.urlsafe_b64decode(UUIDS[name] + "==")
    h = (int.from_bytes(raw[:8], "big") ^ int.from_bytes(raw[8:], "big")) & 0xFFFFFFFFFFFFFFFF
    v = ((h >> 32) ^ h) & 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def java_topic_order(names):
    """java.util.HashSet iteration order of the fixed topic ids (OpenJDK HashMap, capacity 16)."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from pipeline.coordinator.assignors.javaorder import JavaHashMapOrder
    return list(JavaHashMapOrder.of(sorted(names), _uuid_hash))


def acase(id_, category, assignor, test_class, method, topics, members, check, *, expected=None, sub_type=None,
          properties=None, keep_owned=None, reference=None, note=None, ordered_prev=False, error=None):
    """One assignor case; members: {id: (subscribed, current_target, instance_id)}."""
    src = {"suite": ASSIGNOR_DIR + test_class + ".java", "test_class": test_class, "method": method, "commit": COMMIT}
    if note:
        src["note"] = note
    ids = {n: (UUIDS[n] if assignor == "uniform" else f"{n}-id") for n in topics}
    mem_json = {m: {"subscribed_topics": list(sub), "instance_id": inst, "rack": None, "current_target": cur}
                for m, (sub, cur, inst) in members.items()}
    if sub_type is None:
        subs = [frozenset(v[0]) for v in members.values()]
        sub_type = "HOMOGENEOUS" if len(set(subs)) <= 1 else "HETEROGENEOUS"
    c = {"id": id_, "category": category, "assignor": assignor, "source": src, "subscription_type": sub_type,
         "topics": {n: {"id": ids[n], "partitions": k} for n, k in topics.items()}, "members": mem_json,
         "check": check}
    if check == "exact":
        c["expected"] = expected
    if check == "error":
        c["expected_error"] = error or "PartitionAssignorException"
    if reference is not None:
        c["reference_output"] = reference
    if properties:
        c["properties"] = properties
    if keep_owned:
        c["keep_owned"] = keep_owned
    if assignor == "uniform" and category == "uniform-homogeneous" and check == "exact":
        c["exact_given"] = ("members iterated in ascending member id; subscribed topics iterated in java_topic_order; "
                            "each member's previous assignment iterated in previous_assignment_topic_order (else topic "
                            "order as listed), partitions ascending")
        all_topics = sorted({t for sub, _, _ in members.values() for t in sub} | set(topics))
        c["java_topic_order"] = [t for t in java_topic_order([t for t in all_topics if t in UUIDS])]
        prev = {}
        for m, (_, cur, _) in members.items():
            if cur:
                # mkOrderedAssignment keeps insertion order; mkAssignment is a HashMap of topic ids
                prev[m] = list(cur) if ordered_prev else java_topic_order(list(cur))
        if prev:
            c["previous_assignment_topic_order"] = prev
    ASSIGNORS.append(c)


ALL = ["valid", "complete", "fully_balanced", "balanced"]


def _range_cases():
    R, T = "range", "RangeAssignorTest"
    acase("range-one-member-no-topic", "range", R, T, "testOneMemberNoTopic", {"topic1": 3},
          {"A": ([], {}, None)}, "exact", expected={"A": {}}, sub_type="HOMOGENEOUS")
    acase("range-subscribed-to-nonexistent-topic", "range", R, T, "testOneMemberSubscribedToNonExistentTopic",
          {"topic1": 3}, {"A": (["topic2"], {}, None)}, "error", sub_type="HOMOGENEOUS")
    acase("range-first-two-members-same-subs", "range", R, T, "testFirstAssignmentTwoMembersTwoTopicsSameSubscriptions",
          {"topic1": 3, "topic3": 2}, {"A": (["topic1", "topic3"], {}, None), "B": (["topic1", "topic3"], {}, None)},
          "exact", expected={"A": {"topic1": [0, 1], "topic3": [0]}, "B": {"topic1": [2], "topic3": [1]}},
          properties=ALL)
    acase("range-first-three-members-different-subs", "range", R, T,
          "testFirstAssignmentThreeMembersThreeTopicsDifferentSubscriptions",
          {"topic1": 3, "topic2": 3, "topic3": 2},
          {"A": (["topic1", "topic2"], {}, None), "B": (["topic3"], {}, None), "C": (["topic2", "topic3"], {}, None)},
          "exact", expected={"A": {"topic1": [0, 1, 2], "topic2": [0, 1]}, "B": {"topic3": [0]},
                             "C": {"topic2": [2], "topic3": [1]}}, properties=["valid", "complete"])
    acase("range-more-members-than-partitions", "range", R, T, "testFirstAssignmentNumMembersGreaterThanNumPartitions",
          {"topic1": 3, "topic3": 2},
          {m: (["topic1", "topic3"], {}, None) for m in "ABC"}, "exact",
          expected={"A": {"topic1": [0], "topic3": [0]}, "B": {"topic1": [1], "topic3": [1]}, "C": {"topic1": [2]}},
          properties=["valid", "complete", "balanced"])
    acase("range-static-member-replaced", "range", R, T, "testStaticMembership", {"topic1": 3},
          {"memberA1": (["topic1"], {}, "instanceA"), "B": (["topic1"], {}, "instanceB")}, "exact",
          expected={"memberA1": {"topic1": [0, 1]}, "B": {"topic1": [2]}},
          note="The test asserts the second assignment equals the first (A -> memberA1, same instance id); values "
               "from RangeAssignor's order: static members by instance id.")
    acase("range-reassign-member-added-more-members-than-partitions", "range", R, T,
          "testReassignmentNumMembersGreaterThanNumPartitionsWhenOneMemberAdded", {"topic1": 2, "topic2": 2},
          {"A": (["topic1", "topic2"], {"topic1": [0], "topic2": [0]}, None),
           "B": (["topic1", "topic2"], {"topic1": [1], "topic2": [1]}, None),
           "C": (["topic1", "topic2"], {}, None)}, "exact",
          expected={"A": {"topic1": [0], "topic2": [0]}, "B": {"topic1": [1], "topic2": [1]}, "C": {}})
    acase("range-reassign-partition-added", "range", R, T, "testReassignmentWhenOnePartitionAddedForTwoMembersTwoTopics",
          {"topic1": 4, "topic2": 4},
          {"A": (["topic1", "topic2"], {"topic1": [0, 1], "topic2": [0, 1]}, None),
           "B": (["topic1", "topic2"], {"topic1": [2], "topic2": [2]}, None)}, "exact",
          expected={"A": {"topic1": [0, 1], "topic2": [0, 1]}, "B": {"topic1": [2, 3], "topic2": [2, 3]}},
          properties=ALL)
    acase("range-reassign-member-added", "range", R, T,
          "testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics",
          {"topic1": 3, "topic2": 3},
          {"A": (["topic1", "topic2"], {"topic1": [0, 1], "topic2": [0, 1]}, None),
           "B": (["topic1", "topic2"], {"topic1": [2], "topic2": [2]}, None),
           "C": (["topic1", "topic2"], {}, None)}, "exact",
          expected={"A": {"topic1": [0], "topic2": [0]}, "B": {"topic1": [1], "topic2": [1]},
                    "C": {"topic1": [2], "topic2": [2]}}, properties=ALL)
    acase("range-reassign-member-and-partition-added-heterogeneous", "range", R, T,
          "testReassignmentWhenOneMemberAddedAndOnePartitionAfterInitialAssignmentWithTwoMembersTwoTopics",
          {"topic1": 4, "topic2": 3},
          {"A": (["topic1", "topic2"], {"topic1": [0, 1], "topic2": [0, 1]}, None),
           "B": (["topic1", "topic2"], {"topic1": [2], "topic2": [2]}, None),
           "C": (["topic1"], {}, None)}, "exact",
          expected={"A": {"topic1": [0, 1], "topic2": [0, 1]}, "B": {"topic1": [2], "topic2": [2]},
                    "C": {"topic1": [3]}}, properties=["valid", "complete"])
    acase("range-reassign-member-removed", "range", R, T,
          "testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithTwoMembersTwoTopics",
          {"topic1": 3, "topic2": 3}, {"B": (["topic1", "topic2"], {"topic1": [2], "topic2": [2]}, None)}, "exact",
          expected={"B": {"topic1": [0, 1, 2], "topic2": [0, 1, 2]}}, properties=ALL)
    acase("range-reassign-subscriptions-removed-heterogeneous", "range", R, T,
          "testReassignmentWhenMultipleSubscriptionsRemovedAfterInitialAssignmentWithThreeMembersTwoTopics",
          {"topic1": 3, "topic2": 3, "topic3": 2},
          {"A": (["topic1"], {"topic1": [0, 1, 2], "topic2": [0]}, None),
           "B": (["topic1", "topic2", "topic3"], {"topic2": [1]}, None),
           "C": (["topic2"], {"topic2": [2], "topic3": [0, 1]}, None)}, "exact",
          expected={"A": {"topic1": [0, 1]}, "B": {"topic1": [2], "topic2": [0, 1], "topic3": [0, 1]},
                    "C": {"topic2": [2]}}, properties=["valid", "complete"])


def _uniform_homogeneous_cases():
    U, T = "uniform", "OptimizedUniformAssignmentBuilderTest"
    H = "uniform-homogeneous"
    acase("uniform-hom-one-member-no-subscription", H, U, T, "testOneMemberNoTopicSubscription", {"topic1": 3},
          {"A": ([], {}, None)}, "exact", expected={}, sub_type="HOMOGENEOUS")
    acase("uniform-hom-subscribed-to-nonexistent-topic", H, U, T, "testOneMemberSubscribedToNonexistentTopic",
          {"topic1": 3}, {"A": (["topic2"], {}, None)}, "error", sub_type="HOMOGENEOUS")
    acase("uniform-hom-first-two-members", H, U, T, "testFirstAssignmentTwoMembersTwoTopicsNoMemberRacks",
          {"topic1": 3, "topic3": 2}, {"A": (["topic1", "topic3"], {}, None), "B": (["topic1", "topic3"], {}, None)},
          "exact", expected={"A": {"topic1": [0], "topic3": [0, 1]}, "B": {"topic1": [1, 2]}}, properties=ALL)
    acase("uniform-hom-more-members-than-partitions-three", H, U, T,
          "testFirstAssignmentNumMembersGreaterThanTotalNumPartitions", {"topic3": 2},
          {m: (["topic3"], {}, None) for m in "ABC"}, "exact",
          expected={"A": {"topic3": [0]}, "B": {"topic3": [1]}, "C": {}}, properties=ALL)
    acase("uniform-hom-unbalanced-previous", H, U, T, "testReassignmentForTwoMembersTwoTopicsGivenUnbalancedPrevAssignment",
          {"topic1": 3, "topic2": 3},
          {"A": (["topic1", "topic2"], {"topic1": [0, 1], "topic2": [0, 1]}, None),
           "B": (["topic1", "topic2"], {"topic1": [2], "topic2": [2]}, None)}, "exact",
          expected={"A": {"topic1": [0, 1], "topic2": [0]}, "B": {"topic1": [2], "topic2": [1, 2]}},
          properties=ALL, keep_owned={"A": {"topic1": [0, 1], "topic2": [0]}, "B": {"topic1": [2], "topic2": [2]}},
          ordered_prev=True)
    acase("uniform-hom-partitions-added", H, U, T, "testReassignmentWhenPartitionsAreAddedForTwoMembersTwoTopics",
          {"topic1": 6, "topic2": 5},
          {"A": (["topic1", "topic2"], {"topic1": [0, 2], "topic2": [0]}, None),
           "B": (["topic1", "topic2"], {"topic1": [1], "topic2": [1, 2]}, None)}, "exact",
          expected={"A": {"topic1": [0, 2, 3], "topic2": [0, 3, 4]}, "B": {"topic1": [1, 4, 5], "topic2": [1, 2]}},
          properties=ALL, keep_owned={"A": {"topic1": [0, 2], "topic2": [0]}, "B": {"topic1": [1], "topic2": [1, 2]}},
          ordered_prev=True)
    acase("uniform-hom-member-added", H, U, T,
          "testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics",
          {"topic1": 3, "topic2": 3},
          {"A": (["topic1", "topic2"], {"topic1": [0, 2], "topic2": [0]}, None),
           "B": (["topic1", "topic2"], {"topic1": [1], "topic2": [1, 2]}, None),
           "C": (["topic1", "topic2"], {}, None)}, "exact",
          expected={"A": {"topic1": [0, 2]}, "B": {"topic1": [1], "topic2": [1]}, "C": {"topic2": [0, 2]}},
          properties=ALL, ordered_prev=True)
    acase("uniform-hom-member-removed", H, U, T,
          "testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersTwoTopics",
          {"topic1": 3, "topic2": 3},
          {"A": (["topic1", "topic2"], {"topic1": [0], "topic2": [0]}, None),
           "B": (["topic1", "topic2"], {"topic1": [1], "topic2": [1]}, None)}, "exact",
          expected={"A": {"topic1": [0], "topic2": [0, 2]}, "B": {"topic1": [1, 2], "topic2": [1]}},
          properties=ALL, keep_owned={"A": {"topic1": [0], "topic2": [0]}, "B": {"topic1": [1], "topic2": [1]}})
    acase("uniform-hom-subscription-removed", H, U, T,
          "testReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics",
          {"topic1": 2, "topic2": 2},
          {"A": (["topic2"], {"topic1": [0], "topic2": [0]}, None),
           "B": (["topic2"], {"topic1": [1], "topic2": [1]}, None)}, "exact",
          expected={"A": {"topic2": [0]}, "B": {"topic2": [1]}}, properties=ALL)


def _uniform_heterogeneous_cases():
    U, T = "uniform", "UniformHeterogeneousAssignmentBuilderTest"
    H = "uniform-heterogeneous"
    acase("uniform-het-no-subscriptions", H, U, T, "testTwoMembersNoTopicSubscription", {"topic1": 3},
          {"A": ([], {}, None), "B": ([], {}, None)}, "exact", expected={}, sub_type="HETEROGENEOUS")
    acase("uniform-het-nonexistent-topics-two", H, U, T, "testTwoMembersSubscribedToNonexistentTopics", {"topic1": 3},
          {"A": (["topic3"], {}, None), "B": (["topic2"], {}, None)}, "error")
    acase("uniform-het-first-two-members-two-topics", H, U, T, "testFirstAssignmentTwoMembersTwoTopics",
          {"topic1": 3, "topic3": 6}, {"A": (["topic1", "topic3"], {}, None), "B": (["topic3"], {}, None)},
          "properties", properties=ALL,
          reference={"A": {"topic1": [0, 1, 2], "topic3": [4]}, "B": {"topic3": [0, 1, 2, 3, 5]}})
    acase("uniform-het-more-members-than-partitions", H, U, T, "testFirstAssignmentNumMembersGreaterThanTotalNumPartitions",
          {"topic3": 1, "topic1": 2},
          {"A": (["topic3"], {}, None), "B": (["topic3"], {}, None), "C": (["topic1"], {}, None)}, "properties",
          properties=["valid", "complete", "balanced"],
          reference={"A": {"topic3": [0]}, "B": {}, "C": {"topic1": [0, 1]}})
    acase("uniform-het-unbalanced-previous-three-topics", H, U, T,
          "testReassignmentForTwoMembersThreeTopicsGivenUnbalancedPrevAssignment",
          {"topic1": 6, "topic2": 4, "topic3": 4},
          {"A": (["topic1"], {"topic1": [0, 1, 2]}, None),
           "B": (["topic1", "topic2"], {"topic1": [3], "topic2": [0]}, None),
           "C": (["topic1", "topic2", "topic3"], {"topic1": [4, 5], "topic2": [1, 2, 3], "topic3": [0, 1, 2, 3]}, None)},
          "properties", properties=["valid", "complete", "balanced"],
          reference={"A": {"topic1": [0, 1, 2, 5]}, "B": {"topic1": [3], "topic2": [0, 1, 2, 3]},
                     "C": {"topic1": [4], "topic3": [0, 1, 2, 3]}},
          keep_owned={"A": {"topic1": [0, 1, 2]}, "B": {"topic1": [3], "topic2": [0]}, "C": {"topic3": [0, 1, 2, 3]}})
    acase("uniform-het-partitions-added", H, U, T, "testReassignmentWhenPartitionsAreAddedForTwoMembers",
          {"topic1": 6, "topic2": 5, "topic3": 3, "topic4": 3},
          {"A": (["topic1", "topic3"], {"topic1": [0, 1, 2, 3], "topic3": [0, 1]}, None),
           "B": (["topic1", "topic2", "topic3", "topic4"], {"topic2": [0, 1, 2], "topic4": [0, 1, 2]}, None)},
          "properties", properties=["valid", "complete", "balanced"],
          reference={"A": {"topic1": [0, 1, 2, 3, 4, 5], "topic3": [0, 1, 2]},
                     "B": {"topic2": [0, 1, 2, 3, 4], "topic4": [0, 1, 2]}},
          keep_owned={"A": {"topic1": [0, 1, 2, 3], "topic3": [0, 1]}, "B": {"topic2": [0, 1, 2], "topic4": [0, 1, 2]}})
    acase("uniform-het-member-and-partitions-added", H, U, T,
          "testReassignmentWhenOneMemberAddedAndPartitionsAddedTwoMembersTwoTopics",
          {"topic1": 6, "topic2": 7},
          {"A": (["topic1"], {"topic1": [0, 2], "topic2": [0]}, None),
           "B": (["topic1", "topic2"], {"topic1": [1], "topic2": [1, 2]}, None),
           "C": (["topic1", "topic2"], {}, None)}, "properties", properties=["valid", "complete", "balanced"],
          reference={"A": {"topic1": [0, 2, 3, 4, 5]}, "B": {"topic1": [1], "topic2": [1, 2, 6]},
                     "C": {"topic2": [0, 3, 4, 5]}},
          keep_owned={"A": {"topic1": [0, 2]}, "B": {"topic1": [1], "topic2": [1, 2]}})
    acase("uniform-het-member-removed-three-topics", H, U, T,
          "testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersThreeTopics",
          {"topic1": 3, "topic2": 8, "topic3": 3},
          {"A": (["topic1", "topic3"], {"topic1": [0, 1, 2], "topic3": [0, 1]}, None),
           "B": (["topic2"], {"topic2": [3, 4, 5, 6]}, None)}, "properties",
          properties=["valid", "complete", "balanced"],
          reference={"A": {"topic1": [0, 1, 2], "topic3": [0, 1, 2]}, "B": {"topic2": [0, 1, 2, 3, 4, 5, 6, 7]}},
          keep_owned={"A": {"topic1": [0, 1, 2], "topic3": [0, 1]}, "B": {"topic2": [3, 4, 5, 6]}})
    acase("uniform-het-subscription-removed", H, U, T,
          "testReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics",
          {"topic1": 3, "topic2": 5},
          {"A": (["topic1"], {"topic1": [0, 2], "topic2": [1, 3]}, None),
           "B": (["topic1", "topic2"], {"topic1": [1], "topic2": [0, 2, 4]}, None)}, "properties",
          properties=["valid", "complete", "balanced"],
          reference={"A": {"topic1": [0, 1, 2]}, "B": {"topic2": [0, 1, 2, 3, 4]}},
          keep_owned={"A": {"topic1": [0, 2]}, "B": {"topic2": [0, 2, 4]}})
    acase("uniform-het-partitions-run-out", H, U, T, "testReassignmentWhenTopicPartitionsRunOutAndMembersHaveNoPartitions",
          {"topic1": 2, "topic2": 2, "topic3": 2},
          {"A": (["topic1", "topic2", "topic3"], {"topic1": [0, 1], "topic2": [0, 1], "topic3": [0, 1]}, None),
           "B": (["topic1", "topic2", "topic3"], {}, None)}, "properties", sub_type="HETEROGENEOUS",
          properties=ALL, reference={"A": {"topic2": [0], "topic3": [0, 1]}, "B": {"topic1": [0, 1], "topic2": [1]}},
          note="The test passes HETEROGENEOUS although both members subscribe to the same topics (it exercises the "
               "heterogeneous builder).")
    acase("uniform-het-one-member-without-subscription-b", H, U, T,
          "testFirstAssignmentWithTwoMembersIncludingOneWithoutSubscriptions", {"topic1": 3},
          {"A": (["topic1"], {}, None), "B": ([], {}, None)}, "exact", expected={"A": {"topic1": [0, 1, 2]}, "B": {}},
          properties=ALL)


_range_cases()
_uniform_homogeneous_cases()
_uniform_heterogeneous_cases()


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "kip848-scenarios.json").write_text(json.dumps(SCENARIOS, indent=1) + "\n")
    (OUT / "kip848-assignors.json").write_text(json.dumps(ASSIGNORS, indent=1) + "\n")
    print(f"{len(SCENARIOS)} scenarios, {len(ASSIGNORS)} assignor cases")


if __name__ == "__main__":
    main()
