"""The dashboard over the real sample RUN_DIR (`coordscope ingest sample_logs/`), in Chromium.

Ingesting the samples takes minutes of Spark, so this test reuses a RUN_DIR: the one named by
$COORDSCOPE_SAMPLE_RUN, else runs/demo (written by `coordscope demo --no-serve`). With
COORDSCOPE_INGEST_SAMPLES=1 it ingests sample_logs/ itself. Otherwise it skips, saying how.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard import urls
from tests.dashboard.browser import chromium, console_errors, screenshot, serve, wait_for, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.spark, pytest.mark.slow,
              pytest.mark.filterwarnings(r"ignore:\s*The dash_table.DataTable:DeprecationWarning")]


@pytest.fixture(scope="module")
def sample_run(repo_root, tmp_path_factory):
    for given in (os.environ.get("COORDSCOPE_SAMPLE_RUN"), repo_root / "runs" / "demo"):
        if given and (Path(given) / "manifest.json").is_file():
            return Path(given)
    if not os.environ.get("COORDSCOPE_INGEST_SAMPLES"):
        pytest.skip("no sample RUN_DIR: set COORDSCOPE_SAMPLE_RUN, run 'coordscope demo --no-serve', "
                    "or set COORDSCOPE_INGEST_SAMPLES=1 to ingest sample_logs/ here (minutes)")
    if not (repo_root / "pipeline" / "commands" / "ingest.py").is_file():
        pytest.skip("coordscope ingest has not landed on this branch yet")
    samples = repo_root / "sample_logs"
    if not samples.is_dir():
        pytest.skip("sample_logs/ has not landed on this branch yet")
    out = tmp_path_factory.mktemp("sample") / "run"
    res = subprocess.run([sys.executable, "-m", "pipeline.cli", "ingest", str(samples), "--out", str(out),
                          "--master", "local[2]"], cwd=repo_root, capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    return out


def test_every_page_over_the_sample_run(sample_run, chromium_paths, artifacts):
    from dashboard.app import create_app

    app = create_app(sample_run)
    data = app.coordscope_data
    groups = data.groups()
    assert groups, "the sample run has no groups"
    pages = [("overview", "/", "Consumer groups"), ("unparsed", "/unparsed", "Unparsed")]
    for g in groups:
        pages.append((f"group-{g}", urls.group_url("", g), f"Group {g}"))
    busiest = max(groups, key=lambda g: len(data.group_rows("events", g)))
    joined = data.group_rows("memberships", busiest)["member_id"].dropna().tolist()
    members = joined or data.members(busiest)
    if members:
        pages.append(("member", urls.member_url("", busiest, members[0]), "Member"))
    pages.append(("offsets", urls.offsets_url("", busiest), "Offsets"))
    parts = data.partitions(busiest)
    lo, hi = data.group_extent(busiest)
    if parts and lo is not None:
        pages.append(("owner", urls.owner_url("", busiest, parts[0], (lo + hi) // 2), "Who owned"))
    with serve(app) as base, chromium(*chromium_paths) as driver:
        for name, path, heading in pages:
            driver.get(base + path)
            wait_for(driver, "h2", text=heading)
            wait_idle(driver)
            assert console_errors(driver) == [], (name, console_errors(driver))
            screenshot(driver, artifacts, f"sample-{name.replace('/', '_')}")
        # the overview lists every group and the filter narrows it
        driver.get(base + "/")
        wait_for(driver, "#groups-table")
        wait_idle(driver)
        shown = {c.text for c in driver.find_elements("css selector", "#groups-table td[data-dash-column='group']")}
        if len(groups) <= 20:  # one page of the table
            assert shown == set(groups)
