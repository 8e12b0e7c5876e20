"""Does `coordscope parse` write the same bytes as another checkout's on every corpus file?

usage: python scripts/parse_output_equal.py --before /tmp/base-2ac7d6a [--shared ../shared] [FILE...]

Both checkouts' `parse` run in their own process (PYTHONPATH = the checkout) over the parser test
data (tests/parsers/**, not the .py files), sample_logs/** and shared/real_logs/**, or over the FILEs
given: once per file (memos cleared between files, standard output and standard error kept apart)
and once over all files in one call (both read the same paths: this checkout's files). Prints the number of files and each file whose output differs;
exit status 1 when any does. A performance change to the parsers must leave this at zero.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

RUNNER = r"""
import io, os, sys
tree, outdir, *files = sys.argv[1:]
sys.path.insert(0, tree)
from pipeline.cli import main
import parsers.client as client
real_out, real_err = sys.stdout, sys.stderr
def run(args, name):
    client.clear_memos()
    with open(os.path.join(outdir, name + ".out"), "wb") as o, open(os.path.join(outdir, name + ".err"), "wb") as e:
        sys.stdout = io.TextIOWrapper(o, encoding="utf-8", write_through=True)
        sys.stderr = io.TextIOWrapper(e, encoding="utf-8", write_through=True)
        try:
            main(args)
        finally:
            sys.stdout.flush(); sys.stderr.flush()
            sys.stdout, sys.stderr = real_out, real_err
for i, f in enumerate(files):
    run(["parse", f], f"{i:05d}")
run(["parse", "--summary-json", *files], "all")
"""


def corpus(tree: Path, shared: Path) -> list[str]:
    out = []
    for root in (tree / "tests" / "parsers", tree / "sample_logs", shared / "real_logs"):
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            out += [os.path.join(dirpath, f) for f in sorted(filenames) if not f.endswith((".py", ".pyc"))]
    return out


def run(tree: Path, outdir: Path, files: list[str]) -> None:
    outdir.mkdir(parents=True)
    env = dict(os.environ, PYTHONPATH=str(tree))
    subprocess.run([sys.executable, "-c", RUNNER, str(tree), str(outdir), *files], cwd=tree, env=env, check=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", required=True, metavar="DIR", help="the other checkout")
    ap.add_argument("--shared", default=str(REPO.parent / "shared"), help="the shared directory (real_logs)")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args(argv)
    before = Path(args.before).resolve()
    # the same files for both: this checkout's corpus (the test data of the other is not read)
    files = args.files or corpus(REPO, Path(args.shared).resolve())
    with tempfile.TemporaryDirectory(prefix="parse-equal-") as tmp:
        outs = {}
        for name, tree in (("before", before), ("ours", REPO)):
            run(tree, Path(tmp) / name, files)
            outs[name] = {p.name: p.read_bytes() for p in sorted((Path(tmp) / name).iterdir())}
        differ = [n for n in outs["ours"] if outs["ours"][n] != outs["before"].get(n)]
        events = sum(outs["ours"][n].count(b"\n") for n in outs["ours"] if n.endswith(".out") and n != "all.out")
    for n in differ:
        stem = n.split(".")[0]
        print(f"DIFFERS: {n} ({'all files in one call' if stem == 'all' else files[int(stem)]})")
    print(f"{len(files)} files, {events} event lines: {'all equal' if not differ else f'{len(differ)} outputs differ'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
