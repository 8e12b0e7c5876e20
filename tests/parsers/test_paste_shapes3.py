"""Session 18 (branch pastes3): shapes of pasted broker logs, `kafka-consumer-groups --describe` output
and `__consumer_offsets` dumps that a held-out set of 36 excerpts showed the reader missing or misreading
(docs/testing.md, "Recall on pasted logs", third round), each a general mechanism with the source it
mirrors:

- describe: the offsets-table row of a member that holds no partition (ConsumerGroupCommand 0.10.1+
  collectConsumerAssignment, `if (topicPartitions.isEmpty)`: every offsets cell MISSING_COLUMN_VALUE);
- describe: a row whose end the excerpt cut off keeps the cells it holds whole (the cell the cut falls in
  is dropped; an aligned row is cut at the header's column starts, so a cell holding spaces is not split);
- describe: the banners of every version (0.10.0-0.10.1 quote the group with backticks; "Error: " and
  "Warning: " prefixes), also as the whole of a pasted output;
- dumps: a DumpLogSegments record pasted from its `key: ` on; the tool's command line after any shell
  prompt; an OffsetsMessageFormatter / GroupMetadataMessageFormatter record soft-wrapped over lines;
- broker: 0.9-0.10's `[__consumer_offsets,P]` partition; GroupMetadata.scala 2.5-2.7's
  `Static member {}.groupInstanceId of group ..` (a whole MemberMetadata(..) in the hole); 4.x online
  migration `[GroupId g] Converted the classic group to a consumer group.` (and back).
Every input is built from the tools' format strings with invented names; each test asserts both ways."""

from __future__ import annotations

import pytest

from parsers import groups_describe, offsets_dump
from parsers.base import Match
from parsers.groups_describe import DescribeParser
from parsers.reader import parse_lines


def _outcomes(lines: list[str]):
    return {o.line_no: o for o in parse_lines("paste.log", list(enumerate(lines, 1)))}


def _events(lines: list[str]):
    return {no: o.event for no, o in _outcomes(lines).items() if o.event is not None}


# --- describe: ConsumerGroupCommand.scala 2.0 printOffsets -------------------------------------------

_OFFSETS_HEADER = ("TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID")


def _offsets_line(cells, topic_w=20, member_w=45, host_w=15):
    # println(s"%-${maxTopicLen}s %-10s %-15s %-15s %-15s %-${maxConsumerIdLen}s %-${maxHostLen}s %s")
    fmt = f"%-{topic_w}s %-10s %-15s %-15s %-15s %-{member_w}s %-{host_w}s %s"
    return fmt % tuple(cells)


def _describe(rows, command="$ kafka-consumer-groups --bootstrap-server b:9092 --describe --group billing"):
    return [command, "", _offsets_line(_OFFSETS_HEADER)] + [_offsets_line(r) for r in rows]


def test_member_without_partitions_row():
    lines = _describe([
        ("invoices", "3", "120", "130", "10", "consumer-billing-1-aa11", "/10.1.2.3", "consumer-billing-1"),
        ("-", "-", "-", "-", "-", "consumer-billing-2-bb22", "/10.1.2.4", "consumer-billing-2"),
        ("invoices", "4", "7", "9", "2", "-", "-", "-"),
    ])
    ev = _events(lines)
    assert sorted(ev) == [4, 5, 6]
    idle = ev[5]
    assert idle.kind == "describe_row" and idle.group_id == "billing"
    assert idle.member_id == "consumer-billing-2-bb22" and idle.client_id == "consumer-billing-2"
    assert idle.topic is None and idle.partition is None and idle.offset is None
    assert idle.extra["partition_count"] == 0
    assert ev[6].member_id is None and ev[6].offset == 7  # a partition without member stays what it was


@pytest.mark.parametrize("cells", [
    ("-", "-", "-", "-", "-", "-", "-", "-"),                          # no member either: no fact
    ("-", "3", "-", "-", "-", "consumer-billing-2-bb22", "/h", "c"),   # a partition without topic
])
def test_dash_rows_that_name_nothing_are_not_events(cells):
    p = DescribeParser()
    p.feed(_offsets_line(_OFFSETS_HEADER))
    assert not isinstance(p.feed(_offsets_line(cells)), Match)


