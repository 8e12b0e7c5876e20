"""Requests per second through the reference coordinator, against a baseline loop in the same run.

A seeded simulation of a consumer group (clients that join with the v4 member-id handshake, sync,
heartbeat, commit, and now and then stall past their session timeout or restart) produces a long
request history. The timed part replays that recorded history through a fresh GroupCoordinator
(the model is deterministic, so it sees exactly what the simulation saw) and, as the baseline, runs
the same dispatch loop over the same requests with a no-op handler.

Run from the repository root:
    PYTHONPATH=. python benchmarks/coordinator_bench.py [--members 30] [--minutes 60] [--seed 7]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from collections import Counter

from pipeline.coordinator import CoordinatorConfig, GroupCoordinator

GROUP = "payments"
SESSION_MS = 10_000
REBALANCE_MS = 30_000
HEARTBEAT_MS = 3_000
COMMIT_MS = 5_000
TICK_MS = 250
PROTOCOLS = (("range", b"\x00\x01topic-a"), ("roundrobin", b"\x00\x01topic-a"))


def make_coordinator() -> GroupCoordinator:
    return GroupCoordinator(CoordinatorConfig(impl="scala"), keep_events=False)


class Client:
    def __init__(self, n: int) -> None:
        self.client_id = f"consumer-{n}"
        self.state = "new"
        self.member_id = ""
        self.generation = -1
        self.ticket = None
        self.members: list[str] = []
        self.next_heartbeat = 0
        self.next_commit = 0
        self.stalled_until = 0
        self.offset = 0


def simulate(members: int, minutes: int, seed: int) -> list[tuple[str, tuple, dict]]:
    """Drive a coordinator with reactive clients; return every request made, in order."""
    rng = random.Random(seed)
    coord = make_coordinator()
    log: list[tuple[str, tuple, dict]] = []

    def call(op: str, *args, **kwargs):
        log.append((op, args, kwargs))
        return getattr(coord, op)(*args, **kwargs)

    clients = [Client(i) for i in range(members)]
    end = minutes * 60_000
    for now in range(0, end, TICK_MS):
        call("advance_time", now)
        for c in clients:
            if now < c.stalled_until:
                continue
            if c.state == "stable" and rng.random() < 0.00005:
                c.stalled_until = now + SESSION_MS + 2_000  # a long GC pause: the session expires
                continue
            if c.state == "stable" and rng.random() < 0.00003:
                call("leave", GROUP, [(c.member_id, None)], now_ms=now)  # restart
                c.state, c.member_id = "new", ""
                continue
            if c.state == "new":
                r = call("join", GROUP, "", client_id=c.client_id, protocols=PROTOCOLS,
                         session_timeout_ms=SESSION_MS, rebalance_timeout_ms=REBALANCE_MS, now_ms=now)
                if r.error == "MEMBER_ID_REQUIRED":
                    c.member_id = r.response.member_id
                    c.state = "rejoin"
            if c.state == "rejoin":
                c.ticket = call("join", GROUP, c.member_id, client_id=c.client_id, protocols=PROTOCOLS,
                                session_timeout_ms=SESSION_MS, rebalance_timeout_ms=REBALANCE_MS, now_ms=now)
                c.state = "joining"
            if c.state == "joining" and not c.ticket.pending:
                r = c.ticket.response
                if r.error != "NONE":
                    c.state, c.member_id = "new", ""
                    continue
                c.generation = r.generation
                assignment = None
                if r.members:
                    ids = [m[0] for m in r.members]
                    assignment = {m: ",".join(f"topic-a-{p}" for p in range(i, 24, len(ids)))
                                  for i, m in enumerate(ids)}
                c.ticket = call("sync", GROUP, c.member_id, c.generation, assignment=assignment, now_ms=now)
                c.state = "syncing"
            if c.state == "syncing" and not c.ticket.pending:
                r = c.ticket.response
                if r.error == "NONE":
                    c.state = "stable"
                    c.next_heartbeat = now + HEARTBEAT_MS
                    c.next_commit = now + COMMIT_MS
                elif r.error == "REBALANCE_IN_PROGRESS":
                    c.state = "rejoin"
                else:
                    c.state, c.member_id = "new", ""
                continue
            if c.state == "stable":
                if now >= c.next_heartbeat:
                    err = call("heartbeat", GROUP, c.member_id, c.generation, now_ms=now).error
                    c.next_heartbeat = now + HEARTBEAT_MS
                    if err == "REBALANCE_IN_PROGRESS":
                        c.state = "rejoin"
                    elif err != "NONE":
                        c.state, c.member_id = "new", ""
                if c.state == "stable" and now >= c.next_commit:
                    c.offset += rng.randint(50, 500)
                    call("commit", GROUP, c.member_id, c.generation, {f"topic-a-{rng.randrange(24)}": c.offset},
                         now_ms=now)
                    c.next_commit = now + COMMIT_MS
    return log


def replay(log, target) -> float:
    t0 = time.perf_counter()
    for op, args, kwargs in log:
        getattr(target, op)(*args, **kwargs)
    return time.perf_counter() - t0


class NoOp:
    """The baseline: the same dispatch with handlers that do nothing."""

    def __getattr__(self, name):
        return _noop


def _noop(*args, **kwargs):
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--members", type=int, default=30)
    ap.add_argument("--minutes", type=int, default=60, help="simulated minutes of group history")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs; the best is reported")
    args = ap.parse_args()

    log = simulate(args.members, args.minutes, args.seed)
    requests = [r for r in log if r[0] != "advance_time"]
    mix = Counter(op for op, _, _ in requests)
    check = make_coordinator()
    replay(log, check)
    snap = check.group(GROUP)

    model_s = min(replay(log, make_coordinator()) for _ in range(args.repeat))
    base_s = min(replay(log, NoOp()) for _ in range(args.repeat))
    n = len(log)
    print(f"history: {args.members} members, {args.minutes} simulated minutes, seed {args.seed}: "
          f"{len(requests)} requests + {n - len(requests)} clock moves ({dict(sorted(mix.items()))})")
    print(f"final group: state={snap.state} generation={snap.generation} members={len(snap.members)}")
    print(f"coordinator: {n / model_s:,.0f} calls/s ({model_s * 1e3:.1f} ms for {n} calls)")
    print(f"baseline no-op dispatch loop: {n / base_s:,.0f} calls/s ({base_s * 1e3:.1f} ms)")
    print(f"ratio: the coordinator runs at {base_s / model_s:.3f}x the baseline loop's speed "
          f"({model_s / base_s:.1f}x slower)")
    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()} ({platform.machine()}), "
          f"{platform.system()} {platform.release()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
