"""The ingest's filter drops the lines that hold no candidate word; what it tells the reader about them
(parsers/drop_gaps.py `filter_with_gaps`, GAP_* codes; jvm/SplitScanner.java `Gaps` on the JVM;
docs/parsers.md "Merged streams") makes the records the reader builds from the kept lines the records
`coordscope parse` builds from every line:

- merged streams (kubectl --prefix, stern, docker compose, journalctl short): 2-4 consumers print their
  `ConsumerConfig values:` blocks while other pods log ordinary application lines (no candidate word)
  between any two of their lines; a consumer's own application line (an ERROR with its stack trace)
  inside its block ends the block in both readings, and the trace is never glued to another block;
- Kafka's log4j layout soft-wrapped (a pasted record broken at spaces, `_soft_wrap`): the pieces that
  hold no candidate word are kept, so the record is read whole.

Each test compares the events of both readings field by field (nothing missed, nothing extra glued).
On main before this change (e8a5554) the filtered reading ended every record at every dropped line:
the merged files' blocks kept only the settings before the first foreign line."""

from __future__ import annotations

import json
import random

import pytest

from parsers.drop_gaps import filter_with_gaps, gap_codes
from parsers.reader import (
    GAP_ALL,
    GAP_NONE,
    GAP_OWN,
    FileFormat,
    is_candidate,
    parse_lines,
    sniff,
)
from tests.parsers.test_interleaved_origins import SHAPES

ORIGIN_SHAPES = {k: v for k, v in SHAPES.items() if k in ("kubectl", "stern", "compose", "journalctl-short")}
PODS = ["ledger-7d9f8c6b5-x2x4q", "billing-5c4b7d9f8-q8r2z", "orders-6f7c9d8b4-k3m5n", "audit-59d8c7b6f-p4q7r"]


def consumer_lines(i: int, pod: str) -> list[str]:
    """A consumer's start-up in log4j's `[%d] %p %m (%c)%n` (AbstractConfig.logAll's block)."""
    group = pod.split("-")[0]
    conf = {"group.id": group, "client.id": f"consumer-{group}-1", "session.timeout.ms": str(10000 * (i + 1)),
            "max.poll.interval.ms": str(60000 * (i + 1)), "heartbeat.interval.ms": "3000",
            "group.instance.id": f"{group}-static-{i}", "auto.offset.reset": "earliest",
            "partition.assignment.strategy": "[class org.apache.kafka.clients.consumer.CooperativeStickyAssignor]"}
    return [
        "[2025-02-03 04:05:06,789] INFO ConsumerConfig values: ",
        *(f"\t{k} = {v}" for k, v in sorted(conf.items())),
        " (org.apache.kafka.clients.consumer.ConsumerConfig)",
        f"[2025-02-03 04:05:07,100] INFO [Consumer clientId=consumer-{group}-1, groupId={group}] (Re-)joining group "
        "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
    ]


def app_line(rng: random.Random) -> str:
    """An application's own line: no candidate word."""
    return f"[2025-02-03 04:05:06,{rng.randint(100, 999)}] INFO Handled request {rng.randint(1, 10**6)} in " \
           f"{rng.randint(1, 99)} ms (com.example.api.RequestLog)"


def merged(wrap, n_pods: int, seed: int, own_error: bool = False) -> list[str]:
    """n_pods consumers' start-ups interleaved at random with application lines of every pod (and of
    pods that run no consumer); with own_error, the first consumer logs an ERROR with a stack trace
    (no candidate word in its first line) inside its own block."""
    rng = random.Random(seed)
    queues = [[wrap(p, x) for x in consumer_lines(i, p)] for i, p in enumerate(PODS[:n_pods])]
    if own_error:
        q = queues[0]
        err = [wrap(PODS[0], "[2025-02-03 04:05:06,790] ERROR Uncaught failure in request handler (com.example.api.Handler)"),
               wrap(PODS[0], "java.lang.IllegalStateException: closed"),
               wrap(PODS[0], "\tat com.example.api.Handler.run(Handler.java:42)")]
        queues[0] = q[:4] + err + q[4:]
    lines: list[str] = []
    pods = PODS[:n_pods]
    started = [False] * n_pods
    while any(queues):
        k = rng.randrange(n_pods + 1)
        if k == n_pods or not queues[k]:
            # a line of a pod that is not inside its block (log4j writes a record at once), or of a pod
            # that runs no consumer
            idle = [p for i, p in enumerate(pods) if not started[i] or len(queues[i]) <= 1] + ["web-7c8d9e6f5-abcde"]
            lines.append(wrap(rng.choice(idle), app_line(rng)))
        else:
            started[k] = True
            lines.append(queues[k].pop(0))
    return lines


