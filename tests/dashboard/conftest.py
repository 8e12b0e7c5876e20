"""Dashboard fixtures: a realistic small RUN_DIR (see rundirs.py), its RunData, the artifacts dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.dashboard import rundirs


@pytest.fixture(scope="session")
def small_run(tmp_path_factory) -> Path:
    return rundirs.build_small(tmp_path_factory.mktemp("rundir") / "run")


@pytest.fixture(scope="session")
def small_data(small_run):
    from dashboard.data import RunData

    return RunData(small_run)


@pytest.fixture(scope="session")
def artifacts(repo_root) -> Path:
    path = repo_root / "test-artifacts" / "dashboard"
    path.mkdir(parents=True, exist_ok=True)
    return path
