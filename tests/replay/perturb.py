"""Realistic damage to a sample's log files, and the ingest's timeline corrections without Spark.

Perturbations work on the raw text (what an SRE's files hold), so the parser reads the damaged
lines as it would in the field. Each returns {file name: lines}: the files the user hands over
instead of the one damaged.

`ingested_events` applies what the ingest applies to a group's parsed rows before its replay
(pipeline.timeline_facts counts copies and clock anchors, replay_stage.copies_from_counts and
SKEW_MIN_MS decide, pipeline.timeline_corrections drops copies and shifts skewed files), the same
pure functions the ingest's group pass calls, with no Spark session.
"""

from __future__ import annotations

import json
import re
import zlib
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from parsers.events import Event
from parsers.reader import parse_lines

# the line's own time: "[2024-03-14 02:00:01,054]", "2024-03-15 01:59:54.951",
# "2024-03-17T01:59:54.833Z", {"@timestamp":"2024-03-13T02:00:00.931Z", ...}: the first on the line
_TS = re.compile(r"(\d{4}-\d{2}-\d{2})([ T])(\d{2}:\d{2}:\d{2})([,.])(\d{3})(Z|[+-]\d{2}:?\d{2})?")


def record_ms(line: str) -> int | None:
    """The time written at the start of a record's first line, read as UTC (ms)."""
    m = _TS.search(line[:80])
    if m is None:
        return None
    t = datetime.strptime(f"{m[1]} {m[3]}.{m[5]}", "%Y-%m-%d %H:%M:%S.%f")
    return int((t - datetime(1970, 1, 1)).total_seconds() * 1000)


def _is_record_start(line: str) -> bool:
    return bool(line) and not line[0].isspace() and _TS.search(line[:60]) is not None


def shift_line(line: str, ms: int, zone: str | None = None) -> str:
    """The line with its first time moved by `ms` (its text, in its own format). With `zone`, the
    time's zone text is replaced by it (e.g. "+02:00", or "" for none)."""
    m = _TS.search(line[:80])
    if m is None:
        return line
    t = datetime.strptime(f"{m[1]} {m[3]}.{m[5]}", "%Y-%m-%d %H:%M:%S.%f") + timedelta(milliseconds=ms)
    text = f"{t:%Y-%m-%d}{m[2]}{t:%H:%M:%S}{m[4]}{t.microsecond // 1000:03d}"
    text += (m[6] or "") if zone is None else zone
    return line[:m.start()] + text + line[m.end():]


def clock_off(name: str, lines: list[str], ms: int) -> dict[str, list[str]]:
    """The host's clock `ms` ahead (negative: behind) of the others' for the whole file."""
    return {name: [shift_line(x, ms) for x in lines]}


def local_zone(name: str, lines: list[str], hours: int = 2, written_zone: bool = False) -> dict[str, list[str]]:
    """The file written in local time UTC+hours: with no zone on its lines (the parser must take
    them as UTC: a clock `hours` ahead), or (`written_zone`) with the zone written ("+02:00")."""
    zone = f"{'+' if hours >= 0 else '-'}{abs(hours):02d}:00" if written_zone else ""
    return {name: [shift_line(x, hours * 3_600_000, zone) for x in lines]}


def given_twice(name: str, lines: list[str]) -> dict[str, list[str]]:
    stem, _, ext = name.rpartition(".")
    return {name: lines, f"{stem}-copy.{ext}": list(lines)}


def gzip_beside(name: str, lines: list[str]) -> dict[str, list[str]]:
    # (the ingest reads a .gz file's text: the same lines under the other name)
    return {name: lines, f"{name}.gz": list(lines)}


def rotated(name: str, lines: list[str], overlap: int = 5) -> dict[str, list[str]]:
    """Rotated at 60 % of its records into name.1 (older) and name, `overlap` lines in both."""
    starts = [i for i, x in enumerate(lines) if _is_record_start(x)]
    cut = starts[int(len(starts) * 0.6)] if starts else len(lines) // 2
    return {f"{name}.1": lines[:cut], name: lines[max(0, cut - overlap):]}