def both(lines: list[str]) -> tuple[list, list, FileFormat]:
    fmt = sniff(lines)
    numbered = list(enumerate(lines, 1))
    whole = [o.event for o in parse_lines("m.log", numbered, fmt) if o.event is not None]
    pairs, codes = gap_codes(filter_with_gaps(numbered, fmt))
    outs = list(parse_lines("m.log", pairs, fmt, gaps=codes))
    assert [o.line_no for o in outs] == [n for n, _ in pairs]   # one outcome per kept line, in order
    return whole, [o.event for o in outs if o.event is not None], fmt


def _facts(evs) -> list[tuple]:
    return [(e.line_no, e.kind, e.group_id, e.client_id, e.ts_ms, json.dumps(e.extra, sort_keys=True, default=str))
            for e in evs]


@pytest.mark.parametrize("shape", list(ORIGIN_SHAPES))
@pytest.mark.parametrize("n_pods", [2, 3, 4])
@pytest.mark.parametrize("seed", range(4))
def test_merged_blocks_filtered_read_as_whole(shape, n_pods, seed):
    wrap, origin_of = ORIGIN_SHAPES[shape]
    lines = merged(wrap, n_pods, seed)
    whole, filtered, fmt = both(lines)
    assert fmt.wrappers[:1] == ((shape if shape != "journalctl-short" else "syslog"),)
    assert sum(not is_candidate(x) for x in lines) >= 4   # foreign lines dropped between the blocks
    assert _facts(filtered) == _facts(whole)
    configs = {e.extra["origin"]: e.extra["settings"] for e in filtered if e.kind == "client_config"}
    assert set(configs) == {origin_of(p) for p in PODS[:n_pods]}
    for i, p in enumerate(PODS[:n_pods]):
        s = configs[origin_of(p)]
        assert len(s) == 8 and s["session.timeout.ms"] == str(10000 * (i + 1))
        assert s["group.instance.id"] == f"{p.split('-')[0]}-static-{i}"


@pytest.mark.parametrize("shape", list(ORIGIN_SHAPES))
@pytest.mark.parametrize("seed", range(4))
def test_own_dropped_line_ends_the_block_in_both_readings(shape, seed):
    """The consumer's own ERROR (dropped: no candidate word) ends its block where `parse` ends it; the
    trace after it (kept: indented) is glued to no block, its settings after the ERROR are lost in both."""
    wrap, origin_of = ORIGIN_SHAPES[shape]
    lines = merged(wrap, 3, seed, own_error=True)
    whole, filtered, _fmt = both(lines)
    assert _facts(filtered) == _facts(whole)
    mine = [e for e in filtered if e.kind == "client_config" and e.extra["origin"] == origin_of(PODS[0])]
    assert len(mine) == 1 and len(mine[0].extra["settings"]) == 3   # the 3 settings before the ERROR


def test_gap_codes_say_which_origin_lost_a_line():
    wrap = ORIGIN_SHAPES["kubectl"][0]
    a, b = PODS[:2]
    lines = [wrap(a, "[2025-02-03 04:05:06,789] INFO ConsumerConfig values: "),   # 1 kept
             wrap(b, "hello"),                                                     # 2 dropped (b)
             wrap(a, "\tgroup.id = ledger"),                                       # 3 kept: b's line only
             wrap(a, "hello"),                                                     # 4 dropped (a)
             wrap(b, "\tat x.Y.z(Y.java:1)"),                                       # 5 kept: b lost 2
             wrap(a, "\tclient.id = c"),                                           # 6 kept: a lost 4
             "no prefix here",                                                     # 7 dropped, no origin
             wrap(a, "\tx = 1"),                                                   # 8 kept: all end
             wrap(a, "\ty = 1")]                                                   # 9 kept, nothing dropped
    fmt = FileFormat("log", "log4j", ("kubectl",))
    got = [(no, code) for no, _t, code in filter_with_gaps(list(enumerate(lines, 1)), fmt)]
    assert got == [(1, GAP_OWN), (3, GAP_NONE), (5, GAP_OWN), (6, GAP_OWN), (8, GAP_ALL), (9, GAP_NONE)]


