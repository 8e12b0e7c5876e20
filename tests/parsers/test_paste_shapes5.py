"""Session 20 (branch pastes5): coordinator lines across client versions and log levels (DEBUG/TRACE),
frameworks and non-Java clients. Lines built from the wordings at the release tags named in each
rule (not the held-out excerpts of /work/pastes5), asserting kinds and field values both ways.
Mechanisms (docs/parsers.md, "Coordinator lines across versions, levels and frameworks"):

- errors a wording states in words (AbstractCoordinator 0.9-2.x heartbeat/join/sync branches,
  CommitRequestManager 3.9 stale member epoch) -> the Errors name, and none where the branch covers
  several errors;
- 3.0+ reasons "encountered {Errors} from {ApiKeys} response" -> `error`;
- values the catalogue rules did not capture: 2.6+ "Fetch position {FetchPosition} is out of range
  for partition {tp}", 3.9 "Last epoch sent: {}";
- 0.9-1.0 "Resetting offset for partition {} to the committed offset {}" -> offset_fetched (the 1.1+
  "Setting offset ..." fact), Connect 2.3's "Joined group at generation {} and got assignment: {}",
  Streams 2.4+ "at state {}: partitions {} lost due to missed rebalance.";
- kafka-python's "Group %s fetching committed offsets for partitions: %s" request: ignored, not unparsed;
- ConsumerCoordinator 2.4-2.5 "Updating assignment with" glued by the soft wrap; Connect WorkerSinkTask
  commit lines after the task name and the connector MDC context.
10 of the 11 tests fail on 566cbc3 (the other checks that no error is invented)."""

from __future__ import annotations

from parsers.reader import parse_lines

P = "[Consumer clientId=consumer-tally-2, groupId=tally] "
AC = "org.apache.kafka.clients.consumer.internals.AbstractCoordinator"
CC = "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"


def _outs(lines: list[str]):
    return {o.line_no: o for o in parse_lines("f", list(enumerate(lines, 1)))}


def _ev(line: str):
    o = _outs([line])[1]
    assert o.status == "parsed" and o.event is not None, (o.status, line)
    return o.event


def _k(msg: str, logger: str = AC, lvl: str = "INFO") -> str:
    return f"[2019-04-02 10:11:12,345] {lvl} {msg} ({logger})"


def test_implied_errors_of_old_heartbeat_and_join_wordings():
    cases = [
        # 0.9.0.1 AbstractCoordinator (no LogContext)
        ("Attempt to heart beat failed since the group is rebalancing, try to re-join group.", "heartbeat_failed", "REBALANCE_IN_PROGRESS"),
        ("Attempt to heart beat failed since generation id is not legal, try to re-join group.", "heartbeat_failed", "ILLEGAL_GENERATION"),
        ("Attempt to heart beat failed since member id is not valid, reset it and try to re-join group.", "heartbeat_failed", "UNKNOWN_MEMBER_ID"),
        # 0.10.0-0.10.1 DEBUG ("heart beat")
        ("Attempt to heart beat failed for group tally since it is rebalancing.", "heartbeat_failed", "REBALANCE_IN_PROGRESS"),
        ("Attempt to heart beat failed for group tally since member id is not valid.", "heartbeat_failed", "UNKNOWN_MEMBER_ID"),
        # 0.10.2 / 0.11 DEBUG
        ("Attempt to heartbeat failed for group tally since it is rebalancing.", "heartbeat_failed", "REBALANCE_IN_PROGRESS"),
        ("Attempt to heartbeat failed for group tally since generation id is not legal.", "heartbeat_failed", "ILLEGAL_GENERATION"),
        ("Attempt to heartbeat failed for group tally since member id is not valid.", "heartbeat_failed", "UNKNOWN_MEMBER_ID"),
        ("Attempt to join group tally failed due to unknown member id.", "join_failed", "UNKNOWN_MEMBER_ID"),
        ("Attempt to join group tally rejected since coordinator k1:9092 (id: 2147483646 rack: null) is loading the group.",
         "join_failed", "COORDINATOR_LOAD_IN_PROGRESS"),
        # 1.x-2.x with the LogContext prefix
        (P + "Attempt to heartbeat failed since group is rebalancing", "heartbeat_failed", "REBALANCE_IN_PROGRESS"),
        (P + "Attempt to heartbeat failed for since member id consumer-tally-2-aa is not valid.", "heartbeat_failed", "UNKNOWN_MEMBER_ID"),
        (P + "Attempt to heartbeat failed since generation 7 is not current", "heartbeat_failed", "ILLEGAL_GENERATION"),
    ]
    for msg, kind, err in cases:
        e = _ev(_k(msg))
        assert (e.kind, e.error) == (kind, err), msg
    e = _ev(_k(P + "Attempt to heartbeat failed for since member id consumer-tally-2-aa is not valid."))
    assert (e.member_id, e.group_id) == ("consumer-tally-2-aa", "tally")


