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


CLIENT = [
    client("10:00:00,000", "Subscribed to topic(s): t"),                       # candidate, no rule: unparsed
    "2024-05-01 10:00:01,000 INFO some other noise line",                       # ignored on the JVM
    client("10:00:02,000", "Successfully joined group with generation Generation{generationId=1, memberId='m1', protocol='range'}"),
    client("10:00:02,100", "Adding newly assigned partitions: t-0, t-1"),
    client("10:00:05,000", "Received successful Heartbeat response"),
    client("10:00:06,000", "Committed offset 10 for partition t-0"),
    client("10:00:07,000", "Committed offset 5 for partition t-0"),
    client("10:00:08,000", "Rebalance failed."),
    "\tat org.apache.kafka.X.y(X.java:1)",                                     # continuation: parsed with line 8
    "\tat org.apache.kafka.X.z(X.java:2)",
    client("10:01:00,000", "Received successful Heartbeat response"),
    client("10:01:01,000", "Revoke previously assigned partitions t-0, t-1"),
    client("10:01:02,000", "Member m1 sending LeaveGroup request to coordinator"),
    client("10:01:03,000", "BOOM makes the stand-in parser raise"),            # parser error: unparsed
    "\u00ff\u00fe garbage \x01\x02 line",                                       # garbage text: ignored
]
BROKER = [
    broker("10:00:01,500", "Preparing to rebalance group g1 in state PreparingRebalance with old generation 0 (__consumer_offsets-1) (reason: x)"),
    broker("10:00:01,990", "Stabilized group g1 generation 1 (__consumer_offsets-1) with 1 members"),
    broker("10:00:03,000", "Something unknown about group g1"),
    "[2024-05-01 10:00:04,000] INFO [Log partition=x] unrelated",
]
OTHER = [client("10:00:02,000", "Successfully joined group with generation Generation{generationId=4, memberId='x1', protocol='range'}",
                client_id="o1", group="other")]


@pytest.fixture(scope="session")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("inputs")
    write(d / "app" / "consumer-1.log", CLIENT)
    write(d / "zz-copies" / "consumer-1.log", CLIENT)                 # same content: read once
    write(d / "broker" / "server.log.gz", BROKER, gz=True)
    write(d / "other.log", OTHER)
    (d / "empty.log").write_bytes(b"")
    (d / "junk.bin").write_bytes(bytes(range(256)) * 20)
    return d


def run_ingest_standin(spark, inputs, out, **kw):
    from pipeline.spark.job import IngestOptions, run_ingest

    opts = IngestOptions(inputs=[str(inputs)], out=str(out), quiet=True, parsers_module=STANDIN_PARSERS,
                         replay_module=STANDIN_REPLAY, **kw)
    return run_ingest(opts, spark=spark)


@pytest.fixture(scope="session")
def run(spark, inputs, tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "run1"
    return out, run_ingest_standin(spark, inputs, out)