def test_member_row_matches_row_regex():
    import re

    row = _offsets_line(("-", "-", "-", "-", "-", "consumer-billing-2-bb22", "/10.1.2.4", "consumer-billing-2"))
    assert re.search(groups_describe.ROW_REGEX, row)
    assert not re.search(groups_describe.ROW_REGEX, _offsets_line(("-",) * 8).rstrip())


def test_row_cut_by_the_excerpt_keeps_its_whole_cells():
    full = _offsets_line(("invoices", "3", "120", "130", "10", "consumer-billing-1-aa11", "/10.1.2.3", "c1"))
    cut_in_lag = full[: full.index("130") + 3]                 # ends right after LOG-END-OFFSET: LAG missing
    cut_in_member = full[: full.index("consumer-billing-1") + 12]
    ev = _events(_describe([]) + [cut_in_lag, cut_in_member, full[:20]])
    a, b = ev[4], ev[5]
    assert (a.topic, a.partition, a.offset) == ("invoices", 3, 120)
    assert a.extra["cut_columns"][0] == "LOG-END-OFFSET" and a.member_id is None  # "130" may be cut: dropped
    assert (b.offset, b.extra["log_end_offset"], b.extra["lag"]) == (120, 130, 10)
    assert b.member_id is None and b.extra["cut_columns"][0] == "CONSUMER-ID"     # a cut id is no id
    assert 6 not in ev                                                           # no partition left


def test_cut_row_never_splits_a_cell_that_holds_spaces():
    # kafka-go's client id "name (github.com/segmentio/kafka-go)" in CONSUMER-ID and CLIENT-ID cells
    member = "svc@host (github.com/segmentio/kafka-go)-4c1e"
    header = _offsets_line(_OFFSETS_HEADER, member_w=len(member))
    row = _offsets_line(("invoices", "2", "8", "19", "11", member, "/172.18.0.1", "svc@host (github.com/x)"),
                        member_w=len(member))
    cut = row[: row.index("(github.com") + 8]
    p = DescribeParser()
    p.feed(header)
    m = p.feed(cut)
    assert m.fields["partition"] == 2 and m.fields["offset"] == 8
    assert "member_id" not in m.fields


def test_state_row_cut_keeps_the_coordinator():
    # ConsumerGroupCommand.scala 2.4+ printStates: "%-{n}s %-25s %-20s %-15s %s" GROUP, COORDINATOR (ID), ...
    fmt = "%-30s %-25s %-20s %-15s %s"
    p = DescribeParser()
    p.feed(fmt % ("GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS"))
    whole = fmt % ("billing", "kafka-2:9092 (2)", "range", "Stable", "3")
    m = p.feed(whole)
    assert m.fields["coordinator"] == "2" and m.fields["extra"]["member_count"] == 3
    cut = p.feed(whole[: whole.index("Stable") + 6])
    assert cut.fields["coordinator"] == "2" and "state" not in cut.fields["extra"]
    assert cut.fields["extra"]["cut_columns"] == ["STATE", "#MEMBERS"]
    assert p.feed(whole[:12]) is None  # the group name alone: no coordinator, no row


@pytest.mark.parametrize(("banner", "state"), [
    ("Consumer group `billing` is rebalancing.", "Rebalancing"),                  # 0.10.1
    ("Consumer group `billing` does not exist.", "Dead"),                         # 0.10.1
    ("Error: The consumer group 'billing' does not exist.", "Dead"),              # 0.10.2+ printError
    ("Warning: Consumer group 'billing' is rebalancing.", "Rebalancing"),         # 0.10.2+
    ("Consumer group 'billing' has no active members.", "Empty"),                 # 0.10.2+
    ("Error: Consumer group 'billing' is rebalancing.", "Rebalancing"),           # prefix on any banner
    ("Consumer group `billing` does not exist or is rebalancing.", None),         # 0.10.0: either
])
def test_banners_of_every_version(banner, state):
    lines = _describe([("invoices", "0", "5", "5", "0", "-", "-", "-")])
    lines.insert(2, banner)
    out = _outcomes(lines)
    assert out[3].status == "ignored"
    assert out[5].event.extra.get("group_state") == state


