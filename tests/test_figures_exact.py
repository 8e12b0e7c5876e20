"""Every figure pipeline/figures.py gives a view (summary, report, dashboard), asserted whole on one
group built to sit on each rule's edge: what counts and what does not (rebalances vs generations
seen, expelled vs left, offset ranges kept, merged or dropped), the sums and the times. Written for
the blind spots of a mutation pass over pipeline/figures.py (docs/testing.md)."""

from __future__ import annotations

import json

from pipeline import figures, rundir


def _gen(g, n, started, stabilized, ended, took, cause, members):
    return {"group_id": g, "generation": n, "started_ms": started, "stabilized_ms": stabilized, "ended_ms": ended,
            "rebalance_ms": took, "cause": cause, "members": members}


def _mem(g, member, gen, reason, left, client=None, host=None):
    return {"group_id": g, "member_id": member, "client_id": client, "host": host, "generation": gen,
            "leave_reason": reason, "left_ms": left}


def _finding(g, kind, severity, start, end, members, details=None, gen=None, evidence=()):
    return {"group_id": g, "kind": kind, "severity": severity, "generation": gen, "start_ms": start,
            "end_ms": end, "members": members, "evidence": list(evidence),
            "details_json": json.dumps(details) if details is not None else None}


def _rng(topic, part, lo, hi, **kw):
    return {"topic": topic, "partition": part, "from_offset": lo, "to_offset_exclusive": hi, **kw}


def _tables(tmp_path):
    gens = [
        _gen("g", 1, None, None, 5_000, None, None, ["m0"]),                 # known to exist only
        _gen("g", 2, 5_000, 6_000, 20_000, 1_000, "member_joined", ["m1", "m2", ""]),
        _gen("g", 3, 20_000, None, None, None, None, ["m1"]),                 # started, never stable
        _gen("g", 4, None, 31_000, 40_000, 3_000, "member_left", []),        # only its end known
        _gen("other", 9, 1_000, 2_000, 99_000, 1_000, "member_joined", ["z"]),
    ]
    mems = [
        _mem("g", "m2", 2, "session_expiry", 19_000, "c2", "/10.0.0.2"),
        _mem("g", "m1", 2, "left", 19_500),                                   # a clean leave: not expelled
        _mem("g", "m5", 3, None, None),
        _mem("g", "m6", 4, "poll_timeout", 33_000),
        _mem("other", "z", 9, "session_expiry", 50_000),
    ]
    fnd = [
        _finding("g", "offset_rewind", "high", 7_000, 8_000, ["m1", "m3"], _rng("t", 0, 10, 25), evidence=["a:1"]),
        _finding("g", "offset_rewind", "high", 7_500, 8_000, ["m3"], _rng("t", 0, 10, 25)),       # same range
        _finding("g", "offset_rewind", "medium", 2_000, 2_500, [], _rng("t", 1, 40, 41, estimated=True)),
        _finding("g", "offset_rewind", "low", 9_000, 9_000, ["m1"], _rng("t", 2, 30, 30)),         # empty range
        _finding("g", "offset_rewind", "low", 9_000, 9_000, ["m1"], {"topic": "t", "partition": 3}),  # no bounds
        _finding("g", "offset_skip", "critical", 1_000, 45_000, ["m4"], _rng("u", 3, 5, 9)),
        _finding("g", "session_expiry", "high", 18_000, 19_000, ["m2"], gen=2),     # m2's leave is recorded
        _finding("g", "poll_timeout", "medium", 12_000, 12_000, ["m7"], gen=3),     # no membership leave
        _finding("g", "rebalance_storm", "info", 500, 600, ["m8"]),                 # not an expulsion
        _finding("other", "offset_skip", "high", 1_000, 2_000, ["z"], _rng("t", 0, 0, 100)),
    ]
    for name, rows in (("generations", gens), ("memberships", mems), ("findings", fnd)):
        rundir.write_table(tmp_path, name, rows)
    return [rundir.load_table(tmp_path, t) for t in ("generations", "memberships", "findings")]


