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
        # log text stays text: the <script> from a log line is text (in folded evidence), not executed
        assert "<script>alert(1)</script>" in driver.execute_script("return document.body.textContent")
        severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert severe == []
        ARTIFACTS.mkdir(exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "report-html.png"))
    finally:
        driver.quit()


@pytest.mark.slow
@pytest.mark.browser
def test_html_report_of_the_demo_run_reads_on_a_laptop(sample_run, tmp_path, chromium_paths):
    """Issue 20: the report of the demo run at 1400x900: no sideways scroll, at most ~1,200 px of
    text width, evidence folded, no two chart labels overlapping (legends above the bars), no JSON."""
    from tests.dashboard.browser import chromium
    from tests.dashboard.glance import TEXTS_JS, WIDTH_JS, overlaps, raw_json

    html = tmp_path / "report.html"
    report = build_report(sample_run)
    html.write_text(render(report, "html"), encoding="utf-8")
    with chromium(*chromium_paths) as driver:
        driver.set_window_size(1400, 900)
        driver.get(html.as_uri())
        driver.implicitly_wait(10)
        assert driver.find_elements("css selector", ".js-plotly-plot .main-svg")
        width, inner, height = driver.execute_script(WIDTH_JS)
        assert width <= inner, f"the report scrolls sideways: {width} px in a {inner} px window"
        assert driver.execute_script("return document.body.getBoundingClientRect().width") <= 1200
        assert driver.execute_script("return document.querySelectorAll('details pre').length") > 0
        assert driver.execute_script("return document.querySelectorAll('pre:not(details pre)').length") == 0
        assert overlaps(driver.execute_script(TEXTS_JS)) == []
        assert raw_json(driver.find_element("tag name", "body").text) == []
        legend_over_bars = driver.execute_script("""
          return Array.from(document.querySelectorAll('.js-plotly-plot')).filter(g => {
            const leg = g.querySelector('.legend'), plot = g.querySelector('.nsewdrag');
            if (!leg || !plot) return false;
            const a = leg.getBoundingClientRect(), b = plot.getBoundingClientRect();
            return a.bottom > b.top + 1 && a.top < b.bottom && a.right > b.left && a.left < b.right;
          }).length""")
        assert legend_over_bars == 0
        # evidence folded: the summary and each group's section take two screens (1,800 px) or less on
        # average (85,000 px for ten groups before; the demo now has fourteen)
        groups = len(report["groups"])
        assert height < 1_800 * (groups + 1), f"the report is {height} px tall for {groups} groups"
        ARTIFACTS.mkdir(exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "report-html-demo.png"))
