"""More file shapes whose filtered reading (the ingest's: parsers/drop_gaps.py `filter_with_gaps`, the
Python twin of jvm/SplitScanner.java) must give the events `coordscope parse` gives (every line read):

- origin wrappers behind terminal colours: stern's default template colours the pod and container
  names (stern `cmd/cmd.go` generateTemplate: `{{color .PodColor .PodName}} {{color .ContainerColor
  .ContainerName}} {{.Message}}`, fatih/color's `ESC[<code>m ... ESC[0m`), `docker compose logs` on a
  terminal colours its prefix (docker/compose `cmd/formatter/logs.go` setPrefix: the colour function
  over `"%-<width>s | "`; `cmd/formatter/colors.go` ansiColor: `ESC[<code>m`, the text, `ESC[0m`; read at
  f72979427). The filter reads the origin behind the colour codes as the reader does (ANSI first).
- CRI node logs (the kubelet's container log: `<RFC3339Nano> <stream> <P|F> <text>`, kubernetes
  `pkg/kubelet/kuberuntime/logs/logs.go` parseCRILog; containerd splits a longer line at
  `max_container_log_line_size`, 16 KiB by default): a kept partial line's next line of the run is kept
  too, so the reader joins the application's line from all of its parts (reader._cri_joined).
- origins named inside JSON records (Fluent Bit's kubernetes filter, docker's fluentd driver,
  `journalctl -o json`): the filter's key of a record is the origin it names, the reader's own
  (drop_gaps.json_key, origin.json_origin), so a dropped record ends only its origin's open record.

On main (566cbc3) the coloured and JSON files' blocks kept only the settings before the first line of
another pod, and a CRI line split in two or more was read as parts that stand alone."""

from __future__ import annotations

import json
import random

import pytest

from parsers.drop_gaps import filter_with_gaps, gap_codes
from parsers.reader import is_candidate, parse_lines, sniff
from tests.parsers.test_ingest_gaps import PODS, _facts, app_line, merged

_STERN_COLOURS = ["91", "92", "93", "94", "95", "96"]   # fatih/color FgHi* (stern's pod colour list)


def stern_colour(pod: str, line: str) -> str:
    c = _STERN_COLOURS[PODS.index(pod) % 6 if pod in PODS else 5]
    return f"\x1b[{c}m{pod}\x1b[0m \x1b[3{c[1]}mapp\x1b[0m {line}"


def compose_colour(pod: str, line: str) -> str:
    width = max(len(p) for p in PODS) + 1
    code = str(31 + (PODS.index(pod) if pod in PODS else 5))
    return f"\x1b[{code}m{pod:<{width}} | \x1b[0m{line}"


COLOUR_SHAPES = {"stern-colour": (stern_colour, lambda p: f"pod/{p}/app"),
                 "compose-colour": (compose_colour, lambda p: f"compose:{p}")}


def both(lines: list[str]):
    fmt = sniff(lines)
    numbered = list(enumerate(lines, 1))
    whole = [o.event for o in parse_lines("m.log", numbered, fmt) if o.event is not None]
    pairs, codes = gap_codes(filter_with_gaps(numbered, fmt))
    outs = list(parse_lines("m.log", pairs, fmt, gaps=codes))
    assert [o.line_no for o in outs] == [n for n, _ in pairs]
    return whole, [o.event for o in outs if o.event is not None], fmt


def settings_of(evs) -> int:
    return sum(len(e.extra.get("settings", {})) for e in evs if e.kind == "client_config")


def _read_as_whole_with_every_config(lines, origin_of, n_pods):
    """The filtered lines read as the whole file, with every pod's ConsumerConfig block whole (8
    settings); returns the file's format for the shape's own checks."""
    whole, filtered, fmt = both(lines)
    assert sum(not is_candidate(x) for x in lines) >= 4
    assert _facts(filtered) == _facts(whole)
    configs = {e.extra["origin"]: e.extra["settings"] for e in filtered if e.kind == "client_config"}
    assert set(configs) == {origin_of(p) for p in PODS[:n_pods]}
    assert all(len(s) == 8 for s in configs.values())
    return fmt


def _own_error_ends_the_block(wrap, origin_of):
    """A pod's own non-candidate line ends its block in both readings (3 settings before it)."""
    whole, filtered, _fmt = both(merged(wrap, 3, 5, own_error=True))
    assert _facts(filtered) == _facts(whole)
    mine = [e for e in filtered if e.kind == "client_config" and e.extra["origin"] == origin_of(PODS[0])]
    assert len(mine) == 1 and len(mine[0].extra["settings"]) == 3


