"""The public assign() API: shapes, input errors, Kafka's exceptions, state, member order, racks."""

import pytest

from pipeline.coordinator.assignors import (
    ASSIGNORS,
    AssignorError,
    Subscription,
    assign,
    assign_detailed,
    cooperative_rounds,
    new_assignor,
)


def test_assign_returns_topic_partition_strings_in_kafka_list_order():
    subs = {"consumer1": {"topics": ["topic1", "topic2"]}, "consumer2": {"topics": ["topic1", "topic2"]}}
    assert assign("range", subs, {"topic1": 3, "topic2": 3}) == {
        "consumer1": ["topic1-0", "topic1-1", "topic2-0", "topic2-1"], "consumer2": ["topic1-2", "topic2-2"]}
    assert assign("roundrobin", subs, {"topic1": 3, "topic2": 3}) == {
        "consumer1": ["topic1-0", "topic1-2", "topic2-1"], "consumer2": ["topic1-1", "topic2-0", "topic2-2"]}


def test_every_member_gets_an_entry_even_when_empty():
    subs = {m: {"topics": ["t"]} for m in ("a", "b", "c")}
    for name in ASSIGNORS:
        out = assign(name, subs, {"t": 1})
        assert set(out) == {"a", "b", "c"}
        assert sorted(tp for tps in out.values() for tp in tps) == ["t-0"]


def test_no_members_means_no_assignment():
    for name in ASSIGNORS:
        assert assign(name, {}, {"t": 3}) == {}


def test_topic_names_with_dashes_round_trip():
    out = assign("sticky", {"m": {"topics": ["orders-eu-1"], "owned_partitions": ["orders-eu-1-2"], "generation": 3}},
                 {"orders-eu-1": 3})
    assert out == {"m": ["orders-eu-1-2", "orders-eu-1-0", "orders-eu-1-1"]}


@pytest.mark.parametrize("subs, ppt, message", [
    ({"m": {"topics": "t"}}, {"t": 1}, "topics must be a list"),
    ({"m": {"topics": ["t"], "generation": -7}}, {"t": 1}, "generation must be an int >= -1"),
    ({"m": {"topics": ["t"], "owned_partitions": ["t-x"]}}, {"t": 1}, "bad topic-partition 't-x'"),
    ({"m": "t"}, {"t": 1}, "subscription of m must be a mapping"),
    ({"m": {"topics": ["t"]}}, {"t": -1}, "bad partition count 't': -1"),
    ({"m": {"topics": ["t"]}}, [("t", 1)], "partitions_per_topic must be a mapping"),
])
def test_bad_input_is_a_clear_assignor_error(subs, ppt, message):
    with pytest.raises(AssignorError, match=message):
        assign("sticky", subs, ppt)


def test_unknown_assignor():
    with pytest.raises(AssignorError, match="unknown assignor 'fair'; known: range, roundrobin, sticky, cooperative-sticky"):
        assign("fair", {"m": {"topics": ["t"]}}, {"t": 1})


def test_kafka_exception_on_impossible_input_is_mirrored():
    # Kafka 3.8.0 throws IllegalStateException here (checked against Kafka's own code): an owned
    # partition number beyond the topic's partition count breaks getUnassignedPartitions
    subs = {"consumer1": {"topics": ["t"], "owned_partitions": ["t-0", "t-5"], "generation": 1},
            "consumer2": {"topics": ["t"], "owned_partitions": ["t-1"], "generation": 1}}
    with pytest.raises(AssignorError, match="IllegalStateException in ConstrainedAssignmentBuilder"):
        assign("sticky", subs, {"t": 3})


def test_cluster_metadata_view_drops_unsubscribed_and_empty_topics():
    subs = {"consumer1": {"topics": ["t"]}, "consumer2": {"topics": ["t"]}}
    # called like Kafka's tests call assignPartitions: the unsubscribed topic is handed out (Kafka quirk)
    direct = assign("sticky", subs, {"t": 2, "other": 2, "empty": 0})
    assert sorted(direct["consumer1"] + direct["consumer2"]) == ["other-0", "other-1", "t-0", "t-1"]
    # as a consumer leader calls it (AbstractPartitionAssignor.assign(Cluster, ...))
    leader = assign("sticky", subs, {"t": 2, "other": 2, "empty": 0}, as_cluster_metadata=True)
    assert leader == {"consumer1": ["t-0"], "consumer2": ["t-1"]}