def test_every_figure_of_a_group(tmp_path):
    gens, mems, fnd = _tables(tmp_path)
    got = figures.group_figures("g", gens, mems, fnd)
    assert got == {
        "group_id": "g",
        "generations_seen": 4,
        "rebalances": 3,                               # generations 2, 3, 4: start or completion known
        "rebalance_ms_total": 4_000,                   # 1000 + 3000 (generation 3 never completed)
        "rebalance_ms_longest": 3_000,
        "rebalances_timed": 2,                         # generation 3's duration is unknown
        "causes": {"member_joined": 1, "unknown": 1, "member_left": 1},
        "members_seen": ["m0", "m1", "m2", "m5", "m6"],
        "expelled": [
            {"group_id": "g", "member_id": "m7", "client_id": None, "host": None, "generation": 3,
             "reason": "poll_timeout", "at_ms": 12_000},
            {"group_id": "g", "member_id": "m2", "client_id": "c2", "host": "/10.0.0.2", "generation": 2,
             "reason": "session_expiry", "at_ms": 19_000},
            {"group_id": "g", "member_id": "m6", "client_id": None, "host": None, "generation": 4,
             "reason": "poll_timeout", "at_ms": 33_000},
        ],
        "reprocessed_ranges": [
            {"group_id": "g", "topic": "t", "partition": 1, "from_offset": 40, "to_offset": 41, "count": 1,
             "start_ms": 2_000, "member_id": None, "evidence": [], "estimated": True},
            {"group_id": "g", "topic": "t", "partition": 0, "from_offset": 10, "to_offset": 25, "count": 15,
             "start_ms": 7_000, "member_id": "m1", "evidence": ["a:1"], "estimated": False},
        ],
        "skipped_ranges": [
            {"group_id": "g", "topic": "u", "partition": 3, "from_offset": 5, "to_offset": 9, "count": 4,
             "start_ms": 1_000, "member_id": "m4", "evidence": [], "estimated": False},
        ],
        "reprocessed_offsets": 16,
        "skipped_offsets": 4,
        "findings_by_severity": {"critical": 1, "high": 3, "medium": 2, "low": 2, "info": 1},
        "first_ms": 500,                               # the storm finding's start
        "last_ms": 45_000,                             # the skip finding's end
    }
    assert figures.figures_by_group(["g"], gens, mems, fnd) == {"g": got}


def test_times_come_from_generations_when_they_are_the_extremes(tmp_path):
    gens, mems, fnd = _tables(tmp_path)
    got = figures.group_figures("other", gens, mems, fnd)
    assert (got["first_ms"], got["last_ms"]) == (1_000, 99_000)     # started_ms, ended_ms of generation 9
    assert got["expelled"][0]["member_id"] == "z" and got["skipped_offsets"] == 100
    # a group with no finding: times from its generations alone; no severity counted
    empty = fnd.iloc[0:0]
    got = figures.group_figures("other", gens, mems, empty)
    assert (got["first_ms"], got["last_ms"]) == (1_000, 99_000)
    assert got["findings_by_severity"] == {"critical": 0, "high": 0, "medium": 0, "low": 0, "info": 0}


def test_all_groups_names_every_group_once_sorted(tmp_path):
    gens, mems, fnd = _tables(tmp_path)
    assert figures.all_groups(gens, mems, fnd) == ["g", "other"]
    assert figures.all_groups(fnd.iloc[0:0], mems[mems["group_id"] == "other"]) == ["other"]


def test_offset_ranges_edges(tmp_path):
    """Malformed rows first (no details, one bound only, an empty range) do not stop or break the
    count; the same offsets on another partition or topic are another range; ties on the start are
    ordered by topic then partition."""
    fnd = [
        _finding("g", "offset_rewind", "low", 1_000, 1_000, ["m1"], None),
        _finding("g", "offset_rewind", "low", 1_000, 1_000, ["m1"], {"topic": "t", "partition": 0, "to_offset_exclusive": 9}),
        _finding("g", "offset_rewind", "low", 1_000, 1_000, ["m1"], _rng("t", 0, 9, 9)),
        _finding("g", "offset_rewind", "high", 5_000, 6_000, ["m1"], _rng("t", 3, 10, 25)),
        _finding("g", "offset_rewind", "high", 5_000, 6_000, ["m1"], _rng("t", 1, 10, 25)),
        _finding("g", "offset_rewind", "high", 5_000, 6_000, ["m1"], _rng("a", 1, 10, 25)),
    ]
    rundir.write_table(tmp_path, "findings", fnd)
    got = figures.offset_ranges(rundir.load_table(tmp_path, "findings"), "offset_rewind")
    assert [(r["topic"], r["partition"], r["from_offset"], r["to_offset"], r["start_ms"], r["member_id"])
            for r in got] == [("a", 1, 10, 25, 5_000, "m1"), ("t", 1, 10, 25, 5_000, "m1"),
                              ("t", 3, 10, 25, 5_000, "m1")]


