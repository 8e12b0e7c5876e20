"""The parse stage's Python function alone (`parse_stage.stage_batches`: the parser, the outcome
batches, the staged Parquet), in-process over the Arrow batches its tasks receive in an ingest.

First capture those batches once (a local[2] session runs the scan and writes what each task of
the parse stage would receive to one Arrow IPC file per task):

    PYTHONPATH=$PWD python benchmarks/parse_stage_bench.py --capture /tmp/cap FILE...

then run the function over them, checkouts alternated round by round (each run in its own process,
PYTHONPATH=checkout), CPU seconds (time.process_time) of the function with the collector paused as
in a worker; medians printed. `--staged DIR` keeps each checkout's staged files (DIR/<n>/) so that
`--compare` can check them equal, file by file and row by row:

    python benchmarks/parse_stage_bench.py --batches /tmp/cap --repo /tmp/base-11f3f2f --repo $PWD --rounds 3
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import statistics
import sys
import time

from child_run import child_json  # benchmarks/ is the script's own directory


def capture(out: str, files: list[str]) -> None:
    from parsers.reader import CANDIDATE_REGEX
    from pipeline.spark import job, lines
    from pipeline.spark.session import build_session

    os.makedirs(out, exist_ok=True)
    spark = build_session("local[2]", extra_conf=job.session_conf("local[2]", {}), class_archive=False)
    scan = lines.read_blocks(spark, files, CANDIDATE_REGEX)

    def keep(batches):
        import uuid

        import pyarrow as pa

        writer, n = None, 0
        for b in batches:
            if writer is None:
                writer = pa.ipc.new_file(os.path.join(out, f"task-{uuid.uuid4().hex}.arrow"), b.schema)
            writer.write_batch(b)
            n += b.num_rows
        if writer is not None:
            writer.close()
        yield pa.RecordBatch.from_pydict({"n": [n]})

    splits = sum(r["n"] for r in scan.rows.mapInArrow(keep, "n bigint").collect())
    print(f"{splits} splits captured in {out} (filter: {scan.filter})")
    spark.stop()


def formats_of(spaths: list[str]) -> dict[str, tuple]:
    """What the driver sniffs for each file (parsers.sniff over its first lines)."""
    import parsers

    out = {}
    for s in spaths:
        path = s[len("file:"):] if s.startswith("file:") else s
        with open(path, errors="replace") as fh:
            head = [ln.rstrip("\n") for _, ln in zip(range(200), fh, strict=False)]
        ff = parsers.sniff(head, path)
        out[s] = (path, ff.kind, ff.layout, tuple(ff.wrappers))
    return out


def one_run(batches_dir: str, staged: str) -> dict:
    import gc

    import pyarrow as pa

    from pipeline import schemas
    from pipeline.spark import buckets, parse_stage

    tasks = []
    for f in sorted(glob.glob(os.path.join(batches_dir, "task-*.arrow"))):
        r = pa.ipc.open_file(f)
        tasks.append([r.get_batch(i) for i in range(r.num_record_batches)])
    spaths = sorted({s for t in tasks for b in t for s in b.column("spath").to_pylist()})
    formats = formats_of(spaths)
    shutil.rmtree(staged, ignore_errors=True)
    os.makedirs(staged)
    schema = buckets.staged_schema(schemas.arrow_schema_of(parse_stage.OUTCOME_FIELDS))
    parse_stage.parsers_module("parsers")
    cands = sum(len(b.column("idx").values) for t in tasks for b in t)
    t0 = time.process_time()
    for i, t in enumerate(tasks):
        for _ in parse_stage.stage_batches(iter(t), formats, "parsers", 64 * 1024,
                                           buckets.BucketedFile(staged, i, 0, schema, 4)):
            pass
        gc.collect(1)
    cpu = time.process_time() - t0
    import pyarrow.parquet as pq

    events = sum(pq.ParquetFile(f).metadata.num_rows for f in buckets.staged_files(staged))
    return {"cpu": cpu, "candidates": cands, "events": events, "us_per_candidate": cpu / max(cands, 1) * 1e6}


def compare(a: str, b: str) -> bool:
    import pyarrow.parquet as pq

    fa, fb = (sorted(os.path.basename(f) for f in glob.glob(os.path.join(d, "part-*.parquet"))) for d in (a, b))
    if fa != fb:
        print(f"different files: {fa} vs {fb}")
        return False
    for name in fa:
        x, y = pq.ParquetFile(os.path.join(a, name)), pq.ParquetFile(os.path.join(b, name))
        if x.metadata.metadata != y.metadata.metadata or not x.read().equals(y.read()):
            print(f"{name} differs")
            return False
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*")
    ap.add_argument("--capture", metavar="DIR", help="capture the parse stage's input batches of FILES into DIR")
    ap.add_argument("--batches", metavar="DIR", help="captured batches to run the function over")
    ap.add_argument("--repo", action="append", default=[], help="checkout to run (repeat: alternated)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--staged", default="/tmp/parse-stage-bench-staged", help="where each checkout stages")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.capture:
        capture(args.capture, args.files)
        return 0
    if args.child:
        print(json.dumps(one_run(args.batches, args.staged)), flush=True)
        return 0
    repos = args.repo or [os.getcwd()]
    results: dict[str, list[dict]] = {r: [] for r in repos}
    for rnd in range(args.rounds):
        for n, repo in enumerate(repos):
            load = os.getloadavg()[0]
            d = child_json([sys.executable, os.path.abspath(__file__), "--child", "--batches", args.batches,
                            "--staged", os.path.join(args.staged, str(n))], repo)
            if d is None:
                return 1
            results[repo].append(d)
            print(f"round {rnd} {repo}: {d['cpu']:.2f} CPU-s, {d['us_per_candidate']:.2f} µs per candidate "
                  f"({d['candidates']} candidates, {d['events']} events staged), load {load:.1f}", flush=True)
    for repo, rs in results.items():
        print(f"median {repo}: {statistics.median(r['cpu'] for r in rs):.2f} CPU-s")
    same = all(compare(os.path.join(args.staged, "0"), os.path.join(args.staged, str(n))) for n in range(1, len(repos)))
    print("staged files equal row for row" if same else "STAGED FILES DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
