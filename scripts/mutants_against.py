#!/usr/bin/env python3
"""scripts/mutants_against.sh in one pytest process: mutmut 3's trampoline reads MUTANT_UNDER_TEST at
every call, so the mutants can be switched on one after the other without paying Python's and the
tests' imports for each (about ten times faster on the loaded shared machine). The unmutated code is
run first: a selection that fails there kills nothing. Prints "killed|survived NAME".

    scripts/mutants_against.py /tmp/mut18/timeline_corrections "tests/test_timeline_corrections_exact.py" --survivors
    scripts/mutants_against.py RUN_DIR "TESTS" NAME...

A test that keeps state across runs in one process (a module-level cache of a replay) would hide
mutants here as it does under mutmut (docs/testing.md): use scripts/mutants_against.sh for those.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    repo = Path(__file__).resolve().parent.parent
    run, tests, names = Path(argv[0]), argv[1].split(), argv[2:]
    src = run / "src"
    if names == ["--survivors"]:
        mutmut = Path(sys.executable).parent / "mutmut"
        out = subprocess.run([str(mutmut), "results"], cwd=src, capture_output=True, text=True).stdout
        names = [m.group(1) for m in re.finditer(r"^\s*(\S+): survived", out, re.M)]
    for t in tests:
        f = t.split("::")[0]
        (src / "mutants" / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(repo / f, src / "mutants" / f)
    os.chdir(src / "mutants")
    sys.path.insert(0, os.getcwd())
    import pytest

    args = ["-q", "-x", "-p", "no:cacheprovider", "-p", "no:randomly", "-m", "not spark and not browser", *tests]

    def passes(name: str) -> bool:
        os.environ["MUTANT_UNDER_TEST"] = name
        with contextlib.redirect_stdout(io.StringIO()):
            return pytest.main(args) == 0

    if not passes(""):
        print("the selection fails on the unmutated code: fix it first", file=sys.stderr)
        return 3
    for name in names:
        print(("survived " if passes(name) else "killed ") + name, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
