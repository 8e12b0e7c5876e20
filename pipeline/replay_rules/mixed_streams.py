"""One file holding the lines of several consumer processes under one client id.

The collector follows each client's log as a stream, keyed by (file, client id) (the file without
its rotation suffixes, state.stream_source), and gives the
lines that name no member (assignments and revocations, "(Re-)joining group", offsets set and
committed, heartbeats) to the member the stream last named. That holds for one process's log. It
does not when several processes' logs reach the replay as one file with the same client id: logs
concatenated (`cat host2.log host1.log > all.log`), merged by a collector in arrival order, or
written by several consumers of one application at once. Java clients without `client.id` set
are all `consumer-<group>-1` (ConsumerConfig's default client id, KafkaConsumer 2.2+), so this is
the common case, and each member would be given the other's partitions.

A stream is mixed when its lines prove two processes:
- a member id comes back after another member id of the stream (A, B, A): a consumer's member id
  changes only when it joins anew (the broker gives a new id after UNKNOWN_MEMBER_ID, a restart or
  a static member's rejoin: AbstractCoordinator.JoinGroupResponseHandler, 0.9-4.x), never back to
  an old one;
- one generation is joined twice ("Successfully joined group with generation N"), by lines naming
  no group.instance.id, with no member id or two different ones: a dynamic consumer's next join is
  of a later generation (GroupMetadata.initNextGeneration bumps it for every rebalance); only a
  static member's restart rejoins the same generation (KIP-345, 2.3+), and its lines name its
  instance id;
- its lines name two group.instance.ids: one consumer has one (ConsumerConfig group.instance.id).

In a mixed stream no line can be given to a process: the lines naming no member belong to any of
them, and even a member named by its lines cannot be followed (its silence, taken elsewhere as the
end of its process or the start of its expiry, is only the other processes' lines being read in
its place). So the stream's lines are left out of the replay, as if its file were not given
(counted, and told in an `unexplained` finding naming the file and what proves the mix); the other
files' lines, the broker's and the dumps' still show what they show, and what only this file
showed is then unknown: the replay's rules for a missing member log apply.

Many such files name each line's origin (`kubectl logs --prefix`, stern, `docker compose logs`, a
collector's JSON record, a syslog header, Spring Boot's PID: parsers/origin.py). Then the stream is
split before this check (state.stream_namer): each origin of the file is a stream of its own, named
"FILE [ORIGIN]", and only a stream still proven mixed (lines without an origin, or one origin
holding several processes) is left out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from parsers.events import Event
from pipeline.replay_rules.state import stream_namer


def mixed_streams(ordered: list[Event], name: Callable[[Event], str | None] | None = None
                  ) -> dict[tuple[str, str | None], dict[str, Any]]:
    """(stream, client id) -> what proves its lines are of several processes (the first proof); the
    stream is the file, or "FILE [ORIGIN]" in a file split by its lines' origins (`name`:
    state.stream_namer's function)."""
    if name is None:
        name = stream_namer(ordered)
    last: dict[tuple[str, str | None], str] = {}
    seen: dict[tuple[str, str | None], set[str]] = {}
    instance: dict[tuple[str, str | None], str] = {}
    joined: dict[tuple[str, str | None], dict[int, tuple[str | None, str]]] = {}
    out: dict[tuple[str, str | None], dict[str, Any]] = {}

    def mixed(key: tuple[str, str | None], ev: Event, ids: list[str], proof: str) -> None:
        out[key] = {"member_ids": ids, "evidence": ev.evidence, "proof": proof}

    for ev in ordered:
        if ev.side != "client":
            continue
        key = (name(ev), ev.client_id)
        if key in out:
            continue
        mid = ev.member_id
        if ev.instance_id:
            was = instance.setdefault(key, ev.instance_id)
            if was != ev.instance_id:
                mixed(key, ev, [], f"its lines name two group.instance.ids, {was} and {ev.instance_id}")
                continue
        if mid:
            was = last.get(key)
            if was is not None and mid != was:
                ids = seen.setdefault(key, {was})
                if mid in ids:
                    mixed(key, ev, [mid, was], f"member {mid} comes back after member {was}")
                    continue
                ids.add(mid)
            last[key] = mid
        if ev.kind == "join_succeeded" and ev.generation is not None and ev.generation >= 0 \
                and (ev.group_type or "classic") == "classic" and not ev.instance_id:
            gens = joined.setdefault(key, {})
            first = gens.get(ev.generation)
            if first is not None and (mid is None or first[0] != mid):
                mixed(key, ev, [x for x in (first[0], mid) if x],
                      f"generation {ev.generation} is joined twice ({first[1]} and {ev.evidence})")
                continue
            gens.setdefault(ev.generation, (mid, ev.evidence))
    return out


def unmix(ordered: list[Event], name: Callable[[Event], str | None] | None = None
          ) -> tuple[list[Event], dict[tuple[str, str | None], dict[str, Any]]]:
    """The events without the lines of mixed streams; the mixed streams, each with the count of its
    lines left out ("left_out") and the first of them ("first_left_out")."""
    if name is None:
        name = stream_namer(ordered)
    mixed = mixed_streams(ordered, name)
    if not mixed:
        return ordered, mixed
    kept: list[Event] = []
    for ev in ordered:
        info = mixed.get((name(ev), ev.client_id)) if ev.side == "client" else None
        if info is not None:
            info["left_out"] = info.get("left_out", 0) + 1
            info.setdefault("first_left_out", ev.evidence)
            info.setdefault("first_ms", ev.ts_ms)
            info["last_ms"] = ev.ts_ms if ev.ts_ms is not None else info.get("last_ms")
            continue
        kept.append(ev)
    return kept, mixed
