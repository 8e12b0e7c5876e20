"""The LALR value grammar (parsers/grammars/client.lark) and the regex fast paths agree."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# --- values.flat_value: the grammar's fast twin for flat dumps must agree with it exactly ---------

_PIECES = ["a", "Z", "1", "-", ".", "_", "$", "'", "=", ",", ", ", " ", "  ", "\t", "\n", "(", ")", "{", "}",
           "[", "]", "[]", "rack:", "(id:", "isFenced:", "Optional", "Optional[", "null", "x y", "\xa0", "é"]
_KEYS = st.sampled_from(["a", "memberId", "error_code", "group.id", "_k", "k-1", "Key", "1a", "a b", ""])
_VALS = st.one_of(st.sampled_from(["", "0", "-1", "'q'", "''", "'a, b)'", "'a=b'", "[]", "null", "rack:",
                                   "Optional", "Optional[1]", "x y", "Foo", "Foo(", "[t-0]", "{}", "'", "a'b"]),
                  st.lists(st.sampled_from(_PIECES), max_size=4).map("".join))
_FLATISH = st.builds(
    lambda open_, members, seps, close, pad: pad + open_ + "".join(
        (seps[i % len(seps)] if i else "") + k + "=" + v for i, (k, v) in enumerate(members)) + close + pad,
    st.sampled_from(["JoinGroupResponseData(", "Foo{", "{", "(", "foo(", "Optional["]),
    st.lists(st.tuples(_KEYS, _VALS), max_size=6),
    st.lists(st.sampled_from([", ", ",", ",  ", " , ", ";"]), min_size=1, max_size=3),
    st.sampled_from([")", "}", "]", ") x", ""]),
    st.sampled_from(["", " ", "\t"]),
)


# well-formed flat dumps whose atoms and quoted strings hold the grammar's other literals
_ATOM_CHARS = st.sampled_from(list("aZ09-._$:/@#*+!?;<>|~é") + ["rack:", "isFenced:", "Optional", "id:", "null"])
_FLAT_OK = st.builds(
    lambda pair, members, sep: pair[0] + sep.join(k + "=" + v for k, v in members) + pair[1],
    st.sampled_from([("JoinGroupResponseData(", ")"), ("Generation{", "}"), ("{", "}"), ("A$1(", ")")]),
    st.lists(st.tuples(st.sampled_from(["a", "memberId", "group.id", "_k", "k-1", "Key", "A"]),
                       st.one_of(st.just(""), st.just("[]"), st.lists(_ATOM_CHARS, min_size=1, max_size=4).map("".join),
                                 st.lists(st.sampled_from(list("a ,=(){}[]:") + ["rack:"]), max_size=4)
                                 .map(lambda xs: "'" + "".join(xs) + "'"))),
             max_size=6),
    st.sampled_from([", ", ","]),
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_FLAT_OK, _FLATISH, st.lists(st.sampled_from(_PIECES), max_size=30).map(lambda s: "{" + "".join(s) + "}")))
def test_flat_value_agrees_with_grammar(text):
    fast = values.flat_value(text)
    if fast is not None:
        assert fast == parse_value(text)


def test_flat_value_takes_the_common_dumps_and_leaves_the_rest():
    join = ("JoinGroupResponseData(throttleTimeMs=0, errorCode=0, generationId=5, protocolType='consumer', "
            "protocolName='range', leader='c-1', memberId='c-1', members=[])")
    for text in (join, "{error_code=0,generation_id=4,member_id=c-2,leader_id=}", "Foo()", "{}", "{a=1,a=2}",
                 VALUES[0][0], VALUES[2][0]):
        assert values.flat_value(text) is not None and values.flat_value(text) == parse_value(text)
    # nested values, truncated dumps, trailing words: the grammar's business
    for text in (VALUES[-1][0], VALUES[4][0], join + " for group g", join[:-1], "x=1"):
        assert values.flat_value(text) is None
    assert dict(values.struct_fields(join)) == {"error_code": 0, "generation": 5, "protocol": "range",
                                                "leader": "c-1", "member_id": "c-1"}


_OFFSET_PIECES = ["{", "}", " ", "orders-3", "t-0", "x", "=OffsetAndMetadata{offset=", "12", "-5", ", leaderEpoch=",
                  "null", "7", ", metadata=''", ",", "a b-1"]


def _offsets_by_split(text: str):  # the general loop of values.offsets_map, for every map size
    marker = "=OffsetAndMetadata{offset="
    if marker not in text:
        return ()
    pieces = text.split(marker)
    out = []
    for before, after in zip(pieces[:-1], pieces[1:], strict=True):
        tp = before[max(before.rfind("{"), before.rfind(" ")) + 1:]
        m = values._OFFSET_TAIL.match(after)
        if m is not None and tp.rpartition("-")[2].isdigit():
            out.append((tp, int(m.group(1)), m.group(2)))
    return tuple(out)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_OFFSET_PIECES), max_size=10).map("".join))
def test_offsets_map_one_partition_shortcut_agrees_with_the_loop(text):
    assert values.offsets_map.__wrapped__(text) == _offsets_by_split(text)


_VALUE_CHARS = st.sampled_from(list("0123456789-abAZ_ ,=(){}[]':.") + ["(id:", "rack:", "null", "Data(", "=[]"])


@settings(max_examples=400, deadline=None)
@given(st.sampled_from("0123456789-"), st.lists(_VALUE_CHARS, max_size=30))
def test_values_refused_before_lark_are_refused_by_lark(first, parts):
    """grammar._surely_not_a_value (the shortcut for ATOM-first text that is neither a node nor a
    scalar) only refuses text the value grammar refuses, and parse_value's answer is Lark's."""
    _check_shortcut_agrees_with_lark((first + "".join(parts)).strip())


@settings(max_examples=600, deadline=None)
@given(st.lists(_VALUE_CHARS | st.sampled_from(["host", "b1:9092", "Generation{", "}", "Node(", ")", " ", "x="]),
                max_size=30))
def test_unpaired_parentheses_refused_before_lark_are_refused_by_lark(parts):
    """The other shortcut of grammar._surely_not_a_value: text without quotes or brackets whose
    parentheses or braces do not pair up, whatever its first character."""
    _check_shortcut_agrees_with_lark("".join(parts).strip())


def test_a_node_cut_short_is_refused_before_lark():
    from parsers import grammar

    for text in ("broker1:9092 (id", "Generation{generationId=5, memberId=m", "b:1 (id: 1 rack: null"):
        assert grammar._surely_not_a_value(text) and parse_value(text) is None
    for text in ("b:1 (id: 1 rack: null)", "Generation{generationId=5, memberId='m(', protocol='r'}", "[a(, b]"):
        assert not grammar._surely_not_a_value(text)


_PREFIX_VALUES = st.sampled_from(["c-1", "consumer-app-0", "my.group_1", "...", "null", "a", "0", "-", "x.y-z_9",
                                  "a b", "a,b", "a]b", "'q'", "é", ""])


@settings(max_examples=800, deadline=None)
@given(st.sampled_from(["Consumer", "Worker", "ShareConsumer", "Producer", "AdminClient", "StreamsKafkaClient",
                        "Admin", "Consumer "]),
       st.none() | _PREFIX_VALUES, _PREFIX_VALUES, st.none() | _PREFIX_VALUES, st.sampled_from(["] ", "]", "]  "]))
def test_plain_prefixes_read_without_lark_as_the_grammar_reads_them(context, instance, client_id, group, end):
    """client._plain_prefix (the LogContext prefixes read by a regex, so that Lark is not imported)
    gives parse_prefix's dict whenever it takes the text, and takes the plain ones."""
    from parsers import client

    text = f"[{context} " + (f"instanceId={instance}, " if instance is not None else "") + f"clientId={client_id}" \
        + (f", groupId={group}" if group is not None else "") + end
    fast = client._plain_prefix(text)
    if fast is not None:
        assert fast == parse_prefix.__wrapped__(text) and list(fast) == list(parse_prefix.__wrapped__(text))
    plain = all(v is None or (v and all(c.isascii() and (c.isalnum() or c in "._-") for c in v))
                for v in (instance, client_id, group))
    if plain and end == "] " and context[-1] != " " and context != "Admin":
        assert fast is not None


