"""The figures a user reads about a run, computed once.

The ingest summary, the incident report (md, html, json) and the dashboard take every per-group
count from `group_figures`, over the same RUN_DIR tables, so no two views of one run disagree
(tests/test_views_agree.py holds them equal on the sample scenarios and on real logs).

Definitions (docs/replay.md, "Figures"):
- a *rebalance* is a generation whose rebalance the logs show: its start (PreparingRebalance) or
  its completion (Stable) is known. A generation only known to exist (the first one of a log that
  starts mid-life, a describe snapshot, an `old generation N`) is counted in `generations_seen`,
  not as a rebalance of the window;
- a member is *expelled* when the coordinator removed it (session expiry, poll timeout, fencing):
  from its membership's leave reason, or from an expulsion finding when the leave is not recorded;
- offset ranges come from the replay's findings only (`offset_rewind`, `offset_skip`); a range
  with a bound no log line states is marked estimated;
- a *left-out stream* is a file's lines of several consumers under one client id, with no origin on
  them to tell which: the replay leaves them out and says so in a finding (details `source`,
  `client_id`, `lines_left_out`), and the ingest's heartbeat_gaps, offset_commits and ownership
  leave them out by the same proof (pipeline/group_tables.left_out_streams); `left_out_streams`
  reads them from the findings and `left_out_sentence` words them for every view.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from pipeline.schemas import SEVERITIES
from pipeline.timefmt import duration

EXPELLED_REASONS = ("session_expiry", "poll_timeout", "fenced", "static_member_fenced", "expired", "member_fenced")
EXPULSION_FINDINGS = ("session_expiry", "poll_timeout", "static_member_fenced")


def _none(v: Any) -> Any:
    if v is None or (isinstance(v, float) and v != v):
        return None
    return v.tolist() if hasattr(v, "tolist") else v


def _rows(df: pd.DataFrame) -> list[dict[str, Any]]:
    """The frame's rows as dicts of plain Python values (NaN -> None, arrays -> lists). Column by
    column (`Series.tolist` gives the values `to_dict("records")` gives, without its per-cell
    boxing: most frames here are one group's few rows, where that overhead dominated)."""
    if df.empty:
        return []
    names = list(df.columns)
    cols = [[_none(v) for v in df[c].tolist()] for c in names]
    return [dict(zip(names, vals, strict=True)) for vals in zip(*cols, strict=True)]


def of_group(df: pd.DataFrame, group: str) -> pd.DataFrame:
    return df[df["group_id"] == group] if not df.empty else df


def _is_rebalance(g: dict[str, Any]) -> bool:
    """A generation (a row, as `_rows` gives it) whose rebalance the logs show: its start or its
    completion is known."""
    return g.get("started_ms") is not None or g.get("stabilized_ms") is not None


def rebalancing_total(total_ms: int, timed: int, rebalances: int) -> str:
    """The time spent rebalancing, short (a table cell, the ingest summary): a sum over only the
    rebalances with a known duration is a lower bound, and with none it is unknown, never "0 ms"
    (a history that begins inside the logs, or a rebalance superseded before it completed,
    has no duration)."""
    if timed >= rebalances:
        return duration(total_ms)
    return "time unknown" if timed == 0 else f"at least {duration(total_ms)}"


def rebalancing_sentence(total_ms: int, longest_ms: int, timed: int, rebalances: int, brief: bool = False) -> str:
    """The same figure in words: "8.8 s spent rebalancing (longest 8.3 s)", with how many of the
    rebalances the logs time when not all; `brief`: without the longest (a headline's parenthesis)."""
    if timed >= rebalances:
        return f"{duration(total_ms)} spent rebalancing" + ("" if brief else f" (longest {duration(longest_ms)})")
    if timed == 0:
        return "time spent rebalancing unknown" + ("" if brief else " (no rebalance has a known duration)")
    known = f"{timed:,} of {rebalances:,} rebalances have a known duration"
    return (f"at least {duration(total_ms)} spent rebalancing"
            + (f"; {known}" if brief else f" ({known}; longest {duration(longest_ms)})"))


def offset_ranges(findings: pd.DataFrame, kind: str) -> list[dict[str, Any]]:
    """Offset ranges the replay found (kind offset_rewind: processed again; offset_skip: never
    processed), with `estimated` where a bound is not in the logs. Sorted, one per range."""
    rows = findings[findings["kind"] == kind] if not findings.empty else findings
    return _offset_ranges(_rows(rows), kind)


def _offset_ranges(findings: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """`offset_ranges` over rows (dicts of `_rows`)."""
    out, seen = [], set()
    for r in findings:
        if r["kind"] != kind:
            continue
        d = json.loads(r["details_json"]) if r.get("details_json") else {}
        lo, hi = d.get("from_offset"), d.get("to_offset_exclusive")
        if not isinstance(lo, int) or not isinstance(hi, int) or hi <= lo:
            continue
        key = (r["group_id"], d.get("topic"), d.get("partition"), lo, hi)
        if key in seen:
            continue
        seen.add(key)
        out.append({
            "group_id": r["group_id"], "topic": d.get("topic"), "partition": d.get("partition"),
            "from_offset": lo, "to_offset": hi, "count": hi - lo, "start_ms": r.get("start_ms"),
            "member_id": (r.get("members") or [None])[0], "evidence": r.get("evidence") or [],
            "estimated": bool(d.get("estimated")),
        })
    return sorted(out, key=lambda x: (x["group_id"] or "", x["start_ms"] or 0, x["topic"] or "", x["partition"] or 0))


def expelled(mems: pd.DataFrame, findings: pd.DataFrame) -> list[dict[str, Any]]:
    """Members the coordinator removed, once per (member, generation): the membership's recorded
    leave, else the expulsion finding (a leave the replay could not attach to a membership)."""
    if not mems.empty:
        mems = mems[mems["leave_reason"].isin(EXPELLED_REASONS)]
    if not findings.empty:
        findings = findings[findings["kind"].isin(EXPULSION_FINDINGS)]
    return _expelled(_rows(mems), _rows(findings))


def _expelled(mems: list[dict[str, Any]], findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`expelled` over rows (dicts of `_rows`)."""
    out: dict[tuple[str, int | None], dict[str, Any]] = {}
    for m in mems:
        if m["leave_reason"] in EXPELLED_REASONS:
            out[(m["member_id"], m["generation"])] = {
                "group_id": m["group_id"], "member_id": m["member_id"], "client_id": m.get("client_id"),
                "host": m.get("host"), "generation": m["generation"], "reason": m["leave_reason"],
                "at_ms": m.get("left_ms")}
    for f in findings:
        if f["kind"] in EXPULSION_FINDINGS:
            for member in f.get("members") or []:
                if any(k[0] == member for k in out):
                    continue
                out[(member, f.get("generation"))] = {
                    "group_id": f["group_id"], "member_id": member, "client_id": None, "host": None,
                    "generation": f.get("generation"), "reason": f["kind"], "at_ms": f.get("start_ms")}
    return sorted(out.values(), key=lambda e: (e["at_ms"] or 0, e["member_id"] or ""))


def group_figures(group: str, gens: pd.DataFrame, mems: pd.DataFrame, findings: pd.DataFrame) -> dict[str, Any]:
    """Every per-group count a view shows, from the generations, memberships and findings tables."""
    return _figures(group, *(_rows(of_group(df, group)) for df in (gens, mems, findings)))


def figures_by_group(groups: list[str], gens: pd.DataFrame, mems: pd.DataFrame,
                     findings: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """`group_figures` of each of `groups`, each table read into rows and split by group once (with
    hundreds of groups, filtering each table once per group, or pandas calls per group, were most
    of the ingest's summary stage and of the dashboard's overview)."""
    parts = [_by_group(df) for df in (gens, mems, findings)]
    return {grp: _figures(grp, *(p.get(grp, []) for p in parts)) for grp in groups}


def _by_group(df: pd.DataFrame) -> dict[str, list[dict[str, Any]]]:
    """{group_id: its rows (dicts of `_rows`), in table order} (what of_group gives for each group)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for r in _rows(df):
        if r["group_id"] is not None:
            out.setdefault(r["group_id"], []).append(r)
    return out


def _ints(rows: list[dict[str, Any]], *cols: str) -> list[int]:
    return [int(v) for c in cols for r in rows if (v := r.get(c)) is not None]


def _counts(values: list[Any]) -> dict[str, int]:
    """{value: count}, the commonest first, ties in order of first appearance (as value_counts)."""
    seen: dict[Any, int] = {}
    for v in values:
        seen[v] = seen.get(v, 0) + 1
    return {str(k): n for k, n in sorted(seen.items(), key=lambda kv: -kv[1])}


def _figures(group: str, g: list[dict[str, Any]], m: list[dict[str, Any]], f: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of one group from its rows (dicts of `_rows`) of the three tables."""
    reb = [x for x in g if _is_rebalance(x)]
    durations = _ints(reb, "rebalance_ms")
    members = set()
    for x in g:
        members.update(y for y in (x.get("members") or []) if y)
    members.update(x["member_id"] for x in m if x.get("member_id") is not None)
    causes = _counts([x.get("cause") or "unknown" for x in reb])
    reprocessed, skipped = _offset_ranges(f, "offset_rewind"), _offset_ranges(f, "offset_skip")
    sev = _counts([x.get("severity") for x in f if x.get("severity") is not None])
    times = _ints(g, "started_ms", "stabilized_ms", "ended_ms") + _ints(f, "start_ms", "end_ms")
    return {
        "group_id": group,
        "generations_seen": len(g),
        "rebalances": len(reb),
        "rebalance_ms_total": int(sum(durations)),
        "rebalances_timed": len(durations),
        "rebalance_ms_longest": int(max(durations, default=0)),
        "causes": causes,
        "members_seen": sorted(members),
        "expelled": _expelled(m, f),
        "reprocessed_ranges": reprocessed,
        "skipped_ranges": skipped,
        "reprocessed_offsets": sum(r["count"] for r in reprocessed),
        "skipped_offsets": sum(r["count"] for r in skipped),
        "findings_by_severity": {s: int(sev.get(s, 0)) for s in SEVERITIES},
        "first_ms": min(times, default=None),
        "last_ms": max(times, default=None),
    }


def all_groups(*frames: pd.DataFrame) -> list[str]:
    """Every group named in any of these tables (events included: a group seen only in a describe
    snapshot or in offset commits is a group of the run too)."""
    names: set[str] = set()
    for df in frames:
        if not df.empty and "group_id" in df:
            names.update(str(x) for x in df["group_id"].dropna().unique())
    return sorted(names)


def left_out_streams(findings: pd.DataFrame, group: str | None = None) -> list[dict[str, Any]]:
    """The client streams the replay left out (its "lines of several consumers" findings: kind
    unexplained, details with `lines_left_out`), one dict each: group_id, stream (the file, or
    "FILE [ORIGIN]"), client_id, lines; sorted by group and stream."""
    out = []
    if findings is None or findings.empty:
        return out
    rows = findings if group is None else findings[findings["group_id"] == group]
    for r in _rows(rows[rows["kind"] == "unexplained"]):
        try:
            d = json.loads(r.get("details_json") or "{}")
        except ValueError:
            continue
        if not isinstance(d, dict) or "lines_left_out" not in d or "source" not in d:
            continue
        out.append({"group_id": r.get("group_id"), "stream": str(d["source"]), "client_id": d.get("client_id"),
                    "lines": int(d.get("lines_left_out") or 0)})
    return sorted(out, key=lambda s: (s["group_id"] or "", s["stream"], s["client_id"] or ""))


def left_out_sentence(stream: dict[str, Any], member: bool = False) -> str:
    """What a view says of a left-out stream (left_out_streams): its lines, that no figure is taken
    from them, that what only they show is unknown; `member`: said on the page of a member whose
    lines are among them."""
    client = f" under client id {stream['client_id']}" if stream.get("client_id") else ""
    whose = ("Some of this member's lines are among them, so its heartbeat gaps, lines and partitions from that "
             "file are unknown here. " if member else "")
    return (f"Left out: the {stream['lines']:,} line(s) of {stream['stream']}{client} are of several consumers, with "
            "no origin on them to tell which (finding \"lines of several consumers\"). " + whose
            + "No member lane, heartbeat gap, offset or ownership interval of this run is taken from them: what "
            "only they show is unknown. Give each host's log as its own file, or with each line's origin "
            "(kubectl logs --prefix, stern).")


# ---- partitions with no owner ------------------------------------------------------------------
# An ownership interval whose end the owner's own log does not show (end_reason `last_line`: the last
# line of its log naming it, before the log ends or the process restarts; `last_heartbeat`: an owner
# the coordinator removed on session expiry, ended at its last heartbeat, the removal less the session
# timeout: group_tables.ends_at_last_heartbeat) or that the replay inferred from the group's
# generations (`inferred`: the owner's own log shows no assignment) bounds a gap that is an estimate
# (after a `last_line` or `last_heartbeat` end, the most it can be); the words say why, in every view.
UNOWNED_ESTIMATED_WHY = {
    "inferred": "the replay inferred the owner's interval from the group's generations, because that member's "
                "own log shows no partition assignment (its log was not given, was left out, or logs none)",
    "last_line": "the owner's log shows nothing of it after its last line (the process crashed, was silent, "
                 "or its log ends), so when it stopped owning the partition is not in the logs: the time is "
                 "counted from that line, the most it can be",
    "last_heartbeat": "the owner's log does not show when it stopped owning the partition, but the coordinator "
                      "removed it when its session expired: its last heartbeat reached the coordinator one "
                      "session timeout before the removal, so it owned the partition until then and stopped "
                      "before its next heartbeat was due; the time is counted from that last heartbeat, the "
                      "most it can be",
    "unlogged": "the group then had a member whose own log is not among the inputs, and the logs do not show "
                "that it did not hold the partition",
}


def unlogged_spans(memberships: pd.DataFrame, generations: pd.DataFrame,
                   client_members: set[str]) -> dict[Any, list[tuple[int, int, frozenset[str] | None]]]:
    """group -> (from, to, partitions) spans of time in which a partition may have had an owner the
    logs do not show: a generation (from its Stable, else its start, to its end) whose members' known
    assignments do not hold the partition (`partitions`: those they hold; a stable generation assigns
    every partition of its topics, so the rest went to members the logs do not show), or None when
    one of its members has no log among the inputs (no client line names it: `client_members`) and
    no known assignment (any partition may have been its)."""
    out: dict[Any, list[tuple[int, int, frozenset[str] | None]]] = {}
    if memberships is None or generations is None or generations.empty:
        return out
    held: dict[tuple[Any, Any], set[str]] = {}
    blind: set[tuple[Any, Any]] = set()
    for m in _rows(memberships) if not memberships.empty else []:
        key = (m["group_id"], m.get("generation"))
        held.setdefault(key, set()).update(str(p) for p in (m.get("assigned") or ()))
        if not len(m.get("assigned") or ()) and m.get("member_id") is not None \
                and m.get("member_id") not in client_members:
            blind.add(key)
    for g in _rows(generations):
        lo = g.get("stabilized_ms")
        key = (g["group_id"], g["generation"])
        if lo is None or key not in held:
            continue
        hi = int(g["ended_ms"]) if g.get("ended_ms") is not None else 1 << 62
        out.setdefault(g["group_id"], []).append((int(lo), hi, None if key in blind else frozenset(held[key])))
    return out


# the causes of a rebalance (pipeline/replay_rules/reasons.py) that leave every member of the generation
# it ends alive and in the group when it starts: each then revokes what it owns only as it rejoins
# (eager: ConsumerCoordinator.onJoinPrepare). A member that leaves (LeaveGroup) stops owning as it
# leaves: the generation's end is its end too (AbstractCoordinator.maybeLeaveGroup). A removal on
# session expiry or poll timeout, a static member's restart (KIP-345: the old instance was gone) or
# a cause the logs do not show may be the owner's own end, earlier than the generation's.
_MEMBERS_ALIVE = ("member_joined", "member_left", "leader_rejoin", "metadata_or_subscription_change",
                  "enforced_rebalance", "coordinator_failover")
_REMOVED_BY = ("session_expiry", "poll_timeout")


def unlogged_owned_spans(memberships: pd.DataFrame | None, generations: pd.DataFrame | None,
                         findings: pd.DataFrame | None = None
                         ) -> dict[Any, list[tuple[int, int, frozenset[str], bool]]]:
    """group -> (from, to, partitions, whether `to` is the generation's end) spans in which every
    partition not among `partitions` had an owner the logs do not show, by elimination (docs/report.md, "Partition-seconds with no owner"):
    a stable classic generation under an eager assignor (range, roundrobin, sticky: not
    cooperative-sticky, whose generation withholds a partition that moves until its owner revoked
    it, KIP-429; not a KIP-848 or KIP-1071 epoch, which need not assign every partition) assigns
    every partition of its topics, each to one member (AbstractCoordinator's SyncGroup; the leader's
    assignor, ConsumerCoordinator.performAssignment). `partitions` are those its members' known
    assignments hold: each of the rest went to a member whose assignment no line shows, which owned
    it from the generation's Stable until it revoked it. Under eager rebalancing a member revokes
    everything it owns only when it rejoins (ConsumerCoordinator.onJoinPrepare: under EAGER at 3.6.0,
    unconditionally before 2.4),
    which it does once it learns of the next rebalance (a heartbeat's REBALANCE_IN_PROGRESS), at or
    after the broker's PreparingRebalance that ends the generation: so the span runs to the
    generation's end, when the rebalance that ends it leaves its members alive (_MEMBERS_ALIVE; a
    LeaveGroup's leaver stops owning as it leaves, at that end) or removed only members whose
    assignment a line shows (not the owner). When it removed a member whose assignment no line shows
    (it may be the owner) on session expiry, the span ends at that member's last heartbeat (the
    removal less session.timeout.ms, when a line states it: group_tables.last_heartbeats). Otherwise
    (a poll timeout, a static member's restart, a cause the logs do not show, a generation the logs
    do not see end) there is no span: the owner may have stopped at any time."""
    out: dict[Any, list[tuple[int, int, frozenset[str], bool]]] = {}
    if memberships is None or generations is None or memberships.empty or generations.empty:
        return out
    from pipeline.group_tables import last_heartbeats

    beats = last_heartbeats(_rows(findings)) if findings is not None and not findings.empty else {}
    held: dict[tuple[Any, Any], set[str]] = {}
    known: dict[tuple[Any, Any], set[Any]] = {}   # members whose assignment a line shows
    for m in _rows(memberships):
        key = (m["group_id"], m.get("generation"))
        held.setdefault(key, set()).update(str(p) for p in (m.get("assigned") or ()))
        if len(m.get("assigned") or ()):
            known.setdefault(key, set()).add(m.get("member_id"))
    for g, rows in generations.groupby("group_id", dropna=False, sort=False):
        gens = sorted(_rows(rows), key=lambda r: r["generation"])
        for r, nxt in zip(gens, [*gens[1:], None], strict=True):
            lo, end, key = r.get("stabilized_ms"), r.get("ended_ms"), (g, r["generation"])
            if lo is None or end is None or key not in held or not _eager(r):
                continue
            hi = int(end)
            cause = (nxt or {}).get("cause")
            who = (nxt or {}).get("trigger_member")
            if cause in _REMOVED_BY and who is not None and who in known.get(key, set()):
                pass   # (the removed member's partitions are known: not the owner)
            elif cause == "session_expiry" and who in beats:
                hi = min(hi, beats[who][0])
            elif cause not in _MEMBERS_ALIVE:
                continue
            if hi > int(lo):
                out.setdefault(g, []).append((int(lo), hi, frozenset(held[key]), hi == int(end)))
    return out


def _eager(r: dict[str, Any]) -> bool:
    """A classic generation under an eager assignor (unlogged_owned_spans): not cooperative-sticky, not a
    KIP-848 or KIP-1071 epoch."""
    return ("cooperative" not in str(r.get("protocol") or "")
            and not str(r.get("protocol_type") or "").startswith(("consumer (KIP-848)", "streams (KIP-1071)")))


def eager_spans(generations: pd.DataFrame | None) -> set[tuple[Any, int, int]]:
    """(group, Stable, end) of each stable eager generation (unlogged_spans' bounds): in those, a
    partition no known assignment holds went to a member whose assignment no line shows. (A
    cooperative generation withholds a partition that changes owner until its owner revoked it,
    KIP-429: missing from every assignment, it need not be anyone's.)"""
    out: set[tuple[Any, int, int]] = set()
    if generations is None or generations.empty:
        return out
    for r in _rows(generations):
        if r.get("stabilized_ms") is not None and _eager(r):
            out.add((r["group_id"], int(r["stabilized_ms"]),
                     int(r["ended_ms"]) if r.get("ended_ms") is not None else 1 << 62))
    return out


def rejoins(generations: pd.DataFrame | None) -> dict[Any, dict[int, tuple[int | None, frozenset[str]]]]:
    """group -> {a generation's end: (the next generation's Stable, its members)} of classic eager
    generations (unlogged_owned_spans' protocols): a member of the next generation rejoined, and
    under eager rebalancing revoked what it owned before its JoinGroup (ConsumerCoordinator.
    onJoinPrepare: every owned partition under EAGER, checked at 3.6.0; always, before 2.4), which the
    coordinator had before it completed the join: GroupCoordinator.onCompleteJoin removes the members
    that have not rejoined and then logs "Stabilized group G generation N" (0.10.2.1, 2.8.0, 3.6.0),
    the generation's `stabilized_ms`. unowned_gaps: the time from the end to that Stable may still
    have been the member's."""
    out: dict[Any, dict[int, tuple[int | None, frozenset[str]]]] = {}
    if generations is None or generations.empty:
        return out
    for g, rows in generations.groupby("group_id", dropna=False, sort=False):
        gens = sorted(_rows(rows), key=lambda r: r["generation"])
        for r, nxt in zip(gens, gens[1:], strict=False):
            if r.get("ended_ms") is None or not _eager(r):
                continue
            st = nxt.get("stabilized_ms")
            out.setdefault(g, {})[int(r["ended_ms"])] = (int(st) if st is not None else None,
                                                          frozenset(str(m) for m in (nxt.get("members") or ())))
    return out


def _minus(lo: int, hi: int, spans: list[tuple[int, int]]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(the parts of [lo, hi) outside `spans`, the parts inside them)."""
    outside, inside, cur = [], [], lo
    for a, b in _union([(max(a, lo), min(b, hi)) for a, b in spans if a < hi and b > lo]):
        if a > cur:
            outside.append((cur, a))
        inside.append((a, b))
        cur = max(cur, b)
    if cur < hi:
        outside.append((cur, hi))
    return outside, inside


def unowned_gaps(ownership: pd.DataFrame,
                 unlogged: dict[Any, list[tuple[int, int, frozenset[str] | None]]] | None = None,
                 owned_unlogged: dict[Any, list[tuple[int, int, frozenset[str], bool]]] | None = None,
                 held_unlogged: list[dict[str, Any]] | None = None,
                 rejoined: dict[Any, dict[int, tuple[int | None, frozenset[str]]]] | None = None,
                 eager: set[tuple[Any, int, int]] | None = None) -> list[dict[str, Any]]:
    """Per partition, the time between one ownership interval's end and the next one's start when no
    interval covers it (docs/report.md, "partition-seconds with no owner"): the time before a
    partition's first interval and after its last one is not counted (the logs do not say whether
    it had an owner then); an interval with no end (held when the logs end) covers the rest. Each
    gap: group_id, topic, partition, from_ms, to_ms, ms, estimated (bool), why (the keys of
    UNOWNED_ESTIMATED_WHY that apply): an interval before it (since the previous gap) or the one
    starting it was inferred, or one before it ended at its owner's last line (so may have lasted
    into the gap), or a generation stable during it may have given the partition to a member the
    logs do not show (`unlogged`: unlogged_spans). The part of a gap in which a generation gave the
    partition to a member whose assignment no line shows (`owned_unlogged`: unlogged_owned_spans) is
    not a gap: it goes to `held_unlogged` (group_id, topic, partition, from_ms, to_ms), and what is left
    either side of it is a gap estimated for that member (`unlogged`): the most it can be after it
    (the member revoked at the rebalance's start or later), the least before it (it got the partition
    at its SyncGroup response, just after the Stable). Each gap's `maybe_owned_ms`: how much of it a
    member the logs do not show may have held the partition (its upper bound's slack): the part in a
    stable generation that may have given it to such a member (unlogged_spans: a generation with a
    member without log or assignment, or an eager one whose known assignments leave it out, `eager`:
    eager_spans) and not proven
    (unlogged_owned_spans); after a span of unlogged_owned_spans that runs to its generation's end,
    the whole gap (that member revoked at the rebalance or later); after an interval the replay
    inferred to end at a rebalance, up to the next generation's Stable when its member rejoined
    (`rejoined`: rejoins), else the whole gap; after an interval the replay inferred for a member the
    coordinator removed on session expiry (ended at its last heartbeat), the whole gap: without its
    log, a process that stopped (crashed) cannot be told from one that paused (a long GC, a frozen
    VM) and still held its assignment until it woke and rejoined."""
    out: list[dict[str, Any]] = []
    if ownership is None or ownership.empty:
        return out
    cols = ["group_id", "topic", "partition", "start_ms", "end_ms", "end_reason", "inferred", "member_id"]
    own = ownership.reindex(columns=cols).dropna(subset=["start_ms"])
    for (g, topic, part), rows in _by_partition(own):
        covered_until: int | None = None
        ended: list[dict[str, Any]] = []   # the inferred intervals with an end since the previous gap
        before: set[str] = set()   # what the intervals since the previous gap leave unproven
        for r in sorted(rows, key=lambda x: (x["start_ms"], x["end_ms"] if x["end_ms"] is not None else 1 << 62)):
            start = int(r["start_ms"])
            end = int(r["end_ms"]) if r["end_ms"] is not None else 1 << 62
            mine = {w for w, on in (("inferred", bool(r.get("inferred"))),
                                    ("last_line", r.get("end_reason") == "last_line"),
                                    ("last_heartbeat", r.get("end_reason") == "last_heartbeat")) if on}
            if covered_until is not None and start > covered_until:
                why = before | ({"inferred"} & mine)
                tp = f"{topic}-{_none(part)}"
                near = [(lo, hi, known) for lo, hi, known in (unlogged or {}).get(g, ())
                        if lo < start and hi > covered_until and (known is None or tp not in known)]
                if near:
                    why.add("unlogged")
                spans = [x for x in (owned_unlogged or {}).get(g, ())
                         if x[0] < start and x[1] > covered_until and tp not in x[2]]
                pieces, inside = _minus(covered_until, start, [(lo, hi) for lo, hi, _k, _o in spans])
                # (what of each piece a member the logs do not show may have held)
                maybe = [(lo, hi) for lo, hi, known in near if known is None or (g, lo, hi) in (eager or ())]
                opened = {hi for _lo, hi, _k, open_end in spans if open_end}
                for x in ended:   # (the intervals the replay inferred, since the previous gap)
                    xe = int(x["end_ms"])
                    if x.get("end_reason") == "rebalance":
                        st, members = (rejoined or {}).get(g, {}).get(xe, (None, frozenset()))
                        maybe.append((xe, min(start, st) if st is not None and x.get("member_id") in members
                                      else start))
                    elif x.get("end_reason") == "last_heartbeat":
                        maybe.append((xe, start))   # (a paused process still holds it: no log to tell)
                if inside:
                    why.add("unlogged")
                    if held_unlogged is not None:
                        held_unlogged.extend({"group_id": g, "topic": topic, "partition": _none(part),
                                              "from_ms": a, "to_ms": b} for a, b in inside)
                reasons = sorted(why)
                for a, b in pieces:
                    may = _union([(max(lo, a), min(hi, b)) for lo, hi in maybe + [(a, b)] * (a in opened)
                                  if lo < b and hi > a])
                    out.append({"group_id": g, "topic": topic, "partition": _none(part), "from_ms": a,
                                "to_ms": b, "ms": b - a, "estimated": bool(reasons), "why": reasons,
                                "maybe_owned_ms": sum(hi - lo for lo, hi in may) if reasons else 0})
                before, ended = set(), []
            before |= mine
            if r.get("inferred") and r["end_ms"] is not None:
                ended.append(r)
            covered_until = end if covered_until is None else max(covered_until, end)
    return out


def _by_partition(df: pd.DataFrame) -> list[tuple[tuple[Any, Any, Any], list[dict[str, Any]]]]:
    """The frame's rows (dicts of `_rows`, read once) grouped by (group_id, topic, partition), in
    the order of `groupby([...], dropna=False, sort=True)`: keys sorted, a null key last; rows in
    table order. (A pandas groupby and a `_rows` per partition cost most of a large run's report.)"""
    parts: dict[tuple[Any, Any, Any], list[dict[str, Any]]] = {}
    for r in _rows(df):
        parts.setdefault((r["group_id"], r["topic"], r["partition"]), []).append(r)
    return sorted(parts.items(), key=lambda kv: tuple(x for v in kv[0] for x in (v is None, v)))


def _union(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def inferred_only(ownership: pd.DataFrame) -> list[dict[str, Any]]:
    """Per partition, the spans only inferred intervals cover (no observed one): ownership the replay
    infers and no consumer's log shows; time with no owner inside them would not show as a gap.
    An interval with no end is taken up to its group's last ownership time."""
    out: list[dict[str, Any]] = []
    if ownership is None or ownership.empty or "inferred" not in ownership:
        return out
    own = ownership.dropna(subset=["start_ms"])
    last = own.groupby("group_id", dropna=False)[["start_ms", "end_ms"]].max().max(axis=1).to_dict()
    for (g, topic, part), rows in _by_partition(own):
        until = last.get(g)
        until = int(until) if until is not None and until == until else None
        inf, obs = [], []
        for r in rows:
            end = r["end_ms"] if r["end_ms"] is not None else until
            if end is None or end <= r["start_ms"]:
                continue
            (inf if r.get("inferred") else obs).append((int(r["start_ms"]), int(end)))
        if not inf:
            continue
        obs = _union(obs)
        for lo, hi in _union(inf):
            cur = lo
            for olo, ohi in obs:
                if ohi <= cur or olo >= hi:
                    continue
                if olo > cur:
                    out.append({"group_id": g, "topic": topic, "partition": _none(part), "from_ms": cur, "to_ms": olo})
                cur = max(cur, ohi)
            if cur < hi:
                out.append({"group_id": g, "topic": topic, "partition": _none(part), "from_ms": cur, "to_ms": hi})
    return out


def partitions_known(memberships: pd.DataFrame | None, generations: pd.DataFrame | None
                     ) -> dict[tuple[Any, int, int], dict[str, int]]:
    """(group, from, to) of each classic generation span (unlogged_spans' bounds) -> topic -> the
    highest partition number that generation or a later one names in an assignment, up to the next
    generation a metadata change started (partitions are only ever added: one a later generation
    names existed before, unless the topic grew in between). Consumer-protocol (KIP-848) and streams
    (KIP-1071) epochs have none: their members reconcile incrementally, so an epoch's logged
    assignments need not hold every partition (docs/replay.md, unowned_partitions)."""
    out: dict[tuple[Any, int, int], dict[str, int]] = {}
    if memberships is None or generations is None or memberships.empty or generations.empty:
        return out
    named: dict[tuple[Any, Any], dict[str, int]] = {}
    for m in _rows(memberships):
        top = named.setdefault((m["group_id"], m.get("generation")), {})
        for tp in m.get("assigned") or ():
            t, _, n = str(tp).rpartition("-")
            if t and n.isdigit():
                top[t] = max(top.get(t, -1), int(n))
    for g, rows in generations.groupby("group_id", dropna=False, sort=False):
        gens = sorted(_rows(rows), key=lambda r: r["generation"])
        seen: dict[str, int] = {}
        for r in reversed(gens):
            for t, n in named.get((g, r["generation"]), {}).items():
                seen[t] = max(seen.get(t, -1), n)
            incremental = str(r.get("protocol_type") or "").startswith(("consumer (KIP-848)", "streams (KIP-1071)"))
            if r.get("stabilized_ms") is not None and not incremental:
                hi = int(r["ended_ms"]) if r.get("ended_ms") is not None else 1 << 62
                out[(g, int(r["stabilized_ms"]), hi)] = dict(seen)
            if r.get("cause") == "metadata_or_subscription_change":
                seen = {}   # (before it, the topic may have had fewer partitions)
    return out


def unknown_ends(ownership: pd.DataFrame,
                 unlogged: dict[Any, list[tuple[int, int, frozenset[str] | None]]] | None,
                 known: dict[tuple[Any, int, int], dict[str, int]] | None = None) -> list[dict[str, Any]]:
    """Per partition, the time before its first ownership interval and after its last one (which
    unowned_gaps does not count) in which the logs leave its owner unknown: a generation stable then
    gave it to a member the logs do not show (`unlogged`: unlogged_spans, the partition not among
    its members' known assignments, or a member without a log and an assignment). Before the first
    interval (only for a partition that generation or a later one names before the topic could have
    grown: `known`, partitions_known): from that generation's Stable to the first interval's start;
    after the last one (an
    end, not held at log end): from that end to the end of the last such generation (at most the
    group's last ownership time). Time with no owner inside them is not counted, and the views say
    so. Each: group_id, topic, partition, from_ms, to_ms."""
    out: list[dict[str, Any]] = []
    if ownership is None or ownership.empty or not unlogged:
        return out
    own = ownership.dropna(subset=["start_ms"])
    last = own.groupby("group_id", dropna=False)[["start_ms", "end_ms"]].max().max(axis=1).to_dict()
    for (g, topic, part), rs in _by_partition(own):
        spans = unlogged.get(g) or []
        if not spans:
            continue
        tp = f"{topic}-{_none(part)}"
        # (the logs' last time of the group: its last ownership time or a generation's end)
        until = last.get(g)
        until = max(([int(until)] if until is not None and until == until else [])
                    + [hi for _lo, hi, _k in spans if hi < 1 << 62], default=None)
        first = min(int(r["start_ms"]) for r in rs)
        ends = [r["end_ms"] for r in rs]
        final = None if any(e is None for e in ends) else max(int(e) for e in ends)
        # (only classic generations: `known` has no consumer-protocol epoch)
        blind = [(lo, hi) for lo, hi, held in spans if (held is None or tp not in held) and (g, lo, hi) in (known or {})]
        num = int(part) if part is not None and part == part else None
        existed = [lo for lo, hi in blind if lo < first and num is not None
                   and (known or {}).get((g, lo, hi), {}).get(str(topic), -1) >= num]
        mine = [(min(existed), first)] if existed else []
        if final is not None:
            later = [min(hi, until) for _lo, hi in blind if hi > final and until is not None]
            if later and max(later) > final:
                mine.append((final, max(later)))
        for lo, hi in _union([(lo, hi) for lo, hi in mine if hi > lo]):
            out.append({"group_id": g, "topic": topic, "partition": _none(part), "from_ms": lo, "to_ms": hi})
    return out


def unowned_figure(ownership: pd.DataFrame, memberships: pd.DataFrame | None = None,
                   generations: pd.DataFrame | None = None, client_members: set[str] | None = None,
                   findings: pd.DataFrame | None = None) -> dict[str, Any]:
    """The partition-seconds with no owner in the logs, and the part of it that is estimated, with
    the reasons in words (unowned_gaps; the report's headline and the dashboard say the same).
    `client_members`: the member ids the client lines name (events, side client); `findings`: the
    replay's (session expiries' last heartbeats: unlogged_owned_spans)."""
    unlogged = unlogged_spans(memberships, generations, client_members or set()) if memberships is not None else None
    held: list[dict[str, Any]] = []
    gaps = unowned_gaps(ownership, unlogged, unlogged_owned_spans(memberships, generations, findings), held,
                        rejoins(generations), eager_spans(generations))
    est = [x for x in gaps if x["estimated"]]
    why = sorted({w for x in est for w in x["why"]})
    only = inferred_only(ownership)
    unknown = unknown_ends(ownership, unlogged, partitions_known(memberships, generations))
    owned, blind = groups_owning(ownership), groups_without_partitions(ownership, generations)
    return {"ms": sum(x["ms"] for x in gaps), "estimated_ms": sum(x["ms"] for x in est),
            "maybe_owned_ms": sum(x["maybe_owned_ms"] for x in est),
            "estimated_why": [UNOWNED_ESTIMATED_WHY[w] for w in why], "gaps": gaps,
            "inferred_owned_ms": sum(x["to_ms"] - x["from_ms"] for x in only), "inferred_only": only,
            "unknown_ms": sum(x["to_ms"] - x["from_ms"] for x in unknown), "unknown": unknown,
            "held_unlogged_ms": sum(x["to_ms"] - x["from_ms"] for x in held), "held_unlogged": held,
            "groups_owning": len(owned), "groups_without_partitions": blind}


def groups_owning(ownership: pd.DataFrame | None) -> list[str]:
    """The groups with at least one ownership interval (observed or inferred) that has a start."""
    if ownership is None or ownership.empty:
        return []
    return sorted({str(g) for g in ownership.dropna(subset=["start_ms"])["group_id"].tolist() if g == g and g is not None})


def groups_without_partitions(ownership: pd.DataFrame | None, generations: pd.DataFrame | None) -> list[str]:
    """The groups whose logs show a generation but no ownership interval: no consumer's log shows an
    assignment and the replay infers none (e.g. only the broker's lines, which name members but not
    partitions). Their partition-seconds with no owner are unknown, not 0: the views say so."""
    if generations is None or generations.empty:
        return []
    with_generation = {str(g) for g in generations["group_id"].tolist() if g == g and g is not None}
    return sorted(with_generation - set(groups_owning(ownership)))


def number(value: Any) -> str:
    """An integer with thousands separators (27,568); anything else as text."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.0f}" if value == int(value) else f"{value:,.3f}".rstrip("0")
    return str(value)


MAX_GROUP_NAMES = 5   # groups named in a sentence; the rest counted


def unowned_sentence(seconds: float | None, estimated_seconds: float, why_estimated: list[str], inferred_seconds: float = 0,
                     unknown_seconds: float = 0, no_partition_groups: list[str] | tuple[str, ...] = (),
                     unlogged_held_seconds: float = 0, maybe_owned_seconds: float = 0) -> str:
    """The figure (unowned_figure, in seconds) as every view prints it, its figures first and then
    why: the total, then the part that is estimated (`why_estimated`: the reasons), then how much of the estimate a member the logs do not show may have
    held (`maybe_owned_seconds`: unowned_gaps' maybe_owned_ms, counted in the figure as the most it
    can be), then the ownership only inferred and the time whose owner is unknown
    (unknown_ends; time with no owner inside either is not counted), then the time between two owners
    in the logs that a generation gave to a member whose assignment no line shows (`unlogged_held_seconds`:
    unowned_figure's held_unlogged, unlogged_owned_spans), then the groups whose logs name no partition
    their members owned (groups_without_partitions). `seconds` None: no group of the
    scope has an ownership interval, so there is no figure at all, only the reason."""
    blind = list(no_partition_groups)
    if seconds is None:
        if len(blind) == 1:
            return ("unknown: the logs name no partition this group's members owned (no line shows an "
                    "assignment of one and the replay infers none)")
        return ("unknown: the logs name no partition the members of these groups owned (no line shows an "
                f"assignment of one and the replay infers none): {_names(blind)}")
    # the figures first, in one line a reader takes in at a glance; then why, in the same order
    text = number(round(seconds, 3))
    if estimated_seconds:
        text += f" ({number(round(estimated_seconds, 3))} of it estimated"
        if maybe_owned_seconds:
            text += (f", up to {number(round(maybe_owned_seconds, 3))} of which may instead have had an owner the "
                     "logs do not show")
        text += ")"
    apart = []
    if inferred_seconds:
        apart.append(f"{number(round(inferred_seconds, 3))} partition-seconds owned only by the replay's inference")
    if unknown_seconds:
        apart.append(f"{number(round(unknown_seconds, 3))} partition-seconds whose owner the logs do not show, before "
                     "a partition's first owner in the logs or after its last")
    if unlogged_held_seconds:
        apart.append(f"{number(round(unlogged_held_seconds, 3))} partition-seconds between two owners in the logs, "
                     "held by a member whose assignment no line shows")
    if apart:
        text += ". Not counted: " + "; ".join(apart)
    if blind:
        text += (f". Not known for {number(len(blind))} other "
                 f"group{'s' if len(blind) != 1 else ''}, whose logs name no partition their members owned: "
                 f"{_names(blind)}")
    if not (estimated_seconds or apart):
        return text + ("." if blind else "")
    why = []
    if estimated_seconds:
        why.append("Estimated: " + "; ".join(why_estimated) + ".")
    if maybe_owned_seconds:
        why.append("May have had an owner: a member whose log is not among the inputs held the partition just "
                   "before, and may have kept it until it revoked it for the rebalance (an eager member revokes as it "
                   "rejoins) or, paused rather than crashed, past its last heartbeat; or a generation may have given "
                   "it to such a member. The figure counts that time as without an owner, the most it can be.")
    if inferred_seconds:
        why.append("Owned only by inference: no consumer's log shows that ownership, the replay infers it from the "
                   "generations; time with no owner within it is not counted.")
    if unknown_seconds:
        why.append("Owner not shown: a generation then gave the partition to a member whose log is not among the "
                   "inputs or whose assignment no line shows; time with no owner within it is unknown and not "
                   "counted.")
    if unlogged_held_seconds:
        why.append("Held by a member no line shows: a generation gave the partition to a member whose assignment no "
                   "line shows (an eager generation assigns every partition), which held it from the generation's "
                   "Stable until the rebalance that ended it.")
    return text + ". " + " ".join(why)


def _names(groups: list[str]) -> str:
    shown = ", ".join(groups[:MAX_GROUP_NAMES])
    more = len(groups) - MAX_GROUP_NAMES
    return shown + (f" and {number(more)} more" if more > 0 else "")
