"""Real headless Chromium against a real Dash server on 127.0.0.1 (tests and the benchmark)."""

from __future__ import annotations

import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROME_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--window-size=1400,1000"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Serve a Dash app as `coordscope dashboard` does (waitress, Host check, CSP and the other
    headers of dashboard.security) in a thread; yields its base URL."""
    from dashboard.serve import make_server

    # port 0: the kernel picks a free port as it binds, so tests running at the same time (pytest-xdist
    # workers) cannot pick the same one between a free_port() and the bind
    server = make_server(app, "127.0.0.1", 0)
    port = server.effective_port
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.task_dispatcher.shutdown()
        server.close()


@contextmanager
def chromium(chromium_bin: str, driver_bin: str) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    with tempfile.TemporaryDirectory(prefix="coordscope-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = chromium_bin
        for flag in CHROME_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(driver_bin), options=options)
        try:
            yield driver
        finally:
            driver.quit()


def wait_for(driver: Any, css: str, timeout: float = 20.0, text: str | None = None) -> Any:
    """The first element matching `css` (containing `text`, when given), waiting for Dash to render."""
    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        for el in driver.find_elements(By.CSS_SELECTOR, css):
            try:
                if text is None or text in el.text:
                    return el
                last = el.text
            except Exception:  # stale while Dash re-renders
                pass
        time.sleep(0.1)
    raise AssertionError(f"{css!r} with text {text!r} did not appear within {timeout}s (last text: {last!r})")


def texts(driver: Any, css: str) -> list[str]:
    """The rendered text of every element matching `css`, read in one script run: Dash may
    replace the elements at any moment, so reading them one by one can hit a stale one."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]), e => e.innerText.trim());", css)


def wait_for_texts(driver: Any, css: str, expected: list[str], timeout: float = 20.0) -> list[str]:
    """Until the texts of the elements matching `css` are `expected`; returns the last texts seen."""
    deadline = time.monotonic() + timeout
    seen = texts(driver, css)
    while seen != expected and time.monotonic() < deadline:
        time.sleep(0.1)
        seen = texts(driver, css)
    return seen


def click(driver: Any, css: str, text: str | None = None, timeout: float = 20.0) -> None:
    """Click the first element matching `css` (containing `text`), finding it again when Dash
    re-rendered it between finding and clicking."""
    from selenium.common.exceptions import StaleElementReferenceException

    deadline = time.monotonic() + timeout
    while True:
        try:
            wait_for(driver, css, timeout=max(0.1, deadline - time.monotonic()), text=text).click()
            return
        except StaleElementReferenceException:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.1)


def wait_idle(driver: Any, timeout: float = 20.0) -> None:
    """Until Dash has no callback in flight (its loading markers are gone)."""
    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + timeout
    time.sleep(0.2)
    while time.monotonic() < deadline:
        busy = driver.find_elements(By.CSS_SELECTOR, "[data-dash-is-loading='true']")
        if not busy:
            return
        time.sleep(0.1)
    raise AssertionError("Dash callbacks still running")


def console_errors(driver: Any) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def screenshot(driver: Any, artifacts: Path, name: str) -> Path:
    """A full-page screenshot (the window grows to the page height first)."""
    artifacts.mkdir(parents=True, exist_ok=True)
    height = driver.execute_script("return Math.max(document.body.scrollHeight, 1000)")
    driver.set_window_size(1400, min(int(height) + 40, 6000))
    time.sleep(0.3)
    path = artifacts / f"{name}.png"
    driver.save_screenshot(str(path))
    driver.set_window_size(1400, 1000)
    return path
