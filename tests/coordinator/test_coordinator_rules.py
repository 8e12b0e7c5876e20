"""Rules of Kafka's classic group coordinator, each mirroring a Kafka test (GroupCoordinatorTest.scala
3.8.0 / GroupMetadataManagerTest.java trunk) or a documented Scala/Java divergence."""

from __future__ import annotations

import pytest

from pipeline.coordinator import states as S
from pipeline.coordinator.partitioning import java_string_hash, partition_for

from .helpers import GROUP, OTHER_GROUP, join, make, settle, stable_group

BOTH = pytest.mark.parametrize("impl", ["scala", "java"])


# ------------------------------------------------------------------ partitioning and states
@pytest.mark.parametrize("group_id, hash_code, p50, p2", [
    ("groupId", 293428218, 18, 0),
    ("otherGroup", -204443313, 13, 1),
    ("my-group", -1906497762, 12, 0),
    ("console-consumer-12345", 158455506, 6, 0),
    ("connect-cluster", 1440343063, 13, 1),
    ("polygenelubricants", -2147483648, 0, 0),
    ("", 0, 0, 0),
])
def test_coordinator_partition_matches_the_jvm(group_id, hash_code, p50, p2):
    assert java_string_hash(group_id) == hash_code
    assert partition_for(group_id, 50) == p50
    assert partition_for(group_id, 2) == p2


def test_java_hash_counts_utf16_units():
    # U+1F600 is a surrogate pair in UTF-16: two code units, as Java sees it
    assert java_string_hash("\U0001F600") == 0xD83D * 31 + 0xDE00


def test_state_transitions_are_kafkas():
    allowed = {(a, b) for b, prev in S.VALID_PREVIOUS_STATES.items() for a in prev}
    assert (S.STABLE, S.COMPLETING_REBALANCE) not in allowed
    assert (S.EMPTY, S.PREPARING_REBALANCE) in allowed and (S.DEAD, S.DEAD) in allowed
    with pytest.raises(S.IllegalStateTransition):
        S.check_transition(S.EMPTY, S.STABLE)


# ------------------------------------------------------------------ request validation
@BOTH
def test_wrong_coordinator_and_invalid_input(impl):
    c = make(impl)
    assert join(c, group=OTHER_GROUP).error == "NOT_COORDINATOR"
    assert c.heartbeat(OTHER_GROUP, "m", 1).error == "NOT_COORDINATOR"
    assert c.sync(OTHER_GROUP, "m", 1).error == "NOT_COORDINATOR"
    leave = c.leave(OTHER_GROUP, [("m", None)]).response
    assert (leave.error, leave.member_errors) == ("NOT_COORDINATOR", ())
    assert c.commit(OTHER_GROUP, "", -1, {"t-0": 1}).error == "NOT_COORDINATOR"
    assert c.fetch_offsets(OTHER_GROUP).error == "NOT_COORDINATOR"
    assert join(c, group="").error == "INVALID_GROUP_ID"
    assert join(c, session_timeout_ms=9).error == "INVALID_SESSION_TIMEOUT"
    assert join(c, session_timeout_ms=600001).error == "INVALID_SESSION_TIMEOUT"
    assert c.group(GROUP) is None  # nothing was created
    # OffsetCommit/OffsetFetch accept the empty group id (GroupCoordinator.isValidGroupId)
    assert c.commit("", "", -1, {"t-0": 3}).error == "NONE"
    assert c.fetch_offsets("", ["t-0"]).response.offsets == {"t-0": 3}


@BOTH
def test_unknown_group(impl):
    """testJoinGroupUnknownConsumerNewGroup, testHeartbeatUnknownGroup, testSyncGroupFromUnknownGroup,
    testLeaveGroupUnknownGroup, testCommitOffsetFromUnknownGroup."""
    c = make(impl)
    assert join(c, "memberId").error == "UNKNOWN_MEMBER_ID"
    assert c.heartbeat(GROUP, "memberId", 1).error == "UNKNOWN_MEMBER_ID"
    assert c.sync(GROUP, "memberId", 1).error == "UNKNOWN_MEMBER_ID"
    assert c.leave(GROUP, [("memberId", None), ("", "inst")]).response.member_errors == (
        "UNKNOWN_MEMBER_ID", "UNKNOWN_MEMBER_ID")
    assert c.commit(GROUP, "memberId", 1, {"t-0": 1}).error == "ILLEGAL_GENERATION"
    assert c.group(GROUP) is None


