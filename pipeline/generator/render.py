"""Turn a finished simulation into files: one log per consumer host, each broker's server.log,
a __consumer_offsets dump and kafka-consumer-groups --describe snapshots, plus realistic noise."""

from __future__ import annotations

import json
from random import Random
from typing import Any

from pipeline.generator import noise
from pipeline.generator.layouts import Layout, ts_log4j
from pipeline.generator.records import FactRenderer, Rec
from pipeline.generator.sim import ClientFact, Simulation
from pipeline.generator.templates import BROKER, CLIENT, ERA_VERSION, fill

COMMIT_FAILED_MSG = ("Commit cannot be completed since the group has already rebalanced and assigned the "
                     "partitions to another member. This means that the time between subsequent calls to "
                     "poll() was longer than the configured max.poll.interval.ms, which typically implies "
                     "that the poll loop is spending too much time message processing. You can address this "
                     "either by increasing max.poll.interval.ms or by reducing the maximum size of batches "
                     "returned in poll() with max.poll.records.")
ERROR_TEXT = {"UNKNOWN_MEMBER_ID": "The coordinator is not aware of this member.",
              "ILLEGAL_GENERATION": "Specified group generation id is not valid.",
              "REBALANCE_IN_PROGRESS": "The group is rebalancing, so a rejoin is needed.",
              "NOT_COORDINATOR": "This is not the correct coordinator."}


def java_string_hash(s: str) -> int:
    h = 0
    for ch in s:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def offsets_partition(group: str, n: int = 50) -> int:
    # GroupMetadataManager.partitionFor: Utils.abs(groupId.hashCode) % offsets.topic.num.partitions
    h = java_string_hash(group)
    return 0 if h == -(1 << 31) else abs(h) % n


def broker_host(b: int) -> str:
    return f"kafka-{b}.prod.internal"


def node(b: int, coordinator: bool = True) -> str:
    # Node.toString; the coordinator connection uses id Integer.MAX_VALUE - brokerId
    nid = 2147483647 - b if coordinator else b
    return f"{broker_host(b)}:9092 (id: {nid} rack: null)"


def generation_str(gen: int, mid: str, proto: str | None) -> str:
    p = f"'{proto}'" if proto else "null"
    return f"Generation{{generationId={gen}, memberId='{mid}', protocol={p}}}"


def fetch_position(off: int, b: int, epoch: int) -> str:
    return (f"FetchPosition{{offset={off}, offsetEpoch=Optional[{epoch}], currentLeader=LeaderAndEpoch"
            f"{{leader=Optional[{broker_host(b)}:9092 (id: {b} rack: null)], epoch={epoch}}}}}")


def offsets_map(offsets: dict[str, int], era: str) -> str:
    if era == "0.10":
        inner = ", ".join(f"{tp}=OffsetAndMetadata{{offset={o}, metadata=''}}" for tp, o in offsets.items())
    else:
        inner = ", ".join(f"{tp}=OffsetAndMetadata{{offset={o}, leaderEpoch=null, metadata=''}}"
                          for tp, o in offsets.items())
    return "{" + inner + "}"


