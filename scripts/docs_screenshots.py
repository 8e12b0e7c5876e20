"""Regenerate the screenshots of docs/images/ (group pages at 1400 px wide, the three charts).

    python scripts/docs_screenshots.py RUN_DIR GROUP NAME [RUN_DIR GROUP NAME ...]

Needs chromium and chromedriver (as the browser tests do)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dashboard.app import create_app  # noqa: E402
from pipeline import dashboard_urls as urls  # noqa: E402
from tests.conftest import browser_paths  # noqa: E402
from tests.dashboard.browser import chromium, serve, wait_for, wait_idle  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "docs" / "images"


def main(args: list[str]) -> None:
    paths = browser_paths()
    if paths is None or len(args) % 3:
        raise SystemExit(__doc__)
    OUT.mkdir(parents=True, exist_ok=True)
    with chromium(*paths) as driver:
        for i in range(0, len(args), 3):
            run, group, name = args[i:i + 3]
            with serve(create_app(Path(run))) as base:
                driver.set_window_size(1400, 1500)
                driver.get(base + urls.group_url("", group))
                wait_for(driver, "h2", text=f"Group {group}")
                wait_idle(driver)
                time.sleep(0.8)
                driver.save_screenshot(str(OUT / f"{name}.png"))
                print(OUT / f"{name}.png")


if __name__ == "__main__":
    main(sys.argv[1:])
