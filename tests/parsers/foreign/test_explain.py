"""`coordscope explain` on non-Java clients' lines names the foreign rule, its source and the fields."""

from __future__ import annotations

import pytest

from parsers.explain import explain_line


@pytest.mark.parametrize(("line", "rule", "kind", "source_has"), [
    ('%7|1714557600.002|CGRPSTATE|rdkafka#consumer-1| [thrd:main]: Group "payments" changed state init -> query-coord '
     "(join-state init)", "librdkafka.cgrp_state", "member_state_changed", "rdkafka_cgrp.c"),
    ("INFO:kafka.coordinator:Successfully joined group payments with generation 7", "kafka_python.joined", "join_succeeded",
     "kafka-python base.py"),
    ('{"level":"WARN","timestamp":"2024-05-01T10:00:00.123Z","logger":"kafkajs","message":"[Runner] The group is rebalancing, '
     're-joining","groupId":"payments","memberId":"m-1","error":"The group is rebalancing, so a rejoin is needed"}',
     "kafkajs.rebalancing", "join_started", "runner.js"),
    ('{"level":"ERROR","timestamp":"2024-05-01T10:00:00.123Z","logger":"kafkajs","message":"[Connection] Response Heartbeat(key: 12, '
     'version: 3)","broker":"kafka-2:9092","clientId":"my-app","error":"The group is rebalancing, so a rejoin is needed"}',
     "kafkajs.connection_Heartbeat", "heartbeat_failed", "connection.js"),
])
def test_explain_foreign(line, rule, kind, source_has):
    out = explain_line(line)
    assert (out["result"], out["rule"], out["kind"]) == ("parsed", rule, kind)
    assert source_has in out["source"]


def test_explain_unknown_group_facility_line():
    out = explain_line('%7|1714557600.002|CGRPSTATE|rdkafka#consumer-1| [thrd:main]: Group "payments" did a new thing')
    assert out["result"] == "unparsed" and "non-Java" in out["why"]
