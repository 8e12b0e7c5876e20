"""__consumer_offsets dumps: every shape of the formats doc, the real dumps 027 and 034."""

from __future__ import annotations

import re

import pytest

from parsers.base import IGNORE
from parsers.offsets_dump import (
    looks_like_offsets_dump,
    parse_offsets_dump_line,
    parse_offsets_dump_records,
)

from .helpers import real_log


def doc_examples(shared_dir) -> list[str]:
    doc = (shared_dir / "formats" / "consumer-offsets-dump-formats.md").read_text()
    lines = []
    for block in re.findall(r"Constructed examples[^\n]*\n\n```\n(.*?)```", doc, re.S):
        lines.extend(line for line in block.splitlines() if line.strip())
    return lines


def test_every_constructed_example_of_the_formats_doc_parses(shared_dir):
    lines = doc_examples(shared_dir)
    assert len(lines) >= 16
    for line in lines:
        m = parse_offsets_dump_line(line)
        assert m is not None and m is not IGNORE, line
        assert m.kind in ("offset_record", "group_metadata_record", "tombstone"), line
        assert m.fields.get("group_id") == "my-group", (line, m)


@pytest.mark.parametrize(
    "line, kind, fields, extra",
    [
        # OffsetMetadataAndError.scala 0.9-2.0
        ("[my-group,orders,0]::[OffsetMetadata[1234,NO_METADATA],CommitTime 1480000000000,ExpirationTime 1480086400000]",
         "offset_record", {"topic": "orders", "partition": 0, "offset": 1234, "ts_ms": 1480000000000},
         {"expire_ms": 1480086400000, "metadata": ""}),
        # OffsetAndMetadata.scala 2.1+, with a leader epoch, metadata and expire timestamp (v1 record)
        ("[g,orders.v2,11]::OffsetAndMetadata(offset=98765, leaderEpoch=Optional[4], metadata=batch-7, "
         "commitTimestamp=1700000000000, expireTimestamp=Some(1700086400000))",
         "offset_record", {"topic": "orders.v2", "partition": 11, "offset": 98765, "ts_ms": 1700000000000},
         {"leader_epoch": 4, "metadata": "batch-7", "expire_ms": 1700086400000}),
        # group id with a comma: GroupTopicPartition is split from the right
        ("[team,a,orders,3]::NULL", "tombstone", {"group_id": "team,a", "topic": "orders", "partition": 3}, {}),
        # GroupMetadata 0.11-2.2 with trailing ", )" and two members in a Map
        ("g::GroupMetadata(groupId=g, generation=3, protocolType=Some(consumer), currentState=Stable, members=Map("
         "c-1-aa -> MemberMetadata(memberId=c-1-aa, clientId=c-1, clientHost=/10.0.0.5, sessionTimeoutMs=10000, "
         "rebalanceTimeoutMs=300000, supportedProtocols=List(range), ), c-2-bb -> MemberMetadata(memberId=c-2-bb, "
         "groupInstanceId=Some(pod-2), clientId=c-2, clientHost=/10.0.0.6, sessionTimeoutMs=10000, "
         "rebalanceTimeoutMs=300000, supportedProtocols=List(range, roundrobin))))",
         "group_metadata_record", {"group_id": "g", "generation": 3},
         {"member_count": 2, "state": "Stable", "protocol_type": "consumer"}),
        # DumpLogSegments 0.10-0.11 colon form of group metadata
        ("offset: 7 position: 900 isvalid: true payloadsize: 80 magic: 1 compresscodec: NoCompressionCodec crc: 1 "
         "keysize: 12 key: metadata::g payload: consumer:range:4:{c-1=[orders-0, orders-1],c-2=[orders-2]}",
         "group_metadata_record", {"group_id": "g", "generation": 4, "protocol": "range"}, {"member_count": 2}),
        # DumpLogSegments 2.5-3.7 with metadata
        ("| offset: 9 CreateTime: 1600000000000 keysize: 26 valuesize: 24 sequence: -1 headerKeys: [] "
         "key: offset_commit::group=g-1,partition=my-topic-12 payload: offset=55,metadata=hello",
         "offset_record", {"group_id": "g-1", "topic": "my-topic", "partition": 12, "offset": 55}, {"metadata": "hello"}),
        ("| offset: 10 CreateTime: 1600000000001 keysize: 12 valuesize: -1 sequence: -1 headerKeys: [] "
         "key: group_metadata::group=g-1 payload: <DELETE>", "tombstone", {"group_id": "g-1"}, {"record": "group_metadata"}),
        # trunk-2024-12-27 JSON formatter: "type" instead of "version", v1 value with expireTimestamp
        ('{"key":{"type":0,"data":{"group":"my-group","topic":"orders","partition":1}},"value":{"version":1,'
         '"data":{"offset":100,"metadata":"metadata","commitTimestamp":1234,"expireTimestamp":-1}}}',
         "offset_record", {"offset": 100, "partition": 1, "ts_ms": 1234}, {"expire_ms": -1, "metadata": "metadata"}),
    ],
)
def test_shapes(line, kind, fields, extra):
    m = parse_offsets_dump_line(line)
    assert m is not None and m is not IGNORE
    assert m.kind == kind
    for k, v in fields.items():
        assert m.fields.get(k) == v, (k, m.fields)
    for k, v in extra.items():
        assert m.fields["extra"].get(k) == v, (k, m.fields)


