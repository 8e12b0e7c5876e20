"""Java map orders behind the consumer protocol's preferred server assignor and member specs.

Every expected order here was obtained by running the TimelineHashMap classes of apache/kafka trunk
1eb7644349cb (server-common `org.apache.kafka.timeline`) and OpenJDK 17's `java.util.HashMap` on the same
operations (facts; no Java code is kept here)."""

from __future__ import annotations

from pipeline.coordinator.assignors.javaorder import java_string_hash
from pipeline.coordinator.consumer_protocol.javamaps import (
    JavaHashMapCopy,
    TimelineHashMapOrder,
    timeline_slot,
)


def _timeline(ops):
    t = TimelineHashMapOrder()
    for op in ops.split():
        t.compute(op[1:], 1 if op[0] == "+" else -1)
    return t


def _preferred(timeline_ops, old, new):
    t = _timeline(timeline_ops)
    c = JavaHashMapCopy(list(t), t.counts)
    if old:
        c.compute(old, -1)
    if new:
        c.compute(new, +1)
    return list(c), c.max_by_value()


def test_timeline_slot_is_fibonacci_hashing_of_the_top_bits():
    # "range".hashCode() = 108280125, "uniform".hashCode() = -286926412
    assert java_string_hash("range") == 108280125 and java_string_hash("uniform") == -286926412
    assert timeline_slot(108280125, 2) == 1 and timeline_slot(-286926412, 2) == 0
    assert timeline_slot(108280125, 4) == 2 and timeline_slot(-286926412, 4) == 0


def test_preferred_assignor_ties_follow_kafkas_maps():
    # TimelineHashMap {range, uniform} walks uniform, range; the member's own name is decremented and re-added
    assert _preferred("+range +uniform", "range", "range") == (["range", "uniform"], "range")
    assert _preferred("+range +uniform", "uniform", "uniform") == (["uniform", "range"], "uniform")
    # a new key is prepended to the bucket range and uniform share
    assert _preferred("+uniform", None, "range") == (["range", "uniform"], "range")
    assert _preferred("+range", None, "uniform") == (["uniform", "range"], "uniform")
    assert _preferred("+range +uniform", None, None) == (["uniform", "range"], "uniform")
    assert _preferred("+uniform +range", None, None) == (["uniform", "range"], "uniform")


def test_timeline_rehashes_before_every_put_even_a_replacement():
    # +x2 leaves 5 entries in 4 slots; the next put (bb 4 -> 3, a replacement) doubles the table first
    t = _timeline("+range +uniform +range +bb +bb +uniform +a +range +bb +range +bb +uniform +x2")
    assert list(t) == ["bb", "uniform", "range", "x2", "a"]
    t.compute("bb", -1)
    assert list(t) == ["uniform", "bb", "range", "x2", "a"]
    t.compute("a", -1)
    assert list(t) == ["uniform", "bb", "range", "x2"]


def test_shrunk_topic_in_a_heterogeneous_group_is_an_unknown_server_error_not_a_crash():
    """UniformHeterogeneousAssignmentBuilder.maybeRevokePartitions indexes an int[numPartitions] by the current
    target's partitions: a target beyond a (shrunk) topic throws an unchecked exception, which the runtime answers
    with UNKNOWN_SERVER_ERROR; the model refuses the heartbeat the same way and writes nothing."""
    from pipeline.coordinator.consumer_protocol import ConsumerCoordinator, ConsumerCoordinatorConfig

    c = ConsumerCoordinator(ConsumerCoordinatorConfig(assignors=("uniform",)),
                            topics={"foo": ("foo-id", 4), "bar": ("bar-id", 1)})
    assert c.heartbeat("g", "a", 0, rebalance_timeout_ms=5000, subscribed_topic_names=["foo"], topic_partitions={},
                       now_ms=0).assignment == {"foo-id": frozenset({0, 1, 2, 3})}
    c.update_metadata({"foo": ("foo-id", 2)}, now_ms=1)
    before = (c.groups["g"].group_epoch, dict(c.groups["g"].target_assignment))
    r = c.heartbeat("g", "b", 0, rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                    topic_partitions={}, now_ms=2)
    assert r.error == "UNKNOWN_SERVER_ERROR" and c.last_records == []
    assert (c.groups["g"].group_epoch, dict(c.groups["g"].target_assignment)) == before
