"""A confluent-kafka-python member's log: librdkafka's consumer-group lines as the binding logs them
through a Python logger, with the application's own lines.

What the lines are, from the sources (librdkafka v2.3.0, confluent-kafka-python v2.3.0):
- confluent_kafka.c log_cb: `logger.log(level, "%s [%s] %s", fac, rd_kafka_name(rk), buf)`, syslog
  levels mapped to Python's (LOG_WARNING -> WARNING, LOG_DEBUG -> DEBUG); `buf` starts with
  `[thrd:NAME]: ` (log.thread.name=true) and, for rd_rkb_dbg lines, the broker's name and `: `.
- With a logger the binding sets log.queue=true and forwards the log queue to the consumer queue
  (Consumer.c): librdkafka's lines reach Python only inside poll()/consume(), so their time
  (Python's asctime) is when the application next polled. A line librdkafka wrote while the
  application was busy with a batch is printed when that batch is done.
- The member runs with debug=cgrp (the consumer-group debug context): rdkafka_cgrp.c and
  rdkafka_request.c dbg lines of the CGRP context (the exact format strings of v2.3.0 below; the
  parser's list of them is tests/parsers/foreign/SOURCES.md).
- Python logging layout `%(asctime)s %(levelname)s %(name)s: %(message)s` (asctime in UTC hosts).
"""

from __future__ import annotations

from random import Random
from typing import Any

from pipeline.generator.clients import RDKAFKA_VERSION, RDKAFKA_VERSION_HEX
from pipeline.generator.records import FactRenderer, Rec
from pipeline.generator.sim import ClientFact, Simulation

RD_LOGGER = "confluent_kafka"  # the logging.Logger the application hands Consumer(logger=...)
APP_LOGGER = "worker"
NAME = "rdkafka#consumer-1"  # rd_kafka_name: client.id "#consumer-" N (one consumer per process)
QUEUE = "rd_kafka_cgrp_new"  # rd_kafka_q_dest_name of the consumer-group queue
PY_LEVEL = {"DEBUG": "DEBUG", "INFO": "INFO", "WARN": "WARNING", "ERROR": "ERROR"}
FEATURES = ("gzip,snappy,ssl,sasl,regex,lz4,sasl_gssapi,sasl_plain,sasl_scram,plugins,zstd,sasl_oauthbearer,"
            "http,oidc")
BUILT_WITH = ("STRIP STATIC_LINKING CC GXX PKGCONFIG INSTALL GNULD LDS C11THREADS LIBDL PLUGINS STATIC_LIB_zlib "
              "ZLIB STATIC_LIB_libcrypto STATIC_LIB_libssl SSL STATIC_LIB_libzstd ZSTD HDRHISTOGRAM SYSLOG SNAPPY "
              "SOCKEM SASL_SCRAM SASL_OAUTHBEARER OAUTHBEARER_OIDC CRC32C_HW")


def _host(b: int) -> str:
    return f"kafka-{b}.prod.internal:9092/{b}"  # rd_kafka_broker_name: "host:port/nodeid"


def member_state_bytes(parts: list[str]) -> int:
    """Size of the ConsumerProtocol assignment (v0) SyncGroup hands back: version, topic array,
    each topic's name and partitions, user data."""
    by_topic: dict[str, int] = {}
    for tp in parts:
        t = tp.rpartition("-")[0]
        by_topic[t] = by_topic.get(t, 0) + 1
    return 2 + 4 + sum(2 + len(t) + 4 + 4 * n for t, n in by_topic.items()) + 4


