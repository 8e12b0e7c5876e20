"""java.util.HashMap iteration order and String.hashCode, checked against a JVM (OpenJDK 17)."""

from pipeline.coordinator.assignors.javaorder import (
    JavaHashMapOrder,
    java_hashmap_order,
    java_str_key,
    java_string_hash,
    topic_partition_hash,
)


def test_string_hash_matches_java():
    # values from FORMAT-AND-RULES.md section 5 and a JVM
    assert java_string_hash("groupId") == 293428218
    assert java_string_hash("otherGroup") == -204443313
    assert java_string_hash("my-group") == -1906497762
    assert java_string_hash("polygenelubricants") == -2147483648
    assert java_string_hash("") == 0
    assert java_string_hash("m-\u00e9") == 106377
    assert java_string_hash("x\U0001F600") == 1888219  # surrogate pair: two UTF-16 units


def test_hashmap_order_of_three_consumers():
    # FORMAT-AND-RULES.md: for consumer1..3 the order is consumer3, consumer2, consumer1
    assert java_hashmap_order(["consumer1", "consumer2", "consumer3"]) == ["consumer3", "consumer2", "consumer1"]


def test_hashmap_order_with_resizes_matches_jvm():
    # 40 keys: the table grows 16 -> 32 -> 64; order printed by OpenJDK 17
    jvm = ("c31,c30,c11,c33,c10,c32,c13,c35,c12,c34,c15,c37,c14,c36,c17,c39,c16,c38,c19,c18,c20,c00,c22,c21,"
           "c02,c24,c01,c23,c04,c26,c03,c25,c06,c28,c05,c27,c08,c07,c29,c09").split(",")
    assert java_hashmap_order([f"c{i:02d}" for i in range(40)]) == jvm


def test_hashmap_order_with_non_ascii_ids_matches_jvm():
    keys = ["consumer-b", "consumer-a", "consumer1", "consumer2", "consumer3", "consumer4", "consumer5", "m-\u00e9", "x\U0001F600"]
    jvm = ["x\U0001F600", "consumer5", "m-\u00e9", "consumer4", "consumer3", "consumer2", "consumer-b", "consumer1", "consumer-a"]
    assert java_hashmap_order(keys) == jvm


def test_topic_partition_hashset_order_matches_jvm():
    m = JavaHashMapOrder(lambda tp: topic_partition_hash(*tp))
    for p in range(30):
        m.add(("topic" if p % 2 == 0 else "t1", p))
    jvm = ("topic-26,t1-29,topic-28,t1-27,t1-25,t1-23,topic-18,t1-21,topic-20,t1-19,topic-22,t1-17,topic-24,t1-15,"
           "t1-13,t1-11,t1-9,t1-7,t1-5,t1-3,t1-1,topic-0,topic-10,topic-12,topic-14,topic-16,topic-2,topic-4,topic-6,topic-8")
    assert ",".join(f"{t}-{p}" for t, p in m) == jvm
    assert m.first() == ("topic", 26)


def test_remove_and_reinsert_moves_key_to_bucket_end():
    m = JavaHashMapOrder.of(["a", "q"], java_string_hash)  # 'a'=97, 'q'=113: both in bucket 1 of 16
    assert list(m) == ["a", "q"]
    m.remove("a")
    m.add("a")
    assert list(m) == ["q", "a"]
    m.add("q")  # put of an existing key keeps its place
    assert list(m) == ["q", "a"]


def test_java_string_order_is_utf16():
    # U+FF5E sorts after U+1F600 in Java (0xFF5E > 0xD83D) but before it in Python
    assert sorted(["\U0001F600", "\uff5e"], key=java_str_key) == ["\U0001F600", "\uff5e"]
    assert sorted(["\U0001F600", "\uff5e"]) == ["\uff5e", "\U0001F600"]
