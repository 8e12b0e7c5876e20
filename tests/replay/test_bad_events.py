"""`coordscope replay` on type-confused input: every bad event line is counted and named, the rest is
replayed exactly as without them, nothing crashes; settings are validated: a zero or negative
interval given with --set is refused with one line, one printed in a log is replaced by Kafka's
default and said, and neither hangs (the reference model steps by the heartbeat interval)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pipeline import rundir
from tests.replay import scenarios as S

# field -> bad value; each becomes one line (a copy of a real event with that field spoiled)
CONFUSIONS = [
    ("generation", "abc"), ("generation", -5), ("generation", 1.5), ("generation", True), ("generation", 2**40),
    ("generation", "NaN"), ("ts_ms", "2023-11-14"), ("line_no", None), ("line_no", -3), ("partition", "--1"),
    ("partition", -1), ("offset", "12"), ("offset", -7), ("member_id", 17), ("group_id", ["payments"]),
    ("client_id", {"x": 1}), ("source", None), ("kind", ["join_started"]), ("side", "sideways"), ("raw", 42),
    ("reason", 1.5), ("error", -1), ("protocol", -1), ("topic", 3), ("partitions", "t-0,t-1"),
    ("partitions", ["t-0", None]), ("partitions", ["garbage"]), ("partitions", ["-1"]), ("extra", "abc"),
    ("extra", [1, 2]), ("member_epoch", -9), ("coordinator", 5),
]


def _events():
    return [e.to_dict() for e in S.session_expiry_broker()]


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _replay(repo_root, *args, timeout=120):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", "replay", *map(str, args)], cwd=repo_root,
                          capture_output=True, text=True, timeout=timeout)


def test_type_confused_lines_are_counted_named_and_skipped(repo_root, tmp_path):
    good = _events()
    clean = _replay(repo_root, _write(tmp_path / "clean.jsonl", good))
    assert clean.returncode == 0 and clean.stderr == ""
    rows = list(good)
    for i, (name, value) in enumerate(CONFUSIONS):
        bad = dict(good[i % len(good)], **{name: value})
        if name != "group_id":
            bad["group_id"] = "payments"
        rows.insert(2 * i + 1, bad)
    res = _replay(repo_root, _write(tmp_path / "mixed.jsonl", rows))
    assert res.returncode == 0, res.stderr[-3000:]
    assert "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"coordscope replay: {len(CONFUSIONS)} of {len(rows)} input line(s) rejected (")
    for name in ("generation", "partitions", "extra", "missing fields", "side"):
        assert f" {name}" in lines[0]
    # the good lines give exactly the replay they give alone: nothing lost, nothing invented
    assert res.stdout == clean.stdout


@pytest.mark.parametrize("name,value", CONFUSIONS, ids=[f"{n}={v!r}"[:30] for n, v in CONFUSIONS])
def test_each_confusion_is_rejected_with_its_field(tmp_path, name, value):
    from pipeline.replay_rules import inputs

    good = _events()
    bad = dict(good[3], **{name: value})
    loaded = inputs.load(str(_write(tmp_path / "e.jsonl", [*good, bad])))
    assert len(loaded.rejected) == 1, loaded.rejected
    line, why = loaded.rejected[0]
    assert line == len(good) + 1 and (name in why or "missing" in why), why
    assert sum(len(v) for v in loaded.by_group.values()) == len(good)


def test_run_dir_rows_out_of_range_are_counted(repo_root, tmp_path):
    good = _events()
    rows = [dict(e, extra_json=json.dumps(e.pop("extra") or {})) for e in (dict(x) for x in good)]
    spoiled = [dict(rows[1], generation=-5, line_no=9001), dict(rows[2], partitions=["garbage", "t-0"], line_no=9002),
               dict(rows[3], partition=-4, line_no=9003)]
    rundir.write_table(tmp_path / "run", "events", rows + spoiled)
    rundir.write_manifest(tmp_path / "run", {"inputs": []})
    res = _replay(repo_root, tmp_path / "run")
    assert res.returncode == 0 and "Traceback" not in res.stderr
    assert res.stderr.startswith(f"coordscope replay: 3 of {len(rows) + 3} input row(s) rejected (")
    assert "generation -5 is out of range" in res.stderr and "group payments: 3 generation(s)" in res.stdout


@pytest.mark.parametrize("setting,expect", [
    ("heartbeat.interval.ms=0", "heartbeat.interval.ms must be at least 1"),
    ("heartbeat.interval.ms=-5", "heartbeat.interval.ms must be at least 1"),
    ("session.timeout.ms=0", "session.timeout.ms must be at least 1"),
    ("max.poll.interval.ms=-1", "max.poll.interval.ms must be at least 1"),
    ("rebalance.timeout.ms=0", "rebalance.timeout.ms must be at least 1"),
    ("session.timeout.ms=99999999999", "at most 2147483647"),
    ("group.initial.rebalance.delay.ms=-1", "must be zero or more"),
])
def test_unusable_settings_are_refused_with_one_line(repo_root, tmp_path, setting, expect):
    res = _replay(repo_root, _write(tmp_path / "e.jsonl", _events()), "--set", setting, timeout=60)
    assert res.returncode == 2 and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("coordscope replay: error: ") and expect in lines[0]


def test_heartbeat_not_below_session_is_refused(repo_root, tmp_path):
    res = _replay(repo_root, _write(tmp_path / "e.jsonl", _events()), "--set", "session.timeout.ms=3000",
                  "--set", "heartbeat.interval.ms=3000", timeout=60)
    assert res.returncode == 2
    assert "heartbeat.interval.ms (3000) must be lower than session.timeout.ms (3000)" in res.stderr


@pytest.mark.parametrize("printed", ["0", "-3000"])
def test_a_logged_zero_interval_is_replaced_and_said(repo_root, tmp_path, printed):
    """Before: the reference model stepped by 0 ms forever (the subprocess timed out)."""
    events = _events()
    first = min((e for e in events if e["side"] == "client" and e["ts_ms"] is not None), key=lambda e: e["ts_ms"])
    config = dict(first, kind="client_config", line_no=1, source="hostZ/app.log", ts_ms=first["ts_ms"] - 1000,
                  raw=f"\theartbeat.interval.ms = {printed}", extra={"settings": {"heartbeat.interval.ms": printed}})
    path = _write(tmp_path / "e.jsonl", [config, *events])
    res = _replay(repo_root, path, "--set", "session.timeout.ms=20000", "--format", "json", timeout=90)
    assert res.returncode == 0, res.stderr
    assert res.stderr.strip().splitlines() == [
        f"coordscope replay: note: heartbeat.interval.ms = {printed} printed at hostZ/app.log:1 is not a usable "
        "value; the replay uses 3000 instead (default of Kafka 3.x, assumed: no client or broker version in the logs)"]
    doc = json.loads(res.stdout)
    assert doc["settings"]["heartbeat_interval_ms"] == 3000
