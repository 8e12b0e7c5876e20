"""Where a line came from when one file holds several processes' lines: `Event.extra["origin"]`.

Tools that merge several containers', hosts' or processes' logs into one stream write the origin of
each line on the line itself. The reader keeps it, normalised to one short string, so that the
replay can follow each origin as its own stream (pipeline/replay_rules/state.py `stream_namer`):

| shape | origin | source of the format |
|---|---|---|
| `kubectl logs --prefix` (also `--all-pods`, `-l`, `--all-containers`): `[pod/NAME/CONTAINER] line` | `pod/NAME/CONTAINER` | kubernetes/kubectl `pkg/cmd/logs/logs.go` `addPrefixIfNeeded`: the prefix `[pod/<name>/<container>] ` before every line (read at kubectl master dee3483a3; `--prefix` came with 1.17) |
| `stern` default output: `POD CONTAINER line`, `NAMESPACE POD CONTAINER line` with `--all-namespaces` or several `-n` (coloured on a terminal) | `pod/[NAMESPACE/]POD/CONTAINER` | stern/stern `cmd/cmd.go` `generateTemplate`: `{{color .PodColor .PodName}} {{color .ContainerColor .ContainerName}} {{.Message}}`, the namespace first when several are tailed (read at v1.25.0 and master 8a00e61) |
| `docker compose logs` / `docker-compose logs`: `SERVICE-1  \\| line` | `compose:SERVICE-1` | docker/compose `cmd/formatter/logs.go` `presenter.setPrefix`: the container name left-aligned in the width of the longest name + 1, then ` \\| ` (read at master f72979427; v1's `service_1  \\| ` the same shape) |
| JSON records of collectors: Fluent Bit / Fluentd kubernetes metadata (`kubernetes.pod_name`, `namespace_name`, `container_name`), Vector (`kubernetes.pod_name`, `pod_namespace`), Filebeat (`kubernetes.pod.name`, `kubernetes.namespace`, `kubernetes.container.name`), Google Cloud (`resource.labels.pod_name`, ...), stern `--output json` (`podName`, `namespace`, `containerName`) | `pod/[NS/]POD[/CONTAINER]` | fluent-bit `filter_kubernetes`, fluentd-kubernetes-metadata-filter, Vector `kubernetes_logs` source, Filebeat `add_kubernetes_metadata`, Cloud Logging `k8s_container` resource labels, stern `stern/tail_utils.go` `Log` JSON tags |
| docker's fluentd / gelf / journald logging drivers: `container_name` (`/name`), `_container_name`, `CONTAINER_NAME` | `container:NAME` | docker docs "Fluentd logging driver", "Graylog Extended Format logging driver", "Journald logging driver" (field names) |
| journald JSON export: `_HOSTNAME`, `_PID` | `host:H/pid:P` | systemd.journal-fields(7) trusted fields |
| JSON layouts: `host` / `hostname` / `HOSTNAME` / `host.name` / `host.hostname`, `pod` / `pod_name`, `pid` / `PID` / `process.pid` / `process_id` | `host:H`, `pod/P`, `pid:P` (joined with `/`) | GELF 1.1 `host`, ECS `host.name` / `process.pid`, Datadog `host`, logstash-logback-encoder `HOSTNAME` (context property) |
| a collector's tag holding the kubelet's container log name, `kube.var.log.containers.POD_NS_CONTAINER-ID.log` (Fluent Bit `stdout`, fluentd `out_file`) | `pod/NS/POD/CONTAINER` | kubernetes `pkg/kubelet/kuberuntime` `logSymlink`: `/var/log/containers/<pod>_<namespace>_<container>-<id>.log`; Fluent Bit / Fluentd `tail` input tags with the path's `/` as `.` |
| syslog RFC 3164 / journalctl short: `Mmm dd hh:mm:ss HOST APP[PID]: line`; RFC 5424: `<PRI>1 TIME HOST APP PROCID MSGID ...` | `host:HOST/pid:PID` | RFC 3164 4.1.2-4.1.3 (HOSTNAME, TAG `app[pid]:`), RFC 5424 6.2 (HOSTNAME, APP-NAME, PROCID), journalctl(1) `-o short` |
| Spring Boot's default console and file pattern: `2024-01-01 12:00:00.000  INFO 12345 --- [main] logger : msg` | `pid:12345` | spring-boot `DefaultLogbackConfiguration` / `logback/defaults.xml` `CONSOLE_LOG_PATTERN` and `FILE_LOG_PATTERN`: `${PID:- }` after the level (1.5-3.3: `${PID:- } --- [%t]`; 3.4-3.5: `${PID:-} --- [app] [%t]`; read at v1.5.0.RELEASE, v2.0.0.RELEASE, v2.4.0, v3.0.0, v3.4.0, v3.5.0) |

A line with none of these gets no origin (the key is absent). The origin is a label of the line, not a
fact about the group: two files may name the same origin differently (kubectl does not print the
namespace, stern may), which does not matter, since origins only tell apart the lines of one file.
"""

