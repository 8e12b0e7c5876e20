"""Generations whose logged assignments cannot be all of it: some member held partitions that no
logged member did (its log is not in the input).

Every assignor Kafka ships assigns every partition of a subscribed topic
(`AbstractPartitionAssignor.assign` over `partitionsPerTopic` for RangeAssignor,
RoundRobinAssignor and the eager StickyAssignor, 0.9+; CooperativeStickyAssignor, KIP-429, 2.4+,
leaves a partition unassigned for one generation only while another member revokes it), and a
topic never loses partitions. Two rules follow:

- **eager (or a protocol the logs do not name), several members named**: when the members seen in a
  generation hold only some of the partitions of a topic that earlier generations showed, or leave
  a partition number out below the highest they hold, another member held the rest. (Cooperative
  generations are not judged by this rule: a partition in transit between two named members is
  held by neither.)
- **one member named, any classic protocol**: a member alone in its group gets every partition of
  its topics. So when the only member a generation names lacks a partition of a topic it holds
  part of (a number below the highest, or one any generation of the logs shows), the
  group had other members, whose logs are not in the input: a member revoking it (cooperative)
  or holding it. This is what one consumer's log of a bigger group looks like, e.g. a range
  member holding `t-4, t-5` only. A lone member given nothing at all while the logs show
  partitions of the group's topics (a new member's first cooperative round) had company too.

A broker's "with N members" count settles the question on its own and is not needed here.
"""

from __future__ import annotations

from pipeline.replay_rules.state import Gen

EAGER = frozenset({"range", "roundrobin", "sticky"})


def _by_topic(partitions: list[str]) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for tp in partitions:
        topic, _, num = tp.rpartition("-")
        if topic and num.isdigit():
            out.setdefault(topic, set()).add(int(num))
    return out


def _misses(held: dict[str, set[int]], seen: dict[str, set[int]]) -> bool:
    """Whether the held partitions leave out one of a topic they hold part of: one seen before, or
    a number below the highest (seen or held)."""
    for topic, parts in held.items():
        known = seen.get(topic, set())
        top = max(max(parts), max(known, default=-1))
        if len(parts) < top + 1 or known - parts:
            return True
    return False


def hidden_holders(gens: list[Gen]) -> set[int]:
    """The generations (numbers) of `gens` in which a member that no line names held partitions
    (the module's two rules)."""
    seen: dict[str, set[int]] = {}
    out: set[int] = set()
    # partitions the logs show at any time (a lone member that lacks one of them is not proven alone:
    # only a topic's growth, rare, would excuse it, and the cost of that mistake is an "unknown")
    everywhere = _by_topic([tp for gen in gens for m in gen.members.values() if m.assigned for tp in m.assigned])
    any_partitions = bool(everywhere)
    for gen in sorted(gens, key=lambda g: g.generation):
        named = [m for m in gen.members.values() if m.replaced is None]
        mine = _by_topic([tp for m in named if m.assigned for tp in m.assigned])
        # (a named member whose assignment no line shows may hold what is missing: not judged)
        if gen.broker_member_count is None and named and all(m.assigned is not None for m in named):
            protocol = (gen.protocol or "").lower()
            if mine and len(named) == 1 and _misses(mine, everywhere):
                out.add(gen.generation)
            elif mine and (protocol in EAGER or not protocol) and _misses(mine, seen):
                # (a protocol no line names, e.g. 0.10 clients outside their startup config: judged as
                # eager, which can only make a gap unproven, never state one)
                out.add(gen.generation)
            elif len(named) == 1 and not mine and any_partitions:
                # alone, it would have been given every partition; given none (a new member's first
                # cooperative round, KIP-429), the others held them all
                out.add(gen.generation)
        for topic, parts in mine.items():
            seen.setdefault(topic, set()).update(parts)
    return out
