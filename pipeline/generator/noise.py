"""Lines around the coordinator lines: client start-up and shutdown, the application's own lines,
fetcher and network-client chatter, stack traces, and broker housekeeping."""

from __future__ import annotations

from random import Random
from typing import TYPE_CHECKING, Any

from pipeline.generator.records import ClientHost, Rec

if TYPE_CHECKING:
    from pipeline.generator.sim import ClientFact, Simulation

APP = "com.acme.orders.OrderProcessor"
KAFKA_VERSIONS = {"0.10": ("0.10.2.1", "e89bffd6b2eff799"), "2.x": ("2.8.1", "839b886f9b732b15"),
                  "3.x": ("3.6.1", "5e3c2b738d253ff5"), "4.x": ("4.0.0", "985bc99521dd22bb")}


def _rec(*a: Any, **k: Any) -> Rec:
    return Rec(*a, **k)


def startup(cr: ClientHost, f: ClientFact) -> list[Rec]:
    a, era, t = f.args, cr.era, f.ts
    out: list[Rec] = []
    if cr.sc.layout == "spring_boot":
        out.append(_rec(t - 6000, "INFO", "main", "com.acme.orders.OrdersApplication",
                        f"Starting OrdersApplication v1.14.2 using Java 17.0.10 on {cr.host} with PID {cr.pid} "
                        "(/app/orders.jar started by app in /app)"))
        out.append(_rec(t - 5990, "INFO", "main", "com.acme.orders.OrdersApplication",
                        "No active profile set, falling back to 1 default profile: \"default\""))
    cfg = {
        "auto.commit.interval.ms": 5000, "auto.offset.reset": "latest",
        "bootstrap.servers": "[kafka-1.prod.internal:9092, kafka-2.prod.internal:9092, kafka-3.prod.internal:9092]",
        "client.id": a["client_id"], "enable.auto.commit": str(a["auto_commit"]).lower(),
        "fetch.max.wait.ms": 500, "group.id": cr.group,
        "group.instance.id": a["instance_id"] or "null", "heartbeat.interval.ms": a["heartbeat_ms"],
        "max.poll.interval.ms": a["max_poll_ms"], "max.poll.records": 500,
        "partition.assignment.strategy": "[" + ", ".join(
            {"range": "class org.apache.kafka.clients.consumer.RangeAssignor",
             "roundrobin": "class org.apache.kafka.clients.consumer.RoundRobinAssignor",
             "cooperative-sticky": "class org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
             "sticky": "class org.apache.kafka.clients.consumer.StickyAssignor"}[x] for x in a["assignors"]) + "]",
        "request.timeout.ms": 30000, "session.timeout.ms": a["session_ms"],
    }
    if era == "0.10":
        cfg.pop("group.instance.id")
    if era == "4.x":
        cfg["group.protocol"] = "classic"
    body = "ConsumerConfig values: \n" + "\n".join(f"\t{k} = {v}" for k, v in sorted(cfg.items())) + "\n"
    out.append(_rec(t, "INFO", cr.main_thread, "org.apache.kafka.clients.consumer.ConsumerConfig", body.rstrip("\n")))
    ver, commit = KAFKA_VERSIONS[era]
    sep = " : " if era == "0.10" else ": "
    out.append(_rec(t + 40, "INFO", cr.main_thread, "org.apache.kafka.common.utils.AppInfoParser", f"Kafka version{sep}{ver}"))
    out.append(_rec(t + 40, "INFO", cr.main_thread, "org.apache.kafka.common.utils.AppInfoParser", f"Kafka commitId{sep}{commit}"))
    if era != "0.10":
        out.append(_rec(t + 40, "INFO", cr.main_thread, "org.apache.kafka.common.utils.AppInfoParser",
                        f"Kafka startTimeMs: {cr.sc.epoch_ms + t + 40}"))
        out.append(_rec(t + 150, "INFO", cr.main_thread, "org.apache.kafka.clients.Metadata",
                        cr.prefix() + "Cluster ID: 7d9c1f2aQ1uJq3kZ0x5YhA"))
    return out


def batch_line(cr: ClientHost, f: ClientFact) -> list[Rec]:
    a = f.args
    parts = "[" + ", ".join(a["partitions"]) + "]"
    if f.level == "WARN":
        msg = (f"Slow batch: processed {a['records']} records from {parts} in {a['ms']} ms "
               f"(max.poll.interval.ms={cr.sc.max_poll_ms})")
    else:
        msg = f"Processed {a['records']} records from {parts} in {a['ms']} ms"
    return [_rec(f.ts, f.level, cr.main_thread, APP, msg)]


def gc_pause(cr: ClientHost, f: ClientFact) -> list[Rec]:
    return [_rec(f.ts, "WARN", "pause-monitor", "com.acme.common.jvm.JvmPauseMonitor",
                 f"Detected pause in JVM or host machine (eg GC): pause of approximately {f.args['ms']}ms")]