def test_banner_alone_is_describe_output_not_unparsed():
    out = _outcomes(["Error: Consumer group 'billing' is rebalancing."])
    assert out[1].status == "ignored"
    # the same words inside a log line prove nothing: that file stays a log
    assert not groups_describe.looks_like_groups_describe(
        ["[2024-01-02 03:04:05,678] INFO Consumer group 'billing' is rebalancing. (my.app.Monitor)"])


# --- __consumer_offsets dumps ------------------------------------------------------------------------

@pytest.mark.parametrize(("line", "kind", "want"), [
    # DumpLogSegments 2.5-3.7 OffsetsMessageParser: "offset_commit::group=G,partition=T-P" / "offset=N"
    ("key: offset_commit::group=billing,partition=invoices-3 payload: offset=42", "offset_record",
     {"group_id": "billing", "topic": "invoices", "partition": 3, "offset": 42}),
    # 0.10.0-0.10.1: "metadata::G" / "protocolType:protocol:generation:assignment"
    ("key: metadata::billing payload: consumer:range:4:{consumer-1-aa11=[invoices-0]}", "group_metadata_record",
     {"group_id": "billing", "generation": 4, "protocol": "range"}),
    ("key: offset_commit::group=billing,partition=invoices-3 payload: <DELETE>", "tombstone",
     {"group_id": "billing", "partition": 3}),
])
def test_dump_record_pasted_from_its_key(line, kind, want):
    ev = _events([line])
    assert ev[1].kind == kind
    for k, v in want.items():
        assert getattr(ev[1], k) == v
    assert "log_offset" not in ev[1].extra  # the record's log offset was not pasted


@pytest.mark.parametrize("line", [
    "key: value pairs are how the config is written",
    "key: offset_commit is the record we want",
])
def test_key_words_that_are_no_record(line):
    assert offsets_dump.parse_offsets_dump_line(line) is None
    assert not offsets_dump.looks_like_offsets_dump([line])


_FORMATTER = "kafka.coordinator.group.GroupMetadataManager\\$OffsetsMessageFormatter"
_OAM = ("[billing,invoices,{p}]::OffsetAndMetadata(offset={o}, leaderEpoch=Optional[0], metadata=, "
        "commitTimestamp=1700000000{p}00, expireTimestamp=None)")


@pytest.mark.parametrize("prompt", ["root@broker-1:/# ", "% ", "[kafka@host bin]$ ", "bash-5.1# "])
def test_command_line_after_any_prompt_is_structure(prompt):
    lines = [prompt + f'kafka-console-consumer --formatter "{_FORMATTER}" --topic __consumer_offsets '
             "--bootstrap-server b:9092", _OAM.format(p=1, o=5)]
    out = _outcomes(lines)
    assert out[1].status == "ignored"
    assert out[2].event.kind == "offset_record" and out[2].event.offset == 5


def _wrap_at_spaces(text: str, width: int, keep_space: bool) -> list[str]:
    out, line = [], ""
    for word in text.split(" "):
        if line and len(line) + len(word) + 1 > width:
            out.append(line + (" " if keep_space else ""))
            line = word
        else:
            line = f"{line} {word}" if line else word
    return out + [line]


@pytest.mark.parametrize("keep_space", [True, False])
def test_formatter_record_soft_wrapped(keep_space):
    lines = []
    for p, o in ((1, 7), (0, 8)):
        lines += _wrap_at_spaces(_OAM.format(p=p, o=o), 50, keep_space)
    n = len(lines) // 2
    out = _outcomes(lines)
    first, second = out[1].event, out[n + 1].event
    assert (first.partition, first.offset, first.ts_ms) == (1, 7, 1700000000100)
    assert first.extra["leader_epoch"] == 0
    assert (second.partition, second.offset, second.ts_ms) == (0, 8, 1700000000000)
    assert [o.status for o in out.values()].count("parsed") == 2
    assert len(out) == len(lines)  # every line counted once


