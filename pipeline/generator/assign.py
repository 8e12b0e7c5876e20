"""Client-side assignment for the simulated group leader.

Uses the reference assignors (`pipeline.coordinator.assignors`) when they are importable and a
faithful local copy of their rules otherwise (rules as pinned by shared/conformance, Kafka 3.8
clients/src/main/java/org/apache/kafka/clients/consumer/{RangeAssignor,RoundRobinAssignor,
CooperativeStickyAssignor}.java).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sub:
    """One member's subscription as the leader sees it in the JoinGroup response."""

    member_id: str
    instance_id: str | None
    topics: tuple[str, ...]
    owned: tuple[str, ...] = ()
    generation: int = -1


def _member_order(subs: list[Sub]) -> list[Sub]:
    # AbstractPartitionAssignor.memberInfo ordering: static members by instance id first,
    # then dynamic members by member id
    static = sorted((s for s in subs if s.instance_id), key=lambda s: s.instance_id or "")
    dynamic = sorted((s for s in subs if not s.instance_id), key=lambda s: s.member_id)
    return static + dynamic


def range_assign(subs: list[Sub], partitions: dict[str, int]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {s.member_id: [] for s in subs}
    for topic in sorted(partitions):
        members = [s for s in _member_order(subs) if topic in s.topics]
        if not members:
            continue
        n, k = partitions[topic], len(members)
        start = 0
        for i, s in enumerate(members):
            cnt = n // k + (1 if i < n % k else 0)
            out[s.member_id] += [f"{topic}-{p}" for p in range(start, start + cnt)]
            start += cnt
    return out


def roundrobin_assign(subs: list[Sub], partitions: dict[str, int]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {s.member_id: [] for s in subs}
    members = _member_order(subs)
    if not members:
        return out
    i = 0
    for topic in sorted(partitions):
        for p in range(partitions[topic]):
            for _ in range(len(members)):
                s = members[i % len(members)]
                i += 1
                if topic in s.topics:
                    out[s.member_id].append(f"{topic}-{p}")
                    break
    return out


def kafkajs_roundrobin_assign(subs: list[Sub], partitions: dict[str, int]) -> dict[str, list[str]]:
    """KafkaJS's RoundRobinAssigner (src/consumer/assigners/roundRobinAssigner/index.js, 1.0-2.2.4):
    member ids sorted as strings, every partition of the subscribed topics in metadata order
    (here: topic, then partition number) dealt out in turn, without checking who subscribes to
    what (KafkaJS members of a group share one subscription)."""
    members = sorted(s.member_id for s in subs)
    out: dict[str, list[str]] = {m: [] for m in members}
    topics = sorted({t for s in subs for t in s.topics if t in partitions})
    for i, tp in enumerate(f"{t}-{p}" for t in topics for p in range(partitions[t])):
        out[members[i % len(members)]].append(tp)
    return out


def _pkey(tp: str) -> tuple[str, int]:
    t, _, p = tp.rpartition("-")
    return t, int(p)


def sticky_assign(subs: list[Sub], partitions: dict[str, int]) -> dict[str, list[str]]:
    """Constrained sticky algorithm for uniform subscriptions (AbstractStickyAssignor)."""
    members = sorted(subs, key=lambda s: s.member_id)
    if not members:
        return {}
    all_parts = sorted((f"{t}-{p}" for t in partitions if any(t in s.topics for s in subs)
                        for p in range(partitions[t])), key=_pkey)
    n, k = len(all_parts), len(members)
    lo, hi_count = n // k, n % k
    claims: dict[str, list[Sub]] = {}
    for s in members:
        for tp in s.owned:
            if tp in all_parts:
                claims.setdefault(tp, []).append(s)
    owned: dict[str, list[str]] = {s.member_id: [] for s in members}
    for tp, who in claims.items():
        best = max(w.generation for w in who)
        winners = [w for w in who if w.generation == best]
        if len(winners) == 1:
            owned[winners[0].member_id].append(tp)
    out: dict[str, list[str]] = {s.member_id: [] for s in members}
    for s in members:
        keep = sorted(owned[s.member_id], key=lambda tp: (_pkey(tp)[1], _pkey(tp)[0]))
        quota = lo + 1 if hi_count > 0 and len(keep) > lo else lo
        if quota == lo + 1:
            hi_count -= 1
        out[s.member_id] = keep[:quota]
    taken = {tp for v in out.values() for tp in v}
    rest = [tp for tp in all_parts if tp not in taken]
    i = 0
    while rest:
        s = members[i % k]
        i += 1
        cap = lo + 1 if hi_count > 0 else lo
        if len(out[s.member_id]) < cap:
            if cap == lo + 1 and len(out[s.member_id]) == lo:
                hi_count -= 1
            out[s.member_id].append(rest.pop(0))
        elif all(len(out[m.member_id]) >= (lo + 1 if hi_count > 0 else lo) for m in members):
            hi_count += 1
    return {m: sorted(v, key=_pkey) for m, v in out.items()}


def cooperative_sticky_assign(subs: list[Sub], partitions: dict[str, int]) -> dict[str, list[str]]:
    # CooperativeStickyAssignor: partitions still owned by another member are withheld this round
    raw = sticky_assign(subs, partitions)
    owner = {tp: s.member_id for s in subs for tp in s.owned}
    return {m: [tp for tp in tps if owner.get(tp, m) == m] for m, tps in raw.items()}


def _reference():  # the reference assignors, once they are on this branch
    try:
        from pipeline.coordinator.assignors import assign as ref_assign  # type: ignore[import-not-found]
    except ImportError:
        return None
    return ref_assign


LOCAL = {"range": range_assign, "roundrobin": roundrobin_assign, "sticky": sticky_assign,
         "cooperative-sticky": cooperative_sticky_assign}


def assign(name: str, subs: list[Sub], partitions: dict[str, int], local: bool = False) -> dict[str, list[str]]:
    """Assignment the consumer leader computes with assignor `name` (reference model when present)."""
    if name == "RoundRobinAssigner":  # KafkaJS's own assigner: the reference model has no twin of it
        return kafkajs_roundrobin_assign(subs, partitions)
    ref = None if local else _reference()
    if ref is None:
        return LOCAL[name](subs, partitions)
    got = ref(name, {s.member_id: {"topics": list(s.topics), "owned_partitions": list(s.owned),
                                   "generation": s.generation, "group_instance_id": s.instance_id}
                     for s in subs}, dict(partitions))
    return {m: list(p) for m, p in got.items()}