@pytest.mark.parametrize("shape", list(COLOUR_SHAPES))
@pytest.mark.parametrize("n_pods", [2, 4])
@pytest.mark.parametrize("seed", range(3))
def test_coloured_origin_wrappers_filtered_read_as_whole(shape, n_pods, seed):
    wrap, origin_of = COLOUR_SHAPES[shape]
    fmt = _read_as_whole_with_every_config(merged(wrap, n_pods, seed), origin_of, n_pods)
    assert fmt.wrappers[0] == "ansi" and fmt.wrappers[1] in ("stern", "compose")


@pytest.mark.parametrize("shape", list(COLOUR_SHAPES))
def test_coloured_own_error_ends_the_block_in_both_readings(shape):
    _own_error_ends_the_block(*COLOUR_SHAPES[shape])


# --- CRI partial lines ------------------------------------------------------------------------------

CRI_MAX = 16 * 1024   # containerd's max_container_log_line_size default


def cri_lines(text: str, ts: str, stream: str = "stdout", cut: int = CRI_MAX) -> list[str]:
    """The kubelet's CRI log lines of one application line: P parts of `cut` bytes, then F."""
    parts = [text[i:i + cut] for i in range(0, len(text), cut)] or [""]
    return [f"{ts} {stream} {'P' if k < len(parts) - 1 else 'F'} {p}" for k, p in enumerate(parts)]


def assigned_line(n: int, group: str = "orders") -> str:
    """ConsumerCoordinator's "Adding newly assigned partitions: ..." in Spring Boot's default console
    pattern (the logger before the message: the last part of a long line holds partitions only)."""
    parts = ", ".join(f"payments-events-{i}" for i in range(n))
    return (f"2025-02-03 04:05:07.200  INFO 1 --- [ntainer#0-0-C-1] o.a.k.c.c.internals.ConsumerCoordinator  : "
            f"[Consumer clientId=consumer-{group}-1, groupId={group}] Adding newly assigned partitions: {parts}")


def spring_line(rng: random.Random) -> str:
    return (f"2025-02-03 04:05:06.{rng.randint(100, 999)}  INFO 1 --- [nio-8080-exec-{rng.randint(1, 9)}] "
            f"c.e.api.RequestLog                       : Handled request {rng.randint(1, 10**6)} in {rng.randint(1, 99)} ms")


def cri_file(seed: int, n_long: int = 3) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    for k in range(n_long):
        for _ in range(rng.randint(1, 4)):
            out += cri_lines(spring_line(rng), f"2025-02-03T04:05:0{k}.{rng.randint(10**8, 10**9 - 1)}Z")
        # 900-2,500 partitions: a line of 2-3 parts, cut wherever the 16 KiB fall
        out += cri_lines(assigned_line(rng.randint(900, 2500), f"orders{k}"), f"2025-02-03T04:05:0{k}.123456789Z")
    out += cri_lines(spring_line(rng), "2025-02-03T04:05:09.000000001Z")
    return out


def _facts_p(evs) -> list[tuple]:
    return [(*f, len(e.raw), e.partitions) for f, e in zip(_facts(evs), evs, strict=True)]


@pytest.mark.parametrize("seed", range(4))
def test_cri_partial_lines_filtered_read_as_whole(seed):
    lines = cri_file(seed)
    assert any(" P " in x[:40] for x in lines)
    tails = [x for x in lines if " F " in x[:40] and not is_candidate(x) and "payments-events-" in x]
    assert tails   # the filter alone drops a last part (no candidate word in it)
    whole, filtered, fmt = both(lines)
    assert fmt.wrappers == ("k8s_ts",)
    assert _facts_p(filtered) == _facts_p(whole)
    got = [e for e in filtered if e.partitions]
    assert len(got) == 3 and all(len(e.partitions) >= 900 for e in got)


def test_cri_partial_of_another_stream_is_not_glued():
    """A stderr line between a stdout P part and its F part: parse ends the run (it stands as it is);
    the filter keeps what follows a kept partial line, the reader decides as with every line."""
    long = assigned_line(1500)
    p, f = cri_lines(long, "2025-02-03T04:05:07.123456789Z")[:2]
    lines = ["2025-02-03T04:05:06.000000001Z stdout F " + spring_line(random.Random(1)), p,
             "2025-02-03T04:05:07.200000000Z stderr F java.lang.IllegalStateException: closed", f,
             "2025-02-03T04:05:08.000000001Z stdout F " + spring_line(random.Random(2))]
    whole, filtered, _fmt = both(lines)
    assert _facts_p(filtered) == _facts_p(whole)


# --- origins named inside JSON records --------------------------------------------------------------

def _fluent_bit(pod: str, line: str) -> str:
    """Fluent Bit's tail input with its kubernetes filter, no multiline parser: a JSON record per line
    (fluent-bit filter_kubernetes: `kubernetes.pod_name`, `namespace_name`, `container_name`)."""
    return json.dumps({"log": line + "\n", "stream": "stdout", "time": "2025-02-03T04:05:06.789123456Z",
                       "kubernetes": {"pod_name": pod, "namespace_name": "prod", "container_name": "app",
                                      "labels": {"app": pod.split("-")[0]}}})


