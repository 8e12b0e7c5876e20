"""kafka-consumer-groups --describe tables: real outputs 002 and 028, and each version's column set."""

from __future__ import annotations

from parsers.base import IGNORE
from parsers.groups_describe import DescribeParser, looks_like_groups_describe

from .helpers import real_log


def feed_all(lines):
    p = DescribeParser()
    return [p.feed(line) for line in lines]


def rows(out):
    return [m for m in out if m is not IGNORE and m is not None]


def test_real_002_modern_table(shared_dir):
    lines = real_log(shared_dir, "002")
    assert looks_like_groups_describe(lines)
    out = feed_all(lines)
    assert out[0] is IGNORE and None not in out
    got = rows(out)
    assert len(got) == 6
    assert {r.fields["group_id"] for r in got} == {"kite-group"}
    assert {r.fields["topic"] for r in got} == {"kite-sierra"}
    assert {r.fields["member_id"] for r in got} == {"console-consumer-394e9dca-6de2-4d34-b17f-ade779920b4b"}
    assert {r.fields["client_id"] for r in got} == {"console-consumer"}
    assert {r.fields["extra"]["host"] for r in got} == {"/127.0.0.1"}
    assert all("offset" not in r.fields and r.fields["extra"]["lag"] is None for r in got)
    leo = {r.fields["partition"]: r.fields["extra"]["log_end_offset"] for r in got}
    assert leo == {0: 3, 1: 420, 2: 217, 3: 106, 4: 106, 5: 166}
    assert all(r.kind == "describe_row" for r in got)


def test_real_028_owner_column_and_shell_continuations(shared_dir):
    lines = real_log(shared_dir, "028")
    assert looks_like_groups_describe(lines)
    out = feed_all(lines)
    assert out[:5] == [IGNORE] * 5  # 4 command lines with backslash continuations + header
    got = rows(out)
    assert len(got) == 5 and None not in out
    facts = [(r.fields["partition"], r.fields.get("offset"), r.fields["extra"]["log_end_offset"],
              r.fields["extra"]["lag"], r.fields["client_id"], r.fields["extra"]["host"]) for r in got]
    assert facts == [
        (0, None, 6971673, None, "consumer-1", "/192.0.2.203"),
        (1, 6504517, 6504517, 0, "consumer-1", "/192.0.2.203"),
        (2, None, 6507391, None, "consumer-1", "/192.0.2.203"),
        (3, 6175882, 6969714, 793832, "consumer-1", "/192.0.2.172"),
        (4, None, 6503479, None, "consumer-1", "/192.0.2.172"),
    ]
    assert {(r.fields["group_id"], r.fields["topic"]) for r in got} == {("gazelle", "peridot")}
    assert got[0].fields["extra"]["owner"] == "consumer-1_/192.0.2.203"


def test_0_10_2_table_without_group_column_takes_group_from_command_and_banner():
    lines = [
        "$ bin/kafka-consumer-groups.sh --bootstrap-server b:9092 --describe --group billing",
        "Note: This will only show information about consumers that use the Java consumer API (non-ZooKeeper-based consumers).",
        "",
        "Consumer group 'billing' is rebalancing.",
        "TOPIC                          PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG        CONSUMER-ID                                       HOST                           CLIENT-ID",
        "invoices                       0          10              15              5          consumer-1-9a1b                                   /10.1.1.1                      consumer-1",
        "invoices                       1          -               7               -          -                                                 -                              -",
    ]
    out = feed_all(lines)
    assert out[:5] == [IGNORE] * 5
    a, b = rows(out)
    assert (a.fields["group_id"], a.fields["partition"], a.fields["offset"], a.fields["extra"]["lag"]) == ("billing", 0, 10, 5)
    assert a.fields["member_id"] == "consumer-1-9a1b" and a.fields["extra"]["group_state"] == "Rebalancing"
    assert "member_id" not in b.fields and "client_id" not in b.fields and b.fields["extra"]["log_end_offset"] == 7


def test_members_verbose_and_state_tables():
    lines = [
        "Consumer group 'g' has no active members.",
        "",
        "GROUP           CONSUMER-ID                                   GROUP-INSTANCE-ID  HOST            CLIENT-ID       #PARTITIONS     ASSIGNMENT",
        "g               consumer-g-1-77aa                             pod-1              /10.0.0.5       consumer-g-1    3               orders(0,1), audit(4)",
        "g               consumer-g-2-88bb                             -                  /10.0.0.6       consumer-g-2    0               -",
        "",
        "GROUP                     COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE           #MEMBERS",
        "g                         broker-2.example:9092  (2) range                Stable          2",
    ]
    out = feed_all(lines)
    m1, m2, st = rows(out)
    assert m1.fields["member_id"] == "consumer-g-1-77aa" and m1.fields["instance_id"] == "pod-1"
    assert m1.fields["partitions"] == ("orders-0", "orders-1", "audit-4")
    assert m1.fields["extra"]["partition_count"] == 3 and m1.fields["extra"]["table"] == "members"
    assert "instance_id" not in m2.fields and "partitions" not in m2.fields
    assert st.fields["coordinator"] == "2" and st.fields["extra"]["coordinator_host"] == "broker-2.example:9092"
    assert st.fields["extra"]["state"] == "Stable" and st.fields["extra"]["member_count"] == 2
    assert st.fields["extra"]["group_state"] == "Empty"


