"""The HTML report opened in real headless Chromium: figures draw, no console errors, screenshot saved."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from pipeline.report import build_report, render
from tests.report.fixture_run import write_problem_run

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.mark.browser
def test_html_report_renders_in_chromium(tmp_path, chromium_paths):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver_path = chromium_paths
    html = tmp_path / "report.html"
    html.write_text(render(build_report(write_problem_run(tmp_path / "run")), "html"), encoding="utf-8")

    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--window-size=1200,1800", f"--user-data-dir={tempfile.mkdtemp()}"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=opts)
    try:
        driver.get(html.as_uri())
        driver.implicitly_wait(10)
        plots = driver.find_elements("css selector", ".js-plotly-plot .main-svg")
        assert plots, "the timeline figure did not draw"
        assert driver.execute_script("return document.querySelectorAll('script[src]').length") == 0
        # log text stays text: the <script> from a log line is visible, not executed
        assert "<script>alert(1)</script>" in driver.find_element("tag name", "body").text
        severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert severe == []
        ARTIFACTS.mkdir(exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "report-html.png"))
    finally:
        driver.quit()
