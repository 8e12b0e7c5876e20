"""The named scenarios of sample_logs/ (what happened is told in sample_logs/README.md)."""

from __future__ import annotations

from pipeline.generator.scenario import Action, ConsumerSpec, Scenario

MIN = 60_000


def _consumers(n: int, prefix: str = "orders-app", **kw: object) -> list[ConsumerSpec]:
    return [ConsumerSpec(name=f"{prefix}-{i + 1}", ip=f"10.0.2.{11 + i}", start_ms=1000 + 700 * i, **kw)  # type: ignore[arg-type]
            for i in range(n)]


def healthy_scale_out() -> Scenario:
    cs = _consumers(4)
    for c in cs[2:]:
        c.start_ms = 3 * MIN + (cs.index(c) - 2) * 20_000
    return Scenario(
        name="healthy_scale_out", seed=101, group_id="orders-enricher", topics={"orders": 8}, consumers=cs,
        actions=[], duration_ms=5 * MIN, client_version="3.x", broker_version="3.x", layout="log4j",
        dump_format="dump_log", title="Healthy scale-out from 2 to 4 consumers",
        story="Two consumers run the group; at 03:00 and 03:20 two more instances start. Each start is one "
              "clean rebalance (new member joins, everybody rejoins, range assignment spreads 8 partitions).")


def rolling_deploy() -> Scenario:
    cs = _consumers(4, prefix="billing-worker")
    acts = []
    for i, c in enumerate(cs):
        t = 3 * MIN + i * 45_000
        acts += [Action(t, "stop", c.name), Action(t + 15_000, "start", c.name)]
    return Scenario(
        name="rolling_deploy", seed=202, group_id="billing-events", topics={"invoices": 12}, consumers=cs,
        actions=acts, duration_ms=6 * MIN + 30_000, client_version="2.x", broker_version="2.x", layout="spring_boot",
        spring_boot=2, session_ms=10_000, dump_format="formatter", title="Rolling deploy of 4 Spring Boot workers",
        story="Each of four billing workers is restarted in turn (graceful close, new process 15 s later). Every "
              "close sends a LeaveGroup and every start joins with a new member id: two rebalances per instance.")


def poll_timeout_slow_processing() -> Scenario:
    cs = _consumers(3, prefix="fraud-scorer", auto_commit=False, processing_ms=900)
    return Scenario(
        name="poll_timeout_slow_processing", seed=303, group_id="fraud-scoring", topics={"payments": 6},
        consumers=cs, actions=[Action(3 * MIN, "slow_batch", "fraud-scorer-2", {"ms": 95_000})],
        duration_ms=6 * MIN, client_version="3.x", broker_version="3.x", layout="json", max_poll_ms=60_000,
        dump_format="dump_log", title="Poll timeout from one slow batch",
        story="fraud-scorer-2 spends 95 s on one batch while max.poll.interval.ms is 60 s. Its heartbeat thread "
              "leaves the group; its partitions move to the others, who re-read from the last commit; the slow "
              "member's commitSync then fails with CommitFailedException and it rejoins.")


def gc_pause_session_expiry() -> Scenario:
    cs = _consumers(3, prefix="inventory-sync")
    return Scenario(
        name="gc_pause_session_expiry", seed=404, group_id="inventory-sync", topics={"stock-levels": 6},
        consumers=cs, actions=[Action(3 * MIN, "gc_pause", "inventory-sync-3", {"ms": 17_500})],
        duration_ms=5 * MIN, client_version="2.x", broker_version="2.x", layout="log4j", session_ms=10_000,
        dump_format="dump_log", title="Session expiry caused by a 17.5 s GC pause",
        story="inventory-sync-3 freezes for 17.5 s (stop-the-world GC). With session.timeout.ms=10000 the broker "
              "expires it, rebalances the other two; when the JVM wakes up its heartbeat gets UNKNOWN_MEMBER_ID, it "
              "gives its partitions away as lost and rejoins, causing a second rebalance.")