def test_commit_to_unknown_group_v9_is_group_id_not_found_in_java_only():
    assert make("java").commit(GROUP, "m", 1, {"t-0": 1}, api_version=9).error == "GROUP_ID_NOT_FOUND"
    assert make("java").commit(GROUP, "m", 1, {"t-0": 1}, api_version=8).error == "ILLEGAL_GENERATION"
    assert make("scala").commit(GROUP, "m", 1, {"t-0": 1}, api_version=9).error == "ILLEGAL_GENERATION"


# ------------------------------------------------------------------ join phase
@BOTH
def test_member_id_required_handshake_and_pending_expiry(impl):
    """testJoinGroupCompletionWhenPendingMemberTimesOut: a pending id that never comes back expires
    after the session timeout of its first JoinGroup."""
    c = make(impl)
    first = join(c, require_known_member_id=True, session_timeout_ms=30, at=0)
    assert first.error == "MEMBER_ID_REQUIRED" and first.response.member_id.startswith("consumer-test-")
    assert c.group(GROUP).pending_members == (first.response.member_id,)
    c.advance_time(31)
    assert c.group(GROUP).pending_members == () and c.group(GROUP).state == "Empty"
    # the id is gone: rejoining with it is UNKNOWN_MEMBER_ID (group Empty)
    assert join(c, first.response.member_id, at=32).error == "UNKNOWN_MEMBER_ID"


@BOTH
def test_initial_delay_is_extended_by_new_members_up_to_the_rebalance_timeout(impl):
    """shouldDelayRebalanceUptoRebalanceTimeout / shouldResetRebalanceDelayWhenNewMemberJoins..."""
    c = make(impl)
    a = join(c, at=0, rebalance_timeout_ms=100)
    b = join(c, at=0, rebalance_timeout_ms=100)
    c.advance_time(51)  # first delay ran out, but b arrived meanwhile: wait min(50, 50) more
    assert a.pending and b.pending
    d = join(c, at=51, rebalance_timeout_ms=100)
    c.advance_time(99)
    assert a.pending and d.pending
    c.advance_time(101)  # remaining time is used up: complete despite d being new
    assert {t.error for t in (a, b, d)} == {"NONE"}
    assert c.group(GROUP).generation == 1 and len(c.group(GROUP).members) == 3
    leader = c.group(GROUP).leader
    assert a.response.leader == leader == a.response.member_id
    assert {m[0] for m in a.response.members} == {a.response.member_id, b.response.member_id, d.response.member_id}
    assert b.response.members == () and d.response.members == ()


@BOTH
def test_new_member_join_timeout_during_protracted_rebalance(impl):
    """testNewMemberJoinExpiration: a new member parked in JoinGroup is dropped after
    new_member_join_timeout_ms when the old member never rejoins."""
    c = make(impl, new_member_join_timeout_ms=300000)
    (m1,), t = stable_group(c, 1, session_timeout_ms=305000, rebalance_timeout_ms=600000)
    newcomer = join(c, at=t, session_timeout_ms=305000, rebalance_timeout_ms=600000)
    assert newcomer.pending and c.group(GROUP).state == "PreparingRebalance"
    assert c.group(GROUP).member(newcomer.member_id).is_new
    c.advance_time(t + 300001)
    assert newcomer.error == "UNKNOWN_MEMBER_ID" and newcomer.response.member_id == ""
    snap = c.group(GROUP)
    assert snap.member_ids == (m1,) and snap.state == "PreparingRebalance"
    assert any(e.kind == "member_removed" and e.reason == "join_timeout" for e in c.drain_events())


