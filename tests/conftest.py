"""Shared fixtures: a lazily started Spark session, paths to shared material, browser gate."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SAMPLE_LOGS = REPO / "sample_logs"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"shared/ material not found beside the checkout ({SHARED})")
    return SHARED


@pytest.fixture(scope="session")
def spark():
    """One Spark session for the whole run, started only when a test asks for it."""
    from pipeline.spark.session import JavaError, build_session

    try:
        session = build_session("local[2]", "coordscope-tests", {"spark.sql.shuffle.partitions": "4"})
    except JavaError as exc:
        if os.environ.get("COORDSCOPE_REQUIRE_SPARK"):
            raise
        pytest.skip(str(exc))
    yield session
    session.stop()


def browser_paths() -> tuple[str, str] | None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver = shutil.which("chromedriver")
    return (chromium, driver) if chromium and driver else None


@pytest.fixture(scope="session")
def chromium_paths() -> tuple[str, str]:
    paths = browser_paths()
    if paths is None:
        msg = "chromium and chromedriver are needed (Debian: apt-get install chromium chromium-driver)"
        if os.environ.get("COORDSCOPE_REQUIRE_BROWSER"):
            pytest.fail(msg)
        pytest.skip(msg)
    return paths
