"""Helpers for the Spark pipeline tests: hand-written inputs in real Kafka client/broker log wordings,
read by the real `parsers` package and replayed by the real `pipeline.replay`."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

CONSUMER_COORDINATOR = "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"
ABSTRACT_COORDINATOR = "org.apache.kafka.clients.consumer.internals.AbstractCoordinator"


def client(ts: str, msg: str, client_id: str = "c1", group: str = "g1", level: str = "INFO",
           logger: str = CONSUMER_COORDINATOR) -> str:
    """A consumer line in Kafka's default log4j layout `[%d] %p %m (%c)%n`."""
    return f"[2024-05-01 {ts}] {level} [Consumer clientId={client_id}, groupId={group}] {msg} ({logger})"


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


MEMBER = "c1-0f3a9d2e-5b7c-4e61-9a0d-1c2b3d4e5f60"
CLIENT = [
    client("10:00:00,000", "Subscribed to topic(s): t", logger="org.apache.kafka.clients.consumer.KafkaConsumer"),
    "[2024-05-01 10:00:01,000] INFO Processed 500 records from t-0 (com.acme.App)",   # ignored on the JVM
    client("10:00:02,000", f"Successfully joined group with generation Generation{{generationId=1, memberId='{MEMBER}', "
           "protocol='range'}", logger=ABSTRACT_COORDINATOR),
    client("10:00:02,100", "Adding newly assigned partitions: t-0, t-1"),
    client("10:00:05,000", "Received successful Heartbeat response", level="DEBUG", logger=ABSTRACT_COORDINATOR),
    client("10:00:06,000", "Committed offset 10 for partition t-0", level="DEBUG"),
    client("10:00:07,000", "Committed offset 5 for partition t-0", level="DEBUG"),
    client("10:00:08,000", "Rebalance failed.", logger=ABSTRACT_COORDINATOR),
    "org.apache.kafka.common.errors.RebalanceInProgressException: The group is rebalancing, so a rejoin is needed.",
    "\tat org.apache.kafka.clients.consumer.internals.AbstractCoordinator.joinGroupIfNeeded(AbstractCoordinator.java:1)",
    client("10:01:00,000", "Received successful Heartbeat response", level="DEBUG", logger=ABSTRACT_COORDINATOR),
    client("10:01:01,000", "Revoke previously assigned partitions t-0, t-1"),
    client("10:01:02,000", f"Member {MEMBER} sending LeaveGroup request to coordinator kafka-1:9092 (id: 2147483646 "
           "rack: null) due to the consumer is being closed", logger=ABSTRACT_COORDINATOR),
    client("10:01:03,000", "Coordinator said something no Kafka version ever logged", logger=ABSTRACT_COORDINATOR),
    "\u00ff\u00fe garbage \x01\x02 line",                                       # garbage text: ignored
]
BROKER = [
    broker("10:00:01,500", "Preparing to rebalance group g1 in state PreparingRebalance with old generation 0 "
           f"(__consumer_offsets-1) (reason: Adding new member {MEMBER} with group instance id None)"),
    broker("10:00:01,990", "Stabilized group g1 generation 1 (__consumer_offsets-1) with 1 members"),
    broker("10:00:03,000", "Something unknown about group g1"),                  # candidate, no rule: unparsed
    "[2024-05-01 10:00:04,000] INFO [Log partition=t-0, dir=/data] Rolled new log segment at offset 1 in 2 ms. (kafka.log.Log)",
]
OTHER = [client("10:00:02,000", "Successfully joined group with generation Generation{generationId=4, "
                "memberId='o1-77aa', protocol='range'}", client_id="o1", group="other", logger=ABSTRACT_COORDINATOR)]


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


def run_ingest_inputs(spark, inputs, out, **kw):
    """The whole job with the default (real) parsers and replay."""
    from pipeline.spark.job import IngestOptions, run_ingest

    return run_ingest(IngestOptions(inputs=[str(inputs)], out=str(out), quiet=True, **kw), spark=spark)


@pytest.fixture(scope="session")
def run(spark, inputs, tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "run1"
    return out, run_ingest_inputs(spark, inputs, out)


