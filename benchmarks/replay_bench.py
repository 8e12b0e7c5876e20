"""Replay throughput (events/s on one core) on a long generated group history, with a baseline loop
over the same events measured in the same run.

The history: N consumers on N hosts share a topic; every host logs its heartbeats (DEBUG), offset
commits and rebalance callbacks, the broker logs every rebalance, and members crash, stall past the
session timeout, restart and rejoin; host clocks are skewed by up to 1.5 s. The baseline loop visits
every event and counts kinds and the latest time (the least any replay must do).

    PYTHONPATH=. python benchmarks/replay_bench.py [--hours 6] [--members 12] [--seed 7]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from parsers.events import Event  # noqa: E402
from pipeline.replay import replay_group  # noqa: E402

GROUP = "bench-group"


def generate(hours: float, members: int, partitions: int, seed: int) -> list[Event]:
    rng = random.Random(seed)
    events: list[Event] = []
    lines: dict[str, int] = {}
    skew = {f"host{i}/app.log": rng.randint(-1500, 1500) for i in range(members)}

    def emit(src: str, ts: int, side: str, kind: str, text: str, **kw) -> None:
        n = lines.get(src, 0) + 1
        lines[src] = n
        events.append(Event(source=src, line_no=n, side=side, kind=kind, raw=f"{ts} {text}",
                            ts_ms=ts + skew.get(src, 0), group_id=GROUP, **kw))

    end = int(hours * 3_600_000)
    t = 0
    gen = 0
    alive = {i: True for i in range(members)}
    mid = {i: f"c{i}-m0" for i in range(members)}
    restarts = {i: 0 for i in range(members)}
    broker = "broker1/server.log"
    offsets = {p: rng.randint(0, 10_000) for p in range(partitions)}
    while t < end:
        gen += 1
        live = [i for i in range(members) if alive[i]]
        emit(broker, t, "broker", "broker_rebalance_preparing",
             f"Preparing to rebalance group {GROUP} in state PreparingRebalance with old generation {gen - 1} "
             f"(__consumer_offsets-7) (reason: Adding new member {mid[live[0]]} with group instance id None)",
             generation=gen - 1, reason=f"Adding new member {mid[live[0]]} with group instance id None")
        assign = {i: [f"orders-{p}" for p in range(partitions) if p % len(live) == k] for k, i in enumerate(live)}
        for i in live:
            src, cid = f"host{i}/app.log", f"c{i}"
            emit(src, t + 5, "client", "join_started", f"[{cid}] (Re-)joining group", client_id=cid)
            emit(src, t + 100, "client", "join_succeeded", f"[{cid}] joined gen {gen}", client_id=cid,
                 member_id=mid[i], generation=gen, protocol="range")
            emit(src, t + 150, "client", "sync_succeeded", f"[{cid}] synced gen {gen}", client_id=cid,
                 member_id=mid[i], generation=gen, protocol="range")
            emit(src, t + 160, "client", "partitions_assigned", f"[{cid}] assigned", client_id=cid,
                 partitions=tuple(assign[i]))
        emit(broker, t + 120, "broker", "broker_group_stabilized",
             f"Stabilized group {GROUP} generation {gen} (__consumer_offsets-7) with {len(live)} members",
             generation=gen)
        emit(broker, t + 150, "broker", "broker_assignment_received",
             f"Assignment received from leader {mid[live[0]]} for group {GROUP} for generation {gen}",
             generation=gen)
        span = rng.randint(60_000, 900_000)
        stop = min(end, t + span)
        victim = rng.choice(live) if len(live) > 1 and rng.random() < 0.5 else None
        for k, tick in enumerate(range(t + 3_000, stop, 3_000)):
            for i in live:
                src, cid = f"host{i}/app.log", f"c{i}"
                if i == victim and tick > stop - 50_000:
                    continue                       # silent: the broker expires it
                emit(src, tick, "client", "heartbeat_succeeded", f"[{cid}] heartbeat ok {tick}", client_id=cid)
                if k % 2 == 0:                     # auto-commit every other heartbeat
                    for tp in assign[i]:
                        p = int(tp.rsplit("-", 1)[1])
                        offsets[p] += rng.randint(1, 50)
                        emit(src, tick + 1, "client", "offset_committed", f"[{cid}] committed {tp} {offsets[p]}",
                             client_id=cid, topic="orders", partition=p, offset=offsets[p])
        t = stop
        if t >= end:
            break
        for i in live:
            if i != victim:
                emit(f"host{i}/app.log", t + 2, "client", "partitions_revoked", f"[c{i}] revoke", client_id=f"c{i}",
                     partitions=tuple(assign[i]))
        if victim is not None:
            emit(broker, t, "broker", "broker_member_removed",
                 f"Member {mid[victim]} in group {GROUP} has failed, removing it from the group",
                 member_id=mid[victim], reason="failed")
            restarts[victim] += 1
            mid[victim] = f"c{victim}-m{restarts[victim]}"
    return events


def baseline(events: list[Event]) -> tuple[int, int]:
    counts: dict[str, int] = {}
    last = 0
    for ev in events:
        counts[ev.kind] = counts.get(ev.kind, 0) + 1
        if ev.ts_ms is not None and ev.ts_ms > last:
            last = ev.ts_ms
    return len(counts), last


def best(fn, runs: int) -> float:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hours", type=float, default=6.0)
    ap.add_argument("--members", type=int, default=12)
    ap.add_argument("--partitions", type=int, default=24)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    events = generate(args.hours, args.members, args.partitions, args.seed)
    random.Random(args.seed).shuffle(events)           # the replay sorts; give it unsorted input
    n = len(events)
    t_base = best(lambda: baseline(events), args.runs)
    result = None

    def run() -> None:
        nonlocal result
        result = replay_group(events)

    t_replay = best(run, args.runs)
    assert result is not None
    kinds: dict[str, int] = {}
    for ev in events:
        kinds[ev.kind] = kinds.get(ev.kind, 0) + 1
    print(f"history: {args.hours} h, {args.members} members, {args.partitions} partitions, seed {args.seed}: "
          f"{n:,} events ({', '.join(f'{k} {v:,}' for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])[:4])} ...)")
    print(f"replay result: {len(result.generations)} generations, {len(result.memberships)} memberships, "
          f"{len(result.ownership)} ownership intervals, {len(result.findings)} findings")
    print(f"replay_group:  {t_replay:.3f} s  -> {n / t_replay:,.0f} events/s (one core, best of {args.runs})")
    print(f"baseline loop: {t_base:.3f} s  -> {n / t_base:,.0f} events/s")
    print(f"ratio replay/baseline: {t_base / t_replay:.3f}x")
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        mem = float("nan")
    print(f"machine: {os.cpu_count()} cores, {mem:.0f} GiB RAM, Python {platform.python_version()} "
          f"{platform.machine()}, {platform.system()} {platform.release()}; pure Python, no JVM")
    return 0


if __name__ == "__main__":
    sys.exit(main())
