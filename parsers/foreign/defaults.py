"""Consumer-group defaults of the non-Java clients, per version (pure data, no I/O).

What a member uses when its configuration does not say otherwise: session timeout, heartbeat
interval, max poll interval (None: the client has no such limit), rebalance timeout (what the
member sends in JoinGroup) and auto-commit interval, in milliseconds. Each range names the file it
was read from, at the tags listed (tests/parsers/foreign/SOURCES.md).

Look-up: `defaults_for("librdkafka", "2.3.0")` -> ClientDefaults (None for an unknown library; the
newest known range when the version is None or unparsable, with `exact=False` so the caller can say
"estimated"). The library names are Event.client_library's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from parsers.build_cache import compile_regex


@dataclass(frozen=True, slots=True)
class ClientDefaults:
    library: str
    first: tuple[int, ...]  # first version of the range (inclusive)
    last: tuple[int, ...] | None  # last version of the range (inclusive), None: still current
    session_timeout_ms: int
    heartbeat_interval_ms: int
    max_poll_interval_ms: int | None
    rebalance_timeout_ms: int | None  # JoinGroup's rebalance timeout when not configured (None: = max poll / session)
    auto_commit_interval_ms: int | None
    source: str
    exact: bool = True  # False when the version was unknown and the newest range was taken


_TABLE: tuple[ClientDefaults, ...] = (
    # librdkafka CONFIGURATION.md (session.timeout.ms, heartbeat.interval.ms, max.poll.interval.ms,
    # auto.commit.interval.ms), read at v1.0.0, v1.4.0, v1.6.0-v1.6.2, v1.7.0, v1.8.2, v1.9.0, v2.0.0,
    # v2.4.0, v2.10.0 and master 4c3b017c. The JoinGroup rebalance timeout is max.poll.interval.ms.
    ClientDefaults("librdkafka", (1, 0, 0), (1, 6, 2), 10000, 3000, 300000, None, 5000,
                   "librdkafka CONFIGURATION.md v1.0.0-v1.6.2"),
    ClientDefaults("librdkafka", (1, 7, 0), None, 45000, 3000, 300000, None, 5000,
                   "librdkafka CONFIGURATION.md v1.7.0-2.x (session.timeout.ms 10000 -> 45000, KIP-735)"),
    # KafkaJS src/consumer/index.js createConsumer defaults (sessionTimeout, rebalanceTimeout,
    # heartbeatInterval; autoCommitInterval is null: commit after each batch), v1.4.0, v1.7.1, v1.8.0,
    # v1.16.0, v2.0.0, v2.2.4. No max poll interval: KafkaJS has none. Before 1.8.0 JoinGroup's
    # rebalance timeout was the session timeout (no rebalanceTimeout option).
    ClientDefaults("kafkajs", (1, 0, 0), (1, 7, 99), 30000, 3000, None, 30000, None,
                   "kafkajs src/consumer/index.js v1.0-v1.7"),
    ClientDefaults("kafkajs", (1, 8, 0), None, 30000, 3000, None, 60000, None,
                   "kafkajs src/consumer/index.js v1.8.0-v2.2.4 (rebalanceTimeout 60000)"),
    # kafka-python kafka/consumer/group.py KafkaConsumer.DEFAULT_CONFIG, 1.3.5, 1.4.0, 1.4.7, 2.0.2,
    # 2.2.0, 2.2.20, 2.3.0, 2.3.2, 3.0.0 and master a3b3836f. 1.3.x had no max_poll_interval_ms
    # (KIP-62 came to kafka-python in 1.4.0).
    ClientDefaults("kafka-python", (1, 0, 0), (1, 3, 99), 30000, 3000, None, None, 5000,
                   "kafka-python kafka/consumer/group.py 1.0-1.3.5"),
    ClientDefaults("kafka-python", (1, 4, 0), (2, 99, 99), 10000, 3000, 300000, None, 5000,
                   "kafka-python kafka/consumer/group.py 1.4.0-2.3.2"),
    ClientDefaults("kafka-python", (3, 0, 0), None, 45000, 3000, 300000, None, 5000,
                   "kafka-python kafka/consumer/group.py 3.0.0- (session_timeout_ms 45000)"),
    # aiokafka aiokafka/consumer/consumer.py AIOKafkaConsumer.__init__ keyword defaults, v0.5.0,
    # v0.5.1, v0.5.2, v0.6.0, v0.7.2, v0.10.0, v0.14.0. rebalance_timeout_ms None means the
    # session timeout (group_coordinator.py).
    ClientDefaults("aiokafka", (0, 0, 0), (0, 5, 0), 30000, 3000, None, None, 5000,
                   "aiokafka aiokafka/consumer/consumer.py <=0.5.0"),
    ClientDefaults("aiokafka", (0, 5, 1), None, 10000, 3000, 300000, None, 5000,
                   "aiokafka aiokafka/consumer/consumer.py 0.5.1-0.14.0"),
    # The Go clients have no max poll interval (no poll loop the coordinator times). Sarama config.go
    # NewConfig (Consumer.Group.Session.Timeout, Heartbeat.Interval, Rebalance.Timeout,
    # Consumer.Offsets.AutoCommit.Interval, CommitInterval until 1.2x), read at v1.19.0 (its first
    # ConsumerGroup), v1.26.0, v1.30.0, v1.38.0, v1.43.0, v1.60.1.
    ClientDefaults("sarama", (1, 19, 0), None, 10000, 3000, None, 60000, 1000,
                   "sarama config.go NewConfig v1.19.0-v1.60.1"),
    # franz-go pkg/kgo config.go defaultCfg (sessionTimeout, rebalanceTimeout, heartbeatInterval,
    # autocommitInterval), read at every v0 tag and v1.0.0, v1.5.0, v1.10.0, v1.15.0, v1.19.0, v1.21.5.
    ClientDefaults("franz-go", (0, 1, 0), (0, 6, 99), 10000, 3000, None, 60000, 5000,
                   "franz-go pkg/kgo/config.go v0.1.0-v0.6.14"),
    ClientDefaults("franz-go", (0, 7, 0), None, 45000, 3000, None, 60000, 5000,
                   "franz-go pkg/kgo/config.go v0.7.0-v1.21.5 (sessionTimeout 10000 -> 45000)"),
    # segmentio/kafka-go reader.go defaultHeartbeatInterval, defaultSessionTimeout,
    # defaultRebalanceTimeout, read at v0.1.0, v0.2.0, v0.3.0, v0.3.1, v0.4.0, v0.4.20, v0.4.50;
    # CommitInterval 0: commits are synchronous, no auto-commit interval.
    ClientDefaults("kafka-go", (0, 1, 0), None, 30000, 3000, None, 30000, None,
                   "kafka-go reader.go v0.1.0-v0.4.50"),
)

LIBRARIES: tuple[str, ...] = tuple(dict.fromkeys(d.library for d in _TABLE))
_VERSION = compile_regex(r"v?(\d+)\.(\d+)(?:\.(\d+))?")


def _version(text: str | None) -> tuple[int, ...] | None:
    m = _VERSION.match(text.strip()) if text else None
    return (int(m[1]), int(m[2]), int(m[3] or 0)) if m else None


def defaults_for(library: str | None, version: str | None = None) -> ClientDefaults | None:
    rows = [d for d in _TABLE if d.library == library]
    if not rows:
        return None
    v = _version(version)
    if v is not None:
        for d in rows:
            if d.first <= v and (d.last is None or v <= d.last):
                return d
    newest = max(rows, key=lambda d: d.first)
    return replace(newest, exact=False)
