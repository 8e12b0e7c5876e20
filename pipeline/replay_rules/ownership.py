"""Partition ownership intervals, and the findings they support (double ownership, long unowned).

Client callbacks (ConsumerCoordinator onPartitionsAssigned / Revoked / Lost) give the intervals
where the members' logs have them; members seen only through the broker or a __consumer_offsets dump
own their generation's assignment from Stable until the next rebalance began. Under the eager
protocol every member revokes everything when a rebalance begins (ConsumerCoordinator.onJoinPrepare,
0.9+); under cooperative-sticky (2.4+, KIP-429) kept partitions stay owned across generations.
"""

from __future__ import annotations

import re

from pipeline.replay_rules.collect import GroupState
from pipeline.replay_rules.generations import GenView
from pipeline.replay_rules.settings import EffectiveSettings
from pipeline.replay_rules.state import Interval, static_id_of


def close_open(st: GroupState, views: list[GenView]) -> None:
    """Intervals still open at the end of the pass end when their owner was removed (seen in a broker
    log or inferred, e.g. an expiry), provided the process never logged again; else at log end."""
    gone: dict[str, tuple[int, str, str | None]] = {}
    for v in views:
        for mid, mem in v.gen.members.items():
            if mem.left_ms is not None:
                gone[mid] = (mem.left_ms, mem.leave_reason or "left", mem.leave_ev)
            else:
                gone.pop(mid, None)
    # the first generation after each one that a member is not part of: by then it owns nothing.
    # A generation with a start whose members no line names (a 0.9-0.10 broker names none) counts for
    # a member no later generation names either: its own log, which a process_gone interval comes
    # from, shows no join to it (each join line names its generation)
    last_named: dict[str, int] = {}
    for i, v in enumerate(views):
        for mid in v.gen.members:
            last_named[mid] = i
    dropped_at: dict[tuple[str, int], int] = {}
    for i, v in enumerate(views):
        if not v.gen.members:
            continue
        named_later = any(last_named[mid] > i for mid in v.gen.members)
        for later in views[i + 1:]:
            if later.started_ms is None:
                continue
            if later.gen.members:
                for mid in v.gen.members:
                    if mid not in later.gen.members:
                        dropped_at.setdefault((mid, v.gen.generation), later.started_ms)
                break
            for mid in v.gen.members:
                if last_named[mid] <= i:
                    dropped_at.setdefault((mid, v.gen.generation), later.started_ms)
            if not named_later:
                break
    for iv in st.intervals:
        if iv.end_reason == "process_gone":
            # the process stopped logging, then restarted: its partitions stayed its own until the
            # coordinator removed it (or it left), at the latest when a generation formed without it
            iv.end_ev = None
            got = gone.get(iv.member_id or "")
            if got is not None and got[0] >= (iv.end_ms or 0):
                iv.end_ms, iv.end_reason, iv.end_ev = got
            cap = dropped_at.get((iv.member_id or "", iv.generation if iv.generation is not None else -1))
            if cap is not None and iv.end_ms is not None and iv.end_ms > cap >= iv.start_ms:
                iv.end_ms = cap
    for s in st.streams.values():
        for tp, (start, sev, g, mid) in list(s.owned.items()):
            end, reason, eev = st.last_ms, "log_end", None
            lf = st.lives.get(mid) if mid else None
            if lf is not None and lf.removed_ms is not None and lf.removed_ms >= start \
                    and (s.last_ms is None or s.last_ms <= lf.removed_ms):
                # the process never logged again: the broker's removal ended what it held
                end, reason, eev = lf.removed_ms, lf.removed_reason or "removed", lf.removed_ev
            elif mid in gone and gone[mid][0] >= start and (s.last_ms is None or s.last_ms <= gone[mid][0]):
                end, reason, eev = gone[mid]
            st.intervals.append(Interval(tp, mid, s.client_id, g, start, sev, end, reason, eev, s.source))
        s.owned.clear()


