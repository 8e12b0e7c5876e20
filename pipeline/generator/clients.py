"""Client libraries a simulated member can run besides the Java consumer, and their facts.

librdkafka as wrapped by confluent-kafka-python (the binding's version follows librdkafka's:
confluent-kafka-python 2.3.0 ships librdkafka 2.3.0). Defaults from librdkafka CONFIGURATION.md
v2.3.0 (session.timeout.ms 45000 since v1.7.0, 10000 before; heartbeat.interval.ms 3000;
max.poll.interval.ms 300000; auto.commit.interval.ms 5000; client.id "rdkafka";
partition.assignment.strategy "range,roundrobin"). JoinGroup v0-v5 and LeaveGroup v0-v1
(rdkafka_request.c v2.3.0): the member-id handshake of JoinGroup v4+, and no leave reason (KIP-800
needs LeaveGroup v5), so a 3.x broker logs `client reason: not provided` for its leaves.
"""

from __future__ import annotations

from pipeline.generator.scenario import ConsumerSpec

JAVA = "java"
CONFLUENT_PYTHON = "confluent-kafka-python"
KAFKA_PYTHON = "kafka-python"
KAFKAJS = "kafkajs"

# KafkaJS 2.2.4 (tulios/kafkajs v2.2.4): src/consumer/index.js createConsumer defaults sessionTimeout
# 30000, rebalanceTimeout 60000 (since 1.8.0), heartbeatInterval 3000; autoCommit true with
# autoCommitInterval/Threshold null (runner.js commits after every batch); no max poll interval;
# src/network/connection.js clientId 'kafkajs' when none is given (member ids 'kafkajs-<uuid>');
# the default assigner src/consumer/assigners/roundRobinAssigner (protocol name 'RoundRobinAssigner',
# version 0): no protocol in common with a Java member's, so KafkaJS and Java members cannot form
# one group (INCONSISTENT_GROUP_PROTOCOL). Heartbeats are sent only by the runner, between batches
# (runner.js heartbeat(), consumerGroup.js sends one when heartbeatInterval has passed).
KAFKAJS_VERSION = "2.2.4"
KAFKAJS_CLIENT_ID = "kafkajs"
KAFKAJS_ASSIGNORS = ("RoundRobinAssigner",)
KAFKAJS_DEFAULTS = {"session.timeout.ms": 30000, "heartbeat.interval.ms": 3000,
                    # KafkaJS has no poll timer: this is its rebalanceTimeout, JoinGroup's rebalance timeout
                    "max.poll.interval.ms": 60000, "auto.commit.interval.ms": 0}

# kafka-python 2.3.0 (kafka/consumer/group.py DEFAULT_CONFIG): client_id 'kafka-python-' + __version__,
# session 10000, heartbeat 3000, max poll 300000, auto commit 5000, (Range, RoundRobin) assignors;
# JoinGroup up to v5 (the member-id handshake: "Received member id ..."), LeaveGroup up to v3 (no
# reason: KIP-800 is v5); its heartbeat thread leaves the group when poll() stalls past
# max_poll_interval_ms (base.py HeartbeatThread)
KAFKA_PYTHON_VERSION = "2.3.0"
KAFKA_PYTHON_CLIENT_ID = f"kafka-python-{KAFKA_PYTHON_VERSION}"
KAFKA_PYTHON_DEFAULTS = {"session.timeout.ms": 10000, "heartbeat.interval.ms": 3000,
                         "max.poll.interval.ms": 300000, "auto.commit.interval.ms": 5000}

RDKAFKA_VERSION = "2.3.0"
RDKAFKA_VERSION_HEX = "20300ff"  # rd_kafka_version() of v2.3.0, as INIT prints it with %x
RDKAFKA_CLIENT_ID = "rdkafka"
RDKAFKA_ASSIGNORS = ("range", "roundrobin")
RDKAFKA_DEFAULTS = {"session.timeout.ms": 45000, "heartbeat.interval.ms": 3000,
                    "max.poll.interval.ms": 300000, "auto.commit.interval.ms": 5000}
# rdkafka_cgrp.c rd_kafka_cgrp_max_poll_interval_check_tmr_cb runs on a 500 ms timer (v1.0-2.x)
MAXPOLL_CHECK_MS = 500


def is_librdkafka(spec: ConsumerSpec) -> bool:
    return spec.client == CONFLUENT_PYTHON


def is_kafka_python(spec: ConsumerSpec) -> bool:
    return spec.client == KAFKA_PYTHON


def is_kafkajs(spec: ConsumerSpec) -> bool:
    return spec.client == KAFKAJS


def library(spec: ConsumerSpec) -> str:
    """Event.client_library's name of the member's client."""
    if is_kafkajs(spec):
        return KAFKAJS
    return "librdkafka" if is_librdkafka(spec) else KAFKA_PYTHON if is_kafka_python(spec) else JAVA


def setting(spec: ConsumerSpec, name: str, java_value: int) -> int:
    """The member's value of a group setting: what its configuration sets, else its client's default."""
    if name in spec.config:
        return spec.config[name]
    if is_kafka_python(spec):
        return KAFKA_PYTHON_DEFAULTS[name]
    if is_kafkajs(spec):
        return KAFKAJS_DEFAULTS[name]
    return RDKAFKA_DEFAULTS[name] if is_librdkafka(spec) else java_value


def client_id(spec: ConsumerSpec, group_id: str) -> str:
    """The member's client.id when its configuration sets none (Java: consumer-<group>-<N>, 2.4+)."""
    if is_librdkafka(spec):
        return RDKAFKA_CLIENT_ID
    if is_kafka_python(spec):
        return KAFKA_PYTHON_CLIENT_ID
    if is_kafkajs(spec):
        return KAFKAJS_CLIENT_ID
    return f"consumer-{group_id}-{spec.client_seq}"


def sends_join_reason(spec: ConsumerSpec) -> bool:
    """JoinGroup v8+ (KIP-800, Java 3.2+) carries a reason the broker logs; librdkafka 2.x
    (rd_kafka_JoinGroupRequest), kafka-python 2.3 and KafkaJS 2.x send v5 at most: none."""
    return not (is_librdkafka(spec) or is_kafka_python(spec) or is_kafkajs(spec))


def sends_leave_reason(spec: ConsumerSpec) -> bool:
    """LeaveGroup v5+ (KIP-800): the Java consumer; librdkafka (v0-v1), kafka-python 2.3 (v0-v3) and
    KafkaJS (v0-v3, src/protocol/requests/leaveGroup) do not."""
    return not (is_librdkafka(spec) or is_kafka_python(spec) or is_kafkajs(spec))