def test_member_order_override_decides_who_keeps_max_quota():
    # AbstractStickyAssignorTest.testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers: both
    # consumer1 and consumer2 own maxQuota (2) partitions but only one may keep 2
    subs = {"consumer1": {"topics": ["topic1", "topic2"], "owned_partitions": ["topic1-0", "topic2-0"], "generation": 1},
            "consumer2": {"topics": ["topic1", "topic2"], "owned_partitions": ["topic1-1", "topic2-1"], "generation": 1},
            "consumer3": {"topics": ["topic1", "topic2"], "owned_partitions": [], "generation": 1}}
    ppt = {"topic1": 2, "topic2": 2}
    hash_order = assign_detailed("sticky", subs, ppt)  # HashMap order: consumer3, consumer2, consumer1
    assert {k: sorted(map(str, v)) for k, v in hash_order.assignment.items()} == {
        "consumer1": ["topic1-0"], "consumer2": ["topic1-1", "topic2-1"], "consumer3": ["topic2-0"]}
    assert {str(k): v for k, v in hash_order.partitions_transferring_ownership.items()} == {"topic2-0": "consumer3"}
    other = assign_detailed("sticky", subs, ppt, member_order=["consumer1", "consumer2", "consumer3"])
    assert {k: sorted(map(str, v)) for k, v in other.assignment.items()} == {
        "consumer1": ["topic1-0", "topic2-0"], "consumer2": ["topic1-1"], "consumer3": ["topic2-1"]}
    with pytest.raises(AssignorError, match="member_order must list exactly"):
        assign_detailed("sticky", subs, ppt, member_order=["consumer1"])


def test_sticky_assignor_object_keeps_max_generation_like_kafka():
    obj = new_assignor("sticky")
    assign_detailed("sticky", {"a": {"topics": ["t"], "owned_partitions": ["t-0"], "generation": 7}}, {"t": 2}, assignor=obj)
    assert obj.max_generation == 7
    assign_detailed("sticky", {"a": {"topics": ["t"], "generation": 2}}, {"t": 2}, assignor=obj)
    assert obj.max_generation == 7  # AbstractStickyAssignor.maxGeneration is never reset
    assert new_assignor("range") is None
    with pytest.raises(AssignorError, match="does not match"):
        assign_detailed("sticky", {"a": {"topics": ["t"]}}, {"t": 1}, assignor=new_assignor("cooperative-sticky"))


def test_general_algorithm_reports_null_transfer_map():
    subs = {"consumer1": {"topics": ["topic1"]}, "consumer2": {"topics": ["topic1", "topic2"]}, "consumer3": {"topics": ["topic1"]}}
    out = assign_detailed("sticky", subs, {"topic1": 3, "topic2": 2})
    assert out.algorithm == "general" and out.partitions_transferring_ownership is None
    assert {k: sorted(map(str, v)) for k, v in out.assignment.items()} == {
        "consumer1": ["topic1-0", "topic1-2"], "consumer2": ["topic2-0", "topic2-1"], "consumer3": ["topic1-1"]}


def test_cooperative_rounds_converge_after_one_followup():
    subs = {"consumer1": {"topics": ["topic"], "owned_partitions": ["topic-0", "topic-1", "topic-2"], "generation": 1},
            "consumer2": {"topics": ["topic"], "owned_partitions": [], "generation": 1}}
    rounds = cooperative_rounds(subs, {"topic": 3})
    assert [{k: sorted(map(str, v)) for k, v in o.assignment.items()} for _, o in rounds] == [
        {"consumer1": ["topic-0", "topic-1"], "consumer2": []},
        {"consumer1": ["topic-0", "topic-1"], "consumer2": ["topic-2"]},
    ]
    assert rounds[1][0]["consumer1"].generation == 1
    assert list(rounds[1][0]["consumer1"].owned_partitions) == rounds[0][1].assignment["consumer1"]


