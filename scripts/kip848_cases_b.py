"""Build tests/coordinator/data/kip848-b-scenarios.json and kip848-b-assignors.json.

A third batch of KIP-848 conformance cases (FORMAT-KIP848.md), aimed at behaviours the first two batches
reach only with the mock assignor or not at all: topic metadata changes (partitions added, a subscribed topic
created or deleted) with the real assignors, subscription changes into a heterogeneous group, many members with
different subscriptions and static members ordered by instance id, revocation acknowledged in steps, a rebalance
timeout freeing partitions for a member waiting on them, session timers of a loaded group, commits at epoch -2,
and the preferred assignor's tie. Facts only: each case names the Kafka test whose behaviour it restates
(`source.method`) and says in `source.note` which values are a deterministic reading of the code at the commit
rather than assertions of that test. Assignor outputs in `source.note` marked "reference output" were obtained
by running the assignor classes of the commit on the case's input (no Kafka code is kept in this repository).
Run: python scripts/kip848_cases_b.py (rewrites both files).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import kip848_cases as base  # noqa: E402
from kip848_cases import (  # noqa: E402
    advance,
    ca,
    config,
    epoch_rec,
    hb,
    join,
    leave,
    member,
    mm,
    pm,
    seed,
    ta,
    ta_epoch,
    tombstones,
)

COMMIT = base.COMMIT
TAG = "trunk@1eb7644349cb (4.0 development line; no 4.x release tag in the snapshot)"
TEST = "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/"
GMMT = base.GMMT
OMMT = base.OMMT
CGT = TEST + "modern/consumer/ConsumerGroupTest.java"
CABT = base.CABT
RAT = base.ASSIGNOR_DIR + "RangeAssignorTest.java"
OUBT = base.ASSIGNOR_DIR + "OptimizedUniformAssignmentBuilderTest.java"
UHBT = base.ASSIGNOR_DIR + "UniformHeterogeneousAssignmentBuilderTest.java"
OUT = base.OUT

SCENARIOS: list[dict] = []
ASSIGNORS: list[dict] = []
F, B, Z = "foo-id", "bar-id", "baz-id"
U = base.UUIDS
T1, T2, T3 = U["topic1"], U["topic2"], U["topic3"]


scenario = base.scenario_adder(SCENARIOS, COMMIT, TAG)
check, commit = base.check, base.commit


def metadata(at, topics, expect, deleted=None):
    s = {"at_ms": at, "op": "metadata_change", "topics": topics, "expect": expect}
    if deleted:
        s["deleted"] = deleted
    return s


# ============================================================================ topic metadata changes, real assignors
def _metadata_changes():
    hnote = ("The flow follows GroupMetadataManager.onNewMetadataImage (a changed/created/deleted subscribed topic "
             "resets the group's refresh deadline), consumerGroupHeartbeat (metadata recomputed, epoch bumped, "
             "target recomputed) and CurrentAssignmentBuilder (a partition still owned at some epoch is unreleased; "
             "owned partitions not sent = still owned).")
    foo4 = {"foo": {"id": F, "partitions": 4}}
    foo6 = {"foo": {"id": F, "partitions": 6}}
    scenario("b-metadata-partitions-added-range", "metadata_change", RAT,
             "testReassignmentWhenPartitionsAreAddedForTwoMembers",
             "foo grows from 4 to 6 partitions: the range target becomes m1 0-2, m2 3-5. m1 must wait for foo-2 "
             "(UNRELEASED_PARTITIONS) until m2 revokes it; m2 revokes 2 and then takes 4 and 5.",
             config(foo4, assignors=("range",), mode="real"), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0, 1]}, rto=5000),
                       member("m2", 10, 9, ["foo"], {F: [2, 3]}, rto=5000)],
                      {"m1": {F: [0, 1]}, "m2": {F: [2, 3]}}, meta={"foo": 4}),
                 hb(0, "m1", 10, {"error": "NONE", "member_epoch": 10, "records": [], "group_state_after": "Stable"}),
                 metadata(100, foo6, {"metadata_refresh_deadline_after": {"deadline_ms": 0, "epoch": 0}}),
                 hb(200, "m1", 10, {"error": "NONE", "member_epoch": 11, "assignment": None,
                                    "subscription_metadata_after": {"foo": 6},
                                    "target_assignment_after": {"m1": {F: [0, 1, 2]}, "m2": {F: [3, 4, 5]}},
                                    "member_after": {"m1": {"state": "UNRELEASED_PARTITIONS", "assigned": {F: [0, 1]}}},
                                    "records": [pm({"foo": 6}), epoch_rec(11), ta("m1", {F: [0, 1, 2]}),
                                                ta("m2", {F: [3, 4, 5]}), ta_epoch(11),
                                                ca("m1", "UNRELEASED_PARTITIONS", 11, 10, {F: [0, 1]})],
                                    "records_unordered_ranges": [[2, 4]], "group_state_after": "Reconciling"}),
                 hb(300, "m2", 10, {"error": "NONE", "member_epoch": 10, "assignment": {F: [3]},
                                    "member_after": {"m2": {"state": "UNREVOKED_PARTITIONS", "assigned": {F: [3]},
                                                            "pending_revocation": {F: [2]}}},
                                    "rebalance_deadline_after": {"m2": 5300}},
                    topic_partitions={F: [2, 3]}),
                 hb(400, "m2", 10, {"error": "NONE", "member_epoch": 11, "assignment": {F: [3, 4, 5]},
                                    "member_after": {"m2": {"state": "STABLE", "previous_member_epoch": 10}},
                                    "rebalance_deadline_after": {"m2": None}},
                    topic_partitions={F: [3]}),
                 hb(500, "m1", 11, {"error": "NONE", "member_epoch": 11, "assignment": {F: [0, 1, 2]},
                                    "member_after": {"m1": {"state": "STABLE"}}, "group_state_after": "Stable"}),
             ], note="RangeAssignorTest asserts the range split after the partitions are added; " + hnote)
    scenario("b-metadata-subscribed-topic-created", "metadata_change", GMMT, "testOnNewMetadataImage",
             "A member subscribes to foo and bar while bar does not exist: only foo is in the subscription metadata "
             "and assigned. Creating bar refreshes the group: the next heartbeat bumps the epoch and hands out bar.",
             config({"foo": {"id": F, "partitions": 3}}, assignors=("range",), mode="real"), [
                 join(0, "m1", {"error": "NONE", "member_epoch": 1, "assignment": {F: [0, 1, 2]},
                                "subscription_metadata_after": {"foo": 3},
                                "target_assignment_after": {"m1": {F: [0, 1, 2]}}},
                      subs=("foo", "bar"), assignor=None),
                 metadata(1000, {"bar": {"id": B, "partitions": 2}},
                          {"metadata_refresh_deadline_after": {"deadline_ms": 0, "epoch": 0}}),
                 hb(2000, "m1", 1, {"error": "NONE", "member_epoch": 2, "assignment": {F: [0, 1, 2], B: [0, 1]},
                                    "subscription_metadata_after": {"foo": 3, "bar": 2}, "group_epoch_after": 2,
                                    "records": [pm({"foo": 3, "bar": 2}), epoch_rec(2),
                                                ta("m1", {F: [0, 1, 2], B: [0, 1]}), ta_epoch(2),
                                                ca("m1", "STABLE", 2, 1, {F: [0, 1, 2], B: [0, 1]})]}),
             ], note="The test asserts that a created topic expires the deadline of the groups subscribed to it; the "
                     "subscription metadata holds only subscribed topics that exist (computeSubscriptionMetadata), "
                     "and the range assignor resolves subscribed names through the topics image. " + hnote)
    scenario("b-metadata-topic-deleted-heterogeneous-range", "metadata_change", GMMT, "testOnNewMetadataImage",
             "m1 subscribes to foo and bar, m2 to foo. Deleting bar drops it from the subscription metadata; the "
             "new range target takes bar from m1 only (m2's target is unchanged, so no record for it); m1 revokes "
             "bar and moves to the new epoch once it stops reporting it.",
             config({"foo": {"id": F, "partitions": 4}, "bar": {"id": B, "partitions": 2}}, assignors=("range",),
                    mode="real", refresh=300000), [
                 seed([member("m1", 10, 9, ["foo", "bar"], {F: [0, 1], B: [0, 1]}, rto=5000),
                       member("m2", 10, 9, ["foo"], {F: [2, 3]}, rto=5000)],
                      {"m1": {F: [0, 1], B: [0, 1]}, "m2": {F: [2, 3]}}, meta={"foo": 4, "bar": 2}),
                 metadata(100, {}, {"metadata_refresh_deadline_after": {"deadline_ms": 0, "epoch": 0}},
                          deleted=["bar"]),
                 hb(200, "m1", 10, {"error": "NONE", "member_epoch": 10, "assignment": {F: [0, 1]},
                                    "subscription_metadata_after": {"foo": 4},
                                    "target_assignment_after": {"m1": {F: [0, 1]}, "m2": {F: [2, 3]}},
                                    "member_after": {"m1": {"state": "UNREVOKED_PARTITIONS",
                                                            "pending_revocation": {B: [0, 1]}}},
                                    "rebalance_deadline_after": {"m1": 5200},
                                    "metadata_refresh_deadline_after": {"deadline_ms": 300200, "epoch": 11},
                                    "records": [pm({"foo": 4}), epoch_rec(11), ta("m1", {F: [0, 1]}), ta_epoch(11),
                                                ca("m1", "UNREVOKED_PARTITIONS", 10, 10, {F: [0, 1]},
                                                   {B: [0, 1]})]},
                    topic_partitions={F: [0, 1], B: [0, 1]}),
                 hb(300, "m1", 10, {"error": "NONE", "member_epoch": 11, "assignment": None,
                                    "member_after": {"m1": {"state": "STABLE", "assigned": {F: [0, 1]}}},
                                    "rebalance_deadline_after": {"m1": None}},
                    topic_partitions={F: [0, 1]}),
                 hb(400, "m2", 10, {"error": "NONE", "member_epoch": 11, "assignment": None, "records": [
                     ca("m2", "STABLE", 11, 10, {F: [2, 3]})], "group_state_after": "Stable"}),
             ], note=hnote + " TargetAssignmentBuilder.build writes a record only for members whose target changed.")
    scenario("b-metadata-unchanged-refresh-no-bump", "metadata_change", GMMT, "testOnNewMetadataImage",
             "A refresh requested for a topic whose partition count did not change recomputes the same "
             "subscription metadata: no record, no epoch bump, only a new refresh deadline.",
             config(foo6, assignors=("range",), mode="real", refresh=300000), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0, 1, 2, 3, 4, 5]}, rto=5000)],
                      {"m1": {F: [0, 1, 2, 3, 4, 5]}}, meta={"foo": 6}),
                 hb(0, "m1", 10, {"error": "NONE", "member_epoch": 10, "records": [],
                                  "metadata_refresh_deadline_after": {"deadline_ms": 300000, "epoch": 10}}),
                 metadata(1000, foo6, {"metadata_refresh_deadline_after": {"deadline_ms": 0, "epoch": 0}}),
                 hb(2000, "m1", 10, {"error": "NONE", "member_epoch": 10, "records": [], "group_epoch_after": 10,
                                     "metadata_refresh_deadline_after": {"deadline_ms": 302000, "epoch": 10}}),
             ], note="consumerGroupHeartbeat: the recomputed subscription metadata equals the stored one, so no "
                     "PartitionMetadata record and no bump; setMetadataRefreshDeadline(now + interval, groupEpoch).")
    scenario("b-metadata-topic-recreated-new-id", "metadata_change", GMMT, "testOnNewMetadataImage",
             "foo is deleted and created again with a new id and the same partition count: the subscription metadata "
             "differs by the id, so the epoch is bumped, the member revokes the old id's partitions and is then "
             "given the new id's.",
             config({"foo": {"id": F, "partitions": 2}}, assignors=("range",), mode="real", refresh=300000), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0, 1]}, rto=5000)], {"m1": {F: [0, 1]}}, meta={"foo": 2}),
                 hb(0, "m1", 10, {"error": "NONE", "member_epoch": 10, "records": []}),
                 metadata(100, {"foo": {"id": "foo2-id", "partitions": 2}},
                          {"metadata_refresh_deadline_after": {"deadline_ms": 0, "epoch": 0}}),
                 hb(200, "m1", 10, {"error": "NONE", "member_epoch": 10, "assignment": {},
                                    "target_assignment_after": {"m1": {"foo2-id": [0, 1]}},
                                    "member_after": {"m1": {"state": "UNREVOKED_PARTITIONS",
                                                            "pending_revocation": {F: [0, 1]}}},
                                    "records": [pm({"foo": 2}), epoch_rec(11), ta("m1", {"foo2-id": [0, 1]}),
                                                ta_epoch(11), ca("m1", "UNREVOKED_PARTITIONS", 10, 10, {}, {F: [0, 1]})]},
                    topic_partitions={F: [0, 1]}),
                 hb(300, "m1", 10, {"error": "NONE", "member_epoch": 11, "assignment": {"foo2-id": [0, 1]},
                                    "member_after": {"m1": {"state": "STABLE"}}},
                    topic_partitions={}),
             ], note="ModernGroup.computeSubscriptionMetadata keys the metadata by name with the topic id "
                     "(TopicMetadata equality includes the id); the range assignor resolves the name to the new id. "
                     + hnote)


_metadata_changes()


# ============================================================================ subscriptions and many members
def _subscriptions():
    snote = ("consumerGroupHeartbeat: a changed subscription bumps the group epoch and recomputes the subscription "
             "metadata and type (ModernGroup.subscriptionType: heterogeneous once the members differ).")
    cfg = config({"topic1": {"id": T1, "partitions": 6}, "topic2": {"id": T2, "partitions": 3}},
                 assignors=("uniform",), mode="real")
    scenario("b-subscription-change-to-heterogeneous-uniform", "subscription_change", UHBT,
             "testReassignmentWhenOneSubscriptionAddedAfterInitialAssignmentWithTwoMembersTwoTopics",
             "m1 and m2 share topic1 (3 each). m2 also subscribes to topic2: the group becomes heterogeneous; m2 "
             "keeps its topic1 partitions and gets all of topic2, then the balancing pass moves topic1-5 to m1 "
             "(4 against 5). m2 must revoke topic1-5 first.", cfg, [
                 seed([member("m1", 10, 9, ["topic1"], {T1: [0, 1, 2]}, assignor=None, rto=5000),
                       member("m2", 10, 9, ["topic1"], {T1: [3, 4, 5]}, assignor=None, rto=5000)],
                      {"m1": {T1: [0, 1, 2]}, "m2": {T1: [3, 4, 5]}}),
                 hb(0, "m2", 10, {"error": "NONE", "member_epoch": 10, "assignment": {T1: [3, 4]},
                                  "group_epoch_after": 11, "subscription_metadata_after": {"topic1": 6, "topic2": 3},
                                  "target_assignment_after": {"m1": {T1: [0, 1, 2, 5]}, "m2": {T1: [3, 4], T2: [0, 1, 2]}},
                                  "member_after": {"m2": {"state": "UNREVOKED_PARTITIONS", "assigned": {T1: [3, 4]},
                                                          "pending_revocation": {T1: [5]}}},
                                  "records": [mm("m2", ["topic1", "topic2"], rto=5000, assignor=None),
                                              pm({"topic1": 6, "topic2": 3}), epoch_rec(11),
                                              ta("m1", {T1: [0, 1, 2, 5]}), ta("m2", {T1: [3, 4], T2: [0, 1, 2]}),
                                              ta_epoch(11),
                                              ca("m2", "UNREVOKED_PARTITIONS", 10, 10, {T1: [3, 4]}, {T1: [5]})],
                                  "records_unordered_ranges": [[3, 5]]},
                    subscribed_topic_names=["topic1", "topic2"]),
                 hb(100, "m1", 10, {"error": "NONE", "member_epoch": 11, "assignment": None,
                                    "member_after": {"m1": {"state": "UNRELEASED_PARTITIONS",
                                                            "assigned": {T1: [0, 1, 2]}}}}),
                 hb(200, "m2", 10, {"error": "NONE", "member_epoch": 11,
                                    "assignment": {T1: [3, 4], T2: [0, 1, 2]},
                                    "member_after": {"m2": {"state": "STABLE"}}},
                    topic_partitions={T1: [3, 4]}),
                 hb(300, "m1", 11, {"error": "NONE", "member_epoch": 11, "assignment": {T1: [0, 1, 2, 5]},
                                    "group_state_after": "Stable"}),
             ], note=snote + " The target is UniformHeterogeneousAssignmentBuilder's reference output for this "
                             "input (keep current partitions, give unassigned ones to the least loaded subscriber, "
                             "then move the highest partitions of the most loaded member of a shared topic until "
                             "its subscribers differ by at most one).")
    scenario("b-subscription-emptied", "subscription_change", GMMT, "testUpdatingSubscriptionTriggersNewTargetAssignment",
             "A member may send an empty subscription after joining (only epoch 0 requires topics): the epoch is "
             "bumped, the subscription metadata loses foo, and the member revokes everything.",
             config({"foo": {"id": F, "partitions": 2}}, assignors=("range",), mode="real"), [
                 join(0, "m1", {"error": "NONE", "member_epoch": 1, "assignment": {F: [0, 1]}},
                      subs=("foo",), assignor=None),
                 hb(1000, "m1", 1, {"error": "NONE", "member_epoch": 1, "assignment": {},
                                    "subscription_metadata_after": {}, "group_epoch_after": 2,
                                    "target_assignment_after": {"m1": {}},
                                    "member_after": {"m1": {"state": "UNREVOKED_PARTITIONS",
                                                            "pending_revocation": {F: [0, 1]}}},
                                    "records": [mm("m1", [], rto=5000, assignor=None), pm({}), epoch_rec(2),
                                                ta("m1", {}), ta_epoch(2),
                                                ca("m1", "UNREVOKED_PARTITIONS", 1, 1, {}, {F: [0, 1]})]},
                    subscribed_topic_names=[]),
                 hb(2000, "m1", 1, {"error": "NONE", "member_epoch": 2, "assignment": None,
                                    "member_after": {"m1": {"state": "STABLE", "assigned": {}}},
                                    "group_state_after": "Stable"}, topic_partitions={}),
             ], note="throwIfConsumerGroupHeartbeatRequestIsInvalid checks the subscription only at epoch 0; "
                     + snote + " With no topic the range assignor gives the member an empty assignment.")
    topics = {"foo": {"id": F, "partitions": 7}, "bar": {"id": B, "partitions": 5}, "baz": {"id": Z, "partitions": 3}}
    target = {"a": {F: [3, 4], B: [3, 4]}, "b": {F: [0, 1, 2]}, "c": {B: [0, 1, 2], Z: [0]}, "d": {F: [5, 6], Z: [1]},
              "e": {Z: [2]}}
    scenario("b-heterogeneous-five-members-range-static-first", "heterogeneous", RAT,
             "testStaticMembershipWithMixedSubscriptions",
             "Five members, three topics, different subscriptions; b and c are static (instance ids z-inst and "
             "a-inst). Range orders static members by instance id (c, b), then dynamic ones by member id (a, d, e), "
             "and splits each topic over its own subscribers in that order.",
             config(topics, assignors=("range",), mode="real"), [
                 seed([member("a", 10, 9, ["foo", "bar"], {}, rto=5000),
                       member("b", 10, 9, ["foo"], {}, instance="z-inst", rto=5000),
                       member("c", 10, 9, ["bar", "baz"], {}, instance="a-inst", rto=5000),
                       member("d", 10, 9, ["foo", "baz"], {}, rto=5000),
                       member("e", 10, 9, ["baz"], {}, rto=5000)], {}, epoch=11, assignment_epoch=10),
                 hb(0, "e", 10, {"error": "NONE", "member_epoch": 11, "assignment": {Z: [2]},
                                 "target_assignment_after": target, "group_state_after": "Reconciling",
                                 "static_members_after": {"z-inst": "b", "a-inst": "c"}}),
                 hb(100, "c", 10, {"error": "NONE", "member_epoch": 11, "assignment": {B: [0, 1, 2], Z: [0]}}),
             ], note="RangeAssignor.assignHeterogeneousGroup / sortMemberIds (static members by instance id first); "
                     "the test pins the static-first order with mixed subscriptions, this case restates it with "
                     "three topics through the coordinator (real assignor).")
    scenario("b-homogeneous-third-member-joins-uniform", "heterogeneous", OUBT,
             "testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics",
             "m1 and m2 hold topic1 (6) and topic2 (3) 5 + 4; m3 joins: quota 3 each. m1 walks its target topic2 "
             "first (Uuid HashMap order), keeps topic2-0/1 and topic1-0; m2 keeps topic1-3/4 and topic2-2; m3 gets "
             "topic1-1/2/5, all still owned, so it waits in UNRELEASED_PARTITIONS.",
             cfg, [
                 seed([member("m1", 10, 9, ["topic1", "topic2"], {T1: [0, 1, 2], T2: [0, 1]}, assignor=None,
                              rto=5000),
                       member("m2", 10, 9, ["topic1", "topic2"], {T1: [3, 4, 5], T2: [2]}, assignor=None, rto=5000)],
                      {"m1": {T1: [0, 1, 2], T2: [0, 1]}, "m2": {T1: [3, 4, 5], T2: [2]}}),
                 join(0, "m3", {"error": "NONE", "member_epoch": 11, "assignment": {},
                                "target_assignment_after": {"m1": {T1: [0], T2: [0, 1]}, "m2": {T1: [3, 4], T2: [2]},
                                                            "m3": {T1: [1, 2, 5]}},
                                "member_after": {"m3": {"state": "UNRELEASED_PARTITIONS"}}},
                      subs=("topic1", "topic2"), assignor=None),
             ], note="UniformHomogeneousAssignmentBuilder reference output for this input: members walked in "
                     "HashMap<String> order (m1, m2, m3), each member's target in Assignment.fromRecord's "
                     "HashMap<Uuid> order (topic2 before topic1) keeping partitions up to the quota.")


_subscriptions()


# ============================================================================ revocation, fencing, timers
def _revocation_and_timers():
    foo4 = {"foo": {"id": F, "partitions": 4}}
    rnote = ("CurrentAssignmentBuilder.build: UNREVOKED_PARTITIONS stays while any partition pending revocation is "
             "still reported (or nothing is reported); GroupMetadataManager.maybeReconcile schedules the rebalance "
             "timeout bound to the member epoch and cancels it on any other new state.")
    scenario("b-revocation-acknowledged-in-two-steps", "revocation", CABT, "testUnrevokedPartitionsToUnrevokedPartitions",
             "m1 must revoke foo-2 and foo-3. It first reports foo-3 still owned: nothing changes (no record, no "
             "assignment in the response, the rebalance timer keeps its deadline); then it reports neither and "
             "moves to epoch 11.", config(foo4, assignors=("range",), mode="real"), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0, 1, 2, 3]}, rto=8000)], {"m1": {F: [0, 1, 2, 3]}}),
                 join(0, "m2", {"error": "NONE", "member_epoch": 11, "assignment": {},
                                "target_assignment_after": {"m1": {F: [0, 1]}, "m2": {F: [2, 3]}}},
                      subs=("foo",), assignor=None),
                 hb(100, "m1", 10, {"error": "NONE", "member_epoch": 10, "assignment": {F: [0, 1]},
                                    "rebalance_deadline_after": {"m1": 8100},
                                    "member_after": {"m1": {"state": "UNREVOKED_PARTITIONS",
                                                            "pending_revocation": {F: [2, 3]}}}},
                    topic_partitions={F: [0, 1, 2, 3]}),
                 hb(200, "m1", 10, {"error": "NONE", "member_epoch": 10, "assignment": None, "records": [],
                                    "rebalance_deadline_after": {"m1": 8100}},
                    topic_partitions={F: [0, 1, 3]}),
                 hb(300, "m1", 10, {"error": "NONE", "member_epoch": 11, "assignment": None,
                                    "rebalance_deadline_after": {"m1": None},
                                    "records": [ca("m1", "STABLE", 11, 10, {F: [0, 1]})]},
                    topic_partitions={F: [0, 1]}),
                 hb(400, "m2", 11, {"error": "NONE", "member_epoch": 11, "assignment": {F: [2, 3]},
                                    "group_state_after": "Stable"}),
             ], note=rnote)
    scenario("b-rebalance-timeout-frees-partitions", "rebalance_timeout", GMMT, "testRebalanceTimeoutExpiration",
             "m1 never revokes foo-2/3: its rebalance timer fires, it is fenced (tombstones, epoch 12). m2, waiting "
             "for those partitions, heartbeats: a new target gives it all four, and they are free, so it is STABLE.",
             config(foo4, assignors=("range",), mode="real"), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0, 1, 2, 3]}, rto=8000)], {"m1": {F: [0, 1, 2, 3]}}),
                 join(0, "m2", {"error": "NONE", "member_epoch": 11, "assignment": {}},
                      subs=("foo",), assignor=None),
                 hb(100, "m1", 10, {"error": "NONE", "member_epoch": 10, "rebalance_deadline_after": {"m1": 8100}},
                    topic_partitions={F: [0, 1, 2, 3]}),
                 hb(5000, "m2", 11, {"error": "NONE", "member_epoch": 11, "assignment": None,
                                     "member_after": {"m2": {"state": "UNRELEASED_PARTITIONS", "assigned": {}}}}),
                 advance(8101, {"fenced": ["m1"], "members_after": ["m2"], "group_epoch_after": 12,
                                "records": tombstones("m1") + [epoch_rec(12)],
                                "session_deadline_after": {"m1": None}}),
                 hb(9000, "m2", 11, {"error": "NONE", "member_epoch": 12, "assignment": {F: [0, 1, 2, 3]},
                                     "target_assignment_after": {"m2": {F: [0, 1, 2, 3]}},
                                     "member_after": {"m2": {"state": "STABLE"}}, "group_state_after": "Stable"}),
             ], note="scheduleConsumerGroupRebalanceTimeout fences the member if it is still at the epoch the timer "
                     "was armed for (consumerGroupFenceMember: tombstones, subscription metadata unchanged since m2 "
                     "still subscribes to foo, epoch + 1). " + rnote)
    scenario("b-loaded-group-has-no-timers", "session_timeout", GMMT, "testSessionTimeoutExpiration",
             "A group loaded from records has no session timers until its members heartbeat: after a minute nothing "
             "is fenced; m1 heartbeats and is fenced 45 s later, m2 (silent) stays.",
             config(foo4, assignors=("range",), mode="real"), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0, 1]}, rto=5000),
                       member("m2", 10, 9, ["foo"], {F: [2, 3]}, rto=5000)],
                      {"m1": {F: [0, 1]}, "m2": {F: [2, 3]}}),
                 advance(60000, {"fenced": [], "members_after": ["m1", "m2"],
                                 "session_deadline_after": {"m1": None, "m2": None}}),
                 hb(61000, "m1", 10, {"error": "NONE", "member_epoch": 10, "session_deadline_after": {"m1": 106000}}),
                 advance(106001, {"fenced": ["m1"], "members_after": ["m2"], "group_epoch_after": 11,
                                  "records": tombstones("m1") + [epoch_rec(11)]}),
                 hb(107000, "m2", 10, {"error": "NONE", "member_epoch": 11, "assignment": {F: [0, 1, 2, 3]},
                                       "target_assignment_after": {"m2": {F: [0, 1, 2, 3]}}}),
             ], note="The format's seed is the tests' ConsumerGroupBuilder replay: no timer is scheduled by a replay "
                     "(onLoaded is not called), scheduleConsumerGroupSessionTimeout runs on each heartbeat.")
    scenario("b-fenced-member-rejoins-same-id", "fencing", GMMT, "testSessionTimeoutExpiration",
             "After its session expired, m1's heartbeat at epoch 1 is UNKNOWN_MEMBER_ID; it rejoins with epoch 0 and "
             "the same member id and is a new member (epoch 3: the fence and the join each bumped the epoch).",
             config(foo4, assignors=("range",), mode="real"), [
                 join(0, "m1", {"error": "NONE", "member_epoch": 1, "assignment": {F: [0, 1, 2, 3]}},
                      subs=("foo",), assignor=None),
                 advance(45001, {"fenced": ["m1"], "group_state_after": "Empty", "group_epoch_after": 2}),
                 hb(46000, "m1", 1, {"error": "UNKNOWN_MEMBER_ID"}),
                 join(47000, "m1", {"error": "NONE", "member_epoch": 3, "assignment": {F: [0, 1, 2, 3]},
                                    "group_epoch_after": 3}, subs=("foo",), assignor=None),
             ], note="consumerGroupFenceMember removes the member (epoch 2, subscription metadata emptied); "
                     "getOrMaybeSubscribeDynamicConsumerGroupMember creates it again at epoch 0 (the subscription "
                     "change bumps the epoch to 3).")
    scenario("b-fenced-epoch-greater-and-smaller", "fencing", GMMT, "testConsumerGroupMemberEpochValidation",
             "A member at epoch 11 (previous 10) is fenced for epoch 12 and for epoch 9, accepted at 10 with owned "
             "partitions inside its assignment, fenced at 10 with a partition outside it.",
             config(foo4, assignors=("range",), mode="real"), [
                 seed([member("m1", 11, 10, ["foo"], {F: [0, 1, 2, 3]}, rto=5000)], {"m1": {F: [0, 1, 2, 3]}},
                      epoch=11),
                 hb(0, "m1", 12, {"error": "FENCED_MEMBER_EPOCH"}),
                 hb(100, "m1", 9, {"error": "FENCED_MEMBER_EPOCH"}),
                 hb(200, "m1", 10, {"error": "NONE", "member_epoch": 11, "assignment": None},
                    topic_partitions={F: [0, 1]}),
                 hb(300, "m1", 10, {"error": "NONE", "member_epoch": 11, "assignment": {F: [0, 1, 2, 3]}},
                    topic_partitions={F: [0, 1]}, rebalance_timeout_ms=5000, subscribed_topic_names=["foo"]),
             ], note="throwIfConsumerGroupMemberEpochIsInvalid; the last request is full (rebalance timeout, "
                     "subscription and owned partitions set), so the assignment is returned although unchanged.")
    scenario("b-known-member-rejoins-with-epoch-zero", "fencing", GMMT, "testConsumerGroupMemberEpochValidation",
             "A known dynamic member at epoch 11 (previous 10) sending epoch 0 with its own id is not a new member: "
             "the epoch check applies (0 is below 11 and is not its previous epoch) and it is FENCED_MEMBER_EPOCH. "
             "After one more epoch bump its previous epoch is still not 0, so a second try is fenced too.",
             config(foo4, assignors=("range",), mode="real"), [
                 seed([member("m1", 11, 10, ["foo"], {F: [0, 1, 2, 3]}, rto=5000)], {"m1": {F: [0, 1, 2, 3]}},
                      epoch=11),
                 join(0, "m1", {"error": "FENCED_MEMBER_EPOCH", "members_after": ["m1"]}, subs=("foo",),
                      assignor=None),
                 join(100, "m1", {"error": "FENCED_MEMBER_EPOCH"}, subs=("foo", "bar"), assignor=None),
             ], note="getOrMaybeSubscribeDynamicConsumerGroupMember returns the existing member for epoch 0 and "
                     "calls throwIfConsumerGroupMemberEpochIsInvalid whatever the request epoch (the retry of a lost "
                     "join is accepted only because the member's previous epoch is then 0 and an empty owned list "
                     "is a subset). Later Kafka accepts epoch 0 from a known member (KAFKA-19233, 2026-01: an early "
                     "return for epoch 0 in the validation), hence version_sensitive.", version_sensitive=True)


_revocation_and_timers()


# ============================================================================ partition epochs (ConsumerGroupTest)
def _partition_epochs():
    enote = ("ConsumerGroup.updateMember / removeMember keep currentPartitionEpoch: assigned and pending-revocation "
             "partitions at the member's epoch, removed with the member; CurrentAssignmentBuilder reads it from the "
             "group as it was before the request's records are replayed.")
    foo2 = {"foo": {"id": F, "partitions": 2}}
    scenario("b-partition-pending-revocation-blocks-until-owner-leaves", "partition_epochs", CGT,
             "testDeletingMemberRemovesPartitionEpoch",
             "foo-1 is pending revocation at m1 (epoch 10): m2, whose target it is, stays UNRELEASED_PARTITIONS "
             "with nothing. m1 leaves: its partition epochs go, the epoch is bumped, and m2's next heartbeat "
             "(range: m2 alone) gets both partitions at once.",
             config(foo2, assignors=("range",), mode="real"), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0]}, state="UNREVOKED_PARTITIONS", pending={F: [1]},
                              rto=5000),
                       member("m2", 10, 10, ["foo"], {}, state="UNRELEASED_PARTITIONS", rto=5000)],
                      {"m1": {F: [0]}, "m2": {F: [1]}}),
                 hb(0, "m2", 10, {"error": "NONE", "member_epoch": 10, "records": [], "assignment": None,
                                  "group_state_after": "Reconciling"}),
                 leave(100, "m1", -1, {"error": "NONE", "member_epoch": -1, "group_epoch_after": 11,
                                       "members_after": ["m2"]}),
                 hb(200, "m2", 10, {"error": "NONE", "member_epoch": 11, "assignment": {F: [0, 1]},
                                    "target_assignment_after": {"m2": {F: [0, 1]}},
                                    "member_after": {"m2": {"state": "STABLE", "previous_member_epoch": 10}},
                                    "group_state_after": "Stable"}),
             ], note=enote + " m2 is loaded at epoch 10 with previous epoch 10, so its unchanged UNRELEASED state "
                             "writes nothing (updateMemberEpoch(10) leaves it equal).")
    scenario("b-partition-reassigned-to-its-revoker", "partition_epochs", CGT,
             "testUpdatingMemberUpdatesPartitionEpochWhenPartitionIsReassignedBeforeBeingRevoked",
             "m1 is revoking foo-1 at epoch 10 when the new target gives foo-1 back to it. Once it reports foo-1 "
             "revoked it moves to epoch 11 but foo-1 still carries its own epoch 10 (pending revocation), so it is "
             "UNRELEASED_PARTITIONS with nothing; the next heartbeat assigns foo-1 (now at epoch 11).",
             config(foo2, assignors=("range",), mode="mock"), [
                 seed([member("m1", 10, 9, ["foo"], {}, state="UNREVOKED_PARTITIONS", pending={F: [1]}, rto=5000)],
                      {"m1": {F: [1]}}, epoch=11),
                 hb(0, "m1", 10, {"error": "NONE", "member_epoch": 11, "assignment": None,
                                  "records": [ca("m1", "UNRELEASED_PARTITIONS", 11, 10, {})]},
                    topic_partitions={}),
                 hb(100, "m1", 11, {"error": "NONE", "member_epoch": 11, "assignment": {F: [1]},
                                    "records": [ca("m1", "STABLE", 11, 11, {F: [1]})], "group_state_after": "Stable"},
                    topic_partitions={}),
             ], note=enote + " The test sets the member from pending {foo-1} at 10 to assigned {foo-1} at 11 "
                             "directly; through a heartbeat the release and the re-assignment take two requests.")


_partition_epochs()


# ============================================================================ ConsumerGroupTest, through heartbeats
def _consumer_group_test():
    foo4 = {"foo": {"id": F, "partitions": 4}}
    scenario("b-cgt-get-or-create-member", "member_lookup", CGT, "testGetOrCreateMember",
             "An unknown member id is UNKNOWN_MEMBER_ID at epoch 1 (no creation) and becomes a member at epoch 0.",
             config(foo4, assignors=("range",), mode="real"), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0, 1, 2, 3]}, rto=5000)], {"m1": {F: [0, 1, 2, 3]}}),
                 hb(0, "m2", 1, {"error": "UNKNOWN_MEMBER_ID", "members_after": ["m1"]}),
                 join(100, "m2", {"error": "NONE", "member_epoch": 11, "members_after": ["m1", "m2"]},
                      subs=("foo",), assignor=None),
             ], note="ConsumerGroup.getOrMaybeCreateMember(memberId, createIfNotExists) through "
                     "getOrMaybeSubscribeDynamicConsumerGroupMember (createIfNotExists = epoch 0).")
    scenario("b-cgt-remove-member", "member_lookup", CGT, "testRemoveMember",
             "Removing a static member (-1 leave) drops it from the members and from the static-member map; its "
             "instance id is then unknown to a -2 leave.",
             config(foo4, assignors=("range",), mode="real"), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0, 1]}, instance="i1", rto=5000),
                       member("m2", 10, 9, ["foo"], {F: [2, 3]}, rto=5000)],
                      {"m1": {F: [0, 1]}, "m2": {F: [2, 3]}}),
                 leave(0, "m1", -1, {"error": "NONE", "members_after": ["m2"], "static_members_after": {}},
                       instance_id="i1"),
                 leave(100, "m1", -2, {"error": "UNKNOWN_MEMBER_ID"}, instance_id="i1"),
             ], note="ConsumerGroup.removeMember (removeStaticMember); consumerGroupLeave -> throwIfStaticMemberIsUnknown.")
    scenario("b-cgt-partition-epoch-follows-member-epoch", "partition_epochs", CGT,
             "testUpdatingMemberUpdatesPartitionEpoch",
             "m1 moves from epoch 10 to 11 keeping foo-0/1 and revoking foo-2/3: the kept partitions now carry epoch "
             "11 and the revoked ones stay at 10 until m1 acknowledges; m2, the new owner of foo-2/3, waits and then "
             "gets them.",
             config(foo4, assignors=("range",), mode="real"), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0, 1, 2, 3]}, rto=5000)], {"m1": {F: [0, 1, 2, 3]}}),
                 join(0, "m2", {"error": "NONE", "member_epoch": 11, "assignment": {},
                                "member_after": {"m2": {"state": "UNRELEASED_PARTITIONS"}}},
                      subs=("foo",), assignor=None),
                 hb(100, "m1", 10, {"error": "NONE", "member_epoch": 10,
                                    "member_after": {"m1": {"state": "UNREVOKED_PARTITIONS", "assigned": {F: [0, 1]},
                                                            "pending_revocation": {F: [2, 3]}}}}),
                 hb(200, "m2", 11, {"error": "NONE", "member_epoch": 11, "assignment": None,
                                    "records": [ca("m2", "UNRELEASED_PARTITIONS", 11, 11, {})]}),
                 hb(300, "m1", 10, {"error": "NONE", "member_epoch": 11}, topic_partitions={F: [0, 1]}),
                 hb(400, "m2", 11, {"error": "NONE", "member_epoch": 11, "assignment": {F: [2, 3]},
                                    "member_after": {"m2": {"state": "STABLE"}}, "group_state_after": "Stable"}),
             ], note="ConsumerGroup.maybeUpdatePartitionEpoch: the old member's partitions are removed at its old "
                     "epoch, the new member's assigned and pending partitions added at its new epoch. m2's second "
                     "heartbeat still writes a record: CurrentAssignmentBuilder's updateMemberEpoch(11) turns its "
                     "previous epoch from 0 (the join) into 11.")
    cfg = config({"topic1": {"id": T1, "partitions": 4}, "topic2": {"id": T2, "partitions": 2}},
                 assignors=("uniform",), mode="real")
    scenario("b-cgt-subscription-type-back-to-homogeneous", "heterogeneous", CGT,
             "testUpdateSubscribedTopicNamesAndSubscriptionType",
             "m1 subscribes to topic1 only, m2 and m3 to topic1 and topic2: heterogeneous. When m1 leaves, the group "
             "is homogeneous again and the uniform assignor uses its homogeneous builder: m2 keeps topic2 and gets "
             "topic1-1, m3 keeps topic1-0 and gets topic1-2/3 (the heterogeneous builder would give m2 topic1-3).",
             cfg, [
                 seed([member("m1", 10, 9, ["topic1"], {T1: [1, 2, 3]}, assignor=None, rto=5000),
                       member("m2", 10, 9, ["topic1", "topic2"], {T2: [0, 1]}, assignor=None, rto=5000),
                       member("m3", 10, 9, ["topic1", "topic2"], {T1: [0]}, assignor=None, rto=5000)],
                      {"m1": {T1: [1, 2, 3]}, "m2": {T2: [0, 1]}, "m3": {T1: [0]}}),
                 leave(0, "m1", -1, {"error": "NONE", "group_epoch_after": 11}),
                 hb(100, "m2", 10, {"error": "NONE", "member_epoch": 11, "assignment": {T1: [1], T2: [0, 1]},
                                    "target_assignment_after": {"m2": {T1: [1], T2: [0, 1]},
                                                                "m3": {T1: [0, 2, 3]}}}),
             ], note="ModernGroup.subscriptionType over the subscribed topic counts and the member count, kept up to "
                     "date by removeMember; the targets are the reference outputs of UniformHomogeneousAssignmentBuilder "
                     "(and, for the remark, UniformHeterogeneousAssignmentBuilder) on this input.")


_consumer_group_test()


# ============================================================================ regex subscriptions (refused at this commit)
def _regex():
    foo4 = {"foo": {"id": F, "partitions": 4}}
    scenario("b-regex-refused-on-every-path", "validation", GMMT, "testConsumerHeartbeatRegexValidation",
             "At this commit any SubscribedTopicRegex, even an empty string, is INVALID_REQUEST, on a regular "
             "heartbeat, on a -1 leave (the member stays) and before the server assignor is checked; nothing is "
             "written and the member keeps its epoch.",
             config(foo4, assignors=("range",), mode="real"), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0, 1, 2, 3]}, rto=5000)], {"m1": {F: [0, 1, 2, 3]}}),
                 hb(0, "m1", 10, {"error": "INVALID_REQUEST", "records": []}, subscribed_topic_regex="foo.*"),
                 hb(100, "m1", 10, {"error": "INVALID_REQUEST"}, subscribed_topic_regex=""),
                 leave(200, "m1", -1, {"error": "INVALID_REQUEST", "members_after": ["m1"]},
                       subscribed_topic_regex="foo.*"),
                 hb(300, "m1", 10, {"error": "INVALID_REQUEST"}, subscribed_topic_regex="foo.*",
                    server_assignor="no-such-assignor"),
                 hb(400, "m1", 10, {"error": "UNSUPPORTED_ASSIGNOR"}, server_assignor="no-such-assignor"),
                 hb(500, "m1", 10, {"error": "NONE", "member_epoch": 10, "group_epoch_after": 10}),
             ], note="throwIfConsumerGroupHeartbeatRequestIsInvalid: throwIfNotNull(subscribedTopicRegex) comes "
                     "right after the group/instance/rack checks, before the epoch branches and the server assignor "
                     "check; a failed request writes nothing. 3.7-3.9 accept and store the regex (version_sensitive "
                     "there); 4.0 resolves it.", version_sensitive=True)


_regex()


# ============================================================================ static members
def _static():
    foo6 = {"foo": {"id": F, "partitions": 6}}
    scenario("b-static-rejoin-after-temporary-leave-range", "static_member", GMMT,
             "testStaticMemberGetsBackAssignmentUponRejoin",
             "Static s2 (instance i2) leaves with -2 and rejoins under a new member id: it is copied with epoch 0 "
             "and gets its partitions back at the current epoch; the group epoch does not move and the range "
             "target (ordered by instance id) is unchanged.",
             config(foo6, assignors=("range",), mode="real"), [
                 seed([member("s1", 10, 9, ["foo"], {F: [0, 1, 2]}, instance="i1", rto=5000),
                       member("s2", 10, 9, ["foo"], {F: [3, 4, 5]}, instance="i2", rto=5000)],
                      {"s1": {F: [0, 1, 2]}, "s2": {F: [3, 4, 5]}}),
                 leave(0, "s2", -2, {"error": "NONE", "member_epoch": -2, "group_epoch_after": 10,
                                     "member_after": {"s2": {"member_epoch": -2}}}, instance_id="i2"),
                 hb(1000, "s2b", 0, {"error": "NONE", "member_id": "s2b", "member_epoch": 10,
                                     "assignment": {F: [3, 4, 5]}, "group_epoch_after": 10,
                                     "members_after": ["s1", "s2b"], "static_members_after": {"i1": "s1", "i2": "s2b"},
                                     "target_assignment_after": {"s1": {F: [0, 1, 2]}, "s2b": {F: [3, 4, 5]}},
                                     "member_after": {"s2b": {"state": "STABLE", "previous_member_epoch": 0}}},
                    instance_id="i2", rebalance_timeout_ms=5000, subscribed_topic_names=["foo"], topic_partitions={},
                    server_assignor="range"),
             ], note="getOrMaybeSubscribeStaticConsumerGroupMember copies the departed member (epoch 0, previous 0) "
                     "and replaceMember moves its target; no subscription change, so no bump and no new target.")
    scenario("b-static-rejoin-with-new-subscription-range", "static_member", GMMT,
             "testStaticMemberRejoinsWithNewSubscribedTopics",
             "Static s2 leaves with -2 and rejoins with foo and bar: the copy's subscription changes, the epoch is "
             "bumped and range splits foo over i1, i2 and gives bar to i2 alone.",
             config({"foo": {"id": F, "partitions": 6}, "bar": {"id": B, "partitions": 2}}, assignors=("range",),
                    mode="real"), [
                 seed([member("s1", 10, 9, ["foo"], {F: [0, 1, 2]}, instance="i1", rto=5000),
                       member("s2", 10, 9, ["foo"], {F: [3, 4, 5]}, instance="i2", rto=5000)],
                      {"s1": {F: [0, 1, 2]}, "s2": {F: [3, 4, 5]}}),
                 leave(0, "s2", -2, {"error": "NONE", "member_epoch": -2}, instance_id="i2"),
                 hb(1000, "s2b", 0, {"error": "NONE", "member_epoch": 11, "assignment": {F: [3, 4, 5], B: [0, 1]},
                                     "group_epoch_after": 11, "subscription_metadata_after": {"foo": 6, "bar": 2},
                                     "target_assignment_after": {"s1": {F: [0, 1, 2]}, "s2b": {F: [3, 4, 5], B: [0, 1]}}},
                    instance_id="i2", rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                    topic_partitions={}, server_assignor="range"),
             ], note="replaceMember, then hasMemberSubscriptionChanged bumps the epoch; the target builder drops the "
                     "previous member id (TargetAssignmentBuilder.removeMember) and the new one inherits its target.")
    scenario("b-static-session-expiry-after-temporary-leave-then-rejoin", "static_member", GMMT,
             "testSessionTimeoutExpirationStaticMember",
             "Static s1 leaves with -2 after heartbeating; its session timer (armed by that heartbeat) expires: it is "
             "removed and the epoch bumped. Rejoining with the same instance id is then a new member.",
             config(foo6, assignors=("range",), mode="real"), [
                 join(0, "s1", {"error": "NONE", "member_epoch": 1, "assignment": {F: [0, 1, 2, 3, 4, 5]}},
                      subs=("foo",), assignor=None, instance_id="i1"),
                 leave(1000, "s1", -2, {"error": "NONE", "member_epoch": -2, "session_deadline_after": {"s1": 45000}},
                       instance_id="i1"),
                 advance(45001, {"fenced": ["s1"], "members_after": [], "static_members_after": {},
                                 "group_epoch_after": 2}),
                 hb(46000, "s1x", 0, {"error": "NONE", "member_epoch": 3, "assignment": {F: [0, 1, 2, 3, 4, 5]},
                                      "static_members_after": {"i1": "s1x"}},
                    instance_id="i1", rebalance_timeout_ms=5000, subscribed_topic_names=["foo"], topic_partitions={}),
             ], note="consumerGroupStaticMemberGroupLeave does not touch the session timer; its expiry fences the "
                     "member like a -1 leave (consumerGroupFenceMemberOperation).")
    scenario("b-static-temporary-leave-commit-at-minus-two", "commit", OMMT, "testConsumerGroupOffsetCommit",
             "A static member at epoch -2 can still commit with member epoch -2 (it equals the stored epoch); a "
             "commit with epoch 10 is STALE_MEMBER_EPOCH and one with -1 from the same member too.",
             config(foo6, assignors=("range",), mode="real"), [
                 seed([member("s1", 10, 9, ["foo"], {F: [0, 1, 2, 3, 4, 5]}, instance="i1", rto=5000)],
                      {"s1": {F: [0, 1, 2, 3, 4, 5]}}),
                 leave(0, "s1", -2, {"error": "NONE", "member_epoch": -2}, instance_id="i1"),
                 commit(100, "s1", -2, {"foo-0": 10}, {"error": "NONE", "partition_errors": {"foo-0": "NONE"}}),
                 commit(200, "s1", 10, {"foo-0": 11}, {"error": "STALE_MEMBER_EPOCH"}),
                 commit(300, "s1", -1, {"foo-0": 12}, {"error": "STALE_MEMBER_EPOCH"}),
             ], note="ConsumerGroup.validateOffsetCommit: a negative epoch is accepted without a member only when the "
                     "group is empty; otherwise the member is looked up and its epoch (-2 here) must match.")
    scenario("b-static-fenced-instance-on-regular-heartbeat", "static_member", GMMT,
             "testShouldThrowFencedInstanceIdExceptionWhenStaticMemberWithDifferentMemberIdJoins",
             "After s2 was replaced by s2b, a heartbeat from the old id s2 with instance i2 and its old epoch is "
             "FENCED_INSTANCE_ID; the same from s2b is accepted.",
             config(foo6, assignors=("range",), mode="real"), [
                 seed([member("s1", 10, 9, ["foo"], {F: [0, 1, 2]}, instance="i1", rto=5000),
                       member("s2", 10, 9, ["foo"], {F: [3, 4, 5]}, instance="i2", rto=5000)],
                      {"s1": {F: [0, 1, 2]}, "s2": {F: [3, 4, 5]}}),
                 leave(0, "s2", -2, {"error": "NONE", "member_epoch": -2}, instance_id="i2"),
                 hb(1000, "s2b", 0, {"error": "NONE", "member_epoch": 10}, instance_id="i2", rebalance_timeout_ms=5000,
                    subscribed_topic_names=["foo"], topic_partitions={}),
                 hb(2000, "s2", 10, {"error": "FENCED_INSTANCE_ID"}, instance_id="i2"),
                 hb(3000, "s2b", 10, {"error": "NONE", "member_epoch": 10}, instance_id="i2"),
             ], note="throwIfInstanceIdIsFenced: the instance now maps to s2b.")


_static()


# ============================================================================ assignor selection
def _assignor_selection():
    foo3 = {"foo": {"id": F, "partitions": 3}}
    pnote = ("ConsumerGroup.computePreferredServerAssignor: counts = new HashMap<>(serverAssignors), compute(old "
             "name, decValue), compute(new name, incValue), stream().max(comparingByValue()) keeps the first of "
             "equal counts. serverAssignors is a TimelineHashMap walked uniform, range; HashMap.compute prepends a "
             "new key to its bucket (range and uniform share it). Checked by running the TimelineHashMap classes of "
             "the commit with OpenJDK 17's HashMap.")
    ranged = {"m1": {F: [0]}, "m2": {F: [1]}, "m3": {F: [2]}}
    scenario("b-assignor-tie-new-member-with-range", "assignor_selection", CGT, "testPreferredServerAssignor",
             "m1 names uniform; m3 joins naming range: 1-1. range is a new key of the counts copy, inserted at the "
             "head of the bucket it shares with uniform, so range computes the target.",
             config(foo3, assignors=("uniform", "range"), mode="real"), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0, 1]}, assignor="uniform", rto=5000),
                       member("m2", 10, 9, ["foo"], {F: [2]}, assignor=None, rto=5000)],
                      {"m1": {F: [0, 1]}, "m2": {F: [2]}}),
                 join(0, "m3", {"error": "NONE", "member_epoch": 11, "assignment": {},
                                "target_assignment_after": ranged}, subs=("foo",), assignor="range"),
             ], note=pnote)
    scenario("b-assignor-tie-new-member-with-uniform", "assignor_selection", CGT, "testPreferredServerAssignor",
             "The mirror: m1 names range, m3 joins naming uniform: uniform is the new key, first in the bucket, and "
             "moves one partition to m3 (quota 1 each).",
             config(foo3, assignors=("range", "uniform"), mode="real"), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0, 1]}, assignor="range", rto=5000),
                       member("m2", 10, 9, ["foo"], {F: [2]}, assignor=None, rto=5000)],
                      {"m1": {F: [0, 1]}, "m2": {F: [2]}}),
                 join(0, "m3", {"error": "NONE", "member_epoch": 11, "assignment": {},
                                "target_assignment_after": {"m1": {F: [0]}, "m2": {F: [2]}, "m3": {F: [1]}}},
                      subs=("foo",), assignor="uniform"),
             ], note=pnote + " The uniform target: quota 1 each in member order m1, m2, m3; m1 keeps foo-0 "
                             "(HashSet order), releases foo-1 to m3.")
    scenario("b-assignor-change-alone-no-bump", "assignor_selection", GMMT, "testConsumerGroupHeartbeatFullResponse",
             "Changing only the server assignor writes the member's metadata but bumps nothing: the target stays "
             "until the next bump.",
             config(foo3, assignors=("range", "uniform"), mode="real"), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0, 1, 2]}, assignor="range", rto=5000)],
                      {"m1": {F: [0, 1, 2]}}),
                 hb(0, "m1", 10, {"error": "NONE", "member_epoch": 10, "group_epoch_after": 10,
                                  "records": [mm("m1", ["foo"], rto=5000, assignor="uniform")],
                                  "member_after": {"m1": {"server_assignor": "uniform"}}},
                    server_assignor="uniform"),
             ], note="hasMemberSubscriptionChanged: any member change writes ConsumerGroupMemberMetadata, only a "
                     "subscription (names or regex) change returns true and bumps the epoch.")


_assignor_selection()


# ============================================================================ member order of colliding ids
def _member_order():
    TABT = TEST + "modern/TargetAssignmentBuilderTest.java"
    scenario("b-colliding-member-ids-follow-the-members-map", "member_order", TABT, "testNewMember",
             "member1 and m61 share a bucket of the member-spec HashMap, so their order there is the order in which "
             "TargetAssignmentBuilder puts them: the iteration order of the group's members TimelineHashMap, which "
             "walks m61 first. With 4 partitions for 3 members m61 gets the extra quota and keeps topic1-2/3; "
             "member1 keeps topic1-0 and releases topic1-1 to member17 (join order would have favoured member1).",
             config({"topic1": {"id": T1, "partitions": 4}}, assignors=("uniform",), mode="real"), [
                 seed([member("member1", 10, 9, ["topic1"], {T1: [0, 1]}, assignor=None, rto=5000),
                       member("m61", 10, 9, ["topic1"], {T1: [2, 3]}, assignor=None, rto=5000)],
                      {"member1": {T1: [0, 1]}, "m61": {T1: [2, 3]}}),
                 join(0, "member17", {"error": "NONE", "member_epoch": 11, "assignment": {},
                                      "target_assignment_after": {"m61": {T1: [2, 3]}, "member1": {T1: [0]},
                                                                  "member17": {T1: [1]}},
                                      "member_after": {"member17": {"state": "UNRELEASED_PARTITIONS"}}},
                      subs=("topic1",), assignor=None),
             ], note="TargetAssignmentBuilder.build: memberSpecs = new HashMap<>() filled by members.forEach over "
                     "ConsumerGroup.members (a TimelineHashMap: after the loaded group's four puts, member1, m61, "
                     "member1, m61, its 4 slots walk m61 first) then the joining member; member1 and m61 share a bucket "
                     "of the 16-slot HashMap, member17 comes after them. The target is the reference output of "
                     "UniformHomogeneousAssignmentBuilder for members in that order; the map orders were checked by "
                     "running the commit's TimelineHashMap with OpenJDK 17's HashMap.")


_member_order()


# ============================================================================ assignor cases (reference outputs)
def acase(id_, category, assignor, test_class, method, topics, members, expected, note, sub_type):
    ASSIGNORS.append({"id": id_, "category": category, "assignor": assignor,
                      "source": {"suite": base.ASSIGNOR_DIR + test_class + ".java", "test_class": test_class,
                                 "method": method, "commit": COMMIT, "tag": TAG, "note": note},
                      "subscription_type": sub_type, "topics": topics, "members": members, "check": "exact",
                      "expected": expected, "properties": ["valid", "complete"]})


def _assignor_cases():
    def m(subs, cur=None, inst=None):
        return {"subscribed_topics": subs, "instance_id": inst, "rack": None, "current_target": cur or {}}

    t3 = {"topic1": {"id": T1, "partitions": 6}, "topic2": {"id": T2, "partitions": 4},
          "topic3": {"id": T3, "partitions": 5}}
    ref = ("Reference output: the assignor of the commit run on this input with the members in a sorted map, as "
           "the test class passes them.")
    acase("b-range-heterogeneous-static-and-dynamic", "range", "range", "RangeAssignorTest",
          "testStaticMembershipWithMixedSubscriptions",
          t3, {"A": m(["topic1", "topic3"]), "B": m(["topic1"], inst="i-9"), "C": m(["topic2", "topic3"], inst="i-1"),
               "D": m(["topic1", "topic2", "topic3"])},
          {"C": {"topic2": [0, 1], "topic3": [0, 1]}, "B": {"topic1": [0, 1]}, "A": {"topic1": [2, 3], "topic3": [2, 3]},
           "D": {"topic1": [4, 5], "topic2": [2, 3], "topic3": [4]}},
          ref + " Order C (i-1), B (i-9), A, D.", "HETEROGENEOUS")
    acase("b-uniform-heterogeneous-four-members-sticky", "uniform-heterogeneous", "uniform",
          "UniformHeterogeneousAssignmentBuilderTest",
          "testReassignmentWhenOneSubscriptionAddedAfterInitialAssignmentWithTwoMembersTwoTopics",
          t3, {"A": m(["topic1"], {"topic1": [0, 1, 2]}), "B": m(["topic1", "topic2"], {"topic1": [3, 4, 5]}),
               "C": m(["topic2", "topic3"], {"topic2": [0, 1, 2, 3]}), "D": m(["topic3"])},
          {"A": {"topic1": [0, 1, 2]}, "B": {"topic1": [3, 4, 5]}, "C": {"topic2": [0, 1, 2, 3]},
           "D": {"topic3": [0, 1, 2, 3, 4]}},
          ref + " Every member keeps its current partitions; topic3 goes to D, its least loaded subscriber, and "
                "no shared topic has subscribers differing by more than one after the balancing pass.",
          "HETEROGENEOUS")
    acase("b-uniform-homogeneous-member-removed", "uniform-homogeneous", "uniform",
          "OptimizedUniformAssignmentBuilderTest",
          "testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersTwoTopics",
          {"topic1": {"id": T1, "partitions": 6}, "topic3": {"id": T3, "partitions": 3}},
          {"A": m(["topic1", "topic3"], {"topic1": [0, 1], "topic3": [0]}),
           "C": m(["topic1", "topic3"], {"topic1": [4, 5], "topic3": [2]})},
          {"A": {"topic1": [0, 1, 2], "topic3": [0, 1]}, "C": {"topic1": [3, 4, 5], "topic3": [2]}},
          ref + " B (topic1-2/3, topic3-1) left: its partitions are free; quota 5 for A (first in order), 4 for C.",
          "HOMOGENEOUS")


_assignor_cases()


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "kip848-b-scenarios.json").write_text(json.dumps(SCENARIOS, indent=1) + "\n")
    (OUT / "kip848-b-assignors.json").write_text(json.dumps(ASSIGNORS, indent=1) + "\n")
    print(f"{len(SCENARIOS)} scenarios, {len(ASSIGNORS)} assignor cases")


if __name__ == "__main__":
    main()
