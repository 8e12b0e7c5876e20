"""Shared fixtures: a lazily started Spark session, paths to shared material, browser gate."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests draw the same examples on every run unless asked to explore: `make test` and CI
# must not pass or fail by the luck of the draw (a new random group once failed CI). To look for
# new counterexamples: COORDSCOPE_HYPOTHESIS=explore make test
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("COORDSCOPE_HYPOTHESIS", "repeatable"))

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SAMPLE_LOGS = REPO / "sample_logs"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


def shared_missing(what: Path | str) -> None:
    """A test needs shared/ material that is not there: it fails in CI (COORDSCOPE_REQUIRE_SHARED,
    set by .ci/run: a CI run must not pass by skipping), and skips elsewhere."""
    msg = f"shared/ material not found beside the checkout ({what})"
    if os.environ.get("COORDSCOPE_REQUIRE_SHARED"):
        pytest.fail(msg)
    pytest.skip(msg)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        shared_missing(SHARED)
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


def built_once(tmp_path_factory, name: str, build) -> Path:
    """A folder `name` that `build(folder)` fills once per test run, for session-scoped fixtures
    whose build is expensive (a Spark ingest). In a serial run it is the run's own temporary
    folder. Under pytest-xdist (`make test` runs two workers) the workers share one: the first to
    ask builds it while holding a lock on the run's base temporary folder, the others wait for the
    lock and reuse it (a build that failed leaves no mark, so the next worker builds it again and
    fails the same way). Whoever uses the folder reads it only."""
    import fcntl

    if not os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.mktemp(name)
        build(folder)
        return folder
    root = tmp_path_factory.getbasetemp().parent     # the controller's base folder: one per run
    folder, done = root / name, root / f"{name}.built"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            done.touch()
    return folder


@pytest.fixture(scope="session")
def sample_run(tmp_path_factory) -> Path:
    """The RUN_DIR of `coordscope demo --no-serve` over sample_logs/: one Spark ingest for the whole
    suite (the demo's end-to-end test, report goldens, dashboard and truth checks all read it).

    COORDSCOPE_SAMPLE_RUN=DIR reuses an existing run (development only)."""
    import subprocess
    import sys

    reuse = os.environ.get("COORDSCOPE_SAMPLE_RUN")
    if reuse:
        return Path(reuse)
    from pipeline.spark.session import JavaError, check_java

    try:
        check_java()
    except JavaError as exc:
        if os.environ.get("COORDSCOPE_REQUIRE_SPARK"):
            raise
        pytest.skip(str(exc))

    def build(folder: Path) -> None:
        res = subprocess.run(
            [sys.executable, "-m", "pipeline.cli", "demo", "--no-serve", "--out", str(folder / "run"),
             "--master", "local[2]"],
            capture_output=True, text=True, cwd=REPO, timeout=1800,
        )
        (folder / "demo-stdout.txt").write_text(res.stdout)
        (folder / "demo-stderr.txt").write_text(res.stderr)
        assert res.returncode == 0, res.stderr[-3000:]

    return built_once(tmp_path_factory, "demo", build) / "run"
