"""`coordscope dashboard`: clear errors for a bad RUN_DIR, and a real server bound to 127.0.0.1."""

import subprocess
import sys
import time
import urllib.request

import pytest

from tests.dashboard.browser import free_port


def _cli(repo_root, *args, timeout=60):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", "dashboard", *args], cwd=repo_root,
                          capture_output=True, text=True, timeout=timeout)


def test_help_lists_the_subcommand(repo_root):
    out = subprocess.run([sys.executable, "-m", "pipeline.cli", "--help"], cwd=repo_root, capture_output=True,
                         text=True, timeout=60).stdout
    assert "dashboard" in out


@pytest.mark.parametrize("make,needle", [
    (lambda tmp: tmp / "missing", "does not exist"),
    (lambda tmp: tmp, "no manifest.json"),
    (lambda tmp: (tmp / "f.txt").write_text("x") and tmp / "f.txt", "is not a directory"),
])
def test_bad_run_dir_is_one_clear_line(repo_root, tmp_path, make, needle):
    res = _cli(repo_root, str(make(tmp_path)))
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and lines[0].startswith("coordscope dashboard: error:")


def test_manifest_without_tables_is_incomplete(repo_root, tmp_path):
    (tmp_path / "manifest.json").write_text("{}")
    res = _cli(repo_root, str(tmp_path))
    assert res.returncode == 2 and "incomplete" in res.stderr and "events" in res.stderr


@pytest.mark.slow
def test_serves_on_localhost_by_default(repo_root, small_run):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "dashboard", str(small_run), "--port", str(port)],
                            cwd=repo_root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        body = None
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline and body is None:
            try:
                body = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read().decode()
            except OSError:
                time.sleep(0.3)
        assert body is not None and "_dash-config" in body
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=20)
    assert f"http://127.0.0.1:{port}/" in out