# --- soft-wrapped log4j records ------------------------------------------------------------------

_RECORDS = [
    "[2025-05-13 08:46:00,883] INFO [GroupCoordinator id=1] Ignored unloading metadata for __consumer_offsets-0 in "
    "epoch OptionalInt[0] since current epoch is 0. (org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime)",
    "[2024-11-20 19:08:23,099] INFO [GroupCoordinator 1]: Stabilized group spans generation 234 "
    "(__consumer_offsets-0) with 1 members (kafka.coordinator.group.GroupCoordinator)",
    "[2024-11-20 19:08:20,001] INFO [GroupCoordinator 1]: Preparing to rebalance group spans in state "
    "PreparingRebalance with old generation 233 (__consumer_offsets-0) (reason: Adding new member "
    "consumer-spans-1-0f3e with group instance id None; client reason: need to re-join with the given "
    "member-id: consumer-spans-1-0f3e) (kafka.coordinator.group.GroupCoordinator)",
    "[2024-11-20 19:08:25,500] INFO [GroupCoordinator 1]: Member consumer-spans-1-0f3e in group spans has left, "
    "removing it from the group (reason: Removing member consumer-spans-1-0f3e on LeaveGroup; client reason: the "
    "application is shutting down cleanly after its last request was served) (kafka.coordinator.group.GroupCoordinator)",
]


@pytest.mark.parametrize("width", [40, 55, 72])
@pytest.mark.parametrize("seed", range(3))
def test_soft_wrapped_broker_records_filtered_read_as_whole(width, seed):
    from tests.parsers.test_paste_shapes3 import _wrap_at_spaces

    rng = random.Random(seed)
    lines: list[str] = []
    pieces = 0
    for r in _RECORDS:
        lines += [app_line(rng) for _ in range(rng.randint(0, 3))]
        wrapped = _wrap_at_spaces(r, width, False)
        pieces += sum(not is_candidate(x) for x in wrapped[1:])
        lines += wrapped
    lines += [app_line(rng) for _ in range(rng.randint(0, 3))]
    assert pieces >= 1   # pieces without a candidate word: the filter alone would drop them
    whole, filtered, fmt = both(lines)
    assert fmt.layout == "log4j" and not fmt.wrappers
    assert _facts(filtered) == _facts(whole)
    if width == 40:
        return   # (narrower than the broker's own prefix: `parse` reads pieces alone, the same in both)
    # one event per record, each read from all of its pieces (what `parse` reads, above)
    assert len(filtered) == len(_RECORDS) and all(e.extra.get("soft_wrapped") for e in filtered)
    assert [e.raw.split("]", 1)[0] for e in filtered] == [r.split("]", 1)[0] for r in _RECORDS]


def test_soft_wrap_keeps_few_lines():
    """Only the lines right after a kept log4j line that start no record of their own are kept; a
    record's ordinary successor (a log4j line: a time first) is not."""
    rng = random.Random(1)
    lines = [app_line(rng) for _ in range(50)]
    lines[10] = _RECORDS[1]
    lines[11] = "and then a sentence someone wrote under the line"   # a record with its logger takes none
    lines[20] = _RECORDS[1].rsplit(" (", 1)[0] + " (reason: the member left)"   # no logger: may take pieces
    lines[21] = "a piece of it"
    fmt = sniff(lines)
    kept = [no for no, _t, _c in filter_with_gaps(list(enumerate(lines, 1)), fmt)]
    assert kept == [11, 21, 22]
