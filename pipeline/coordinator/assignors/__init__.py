"""Kafka's client-side partition assignors (Kafka 3.8.0), as a pure, deterministic model.

``assign("range" | "roundrobin" | "sticky" | "cooperative-sticky", subscriptions, partitions_per_topic)``
returns ``{member: ["topic-p", ...]}`` exactly as the Kafka 3.8.0 assignor would (tie-breaking and,
where Kafka depends on it, java.util.HashMap iteration order included). See docs/assignors.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .model import AssignorError, Subscription, TopicPartition, parse_tp
from .range import assign_range
from .roundrobin import assign_roundrobin
from .sticky import AbstractStickyAssignor, CooperativeStickyAssignor, StickyAssignor

ASSIGNORS = ("range", "roundrobin", "sticky", "cooperative-sticky")

# ConsumerCoordinator rebuilds subscriptions with generation = the last generation it saw; the
# follow-up rounds of CooperativeStickyAssignorTest.verifyValidityAndBalance use generationId 1.
FOLLOWUP_GENERATION = 1
MAX_FOLLOWUP_REBALANCES = 4  # CooperativeStickyAssignorTest asserts rebalances <= 4

__all__ = [
    "ASSIGNORS", "AssignOutcome", "AssignorError", "Subscription", "TopicPartition", "assign",
    "assign_detailed", "cooperative_rounds", "new_assignor", "parse_tp", "to_subscriptions",
]


def to_subscriptions(subscriptions: Mapping[str, object]) -> dict[str, Subscription]:
    """Accept ``Subscription`` objects or dicts in the conformance shape
    (``topics``, ``owned_partitions``, ``generation``, ``group_instance_id``, optional ``rack``)."""
    if not isinstance(subscriptions, Mapping):
        raise AssignorError("subscriptions must be a mapping {member: subscription}")
    out: dict[str, Subscription] = {}
    for member, sub in subscriptions.items():
        if not isinstance(member, str):
            raise AssignorError(f"member ids must be strings, got {member!r}")
        if isinstance(sub, Subscription):
            out[member] = sub
        elif isinstance(sub, Mapping):
            if "topics" not in sub:
                raise AssignorError(f"subscription of {member} has no 'topics'")
            out[member] = Subscription.build(
                sub["topics"], sub.get("owned_partitions") or (), sub.get("generation"),
                sub.get("group_instance_id"), sub.get("rack"))
        else:
            raise AssignorError(f"subscription of {member} must be a mapping, got {type(sub).__name__}")
    return out


def _check_ppt(partitions_per_topic: Mapping[str, int]) -> dict[str, int]:
    if not isinstance(partitions_per_topic, Mapping):
        raise AssignorError("partitions_per_topic must be a mapping {topic: partition count}")
    out = {}
    for topic, n in partitions_per_topic.items():
        if not isinstance(topic, str) or isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise AssignorError(f"bad partition count {topic!r}: {n!r} (expected a non-negative int)")
        out[topic] = n
    return out


def _check_racks(partition_racks) -> dict[str, list[frozenset[str]]]:
    if partition_racks is None:
        return {}
    if not isinstance(partition_racks, Mapping):
        raise AssignorError("partition_racks must be a mapping {topic: [[racks of partition 0], ...]}")
    out = {}
    for topic, lst in partition_racks.items():
        if not isinstance(lst, Sequence) or isinstance(lst, str) or not all(
                isinstance(r, Sequence) and not isinstance(r, str) for r in lst):
            raise AssignorError(f"partition_racks[{topic!r}] must be a list of rack lists, one per partition")
        out[topic] = [frozenset(r for r in racks if r) for racks in lst]
    return out


def new_assignor(name: str) -> AbstractStickyAssignor | None:
    """A fresh sticky assignor object (it carries maxGeneration across calls, as in Kafka), or None
    for the stateless range/roundrobin assignors."""
    if name == "sticky":
        return StickyAssignor()
    if name == "cooperative-sticky":
        return CooperativeStickyAssignor()
    if name in ("range", "roundrobin"):
        return None
    raise AssignorError(f"unknown assignor {name!r}; known: {', '.join(ASSIGNORS)}")


@dataclass
class AssignOutcome:
    assignment: dict[str, list[TopicPartition]]
    # AbstractStickyAssignor.partitionsTransferringOwnership after the call: {} or a map for the
    # constrained algorithm, None when the general algorithm ran; None for range/roundrobin.
    partitions_transferring_ownership: dict[TopicPartition, str] | None = None
    algorithm: str = ""  # "constrained" / "general" for the sticky assignors
    extra: dict = field(default_factory=dict)


def cluster_metadata_view(partitions_per_topic: Mapping[str, int], subscriptions: Mapping[str, Subscription]) -> dict[str, int]:
    """AbstractPartitionAssignor.assign(Cluster, ...): only subscribed topics with partitions."""
    subscribed = {t for s in subscriptions.values() for t in s.topics}
    return {t: n for t, n in partitions_per_topic.items() if t in subscribed and n > 0}


def assign_detailed(name: str, subscriptions: Mapping[str, object], partitions_per_topic: Mapping[str, int], *,
                    assignor: AbstractStickyAssignor | None = None, member_order: Sequence[str] | None = None,
                    partition_racks: Mapping[str, Sequence[Sequence[str]]] | None = None,
                    as_cluster_metadata: bool = False, prefer_rack_aware_logic: bool = False,
                    subscriptions_map_capacity: int | None = None) -> AssignOutcome:
    """One assignor call. ``partitions_per_topic`` is given to the assignor as is (as Kafka's tests
    call assignPartitions) unless ``as_cluster_metadata`` filters it the way a consumer's leader does.
    ``member_order`` overrides the modelled HashMap order of the member ids (sticky assignors);
    ``subscriptions_map_capacity`` models a subscriptions map built as ``new HashMap<>(n)``.
    ``partition_racks`` ({topic: [[replica racks of partition 0], ...]}) with ``rack`` in the
    subscriptions enables rack-aware assignment (range and the sticky assignors);
    ``prefer_rack_aware_logic`` is Kafka's test-only switch AbstractPartitionAssignor.preferRackAwareLogic."""
    subs = to_subscriptions(subscriptions)
    ppt = _check_ppt(partitions_per_topic)
    if as_cluster_metadata:
        ppt = cluster_metadata_view(ppt, subs)
    if name == "range":
        racks = _check_racks(partition_racks)
        return AssignOutcome(assign_range(ppt, subs, racks, prefer_rack_aware_logic))
    if name == "roundrobin":
        return AssignOutcome(assign_roundrobin(ppt, subs))
    obj = assignor if assignor is not None else new_assignor(name)
    if obj is None or obj.name != name:
        raise AssignorError(f"assignor object {obj!r} does not match {name!r}")
    result = obj.assign(ppt, subs, member_order, _check_racks(partition_racks),  # type: ignore[attr-defined]
                        prefer_rack_aware_logic, subscriptions_map_capacity)
    transferring = obj.partitions_transferring_ownership
    return AssignOutcome(result, None if transferring is None else dict(transferring),
                         "general" if transferring is None else "constrained")