def test_glued_json_records_all_come_back():
    one = '{"key":{"version":1,"data":{"group":"g","topic":"t","partition":%d}},"value":{"version":3,"data":{"offset":%d,"leaderEpoch":0,"metadata":"","commitTimestamp":5}}}'
    line = one % (0, 10) + one % (1, 20) + one % (2, 30)
    recs = parse_offsets_dump_records(line)
    assert [(r.fields["partition"], r.fields["offset"]) for r in recs] == [(0, 10), (1, 20), (2, 30)]
    assert parse_offsets_dump_line(line).fields["extra"]["records_on_line"] == 3


def test_structural_lines_are_ignored():
    for line in ["$ kafka-dump-log.sh --offsets-decoder \\", "  --files /x/00000000000000000000.log",
                 "Dumping /x/00000000000000000000.log", "Starting offset: 0", "...", "",
                 "baseOffset: 3 lastOffset: 5 count: 3 baseSequence: 0 lastSequence: 2 producerId: -1",
                 "| offset: 6 CreateTime: 1 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 0",
                 "Processed a total of 12 messages"]:
        assert parse_offsets_dump_line(line) is IGNORE, line


def test_unknown_record_shapes_are_none():
    assert parse_offsets_dump_line("[g,t,0]::SomethingNew(offset=1)") is None
    assert parse_offsets_dump_line("| offset: 1 CreateTime: 1 key: strange::x payload: y") is None
    assert parse_offsets_dump_line('{"key":{"version":1,"data":{"group":"g"') is None


def test_real_027_formatter(shared_dir):
    lines = real_log(shared_dir, "027")
    assert looks_like_offsets_dump(lines)
    out = [parse_offsets_dump_line(line) for line in lines]
    recs = [m for m in out if m is not IGNORE]
    assert all(m is not None for m in recs)
    assert [(m.fields["offset"], m.fields["ts_ms"]) for m in recs] == [
        (1143, 1548381505084), (1147, 1548381506082), (1151, 1548381507084)]
    assert {(m.fields["group_id"], m.fields["topic"], m.fields["partition"]) for m in recs} == {
        ("papa-consumer-koala3", "koala3", 0)}
    assert all(m.fields["extra"]["leader_epoch"] is None and m.fields["extra"]["expire_ms"] is None for m in recs)
    assert sum(1 for m in out if m is IGNORE) == 3  # the shell command and two "..." elisions


def test_real_034_dump_log_json(shared_dir):
    lines = real_log(shared_dir, "034")
    assert looks_like_offsets_dump(lines)
    out = [parse_offsets_dump_line(line) for line in lines]
    recs = [m for m in out if m is not IGNORE]
    assert all(m is not None and m.kind == "offset_record" for m in recs)
    got = [(m.fields["topic"], m.fields["partition"], m.fields["offset"], m.fields["extra"]["leader_epoch"]) for m in recs]
    assert got == [("pi-topic", 0, 3, 0), ("pi-topic", 1, 2, -1), ("pi-topic", 2, 4, 0)]
    assert {m.fields["group_id"] for m in recs} == {"pi-group"}
    assert {m.fields["ts_ms"] for m in recs} == {1742295916641}
    assert {m.fields["extra"]["value_version"] for m in recs} == {3}


