"""Every client version x layout renders lines the parsers read completely (no unparsed coordinator
lines), for the scenarios with the richest client wording (poll timeout, expiry and lost partitions,
coordinator loss, cooperative reconciliation)."""

from __future__ import annotations

import importlib.util
import itertools

import pytest

from pipeline.generator.generate import write_scenario
from pipeline.generator.scenarios import by_name

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(importlib.util.find_spec("parsers.reader") is None, reason="parsers not here")]

VERSIONS = ("0.10", "2.x", "3.x", "4.x")
LAYOUTS = (("log4j", 2), ("spring_boot", 2), ("spring_boot", 3), ("json", 2))
SCENARIOS = ("poll_timeout_slow_processing", "gc_pause_session_expiry", "coordinator_failover",
             "cooperative_scale_out")


@pytest.mark.parametrize(("version", "layout"), list(itertools.product(VERSIONS, LAYOUTS)),
                         ids=[f"{v}-{lay[0]}{lay[1]}" for v, lay in itertools.product(VERSIONS, LAYOUTS)])
def test_client_files_parse_completely(tmp_path, version, layout):
    from parsers import parse_path

    problems = []
    joined = 0
    for name in SCENARIOS:
        sc = by_name()[name]
        sc.client_version, (sc.layout, sc.spring_boot) = version, layout
        if version == "0.10" and sc.broker_version != "0.10":
            sc.broker_version = "2.x"
        files = write_scenario(sc, str(tmp_path / name))
        for f, kind in files.items():
            if not kind.startswith("client"):
                continue
            outcomes, summary = parse_path(str(tmp_path / name / f))
            for o in outcomes:
                if o.status == "unparsed":
                    problems.append(f"{name}/{f}:{o.line_no}: {o.why}: {o.event.raw[:200] if o.event else ''}")
                elif o.event is not None and o.event.kind == "join_succeeded":
                    joined += 1
            assert summary.layout != "plain", f"{name}/{f} not recognised as {layout}"
    assert problems == [], "\n".join(problems[:20])
    assert joined >= 12
