"""Writes the corpus files (kept in git; this script documents how each was built and is not run
by the tests). Each file mirrors one logging setup's documented default output around the same
Kafka messages (their bare forms: BARE below); `<name>.expect.json` states what each line yields."""
import json
from pathlib import Path

HERE = Path(__file__).parent
J = "[Consumer clientId=consumer-orders-1, groupId=orders] Successfully joined group with generation Generation{generationId=12, memberId='consumer-orders-1-5f1c', protocol='range'}"
A = "[Consumer clientId=consumer-orders-1, groupId=orders] Adding newly assigned partitions: orders-0, orders-1"
P = "[GroupCoordinator 1]: Preparing to rebalance group orders in state PreparingRebalance with old generation 12 (__consumer_offsets-7) (reason: Adding new member consumer-orders-2-aa11 with group instance id None)"
R = "[Consumer clientId=consumer-orders-1, groupId=orders] Revoking previously assigned partitions [orders-0, orders-1]"
S = "[GroupCoordinator 1]: Stabilized group orders generation 13 (__consumer_offsets-7) with 2 members"
NOISE = "[Consumer clientId=consumer-orders-1, groupId=orders] Cluster ID: 5rTvKQpYS2uxw3Dmc9hXaA"
CC = "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"
GC = "kafka.coordinator.group.GroupCoordinator"
E = {
    "J": {"kind": "join_succeeded", "group_id": "orders", "member_id": "consumer-orders-1-5f1c", "generation": 12},
    "A": {"kind": "partitions_assigned", "group_id": "orders", "partitions": ["orders-0", "orders-1"]},
    "P": {"kind": "broker_rebalance_preparing", "group_id": "orders", "generation": 12},
    "R": {"kind": "partitions_revoked", "group_id": "orders", "partitions": ["orders-0", "orders-1"]},
    "S": {"kind": "broker_group_stabilized", "group_id": "orders", "generation": 13},
}
MSG = {"J": J, "A": A, "P": P, "R": R, "S": S}
LOGGER = {"J": CC, "A": CC, "P": GC, "R": CC, "S": GC}
SHORT = {"J": "o.a.k.c.c.i.ConsumerCoordinator", "A": "o.a.k.c.c.i.ConsumerCoordinator", "P": "k.c.g.GroupCoordinator",
         "R": "o.a.k.c.c.i.ConsumerCoordinator", "S": "k.c.g.GroupCoordinator"}
ORDER = "JAPRS"
SEC = ["10:00:00.123", "10:00:01.250", "10:00:02.004", "10:00:03.900", "10:00:04.010"]


def esc(s):
    return json.dumps(s)[1:-1]