@BOTH
def test_session_timeout_during_rebalance_completes_with_the_remaining_member(impl):
    """testSessionTimeoutDuringRebalance."""
    c = make(impl)
    (m1,), t = stable_group(c, 1, session_timeout_ms=1000, rebalance_timeout_ms=2000)
    other = join(c, at=t)
    assert c.heartbeat(GROUP, m1, 1, now_ms=t + 500).error == "REBALANCE_IN_PROGRESS"
    c.advance_time(t + 500 + 1001)
    assert c.heartbeat(GROUP, m1, 1).error == "UNKNOWN_MEMBER_ID"
    assert other.error == "NONE" and other.response.generation == 2
    assert other.response.leader == other.member_id  # leadership moved to the member that joined


@BOTH
def test_static_member_that_does_not_rejoin_stays_and_dynamic_one_is_dropped(impl):
    """testRebalanceCompletesBeforeMemberJoins / testStaticMemberFollowerFailToRejoinBeforeRebalanceTimeout."""
    c = make(impl)
    lead = join(c, instance_id="leader", at=0, session_timeout_ms=1000, rebalance_timeout_ms=1200)
    c.advance_time(51)
    static_id = lead.member_id
    c.sync(GROUP, static_id, 1, assignment={static_id: "x"}, now_ms=51)
    dyn = join(c, at=51)
    # heartbeats keep the static member alive while the rebalance waits for it
    assert c.heartbeat(GROUP, static_id, 1, now_ms=551).error == "REBALANCE_IN_PROGRESS"
    assert c.heartbeat(GROUP, static_id, 1, now_ms=1051).error == "REBALANCE_IN_PROGRESS"
    c.advance_time(51 + 1201)
    assert dyn.error == "NONE" and dyn.response.generation == 2 and dyn.response.leader == dyn.member_id
    snap = c.group(GROUP)
    assert set(snap.member_ids) == {static_id, dyn.member_id}
    assert c.heartbeat(GROUP, static_id, 1).error == "ILLEGAL_GENERATION"


@BOTH
def test_max_size_kicks_out_late_rejoiners(impl):
    """testDynamicMembersCanReJoinGroupWithMaxSizeWhileRebalancing: while rebalancing, members already
    parked count against group.max.size; a fifth member is refused with an empty member id."""
    c = make(impl)
    ids, t = stable_group(c, 4)
    extra = join(c, at=t)
    assert extra.error == "GROUP_MAX_SIZE_REACHED" and extra.response.member_id == ""
    assert len(c.group(GROUP).members) == 4


# ------------------------------------------------------------------ sync phase
@BOTH
def test_sync_timeout_removes_followers_that_never_synced(impl):
    """testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromFollowers: heartbeats do not help."""
    c = make(impl)
    pend = [join(c, require_known_member_id=True, at=0) for _ in range(3)]
    tickets = [join(c, p.response.member_id, at=0) for p in pend]
    done = settle(c, tickets, 0)
    ids = [t.member_id for t in tickets]
    leader = c.group(GROUP).leader
    assert all(c.heartbeat(GROUP, m, 1, now_ms=done + 250).error == "NONE" for m in ids)
    assert c.sync(GROUP, leader, 1, assignment={m: "" for m in ids}, now_ms=done + 250).error == "NONE"
    assert c.heartbeat(GROUP, leader, 1, now_ms=done + 499).error == "NONE"
    c.advance_time(done + 501)  # sync timer: the rebalance timeout (500) after the join completed
    assert c.heartbeat(GROUP, leader, 1).error == "REBALANCE_IN_PROGRESS"
    for m in ids:
        if m != leader:
            assert c.heartbeat(GROUP, m, 1).error == "UNKNOWN_MEMBER_ID"
    reasons = [e.reason for e in c.drain_events() if e.kind == "member_removed"]
    assert reasons == ["sync_timeout", "sync_timeout"]


