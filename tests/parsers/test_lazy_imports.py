"""`coordscope parse` loads what a run's lines need, on first need (docs/parsers.md, "Start-up: what
is loaded when"): a run of Java client lines never imports the non-Java clients' parsers, the other
subcommands or OpenSSL's hashes; a file that mixes Java client, broker, librdkafka and KafkaJS lines
loads them mid-file and writes exactly the bytes an eagerly loaded process writes. Each run is a
fresh interpreter (subprocess): the test process has imported everything already."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# runs the CLI's main in a fresh process, optionally importing modules first (the eager reference),
# and prints which of WATCHED were imported by the end, as one JSON line on standard error
RUNNER = """
import importlib, json, sys
eager, argv = sys.argv[1], sys.argv[2:]
for name in filter(None, eager.split(",")):
    importlib.import_module(name)
from pipeline import cli
status = cli.main(argv)
watched = {watched!r}
sys.stderr.write(json.dumps(sorted(m for m in watched if m in sys.modules)) + "\\n")
sys.exit(status)
"""

# not needed by a run of Java client lines (each was imported by every `parse` before)
WATCHED = ("parsers.foreign.librdkafka", "parsers.foreign.kafkajs", "pipeline.commands.ingest",
           "pipeline.commands.dashboard", "pipeline.commands.report", "hashlib", "importlib.resources", "lark")
EAGER = ",".join(("parsers.foreign.librdkafka", "parsers.foreign.kafkajs", "parsers.foreign.pyclients",
                  "pipeline.commands.ingest", "pipeline.commands.dashboard", "pipeline.commands.report",
                  "hashlib", "importlib.resources"))

JAVA = [
    "[2024-03-01 10:15:30,100] INFO [Consumer clientId=c1, groupId=g1] Committed offset 17 for partition t-3 "
    "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
    "[2024-03-01 10:15:32,100] INFO [Consumer clientId=c1, groupId=g1] Successfully joined group with generation "
    "Generation{generationId=5, memberId='c1-abc', protocol='range'} "
    "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
]
# GroupCoordinator.scala 2.x-3.x (prepareRebalance)
BROKER = ("[2024-03-01 10:15:31,000] INFO [GroupCoordinator 1]: Preparing to rebalance group g1 in state "
          "PreparingRebalance with old generation 4 (__consumer_offsets-12) (reason: Adding new member c1-abc "
          "with group instance id None) (kafka.coordinator.group.GroupCoordinator)")
# librdkafka 2.3 rdkafka_cgrp.c (JoinGroup response, debug cgrp), as in tests/parsers/foreign/logs
LIBRDKAFKA = ("%7|1714557603.040|JOINGROUP|rdkafka#consumer-1| [thrd:main]: JoinGroup response: GenerationId 12, "
              "Protocol range, LeaderId rdkafka-6b6d (me), my MemberId rdkafka-6b6d, member metadata count 2: (no error)")
# KafkaJS 2.2 src/consumer/consumerGroup.js "Consumer has joined the group", text logger layout
KAFKAJS = ('2024-05-01T10:00:03.043Z INFO [ConsumerGroup] Consumer has joined the group {"groupId":"payments",'
           '"memberId":"my-app-1","leaderId":"my-app-1","isLeader":true,"memberAssignment":{"orders":[0,1]},'
           '"groupProtocol":"RoundRobinAssigner","duration":3043}')


def _run(path: Path, eager: str = "") -> tuple[bytes, list[str]]:
    proc = subprocess.run([sys.executable, "-c", RUNNER.format(watched=WATCHED), eager, "parse", str(path)],
                          cwd=REPO, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout, json.loads(proc.stderr.decode().splitlines()[-1])


def _events(out: bytes) -> list[tuple]:
    rows = [json.loads(line) for line in out.decode().splitlines()]
    return [(e["line_no"], e["side"], e["kind"], e.get("client_library")) for e in rows]


def test_java_client_lines_load_no_foreign_parser_no_other_command(tmp_path):
    log = tmp_path / "client.log"
    log.write_text("\n".join(JAVA * 50) + "\n")
    out, loaded = _run(log)
    assert loaded == []
    events = _events(out)
    assert len(events) == 100
    assert events[:2] == [(1, "client", "offset_committed", None), (2, "client", "join_succeeded", None)]


def test_a_mixed_file_loads_each_parser_mid_file_and_writes_the_same_bytes(tmp_path):
    log = tmp_path / "mixed.log"
    log.write_text("\n".join([*JAVA[:1] * 3, BROKER, LIBRDKAFKA, KAFKAJS, JAVA[1]]) + "\n")
    lazy_out, loaded = _run(log)
    eager_out, _ = _run(log, EAGER)
    assert lazy_out == eager_out
    assert {"parsers.foreign.librdkafka", "parsers.foreign.kafkajs"} <= set(loaded)
    assert "pipeline.commands.ingest" not in loaded
    assert _events(lazy_out) == [
        (1, "client", "offset_committed", None), (2, "client", "offset_committed", None),
        (3, "client", "offset_committed", None), (4, "broker", "broker_rebalance_preparing", None),
        (5, "client", "join_succeeded", "librdkafka"), (6, "client", "join_succeeded", "kafkajs"),
        (7, "client", "join_succeeded", None),
    ]
