"""Generations whose logged assignments cannot be all of it: some member held partitions that no
logged member did (its log is not in the input).

Under an eager assignor every partition of a subscribed topic is assigned in every generation
(RangeAssignor, RoundRobinAssignor and the eager StickyAssignor assign all of
`partitionsPerTopic`, clients/consumer/internals/AbstractPartitionAssignor.java, 0.9+), and a topic
never loses partitions. So when the members seen in a generation hold only some of the
partitions of a topic that earlier generations showed, another member held the rest. The
cooperative protocol leaves partitions in transit unassigned for one generation
(CooperativeStickyAssignor, KIP-429, 2.4+), and an unknown protocol may be cooperative: neither is
judged. A broker's "with N members" count settles the question on its own and is not needed here.
"""

from __future__ import annotations

from pipeline.replay_rules.state import Gen

EAGER = frozenset({"range", "roundrobin", "sticky"})


def _by_topic(partitions: list[str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for tp in partitions:
        topic, _, _ = tp.rpartition("-")
        out.setdefault(topic, set()).add(tp)
    return out


def hidden_holders(gens: list[Gen]) -> set[int]:
    """The generations (numbers) of `gens` in which a member that no line names held partitions:
    an eager generation whose logged assignments leave out partitions of a topic they hold part
    of, partitions that earlier generations showed."""
    seen: dict[str, set[str]] = {}
    out: set[int] = set()
    for gen in sorted(gens, key=lambda g: g.generation):
        held = [tp for m in gen.members.values() if m.assigned for tp in m.assigned]
        mine = _by_topic(held)
        if (gen.protocol or "").lower() in EAGER and gen.broker_member_count is None:
            if any(seen.get(topic, set()) - parts for topic, parts in mine.items()):
                out.add(gen.generation)
        for topic, parts in mine.items():
            seen.setdefault(topic, set()).update(parts)
    return out