from __future__ import annotations

from typing import Any

from parsers.build_cache import compile_regex

KEY = "origin"  # the Event.extra key

# kubectl logs --prefix: "[pod/<name>/<container>] " (pkg/cmd/logs/logs.go addPrefixIfNeeded). Pod
# and container names are DNS-1123 names (lower case letters, digits, '-', '.'); kubectl prints the
# container name it read from the object reference's field path, empty when there is none
KUBECTL_PREFIX = compile_regex(r"\[pod/([a-z0-9][a-z0-9.\-]*)/([a-z0-9][a-z0-9.\-]*)?\] ")
# stern's default template: "<pod> <container> " or "<namespace> <pod> <container> " (colours are
# taken off before: layouts.ANSI). Each a DNS-1123 name with a letter in it (so never a date or a
# time of the line itself, "2024-03-01"); the third name only when a third is there. The line follows
# as written: a continuation line of a record keeps its TAB or space ("\tsession.timeout.ms = 10000")
STERN_PREFIX = compile_regex(
    r"(?:((?=[a-z0-9.\-]*[a-z])[a-z0-9][a-z0-9.\-]*) )?((?=[a-z0-9.\-]*[a-z])[a-z0-9][a-z0-9.\-]*) "
    r"((?=[a-z0-9.\-]*[a-z])[a-z0-9][a-z0-9.\-]*) (?=[\s\S])")
# docker compose "name  | " (cmd/formatter/logs.go setPrefix: "%-<width>s | "; v1 "name_1  | ")
COMPOSE_PREFIX = compile_regex(r"([\w.\-]+)\s*\| ")
# syslog headers before the application's text: RFC 3164 / journalctl short "Mmm dd hh:mm:ss HOST
# APP[PID]: " (also behind "<PRI>" and after an ISO time: journalctl -o short-iso, rsyslog's
# RFC3339 template), RFC 5424 "<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA " ("-" =
# nil; the structured data "-" or "[id k="v" ...]" elements, RFC 5424 section 6.3)
SYSLOG_3164 = compile_regex(
    r"(?:<\d{1,3}>)?(?:[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?"
    r"(?:Z|[+-]\d{2}:?\d{2})?) (?P<host>[\w.\-]+) (?P<app>[\w.\-/@]+)\[(?P<pid>\d+)\]: ")
SYSLOG_5424 = compile_regex(
    r"<\d{1,3}>1 \S+ (?P<host>[!-~]{1,255}) (?P<app>[!-~]{1,48}) (?P<pid>[!-~]{1,128}) [!-~]{1,32} "
    r"(?:(?:-|(?:\[(?:[^\]\\]|\\.)*\])+) )?")


# the kubelet's container log file name, /var/log/containers/<pod>_<namespace>_<container>-<container
# id>.log (kubernetes pkg/kubelet/kuberuntime logSymlink), which Fluent Bit's and Fluentd's tail inputs
# put in the record's tag ("kube.var.log.containers.orders-7d9f-x2x_default_app-0a1b.log")
CONTAINER_LOG = compile_regex(
    r"containers[./]([a-z0-9][a-z0-9.\-]*)_([a-z0-9][a-z0-9\-]*)_([a-z0-9][a-z0-9.\-]*)-[0-9a-f]{4,64}\.log")


def container_log(text: str) -> str | None:
    """The pod a kubelet container log file name in `text` (a collector's tag) names."""
    if "containers" not in text:
        return None
    m = CONTAINER_LOG.search(text)
    return pod(m.group(2), m.group(1), m.group(3)) if m is not None else None


