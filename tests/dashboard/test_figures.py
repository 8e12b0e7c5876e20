"""Figure builders on small hand-made frames: trace types, counts, ranges and values."""

import pandas as pd

from dashboard.figures import gaps_figure, lanes_figure, offsets_figure, ownership_figure, timeline_figure
from dashboard.figures.common import to_dt

T = 1_767_225_600_000


def _phases():
    return pd.DataFrame([
        {"generation": 1, "started_ms": T, "completing_ms": T + 1000, "stabilized_ms": T + 1500, "ended_ms": T + 10_000,
         "cause": "initial_join", "cause_detail": "first", "member_count": 2, "protocol": "range",
         "trigger_member": "m1"},
        {"generation": 2, "started_ms": T + 10_000, "completing_ms": None, "stabilized_ms": T + 12_000,
         "ended_ms": None, "cause": "session_timeout", "cause_detail": "m2 <died>", "member_count": 1,
         "protocol": "range", "trigger_member": "m2"},
    ])


def _findings():
    return pd.DataFrame([{"finding_id": "F1", "severity": "critical", "start_ms": T + 10_000, "end_ms": T + 12_000,
                          "title": "boom <b>", "kind": "session_expiry"},
                         {"finding_id": "F2", "severity": "low", "start_ms": T + 500, "end_ms": None,
                          "title": "meh", "kind": "x"}])


def test_timeline_bars_causes_and_clickable_findings():
    fig = timeline_figure(_phases(), _findings(), (T, T + 20_000), end_fallback=T + 20_000)
    names = [t.name for t in fig.data]
    assert names == ["preparing", "completing", "stable", "rebalance cause", "finding: critical", "finding: low"]
    prep, comp, stable = fig.data[0], fig.data[1], fig.data[2]
    assert list(prep.x) == [1000.0, 2000.0]     # gen 2 has no completing time: one merged bar
    assert list(comp.x) == [500.0]
    assert list(stable.x) == [8500.0, 8000.0]   # gen 2 runs to the end fallback
    crit = fig.data[4]
    assert list(crit.customdata) == ["F1"] and "&lt;b&gt;" in crit.hovertext[0]
    assert "&lt;died&gt;" in fig.data[3].hovertext[1]
    assert list(fig.layout.xaxis.range) == [to_dt(T), to_dt(T + 20_000)]


def test_timeline_empty_says_so():
    fig = timeline_figure(_phases().iloc[0:0], _findings().iloc[0:0])
    assert not fig.data and "No generation" in fig.layout.annotations[0].text


def test_lanes_one_scattergl_trace_per_category():
    pts = pd.DataFrame({
        "lane": ["m1", "m1", "m2", "m2"], "category": ["join", "heartbeat", "join", "expiry"],
        "ts_ms": [T, T + 3000, T + 10, T + 9000], "kind": ["join_succeeded", "heartbeat_succeeded", "join_succeeded",
                                                             "poll_timeout"],
        "count": [1, 40, 1, 1], "source": ["a.log"] * 4, "line_no": [1, 2, 3, 4],
        "reason": [None, None, None, "max.poll"]})
    fig = lanes_figure(pts)
    assert [t.type for t in fig.data] == ["scattergl"] * 3
    assert [t.name for t in fig.data] == ["join", "expiry", "heartbeat"]
    assert list(fig.data[0].y) == [0, 1] and list(fig.data[1].customdata) == ["a.log:4"]
    assert list(fig.data[1].x) == [T + 9000] and "max.poll" in fig.data[1].hovertext[0]
    assert "×40" in fig.data[2].hovertext[0]
    assert list(fig.layout.yaxis.ticktext) == ["m1", "m2"] and list(fig.layout.yaxis.range) == [1.5, -0.5]


def test_ownership_heatmap_discrete_members():
    grid = {"times": [T, T + 1000, T + 2000], "partitions": ["t-0", "t-1"], "members": ["a", "b"],
            "z": [[0, 0, 1], [None, 1, 1]]}
    fig = ownership_figure(grid)
    hm = fig.data[0]
    assert hm.type == "heatmap" and list(hm.y) == ["t-0", "t-1"]
    assert (hm.zmin, hm.zmax) == (-0.5, 1.5) and list(hm.colorbar.ticktext) == ["a", "b"]
    assert hm.hovertext[1][0].endswith("no owner in the logs")
    assert "estimated" not in hm.hovertext[0][2]
    # a cell whose interval the replay inferred says so
    hm = ownership_figure(grid | {"inferred": [[False, False, True], [False, False, False]]}).data[0]
    assert "estimated: inferred from the generations" in hm.hovertext[0][2] and "estimated" not in hm.hovertext[0][1]
    assert ownership_figure({"partitions": []}).layout.annotations


