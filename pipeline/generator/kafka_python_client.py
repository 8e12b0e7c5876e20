"""A kafka-python 2.3.0 member's log: its coordinator's INFO/WARNING lines and the application's own.

Format strings of kafka-python 2.3.0 (kafka/coordinator/base.py loggers `kafka.coordinator` and
`kafka.coordinator.heartbeat`, kafka/coordinator/consumer.py `kafka.coordinator.consumer`,
kafka/consumer/subscription_state.py `kafka.consumer.subscription_state`); the parser's list of
them: tests/parsers/foreign/SOURCES.md.
- ensure_active_group: `_on_join_prepare` once per join cycle ("Revoking previously assigned
  partitions %s for group %s", the set of TopicPartition reprs, `set()` when empty), then
  "(Re-)joining group %s"; MEMBER_ID_REQUIRED: "Received member id %s for group %s; will retry
  join-group"; the JoinGroup response: "Successfully joined group %s %s" with Generation's str
  `<Generation 7 (member_id: m, protocol: range)>`, the leader then "Elected group leader --
  performing partition assignments using %s"; after SyncGroup "Setting newly assigned partitions
  %s for group %s". The heartbeat thread starts on the first join ("Starting new heartbeat
  thread"), warns "Heartbeat failed for group %s because it is rebalancing", and on a stalled poll
  loop "Consumer poll timeout has expired. ..." then "Leaving consumer group %s (member %s)." (also
  on close).
- "Discovered coordinator %s for group %s" names kafka-python's coordinator connection id
  `coordinator-<node id>` (kafka/cluster.py add_group_coordinator).
Layout: Python logging `%(asctime)s %(levelname)s %(name)s: %(message)s` (UTC hosts).
"""

from __future__ import annotations

from random import Random

from pipeline.generator.librdkafka_client import APP_LOGGER, python_layout
from pipeline.generator.records import FactRenderer, Rec
from pipeline.generator.sim import ClientFact, Simulation

BASE = "kafka.coordinator"
HEARTBEAT = "kafka.coordinator.heartbeat"
POLL_TIMEOUT = ("Consumer poll timeout has expired. This means the time between subsequent calls to poll() was "
                "longer than the configured max_poll_interval_ms, which typically implies that the poll loop is "
                "spending too much time processing messages. You can address this either by increasing "
                "max_poll_interval_ms or by reducing the maximum size of batches returned in poll() with "
                "max_poll_records.")
CONSUMER = "kafka.coordinator.consumer"
SUBSCRIPTION = "kafka.consumer.subscription_state"


def tp_set(parts: list[str]) -> str:
    """Python's repr of a set of kafka.structs.TopicPartition (sorted here; Python's order is arbitrary)."""
    if not parts:
        return "set()"
    items = []
    for tp in sorted(parts, key=lambda x: (x.rpartition("-")[0], int(x.rpartition("-")[2]))):
        t, _, p = tp.rpartition("-")
        items.append(f"TopicPartition(topic='{t}', partition={p})")
    return "{" + ", ".join(items) + "}"


class KafkaPythonRenderer(FactRenderer):
    def __init__(self, sim: Simulation, host: str, rng: Random) -> None:
        self.sim, self.host, self.rng = sim, host, rng
        self.g = sim.sc.group_id
        self.owned: list[str] = []
        self.hb_thread = False
        self.batch_n = 0
        self.revoke_logged = False
        self.member = ""

    def line(self, out: list[Rec], f: ClientFact, logger: str, level: str, msg: str) -> None:
        out.append(Rec(f.ts, level, "", logger, msg))

    def one(self, out: list[Rec], f: ClientFact) -> None:  # noqa: C901 - one branch per fact kind
        a, g = f.args, self.g
        if f.key == "startup":
            self.hb_thread, self.owned = False, []
            self.line(out, f, APP_LOGGER, "INFO", f"Consuming {a['topics']} as group {g} (kafka-python 2.3.0)")
            self.line(out, f, SUBSCRIPTION, "INFO", f"Updating subscribed topics to: {tuple(a['topics'])!r}")
        elif f.key == "discovered":
            self.line(out, f, BASE, "INFO", f"Discovered coordinator coordinator-{a['broker']} for group {g}")
        elif f.key == "join_start":
            if not self.hb_thread:
                self.line(out, f, HEARTBEAT, "INFO", "Starting new heartbeat thread")
                self.hb_thread = True
            if not self.revoke_logged:  # _on_join_prepare: once per join cycle (ensure_active_group)
                self.line(out, f, CONSUMER, "INFO", f"Revoking previously assigned partitions {tp_set(self.owned)} "
                                                    f"for group {g}")
                self.revoke_logged = True
            self.line(out, f, BASE, "INFO", f"(Re-)joining group {g}")
        elif f.key == "rejoin_requested":
            self.member = a["reason"].rsplit(": ", 1)[-1]
            self.line(out, f, BASE, "INFO", f"Received member id {self.member} for group {g}; will retry join-group")
        elif f.key == "joined":
            self.member = a["member_id"]
            self.line(out, f, BASE, "INFO", f"Successfully joined group {g} <Generation {a['generation']} "
                                            f"(member_id: {a['member_id']}, protocol: {a['protocol']})>")
            if a["leader"]:
                self.line(out, f, BASE, "INFO", f"Elected group leader -- performing partition assignments using "
                                                f"{a['protocol']}")
        elif f.key == "synced":
            self.revoke_logged = False  # the join cycle is over
            self.owned = list(a["partitions"])
            self.line(out, f, CONSUMER, "INFO", f"Setting newly assigned partitions {tp_set(self.owned)} for group {g}")
        elif f.key == "hb_rebalancing":
            self.line(out, f, HEARTBEAT, "WARNING", f"Heartbeat failed for group {g} because it is rebalancing")
        elif f.key in ("revoked", "lost"):  # _on_join_prepare of the rejoin that follows
            self.line(out, f, CONSUMER, "INFO", f"Revoking previously assigned partitions {tp_set(self.owned)} "
                                                f"for group {g}")
            self.owned, self.revoke_logged = [], True
        elif f.key == "poll_timeout":
            self.line(out, f, HEARTBEAT, "WARNING", POLL_TIMEOUT)
            self.line(out, f, BASE, "INFO", f"Leaving consumer group {g} (member {a['member_id']}).")
        elif f.key == "leave":
            self.line(out, f, BASE, "INFO", f"Leaving consumer group {g} (member {a['member_id']}).")
        elif f.key == "batch":
            self.batch_n += 1
            if f.level == "WARN" or self.batch_n % 12 == 1:
                lvl = "WARNING" if f.level == "WARN" else "INFO"
                self.line(out, f, APP_LOGGER, lvl, f"processed {a['records']} records from "
                                                   f"{', '.join(a['partitions'])} in {a['ms']} ms")
        elif f.key == "shutdown":
            self.line(out, f, APP_LOGGER, "INFO", "consumer closed")
        elif f.key == "crash":
            self.line(out, f, APP_LOGGER, "ERROR", f"worker died: {a.get('error')}")


def client_log(sim: Simulation, host: str, rng: Random) -> list[str]:
    recs = KafkaPythonRenderer(sim, host, rng).records()
    order = sorted(range(len(recs)), key=lambda i: (recs[i].ms, i))
    skew = sim.skew[host]
    return [python_layout(sim.sc.epoch_ms + recs[i].ms + skew, recs[i].level, recs[i].logger, recs[i].msg)
            for i in order]