def rebalance_storm() -> Scenario:
    cs = _consumers(5, prefix="search-indexer")
    acts = []
    t = 2 * MIN
    for _ in range(7):
        acts += [Action(t, "crash", "search-indexer-4"), Action(t + 14_000, "start", "search-indexer-4")]
        t += 32_000
    return Scenario(
        name="rebalance_storm", seed=505, group_id="search-indexer", topics={"catalog-updates": 10},
        consumers=cs, actions=acts, duration_ms=6 * MIN + 30_000, client_version="0.10", broker_version="0.10",
        layout="spring_boot", spring_boot=2, session_ms=10_000, dump_format="formatter_old",
        title="Rebalance storm from a crash-looping instance (0.10 clients)",
        story="search-indexer-4 dies with OutOfMemoryError shortly after every start and is restarted by its "
              "supervisor 14 s later, seven times. Each start (join) and each death (session expiry 10 s later) "
              "rebalances the whole group of five.")


def coordinator_failover() -> Scenario:
    cs = _consumers(3, prefix="shipping-router")
    cs.append(ConsumerSpec(name="shipping-router-4", ip="10.0.2.14", start_ms=5 * MIN + 30_000))
    return Scenario(
        name="coordinator_failover", seed=606, group_id="shipping-router", topics={"shipments": 6}, consumers=cs,
        actions=[Action(3 * MIN, "failover", args={"to": 3, "outage_ms": 2600})], duration_ms=7 * MIN,
        client_version="4.x", broker_version="3.x", layout="log4j", coordinator=1, dump_format="dump_log_json",
        title="Group coordinator moves from broker 1 to broker 3",
        story="At 03:00 broker 1 loses leadership of the group's __consumer_offsets partition; broker 3 loads the "
              "group. Clients see NOT_COORDINATOR, commits fail for 2.6 s, they rediscover the coordinator and keep "
              "their generation (no rebalance). A fourth instance joins at 05:30 through the new coordinator.")


def offset_reset_skip_and_rewind() -> Scenario:
    cs = _consumers(3, prefix="ledger-writer")
    acts = [Action(2 * MIN, "add_partitions", args={"topic": "ledger", "total": 8, "notice_ms": 25_000})]
    for c in cs:
        acts += [Action(5 * MIN, "stop", c.name), Action(6 * MIN, "start", c.name),
                 Action(8 * MIN, "stop", c.name), Action(9 * MIN, "start", c.name)]
    acts += [Action(5 * MIN + 30_000, "reset_offsets", args={"to": "latest"}),
             Action(8 * MIN + 30_000, "reset_offsets", args={"to": "shift", "by": -3000})]
    return Scenario(
        name="offset_reset_skip_and_rewind", seed=707, group_id="ledger-writer", topics={"ledger": 6}, consumers=cs,
        actions=acts, duration_ms=10 * MIN + 30_000, client_version="3.x", broker_version="3.x", layout="spring_boot",
        spring_boot=3, dump_format="dump_log", title="Offsets skipped (reset to latest) and rewound (shift-by -3000)",
        story="At 02:00 the topic grows from 6 to 8 partitions; the new ones have no committed offset and "
              "auto.offset.reset=latest skips what was written to them before the leader noticed. At 05:30, with "
              "the group stopped, an operator resets offsets to latest (skipping the backlog); at 08:30 shifts "
              "them back by 3000 (those records are processed twice).")


