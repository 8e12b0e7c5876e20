"""The real broker logs that are ours (006, 015, 031, 032) and the broker lines of the mixed 033:
message parts go to parse_broker_message and the facts of MANIFEST.tsv come out."""

from __future__ import annotations

from parsers.broker import looks_like_broker_message, parse_broker_message

from .helpers import real_log, split_log_line


def parse_file(shared_dir, prefix):
    out = []
    for line in real_log(shared_dir, prefix):
        parts = split_log_line(line)
        assert parts is not None, line
        msg, logger = parts
        if looks_like_broker_message(msg, logger):
            out.append(parse_broker_message(msg, logger))
    return out


def test_006_heartbeat_expiry_rebalance_empty(shared_dir):
    removed, preparing, empty = parse_file(shared_dir, "006")
    member = "consumer-RY-Topic_magpie_lark-1-b1fbbe5a-170c-41e1-a4d2-bce2e4d41236"
    assert removed.kind == "broker_member_removed"
    assert removed.fields["member_id"] == member and removed.fields["group_id"] == "RY-Topic_magpie_lark"
    assert preparing.kind == "broker_rebalance_preparing" and preparing.fields["generation"] == 1
    assert preparing.fields["extra"]["trigger"] == "heartbeat_expiration"
    assert preparing.fields["extra"]["trigger_member_id"] == member
    assert preparing.fields["extra"]["state"] == "PreparingRebalance"
    assert empty.kind == "broker_group_empty" and empty.fields["generation"] == 2
    for m in (removed, preparing, empty):
        assert m.fields["coordinator"] == "2"
    assert preparing.fields["extra"]["offsets_partition"] == 36 == empty.fields["extra"]["offsets_partition"]


def test_015_member_id_required_round_trip(shared_dir):
    (joined,) = parse_file(shared_dir, "015")  # the six housekeeping lines are not coordinator lines
    assert joined.kind == "broker_member_joined"
    assert joined.fields["group_id"] == "badger_octopus_2c72ea0f-94ba-4cec-ae0b-d752680c29ad"
    assert joined.fields["member_id"] == (
        "consumer-badger_octopus_2c72ea0f-94ba-4cec-ae0b-d752680c29ad-4-1ebadbd0-06be-4f10-84f6-068525c4b445")
    assert joined.fields["extra"]["state"] == "Empty" and joined.fields["coordinator"] == "1"


def test_031_brod_members_rebalance_loop(shared_dir):
    got = parse_file(shared_dir, "031")
    assert [m.kind for m in got] == [
        "broker_group_stabilized", "broker_rebalance_preparing", "broker_group_stabilized",
        "broker_assignment_received", "broker_rebalance_preparing"]
    assert [m.fields["generation"] for m in got] == [14, 14, 15, 15, 15]
    assert {m.fields["group_id"] for m in got} == {"opal_consumer"}
    assert {m.fields["coordinator"] for m in got} == {"0"}
    assert got[1].fields["extra"]["trigger_member_id"] == "nonode@nohost/<0.1083.0>-3cd8a2d1-71d7-44a2-bb70-8f8fbbdae613"
    assert got[4].fields["extra"]["trigger_member_id"] == "nonode@nohost/<0.1077.0>-d109b4e7-ed63-4f59-8df8-3ac33dcf33b1"
    assert "trigger_instance_id" not in got[1].fields["extra"]  # "group instanceid None"
    assert got[0].fields["extra"]["offsets_partition"] == 7


def test_032_leave_group_membermetadata_and_stabilize(shared_dir):
    left, stabilized, assigned, joined = parse_file(shared_dir, "032")
    assert left.kind == "broker_member_removed"
    assert left.fields["member_id"] == "rdkafka-63aece33-c727-4eb0-8f3c-c794e27641bd"
    assert left.fields["client_id"] == "rdkafka" and left.fields["group_id"] == "hotel_group"
    assert left.fields["extra"]["host"] == "/192.0.2.16" and left.fields["extra"]["session_timeout_ms"] == 30000
    assert left.fields["reason"] == "not provided"
    assert stabilized.fields["generation"] == 234 and stabilized.fields["extra"]["members"] == 1
    assert assigned.fields["extra"]["leader"] == "rdkafka-6d578d1f-6a7d-4225-b7c8-038aef13bc24"
    assert assigned.fields["generation"] == 234 and assigned.fields["extra"]["static_members"] == 0
    assert joined.kind == "broker_member_joined" and joined.fields["extra"]["state"] == "Stable"
    assert joined.fields["member_id"] == "rdkafka-ddcb99c2-8de6-4271-889a-197f26cf2853"
    assert {m.fields["coordinator"] for m in (left, stabilized, assigned, joined)} == {"1"}


def test_033_spring_boot_embedded_broker_lines(shared_dir):
    got = []
    for line in real_log(shared_dir, "033"):
        parts = split_log_line(line)
        if parts and parts[1].startswith("kafka.coordinator"):
            got.append(parse_broker_message(*parts))
    assert None not in got
    facts = [(m.kind, m.fields.get("group_id"), m.fields.get("generation")) for m in got]
    assert ("broker_rebalance_preparing", "blackberry", 0) in facts
    assert ("broker_rebalance_preparing", "blackberry_spruce_group", 0) in facts
    assert ("broker_group_stabilized", "blackberry", 1) in facts
    assert ("broker_group_stabilized", "blackberry_spruce_group", 1) in facts
    assert ("broker_assignment_received", "blackberry", 1) in facts
    assert ("broker_assignment_received", "blackberry_spruce_group", 1) in facts
    assert {m.fields["coordinator"] for m in got if "coordinator" in m.fields} == {"0"}