@BOTH
def test_follower_sync_is_answered_rebalance_in_progress_when_the_leader_fails(impl):
    """testLeaderFailureInSyncGroup."""
    c = make(impl)
    (m1,), t = stable_group(c, 1)
    other = join(c, at=t)
    again = join(c, m1, at=t)
    assert again.response.generation == 2 and other.response.leader == m1
    c.drain_delivered()
    parked = c.sync(GROUP, other.member_id, 2, now_ms=t)
    assert parked.pending
    c.advance_time(t + 600)  # the leader's session (500) runs out: it is removed, rebalance starts
    delivered = c.drain_delivered()
    assert [(d.request_id, d.response.error) for d in delivered] == [(parked.request_id, "REBALANCE_IN_PROGRESS")]
    assert parked.response.assignment == b""


def test_sync_in_stable_refreshes_the_session_only_in_scala():
    """FORMAT-AND-RULES §7.1 (divergence-stable-sync-refreshes-session)."""
    for impl, alive in (("scala", True), ("java", False)):
        c = make(impl)
        (m1,), t = stable_group(c, 1)  # session restarted at t by the leader's sync
        assert c.sync(GROUP, m1, 1, now_ms=t + 400).error == "NONE"
        c.advance_time(t + 600)
        assert (c.group(GROUP).state == "Stable") is alive, impl


@BOTH
def test_sync_protocol_checks(impl):
    c = make(impl)
    (m1,), t = stable_group(c, 1)
    assert c.sync(GROUP, m1, 1, protocol_type="connect").error == "INCONSISTENT_GROUP_PROTOCOL"
    assert c.sync(GROUP, m1, 1, protocol_name="roundrobin").error == "INCONSISTENT_GROUP_PROTOCOL"
    ok = c.sync(GROUP, m1, 1, protocol_type="consumer", protocol_name="range").response
    assert (ok.error, ok.protocol, ok.assignment) == ("NONE", "range", f"a-{m1}")
    assert c.sync(GROUP, m1, 2).error == "ILLEGAL_GENERATION"
    assert c.sync(GROUP, "blah", 1).error == "UNKNOWN_MEMBER_ID"


# ------------------------------------------------------------------ static membership
@BOTH
def test_static_member_rejoin_fences_the_old_id(impl):
    """staticMemberFenceDuplicateRejoinedFollower."""
    c = make(impl)
    lead = join(c, instance_id="leader", at=0)
    fol = join(c, instance_id="follower", at=0)
    t = settle(c, [lead, fol], 0)
    L, F = lead.member_id, fol.member_id
    c.sync(GROUP, L, 1, assignment={L: "l", F: "f"}, now_ms=t)
    c.sync(GROUP, F, 1, now_ms=t)
    join(c, at=t + 1)  # a third member: rebalance
    old = join(c, F, instance_id="follower", at=t + 2)
    assert old.pending
    dup = join(c, instance_id="follower", at=t + 3)
    assert old.error == "FENCED_INSTANCE_ID" and old.response.generation == -1
    assert dup.pending and c.group(GROUP).static_members["follower"] == dup.member_id
    assert c.heartbeat(GROUP, F, 1, instance_id="follower").error == "FENCED_INSTANCE_ID"
    assert c.heartbeat(GROUP, F, 1).error == "UNKNOWN_MEMBER_ID"
    assert c.leave(GROUP, [(F, "follower")]).response.member_errors == ("FENCED_INSTANCE_ID",)


@BOTH
def test_static_leader_restart_in_stable_with_skip_assignment(impl):
    """staticMemberRejoinWithLeaderIdAndUnknownMemberId (JoinGroup v9+): no rebalance, the new id
    leads, gets the member list and skip_assignment=true."""
    c = make(impl)
    lead = join(c, instance_id="leader", at=0)
    fol = join(c, instance_id="follower", at=0)
    t = settle(c, [lead, fol], 0)
    L, F = lead.member_id, fol.member_id
    c.sync(GROUP, L, 1, assignment={L: "l", F: "f"}, now_ms=t)
    again = join(c, instance_id="leader", at=t + 9)
    r = again.response
    assert (r.error, r.generation, r.leader, r.skip_assignment) == ("NONE", 1, again.member_id, True)
    assert {m[0] for m in r.members} == {again.member_id, F}
    snap = c.group(GROUP)
    assert snap.state == "Stable" and snap.leader == again.member_id and snap.assignment[again.member_id] == "l"