def test_expelled_edges_and_a_group_without_rebalances(tmp_path):
    """A finding naming a member already expelled and a new one lists the new one; two expelled at
    the same moment are ordered by member id. A group whose generations show no rebalance has no
    longest rebalance (0 ms), not a made-up one."""
    gens = [_gen("q", 4, None, None, None, None, None, ["b", "a"])]
    mems = [_mem("q", "b", 4, "session_expiry", 7_000), _mem("q", "m2", 4, "session_expiry", 5_000)]
    fnd = [_finding("q", "poll_timeout", "medium", 7_000, 7_000, ["m2", "a"], gen=4)]
    for name, rows in (("generations", gens), ("memberships", mems), ("findings", fnd)):
        rundir.write_table(tmp_path, name, rows)
    g, m, f = (rundir.load_table(tmp_path, t) for t in ("generations", "memberships", "findings"))
    got = figures.group_figures("q", g, m, f)
    assert [(e["member_id"], e["reason"], e["at_ms"]) for e in got["expelled"]] == [
        ("m2", "session_expiry", 5_000), ("a", "poll_timeout", 7_000), ("b", "session_expiry", 7_000)]
    assert (got["generations_seen"], got["rebalances"], got["rebalance_ms_total"], got["rebalance_ms_longest"]) == (
        1, 0, 0, 0)
    assert got["causes"] == {}


def test_time_spent_rebalancing_in_words_is_a_lower_bound_unless_every_rebalance_is_timed():
    """The sum over rebalances with a known duration is the whole time only when all of them are."""
    assert figures.rebalancing_total(4_000, 2, 2) == "4.0 s"
    assert figures.rebalancing_total(4_000, 2, 3) == "at least 4.0 s"
    assert figures.rebalancing_total(0, 0, 1) == "time unknown"
    assert figures.rebalancing_total(0, 0, 0) == "0 ms"
    assert figures.rebalancing_sentence(4_000, 3_000, 2, 2) == "4.0 s spent rebalancing (longest 3.0 s)"
    assert figures.rebalancing_sentence(4_000, 3_000, 2, 3) == (
        "at least 4.0 s spent rebalancing (2 of 3 rebalances have a known duration; longest 3.0 s)")
    assert figures.rebalancing_sentence(4_000, 3_000, 2, 3, brief=True) == (
        "at least 4.0 s spent rebalancing; 2 of 3 rebalances have a known duration")
    assert figures.rebalancing_sentence(0, 0, 0, 1) == (
        "time spent rebalancing unknown (no rebalance has a known duration)")


def test_groups_without_partitions_and_their_words():
    """A group with a generation and no ownership interval has an unknown figure, named in words;
    with no group owning anything there is no number at all."""
    import pandas as pd

    from pipeline import figures

    gens = pd.DataFrame({"group_id": ["a", "b", "c", None], "generation": [1, 1, 2, 1]})
    own = pd.DataFrame({"group_id": ["a", "c"], "start_ms": [10.0, float("nan")]})
    assert figures.groups_owning(own) == ["a"]
    assert figures.groups_without_partitions(own, gens) == ["b", "c"]
    assert figures.groups_without_partitions(own.iloc[:0], gens) == ["a", "b", "c"]
    assert figures.groups_without_partitions(own, gens.iloc[:0]) == []
    assert figures.unowned_sentence(12.5, 0, [], no_partition_groups=["b", "c"]) == \
        "12.5. Not known for 2 other groups, whose logs name no partition their members owned: b, c."
    assert figures.unowned_sentence(12.5, 0, []) == "12.5"
    assert figures.unowned_sentence(None, 0, [], no_partition_groups=["b"]).startswith(
        "unknown: the logs name no partition this group's members owned")
    many = [f"g{i}" for i in range(7)]
    assert figures.unowned_sentence(None, 0, [], no_partition_groups=many).endswith(
        "infers none): g0, g1, g2, g3, g4 and 2 more")


def test_the_unowned_figures_come_first_and_the_reasons_after():
    """Every number of the figure in its first sentence or two, each reason after them, once."""
    from pipeline import figures

    text = figures.unowned_sentence(361.531, 277.28, ["reason one", "reason two"], 0, 141.267, (), 592.14, 96.931)
    head, _, rest = text.partition(". Estimated: ")
    assert head == ("361.531 (277.28 of it estimated, up to 96.931 of which may instead have had an owner the logs "
                    "do not show). Not counted: 141.267 partition-seconds whose owner the logs do not show, before "
                    "a partition's first owner in the logs or after its last; 592.14 partition-seconds between two "
                    "owners in the logs, held by a member whose assignment no line shows")
    assert rest.startswith("reason one; reason two. May have had an owner: ")
    assert rest.count("Owner not shown: ") == rest.count("Held by a member no line shows: ") == 1
    assert "Owned only by inference" not in rest
    assert figures.unowned_sentence(5, 0, [], 2.5) == (
        "5. Not counted: 2.5 partition-seconds owned only by the replay's inference. Owned only by inference: no "
        "consumer's log shows that ownership, the replay infers it from the generations; time with no owner "
        "within it is not counted.")