def crash(cr: ClientHost, f: ClientFact) -> list[Rec]:
    err = f.args["error"]
    stack = [err, f"\tat {APP}.enrich(OrderProcessor.java:212)", f"\tat {APP}.process(OrderProcessor.java:148)",
             f"\tat {APP}.run(OrderProcessor.java:97)", "\tat java.base/java.lang.Thread.run(Thread.java:840)"]
    return [_rec(f.ts, "ERROR", cr.main_thread, APP, "Consumer loop terminated by an unrecoverable error; exiting",
                 stack=stack)]


def shutdown(cr: ClientHost, f: ClientFact) -> list[Rec]:
    t = f.ts
    out = [_rec(t - 1, "INFO", "SIGTERM handler", "com.acme.orders.OrdersApplication", "Received SIGTERM, closing consumer")]
    out.append(_rec(t + 3, "INFO", cr.main_thread, "org.apache.kafka.common.metrics.Metrics", "Metrics scheduler closed"))
    out.append(_rec(t + 3, "INFO", cr.main_thread, "org.apache.kafka.common.metrics.Metrics",
                    "Closing reporter org.apache.kafka.common.metrics.JmxReporter"))
    out.append(_rec(t + 4, "INFO", cr.main_thread, "org.apache.kafka.common.utils.AppInfoParser",
                    f"App info kafka.consumer for {cr.c.client_id} unregistered"))
    return out


def commit_failed_exception(cr: ClientHost, f: ClientFact, msg: str) -> list[Rec]:
    stack = [f"org.apache.kafka.clients.consumer.CommitFailedException: {msg}",
             "\tat org.apache.kafka.clients.consumer.internals.ConsumerCoordinator.sendOffsetCommitRequest(ConsumerCoordinator.java:1256)",
             "\tat org.apache.kafka.clients.consumer.internals.ConsumerCoordinator.commitOffsetsSync(ConsumerCoordinator.java:1163)",
             "\tat org.apache.kafka.clients.consumer.KafkaConsumer.commitSync(KafkaConsumer.java:1524)",
             f"\tat {APP}.commit(OrderProcessor.java:176)", f"\tat {APP}.run(OrderProcessor.java:104)",
             "\tat java.base/java.lang.Thread.run(Thread.java:840)"]
    n = len(f.args["offsets"])
    return [_rec(f.ts, "ERROR", cr.main_thread, APP,
                 f"Commit failed for {n} partitions; the batch will be redelivered to the next owner", stack=stack)]


def _up_intervals(cr: ClientHost) -> list[tuple[int, int]]:
    out, start = [], None
    for f in cr.sim.facts:
        if f.host != cr.host:
            continue
        if f.key == "startup":
            start = f.ts
        elif f.key in ("shutdown", "crash") and start is not None:
            out.append((start, f.ts))
            start = None
    if start is not None:
        out.append((start, cr.sc.duration_ms))
    return out


