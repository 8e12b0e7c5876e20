"""The reader's fast Event constructor builds exactly what Event(...) builds, and every rule yields
only Event field names (the fast constructor does not refuse unknown keys, Event(**f) would)."""

from __future__ import annotations

import csv
import dataclasses

import pytest

from parsers.catalog_tools import hole_fields, render
from parsers.client import ALL_RULES, parse_client
from parsers.events import Event
from parsers.fast_event import KNOWN_FIELDS, make_event


def test_same_event_as_the_dataclass_constructor():
    f = {"group_id": "g", "client_id": "c-1", "member_id": "m-1", "instance_id": "i", "generation": 7,
         "member_epoch": 3, "protocol": "range", "partitions": ("t-0", "t-1"), "coordinator": "b:9092",
         "reason": "why", "error": "E", "topic": "t", "partition": 0, "offset": 42, "kafka_version_hint": "3.7.0"}
    for given in (f, {}, {"group_id": "g"}):
        fast = make_event("a.log", 3, "client", "join_started", "raw", 1000, {"rule": "r"}, dict(given))
        slow = Event("a.log", 3, "client", "join_started", "raw", 1000, extra={"rule": "r"}, **given)
        assert type(fast) is Event and fast == slow
        assert fast.to_dict() == slow.to_dict() and repr(fast) == repr(slow)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.group_id = "other"  # type: ignore[misc]


def test_every_catalog_rule_yields_event_field_names_only(shared_dir):
    path = shared_dir / "formats" / "kafka-coordinator-log-templates.tsv"
    with path.open(encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t") if r["side"] == "client" and r["event"] != "other"]
    seen_rules = set()
    for r in rows:
        line = render(r["template"], hole_fields(r["template"], r["notes"]))
        res = parse_client("[Consumer clientId=consumer-my-group-1, groupId=my-group] " + line,
                           "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator")
        if type(res) is tuple:
            rule, _kind, fields = res
            seen_rules.add(rule)
            assert set(fields) - {"extra"} <= KNOWN_FIELDS, (rule, sorted(fields))
    assert len(seen_rules) > len(ALL_RULES) // 2