class LibrdkafkaRenderer(FactRenderer):
    def __init__(self, sim: Simulation, host: str, rng: Random) -> None:
        self.sim, self.host, self.rng = sim, host, rng
        self.c = sim.clients[host]
        self.g = sim.sc.group_id
        self.batch_n = 0
        self.assigned: list[str] = []
        # when the application was inside a batch (poll returned .. next poll): librdkafka's lines
        # written then are printed when it polls again
        self.busy = sorted((p["start_ms"], p["end_ms"]) for p in sim.processed if p["host"] == host)

    def delivered(self, ts: int) -> int:
        for a, b in self.busy:
            if a < ts < b + 1:
                return b + 1
            if a > ts:
                break
        return ts

    def rd(self, out: list[Rec], f: ClientFact, fac: str, msg: str, level: str = "DEBUG", thread: str = "main",
           broker: str | None = None) -> None:
        text = f"{fac} [{NAME}] [thrd:{thread}]: " + (f"{broker}: " if broker else "") + msg
        out.append(Rec(self.delivered(f.ts), level, "", RD_LOGGER, text))

    def app(self, out: list[Rec], f: ClientFact, level: str, msg: str) -> None:
        out.append(Rec(f.ts, level, "", APP_LOGGER, msg))

    def one(self, out: list[Rec], f: ClientFact) -> None:  # noqa: C901 - one branch per fact kind
        a, g = f.args, self.g
        coord = f"GroupCoordinator/{self.sim.coordinator}"
        if f.key == "startup":
            self.app(out, f, "INFO", f"Consuming {a['topics']} as group {g} (librdkafka {RDKAFKA_VERSION}, "
                                     f"confluent-kafka-python {RDKAFKA_VERSION})")
            # rdkafka.c rd_kafka_new (debug contexts set: cgrp = 0x100)
            self.rd(out, f, "INIT", f"librdkafka v{RDKAFKA_VERSION} (0x{RDKAFKA_VERSION_HEX}) {NAME} initialized "
                                    f"(builtin.features {FEATURES}, {BUILT_WITH}, debug 0x100)", thread="app")
            self.rd(out, f, "SUBSCRIBE", f'Group "{g}": subscribe to new subscription of {len(a["topics"])} '
                                         "topics (join-state init)")
            self.rd(out, f, "CGRPSTATE", f'Group "{g}" changed state init -> query-coord (join-state init)')
        elif f.key == "discovered":
            b = a["broker"]
            self.rd(out, f, "CGRPCOORD", f'Group "{g}" coordinator is kafka-{b}.prod.internal:9092 id {b}',
                    broker=_host(b))
            self.rd(out, f, "CGRPSTATE", f'Group "{g}" changed state query-coord -> wait-broker-transport '
                                         "(join-state init)")
            self.rd(out, f, "CGRPSTATE", f'Group "{g}" changed state wait-broker-transport -> up (join-state init)')
        elif f.key == "join_start":
            # rdkafka_cgrp.c rd_kafka_cgrp_join (rd_rkb_dbg on the coordinator's broker)
            n = len(self.sim.sc.topics)
            self.rd(out, f, "JOIN", f'Joining group "{g}" with {n} subscribed topic(s) and member id '
                                    f'"{self.c_member(f)}"', broker=_host(self.sim.coordinator))
        elif f.key == "rejoin_requested":
            # JoinGroup v4+ answers MEMBER_ID_REQUIRED with the id to use (rd_kafka_cgrp_handle_JoinGroup)
            mid = a["reason"].rsplit(": ", 1)[-1]
            self.rd(out, f, "JOINGROUP", f"JoinGroup response: GenerationId -1, Protocol , LeaderId , my MemberId "
                                         f"{mid}, member metadata count 0: Broker: Group member needs a valid "
                                         "member ID", broker=coord)
            self.rd(out, f, "MEMBERID", f'Group "{g}": updating member id "" -> "{mid}"')
        elif f.key == "joined":
            me = " (me)" if a["leader"] else ""
            self.rd(out, f, "JOINGROUP", f"JoinGroup response: GenerationId {a['generation']}, Protocol "
                                         f"{a['protocol']}, LeaderId {a['leader_id']}{me}, my MemberId {a['member_id']}, "
                                         f"member metadata count {a['members']}: Success", broker=coord)
            if a["leader"]:
                self.rd(out, f, "JOINGROUP", f'I am elected leader for group "{g}" with {a["members"]} member(s)',
                        broker=coord)
        elif f.key == "synced":
            parts = a["partitions"]
            self.rd(out, f, "SYNCGROUP", f"SyncGroup response: Success ({member_state_bytes(parts)} bytes of "
                                         "MemberState data)", broker=coord)
            # rdkafka_partition.c rd_kafka_topic_partition_list_log under ASSIGNMENT
            self.rd(out, f, "ASSIGNMENT", f"List with {len(parts)} partition(s):")
            for tp in parts:
                t, _, p = tp.rpartition("-")
                self.rd(out, f, "ASSIGNMENT", f" {t} [{p}] offset INVALID")
            self.rd(out, f, "ASSIGN", f'Group "{g}": delegating assign of {len(parts)} partition(s) to '
                                      f"application on queue {QUEUE}: new assignment")
            self.assigned = list(parts)
        elif f.key == "hb_sent":
            self.rd(out, f, "HEARTBEAT", f'Heartbeat for group "{g}" generation id {a["generation"]}', broker=coord)
        elif f.key == "hb_rebalancing":
            n = len(self.assigned)
            self.rd(out, f, "HEARTBEAT", f'Group "{g}" heartbeat error response in state up (join-state steady, '
                                         f"{n} partition(s) assigned): Broker: Group rebalance in progress")
            self.rd(out, f, "REBALANCE", f'Group "{g}" is rebalancing (EAGER) in state up (join-state steady) '
                                         f"with {n} assigned partition(s): rebalance in progress")
            self.rd(out, f, "ASSIGN", f'Group "{g}": delegating revoke of {n} partition(s) to application on '
                                      f"queue {QUEUE}: rebalance in progress")
        elif f.key == "revoked":
            # the application's unassign, served in poll(): rd_kafka_cgrp_unassign_done -> rejoin
            self.rd(out, f, "REJOIN", f'Group "{g}": Rejoining group without an assignment: Unassignment done')
            self.assigned = []
        elif f.key == "committed":
            offs = a["offsets"]
            # the auto-commit timer (rd_kafka_cgrp_offset_commit_tmr_cb), or the commit of the stored
            # offsets when the assignment is taken away (rd_kafka_cgrp_unassign_done, "unassign")
            why, js = (("unassign", "wait-unassign-to-complete") if a["sync"]
                       else ("cgrp auto commit timer", "steady"))
            self.rd(out, f, "COMMIT", f"Committing offsets for {len(offs)} partition(s) with generation-id "
                                      f"{a['generation']} in join-state {js}: {why}", broker=coord)
            self.rd(out, f, "COMMIT", f"OffsetCommit for {len(offs)} partition(s) in join-state {js}: {why}: "
                                      "returned: Success", broker=coord)
        elif f.key == "rd_maxpoll":
            n = len(a["partitions"])
            # rdkafka_cgrp.c rd_kafka_cgrp_max_poll_interval_check_tmr_cb (v1.0-2.x)
            self.rd(out, f, "MAXPOLL", f"Application maximum poll interval ({a['max_poll_ms']}ms) exceeded by "
                                       f"{a['exceeded_ms']}ms (adjust max.poll.interval.ms for long-running "
                                       "message processing): leaving group", level="WARN")
            self.rd(out, f, "MEMBERID", f'Group "{g}": updating member id "{a["member_id"]}" -> ""')
            self.rd(out, f, "LEAVE", f'Group "{g}": leave (in state up)')
            self.rd(out, f, "LOST", f'Group "{g}": current assignment of {n} partition(s) lost: '
                                    "max.poll.interval.ms exceeded")
            self.rd(out, f, "REBALANCE", f'Group "{g}" initiating rebalance (EAGER) in state up (join-state '
                                         f"steady) with {n} assigned partition(s) (lost): max.poll.interval.ms exceeded")
            self.rd(out, f, "ASSIGN", f'Group "{g}": delegating revoke of {n} partition(s) to application on '
                                      f"queue {QUEUE}: max.poll.interval.ms exceeded")
            self.maxpoll = (a["max_poll_ms"], a["exceeded_ms"])
        elif f.key == "lost":
            # the consumer error poll() hands the application (rd_kafka_consumer_err), printed by it
            mp, by = getattr(self, "maxpoll", (0, 0))
            self.app(out, f, "ERROR", f'Consumer error: KafkaError{{code=_MAX_POLL_EXCEEDED,val=-147,'
                                      f'str="Application maximum poll interval ({mp}ms) exceeded by {by}ms"}}')
            self.rd(out, f, "REJOIN", f'Group "{g}": Rejoining group without an assignment: Unassignment done')
            self.assigned = []
        elif f.key == "batch":
            self.batch_n += 1
            if f.level == "WARN" or self.batch_n % 12 == 1:
                lvl = "WARN" if f.level == "WARN" else "INFO"
                self.app(out, f, lvl, f"processed {a['records']} records from {', '.join(a['partitions'])} "
                                      f"in {a['ms']} ms")
        elif f.key == "shutdown":
            self.app(out, f, "INFO", "consumer closed")
        elif f.key == "crash":
            self.app(out, f, "ERROR", f"worker died: {a.get('error')}")

    def c_member(self, f: ClientFact) -> str:
        return f.args.get("member_id") or ""


def python_layout(ms: int, level: str, logger: str, msg: str) -> str:
    """`%(asctime)s %(levelname)s %(name)s: %(message)s` (logging's default asctime, UTC host)."""
    from pipeline.generator.layouts import ts_log4j

    return f"{ts_log4j(ms)} {PY_LEVEL.get(level, level)} {logger}: {msg}"


def client_log(sim: Simulation, host: str, rng: Random) -> list[str]:
    r = LibrdkafkaRenderer(sim, host, rng)
    recs = r.records()
    order = sorted(range(len(recs)), key=lambda i: (recs[i].ms, i))
    skew = sim.skew[host]
    return [python_layout(sim.sc.epoch_ms + recs[i].ms + skew, recs[i].level, recs[i].logger, recs[i].msg)
            for i in order]


__all__: list[Any] = ["client_log", "LibrdkafkaRenderer", "member_state_bytes"]
