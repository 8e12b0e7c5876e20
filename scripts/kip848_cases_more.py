"""Build tests/coordinator/data/kip848-more-scenarios.json and kip848-more-assignors.json.

A second batch of KIP-848 conformance cases (FORMAT-KIP848.md), restating more of Kafka's own tests:
`TargetAssignmentBuilderTest`, `ConsumerGroupTest`, `GroupMetadataManagerTest` (one case per independent
assertion where a test makes several), `OffsetMetadataManagerTest` and the assignor tests. Facts only: the
inputs and the asserted values; `source.note` says where a value is a deterministic reading of the code at
the commit instead of an assertion. Every case names its Java test (`source.method`) and the snapshot it
comes from (`source.commit`, `source.tag`). Run: python scripts/kip848_cases_more.py (rewrites both files).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import kip848_cases as base  # noqa: E402  (helpers: config, member, seed, hb, join, leave, records, ...)
from kip848_cases import (  # noqa: E402
    advance,
    ca,
    config,
    epoch_rec,
    hb,
    join,
    leave,
    mem,
    member,
    mm,
    pm,
    prepare,
    seed,
    ta,
    ta_epoch,
    tombstones,
)

COMMIT = base.COMMIT
# The snapshot of apache/kafka available holds release tags up to 3.9.0-rc3 and trunk at 1eb7644349cb (the 4.0
# development line, 2024-10-25): no 4.x release tag. Cases are read at that trunk commit.
TAG = "trunk@1eb7644349cb (4.0 development line; no 4.x release tag in the snapshot)"
TEST = "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/"
GMMT = base.GMMT
OMMT = base.OMMT
CGT = TEST + "modern/consumer/ConsumerGroupTest.java"
TABT = TEST + "modern/TargetAssignmentBuilderTest.java"
CABT = base.CABT
OUT = base.OUT

SCENARIOS: list[dict] = []
ASSIGNORS: list[dict] = []
F, B, Z = "foo-id", "bar-id", "zar-id"
FOO_BAR = base.FOO_BAR


scenario = base.scenario_adder(SCENARIOS, COMMIT, TAG)
check, commit = base.check, base.commit


# ============================================================================ TargetAssignmentBuilderTest
# The builder runs inside consumerGroupHeartbeat (updateTargetAssignment) whenever the group epoch is above the
# target assignment epoch; the cases drive it that way with the tests' MockPartitionAssignor (assignor_mode
# "mock"). What the builder test asserts: which TargetAssignment records are written (only members whose new
# target differs from the stored one, any order), then the TargetAssignmentEpoch record, and the new targets.
def _target_assignment_builder():
    topics = {"foo": {"id": F, "partitions": 6}, "bar": {"id": B, "partitions": 6}}
    subs = ["foo", "bar", "zar"]
    A123 = {F: [1, 2, 3], B: [1, 2, 3]}
    A456 = {F: [4, 5, 6], B: [4, 5, 6]}
    note_flow = ("The builder's facts (records and targets) are the test's assertions; the surrounding heartbeat "
                 "(group epoch above the target epoch, the requesting member's reconciliation and response) is a "
                 "deterministic reading of GroupMetadataManager.consumerGroupHeartbeat / CurrentAssignmentBuilder.")

    def m(mid, assigned, *, s=subs, instance=None, epoch=19, prev=18):
        return member(mid, epoch, prev, s, assigned, assignor=None, instance=instance, rto=5000)

    scenario("tab-assignment-has-not-changed", "target_assignment", TABT, "testAssignmentHasNotChanged",
             "The assignor returns every member's current target: only the TargetAssignmentEpoch record is written.",
             config(topics), [
                 seed([m("member-1", A123), m("member-2", A456)], {"member-1": A123, "member-2": A456},
                      epoch=20, assignment_epoch=19),
                 prepare({"member-1": A123, "member-2": A456}),
                 hb(0, "member-1", 19, {
                     "error": "NONE", "member_epoch": 20, "assignment": None,
                     "records": [ta_epoch(20), ca("member-1", "STABLE", 20, 19, A123)],
                     "assignment_epoch_after": 20, "target_assignment_after": {"member-1": A123, "member-2": A456},
                     "group_state_after": "Reconciling"}),
             ], note=note_flow)
    scenario("tab-assignment-swapped", "target_assignment", TABT, "testAssignmentSwapped",
             "Two members swap their partitions: both get a TargetAssignment record (any order), then the epoch "
             "record; the requesting member must first revoke everything it owns.",
             config(topics), [
                 seed([m("member-1", A123), m("member-2", A456)], {"member-1": A123, "member-2": A456},
                      epoch=20, assignment_epoch=19),
                 prepare({"member-1": A456, "member-2": A123}),
                 hb(0, "member-1", 19, {
                     "error": "NONE", "member_epoch": 19, "assignment": {},
                     "records": [ta("member-1", A456), ta("member-2", A123), ta_epoch(20),
                                 ca("member-1", "UNREVOKED_PARTITIONS", 19, 19, {}, A123)],
                     "records_unordered_ranges": [[0, 2]],
                     "target_assignment_after": {"member-1": A456, "member-2": A123}}),
             ], note=note_flow)
    scenario("tab-new-member", "target_assignment", TABT, "testNewMember",
             "A third member joins: all three targets change (three TargetAssignment records, any order) before the "
             "epoch record; the newcomer's partitions are still owned, so it waits UNRELEASED_PARTITIONS.",
             config(topics), [
                 seed([m("member-1", A123, epoch=20, prev=19), m("member-2", A456, epoch=20, prev=19)],
                      {"member-1": A123, "member-2": A456}, epoch=20),
                 prepare({"member-1": {F: [1, 2], B: [1, 2]}, "member-2": {F: [3, 4], B: [3, 4]},
                          "member-3": {F: [5, 6], B: [5, 6]}}),
                 join(0, "member-3", {
                     "error": "NONE", "member_epoch": 21, "assignment": {},
                     "records": [mm("member-3", subs, rto=5000, assignor=None), epoch_rec(21),
                                 ta("member-1", {F: [1, 2], B: [1, 2]}), ta("member-2", {F: [3, 4], B: [3, 4]}),
                                 ta("member-3", {F: [5, 6], B: [5, 6]}), ta_epoch(21),
                                 ca("member-3", "UNRELEASED_PARTITIONS", 21, 0, {})],
                     "records_unordered_ranges": [[2, 5]]}, subs=subs, assignor=None),
             ], note=note_flow + " 'zar' is not in the image, so the subscription metadata does not change.")
    scenario("tab-new-member-records-in-hashmap-order", "target_assignment", TABT, "testNewMember",
             "As testNewMember with member ids member1..member3: the builder writes the changed targets walking its "
             "HashMap of member specs, i.e. member2, member3, member1 (Java String-hash order), before the epoch "
             "record.", config(topics), [
                 seed([m("member1", A123, epoch=20, prev=19), m("member2", A456, epoch=20, prev=19)],
                      {"member1": A123, "member2": A456}, epoch=20),
                 prepare({"member1": {F: [1, 2], B: [1, 2]}, "member2": {F: [3, 4], B: [3, 4]},
                          "member3": {F: [5, 6], B: [5, 6]}}),
                 join(0, "member3", {
                     "error": "NONE", "member_epoch": 21, "assignment": {},
                     "records": [mm("member3", subs, rto=5000, assignor=None), epoch_rec(21),
                                 ta("member2", {F: [3, 4], B: [3, 4]}), ta("member3", {F: [5, 6], B: [5, 6]}),
                                 ta("member1", {F: [1, 2], B: [1, 2]}), ta_epoch(21),
                                 ca("member3", "UNRELEASED_PARTITIONS", 21, 0, {})]}, subs=subs, assignor=None),
             ], note=note_flow + " The test compares these records unordered; the order here is a deterministic "
                                 "reading of TargetAssignmentBuilder.build (for memberId : memberSpecs.keySet(), a "
                                 "java.util.HashMap).")
    scenario("tab-update-member", "target_assignment", TABT, "testUpdateMember",
             "A member adds 'foo' to its subscription: every target changes (three records, any order), then the "
             "epoch record; the member keeps bar 5-6 and waits for foo 5-6, still owned by member-2.",
             config(topics), [
                 seed([m("member-1", {F: [1, 2, 3], B: [1, 2]}, epoch=20, prev=19),
                       m("member-2", {F: [4, 5, 6], B: [3, 4]}, epoch=20, prev=19),
                       m("member-3", {B: [5, 6]}, s=["bar", "zar"], epoch=20, prev=19)],
                      {"member-1": {F: [1, 2, 3], B: [1, 2]}, "member-2": {F: [4, 5, 6], B: [3, 4]},
                       "member-3": {B: [5, 6]}}, epoch=20),
                 prepare({"member-1": {F: [1, 2], B: [1, 2]}, "member-2": {F: [3, 4], B: [3, 4]},
                          "member-3": {F: [5, 6], B: [5, 6]}}),
                 hb(0, "member-3", 20, {
                     "error": "NONE", "member_epoch": 21, "assignment": None,
                     "records": [mm("member-3", subs, rto=5000, assignor=None), epoch_rec(21),
                                 ta("member-1", {F: [1, 2], B: [1, 2]}), ta("member-2", {F: [3, 4], B: [3, 4]}),
                                 ta("member-3", {F: [5, 6], B: [5, 6]}), ta_epoch(21),
                                 ca("member-3", "UNRELEASED_PARTITIONS", 21, 20, {B: [5, 6]})],
                     "records_unordered_ranges": [[2, 5]]}, subscribed_topic_names=subs, rack_id="rack-0"),
             ], note=note_flow + " The test also sets an instance id on the updated member; a heartbeat cannot add "
                                 "an instance id to a dynamic member (the instance would be unknown), so only the "
                                 "subscription and rack change here.")
    scenario("tab-partial-assignment-update", "target_assignment", TABT, "testPartialAssignmentUpdate",
             "Only member-2 and member-3 get new targets: no record for member-1, whose target is unchanged.",
             config(topics), [
                 seed([m("member-1", {F: [1, 2], B: [1, 2]}, epoch=20, prev=19),
                       m("member-2", {F: [3, 4], B: [3, 4]}, epoch=20, prev=19),
                       m("member-3", {F: [5, 6], B: [5, 6]}, s=["bar", "zar"], epoch=20, prev=19)],
                      {"member-1": {F: [1, 2], B: [1, 2]}, "member-2": {F: [3, 4], B: [3, 4]},
                       "member-3": {F: [5, 6], B: [5, 6]}}, epoch=21, assignment_epoch=20),
                 prepare({"member-1": {F: [1, 2], B: [1, 2]}, "member-2": {F: [3, 4, 5], B: [3, 4, 5]},
                          "member-3": {F: [6], B: [6]}}),
                 hb(0, "member-1", 20, {
                     "error": "NONE", "member_epoch": 21, "assignment": None,
                     "records": [ta("member-2", {F: [3, 4, 5], B: [3, 4, 5]}), ta("member-3", {F: [6], B: [6]}),
                                 ta_epoch(21), ca("member-1", "STABLE", 21, 20, {F: [1, 2], B: [1, 2]})],
                     "records_unordered_ranges": [[0, 2]],
                     "target_assignment_after": {"member-1": {F: [1, 2], B: [1, 2]},
                                                 "member-2": {F: [3, 4, 5], B: [3, 4, 5]},
                                                 "member-3": {F: [6], B: [6]}}}),
             ], note=note_flow)
    scenario("tab-delete-member", "target_assignment", TABT, "testDeleteMember",
             "After member-3 left, the next target is computed without it: records for the two remaining members "
             "(any order) and the epoch record; nothing more for member-3 (its tombstones were written by the leave).",
             config(topics), [
                 seed([m("member-1", {F: [1, 2], B: [1, 2]}, epoch=20, prev=19),
                       m("member-2", {F: [3, 4], B: [3, 4]}, epoch=20, prev=19),
                       m("member-3", {F: [5, 6], B: [5, 6]}, epoch=20, prev=19)],
                      {"member-1": {F: [1, 2], B: [1, 2]}, "member-2": {F: [3, 4], B: [3, 4]},
                       "member-3": {F: [5, 6], B: [5, 6]}}, epoch=20),
                 leave(0, "member-3", -1, {"error": "NONE", "member_epoch": -1,
                                           "records": tombstones("member-3") + [epoch_rec(21)]}),
                 prepare({"member-1": A123, "member-2": A456}),
                 hb(0, "member-1", 20, {
                     "error": "NONE", "member_epoch": 21, "assignment": None,
                     "records": [ta("member-1", A123), ta("member-2", A456), ta_epoch(21),
                                 ca("member-1", "UNRELEASED_PARTITIONS", 21, 20, {F: [1, 2], B: [1, 2]})],
                     "records_unordered_ranges": [[0, 2]],
                     "target_assignment_after": {"member-1": A123, "member-2": A456}}),
             ], note=note_flow)
    scenario("tab-replace-static-member", "target_assignment", TABT, "testReplaceStaticMember",
             "A static member's instance is taken over by a new member id: the assignor sees the new id in place "
             "of the old one, and only the new id's target is written by the builder (it is a new key), then the "
             "epoch record.", config(topics), [
                 seed([m("member-1", {F: [1, 2], B: [1, 2]}, instance="instance-member-1", epoch=20, prev=19),
                       m("member-2", {F: [3, 4], B: [3, 4]}, instance="instance-member-2", epoch=20, prev=19),
                       m("member-3", {F: [5, 6], B: [5, 6]}, instance="instance-member-3", epoch=20, prev=19)],
                      {"member-1": {F: [1, 2], B: [1, 2]}, "member-2": {F: [3, 4], B: [3, 4]},
                       "member-3": {F: [5, 6], B: [5, 6]}}, epoch=21, assignment_epoch=20),
                 leave(0, "member-3", -2, {"error": "NONE", "member_epoch": -2,
                                           "records": [ca("member-3", "STABLE", -2, 19, {F: [5, 6], B: [5, 6]})]},
                       instance_id="instance-member-3"),
                 prepare({"member-1": {F: [1, 2], B: [1, 2]}, "member-2": {F: [3, 4], B: [3, 4]},
                          "member-3-a": {F: [5, 6], B: [5, 6]}}),
                 join(0, "member-3-a", {
                     "error": "NONE", "member_epoch": 21, "assignment": {F: [5, 6], B: [5, 6]},
                     "records": tombstones("member-3") + [
                         mm("member-3-a", subs, rto=5000, assignor=None, instance="instance-member-3"),
                         ta("member-3-a", {F: [5, 6], B: [5, 6]}),
                         ca("member-3-a", "STABLE", 0, 0, {F: [5, 6], B: [5, 6]}),
                         ta("member-3-a", {F: [5, 6], B: [5, 6]}), ta_epoch(21),
                         ca("member-3-a", "STABLE", 21, 0, {F: [5, 6], B: [5, 6]})],
                     "members_after": ["member-1", "member-2", "member-3-a"],
                     "static_members_after": {"instance-member-1": "member-1", "instance-member-2": "member-2",
                                              "instance-member-3": "member-3-a"},
                     "target_assignment_after": {"member-1": {F: [1, 2], B: [1, 2]},
                                                 "member-2": {F: [3, 4], B: [3, 4]},
                                                 "member-3-a": {F: [5, 6], B: [5, 6]}}},
                      subs=subs, assignor=None, instance_id="instance-member-3"),
             ], note=note_flow + " The replacement records (tombstones, copy, copied target, current assignment at "
                                 "epoch 0) come from replaceMember; the builder compares against the stored targets, "
                                 "where member-3-a is not yet present, hence its second TargetAssignment record.")


_target_assignment_builder()



# ============================================================================ ConsumerGroupTest
def _consumer_group():
    foo = {"foo": {"id": F, "partitions": 6}}
    scenario("cgt-group-state-assigning-reconciling-stable", "group_state", CGT, "testGroupState",
             "The group state follows the epochs: members present and group epoch above the target epoch -> "
             "Assigning; target epoch caught up but a member still at the old epoch, or not STABLE -> Reconciling; "
             "every member STABLE at the target epoch -> Stable.", config(foo), [
                 seed([], {}, epoch=0),
                 check(0, {"group_state_after": "Empty"}),
                 seed([member("member1", 1, 0, [], {}, assignor=None)], {}, epoch=1, assignment_epoch=0),
                 check(0, {"group_state_after": "Assigning"}),
                 seed([member("member1", 1, 0, [], {}, assignor=None), member("member2", 1, 0, [], {}, assignor=None)],
                      {}, epoch=2, assignment_epoch=0),
                 check(0, {"group_state_after": "Assigning"}),
                 seed([member("member1", 1, 0, [], {}, assignor=None), member("member2", 1, 0, [], {}, assignor=None)],
                      {}, epoch=2, assignment_epoch=2),
                 check(0, {"group_state_after": "Reconciling"}),
                 seed([member("member1", 2, 1, [], {}, assignor=None), member("member2", 1, 0, [], {}, assignor=None)],
                      {}, epoch=2, assignment_epoch=2),
                 check(0, {"group_state_after": "Reconciling"}),
                 seed([member("member1", 2, 1, [], {}, assignor=None),
                       member("member2", 2, 1, [], {}, assignor=None, state="UNREVOKED_PARTITIONS")],
                      {}, epoch=2, assignment_epoch=2),
                 check(0, {"group_state_after": "Reconciling"}),
                 seed([member("member1", 2, 1, [], {}, assignor=None), member("member2", 2, 1, [], {}, assignor=None)],
                      {}, epoch=2, assignment_epoch=2),
                 check(0, {"group_state_after": "Stable"}),
             ], note="The test updates one group member by member; each seed loads the group as it stands after those "
                     "updates (a seed replaces the group).")
    scenario("cgt-group-state-empty-after-removals", "group_state", CGT, "testGroupState",
             "Removing both members of a Stable group leaves it Empty (here by two -1 leaves; the group epoch is "
             "bumped by each).", config(foo), [
                 seed([member("member1", 2, 1, ["foo"], {}, assignor=None),
                       member("member2", 2, 1, ["foo"], {}, assignor=None)], {}, epoch=2),
                 check(0, {"group_state_after": "Stable"}),
                 leave(0, "member1", -1, {"error": "NONE", "group_state_after": "Assigning", "group_epoch_after": 3}),
                 leave(0, "member2", -1, {"error": "NONE", "group_state_after": "Empty", "group_epoch_after": 4,
                                          "members_after": []}),
             ], note="The test calls removeMember; the leaves are the coordinator's way to remove a member. "
                     "'Assigning' after the first leave follows from maybeUpdateGroupState (epoch 3 > target 2).")
    # preferred server assignor: observable through real assignors whose answers differ. Three members subscribed
    # to foo (3 partitions), each holding one partition as current target, in reverse order of their ids: the
    # uniform assignor keeps every current target (quota 1 each), the range assignor gives m1 0, m2 1, m3 2.
    foo3 = {"foo": {"id": F, "partitions": 3}}
    held = {"member1": {F: [2]}, "member2": {F: [1]}, "member3": {F: [0]}}
    ranged = {"member1": {F: [0]}, "member2": {F: [1]}, "member3": {F: [2]}}

    def three(a1, a2, a3):
        return seed([member("member1", 10, 9, ["foo"], held["member1"], assignor=a1, rto=5000),
                     member("member2", 10, 9, ["foo"], held["member2"], assignor=a2, rto=5000),
                     member("member3", 10, 9, ["foo"], held["member3"], assignor=a3, rto=5000)],
                    held, epoch=11, assignment_epoch=10)

    pnote = ("ConsumerGroup.computePreferredServerAssignor (most used server assignor among the members, the "
             "requesting member counted with its updated value; none named -> the default, the first configured). "
             "Observed through which real assignor computes the next target: uniform keeps the current targets, "
             "range reassigns by member id order.")
    scenario("cgt-preferred-assignor-majority", "assignor_selection", CGT, "testPreferredServerAssignor",
             "Two members name range and one names uniform: range is used although uniform is the default.",
             config(foo3, assignors=("uniform", "range"), mode="real"), [
                 three("range", "range", "uniform"),
                 hb(0, "member1", 10, {"error": "NONE", "member_epoch": 10, "assignment": {},
                                       "target_assignment_after": ranged,
                                       "member_after": {"member1": {"state": "UNREVOKED_PARTITIONS",
                                                                    "pending_revocation": {F: [2]}}}}),
             ], note=pnote)
    scenario("cgt-preferred-assignor-single-named", "assignor_selection", CGT, "testPreferredServerAssignor",
             "Only member3 names an assignor (uniform): it is used although range is the default.",
             config(foo3, assignors=("range", "uniform"), mode="real"), [
                 three(None, None, "uniform"),
                 hb(0, "member1", 10, {"error": "NONE", "member_epoch": 11, "assignment": None,
                                       "target_assignment_after": held,
                                       "records": [ta_epoch(11), ca("member1", "STABLE", 11, 10, {F: [2]})]}),
             ], note=pnote)
    scenario("cgt-preferred-assignor-none-named-default", "assignor_selection", CGT, "testPreferredServerAssignor",
             "No member names an assignor: the default (first configured, range here) is used.",
             config(foo3, assignors=("range", "uniform"), mode="real"), [
                 three(None, None, None),
                 hb(0, "member1", 10, {"error": "NONE", "member_epoch": 10, "target_assignment_after": ranged}),
             ], note=pnote)
    scenario("cgt-preferred-assignor-none-named-default-uniform", "assignor_selection", CGT,
             "testPreferredServerAssignor",
             "No member names an assignor and uniform is configured first: uniform is used (targets kept).",
             config(foo3, assignors=("uniform", "range"), mode="real"), [
                 three(None, None, None),
                 hb(0, "member1", 10, {"error": "NONE", "member_epoch": 11, "target_assignment_after": held}),
             ], note=pnote)
    scenario("cgt-preferred-assignor-updated-member-counted", "assignor_selection", CGT,
             "testPreferredServerAssignor",
             "The requesting member's new server assignor counts before it is stored: member1 switches from range "
             "to uniform, making uniform the most used (2 against 1).",
             config(foo3, assignors=("range", "uniform"), mode="real"), [
                 three("range", "range", "uniform"),
                 hb(0, "member1", 10, {"error": "NONE", "member_epoch": 11, "target_assignment_after": held,
                                       "member_after": {"member1": {"server_assignor": "uniform"}}},
                    server_assignor="uniform"),
             ], note=pnote + " A changed server assignor is written (MemberMetadata) but does not bump the group "
                             "epoch; the target is computed here because the seeded group epoch is above the "
                             "target epoch.")
    scenario("cgt-preferred-assignor-new-member-counted", "assignor_selection", CGT, "testPreferredServerAssignor",
             "A joining member's assignor counts: with member1 on uniform and member2 on range, a third member "
             "joining with range makes range the most used.",
             config(foo3, assignors=("uniform", "range"), mode="real"), [
                 seed([member("member1", 10, 9, ["foo"], {F: [2]}, assignor="uniform", rto=5000),
                       member("member2", 10, 9, ["foo"], {F: [0, 1]}, assignor="range", rto=5000)],
                      {"member1": {F: [2]}, "member2": {F: [0, 1]}}, epoch=10),
                 join(0, "member3", {"error": "NONE", "member_epoch": 11, "assignment": {},
                                     "target_assignment_after": ranged,
                                     "member_after": {"member3": {"state": "UNRELEASED_PARTITIONS"}}},
                      subs=("foo",), assignor="range"),
             ], note=pnote)
    scenario("cgt-preferred-assignor-tie-hashmap-order", "assignor_selection", CGT, "testPreferredServerAssignor",
             "One member names range, one uniform: a tie. member1 (range) heartbeats: its own name is counted "
             "down and up again, which moves range to the head of the counts HashMap bucket, so range wins the "
             "tie and reassigns by member id.", config(foo3, assignors=("range", "uniform"), mode="real"), [
                 three("range", "uniform", None),
                 hb(0, "member1", 10, {"error": "NONE", "member_epoch": 10, "assignment": {},
                                       "target_assignment_after": ranged,
                                       "member_after": {"member1": {"state": "UNREVOKED_PARTITIONS",
                                                                    "pending_revocation": {F: [2]}}}}),
             ], note=pnote + " The test accepts either assignor for a tie; the code pins it: "
                             "counts = new HashMap<>(serverAssignors) (a TimelineHashMap walked uniform, range), "
                             "then compute(range, decValue) removes range (count 1 -> null) and compute(range, "
                             "incValue) re-inserts it at the head of its bucket (HashMap.compute prepends; range "
                             "and uniform share bucket 1 of the 4-slot copy); stream().max(comparingByValue()) "
                             "keeps the first of equal values. Checked by running the TimelineHashMap classes of "
                             "this commit with OpenJDK 17's HashMap. (An earlier version of this case expected "
                             "uniform from a 16-bucket HashMap order, which is not the map Kafka iterates.)")
    scenario("cgt-preferred-assignor-tie-new-key-first", "assignor_selection", CGT, "testPreferredServerAssignor",
             "Only member3 names an assignor (uniform); member1 now asks for range: a 1-1 tie. The new key range is "
             "prepended to the bucket it shares with uniform, so range wins although uniform was there first.",
             config(foo3, assignors=("uniform", "range"), mode="real"), [
                 three(None, None, "uniform"),
                 hb(0, "member1", 10, {"error": "NONE", "member_epoch": 10, "assignment": {},
                                       "target_assignment_after": ranged,
                                       "member_after": {"member1": {"state": "UNREVOKED_PARTITIONS",
                                                                    "pending_revocation": {F: [2]},
                                                                    "server_assignor": "range"}}},
                    server_assignor="range"),
             ], note=pnote + " counts = new HashMap<>({uniform: 1}) (2 buckets), compute(range, incValue) inserts "
                             "range with newNode(hash, key, value, first): range, uniform in bucket 1; max keeps the "
                             "first of equal counts. Checked as the case above.")
    scenario("cgt-preferred-assignor-tie-uniform-first", "assignor_selection", CGT, "testPreferredServerAssignor",
             "member2 names uniform, member1 range; member2 heartbeats: its own uniform is re-inserted at the head "
             "of the bucket, so uniform wins the tie and keeps the current targets.",
             config(foo3, assignors=("range", "uniform"), mode="real"), [
                 three("range", "uniform", None),
                 hb(0, "member2", 10, {"error": "NONE", "member_epoch": 11, "target_assignment_after": held}),
             ], note=pnote + " The mirror of cgt-preferred-assignor-tie-hashmap-order: the heartbeating member's "
                             "own name goes to the head of the bucket.")
    # subscription metadata: the subscribed topics that exist, with their partition counts
    img = {"foo": {"id": F, "partitions": 1}, "bar": {"id": B, "partitions": 2}, "zar": {"id": Z, "partitions": 3}}
    snote = ("ModernGroup.computeSubscriptionMetadata over computeSubscribedTopicNames(old, new); the test calls "
             "them directly, here each join or leave writes the result (PartitionMetadata record) when it changes.")
    scenario("cgt-subscription-metadata-joins", "subscription_metadata", CGT, "testUpdateSubscriptionMetadata",
             "Members subscribing to foo, then bar, then zar: the subscription metadata grows foo:1 -> foo:1, bar:2 "
             "-> foo:1, bar:2, zar:3.", config(img, assignors=("no-op",), mode="noop"), [
                 join(0, "member1", {"error": "NONE", "subscription_metadata_after": {"foo": 1},
                                     "records": [mm("member1", ["foo"], rto=5000, assignor=None), pm({"foo": 1}),
                                                 epoch_rec(1), ta("member1", {}), ta_epoch(1),
                                                 ca("member1", "STABLE", 1, 0, {})]},
                      subs=("foo",), assignor=None),
                 join(0, "member2", {"error": "NONE", "subscription_metadata_after": {"foo": 1, "bar": 2},
                                     "group_epoch_after": 2}, subs=("bar",), assignor=None),
                 join(0, "member3", {"error": "NONE", "subscription_metadata_after": {"foo": 1, "bar": 2, "zar": 3},
                                     "group_epoch_after": 3}, subs=("zar",), assignor=None),
             ], note=snote + " The no-op assignor gives new members an empty target.")
    scenario("cgt-subscription-metadata-leaves", "subscription_metadata", CGT, "testUpdateSubscriptionMetadata",
             "Removing members shrinks the subscription metadata to the topics still subscribed: without member2 "
             "foo:1, zar:3; then zar:3; then nothing.", config(img, assignors=("no-op",), mode="noop"), [
                 seed([member("member1", 3, 2, ["foo"], {}, assignor=None),
                       member("member2", 3, 2, ["bar"], {}, assignor=None),
                       member("member3", 3, 2, ["zar"], {}, assignor=None)], {}, epoch=3),
                 check(0, {"subscription_metadata_after": {"foo": 1, "bar": 2, "zar": 3}}),
                 leave(0, "member2", -1, {"error": "NONE", "subscription_metadata_after": {"foo": 1, "zar": 3},
                                          "records": tombstones("member2") + [pm({"foo": 1, "zar": 3}),
                                                                             epoch_rec(4)]}),
                 leave(0, "member1", -1, {"error": "NONE", "subscription_metadata_after": {"zar": 3},
                                          "records": tombstones("member1") + [pm({"zar": 3}), epoch_rec(5)]}),
                 leave(0, "member3", -1, {"error": "NONE", "subscription_metadata_after": {},
                                          "records": tombstones("member3") + [pm({}), epoch_rec(6)]}),
             ], note=snote)
    scenario("cgt-subscription-metadata-unknown-topic-ignored", "subscription_metadata", CGT,
             "testUpdateSubscriptionMetadata",
             "A subscribed topic missing from the metadata image is left out of the subscription metadata.",
             config({"foo": {"id": F, "partitions": 1}}, assignors=("no-op",), mode="noop"), [
                 join(0, "member1", {"error": "NONE", "subscription_metadata_after": {"foo": 1}},
                      subs=("foo", "unknown"), assignor=None),
             ], note=snote)
    # metadata refresh deadline
    scenario("cgt-metadata-refresh-deadline", "metadata_refresh", CGT, "testMetadataRefreshDeadline",
             "A loaded group's refresh deadline is empty (0, epoch 0: expired); a heartbeat that recomputes the "
             "metadata sets it to now + the refresh interval with the group epoch; a metadata change of a subscribed "
             "topic resets it to empty (requestMetadataRefresh).",
             config({"foo": {"id": F, "partitions": 6}}, refresh=1000), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0, 1, 2, 3, 4, 5]}, rto=5000)],
                      {"m1": {F: [0, 1, 2, 3, 4, 5]}}, epoch=10),
                 check(0, {"metadata_refresh_deadline_after": {"deadline_ms": 0, "epoch": 0}}),
                 hb(0, "m1", 10, {"error": "NONE", "member_epoch": 10, "records": [],
                                  "metadata_refresh_deadline_after": {"deadline_ms": 1000, "epoch": 10}}),
                 hb(500, "m1", 10, {"error": "NONE", "records": [],
                                    "metadata_refresh_deadline_after": {"deadline_ms": 1000, "epoch": 10}}),
                 hb(1001, "m1", 10, {"error": "NONE", "records": [],
                                     "metadata_refresh_deadline_after": {"deadline_ms": 2001, "epoch": 10}}),
                 {"at_ms": 1500, "op": "metadata_change", "topics": {"foo": {"id": F, "partitions": 6}},
                  "expect": {"metadata_refresh_deadline_after": {"deadline_ms": 0, "epoch": 0}}},
             ], note="The test drives ModernGroup.setMetadataRefreshDeadline / hasMetadataExpired / "
                     "requestMetadataRefresh directly; here the heartbeat (consumerGroupHeartbeat) and the metadata "
                     "image (onNewMetadataImage) call them.")
    # offset commits, every OffsetCommit version (parameterized test)
    for v in range(0, 10):
        new_ok = "NONE" if v >= 9 else "UNSUPPORTED_VERSION"
        stale = "STALE_MEMBER_EPOCH" if v >= 9 else "UNSUPPORTED_VERSION"
        offs = {"foo-0": 100}
        scenario(f"cgt-validate-offset-commit-v{v}", "offset_commit", CGT, "testValidateOffsetCommit",
                 f"OffsetCommit v{v} to a consumer group: an admin commit (no member, epoch -1) passes only while "
                 "the group is empty; an unknown member is UNKNOWN_MEMBER_ID; a consumer-protocol member needs v9+ "
                 "(UNSUPPORTED_VERSION below) and its exact epoch (STALE_MEMBER_EPOCH); a classic-protocol member "
                 "with a wrong epoch is ILLEGAL_GENERATION at any version.",
                 config({"foo": {"id": F, "partitions": 1}}, group_id="group-foo"), [
                     seed([], {}, epoch=0),
                     commit(0, "", -1, offs, {"error": "NONE"}, api_version=v),
                     commit(0, "member-id", 0, offs, {"error": "UNKNOWN_MEMBER_ID"}, api_version=v),
                     seed([member("new-protocol-member-id", 0, -1, [], {}, assignor=None),
                           dict(member("old-protocol-member-id", 0, -1, [], {}, assignor=None),
                                uses_classic_protocol=True)], {}, epoch=0),
                     commit(0, "", -1, offs, {"error": "UNKNOWN_MEMBER_ID"}, api_version=v),
                     commit(0, "new-protocol-member-id", 10, offs, {"error": stale}, api_version=v),
                     commit(0, "old-protocol-member-id", 10, offs, {"error": "ILLEGAL_GENERATION"}, api_version=v),
                     commit(0, "new-protocol-member-id", 0, offs, {"error": new_ok}, api_version=v),
                 ], note="ConsumerGroup.validateOffsetCommit reached through OffsetMetadataManager.commitOffset; "
                         "the test is parameterized over every OffsetCommit version (0-9 at this commit).")


_consumer_group()



# ============================================================================ GroupMetadataManagerTest, one case per assertion
def _gmm_validation():
    cfg = config()  # MockPartitionAssignor "range" only, as in the test
    vnote = "One assertion of the test (the requests are the test's; the group 'foo' never exists)."
    code = ("Deterministic reading of throwIfConsumerGroupHeartbeatRequestIsInvalid at this commit (the test does not "
            "send this request).")
    rid = "3b1c9f5e-0000-0000-0000-000000000001"  # the test sends a random member id

    def one(id_, desc, step, note=vnote):
        scenario(id_, "validation", GMMT, "testConsumerHeartbeatRequestValidation", desc, cfg, [step], note=note)

    one("gmm-validation-group-id-empty", "An empty group id is INVALID_REQUEST.",
        hb(0, "", 0, {"error": "INVALID_REQUEST"}, group_id=""))
    one("gmm-validation-group-id-blank", "A group id of spaces is INVALID_REQUEST.",
        hb(0, "", 0, {"error": "INVALID_REQUEST"}, group_id="   "))
    one("gmm-validation-join-without-rebalance-timeout", "Epoch 0 without a rebalance timeout is INVALID_REQUEST and "
        "creates no group.", hb(0, "", 0, {"error": "INVALID_REQUEST", "group_state_after": None}, group_id="foo"))
    one("gmm-validation-join-without-owned-partitions", "Epoch 0 without the (empty) owned-partitions list is "
        "INVALID_REQUEST.", hb(0, "", 0, {"error": "INVALID_REQUEST"}, group_id="foo", rebalance_timeout_ms=5000))
    one("gmm-validation-join-without-subscription", "Epoch 0 without subscribed topic names is INVALID_REQUEST.",
        hb(0, "", 0, {"error": "INVALID_REQUEST"}, group_id="foo", rebalance_timeout_ms=5000, topic_partitions={}))
    one("gmm-validation-heartbeat-without-member-id", "Epoch 1 with an empty member id is INVALID_REQUEST.",
        hb(0, "", 1, {"error": "INVALID_REQUEST"}, group_id="foo"))
    one("gmm-validation-empty-instance-id", "An empty instance id is INVALID_REQUEST.",
        hb(0, rid, 1, {"error": "INVALID_REQUEST"}, group_id="foo", instance_id=""))
    one("gmm-validation-empty-rack-id", "An empty rack id is INVALID_REQUEST.",
        hb(0, rid, 1, {"error": "INVALID_REQUEST"}, group_id="foo", rack_id=""))
    one("gmm-validation-unsupported-assignor", "A server assignor that is not configured is UNSUPPORTED_ASSIGNOR "
        "(checked before the group lookup: group 'foo' does not exist).",
        hb(0, rid, 1, {"error": "UNSUPPORTED_ASSIGNOR"}, group_id="foo", server_assignor="bar"))
    one("gmm-validation-static-leave-without-instance-id", "Epoch -2 without an instance id is INVALID_REQUEST.",
        leave(0, rid, -2, {"error": "INVALID_REQUEST"}, group_id="foo", rebalance_timeout_ms=5000,
              subscribed_topic_names=["foo", "bar"], topic_partitions={}))
    one("gmm-validation-join-owned-partitions-not-empty", "Epoch 0 with a non-empty owned-partitions list is "
        "INVALID_REQUEST.", hb(0, "", 0, {"error": "INVALID_REQUEST"}, group_id="foo", rebalance_timeout_ms=5000,
                               topic_partitions={F: [0]}, subscribed_topic_names=["foo"]), note=code)
    one("gmm-validation-join-empty-subscription-list", "Epoch 0 with an empty subscribed-topic list is "
        "INVALID_REQUEST.", hb(0, "", 0, {"error": "INVALID_REQUEST"}, group_id="foo", rebalance_timeout_ms=5000,
                               topic_partitions={}, subscribed_topic_names=[]), note=code)
    one("gmm-validation-leave-without-member-id", "Epoch -1 with an empty member id is INVALID_REQUEST.",
        leave(0, "", -1, {"error": "INVALID_REQUEST"}, group_id="foo"), note=code)
    one("gmm-validation-static-leave-without-member-id", "Epoch -2 with an empty member id is INVALID_REQUEST.",
        leave(0, "", -2, {"error": "INVALID_REQUEST"}, group_id="foo", instance_id="i1"), note=code)
    one("gmm-validation-other-negative-epoch", "A negative epoch other than -1 and -2 is INVALID_REQUEST.",
        hb(0, rid, -3, {"error": "INVALID_REQUEST"}, group_id="foo"), note=code)
    one("gmm-validation-blank-instance-id", "An instance id of spaces is INVALID_REQUEST (trimmed empty).",
        hb(0, rid, 1, {"error": "INVALID_REQUEST"}, group_id="foo", instance_id="  "), note=code)
    one("gmm-validation-instance-before-assignor", "The instance id is validated before the server assignor: an "
        "empty instance id with an unknown assignor is INVALID_REQUEST.",
        hb(0, rid, 1, {"error": "INVALID_REQUEST"}, group_id="foo", instance_id="", server_assignor="bar"), note=code)
    scenario("gmm-validation-assignor-before-member-lookup", "validation", GMMT,
             "testConsumerHeartbeatRequestValidation",
             "Validation comes before any lookup: an unknown member of an existing group naming an unknown "
             "assignor is UNSUPPORTED_ASSIGNOR, not UNKNOWN_MEMBER_ID.", config(FOO_BAR), [
                 base.two_members_seed(),
                 hb(0, "unknown", 10, {"error": "UNSUPPORTED_ASSIGNOR"}, server_assignor="bar"),
                 hb(0, "unknown", 10, {"error": "UNKNOWN_MEMBER_ID"}),
             ], note=code)


def _gmm_epochs():
    mid = "member-id-1"
    seed100 = seed([member(mid, 100, 99, ["foo", "bar"], {F: [1, 2, 3]}, rto=5000)], {mid: {F: [1, 2, 3]}},
                   epoch=100, meta={})
    cfg = config({})
    enote = ("One assertion of the test: a group replayed from records (no subscription-metadata record), an empty "
             "metadata image.")
    code = ("Deterministic reading of throwIfConsumerGroupMemberEpochIsInvalid / isSubset at this commit (not sent "
            "by the test).")
    common = {"rebalance_timeout_ms": 5000, "subscribed_topic_names": ["foo", "bar"]}

    def one(id_, desc, step, note=enote):
        scenario(id_, "fencing", GMMT, "testConsumerGroupMemberEpochValidation", desc, cfg, [seed100, step],
                 note=note)

    one("gmm-epoch-greater-fenced", "An epoch above the member's (200 > 100) is FENCED_MEMBER_EPOCH.",
        hb(0, mid, 200, {"error": "FENCED_MEMBER_EPOCH", "member_after": {mid: {"member_epoch": 100}}}, **common))
    one("gmm-epoch-smaller-fenced", "An epoch below the member's that is not its previous epoch (50) is "
        "FENCED_MEMBER_EPOCH.", hb(0, mid, 50, {"error": "FENCED_MEMBER_EPOCH"}, **common))
    one("gmm-epoch-previous-without-owned-fenced", "The previous epoch (99) without owned partitions is "
        "FENCED_MEMBER_EPOCH.", hb(0, mid, 99, {"error": "FENCED_MEMBER_EPOCH"}, **common))
    one("gmm-epoch-previous-with-subset-accepted", "The previous epoch (99) with owned partitions that are a subset "
        "of the assignment is accepted and answered with the current epoch 100.",
        hb(0, mid, 99, {"error": "NONE", "member_epoch": 100, "records": []}, topic_partitions={F: [1, 2]},
           **common))
    one("gmm-epoch-previous-not-subset-fenced", "The previous epoch with an owned partition outside the assignment "
        "(foo-4) is FENCED_MEMBER_EPOCH.",
        hb(0, mid, 99, {"error": "FENCED_MEMBER_EPOCH"}, topic_partitions={F: [1, 4]}, **common), note=code)
    one("gmm-epoch-previous-unassigned-topic-fenced", "The previous epoch with owned partitions of a topic the member "
        "is not assigned is FENCED_MEMBER_EPOCH.",
        hb(0, mid, 99, {"error": "FENCED_MEMBER_EPOCH"}, topic_partitions={B: [0]}, **common), note=code)
    one("gmm-epoch-previous-owning-nothing-accepted", "The previous epoch with an empty owned list is a subset and "
        "is accepted (epoch 100 answered).",
        hb(0, mid, 99, {"error": "NONE", "member_epoch": 100}, topic_partitions={}, **common), note=code)
    one("gmm-epoch-previous-response-full", "The accepted previous-epoch retry is a full request (rebalance timeout, "
        "subscription and owned partitions set): the response carries the member's whole assignment.",
        hb(0, mid, 99, {"error": "NONE", "member_epoch": 100, "assignment": {F: [1, 2, 3]}},
           topic_partitions={F: [1, 2]}, **common), note=code)
    one("gmm-epoch-current-partial-no-assignment", "A heartbeat at the current epoch without owned partitions is not "
        "full and nothing changed: no assignment in the response.",
        hb(0, mid, 100, {"error": "NONE", "member_epoch": 100, "assignment": None, "heartbeat_interval_ms": 5000},
           **common), note=code)


def _gmm_misc():
    scenario("gmm-metadata-image-empty-delta", "metadata_change", GMMT, "testOnNewMetadataImageWithEmptyDelta",
             "A new metadata image without topic changes requests no refresh: the deadline set by the last "
             "heartbeat stays.", config({"foo": {"id": F, "partitions": 3}}, refresh=300000), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0, 1, 2]}, rto=5000)], {"m1": {F: [0, 1, 2]}}, epoch=10),
                 hb(0, "m1", 10, {"error": "NONE", "metadata_refresh_deadline_after": {"deadline_ms": 300000,
                                                                                        "epoch": 10}}),
                 {"at_ms": 100, "op": "metadata_change", "topics": {},
                  "expect": {"metadata_refresh_deadline_after": {"deadline_ms": 300000, "epoch": 10}}},
             ], note="The test asserts that an empty delta leaves every group untouched; the heartbeat setting the "
                     "deadline is consumerGroupHeartbeat.")
    scenario("gmm-metadata-other-group-untouched", "metadata_change", GMMT, "testOnNewMetadataImage",
             "A change of a topic only another group subscribes to requests no refresh for this group.",
             config({"foo": {"id": F, "partitions": 3}, "bar": {"id": B, "partitions": 3}}, refresh=300000), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0, 1, 2]}, rto=5000)], {"m1": {F: [0, 1, 2]}}, epoch=10),
                 hb(0, "m1", 10, {"error": "NONE"}),
                 {"at_ms": 100, "op": "metadata_change", "topics": {"bar": {"id": B, "partitions": 4}},
                  "expect": {"metadata_refresh_deadline_after": {"deadline_ms": 300000, "epoch": 10}}},
                 {"at_ms": 200, "op": "metadata_change", "topics": {}, "deleted": ["bar"],
                  "expect": {"metadata_refresh_deadline_after": {"deadline_ms": 300000, "epoch": 10}}},
                 hb(300, "m1", 10, {"error": "NONE", "records": [], "group_epoch_after": 10}),
             ], note="testOnNewMetadataImage asserts hasMetadataExpired only for the groups subscribed to a changed "
                     "or deleted topic (groupsSubscribedToTopic).")
    offs = {"bar-0": 100}
    scenario("ommt-consumer-commit-stale-epoch-both-sides", "offset_commit", OMMT,
             "testConsumerGroupOffsetCommitWithStaleMemberEpoch",
             "A consumer-protocol member at epoch 10 committing with 9 or with 11 is STALE_MEMBER_EPOCH.",
             config({}, group_id="foo"), [
                 seed([member("member", 10, 10, [], {}, assignor=None)], {}, epoch=10),
                 commit(0, "member", 9, offs, {"error": "STALE_MEMBER_EPOCH"}),
                 commit(0, "member", 11, offs, {"error": "STALE_MEMBER_EPOCH"}),
                 commit(0, "member", 10, offs, {"error": "NONE"}),
             ], note="The last commit (exact epoch accepted) follows from ConsumerGroup.validateMemberEpoch.")
    scenario("ommt-consumer-commit-classic-member-illegal-generation-both-sides", "offset_commit", OMMT,
             "testConsumerGroupOffsetCommitWithIllegalGenerationId",
             "A classic-protocol member of a consumer group (epoch 10) committing with 9 or 11 is "
             "ILLEGAL_GENERATION.", config({}, group_id="foo"), [
                 seed([dict(member("member", 10, 10, [], {}, assignor=None), uses_classic_protocol=True)], {}, epoch=10),
                 commit(0, "member", 9, offs, {"error": "ILLEGAL_GENERATION"}),
                 commit(0, "member", 11, offs, {"error": "ILLEGAL_GENERATION"}),
             ])
    scenario("ommt-simple-group-commit-instance-id-ignored", "offset_commit", OMMT,
             "testSimpleGroupOffsetCommitWithInstanceId",
             "A commit without member id and epoch (-1) but with an instance id to an unknown group creates a simple "
             "(classic) group and succeeds: the instance id is ignored.", config({}, group_id="foo"), [
                 commit(0, "", -1, offs, {"error": "NONE", "partition_errors": {"bar-0": "NONE"},
                                          "group_type_after": "classic"}, instance_id="instance-id"),
             ])


_gmm_validation()
_gmm_epochs()
_gmm_misc()



# ============================================================================ heartbeat paths of GroupMetadataManager
# Each case pins one path of consumerGroupHeartbeat / consumerGroupLeave that the named test exercises in a larger
# flow; values not asserted by the test are a deterministic reading of the code (source.note).
def _gmm_paths():
    foo6 = {"foo": {"id": F, "partitions": 6}}
    FOO6 = [0, 1, 2, 3, 4, 5]
    code = "Deterministic reading of GroupMetadataManager.consumerGroupHeartbeat and its helpers at this commit."

    scenario("gmm-join-subscribing-only-unknown-topic", "join", GMMT, "testMemberJoinsEmptyConsumerGroup",
             "A first member subscribing only to a topic missing from the image: the subscription change bumps the "
             "group epoch to 1, the (empty) subscription metadata is unchanged so no PartitionMetadata record, and "
             "the member is STABLE at 1 with an empty assignment.",
             config({}, assignors=("range",), mode="real"), [
                 join(0, "m1", {"error": "NONE", "member_epoch": 1, "assignment": {},
                                "records": [mm("m1", ["unknown"], rto=5000, assignor=None), epoch_rec(1),
                                            ta("m1", {}), ta_epoch(1), ca("m1", "STABLE", 1, 0, {})],
                                "group_state_after": "Stable", "subscription_metadata_after": {}},
                      subs=("unknown",), assignor=None),
             ], note=code + " The real range assignor gives a member whose topics do not exist an empty "
                            "assignment (it only fails for a subscribed topic missing from the subscription "
                            "metadata... here the member's subscribed ids resolve to none).")
    scenario("gmm-subscription-reordered-no-change", "subscription", GMMT,
             "testUpdatingSubscriptionTriggersNewTargetAssignment",
             "The same topics in another order (and repeated) are the same subscription: no record, no epoch bump.",
             config(FOO_BAR), [
                 base.two_members_seed(),
                 hb(0, "m1", 10, {"error": "NONE", "member_epoch": 10, "records": [], "group_epoch_after": 10},
                    subscribed_topic_names=["bar", "foo", "bar"]),
             ], note=code + " ConsumerGroupMember keeps subscribedTopicNames as a set (Builder."
                            "maybeUpdateSubscribedTopicNames). version_sensitive: 3.7 kept a sorted list, where a "
                            "repeated name was a change.", version_sensitive=True)
    scenario("gmm-subscription-removes-topic-revokes", "subscription", GMMT,
             "testUpdatingSubscriptionTriggersNewTargetAssignment",
             "A member dropping 'bar' from its subscription: member metadata, new subscription metadata, epoch 11; "
             "the new target without bar must first be revoked (UNREVOKED_PARTITIONS at 10, rebalance timer armed).",
             config(FOO_BAR), [
                 seed([member("m1", 10, 9, ["foo", "bar"], {F: FOO6, B: [0, 1, 2]}, rto=5000)],
                      {"m1": {F: FOO6, B: [0, 1, 2]}}),
                 prepare({"m1": {F: FOO6}}),
                 hb(1000, "m1", 10, {"error": "NONE", "member_epoch": 10, "assignment": {F: FOO6},
                                     "records": [mm("m1", ["foo"], rto=5000), pm({"foo": 6}), epoch_rec(11),
                                                 ta("m1", {F: FOO6}), ta_epoch(11),
                                                 ca("m1", "UNREVOKED_PARTITIONS", 10, 10, {F: FOO6}, {B: [0, 1, 2]})],
                                     "rebalance_deadline_after": {"m1": 6000}, "group_state_after": "Reconciling"},
                    subscribed_topic_names=["foo"]),
                 hb(2000, "m1", 10, {"error": "NONE", "member_epoch": 11, "assignment": None,
                                     "records": [ca("m1", "STABLE", 11, 10, {F: FOO6})],
                                     "rebalance_deadline_after": {"m1": None}, "group_state_after": "Stable"},
                    topic_partitions={F: FOO6}),
             ], note=code)
    scenario("gmm-join-retry-after-lost-response", "join", GMMT, "testConsumerGroupMemberEpochValidation",
             "A dynamic member whose join response was lost joins again (epoch 0, empty owned list): 0 is its "
             "previous epoch and an empty list is a subset of its assignment, so it is answered with epoch 1 and "
             "its whole assignment; nothing is written.", config(foo6), [
                 prepare({"m1": {F: FOO6}}),
                 join(0, "m1", {"error": "NONE", "member_epoch": 1,
                                "member_after": {"m1": {"member_epoch": 1, "previous_member_epoch": 0}}},
                      subs=("foo",), assignor=None),
                 join(100, "m1", {"error": "NONE", "member_epoch": 1, "assignment": {F: FOO6}, "records": [],
                                  "group_epoch_after": 1}, subs=("foo",), assignor=None),
             ], note=code + " throwIfConsumerGroupMemberEpochIsInvalid accepts the previous epoch with owned "
                            "partitions that are a subset (an empty list is).")
    scenario("gmm-static-join-retry-unreleased", "static_member", GMMT,
             "testShouldThrownUnreleasedInstanceIdExceptionWhenNewMemberJoinsWithInUseInstanceId",
             "The same retry from a static member is refused: epoch 0 with an instance id held by a live member "
             "is UNRELEASED_INSTANCE_ID even when that member has the same member id.", config(foo6), [
                 prepare({"m1": {F: FOO6}}),
                 join(0, "m1", {"error": "NONE", "member_epoch": 1}, subs=("foo",), assignor=None, instance_id="i1"),
                 join(100, "m1", {"error": "UNRELEASED_INSTANCE_ID", "member_after": {"m1": {"member_epoch": 1}}},
                      subs=("foo",), assignor=None, instance_id="i1"),
             ], note=code + " getOrMaybeSubscribeStaticConsumerGroupMember with createIfNotExists checks "
                            "throwIfInstanceIdIsUnreleased (member epoch != -2) without comparing member ids.")
    scenario("gmm-static-member-leaves-without-instance-id", "leave", GMMT, "testLeavingStaticMemberBumpsGroupEpoch",
             "A static member leaving with -1 but without its instance id is found by member id and removed all "
             "the same: its instance id is released.", config(FOO_BAR), [
                 base.two_members_seed(instance=True, rto=5000),
                 leave(0, "m2", -1, {"error": "NONE", "member_epoch": -1, "static_members_after": {"m1": "m1"},
                                     "members_after": ["m1"], "records": tombstones("m2") + [epoch_rec(11)]}),
             ], note=code + " consumerGroupLeave without instance id takes the dynamic path (getOrMaybeCreateMember).")
    scenario("gmm-static-leave-minus-one-other-member-fenced", "leave", GMMT,
             "testShouldThrowFencedInstanceIdExceptionWhenStaticMemberWithDifferentMemberIdLeaves",
             "A -1 leave naming a known instance id from another member id is FENCED_INSTANCE_ID, as for -2.",
             config(FOO_BAR), [
                 base.two_members_seed(instance=True, rto=5000),
                 leave(0, "m3", -1, {"error": "FENCED_INSTANCE_ID", "members_after": ["m1", "m2"]}, instance_id="m2"),
             ], note=code + " consumerGroupLeave checks throwIfInstanceIdIsFenced before looking at the epoch.")
    scenario("gmm-static-join-known-dynamic-member-id", "static_member", GMMT,
             "testGroupEpochBumpWhenNewStaticMemberJoins",
             "Epoch 0 with a new instance id but the member id of an existing dynamic member: the instance is new, so "
             "the existing member is taken as is (no epoch check) and only gains the instance id; it stays at "
             "epoch 10.", config(FOO_BAR), [
                 base.two_members_seed(rto=5000),
                 join(0, "m1", {"error": "NONE", "member_epoch": 10, "assignment": {F: [0, 1, 2], B: [0, 1]},
                                "static_members_after": {"instance-1": "m1"}, "group_epoch_after": 10,
                                "records": [mm("m1", ["foo", "bar"], rto=5000, instance="instance-1")]},
                      instance_id="instance-1"),
             ], note=code + " getOrMaybeSubscribeStaticConsumerGroupMember: a new instance id takes "
                            "group.getOrMaybeCreateMember(memberId, true), without throwIfConsumerGroupMemberEpochIsInvalid.")
    scenario("gmm-static-rejoin-same-member-id", "static_member", GMMT, "testStaticMemberGetsBackAssignmentUponRejoin",
             "A static member that left with -2 rejoins with epoch 0 and its own member id: it is replaced by a copy "
             "of itself (tombstones then the copy at epoch 0/0) and gets its assignment back at the group epoch.",
             config(FOO_BAR), [
                 base.two_members_seed(instance=True, rto=5000),
                 leave(0, "m2", -2, {"error": "NONE", "member_epoch": -2}, instance_id="m2"),
                 join(0, "m2", {"error": "NONE", "member_epoch": 10, "assignment": {F: [3, 4, 5], B: [2]},
                                "records": tombstones("m2") + [
                                    mm("m2", ["foo", "bar"], rto=5000, instance="m2"),
                                    ta("m2", {F: [3, 4, 5], B: [2]}),
                                    ca("m2", "STABLE", 0, 0, {F: [3, 4, 5], B: [2]}),
                                    ca("m2", "STABLE", 10, 0, {F: [3, 4, 5], B: [2]})],
                                "members_after": ["m1", "m2"], "static_members_after": {"m1": "m1", "m2": "m2"}},
                      instance_id="m2"),
             ], note=code + " replaceMember does not compare the ids.")
    scenario("gmm-static-join-instance-of-classic-member", "static_member", GMMT,
             "testShouldThrownUnreleasedInstanceIdExceptionWhenNewMemberJoinsWithInUseInstanceId",
             "The unreleased-instance check applies only between consumer-protocol members: a new member joining "
             "with the instance id of a live classic-protocol member replaces it.",
             config({"foo": {"id": F, "partitions": 6}}), [
                 seed([dict(member("m1", 10, 9, ["foo"], {F: [0, 1, 2]}, instance="i1", rto=5000),
                            uses_classic_protocol=True)], {"m1": {F: [0, 1, 2]}}),
                 join(0, "m2", {"error": "NONE", "members_after": ["m2"], "static_members_after": {"i1": "m2"},
                                "member_after": {"m2": {"uses_classic_protocol": False}}},
                      subs=("foo",), instance_id="i1"),
             ], note=code + " getOrMaybeSubscribeStaticConsumerGroupMember calls throwIfInstanceIdIsUnreleased only "
                            "when neither member uses the classic protocol.")
    scenario("gmm-static-leave-keeps-partitions-owned", "static_member", GMMT,
             "testNoGroupEpochBumpWhenStaticMemberTemporarilyLeaves",
             "Partitions of a static member that left with -2 stay owned (at epoch -2): a dynamic member whose new "
             "target includes them waits UNRELEASED_PARTITIONS.", config(FOO_BAR), [
                 base.two_members_seed(instance=True, rto=5000),
                 leave(0, "m2", -2, {"error": "NONE", "member_epoch": -2}, instance_id="m2"),
                 prepare({"m1": {F: [0, 1, 2], B: [0, 1]}, "m3": {F: [3, 4, 5], B: [2]}}),
                 join(0, "m3", {"error": "NONE", "member_epoch": 11, "assignment": {},
                                "member_after": {"m3": {"state": "UNRELEASED_PARTITIONS", "assigned": {}}}}),
             ], note=code + " ConsumerGroup.updateMember keeps partition epochs for the member's assigned partitions "
                            "at its epoch, -2 included.")
    scenario("gmm-rejoin-after-leave-same-member-id", "join", GMMT, "testLeavingMemberBumpsGroupEpoch",
             "A dynamic member that left (-1) may rejoin with epoch 0 and the same member id: it is a new member "
             "(previous epoch -1 on creation, then 0), the group epoch is bumped again.", config(FOO_BAR), [
                 base.two_members_seed(rto=5000),
                 leave(0, "m2", -1, {"error": "NONE", "group_epoch_after": 11, "members_after": ["m1"]}),
                 prepare({"m1": {F: [0, 1, 2], B: [0, 1]}, "m2": {F: [3, 4, 5], B: [2]}}),
                 join(0, "m2", {"error": "NONE", "member_epoch": 12, "assignment": {F: [3, 4, 5], B: [2]},
                                "group_epoch_after": 12,
                                "records_last": ca("m2", "STABLE", 12, 0, {F: [3, 4, 5], B: [2]})}),
             ], note=code + " The freed partitions have no owner any more (epoch -1), so they are assigned at once.")
    scenario("gmm-heartbeat-after-session-expiry-unknown", "session_timeout", GMMT, "testSessionTimeoutExpiration",
             "Once the session timer fenced a member, its next heartbeat is UNKNOWN_MEMBER_ID and its commits too.",
             config(foo6), [
                 prepare({"m1": {F: FOO6}}),
                 join(0, "m1", {"error": "NONE", "member_epoch": 1}, subs=("foo",), assignor=None),
                 advance(45001, {"fenced": ["m1"], "group_state_after": "Empty", "group_epoch_after": 2}),
                 hb(45002, "m1", 1, {"error": "UNKNOWN_MEMBER_ID"}),
                 commit(45003, "m1", 1, {"foo-0": 1}, {"error": "UNKNOWN_MEMBER_ID"}),
                 commit(45004, "", -1, {"foo-0": 1}, {"error": "NONE"}),
             ], note=code + " The commits follow ConsumerGroup.validateOffsetCommit (an empty group accepts epoch -1).")
    scenario("gmm-leave-while-revoking-cancels-timers", "leave", GMMT, "testRebalanceTimeoutLifecycle",
             "A member leaving (-1) while UNREVOKED_PARTITIONS: both its timers are cancelled and nothing fires "
             "later.", config(foo6), [
                 prepare({"m1": {F: FOO6}}),
                 join(0, "m1", {"error": "NONE", "member_epoch": 1}, subs=("foo",), rto=12000, assignor=None),
                 prepare({"m1": {F: [0, 1, 2]}, "m2": {F: [3, 4, 5]}}),
                 join(1000, "m2", {"error": "NONE", "member_epoch": 2}, subs=("foo",), rto=12000, assignor=None),
                 hb(2000, "m1", 1, {"error": "NONE", "member_epoch": 1,
                                    "member_after": {"m1": {"state": "UNREVOKED_PARTITIONS"}},
                                    "rebalance_deadline_after": {"m1": 14000}}),
                 leave(3000, "m1", -1, {"error": "NONE", "session_deadline_after": {"m1": None},
                                        "rebalance_deadline_after": {"m1": None}, "group_epoch_after": 3}),
                 advance(20000, {"fenced": []}),
             ], note=code)
    scenario("gmm-max-size-known-member-rejoin-fenced", "max_size", GMMT,
             "testNewMemberIsRejectedWithMaximumMembersIsReached",
             "A full group still lets its own members through the size check: a known member rejoining with epoch 0 "
             "passes it and is then FENCED_MEMBER_EPOCH (0 is neither its epoch nor its previous one).",
             config(FOO_BAR, max_size=2), [
                 base.two_members_seed(rto=5000),
                 join(0, "m1", {"error": "FENCED_MEMBER_EPOCH"}),
             ], note=code)
    scenario("gmm-max-size-static-new-instance-rejected", "max_size", GMMT,
             "testNewMemberIsRejectedWithMaximumMembersIsReached",
             "In a full group a static member with a new instance id and a new member id is GROUP_MAX_SIZE_REACHED.",
             config(FOO_BAR, max_size=2), [
                 base.two_members_seed(instance=True, rto=5000),
                 join(0, "m3", {"error": "GROUP_MAX_SIZE_REACHED", "members_after": ["m1", "m2"]}, instance_id="m3"),
             ], note=code)
    scenario("gmm-simple-group-replaced-by-consumer-join", "upgrade", GMMT,
             "testConsumerGroupHeartbeatWithEmptyClassicGroup",
             "A group created by a manual offset commit (an Empty classic group) is replaced by the first "
             "consumer-protocol join: classic-group tombstone first, then the new consumer group's records.",
             config(foo6, group_id="grp"), [
                 commit(0, "", -1, {"foo-0": 10}, {"error": "NONE", "group_type_after": "classic"}),
                 prepare({"m1": {F: FOO6}}),
                 join(0, "m1", {"error": "NONE", "member_epoch": 1, "group_type_after": "consumer",
                                "records": [{"type": "ClassicGroupMetadataTombstone"},
                                            mm("m1", ["foo"], rto=5000, assignor=None), pm({"foo": 6}),
                                            epoch_rec(1), ta("m1", {F: FOO6}), ta_epoch(1),
                                            ca("m1", "STABLE", 1, 0, {F: FOO6})]},
                      subs=("foo",), assignor=None),
             ], note=code + " OffsetMetadataManager.validateOffsetCommit creates the simple group "
                            "(getOrMaybeCreateClassicGroup); maybeDeleteEmptyClassicGroup replaces it.")
    scenario("gmm-classic-member-heartbeat-switches-protocol", "upgrade", GMMT,
             "testConsumerGroupHeartbeatFromExistingClassicStaticMember",
             "A member of a consumer group that used the classic protocol sends a ConsumerGroupHeartbeat at its "
             "epoch: its classic metadata is dropped (a MemberMetadata record), no epoch bump.",
             config(foo6), [
                 seed([dict(member("m1", 10, 9, ["foo"], {F: FOO6}, rto=5000, assignor=None),
                            uses_classic_protocol=True)], {"m1": {F: FOO6}}),
                 hb(0, "m1", 10, {"error": "NONE", "member_epoch": 10, "group_epoch_after": 10,
                                  "records": [mm("m1", ["foo"], rto=5000, assignor=None)],
                                  "member_after": {"m1": {"uses_classic_protocol": False}}}),
             ], note=code + " The updated member is built with setClassicMemberMetadata(null); any difference is "
                            "written by hasMemberSubscriptionChanged without a bump.")
    scenario("gmm-rack-change-written-no-bump", "subscription", GMMT,
             "testUpdatingSubscriptionTriggersNewTargetAssignment",
             "Changing only the rack id (or the rebalance timeout) writes the member metadata but does not bump the "
             "group epoch.", config(FOO_BAR), [
                 base.two_members_seed(rto=5000),
                 hb(0, "m1", 10, {"error": "NONE", "member_epoch": 10, "group_epoch_after": 10,
                                  "records": [mm("m1", ["foo", "bar"], rto=5000)],
                                  "member_after": {"m1": {"rack_id": "rack-1"}}}, rack_id="rack-1"),
                 hb(0, "m1", 10, {"error": "NONE", "group_epoch_after": 10,
                                  "records": [mm("m1", ["foo", "bar"], rto=9000)],
                                  "member_after": {"m1": {"rebalance_timeout_ms": 9000}}}, rebalance_timeout_ms=9000),
             ], note=code)
    scenario("gmm-dynamic-heartbeat-interval-in-response", "group_config", GMMT, "testConsumerGroupDynamicConfigs",
             "The heartbeat interval in responses follows the group's dynamic config as soon as it is set; leave "
             "responses carry 0.", config(foo6), [
                 prepare({"m1": {F: FOO6}}),
                 join(0, "m1", {"error": "NONE", "heartbeat_interval_ms": 5000}, subs=("foo",), assignor=None),
                 {"at_ms": 100, "op": "group_config", "configs": {"consumer.heartbeat.interval.ms": 3000},
                  "expect": {}},
                 hb(200, "m1", 1, {"error": "NONE", "heartbeat_interval_ms": 3000,
                                   "session_deadline_after": {"m1": 45200}}),
                 leave(300, "m1", -1, {"error": "NONE", "heartbeat_interval_ms": 0}),
             ], note="The test sets both dynamic configs; here only the interval, the session timeout staying the "
                     "broker default (GroupConfigManager over the broker defaults).")


_gmm_paths()



# ============================================================================ CurrentAssignmentBuilder branches
# CurrentAssignmentBuilderTest has one case per transition (all in kip848-scenarios.json); these restate the other
# branches of CurrentAssignmentBuilder.build / computeNextAssignment at the commit, each next to the test of the
# transition it varies (source.note says so).
def reconcile(id_, method, description, m, target_epoch, target, pe_default, owned, expect, by_topic=None):
    base.reconcile_case(id_, method, description, m, target_epoch, target, pe_default, owned, expect, by_topic,
                        note="Deterministic reading of CurrentAssignmentBuilder.build/computeNextAssignment at this "
                             "commit: a branch next to the named test's transition.", tag=TAG, scenarios=SCENARIOS)


def _cab_branches():
    T1, T2 = "t1-id", "t2-id"
    S, UREV, UREL, UNK = "STABLE", "UNREVOKED_PARTITIONS", "UNRELEASED_PARTITIONS", "UNKNOWN"
    reconcile("cab-more-stable-same-epoch-other-target-unchanged", "testStableToStable",
              "A STABLE member already at the target epoch is returned unchanged, even if the target differs.",
              mem(S, 11, 10, {T1: [1, 2, 3]}), 11, {T1: [4, 5]}, -1, "not_set", {"unchanged": True})
    reconcile("cab-more-stable-same-epoch-owned-ignored", "testStableToStable",
              "A STABLE member at the target epoch ignores the owned partitions it reports.",
              mem(S, 11, 10, {T1: [1, 2, 3]}), 11, {T1: [1, 2, 3]}, -1, {T2: [9]}, {"unchanged": True})
    reconcile("cab-more-stable-topic-dropped-owned-not-set", "testStableToUnrevokedPartitions",
              "A whole topic leaves the target while owned partitions are not reported: UNREVOKED_PARTITIONS at the "
              "current epoch with that topic pending revocation.",
              mem(S, 10, 9, {T1: [1, 2], T2: [3]}), 11, {T1: [1, 2]}, -1, "not_set",
              mem(UREV, 10, 10, {T1: [1, 2]}, {T2: [3]}))
    reconcile("cab-more-stable-revoked-not-owned-skips-revocation", "testStableToUnrevokedPartitions",
              "Partitions to revoke that the member no longer reports owning need no revocation round: STABLE at "
              "the target epoch with the kept partitions.",
              mem(S, 10, 9, {T1: [1, 2, 3]}), 11, {T1: [1, 2]}, -1, {T1: [1, 2]}, mem(S, 11, 10, {T1: [1, 2]}))
    reconcile("cab-more-stable-owns-one-revoked-all-pending", "testStableToUnrevokedPartitions",
              "Owning one of the revoked partitions is enough to wait: every partition leaving the assignment is "
              "pending revocation, not only the reported ones.",
              mem(S, 10, 9, {T1: [1, 2, 3]}), 11, {T1: [1, 4]}, -1, {T1: [2]},
              mem(UREV, 10, 10, {T1: [1]}, {T1: [2, 3]}))
    reconcile("cab-more-stable-empty-target-owned-empty", "testStableToStable",
              "An empty target with an empty owned list: STABLE at the target epoch with nothing.",
              mem(S, 10, 9, {T1: [1]}), 11, {}, -1, {}, mem(S, 11, 10, {}))
    reconcile("cab-more-unrevoked-owned-empty-list-advances", "testUnrevokedPartitionsToStable",
              "An empty owned list acknowledges every revocation: the member moves on (epoch + 1 = target) to STABLE.",
              mem(UREV, 10, 10, {T1: [2, 3]}, {T1: [1]}), 11, {T1: [2, 3]}, -1, {}, mem(S, 11, 10, {T1: [2, 3]}))
    reconcile("cab-more-unrevoked-own-pending-partition-back-in-target", "testUnrevokedPartitionsToUnreleasedPartitions",
              "A partition the member just revoked comes back in the target while its own epoch still marks it: "
              "it is unreleased, so UNRELEASED_PARTITIONS at the target epoch with the kept partitions only.",
              mem(UREV, 10, 10, {T1: [1]}, {T1: [2]}), 12, {T1: [1, 2]}, -1, {T1: [1]},
              mem(UREL, 12, 10, {T1: [1]}), by_topic={T1: 10})
    reconcile("cab-more-unreleased-still-unreleased-new-epoch", "testUnreleasedPartitionsToUnreleasedPartitions",
              "A member waiting for unreleased partitions follows a new target epoch while they stay unreleased.",
              mem(UREL, 11, 11, {T1: [1]}), 12, {T1: [1, 2]}, 10, "not_set", mem(UREL, 12, 11, {T1: [1]}))
    reconcile("cab-more-unreleased-target-emptied", "testUnreleasedPartitionsToUnrevokedPartitions",
              "A waiting member whose new target is empty must revoke what it has (owned not reported): "
              "UNREVOKED_PARTITIONS at its epoch.",
              mem(UREL, 11, 11, {T1: [1]}), 12, {}, -1, "not_set", mem(UREV, 11, 11, {}, {T1: [1]}))
    reconcile("cab-more-unknown-gets-free-partition", "testUnknownState",
              "An UNKNOWN member reporting an empty owned list is reconciled from the target epoch: it keeps what it "
              "has and gets a free partition at once.",
              mem(UNK, 11, 11, {T1: [3]}), 12, {T1: [3, 4]}, -1, {}, mem(S, 12, 11, {T1: [3, 4]}))
    reconcile("cab-more-unknown-owned-not-empty-fenced", "testUnknownState",
              "An UNKNOWN member still reporting owned partitions is fenced.",
              mem(UNK, 11, 11, {T1: [3]}), 12, {T1: [3]}, -1, {T1: [3]}, {"error": "FENCED_MEMBER_EPOCH"})


_cab_branches()


def _gmm_static_revoking():
    code = "Deterministic reading of consumerGroupStaticMemberGroupLeave / ConsumerGroup.updateMember at this commit."
    steps = [
        seed([member("m1", 10, 9, ["foo"], {F: [0, 1]}, instance="i1", rto=10000, state="UNREVOKED_PARTITIONS",
                     pending={F: [2]}),
              member("m2", 11, 10, ["foo"], {}, rto=10000, state="UNRELEASED_PARTITIONS")],
             {"m1": {F: [0, 1]}, "m2": {F: [2]}}, epoch=11),
        hb(0, "m1", 10, {"error": "NONE", "member_epoch": 10, "records": [],
                         "member_after": {"m1": {"state": "UNREVOKED_PARTITIONS"}}}),
        leave(100, "m1", -2, {"error": "NONE", "member_epoch": -2,
                              "records": [ca("m1", "UNREVOKED_PARTITIONS", -2, 9, {F: [0, 1]})],
                              "member_after": {"m1": {"pending_revocation": {}}}}, instance_id="i1"),
        hb(200, "m2", 11, {"error": "NONE", "member_epoch": 11, "assignment": {F: [2]},
                           "records": [ca("m2", "STABLE", 11, 11, {F: [2]})]}),
        hb(300, "m1", 10, {"error": "FENCED_MEMBER_EPOCH"}, instance_id="i1"),
    ]
    scenario("gmm-static-temporary-leave-while-revoking", "static_member", GMMT,
             "testNoGroupEpochBumpWhenStaticMemberTemporarilyLeaves",
             "A static member leaving with -2 while revoking: its pending revocation is dropped (the partition is "
             "free for the member waiting on it), it keeps its state and assigned partitions at epoch -2; a later "
             "heartbeat with its old epoch is FENCED_MEMBER_EPOCH.", config({"foo": {"id": F, "partitions": 3}}),
             steps, note=code + " The -2 leave only sets the epoch and clears the pending revocation "
                                "(Builder(member).setMemberEpoch(-2).setPartitionsPendingRevocation(empty)); the "
                                "previous epoch stays 9.")
    scenario("gmm-static-temporary-leave-rebalance-timer-harmless", "static_member", GMMT,
             "testSessionTimeoutExpirationStaticMember",
             "The rebalance timer armed while a static member was revoking survives its -2 leave but finds the "
             "member at another epoch and does nothing; the session timer then fences it.",
             config({"foo": {"id": F, "partitions": 3}}), [
                 seed([member("m1", 10, 9, ["foo"], {F: [0, 1, 2]}, instance="i1", rto=10000)],
                      {"m1": {F: [0, 1, 2]}}, epoch=10),
                 prepare({"m1": {F: [0, 1]}}),
                 {"at_ms": 0, "op": "metadata_change", "topics": {"foo": {"id": F, "partitions": 3}}, "expect": {}},
                 hb(0, "m1", 10, {"error": "NONE", "member_epoch": 10}, instance_id="i1",
                    subscribed_topic_names=["foo", "bar"]),
                 check(0, {"member_after": {"m1": {"state": "UNREVOKED_PARTITIONS"}},
                           "rebalance_deadline_after": {"m1": 10000}, "session_deadline_after": {"m1": 45000}}),
                 leave(1000, "m1", -2, {"error": "NONE", "member_epoch": -2,
                                        "rebalance_deadline_after": {"m1": 10000},
                                        "session_deadline_after": {"m1": 45000}}, instance_id="i1"),
                 advance(10001, {"fenced": [], "members_after": ["m1"]}),
                 advance(45001, {"fenced": ["m1"], "members_after": [], "group_state_after": "Empty"}),
             ], note=code + " scheduleConsumerGroupRebalanceTimeout fences only a member still at the epoch it was "
                            "armed with.")


_gmm_static_revoking()



# ============================================================================ more assertions of the heartbeat tests
def _gmm_full_response():
    cfg = config({"foo": {"id": F, "partitions": 2}})
    mid = "member-id-1"
    first = join(0, mid, {"error": "NONE", "member_id": mid, "member_epoch": 1, "heartbeat_interval_ms": 5000,
                          "assignment": {F: [0, 1]}})
    prep = prepare({mid: {F: [0, 1]}})
    full = {"rebalance_timeout_ms": 5000, "subscribed_topic_names": ["foo", "bar"], "server_assignor": "range",
            "topic_partitions": {}}
    rnote = "One response assertion of the test (MockPartitionAssignor returning foo 0-1 for the member)."
    scenario("gmm-full-response-join", "response", GMMT, "testConsumerGroupHeartbeatFullResponse",
             "The join (epoch 0) response carries the member id, epoch 1, the interval and the whole assignment.",
             cfg, [prep, first], note=rnote)
    scenario("gmm-full-response-partial-heartbeat", "response", GMMT, "testConsumerGroupHeartbeatFullResponse",
             "A heartbeat with only id and epoch, nothing changed: no assignment in the response.", cfg, [
                 prep, first,
                 hb(0, mid, 1, {"error": "NONE", "member_id": mid, "member_epoch": 1, "heartbeat_interval_ms": 5000,
                                "assignment": None}),
             ], note=rnote)
    scenario("gmm-full-response-full-heartbeat", "response", GMMT, "testConsumerGroupHeartbeatFullResponse",
             "A heartbeat with rebalance timeout, subscription and (empty) owned partitions is full: the response "
             "carries the whole assignment although nothing changed.", cfg, [
                 prep, first,
                 hb(0, mid, 1, {"error": "NONE", "member_id": mid, "member_epoch": 1, "heartbeat_interval_ms": 5000,
                                "assignment": {F: [0, 1]}}, **full),
             ], note=rnote)
    scenario("gmm-full-response-missing-owned-not-full", "response", GMMT, "testConsumerGroupHeartbeatFullResponse",
             "Rebalance timeout and subscription without the owned-partitions list is not a full request: no "
             "assignment.", cfg, [
                 prep, first,
                 hb(0, mid, 1, {"error": "NONE", "member_epoch": 1, "assignment": None}, rebalance_timeout_ms=5000,
                    subscribed_topic_names=["foo", "bar"]),
             ], note="Deterministic reading of isFullRequest in consumerGroupHeartbeat (not sent by the test).")


def _static_members_map():
    cgt = "Restates ConsumerGroup.staticMember / removeMember through joins and leaves."
    scenario("cgt-static-member-by-instance-id", "static_member", CGT, "testGetStaticMemberByInstanceId",
             "A static member is found by its instance id; a dynamic member is not in the static-member map.",
             config({"foo": {"id": F, "partitions": 6}}, assignors=("no-op",), mode="noop"), [
                 join(0, "member", {"error": "NONE", "static_members_after": {"instance": "member"}},
                      subs=("foo",), assignor=None, instance_id="instance"),
                 join(0, "dyn", {"error": "NONE", "static_members_after": {"instance": "member"},
                                 "members_after": ["member", "dyn"]}, subs=("foo",), assignor=None),
             ], note=cgt)
    scenario("cgt-remove-static-member", "static_member", CGT, "testRemoveStaticMember",
             "Removing a static member (leave -1) removes its instance id from the static-member map; its instance "
             "id is then free for a new member.",
             config({"foo": {"id": F, "partitions": 6}}, assignors=("no-op",), mode="noop"), [
                 join(0, "member", {"error": "NONE"}, subs=("foo",), assignor=None, instance_id="instance"),
                 leave(0, "member", -1, {"error": "NONE", "static_members_after": {}, "members_after": []},
                       instance_id="instance"),
                 join(0, "member-2", {"error": "NONE", "static_members_after": {"instance": "member-2"}},
                      subs=("foo",), assignor=None, instance_id="instance"),
             ], note=cgt)
    scenario("cgt-no-static-member", "static_member", CGT, "testNoStaticMember",
             "Heartbeats naming an instance id that no member holds are UNKNOWN_MEMBER_ID (epoch > 0) or "
             "UNKNOWN_MEMBER_ID for a -2 leave.",
             config({"foo": {"id": F, "partitions": 6}}, assignors=("no-op",), mode="noop"), [
                 join(0, "member", {"error": "NONE"}, subs=("foo",), assignor=None),
                 hb(0, "member", 1, {"error": "UNKNOWN_MEMBER_ID"}, instance_id="nope"),
                 leave(0, "member", -2, {"error": "UNKNOWN_MEMBER_ID"}, instance_id="nope"),
             ], note=cgt + " (throwIfStaticMemberIsUnknown)")


def _range_through_coordinator():
    topics = {"foo": {"id": F, "partitions": 4}}
    note = ("RangeAssignor.sortMemberIds (static members first, by instance id; then dynamic members by id) "
            "reached through the coordinator with the real range assignor.")
    scenario("range-coordinator-static-order-by-instance", "assignor", base.ASSIGNOR_DIR + "RangeAssignorTest.java",
             "testStaticMembership",
             "Two static members whose member ids sort the other way round from their instance ids: the range "
             "assignor orders them by instance id (instance A gets foo 0-1 although its member id sorts last).",
             config(topics, assignors=("range",), mode="real"), [
                 join(0, "z-member", {"error": "NONE", "member_epoch": 1, "assignment": {F: [0, 1, 2, 3]}},
                      subs=("foo",), instance_id="A"),
                 join(0, "a-member", {"error": "NONE", "member_epoch": 2,
                                      "target_assignment_after": {"z-member": {F: [0, 1]}, "a-member": {F: [2, 3]}}},
                      subs=("foo",), instance_id="B"),
             ], note=note)
    scenario("range-coordinator-mixed-static-dynamic", "assignor", base.ASSIGNOR_DIR + "RangeAssignorTest.java",
             "testMixedStaticMembership",
             "A static member is ordered before a dynamic one whatever their member ids.",
             config(topics, assignors=("range",), mode="real"), [
                 join(0, "a-dynamic", {"error": "NONE", "member_epoch": 1}, subs=("foo",)),
                 join(0, "z-static", {"error": "NONE", "member_epoch": 2,
                                      "target_assignment_after": {"z-static": {F: [0, 1]}, "a-dynamic": {F: [2, 3]}}},
                      subs=("foo",), instance_id="I"),
             ], note=note)


def _assignor_large_sample():
    topics = {f"topic-{i}": {"id": f"topic-{i}-id", "partitions": 3} for i in range(1, 100)}
    members = {f"member{i}": {"subscribed_topics": list(topics), "instance_id": None, "rack": None,
                              "current_target": {}} for i in range(1, 50)}
    ASSIGNORS.append({
        "id": "uniform-hom-large-sample-valid-balanced", "category": "uniform-homogeneous", "assignor": "uniform",
        "source": {"suite": base.ASSIGNOR_DIR + "OptimizedUniformAssignmentBuilderTest.java",
                   "test_class": "OptimizedUniformAssignmentBuilderTest",
                   "method": "testValidityAndBalanceForLargeSampleSet", "commit": COMMIT, "tag": TAG,
                   "note": "99 topics of 3 partitions, 49 members subscribed to all (random topic ids in the test): "
                           "checkValidityAndBalance = valid, complete and within one partition of each other."},
        "subscription_type": "HOMOGENEOUS", "topics": topics, "members": members, "check": "properties",
        "properties": ["valid", "complete", "fully_balanced", "balanced"]})


_gmm_full_response()
_static_members_map()
_range_through_coordinator()
_assignor_large_sample()



# ============================================================================ uniform assignor through the coordinator
# With Kafka topic ids (base64 UUIDs) the homogeneous uniform builder walks the subscribed topics in the order of a
# java.util.HashSet<Uuid> (new HashSet<>(subscribedTopicIds)) and each member's current target in the order of the
# HashMap<Uuid, Set<Integer>> that Assignment.fromRecord builds (Collectors.toMap); members in HashMap<String>
# order (GroupSpecImpl over TargetAssignmentBuilder's HashMap of member specs). The tests' fixed topic ids iterate
# topic2, topic4, topic3, topic1.
def _uniform_through_coordinator():
    U = base.UUIDS
    T1, T2, T3 = U["topic1"], U["topic2"], U["topic3"]
    onote = ("UniformHomogeneousAssignmentBuilder reached through consumerGroupHeartbeat (updateTargetAssignment "
             "-> TargetAssignmentBuilder) with the real uniform assignor: topic and previous-assignment iteration "
             "in Java HashSet/HashMap order of the Uuids (topic3 before topic1, topic2 before topic1), members "
             "A, B, C in HashMap<String> order.")
    cfg13 = config({"topic1": {"id": T1, "partitions": 3}, "topic3": {"id": T3, "partitions": 2}},
                   assignors=("uniform",), mode="real")
    first = {"A": {T1: [0], T3: [0, 1]}, "B": {T1: [1, 2]}}
    scenario("uniform-coordinator-first-assignment-uuid-order", "assignor", base.ASSIGNOR_DIR +
             "OptimizedUniformAssignmentBuilderTest.java", "testFirstAssignmentTwoMembersTwoTopicsNoMemberRacks",
             "Two members, no current targets, topic1 (3) and topic3 (2): the coordinator's first target equals "
             "the test's exact answer (A: topic1-0, topic3-0/1; B: topic1-1/2) because topic3 comes first in the "
             "Uuid HashSet order.", cfg13, [
                 seed([member("A", 0, -1, ["topic1", "topic3"], {}, assignor=None, rto=5000),
                       member("B", 0, -1, ["topic1", "topic3"], {}, assignor=None, rto=5000)], {},
                      epoch=1, assignment_epoch=0),
                 hb(0, "A", 0, {"error": "NONE", "member_epoch": 1, "assignment": {T1: [0], T3: [0, 1]},
                                "target_assignment_after": first}, topic_partitions={}, rebalance_timeout_ms=5000,
                    subscribed_topic_names=["topic1", "topic3"]),
             ], note=onote + " The members are loaded at epoch 0 with group epoch 1 so that one target computation "
                             "sees both, as the test's single assign call does.")
    scenario("uniform-coordinator-second-member-joins-uuid-order", "assignor", base.ASSIGNOR_DIR +
             "OptimizedUniformAssignmentBuilderTest.java", "testFirstAssignmentTwoMembersTwoTopicsNoMemberRacks",
             "A joins alone and gets all five partitions; when B joins, A keeps topic3 (walked first) and one "
             "partition of topic1 within its quota of 3, B gets topic1-1/2: the same split as the test's first "
             "assignment.", cfg13, [
                 join(0, "A", {"error": "NONE", "member_epoch": 1, "assignment": {T1: [0, 1, 2], T3: [0, 1]}},
                      subs=("topic1", "topic3"), assignor=None),
                 join(0, "B", {"error": "NONE", "member_epoch": 2, "assignment": {},
                               "target_assignment_after": first}, subs=("topic1", "topic3"), assignor=None),
                 hb(0, "A", 1, {"error": "NONE", "member_epoch": 1, "assignment": {T1: [0], T3: [0, 1]},
                                "member_after": {"A": {"state": "UNREVOKED_PARTITIONS",
                                                       "pending_revocation": {T1: [1, 2]}}}}),
             ], note=onote)
    cfg12 = config({"topic1": {"id": T1, "partitions": 3}, "topic2": {"id": T2, "partitions": 3}},
                   assignors=("uniform",), mode="real")
    scenario("uniform-coordinator-member-added-uuid-order", "assignor", base.ASSIGNOR_DIR +
             "OptimizedUniformAssignmentBuilderTest.java",
             "testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics",
             "The test's group (A: topic1-0/2, topic2-0; B: topic1-1, topic2-1/2) gains C through the coordinator. "
             "Each member's current target is walked in Uuid HashMap order (topic2 first), not in the test's "
             "insertion order: A keeps topic2-0 and topic1-0, B keeps topic2-1/2, C gets topic1-2 and topic1-1.",
             cfg12, [
                 seed([member("A", 10, 9, ["topic1", "topic2"], {T1: [0, 2], T2: [0]}, assignor=None, rto=5000),
                       member("B", 10, 9, ["topic1", "topic2"], {T1: [1], T2: [1, 2]}, assignor=None, rto=5000)],
                      {"A": {T1: [0, 2], T2: [0]}, "B": {T1: [1], T2: [1, 2]}}, epoch=10),
                 join(0, "C", {"error": "NONE", "member_epoch": 11, "assignment": {},
                               "target_assignment_after": {"A": {T1: [0], T2: [0]}, "B": {T2: [1, 2]},
                                                           "C": {T1: [1, 2]}}},
                      subs=("topic1", "topic2"), assignor=None),
             ], note=onote + " The assignor test builds the previous assignments with insertion-ordered maps "
                             "(topic1 first) and expects A: topic1-0/2, B: topic1-1 + topic2-1, C: topic2-0/2; the "
                             "coordinator's maps come from the records (HashMap), hence this answer.")

    held = {"A": [3, 5, 17], "B": [0, 1], "C": [2, 4], "D": [6, 7], "E": [8, 9], "F": [10, 11], "G": [12, 13],
            "H": [14, 15], "I": [16]}
    after = dict(held, A=[3, 17], I=[5, 16])
    scenario("uniform-coordinator-over-quota-partition-set-order", "assignor", base.ASSIGNOR_DIR +
             "OptimizedUniformAssignmentBuilderTest.java",
             "testReassignmentForTwoMembersTwoTopicsGivenUnbalancedPrevAssignment",
             "Nine members share topic1's 18 partitions (quota 2 each); A holds 3, 5 and 17. The builder keeps "
             "the first two partitions of A's set in HashSet<Integer> order (17 in bucket 1 comes before 3 and 5), "
             "so 5 is released and goes to I.",
             config({"topic1": {"id": T1, "partitions": 18}}, assignors=("uniform",), mode="real"), [
                 seed([member(m, 10, 9, ["topic1"], {T1: ps}, assignor=None, rto=5000) for m, ps in held.items()],
                      {m: {T1: ps} for m, ps in held.items()}, epoch=11, assignment_epoch=10),
                 hb(0, "A", 10, {"error": "NONE", "member_epoch": 10, "assignment": {T1: [3, 17]},
                                 "target_assignment_after": {m: {T1: ps} for m, ps in after.items()},
                                 "member_after": {"A": {"state": "UNREVOKED_PARTITIONS",
                                                        "pending_revocation": {T1: [5]}}}}),
             ], note=onote + " The over-quota walk (maybeRevokePartitions) iterates the member's HashSet of "
                             "partitions, built by new HashSet<>(list) in Assignment.fromRecord (table of 16: "
                             "partition 17 hashes to bucket 1). Not asserted by the test, whose sets stay below 16.")


_uniform_through_coordinator()


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "kip848-more-scenarios.json").write_text(json.dumps(SCENARIOS, indent=1) + "\n")
    if ASSIGNORS:
        (OUT / "kip848-more-assignors.json").write_text(json.dumps(ASSIGNORS, indent=1) + "\n")
    print(f"{len(SCENARIOS)} scenarios, {len(ASSIGNORS)} assignor cases")


if __name__ == "__main__":
    main()
