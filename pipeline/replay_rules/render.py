"""Plain-text rendering of a replay (timeline and findings) and of a what-if comparison."""

from __future__ import annotations

from typing import Any

from pipeline.timefmt import duration, iso

SEVERITY_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3, "info": 4}


def timeline(result, max_evidence: int = 3) -> str:
    cfg = result.settings
    out = [f"group {result.group_id or '(no group id)'}: {len(result.generations)} generation(s), "
           f"{len(result.findings)} finding(s), {result.stats['events']} event(s)"
           + (f", {result.stats['duplicates_dropped']} duplicate line(s) dropped" if result.stats["duplicates_dropped"] else "")
           + (f", {n} line(s) of several consumers in one file left out"
              if (n := result.stats.get("mixed_stream_lines_left_out")) else "")]
    if cfg is not None:
        out.append("settings: " + ", ".join(
            f"{name}={getattr(cfg, attr)} ({cfg.origin.get(attr, '?')})" for name, attr in (
                ("session.timeout.ms", "session_timeout_ms"), ("max.poll.interval.ms", "max_poll_interval_ms"),
                ("heartbeat.interval.ms", "heartbeat_interval_ms"), ("assignor", "assignor"))))
    out.append("")
    out.append("timeline:")
    for g in result.generations:
        took = (f"rebalance {duration(g['rebalance_ms'])}" if g["rebalance_ms"] is not None
                else "not stabilized in the logs" if g["stabilized_ms"] is None else "rebalance duration unknown")
        who = f", trigger {g['trigger_member']}" if g["trigger_member"] else ""
        out.append(f"  gen {g['generation']:>4}  {iso(g['started_ms']) or '?':24}  {g['cause']}{who}  "
                   + (f"[{g['member_count']} member(s)" if g["member_count"] is not None else "[member count unknown")
                   + f", {_leader(g)}, {took}"
                   + (", inferred" if g["inferred"] else "") + "]")
        out.append(f"            {g['cause_detail']}")
        if g["evidence"]:
            out.append(f"            evidence: {', '.join(g['evidence'][:max_evidence])}")
    out.append("")
    out.append("findings:" if result.findings else "findings: none")
    for f in sorted(result.findings, key=lambda f: (SEVERITY_ORDER.get(f["severity"], 9), f["start_ms"] or 0)):
        out.append(f"  [{f['severity']}] {f['kind']}  {iso(f['start_ms']) or '?'}  {f['title']}")
        out.append(f"      {f['explanation']}")
        if f["evidence"]:
            more = len(f["evidence"]) - max_evidence
            out.append(f"      evidence: {', '.join(f['evidence'][:max_evidence])}" + (f" (+{more} more)" if more > 0 else ""))
    return "\n".join(out) + "\n"


def what_if(w) -> str:
    from pipeline.replay_rules.settings import kafka_name

    assumed = getattr(w, "assumed_equal", {}) or {}
    if w.changed:   # named as the user typed them (session.timeout.ms), not as attributes
        out = ["what if: " + ", ".join(f"{kafka_name(k)} {a} -> {b}" for k, (a, b) in w.changed.items())]
    elif assumed:
        out = ["what if: " + "; ".join(
            f"{kafka_name(k)} = {v} equals the value assumed in force ({why}), which the logs do not show"
            for k, (v, why) in assumed.items()) + ". If the group ran with another value, give that one with --set "
               "to compare"]
    else:
        out = ["what if: the settings given equal those the logs show in force; nothing changes"]
    for k, (v, why) in assumed.items() if w.changed else ():
        out.append(f"  note: {kafka_name(k)} = {v} equals the value assumed in force ({why}), which the logs do not "
                   "show")
    line = (f"  rebalances: {w.rebalances_observed} observed -> {w.rebalances_after} "
            f"({len(w.rebalances_avoided)} avoided, {len(w.rebalances_added)} added)")
    if w.undetermined:
        # the rules cannot decide these cases: the figure is the most that remain, not a verdict
        line = (f"  rebalances: {w.rebalances_observed} observed -> at most {w.rebalances_after} "
                f"({len(w.rebalances_avoided)} avoided for certain, {len(w.rebalances_added)} added, "
                f"{len(w.undetermined)} undetermined: each may or may not be avoided)")
    out.append(line)
    for a in w.rebalances_avoided:
        out.append(f"    avoided: generation {a['generation']} ({a['cause']}, {a['member']}): {a['why']}")
    for a in w.rebalances_added:
        where = f"after generation {a['after_generation']}" if "after_generation" in a else f"at {iso(a.get('at_ms'))}"
        out.append(f"    added: {where}" + (f" ({a['member']})" if a.get("member") else "") + f": {a['why']}")
    for a in w.expulsions_avoided:
        out.append(f"  member {a['member']} not expelled: silent {duration(a['silence_ms'])} < session.timeout.ms "
                   f"{a['session_timeout_ms'][1]}")
    for a in w.poll_timeouts_avoided:
        out.append(f"  member {a['member']} keeps its partitions: poll stall {duration(a['stall_ms'])} < "
                   f"max.poll.interval.ms {a['max_poll_interval_ms'][1]}")
    for a in w.expulsions_added:
        out.append(f"  member {a['member']} would be expelled: silent {duration(a['silence_ms'])} "
                   f"(evidence {', '.join(a['evidence'])})")
    for a in w.undetermined:
        out.append(f"  undetermined: generation {a['generation']} ({a['cause']}, {a['member']}): {a['why']}")
    if w.assignor:
        out.append(f"  assignor {w.assignor['from']} -> {w.assignor['to']}: {w.assignor['note']}")
    if w.model:
        m = w.model
        how = (" (its replay of the members as the logs show them; for the undetermined cases above it is "
               "an estimate, not a proof)" if w.undetermined else "")
        out.append(f"  reference coordinator ({m['impl']}){how}: {m['rebalances_observed_settings']} rebalance(s) with the "
                   f"observed settings, {m['rebalances_new_settings']} with the new ones; expelled: "
                   f"{', '.join(m['expelled_new_settings']) or 'nobody'} (observed settings: "
                   f"{', '.join(m['expelled_observed_settings']) or 'nobody'})")
    return "\n".join(out) + "\n"


def _leader(g: dict[str, Any]) -> str:
    """The consumer (KIP-848) and streams (KIP-1071) protocols have no group leader: the coordinator
    computes the assignment itself."""
    if g["leader"]:
        return f"leader {g['leader']}"
    if str(g.get("protocol_type") or "").startswith(("consumer (KIP-848)", "streams (KIP-1071)")):
        return "no leader (the broker assigns)"
    return "leader unknown"
