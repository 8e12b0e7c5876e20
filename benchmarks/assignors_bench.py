"""Rebalances per second through each assignor model, against a baseline in the same run.

Workload: a group of MEMBERS consumers over TOPICS topics of PARTITIONS partitions each, two
subscription patterns (uniform: everyone subscribes to everything; split: every 4th member takes the
first half of the topics, the rest the second half). Each measured "rebalance" is the assignor call
a leader makes when one member has left: owned partitions and generation come from the previous
assignment, so the sticky assignors do their real work (claims, quotas, reassignment loop).

Baseline: the same subscriptions dealt by a plain modulo loop (partition i of the sorted list goes to
the i-th subscribed member), the cheapest assignment possible over the same partitions.

Run from the repository root:
    PYTHONPATH=. python benchmarks/assignors_bench.py [--members 60] [--topics 10] [--partitions 30]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

from pipeline.coordinator.assignors import ASSIGNORS, assign


def subscriptions(members: int, topics: list[str], split: bool) -> dict[str, dict]:
    half = len(topics) // 2
    return {f"consumer-{i:04d}": {"topics": (topics[:half] if i % 4 == 0 else topics[half:]) if split else topics}
            for i in range(members)}


def baseline(subs: dict[str, dict], ppt: dict[str, int]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {m: [] for m in subs}
    members = sorted(subs)
    for topic in sorted(ppt):
        subscribers = [m for m in members if topic in subs[m]["topics"]]
        for p in range(ppt[topic]):
            out[subscribers[p % len(subscribers)]].append(f"{topic}-{p}")
    return out


def rejoin_after_leave(name: str, subs: dict[str, dict], ppt: dict[str, int]) -> dict[str, dict]:
    previous = assign(name, subs, ppt)
    leaver = sorted(subs)[len(subs) // 2]
    return {m: {"topics": s["topics"], "owned_partitions": previous[m], "generation": 5}
            for m, s in subs.items() if m != leaver}


def rate(fn, budget_s: float) -> tuple[float, int]:
    n, start = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= budget_s and n >= 3:
            return n / elapsed, n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--members", type=int, default=60)
    ap.add_argument("--topics", type=int, default=10)
    ap.add_argument("--partitions", type=int, default=30)
    ap.add_argument("--seconds", type=float, default=2.0, help="time budget per measurement")
    args = ap.parse_args()
    topics = [f"topic-{i:03d}" for i in range(args.topics)]
    ppt = {t: args.partitions for t in topics}
    total = args.topics * args.partitions
    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()} {platform.machine()}, {sys.platform}")
    print(f"workload: {args.members} members, {args.topics} topics x {args.partitions} partitions = {total} partitions; "
          "one member left, the rest rejoin owning their previous assignment")
    print(f"{'pattern':8} {'assignor':19} {'rebalances/s':>13} {'baseline/s':>11} {'ratio':>7} {'partitions/s':>13}")
    for split in (False, True):
        subs = subscriptions(args.members, topics, split)
        for name in ASSIGNORS:
            rejoin = rejoin_after_leave(name, subs, ppt)
            base, _ = rate(lambda: baseline(rejoin, ppt), args.seconds)  # noqa: B023
            got, _ = rate(lambda: assign(name, rejoin, ppt), args.seconds)  # noqa: B023
            print(f"{'split' if split else 'uniform':8} {name:19} {got:13.1f} {base:11.1f} {got / base:7.3f} {got * total:13.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
