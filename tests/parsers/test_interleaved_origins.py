"""Multi-line records of several origins whose lines interleave in one file (parsers/reader.py
`_LogParser.parked`, docs/parsers.md "Merged streams"): two consumers started at once, each printing
its `ConsumerConfig values:` block (AbstractConfig.logAll: a header, one `\\tname = value` line per
setting, log4j's `(%c)` suffix on a line of its own) and its AppInfoParser version, merged line by
line as the tools write them:

- `kubectl logs -l app=... --prefix`: `[pod/NAME/CONTAINER] ` (kubectl pkg/cmd/logs/logs.go
  addPrefixIfNeeded), one goroutine per container stream, so lines of different pods interleave;
- stern: `POD CONTAINER ` (stern cmd/cmd.go generateTemplate);
- `docker compose logs`: `NAME<pad> | ` (docker/compose cmd/formatter/logs.go setPrefix);
- journalctl -o short: `Mmm dd hh:mm:ss HOST APP[PID]: ` (RFC 3164 header);
- Fluent Bit (tail input, kubernetes filter, no multiline parser): one JSON record per line,
  `{"log": "<line>\\n", "stream", "time", "kubernetes": {...}}`;
- journald export (`journalctl -o json`): `MESSAGE`, `_HOSTNAME`, `_PID`, `__REALTIME_TIMESTAMP`.

Each consumer's settings are its own (10 s and 30 s session timeouts), its events carry its own client
version, every input line has exactly one outcome in line order, and the candidate filter's lines (the
Spark ingest's: `prefilter`, the Python twin of the JVM filter) give the same events. On main before
this change (794acbf) one record was pending at a time: a line of the other origin ended it, so
both blocks lost every setting (the replay then assumed the default, 45 s) and each consumer's events
carried whichever version was printed last in the file.
"""

from __future__ import annotations

import json

import pytest

from parsers.reader import FileSummary, parse_lines, prefilter, sniff

T0 = 1738555506789   # 2025-02-03T04:05:06.789Z
CONSUMERS = {
    # pod -> (group, client id, session.timeout.ms, Kafka version its AppInfoParser prints)
    "ledger-7d9f8c6b5-x2x4q": ("ledger", "consumer-ledger-1", "10000", "3.7.0"),
    "billing-5c4b7d9f8-q8r2z": ("billing", "consumer-billing-1", "30000", "2.8.1"),
}


def settings(pod: str) -> dict[str, str]:
    group, client, session, _ = CONSUMERS[pod]
    return {"group.id": group, "client.id": client, "session.timeout.ms": session,
            "max.poll.interval.ms": "120000", "heartbeat.interval.ms": "3000", "auto.offset.reset": "earliest"}


def app_lines(pod: str) -> list[str]:
    """One consumer's start-up as log4j's `[%d] %p %m (%c)%n` writes it."""
    group, client, _, version = CONSUMERS[pod]
    return [
        "[2025-02-03 04:05:06,789] INFO ConsumerConfig values: ",
        *(f"\t{k} = {v}" for k, v in sorted(settings(pod).items())),
        " (org.apache.kafka.clients.consumer.ConsumerConfig)",
        f"[2025-02-03 04:05:06,901] INFO Kafka version: {version} (org.apache.kafka.common.utils.AppInfoParser)",
        f"[2025-02-03 04:05:07,100] INFO [Consumer clientId={client}, groupId={group}] (Re-)joining group "
        "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
    ]


def _compose(pod: str, line: str) -> str:
    width = max(len(p) for p in CONSUMERS) + 1
    return f"{pod:<{width}} | {line}"


def _fluent_bit(pod: str, line: str) -> str:
    return json.dumps({"log": line + "\n", "stream": "stdout", "time": "2025-02-03T04:05:06.789123456Z",
                       "kubernetes": {"pod_name": pod, "namespace_name": "prod", "container_name": "app"}})


def _journald(pod: str, line: str) -> str:
    return json.dumps({"__REALTIME_TIMESTAMP": str(T0 * 1000), "_HOSTNAME": pod, "_PID": "4242",
                       "SYSLOG_IDENTIFIER": "java", "MESSAGE": line})


SHAPES = {
    "kubectl": (lambda pod, x: f"[pod/{pod}/app] {x}", lambda pod: f"pod/{pod}/app"),
    "stern": (lambda pod, x: f"{pod} app {x}", lambda pod: f"pod/{pod}/app"),
    "compose": (_compose, lambda pod: f"compose:{pod}"),
    "journalctl-short": (lambda pod, x: f"Feb  3 04:05:06 {pod} java[4242]: {x}", lambda pod: f"host:{pod}/pid:4242"),
    "fluent-bit": (_fluent_bit, lambda pod: f"pod/prod/{pod}/app"),
    "journald-json": (_journald, lambda pod: f"host:{pod}/pid:4242"),
}


