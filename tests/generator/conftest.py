"""Shared fixtures: every sample scenario simulated once per test session."""

from __future__ import annotations

import pytest

from pipeline.generator.generate import simulate
from pipeline.generator.scenarios import by_name


@pytest.fixture(scope="session")
def simulations():
    return {name: simulate(sc) for name, sc in by_name().items()}