def test_rack_aware_range_prefers_same_rack_replicas():
    subs = {"consumer0": Subscription.build(["t1"], rack="a"), "consumer1": Subscription.build(["t1"], rack="b")}
    racks = {"t1": [["b"], ["a"], ["b"], ["a"]]}
    assert assign("range", subs, {"t1": 4}) == {"consumer0": ["t1-0", "t1-1"], "consumer1": ["t1-2", "t1-3"]}
    assert assign("range", subs, {"t1": 4}, partition_racks=racks) == {
        "consumer0": ["t1-1", "t1-3"], "consumer1": ["t1-0", "t1-2"]}
    with pytest.raises(AssignorError, match="partition_racks"):
        assign("range", subs, {"t1": 4}, partition_racks={"t1": "ab"})


def test_rack_aware_sticky_moves_misaligned_owned_partitions():
    # AbstractStickyAssignorTest.testRackAwareAssignmentWithUniformSubscription (replication 1,
    # racks a/b/c): owned partitions on other racks are given up for rack-aligned ones
    racks = {"t1": [["a"], ["b"], ["c"], ["a"], ["b"], ["c"]]}
    subs = {f"consumer{i}": {"topics": ["t1"], "owned_partitions": owned, "rack": "abc"[i]}
            for i, owned in enumerate([["t1-0", "t1-1"], ["t1-2", "t1-3"], ["t1-4", "t1-5"]])}
    without = assign("cooperative-sticky", subs, {"t1": 6})
    assert {m: sorted(v) for m, v in without.items()} == {
        "consumer0": ["t1-0", "t1-1"], "consumer1": ["t1-2", "t1-3"], "consumer2": ["t1-4", "t1-5"]}
    eager = assign("sticky", subs, {"t1": 6}, partition_racks=racks)
    assert {m: sorted(v) for m, v in eager.items()} == {
        "consumer0": ["t1-0", "t1-3"], "consumer1": ["t1-1", "t1-4"], "consumer2": ["t1-2", "t1-5"]}
    coop = assign("cooperative-sticky", subs, {"t1": 6}, partition_racks=racks)
    assert {m: sorted(v) for m, v in coop.items()} == {"consumer0": ["t1-0"], "consumer1": [], "consumer2": ["t1-5"]}


def test_subscriptions_map_capacity_changes_the_modelled_hash_order():
    # Kafka's verifyRackAssignment builds new HashMap<>(3): its iteration order (consumer1,
    # consumer0, consumer2) differs from a default table's (consumer2, consumer1, consumer0), which
    # changes how conflicting claims resolve. Expected values are Kafka 3.8.0's output for both maps.
    subs = {"consumer0": {"topics": ["t"], "owned_partitions": ["t-0", "t-2", "t-5"], "generation": 2},
            "consumer1": {"topics": ["t"], "owned_partitions": ["t-3", "t-2", "t-0", "t-5", "t-1", "t-4"], "generation": 1},
            "consumer2": {"topics": ["t"], "owned_partitions": ["t-0", "t-5", "t-3", "t-2", "t-4"], "generation": 1}}
    default = assign_detailed("sticky", subs, {"t": 6})
    small = assign_detailed("sticky", subs, {"t": 6}, subscriptions_map_capacity=3)
    assert {m: sorted(map(str, v)) for m, v in default.assignment.items()} == {
        "consumer0": ["t-0", "t-4"], "consumer1": ["t-1", "t-2"], "consumer2": ["t-3", "t-5"]}
    assert {str(k): v for k, v in default.partitions_transferring_ownership.items()} == {
        "t-0": "consumer0", "t-2": "consumer1", "t-3": "consumer2", "t-4": "consumer0", "t-5": "consumer2"}
    assert {m: sorted(map(str, v)) for m, v in small.assignment.items()} == {
        "consumer0": ["t-0", "t-2"], "consumer1": ["t-1", "t-3"], "consumer2": ["t-4", "t-5"]}
    assert {str(k): v for k, v in small.partitions_transferring_ownership.items()} == {
        "t-3": "consumer1", "t-4": "consumer2", "t-5": "consumer2"}