@BOTH
def test_static_member_batch_leave_by_instance_id(impl):
    """testStaticMembersValidBatchLeaveGroup / testStaticMembersUnknownInstanceBatchLeaveGroup."""
    c = make(impl)
    lead = join(c, instance_id="leader", at=0)
    fol = join(c, instance_id="follower", at=0)
    t = settle(c, [lead, fol], 0)
    res = c.leave(GROUP, [("", "leader"), ("", "follower"), ("", "nobody")], now_ms=t + 1).response
    assert res.error == "NONE" and res.member_errors == ("NONE", "NONE", "UNKNOWN_MEMBER_ID")
    snap = c.group(GROUP)
    assert snap.state == "Empty" and snap.generation == 2 and snap.members == ()
    assert lead.response.generation == 1


# ------------------------------------------------------------------ leave, heartbeat, commit
@BOTH
def test_pending_member_leave_completes_the_join(impl):
    """testPendingMembersLeavesGroup: two joined, one pending; the pending id leaves."""
    c = make(impl)
    ids, t = stable_group(c, 2)
    pend = join(c, require_known_member_id=True, at=t)
    for m in ids:
        join(c, m, at=t)
    assert c.group(GROUP).state == "PreparingRebalance"
    res = c.leave(GROUP, [(pend.response.member_id, None)], now_ms=t).response
    assert res.member_errors == ("NONE",)
    snap = c.group(GROUP)
    assert snap.state == "CompletingRebalance" and len(snap.members) == 2 and snap.pending_members == ()


@BOTH
def test_heartbeat_and_commit_keep_the_session(impl):
    """testHeartbeatMaintainsSession / testCommitMaintainsSession / testSessionTimeout."""
    c = make(impl)
    (m1,), t = stable_group(c, 1, session_timeout_ms=1000, rebalance_timeout_ms=1000)
    assert c.heartbeat(GROUP, m1, 1, now_ms=t + 500).error == "NONE"
    assert c.commit(GROUP, m1, 1, {"topic-0": 7}, now_ms=t + 1100).error == "NONE"
    assert c.heartbeat(GROUP, m1, 1, now_ms=t + 2000).error == "NONE"
    assert c.heartbeat(GROUP, m1, 0).error == "ILLEGAL_GENERATION"
    c.advance_time(t + 3001)
    assert c.heartbeat(GROUP, m1, 1).error == "UNKNOWN_MEMBER_ID"
    snap = c.group(GROUP)
    assert snap.state == "Empty" and snap.generation == 2 and snap.offsets == {"topic-0": 7}


@BOTH
def test_simple_consumer_commits_and_fetches(impl):
    """testCommitOffsetWithDefaultGeneration / testCommitAndFetchOffsetsWithEmptyGroup /
    testManualCommitOffsetShouldNotValidateMemberIdAndInstanceId / testFetchAllOffsets."""
    c = make(impl)
    assert c.commit(GROUP, "", -1, {"t-0": 5, "t-1": 9}).error == "NONE"
    assert c.group(GROUP).state == "Empty" and c.group(GROUP).protocol_type is None
    assert c.commit(GROUP, "whoever", -1, {"t-0": 6}, instance_id="x").error == "NONE"
    assert c.fetch_offsets(GROUP).response.offsets == {"t-0": 6, "t-1": 9}
    assert c.fetch_offsets(GROUP, ["t-1", "t-2"]).response.offsets == {"t-1": 9, "t-2": -1}
    assert c.commit(GROUP, "whoever", 0, {"t-0": 1}).error == "UNKNOWN_MEMBER_ID"
    assert c.fetch_offsets("nogroup", ["t-0"]).response.offsets == {"t-0": -1}


@BOTH
def test_commit_from_member_during_preparing_rebalance_is_accepted(impl):
    c = make(impl)
    (m1,), t = stable_group(c, 1)
    join(c, at=t)  # newcomer: PreparingRebalance
    assert c.commit(GROUP, m1, 1, {"t-0": 4}, now_ms=t + 1).error == "NONE"
    assert c.commit(GROUP, "", -1, {"t-0": 4}, now_ms=t + 1).error == "UNKNOWN_MEMBER_ID"