def assign(assignor_name: str, subscriptions: Mapping[str, object], partitions_per_topic: Mapping[str, int],
           **kwargs) -> dict[str, list[str]]:
    """``{member: ["topic-p", ...]}`` in the order Kafka's assignor lists them."""
    out = assign_detailed(assignor_name, subscriptions, partitions_per_topic, **kwargs)
    return {m: [str(tp) for tp in tps] for m, tps in out.assignment.items()}


def cooperative_rounds(subscriptions: Mapping[str, object], partitions_per_topic: Mapping[str, int], *,
                       member_order: Sequence[str] | None = None,
                       max_followups: int = MAX_FOLLOWUP_REBALANCES,
                       partition_racks: Mapping[str, Sequence[Sequence[str]]] | None = None,
                       prefer_rack_aware_logic: bool = False, subscriptions_map_capacity: int | None = None,
                       strict: bool = True):
    """The first cooperative-sticky assignment and its follow-up rebalances, as in
    CooperativeStickyAssignorTest.verifyValidityAndBalance (Kafka 3.8.0): while any owned partition
    was revoked, every member re-joins owning its last assignment with generation 1, and the same
    assignor object (same maxGeneration) assigns again.

    Returns ``[(subscriptions, AssignOutcome), ...]``; after ``max_followups`` follow-ups still
    revoking it raises AssignorError, or with ``strict=False`` returns the rounds so far (a group
    whose rounds never settle, see docs/assignors.md, Verification).
    """
    from .properties import revoked_partitions

    subs = to_subscriptions(subscriptions)
    obj = CooperativeStickyAssignor()
    rounds = []

    def one_round(round_subs: Mapping[str, Subscription]) -> AssignOutcome:
        return assign_detailed("cooperative-sticky", round_subs, partitions_per_topic, assignor=obj,
                               member_order=member_order, partition_racks=partition_racks,
                               prefer_rack_aware_logic=prefer_rack_aware_logic,
                               subscriptions_map_capacity=subscriptions_map_capacity)

    outcome = one_round(subs)
    rounds.append((subs, outcome))
    followups = 0
    while revoked_partitions(outcome.assignment, subs):
        followups += 1
        if followups > max_followups:
            if not strict:
                break
            raise AssignorError(f"cooperative-sticky still revoking after {max_followups} follow-up rebalances")
        subs = {m: Subscription(s.topics, tuple(outcome.assignment.get(m, ())), FOLLOWUP_GENERATION,
                                s.group_instance_id, s.rack) for m, s in subs.items()}
        outcome = one_round(subs)
        rounds.append((subs, outcome))
    return rounds
