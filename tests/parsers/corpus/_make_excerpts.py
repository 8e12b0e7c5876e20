"""Writes the red-team excerpts (session 15, branch redteam; kept in git, not run by the tests):
one file per logging setup or collector the first corpus (_make.py) lacks, each a realistic
sequence of consumer-group coordination in the Kafka wordings of one version (3.7.0, 2.2.2,
0.10.2.1: AbstractCoordinator, ConsumerCoordinator, ConsumerRebalanceListenerInvoker,
ConsumerUtils at that tag), with application noise lines and stack traces between them.
`<name>.expect.json` states each coordinator line's kind, group, member, generation, partitions
and time (UTC); tests/parsers/test_corpus.py requires exactly those events and no other."""
import datetime as dt
import json
from pathlib import Path

OUT = Path(__file__).parent
UTC = dt.UTC
CC = "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"
AC = "org.apache.kafka.clients.consumer.internals.AbstractCoordinator"
RLI = "org.apache.kafka.clients.consumer.internals.ConsumerRebalanceListenerInvoker"
CU = "org.apache.kafka.clients.consumer.internals.ConsumerUtils"
P = "[Consumer clientId=consumer-orders-1, groupId=orders] "
MID = "consumer-orders-1-3b6f0c2e-1d7a-4c55-9a51-0e5c7b1f2d11"
G7 = f"Generation{{generationId=7, memberId='{MID}', protocol='range'}}"
COORD = "kafka-1:9092 (id: 2147483646 rack: null)"
PARTS = ["orders-0", "orders-1", "orders-2"]
# Kafka 3.7.0 wordings (AbstractCoordinator, ConsumerCoordinator, ConsumerRebalanceListenerInvoker, ConsumerUtils)
M3 = [
 ("INFO", AC, P + f"Discovered group coordinator {COORD}", dict(kind="coordinator_discovered", group_id="orders")),
 ("INFO", AC, P + "(Re-)joining group", dict(kind="join_started", group_id="orders")),
 ("INFO", AC, P + f"Request joining group due to: need to re-join with the given member-id: {MID}", dict(kind="join_started", group_id="orders")),
 ("INFO", AC, P + f"Successfully joined group with generation {G7}", dict(kind="join_succeeded", group_id="orders", member_id=MID, generation=7)),
 ("INFO", CC, P + f"Finished assignment for group at generation 7: {{{MID}=Assignment(partitions=[orders-0, orders-1, orders-2])}}", dict(kind="assignment_received", group_id="orders", generation=7, partitions=PARTS)),
 ("INFO", AC, P + f"Successfully synced group in generation {G7}", dict(kind="sync_succeeded", group_id="orders", member_id=MID, generation=7)),
 ("INFO", RLI, P + "Adding newly assigned partitions: orders-0, orders-1, orders-2", dict(kind="partitions_assigned", group_id="orders", partitions=PARTS)),
 ("INFO", CU, P + "Setting offset for partition orders-0 to the committed offset FetchPosition{offset=1042, offsetEpoch=Optional[3], currentLeader=LeaderAndEpoch{leader=Optional[kafka-1:9092 (id: 1 rack: null)], epoch=3}}", dict(kind="offset_fetched", group_id="orders", partitions=["orders-0"])),
 ("INFO", CC, P + "Found no committed offset for partition orders-2", dict(kind="no_committed_offset", group_id="orders", partitions=["orders-2"])),
 ("WARN", AC, P + "consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time processing messages. You can address this either by increasing max.poll.interval.ms or by reducing the maximum size of batches returned in poll() with max.poll.records.", dict(kind="poll_timeout", group_id="orders")),
 ("INFO", AC, P + f"Member {MID} sending LeaveGroup request to coordinator {COORD} due to consumer poll timeout has expired.", dict(kind="poll_timeout", group_id="orders", member_id=MID)),
 ("INFO", AC, P + f"Attempt to heartbeat with {G7} and group instance id Optional.empty failed due to UNKNOWN_MEMBER_ID, resetting generation", dict(kind="heartbeat_failed", group_id="orders", member_id=MID, generation=7)),
 ("INFO", AC, P + "Resetting generation and member id due to: encountered UNKNOWN_MEMBER_ID from HEARTBEAT response", dict(kind="generation_reset", group_id="orders")),
 ("INFO", RLI, P + "Lost previously assigned partitions orders-0, orders-1, orders-2", dict(kind="partitions_lost", group_id="orders", partitions=PARTS)),
 ("ERROR", CC, P + "Offset commit failed on partition orders-1 at offset 1050: The coordinator is not aware of this member.", dict(kind="offset_commit_failed", group_id="orders", partitions=["orders-1"])),
 ("INFO", AC, P + f"Group coordinator {COORD} is unavailable or invalid due to cause: coordinator unavailable. isDisconnected: true. Rediscovery will be attempted.", dict(kind="coordinator_lost", group_id="orders")),
 ("INFO", AC, P + "Attempt to heartbeat failed since group is rebalancing", dict(kind="heartbeat_failed", group_id="orders")),
 ("INFO", RLI, P + "Revoke previously assigned partitions orders-0, orders-1, orders-2", dict(kind="partitions_revoked", group_id="orders", partitions=PARTS)),
 ("INFO", AC, P + f"Member {MID} sending LeaveGroup request to coordinator {COORD} due to the consumer is being closed", dict(kind="leave_group", group_id="orders", member_id=MID)),
]
# Kafka 0.10.2.1 wordings (no LogContext prefix; the group inside the text)
M010 = [
 ("INFO", AC, f"Discovered coordinator {COORD} for group orders.", dict(kind="coordinator_discovered", group_id="orders")),
 ("INFO", CC, "Revoking previously assigned partitions [orders-0, orders-1] for group orders", dict(kind="partitions_revoked", group_id="orders", partitions=["orders-0", "orders-1"])),
 ("INFO", AC, "(Re-)joining group orders", dict(kind="join_started", group_id="orders")),
 ("INFO", AC, "Successfully joined group orders with generation 5", dict(kind="join_succeeded", group_id="orders", generation=5)),
 ("INFO", CC, "Setting newly assigned partitions [orders-0, orders-1] for group orders", dict(kind="partitions_assigned", group_id="orders", partitions=["orders-0", "orders-1"])),
 ("INFO", AC, f"Marking the coordinator {COORD} dead for group orders", dict(kind="coordinator_lost", group_id="orders")),
 ("ERROR", CC, "Group orders failed to commit partition orders-1 at offset 1050: The coordinator is not aware of this member.", dict(kind="offset_commit_failed", group_id="orders", partitions=["orders-1"])),
]
NOISE = [("INFO", "org.apache.kafka.common.utils.AppInfoParser", "Kafka version: 3.7.0"),
         ("INFO", "com.example.orders.OrderListener", "processed 500 orders in 1203 ms")]
