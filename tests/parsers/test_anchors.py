"""Issue 17 (and 16): the time finder, bad time fields, unknown-stays-visible accounting, --tz."""

from __future__ import annotations

import json

import pytest

from parsers import timestamps
from parsers.reader import parse_lines, parse_path
from parsers.timestamps import epoch_text_ms, find_ts

T0 = 1709287200123  # 2024-03-01T10:00:00.123Z
JOIN = "[Consumer clientId=c1, groupId=orders] (Re-)joining group"


@pytest.mark.parametrize("text, want, how", [
    ("x 2024-03-01T10:00:00.123Z y", T0, ""),
    ("2024-03-01 11:00:00,123+01:00", T0, ""),
    ("2024-03-01T10:00:00.123456789Z", T0, ""),
    ("24/03/01 10:00:00 INFO", T0 - 123, ""),
    ("Mar 1, 2024 10:00:00 AM org.Foo", T0 - 123, ""),
    ("Mar 1, 2024 @ 10:00:00.123", T0, ""),
    ("01 Mar 2024 10:00:00,123", T0, ""),
    ("Mar  1 10:00:00 host", T0 - 123, "year"),
    ("10:00:00.123 [main]", T0, "date"),
])
def test_find_ts_reads_each_form(text, want, how):
    ft = find_ts(text, T0 + 3_600_000)
    assert ft is not None and ft[0] == want and ft[3] == how


def test_time_without_a_date_and_no_neighbour_is_not_guessed():
    assert find_ts("10:00:00.123 [main]")[0] is None
    assert find_ts("Mar  1 10:00:00 host")[0] is None


def test_epoch_numbers_and_a_cut_first_digit():
    assert epoch_text_ms("1709287200") == T0 - 123
    assert epoch_text_ms("1709287200.123") == T0
    assert epoch_text_ms("1709287200123") == T0
    assert epoch_text_ms("1709287200123456") == T0
    assert epoch_text_ms("709287200123", T0 - 5000) == T0  # the paste cut the leading "1"
    assert epoch_text_ms("12345") is None


@pytest.mark.parametrize("bad", ["null", '"abc"', "NaN", "Infinity", "-Infinity", "1e400", "{}", "[]", "true"])
def test_a_bad_json_time_means_no_time_never_an_error(bad, tmp_path):
    """Issue 16: `coordscope parse` raised on a JSON log whose epoch field was NaN."""
    for key in ("timestamp", "timeMillis", "@timestamp", "ts"):
        p = tmp_path / f"{key}.json"
        p.write_text(f'{{"{key}": {bad}, "message": "{JOIN}"}}\n')
        outs, summary = parse_path(str(p))
        outs = list(outs)
        assert [o.status for o in outs] == ["parsed"], (key, bad, outs)
        assert outs[0].event.ts_ms is None and outs[0].event.kind == "join_started"
        assert summary.bad_times == 1 and "bad_time" not in outs[0].event.extra


def test_anchor_with_no_rule_is_unparsed_with_its_reason():
    line = "2024-03-01 10:00:00,123 INFO  [main] app.Foo - [GroupCoordinator 1]: Something no Kafka version ever wrote about group orders"
    o = list(parse_lines("t", [(1, line)]))[0]
    assert o.status == "unparsed" and "no broker rule matched" in o.why


def test_coordination_without_anchor_is_counted(tmp_path):
    p = tmp_path / "app.log"
    p.write_text("2024-03-01 10:00:00.123 INFO  [main] com.example.App - Rebalance done, generation looks fine\n"
                 "2024-03-01 10:00:00.124 INFO  [main] com.example.App - hello\n")
    outs, summary = parse_path(str(p))
    assert [o.status for o in outs] == ["ignored", "ignored"]
    assert summary.unanchored == 1 and any("look like coordination" in m for m in summary.messages)


def test_newest_first_lines_are_read_and_only_counted_as_clock_backwards(tmp_path):
    p = tmp_path / "kibana.csv"
    rows = [("10:00:02.000", "(Re-)joining group"), ("10:00:01.000", "(Re-)joining group"), ("10:00:00.000", "(Re-)joining group")]
    p.write_text("".join(f'"Mar 1, 2024 @ {t}","[Consumer clientId=c1, groupId=orders] {m}"\n' for t, m in rows))
    outs, summary = parse_path(str(p))
    outs = list(outs)
    assert [o.event.ts_ms for o in outs] == [T0 - 123 + 2000, T0 - 123 + 1000, T0 - 123]
    assert [o.line_no for o in outs] == [1, 2, 3]
    assert summary.unparsed == 0 and summary.clock_backwards == 2


def test_tz_reads_naive_times_in_the_zone_and_the_summary_says_so(tmp_path):
    p = tmp_path / "a.log"
    p.write_text(f"2024-03-01 11:00:00.123 INFO [main] o.a.k.c.c.i.ConsumerCoordinator - {JOIN}\n"
                 f"2024-03-01T11:00:00.123+01:00 INFO [main] o.a.k.c.c.i.ConsumerCoordinator - {JOIN}\n")
    try:
        assert timestamps.set_naive_zone("Europe/Berlin") == "Europe/Berlin"
        outs, summary = parse_path(str(p))
        assert [o.event.ts_ms for o in outs] == [T0, T0]
        assert summary.naive_zone == "Europe/Berlin"
    finally:
        timestamps.set_naive_zone(None)
    outs, summary = parse_path(str(p))
    assert [o.event.ts_ms for o in outs] == [T0 + 3_600_000, T0] and summary.naive_zone == "UTC"


def test_a_time_line_above_dates_the_next_line_only():
    lines = [(1, "Mar 1, 2024 @ 10:00:00.123"), (2, f"INFO {JOIN}"), (3, f"INFO {JOIN}")]
    outs = list(parse_lines("t", lines))
    assert [o.status for o in outs] == ["ignored", "parsed", "parsed"]
    assert outs[1].event.ts_ms == T0 and outs[1].event.extra["time_from_line"] == 1
    assert outs[2].event.ts_ms is None


def test_json_of_any_field_names():
    for obj in ({"@message": JOIN, "@timestamp": T0}, {"log": JOIN + "\n", "time": "2024-03-01T10:00:00.123Z"},
                {"textPayload": JOIN, "timestamp": "2024-03-01T10:00:00.123Z"},
                {"_source": {"message": JOIN, "@timestamp": "2024-03-01T10:00:00.123Z"}},
                {"result": {"_raw": JOIN, "_time": "2024-03-01T10:00:00.123+00:00"}},
                {"MESSAGE": JOIN, "__REALTIME_TIMESTAMP": str(T0 * 1000)}):
        o = list(parse_lines("t", [(1, json.dumps(obj))]))[0]
        assert o.status == "parsed" and o.event.group_id == "orders" and o.event.ts_ms == T0, obj