def test_no_error_invented_where_the_branch_covers_several():
    # "either not started or not valid": NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE (2.0.1)
    e = _ev(_k(P + "Attempt to heartbeat failed since coordinator k1:9092 (id: 2147483646 rack: null) is either not started or not valid."))
    assert e.error is None
    # a printed error stays as printed (0.10.2 "Group coordinator lookup for group {} failed: {}")
    e = _ev(_k("Group coordinator lookup for group tally failed: The coordinator is not available.", lvl="DEBUG"))
    assert e.error == "The coordinator is not available."
    # successes carry none
    for msg in ("Received successful Heartbeat response for group tally", P + "Successfully joined group with generation 9"):
        assert _ev(_k(msg)).error is None


def test_encountered_reason_names_the_error():
    e = _ev(_k(P + "Resetting generation and member id due to: encountered UNKNOWN_MEMBER_ID from HEARTBEAT response"))
    assert (e.kind, e.error) == ("generation_reset", "UNKNOWN_MEMBER_ID")
    e = _ev(_k(P + "Request joining group due to: encountered ILLEGAL_GENERATION from SYNC_GROUP response"))
    assert e.error == "ILLEGAL_GENERATION"
    e = _ev(_k(P + "Resetting generation and member id due to: consumer pro-actively leaving the group"))
    assert e.kind == "generation_reset" and e.error is None


def test_fetch_position_out_of_range_values():
    pos = ("FetchPosition{offset=4410, offsetEpoch=Optional[2], currentLeader=LeaderAndEpoch{leader=Optional[k3:9092 "
           "(id: 3 rack: null)], epoch=2}}")
    e = _ev(_k(P + f"Fetch position {pos} is out of range for partition tally-11, resetting offset",
               "org.apache.kafka.clients.consumer.internals.Fetcher"))
    assert (e.kind, e.topic, e.partition, e.offset, e.group_id) == ("offset_reset", "tally", 11, 4410, "tally")
    assert e.partitions == ("tally-11",) or list(e.partitions) == ["tally-11"]


def test_stale_member_epoch_commit():
    e = _ev(_k(P + "OffsetCommit failed for member bWVtYmVyLTc with stale member epoch error. Last epoch sent: 14",
               "org.apache.kafka.clients.consumer.internals.CommitRequestManager", "ERROR"))
    assert (e.kind, e.member_id, e.member_epoch, e.error) == ("offset_commit_failed", "bWVtYmVyLTc", 14, "STALE_MEMBER_EPOCH")
    e = _ev(_k(P + "OffsetCommit failed for member undefined with stale member epoch error. Last epoch sent: undefined",
               "org.apache.kafka.clients.consumer.internals.CommitRequestManager", "ERROR"))
    assert e.member_epoch is None and e.error == "STALE_MEMBER_EPOCH"


def test_old_committed_offset_reset_is_a_fetched_offset():
    e = _ev(_k("Resetting offset for partition tally-4 to the committed offset 8812", "org.apache.kafka.clients.consumer.internals.Fetcher", "DEBUG"))
    assert (e.kind, e.topic, e.partition, e.offset) == ("offset_fetched", "tally", 4, 8812)
    # the auto.offset.reset wordings stay resets
    e = _ev(_k("Resetting offset for partition tally-4 to earliest offset.", "org.apache.kafka.clients.consumer.internals.Fetcher", "DEBUG"))
    assert e.kind == "offset_reset"
    e = _ev(_k(P + "Resetting offset for partition tally-4 to offset 0.", "org.apache.kafka.clients.consumer.internals.Fetcher"))
    assert (e.kind, e.offset) == ("offset_reset", 0)


def test_connect_2_3_joined_at_generation():
    w = "[Worker clientId=connect-2, groupId=sinks] "
    e = _ev(_k(w + "Joined group at generation 17 and got assignment: Assignment{error=0, leader='connect-2-ab', "
               "leaderUrl='http://10.0.0.9:8083/', offset=91, connectorIds=[jdbc], taskIds=[jdbc-0], revokedConnectorIds=[], "
               "revokedTaskIds=[], delay=0}", "org.apache.kafka.connect.runtime.distributed.DistributedHerder"))
    assert (e.kind, e.generation, e.group_id, e.extra.get("leader")) == ("assignment_received", 17, "sinks", "connect-2-ab")