TRACE = ["org.apache.kafka.clients.consumer.CommitFailedException: Offset commit cannot be completed since the consumer is not part of an active group for auto partition assignment; it is likely that the consumer was kicked out of the group.",
         "\tat org.apache.kafka.clients.consumer.internals.ConsumerCoordinator.sendOffsetCommitRequest(ConsumerCoordinator.java:1258)",
         "\tat org.apache.kafka.clients.consumer.internals.ConsumerCoordinator.commitOffsetsSync(ConsumerCoordinator.java:1133)",
         "\tat org.apache.kafka.clients.consumer.KafkaConsumer.commitSync(KafkaConsumer.java:1452)",
         "\tat com.example.orders.OrderListener.run(OrderListener.java:88)",
         "\tat java.base/java.lang.Thread.run(Thread.java:1583)"]
SHORT = {CC: "o.a.k.c.c.i.ConsumerCoordinator", AC: "o.a.k.c.c.i.AbstractCoordinator", RLI: "o.a.k.c.c.i.ConsumerRebalanceListenerInvoker", CU: "o.a.k.c.c.i.ConsumerUtils"}
def short(logger): return SHORT.get(logger) or ".".join(p[0] for p in logger.split(".")[:-1]) + "." + logger.split(".")[-1]
def c1(logger): return logger.rsplit(".", 1)[1]
BASE = dt.datetime(2024, 3, 1, 10, 0, 0, 123000, tzinfo=UTC)

