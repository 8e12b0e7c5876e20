"""How `coordscope dashboard` serves, checked on a real process over real sockets: waitress (no
Werkzeug banner, no per-request lines), Host allow-list against DNS rebinding, security headers,
no Server banner, a warning when bound beyond loopback, and a busy port refused before any line
claims to serve."""

from __future__ import annotations

import http.client
import signal
import socket
import subprocess
import sys
import time

import pytest

from dashboard import security
from tests.dashboard.browser import free_port

pytestmark = pytest.mark.filterwarnings(r"ignore:\s*The dash_table.DataTable:DeprecationWarning")


class _Dashboard:
    def __init__(self, repo_root, run, *args: str, host: str = "127.0.0.1"):
        self.port = free_port()
        self.host = host
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pipeline.cli", "dashboard", str(run), "--port", str(self.port), *args],
            cwd=repo_root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise AssertionError(self.proc.stderr.read()) from None
                time.sleep(0.2)
        raise AssertionError("dashboard did not start")

    def get(self, path: str = "/", host: str | None = None, headers: dict | None = None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.putrequest("GET", path, skip_host=True)
        if host is not None:
            conn.putheader("Host", host)
        for k, v in (headers or {}).items():
            conn.putheader(k, v)
        conn.endheaders()
        resp = conn.getresponse()
        body = resp.read().decode("utf-8", "replace")
        conn.close()
        return resp, body

    def stop(self) -> tuple[str, str]:
        self.proc.send_signal(signal.SIGINT)
        out, err = self.proc.communicate(timeout=30)
        return out, err


@pytest.fixture(scope="module")
def dash(repo_root, small_run):
    d = _Dashboard(repo_root, small_run)
    yield d
    if d.proc.poll() is None:
        d.proc.kill()
        d.proc.communicate()


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "LOCALHOST.", "[::1]"])
def test_loopback_host_names_are_served(dash, host):
    resp, body = dash.get("/", f"{host}:{dash.port}")
    assert resp.status == 200 and "_dash-config" in body


@pytest.mark.parametrize("host", ["attacker.example", f"attacker.example:{'{port}'}", "127.0.0.1.nip.io",
                                  "localhost.attacker.example", "10.0.0.5", "", "[::1", "a:b:c"])
def test_rebinding_host_names_get_400(dash, host):
    resp, body = dash.get("/", host.replace("{port}", str(dash.port)))
    assert resp.status == 400 and "_dash-config" not in body
    resp, body = dash.get("/_dash-layout", host.replace("{port}", str(dash.port)))
    assert resp.status == 400 and "page-content" not in body


def test_missing_host_header_gets_400(dash):
    resp, _ = dash.get("/", None)
    assert resp.status == 400


@pytest.mark.parametrize("path", ["/", "/assets/style.css", "/_dash-layout", "/no/such/page"])
def test_security_headers_and_no_server_banner(dash, path):
    resp, _ = dash.get(path, f"127.0.0.1:{dash.port}")
    h = resp.headers
    assert h["X-Frame-Options"] == "DENY" and h["X-Content-Type-Options"] == "nosniff"
    csp = h["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "object-src 'none'" in csp
    script_src = next(d for d in csp.split(";") if d.strip().startswith("script-src")).split()
    assert "'unsafe-inline'" not in script_src and all(s.startswith("'") for s in script_src[1:])
    assert "Server" not in h and "Via" not in h


def test_terminal_says_one_line_and_no_request_lines(repo_root, small_run):
    d = _Dashboard(repo_root, small_run)
    for _ in range(5):
        d.get("/", f"127.0.0.1:{d.port}")
        d.get("/assets/style.css", f"127.0.0.1:{d.port}")
    d.get("/", "evil.example")
    out, err = d.stop()
    assert d.proc.returncode == 130
    lines = [ln for ln in (out + err).splitlines() if ln.strip()]
    assert lines[0] == f"coordscope dashboard: serving {small_run} on http://127.0.0.1:{d.port}/ (Ctrl-C stops it)"
    assert lines[1:] == ["coordscope dashboard: interrupted"], lines
    assert "Serving Flask app" not in out + err and "GET /" not in out + err and "WARNING" not in out + err


def test_busy_port_is_refused_before_any_serving_line(repo_root, small_run):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        res = subprocess.run([sys.executable, "-m", "pipeline.cli", "dashboard", str(small_run), "--port", str(port)],
                             cwd=repo_root, capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert lines == [f"coordscope dashboard: error: cannot listen on 127.0.0.1:{port} (Address already in use)"]


def test_binding_beyond_loopback_warns(repo_root, small_run):
    d = _Dashboard(repo_root, small_run, "--host", "0.0.0.0")
    resp, _ = d.get("/", f"127.0.0.1:{d.port}")
    assert resp.status == 200
    resp, _ = d.get("/", f"{socket.gethostname()}:{d.port}")     # the machine's own name is fine
    assert resp.status == 200
    resp, _ = d.get("/", "attacker.example")
    assert resp.status == 400
    out, err = d.stop()
    assert err.splitlines()[0].startswith("coordscope dashboard: warning: listening on every network interface")
    assert "no authentication" in err


def test_allow_host_widens_the_list(repo_root, small_run):
    d = _Dashboard(repo_root, small_run, "--allow-host", "dash.internal.example")
    assert d.get("/", "dash.internal.example")[0].status == 200
    assert d.get("/", "other.example")[0].status == 400
    d.stop()


def test_debug_is_refused_beyond_loopback(repo_root, small_run):
    res = subprocess.run([sys.executable, "-m", "pipeline.cli", "dashboard", str(small_run), "--debug",
                          "--host", "0.0.0.0", "--port", str(free_port())], cwd=repo_root, capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 2 and "loopback" in res.stderr


@pytest.mark.parametrize("header,name", [("localhost:8050", "localhost"), ("[::1]:80", "::1"), ("A.Example.", "a.example"),
                                         ("a.example:x", None), ("[::1", None), ("", None), (None, None)])
def test_host_name_parsing(header, name):
    assert security.host_name(header) == name


def test_allowed_hosts():
    assert security.allowed_hosts("127.0.0.1") >= {"localhost", "127.0.0.1", "::1"}
    assert "10.1.2.3" in security.allowed_hosts("10.1.2.3")
    assert "attacker.example" not in security.allowed_hosts("0.0.0.0")
    assert security.is_loopback("127.0.0.2") and not security.is_loopback("0.0.0.0")
