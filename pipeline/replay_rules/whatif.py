"""What-if: the same members' observed behaviour (their silences, stalls, joins and leaves) under
other settings. Which expulsions and rebalances would not have happened, which would have been added.

The timeout rules are Kafka's:
  * session expiry: the coordinator removes a member when no heartbeat arrives within
    session.timeout.ms of the previous one (GroupCoordinator.onExpireHeartbeat / Java
    GroupMetadataManager session timer, all versions);
  * poll timeout: the client's heartbeat thread leaves the group when poll() was not called within
    max.poll.interval.ms (AbstractCoordinator.HeartbeatThread, 0.10.1+, KIP-62);
  * eager assignors revoke every partition at each rebalance (ConsumerCoordinator.onJoinPrepare);
    cooperative-sticky (2.4+, KIP-429) revokes only the partitions that move, then rebalances once
    more to hand them over.
A rebalance is avoided when its trigger is avoided, together with the rejoin of the same process
that the expulsion caused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipeline.replay_rules.collect import GroupState
from pipeline.replay_rules.generations import GenView
from pipeline.replay_rules.settings import EffectiveSettings


@dataclass
class WhatIf:
    group_id: str | None
    changed: dict[str, tuple[Any, Any]]                  # setting -> (observed, what-if)
    rebalances_observed: int
    rebalances_avoided: list[dict] = field(default_factory=list)
    rebalances_added: list[dict] = field(default_factory=list)
    expulsions_avoided: list[dict] = field(default_factory=list)
    expulsions_added: list[dict] = field(default_factory=list)
    poll_timeouts_avoided: list[dict] = field(default_factory=list)
    undetermined: list[dict] = field(default_factory=list)
    assignor: dict | None = None
    model: dict | None = None                            # the reference coordinator's replay, when run
    # settings the user gave that equal a value in force which is only assumed (a version default,
    # not printed in the logs): setting -> (value, where the assumption comes from)
    assumed_equal: dict[str, tuple[Any, str]] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}

    @property
    def rebalances_after(self) -> int:
        return self.rebalances_observed - len(self.rebalances_avoided) + len(self.rebalances_added)


def _stream_of(st: GroupState, member: str | None) -> tuple[str | None, str | None]:
    lf = st.lives.get(member or "")
    return (lf.source, lf.client_id) if lf else (None, None)


def analyse(views: list[GenView], st: GroupState, old: EffectiveSettings, new: EffectiveSettings) -> WhatIf:
    changed = {k: (getattr(old, k), getattr(new, k))
               for k in ("session_timeout_ms", "max_poll_interval_ms", "heartbeat_interval_ms", "assignor",
                         "rebalance_timeout_ms")
               if getattr(old, k) != getattr(new, k)}
    gens = [_row(v) for v in views if v.started_ms is not None and not (v.gen.empty_ms is not None and not v.gen.members)]
    w = WhatIf(st.group_id, changed, len(gens))
    for k in ("session_timeout_ms", "max_poll_interval_ms", "heartbeat_interval_ms", "assignor"):
        if getattr(old, k) == getattr(new, k) and new.origin.get(k) == "set" and old.is_default(k):
            w.assumed_equal[k] = (getattr(old, k), old.origin.get(k, ""))
    avoided_triggers: list[tuple[str | None, tuple[str | None, str | None], int]] = []

    for g in gens:
        cause, member = g["cause"], g["trigger_member"]
        facts = g["facts"]
        if cause in ("session_expiry",) or (cause == "coordinator_failover" and facts.get("silence_ms") is not None):
            if not facts.get("came_back"):
                if facts.get("silence_ms") is None and facts.get("last_line_ms") is None:
                    w.undetermined.append({"generation": g["generation"], "member": member, "cause": cause,
                                           "why": "the member's silence is not in the logs (missing its client log)"})
                continue   # the process never logged again (a crash): expelled under any session timeout
            lo = facts.get("silence_total_ms") or facts.get("silence_total_min_ms")
            hi = facts.get("silence_total_ms") or facts.get("silence_total_max_ms")
            if lo is None or hi is None:
                continue
            if hi >= new.session_timeout_ms:
                if lo < new.session_timeout_ms:
                    w.undetermined.append({"generation": g["generation"], "member": member, "cause": cause,
                                           "why": f"its silence lasted between {lo} and {hi} ms (heartbeats are not "
                                                  "logged); the new timeout falls inside that range"})
                continue
            # the whole silence (at most `hi`) stays under the new timeout: no expiry
            w.expulsions_avoided.append({"generation": g["generation"], "member": member, "silence_ms": hi,
                                         "session_timeout_ms": [old.session_timeout_ms, new.session_timeout_ms]})
            w.rebalances_avoided.append({"generation": g["generation"], "cause": cause, "member": member,
                                         "why": f"a {hi} ms silence stays under session.timeout.ms = "
                                                f"{new.session_timeout_ms}"})
            avoided_triggers.append((member, _stream_of(st, member), g["started_ms"]))
        elif cause == "poll_timeout":
            stall = _stall(st, member, g, old)
            limit = new.max_poll_interval_ms
            if stall is None or limit is None:
                if limit is None or (old.max_poll_interval_ms is not None and limit <= old.max_poll_interval_ms):
                    continue   # it fires again (earlier or at the same point)
                w.undetermined.append({"generation": g["generation"], "member": member, "cause": cause,
                                       "why": "the end of the poll stall is not in the logs"})
                continue
            if stall < limit:
                w.poll_timeouts_avoided.append({"generation": g["generation"], "member": member, "stall_ms": stall,
                                                "max_poll_interval_ms": [old.max_poll_interval_ms, limit]})
                w.rebalances_avoided.append({"generation": g["generation"], "cause": cause, "member": member,
                                             "why": f"a {stall} ms poll stall stays under max.poll.interval.ms = "
                                                    f"{limit}"})
                avoided_triggers.append((member, _stream_of(st, member), g["started_ms"]))

    # the expelled process came back as a new member: that rebalance goes too
    done = {a["generation"] for a in w.rebalances_avoided}
    for member, stream, at in avoided_triggers:
        if stream == (None, None):
            continue
        for g in gens:
            if g["generation"] in done or g["started_ms"] < at or g["cause"] not in ("member_joined",
                                                                                     "static_member_restart"):
                continue
            if _stream_of(st, g["trigger_member"]) == stream:
                w.rebalances_avoided.append({"generation": g["generation"], "cause": g["cause"],
                                             "member": g["trigger_member"],
                                             "why": f"the rejoin of {member}'s process, which would not have been "
                                                    "expelled"})
                done.add(g["generation"])
                break

    # shorter timeouts: silences that were tolerated would now expel
    if new.session_timeout_ms < old.session_timeout_ms:
        expelled = {a.get("member") for a in w.expulsions_avoided}
        for mid, lf in sorted(st.lives.items()):
            for start, end, sev, eev in lf.hb_gaps:
                gap = end - start
                if new.session_timeout_ms <= gap < old.session_timeout_ms and mid not in expelled:
                    w.expulsions_added.append({"member": mid, "silence_ms": gap, "at_ms": start + new.session_timeout_ms,
                                               "evidence": [e for e in (sev, eev) if e]})
                    w.rebalances_added.append({"member": mid, "at_ms": start + new.session_timeout_ms,
                                               "why": f"a {gap} ms heartbeat silence exceeds session.timeout.ms = "
                                                      f"{new.session_timeout_ms}"})
    if new.assignor != old.assignor:
        w.assignor = _assignor_model(gens, old.assignor, new.assignor) or _assignor_effect(gens, old.assignor,
                                                                                           new.assignor)
        unseen = [g["generation"] for g in gens if g["unseen"]]
        if unseen and ("model" in w.assignor or "partitions_moved" in w.assignor):
            # counted from the assignments the logs show: members whose assignment no line shows (or
            # that no line names) are left out, so the figures are a partial count, said so
            w.assignor["estimated"] = True
            w.assignor["generations_with_unseen_assignments"] = unseen
            w.assignor["note"] += (f" (estimated: in {len(unseen)} of the {len(gens)} generations the logs do not "
                                   "show every member's assignment; those members' partitions are not counted, and "
                                   "the partition counts come from the partitions seen)")
        w.rebalances_added.extend(w.assignor.pop("extra_rebalances"))
    return w


def _row(v: GenView) -> dict:
    return {"generation": v.gen.generation, "cause": v.cause.cause, "trigger_member": v.cause.trigger_member,
            "facts": v.cause.facts, "started_ms": v.started_ms, "stabilized_ms": v.stabilized_ms,
            "members": sorted(v.gen.members),
            # only the assignments the logs show ("unseen": members without one, or members no line names)
            "assignment": {m: list(mem.assigned) for m, mem in v.gen.members.items() if mem.assigned is not None},
            "unseen": v.unnamed_holders or any(mem.assigned is None for mem in v.gen.members.values())}


def _stall(st: GroupState, member: str | None, g: dict, old: EffectiveSettings) -> int | None:
    """How long the poll loop stalled: from the last poll (the timeout fired max.poll.interval.ms after it)
    to the poll loop's next sign of life."""
    for ob in st.observed("poll_timeout"):
        if ob.member_id == member and ob.ts_ms is not None and abs(ob.ts_ms - g["started_ms"]) <= 60_000:
            resumed = ob.facts.get("resumed_ms")
            if resumed is None or old.max_poll_interval_ms is None:
                return None
            return resumed - (ob.ts_ms - old.max_poll_interval_ms)
    return None


