"""Ctrl-C during `coordscope replay` (a real process, SIGINT while it replays): exit 130, one line,
no traceback, while reading or replaying."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from tests.replay import scenarios as S

pytestmark = pytest.mark.slow


# From 1 s on: earlier, SIGINT may land while the interpreter itself starts (site imports), before
# any coordscope code runs, where Python prints its own fatal error.
@pytest.mark.parametrize("delay", [1.0, 1.5, 2.0])
def test_ctrl_c_during_replay_exits_130_with_one_line(repo_root, tmp_path, delay):
    base = [e.to_dict() for e in S.session_expiry_broker()]
    path = tmp_path / "many.jsonl"
    with path.open("w") as fh:
        for g in range(12000):                        # 12,000 groups: about 10 s of replay
            for e in base:
                fh.write(json.dumps(dict(e, group_id=f"g{g}")) + "\n")
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "replay", str(path)], cwd=repo_root,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(delay)
    assert proc.poll() is None, "the replay ended before the signal: the test needs a longer input"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err[-2000:]
    assert err.strip().splitlines() == ["coordscope replay: interrupted"], err[-2000:]
