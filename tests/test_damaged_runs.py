"""A damaged RUN_DIR (truncated or garbled Parquet, invalid manifest.json, a missing table folder)
is refused by every reader with one line naming what is damaged, exit status 2: `report`,
`replay`, `dashboard` (before it serves), and the dashboard's pages when a table is damaged after
it started (the page says the sentence; no traceback, no HTTP 500 from a callback)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.dashboard.browser import free_port
from tests.report.fixture_run import write_problem_run


def _part(run: Path, table: str) -> Path:
    return sorted((run / table).glob("*.parquet"))[0]


def _truncate(run: Path, table: str) -> None:
    f = _part(run, table)
    data = f.read_bytes()
    f.write_bytes(data[: len(data) // 2])


def _garble(run: Path, table: str) -> None:
    f = _part(run, table)
    data = bytearray(f.read_bytes())
    data[4:-8] = bytes((b * 7 + 3) % 256 for b in data[4:-8])   # keep the PAR1 magic at both ends
    f.write_bytes(bytes(data))


DAMAGES = {
    "truncated-generations": (lambda run: _truncate(run, "generations"), "generations/"),
    "garbled-events": (lambda run: _garble(run, "events"), "events/"),
    "empty-findings-file": (lambda run: _part(run, "findings").write_bytes(b""), "findings/"),
    "invalid-manifest": (lambda run: (run / "manifest.json").write_text('{"inputs": [', encoding="utf-8"),
                         "manifest.json"),
    "manifest-not-object": (lambda run: (run / "manifest.json").write_text("[1, 2]", encoding="utf-8"),
                            "manifest.json"),
    "manifest-not-utf8": (lambda run: (run / "manifest.json").write_bytes(b"\xff\xfe{\x00"), "manifest.json"),
    "missing-findings": (lambda run: shutil.rmtree(run / "findings"), "findings/"),
    "missing-ownership": (lambda run: shutil.rmtree(run / "ownership"), "ownership/"),
}


@pytest.fixture
def damaged(tmp_path, request):
    damage, needle = DAMAGES[request.param]
    run = write_problem_run(tmp_path / "run")
    damage(run)
    return run, needle


def _cli(repo_root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True, text=True,
                          cwd=repo_root, timeout=120)


def _refused(res: subprocess.CompletedProcess, command: str, needle: str) -> None:
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2, (res.returncode, res.stderr[-2000:])
    assert len(lines) == 1, res.stderr[-2000:]
    assert lines[0].startswith(f"coordscope {command}: error: run directory ") and "is damaged" in lines[0]
    assert needle in lines[0] and "re-run 'coordscope ingest'" in lines[0]
    assert "Traceback" not in res.stderr


@pytest.mark.parametrize("damaged", sorted(DAMAGES), indirect=True)
@pytest.mark.parametrize("command", ["report", "replay", "dashboard"])
def test_every_reader_refuses_a_damaged_run(repo_root, damaged, command):
    run, needle = damaged
    extra = {"report": ["--format", "json"], "replay": [], "dashboard": ["--port", str(free_port())]}[command]
    res = _cli(repo_root, command, str(run), *extra)
    _refused(res, command, needle)
    assert res.stdout == "" or command == "dashboard" and "serving" not in res.stdout


def test_an_intact_run_is_read(repo_root, tmp_path):
    run = write_problem_run(tmp_path / "run")
    res = _cli(repo_root, "report", str(run), "--format", "json")
    assert res.returncode == 0 and json.loads(res.stdout)["groups"][0]["group_id"] == "payments"


def _route(client, pathname: str, search: str = ""):
    payload = {
        "output": "..page-content.children...page-key.data...nav.children..",
        "outputs": [{"id": "page-content", "property": "children"}, {"id": "page-key", "property": "data"},
                    {"id": "nav", "property": "children"}],
        "inputs": [{"id": "url", "property": "pathname", "value": pathname},
                   {"id": "url", "property": "search", "value": search}],
        "changedPropIds": ["url.search"], "state": [{"id": "page-key", "property": "data", "value": None}],
    }
    return client.post("/_dash-update-component", data=json.dumps(payload), content_type="application/json")


@pytest.mark.filterwarnings(r"ignore:\s*The dash_table.DataTable:DeprecationWarning")
@pytest.mark.parametrize("table", ["generations", "findings"])
def test_dashboard_page_names_a_table_damaged_after_start(tmp_path, table):
    from dashboard.app import create_app
    from dashboard.security import allowed_hosts, harden

    run = write_problem_run(tmp_path / "run")
    app = create_app(run)          # tables load lazily: damage before the first page reads them
    harden(app, allowed_hosts("127.0.0.1"))
    _truncate(run, table)
    resp = _route(app.server.test_client(), "/", "")
    assert resp.status_code == 200, resp.get_data(as_text=True)[:500]
    body = json.dumps(resp.get_json(), ensure_ascii=False)   # Dash escapes "/" as \u002f
    assert "This run is damaged" in body and f"is damaged: table {table}/ cannot be read" in body
    assert "Traceback" not in body


@pytest.mark.filterwarnings(r"ignore:\s*The dash_table.DataTable:DeprecationWarning")
def test_dashboard_error_page_for_a_damaged_table_outside_the_router(tmp_path):
    """Any other request that meets a damaged table gets an HTML page with the sentence."""
    from dashboard.app import create_app
    from dashboard.security import allowed_hosts, harden
    from pipeline import rundir

    run = write_problem_run(tmp_path / "run")
    app = create_app(run)

    @app.server.route("/_probe")
    def probe():
        rundir.load_table(run, "generations")
        return "read"

    harden(app, allowed_hosts("127.0.0.1"))
    _truncate(run, "generations")
    resp = app.server.test_client().get("/_probe")
    body = resp.get_data(as_text=True)
    assert resp.status_code == 500 and resp.content_type.startswith("text/html")
    assert "is damaged: table generations/ cannot be read" in body and "Traceback" not in body