def static_member_restart() -> Scenario:
    cs = _consumers(3, prefix="session-store")
    for i, c in enumerate(cs):
        c.instance_id = f"session-store-{i}"
    acts = []
    for i, c in enumerate(cs[:2]):
        t = 2 * MIN + i * 40_000
        acts += [Action(t, "stop", c.name), Action(t + 12_000, "start", c.name)]
    acts += [Action(4 * MIN, "stop", "session-store-3"), Action(4 * MIN + 70_000, "start", "session-store-3")]
    return Scenario(
        name="static_member_restart", seed=808, group_id="session-store", topics={"sessions": 6}, consumers=cs,
        actions=acts, duration_ms=6 * MIN, client_version="4.x", broker_version="3.x", layout="json",
        dump_format="dump_log_json", title="Static members (group.instance.id) restarting",
        story="Three static members. Two restart within the 45 s session timeout: the broker maps their "
              "group.instance.id to a new member id without a rebalance. The third stays down 70 s: its session "
              "expires, the group rebalances without it, and again when it comes back.")


def scale_in_roundrobin() -> Scenario:
    cs = _consumers(4, prefix="email-sender", assignors=("roundrobin", "range"))
    acts = [Action(3 * MIN, "stop", "email-sender-4"), Action(3 * MIN + 30_000, "stop", "email-sender-3")]
    return Scenario(
        name="scale_in_roundrobin", seed=909, group_id="email-sender", topics={"emails": 6, "email-retries": 2},
        consumers=cs, actions=acts, duration_ms=6 * MIN, client_version="2.x", broker_version="2.x", layout="json",
        session_ms=10_000, dump_format="formatter", title="Scale-in from 4 to 2 consumers (roundrobin, two topics)",
        story="Four email-sender instances share two topics with the roundrobin assignor (range offered second). "
              "At 02:03:00 and 02:03:30 two instances are scaled in: each close is one clean rebalance.")


def cooperative_scale_out() -> Scenario:
    cs = _consumers(3, prefix="risk-aggregator", assignors=("cooperative-sticky",))
    cs.append(ConsumerSpec(name="risk-aggregator-4", ip="10.0.2.14", start_ms=2 * MIN + 30_000,
                           assignors=("cooperative-sticky",)))
    return Scenario(
        name="cooperative_scale_out", seed=1010, group_id="risk-aggregator", topics={"trades": 12},
        consumers=cs, actions=[Action(4 * MIN + 30_000, "crash", "risk-aggregator-2")],
        duration_ms=6 * MIN + 30_000, client_version="3.x", broker_version="3.x", layout="spring_boot",
        spring_boot=2, dump_format="dump_log", title="Cooperative (incremental) rebalancing: scale-out, then a crash",
        story="Three consumers with the cooperative-sticky assignor; a fourth joins at 02:02:30 and one crashes "
              "at 02:04:30. Members keep their partitions while rejoining; moved partitions are revoked "
              "first and handed over in a follow-up rebalance.")


ALL = [healthy_scale_out, rolling_deploy, poll_timeout_slow_processing, gc_pause_session_expiry, rebalance_storm,
       coordinator_failover, offset_reset_skip_and_rewind, static_member_restart, scale_in_roundrobin,
       cooperative_scale_out]


# Variations: confounders of the offset analysis, generated on demand (`--only NAME`, tests), not
# written to sample_logs/ by default.
def backlog_catch_up_after_restart() -> Scenario:
    """0.10 consumers all stop for 3 minutes and come back: they resume from their commits on close and
    work through the backlog; commits advance in big steps, and nothing is skipped or reprocessed."""
    cs = _consumers(3, prefix="stock-feed", processing_ms=150)
    acts = []
    for c in cs:
        acts += [Action(2 * MIN, "stop", c.name), Action(5 * MIN, "start", c.name)]
    return Scenario(
        name="backlog_catch_up_after_restart", seed=1201, group_id="stock-feed", topics={"quotes": 6}, consumers=cs,
        actions=acts, duration_ms=7 * MIN, client_version="0.10", broker_version="2.x", layout="log4j",
        session_ms=10_000, dump_format="formatter_old", title="Backlog catch-up after a restart (no offset lost)",
        story="The whole group stops at 02:02 and starts again at 02:05; it resumes from its committed "
              "offsets and catches up the 3-minute backlog in a few large commits.")