def alternated(wrap) -> tuple[list[str], dict[int, str]]:
    """The two consumers' lines alternating one by one (the finest interleaving), and each line's pod."""
    pods = list(CONSUMERS)
    per = [app_lines(p) for p in pods]
    lines, owner = [], {}
    for i in range(max(map(len, per))):
        for pod, ls in zip(pods, per, strict=True):
            if i < len(ls):
                lines.append(wrap(pod, ls[i]))
                owner[len(lines)] = pod
    return lines, owner


def outcomes(lines: list[str], filtered: bool = False):
    fmt = sniff(lines)
    pairs = list(enumerate(lines, 1))
    if filtered:
        pairs = list(prefilter(pairs))
    outs = list(parse_lines("pods.log", pairs, fmt))
    # every line fed has exactly one outcome, in line order
    assert [o.line_no for o in outs] == [n for n, _ in pairs]
    summary = FileSummary("pods.log")
    for o in outs:
        summary.count(o)
    assert summary.balanced and summary.lines_read == len(pairs)
    return outs


def check(outs, owner: dict[int, str], origin_of) -> None:
    evs = [o.event for o in outs if o.event is not None]
    configs = [e for e in evs if e.kind == "client_config"]
    assert len(configs) == len(CONSUMERS)
    by_origin = {c.extra["origin"]: c for c in configs}
    for pod, (group, client, _session, version) in CONSUMERS.items():
        c = by_origin[origin_of(pod)]
        # every setting of its own block, and none of the other's
        assert c.extra["settings"] == settings(pod)
        assert (c.group_id, c.client_id) == (group, client)
        assert c.ts_ms == T0 and owner[c.line_no] == pod
        # the record's lines are its own pod's lines, all of them: the header's outcome carries the
        # event, the settings' and the suffix's outcomes share its status
        mine = [n for n, p in owner.items() if p == pod][:len(settings(pod)) + 2]
        assert {o.line_no: o.status for o in outs if o.line_no in mine} == dict.fromkeys(mine, "parsed")
        joins = [e for e in evs if e.kind == "join_started" and e.extra.get("origin") == origin_of(pod)]
        assert [(j.client_id, j.group_id, j.kafka_version_hint) for j in joins] == [(client, group, version)]
    # nothing else: the other lines are the AppInfoParser lines (ignored: the version is a fact of
    # the file, not an event)
    assert sorted(e.kind for e in evs) == sorted(["client_config", "join_started"] * len(CONSUMERS))
    assert sum(o.status == "ignored" for o in outs) == len(CONSUMERS)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_interleaved_config_blocks_keep_each_origins_settings(shape):
    wrap, origin_of = SHAPES[shape]
    lines, owner = alternated(wrap)
    check(outcomes(lines), owner, origin_of)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_candidate_filter_keeps_every_line_of_the_blocks(shape):
    """What the ingest's JVM filter keeps (CANDIDATE_REGEX: the prefixed TAB lines, a JSON record
    whose text starts with an escaped TAB or a space) reads the same: each block's every setting."""
    wrap, origin_of = SHAPES[shape]
    lines, owner = alternated(wrap)
    kept = [t for _, t in prefilter(enumerate(lines, 1))]
    assert kept == lines
    check(outcomes(lines, filtered=True), owner, origin_of)


def test_a_lone_consumers_block_is_read_as_before():
    """One pod's lines with the same prefix (no interleaving): the same record as its unwrapped file."""
    wrap, origin_of = SHAPES["kubectl"]
    pod = next(iter(CONSUMERS))
    outs = outcomes([wrap(pod, x) for x in app_lines(pod)])
    plain = outcomes(app_lines(pod))
    assert [(o.line_no, o.status) for o in outs] == [(o.line_no, o.status) for o in plain]
    cfg = next(o.event for o in outs if o.event is not None and o.event.kind == "client_config")
    assert cfg.extra["settings"] == settings(pod) and cfg.extra["origin"] == origin_of(pod)


