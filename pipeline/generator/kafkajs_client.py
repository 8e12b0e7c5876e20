"""A KafkaJS 2.2.4 member's log: what its default logger prints at the default level (INFO).

Facts from the sources (tulios/kafkajs v2.2.4; the parser's list of the wordings:
tests/parsers/foreign/SOURCES.md):
- src/loggers/index.js builds each entry as {timestamp: new Date().toISOString(), logger: 'kafkajs',
  message, ...extra}; src/loggers/console.js prints `JSON.stringify(Object.assign({level: label},
  entry, {message: '[Namespace] message'}))`, so the keys come in the order level, timestamp,
  logger, message, then the caller's fields (console.info/warn/error: one line each).
- src/consumer/index.js run: INFO `[Consumer] Starting` {groupId}.
- src/consumer/consumerGroup.js joinAndSync (1.15+): INFO `[ConsumerGroup] Consumer has joined the
  group` {groupId, memberId, leaderId, isLeader, memberAssignment {topic: [partitions]},
  groupProtocol, duration (ms since joinAndSync began)}. The first JoinGroup without a member id
  answered MEMBER_ID_REQUIRED is not logged (joinGroup/index.js logResponseError is false for an
  empty member id); KafkaJS logs nothing when it revokes.
- src/network/connection.js send: a failed response is logged at ERROR `[Connection] Response
  API(key: K, version: V)` {broker 'host:port', clientId, error (src/protocol/error.js message),
  correlationId, size}. Versions against a 2.x/3.x broker: Heartbeat v3 (key 12), OffsetCommit v5
  (key 8).
- src/consumer/runner.js: WARN `[Runner] The group is rebalancing, re-joining` (1.16+; ERROR
  before) and ERROR `[Runner] The coordinator is not aware of this member, re-joining the group`,
  both {groupId, memberId, error}.
- src/consumer/index.js stop: INFO `[Consumer] Stopped` {groupId}.
The application's own lines use the same JSON shape under its own logger name ("ledger-app").
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from random import Random
from typing import Any

from pipeline.generator.clients import KAFKAJS_CLIENT_ID
from pipeline.generator.records import FactRenderer
from pipeline.generator.sim import ClientFact, Simulation

APP_LOGGER = "ledger-app"
ERRORS = {  # src/protocol/error.js messages
    "REBALANCE_IN_PROGRESS": "The group is rebalancing, so a rejoin is needed",
    "UNKNOWN_MEMBER_ID": "The coordinator is not aware of this member",
    "ILLEGAL_GENERATION": "Specified group generation id is not valid",
}
API = {"Heartbeat": (12, 3), "OffsetCommit": (8, 5)}  # apiKeys.js; the version KafkaJS picks with a 3.x broker
LEVEL = {"INFO": "INFO", "WARN": "WARN", "ERROR": "ERROR", "DEBUG": "DEBUG"}


def iso(ms: int) -> str:
    """Date.prototype.toISOString: 2024-03-27T02:01:02.345Z."""
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def assignment_object(parts: list[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for tp in parts:
        t, _, p = tp.rpartition("-")
        out.setdefault(t, []).append(int(p))
    return {t: sorted(ps) for t, ps in sorted(out.items())}


def commit_response_size(offsets: dict[str, int]) -> int:
    """connection.js `size`: the response's length after its size field (correlation id included).
    Heartbeat v3: correlation id, throttle time, error code = 10. OffsetCommit v5: correlation id,
    throttle time, the topics array (name, partitions array of partition + error code)."""
    by_topic: dict[str, int] = {}
    for tp in offsets:
        t = tp.rpartition("-")[0]
        by_topic[t] = by_topic.get(t, 0) + 1
    return 4 + 4 + 4 + sum(2 + len(t.encode()) + 4 + 6 * n for t, n in by_topic.items())


class KafkaJSRenderer(FactRenderer):
    def __init__(self, sim: Simulation, host: str, rng: Random) -> None:
        self.sim, self.host, self.rng = sim, host, rng
        self.g = sim.sc.group_id
        self.join_began: int | None = None
        self.leader_id = ""
        self.correlation = 0
        self.batch_n = 0

    def entry(self, out: list[tuple[int, str]], ts: int, level: str, logger: str, message: str,
              **extra: Any) -> None:
        obj = {"level": level, "timestamp": "", "logger": logger, "message": message, **extra}
        out.append((ts, json.dumps(obj, separators=(",", ":"), ensure_ascii=False)))

    def kjs(self, out: list[tuple[int, str]], f: ClientFact, level: str, ns: str, msg: str, **extra: Any) -> None:
        self.entry(out, f.ts, level, "kafkajs", f"[{ns}] {msg}", **extra)

    def one(self, out: list[tuple[int, str]], f: ClientFact) -> None:  # noqa: C901 - one branch per fact kind
        a, g = f.args, self.g
        if f.key == "startup":
            self.kjs(out, f, "INFO", "Consumer", "Starting", groupId=g)
        elif f.key == "join_start":
            if self.join_began is None:  # joinAndSync: one duration across its retries
                self.join_began = f.ts
        elif f.key == "joined":
            self.leader_id = a["leader_id"]
        elif f.key == "synced":
            began = self.join_began if self.join_began is not None else f.ts
            self.join_began = None
            self.kjs(out, f, "INFO", "ConsumerGroup", "Consumer has joined the group", groupId=g,
                     memberId=a["member_id"], leaderId=self.leader_id, isLeader=self.leader_id == a["member_id"],
                     memberAssignment=assignment_object(a["partitions"]), groupProtocol=a["protocol"],
                     duration=f.ts - began)
        elif f.key == "js_response_error":
            self.response_error(out, f, a["api"], a["error"], a["broker"], 10)
        elif f.key == "commit_failed":
            self.response_error(out, f, "OffsetCommit", a["error"], a["broker"], commit_response_size(a["offsets"]))
        elif f.key == "js_rebalancing":
            self.kjs(out, f, "WARN", "Runner", "The group is rebalancing, re-joining", groupId=g,
                     memberId=a["member_id"], error=ERRORS[a["error"]])
        elif f.key == "js_unknown_member" and a["error"] == "UNKNOWN_MEMBER_ID":
            self.kjs(out, f, "ERROR", "Runner", "The coordinator is not aware of this member, re-joining the group",
                     groupId=g, memberId=a["member_id"], error=ERRORS[a["error"]])
        elif f.key == "batch":
            self.batch_n += 1
            if f.level == "WARN" or self.batch_n % 12 == 1:
                self.entry(out, f.ts, LEVEL[f.level], APP_LOGGER,
                           f"eachBatch processed {a['records']} messages from {', '.join(a['partitions'])} "
                           f"in {a['ms']} ms")
        elif f.key == "shutdown":
            self.kjs(out, f, "INFO", "Consumer", "Stopped", groupId=g)
        elif f.key == "crash":
            self.entry(out, f.ts, "ERROR", APP_LOGGER, f"worker died: {a.get('error')}")

    def response_error(self, out: list[tuple[int, str]], f: ClientFact, api: str, error: str, broker: int,
                       size: int) -> None:
        key, version = API[api]
        self.correlation += self.rng.randrange(3, 40)
        self.kjs(out, f, "ERROR", "Connection", f"Response {api}(key: {key}, version: {version})",
                 broker=f"kafka-{broker}.prod.internal:9092", clientId=KAFKAJS_CLIENT_ID,
                 error=ERRORS.get(error, error), correlationId=self.correlation, size=size)


def client_log(sim: Simulation, host: str, rng: Random) -> list[str]:
    recs = KafkaJSRenderer(sim, host, rng).records()
    order = sorted(range(len(recs)), key=lambda i: (recs[i][0], i))
    skew = sim.skew[host]
    lines = []
    for i in order:
        ts, text = recs[i]
        # the timestamp is the host's clock (skewed), written in place of the placeholder
        lines.append(text.replace('"timestamp":""', f'"timestamp":"{iso(sim.sc.epoch_ms + ts + skew)}"', 1))
    return lines
