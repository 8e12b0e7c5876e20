"""Readable at a glance (issue 20): every page of the dashboard over the demo run (sample_logs) and
over shared/real_logs, in real headless Chromium at 1400x900. Per page: the charts share one x range
and one plot area, no two text labels overlap, no chart is empty without a sentence, no raw JSON is
shown, the page does not scroll sideways. Screenshots go to test-artifacts/glance/."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline import dashboard_urls as urls
from tests.conftest import REPO, SHARED
from tests.dashboard.browser import chromium, console_errors, serve, wait_for, wait_idle
from tests.dashboard.glance import WIDTH_JS, check_page

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.filterwarnings(r"ignore:\s*The dash_table.DataTable:DeprecationWarning")]

WINDOW = (1400, 900)


@pytest.fixture(scope="module")
def real_run(tmp_path_factory) -> Path:
    """shared/real_logs ingested once (COORDSCOPE_REAL_RUN=DIR reuses a run, development only)."""
    reuse = os.environ.get("COORDSCOPE_REAL_RUN")
    if reuse:
        return Path(reuse)
    logs = SHARED / "real_logs"
    if not logs.is_dir():
        from tests.conftest import shared_missing
        shared_missing(logs)
    out = tmp_path_factory.mktemp("real") / "run"
    res = subprocess.run([sys.executable, "-m", "pipeline.cli", "ingest", "--quiet", "--master", "local[2]",
                          "--out", str(out), str(logs)], capture_output=True, text=True, cwd=REPO, timeout=1800)
    assert res.returncode == 0, res.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def browser(chromium_paths):
    with chromium(*chromium_paths) as driver:
        driver.set_window_size(*WINDOW)
        yield driver


@pytest.fixture(scope="module")
def shots(repo_root) -> Path:
    path = repo_root / "test-artifacts" / "glance"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _pages(run: Path) -> list[tuple[str, str, str]]:
    """(name, path, heading) of every page worth a look in a run: overview, unparsed, and per group
    its group page, its first member's page and its offsets page."""
    from dashboard.data import RunData

    data = RunData(run)
    pages = [("overview", urls.overview_url(""), "Consumer groups"), ("unparsed", urls.unparsed_url(""), "Unparsed")]
    for group in data.groups():
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in group)
        pages.append((f"group-{safe}", urls.group_url("", group), f"Group {group}"))
        members = data.members(group)
        if members:
            pages.append((f"member-{safe}", urls.member_url("", group, members[0]), "Member"))
        pages.append((f"offsets-{safe}", urls.offsets_url("", group), "Offsets of"))
    return pages


def _visit_all(run: Path, label: str, browser, shots: Path) -> dict[str, list[str]]:
    from dashboard.app import create_app

    problems: dict[str, list[str]] = {}
    with serve(create_app(run)) as base:
        for name, path, heading in _pages(run):
            browser.get(base + path)
            wait_for(browser, "h2", text=heading)
            wait_idle(browser)
            time.sleep(0.4)  # plotly draws after the callback returns
            found = check_page(browser)
            width, inner, _ = browser.execute_script(WIDTH_JS)
            if width > inner:
                found.append(f"page scrolls sideways: {width} px in a {inner} px window")
            found += [f"console: {e}" for e in console_errors(browser)]
            browser.save_screenshot(str(shots / f"{label}-{name}.png"))
            if found:
                problems[name] = found
    return problems


def _report(problems: dict[str, list[str]]) -> str:
    return "\n".join(f"{page}: {p}" for page, found in problems.items() for p in found)


def test_every_page_of_the_demo_run_reads_at_a_glance(sample_run, browser, shots):
    problems = _visit_all(sample_run, "sample", browser, shots)
    assert not problems, _report(problems)


def test_every_page_of_real_logs_reads_at_a_glance(real_run, browser, shots):
    problems = _visit_all(real_run, "real", browser, shots)
    assert not problems, _report(problems)