def admin_reset_while_stopped() -> Scenario:
    """2.x consumers stopped; an operator resets the group to earliest; the group restarts and
    processes everything from the log start again (exact: both bounds are committed offsets)."""
    cs = _consumers(2, prefix="audit-sink")
    acts = []
    for c in cs:
        acts += [Action(2 * MIN, "stop", c.name), Action(4 * MIN, "start", c.name)]
    acts.append(Action(3 * MIN, "reset_offsets", args={"to": "earliest"}))
    return Scenario(
        name="admin_reset_while_stopped", seed=1202, group_id="audit-sink", topics={"audit": 4}, consumers=cs,
        actions=acts, duration_ms=6 * MIN, client_version="2.x", broker_version="2.x", layout="log4j",
        session_ms=10_000, dump_format="formatter", title="Admin reset to earliest while the group is stopped",
        story="The group stops at 02:02; at 02:03 an operator runs --reset-offsets --to-earliest; from "
              "02:04 the consumers process every partition again from its start.")


VARIATIONS = [backlog_catch_up_after_restart, admin_reset_while_stopped]


def mixed_clients_max_poll() -> Scenario:
    """Java and confluent-kafka-python (librdkafka) members in one classic group; one Python
    member's batch outlasts librdkafka's default max.poll.interval.ms (300 s): librdkafka leaves
    the group itself (MAXPOLL), the group rebalances, the member rejoins when its batch ends."""
    cs = _consumers(2, prefix="auth-java")
    cs += [ConsumerSpec(name=f"auth-py-{i + 1}", ip=f"10.0.3.{21 + i}", start_ms=2400 + 700 * i, processing_ms=600,
                        client="confluent-kafka-python") for i in range(2)]
    return Scenario(
        name="mixed_clients_max_poll", seed=1303, group_id="card-authorizer", topics={"authorizations": 8},
        consumers=cs, actions=[Action(2 * MIN, "slow_batch", "auth-py-2", {"ms": 330_000})],
        duration_ms=9 * MIN, client_version="3.x", broker_version="3.x", layout="log4j", dump_format="dump_log",
        title="Mixed Java and confluent-kafka-python group: librdkafka leaves after MAXPOLL",
        story="Two Java 3.6 consumers and two confluent-kafka-python 2.3.0 (librdkafka 2.3.0) consumers share "
              "one classic group. From 02:02 auth-py-2 spends 330 s on one batch; librdkafka's "
              "max.poll.interval.ms (default 300 s) expires, the client logs MAXPOLL and leaves the group "
              "itself; the others rebalance; when the batch ends the member rejoins with a new member id.")


def mixed_clients_kafka_python() -> Scenario:
    """Variation: Java, kafka-python 2.3.0 and confluent-kafka-python members in one classic group.
    A kafka-python member's batch outlasts its max_poll_interval_ms (set to 60 s): its heartbeat
    thread leaves the group (no reason in LeaveGroup v1) and it rejoins when the batch ends; later
    a kafka-python member is closed (LeaveGroup) and a new one starts."""
    cs = _consumers(2, prefix="geo-java")
    cs += [ConsumerSpec(name=f"geo-kp-{i + 1}", ip=f"10.0.4.{31 + i}", start_ms=2400 + 700 * i, processing_ms=500,
                        client="kafka-python", config={"max.poll.interval.ms": 60_000}) for i in range(2)]
    cs.append(ConsumerSpec(name="geo-ckp-1", ip="10.0.4.41", start_ms=3800, client="confluent-kafka-python"))
    acts = [Action(2 * MIN, "slow_batch", "geo-kp-1", {"ms": 80_000}),
            Action(5 * MIN, "stop", "geo-kp-2"), Action(5 * MIN + 20_000, "start", "geo-kp-2")]
    return Scenario(
        name="mixed_clients_kafka_python", seed=1304, group_id="geo-indexer", topics={"places": 10},
        consumers=cs, actions=acts, duration_ms=7 * MIN, client_version="3.x", broker_version="3.x", layout="log4j",
        dump_format="dump_log", title="Java, kafka-python and confluent-kafka-python members in one group",
        story="A kafka-python member's 80 s batch exceeds its 60 s max_poll_interval_ms: its heartbeat thread "
              "leaves, the group rebalances, it rejoins after the batch; at 02:05 another kafka-python member "
              "restarts (LeaveGroup, then a new member).")


