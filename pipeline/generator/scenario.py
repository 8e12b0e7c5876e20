"""What a scenario is: the group, its consumers, the cluster, and the timed actions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Kafka client/broker versions the renderer knows, with the version number used to pick templates
VERSIONS = {"0.10": "0.10.2.1", "2.x": "2.8.1", "3.x": "3.6.1", "4.x": "4.0.0"}
LAYOUTS = ("log4j", "spring_boot", "json")


@dataclass
class ConsumerSpec:
    name: str  # also the host name of its machine
    ip: str
    start_ms: int = 0
    instance_id: str | None = None
    processing_ms: int = 400  # mean processing time of a full batch
    batch_records: int = 500
    auto_commit: bool = True
    assignors: tuple[str, ...] = ("range",)
    client_seq: int = 1  # the N of consumer-<group>-N
    # the member's client library: "java" (the scenario's client_version) or "confluent-kafka-python"
    # (librdkafka under confluent-kafka-python, pipeline/generator/librdkafka_client.py)
    client: str = "java"
    # settings this member's configuration sets; what it leaves out is its client's default
    # (Java: the scenario's session_ms/heartbeat_ms/max_poll_ms; librdkafka: RDKAFKA_DEFAULTS)
    config: dict[str, int] = field(default_factory=dict)


@dataclass
class Action:
    at_ms: int
    kind: str  # start | stop | crash | gc_pause | slow_batch | add_partitions | failover | reset_offsets
    target: str | None = None
    args: dict[str, Any] = field(default_factory=dict)


@dataclass
class Scenario:
    name: str
    seed: int
    group_id: str
    topics: dict[str, int]
    consumers: list[ConsumerSpec]
    actions: list[Action]
    duration_ms: int
    client_version: str = "3.x"
    broker_version: str = "3.x"
    layout: str = "log4j"
    spring_boot: int = 2  # Spring Boot major version for the spring_boot layout (2 or 3)
    epoch_ms: int = 1_710_381_600_000  # 2024-03-14T02:00:00Z
    session_ms: int = 45000
    heartbeat_ms: int = 3000
    max_poll_ms: int = 300000
    produce_rate: float = 40.0  # records per second per partition
    brokers: tuple[int, ...] = (1, 2, 3)
    coordinator: int = 1
    dump_format: str = "dump_log"  # dump_log | formatter
    initial_committed: bool = True  # the group existed before the scenario starts
    noise: float = 1.0  # scales the amount of noise lines
    title: str = ""
    story: str = ""
