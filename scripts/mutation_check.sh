#!/usr/bin/env bash
# Mutation pass (mutmut 3.x) over the analysis modules whose numbers users put in post-mortems.
# Each module is mutated alone, in a throw-away copy of this checkout (the checkout itself is never
# touched), against only the fast tests that cover it (-m "not spark and not browser").
# Not part of pytest: a module takes minutes to tens of minutes. See docs/testing.md.
#
#   scripts/mutation_check.sh                 # every module below
#   scripts/mutation_check.sh offsets figures # some of them
#   MUTATION_WORK=/tmp/mut MUTATION_JOBS=1 scripts/mutation_check.sh offsets
#
# Output: per module "mutants killed survived timeout ..." and the surviving mutants' names;
# `cd $MUTATION_WORK/<module>/src && mutmut show NAME` prints a mutant's diff.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-/work/main/.venv/bin/python}"
[ -x "$PY" ] || PY="$(command -v python3)"
MUTMUT="$(dirname "$PY")/mutmut"
WORK="${MUTATION_WORK:-/tmp/coordscope-mutation}"
JOBS="${MUTATION_JOBS:-1}"
SHARED="${COORDSCOPE_SHARED:-$REPO/../shared}"

# module name -> "file to mutate|test files that cover it" (fast tests only; CLI/subprocess,
# interrupt and hypothesis fuzz tests are left out: mutants do not reach subprocesses, and fuzz
# tests assert only "no crash").
declare -A MODULES=(
  [offsets]="pipeline/replay_rules/offsets.py|tests/replay/test_offset_evidence.py tests/replay/test_offsets_handover_lookup.py tests/replay/test_findings.py tests/replay/test_offset_ranges_exact.py tests/replay/test_lost_progress_estimate.py tests/replay/test_samples.py::test_offset_scenario_ranges_exact tests/replay/test_samples.py::test_sample_scenarios[offset_reset_skip_and_rewind] tests/replay/test_samples.py::test_sample_scenarios[gc_pause_session_expiry]"
  [group_series]="pipeline/group_series.py|tests/test_group_series.py tests/test_group_tables.py tests/test_group_series_rows.py"
  [figures]="pipeline/figures.py|tests/test_figures_by_group.py tests/test_figures_exact.py tests/test_unowned_gap_pieces.py tests/report/test_report.py::test_impact_numbers"
  [findings]="pipeline/replay_rules/findings.py|tests/replay/test_findings.py tests/replay/test_samples.py tests/replay/test_causes.py tests/replay/test_expiries.py tests/replay/test_broker_only.py tests/replay/test_offset_ranges_exact.py tests/replay/test_expiry_fate_exact.py tests/replay/test_storm_exact.py tests/replay/test_sample_properties.py tests/replay/test_findings_last_member.py"
  [ownership]="pipeline/replay_rules/ownership.py|tests/replay/test_ownership_exact.py tests/replay/test_ownership_rules.py tests/replay/test_findings.py tests/replay/test_quiet_member.py tests/replay/test_expiries.py tests/replay/test_causes.py tests/replay/test_unowned_unproven.py tests/replay/test_one_members_log.py tests/replay/test_sample_properties.py tests/replay/test_robustness.py tests/replay/test_old_broker_removals.py tests/replay/test_consumer_partial_logs.py tests/test_group_tables.py"
  [timeline_facts]="pipeline/timeline_facts.py|tests/test_timeline_facts_exact.py tests/test_timeline_facts.py tests/replay/test_origin_clocks.py::test_a_file_of_one_origin_is_one_clock tests/replay/test_origin_clocks.py::test_a_pods_clock_stepped_in_a_merged_file_is_that_origins_step tests/test_timeline_corrections.py::test_back_jumps_are_per_origin_in_a_merged_file tests/test_timeline_corrections.py::test_shift_takes_each_origins_offset_in_a_file_measured_per_origin tests/replay/test_clock_steps.py tests/report/test_time_corrections.py tests/replay/test_consumer_protocol_clocks.py tests/replay/test_perturbed_logs_truth.py::test_a_host_clock_off_is_measured_for_that_file_only tests/replay/test_perturbed_logs_truth.py::test_two_hosts_logs_one_clock_off_state_nothing_false tests/replay/test_perturbed_logs_truth.py::test_copies_are_found_and_each_line_counts_once"
  [timeline_corrections]="pipeline/timeline_corrections.py|tests/replay/test_origin_clocks.py::test_the_skewed_pods_times_are_the_truths_and_the_others_untouched tests/test_timeline_corrections_exact.py tests/test_timeline_corrections.py tests/replay/test_clock_steps.py tests/report/test_time_corrections.py tests/replay/test_consumer_protocol_clocks.py tests/replay/test_perturbed_logs_truth.py::test_a_host_clock_off_is_measured_for_that_file_only tests/replay/test_perturbed_logs_truth.py::test_two_hosts_logs_one_clock_off_state_nothing_false tests/replay/test_perturbed_logs_truth.py::test_copies_are_found_and_each_line_counts_once"
  [broker_members]="pipeline/replay_rules/broker_members.py|tests/replay/test_broker_members_exact.py tests/replay/test_broker_only.py tests/replay/test_old_broker_removals.py tests/replay/test_partial_logs_truth.py tests/replay/test_samples.py"
)
ORDER=(offsets group_series figures findings broker_members ownership timeline_facts timeline_corrections)

