"""parsers/foreign/defaults.py: the documented defaults per client version, and the look-up rules."""

from __future__ import annotations

import pytest

from parsers.foreign.defaults import LIBRARIES, defaults_for


@pytest.mark.parametrize(("lib", "version", "session", "heartbeat", "max_poll", "rebalance"), [
    ("librdkafka", "1.0.0", 10000, 3000, 300000, None),
    ("librdkafka", "1.6.2", 10000, 3000, 300000, None),
    ("librdkafka", "1.7.0", 45000, 3000, 300000, None),
    ("librdkafka", "2.3.0", 45000, 3000, 300000, None),
    ("kafkajs", "1.7.1", 30000, 3000, None, 30000),
    ("kafkajs", "2.2.4", 30000, 3000, None, 60000),
    ("kafka-python", "1.3.5", 30000, 3000, None, None),
    ("kafka-python", "2.0.2", 10000, 3000, 300000, None),
    ("kafka-python", "3.0.0", 45000, 3000, 300000, None),
    ("aiokafka", "0.5.0", 30000, 3000, None, None),
    ("aiokafka", "0.10.0", 10000, 3000, 300000, None),
    ("sarama", "1.43.0", 10000, 3000, None, 60000),
    ("franz-go", "0.6.14", 10000, 3000, None, 60000),
    ("franz-go", "1.21.5", 45000, 3000, None, 60000),
    ("kafka-go", "0.4.50", 30000, 3000, None, 30000),
])
def test_defaults(lib, version, session, heartbeat, max_poll, rebalance):
    d = defaults_for(lib, version)
    assert (d.session_timeout_ms, d.heartbeat_interval_ms, d.max_poll_interval_ms, d.rebalance_timeout_ms) == (
        session, heartbeat, max_poll, rebalance)
    assert d.exact and d.source


def test_unknown_version_takes_the_newest_range_marked_inexact():
    d = defaults_for("librdkafka", None)
    assert d.session_timeout_ms == 45000 and not d.exact
    assert not defaults_for("kafka-python", "garbage").exact
    assert defaults_for("java", "3.7.0") is None


def test_libraries():
    assert LIBRARIES == ("librdkafka", "kafkajs", "kafka-python", "aiokafka", "sarama", "franz-go", "kafka-go")


def test_sources_list_every_rule():
    """tests/parsers/foreign/SOURCES.md names every rule of the foreign parsers."""
    from pathlib import Path

    from parsers.foreign import kafkajs, librdkafka, pyclients

    text = (Path(__file__).parent / "SOURCES.md").read_text()
    names = [f"librdkafka.{r.name} " for r in librdkafka.RULES] + [f"| {r.name} |" for r in pyclients.RULES]
    names += [f"kafkajs.{name} " for _ns, _rx, name, _k, _s in kafkajs._RULES]
    assert [n for n in names if n not in text] == []