def from_assignments(views: list[GenView], st: GroupState, cfg: EffectiveSettings) -> set[str | None]:
    """Intervals for members whose own logs show no partition callbacks; returns the members whose do."""
    with_callbacks = {iv.member_id for iv in st.intervals}
    open_: dict[tuple[str, str], Interval] = {}
    for i, v in enumerate(views):
        # incremental: cooperative-sticky (KIP-429), and the consumer protocol (KIP-848), whose members
        # keep what their next target assignment keeps (CurrentAssignmentBuilder 3.7+)
        cooperative = (v.gen.protocol or cfg.assignor or "").startswith("cooperative") or (
            v.gen.protocol_type or "").startswith(("consumer (KIP-848)", "streams (KIP-1071)"))
        nxt = views[i + 1] if i + 1 < len(views) else None
        for mid, mem in v.gen.members.items():
            if mid in with_callbacks or not mem.assigned:
                continue
            start = mem.synced_ms if mem.synced_ms is not None else v.stabilized_ms
            if start is None:
                continue
            ev = mem.evidence[0] if mem.evidence else (v.gen.stable_ev or v.gen.record_ev or "")
            for tp in mem.assigned:
                key = (tp, mid)
                if cooperative and key in open_:
                    continue   # kept across the cooperative rebalance
                open_[key] = Interval(tp, mid, mem.client_id, v.gen.generation, start, ev, source=mem.host,
                                      inferred=True)
            # when the generation ends, close what does not carry over
            keeps = set()
            if cooperative and nxt is not None and mid in nxt.gen.members:
                keeps = set(nxt.gen.members[mid].assigned or ())
            if mem.left_ms is not None:
                end, reason, eev = mem.left_ms, mem.leave_reason or "left", mem.leave_ev
                keeps = set()
            else:
                end, reason, eev = v.ended_ms, v.end_kind, (nxt.gen.prepare_ev if nxt else st.last_ev)
            for tp in mem.assigned:
                iv = open_.get((tp, mid))
                if iv is None or tp in keeps:
                    continue
                iv.end_ms, iv.end_reason, iv.end_ev = end, "rebalance" if reason == "rebalance" else reason, eev
                st.intervals.append(iv)
                del open_[(tp, mid)]
    for iv in open_.values():
        iv.end_ms, iv.end_reason, iv.end_ev = st.last_ms, "log_end", None
        st.intervals.append(iv)
    return with_callbacks


def static_handover(views: list[GenView], st: GroupState, with_callbacks: set[str | None]) -> None:
    """A static member's restart in a Stable group hands its assignment to its new member id at once
    (GroupCoordinator.replaceStaticMember 2.3+, KIP-345: the new id's SyncGroup returns the old id's
    assignment, no rebalance). For members seen only through the broker or a dump, the new id's
    partitions are therefore owned from the replacement, not from the next generation's Stable: each
    of the old member's partitions goes to the member of a later generation with the same instance id,
    from the replacement until that one's own interval (or the next rebalance) begins."""
    by_start = sorted(views, key=lambda v: v.started_ms if v.started_ms is not None else (v.stabilized_ms or 0))
    for ob in st.observed("static_replaced"):
        old, at, instance = ob.member_id, ob.ts_ms, ob.facts.get("instance_id")
        if not old or at is None or not instance:
            continue
        current = next((v for v in reversed(by_start) if old in v.gen.members
                        and (v.stabilized_ms or v.started_ms or 0) <= at), None)
        if current is None or not current.gen.members[old].assigned:
            continue
        later = [v for v in by_start if (v.started_ms or v.stabilized_ms or 0) > at]
        heir = next((m for v in later for m in v.gen.members.values() if m.member_id != old and instance in (
            m.instance_id, st.instance_of.get(m.member_id))), None) or next(
            # (a member named only by the leader's map is known by its id)
            (m for v in later for m in v.gen.members.values() if m.member_id != old
             and static_id_of(m.member_id, instance)), None)
        if heir is None or heir.member_id in with_callbacks:
            continue   # (its own log's callbacks time what it held)
        until = current.ended_ms
        for tp in current.gen.members[old].assigned:
            mine = [iv for iv in st.intervals if iv.member_id == heir.member_id and iv.topic_partition == tp
                    and iv.start_ms >= at]
            first = min(mine, key=lambda iv: iv.start_ms) if mine else None
            end = first.start_ms if first is not None else until
            if end is None or end <= at:
                continue
            if first is not None and until is not None and first.start_ms > until:
                end = until   # a rebalance came between: the heir held it until then
            st.intervals.append(Interval(tp, heir.member_id, heir.client_id, current.gen.generation, at,
                                         ob.evidence[0], end, "rebalance" if end == until else "continued",
                                         first.start_ev if first is not None and end != until else None,
                                         heir.host, inferred=True))


_TOPIC_ID_PARTITION = re.compile(r"[A-Za-z0-9_-]{22}-\d+")


def name_topic_ids(st: GroupState) -> None:
    """KIP-848 broker lines name a member's partitions by topic id ("QLf_qZOk435wgRGI1zzedA-0",
    GroupMetadataManager 3.8+ DEBUG), its clients by topic name. When the members' lines name one
    topic and the broker's one topic id, the id is that topic: its partitions are renamed so that
    both sides' assignments meet (else they are left as ids, which match nothing)."""
    held = [m for g in st.gens.values() for m in g.members.values() if m.assigned]
    names = {tp.rpartition("-")[0] for m in held for tp in m.assigned if not _TOPIC_ID_PARTITION.fullmatch(tp)}
    ids = {tp.rpartition("-")[0] for m in held for tp in m.assigned if _TOPIC_ID_PARTITION.fullmatch(tp)}
    if len(names) != 1 or len(ids) != 1:
        return
    (name,), (tid,) = names, ids
    for m in held:
        m.assigned = sorted(name + tp[len(tid):] if tp.startswith(tid + "-") else tp for tp in m.assigned)