def truncated(name: str, lines: list[str]) -> dict[str, list[str]]:
    """Cut in the middle of its last record's line (a copy taken while the logger wrote)."""
    last = lines[-1]
    return {name: [*lines[:-1], last[: max(1, len(last) // 2)]]}


def lossy(name: str, lines: list[str], every: int = 50, phase: int = 0) -> dict[str, list[str]]:
    """Every `every`-th line lost by the shipper (line numbers shifted by `phase`)."""
    return {name: [x for i, x in enumerate(lines, 1) if (i + phase) % every]}


def records(lines: list[str]) -> list[list[str]]:
    """Lines grouped as log records (a record's continuation lines stay with it)."""
    out: list[list[str]] = []
    for x in lines:
        if out and not _is_record_start(x):
            out[-1].append(x)
        else:
            out.append([x])
    return out


def concatenated(files: dict[str, list[str]], name: str = "all.log") -> dict[str, list[str]]:
    """`cat` of the files in the order given (e.g. the wrong one) into one file."""
    return {name: [x for lines in files.values() for x in lines]}


def interleaved(files: dict[str, list[str]], chunk: int = 7, name: str = "collector.log") -> dict[str, list[str]]:
    """The files' records merged by a collector in ingestion order: `chunk` records of each file in
    turn, not by event time (each file's own records stay in order)."""
    recs = [records(v) for v in files.values()]
    out: list[str] = []
    pos = [0] * len(recs)
    while any(p < len(r) for p, r in zip(pos, recs, strict=True)):
        for i, r in enumerate(recs):
            for rec in r[pos[i]: pos[i] + chunk]:
                out.extend(rec)
            pos[i] += chunk
    return {name: out}


_PARSED: dict[tuple[str, str, int], list[Event]] = {}


def parsed(files: dict[str, list[str]], folder: str) -> list[Event]:
    """The files' events (a file's are parsed once per text: Events are immutable)."""
    out: list[Event] = []
    for name, lines in files.items():
        key = (folder, name, hash("\n".join(lines)))
        got = _PARSED.get(key)
        if got is None:
            if len(_PARSED) > 256:
                _PARSED.clear()
            got = _PARSED[key] = [o.event for o in parse_lines(f"{folder}/{name}", enumerate(lines, 1))
                                  if o.event is not None]
        out += got
    return out


def read_lines(path: Path) -> list[str]:
    return path.read_text(errors="replace").splitlines()


def fact_value(e: Event, column: str) -> Any:
    """An event's value in the events table's column (`extra` is `extra_json` there)."""
    return json.dumps(e.extra) if column == "extra_json" else getattr(e, column)


def timeline_corrections(events: list[Event]) -> tuple[list[tuple[str, str]], dict[str, int]]:
    """(copies, clock offsets) the ingest finds in these events (one group's); a stepped file's
    offsets are in `clock_steps(events)`."""
    from pipeline import timeline_facts as tf
    from pipeline.spark import replay_stage as rs  # (its pure rules only: no session is started)

    cols = {c: [fact_value(e, c) for e in events] for c in tf.FACT_COLUMNS}
    copies = rs.copies_from_counts([(s, f, n) for (s, f), n in Counter(tf.shared_counts(cols)).items()])
    if copies:   # measured again without the copies, as the ingest's second pass does
        drop = _copy_rows(events, copies)
        cols = {c: [fact_value(e, c) for i, e in enumerate(events) if i not in drop] for c in tf.FACT_COLUMNS}
    diffs = tf.anchor_diffs(cols)
    clock, steps = tf.clock_offsets(diffs), tf.clock_steps(diffs)
    return copies, {src: off for src, (off, _n) in clock.items() if abs(off) >= rs.SKEW_MIN_MS and src not in steps}


def clock_steps(events: list[Event], copies: list[tuple[str, str]]) -> dict[str, tuple[int, tuple]]:
    """The files whose clock the ingest finds stepped (pipeline.timeline_facts.clock_steps), on
    the events without their copies' rows."""
    from pipeline import timeline_facts as tf

    drop = _copy_rows(events, copies) if copies else set()
    cols = {c: [fact_value(e, c) for i, e in enumerate(events) if i not in drop] for c in tf.FACT_COLUMNS}
    return tf.clock_steps(tf.anchor_diffs(cols), tf.back_jumps(cols))


def _copy_rows(events: list[Event], copies: list[tuple[str, str]]) -> set[int]:
    first: dict[tuple, str] = {}
    for e in events:
        k = (e.group_id, e.raw, e.ts_ms)
        if k not in first or e.source < first[k]:
            first[k] = e.source
    pairs = set(copies)
    return {i for i, e in enumerate(events) if (e.source, first[(e.group_id, e.raw, e.ts_ms)]) in pairs}


def ingested_events(events: list[Event]) -> tuple[list[Event], list[tuple[str, str]], dict[str, int]]:
    """The group's events as the ingest hands them to the replay (copies dropped, skewed clocks
    shifted: pipeline.timeline_corrections on the events' rows), with the copies and offsets."""
    from pipeline import timeline_corrections as tc
    from pipeline.replay_rules.event_rows import events_from_arrow
    from tests.replay.arrow_tables import events_table

    copies, offsets = timeline_corrections(events)
    steps = clock_steps(events, copies)
    if not copies and not offsets and not steps:
        return events, copies, offsets
    table = tc.corrected(events_table(events), frozenset(copies), offsets, steps)
    return events_from_arrow(table), copies, offsets



# --- several hosts' logs in one file, each line with its origin, as the tools write them -----------
# (parsers/origin.py names the source of each format; the lines here are built the same way)

def _stem(name: str) -> str:
    return name.rsplit(".", 1)[0]


def pod_name(name: str) -> str:
    """A Deployment's pod name for a host's file: <deployment>-<replicaset hash>-<5 characters>."""
    h = zlib.crc32(name.encode())
    return f"{_stem(name)}-{h % 0xFFFFFFF:07x}-{'bcdfghjklmnpqrstvwxz2456789'[h % 27]}{h % 9973:04d}"[:63]


def pid_of(name: str) -> int:
    return 1000 + zlib.crc32(name.encode()) % 60000


def _times(lines: list[str]) -> list[int]:
    """Each line's time: its record's (a continuation line has its record's), else the one before."""
    out, last = [], 1_700_000_000_000
    for x in lines:
        t = record_ms(x) if _is_record_start(x) else None
        last = t if t is not None else last
        out.append(last)
    return out


def _iso(ms: int) -> str:
    t = datetime(1970, 1, 1) + timedelta(milliseconds=ms)
    return f"{t:%Y-%m-%dT%H:%M:%S}.{ms % 1000:03d}000000Z"


def kubectl_prefix(files: dict[str, list[str]]) -> dict[str, list[str]]:
    """`kubectl logs -l app=x --prefix`: "[pod/<name>/<container>] " before every line
    (kubectl pkg/cmd/logs/logs.go addPrefixIfNeeded)."""
    return {n: [f"[pod/{pod_name(n)}/app] {x}" for x in lines] for n, lines in files.items()}


def stern_prefix(files: dict[str, list[str]], coloured: bool = False, namespace: str | None = None
                 ) -> dict[str, list[str]]:
    """stern's default template, "<pod> <container> <line>" (with a namespace first when several are
    tailed), coloured by fatih/color on a terminal (stern cmd/cmd.go generateTemplate)."""
    def c(code: int, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if coloured else text
    out = {}
    for i, (n, lines) in enumerate(files.items()):
        colour = 31 + i % 6
        head = (f"{c(colour, namespace)} " if namespace else "") + f"{c(colour, pod_name(n))} {c(colour + 60, 'app')} "
        out[n] = [head + x for x in lines]
    return out


def compose_prefix(files: dict[str, list[str]]) -> dict[str, list[str]]:
    """`docker compose logs`: the container's service name and index left-aligned in the width of the
    longest + 1, then " | " (docker/compose cmd/formatter/logs.go presenter.setPrefix)."""
    names = {n: f"{_stem(n)}-1" for n in files}
    width = max(len(v) for v in names.values()) + 1
    return {n: [f"{names[n]:<{width}} | {x}" for x in lines] for n, lines in files.items()}


def fluent_bit_json(files: dict[str, list[str]]) -> dict[str, list[str]]:
    """Fluent Bit's `tail` of /var/log/containers with the `kubernetes` filter, written as JSON lines:
    each container line a record {date, log, stream, time, kubernetes{pod_name, namespace_name, ...}}."""
    out = {}
    for n, lines in files.items():
        meta = {"pod_name": pod_name(n), "namespace_name": "prod", "pod_id": f"{zlib.crc32(n.encode()):08x}-0000",
                "host": "node-1", "container_name": "app", "docker_id": f"{zlib.crc32(n.encode()):064x}"}
        out[n] = [json.dumps({"date": t / 1000, "log": x + "\n", "stream": "stdout", "time": _iso(t),
                              "kubernetes": meta}) for x, t in zip(lines, _times(lines), strict=True)]
    return out


def docker_fluentd_json(files: dict[str, list[str]]) -> dict[str, list[str]]:
    """docker's fluentd logging driver's records as a collector stores them (JSON lines):
    {container_id, container_name "/name", source, log}."""
    return {n: [json.dumps({"container_id": f"{zlib.crc32(n.encode()):064x}", "container_name": "/" + _stem(n),
                            "source": "stdout", "log": x}) for x in lines] for n, lines in files.items()}


def journald_json(files: dict[str, list[str]]) -> dict[str, list[str]]:
    """`journalctl -o json` of the hosts' services, one entry per line the process wrote:
    __REALTIME_TIMESTAMP (µs), _HOSTNAME, _PID, SYSLOG_IDENTIFIER, MESSAGE (systemd.journal-fields)."""
    return {n: [json.dumps({"__REALTIME_TIMESTAMP": str(t * 1000), "_HOSTNAME": _stem(n), "_PID": str(pid_of(n)),
                            "SYSLOG_IDENTIFIER": "java", "MESSAGE": x})
                for x, t in zip(lines, _times(lines), strict=True)] for n, lines in files.items()}


def syslog_3164(files: dict[str, list[str]]) -> dict[str, list[str]]:
    """rsyslog's traditional file format of the hosts' forwarded lines: "Mmm dd hh:mm:ss HOST TAG[PID]: "
    (RFC 3164 4.1.2)."""
    out = {}
    for n, lines in files.items():
        rows = []
        for x, t in zip(lines, _times(lines), strict=True):
            d = datetime(1970, 1, 1) + timedelta(milliseconds=t)
            rows.append(f"{d:%b} {d.day:2d} {d:%H:%M:%S} {_stem(n)} java[{pid_of(n)}]: {x}")
        out[n] = rows
    return out


def syslog_5424(files: dict[str, list[str]]) -> dict[str, list[str]]:
    """RFC 5424 records: "<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD MSG" (6.2)."""
    return {n: [f"<14>1 {_iso(t)[:23]}Z {_stem(n)} java {pid_of(n)} - - {x}"
                for x, t in zip(lines, _times(lines), strict=True)] for n, lines in files.items()}


_JSON_HEAD = re.compile(r'^\{"@timestamp":"[^"]*",')


def json_hostname(files: dict[str, list[str]]) -> dict[str, list[str]]:
    """logstash-logback-encoder's JSON lines with the logback context's HOSTNAME property (the files
    already in JSON; the others as they are)."""
    out = {}
    for n, lines in files.items():
        field = f'"HOSTNAME":"{_stem(n)}",'
        out[n] = [x[:m.end()] + field + x[m.end():] if (m := _JSON_HEAD.match(x)) else x for x in lines]
    return out


ORIGIN_SHAPES = {
    "kubectl logs --prefix": kubectl_prefix,
    "stern": stern_prefix,
    "stern, coloured, all namespaces": lambda fs: stern_prefix(fs, coloured=True, namespace="prod"),
    "docker compose logs": compose_prefix,
    "Fluent Bit kubernetes JSON": fluent_bit_json,
    "docker fluentd driver JSON": docker_fluentd_json,
    "journalctl -o json": journald_json,
    "syslog RFC 3164": syslog_3164,
    "syslog RFC 5424": syslog_5424,
    "JSON layout HOSTNAME": json_hostname,
}