class ClientRenderer(FactRenderer):
    def __init__(self, sim: Simulation, host: str, rng: Random) -> None:
        sc = sim.sc
        self.sim, self.sc, self.host, self.rng = sim, sc, host, rng
        self.era = sc.client_version
        self.c = sim.clients[host]
        self.group = sc.group_id
        spring = sc.layout == "spring_boot"
        self.main_thread = ("org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1" if spring
                            else f"{sc.group_id}-consumer-0")
        self.hb_thread = f"kafka-coordinator-heartbeat-thread | {sc.group_id}"
        self.batch_n = 0
        self.pid = rng.randrange(1000, 60000)  # the JVM's process id, printed by Spring Boot layouts

    def prefix(self) -> str:
        if self.era == "0.10":
            return ""
        iid = self.c.spec.instance_id
        if iid:
            return f"[Consumer instanceId={iid}, clientId={self.c.client_id}, groupId={self.group}] "
        return f"[Consumer clientId={self.c.client_id}, groupId={self.group}] "

    def line(self, out: list[Rec], f: ClientFact, name: str, *args: object, level: str | None = None,
             thread: str | None = None, prefixed: bool = True, stack: list[str] | None = None) -> None:
        t = CLIENT[name].get(self.era)
        if t is None:
            return
        logger, tmpl = t
        if name == "committed_position" and self.era == "4.x":
            prefixed = False  # ConsumerUtils' static logger has no LogContext (3.7.0+)
        msg = (self.prefix() if prefixed else "") + fill(tmpl, *args)
        out.append(Rec(f.ts, level or f.level, thread or self._thread(f), logger, msg, stack))

    def _thread(self, f: ClientFact) -> str:
        return self.hb_thread if f.thread == "hb" else self.main_thread

    def one(self, out: list[Rec], f: ClientFact) -> None:  # noqa: C901 - one branch per fact kind
        era, a, g = self.era, f.args, self.group
        parts = a.get("partitions", [])
        joined = ", ".join(parts)
        listed = "[" + joined + "]"
        if f.key == "startup":
            out += noise.startup(self, f)
            self.line(out, f, "subscribed", ", ".join(a["topics"]))
        elif f.key == "discovered":
            if era == "0.10":
                self.line(out, f, "discovered", node(a["broker"]), g, prefixed=False)
            else:
                self.line(out, f, "discovered", node(a["broker"]))
        elif f.key == "join_start":
            self.line(out, f, "join_start", *( [g] if era == "0.10" else []))
        elif f.key == "rejoin_requested":
            if era == "2.x" and a["reason"].startswith("need to revoke partitions "):
                self.line(out, f, "need_revoke", a["reason"].split(" as indicated")[0][len("need to revoke partitions "):])
            else:
                self.line(out, f, "request_rejoin", a["reason"])
        elif f.key == "updating_assignment":
            self.line(out, f, "updating_assignment", *("[" + ", ".join(a[k]) + "]"
                                                        for k in ("assigned", "owned", "added", "revoked")))
        elif f.key == "joined":
            if era == "0.10":
                self.line(out, f, "joined", g, a["generation"])
            else:
                self.line(out, f, "joined", generation_str(a["generation"], a["member_id"], a["protocol"]))
        elif f.key == "assignment_done":
            plan = ", ".join(f"{m}=Assignment(partitions=[{', '.join(p)}])" for m, p in sorted(a["plan"].items()))
            self.line(out, f, "assignment_done", a["generation"], "{" + plan + "}")
        elif f.key == "synced":
            self.line(out, f, "synced", generation_str(a["generation"], a["member_id"], a["protocol"]))
            self.line(out, f, "notify_assignor", f"Assignment(partitions={listed})")
        elif f.key == "assigned":
            if era == "0.10":
                self.line(out, f, "assigned", listed, g)
            else:
                self.line(out, f, "assigned", joined)
        elif f.key == "committed_position":
            self.line(out, f, "committed_position", a["tp"], fetch_position(a["offset"], a["leader_broker"], 7))
        elif f.key == "no_committed":
            self.line(out, f, "no_committed", a["tp"])
        elif f.key == "reset_position":
            self.line(out, f, "reset_position", a["tp"], fetch_position(a["offset"], a["leader_broker"], 0))
        elif f.key == "revoked":
            if era == "0.10":
                self.line(out, f, "revoked", listed, g)
            else:
                self.line(out, f, "revoked", joined)
        elif f.key == "lost":
            if era == "0.10":
                self.line(out, f, "revoked", listed, g)
            else:
                self.line(out, f, "lost_giving_away")
                self.line(out, f, "lost", joined)
        elif f.key == "hb_rebalancing":
            if era == "2.x":
                self.line(out, f, "hb_rebalancing")
            else:
                self.line(out, f, "request_rejoin", a["reason"])
        elif f.key == "hb_reset":
            iid = f"Optional[{a['instance_id']}]" if a["instance_id"] else "Optional.empty"
            self.line(out, f, "hb_reset", generation_str(a["generation"], a["member_id"], a["protocol"]), iid,
                      a["error"])
            reason = f"encountered {a['error']} from HEARTBEAT response"
            member = "and member id " if a["error"] == "UNKNOWN_MEMBER_ID" else ""
            self.line(out, f, "resetting_generation", member, reason)
            self.line(out, f, "request_rejoin", reason)
        elif f.key == "poll_timeout":
            coord = node(self.sim.coordinator)
            if era == "2.x":
                self.line(out, f, "leave", a["member_id"], coord, CLIENT["poll_timeout_warn"]["3.x"][1], level="INFO")
            elif era != "0.10":
                self.line(out, f, "poll_timeout_warn", level="WARN")
                self.line(out, f, "leave", a["member_id"], coord, "consumer poll timeout has expired.", level="INFO")
        elif f.key == "leave":
            self.line(out, f, "leave", a["member_id"], node(a["broker"]), a["reason"])
        elif f.key == "coordinator_lost":
            if era == "0.10":
                self.line(out, f, "coordinator_lost", node(a["broker"]), g, prefixed=False)
            else:
                self.line(out, f, "coordinator_lost", node(a["broker"]), f"error response {a['cause']}", "false")
        elif f.key == "commit_failed_coordinator":
            for tp, off in a["offsets"].items():
                if era == "0.10":
                    self.line(out, f, "commit_failed_partition", g, tp, off, ERROR_TEXT["NOT_COORDINATOR"],
                              level="ERROR")
                else:
                    self.line(out, f, "commit_failed_partition", tp, off, ERROR_TEXT["NOT_COORDINATOR"], level="WARN")
        elif f.key == "commit_failed":
            self._commit_failed(out, f)
        elif f.key == "metadata_changed":
            old = {**self.sim.sc.topics}
            new = {**old, a["topic"]: a["total"]}
            fmt = lambda d: "{" + ", ".join(f"{k}={v}" for k, v in sorted(d.items())) + "}"  # noqa: E731
            if era == "2.x":
                self.line(out, f, "metadata_changed", fmt(old), fmt(new))
            elif era != "0.10":
                self.line(out, f, "metadata_changed",
                          f"cached metadata has changed from {fmt(old)} at the beginning of the rebalance to {fmt(new)}")
        elif f.key == "join_failed":
            sent = generation_str(a["generation"], self.c.member_id, None)
            self.line(out, f, "join_failed", ERROR_TEXT.get(a["error"], a["error"]), sent)
        elif f.key == "sync_failed":
            sent = generation_str(a["generation"], a["member_id"], a["protocol"])
            if a["error"] == "REBALANCE_IN_PROGRESS":
                self.line(out, f, "sync_failed_rebalance", sent)
        elif f.key == "batch":
            self.batch_n += 1
            if f.level == "WARN" or self.batch_n % 12 == 1:
                out += noise.batch_line(self, f)
        elif f.key in ("gc_pause", "crash", "shutdown"):
            out += getattr(noise, f.key)(self, f)

    def _commit_failed(self, out: list[Rec], f: ClientFact) -> None:
        a, era = f.args, self.era
        if a["kind"] == "manual":
            if era not in ("0.10",) and a["error"] in ("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION"):
                self.line(out, f, "commit_failed_generation", generation_str(-1, "", None),
                          ERROR_TEXT[a["error"]], level="INFO")
            out += noise.commit_failed_exception(self, f, COMMIT_FAILED_MSG)
        else:
            name = "auto_commit_failed_sync" if a["sync"] else "auto_commit_failed_async"
            if era == "0.10":
                self.line(out, f, name, offsets_map(a["offsets"], era), self.group, COMMIT_FAILED_MSG,
                          level="WARN", prefixed=False)
            else:
                self.line(out, f, name, offsets_map(a["offsets"], era), COMMIT_FAILED_MSG, level="WARN")


