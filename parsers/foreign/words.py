"""The literal words that make the reader's candidate filter (parsers/reader.py CANDIDATE_WORDS, the
JVM-side line filter of the ingest) keep the non-Java clients' lines, one tuple per client. They live
here, not in the parsers, so that the reader can build its filter without importing the parsers:
those are imported on their first line (parsers/foreign/__init__.py). Each parser re-exports its
tuple as its CANDIDATE_WORDS."""

from __future__ import annotations

# librdkafka (parsers/foreign/librdkafka.py): every envelope prints the instance name
# ("<client.id>#consumer-N") or the thread prefix ("[thrd:", log.thread.name=true by default); the
# consumer errors applications print themselves are named by their own words
LIBRDKAFKA: tuple[str, ...] = (
    "[thrd:", "#consumer-", "Application maximum poll interval", "JoinGroup failed", "response error: ",
)

# KafkaJS (parsers/foreign/kafkajs.py): its logger namespaces and its name
KAFKAJS: tuple[str, ...] = ("[ConsumerGroup]", "[Consumer]", "[Runner]", "[Connection]", "[Cluster]", "kafkajs")

# kafka-python and aiokafka (parsers/foreign/pyclients.py)
PYCLIENTS: tuple[str, ...] = (
    "kafka.coordinator", "aiokafka", "Discovered coordinator", "oined group", "joining group", "TopicPartition(",
    "Heartbeat", "Marking the coordinator dead", "poll expired", "Consumer poll timeout", "Leaving consumer group",
    "OffsetCommit", "ffset commit", "autocommit", "is out of range for", "ubscri", "heartbeat thread", "oordinator for ",
)

# the Go clients (parsers/foreign/goclients.py): their group lines hold the words above ("group",
# "coordinator", "member", "eartbeat", "ssign", "ommit", ...); kafka-go's partition reader's skip
# line and franz-go's debug callback lines ("entering OnPartitionsLost; with: t[0]") hold none
GOCLIENTS: tuple[str, ...] = ("kafka reader", "entering On")
