"""kafka-python / aiokafka lines through a bare Python logging format (`%(asctime)s %(levelname)s
%(message)s`, no logger name) print Java 0.9/0.10's coordinator wordings (kafka/coordinator/base.py,
consumer.py 2.0.2): they must be read by the Python clients' rules, never as Java events; and Java
0.10 lines of the same wordings, with Java's values, stay Java's."""

from __future__ import annotations

from parsers.reader import parse_lines, sniff

PY_BARE = [  # kafka-python 2.0.2 wordings, logger names left out by the layout
    "2024-05-01 10:00:00,150 INFO Discovered coordinator coordinator-2 for group payments",
    "2024-05-01 10:00:00,151 INFO Starting new heartbeat thread",
    "2024-05-01 10:00:00,152 INFO Revoking previously assigned partitions set() for group payments",
    "2024-05-01 10:00:00,153 INFO (Re-)joining group payments",
    "2024-05-01 10:00:03,210 INFO Successfully joined group payments with generation 7",
    "2024-05-01 10:05:00,400 WARNING Auto offset commit failed for group payments: CommitFailedError: "
    "Commit cannot be completed since the group has already rebalanced",
]
JAVA_010 = [  # Kafka 0.10.2 AbstractCoordinator / ConsumerCoordinator, the same layout
    "2024-05-01 10:00:00,150 INFO Discovered coordinator kafka-2:9092 (id: 2147483645 rack: null) for group payments.",
    "2024-05-01 10:00:00,152 INFO Revoking previously assigned partitions [] for group payments",
    "2024-05-01 10:00:00,153 INFO (Re-)joining group payments",
    "2024-05-01 10:00:03,210 INFO Successfully joined group payments with generation 7",
]


def _events(lines):
    return [o.event for o in parse_lines("f.log", enumerate(lines, 1), sniff(lines)) if o.event is not None]


def test_bare_kafka_python_lines_are_not_java_events():
    evs = _events(PY_BARE)
    got = [(e.line_no, e.kind, e.extra.get("rule"), e.group_id, e.generation, e.ts_ms) for e in evs]
    assert got == [
        (1, "coordinator_discovered", "kafka_python.discovered", "payments", None, 1714557600150),
        (2, "heartbeat_thread", "kafka_python.hb_thread_start", None, None, 1714557600151),
        (3, "partitions_revoked", "kafka_python.revoked", "payments", None, 1714557600152),
        (4, "join_started", "kafka_python.rejoining", "payments", None, 1714557600153),
        (5, "join_succeeded", "kafka_python.joined", "payments", 7, 1714557603210),
        (6, "offset_commit_failed", "kafka_python.auto_commit_failed", "payments", None, 1714557900400),
    ]
    assert evs[2].partitions == ()
    assert evs[0].coordinator == "2"
    # the shared wordings after a line only kafka-python prints are its own, with its name
    assert [e.client_library for e in evs[1:5]][0] == "kafka-python" and evs[4].client_library == "kafka-python"


def test_java_010_lines_of_the_same_wordings_stay_java():
    evs = _events(JAVA_010)
    assert [(e.kind, e.client_library, (e.extra.get("rule") or "").startswith("kafka_python")) for e in evs] == [
        ("coordinator_discovered", None, False), ("partitions_revoked", None, False),
        ("join_started", None, False), ("join_succeeded", None, False)]
    assert evs[3].generation == 7 and evs[1].partitions == ()


def test_value_signatures_alone_decide_without_a_logger_or_earlier_lines():
    """Each line alone (a one-line file, no state): the Python value decides. aiokafka prints the
    coordinator's node id (group_coordinator.py), kafka-python `coordinator-N`; Java 0.9 prints
    Node(id, host, port), Java 0.10 `host:port (id: N rack: R)` (Node.toString)."""
    cases = [
        ("2024-05-01 10:00:00,150 INFO Discovered coordinator 2 for group payments", True),
        ("2024-05-01 10:00:00,150 INFO Discovered coordinator coordinator-2 for group payments", True),
        ("2024-05-01 10:00:00,152 INFO Revoking previously assigned partitions frozenset() for group payments", True),
        ("2024-05-01 10:00:00,150 INFO Discovered coordinator Node(2147483645, kafka-2, 9092) for group payments.", False),
        ("2024-05-01 10:00:00,150 INFO Discovered coordinator kafka-2:9092 (id: 2147483645 rack: null) for group payments.",
         False),
        ("2024-05-01 10:00:00,152 INFO Revoking previously assigned partitions [orders-0] for group payments", False),
    ]
    got = []
    for line, _python in cases:
        evs = _events([line])
        got.append((line, len(evs) == 1 and (evs[0].extra.get("rule") or "").startswith("kafka_python")))
    assert got == [(line, python) for line, python in cases]