def client_noise(cr: ClientHost) -> list[Rec]:
    rng, out = cr.rng, []
    rate_ms = int(9000 / max(0.05, cr.sc.noise))
    for a, b in _up_intervals(cr):
        t = a + 2000 + rng.randrange(rate_ms)
        while t < b - 500:
            out += _one_client_noise(cr, rng, t)
            t += rng.randrange(rate_ms // 3, rate_ms * 2)
    return out


def _one_client_noise(cr: ClientHost, rng: Random, t: int) -> list[Rec]:
    k = rng.randrange(100)
    http = f"http-nio-8080-exec-{rng.randrange(1, 11)}"
    if k < 40:
        return [_rec(t, "INFO", http, "com.acme.orders.api.OrderController",
                     f"GET /api/orders/{rng.randrange(10**6, 10**7)} -> 200 in {rng.randrange(2, 90)} ms")]
    if k < 55:
        return [_rec(t, "INFO", "scheduling-1", "com.acme.orders.metrics.LagReporter",
                     f"Reported consumer metrics: records-lag-max={rng.randrange(0, 4000)}, "
                     f"records-consumed-rate={rng.uniform(20, 400):.1f}")]
    if k < 65:
        return [_rec(t, "WARN", cr.main_thread, APP,
                     f"Order {rng.randrange(10**6, 10**7)} has no customer reference; sent to orders-dlt")]
    if k < 73 and cr.era != "0.10":
        return [_rec(t, "INFO", cr.main_thread, "org.apache.kafka.clients.NetworkClient",
                     cr.prefix() + f"Node -{rng.randrange(1, 4)} disconnected.")]
    if k < 80 and cr.era != "0.10":
        b = rng.randrange(1, 4)
        return [_rec(t, "INFO", cr.main_thread, "org.apache.kafka.clients.FetchSessionHandler",
                     cr.prefix() + f"Error sending fetch request (sessionId={rng.randrange(10**8, 10**9)}, "
                     f"epoch={rng.randrange(1, 9000)}) to node {b}:",
                     stack=["org.apache.kafka.common.errors.DisconnectException: null"])]
    if k < 88:
        oid = rng.randrange(10**6, 10**7)
        return [_rec(t, "ERROR", cr.main_thread, APP, f"Failed to enrich order {oid}: upstream timed out, will retry",
                     stack=["java.net.SocketTimeoutException: Read timed out",
                            "\tat java.base/sun.nio.ch.NioSocketImpl.timedRead(NioSocketImpl.java:288)",
                            "\tat java.base/sun.nio.ch.NioSocketImpl.implRead(NioSocketImpl.java:314)",
                            "\tat java.base/java.net.Socket$SocketInputStream.read(Socket.java:1099)",
                            "\tat com.acme.orders.customer.CustomerClient.fetch(CustomerClient.java:77)",
                            f"\tat {APP}.enrich(OrderProcessor.java:209)",
                            "\t... 4 common frames omitted"])]
    if k < 94:
        return [_rec(t, "WARN", "HikariPool-1 housekeeper", "com.zaxxer.hikari.pool.HikariPool",
                     f"HikariPool-1 - Thread starvation or clock leap detected (housekeeper delta=1m{rng.randrange(1, 9)}s).")]
    return [_rec(t, "INFO", "scheduling-1", "com.acme.orders.cache.CustomerCache",
                 f"Refreshed customer cache: {rng.randrange(9000, 12000)} entries in {rng.randrange(40, 400)} ms")]


def broker_noise(sim: Simulation, broker: int, rng: Random) -> list[Rec]:
    out: list[Rec] = []
    era = sim.sc.broker_version
    t = rng.randrange(3000)
    topics = [f"{tp}-{p}" for tp, n in sim.partitions.items() for p in range(n)] + ["payments-0", "audit-2"]
    while t < sim.sc.duration_ms:
        tp = rng.choice(topics)
        k = rng.randrange(100)
        if k < 35:
            logger = "kafka.log.LocalLog" if era in ("3.x", "4.x") else "kafka.log.Log"
            name = "LocalLog" if era in ("3.x", "4.x") else "Log"
            out.append(_rec(t, "INFO", "", logger, f"[{name} partition={tp}, dir=/var/lib/kafka/data] Rolled new log "
                            f"segment at offset {rng.randrange(10**5, 10**7)} in {rng.randrange(1, 9)} ms."))
        elif k < 60:
            logger = ("org.apache.kafka.storage.internals.log.ProducerStateManager" if era in ("3.x", "4.x")
                      else "kafka.log.ProducerStateManager")
            out.append(_rec(t, "INFO", "", logger, f"[ProducerStateManager partition={tp}] Wrote producer snapshot at "
                            f"offset {rng.randrange(10**5, 10**7)} with 0 producer ids in {rng.randrange(1, 5)} ms."))
        elif k < 75:
            out.append(_rec(t, "INFO", "", "kafka.controller.KafkaController",
                            f"[Controller id={broker}] Processing automatic preferred replica leader election"))
        elif k < 90:
            out.append(_rec(t, "WARN", "", "org.apache.kafka.common.network.Selector",
                            f"[SocketServer listenerType=ZK_BROKER, nodeId={broker}] Failed authentication with "
                            f"/10.0.{rng.randrange(1, 9)}.{rng.randrange(2, 250)} (channelId=10.0.0.{broker}:9093-"
                            f"10.0.4.{rng.randrange(2, 250)}:{rng.randrange(30000, 60000)}-{rng.randrange(1, 99)}) "
                            "(SSL handshake failed)"))
        else:
            other = rng.choice([b for b in sim.sc.brokers if b != broker] or [broker])
            out.append(_rec(t, "WARN", "", "kafka.server.ReplicaFetcherThread",
                            f"[ReplicaFetcher replicaId={broker}, leaderId={other}, fetcherId=0] Error in response for "
                            f"fetch request (type=FetchRequest, replicaId={broker}, maxWait=500, minBytes=1, "
                            f"maxBytes=10485760, fetchData={{}}, isolationLevel=READ_UNCOMMITTED, "
                            f"toForget=, metadata=(sessionId={rng.randrange(10**8, 10**9)}, epoch=INITIAL), rackId=)",
                            stack=[f"java.io.IOException: Connection to {other} was disconnected before the response was read",
                                   "\tat org.apache.kafka.clients.NetworkClientUtils.sendAndReceive(NetworkClientUtils.java:100)",
                                   "\tat kafka.server.ReplicaFetcherBlockingSend.sendRequest(ReplicaFetcherBlockingSend.scala:110)",
                                   "\tat kafka.server.ReplicaFetcherThread.fetchFromLeader(ReplicaFetcherThread.scala:217)"]))
        scale = max(0.05, sim.sc.noise)
        t += rng.randrange(max(50, int(2000 / scale)), max(100, int(12000 / scale)))
    return out
