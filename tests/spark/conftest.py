"""Helpers for the Spark pipeline tests: hand-written log lines in the stand-in format."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

STANDIN_PARSERS = "tests.spark.standin_parsers"
STANDIN_REPLAY = "tests.spark.standin_replay"


def client(ts: str, msg: str, client_id: str = "c1", group: str = "g1") -> str:
    return f"2024-05-01 {ts} INFO [Consumer clientId={client_id}, groupId={group}] {msg}"


def broker(ts: str, msg: str) -> str:
    return f"[2024-05-01 {ts}] INFO [GroupCoordinator 1]: {msg} (kafka.coordinator.group.GroupCoordinator)"


def write(path: Path, lines: list[str], gz: bool = False) -> Path:
    data = ("\n".join(lines) + "\n").encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    if gz:
        with gzip.open(path, "wb") as f:
            f.write(data)
    else:
        path.write_bytes(data)
    return path


@pytest.fixture
def small_splits(spark):
    """Tiny file splits so a few KB of log spans several splits (provenance across splits)."""
    old = spark.conf.get("spark.sql.files.maxPartitionBytes")
    old_open = spark.conf.get("spark.sql.files.openCostInBytes")
    spark.conf.set("spark.sql.files.maxPartitionBytes", "2048")
    spark.conf.set("spark.sql.files.openCostInBytes", "0")
    yield
    spark.conf.set("spark.sql.files.maxPartitionBytes", old)
    spark.conf.set("spark.sql.files.openCostInBytes", old_open)