[ "$#" -gt 0 ] && ORDER=("$@")
"$PY" -c "import mutmut" 2>/dev/null || { echo "mutmut missing: $PY -m pip install 'mutmut>=3.8,<4'" >&2; exit 2; }

for name in "${ORDER[@]}"; do
  spec="${MODULES[$name]:-}"
  [ -n "$spec" ] || { echo "unknown module $name (known: ${!MODULES[*]})" >&2; exit 2; }
  target="${spec%%|*}"
  tests=()
  for t in ${spec#*|}; do [ -f "$REPO/${t%%::*}" ] && tests+=("$t"); done

  dir="$WORK/$name"
  rm -rf "$dir"; mkdir -p "$dir/src"
  # the working tree as it is (committed or not), without run dirs and caches
  (cd "$REPO" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -C "$dir/src" -xf -
  ln -s "$(cd "$SHARED" && pwd)" "$dir/shared"          # tests find shared/ beside the checkout
  ln -s "$(cd "$SHARED" && pwd)" "$dir/src/shared"      # ... and mutmut runs them in src/mutants
  toml_list() { local s="" x; for x in "$@"; do s+="\"$x\", "; done; echo "[${s%, }]"; }
  cat >> "$dir/src/pyproject.toml" <<TOML

[tool.mutmut]
source_paths = ["pipeline"]
only_mutate = ["$target"]
also_copy = ["parsers", "sample_logs", "dashboard", "benchmarks", "scripts"]
pytest_add_cli_args = ["-m", "not spark and not browser", "-p", "no:cacheprovider", "-q", "-x"]
pytest_add_cli_args_test_selection = $(toml_list "${tests[@]}")
use_git_change_detection = false
TOML
  echo "== $name: mutating $target against ${#tests[@]} test files ($(date -u +%H:%M:%S) UTC)"
  (cd "$dir/src" && "$MUTMUT" run --max-children "$JOBS" >"$dir/run.log" 2>&1) || {
    echo "mutmut run failed for $name, see $dir/run.log" >&2; tail -20 "$dir/run.log" >&2; continue; }
  (cd "$dir/src" && "$MUTMUT" export-cicd-stats >/dev/null 2>&1 || true)
  (cd "$dir/src" && "$MUTMUT" results --all true >"$dir/results.txt" 2>&1 || "$MUTMUT" results >"$dir/results.txt" 2>&1 || true)
  "$PY" - "$dir/src/mutants/mutmut-cicd-stats.json" "$name" <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
keys = ["total", "killed", "survived", "timeout", "no_tests", "suspicious", "skipped", "segfault", "check_was_interrupted_by_user"]
print(f"   {sys.argv[2]}: " + ", ".join(f"{k} {s[k]}" for k in keys if k in s))
PYEOF
  grep -E ": (survived|no tests|timeout|suspicious)" "$dir/results.txt" | sed 's/^/   /' || true
done
