#!/usr/bin/env bash
# Run a test selection against named mutants of a finished (or running) mutation_check.sh run, one by
# one, in the run's own mutants/ tree (the tests given are copied in first from this checkout), and print
# "killed|survived NAME". The unmutated code is run first: a selection that fails there kills nothing.
#
#   scripts/mutants_against.sh /tmp/mut17/ownership "tests/replay/test_ownership_exact.py" NAME...
#   scripts/mutants_against.sh /tmp/mut17/ownership "tests/replay/test_ownership_exact.py" --survivors
set -uo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-/work/main/.venv/bin/python}"
run="$1"; tests="$2"; shift 2
cd "$run/src" || exit 2
if [ "${1:-}" = "--survivors" ]; then
  set -- $("$(dirname "$PY")/mutmut" results 2>/dev/null | awk '/: survived/ {sub(":", "", $1); print $1}')
fi
for t in $tests; do f="${t%%::*}"; mkdir -p "mutants/$(dirname "$f")"; cp "$REPO/$f" "mutants/$f"; done
cd mutants
export MUTANT_UNDER_TEST=""
if ! "$PY" -m pytest -q -x -p no:cacheprovider -p no:randomly -m "not spark and not browser" $tests >/dev/null 2>&1; then
  echo "the selection fails on the unmutated code: fix it first" >&2; exit 3
fi
for m in "$@"; do
  if MUTANT_UNDER_TEST="$m" "$PY" -m pytest -q -x -p no:cacheprovider -m "not spark and not browser" $tests >/dev/null 2>&1; then
    echo "survived $m"
  else
    echo "killed $m"
  fi
done
