"""Real headless Chromium over a real Dash server: every page, a filter, links, clicks, zoom,
no console errors, log text shown as text. Screenshots go to test-artifacts/dashboard/."""

from __future__ import annotations

import time
from urllib.parse import urlparse

import pytest

from pipeline import dashboard_urls as urls
from tests.dashboard.browser import (
    chromium,
    click,
    console_errors,
    screenshot,
    serve,
    wait_for,
    wait_for_texts,
    wait_idle,
)
from tests.dashboard.rundirs import M2, M3, PAY, T0, XSS, XSS_TITLE

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.filterwarnings(r"ignore:\s*The dash_table.DataTable:DeprecationWarning")]


@pytest.fixture(scope="module")
def site(small_run):
    from dashboard.app import create_app

    with serve(create_app(small_run)) as base:
        yield base


@pytest.fixture(scope="module")
def browser(chromium_paths):
    with chromium(*chromium_paths) as driver:
        yield driver


def _open(driver, url: str, heading: str):
    driver.get(url)
    wait_for(driver, "h2", text=heading)
    wait_idle(driver)
    time.sleep(0.5)  # plotly draws after the callback returns


def _no_console_errors(driver):
    errors = console_errors(driver)
    assert errors == [], errors


PAGES = [
    ("overview", urls.overview_url(""), "Consumer groups", ["payments", "inventory/eu", "Line accounting", "adds up", "logs/garbage.bin"]),
    ("group", urls.group_url("", PAY), "Group payments", ["Findings", "session_timeout", M3]),
    ("group-window", urls.group_url("", PAY, T0 + 100_000, T0 + 210_000), "Group payments", ["poll_timeout"]),
    ("group-slash", urls.group_url("", "inventory/eu"), "Group inventory/eu", ["single-member group"]),
    ("member", urls.member_url("", PAY, M3), f"Member {M3}", ["Assignments per generation", "poll_timeout"]),
    ("offsets", urls.offsets_url("", "orders", "orders-2"), "Offsets of orders", ["reprocessed", "skipped", "1,080"]),
    ("owner", urls.owner_url("", PAY, "payments-4", T0 + 150_000), "Who owned", [M2, "generation 2"]),
    ("unparsed", urls.unparsed_url(""), "Unparsed", ["ConsumerCoordinator: Rebalance <*> in <*> ms"]),
]


@pytest.mark.parametrize("name,path,heading,texts", PAGES, ids=[p[0] for p in PAGES])
def test_every_page_loads(site, browser, artifacts, name, path, heading, texts):
    _open(browser, site + path, heading)
    body = browser.find_element("tag name", "body").text
    for text in texts:
        assert text in body, f"{text!r} missing on {name}"
    graphs = browser.find_elements("css selector", ".js-plotly-plot")
    expected = {"group": 3, "group-window": 3, "group-slash": 3, "member": 1, "offsets": 1}.get(name, 0)
    assert len(graphs) == expected
    _no_console_errors(browser)
    screenshot(browser, artifacts, f"page-{name}")


def test_overview_filter_then_link(site, browser, artifacts):
    _open(browser, site + "/", "Consumer groups")
    box = browser.find_element("id", "overview-q")
    box.send_keys("pay")
    assert wait_for_texts(browser, "#groups-table td[data-dash-column='group']", ["payments"], 10) == ["payments"]
    assert urlparse(browser.current_url).query == "q=pay"
    screenshot(browser, artifacts, "overview-filtered")
    click(browser, "#groups-table td[data-dash-column='group'] a", text="payments")
    wait_for(browser, "h2", text="Group payments")
    wait_idle(browser)
    assert urlparse(browser.current_url).path == "/group"
    # and on to a member through a dcc.Link
    # members are linked by their readable name; the link's title is the full id (issue 20)
    click(browser, f"ul.members a[title='{M2}']")
    wait_for(browser, "h2", text=f"Member {M2}")
    wait_idle(browser)
    _no_console_errors(browser)