def build(name, render, msgs=M3, noise_at=(2, 8), trace_after=None, header=(), ts=True, step=0.731, event_at=0, footer=(), whole_s=False, ts_of=None, noise=None,
          level_of=lambda lv: lv):
    noise = noise or NOISE
    lines = list(header)
    expect = []
    for i, (lvl, lg, text, e) in enumerate(msgs):
        t = BASE + dt.timedelta(seconds=i * step)
        if i in noise_at:
            nl, ng, nt = noise[noise_at.index(i) % len(noise)]
            lines.extend(render(t - dt.timedelta(milliseconds=5), nl, ng, nt, None))
        out = render(t, lvl, lg, text, e)
        x = dict(e, line=len(lines) + 1 + event_at)
        if level_of is not None:  # the level the line states (None: the setup writes none)
            x["level"] = level_of(lvl)
        if ts:
            x["ts"] = (ts_of(t) if ts_of else t.replace(microsecond=0) if whole_s else t).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        expect.append(x)
        lines.extend(out)
        if trace_after is not None and i == trace_after:  # the exception logged with the line, TAB frames
            lines.extend(TRACE)
    lines.extend(footer)
    data = "\n".join(lines) + "\n"
    (OUT / f"{name}.log").write_text(data, encoding="utf-8")
    (OUT / f"{name}.expect.json").write_text(json.dumps(expect, indent=1) + "\n")
    return data
def ms(t): return t.strftime("%H:%M:%S.") + f"{t.microsecond // 1000:03d}"
def cms(t): return ms(t).replace(".", ",")
def iso(t, z="Z"): return t.strftime("%Y-%m-%dT") + ms(t) + z
def loc(t, h):  # local wall time at offset h hours
    return t.astimezone(dt.timezone(dt.timedelta(hours=h)))
def ep(t): return t.timestamp()
SYSLOG_SEV = {"ERROR": 3, "WARN": 4, "INFO": 6, "DEBUG": 7}