def write(name, lines, expect):
    (HERE / f"{name}.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (HERE / f"{name}.expect.json").write_text(json.dumps(expect, indent=1) + "\n", encoding="utf-8")


def setup(name, render, ts_of=lambda i: f"2024-03-01T{SEC[i]}Z", noise=None, header=(), order=ORDER, event_at=0):
    """render(key, i) -> list of lines for message key at position i; the event is on the
    rendered line `event_at` (a record's first line, or the message line under a time line)."""
    lines = list(header)
    expect = []
    for i, k in enumerate(order):
        out = render(k, i)
        exp = dict(E[k], line=len(lines) + 1 + event_at)
        ts = ts_of(i)
        if ts is not None:
            exp["ts"] = ts
        expect.append(exp)
        lines.extend(out)
        if noise is not None and i == 1:
            lines.append(noise(i))
    write(name, lines, expect)


def c(t):  # "10:00:00.123" -> "10:00:00,123"
    return t.replace(".", ",")


# Log4j 2 PatternLayout "%d %p %c{1.} [%t] %m%n" (the manual's example), comma millis
setup("log4j2_pattern_manual", lambda k, i: [f"2024-03-01 {c(SEC[i])} INFO {SHORT[k]} [main] {MSG[k]}"],
      noise=lambda i: f"2024-03-01 {c(SEC[i])} INFO o.a.k.c.Metadata [main] {NOISE}")
# Log4j 2 "%d{ISO8601} [%t] %-5level %logger{36}:%L - %msg%n"
setup("log4j2_iso_line", lambda k, i: [f"2024-03-01T{c(SEC[i])} [kafka-coordinator-heartbeat-thread | orders] INFO  {SHORT[k]}:412 - {MSG[k]}"])
# Log4j 2 default configuration (no config file): "%d{HH:mm:ss.SSS} [%t] %-5level %logger{36} - %msg%n";
# no date anywhere: no ts (the time of day is kept in extra)
setup("log4j2_default_config", lambda k, i: [f"{SEC[i]} [main] INFO  {SHORT[k]} - {MSG[k]}"], ts_of=lambda i: None)
# Kafka's own log4j "[%d] %p %m (%c)%n" with the thread printed last ("[%d] %p %m (%c) [%t]%n")
setup("log4j_thread_last", lambda k, i: [f"[2024-03-01 {c(SEC[i])}] INFO {MSG[k]} ({LOGGER[k]}) [main]"])
# Log4j 1 "%d{ISO8601} %-5p %c{1}:%L - %m%n" (Class:line -)
setup("log4j1_class_line", lambda k, i: [f"2024-03-01 {c(SEC[i])} INFO  {LOGGER[k].rsplit('.', 1)[1]}:{300 + i} - {MSG[k]}"])
# Logback default "%d{HH:mm:ss.SSS} [%thread] %-5level %logger{36} - %msg%n" in a file whose first
# line (the broker's own log4j) gives the date: the date is taken from it (extra date_inferred)
setup("logback_default_time_only", lambda k, i: [f"{SEC[i]} [main] INFO  {SHORT[k]} - {MSG[k]}"],
      header=["[2024-03-01 09:59:58,000] INFO Kafka version: 3.6.1 (org.apache.kafka.common.utils.AppInfoParser)"])
# Spring Boot 2.x "%d{yyyy-MM-dd HH:mm:ss.SSS} %5p PID --- [%15.15t] %-40.40logger{39} : %m%n"
setup("spring_boot_2", lambda k, i: [f"2024-03-01 {SEC[i]}  INFO 4242 --- [ntainer#0-0-C-1] {SHORT[k]:<40} : {MSG[k]}"])
# Spring Boot 3.0-3.2 (ISO with offset)
setup("spring_boot_3", lambda k, i: [f"2024-03-01T{SEC[i]}+01:00  INFO 4242 --- [ntainer#0-0-C-1] {SHORT[k]:<40} : {MSG[k]}"],
      ts_of=lambda i: f"2024-03-01T{int(SEC[i][:2]) - 1:02d}{SEC[i][2:]}Z")
# Spring Boot 3.4 "%d  %5p PID --- [app] [%15.15t] %-40.40logger{39} : %m%n" plus a correlation id
setup("spring_boot_3_4", lambda k, i: [f"2024-03-01T{SEC[i]}Z  INFO 4242 --- [orders-app] [ntainer#0-0-C-1] [6f1c0a2b3c4d5e6f-0a1b2c3d4e5f6a7b] {SHORT[k]:<40} : {MSG[k]}"])
# Quarkus console "%d{yyyy-MM-dd HH:mm:ss,SSS} %-5p [%c{3.}] (%t) %s%e%n"
setup("quarkus", lambda k, i: [f"2024-03-01 {c(SEC[i])} INFO  [org.apa.kaf.cli.con.int.ConsumerCoordinator] (vert.x-kafka-consumer-thread-0) {MSG[k]}"])
# Micronaut logback.xml (colour off): "%d{HH:mm:ss.SSS} [%thread] %-5level %logger{36} - %msg%n" with a date pattern
setup("micronaut", lambda k, i: [f"2024-03-01 {SEC[i]} [pool-1-thread-1] INFO  {SHORT[k]} - {MSG[k]}"])
# java.util.logging SimpleFormatter default: two-line records, 12-hour clock
setup("jul_simpleformatter", lambda k, i: [f"Mar 01, 2024 {int(SEC[i][:2])}:{SEC[i][3:8]} AM {LOGGER[k]} onJoinComplete",
                                            f"INFO: {MSG[k]}"], ts_of=lambda i: f"2024-03-01T{SEC[i][:8]}.000Z")
# logstash-logback-encoder LogstashEncoder defaults
setup("logstash_logback_encoder", lambda k, i: [json.dumps({"@timestamp": f"2024-03-01T{SEC[i]}+00:00", "@version": "1", "message": MSG[k], "logger_name": LOGGER[k], "thread_name": "main", "level": "INFO", "level_value": 20000})])
# ECS logging (ecs-logging-java)
setup("ecs_json", lambda k, i: [json.dumps({"@timestamp": f"2024-03-01T{SEC[i]}Z", "log.level": "INFO", "message": MSG[k], "ecs.version": "1.2.0", "service.name": "orders", "process.thread.name": "main", "log.logger": LOGGER[k]})])
# docker json-file driver around Kafka's own log4j lines
setup("docker_json_file", lambda k, i: [json.dumps({"log": f"[2024-03-01 {c(SEC[i])}] INFO {MSG[k]} ({LOGGER[k]})\n", "stream": "stdout", "time": f"2024-03-01T{SEC[i]}456789Z"})])
# docker-compose v2 "service-1  | " prefix
setup("docker_compose", lambda k, i: [f"kafka-1  | [2024-03-01 {c(SEC[i])}] INFO {MSG[k]} ({LOGGER[k]})"])
# kubectl logs --timestamps --prefix
setup("kubectl_timestamps", lambda k, i: [f"[pod/orders-7d9f-x2x/app] 2024-03-01T{SEC[i]}456789Z 2024-03-01 {SEC[i]} [main] INFO  {SHORT[k]} - {MSG[k]}"])
# CRI container log on the node (/var/log/containers): "<RFC3339Nano> stdout F <line>"
setup("cri_container_log", lambda k, i: [f"2024-03-01T{SEC[i]}456789Z stdout F [2024-03-01 {c(SEC[i])}] INFO {MSG[k]} ({LOGGER[k]})"])
# journalctl default "short" output (year-less syslog time) around a log4j line without its own time
setup("journald_short", lambda k, i: [f"Mar 01 {SEC[i][:8]} kafka-0 kafka-server-start.sh[812]: INFO {MSG[k]} ({LOGGER[k]})"],
      ts_of=lambda i: None)
# journalctl -o json
setup("journald_json", lambda k, i: [json.dumps({"__REALTIME_TIMESTAMP": f"1709287{200 + i:03d}{SEC[i][9:]}000", "_HOSTNAME": "kafka-0", "SYSLOG_IDENTIFIER": "kafka-server-start.sh", "MESSAGE": f"INFO {MSG[k]} ({LOGGER[k]})"})])
# CloudWatch Logs Insights result copied as text: "<message>,<@timestamp>"
setup("cloudwatch_insights_copy", lambda k, i: [f"[2024-03-01 {c(SEC[i])}] INFO {MSG[k]} ({LOGGER[k]}),2024-03-01 {SEC[i][:8]}.999"])
# CloudWatch export (aws logs filter-log-events --output text): epoch ms TAB JSON of the structured log
setup("cloudwatch_epoch_tab_json", lambda k, i: [f"1709287{200 + i:03d}{SEC[i][9:]}\t" + json.dumps({"level": "INFO", "logger": LOGGER[k], "message": MSG[k]})])
# Datadog log explorer JSON export
setup("datadog_json", lambda k, i: [json.dumps({"date": f"2024-03-01T{SEC[i]}Z", "host": "i-0abc", "service": "orders", "status": "info", "message": MSG[k], "attributes": {"logger": {"name": LOGGER[k], "thread_name": "main"}}})])
# Datadog CSV export "Date,Host,Service,Message"
setup("datadog_csv", lambda k, i: ['"2024-03-01T{}Z","i-0abc","orders","{}"'.format(SEC[i], f"{MSG[k]}".replace('"', '""'))],
      header=['"Date","Host","Service","Message"'])
# Loki logcli default output "<ts> <labels> <line>"
setup("loki_logcli", lambda k, i: [f'2024-03-01T{SEC[i]}Z {{app="orders", pod="orders-1"}} 2024-03-01 {SEC[i]} [main] INFO  {SHORT[k]} - {MSG[k]}'])
# Kibana Discover CSV export (newest first), "@timestamp","host.name","message"
setup("kibana_csv_newest_first", lambda k, i: ['"Mar 1, 2024 @ {}","kafka-0","[2024-03-01 {}] INFO {} ({})"'.format(SEC[4 - i], c(SEC[4 - i]), MSG[k].replace('"', '""'), LOGGER[k])],
      header=['"@timestamp","host.name","message"'], order="SRPAJ", ts_of=lambda i: f"2024-03-01T{SEC[4 - i]}Z")
# Kibana document JSON (_source)
setup("kibana_json", lambda k, i: [json.dumps({"_index": "logs", "_id": f"x{i}", "_source": {"@timestamp": f"2024-03-01T{SEC[i]}Z", "message": f"{MSG[k]}", "log": {"logger": LOGGER[k]}}})])
# Kibana: time on a line of its own (copied from the table), the message on the next
setup("kibana_time_above", lambda k, i: [f"Mar 1, 2024 @ {SEC[i]}", f"INFO {MSG[k]}"], event_at=1)
# Splunk CSV export "_time","host","source","_raw"
setup("splunk_csv", lambda k, i: ['"2024-03-01T{}+0000","kafka-0","/var/log/kafka/server.log","[2024-03-01 {}] INFO {} ({})"'.format(SEC[i], c(SEC[i]), MSG[k].replace('"', '""'), LOGGER[k])],
      header=['"_time","host","source","_raw"'])
# Splunk JSON export (one {"result": ...} per line)
setup("splunk_json", lambda k, i: [json.dumps({"preview": False, "offset": i, "result": {"_time": f"2024-03-01T{SEC[i]}+00:00", "host": "kafka-0", "_raw": f"{MSG[k]} ({LOGGER[k]})"}})])
# grep -n and grep -H over Kafka's log4j
setup("grep_n_h", lambda k, i: [(f"logs/server.log:{120 + i}:" if i % 2 else f"{120 + i}:") + f"[2024-03-01 {c(SEC[i])}] INFO {MSG[k]} ({LOGGER[k]})"])
# a GitHub issue / chat paste: quote markers, bold, inline code, leading spaces
setup("chat_issue_paste", lambda k, i: [[f"> [2024-03-01 {c(SEC[i])}] INFO {MSG[k]} ({LOGGER[k]})",
                                          f"**[2024-03-01 {c(SEC[i])}] INFO {MSG[k]} ({LOGGER[k]})**",
                                          f"`[2024-03-01 {c(SEC[i])}] INFO {MSG[k]} ({LOGGER[k]})`",
                                          f"    [2024-03-01 {c(SEC[i])}] INFO {MSG[k]} ({LOGGER[k]})",
                                          f"> > [2024-03-01 {c(SEC[i])}] INFO {MSG[k]} ({LOGGER[k]})"][i]])
# a Markdown pipe table | time | level | message |
setup("pipe_table", lambda k, i: [f"| 2024-03-01 {SEC[i]} | INFO | {MSG[k]} |"], header=["| time | level | message |", "|---|---|---|"])
# Logstash's own log format "[%d{ISO8601}][%-5p][%-25c]%notEmpty{[%X{pipeline.id}]}%notEmpty{[%X{plugin.id}]} %m%n"
setup("logstash_own", lambda k, i: [f"[2024-03-01T{c(SEC[i])}][INFO ][{LOGGER[k]}][main][kafka-input-1] {MSG[k]}"])
# Kafka Connect "[%d] %p %X{connector.context}%m (%c:%L)%n": "[name|task-0] " before the LogContext
setup("connect_task_context", lambda k, i: [f"[2024-03-01 {c(SEC[i])}] INFO [orders-sink|task-0] {MSG[k]} ({LOGGER[k]}:{300 + i})"])
# MDC after the message: "%d %-5p [%t] %c - %m - %X%n"
setup("mdc_suffix", lambda k, i: [f"2024-03-01 {c(SEC[i])} INFO  [main] {SHORT[k]} - {MSG[k]} - app=orders, clusterId=kc-1"])
# (File.java:123) location after the message: "%d %p %m (%F:%L)%n"
setup("file_line_suffix", lambda k, i: [f"2024-03-01 {c(SEC[i])} INFO {MSG[k]} (ConsumerCoordinator.java:{300 + i})"])
# syslog/rsyslog forwarded: "<ts> host app: <logback line>"
setup("syslog_rfc3339", lambda k, i: [f"2024-03-01T{SEC[i]}+00:00 kafka-0 orders[812]: {SHORT[k]} - {MSG[k]}"])
# epoch seconds first (collector output) and a 12-digit ms number whose first digit the paste cut
setup("epoch_prefix", lambda k, i: [f"{f'1709287{200 + i:03d}.{SEC[i][9:]}' if i % 2 else f'709287{200 + i:03d}{SEC[i][9:]}'} INFO {MSG[k]}"],
      header=["1709287199.000 INFO starting"], ts_of=lambda i: f"2024-03-01T10:00:{i:02d}.{SEC[i][9:]}Z")
