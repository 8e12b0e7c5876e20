"""Every client template of the Kafka log template catalog renders -> parses to the right kind."""

from __future__ import annotations

import csv
import re

import pytest

from parsers.catalog_tools import CLASS_KINDS, CLASS_REFINEMENTS, SAMPLE, classify, hole_fields, render
from parsers.client import parse_client_message
from parsers.reader import is_candidate


def _rows(shared_dir):
    path = shared_dir / "formats" / "kafka-coordinator-log-templates.tsv"
    with path.open(encoding="utf-8") as fh:
        return [r for r in csv.DictReader(fh, delimiter="\t") if r["side"] == "client" and r["event"] != "other"]


def _logger(notes: str) -> str:
    m = re.search(r"logger: ([\w.]+)", notes)
    return m.group(1) if m else "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"


def test_catalog_rows_render_and_parse_to_their_kind(shared_dir):
    rows = _rows(shared_dir)
    assert len(rows) > 500
    failures = []
    for r in rows:
        fields = hole_fields(r["template"], r["notes"])
        line = render(r["template"], fields)
        m = parse_client_message("[Consumer clientId=consumer-my-group-1, groupId=my-group] " + line, _logger(r["notes"]))
        allowed = {CLASS_KINDS[r["event"]], classify(r["event"], r["template"])} | CLASS_REFINEMENTS.get(r["event"], set())
        if "Coordinator response {}" in r["template"]:
            # the sample dump names no node: a response without a coordinator is a lookup, not a discovery
            # (tests/parsers/test_wordings.py checks both outcomes on real renderings)
            allowed.add("coordinator_lookup")
        if m is None or not hasattr(m, "kind") or m.kind not in allowed:
            failures.append((r["template"][:90], r["event"], getattr(m, "kind", m)))
            continue
        f = m.fields
        # the values we put in come back out in the right fields
        if "generation" in fields or "generation_obj" in fields:
            assert f.get("generation") == 5, (r["template"], f)
        if "member_epoch" in fields:
            assert f.get("member_epoch") == 7, (r["template"], f)
        if "member_id" in fields:
            assert f.get("member_id") == SAMPLE["member_id"], (r["template"], f)
        if "tp" in fields:
            assert (f.get("topic"), f.get("partition")) == ("orders", 3), (r["template"], f)
        if "group_id" in fields:
            assert f.get("group_id") == "my-group", (r["template"], f)
        if "offset" in fields:
            assert f.get("offset") == 42, (r["template"], f)
    assert not failures, f"{len(failures)} catalog templates do not parse: {failures[:15]}"


def test_every_rendered_catalog_line_is_a_candidate(shared_dir):
    """The JVM-side filter must never drop a coordinator line."""
    for r in _rows(shared_dir):
        line = render(r["template"], hole_fields(r["template"], r["notes"]))
        assert is_candidate(line.split("\n")[0]), r["template"]


@pytest.mark.parametrize("event_class", sorted(CLASS_KINDS))
def test_every_catalog_class_has_rules(shared_dir, event_class):
    from parsers.client import ALL_RULES

    assert any(r.kind == CLASS_KINDS[event_class] or r.kind in CLASS_REFINEMENTS.get(event_class, ())
               for r in ALL_RULES)
