"""The order and sizes of the ingest's tasks (no JVM): the scan's splits dealt into tasks that
shrink toward the end (lines.deal_splits), and the per-group pass's units started largest first
(group_pass.unit_order). Both are about the end of a stage: the cores should finish together, not
one core working alone on a large last task while the other idles (BENCHMARKS.md, twenty-first
session, scaleout)."""

from __future__ import annotations

import math
import random

import pytest

from pipeline.spark import buckets as bk
from pipeline.spark import group_pass, lines

MiB = 1024 * 1024
# the 1 GB bench input's four files (benchmarks/make_big_logs.py), cut as the ingest cuts them
BENCH_SIZES = [268_686_773, 268_660_681, 268_696_765, 268_486_425]


def _plan(sizes, split=32 * MiB, names=None):
    files = [(f"file:/in/{n}", f"/in/{n}", s) for n, s in zip(names or [f"f{i}.log" for i in range(len(sizes))],
                                                                sizes, strict=True)]
    return lines.plan_splits(files, split, set())


def _finish_times(plan, tasks, cores, speed):
    """List scheduling as Spark's local scheduler does it: tasks start in order, each on the first
    free core; a task takes its bytes x speed[t]."""
    free = [0.0] * cores
    for t, task in enumerate(tasks):
        c = min(range(cores), key=lambda k: free[k])
        free[c] += sum(plan[i][4] for i in task) * speed[t]
    return free


def _round_robin(plan, n_tasks):
    """The deal before the twenty-first session: round-robin into 4 tasks per core."""
    return [[i for i in range(len(plan)) if i % n_tasks == k] for k in range(n_tasks)]


def test_every_split_is_dealt_once_largest_first():
    plan = _plan(BENCH_SIZES)
    tasks = lines.deal_splits(plan, 2)
    dealt = [i for t in tasks for i in t]
    assert sorted(dealt) == list(range(len(plan))) and all(tasks)
    sizes = [plan[i][4] for i in dealt]
    assert sizes == sorted(sizes, reverse=True)       # largest first, the 4 files' short tails last
    # the first task a quarter of the bytes (1 / (TAIL_SHARE x cores)), the last full splits alone
    assert len(tasks[0]) == 8 and [len(t) for t in tasks[6:13]] == [1] * 7
    assert len(tasks[-1]) == 4 and sum(plan[i][4] for i in tasks[-1]) < MiB


@pytest.mark.parametrize("cores", [1, 2, 3, 8])
def test_task_bytes_shrink_toward_the_end(cores):
    plan = _plan(BENCH_SIZES * 2)
    tasks = lines.deal_splits(plan, cores)
    left = sum(p[4] for p in plan)
    for t in tasks:
        took = sum(plan[i][4] for i in t)
        # each task holds at most its share of what is left (or one split, or the floor)
        assert len(t) == 1 or took <= max(left / (lines.TAIL_SHARE * cores),
                                          sum(p[4] for p in plan) / (lines.MIN_SHARE * cores))
        left -= took
    assert left == 0


def test_the_cores_finish_within_one_split_of_each_other_whatever_the_tasks_speed():
    """Tasks run at different speeds (a cold first task, a busy neighbour, lines that parse
    slower): with tasks shrinking toward the end the cores still finish within about one split's
    time. The equal tasks of the earlier deal (4 splits each) left one core alone for up to a
    task."""
    plan = _plan(BENCH_SIZES)
    split = 32 * MiB
    tasks = lines.deal_splits(plan, 2)
    old = _round_robin(plan, 8)
    worst_new = worst_old = 0.0
    for seed in range(300):
        rnd = random.Random(seed)
        speed = [rnd.uniform(0.75, 1.25) for _ in range(max(len(tasks), len(old)))]
        a, b = _finish_times(plan, tasks, 2, speed)
        worst_new = max(worst_new, abs(a - b))
        a, b = _finish_times(plan, old, 2, speed)
        worst_old = max(worst_old, abs(a - b))
    assert worst_new <= 1.25 * split
    assert worst_old > 2 * split      # what the change is about: the check can tell the two deals apart


def test_many_small_files_do_not_become_as_many_tasks():
    plan = _plan([10_000] * 3000, names=[f"f{i}.log" for i in range(3000)])
    for cores in (1, 2, 4):
        tasks = lines.deal_splits(plan, cores)
        assert sorted(i for t in tasks for i in t) == list(range(3000))
        bound = lines.TAIL_SHARE * cores * math.log(3000) + lines.MIN_SHARE * cores + 2
        assert 2 * cores <= len(tasks) <= bound, (cores, len(tasks))


def test_a_whole_compressed_file_larger_than_the_rest_goes_first_alone():
    files = [("file:/in/big.log.gz", "/in/big.log.gz", 500 * MiB)] + [
        (f"file:/in/f{i}.log", f"/in/f{i}.log", 64 * MiB) for i in range(3)]
    plan = lines.plan_splits(files, 32 * MiB, set())
    tasks = lines.deal_splits(plan, 2)
    assert tasks[0] == [0] and plan[0][4] == 500 * MiB
    assert lines.deal_splits([], 2) == []
    assert lines.deal_splits(plan[:1], 4) == [[0]]


def test_pass_units_start_largest_first():
    n = 4
    groups = [f"g{i}" for i in range(40)]
    counts = {g: 100 + 10 * i for i, g in enumerate(groups)}
    order = group_pass.unit_order(n, [], counts)
    per_bucket = [0] * n
    for g, c in counts.items():
        per_bucket[bk.bucket_of(g, n)] += c
    assert sorted(order) == list(range(n))
    assert [per_bucket[u] for u in order] == sorted(per_bucket, reverse=True)
    # without counts (a pass given no rows per group): the units in their own order
    assert group_pass.unit_order(n, [], None) == [0, 1, 2, 3]
    assert group_pass.unit_order(n, ["g1"], {}) == [0, 1, 2, 3, 4]


def test_a_hot_groups_units_start_first():
    """A group with 90% of the rows: its bucket (where its replay runs) and its series unit (unit
    n) start before the other buckets, not the series unit last of all."""
    n = 4
    counts = {f"g{i}": 100 for i in range(30)}
    counts["hot"] = 27_000
    split = group_pass.split_groups(counts, n)
    assert split == ["hot"]
    order = group_pass.unit_order(n, split, counts)
    hot_bucket = bk.bucket_of("hot", n)
    assert order[:2] == [hot_bucket, n]
    assert sorted(order) == list(range(n + 1))


def test_small_inputs_keep_a_few_tasks_per_core():
    """No task is made smaller than the largest split (the end is uneven by that much anyway), up
    to 1 / (4 x cores) of the whole: a few MB of small files (sample_logs/ holds 110 of 0.2-300 KB)
    stay at a few tasks per core, each task's fixed costs being what such a stage is made of."""
    rnd = random.Random(7)
    sizes = [rnd.randint(200, 300_000) for _ in range(110)]
    plan = _plan(sizes, names=[f"f{i}.log" for i in range(110)])
    for cores in (1, 2, 4):
        tasks = lines.deal_splits(plan, cores)
        assert sorted(i for t in tasks for i in t) == list(range(110))
        assert 4 * cores <= len(tasks) <= 7 * cores, (cores, len(tasks))
