"""python -m pipeline.generator OUT_DIR [--only NAME ...]: regenerate the named sample scenarios."""

from __future__ import annotations

import argparse
import os
import sys
import time

from pipeline.generator import kip848
from pipeline.generator.generate import write_scenario
from pipeline.generator.scenarios import by_name, variations


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pipeline.generator", description=__doc__)
    ap.add_argument("out_dir", help="directory to write one folder per scenario into (e.g. sample_logs/)")
    ap.add_argument("--only", nargs="*", default=None, help="scenario names (default: all)")
    ap.add_argument("--list", action="store_true", help="list scenario names and exit")
    args = ap.parse_args(argv)
    scenarios = by_name()
    modern = kip848.by_name()  # consumer-protocol (KIP-848) scenarios
    extra = variations()      # written only when named with --only
    if args.list:
        for name, sc in scenarios.items():
            print(f"{name}\t{sc.title}")
        for name, ksc in modern.items():
            print(f"{name}\t{ksc.title}")
        for name, sc in extra.items():
            print(f"{name}\t{sc.title} (variation: written only with --only)")
        return 0
    names = args.only or [*scenarios, *modern]
    scenarios = {**scenarios, **extra}
    unknown = [n for n in names if n not in scenarios and n not in modern]
    if unknown:
        print(f"unknown scenario(s): {', '.join(unknown)}; known: {', '.join(scenarios)}", file=sys.stderr)
        return 2
    for name in names:
        t0 = time.perf_counter()
        try:
            out = os.path.join(args.out_dir, name)
            files = kip848.write_scenario(modern[name], out) if name in modern else write_scenario(scenarios[name], out)
        except OSError as e:
            print(f"cannot write {os.path.join(args.out_dir, name)}: {e.strerror or e}", file=sys.stderr)
            return 2
        print(f"{name}: {len(files)} files + truth.json in {time.perf_counter() - t0:.2f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
