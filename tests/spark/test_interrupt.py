"""Ctrl-C on a real `coordscope ingest` process at each stage, Spark's start included: the JVM and
every process it started are gone, the exit status is 130, stderr ends with one line (no Py4J or
Python traceback), and nothing is left beside --out (no hidden temporary RUN_DIR, no RUN_DIR).

The process runs in its own session so that every process it starts can be found afterwards by
its process group; SIGINT goes to the ingest process alone (as the issue's probe did) and, once,
to the whole group (as a terminal's Ctrl-C does; the JVM ignores SIGINT by PySpark's design)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def _live_in_group(pgid: int) -> list[str]:
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            fields = stat[stat.rfind(")") + 2:].split()
            if int(fields[2]) == pgid and fields[0] != "Z":      # zombies are dead (no init reaps here)
                out.append(Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")[:120])
        except (OSError, IndexError, ValueError):
            continue
    return out


@pytest.mark.parametrize("stage,delay,whole_group", [
    ("start spark ...", 0.5, False),          # the JVM is starting (spark-submit, its launcher)
    ("start spark ...", 3.0, False),
    ("inputs ...", 0.0, False),
    ("read and parse ...", 0.5, True),
    ("tables and replay ...", 0.2, False),
], ids=["spark-start-early", "spark-start-late", "inputs", "read-and-parse-group", "replay"])
def test_ctrl_c_stops_the_jvm_and_exits_130(repo_root, tmp_path, stage, delay, whole_group):
    out = tmp_path / "out" / "run"
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "ingest", str(repo_root / "sample_logs"),
                             "--out", str(out)], cwd=repo_root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)
    reader.start()
    deadline = time.monotonic() + 300
    while not any(stage in ln for ln in lines) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    if proc.poll() is not None:
        pytest.fail(f"ingest ended before stage {stage!r}: {''.join(lines)[-2000:]}")
    time.sleep(delay)
    if whole_group:
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    rc = proc.wait(timeout=60)
    reader.join(timeout=10)
    time.sleep(0.5)
    left = _live_in_group(proc.pid)
    text = "".join(lines)
    assert rc == 130, text[-3000:]
    assert left == [], left
    assert "Traceback" not in text and "Py4J" not in text and "py4j" not in text, text[-3000:]
    last = text.strip().splitlines()[-1]
    assert last.startswith("coordscope ingest: interrupted"), text[-1500:]
    assert os.listdir(out.parent) == [], os.listdir(out.parent)


def test_the_next_run_removes_what_a_killed_run_left(repo_root, tmp_path):
    """SIGKILL cannot be handled: the hidden temporary RUN_DIR stays; the next ingest into the same
    --out removes it (its owner pid is gone) and writes the run; nothing else beside --out is touched."""
    out = tmp_path / "out" / "run"
    out.parent.mkdir()
    (out.parent / ".run.tmp-mine").mkdir()                 # same name shape, not coordscope's: kept
    (out.parent / "notes.txt").write_text("the user's")
    cmd = [sys.executable, "-m", "pipeline.cli", "ingest", str(repo_root / "sample_logs"), "--out", str(out)]
    proc = subprocess.Popen(cmd, cwd=repo_root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)
    reader.start()
    deadline = time.monotonic() + 300
    while not any("read and parse ..." in ln for ln in lines) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)                    # the ingest and the JVM it started
    proc.wait(timeout=30)
    leftovers = sorted(p.name for p in out.parent.iterdir() if p.name.startswith(".run.tmp-") and p.name != ".run.tmp-mine")
    assert len(leftovers) == 1 and not out.exists()
    res = subprocess.run(cmd, cwd=repo_root, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    assert sorted(p.name for p in out.parent.iterdir()) == [".run.tmp-mine", "notes.txt", "run"]
    assert (out / "manifest.json").is_file()