def pod(namespace: Any, name: Any, container: Any) -> str | None:
    """`pod/[NS/]NAME[/CONTAINER]`, None without a pod name."""
    if not isinstance(name, str) or not name:
        return None
    parts = [namespace if isinstance(namespace, str) and namespace else None, name,
             container if isinstance(container, str) and container else None]
    return "pod/" + "/".join(p for p in parts if p)


def kubectl(m: Any) -> str:
    return f"pod/{m.group(1)}/{m.group(2) or ''}".rstrip("/")


def stern(m: Any) -> str:
    return pod(m.group(1), m.group(2), m.group(3)) or ""


def compose(m: Any) -> str:
    return "compose:" + m.group(1)


def host_pid(host: Any, pid: Any) -> str | None:
    """`host:H/pid:P` (either alone), None with neither; syslog's nil value "-" is none."""
    parts = []
    if isinstance(host, str | int) and not isinstance(host, bool) and str(host) not in ("", "-"):
        parts.append(f"host:{host}")
    if isinstance(pid, str | int) and not isinstance(pid, bool) and str(pid) not in ("", "-"):
        parts.append(f"pid:{pid}")
    return "/".join(parts) or None


def syslog_match(m: Any) -> str:
    """The origin a syslog header's match names (layouts.SYSLOG, SYSLOG_5424 as file wrappers)."""
    return host_pid(m["host"], m["pid"]) or ""


def syslog(text: str) -> str | None:
    """The origin in a syslog header at the start of `text` (RFC 5424, RFC 3164 / journalctl short)."""
    if not text:
        return None
    c = text[0]
    if c == "<":
        m = SYSLOG_5424.match(text)
        if m is not None:
            return host_pid(m["host"], m["pid"])
    elif not (c.isupper() or c.isdigit()):
        return None
    m = SYSLOG_3164.match(text)
    return host_pid(m["host"], m["pid"]) if m is not None else None


def _get(obj: dict, *path: str) -> Any:
    v: Any = obj
    for p in path:
        if not isinstance(v, dict):
            return None
        v = v.get(p)
    return v


# the top-level keys json_origin reads (a record with none of them is answered by one set operation)
_JSON_KEYS = frozenset({"kubernetes", "resource", "podName", "container_name", "_container_name", "CONTAINER_NAME",
                        "_HOSTNAME", "_PID", "pod", "pod_name", "hostname", "HOSTNAME", "host", "process", "pid", "PID",
                        "process_id"})


def json_origin(obj: dict) -> str | None:
    """The origin a JSON log record names (collector metadata first, then the layout's own fields)."""
    if _JSON_KEYS.isdisjoint(obj):
        return None
    k8s = obj.get("kubernetes")
    if isinstance(k8s, dict):
        name = k8s.get("pod_name") or _get(k8s, "pod", "name")
        ns = k8s.get("namespace_name") or k8s.get("pod_namespace") or k8s.get("namespace")
        cont = k8s.get("container_name") or _get(k8s, "container", "name")
        o = pod(ns, name, cont)
        if o:
            return o
    labels = _get(obj, "resource", "labels")
    if isinstance(labels, dict) and labels.get("pod_name"):
        return pod(labels.get("namespace_name"), labels.get("pod_name"), labels.get("container_name"))
    if obj.get("podName"):   # stern --output json
        return pod(obj.get("namespace"), obj.get("podName"), obj.get("containerName"))
    for key in ("container_name", "_container_name", "CONTAINER_NAME"):
        c = obj.get(key)
        if isinstance(c, str) and c.strip("/"):
            return "container:" + c.strip("/")
    if "_HOSTNAME" in obj or "_PID" in obj:   # journald
        return host_pid(obj.get("_HOSTNAME"), obj.get("_PID"))
    p = obj.get("pod") or obj.get("pod_name")
    host = obj.get("hostname") or obj.get("HOSTNAME")
    h = obj.get("host")
    if isinstance(h, dict):
        host = host or h.get("name") or h.get("hostname")
    elif h is not None:
        host = host or h
    proc = obj.get("process")
    pid = obj.get("pid") or obj.get("PID") or obj.get("process_id") or (
        proc.get("pid") if isinstance(proc, dict) else None)
    if isinstance(p, str) and p:
        o = "pod/" + p
        hp = host_pid(None, pid)
        return f"{o}/{hp}" if hp else o
    return host_pid(host, pid)
