"""The fast event writer (parsers.event_json, orjson) writes byte for byte what the previous writer
wrote: json.dumps(event.to_dict() [+ why], ensure_ascii=False, separators=(",", ":")), UTF-8."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from parsers import parse_path
from parsers.event_json import event_line
from parsers.events import Event
from parsers.json_text import floats_alike

REPO = Path(__file__).resolve().parents[2]


def _previous_line(ev: Event, why: str | None) -> bytes:
    # the writer of pipeline/commands/parse.py before the fast path (commit 969aa0e)
    d = ev.to_dict()
    if why:
        d["why"] = why
    return (json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))


def _compare(paths: list[Path]) -> int:
    n = 0
    for path in paths:
        outcomes, _ = parse_path(str(path))
        for o in outcomes:
            if o.event is None:
                continue
            why = o.why if o.status == "unparsed" else None
            assert event_line(o.event, why) == _previous_line(o.event, why), (str(path), o.line_no)
            n += 1
    return n


def test_same_bytes_on_every_sample_logs_event():
    assert _compare(_files(REPO / "sample_logs")) > 7_000


def test_same_bytes_on_every_real_logs_event(shared_dir):
    assert _compare(_files(shared_dir / "real_logs")) > 90


def _event(**kw) -> Event:
    base = dict(source="a.log", line_no=7, side="client", kind="join_started", raw="r", ts_ms=1)
    base.update(kw)
    return Event(**base)


@pytest.mark.parametrize("ev", [
    _event(raw="\x00\x01\x1f\x7f\u2028\u2029\"\\ é😀\t\n\r\b\f", group_id="g\u00e9", partitions=("t-0", "t-1")),
    _event(partitions=(), extra={}),
    _event(extra={"nested": {"a": [1, 2.5, None, True, "x"]}, "t": ("a", 1)}),
    _event(extra={"small": 2.5e-05, "big": 1e+16, "neg": -0.0}),
    _event(extra={"nan": float("nan"), "inf": float("-inf")}),
    _event(offset=1 << 70, extra={"huge": -(1 << 80)}),
    _event(extra={1: "int key", "k": {2: "x"}}),
    _event(generation=5, member_epoch=-1, partition=0, offset=2**63 - 1),
    _event(extra=None),
    _event(extra={"sub": {"a": 1.5}, "lst": [1, [2, 1e-5]]}),
], ids=["strings", "empty", "nested", "float-forms", "non-finite", "beyond-64-bits", "int-keys", "ints",
        "extra-none", "nested-float"])
def test_same_bytes_on_edge_values(ev):
    for why in (None, "no rule matched"):
        assert event_line(ev, why) == _previous_line(ev, why)


def test_a_file_name_that_is_not_utf8_goes_out_as_its_bytes():
    name = os.fsdecode(b"caf\xe9.log")  # a lone surrogate after surrogateescape
    line = event_line(_event(source=name))
    assert line.startswith(b'{"source":"caf\xe9.log","line_no":7,')


def test_floats_left_to_json_dumps():
    assert floats_alike({"a": [1, "x", None, True, 0.5, 0.0, -3e300, {"b": ()}]})
    assert not floats_alike({"a": 2.5e-05}) and not floats_alike([float("nan")])
    assert not floats_alike({"k": ({"x": float("inf")},)})


def _expected_output(root: Path) -> bytes:
    from pipeline.commands.parse import _inputs

    out = []
    for path, not_read in _inputs([str(root)]):
        if not_read is not None:
            continue
        for o in parse_path(path)[0]:
            if o.event is not None:
                out.append(_previous_line(o.event, o.why if o.status == "unparsed" else None))
    return b"".join(out)


def test_parse_cli_writes_the_previous_bytes_across_batches(monkeypatch):
    import io
    import subprocess
    import sys

    from parsers import reader
    from pipeline.cli import main

    want = _expected_output(REPO / "sample_logs")
    assert want.count(b"\n") > 3 * reader._BATCH  # several batches (the reader's lists) and a partial last one
    got = subprocess.run([sys.executable, "-m", "pipeline.cli", "parse", str(REPO / "sample_logs")], cwd=REPO,
                         capture_output=True, check=True).stdout
    assert got == want
    text = io.StringIO()  # a standard output without a binary buffer (a caller's redirect)
    monkeypatch.setattr(sys, "stdout", text)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert main(["parse", str(REPO / "sample_logs")]) == 0
    assert text.getvalue().encode("utf-8") == want


def test_one_writer_reused_across_events_keeps_each_line_its_own():
    from parsers.event_json import event_writer

    write = event_writer()
    evs = [(_event(group_id="g1"), "no rule"), (_event(line_no=8), None),
           (_event(extra={"nan": float("nan")}), "x"), (_event(line_no=9, extra={"k": "v"}), None)]
    for ev, why in evs * 2:
        assert write(ev, why) == _previous_line(ev, why)


def _rendered_equal(path: Path) -> tuple[int, int]:
    """parse_path(rendered=True) against parse_path: the same outcomes, a Rendered event holding
    the line event_line writes for the Event and its kind. Returns (events, rendered)."""
    from parsers import client
    from parsers.event_json import Rendered

    client.clear_memos()
    plain = list(parse_path(str(path))[0])
    client.clear_memos()
    rendered = list(parse_path(str(path), rendered=True)[0])
    assert len(plain) == len(rendered), path
    n = r = 0
    for a, b in zip(plain, rendered, strict=True):
        assert (a.line_no, a.status, a.why) == (b.line_no, b.status, b.why), (str(path), a.line_no)
        if a.event is None:
            assert b.event is None
            continue
        n += 1
        if type(b.event) is Rendered:
            r += 1
            assert b.event.kind == a.event.kind and b.event.line == event_line(a.event), (str(path), a.line_no)
        else:
            assert b.event == a.event, (str(path), a.line_no)
    return n, r


def test_rendered_lines_are_the_events_lines_on_sample_and_real_logs(shared_dir):
    files = _files(REPO / "sample_logs") + _files(shared_dir / "real_logs")
    totals = [_rendered_equal(p) for p in files]
    assert sum(n for n, _r in totals) > 7_000 and sum(r for _n, r in totals) > 300


def test_rendered_lines_follow_the_files_kafka_version_and_the_tail_memo(tmp_path):
    # repeated lines (tail memo hits, from the third sight on) before and after the file states its
    # client version (every later event carries it as kafka_version_hint), an offsets map, a line
    # whose extra json.dumps writes otherwise (never rendered), a non-ASCII line (general path)
    lines = []
    for i in range(12):
        if i == 5:
            lines.append("[2024-03-01 10:00:05,000] INFO Kafka version: 3.6.1 (org.apache.kafka.common.utils.AppInfoParser)")
        lines += [
            f"[2024-03-01 10:00:0{i % 10},{i:03d}] INFO [Consumer clientId=c-1, groupId=g] Received successful Heartbeat "
            "response (org.apache.kafka.clients.consumer.internals.AbstractCoordinator)",
            f"[2024-03-01 10:00:0{i % 10},{i:03d}] INFO [Consumer clientId=c-1, groupId=g] Committed offset {i % 2} for "
            "partition orders-3 (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
            f"[2024-03-01 10:00:0{i % 10},{i:03d}] INFO [Consumer clientId=c-1, groupId=g] Completed asynchronous "
            "auto-commit of offsets {orders-1=OffsetAndMetadata{offset=7, leaderEpoch=0, metadata=''}} "
            "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
            f"[2024-03-01 10:00:0{i % 10},{i:03d}] INFO [Consumer clientId=c-1, groupId=gé] (Re-)joining group "
            "(org.apache.kafka.clients.consumer.internals.AbstractCoordinator)",
        ]
    path = tmp_path / "app\u00e9.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    n, r = _rendered_equal(path)
    assert n == 48 and 0 < r < n
    # a version hint after the version line, on rendered tail memo hits too
    from parsers.event_json import Rendered

    last = [o.event for o in parse_path(str(path), rendered=True)[0] if o.event is not None][-3]
    assert type(last) is Rendered and b'"kafka_version_hint":"3.6.1"' in last.line


def test_rendered_mix_of_the_benchmark_equals_the_events(tmp_path):
    import sys

    sys.path.insert(0, str(REPO / "benchmarks"))
    from parse_bench import coordinator_lines

    path = tmp_path / "mix.log"
    path.write_text("\n".join(coordinator_lines(6000, unique=False)) + "\n", encoding="utf-8")
    n, r = _rendered_equal(path)
    assert n > 5_900 and r > 5_000