def split(tp: str) -> tuple[str, int | None]:
    topic, _, p = tp.rpartition("-")
    if not topic or not p.lstrip("-").isdigit():
        return tp, None
    return topic, int(p)


def rows(st: GroupState) -> list[dict]:
    out = []
    for iv in sorted(st.intervals, key=lambda x: (x.topic_partition, x.start_ms, x.member_id or "")):
        topic, part = split(iv.topic_partition)
        out.append({
            "group_id": st.group_id, "topic": topic, "partition": part, "member_id": iv.member_id,
            "client_id": iv.client_id, "generation": iv.generation, "start_ms": iv.start_ms, "end_ms": iv.end_ms,
            "end_reason": iv.end_reason, "evidence": list(dict.fromkeys(e for e in (iv.start_ev, iv.end_ev) if e)),
            "inferred": iv.inferred,
        })
    return out


def intervals_of(rows: list[dict], late: frozenset[str] | set[str] = frozenset(),
                 own: list[Interval] = ()) -> list[Interval]:
    """The rows of an ownership table (`rows`' columns: group_id, topic, partition, member_id ...)
    as Intervals, for the finding rules: the findings of a run are those of the intervals its
    ownership table shows (pipeline/spark/group_pass.py). An interval's end evidence is its last
    one; `late`: the evidence of lines a binding printed at the application's next poll()
    (reasons.delivered_late), whose end is printed late (`end_late`). `own`: the replay's own
    intervals, whose generation (a 4.x client's callback lines name no epoch, the replay's
    context does) names the generation of a row that has none, starting at the same line."""
    gen_of = {(iv.topic_partition, iv.member_id, iv.start_ev): iv.generation for iv in own
              if iv.generation is not None}
    out = []
    for r in rows:
        if r.get("start_ms") is None:
            continue
        part = r.get("partition")
        tp = f"{r.get('topic')}-{part}" if part is not None else str(r.get("topic"))
        ev = [e for e in (r.get("evidence") if r.get("evidence") is not None else ()) if e]
        end_ev = ev[-1] if len(ev) > 1 else None
        gen = r.get("generation")
        if gen is None and ev:
            gen = gen_of.get((tp, r.get("member_id"), ev[0]))
        out.append(Interval(tp, r.get("member_id"), r.get("client_id"), gen, int(r["start_ms"]),
                            ev[0] if ev else "", int(r["end_ms"]) if r.get("end_ms") is not None else None,
                            r.get("end_reason"), end_ev, None, end_ev is not None and end_ev in late,
                            bool(r.get("inferred"))))
    return out


def by_partition(st: GroupState) -> dict[str, list[Interval]]:
    return by_partition_of(st.intervals)


def by_partition_of(intervals: list[Interval]) -> dict[str, list[Interval]]:
    out: dict[str, list[Interval]] = {}
    for iv in intervals:
        out.setdefault(iv.topic_partition, []).append(iv)
    for ivs in out.values():
        ivs.sort(key=lambda x: (x.start_ms, x.end_ms if x.end_ms is not None else 1 << 62))
    return out


def double_ownership(parts: dict[str, list[Interval]], cfg: EffectiveSettings) -> list[tuple[str, Interval, Interval, int, int]]:
    """(partition, earlier, later, overlap start, overlap end) where two members held it at once for
    longer than the clock-skew tolerance (a shorter overlap may be two hosts' clocks, not the group)."""
    found = []
    for tp, ivs in parts.items():
        widest: Interval | None = None
        for iv in ivs:
            if widest is not None and widest.member_id != iv.member_id:
                lo = iv.start_ms
                hi = min(_end(widest), _end(iv))
                if hi - lo > cfg.skew_tolerance_ms:
                    found.append((tp, widest, iv, lo, hi))
            if widest is None or _end(iv) > _end(widest):
                widest = iv
    return found


def unowned(parts: dict[str, list[Interval]], cfg: EffectiveSettings) -> list[tuple[str, Interval, Interval, int]]:
    """(partition, before, after, gap) where nobody owned it between two intervals for too long."""
    found = []
    for tp, ivs in parts.items():
        reach: Interval | None = None
        for iv in ivs:
            if reach is not None:
                gap = iv.start_ms - _end(reach)
                if gap > cfg.unowned_threshold_ms:
                    found.append((tp, reach, iv, gap))
            if reach is None or _end(iv) > _end(reach):
                reach = iv
    return found


def _end(iv: Interval) -> int:
    return iv.end_ms if iv.end_ms is not None else (1 << 62)
