"""`coordscope parse` ends its process with os._exit after flushing (pipeline/cli.py console_main):
every byte still written, atexit handlers still run, the status unchanged, a closed pipe handled."""

from __future__ import annotations

import io
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout

from pipeline import cli

LINE = ("[2024-03-01 10:15:{s:02d},{ms:03d}] INFO [Consumer clientId=c1, groupId=g1] Committed offset {o} "
        "for partition t-{p} (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)\n")

# A process that calls console_main as the console script does, with an atexit handler (must run)
# and an object whose finalizer only runs at the interpreter's finalization (must not).
RUNNER = """
import atexit, sys
from pipeline import cli
class Finalized:
    def __del__(self):
        sys.__stderr__.write("finalized\\n")
keep = Finalized()
atexit.register(lambda: sys.stderr.write("atexit ran\\n"))
sys.exit(cli.console_main(sys.argv[1:]))
"""


def _log(tmp_path, n=20_000):
    p = tmp_path / "c.log"
    p.write_text("".join(LINE.format(s=i // 1000 % 60, ms=i % 1000, o=i * 7, p=i % 13) for i in range(n)))
    return p


def _in_process(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = cli.main(list(argv))
    return status, out.getvalue(), err.getvalue()


def _run(repo_root, *argv):
    return subprocess.run([sys.executable, "-c", RUNNER, *argv], cwd=repo_root, capture_output=True, timeout=300)


def test_parse_skips_finalization_but_writes_everything_and_runs_atexit(repo_root, tmp_path):
    log = _log(tmp_path)
    status, out, err = _in_process("parse", str(log))
    r = _run(repo_root, "parse", str(log))
    assert r.returncode == status == 0
    assert r.stdout.decode() == out and len(out.splitlines()) == 20_000  # ~5 MB, many buffers
    assert r.stderr.decode() == err + "atexit ran\n"  # no "finalized": the interpreter did not finalize


def test_parse_status_kept_on_quick_exit(repo_root, tmp_path):
    r = _run(repo_root, "parse", str(tmp_path / "missing.log"))
    assert r.returncode == 1
    assert b"missing.log: no such file" in r.stderr and r.stderr.endswith(b"atexit ran\n")


def test_other_commands_finalize_normally(repo_root):
    r = _run(repo_root, "explain", "not a coordinator line")
    assert b"finalized" in r.stderr


def test_parse_into_a_closed_pipe(repo_root, tmp_path):
    log = _log(tmp_path)
    p = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "parse", str(log)], cwd=repo_root,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = p.stdout.read(1000)
    p.stdout.close()  # the reader goes away (`| head -c 1000`)
    err = p.stderr.read()
    assert p.wait(timeout=300) == 0
    assert first.startswith(b'{"source":')
    assert b"Traceback" not in err and b"Exception ignored" not in err