# ------------------------------------------------------------------ Scala / Java divergences
def test_pending_expiry_during_initial_delay():
    """§7.3: Java completes the join when the last pending id expires; Scala waits for the timer."""
    results = {}
    for impl in ("scala", "java"):
        c = make(impl)
        first = join(c, require_known_member_id=True, at=0)
        join(c, require_known_member_id=True, session_timeout_ms=30, at=0)
        parked = join(c, first.response.member_id, at=0)
        c.advance_time(31)
        results[impl] = (parked.pending, c.group(GROUP).state)
    assert results == {"scala": (True, "PreparingRebalance"), "java": (False, "CompletingRebalance")}


def test_initial_delay_extension_after_empty():
    """§7.2: after the group went Empty, Java still extends the initial delay for new members."""
    states = {}
    for impl in ("scala", "java"):
        c = make(impl)
        (m1,), t = stable_group(c, 1)
        c.leave(GROUP, [m1], now_ms=t + 1)
        assert c.group(GROUP).state == "Empty" and c.group(GROUP).generation == 2
        join(c, at=t + 10)
        join(c, at=t + 40)
        c.advance_time(t + 70)  # the first initial delay ran out at t+60
        states[impl] = c.group(GROUP).state
    assert states == {"scala": "CompletingRebalance", "java": "PreparingRebalance"}


# ------------------------------------------------------------------ deletion and failover
@BOTH
def test_delete_group(impl):
    """testDeleteEmptyGroup / testDeleteNonEmptyGroup."""
    c = make(impl)
    ids, t = stable_group(c, 1)
    assert c.delete_group(GROUP) == "NON_EMPTY_GROUP"
    c.leave(GROUP, ids, now_ms=t)
    assert c.delete_group(GROUP) == "NONE" and c.group(GROUP) is None
    assert c.delete_group(GROUP) == "GROUP_ID_NOT_FOUND"
    assert c.delete_group(OTHER_GROUP) == "NOT_COORDINATOR"


@BOTH
def test_coordinator_failover_unloads_and_reloads_the_group(impl):
    c = make(impl)
    (m1, m2), t = stable_group(c, 2)
    c.commit(GROUP, m1, 1, {"t-0": 11}, now_ms=t)
    follower = m2 if c.group(GROUP).leader == m1 else m1
    rejoin = join(c, follower, at=t, protocols=(("range", b"changed"),))
    assert rejoin.pending
    assert c.resign(0, now_ms=t + 1) == [GROUP]
    assert rejoin.error == "NOT_COORDINATOR" and c.group(GROUP) is None
    assert c.heartbeat(GROUP, m1, 1).error == "NOT_COORDINATOR"
    assert c.elect(0, now_ms=t + 2) == [GROUP]
    snap = c.group(GROUP)  # the last persisted metadata: generation 1, Stable, offsets kept
    assert (snap.state, snap.generation, set(snap.member_ids)) == ("Stable", 1, {m1, m2})
    assert snap.offsets == {"t-0": 11}
    assert c.heartbeat(GROUP, m1, 1, now_ms=t + 3).error == "NONE"


@BOTH
def test_dead_group_answers_coordinator_not_available(impl):
    """testJoinGroupUnknownConsumerNewDeadGroup, testSyncDeadGroup, testHeartbeatDeadGroup,
    testOffsetCommitDeadGroup, testSingleLeaveDeadGroup / testExistingMemberJoinDeadGroup."""
    c = make(impl)
    (m1,), t = stable_group(c, 1)
    assert c.mark_dead(GROUP)
    assert join(c).error == "COORDINATOR_NOT_AVAILABLE"
    assert join(c, m1).error == "COORDINATOR_NOT_AVAILABLE"
    assert c.sync(GROUP, m1, 1).error == "COORDINATOR_NOT_AVAILABLE"
    assert c.heartbeat(GROUP, m1, 1).error == "COORDINATOR_NOT_AVAILABLE"
    assert c.commit(GROUP, m1, 1, {"t-0": 1}).error == "COORDINATOR_NOT_AVAILABLE"
    leave = c.leave(GROUP, [(m1, None)]).response
    assert (leave.error, leave.member_errors) == ("COORDINATOR_NOT_AVAILABLE", ())
    c.advance_time(t + 10_000)  # no timer of a dead group fires
    assert c.group(GROUP).state == "Dead" and c.group(GROUP).member_ids == (m1,)