def test_group_metadata_record_soft_wrapped():
    # GroupMetadataMessageFormatter 2.x-3.x: "g::GroupMetadata(groupId=g, generation=N, protocolType=Some(consumer), ..)"
    rec = ("billing::GroupMetadata(groupId=billing, generation=3, protocolType=Some(consumer), currentState=Stable, "
           "members=Map(consumer-1-aa11 -> MemberMetadata(memberId=consumer-1-aa11, groupInstanceId=None, "
           "clientId=consumer-1, clientHost=/10.0.0.1, sessionTimeoutMs=10000, rebalanceTimeoutMs=300000, "
           "supportedProtocols=List(range), )))")
    ev = _events(_wrap_at_spaces(rec, 70, True))
    assert list(ev) == [1]
    assert ev[1].kind == "group_metadata_record" and ev[1].generation == 3
    assert ev[1].extra["members"][0]["member_id"] == "consumer-1-aa11"


def test_record_that_never_closes_is_read_as_written():
    cut = _OAM.format(p=1, o=7)[:60]           # the excerpt ends inside the record
    whole = _OAM.format(p=2, o=9)
    out = _outcomes([cut, whole])
    assert out[1].status == "unparsed"
    assert out[2].event.offset == 9 and out[2].event.partition == 2


# --- broker -----------------------------------------------------------------------------------------

def test_old_topic_and_partition_rendering():
    # GroupMetadataManager.scala 0.9-0.10 with TopicAndPartition.toString "[topic,partition]"
    ev = _events([
        "[2016-08-02 05:38:14,001] INFO [Group Metadata Manager on Broker 3]: Loading offsets and group metadata "
        "from [__consumer_offsets,47] (kafka.coordinator.GroupMetadataManager)",
        "[2016-08-02 05:38:14,002] INFO [Group Metadata Manager on Broker 3]: Finished loading offsets from "
        "[__consumer_offsets,47] in 5 milliseconds. (kafka.coordinator.GroupMetadataManager)",
        "[2016-08-02 05:38:14,003] INFO [Group Metadata Manager on Broker 3]: Finished loading offsets from "
        "[other_topic,47] in 5 milliseconds. (kafka.coordinator.GroupMetadataManager)",
    ])
    assert ev[1].extra["offsets_partition"] == 47 and ev[2].extra["offsets_partition"] == 47
    assert ev[1].coordinator == "3"
    assert "offsets_partition" not in ev[3].extra


def test_static_member_loaded_2_5():
    # GroupMetadata.scala 2.5-2.7: info(s"Static member $member.groupInstanceId of group $groupId loaded with
    # member id ${member.memberId} at generation ${group.generationId}.") prints MemberMetadata.toString
    member = ("MemberMetadata(memberId=svc-0-1a2b, groupInstanceId=Some(svc-0), clientId=svc, clientHost=/10.0.0.9, "
              "sessionTimeoutMs=10000, rebalanceTimeoutMs=60000, supportedProtocols=List(range, roundrobin), )")
    ev = _events([f"[2020-04-02 11:14:34,199] INFO Static member {member}.groupInstanceId of group billing loaded "
                  "with member id svc-0-1a2b at generation 7. (kafka.coordinator.group.GroupMetadata$)"])
    e = ev[1]
    assert e.side == "broker" and e.kind == "broker_group_loaded"
    assert (e.group_id, e.member_id, e.instance_id, e.client_id, e.generation) == (
        "billing", "svc-0-1a2b", "svc-0", "svc", 7)


@pytest.mark.parametrize(("text", "group"), [
    ("[GroupId orders] Converted the classic group to a consumer group.", "orders"),
    ("[GroupId orders] Converted the consumer group to a classic group.", "orders"),
])
def test_online_migration_4x(text, group):
    ev = _events([f"[2025-03-31 08:44:37,138] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=13] "
                  f"{text} (org.apache.kafka.coordinator.group.GroupMetadataManager)"])
    e = ev[1]
    assert e.kind == "broker_group_migrated" and e.group_id == group and e.coordinator == "1"
    assert e.extra["offsets_partition"] == 13


def test_migration_words_elsewhere_are_not_the_template():
    ev = _events(["[2025-03-31 08:44:37,138] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=13] "
                  "[GroupId orders] Converted the classic group to a share group. "
                  "(org.apache.kafka.coordinator.group.GroupMetadataManager)"])
    assert ev[1].kind == "unparsed"


# --- broker: CoordinatorRuntime's OptionalInt epochs, records soft-wrapped where they were pasted ------