def test_log_text_is_never_html(site, browser, artifacts):
    shape = "GroupCoordinator <*>: <script>"
    _open(browser, site + urls.unparsed_url("", shape), "Unparsed")
    assert XSS in browser.find_element("tag name", "body").text        # shown as text...
    assert browser.execute_script("return window.__coordscope_xss") is None   # ...and not run
    assert browser.execute_script("return document.querySelectorAll('b').length") == 0
    screenshot(browser, artifacts, "unparsed-script-line")
    _no_console_errors(browser)


def test_log_text_in_findings_and_evidence_is_never_html(site, browser, artifacts):
    _open(browser, site + urls.group_url("", "inventory/eu"), "Group inventory/eu")
    cell = "#group-findings td[data-dash-column='title']"
    assert XSS_TITLE in wait_for(browser, cell, text="single-member group").text
    click(browser, cell, text="single-member group")
    panel = wait_for(browser, "#group-evidence", text="window.__coordscope_xss = 1")
    assert XSS in panel.text and XSS_TITLE in panel.text
    assert browser.execute_script("return window.__coordscope_xss") is None
    assert browser.execute_script("return document.querySelectorAll('img, b').length") == 0
    screenshot(browser, artifacts, "group-evidence-script-line")
    _no_console_errors(browser)


def test_finding_row_opens_its_evidence(site, browser, artifacts):
    _open(browser, site + urls.group_url("", PAY), "Group payments")
    click(browser, "#group-findings td[data-dash-column='title']", text="session expired")
    panel = wait_for(browser, "#group-evidence", text="has failed, removing it from the group")
    assert "logs/broker-1/server.log:" in panel.text
    screenshot(browser, artifacts, "group-finding-evidence")
    _no_console_errors(browser)


def test_window_is_shared_and_in_the_url(site, browser, artifacts):
    _open(browser, site + urls.group_url("", PAY), "Group payments")
    since = browser.find_element("css selector", "input[id*='since']")
    until = browser.find_element("css selector", "input[id*='until']")
    for box, value in ((since, "2026-01-01T00:01:40Z"), (until, "2026-01-01T00:03:30Z")):
        box.clear()
        box.send_keys(value)
    browser.find_element("xpath", "//button[text()='apply']").click()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and "since=" not in browser.current_url:
        time.sleep(0.1)
    params = urls.parse_query(urlparse(browser.current_url).query)
    assert params == {"group": PAY, "since": str(T0 + 100_000), "until": str(T0 + 210_000)}
    wait_idle(browser)
    time.sleep(0.5)
    ranges = browser.execute_script(
        "return Array.from(document.querySelectorAll('.js-plotly-plot')).map(g => g.layout.xaxis.range)")
    assert len(ranges) == 3 and all(r[0].replace(" ", "T").startswith("2026-01-01T00:01:40") for r in ranges)
    # a drag on the lanes chart zooms every chart through the URL
    from selenium.webdriver.common.action_chains import ActionChains

    layer = browser.find_elements("css selector", ".js-plotly-plot .nsewdrag")[1]
    ActionChains(browser).move_to_element_with_offset(layer, -200, 0).click_and_hold().move_by_offset(
        150, 0).release().perform()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and urls.parse_query(urlparse(browser.current_url).query)["since"] == str(
            T0 + 100_000):
        time.sleep(0.1)
    zoomed = urls.parse_query(urlparse(browser.current_url).query)
    assert T0 + 100_000 < int(zoomed["since"]) < int(zoomed["until"]) < T0 + 210_000
    wait_idle(browser)
    time.sleep(0.5)
    screenshot(browser, artifacts, "group-zoomed")
    _no_console_errors(browser)


def test_owner_form(site, browser, artifacts):
    _open(browser, site + urls.owner_url("", PAY, "payments-4"), "Who owned")
    box = browser.find_element("id", "owner-at")
    box.send_keys("2026-01-01T00:01:00Z")
    browser.find_element("id", "owner-ask").click()
    answer = wait_for(browser, "#owner-answer", text="was owned by")
    assert M3 in answer.text and "generation 1" in answer.text
    assert urls.parse_query(urlparse(browser.current_url).query)["at"] == str(T0 + 60_000)
    screenshot(browser, artifacts, "owner-answer")
    _no_console_errors(browser)