def _assignor_effect(gens: list[dict], old: str, new: str) -> dict:
    """Partitions revoked and handed over under each protocol, from the observed assignments."""
    eager_old = not old.startswith("cooperative")
    eager_new = not new.startswith("cooperative")
    kept = moved = 0
    follow_ups: list[dict] = []
    prev: dict[str, list[str]] | None = None
    for g in gens:
        cur = {m: tps for m, tps in g["assignment"].items() if tps}
        if prev is not None and cur:
            owner_before = {tp: m for m, tps in prev.items() for tp in tps}
            changed_here = 0
            for m, tps in cur.items():
                for tp in tps:
                    if owner_before.get(tp) == m:
                        kept += 1
                    elif tp in owner_before:
                        moved += 1
                        if owner_before[tp] in cur:
                            changed_here += 1    # its owner stays and must revoke it first
            if changed_here and eager_old and not eager_new:
                follow_ups.append({"after_generation": g["generation"], "at_ms": g["stabilized_ms"],
                                   "why": f"cooperative hand-over of {changed_here} moved partition(s)"})
        if cur:
            prev = cur
    effect = {"from": old, "to": new, "partitions_kept_across_rebalances": kept, "partitions_moved": moved}
    if eager_old and not eager_new:
        effect["revocations_avoided"] = kept
        effect["note"] = (f"under {new} the {kept} partition(s) that kept their owner would have been processed "
                          "without pause through each rebalance; each rebalance that moves partitions needs a "
                          "second, short rebalance")
        effect["extra_rebalances"] = follow_ups
    elif not eager_old and eager_new:
        effect["revocations_added"] = kept
        effect["note"] = (f"under {new} every rebalance revokes everything: {kept} partition(s) that kept their "
                          "owner would have stopped during each rebalance")
        effect["extra_rebalances"] = []
    else:
        effect["note"] = f"{old} and {new} are both {'eager' if eager_old else 'cooperative'}; revocations do not change"
        effect["extra_rebalances"] = []
    return effect