_RUNTIME = "(org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime)"


@pytest.mark.parametrize(("epoch", "want"), [("OptionalInt[4]", 4), ("OptionalInt.empty", None), ("4", 4)])
def test_runtime_epoch_is_an_optional_int(epoch, want):
    # CoordinatorRuntime.java 3.7+: scheduleUnloadOperation(TopicPartition tp, OptionalInt partitionEpoch)
    ev = _events([f"[2025-05-13 08:46:00,883] INFO [GroupCoordinator id=1] Scheduling unloading of metadata for "
                  f"__consumer_offsets-7 with epoch {epoch} {_RUNTIME}"])
    e = ev[1]
    assert e.kind == "broker_group_unloaded" and e.coordinator == "1"
    assert e.extra["offsets_partition"] == 7 and e.extra.get("epoch") == want


def _soft_wrap(line: str, width: int) -> list[str]:
    return _wrap_at_spaces(line, width, False)


@pytest.mark.parametrize("width", [55, 72, 100])
def test_log4j_record_soft_wrapped_where_pasted(width):
    records = [
        f"[2025-05-13 08:46:00,883] INFO [GroupCoordinator id=1] Ignored unloading metadata for "
        f"__consumer_offsets-0 in epoch OptionalInt[0] since current epoch is 0. {_RUNTIME}",
        "[2024-11-20 19:08:23,099] INFO [GroupCoordinator 1]: Stabilized group spans generation 234 "
        "(__consumer_offsets-0) with 1 members (kafka.coordinator.group.GroupCoordinator)",
    ]
    lines = _soft_wrap(records[0], width) + _soft_wrap(records[1], width)
    out = _outcomes(lines)
    assert len(out) == len(lines)
    events = [o.event for o in out.values() if o.event is not None]
    assert [e.kind for e in events] == ["broker_group_unloaded", "broker_group_stabilized"]
    assert events[0].extra["offsets_partition"] == 0 and events[0].extra["logger"].endswith("CoordinatorRuntime")
    assert events[1].generation == 234 and events[1].group_id == "spans"


def test_soft_wrap_takes_no_stack_trace_and_no_record():
    lines = [
        "[2025-05-13 08:46:00,883] ERROR [GroupCoordinator id=1] Failed to load metadata",
        "java.lang.IllegalStateException: boom",
        "\tat org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime.load(CoordinatorRuntime.java:1)",
        "[2024-11-20 19:08:23,099] INFO [GroupCoordinator 1]: Stabilized group spans generation 234 "
        "(__consumer_offsets-0) with 1 members (kafka.coordinator.group.GroupCoordinator)",
    ]
    out = _outcomes(lines)
    assert out[4].event.kind == "broker_group_stabilized"
    assert "soft_wrapped" not in (out[1].event.extra if out[1].event else {})


def test_record_with_its_logger_takes_no_following_text():
    lines = [
        "[2024-11-20 19:08:23,099] INFO [GroupCoordinator 1]: Stabilized group spans generation 234 "
        "(__consumer_offsets-0) with 1 members (kafka.coordinator.group.GroupCoordinator)",
        "and then a sentence someone wrote under the line",
    ]
    ev = _events(lines)
    assert ev[1].generation == 234 and "soft_wrapped" not in ev[1].extra


def test_soft_wrap_never_glues_across_a_gap():
    # ingest hands parse_lines only candidate lines: a wrapped piece without a candidate word is missing
    line = (f"[2025-05-13 08:46:00,883] INFO [GroupCoordinator id=1] Scheduling unloading of metadata for "
            f"__consumer_offsets-7 with epoch OptionalInt[4] {_RUNTIME}")
    pieces = _soft_wrap(line, 72)
    whole = {o.line_no: o for o in parse_lines("paste.log", list(enumerate(pieces, 1)))}
    assert whole[1].event.kind == "broker_group_unloaded"
    gappy = [(no, t) for no, t in enumerate(pieces, 1) if no != 2]
    got = {o.line_no: o for o in parse_lines("paste.log", gappy)}
    assert sorted(got) == [no for no, _ in gappy]           # every line given still has one outcome
    assert got[1].status == "unparsed" and "soft_wrapped" not in got[1].event.extra  # not glued to line 3
