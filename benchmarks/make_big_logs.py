"""Write N GB of realistic mixed Kafka logs quickly, for benchmarks of the pipeline.

    PYTHONPATH=. python benchmarks/make_big_logs.py --gb 1 --out /tmp/big

A few groups are simulated once (pipeline.generator, 20 simulated minutes each) and rendered into
blocks: every consumer host's log and every broker's server.log. Each block is then written many
times; repetition k moves the block k hours later and renames its groups and members (a new
group per repetition, since a group's generations cannot restart at 1): the block is split once at
the date-hour of its timestamps, and a repetition is one `bytes.join` plus small replaces of a
4-hex-digit slot in the pieces that name a group or member. Coordinator lines are about 5% of the output (printed).

The script prints its own end-to-end throughput (to disk) and, in memory so that the disk does not
blur it, the speed of producing the varied repetitions against a baseline measured in the same
run: copying the same blocks unchanged. The ratio says what the variation costs.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import time
from datetime import UTC, datetime, timedelta
from random import Random

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from pipeline.generator.generate import simulate  # noqa: E402
from pipeline.generator.render import BrokerRenderer, broker_server_log, client_log  # noqa: E402
from pipeline.generator.scenarios import gc_pause_session_expiry, healthy_scale_out, rebalance_storm  # noqa: E402

MIN = 60_000
HOUR_MARK, HOUR_MARK_T, ID_MARK = b"\x01H\x01", b"\x01T\x01", b"@@@@"
COORD = re.compile(rb"AbstractCoordinator|ConsumerCoordinator|GroupCoordinator|GroupMetadataManager|"
                   rb"SubscriptionState|ConsumerUtils|ConsumerRebalanceListenerInvoker|GroupMetadata\$|"
                   rb"Subscribed to topic")


def _scenarios(minutes: int = 20):
    out = []
    for make, group in ((healthy_scale_out, "checkout-events"), (rebalance_storm, "catalog-indexer"),
                        (gc_pause_session_expiry, "stock-sync")):
        sc = make()
        sc.group_id = group
        sc.broker_version = "3.x"  # one cluster: every group's lines in the same broker's server.log
        sc.duration_ms = minutes * MIN
        sc.noise = 3.0  # application and client chatter around the coordinator lines
        out.append(sc)
    return out


def build_blocks(minutes: int = 20) -> dict[str, bytes]:
    """{output file name: one block with markers}; each block covers less than one hour from HH:00."""
    blocks: dict[str, bytes] = {}
    broker_recs: dict[int, list] = {}
    first = None
    for sc in _scenarios(minutes):
        sim = simulate(sc)
        start = datetime.fromtimestamp(sc.epoch_ms / 1000, tz=UTC)
        hour, hour_t = start.strftime("%Y-%m-%d %H").encode(), start.strftime("%Y-%m-%dT%H").encode()
        ids = sorted({m for m in sim.members_truth}, key=len, reverse=True)
        texts = {f"{sc.group_id}-{c.name}.log": client_log(sim, c.name, Random(c.client_seq)) for c in sc.consumers}
        first = first or sim
        for b, recs in BrokerRenderer(sim).records().items():
            broker_recs.setdefault(b, []).extend(recs)  # one server.log per broker, all groups in it
        for name, lines in texts.items():
            data = ("\n".join(lines) + "\n").encode()
            for i, mid in enumerate(ids):
                prefix = mid[: len(mid) - 36]  # client-id- ; the UUID is the last 36 characters
                data = data.replace(mid.encode(), (prefix + "@@@@" + f"{i:04x}" + mid[len(mid) - 28:]).encode())
            # every repetition is another group (a generation history cannot restart at 1 in one group)
            data = data.replace(sc.group_id.encode(), sc.group_id.encode() + b"-r" + ID_MARK)
            data = data.replace(hour, HOUR_MARK).replace(hour_t, HOUR_MARK_T)
            blocks[name] = data
    for b, recs in broker_recs.items():
        data = ("\n".join(broker_server_log(first, b, recs, Random(b))) + "\n").encode()
        for sc in _scenarios(minutes):
            data = data.replace(sc.group_id.encode(), sc.group_id.encode() + b"-r" + ID_MARK)
        blocks[f"kafka-{b}-server.log"] = data.replace(hour, HOUR_MARK).replace(hour_t, HOUR_MARK_T)
    return blocks


class _Null:
    def write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        pass


class Block:
    """A block split once at its timestamp markers; a repetition is one `bytes.join` plus a few small
    replaces in the pieces that carry member ids."""

    def __init__(self, data: bytes) -> None:
        self.t_form = HOUR_MARK_T in data
        self.pieces = data.split(HOUR_MARK_T if self.t_form else HOUR_MARK)
        self.with_ids = [i for i, p in enumerate(self.pieces) if ID_MARK in p]
        self.size = len(data)

    def render(self, hour: bytes, hour_t: bytes, rep: bytes) -> bytes:
        pieces = self.pieces.copy()
        for i in self.with_ids:
            pieces[i] = pieces[i].replace(ID_MARK, rep)
        return (hour_t if self.t_form else hour).join(pieces)


def write(out_dir: str | None, blocks: dict[str, bytes], target: int, vary: bool) -> tuple[int, float]:
    """Write (or, with out_dir None, only produce in memory) `target` bytes of repetitions."""
    split = {n: Block(b) for n, b in blocks.items()}
    if out_dir is not None:
        os.makedirs(out_dir, exist_ok=True)
        handles = {n: open(os.path.join(out_dir, n), "wb") for n in blocks}  # noqa: SIM115
    else:
        handles = {n: _Null() for n in blocks}
    base = datetime(2024, 3, 14, 2, tzinfo=UTC)
    written, k, t0 = 0, 0, time.perf_counter()
    try:
        while written < target:
            when = base + timedelta(hours=k)
            hour, hour_t = when.strftime("%Y-%m-%d %H").encode(), when.strftime("%Y-%m-%dT%H").encode()
            rep = f"{k % 65536:04x}".encode()
            for n, b in blocks.items():
                data = split[n].render(hour, hour_t, rep) if vary else bytes(bytearray(b))
                handles[n].write(data)
                written += len(data)
            k += 1
    finally:
        for h in handles.values():
            h.close()
    return written, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gb", type=float, required=True, help="how many GB (10^9 bytes) to write")
    ap.add_argument("--out", required=True, help="output directory (created)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the in-memory baseline measurement")
    args = ap.parse_args(argv)
    if args.gb <= 0:
        print("--gb must be positive", file=sys.stderr)
        return 2
    target = int(args.gb * 1e9)
    t0 = time.perf_counter()
    blocks = build_blocks()
    t_build = time.perf_counter() - t0
    one = b"".join(blocks.values())
    lines = one.count(b"\n")
    coord = sum(1 for ln in one.split(b"\n") if COORD.search(ln))
    print(f"blocks: {len(blocks)} files, {len(one) / 1e6:.1f} MB and {lines} lines per repetition, "
          f"built in {t_build:.2f}s; coordinator lines {100 * coord / lines:.1f}%")
    written, secs = write(args.out, blocks, target, vary=True)
    rate = written / secs / 1e9
    print(f"generated: {written / 1e9:.2f} GB in {secs:.2f}s = {rate:.2f} GB/s "
          f"({secs / (written / 1e9):.2f} s per GB) into {args.out}")
    if not args.no_baseline:
        # in memory, so the disk does not blur the comparison: producing the varied repetitions
        # versus copying the same bytes unchanged
        mem = min(target, int(1e9))
        vw, vs = write(None, blocks, mem, vary=True)
        bw, bs = write(None, blocks, mem, vary=False)
        print(f"in memory: varied repetitions {vw / vs / 1e9:.2f} GB/s; baseline (plain copy of the same "
              f"blocks) {bw / bs / 1e9:.2f} GB/s; ratio varied/baseline = {(vw / vs) / (bw / bs):.2f}")
    print(f"machine: {os.cpu_count()} cpus, Python {platform.python_version()}, {platform.platform()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