def test_streams_partitions_lost_record():
    lines = ["[2020-05-05 05:05:05,555] INFO stream-thread [wc-StreamThread-3] at state RUNNING: partitions [text-2, text-5] lost due to missed rebalance.",
             "\tlost active tasks: [0_2, 0_5]", "\tlost assigned standby tasks: []",
             " (org.apache.kafka.streams.processor.internals.StreamThread)"]
    outs = _outs(lines)
    e = outs[1].event
    assert e is not None and e.kind == "partitions_lost" and list(e.partitions) == ["text-2", "text-5"]
    assert all(o.status != "unparsed" for o in outs.values())
    # grep-cut: the first line alone
    e = _ev("stream-thread [wc-StreamThread-3] at state PARTITIONS_ASSIGNED: partitions [] lost due to missed rebalance.")
    assert e.kind == "partitions_lost" and list(e.partitions or ()) == []


def test_kafka_python_fetching_committed_request_is_ignored():
    tp = "TopicPartition(topic='clicks', partition=3)"
    lines = [f"2023-01-01 00:00:01,000 DEBUG kafka.coordinator.consumer Group web fetching committed offsets for partitions: {{{tp}}}",
             f"2023-01-01 00:00:01,010 DEBUG kafka.coordinator.consumer Group web has no committed offset for partition {tp}"]
    outs = _outs(lines)
    assert outs[1].status != "unparsed" and outs[1].event is None
    e = outs[2].event
    assert (e.kind, e.group_id, e.topic, e.partition, e.client_library) == ("no_committed_offset", "web", "clicks", 3, "kafka-python")


def test_2_4_updating_assignment_record_behind_kafka_log4j():
    # ConsumerCoordinator 2.4.0-2.5.1: the record's lines are not indented; "(%c)" ends the last one
    lines = ["[2020-04-04 04:04:04,404] INFO " + P + "Updating assignment with",
             "now assigned partitions: tally-1, tally-2", "compare with previously owned partitions: tally-1, tally-3",
             "newly added partitions: tally-2", "revoked partitions: tally-3", f" ({CC})",
             "[2020-04-04 04:04:04,405] INFO " + P + "Revoke previously assigned partitions tally-3 (" + CC + ")"]
    outs = _outs(lines)
    e = outs[1].event
    assert e is not None and e.kind == "assignment_received" and list(e.partitions) == ["tally-1", "tally-2"]
    assert (e.group_id, e.extra["owned_partitions"], e.extra["added_partitions"], e.extra["revoked_partitions"]) == (
        "tally", ["tally-1", "tally-3"], ["tally-2"], ["tally-3"])
    assert all(o.status != "unparsed" for o in outs.values())
    assert outs[7].event.kind == "partitions_revoked" and list(outs[7].event.partitions) == ["tally-3"]
    # an empty section (the 2.4 list printed by Utils.join: nothing after the colon)
    lines[3] = "newly added partitions: "
    e = _outs(lines)[1].event
    assert e.kind == "assignment_received" and e.extra["added_partitions"] == [] and list(e.partitions) == ["tally-1", "tally-2"]


def test_connect_sink_task_commit_lines():
    ws = "org.apache.kafka.connect.runtime.WorkerSinkTask"
    oam = "{ledger-3=OffsetAndMetadata{offset=5150, leaderEpoch=null, metadata=''}}"
    for ctx in ("", "[jdbc-sink|task-1] "):  # Connect 2.3+ "%X{connector.context}" or none
        def line(msg, lvl="DEBUG", ctx=ctx):
            return f"[2023-03-03 03:03:03,303] {lvl} {ctx}WorkerSinkTask{{id=jdbc-sink-1}} {msg} ({ws}:410)"
        e = _ev(line(f"Committing offsets asynchronously using sequence number 88: {oam}"))
        assert (e.kind, list(e.partitions), e.offset, e.extra["sequence"], e.extra["connect_task"]) == (
            "offset_commit_sent", ["ledger-3"], 5150, 88, "jdbc-sink-1")
        e = _ev(line(f"Finished offset commit successfully in 12 ms for sequence number 88: {oam}"))
        assert (e.kind, e.offset, e.extra["duration_ms"]) == ("offset_committed", 5150, 12)
        assert _ev(line("Offset commit failed, rewinding to last committed offsets", "ERROR")).kind == "offset_commit_failed"
        assert _ev(line("Commit of offsets timed out", "WARN")).kind == "offset_commit_failed"
        e = _ev(line("Rewinding topic partition ledger-3 to offset 5100"))
        assert (e.kind, e.topic, e.partition, e.offset) == ("offset_seek", "ledger", 3, 5100)
        e = _ev(line("Rewind ledger-3 to offset 5100", "TRACE"))
        assert (e.kind, e.offset) == ("offset_seek", 5100)
        assert e.group_id is None  # the sink task's line names no group
    # another task message stays what it was (no event)
    o = _outs([f"[2023-03-03 03:03:03,303] INFO WorkerSinkTask{{id=jdbc-sink-1}} Executing sink task ({ws}:310)"])[1]
    assert o.event is None or o.event.kind == "unparsed"
