"""Concrete recommendations tied to findings and to the settings seen in the logs.

Each rule looks at one group's findings (their `details` hold the observed figures and the
settings in force) and says what to change, by how much, and which what-if replay supports it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pipeline.timefmt import duration

# Protocols whose rebalances stop the world (every member revokes everything): eager.
EAGER = {"range", "roundrobin", "sticky"}
LARGE_GROUP = 10


def _num(details: dict[str, Any], *keys: str) -> int | None:
    for k in keys:
        v = details.get(k)
        if isinstance(v, (int, float)) and v == v:
            return int(v)
    return None


def _limit(findings: list[dict[str, Any]], keys: tuple[str, ...], assumed_key: str) -> tuple[int | None, str]:
    """The smallest limit the findings state, and its words: '(45 s)', or '(45 s, a version default
    assumed: the logs do not print it)' when the finding that states it only assumed it; None and
    '(its value is not in the logs)' when no finding states one. A recommendation never quotes an
    assumed default as a fact, nor invents one."""
    stated = [(v, bool(f["details"].get(assumed_key))) for f in findings
              if (v := _num(f["details"], *keys)) is not None]
    if not stated:
        return None, "(its value is not in the logs)"
    limit = min(v for v, _ in stated)
    assumed = any(a for v, a in stated if v == limit)
    return limit, (f"({duration(limit)}, a default assumed: the logs do not print it)" if assumed
                   else f"({duration(limit)})")


def _what_if(group: str, setting: str, value: Any) -> dict[str, str]:
    return {"command": f"coordscope replay RUN_DIR --group {group} --set {setting}={value}"}


def _round_up(ms: int, step: int = 5000) -> int:
    return ((ms + step - 1) // step) * step


def recommend(section: dict[str, Any], findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    group = section["group_id"]
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for f in findings:
        by_kind.setdefault(f["kind"], []).append(f)
    recs: list[dict[str, Any]] = []

    def add(rid: str, title: str, text: str, because: list[dict[str, Any]], setting: str | None = None,
            value: Any = None, what_if: dict[str, Any] | None = None) -> None:
        recs.append({
            "id": rid, "title": title, "text": text, "because": [f["id"] for f in because],
            "setting": setting, "value": value, "what_if": what_if,
        })

    observed_gaps = section.get("observed") or {}
    polls = by_kind.get("poll_timeout", [])
    if polls:
        observed = max((_num(f["details"], "observed_ms", "gap_ms", "processing_ms") or 0) for f in polls)
        observed = max(observed, observed_gaps.get("poll_gap_ms") or 0)
        limit, limit_words = _limit(polls, ("limit_ms", "max_poll_interval_ms"), "max_poll_interval_assumed")
        # with a measured stall: 1.5x it; without one (the log shows only that the limit was passed): 2x the limit
        target = (_round_up(max(int(observed * 1.5), (limit or 0) + 1), 30000) if observed
                  else _round_up(2 * limit, 30000) if limit else None)
        text = (f"{len(polls)} member(s) were expelled because a poll loop took longer than "
                f"max.poll.interval.ms {limit_words}")
        text += (f"; the longest observed gap between polls was {duration(observed)}." if observed
                 else "; the logs do not show how long the slowest batch took.")
        text += (" Raise max.poll.interval.ms above the slowest batch" + (f" (e.g. {target} ms)" if target else "")
                 + ", or lower max.poll.records so one batch is processed in time.")
        add("raise-max-poll-interval", "Give slow batches more time, or make batches smaller", text, polls,
            "max.poll.interval.ms", target, _what_if(group, "max.poll.interval.ms", target) if target else None)

    expiries = by_kind.get("session_expiry", [])
    if expiries:
        pause = max((_num(f["details"], "silence_ms", "gap_ms", "observed_ms") or 0) for f in expiries)
        pause = max(pause, observed_gaps.get("heartbeat_gap_ms") or 0)
        limit, limit_words = _limit(expiries, ("session_timeout_ms", "limit_ms"), "session_timeout_assumed")
        target = _round_up(max(int(pause * 1.5), (limit or 0) + 1), 5000) if pause else None
        text = (f"{len(expiries)} member(s) went silent for longer than session.timeout.ms {limit_words}"
                + (f"; the longest silence was {duration(pause)}" if pause else "")
                + ". Look for GC pauses or stalls on those hosts first; if such pauses are expected, raise "
                "session.timeout.ms" + (f" to about {target} ms" if target else "")
                + " (keep heartbeat.interval.ms at a third of it).")
        add("raise-session-timeout", "Members were expelled for missing heartbeats", text, expiries,
            "session.timeout.ms", target, _what_if(group, "session.timeout.ms", target) if target else None)

    restarts = [g for g in section["timeline"] if g["cause"] in ("member_left", "member_joined", "static_member_restart")]
    storms = by_kind.get("rebalance_storm", [])
    if storms or len(restarts) >= 4:
        text = (f"{len(restarts)} rebalances were caused by members leaving and joining"
                + (f" and {len(storms)} rebalance storm(s) were found" if storms else "")
                + ". If these are restarts (rolling deploys), give each instance a stable group.instance.id "
                "(static membership) and a session.timeout.ms longer than a restart: a restarting static "
                "member gets its partitions back without a rebalance.")
        add("static-membership", "Use static membership for restarts", text, storms,
            "group.instance.id", "<stable per instance>", None)

    protocols = {g["protocol"] for g in section["timeline"] if g["protocol"]}
    biggest = max((g["member_count"] or 0 for g in section["timeline"]), default=0)
    slow = [g for g in section["timeline"] if (g["duration_ms"] or 0) > 10000]
    if protocols & EAGER and (biggest >= LARGE_GROUP or len(slow) >= 2):
        # a generation whose member count the logs cannot prove may have had more than the biggest known
        counted = all(g["member_count"] is not None for g in section["timeline"])
        text = (f"The group uses the eager {', '.join(sorted(protocols & EAGER))} assignor; every rebalance "
                + (f"stops all {biggest} members" if counted else
                   f"stops every member (at least {biggest} in one generation; some generations' counts are unknown)")
                + ". cooperative-sticky revokes only the partitions that move, "
                "so members keep processing during rebalances.")
        add("cooperative-sticky", "Switch to cooperative rebalancing", text, by_kind.get("rebalance_storm", []),
            "partition.assignment.strategy", "cooperative-sticky",
            _what_if(group, "partition.assignment.strategy", "cooperative-sticky"))

    skips = by_kind.get("offset_skip", [])
    if skips:
        add("offset-reset-policy", "Offsets were skipped: check auto.offset.reset and retention",
            f"{len(skips)} jump(s) forward left offset ranges unprocessed (possible data loss). If a reset to "
            "latest caused it, set auto.offset.reset=earliest, and make sure the group commits often enough "
            "that its offsets do not expire (offsets.retention.minutes) while it is down.", skips,
            "auto.offset.reset", "earliest")
    rewinds = by_kind.get("offset_rewind", []) + by_kind.get("stale_generation_commit", [])
    if rewinds:
        add("commit-on-revoke", "Commit before partitions move",
            f"{len(rewinds)} finding(s) show offsets committed late or from a stale generation, so ranges were "
            "processed twice. Commit synchronously in onPartitionsRevoked (or use cooperative-sticky) so the "
            "next owner starts where the previous one stopped; make processing idempotent.", rewinds)
    doubles = by_kind.get("double_ownership", [])
    if doubles:
        add("stop-on-lost", "Stop processing when partitions are lost",
            f"{len(doubles)} partition(s) were processed by two members at once: an expelled member kept "
            "working. Stop processing in onPartitionsLost and check the poll loop for long stalls.", doubles)
    failovers = by_kind.get("coordinator_failover", [])
    if failovers:
        add("broker-health", "Check the coordinator broker",
            f"The group coordinator moved {len(failovers)} time(s). Check the health and restarts of the brokers "
            "hosting the group's __consumer_offsets partition.", failovers)
    return recs


def whatif_results(recs: list[dict[str, Any]], events: Callable[[], list[Any]]) -> None:
    """Run the what-if replay behind each recommended setting and record what it changes."""
    from pipeline.replay import what_if

    loaded: list[Any] | None = None
    for rec in recs:
        wi = rec.get("what_if")
        if not wi or rec.get("value") is None:
            continue
        if loaded is None:
            loaded = events()
        try:
            _, result = what_if(loaded, {rec["setting"]: str(rec["value"])})
        except (ValueError, KeyError) as exc:  # a setting the replay cannot vary
            wi["result"] = f"not run: {exc}"
            continue
        wi["rebalances_observed"] = result.rebalances_observed
        wi["rebalances_after"] = result.rebalances_after
        wi["expulsions_avoided"] = len(result.expulsions_avoided)
        wi["result"] = (
            f"rebalances {result.rebalances_observed} -> {result.rebalances_after}; "
            f"{len(result.expulsions_avoided)} expulsion(s) and {len(result.poll_timeouts_avoided)} poll "
            f"timeout(s) avoided" + (f", {len(result.expulsions_added)} added" if result.expulsions_added else "")
            + (f"; {len(result.undetermined)} case(s) undetermined (the logs do not show how long the "
               "member was stalled or silent)" if result.undetermined else "")
        )
