"""Shared fixtures: every sample scenario simulated once per test session."""

from __future__ import annotations

import pytest

from pipeline.generator.generate import simulate
from pipeline.generator.scenarios import by_name


@pytest.fixture(scope="session")
def simulations():
    return {name: simulate(sc) for name, sc in by_name().items()}


@pytest.fixture(scope="session")
def generated(tmp_path_factory):
    """All sample scenarios written once into a temporary directory: {name: folder}."""
    from pipeline.generator.generate import write_scenario

    base = tmp_path_factory.mktemp("scenarios")
    out = {}
    for name, sc in by_name().items():
        write_scenario(sc, str(base / name))
        out[name] = base / name
    return out
