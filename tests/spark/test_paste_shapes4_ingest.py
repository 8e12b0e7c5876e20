"""The ingest against `coordscope parse` on the logging-stack shapes of branch pastes4
(tests/parsers/test_paste_shapes4.py): the candidate filter keeps a block record's time lines
(reader.BLOCK_TIME_REGEX: gcloud YAML's `---` and `timestamp:`, `journalctl -o verbose`'s header, the
OTel debug exporter's `LogRecord #N` and `Timestamp:`), a pretty-printed export of log records is read
(not rejected as a JSON document: pipeline/spark/inputs.looks_like_document), and the events table
holds what `parse` finds, times and partitions included."""

from __future__ import annotations

import json

import pytest

from pipeline import rundir
from tests.parsers import test_paste_shapes4 as s4
from tests.spark.conftest import run_ingest_inputs

KEY = ("line_no", "kind", "group_id", "generation", "member_id", "ts_ms", "client_library")
NOISE = [f"2024-06-01 09:59:{i:02d},000 INFO  [main] com.example.App - request {i} served" for i in range(30)]


def _files() -> dict[str, list[str]]:
    def entry(payload, ts):
        return s4._gcloud_entry(payload, ts)
    verbose = []
    for us, msg in ((456123, s4.JOIN), (500000, s4.SYNC)):
        verbose += [f"Sat 2024-06-01 12:00:00.{us:06d} CEST [s=4c2a;i=1f;b=7e2d;m=3f1c;t=61a;x=9d8e]",
                    "    _TRANSPORT=stdout", "    PRIORITY=6", "    SYSLOG_IDENTIFIER=java",
                    f"    MESSAGE=INFO  {s4.CC} - {msg}", "    _PID=2214", "    _HOSTNAME=ledger-host"]
    otel = ["ResourceLog #0", "Resource attributes:", "     -> service.name: Str(ledger)", "ScopeLogs #0",
            "LogRecord #0", "ObservedTimestamp: 2024-06-01 10:00:00.9 +0000 UTC",
            "Timestamp: 2024-06-01 10:00:00.456 +0000 UTC", "SeverityText: INFO", "SeverityNumber: Info(9)",
            f"Body: Str({s4.JOIN})", "Attributes:", "     -> thread.name: Str(c-1)", "Flags: 0"]
    doc = {"events": [{"logStreamName": "ecs/ledger/1f2e", "timestamp": s4.T + 20 * i,
                       "message": f"10:00:00.{456 + 20 * i} [c-1] INFO  {s4.CC} - {m}", "ingestionTime": s4.T + 900,
                       "eventId": str(i)} for i, m in enumerate((s4.JOIN, s4.SYNC))], "searchedLogStreams": []}
    pylog = [json.dumps({"asctime": "2024-06-01 10:00:00,456", "levelname": "DEBUG", "name": "ledger.kafka",
                         "message": 'CGRPSTATE [rdkafka#consumer-2] [thrd:main]: Group "ledger-py" changed state up -> '
                                    'wait-join (join-state init)'})]
    return {
        "gcloud.yaml.log": NOISE[:3] + entry(["textPayload: '" + s4.JOIN.replace("'", "''") + "'"], "2024-06-01T10:00:00.456Z")
        + entry(["textPayload: '" + s4.SYNC.replace("'", "''") + "'"], "2024-06-01T10:00:00.500Z"),
        "journal-verbose.log": verbose,
        "otel-debug.log": otel,
        "filter-log-events.json": json.dumps(doc, indent=4).split("\n"),
        "logcli.log": [f'2024-06-01T12:00:0{i % 10}+02:00 {{app="x"}} 2024-06-01T12:00:0{i % 10}.1{i:02d}+02:00  INFO 1 --- '
                       f"[x] [main] com.example.App  : request {i}" for i in range(20)]
        + ['2024-06-01T12:00:00+02:00 {app="ledger", pod="ledger-0"} 2024-06-01T12:00:00.456+02:00  INFO 1 --- '
           '[ledger] [ntainer#0-0-C-1] o.a.k.c.c.internals.ConsumerCoordinator  : ' + s4.JOIN],
        "journal-short-iso.log": [f"2024-06-01T11:00:00+01:00 host java[212]: 2024-06-01T11:00:00,456 INFO  [c-1] "
                                  f"o.a.k.c.c.i.ConsumerCoordinator - {s4.JOIN}"],
        "python-json.log": pylog,
    }


def _n(v):
    if v is None or v != v:
        return None
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return list(v) if hasattr(v, "__len__") and not isinstance(v, str) else v


@pytest.mark.spark
def test_ingest_reads_the_logging_stack_shapes_as_parse_does(spark, tmp_path):
    from parsers.reader import parse_path

    logs = tmp_path / "logs"
    logs.mkdir()
    for name, lines in _files().items():
        (logs / name).write_text("\n".join(lines) + "\n")
    out = tmp_path / "run"
    man = run_ingest_inputs(spark, logs, out)
    events = rundir.load_table(out, "events")
    checked = 0
    for p in sorted(logs.iterdir()):
        outcomes, _summary = parse_path(str(p))
        want = sorted(tuple(_n(getattr(oc.event, k)) for k in (*KEY, "partitions")) for oc in outcomes if oc.event is not None)
        got = sorted(tuple(_n(r[k]) for k in (*KEY, "partitions")) for r in events[events.source == str(p)].to_dict("records"))
        assert got == want, p.name
        assert all(w[5] is not None for w in want), p.name  # every event has its time
        checked += len(want)
    assert checked == 10
    assert man["accounting"]["adds_up"]
    assert not [f for f in man.get("inputs", []) if f.get("kind") == "document"]