def test_a_placeholder_with_its_neighbour_is_refused_before_lark():
    from parsers import grammar

    text = ("2147483646 rack: null): JoinGroupResponseData(throttleTimeMs=0, errorCode=0, generationId=5, "
            "protocolType='consumer', protocolName='range', leader='c-1', memberId='c-1', members=[])")
    assert grammar._surely_not_a_value(text) and parse_value(text) is None
    assert not grammar._surely_not_a_value("1 (id: 1 rack: null)") and parse_value("b:1 (id: 1 rack: null)") is not None
    assert not grammar._surely_not_a_value("42 [a, b]")


_INT_CASES = ["0", "7", "-1", "--1", "-", "", "+5", " 5", "5 ", "5\n", "²", "١٢", "1_000", "12a", "0x1f", "-0",
              "99999999999999999999", "-\u0663", "\u00b9\u00b2", "5.0"]


@given(st.text(alphabet="-0123456789²١ _+\n", max_size=6))
def test_is_int_is_the_strict_regex(text: str) -> None:
    # is_int/is_uint are str-method forms of `-?[0-9]+` / `[0-9]+` fullmatches (no regex call per value)
    from parsers.values import _STRICT_INT, _STRICT_UINT, is_int, is_uint

    for t in (text, *_INT_CASES):
        assert is_int(t) == (_STRICT_INT.fullmatch(t) is not None), t
        assert is_uint(t) == (_STRICT_UINT.fullmatch(t) is not None), t


