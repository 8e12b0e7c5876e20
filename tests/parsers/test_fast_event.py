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


def test_reader_fast_path_agrees_with_parse_client(shared_dir):
    """parse_client_parts (the reader's hot path: shared prefix dicts, memo entries split into fields
    and extra) gives what parse_client gives, for every template, behind each prefix form, cold and
    from the memo."""
    from parsers.base import IGNORE
    from parsers.client import clear_memos, parse_client_parts

    path = shared_dir / "formats" / "kafka-coordinator-log-templates.tsv"
    with path.open(encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t") if r["side"] == "client"]
    prefixes = ("[Consumer clientId=c-1, groupId=g] ", "[Consumer instanceId=i-1, clientId=c-1, groupId=g] ",
                "[Worker clientId=w-1, groupId=connect] ", "stream-thread [app-StreamThread-1] ", "[Not a prefix] ", "")
    clear_memos()
    parsed = 0
    for _pass in range(2):  # cold, then memo hits
        for r in rows:
            body = render(r["template"], hole_fields(r["template"], r["notes"]))
            for prefix in prefixes:
                for logger in ("org.apache.kafka.clients.consumer.internals.ConsumerCoordinator", None):
                    slow = parse_client(prefix + body, logger)
                    fast = parse_client_parts(prefix + body, logger)
                    if type(slow) is not tuple:
                        assert fast is slow or (slow is IGNORE and fast is IGNORE), (prefix, body)
                        continue
                    rule, kind, fields = slow
                    extra = fields.pop("extra", None) or {}
                    extra["rule"] = rule
                    assert fast[:2] == (rule, kind) and fast[2] == fields and fast[3] == extra, (prefix, body)
                    assert list(fast[3]) == list(extra)  # same key order in Event.extra (JSON output)
                    parsed += 1
    assert parsed > 1000


def test_fast_constructor_is_the_retyping_one_and_events_stay_frozen_and_hashable_by_value():
    from parsers import fast_event

    assert "_Unfrozen" in fast_event.make_event.__code__.co_varnames  # the layout self-check passed
    assert fast_event._same_as_dataclass(fast_event._build_descriptors())  # the fallback is right too
    ev = make_event("a.log", 1, "client", "heartbeat", "raw", None, {}, {"group_id": "g", "partitions": ("t-0",)})
    assert type(ev) is Event and ev.__class__ is Event and ev.group_id == "g" and ev.member_id is None
    for name in ("group_id", "kind", "extra"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(ev, name, "x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        del ev.group_id
