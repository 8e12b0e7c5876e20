"""Members of generations that only the broker's log shows (no client log, no dump record).

The classic coordinator (kafka.coordinator.group.GroupCoordinator 0.11-3.x, GroupMetadataManager 3.6+)
names members in a few INFO lines: a new member ("Dynamic member with unknown member id joins ...
Created a new member id X", "Adding new member X" in a rebalance reason), the leader ("Assignment
received from leader X", 3.0+), a rejoin ("Leader X re-joining group during Stable", "Updating
metadata for member X"), a removal ("Member X in group G has failed, removing it", "has left",
"removing member X on LeaveGroup / heartbeat expiration"). "Stabilized group G generation N ...
with K members" (2.8+) states how many members N has.

Each membership is marked by how it is known:
  stated    a broker line of that generation names the member;
  carried   named in an earlier generation and not removed since (the coordinator removes a member
            only on LeaveGroup, expiry or a rejoin timeout, which the broker logs at INFO from 2.2;
            so only when the group's "Preparing to rebalance" lines carry a reason, printed from 2.2);
  extended  named first by a line that is not a join (a removal, a rejoin): it joined earlier, and
            the broker's member count of the earlier generations leaves room for it.
Carried and extended members are inferred; when the broker's count contradicts them they are
dropped and only the stated members remain, and the generation row says so.
"""

from __future__ import annotations

import bisect

from pipeline.replay_rules.collect import GroupState
from pipeline.replay_rules.settings import EffectiveSettings
from pipeline.replay_rules.state import Membership


def _formed(st: GroupState, g: int) -> int | None:
    gen = st.gens[g]
    # the join phase's end; a generation the group reached by emptying ("is now empty", or a dump's
    # record of the empty group) was never formed
    if gen.empty_ms is not None and not gen.members:
        return None
    for t in (gen.completing_ms, gen.stable_ms, gen.record_ms):
        if t is not None:
            return t
    return None