def _check_shortcut_agrees_with_lark(text: str) -> None:
    """What grammar._surely_not_a_value refuses, Lark's value grammar refuses too, and
    parse_value's answer is Lark's."""
    from lark.exceptions import LarkError

    from parsers import grammar

    try:
        lark = grammar._parser("value").parse(text)
    except (LarkError, TypeError, ValueError):
        lark = None
    if grammar._surely_not_a_value(text):
        assert lark is None
    assert grammar.parse_value.__wrapped__(text) == lark


# values._ONE_OFFSET (one partition as OffsetAndMetadata#toString writes it, one fullmatch): pieces
# at its edges (an "=" in the epoch or metadata, a second marker, a digit of another script after the
# offset, tabs, Optional[..] epochs, braces)
_ONE_OFFSET_PIECES = ["{", "}", "}}", "orders-3", "t.x_y-10", "=OffsetAndMetadata{offset=", "12", "-5", "\u0663",
                      ", leaderEpoch=", "Optional[7]", "Optional.empty", "=", ", metadata='", "'", "a=b", "\t", " ",
                      "-", "x"]


def _offsets_without_fullmatch(text: str):  # offsets_map's own general code (the fullmatch never taken)
    fast = values._ONE_OFFSET
    values._ONE_OFFSET = re.compile(r"(?!)")
    try:
        return values.offsets_map.__wrapped__(text)
    finally:
        values._ONE_OFFSET = fast


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_ONE_OFFSET_PIECES), max_size=12).map("".join))
def test_offsets_map_single_fullmatch_agrees_with_the_general_code(text):
    assert values.offsets_map.__wrapped__(text) == _offsets_without_fullmatch(text)


def test_offsets_map_canonical_commits_take_the_fullmatch():
    for text, want in (("{orders-1=OffsetAndMetadata{offset=47931, leaderEpoch=0, metadata=''}}", ("orders-1", 47931, "0")),
                       ("{t-0=OffsetAndMetadata{offset=5, leaderEpoch=Optional[3], metadata='m'}}", ("t-0", 5, "Optional[3]")),
                       ("{t-0=OffsetAndMetadata{offset=-1, metadata=''}}", ("t-0", -1, None))):
        assert values._ONE_OFFSET.fullmatch(text) is not None
        assert values.offsets_map.__wrapped__(text) == (want,) == _offsets_without_fullmatch(text)
    for text in ("{t-0=OffsetAndMetadata{offset=5, leaderEpoch=0, metadata='=OffsetAndMetadata{offset=6'}}",
                 "{t-0=OffsetAndMetadata{offset=5\u0663, metadata=''}}"):
        assert values._ONE_OFFSET.fullmatch(text) is None
        assert values.offsets_map.__wrapped__(text) == _offsets_without_fullmatch(text)