SUPERSET = (("range", b"m"), ("roundrobin", b"m"))


def _two_static_members(c, session_ms=500):
    kw = dict(protocols=SUPERSET, session_timeout_ms=session_ms)
    lead, fol = join(c, instance_id="leader", at=0, **kw), join(c, instance_id="follower", at=0, **kw)
    t = settle(c, [lead, fol], 0)
    L, F = lead.member_id, fol.member_id
    assert c.sync(GROUP, L, 1, assignment={L: "aL", F: "aF"}, now_ms=t).error == "NONE"
    assert c.sync(GROUP, F, 1, now_ms=t).error == "NONE"
    return L, F, t


@BOTH
@pytest.mark.parametrize("leader_returns", [False, True])
def test_group_stuck_on_a_non_rejoined_static_member(impl, leader_returns):
    """groupStuckInRebalanceTimeoutDueToNonjoinedStaticMember and its two endings
    (testLeaderFailToRejoin... / testLeaderRejoinBeforeFinalRebalanceTimeoutWithLongSessionTimeout)."""
    c = make(impl)
    L, F, t = _two_static_members(c, session_ms=1000)
    dyn = join(c, at=t, protocols=SUPERSET, session_timeout_ms=1000)
    c.advance_time(t + 501)
    r = dyn.response
    assert (r.error, r.generation, r.leader, len(r.members)) == ("NONE", 2, dyn.member_id, 3)
    assert c.leave(GROUP, [(F, None)], now_ms=t + 501).response.member_errors == ("NONE",)
    assert c.group(GROUP).state == "PreparingRebalance"
    c.advance_time(t + 1002)  # the dynamic member did not rejoin: dropped; the static leader is kept
    snap = c.group(GROUP)
    assert (snap.member_ids, snap.generation, snap.state, snap.leader) == ((L,), 2, "PreparingRebalance", L)
    if leader_returns:
        back = join(c, instance_id="leader", at=t + 1002, protocols=SUPERSET, session_timeout_ms=1000)
        r = back.response
        assert (r.error, r.generation, r.leader, [m[1] for m in r.members]) == ("NONE", 3, back.member_id, ["leader"])
        assert c.group(GROUP).state == "CompletingRebalance"
    else:
        c.advance_time(t + 1503)  # its session runs out: the last member leaves, the generation ends Empty
        snap = c.group(GROUP)
        assert (snap.members, snap.leader, snap.generation, snap.state) == ((), None, 3, "Empty")


@BOTH
def test_static_follower_changing_the_selected_protocol_forces_a_rebalance(impl):
    """staticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWithSelectedProtocolChanged."""
    c = make(impl)
    L, F, t = _two_static_members(c, session_ms=1000)
    newf = join(c, instance_id="follower", at=t + 1, protocols=(("roundrobin", b"m"),))
    assert newf.pending and c.group(GROUP).state == "PreparingRebalance"
    c.advance_time(t + 502)
    r = newf.response
    assert (r.error, r.generation, r.protocol, r.leader) == ("NONE", 2, "roundrobin", newf.member_id)
    assert set(c.group(GROUP).static_members) == {"leader", "follower"}


