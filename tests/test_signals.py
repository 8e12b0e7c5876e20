"""pipeline/signals.py without Spark: a process that started children which ignore SIGINT (as
PySpark starts its JVM) and grandchildren, interrupted by a real SIGINT: exit 130, one line, the
cleanup ran, and no process of its tree is left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

SCRIPT = textwrap.dedent("""
    import os, signal, subprocess, sys, time
    from pathlib import Path
    from pipeline.signals import interrupt_stops_everything

    marker = Path(sys.argv[1])
    def cleanup():
        marker.unlink()
        return "removed the marker"
    with interrupt_stops_everything("fake", cleanup):
        # a child ignoring SIGINT (as PySpark starts the JVM) with a grandchild; a shell with two
        subprocess.Popen(["sh", "-c", "trap '' INT; sleep 300 & wait"], preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        subprocess.Popen(["sh", "-c", "sleep 300 & sleep 0.5; sleep 300"])
        print("ready", flush=True)
        time.sleep(300)
""")


def _group_alive(pgid: int) -> list[str]:
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
                fields = stat[stat.rfind(")") + 2:].split()
                if int(fields[2]) == pgid and fields[0] != "Z":
                    out.append(pid)
            except (OSError, ValueError, IndexError):
                pass
    return out


def test_sigint_stops_the_whole_tree_and_exits_130(repo_root, tmp_path):
    marker = tmp_path / "marker"
    marker.write_text("x")
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, str(marker)], cwd=repo_root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stdout.readline().strip() == "ready"
    deadline = time.monotonic() + 20          # 2 shells, 3 sleeps (the second shell's first sleep ends)
    while time.monotonic() < deadline and len(_group_alive(proc.pid)) != 6:
        time.sleep(0.05)
    assert len(_group_alive(proc.pid)) == 6     # the Python process and its 5 descendants
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    time.sleep(0.3)
    assert proc.returncode == 130
    assert err.strip().splitlines() == ["coordscope fake: interrupted (stopped 5 process(es) it started; "
                                        "removed the marker)"], err
    assert not marker.exists()
    assert _group_alive(proc.pid) == []


def test_sigterm_exits_143(repo_root, tmp_path):
    marker = tmp_path / "marker"
    marker.write_text("x")
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, str(marker)], cwd=repo_root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    time.sleep(0.3)
    assert proc.returncode == 143 and err.startswith("coordscope fake: terminated")
    assert _group_alive(proc.pid) == []


NOISY = textwrap.dedent("""
    import subprocess, sys, threading, time, traceback
    from pipeline.signals import interrupt_stops_everything, stopping

    def dying_server():
        # as PySpark's accumulator server does when the JVM it reads from is stopped: socketserver's
        # handle_error prints the EOFError's traceback to sys.stderr from its own thread
        stopping.wait()
        while True:
            try:
                raise EOFError
            except EOFError:
                traceback.print_exc()
            time.sleep(0.001)
    threading.Thread(target=dying_server, daemon=True).start()
    with interrupt_stops_everything("fake"):
        # a child that takes a moment to die (SIGTERM trapped): the thread prints meanwhile
        subprocess.Popen(["sh", "-c", "trap 'sleep 0.5; exit' TERM; sleep 300 & wait"])
        print("ready", flush=True)
        time.sleep(300)
""")


def test_only_the_handlers_line_is_shown_while_the_tree_dies(repo_root):
    """A thread of the CLI that meets the dying JVM (its traceback printed to sys.stderr) is not
    shown: CI saw PySpark's accumulator server print an EOFError after a Ctrl-C in the replay."""
    proc = subprocess.Popen([sys.executable, "-c", NOISY], cwd=repo_root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err == "coordscope fake: interrupted (stopped 2 process(es) it started)\n", err[-500:]