def test_a_stack_trace_of_one_pod_interleaved_with_anothers_lines():
    """A consumer's commit failure with its exception's lines, another pod's line between them: the
    trace stays with its record (raw), and the other pod's line is its own record."""
    a = "[pod/ledger-0/app] "
    b = "[pod/billing-0/app] "
    lines = [
        a + "[2025-02-03 04:05:08,000] ERROR [Consumer clientId=c-1, groupId=ledger] Offset commit failed on "
            "partition orders-3 at offset 42: The coordinator is not aware of this member. "
            "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
        b + "[2025-02-03 04:05:08,001] INFO [Consumer clientId=c-9, groupId=billing] (Re-)joining group "
            "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
        a + "org.apache.kafka.clients.consumer.CommitFailedException: Commit cannot be completed",
        b + "[2025-02-03 04:05:08,002] INFO [Consumer clientId=c-9, groupId=billing] Request joining group due to: "
            "need to re-join with the given member-id (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
        a + "\tat org.apache.kafka.clients.consumer.internals.ConsumerCoordinator.sendOffsetCommitRequest(ConsumerCoordinator.java:1247)",
    ]
    outs = outcomes(lines)
    evs = {o.line_no: o.event for o in outs if o.event is not None}
    assert sorted(evs) == [1, 2, 4]
    assert evs[1].kind == "offset_commit_failed" and evs[1].extra["origin"] == "pod/ledger-0/app"
    assert "CommitFailedException" in evs[1].raw and "sendOffsetCommitRequest" in evs[1].raw
    assert "billing" not in evs[1].raw
    assert evs[2].kind == "join_started" and "CommitFailed" not in evs[2].raw
    assert [o.status for o in outs] == ["parsed"] * 5
    assert [o.line_no for o in outs] == [1, 2, 3, 4, 5]


def test_a_line_without_an_origin_acts_on_the_current_record_as_before():
    """In a kubectl --prefix file, a line without the prefix (a line the tool wrote itself, a paste)
    has no origin: as before, a continuation line of its own continues the record the line before
    belongs to, and any other line ends that record. A record waiting for another origin's lines is
    not the line's: it still takes its own pod's settings after it."""
    a, b = "[pod/ledger-0/app] ", "[pod/billing-0/app] "
    head = "[2025-02-03 04:05:06,789] INFO ConsumerConfig values: "
    tail = " (org.apache.kafka.clients.consumer.ConsumerConfig)"
    lines = [a + head, b + head, "\tclient.id = no-origin", a + "\tgroup.id = ledger", b + "\tgroup.id = billing",
             "unable to retrieve container logs for docker://0a1b2c", a + "\tsession.timeout.ms = 10000", a + tail,
             b + "\tsession.timeout.ms = 30000", b + tail]
    outs = outcomes(lines)
    cfg = {o.event.extra["origin"]: o.event for o in outs if o.event is not None}
    assert cfg["pod/ledger-0/app"].extra["settings"] == {"group.id": "ledger", "session.timeout.ms": "10000"}
    # billing's record took the origin-less TAB line (the line before was billing's), and its
    # record ended at the origin-less message line: its later lines have no header of their own
    assert cfg["pod/billing-0/app"].extra["settings"] == {"client.id": "no-origin", "group.id": "billing"}
    assert [o.line_no for o in outs] == list(range(1, len(lines) + 1))
    assert {o.line_no: o.status for o in outs}[6] == "ignored"


def test_a_gap_ends_every_waiting_record():
    """Lines the candidate filter left out (the ingest hands the parser its candidates only) are of
    unknown origins: each may have been a new record of a waiting origin, whose own continuation
    lines then follow. So after a gap no record takes more lines: here ledger's left-out line 3 is
    an application error, and its stack frame on line 5 is not a setting of ledger's dump."""
    a, b = "[pod/ledger-0/app] ", "[pod/billing-0/app] "
    lines = [(1, a + "[2025-02-03 04:05:06,789] INFO ConsumerConfig values: "),
             (2, b + "[2025-02-03 04:05:06,790] INFO [Consumer clientId=c-9, groupId=billing] (Re-)joining group "
                     "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)"),
             # (3: "[pod/ledger-0/app] [...] ERROR Order 17 failed", not a candidate: left out)
             (4, b + "[2025-02-03 04:05:06,792] INFO [Consumer clientId=c-9, groupId=billing] (Re-)joining group "
                     "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)"),
             (5, a + "\tat com.example.Orders.process(Orders.java:17)")]
    outs = list(parse_lines("pods.log", lines, sniff([t for _, t in lines])))
    assert [o.line_no for o in outs] == [1, 2, 4, 5]
    assert all("Orders.java" not in (o.event.raw if o.event else "") for o in outs if o.line_no != 5)