@BOTH
def test_static_follower_restart_keeps_its_assignment_without_rebalance(impl):
    """staticMemberRejoinAsFollowerWithUnknownMemberId (+ updated timeouts are stored)."""
    c = make(impl)
    L, F, t = _two_static_members(c)
    newf = join(c, instance_id="follower", at=t + 1, protocols=SUPERSET, session_timeout_ms=1000,
                rebalance_timeout_ms=1000)
    r = newf.response
    assert (r.error, r.generation, r.members, r.leader, r.skip_assignment) == ("NONE", 1, (), L, False)
    assert newf.member_id != F and c.group(GROUP).state == "Stable"
    assert c.sync(GROUP, newf.member_id, 1, now_ms=t + 1).response.assignment == "aF"
    m = c.group(GROUP).member(newf.member_id)
    assert (m.session_timeout_ms, m.rebalance_timeout_ms) == (1000, 1000)


def test_events_tell_why_each_rebalance_happened():
    c = make("scala")
    a = join(c, at=0, session_timeout_ms=100, rebalance_timeout_ms=200)
    c.advance_time(60)
    A = a.member_id
    c.sync(GROUP, A, 1, assignment={A: "x"}, now_ms=60)
    b = join(c, at=70, session_timeout_ms=100, rebalance_timeout_ms=200)
    c.advance_time(1000)
    B = b.member_id
    got = [(e.at_ms, e.kind, e.member_id, e.generation, e.reason) for e in c.drain_events()]
    assert got == [
        (0, "group_created", None, 0, None),
        (0, "member_added", A, 0, None),
        (0, "rebalance_prepared", A, 0, "member_joined"),
        (50, "join_completed", A, 1, None),
        (60, "group_stable", A, 1, None),
        (70, "member_added", B, 1, None),
        (70, "rebalance_prepared", B, 1, "member_joined"),
        (160, "member_removed", A, 1, "session_timeout"),  # A stopped heartbeating after its sync at 60
        (160, "join_completed", B, 2, None),  # everyone left has rejoined: no need to wait 200 ms
        (260, "member_removed", B, 2, "session_timeout"),
        (260, "rebalance_prepared", B, 2, "session_timeout"),
        (260, "group_empty", None, 3, None),
    ]
    assert c.drain_events() == []


def test_a_clock_going_backwards_is_counted_not_obeyed():
    c = make("scala")
    (m1,), t = stable_group(c, 1)
    c.advance_time(t + 300)
    assert c.heartbeat(GROUP, m1, 1, now_ms=t + 100).error == "NONE"  # served at the current clock
    assert c.now_ms == t + 300 and c.stats["clock_backwards"] == 1
    assert c.advance_time(t) == 0 and c.stats["clock_backwards"] == 2
    # the session restarted at t+300 (the coordinator's clock), not at the stale t+100
    assert c.group(GROUP).member(m1).session_deadline_ms == t + 300 + 500


def test_config_rejects_nonsense():
    from pipeline.coordinator import CoordinatorConfig
    for bad in (dict(impl="rust"), dict(group_max_size=0), dict(group_min_session_timeout_ms=10,
                                                             group_max_session_timeout_ms=5)):
        with pytest.raises(ValueError):
            CoordinatorConfig(**bad)


def test_replayed_member_ids_are_used_unless_taken():
    c = make("scala")
    a = join(c, at=0, new_member_id="consumer-1-aaaa")
    assert a.member_id == "consumer-1-aaaa"
    b = join(c, at=0, new_member_id="consumer-1-aaaa")  # already a member: a fresh id instead
    assert b.member_id not in ("", "consumer-1-aaaa") and c.stats["new_member_id_in_use"] == 1
    assert set(c.group(GROUP).member_ids) == {"consumer-1-aaaa", b.member_id}


def test_delivery_callback_sees_the_group_at_the_moment_of_the_answer():
    from pipeline.coordinator import CoordinatorConfig, GroupCoordinator
    seen = []
    c = GroupCoordinator(CoordinatorConfig(group_min_session_timeout_ms=10, group_initial_rebalance_delay_ms=50),
                         on_delivered=lambda d: seen.append((d.op, d.at_ms, c.group(GROUP).state)),
                         queue_delivered=False)
    t = join(c, at=0)
    c.advance_time(1000)  # answered at 50; the member then times out (session 500) at 550
    assert seen == [("join", 50, "CompletingRebalance")]
    assert t.answered_at_ms == 50 and c.drain_delivered() == []
    assert c.group(GROUP).state == "Empty"