# 1 log4j2 GelfLayout (log4j-layout-template-json's GelfLayout.json and log4j-core GelfLayout): timestamp epoch seconds, level syslog severity, _logger/_thread
build("log4j2_gelf", lambda t, lv, lg, m, e: [json.dumps({"version": "1.1", "host": "orders-0", "short_message": m, "timestamp": round(ep(t), 3), "level": SYSLOG_SEV[lv], "_logger": lg, "_thread": "kafka-coordinator-heartbeat-thread | orders"})])
# 2 log4j2 JsonTemplateLayout LogstashJsonEventLayoutV1.json: @timestamp "yyyy-MM-dd'T'HH:mm:ss.SSSZZZ" (+0100 style), logger_name, thread_name, mdc, exception
build("log4j2_logstash_v1", lambda t, lv, lg, m, e: [json.dumps({"mdc": {"app": "orders"}, "line_number": 1, "class": lg, "@version": 1, "source_host": "orders-0", "message": m, "thread_name": "main", "@timestamp": loc(t, 1).strftime("%Y-%m-%dT") + ms(loc(t, 1)) + "+0100", "level": lv, "file": c1(lg) + ".java", "method": "run", "logger_name": lg})])
# 3 logstash-logback-encoder with nested MDC (includeMdcKeyName + custom fields), stack_trace on the error line
build("logstash_encoder_mdc_stack", lambda t, lv, lg, m, e: [json.dumps({"@timestamp": loc(t, -5).isoformat(timespec="milliseconds"), "@version": "1", "message": m, "logger_name": lg, "thread_name": "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1", "level": lv, "level_value": {"INFO": 20000, "WARN": 30000, "ERROR": 40000}[lv], **({"stack_trace": "\n".join(TRACE)} if lv == "ERROR" else {}), "mdc": {"traceId": "65e1a2b3c4d5e6f7", "kafka": {"group": "orders"}}, "app": "orders"})])
# 4 Google Cloud Logging export (gcloud logging read --format=json as one entry per line): jsonPayload, severity, timestamp string with ns
build("gcp_logging_export", lambda t, lv, lg, m, e: [json.dumps({"insertId": f"1x{int(ep(t)*1000) % 99991}", "jsonPayload": {"message": m, "logger": lg, "thread": "main"}, "resource": {"type": "k8s_container", "labels": {"pod_name": "orders-7d9f-x2x", "container_name": "app"}}, "timestamp": t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond:06d}" + "421Z", "severity": {"WARN": "WARNING"}.get(lv, lv), "logName": "projects/p/logs/stdout", "receiveTimestamp": "2024-03-01T10:00:30.000000001Z"})], level_of=lambda lv: {"WARN": "WARNING"}.get(lv, lv))
# 5 Google structured logging on stdout: timestamp object {seconds,nanos}, severity, logging.googleapis.com/* keys
build("gcp_structured_stdout", lambda t, lv, lg, m, e: [json.dumps({"severity": {"WARN": "WARNING"}.get(lv, lv), "message": m, "timestamp": {"seconds": int(ep(t)), "nanos": t.microsecond * 1000}, "logging.googleapis.com/sourceLocation": {"file": c1(lg) + ".java", "function": lg + ".run"}, "logger": lg})], level_of=lambda lv: {"WARN": "WARNING"}.get(lv, lv))
# 6 Spring Cloud GCP StackdriverJsonLayout: timestampSeconds + timestampNanos
build("gcp_stackdriver_layout", lambda t, lv, lg, m, e: [json.dumps({"timestampSeconds": int(ep(t)), "timestampNanos": t.microsecond * 1000, "severity": {"WARN": "WARNING"}.get(lv, lv), "thread": "main", "logger": lg, "message": m, "context": "default"})], level_of=lambda lv: {"WARN": "WARNING"}.get(lv, lv))
# 7 Dropwizard default "%-5p [%d{ISO8601,UTC}] %c: %m%n%rEx"
build("dropwizard_default", lambda t, lv, lg, m, e: [f"{lv:<5} [{t.strftime('%Y-%m-%d')} {cms(t)}] {lg}: {m}"], trace_after=14)
# 8 Flink log4j-console.properties "%d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n"
build("flink_taskmanager", lambda t, lv, lg, m, e: [f"{t.strftime('%Y-%m-%d')} {cms(t)} {lv:<5} {lg:<60} [] - {m}"])
# 9 yarn logs -applicationId: per-container headers, Spark log4j2 "%d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex"
build("yarn_aggregated_spark", lambda t, lv, lg, m, e: [f"{t.strftime('%y/%m/%d %H:%M:%S')} {lv} {c1(lg)}: {m}"],
      header=["Container: container_1709280000000_0042_01_000002 on worker-3.example.com_45454", "LogAggregationType: AGGREGATED", "=======================================================================================", "LogType:stderr", "LogLastModifiedTime:Fri Mar 01 10:05:00 +0000 2024", "LogLength:48213", "LogContents:"],
      footer=["", "End of LogType:stderr", "***********************************************************************"], whole_s=True)
# 10 journalctl -o short-iso-precise (systemd >= 250 writes +01:00) around a time-less "%p %m (%c)%n" pattern
build("journald_short_iso", lambda t, lv, lg, m, e: [f"{loc(t, 1).strftime('%Y-%m-%dT%H:%M:%S.')}{t.microsecond:06d}+01:00 orders-0 java[812]: {lv} {m} ({lg})"])
# 11 journalctl -o cat: message only, no time
build("journald_cat", lambda t, lv, lg, m, e: [f"{lv} {m} ({lg})"], ts=False)
# 12 RFC 5424 syslog (rsyslog RSYSLOG_SyslogProtocol23Format) with a log4j2 Syslog appender's message
build("syslog_rfc5424", lambda t, lv, lg, m, e: [f"<{8 + SYSLOG_SEV[lv]}>1 {loc(t, 1).isoformat(timespec='microseconds')} orders-0 orders 812 - - {lv} {short(lg)} - {m}"])
# 13 RFC 3164 (rsyslog forwarding, traditional format) with PRI
build("syslog_rfc3164_pri", lambda t, lv, lg, m, e: [f"<{8 + SYSLOG_SEV[lv]}>{t.strftime('%b')} {t.day:>2} {t.strftime('%H:%M:%S')} orders-0 orders[812]: {t.strftime('%Y-%m-%d')} {cms(t)} {lv:<5} [main] {short(lg)} - {m}"])
# 14 docker logs -t around Spring Boot 3 console
build("docker_logs_t_spring", lambda t, lv, lg, m, e: [f"{t.strftime('%Y-%m-%dT%H:%M:%S.')}{t.microsecond:06d}517Z {iso(loc(t, 1), '+01:00')} {lv:>5} 1 --- [orders] [ntainer#0-0-C-1] {short(lg):<40} : {m}"])
# 15 stern (pod container message), pod/container names coloured with ANSI
build("stern_ansi", lambda t, lv, lg, m, e: [f"\x1b[32morders-7d9f-x2x\x1b[0m \x1b[32mapp\x1b[0m {t.strftime('%Y-%m-%d')} {cms(t)} {lv:<5} [main] {short(lg)} - {m}"])
# 16 Spring Boot console with ANSI colours (%clr, spring.output.ansi.enabled=always)
COL = {"INFO": "32", "WARN": "33", "ERROR": "31"}
build("spring_boot_ansi", lambda t, lv, lg, m, e: [f"\x1b[2m{iso(t, 'Z')}\x1b[0;39m \x1b[{COL[lv]}m{lv:>5}\x1b[0;39m \x1b[35m4242\x1b[0;39m \x1b[2m---\x1b[0;39m \x1b[2m[orders] [ntainer#0-0-C-1]\x1b[0;39m \x1b[36m{short(lg):<40}\x1b[0;39m \x1b[2m:\x1b[0;39m {m}"])
# 17 Micronaut's generated logback.xml with colours "%cyan(%d{HH:mm:ss.SSS}) %gray([%thread]) %highlight(%-5level) %magenta(%logger{36}) - %msg%n"; a date from the first line
build("micronaut_ansi", lambda t, lv, lg, m, e: [f"\x1b[36m{ms(t)}\x1b[0;39m \x1b[1;30m[pool-1-thread-1]\x1b[0;39m \x1b[{'34' if lv == 'INFO' else COL[lv]}m{lv:<5}\x1b[0;39m \x1b[35m{short(lg)}\x1b[0;39m - {m}"],
      header=["\x1b[36m09:59:58.000\x1b[0;39m \x1b[1;30m[main]\x1b[0;39m \x1b[34mINFO \x1b[0;39m \x1b[35mio.micronaut.runtime.Micronaut\x1b[0;39m - Startup completed in 812ms. Server Running: http://orders-0:8080 (2024-03-01)"], ts=False)
# 18 Windows service log: BOM + CRLF, logback "%d{yyyy-MM-dd HH:mm:ss.SSS} [%thread] %-5level %logger{36} - %msg%n", a tab stack trace
d = build("windows_bom_crlf", lambda t, lv, lg, m, e: [f"{t.strftime('%Y-%m-%d')} {ms(t)} [main] {lv:<5} {short(lg)} - {m}"], trace_after=14)
(OUT / "windows_bom_crlf.log").write_bytes(b"\xef\xbb\xbf" + d.replace("\n", "\r\n").encode())
# 19 Graylog search result CSV export "timestamp","source","message"
build("graylog_csv", lambda t, lv, lg, m, e: ['"{}","orders-0","{}"'.format(iso(t), m.replace('"', '""'))], header=['"timestamp","source","message"'], level_of=None)
# 20 Azure Log Analytics (ContainerLogV2) CSV export: "TimeGenerated [UTC]","Computer","LogMessage"; US 12-hour time
build("azure_log_analytics_csv", lambda t, lv, lg, m, e: ['"{}/{}/{}, {}:{} {}","aks-node-0","{}"'.format(t.month, t.day, t.year, int(t.strftime('%I')), t.strftime('%M:%S.') + f"{t.microsecond // 1000:03d}", t.strftime('%p'), f"{iso(t)} {lv} [main] {lg} - {m}".replace('"', '""'))],
      header=['"TimeGenerated [UTC]","Computer","LogMessage"'])
# 21 Filebeat output in Elasticsearch (_source as ndjson): message is the raw Logback line in local +01:00 wall time without zone; @timestamp = event time UTC
build("filebeat_ndjson", lambda t, lv, lg, m, e: [json.dumps({"@timestamp": iso(t), "log": {"offset": 4096, "file": {"path": "/var/log/orders/app.log"}}, "message": f"{t.strftime('%Y-%m-%d')} {ms(t)} [main] {lv:<5} {short(lg)} - {m}", "input": {"type": "filestream"}, "host": {"name": "orders-0"}, "agent": {"type": "filebeat", "version": "8.12.0"}, "ecs": {"version": "8.0.0"}})])
# 22 Quarkus quarkus-logging-json default fields
build("quarkus_json", lambda t, lv, lg, m, e: [json.dumps({"timestamp": loc(t, 1).isoformat(timespec="milliseconds"), "sequence": 812, "loggerClassName": "org.slf4j.impl.Slf4jLogger", "loggerName": lg, "level": lv, "message": m, "threadName": "vert.x-kafka-consumer-thread-0", "threadId": 42, "mdc": {}, "ndc": "", "hostName": "orders-0", "processName": "quarkus-run.jar", "processId": 1})])
# 23 Kafka 0.10.2 wordings under Log4j 1 "%d{ISO8601} %-5p [%t] %c - %m%n" (no LogContext prefix)
build("kafka_010_log4j1", lambda t, lv, lg, m, e: [f"{t.strftime('%Y-%m-%d')} {cms(t)} {lv:<5} [pool-2-thread-1] {lg} - {m}"], msgs=M010, noise_at=(2,),
      noise=[("INFO", "org.apache.kafka.common.utils.AppInfoParser", "Kafka version : 0.10.2.1")])

# ---- batch 2 ----
P2 = "[Consumer clientId=consumer-1, groupId=orders] "
M22 = [  # Kafka 2.2.2 wordings (AbstractCoordinator, ConsumerCoordinator)
 ("INFO", AC, P2 + f"Discovered group coordinator {COORD}", dict(kind="coordinator_discovered", group_id="orders")),
 ("INFO", CC, P2 + "Revoking previously assigned partitions [orders-0, orders-1]", dict(kind="partitions_revoked", group_id="orders", partitions=["orders-0", "orders-1"])),
 ("INFO", AC, P2 + "(Re-)joining group", dict(kind="join_started", group_id="orders")),
 ("INFO", AC, P2 + "Successfully joined group with generation 5", dict(kind="join_succeeded", group_id="orders", generation=5)),
 ("INFO", CC, P2 + "Setting newly assigned partitions: orders-0, orders-1", dict(kind="partitions_assigned", group_id="orders", partitions=["orders-0", "orders-1"])),
 ("INFO", AC, P2 + "Attempt to heartbeat failed since generation 5 is not current", dict(kind="heartbeat_failed", group_id="orders", generation=5)),
 ("INFO", AC, P2 + "Attempt to heartbeat failed for since member id consumer-1-9a8b is not valid.", dict(kind="heartbeat_failed", group_id="orders", member_id="consumer-1-9a8b")),
 ("WARN", AC, P2 + "This member will leave the group because consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time processing messages. You can address this either by increasing max.poll.interval.ms or by reducing the maximum size of batches returned in poll() with max.poll.records.", dict(kind="poll_timeout", group_id="orders")),
 ("INFO", AC, P2 + f"Member consumer-1-9a8b sending LeaveGroup request to coordinator {COORD}", dict(kind="leave_group", group_id="orders", member_id="consumer-1-9a8b")),
 ("ERROR", CC, P2 + "Offset commit failed on partition orders-1 at offset 1050: The coordinator is not aware of this member.", dict(kind="offset_commit_failed", group_id="orders", partitions=["orders-1"])),
 ("INFO", AC, P2 + f"Group coordinator {COORD} is unavailable or invalid, will attempt rediscovery", dict(kind="coordinator_lost", group_id="orders")),
]
UPD = [P + "Updating assignment with", "\tAssigned partitions:                       [orders-0, orders-2]", "\tCurrent owned partitions:                  [orders-0, orders-1]", "\tAdded partitions (assigned - owned):       [orders-2]", "\tRevoked partitions (owned - assigned):     [orders-1]", ""]
M37C = [  # 3.7.0 cooperative rebalance, "Updating assignment with" a multi-line record (ConsumerCoordinator.java:382)
 ("INFO", AC, P + f"Successfully joined group with generation {G7}", dict(kind="join_succeeded", group_id="orders", member_id=MID, generation=7)),
 ("INFO", AC, P + f"Successfully synced group in generation {G7}", dict(kind="sync_succeeded", group_id="orders", member_id=MID, generation=7)),
 ("INFO", CC, "\n".join(UPD), dict(kind="assignment_received", group_id="orders", partitions=["orders-0", "orders-2"])),
 ("INFO", RLI, P + "Revoke previously assigned partitions orders-1", dict(kind="partitions_revoked", group_id="orders", partitions=["orders-1"])),
 ("INFO", AC, P + "Request joining group due to: need to revoke partitions [orders-1] as indicated by the current assignment and re-join", dict(kind="join_started", group_id="orders")),
 ("INFO", AC, P + "(Re-)joining group", dict(kind="join_started", group_id="orders")),
 ("INFO", AC, P + "Successfully joined group with generation " + G7.replace("=7", "=8"), dict(kind="join_succeeded", group_id="orders", member_id=MID, generation=8)),
 ("INFO", AC, P + "Successfully synced group in generation " + G7.replace("=7", "=8"), dict(kind="sync_succeeded", group_id="orders", member_id=MID, generation=8)),
 ("INFO", RLI, P + "Adding newly assigned partitions: orders-2", dict(kind="partitions_assigned", group_id="orders", partitions=["orders-2"])),
]
def k4(t, lv, lg, m):  # Kafka's own "[%d] %p %m (%c)%n"
    return f"[{t.strftime('%Y-%m-%d')} {cms(t)}] {lv} {m} ({lg})"
def sb(t, lv, lg, m):  # Spring Boot 3.x console, UTC
    return f"{iso(t)} {lv:>5} 7 --- [orders] [ntainer#0-0-C-1] {short(lg):<40} : {m}"
# 24 fluentd out_file (format out_file: "time<TAB>tag<TAB>json", time %Y-%m-%dT%H:%M:%S%z) around a docker json-file record
build("fluentd_out_file", lambda t, lv, lg, m, e: [f"{t.strftime('%Y-%m-%dT%H:%M:%S')}+0000\tkubernetes.var.log.containers.orders-7d9f-x2x_default_app-0a1b.log\t" + json.dumps({"log": sb(t, lv, lg, m) + "\n", "stream": "stdout", "docker": {"container_id": "0a1b"}, "kubernetes": {"pod_name": "orders-7d9f-x2x", "namespace_name": "default"}})])
# 25 Fluent Bit stdout output (msgpack printed: "[N] tag: [epoch.ns, {"k"=>"v"}]")
build("fluent_bit_stdout", lambda t, lv, lg, m, e: ['[{}] kube.var.log.containers.orders-7d9f-x2x_default_app-0a1b.log: [{:.9f}, {{"log"=>"{}", "stream"=>"stdout"}}]'.format(e and 0 or 1, ep(t), k4(t, lv, lg, m).replace('"', '\\"'))], msgs=M22)
# 26 heroku logs: "<RFC3339 µs> app[dyno]: <line>" around the app's "%-5p %c: %m%n" (no time of its own)
build("heroku_logs", lambda t, lv, lg, m, e: [f"{t.strftime('%Y-%m-%dT%H:%M:%S.')}{t.microsecond:06d}+00:00 app[worker.1]: {lv:<5} {lg}: {m}"], msgs=M22)
# 27 cf logs --recent: "   <ts> [APP/PROC/WEB/0] OUT <line>" (ts with a +hhmm zone, centiseconds)
build("cf_logs", lambda t, lv, lg, m, e: [f"   {loc(t, 1).strftime('%Y-%m-%dT%H:%M:%S.')}{t.microsecond // 10000:02d}+0100 [APP/PROC/WEB/0] {'ERR' if lv == 'ERROR' else 'OUT'} {sb(t, lv, lg, m)}"], ts_of=lambda t: t.replace(microsecond=t.microsecond // 10000 * 10000))  # the first time before the anchor: cf's (centiseconds)
# 28 CloudWatch console rows copied: "<local time with zone><TAB><message>" around Kafka's log4j in UTC
build("cloudwatch_console_copy", lambda t, lv, lg, m, e: [f"{iso(loc(t, 1), '+01:00')}\t{k4(t, lv, lg, m)}"], msgs=M22)
# 29 kubectl logs --prefix (no --timestamps) of a Spark executor: log4j2 "%d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex"
build("kubectl_prefix_spark", lambda t, lv, lg, m, e: [f"[pod/orders-job-exec-1/spark-kubernetes-executor] {t.strftime('%y/%m/%d %H:%M:%S')} {lv} {c1(lg)}: {m}"], msgs=M22, whole_s=True)
# 30 multi-line record (Updating assignment with + TAB lines) in Kafka's log4j layout
def k4ml(t, lv, lg, m, e):
    ls = m.split("\n")
    if len(ls) == 1:
        return [k4(t, lv, lg, m)]
    return [f"[{t.strftime('%Y-%m-%d')} {cms(t)}] {lv} {ls[0]}", *ls[1:-1], f"{ls[-1]} ({lg})"]
build("log4j_multiline_cooperative", k4ml, msgs=M37C)
# 31 the same record in logstash-logback-encoder JSON (the message holds the \n\t lines)
build("logstash_json_multiline", lambda t, lv, lg, m, e: [json.dumps({"@timestamp": iso(t), "@version": "1", "message": m, "logger_name": lg, "thread_name": "main", "level": lv, "level_value": 20000})], msgs=M37C)

# ---- batch 3: pretty JSON, multi-line CSV, day-first dates, zone names, Strimzi, grep colours, UTF-16, Date.toString ----
# jq-pretty JSON array of documents (Kibana "Inspect > Response" hits / jq . of an export): one field per line
def pretty(t, lv, lg, m, e):
    doc = {"@timestamp": iso(t), "log.level": lv, "message": m, "log.logger": lg}
    return json.dumps(doc, indent=2).split("\n")
build("jq_pretty_json", pretty)  # the event on the record's first line, "{"
# Splunk CSV export whose _raw holds a multi-line event (RFC 4180 quoted field over several lines)
def splunk_ml(t, lv, lg, m, e):
    raw = f"[{t.strftime('%Y-%m-%d')} {cms(t)}] {lv} {m} ({lg})"
    if lv == "ERROR":
        raw += "\n" + "\n".join(TRACE)
    out = '"{}","kafka-0","{}"'.format(iso(t, "+0000"), raw.replace('"', '""'))
    return out.split("\n")
build("splunk_csv_multiline", splunk_ml, header=['"_time","host","_raw"'])
# European logback "%d{dd.MM.yyyy HH:mm:ss.SSS} [%thread] %-5level %logger{36} - %msg%n"
build("logback_german_date", lambda t, lv, lg, m, e: [f"{t.strftime('%d.%m.%Y')} {ms(t)} [main] {lv:<5} {short(lg)} - {m}"])
# "%d{dd-MM-yyyy HH:mm:ss.SSS}"
build("logback_dd_mm_yyyy", lambda t, lv, lg, m, e: [f"{t.strftime('%d-%m-%Y')} {ms(t)} [main] {lv:<5} {short(lg)} - {m}"])
# zone abbreviation "%d{yyyy-MM-dd HH:mm:ss.SSS z}" in CET (+01:00)
build("log4j2_zone_abbrev", lambda t, lv, lg, m, e: [f"{loc(t, 1).strftime('%Y-%m-%d')} {ms(loc(t, 1))} CET {lv:<5} [main] {short(lg)} - {m}"])
# Strimzi Kafka Connect "%d{yyyy-MM-dd HH:mm:ss,SSS} %p %X{connector.context}%m (%c) [%t]%n"
PC = "[Consumer clientId=connector-consumer-orders-sink-0, groupId=connect-orders-sink] "
MC = [(lv, lg, m.replace(P, PC), {**e, "group_id": "connect-orders-sink"}) for lv, lg, m, e in M3[:12]]
build("strimzi_connect", lambda t, lv, lg, m, e: [f"{t.strftime('%Y-%m-%d')} {cms(t)} {lv} [orders-sink|task-0] {m} ({lg}) [task-thread-orders-sink-0]"], msgs=MC)
# grep --color=always output (ERE match highlighted with EL codes)
build("grep_color", lambda t, lv, lg, m, e: [f"[{t.strftime('%Y-%m-%d')} {cms(t)}] {lv} " + m.replace("groupId=orders", "\x1b[01;31m\x1b[KgroupId=orders\x1b[m\x1b[K") + f" ({lg})"])
# PowerShell 5 "kubectl logs pod > out.log": UTF-16 LE with BOM, CRLF
d = build("powershell_utf16", lambda t, lv, lg, m, e: [f"{iso(t)} {lv:>5} 1 --- [ntainer#0-0-C-1] {short(lg):<40} : {m}"])
(OUT / "powershell_utf16.log").write_bytes(d.replace("\n", "\r\n").encode("utf-16"))
# java.util.Date.toString in a custom pattern: "Fri Mar 01 10:00:00 UTC 2024"
build("java_date_tostring", lambda t, lv, lg, m, e: [f"{t.strftime('%a %b %d %H:%M:%S')} UTC {t.year} {lv} {lg} - {m}"], whole_s=True)
