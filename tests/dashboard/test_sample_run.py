"""The dashboard over the real sample RUN_DIR in Chromium.

`sample_run` is the suite's shared fixture (tests/conftest.py): one `coordscope demo --no-serve`
ingest of sample_logs/ for every test that reads it ($COORDSCOPE_SAMPLE_RUN reuses a run).
"""

from __future__ import annotations

import pytest

from pipeline import dashboard_urls as urls
from tests.dashboard.browser import chromium, console_errors, screenshot, serve, texts, wait_for, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.spark, pytest.mark.slow,
              pytest.mark.filterwarnings(r"ignore:\s*The dash_table.DataTable:DeprecationWarning")]


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
        shown = set(texts(driver, "#groups-table td[data-dash-column='group']"))
        if len(groups) <= 20:  # one page of the table
            assert shown == set(groups)
