"""The LALR value grammar (parsers/grammars/client.lark) and the regex fast paths agree."""

from __future__ import annotations

import pytest

from parsers import values
from parsers.grammar import parse_prefix, parse_value

VALUES = [
    ("Generation{generationId=5, memberId='m-1', protocol='range'}",
     {"@type": "Generation", "generationId": "5", "memberId": "m-1", "protocol": "range"}),
    ("kafka:29092 (id: 1 rack: null isFenced: false)",
     {"@type": "Node", "host": "kafka", "port": "29092", "id": "1", "rack": "null", "isFenced": "false"}),
    ("Coordinator(key='g', nodeId=1, host='kafka', port=29092, errorCode=0, errorMessage='')",
     {"@type": "Coordinator", "key": "g", "nodeId": "1", "host": "kafka", "port": "29092", "errorCode": "0",
      "errorMessage": ""}),
    ("[t-0, t-1]", ["t-0", "t-1"]),
    ("{jade-0=OffsetAndMetadata{offset=6, leaderEpoch=0, metadata=''}}",
     {"jade-0": {"@type": "OffsetAndMetadata", "offset": "6", "leaderEpoch": "0", "metadata": ""}}),
    ("{m-1=Assignment(partitions=[w-0, w-1])}", {"m-1": {"@type": "Assignment", "partitions": ["w-0", "w-1"]}}),
    ("{error_code=0,generation_id=1,group_protocol=range,leader_id=c-1,member_id=c-2,members=[{member_id=c-9,member_metadata=java.nio.HeapByteBuffer[pos=0 lim=1 cap=1]}]}",
     {"error_code": "0", "generation_id": "1", "group_protocol": "range", "leader_id": "c-1", "member_id": "c-2",
      "members": [{"member_id": "c-9", "member_metadata": "java.nio.HeapByteBuffer [pos=0 lim=1 cap=1]"}]}),
]


@pytest.mark.parametrize(("text", "expected"), VALUES)
def test_value_grammar(text, expected):
    assert parse_value(text) == expected


def test_value_helpers_use_grammar_and_agree_with_regex():
    assert values.generation("Generation{generationId=5, memberId='m-1', protocol='range'}") == (5, "m-1", "range")
    assert values.generation("7") == (7, None, None)
    assert values.node("kafka:29092 (id: 1 rack: null isFenced: false)") == ("kafka:29092", 1)
    assert values.node("Coordinator(key='g', nodeId=3, host='b3', port=9092, errorCode=0, errorMessage='')") == ("b3:9092", 3)
    assert values.node("... (id: ... rack: null)") == (None, None)
    # top-level keys win: the nested member_id c-9 does not shadow the response's own c-2
    assert dict(values.struct_fields(VALUES[-1][0])) == {"error_code": 0, "generation": 1, "protocol": "range",
                                                         "leader": "c-1", "member_id": "c-2"}
    # truncated dump: outside the grammar, regex fallback still finds the keys
    assert dict(values.struct_fields("{error_code=0,generation_id=4,member_id=c-2,mem"))["generation"] == 4
    for text, _ in VALUES:  # flat values: regex fast path == grammar
        v = parse_value(text)
        if isinstance(v, list):
            assert list(values.partitions(text)) == v
    offsets = parse_value(VALUES[4][0])
    assert values.offsets_map(VALUES[4][0]) == tuple((tp, int(o["offset"]), o["leaderEpoch"]) for tp, o in offsets.items())
    assert values.assignment_map(VALUES[5][0]) == (("m-1", ("w-0", "w-1")),)


def test_prefix_grammar():
    assert parse_prefix("[Consumer instanceId=i-1, clientId=c-1, groupId=g] ") == {
        "context": "Consumer", "instance_id": "i-1", "client_id": "c-1", "group_id": "g"}
    assert parse_prefix("[Worker clientId=connect-1, groupId=connect-cluster] ")["context"] == "Worker"
    assert parse_prefix("[Consumer clientId=c, groupId=] ")["group_id"] is None
    assert parse_prefix("[GroupCoordinator 1]: ") is None