class BrokerRenderer:
    def __init__(self, sim: Simulation) -> None:
        self.sim, self.sc = sim, sim.sc
        self.era = "3.x" if sim.sc.broker_version == "4.x" else sim.sc.broker_version
        self.group = sim.sc.group_id
        self.p = offsets_partition(self.group)
        self.epoch = 11

    def coordinator_at(self, ms: int) -> int:
        for c in reversed(self.sim.coordinator_log):
            if ms >= c["from_ms"] - 100:
                return c["broker"]
        return self.sim.coordinator_log[0]["broker"]

    def line(self, out: dict[int, list[Rec]], broker: int, ts: int, name: str, *args: object) -> None:
        t = BROKER[name].get(self.era)
        if t is None:
            return
        logger, tmpl = t
        if logger.endswith("GroupCoordinator"):
            prefix = f"[GroupCoordinator {broker}]: "
        elif logger.endswith("GroupMetadataManager"):
            prefix = (f"[Group Metadata Manager on Broker {broker}]: " if self.era == "0.10"
                      else f"[GroupMetadataManager brokerId={broker}] ")
        else:
            prefix = ""
        out.setdefault(broker, []).append(Rec(ts, "INFO", "", logger, prefix + fill(tmpl, *args)))

    def reason(self, cause: dict[str, Any]) -> str:
        k, mid, new = cause.get("kind"), cause.get("member_id"), self.era == "3.x"
        client = f"; client reason: {cause.get('detail') or 'not provided'}" if new else ""
        if k == "member_joined":
            iid = cause.get("instance_id")
            return f"Adding new member {mid} with group instance id {f'Some({iid})' if iid else 'None'}{client}"
        if k == "leader_rejoin" or (k in ("metadata_or_subscription_change", "cooperative_follow_up")
                                    and cause.get("leader")):
            return f"{'Leader' if new else 'leader'} {mid} re-joining group during Stable{client}"
        if k in ("metadata_or_subscription_change", "cooperative_follow_up"):
            return f"Updating metadata for member {mid} during Stable{client}"
        if k in ("member_left", "poll_timeout"):
            return f"removing member {mid} on LeaveGroup{client}"
        if k == "session_expiry":
            return f"removing member {mid} on heartbeat expiration"
        return "Removing member(s) that did not sync in time"

    def records(self) -> dict[int, list[Rec]]:
        out: dict[int, list[Rec]] = {}
        g, p = self.group, self.p
        for f in self.sim.driver.facts:
            b = self.coordinator_at(f.ts)
            a = f.args
            if f.key == "member_id_created":
                self.line(out, b, f.ts, "member_id_created", g, a["state"], a["member_id"])
            elif f.key == "prepare_rebalance":
                if self.era == "0.10":
                    self.line(out, b, f.ts, "prepare_rebalance", g, a["old_generation"])
                else:
                    self.line(out, b, f.ts, "prepare_rebalance", g, a["state"], a["old_generation"],
                              "__consumer_offsets", p, self.reason(a["cause"]))
            elif f.key == "member_failed":
                self.line(out, b, f.ts, "member_failed", a["member_id"], g)
            elif f.key == "member_left":
                if self.era == "2.x":
                    iid = a["instance_id"]
                    self.line(out, b, f.ts, "member_left", iid if iid else "None", a["member_id"], g)
                else:
                    self.line(out, b, f.ts, "member_left", a["member_id"], g, a["reason"])
            elif f.key == "stabilized":
                if self.era == "0.10":
                    self.line(out, b, f.ts, "stabilized", g, a["generation"])
                else:
                    self.line(out, b, f.ts, "stabilized", g, a["generation"], "__consumer_offsets", p, a["members"])
            elif f.key == "assignment_received":
                if self.era == "0.10":
                    self.line(out, b, f.ts, "assignment_received", g, a["generation"])
                elif self.era == "2.x":
                    self.line(out, b, f.ts, "assignment_received", g, a["generation"], a["members"], a["static"])
                else:
                    self.line(out, b, f.ts, "assignment_received", a["leader"], g, a["generation"], a["members"],
                              a["static"])
            elif f.key == "group_empty":
                self.line(out, b, f.ts, "group_empty", g, a["generation"], "__consumer_offsets", p)
            elif f.key == "static_replaced":
                self.line(out, b, f.ts, "static_replaced", a["instance_id"], g, a["state"], a["old"])
                self.line(out, b, f.ts, "static_no_rebalance")
            elif f.key == "static_added":
                self.line(out, b, f.ts, "static_added", a["instance_id"], g, a["state"], a["member_id"])
            elif f.key == "coordinator_resigned":
                tp = f"__consumer_offsets-{p}"
                self.line(out, a["broker"], f.ts, "resigned", p, self.epoch)
                self.line(out, a["broker"], f.ts + 1, "schedule_unload", tp)
                gen = self.sim.driver.core.snapshot(g)["generation"]
                self.line(out, a["broker"], f.ts + 3, "unloading", g, gen)
                self.line(out, a["broker"], f.ts + 4, "finished_unload", tp, self.epoch, len(self.sim.committed), 1)
            elif f.key == "coordinator_elected":
                self.epoch += 1
                tp = f"__consumer_offsets-{p}"
                self.line(out, a["broker"], f.ts, "elected", p, self.epoch)
                self.line(out, a["broker"], f.ts + 1, "schedule_load", tp, self.epoch)
                snap = a["snapshot"]
                for mid in snap["members"]:
                    self.line(out, a["broker"], f.ts + 30, "loaded_member", mid, g, snap["generation"])
                self.line(out, a["broker"], f.ts + 31, "loading", g, snap["generation"])
                self.line(out, a["broker"], f.ts + 32, "finished_load", tp, 31, self.epoch, 1)
        return out