def kafkajs_batch_session_expiry() -> Scenario:
    """Variation: a KafkaJS-only group (KafkaJS's RoundRobinAssigner has no protocol in common with
    Java's assignors, so Java members could not join it). KafkaJS heartbeats only between batches:
    one member's 50 s eachBatch outlasts its 30 s sessionTimeout, the broker expires it, the others
    rebalance; when the batch ends its commit is answered UNKNOWN_MEMBER_ID and it rejoins as a new
    member."""
    cs = [ConsumerSpec(name=f"ledger-js-{i + 1}", ip=f"10.0.5.{51 + i}", start_ms=1500 + 600 * i, processing_ms=400,
                       client="kafkajs") for i in range(3)]
    return Scenario(
        name="kafkajs_batch_session_expiry", seed=1305, group_id="ledger-sync", topics={"ledger-events": 9},
        consumers=cs, actions=[Action(2 * MIN, "slow_batch", "ledger-js-2", {"ms": 50_000}),
                               Action(4 * MIN + 30_000, "stop", "ledger-js-3")],
        duration_ms=6 * MIN, client_version="3.x", broker_version="3.x", layout="log4j", dump_format="dump_log",
        title="KafkaJS group: a long eachBatch outlasts the session timeout",
        story="Three KafkaJS 2.2.4 consumers. From 02:02 ledger-js-2 spends 50 s in one eachBatch; KafkaJS sends "
              "heartbeats only between batches, so the broker expires its 30 s session and the other two "
              "rebalance without it; when the batch ends its offset commit is answered UNKNOWN_MEMBER_ID and it "
              "rejoins with a new member id. Its batch's records are processed again by their new owners. At "
              "02:04:30 ledger-js-3 is stopped (LeaveGroup, no reason) and the other two rebalance.")


# variations with non-Java members (written only with --only), dated from 2024-03-25
MIXED_VARIATIONS = [mixed_clients_kafka_python, kafkajs_batch_session_expiry]
MIXED_DAY = 12  # 2024-03-23, the day after the first variations


# Sample scenarios whose members are not all Java clients (issue 22), dated after the variations.
MIXED = [mixed_clients_max_poll]

DAY = 86_400_000


def by_name() -> dict[str, Scenario]:
    """Every sample scenario; each starts at 02:00 UTC on its own day (2024-03-11, -12, ...), so that
    ingesting all of sample_logs/ together shows separate incidents."""
    out = {}
    for i, f in enumerate(ALL):
        sc = f()
        sc.epoch_ms = 1_710_122_400_000 + i * DAY  # 2024-03-11T02:00:00Z + i days
        out[f.__name__] = sc
    for j, f in enumerate(MIXED):
        sc = f()
        sc.epoch_ms = 1_710_122_400_000 + (MIXED_DAY + j) * DAY  # 2024-03-23T02:00:00Z
        out[f.__name__] = sc
    return out


def variations() -> dict[str, Scenario]:
    """The confounder variations (not in sample_logs/), dated after the sample scenarios."""
    out = {}
    for i, f in enumerate(VARIATIONS):
        sc = f()
        sc.epoch_ms = 1_710_122_400_000 + (len(ALL) + i) * DAY
        out[f.__name__] = sc
    for j, f in enumerate(MIXED_VARIATIONS):
        sc = f()
        sc.epoch_ms = 1_710_122_400_000 + (MIXED_DAY + len(MIXED) + 1 + j) * DAY  # 2024-03-25T02:00:00Z
        out[f.__name__] = sc
    return out
