"""Generations and memberships from the collected state: when each rebalance began and ended, who
was in it, and why it happened (the trigger, with its evidence).

The broker's own reason wins (GroupCoordinator.prepareRebalance prints it, 2.x+); without broker
logs the cause is inferred from what the members did between generation g-1 and g, in protocol
order, picking the earliest trigger (ties broken by how directly each kind of evidence shows it).
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field

from pipeline.replay_rules import broker_members
from pipeline.replay_rules.assignment_cover import hidden_holders
from pipeline.replay_rules.collect import GroupState
from pipeline.replay_rules.reasons import (
    CAUSES,
    classify_client_reason,
    classify_prepare_reason,
    client_reason_of,
    delivered_late,
    poll_leaver,
)
from pipeline.replay_rules.settings import EffectiveSettings
from pipeline.replay_rules.state import Gen, Membership


# tie-break: the more direct the evidence, the earlier in this list
def _removed_by_broker(st: GroupState, member_id: str) -> bool:
    """The broker already removed this member (expiry, LeaveGroup): a static member coming back after
    that is a new member to the coordinator (GroupCoordinator.doStaticNewMemberJoinGroup 2.3+ only
    replaces a member id the group still holds; otherwise it logs "Adding new member")."""
    life = st.lives.get(member_id)
    return life is not None and life.removed_ms is not None and life.removed_reason != "fenced"


_PRIORITY = ("poll_timeout", "member_left", "session_expiry", "static_member_restart", "member_joined",
             "metadata_or_subscription_change", "enforced_rebalance", "cooperative_follow_up", "leader_rejoin",
             "sync_timeout", "assignment_store_failed", "coordinator_failover", "rebalance_timeout", "unknown")
_RANK = {c: i for i, c in enumerate(_PRIORITY)}
assert set(_PRIORITY) == set(CAUSES)


@dataclass
class Cause:
    cause: str
    detail: str
    trigger_member: str | None = None
    evidence: list[str] = field(default_factory=list)
    at_ms: int | None = None            # when the trigger happened (may precede the first rejoin)
    inferred: bool = False
    facts: dict = field(default_factory=dict)


@dataclass
class GenView:
    """A finished generation: the row plus what later rules need."""

    gen: Gen
    started_ms: int | None
    stabilized_ms: int | None
    ended_ms: int | None
    end_kind: str
    cause: Cause
    inferred: bool
    # members the logs do not name held partitions (assignment_cover.hidden_holders)
    unnamed_holders: bool = False
    # the start is a line's time: the broker's "Preparing to rebalance", or the trigger's own line;
    # otherwise only the first sign of the rebalance in the logs (or an estimate), and how long the
    # rebalance took is not in the logs (its row's rebalance_ms is null, the detail gives the bound)
    start_known: bool = True


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _who(m: str | None, st: GroupState) -> str:
    if m is None:
        return "an unidentified member"
    lf = st.lives.get(m)
    cid = lf.client_id if lf else None
    return f"member {m}" + (f" (client {cid})" if cid else "")


def _fmt_ms(ms: int | None) -> str:
    if ms is None:
        return "?"
    return f"{ms / 1000:.1f} s" if ms < 120_000 else f"{ms / 60000:.1f} min"


def _silence(st: GroupState, member: str | None, until: int | None, cfg: EffectiveSettings) -> tuple[int | None, str | None, int | None]:
    """(silence in ms, evidence of the last sign of life, its time) of a member before `until`: its
    last heartbeat if heartbeats are logged, else its last line of any kind (the clock-skew
    tolerance allows a line of its host to look slightly later than the broker's expiry)."""
    if member is None or until is None:
        return None, None, None
    lf = st.lives.get(member)
    if lf is None:
        return None, None, None
    last = lf.last_before(until + cfg.skew_tolerance_ms)
    if last is None:
        return None, None, None
    return max(0, until - last.ts_ms), last.evidence, last.ts_ms


def _expiry_facts(st: GroupState, member: str | None, at_ms: int | None, cfg: EffectiveSettings) -> dict:
    """How long an expired member was silent. With heartbeats in its log the silence is measured;
    without, it lies between session.timeout.ms (GroupCoordinator.onExpireHeartbeat fires that long
    after the last heartbeat) and the time since its last line. `silence_total` runs on to the
    member's next sign of life (None: it never came back, e.g. a crash)."""
    out: dict = {"session_timeout_ms": cfg.session_timeout_ms, "silence_ms": None, "last_seen_ms": None,
                 "came_back": False, "silence_total_ms": None}
    lf = st.lives.get(member or "")
    if lf is None or at_ms is None:
        return out
    horizon = at_ms + cfg.skew_tolerance_ms
    back = lf.next_after(horizon)
    out["came_back"] = back is not None
    i = bisect.bisect_right(lf.hb_events, horizon, key=_ts)
    if i:
        hb = lf.hb_events[i - 1]
        out.update(silence_ms=max(0, at_ms - hb.ts_ms), last_seen_ms=hb.ts_ms, _last_ev=hb.evidence)
        if back is not None:
            out["silence_total_ms"] = back - hb.ts_ms
        return out
    i = bisect.bisect_right(lf.events, horizon, key=_ts)
    if i:
        line = lf.events[i - 1]
        start_latest = at_ms - cfg.session_timeout_ms
        out.update(last_line_ms=line.ts_ms, silence_max_ms=max(cfg.session_timeout_ms, at_ms - line.ts_ms),
                   last_seen_ms=max(line.ts_ms, start_latest), _last_ev=line.evidence)
        if back is not None:
            out["silence_total_min_ms"] = back - start_latest
            out["silence_total_max_ms"] = back - min(line.ts_ms, start_latest)
    return out


def _complete(gen: Gen) -> bool:
    """Whether the logs name every member of `gen`: its leader's assignment map lists them, or the
    broker's count equals the members named."""
    named = [m for m in gen.members.values() if m.replaced is None]
    return bool(named) and (gen.broker_member_count == len(named) or gen.assignment_map_seen)


def _first_told(gen: Gen) -> int | None:
    """When a member was first told REBALANCE_IN_PROGRESS for the rebalance into `gen` (a rejoin
    is no such sign: a new member's join or a member's own rejoin may start the rebalance)."""
    return min((t for t, _ in gen.rebalance_in_progress), default=None)


def _ts(ev) -> int:
    return ev.ts_ms


def fmt_range(lo_ms: int, hi_ms: int) -> str:
    """'between 10.0 s and 1.4 min', or 'about 10.0 s' when both ends print the same."""
    a, b = _fmt_ms(min(lo_ms, hi_ms)), _fmt_ms(max(lo_ms, hi_ms))
    return f"about {a}" if a == b else f"between {a} and {b}"


def _expiry_time_source(st: GroupState, member: str | None, gen: Gen, at_ms: int | None,
                        cfg: EffectiveSettings) -> str:
    """Which line gives an expiry its time: the broker's removal line (GroupCoordinator
    onExpireHeartbeat, "has failed, removing it" / "removing member X on heartbeat expiration"), the
    broker's "Preparing to rebalance" line it triggered, or nothing (estimated)."""
    lf = st.lives.get(member or "")
    if at_ms is None:
        return "unknown"
    if lf is not None and lf.removed_ms is not None and abs(lf.removed_ms - at_ms) <= cfg.skew_tolerance_ms \
            and lf.removed_ev:
        return "broker_removal_line"
    if gen.prepare_ms is not None and gen.prepare_ms == at_ms:
        return "broker_rebalance_line"
    return "estimated"


def _broker_cause(gen: Gen, prev: Gen | None, st: GroupState, cfg: EffectiveSettings) -> Cause | None:
    reason = gen.prepare_reason
    if reason is None:
        # 0.9 - 2.x brokers print no reason: a removal logged just before the prepare line is it
        for ob in st.observed("removed"):
            if ob.ts_ms is not None and ob.ts_ms is not None and gen.prepare_ms is not None \
                    and 0 <= gen.prepare_ms - ob.ts_ms <= cfg.skew_tolerance_ms:
                why = ob.facts["why"]
                cause = {"session_expiry": "session_expiry", "poll_timeout": "poll_timeout"}.get(why, "member_left")
                return _describe(cause, ob.member_id, gen, prev, st, cfg, [gen.prepare_ev, *ob.evidence], ob.ts_ms)
        return None
    cause, member, instance = classify_prepare_reason(reason)
    evidence = [gen.prepare_ev] if gen.prepare_ev else []
    if cause == "member_joined" and instance and prev is not None:
        # a restart while its old member is still in the group; a static member that comes back
        # after it was expired or left is a new member to the broker ("Adding new member")
        if any((m.instance_id or st.instance_of.get(m.member_id)) == instance and m.member_id != member
               and m.left_ms is None and not _removed_by_broker(st, m.member_id) for m in prev.members.values()):
            cause = "static_member_restart"
    if cause == "unknown":
        return Cause("unknown", f"the broker gave a reason this tool does not recognise: {reason!r}",
                     None, evidence, gen.prepare_ms, facts={"broker_reason": reason})
    client = client_reason_of(reason)
    if cause == "member_left" and client in (None, "not provided") and prev is not None and member in prev.members \
            and prev.members[member].leave_reason == "poll_timeout":
        # the LeaveGroup carried no reason (before KIP-800, or librdkafka: LeaveGroup v0-v1) and the
        # member's own log says its poll interval expired (Java's heartbeat thread, librdkafka's MAXPOLL)
        cause = "poll_timeout"
    c = _describe(cause, member, gen, prev, st, cfg, evidence, gen.prepare_ms)
    if client and client != "not provided":
        c.detail += f" The client said: {client!r}."
    return c


def _describe(cause: str, member: str | None, gen: Gen, prev: Gen | None, st: GroupState,
              cfg: EffectiveSettings, evidence: list[str], at_ms: int | None, inferred: bool = False) -> Cause:
    who = _who(member, st)
    facts: dict = {}
    detail = CAUSES[cause][0].upper() + CAUSES[cause][1:] + ": " + who + "."
    ev = [e for e in evidence if e]
    if cause == "session_expiry":
        facts.update(_expiry_facts(st, member, at_ms, cfg))
        facts["expiry_time"] = _expiry_time_source(st, member, gen, at_ms, cfg)
        last_ev = facts.pop("_last_ev", None)
        if facts.get("silence_ms") is not None:
            detail = (f"The coordinator expired {who}: it was silent for {_fmt_ms(facts['silence_ms'])} "
                      f"({cfg.says('session_timeout_ms')}) before it was removed.")
            ev.append(last_ev)
        elif facts.get("last_line_ms") is not None:
            at = at_ms if at_ms is not None else facts["last_line_ms"]   # set only with a time
            since_line = at - facts["last_line_ms"]
            lf = st.lives.get(member or "")
            last = lf.last_before(at + cfg.skew_tolerance_ms) if lf is not None else None
            what = ("last sign of life (a __consumer_offsets commit of a partition only it held)"
                    if last is not None and last.side != "client" else "last line")
            detail = (f"The coordinator expired {who} after {cfg.says('session_timeout_ms')} "
                      "without a heartbeat. Its log does not show heartbeats (they are logged at DEBUG); its "
                      f"{what} before the expiry came {_fmt_ms(since_line)} earlier, so its heartbeats stopped "
                      + (f"{fmt_range(cfg.session_timeout_ms, since_line)} before it was removed."
                         if since_line >= cfg.session_timeout_ms - cfg.skew_tolerance_ms else
                         f"{_fmt_ms(cfg.session_timeout_ms)} before it was removed (the coordinator removes a member "
                         "exactly session.timeout.ms after its last heartbeat), while it still logged: its "
                         "heartbeats stopped before its other activity did."))
            ev.append(last_ev)
        else:
            detail = (f"The coordinator expired {who} after {cfg.says('session_timeout_ms')} "
                      f"without a heartbeat; its own log does not show when it went silent (missing evidence: "
                      f"that member's client log).")
    elif cause in ("member_left", "poll_timeout") and prev is not None and member in prev.members:
        mem = prev.members[member]
        if mem.leave_ev:
            ev.append(mem.leave_ev)
        if cause == "poll_timeout":
            detail = (f"{who[0].upper() + who[1:]} did not call poll() within "
                      f"{cfg.says('max_poll_interval_ms')}, so {poll_leaver(mem.client_library)} the group.")
        elif mem.leave_reason:
            detail = f"{who[0].upper() + who[1:]} left the group ({mem.leave_reason})."
    elif cause == "member_joined" and member and member in gen.members:
        mem = gen.members[member]
        if mem.join_start_ev:
            ev.append(mem.join_start_ev)
    return Cause(cause, detail, member, _uniq(ev), at_ms, inferred, facts)


def _uniq(items: list[str | None]) -> list[str]:
    seen: dict[str, None] = {}
    for x in items:
        if x and x not in seen:
            seen[x] = None
    return list(seen)


_BROKER_REASON = "broker GroupCoordinator log (its 'Preparing to rebalance' line names the reason)"


def _broker_reason(gen: Gen, st: GroupState) -> str:
    """What would name the trigger: the broker's log; where its "Preparing to rebalance" line is here
    without a reason, a newer broker (GroupCoordinator.prepareRebalance prints the reason from 2.2;
    0.9-2.1 print none, and a line may be cut); where broker lines of the group are here but none of
    this rebalance, the log of the broker that coordinated the group then (a coordinator moves)."""
    if gen.prepare_ev is not None and not gen.prepare_reason:
        return ("the rebalance's reason, which the broker's 'Preparing to rebalance' line prints from Kafka 2.2 "
                "(this broker's line has none)")
    if gen.prepare_ev is None and st.broker_gen is not None:
        return ("the GroupCoordinator log of the broker that coordinated the group then (its 'Preparing to "
                "rebalance' line names the reason; the broker logs here do not show this rebalance)")
    return _BROKER_REASON


def _client_cause(gen: Gen, prev: Gen | None, st: GroupState, cfg: EffectiveSettings) -> Cause:
    """No broker reason: infer the trigger from the members of g-1 and g."""
    cands: list[tuple[int, int, Cause]] = []
    leader_rejoin: tuple[int, Cause] | None = None

    def add(ts: int | None, cause: Cause) -> None:
        if ts is not None:
            cands.append((ts, _RANK[cause.cause], cause))

    prev_members = prev.members if prev is not None else {}
    # a generation seen only by the broker may have no member list; one the group reached by emptying
    # (broker "is now empty", an empty group record) has none because everybody left
    emptied = not gen.members and (gen.empty_ms is not None or gen.broker_member_count == 0)
    if prev is not None and (gen.members or emptied):
        for mid, mem in prev_members.items():
            if mid in gen.members or mem.leave_reason == "static_replaced":
                continue
            lf = st.lives.get(mid)
            why = mem.leave_reason
            if why == "poll_timeout":
                add(mem.left_ms, _describe("poll_timeout", mid, gen, prev, st, cfg, [mem.leave_ev], mem.left_ms, True))
            elif why in ("shutdown", "left", "unsubscribed"):
                add(mem.left_ms, _describe("member_left", mid, gen, prev, st, cfg, [mem.leave_ev], mem.left_ms, True))
            elif lf is not None and lf.removed_reason == "session_expiry":
                add(lf.removed_ms, _describe("session_expiry", mid, gen, prev, st, cfg, [lf.removed_ev], lf.removed_ms, True))
            elif lf is not None and lf.removed_reason == "fenced":
                add(lf.removed_ms, _describe("static_member_restart", mid, gen, prev, st, cfg, [lf.removed_ev],
                                             lf.removed_ms, True))
            elif lf is not None and (lf.last_hb_ms is not None or lf.last_ms is not None):
                # GroupCoordinator.onExpireHeartbeat (0.9+; Java GroupMetadataManager 3.7+): the member
                # is removed session.timeout.ms after its last heartbeat
                last = lf.last_hb_ms if lf.last_hb_ms is not None else lf.last_ms
                formed = next((t for t in (gen.completing_ms, gen.stable_ms, gen.record_ms) if t is not None), None)
                if formed is not None and last > formed:
                    # it was out of the group when this generation formed without it: what it logged
                    # after (a paused process waking up, its commits refused) is not the silence the
                    # coordinator timed
                    before = lf.last_before(formed)
                    if before is not None and before.ts_ms is not None:
                        last = before.ts_ms
                if gen.prepare_ms is not None and last <= gen.prepare_ms + cfg.skew_tolerance_ms:
                    # brokers that print no removal line (0.9-1.x, and any broker with the reason cut)
                    # still print "Preparing to rebalance": in Stable an expiry starts the rebalance at
                    # once (GroupCoordinator.onExpireHeartbeat -> maybePrepareRebalance), so that
                    # broker line is the expiry's time
                    at, timed = gen.prepare_ms, "broker_rebalance_line"
                else:
                    at, timed = last + cfg.session_timeout_ms, "estimated"
                told = _first_told(gen)
                late = (timed == "estimated" and told is not None
                        and at < told - cfg.heartbeat_interval_ms - cfg.skew_tolerance_ms)
                if late:
                    # nobody was told of a rebalance until much later: the member lived on after its
                    # log's last line (an excerpt that ends early). An expiry starts the rebalance at
                    # once, and live members hear of it at their next heartbeat (REBALANCE_IN_PROGRESS,
                    # AbstractCoordinator.HeartbeatResponseHandler): at most heartbeat.interval.ms before
                    at = told - cfg.heartbeat_interval_ms
                # the rebalance's first line from a member that stayed (its rejoin: in an eager group a
                # member rejoins when told, at its next poll()): the expiry came before it
                rejoins = [m.join_start_ms for k, m in gen.members.items() if k in prev_members
                           and m.join_start_ms is not None]
                first_line = min([*rejoins, *([told] if told is not None else [])], default=None)
                window = (timed == "estimated" and not late and first_line is not None
                          and at < first_line - cfg.heartbeat_interval_ms - cfg.skew_tolerance_ms)
                c = _describe("session_expiry", mid, gen, prev, st, cfg, [gen.prepare_ev] if timed != "estimated" else [],
                              at, True)
                c.facts["expiry_time"] = timed
                if window:
                    # a survivor rejoined long after the earliest the expiry can have been: the member
                    # may have gone on (heartbeating, logging nothing of Kafka) until shortly before
                    c.facts.update(expiry_time="estimated_window", silence_ms=None, log_ends_ms=last,
                                   latest_ms=first_line)
                    c.detail = (f"The coordinator expired {_who(mid, st)} after {cfg.says('session_timeout_ms')} "
                                f"without a heartbeat. No line times the expiry: its log's last line came "
                                f"{_fmt_ms(cfg.session_timeout_ms)} before the earliest it can have been, and a member "
                                f"that stayed rejoined {_fmt_ms(first_line - at)} after that earliest time (a member "
                                "rejoins when told of the rebalance), which the expiry precedes; when its "
                                "heartbeats stopped is not in the logs (its process may have gone on without logging "
                                "Kafka lines).")
                if late:
                    # its log's silence is not its heartbeats' (they may have gone on after the log ends)
                    c.facts.update(expiry_time="estimated_from_rebalance", silence_ms=None, log_ends_ms=last)
                    c.detail = (f"The coordinator expired {_who(mid, st)} after {cfg.says('session_timeout_ms')} "
                                f"without a heartbeat; its log ends {_fmt_ms(at - last)} before that, so when its "
                                "heartbeats stopped is not in the logs (its log may end before the member "
                                "stopped, e.g. an excerpt).")
                c.detail += (" Inferred: no broker line names the removal; the member's last sign of life is "
                             "followed by silence and it is absent from the next generation; "
                             + ("the time is that of the broker's 'Preparing to rebalance' line, which an expiry "
                                "starts at once." if timed != "estimated" else
                                "the time is estimated as one heartbeat.interval.ms before the first member was "
                                "told of the rebalance (REBALANCE_IN_PROGRESS)." if late else
                                "the time given is the earliest it can have been (its last sign of life + "
                                "session.timeout.ms), not when it happened." if window else
                                "the time is estimated as its last sign of life + session.timeout.ms."))
                add(at, c)
            else:
                c = Cause("unknown", f"{_who(mid, st)} of generation {prev.generation} is absent from generation "
                          f"{gen.generation} and no log line says why (missing evidence: its client log and the "
                          "broker's GroupCoordinator log).", mid, list(mem.evidence[:3]), None, True,
                          {"missing": ["client log of " + mid, "broker GroupCoordinator log"]})
                cands.append((1 << 62, _RANK["unknown"], c))
    for mid, mem in gen.members.items():
        start = mem.join_start_ms if mem.join_start_ms is not None else mem.joined_ms
        ev = [mem.join_start_ev or (mem.evidence[0] if mem.evidence else None)]
        if start is None and prev is not None and mid not in prev_members and _complete(prev):
            # a member named only by another's lines (the leader's "Finished assignment" map), absent
            # from the complete member list before: it joined, before anyone was told of the rebalance
            start = _first_told(gen)
        # (a generation before whose members no line names, and which did not empty, says nothing
        # of who is new: its members' lines may lie before the logs begin)
        prev_named = bool(prev_members) or (prev is not None and (prev.empty_ms is not None
                                                                 or prev.broker_member_count == 0))
        if prev is not None and prev_named and mid not in prev_members:
            inst = mem.instance_id or st.instance_of.get(mid)
            if inst and any((m.instance_id or st.instance_of.get(m.member_id)) == inst and m.left_ms is None
                            and not _removed_by_broker(st, m.member_id) for m in prev_members.values()):
                add(start, _describe("static_member_restart", mid, gen, prev, st, cfg, ev, start, True))
            else:
                add(start, _describe("member_joined", mid, gen, prev, st, cfg, ev, start, True))
            continue
        why = classify_client_reason(mem.join_reason)
        if why in ("metadata_or_subscription_change", "enforced_rebalance", "cooperative_follow_up"):
            c = _describe(why, mid, gen, prev, st, cfg, ev, start, True)
            c.detail += f" Its rejoin reason: {mem.join_reason!r}."
            add(start, c)
        elif prev is None and why == "member_joined":
            add(start, _describe("member_joined", mid, gen, prev, st, cfg, ev, start, True))
        elif prev is not None and prev.leader == mid and why is None and mem.join_start_ms is not None and not any(
                ts <= mem.join_start_ms for ts, _ in gen.rebalance_in_progress):
            # (a member told REBALANCE_IN_PROGRESS before the leader rejoined: the rebalance was
            # under way already, started by someone else)
            leader_rejoin = (start, _describe("leader_rejoin", mid, gen, prev, st, cfg, ev, start, True))
    for ob in st.observed("subscription_changed"):
        if prev is not None and ob.generation == prev.generation:
            add(ob.ts_ms, _describe("metadata_or_subscription_change", ob.member_id, gen, prev, st, cfg,
                                    ob.evidence, ob.ts_ms, True))
    # members whose (re)join no line times (named by the leader's map only: their logs are not here),
    # and whether members may be missing altogether (no leader's map, no broker count)
    untimed = sorted(m.member_id for m in gen.members.values() if (m.join_start_ms or m.joined_ms) is None
                     and (prev is None or m.member_id not in prev.members))
    # members whose rejoin no line of their own times (a cooperative follow-up is rejoined by each member
    # that revoked: one of them may have been first)
    unheard = sorted(m.member_id for m in gen.members.values() if m.join_start_ms is None)
    unnamed = not _complete(gen)
    if prev is None and gen.generation <= 1 and gen.members:
        # every timed join is a candidate: the earliest wins unless others are within the skew tolerance
        for m in gen.members.values():
            if (m.join_start_ms or m.joined_ms) is not None:
                add(m.join_start_ms or m.joined_ms,
                    _describe("member_joined", m.member_id, gen, prev, st, cfg,
                              [m.join_start_ev or (m.evidence[0] if m.evidence else None)],
                              m.join_start_ms or m.joined_ms, True))
    if not cands and gen.prepare_ms is None:
        # no "Preparing to rebalance" line, but the broker logged a removal just before this
        # generation formed: in Stable a removal starts the rebalance at once
        # (GroupCoordinator.removeMemberAndUpdateGroup -> maybePrepareRebalance)
        formed = gen.completing_ms if gen.completing_ms is not None else gen.stable_ms
        if formed is not None:
            for ob in st.observed("removed"):
                if ob.ts_ms is not None and formed - cfg.rebalance_timeout_ms <= ob.ts_ms <= formed:
                    why = ob.facts["why"]
                    cause = {"session_expiry": "session_expiry", "poll_timeout": "poll_timeout"}.get(why, "member_left")
                    add(ob.ts_ms, _describe(cause, ob.member_id, gen, prev, st, cfg, ob.evidence, ob.ts_ms, True))
    if not cands and leader_rejoin is not None:
        # weakest evidence: a reason-less rejoin of the leader (clients before 3.0 print no reason),
        # used only when nobody joined, left or changed
        add(*leader_rejoin)
    if not cands and prev is None and gen.generation == 1:
        # a classic group starts empty at generation 0 (GroupMetadata, 0.9+): only joins form its first
        # generation, even when no line times them or names its members (a broker log alone)
        if not gen.members:
            return Cause("member_joined", "Members joined the new group (generation 1 is a group's first). No line "
                         "names them, so who joined first is not in the logs.", None,
                         _uniq([gen.prepare_ev, *gen.evidence[:3]])[:6], None, True, {"trigger_candidates": []})
        return Cause("member_joined", "Members joined the new group (generation 1 is a group's first). No line "
                     "times their joins, so which member was first is not in the logs.", None,
                     _uniq(list(gen.evidence[:3]))[:6], None, True, {"trigger_candidates": sorted(gen.members)})
    if not cands:
        missing = [_broker_reason(gen, st)]
        told = _first_told(gen)
        if prev is None:
            earlier = [n for n in st.gens if n < gen.generation]
            missing.append(f"any log of generation {gen.generation - 1} "
                           + (f"(the logs go from generation {max(earlier)} to {gen.generation})" if earlier
                              else "(the logs begin inside this history)"))
        elif told is not None:
            # the members whose logs are here were told of it (REBALANCE_IN_PROGRESS, "group is
            # already rebalancing"): someone else started it
            missing.append("the logs of the member that started it (the members in the logs were told the group "
                           "was already rebalancing)")
        else:
            missing.append("a rejoin reason in the clients' logs (printed from Kafka 3.0)")
        detail = (f"Nothing in the logs shows why generation {gen.generation} was formed; missing evidence: "
                  + "; ".join(missing) + ".")
        ev = [*gen.evidence[:3], *(m.evidence[0] for m in gen.members.values() if m.evidence)]
        return Cause("unknown", detail, None, _uniq(ev)[:6], None, True, {"missing": missing})
    # the earliest trigger; candidates from other hosts within the clock-skew tolerance of it cannot be
    # ordered by time, so the more direct kind of evidence wins among them
    cands.sort(key=lambda c: (c[0], c[1]))
    first = cands[0][0]
    close = [c for c in cands if c[0] - first <= cfg.skew_tolerance_ms]
    best = min(close, key=lambda c: (c[1], c[0]))
    gone = _uniq([c[2].trigger_member for c in cands if c[2].cause != "member_joined"])
    if best[2].cause == "member_joined" and best[2].trigger_member in untimed and gone:
        # the join is known from the leader's map only, dated by the first member told: it may have
        # come during a rebalance the departure started, or started it
        new = [m for m in untimed if m in gen.members]
        missing = [_broker_reason(gen, st), "the logs of " + ", ".join([*new, *gone][:4])]
        detail = (f"Generation {gen.generation} has new member(s) the leader's assignment map names but no line "
                  f"times ({', '.join(new[:3])}) and lost {', '.join(gone[:3])}: whether a join or the "
                  "departure started this rebalance is not in the logs; missing evidence: " + "; ".join(missing) + ".")
        ev = _uniq([e for c in cands for e in c[2].evidence])[:6]
        return Cause("unknown", detail, None, ev, None, True, {"missing": missing, "trigger_candidates": new + gone})
    # (absent from a member list the logs may not complete, a member is not shown gone)
    silent = _uniq([c[2].trigger_member for c in cands if c[0] >= 1 << 62]) if _complete(gen) or emptied else []
    if silent and best[0] < 1 << 62:
        # members of the generation before are gone without a line (their logs are not here): their
        # departure may have come first, and for a reason the logs do not give
        missing = [_broker_reason(gen, st), "the logs of " + ", ".join(silent[:4])]
        phrase = CAUSES[best[2].cause]
        detail = (f"{phrase[0].upper() + phrase[1:]}: {_who(best[2].trigger_member, st)}; but "
                  f"{', '.join(silent[:3])}{', ...' if len(silent) > 3 else ''} of generation "
                  f"{prev.generation if prev else '?'} left too, and no line says when or why: which change "
                  "started this rebalance is not in the logs; missing evidence: " + "; ".join(missing) + ".")
        ev = _uniq([e for c in cands for e in c[2].evidence])[:6]
        return Cause("unknown", detail, None, ev, None, True,
                     {"missing": missing, "trigger_candidates": [best[2].trigger_member, *silent]})
    # a join (another new member whose log is missing may have joined first), or a reason every member
    # may give (a cooperative follow-up: each member that revoked rejoins): a member whose join no line
    # times, or one the logs do not name, may have been first
    if best[2].cause in _SHARED_REASONS:
        return _unordered(best, close, unheard, unnamed, st, cfg, "member(s) of this generation, whose logs are "
                          "not here")
    joined = best[2].cause == "member_joined"
    return _unordered(best, close, untimed if joined else [], unnamed and joined, st, cfg)


# causes several members give at once (AbstractCoordinator/ConsumerCoordinator 2.4+: every member that
# revoked partitions rejoins with "need to revoke partitions ... and re-join"; KIP-568 enforceRebalance)
_SHARED_REASONS = ("cooperative_follow_up", "enforced_rebalance")


def _clock(cause: Cause, st: GroupState) -> str | None:
    """The file whose clock timed a candidate (its first evidence line's source), or, in a file of
    several hosts' lines split by their origins, the line's stream (GroupState.clock_of)."""
    if not cause.evidence or not cause.evidence[0]:
        return None
    e = cause.evidence[0]
    return st.clock_of.get(e) or e.rsplit(":", 1)[0]


def _unordered(best: tuple[int, int, Cause], close: list[tuple[int, int, Cause]], untimed: list[str],
               unnamed: bool, st: GroupState, cfg: EffectiveSettings,
               others_are: str = "new member(s) the leader names") -> Cause:
    """The trigger, unless the logs cannot order it: other members gave the same kind of reason within
    the clock-skew tolerance on other files' clocks (one host's clock may run seconds off another's, so
    the earliest line is not the first request the coordinator got); or, for a join or a reason every
    member may give, new members' joins are timed by no line (`untimed`: named by the leader's map
    only) or the logs may not name every member (`unnamed`: no broker count, no assignment map), so a
    member whose log is missing may have been first. Then the cause stays and no member is named."""
    ts, rank, c = best
    rivals = [x[2] for x in close if x[1] == rank and x[2].trigger_member != c.trigger_member
              and _clock(x[2], st) != _clock(c, st)]
    others = [m for m in untimed if m != c.trigger_member]
    if not rivals and not others and not unnamed:
        return c   # (one new member, every member listed, nobody gone: its join started it)
    named = _uniq([c.trigger_member, *(r.trigger_member for r in rivals)])
    words = [_who(m, st) for m in named]
    why = []
    if rivals:
        why.append(f"{', '.join(words[:-1])} and {words[-1]} gave this reason within the clock-skew tolerance "
                   f"({cfg.skew_tolerance_ms} ms) of each other, on different hosts' clocks")
    elif c.trigger_member in untimed:
        why.append(f"no line times the join of {words[0]} (the leader's assignment map names it; it is dated "
                   "by the first member told of the rebalance)")
    else:
        why.append(f"{words[0]} is the first whose join the logs time")
    if others:
        why.append(f"no line times the join of {len(others)} other {others_are} "
                   f"({', '.join(others[:3])}{', ...' if len(others) > 3 else ''})")
    if unnamed:
        why.append("no line lists every member (a broker's member count or a full assignment map would)")
    detail = (c.detail.split(":", 1)[0] + ". Which member started it is not in the logs: " + "; ".join(why)
              + ". The broker's 'Preparing to rebalance' line, or the other members' logs, would tell.")
    facts = dict(c.facts, trigger_candidates=named + others)
    return Cause(c.cause, detail, None, _uniq([*c.evidence, *(e for r in rivals for e in r.evidence)])[:6],
                 c.at_ms, True, facts)


def _failover_override(c: Cause, gen: Gen, started: int | None, st: GroupState, cfg: EffectiveSettings) -> Cause:
    # a leader rejoining with no stated reason right after a coordinator move is explained by the move
    if started is None or c.cause not in ("unknown", "session_expiry") and not (
            c.cause == "leader_rejoin" and c.inferred):
        return c
    lo = started - cfg.session_timeout_ms - cfg.skew_tolerance_ms
    moves = [ob for ob in (*st.observed("coordinator_change"), *st.observed("group_loaded"))
             if ob.ts_ms is not None and lo <= ob.ts_ms <= started + cfg.skew_tolerance_ms]
    if not moves:
        return c
    if c.cause == "session_expiry":
        silence_from = c.facts.get("last_seen_ms")
        lost = [ob for ob in st.observed("coordinator_lost") if ob.member_id == c.trigger_member]
        if not lost and (silence_from is None or not any(ob.ts_ms >= silence_from - cfg.skew_tolerance_ms
                                                        for ob in moves)):
            return c
    mv = moves[0]
    detail = (f"The group's coordinator moved ({mv.facts.get('from', '?')} -> "
              f"{mv.facts.get('to') or mv.facts.get('coordinator') or '?'}) shortly before this rebalance")
    detail += ("; " + c.detail[0].lower() + c.detail[1:]) if c.cause == "session_expiry" else "."
    return Cause("coordinator_failover", detail, c.trigger_member, _uniq([*mv.evidence, *c.evidence]),
                 mv.ts_ms, c.inferred, {**c.facts, "coordinator_from": mv.facts.get("from"),
                                        "coordinator_to": mv.facts.get("to") or mv.facts.get("coordinator")})


def _offered(st: GroupState, m: Membership) -> tuple[str | None, ...] | None:
    """The assignors a member's process offers (its ConsumerConfig), if its log prints them."""
    if m.stream is None:
        return None
    by_client = st.assignors.get(m.stream[0])
    if not by_client:
        return None
    if m.stream[1] in by_client:
        return by_client[m.stream[1]]
    distinct = set(by_client.values())
    return distinct.pop() if len(distinct) == 1 else None   # one process per file, its lines name no client


def voted_protocol(st: GroupState, gen: Gen) -> str | None:
    """The protocol the coordinator must have selected when every member's offer is known
    (GroupMetadata.selectProtocol, 0.9+): the candidates are the protocols all members support; each
    member votes for its most preferred candidate; the most votes win. A tie is left unknown."""
    offers = []
    for m in gen.members.values():
        if m.replaced is not None:
            continue
        o = _offered(st, m)
        if not o or None in o:
            return None
        offers.append(o)
    if not offers:
        return None
    candidates = set(offers[0]).intersection(*offers[1:])
    if not candidates:
        return None
    votes: dict[str | None, int] = {}
    for o in offers:
        pick = next(p for p in o if p in candidates)
        votes[pick] = votes.get(pick, 0) + 1
    best = max(votes.values())
    winners = [p for p, n in votes.items() if n == best]
    return winners[0] if len(winners) == 1 else None


_JOIN_STARTED = ("member_joined", "static_member_restart", "metadata_or_subscription_change", "enforced_rebalance",
                 "cooperative_follow_up", "leader_rejoin")


def _start_known(cause: Cause, gen: Gen, prev: Gen | None, started: int | None, estimated: bool,
                 st: GroupState, cfg: EffectiveSettings) -> bool:
    """Without the broker's "Preparing to rebalance" line, a rebalance's start is known only from the
    trigger's own line at the earliest time: its "(Re-)joining group" (a join or a rejoin starts the
    rebalance when its JoinGroup arrives), its LeaveGroup (a leave, a poll timeout), or a line that
    times an expiry. Another member's later "Successfully joined", a leader's assignment map or a
    member told REBALANCE_IN_PROGRESS come after the start, by up to a heartbeat interval and a poll."""
    trigger = cause.trigger_member
    if started is None or trigger is None or cause.at_ms is None or estimated:
        return False
    if abs(started - cause.at_ms) > cfg.skew_tolerance_ms:
        return False
    lf = st.lives.get(trigger)
    if st.clock_uncertain and not st.clock_uncertain.isdisjoint(cause.evidence):
        return False    # its line lies where its host's clock was stepped, the step not placed (timeline_corrections)
    if lf is not None and lf.client_library == "librdkafka" and any(delivered_late(e) for e in lf.events):
        # its lines are printed when the application polls (a binding's log queue), not when they happen
        # (the library test first: a Java member's every sign of life is not walked per generation)
        return False
    if cause.cause in _JOIN_STARTED:
        mem = gen.members.get(trigger)
        return mem is not None and mem.join_start_ms is not None and abs(mem.join_start_ms - cause.at_ms) <= cfg.skew_tolerance_ms
    if cause.cause in ("member_left", "poll_timeout"):
        mem = prev.members.get(trigger) if prev is not None else None
        return mem is not None and mem.leave_ev is not None and mem.left_ms == cause.at_ms
    return cause.cause == "session_expiry"


def build(st: GroupState, cfg: EffectiveSettings) -> list[GenView]:
    member_notes = broker_members.fill(st, cfg)
    nums = sorted(st.gens)
    views: list[GenView] = []
    voted: set[int] = set()
    for g in nums:
        gen = st.gens[g]
        if gen.protocol is None and gen.members and gen.protocol_type != "consumer (KIP-848)":
            gen.protocol = voted_protocol(st, gen)
            if gen.protocol is not None:
                voted.add(g)
    # before the causes: the next generation's cause reads this one's leader (leader_rejoin)
    hidden = hidden_holders([st.gens[g] for g in nums])
    for g in nums:
        gen = st.gens[g]
        lone = next(iter(gen.members.values())) if len(gen.members) == 1 else None
        if gen.leader is None and lone is not None and gen.broker_member_count == 1:
            # a lone member is its own leader when it is known to be alone (the broker counts one
            # member; the leader's own map or a group record name it as leader already). One
            # member's log does not show that: the others' logs may just not be in the input
            gen.leader = lone.member_id
    for i, g in enumerate(nums):
        gen = st.gens[g]
        prev = st.gens.get(g - 1)
        prev_known = st.gens[nums[i - 1]] if i > 0 else None
        cause = _broker_cause(gen, prev or prev_known, st, cfg) if gen.prepare_ms is not None else None
        if cause is None:
            # without the exact predecessor (a gap in the logs) a comparison of members would guess
            cause = _client_cause(gen, prev, st, cfg)
        estimated = cause.facts.get("expiry_time") in ("estimated", "estimated_from_rebalance", "estimated_window")
        if gen.prepare_ms is not None:
            started, inferred, known = gen.prepare_ms, False, True
        else:
            seen = [m.join_start_ms for m in gen.members.values() if m.join_start_ms is not None]
            seen += [t for t, _ in gen.rebalance_in_progress]
            starts = list(seen)
            # an expiry no line times is only bounded (its last sign of life + session.timeout.ms is the
            # earliest it can have been): the first line of the rebalance is its start then
            if cause.at_ms is not None and cause.at_ms < (1 << 62) and not (estimated and seen):
                starts.append(cause.at_ms)
            if not starts:
                starts = [m.joined_ms for m in gen.members.values() if m.joined_ms is not None]
            if not starts and gen.empty_ms is not None:
                starts = [gen.empty_ms]
            started, inferred = (min(starts) if starts else None), True
            known = _start_known(cause, gen, prev, started, estimated, st, cfg)
        cause = _failover_override(cause, gen, started, st, cfg)
        if g in member_notes:
            cause.detail += " " + member_notes[g]
        if g in voted:
            cause.detail += (f" Protocol {gen.protocol!r} inferred: no line of this generation names it, but every "
                             "member's ConsumerConfig offers assignors whose vote can only select it.")
        leader = gen.leader
        # Stable is entered when the leader's SyncGroup arrives (GroupCoordinator.handleSyncGroup)
        syncs = [m.synced_ms for m in gen.members.values() if m.synced_ms is not None]
        if gen.stable_ms is not None:
            stabilized = gen.stable_ms
        elif leader and leader in gen.members and gen.members[leader].synced_ms is not None:
            stabilized = gen.members[leader].synced_ms
        elif syncs:
            stabilized = min(syncs)
        elif gen.record_ms is not None:
            stabilized = gen.record_ms
        else:
            stabilized = gen.completing_ms
        if gen.empty_ms is not None and not gen.members:
            stabilized = None
        if started is not None and stabilized is not None and started > stabilized + cfg.skew_tolerance_ms:
            # a trigger line printed after the generation was Stable (a binding's log queue, served at
            # the next poll()): the rebalance began before its Stable time, which is all the logs bound
            started, known = stabilized, False
            cause.detail += (" How long the rebalance took is not in the logs: the line naming its cause was "
                             "printed after the generation was Stable (a client's log queue), so it began before "
                             "that, at a time the logs do not hold.")
        elif not known and started is not None and stabilized is not None and stabilized >= started:
            took = _fmt_ms(stabilized - started)
            if estimated and started == cause.at_ms:
                cause.detail += (f" How long the rebalance took is not in the logs: it began at the earliest at the "
                                 f"expiry's estimated time, so it took at most {took}.")
            else:
                cause.detail += (" How long the rebalance took is not in the logs: no broker line and no line of the "
                                 "member that started it time its start; the first line of it in the logs comes "
                                 f"{took} before it was stable, so it took at least that.")
        views.append(GenView(gen, started, stabilized, None, "log_end", cause, inferred, start_known=known))
    for v in views:
        v.unnamed_holders = v.gen.generation in hidden
    for i, v in enumerate(views):
        nxt = views[i + 1] if i + 1 < len(views) else None
        if nxt is not None and nxt.started_ms is not None:
            v.ended_ms, v.end_kind = nxt.started_ms, "rebalance"
        elif nxt is not None and nxt.stabilized_ms is not None:
            # the next rebalance's start is not in the logs (a __consumer_offsets dump's group records
            # time only the Stable or Empty state they store): this one ended before the next was Stable
            v.ended_ms, v.end_kind = nxt.stabilized_ms, "rebalance"
        elif v.gen.dead_ms is not None:
            v.ended_ms, v.end_kind = v.gen.dead_ms, "group_dead"
        else:
            v.ended_ms, v.end_kind = st.last_ms, "log_end"
    _finish_memberships(views, st, cfg)
    return views


def _finish_memberships(views: list[GenView], st: GroupState, cfg: EffectiveSettings) -> None:
    """Members absent from the next generation left it; say how and when."""
    for i, v in enumerate(views):
        nxt = views[i + 1] if i + 1 < len(views) else None
        for mid, mem in v.gen.members.items():
            if mem.left_ms is not None:
                continue
            lf = st.lives.get(mid)
            if lf is not None and lf.removed_ms is not None and (v.started_ms is None or lf.removed_ms >= v.started_ms):
                if nxt is None or mid not in nxt.gen.members:
                    mem.left_ms, mem.leave_reason, mem.leave_ev = lf.removed_ms, lf.removed_reason, lf.removed_ev
                    continue
            # the next generation lists nobody: either a broker-only generation without a member list
            # (nothing known) or the group emptied (everybody left it)
            nxt_emptied = nxt is not None and not nxt.gen.members and (
                nxt.gen.empty_ms is not None or nxt.gen.broker_member_count == 0)
            if nxt is None or nxt.gen.generation != v.gen.generation + 1 or mid in nxt.gen.members \
                    or (not nxt.gen.members and not nxt_emptied):
                continue
            if nxt.cause.trigger_member == mid and nxt.cause.cause in ("session_expiry", "poll_timeout",
                                                                       "member_left", "coordinator_failover"):
                mem.left_ms = nxt.cause.at_ms
                mem.leave_reason = "session_expiry" if nxt.cause.cause == "coordinator_failover" else nxt.cause.cause
                mem.leave_ev = nxt.cause.evidence[0] if nxt.cause.evidence else None
            else:
                mem.left_ms, mem.leave_reason = nxt.started_ms, "not_rejoined"


def generation_rows(views: list[GenView], group_id: str | None) -> list[dict]:
    rows = []
    for v in views:
        g = v.gen
        # the members the generation was formed with: a static member that restarted mid-generation
        # (a new member id, no rebalance) appears in the memberships table, not here
        members = sorted(m for m, mem in g.members.items() if mem.replaced is None)
        # the assignments the logs show; a member whose assignment no line shows is left out (an empty
        # list would say it held nothing), as the consumer protocol's rows do
        assignment = {m: g.members[m].assigned for m in members if g.members[m].assigned is not None}
        started, stab = v.started_ms, v.stabilized_ms
        rows.append({
            "group_id": group_id, "generation": g.generation, "protocol_type": g.protocol_type or "consumer",
            "protocol": g.protocol, "leader": g.leader, "members": members,
            # the broker's count when it prints one; members named only by broker lines without a count
            # may be fewer than the generation had: unknown, not the length of the list
            # a count is what the broker counted, or the leader's assignment map (it names every member);
            # members' own logs name only themselves: others' logs may be missing from the input
            "member_count": g.broker_member_count if g.broker_member_count is not None else (
                0 if not members and g.empty_ms is not None   # the broker's "is now empty"
                else None if v.unnamed_holders or any(g.members[m].inferred for m in members)
                or not g.assignment_map_seen else len(members)),
            "assignment_json": json.dumps(assignment, sort_keys=True),
            "started_ms": started, "stabilized_ms": stab, "ended_ms": v.ended_ms,
            # (never negative: a start after the stable time is a line printed late, or another clock)
            "rebalance_ms": (stab - started) if started is not None and stab is not None and v.start_known
            and stab >= started else None,
            "cause": v.cause.cause, "cause_detail": v.cause.detail, "trigger_member": v.cause.trigger_member,
            "coordinator": g.coordinator, "inferred": v.inferred or v.cause.inferred,
            "evidence": _uniq([*v.cause.evidence, g.prepare_ev, g.completing_ev, g.stable_ev, g.empty_ev,
                               g.record_ev, *g.evidence[:5]]),
        })
    return rows


# memberships columns only the consumer protocol fills (pipeline/replay_rules/consumer_groups.py)
CONSUMER_PROTOCOL_NULLS: dict = {"member_state": None, "states": None, "owned": None, "added": None,
                                 "reconcile_ms": None, "fence_error": None}


def membership_rows(views: list[GenView], group_id: str | None) -> list[dict]:
    rows = []
    for v in views:
        for mid in sorted(v.gen.members):
            m: Membership = v.gen.members[mid]
            rows.append({
                "group_id": group_id, "generation": m.generation, "member_id": mid, "client_id": m.client_id,
                "instance_id": m.instance_id, "host": m.host, "is_leader": v.gen.leader == mid,
                "joined_ms": m.joined_ms, "synced_ms": m.synced_ms,
                # None where no line states the member's assignment (unknown, not empty)
                "assigned": list(m.assigned) if m.assigned is not None else None, "revoked": list(m.revoked),
                "left_ms": m.left_ms, "leave_reason": m.leave_reason,
                "client_library": m.client_library, "client_version": m.client_version,
                "evidence": _uniq([*m.evidence[:8], m.leave_ev]),
                **CONSUMER_PROTOCOL_NULLS,
            })
    return rows


def empty_spans(views: list[GenView], st: GroupState) -> list[tuple[int, int]]:
    """When the group had no members: after the broker's "is now empty", or after every member of a
    generation the logs name completely (`_complete`) left, until the next rebalance began."""
    out = []
    for i, v in enumerate(views):
        nv = views[i + 1] if i + 1 < len(views) else None
        # (a next generation known only from a dump's Stable record: the group had members again by then)
        nxt = None if nv is None else nv.started_ms if nv.started_ms is not None else nv.stabilized_ms
        end = nxt if nxt is not None else (st.last_ms or 0) + 1
        if v.gen.empty_ms is not None and not v.gen.members:
            out.append((v.gen.empty_ms, end))
        elif v.gen.members and _complete(v.gen) and all(
                m.left_ms is not None and m.leave_reason in ("shutdown", "left", "unsubscribed")
                for m in v.gen.members.values()):
            # (only when the logs name every member: the members a log shows leaving may not be all)
            out.append((max(m.left_ms for m in v.gen.members.values()), end))
    return out