@pytest.mark.parametrize("command", [
    "$ docker-compose exec dc2 kafka-console-consumer --topic __consumer_offsets --formatter "
    "\"kafka.coordinator.group.GroupMetadataManager$OffsetsMessageFormatter\"",
    "$ kubectl exec broker-0 -- bin/kafka-dump-log.sh --deep-iteration --print-data-log --offsets-decoder \\",
    "bin/kafka-console-consumer.sh --topic __consumer_offsets --formatter "
    "'kafka.coordinator.group.GroupMetadataManager$OffsetsMessageFormatter'",
    "C:\\kafka>bin\\windows\\kafka-console-consumer.bat --formatter kafka.coordinator.group.GroupMetadataManager$OffsetsMessageFormatter",
    "[root@broker-1 kafka]# bin/kafka-run-class.sh kafka.tools.DumpLogSegments --offsets-decoder --files x.log",
    "ubuntu@ip-10-0-0-1:~/kafka$ ./bin/kafka-dump-log.sh --offsets-decoder --files x.log",
])
def test_the_dump_command_alone_marks_a_dump(command):
    assert looks_like_offsets_dump(["some header", command])


def test_the_decoder_named_outside_a_command_is_not_a_dump():
    """A TSV or README that describes dumps names the decoder too (shared/real_logs/MANIFEST.tsv did)."""
    assert not looks_like_offsets_dump([
        "file\tkind\tnotes",
        "034-offsets_dump-json.log\toffsets_dump\t\"other: kafka-dump-log.sh --offsets-decoder with JSON keys\"",
        "027.log\toffsets_dump\t\"kafka-console-consumer --formatter GroupMetadataManager$OffsetsMessageFormatter\"",
        "Run the dump with --offsets-decoder to see the group of each record.",
    ])


def test_sniffing_rejects_other_files(shared_dir):
    assert not looks_like_offsets_dump(real_log(shared_dir, "006"))
    assert not looks_like_offsets_dump(real_log(shared_dir, "002"))


def test_fast_path_agrees_with_lark(shared_dir):
    from parsers.offsets_dump import _parse, lark_parse

    lines = [line for line in doc_examples(shared_dir) if "::" in line and not line.startswith(("|", "offset:"))]
    assert len(lines) >= 7
    for line in lines:
        hit = _parse(line, "formatter_line")
        rule, why = lark_parse(line)
        assert hit is not None and hit[0] == rule, (line, why)
    assert lark_parse("[g,t,0]::Nope")[0] is None
    for key in ("offset::g:t:0", "metadata::g", "offset_commit::group=g,partition=t-1", "group_metadata::group=g"):
        assert _parse(key, "dump_key")[0] == lark_parse(key, "dump_key")[0]


def test_kip848_consumer_group_records_in_dump_log():
    # DumpLogSegments 3.8+: record types 3.. are the new consumer-group records (KIP-848)
    meta = ('| offset: 40 CreateTime: 1720000000000 keySize: 10 valueSize: 12 sequence: -1 headerKeys: [] '
            'key: {"type":"3","data":{"groupId":"g"}} payload: {"version":"0","data":{"epoch":5}}')
    member = ('| offset: 41 CreateTime: 1720000000001 keySize: 20 valueSize: -1 sequence: -1 headerKeys: [] '
              'key: {"type":"5","data":{"groupId":"g","memberId":"m-1"}} payload: <DELETE>')
    a = parse_offsets_dump_line(meta)
    assert a.kind == "group_metadata_record" and a.fields["group_id"] == "g" and a.fields["generation"] == 5
    assert a.fields["extra"]["record_type"] == 3
    b = parse_offsets_dump_line(member)
    assert b.kind == "tombstone" and b.fields["member_id"] == "m-1" and b.fields["extra"]["record_type"] == 5


def test_every_result_is_json_serialisable(shared_dir):
    import json

    for line in doc_examples(shared_dir):
        m = parse_offsets_dump_line(line)
        json.dumps(m.fields)


def test_sniffers_pick_exactly_their_real_files(shared_dir):
    from parsers.groups_describe import looks_like_groups_describe

    dumps, describes = set(), set()
    for path in sorted((shared_dir / "real_logs").glob("0*.log")):
        lines = path.read_text(errors="replace").splitlines()
        if looks_like_offsets_dump(lines):
            dumps.add(path.name[:3])
        if looks_like_groups_describe(lines):
            describes.add(path.name[:3])
    assert dumps == {"027", "034"}
    assert describes == {"002", "028"}