def _assignor_model(gens: list[dict], old: str, new: str) -> dict | None:
    """Re-run every observed rebalance through Kafka's assignors (pipeline.coordinator.assignors,
    Kafka 3.8.0 RangeAssignor / RoundRobinAssignor / StickyAssignor / CooperativeStickyAssignor) with
    the new strategy: same members, same topics, each member owning what the new strategy gave it in
    the generation before. Counts partitions revoked under each protocol and the follow-up
    rebalances cooperative needs. None when the model is unavailable or the history has no assignments."""
    try:
        from pipeline.coordinator.assignors import AssignorError, assign, cooperative_rounds
    except ImportError:
        return None
    counts: dict[str, int] = {}
    for g in gens:
        for tps in g["assignment"].values():
            for tp in tps:
                topic, _, p = tp.rpartition("-")
                if topic and p.isdigit():
                    counts[topic] = max(counts.get(topic, 0), int(p) + 1)
    if not counts:
        return None
    topics = sorted(counts)
    eager_old = not old.startswith("cooperative")
    eager_new = not new.startswith("cooperative")
    sticky = new in ("sticky", "cooperative-sticky")
    revoked_old = revoked_new = moved_new = 0
    follow_ups: list[dict] = []
    prev_obs: dict[str, list[str]] | None = None
    prev_new: dict[str, list[str]] | None = None
    prev_gen = -1
    for g in gens:
        members = g["members"] if g["assignment"] else []
        if not members:
            continue
        subs = {m: {"topics": topics,
                    "owned_partitions": list((prev_new or {}).get(m, [])) if sticky else [],
                    "generation": prev_gen if prev_new and m in prev_new else -1} for m in members}
        try:
            if new == "cooperative-sticky":
                rounds = cooperative_rounds(subs, counts)
                result = {m: [str(tp) for tp in tps] for m, tps in rounds[0][1].assignment.items()}
                # what the members hold once the follow-up rebalances have handed revoked partitions over
                final = {m: [str(tp) for tp in tps] for m, tps in rounds[-1][1].assignment.items()}
            else:
                result = final = assign(new, subs, counts)
        except (AssignorError, ValueError, KeyError) as exc:
            return {"from": old, "to": new, "note": f"the assignor model refused the history ({exc})",
                    "extra_rebalances": []}
        if prev_obs is not None:
            # observed protocol: eager members revoke everything they held; cooperative only what moved
            cur_obs = g["assignment"]
            for m, tps in prev_obs.items():
                # eager: a member that stays revokes all it held, whatever it gets next; cooperative:
                # what it lost, known only when its new assignment is
                if eager_old and m in g["members"]:
                    revoked_old += len(tps)
                elif not eager_old and m in cur_obs:
                    revoked_old += len(set(tps) - set(cur_obs[m]))
            for m, tps in (prev_new or {}).items():
                if m in result:
                    lost = set(tps) - set(result[m])
                    revoked_new += len(tps) if eager_new else len(lost)
                    moved_new += len(lost)
                    if lost and not eager_new:
                        follow_ups.append({"after_generation": g["generation"], "at_ms": g["stabilized_ms"],
                                           "why": f"cooperative hand-over of {len(lost)} partition(s) revoked "
                                                  f"from {m}"})
        prev_obs, prev_new, prev_gen = g["assignment"], final, g["generation"]
    # one follow-up rebalance per generation, however many members gave something up
    seen: set = set()
    follow_ups = [f for f in follow_ups if not (f["after_generation"] in seen or seen.add(f["after_generation"]))]
    return {"from": old, "to": new, "model": "Kafka 3.8.0 assignors (pipeline.coordinator.assignors)",
            "partitions_revoked_observed": revoked_old, "partitions_revoked_what_if": revoked_new,
            "partitions_moved_what_if": moved_new,
            "note": (f"re-running the {len(gens)} rebalances through {new}: {revoked_new} partition revocation(s) "
                     f"instead of {revoked_old} under {old}"
                     + (f", and {len(follow_ups)} follow-up rebalance(s) to hand moved partitions over" if follow_ups
                        else "")),
            "extra_rebalances": follow_ups}
