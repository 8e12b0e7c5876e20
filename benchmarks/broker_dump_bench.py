"""Throughput of the parsers2 message/record parsers, next to a plain `re` split of the same lines.

Prints lines per CPU-second (process time, so a busy shared machine inflates it less than wall time)
for: broker coordinator messages (a mix of the common families, every member id unique so the
memo cache does not help), the same with repetition (rebalance storms repeat lines), Scala formatter
dump lines, dump-log text and JSON records, and describe table rows. The baseline is, for the same
lines in the same run, one `re.split` on whitespace/punctuation: the cost of merely touching each line.

Run from the repository root:  PYTHONPATH=. python benchmarks/broker_dump_bench.py [--lines N]
"""

from __future__ import annotations

import argparse
import random
import re
import time
from collections.abc import Callable, Iterable

from parsers.broker import parse_broker_message
from parsers.groups_describe import DescribeParser
from parsers.offsets_dump import parse_offsets_dump_line

_SPLIT = re.compile(r"[\s,:=()\[\]{}]+")


def broker_lines(n: int, seed: int = 7) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        g = f"payments-{i % 50}"
        m = f"consumer-{g}-{i % 7}-{rnd.getrandbits(64):016x}"
        gen = i // 10
        p = i % 50
        family = i % 8
        if family == 0:
            out.append(f"[GroupCoordinator 2]: Preparing to rebalance group {g} in state PreparingRebalance with old "
                       f"generation {gen} (__consumer_offsets-{p}) (reason: Adding new member {m} with group instance "
                       f"id None; client reason: need to re-join with the given member-id: {m})")
        elif family == 1:
            out.append(f"[GroupCoordinator 2]: Stabilized group {g} generation {gen} (__consumer_offsets-{p}) with 3 members")
        elif family == 2:
            out.append(f"[GroupCoordinator 2]: Assignment received from leader {m} for group {g} for generation {gen}. "
                       f"The group has 3 members, 0 of which are static.")
        elif family == 3:
            out.append(f"[GroupCoordinator 2]: Member {m} in group {g} has failed, removing it from the group")
        elif family == 4:
            out.append(f"[GroupCoordinator 2]: Dynamic member with unknown member id joins group {g} in Stable state. "
                       f"Created a new member id {m} and request the member to rejoin with this id.")
        elif family == 5:
            out.append(f"[GroupCoordinator 2]: Group {g} with generation {gen} is now empty (__consumer_offsets-{p})")
        elif family == 6:
            out.append(f"[GroupCoordinator id=2 topic=__consumer_offsets partition={p}] [GroupId {g}] Member {m} "
                       f"new assignment state: epoch={gen}, previousEpoch={gen - 1}, state=STABLE, "
                       f"assignedPartitions=[orders-0, orders-1].")
        else:
            out.append(f"[GroupMetadataManager brokerId=2] Finished loading offsets and group metadata from "
                       f"__consumer_offsets-{p} in 12 milliseconds for epoch 4, of which 1 milliseconds was spent in "
                       f"the scheduler.")
    return out


def dump_lines(n: int) -> dict[str, list[str]]:
    return {
        "offsets formatter (OffsetAndMetadata)": [
            f"[grp-{i % 40},orders,{i % 12}]::OffsetAndMetadata(offset={i * 3}, leaderEpoch=Optional[{i % 5}], "
            f"metadata=, commitTimestamp={1700000000000 + i}, expireTimestamp=None)" for i in range(n)],
        "dump-log text (offset_commit::)": [
            f"| offset: {i} CreateTime: {1700000000000 + i} keySize: 26 valueSize: 24 sequence: -1 headerKeys: [] "
            f"key: offset_commit::group=grp-{i % 40},partition=orders-{i % 12} payload: offset={i * 3}" for i in range(n)],
        "dump-log JSON (3.8+)": [
            f"| offset: {i} CreateTime: {1700000000000 + i} keySize: 26 valueSize: 24 sequence: -1 headerKeys: [] "
            f'key: {{"type":"1","data":{{"group":"grp-{i % 40}","topic":"orders","partition":{i % 12}}}}} '
            f'payload: {{"version":"3","data":{{"offset":{i},"leaderEpoch":0,"metadata":"","commitTimestamp":{i}}}}}'
            for i in range(n)],
    }


def describe_lines(n: int) -> list[str]:
    head = "GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID                                           HOST            CLIENT-ID"
    rows = [f"kite-group      kite-{i % 9}          {i % 64:<10} {i * 7:<15} {i * 7 + 3:<15} 3               "
            f"console-consumer-{i:08x}-6de2-4d34-b17f-ade779920b4b /127.0.0.1      console-consumer" for i in range(n)]
    return [head, *rows]


def rate(fn: Callable[[str], object], lines: Iterable[str], repeat: int = 3) -> float:
    best = 0.0
    lines = list(lines)
    for _ in range(repeat):
        t0 = time.process_time()
        for line in lines:
            fn(line)
        dt = time.process_time() - t0
        best = max(best, len(lines) / dt if dt > 0 else float("inf"))
    return best


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=40_000)
    args = ap.parse_args()
    n = args.lines
    parse_broker_message("[GroupCoordinator 1]: Startup complete.")  # build the grammar outside the timing
    parse_offsets_dump_line("[g,t,0]::NULL")

    def split(line: str) -> object:
        return _SPLIT.split(line)

    cases: list[tuple[str, Callable[[str], object], list[str]]] = [
        ("broker messages, all distinct", parse_broker_message, broker_lines(n)),
        ("broker messages, 800 distinct lines cycled", parse_broker_message, broker_lines(800) * (n // 800)),
    ]
    for name, lines in dump_lines(n).items():
        cases.append((name, parse_offsets_dump_line, lines))

    cases.append(("describe table rows", DescribeParser().feed, describe_lines(n)))
    print(f"{'case':45s} {'lines/CPU-s':>14s} {'re.split baseline':>18s} {'ratio':>7s}")
    for name, fn, lines in cases:
        got = rate(fn, lines)
        base = rate(split, lines)
        print(f"{name:45s} {got:14,.0f} {base:18,.0f} {got / base:7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