def test_each_origin_has_its_own_client_version():
    """AppInfoParser's `Kafka version: ...` is its process's: a consumer's events carry the version
    its own origin printed, not the one printed last in the file."""
    wrap, origin_of = SHAPES["kubectl"]
    pods = list(CONSUMERS)
    lines = [wrap(p, app_lines(p)[-2]) for p in pods] + [wrap(p, app_lines(p)[-1]) for p in pods]
    evs = [o.event for o in outcomes(lines) if o.event is not None]
    assert {e.extra["origin"]: e.kafka_version_hint for e in evs} == {origin_of(p): CONSUMERS[p][3] for p in pods}


def test_many_origins_waiting_at_once_are_bounded():
    """As many origins as MAX_PARKED with a record open each, then each origin's setting line: every
    record takes its own. More origins than that: the longest waiting records end early (their late
    lines are then lines of their own), never taking another origin's line; nothing is lost from the
    accounting and outcomes stay in line order."""
    from parsers.reader import MAX_PARKED

    head = "[2025-02-03 04:05:06,789] INFO ConsumerConfig values: "
    for n in (MAX_PARKED, MAX_PARKED + 8):
        lines = [f"[pod/p-{i}/app] {head}" for i in range(n)] + [f"[pod/p-{i}/app] \tgroup.id = g{i}" for i in range(n)]
        outs = outcomes(lines)
        cfg = {o.event.extra["origin"]: o.event.extra["settings"] for o in outs if o.event is not None}
        assert len(cfg) == n
        assert all(cfg[f"pod/p-{i}/app"] in ({"group.id": f"g{i}"}, {}) for i in range(n))
        kept = sum(cfg[f"pod/p-{i}/app"] == {"group.id": f"g{i}"} for i in range(n))
        assert kept == n if n <= MAX_PARKED else kept < n


def test_a_header_line_is_for_its_own_origins_next_line():
    """Microsoft.Extensions.Logging's console records (dotnet/runtime SimpleConsoleFormatter: a header
    `[time] level: Category[EventId]`, the message indented on the next line; confluent-kafka-dotnet
    logs librdkafka's lines through it) of two pods, merged by kubectl: each message takes the time,
    level and category of its own pod's header, not of the line before it. Before (794acbf) ledger's
    message took billing's header (time 08:15:31, DEBUG, BillingConsumer) and billing's took none."""
    a, b = "[pod/ledger-0/app] ", "[pod/billing-0/app] "
    lines = [a + "2024-05-02 08:15:30 info: Acme.Billing.LedgerConsumer[0]",
             b + "2024-05-02 08:15:31 dbug: Acme.Billing.BillingConsumer[0]",
             a + '      Client log: [thrd:main]: Group "ledger-readers" coordinator is kafka-c:9092 id 3',
             b + '      Client log: [thrd:main]: Group "billing" coordinator is kafka-a:9092 id 1']
    outs = outcomes(lines)
    evs = {o.line_no: o.event for o in outs if o.event is not None}
    assert sorted(evs) == [3, 4]
    got = {n: (e.kind, e.ts_ms, e.group_id, e.coordinator, e.extra["level"], e.extra["logger"], e.extra["origin"])
           for n, e in evs.items()}
    assert got == {
        3: ("coordinator_discovered", 1714637730000, "ledger-readers", "3", "INFO", "Acme.Billing.LedgerConsumer",
            "pod/ledger-0/app"),
        4: ("coordinator_discovered", 1714637731000, "billing", "1", "DEBUG", "Acme.Billing.BillingConsumer",
            "pod/billing-0/app")}
    assert [o.status for o in outs] == ["ignored", "ignored", "parsed", "parsed"]


def test_a_bad_line_inside_a_collected_json_object_keeps_the_outcomes_in_line_order():
    """A pretty-printed JSON object collected as one record is read line by line when a line of
    garbage (a control character) interrupts it; its one-line records name their hosts (origins), so
    they wait per origin: the bad line's outcome waits behind them. Found by
    test_mutated_lines (a mutated truth.json): the bad line's outcome came before the waiting ones."""
    from parsers.reader import parse_lines, sniff

    lines = ['{', ' "records": [',
             '  {"host": "h1", "level": "INFO", "message": "a"},',
             '  {"host": "h2", "level": "INFO", "message": "b"},',
             '  {"host": "h3", "level": "INFO", "message": "c"},',
             '\x08 ],', '}']
    outs = list(parse_lines("x.json", list(enumerate(lines, 1)), sniff(lines, "x.json")))
    assert [o.line_no for o in outs] == [1, 2, 3, 4, 5, 6, 7]