def _fluentd_docker(pod: str, line: str) -> str:
    """docker's fluentd logging driver: `container_name` with its leading "/" (docker docs, Fluentd
    logging driver), `source`, `log`."""
    return json.dumps({"container_id": "0a1b2c3d4e5f", "container_name": "/" + pod, "source": "stdout",
                       "log": line})


def _journald(pod: str, line: str) -> str:
    """`journalctl -o json`: systemd.journal-fields(7) trusted fields and MESSAGE."""
    return json.dumps({"__REALTIME_TIMESTAMP": "1738555506789000", "_HOSTNAME": pod, "_PID": "4242",
                       "SYSLOG_IDENTIFIER": "java", "_SYSTEMD_UNIT": "consumer.service", "MESSAGE": line})


JSON_SHAPES = {"fluent-bit": (_fluent_bit, lambda p: f"pod/prod/{p}/app"),
               "fluentd-docker": (_fluentd_docker, lambda p: f"container:{p}"),
               "journald-json": (_journald, lambda p: f"host:{p}/pid:4242")}


@pytest.mark.parametrize("shape", list(JSON_SHAPES))
@pytest.mark.parametrize("n_pods", [2, 3, 4])
@pytest.mark.parametrize("seed", range(3))
def test_json_record_origins_filtered_read_as_whole(shape, n_pods, seed):
    wrap, origin_of = JSON_SHAPES[shape]
    fmt = _read_as_whole_with_every_config(merged(wrap, n_pods, seed), origin_of, n_pods)
    assert fmt.layout == "json" and not fmt.wrappers


@pytest.mark.parametrize("shape", list(JSON_SHAPES))
def test_json_record_own_error_ends_the_block_in_both_readings(shape):
    _own_error_ends_the_block(*JSON_SHAPES[shape])


def test_json_key_is_the_readers_origin():
    """The filter's key of a JSON line is the origin the reader gives its record, or none (then a gap
    before the next kept line ends every record, as before keys): the same string, so one key is one
    origin."""
    from parsers.drop_gaps import json_key
    from parsers.layouts import split_json

    rng = random.Random(4)
    lines = [w(p, app_line(rng)) for w, _o in JSON_SHAPES.values() for p in PODS]
    lines += [
        json.dumps({"kubernetes": {"pod": {"name": "a-1"}, "namespace": "ns", "container": {"name": "c"}}, "log": "x"}),
        json.dumps({"resource": {"labels": {"pod_name": "p-1", "namespace_name": "n"}}, "textPayload": "x"}),
        json.dumps({"podName": "p-2", "namespace": "n", "containerName": "c", "message": "x"}),
        json.dumps({"_HOSTNAME": "h", "_PID": 0, "MESSAGE": "x"}),       # 0 is a pid here (no `or`)
        json.dumps({"pid": 0, "PID": 17, "host": {"name": "h2"}, "message": "x"}),   # 0 falsy: PID
        json.dumps({"pod": "", "pod_name": "p-3", "pid": 1.5, "message": "x"}),      # a float pid: none
        json.dumps({"host": True, "pid": "-", "message": "x"}),                      # no origin
        json.dumps({"container_name": "///", "_container_name": "/c2", "message": "x"}),
        json.dumps({"hostname": "h\u00e9\"q", "message": "x"}).replace("\\\\", "\\"),
        '{"host": "h", "pid": 12, "message": "x", "host": "h3"}',                     # the last one wins
        '{"host": "h", "message": NaN}', '{"host": "h"} ', '{"host": "h",}', '{"pid": 007}',
        '{"host": "h", "pid": ' + "9" * 4301 + "}",
        "{" * 70 + "}" * 70, '{"host": {"name": ' + "[" * 70 + "]" * 70 + "}}",
    ]
    for x in lines:
        k = json_key(x)
        sp = split_json(x) if k is not None else None
        assert k is None or (sp is not None and sp.extra and sp.extra.get("origin") == k), x
    keys = [json_key(x) for x in lines]
    assert keys[:len(PODS) * 3] == [o(p) for _w, o in JSON_SHAPES.values() for p in PODS]
    assert keys[len(PODS) * 3:len(PODS) * 3 + 10] == [
        "pod/ns/a-1/c", "pod/n/p-1", "pod/n/p-2/c", "host:h/pid:0", "host:h2/pid:17", "pod/p-3", None,
        "container:c2", 'host:hé"q', "host:h3/pid:12"]
    assert keys[len(PODS) * 3 + 10:] == [None] * 7