def test_gaps_rows_limits_and_exceeded():
    gaps = pd.DataFrame({
        "kind": ["heartbeat", "heartbeat", "poll"], "end_ms": [T, T + 50_000, T + 60_000],
        "gap_ms": [3000, 48_000, 305_000], "limit_ms": [45_000, 45_000, 300_000], "exceeded": [False, True, True],
        "count": [1, 1, 1], "evidence": [["a:1", "a:2"], ["a:2", "a:3"], ["a:4", "a:5"]]})
    fig = gaps_figure(gaps)
    names = [t.name for t in fig.data]
    assert names == ["heartbeat gap", "heartbeat gap over limit", "session.timeout.ms", "poll gap over limit",
                     "max.poll.interval.ms"]
    assert list(fig.data[1].y) == [48_000] and fig.data[1].marker.color == "#d62728"
    assert list(fig.data[4].y) == [300_000] and fig.data[4].yaxis == "y2"


def test_offsets_line_and_flag_markers():
    hist = pd.DataFrame({
        "ts_ms": [T, T + 1, T + 2, T + 3], "offset": [10, 20, 5, 500], "prev_offset": [None, 10, 20, 5],
        "delta": [None, 10, -15, 495], "generation": [1, 1, 1, 2], "member_id": ["m"] * 4,
        "flag": ["first", "commit", "rewind", "skip"], "evidence": [["e:1"], ["e:2"], ["e:3"], ["e:4"]]})
    fig = offsets_figure(hist, "t-0")
    assert [t.name for t in fig.data] == ["committed offset", "rewind", "skip", "first"]
    assert fig.data[0].type == "scattergl" and list(fig.data[0].y) == [10, 20, 5, 500]
    assert list(fig.data[1].y) == [5] and list(fig.data[2].y) == [500]


def test_offsets_dense_history_is_bounded():
    n = 50_000
    hist = pd.DataFrame({"ts_ms": range(T, T + n), "offset": range(n), "prev_offset": range(-1, n - 1),
                         "delta": [1] * n, "generation": [1] * n, "member_id": ["m"] * n, "flag": ["commit"] * n,
                         "evidence": [["e:1"]] * n})
    fig = offsets_figure(hist, "t-0")
    assert len(fig.data[0].x) <= 4100 and max(fig.data[0].y) == n - 1 and min(fig.data[0].y) == 0


def test_log_silences_are_drawn_apart_from_heartbeat_gaps():
    # a log silence has no limit: none is drawn and none is "over" one, even from an older run
    # directory whose log rows carried max.poll.interval.ms (300000) as their limit
    gaps = pd.DataFrame({"kind": ["log"], "end_ms": [T], "gap_ms": [70_000], "limit_ms": [300_000],
                         "exceeded": [True], "count": [1], "evidence": [["a:1", "a:9"]]})
    fig = gaps_figure(gaps)
    assert [t.name for t in fig.data if t.name] == ["log silence"]
    assert [a.text for a in fig.layout.annotations][-1] == "No poll gap is recorded for this member in this window."


def test_heartbeat_row_limit_is_the_session_timeout_not_max_poll():
    """The member page of a group whose session.timeout.ms is 10000: log silences (limit null) and
    an expiry from the broker's line; the heartbeat row's limit line is 10000, never 300000."""
    gaps = pd.DataFrame({
        "kind": ["log", "heartbeat", "expiry"], "end_ms": [T, T + 5_000, T + 40_000],
        "gap_ms": [120_000, 3_000, 10_000], "limit_ms": [None, 10_000, 10_000], "exceeded": [None, False, True],
        "count": [1, 1, 1], "evidence": [["a:1", "a:2"], ["a:2", "a:3"], ["k:1"]]})
    fig = gaps_figure(gaps)
    limit = [t for t in fig.data if t.name == "session.timeout.ms"]
    assert len(limit) == 1 and set(limit[0].y) == {10_000}
    assert [t.name for t in fig.data if t.name and "over limit" in t.name] == ["expired by the broker over limit"]
    assert not any(t.name == "max.poll.interval.ms" or (t.y is not None and 300_000 in list(t.y)) for t in fig.data)


def test_a_phase_of_a_few_ms_is_still_drawn():
    """Issue 20: a 3 ms stable phase on a minute-wide axis is drawn 3 px wide, not invisible."""
    phases = _phases()
    lo = int(phases["started_ms"].min())
    fig = timeline_figure(phases, _findings().iloc[0:0], (lo - 30_000, lo + 30_000))
    widths = [w for t in fig.data if t.type == "bar" for w in t.x]
    assert min(widths) >= 60_000 / 940 * 3 - 1e-6