def render_dump(sim: Simulation, fmt: str) -> list[str]:
    """__consumer_offsets records of the group: offset commits and group metadata, in log order."""
    sc, g = sim.sc, sim.sc.group_id
    recs: list[tuple[int, str, Any]] = [(c["ts"], "offset", c) for c in sim.commits]
    for gen in sim.driver.generations:
        if gen.stabilized_ms is not None:
            recs.append((gen.stabilized_ms, "group", gen))
        elif not gen.members:
            recs.append((gen.joined_ms or 0, "group", gen))
    recs.sort(key=lambda r: r[0])
    p = offsets_partition(g)
    lines: list[str] = []
    base = 40000 + (sc.seed % 1000) * 7
    if fmt.startswith("dump_log"):
        lines += [f"Dumping /var/lib/kafka/data/__consumer_offsets-{p}/00000000000000{base:06d}.log",
                  f"Log starting offset: {base}"]
    pos = 0
    entries: list[tuple[int, Any, str, str]] = []
    for i, (ts, kind, r) in enumerate(recs):
        abs_ts = sc.epoch_ms + ts
        if kind == "offset":
            t, _, part = r["partition"].rpartition("-")
            if fmt == "formatter_old":
                lines.append(f"[{g},{t},{part}]::[OffsetMetadata[{r['offset']},NO_METADATA],CommitTime {abs_ts},"
                             f"ExpirationTime {abs_ts + 86400000}]")
                continue
            if fmt == "formatter":
                lines.append(f"[{g},{t},{part}]::OffsetAndMetadata(offset={r['offset']}, leaderEpoch=Optional.empty, "
                             f"metadata=, commitTimestamp={abs_ts}, expireTimestamp=None)")
                continue
            if fmt == "dump_log_json":
                key = json.dumps({"type": "1", "data": {"group": g, "topic": t, "partition": int(part)}},
                                 separators=(",", ":"))
                payload = json.dumps({"version": "3", "data": {"offset": r["offset"], "leaderEpoch": -1,
                                                               "metadata": "", "commitTimestamp": abs_ts}},
                                     separators=(",", ":"))
            else:
                key = f"offset_commit::group={g},partition={r['partition']}"
                payload = f"offset={r['offset']}"
        else:
            if fmt.startswith("formatter"):
                continue  # the offsets formatter skips group metadata records
            members = r.members
            if fmt == "dump_log_json":
                key = json.dumps({"type": "2", "data": {"group": g}}, separators=(",", ":"))
                mem = [{"memberId": m["member_id"], "groupInstanceId": m["instance_id"], "clientId": m["client_id"],
                        "clientHost": "/" + m["host"], "rebalanceTimeout": m["rebalance_ms"],
                        "sessionTimeout": m["session_ms"],
                        "subscription": {"topics": sorted(sc.topics), "userData": None, "ownedPartitions": [],
                                         "generationId": r.generation - 1, "rackId": None},
                        "assignment": {"assignedPartitions": _by_topic(r.assignment.get(m["member_id"], [])),
                                       "userData": None}} for m in members]
                payload = json.dumps({"version": "3", "data": {
                    "protocolType": "consumer", "generation": r.generation, "protocol": r.protocol,
                    "leader": r.leader, "currentStateTimestamp": abs_ts, "members": mem}}, separators=(",", ":"))
            else:
                key = f"group_metadata::group={g}"
                assignment = ", ".join(f"{m['member_id']}=[{', '.join(r.assignment.get(m['member_id'], []))}]"
                                       for m in members)
                proto = f'"{r.protocol}"' if r.protocol else "null"
                payload = (f'{{"protocolType":"consumer","protocol":{proto},"generationId":{r.generation},'
                           f'"assignment":"{{{assignment}}}"}}')
        entries.append((abs_ts, (ts, kind, r.get("member_id") if kind == "offset" else i), key, payload))
    # one OffsetCommit request is one record batch (all its partitions); a group record is its own batch
    j = 0
    off = base
    while j < len(entries):
        k = j
        while k + 1 < len(entries) and entries[k + 1][1] == entries[j][1]:
            k += 1
        batch = entries[j:k + 1]
        sizes = [(len(e[2].encode()) // 2 + 4, len(e[3].encode()) // 2 + 6) for e in batch]
        size = sum(a + b + 12 for a, b in sizes) + 61
        abs_ts = batch[0][0]
        lines.append(f"baseOffset: {off} lastOffset: {off + len(batch) - 1} count: {len(batch)} baseSequence: -1 "
                     f"lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 11 isTransactional: "
                     f"false isControl: false deleteHorizonMs: OptionalLong.empty position: {pos} CreateTime: "
                     f"{abs_ts} size: {size} magic: 2 compresscodec: none crc: {(off * 2654435761) % 4294967296} "
                     f"isvalid: true")
        for n, ((_ts, _b, key, payload), (ks, vs)) in enumerate(zip(batch, sizes, strict=True)):
            lines.append(f"| offset: {off + n} CreateTime: {abs_ts} keySize: {ks} valueSize: {vs} sequence: -1 "
                         f"headerKeys: [] key: {key} payload: {payload}")
        off += len(batch)
        pos += size
        j = k + 1
    return lines


def _by_topic(parts: list[str]) -> list[dict[str, Any]]:
    out: dict[str, list[int]] = {}
    for tp in parts:
        t, _, p = tp.rpartition("-")
        out.setdefault(t, []).append(int(p))
    return [{"topic": t, "partitions": ps} for t, ps in sorted(out.items())]


def render_describe(sim: Simulation, snap: dict[str, Any]) -> list[str]:
    """kafka-consumer-groups --describe (ConsumerGroupCommand, 2.x-4.x column layout)."""
    g = sim.sc.group_id
    rows = snap["rows"]
    lines = [f"$ bin/kafka-consumer-groups.sh --bootstrap-server {broker_host(1)}:9092 --describe --group {g}", ""]
    if all(r["member_id"] is None for r in rows):
        lines += [f"Consumer group '{g}' has no active members.", ""]
    cells = [["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST",
              "CLIENT-ID"]]
    for r in rows:
        cur = "-" if r["committed"] is None else str(r["committed"])
        lag = "-" if r["committed"] is None else str(max(0, r["log_end"] - r["committed"]))
        cells.append([g, r["topic"], str(r["partition"]), cur, str(r["log_end"]), lag, r["member_id"] or "-",
                      "/" + r["host"] if r["host"] else "-", r["client_id"] or "-"])
    widths = [max(len(c[i]) for c in cells) for i in range(8)]
    widths = [max(w, m) for w, m in zip(widths, [15, 15, 10, 15, 15, 15, 15, 15], strict=True)]
    for c in cells:
        lines.append(" ".join(c[i].ljust(widths[i]) for i in range(8)) + " " + c[8])
    return lines


def broker_server_log(sim: Simulation, broker: int, recs: list[Rec], rng: Random) -> list[str]:
    recs = recs + noise.broker_noise(sim, broker, rng)
    skew = rng.randrange(-40, 40)
    recs.sort(key=lambda r: r.ms)
    out: list[str] = []
    for r in recs:
        ts = ts_log4j(sim.sc.epoch_ms + r.ms + skew)
        out.append(f"[{ts}] {r.level} {r.msg} ({r.logger})")
        if r.stack:
            out += r.stack
    return out


def client_log(sim: Simulation, host: str, rng: Random) -> list[str]:
    cr = ClientRenderer(sim, host, rng)
    recs = cr.records() + noise.client_noise(cr)
    order = sorted(range(len(recs)), key=lambda i: (recs[i].ms, i))
    lay = Layout(sim.sc.layout, pid=cr.pid, spring_boot=sim.sc.spring_boot)
    skew = sim.skew[host]
    out: list[str] = []
    for i in order:
        r = recs[i]
        out += lay.render(sim.sc.epoch_ms + r.ms + skew, r.level, r.thread, r.logger, r.msg, r.stack)
    return out


def file_text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def era_version(era: str) -> str:
    return ERA_VERSION[era]
