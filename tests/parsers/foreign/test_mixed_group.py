"""A group with a Java member and a librdkafka member (confluent-kafka-python, debug=cgrp): both
members' logs parsed and replayed together give one generation with both members and their partitions."""

from __future__ import annotations

from pathlib import Path

from parsers.reader import parse_lines, parse_path, sniff
from pipeline.replay import replay_group

LOGS = Path(__file__).parent / "logs"
RD = "rdkafka-6b6d3a5e-8c5b-4b8a-9a52-0f1c2d3e4f50"
JAVA = "consumer-payments-1-5b1f9c2e-7d4a-4e8b-9c1d-2e3f4a5b6c7d"
P = "[Consumer clientId=consumer-payments-1, groupId=payments]"
# Kafka 3.x ConsumerCoordinator/AbstractCoordinator wordings in the default log4j layout
JAVA_LOG = [
    f"[2024-05-01 10:00:00,020] INFO {P} (Re-)joining group (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
    f"[2024-05-01 10:00:03,045] INFO {P} Successfully joined group with generation Generation{{generationId=12, memberId='{JAVA}', "
    "protocol='range'} (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
    f"[2024-05-01 10:00:03,052] INFO {P} Successfully synced group in generation Generation{{generationId=12, memberId='{JAVA}', "
    "protocol='range'} (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
    f"[2024-05-01 10:00:03,060] INFO {P} Adding newly assigned partitions: orders-2, orders-3 "
    "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
]


def test_java_and_librdkafka_members_in_one_generation():
    java = [o.event for o in parse_lines("java.log", enumerate(JAVA_LOG, 1), sniff(JAVA_LOG)) if o.event is not None]
    assert [e.kind for e in java] == ["join_started", "join_succeeded", "sync_succeeded", "partitions_assigned"]
    assert all(e.client_library is None for e in java)
    rd = [o.event for o in parse_path(str(LOGS / "librdkafka-2.3.0-debug-cgrp.log"))[0]
          if o.event is not None and o.event.kind != "unparsed"]
    events = sorted(java + rd, key=lambda e: (e.ts_ms or 0, e.source, e.line_no))
    result = replay_group(events)
    gens = result.table("generations")
    assert [(g["generation"], sorted(g["members"])) for g in gens] == [(12, sorted([JAVA, RD]))]
    owned = sorted((r["member_id"], f"{r['topic']}-{r['partition']}", r["start_ms"]) for r in result.table("ownership"))
    assert owned == [(JAVA, "orders-2", 1714557603060), (JAVA, "orders-3", 1714557603060),
                     (RD, "orders-0", 1714557603050), (RD, "orders-1", 1714557603050)]
    left = {m["member_id"]: m["leave_reason"] for m in result.table("memberships")}
    assert left == {JAVA: None, RD: "poll_timeout"}