def fill(st: GroupState, cfg: EffectiveSettings) -> dict[int, str]:
    """Fill the member lists of generations no client or dump shows; returns a sentence per filled
    generation saying which members are stated by broker lines and which are inferred."""
    nums = sorted(st.gens)
    targets = {g for g in nums if not st.gens[g].members and st.gens[g].protocol_type != "consumer (KIP-848)"
               and st.gens[g].broker_member_count != 0 and st.gens[g].empty_ms is None}
    if not targets:
        return {}
    # broker lines of one coordinator share one clock: no skew tolerance among them
    formed = [(t, g) for g in nums if (t := _formed(st, g)) is not None]
    formed_ts = [t for t, _ in formed]
    stated: dict[int, dict[str, list[str]]] = {g: {} for g in nums}
    removed_after: dict[int, set[str]] = {g: set() for g in nums}
    joined_in: dict[str, int] = {}
    replaced: dict[tuple[int, str], str] = {}     # (generation, new member) -> the static member it replaced

    def state(g: int | None, member: str | None, evidence: list[str]) -> None:
        if g is not None and g in stated and member:
            stated[g].setdefault(member, []).extend(evidence)

    def gen_joining(ts: int | None) -> int | None:
        # a member joining at ts is in the first generation formed at or after it
        if ts is None:
            return None
        i = bisect.bisect_left(formed_ts, ts)
        return formed[i][1] if i < len(formed) else None

    def gen_current(ts: int | None) -> int | None:
        # a member removed at ts belonged to the last generation formed before it
        if ts is None:
            return None
        i = bisect.bisect_right(formed_ts, ts) - 1
        return formed[i][1] if i >= 0 else None

    def gen_removed(ob) -> int | None:
        # the generation current when a removal (or a static member's replacement) was logged. A line in
        # the same millisecond as a generation's "Stabilized" line but printed before it belongs to the
        # generation before: e.g. a member expiring during the join phase completes it at once
        # (GroupCoordinator.onExpireHeartbeat -> removeMemberAndUpdateGroup -> the join purgatory
        # completes, onCompleteJoin), so its "has failed" line and the next "Stabilized" share a time.
        # The broker's log was then still in generation ob.generation (the lines' own order)
        g = gen_current(ob.ts_ms)
        if g is not None and ob.generation is not None and ob.generation < g and ob.generation in removed_after \
                and _formed(st, g) == ob.ts_ms:
            return ob.generation
        return g

    # members whose join never completed (a pending member id removed before the generation formed)
    pending = {ob.member_id: ob.ts_ms for ob in st.observed("pending_removed") if ob.member_id}
    for ob in st.observed("broker_named"):
        role = ob.facts.get("role")
        if role == "joined":
            g = ob.generation if ob.generation is not None else gen_joining(ob.ts_ms)
            if ob.member_id in pending and g is not None and pending[ob.member_id] is not None \
                    and _formed(st, g) is not None and pending[ob.member_id] <= _formed(st, g):
                continue
            state(g, ob.member_id, ob.evidence)
            if g is not None and ob.member_id:
                joined_in.setdefault(ob.member_id, g)
        elif role == "rejoined" and ob.generation is not None:
            state(ob.generation - 1, ob.member_id, ob.evidence)
            state(ob.generation, ob.member_id, ob.evidence)
        elif role == "removed" and ob.generation is not None:
            state(ob.generation - 1, ob.member_id, ob.evidence)
            if ob.generation - 1 in removed_after and ob.member_id:
                removed_after[ob.generation - 1].add(ob.member_id)
        elif role == "leader":
            state(ob.generation, ob.member_id, ob.evidence)
    for ob in st.observed("static_replaced"):
        # a static member's new process took over its instance id without a rebalance: the old id
        # left the group in the generation current then; the new one (if named) carries on
        g = gen_removed(ob)
        if g is not None and ob.member_id:
            removed_after[g].add(ob.member_id)
            state(g, ob.member_id, ob.evidence)
        new = ob.facts.get("new_member")
        if g is not None and new:
            replaced[(g, new)] = ob.member_id
            state(g, new, ob.evidence)
    for ob in st.observed("removed"):
        # (a generation formed before the logs begin has no time to place it by: the broker lines'
        # own generation then, e.g. a member leaving while the rebalance its fellow's leave began runs)
        g = gen_removed(ob)
        if g is None and ob.generation in removed_after:
            g = ob.generation
        state(g, ob.member_id, ob.evidence)
        if g is not None and ob.member_id:
            removed_after[g].add(ob.member_id)

    # A member is carried over only from a broker that logs every removal at INFO: expiries ("has
    # failed, removing it", GroupCoordinator.onExpireHeartbeat) from 1.0, LeaveGroups ("has left") from
    # 2.2; 0.9-0.11 log expiries at TRACE/DEBUG. The rebalance reason in "Preparing to rebalance ...
    # (reason: ...)" (GroupCoordinator.prepareRebalance) is printed from 2.2 too: a group whose prepare
    # lines carry none is on an older broker (or its lines were cut), where a member may have gone
    # unlogged at any rebalance.
    removals_logged = any(st.gens[g].prepare_reason for g in nums)

    def founders(g: int, cur: dict[str, str]) -> int:
        # the broker's "with K members" counts the members the generation formed with: a static member's
        # new id that took over an old one mid-generation (KIP-345, no rebalance) holds the old id's slot
        return sum(1 for m in cur if (g, m) not in replaced)

    members: dict[int, dict[str, str]] = {}     # generation -> member -> stated | carried | extended
    dropped: dict[int, bool] = {}
    for g in nums:
        if g not in targets:
            members[g] = {m: "client" for m in st.gens[g].members}
            continue
        cur = {m: "stated" for m in stated[g]}
        if g - 1 in members and st.broker_gen is not None and removals_logged:
            # carried only where the broker's log is read and logs removals: without it, they are not seen
            for m in members[g - 1]:
                if m not in removed_after[g - 1] and m not in cur and joined_in.get(m, g) <= g:
                    cur[m] = "carried"
        count = st.gens[g].broker_member_count
        if count is not None and founders(g, cur) > count:
            cur = {m: k for m, k in cur.items() if k == "stated"}
            dropped[g] = True
        members[g] = cur
    # members first named by a line that is not their join were members before: fill earlier
    # generations while the broker's count shows room for them
    first_seen: dict[str, int] = {}
    for g in nums:
        for m in stated[g]:
            first_seen.setdefault(m, g)
    for m, f in sorted(first_seen.items(), key=lambda kv: kv[1]):
        if joined_in.get(m) == f:
            continue
        g = f - 1
        while g in targets and g in members and m not in members[g] and m not in removed_after[g]:
            count = st.gens[g].broker_member_count
            if count is None or founders(g, members[g]) >= count or (m in joined_in and joined_in[m] > g):
                break
            members[g][m] = "extended"
            g -= 1
    notes: dict[int, str] = {}
    for g in sorted(targets):
        gen = st.gens[g]
        cur = members.get(g, {})
        if not cur:
            continue
        for m, how in sorted(cur.items()):
            mem = gen.members.get(m) or Membership(g, m)
            gen.members[m] = mem
            mem.evidence.extend(stated[g].get(m, []))
            mem.joined_ms = gen.completing_ms      # every member gets its JoinGroup response then
            if gen.leader == m and gen.stable_ms is not None:
                mem.synced_ms = gen.stable_ms
            mem.inferred = how
            if (g, m) in replaced:
                mem.replaced = replaced[(g, m)]     # joined mid-generation: a membership, not a founder
        named = sorted(m for m, how in cur.items() if how == "stated" and (g, m) not in replaced)
        carried = sorted(m for m, how in cur.items() if how == "carried")
        extended = sorted(m for m, how in cur.items() if how == "extended")
        text = f"Members from the broker's log only: {len(named)} named by lines of this generation"
        if carried:
            text += (f"; inferred: {', '.join(carried)} (named in an earlier generation, no removal logged "
                     "since)")
        if extended:
            text += (f"; inferred: {', '.join(extended)} (first named later by a line that is not a join, so "
                     "already a member; the broker's member count leaves room)")
        count = gen.broker_member_count
        nxt = st.gens.get(g + 1)
        emptied_after = nxt is not None and not nxt.members and (nxt.empty_ms is not None or nxt.broker_member_count == 0)
        took_over = sorted((m, replaced[(g, m)]) for m in cur if (g, m) in replaced)
        if took_over:
            text += "; " + ", ".join(f"{new} took over from {old}" for new, old in took_over) + (
                " during the generation (a static member's restart, no rebalance)")
        n = founders(g, cur)
        if count is None and emptied_after and set(cur) <= removed_after[g]:
            # the group emptied when these members were removed: nobody else was in it
            count = gen.broker_member_count = n
        if count is not None:
            text += f"; the broker counts {count} member(s)"
            if count > n:
                text += f", so {count - n} member(s) are not named in the logs"
        else:
            text += ("; the broker does not print how many members the generation has (before 2.8), so there "
                     "may be members it never names")
        if dropped.get(g):
            text += "; members named in earlier generations are left out, the broker's count rules them out"
        notes[g] = text + "."
    return notes
