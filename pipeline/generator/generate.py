"""Run one scenario and write its folder: logs, dump, describe snapshot and truth.json."""

from __future__ import annotations

import json
import os
from random import Random

from pipeline.generator import kafka_python_client, kafkajs_client, librdkafka_client
from pipeline.generator.clients import (
    KAFKA_PYTHON_VERSION,
    KAFKAJS_VERSION,
    RDKAFKA_VERSION,
    is_kafka_python,
    is_kafkajs,
    is_librdkafka,
)
from pipeline.generator.render import (
    BrokerRenderer,
    broker_server_log,
    client_log,
    file_text,
    render_describe,
    render_dump,
)
from pipeline.generator.scenario import Scenario
from pipeline.generator.sim import Simulation
from pipeline.generator.truth import build_truth


def simulate(sc: Scenario) -> Simulation:
    sim = Simulation(sc)
    rng = Random(sc.seed * 7919 + 17)
    # small clock skew between hosts (NTP drift), applied only to what each host prints
    sim.skew = {c.name: rng.randrange(-350, 351) for c in sc.consumers}
    return sim.run()


def write_scenario(sc: Scenario, out_dir: str) -> dict[str, str]:
    """Generate `sc` into out_dir (created). Returns {file name: kind}."""
    os.makedirs(out_dir, exist_ok=True)
    sim = simulate(sc)
    files: dict[str, str] = {}
    ext = "json" if sc.layout == "json" else "log"
    for i, c in enumerate(sc.consumers):
        if is_librdkafka(c):
            name = f"{c.name}.log"
            _write(out_dir, name, librdkafka_client.client_log(sim, c.name, Random(sc.seed * 31 + i)))
            files[name] = (f"client (confluent-kafka-python {RDKAFKA_VERSION}, librdkafka {RDKAFKA_VERSION}, "
                           "Python logging, debug=cgrp)")
            continue
        if is_kafka_python(c):
            name = f"{c.name}.log"
            _write(out_dir, name, kafka_python_client.client_log(sim, c.name, Random(sc.seed * 31 + i)))
            files[name] = f"client (kafka-python {KAFKA_PYTHON_VERSION}, Python logging)"
            continue
        if is_kafkajs(c):
            name = f"{c.name}.log"
            _write(out_dir, name, kafkajs_client.client_log(sim, c.name, Random(sc.seed * 31 + i)))
            files[name] = f"client (KafkaJS {KAFKAJS_VERSION}, its default JSON console logger)"
            continue
        name = f"{c.name}.{ext}"
        _write(out_dir, name, client_log(sim, c.name, Random(sc.seed * 31 + i)))
        files[name] = f"client ({sc.client_version}, {sc.layout})"
    by_broker = BrokerRenderer(sim).records()
    for b in sorted(by_broker):
        name = f"kafka-{b}-server.log"
        _write(out_dir, name, broker_server_log(sim, b, by_broker[b], Random(sc.seed * 131 + b)))
        files[name] = f"broker server.log (broker {b}, {sc.broker_version})"
    _write(out_dir, "consumer-offsets-dump.txt", render_dump(sim, sc.dump_format))
    files["consumer-offsets-dump.txt"] = f"__consumer_offsets dump ({sc.dump_format})"
    last = sim.snapshots[-1]
    _write(out_dir, "consumer-groups-describe.txt", render_describe(sim, last))
    files["consumer-groups-describe.txt"] = "kafka-consumer-groups --describe at the end"
    truth = build_truth(sim, files)
    with open(os.path.join(out_dir, "truth.json"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(compact_json(truth) + "\n")
    return files


def compact_json(value: object, indent: int = 0) -> str:
    """JSON with one level of indentation per container, except that containers holding only
    scalars are written on one line (a commit, an ownership interval, a partition list)."""
    def flat(v: object) -> bool:
        items = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        return all(not isinstance(x, (dict, list)) for x in items)

    if not isinstance(value, (dict, list)) or flat(value):
        return json.dumps(value, ensure_ascii=False)
    pad, inner = " " * indent, " " * (indent + 1)
    if isinstance(value, dict):
        body = ",\n".join(f"{inner}{json.dumps(k)}: {compact_json(v, indent + 1)}" for k, v in value.items())
        return "{\n" + body + "\n" + pad + "}"
    body = ",\n".join(inner + compact_json(v, indent + 1) for v in value)
    return "[\n" + body + "\n" + pad + "]"


def _write(out_dir: str, name: str, lines: list[str]) -> None:
    with open(os.path.join(out_dir, name), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(file_text(lines))