def test_headerless_rows_and_garbage():
    p = DescribeParser()
    r = p.feed("g  t  3  100  120  20  c-1-xx  /10.0.0.1  c-1")
    assert r.fields["group_id"] == "g" and r.fields["extra"]["lag"] == 20
    assert p.feed("this is not a table row") is None
    assert p.feed("GROUP TOPIC PARTITION MYSTERY-COLUMN") is None
    p.feed("GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID")
    assert p.feed("g t x 1 2 3 c h c") is None  # non-numeric partition
    assert p.feed("g t 1 2") is None  # wrong cell count


def test_sniffing():
    assert not looks_like_groups_describe(["[2024-01-01 00:00:00,000] INFO hello (kafka.server.KafkaServer)"])
    assert looks_like_groups_describe(["$ kafka-consumer-groups --bootstrap-server x:9092 \\", "  --describe --group g"])
    assert looks_like_groups_describe(["[root@b1 kafka]# bin/kafka-consumer-groups.sh --bootstrap-server x:9092 --describe --group g"])
    # the tool and the flag named in text that describes files is not a describe output (parsers/commands.py)
    assert not looks_like_groups_describe([
        "file\tkind\tnotes",
        "002-describe.log\tgroups_describe\t\"other: kafka-consumer-groups --describe table\"",
        "Use kafka-consumer-groups with --describe to see the lag.",
    ])


def test_row_regex_matches_every_parsed_row(shared_dir):
    import re

    from parsers.groups_describe import ROW_REGEX

    rx = re.compile(ROW_REGEX)
    tables = [
        real_log(shared_dir, "002"),
        real_log(shared_dir, "028"),
        ["GROUP CONSUMER-ID GROUP-INSTANCE-ID HOST CLIENT-ID #PARTITIONS ASSIGNMENT",
         "g  c-1-77aa  pod-1  /10.0.0.5  c-1  3  orders(0,1), audit(4)",
         "g  c-2-88bb  -  /10.0.0.6  c-2  0"],
        ["GROUP                     COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE           #MEMBERS",
         "g                         broker-2.example:9092  (2) range                Stable          2"],
    ]
    parsed = 0
    for lines in tables:
        p = DescribeParser()
        for line in lines:
            out = p.feed(line)
            if out is not None and out is not IGNORE:
                parsed += 1
                assert rx.search(line), line
    assert parsed == 6 + 5 + 2 + 1


def test_4x_members_verbose_epochs_and_assignments():
    # tools/.../ConsumerGroupCommand.java (4.x): assignments print as "topic:0,1;topic2:3"
    lines = [
        "GROUP           CONSUMER-ID                HOST            CLIENT-ID       #PARTITIONS     "
        "CURRENT-EPOCH   CURRENT-ASSIGNMENT   TARGET-EPOCH    TARGET-ASSIGNMENT",
        "g               m-77aa                     /10.0.0.5       c-1             3               "
        "12              audit:4;orders:0,1   13              orders:0,1",
        "g               m-88bb                     /10.0.0.6       c-2             0               "
        "13              -                    13              audit:4",
    ]
    a, b = rows(feed_all(lines))
    assert a.fields["member_epoch"] == 12 and a.fields["partitions"] == ("audit-4", "orders-0", "orders-1")
    assert a.fields["extra"]["target_epoch"] == 13 and a.fields["extra"]["target_partitions"] == ["orders-0", "orders-1"]
    assert "partitions" not in b.fields and b.fields["extra"]["target_partitions"] == ["audit-4"]


def test_cells_with_spaces_mid_row_fall_back_to_header_alignment():
    head = ("GROUP           CONSUMER-ID                HOST            CLIENT-ID       #PARTITIONS     "
            "CURRENT-EPOCH   CURRENT-ASSIGNMENT           TARGET-EPOCH    TARGET-ASSIGNMENT")
    row = ("g               m-77aa                     /10.0.0.5       c-1             3               "
           "12              orders:0,1, audit:4          13              orders:0,1")
    p = DescribeParser()
    assert p.feed(head) is IGNORE
    r = p.feed(row)
    assert r is not None and r is not IGNORE
    assert r.fields["member_id"] == "m-77aa" and r.fields["member_epoch"] == 12
    assert r.fields["extra"]["assignment"] == "orders:0,1, audit:4"
    assert r.fields["extra"]["target_epoch"] == 13 and r.fields["extra"]["target_assignment"] == "orders:0,1"
    assert r.fields["partitions"] == ("orders-0", "orders-1", "audit-4")
