"""The three rules that end and infer ownership intervals (pipeline/replay_rules/ownership.py), each on a
small hand-made group state whose right answer is derived by hand in the comments: close_open (an
interval still open when the pass ends: the broker's removal, the member's own leave, or the log's end),
from_assignments (members seen only through the broker or a dump own their generation's assignment;
cooperative and KIP-1071 groups keep a partition across generations) and static_handover (a static
member's restart hands its partitions to its new member id at once, KIP-345).

Each test compares whole Interval objects (member, client id, generation, start, start evidence, end,
reason, end evidence, the log file it came from, and whether it is inferred), every interval the rule
makes and nothing else. The mutation pass over ownership.py (docs/testing.md, twentieth session)
found each edge here unreached by the sample-based tests (tests/replay/test_ownership_exact.py)."""

from __future__ import annotations

from types import SimpleNamespace as NS

from pipeline.replay_rules import ownership as own
from pipeline.replay_rules.state import Interval

END = 500_000   # the logs' last time


# --- close_open: what a member's own log still held when the pass ended ---------------------------


def _stream(source, member, held, last_ms, g=2, client=None):
    """A member's own log (`source`) whose callbacks left `held` (partition -> start) assigned."""
    return NS(source=source, client_id=client or f"c-{member}", last_ms=last_ms,
              owned={tp: (start, f"{source}:{i + 1}", g, member) for i, (tp, start) in enumerate(held.items())})


def _gview(gen, members, started=None):
    """A generation: members -> (left_ms, leave_reason, leave_ev) or None when it did not leave."""
    return NS(gen=NS(generation=gen, members={
        m: NS(left_ms=x[0] if x else None, leave_reason=x[1] if x else None, leave_ev=x[2] if x else None)
        for m, x in members.items()}), started_ms=started)


def _closed(streams, lives=(), views=(), intervals=()):
    st = NS(intervals=list(intervals), streams={i: s for i, s in enumerate(streams)}, last_ms=END,
            lives={m: NS(removed_ms=t, removed_reason=why, removed_ev=ev) for m, t, why, ev in lives})
    own.close_open(st, list(views))
    assert all(not s.owned for s in st.streams.values())
    return st.intervals


def test_a_held_partition_ends_at_the_brokers_removal_unless_the_process_logged_after_it():
    ivs = _closed(
        [_stream("b.log", "B", {"t-0": 10_000}, last_ms=90_000),     # silent after 90 s, removed at 100 s
         _stream("c.log", "C", {"t-1": 10_000}, last_ms=150_000),    # removed at 120 s, logged at 150 s
         _stream("d.log", "D", {"t-2": 10_000}, last_ms=130_000),    # its last line at the removal's ms
         _stream("e.log", "E", {"t-3": 140_000}, last_ms=139_000)],  # removed at the ms it got t-3
        lives=[("B", 100_000, "session_expiry", "server.log:40"), ("C", 120_000, "session_expiry", "server.log:41"),
               ("D", 130_000, "poll_timeout", "server.log:42"), ("E", 140_000, "session_expiry", "server.log:43")])
    assert ivs == [
        # the process never logged again: the coordinator's removal ended what it held, with that line
        Interval("t-0", "B", "c-B", 2, 10_000, "b.log:1", 100_000, "session_expiry", "server.log:40", "b.log"),
        # it logged after its removal (a new life of the process): it held t-1 as far as its log shows
        Interval("t-1", "C", "c-C", 2, 10_000, "c.log:1", END, "log_end", None, "c.log"),
        # a last line at the removal's own millisecond is not a sign of life after it
        Interval("t-2", "D", "c-D", 2, 10_000, "d.log:1", 130_000, "poll_timeout", "server.log:42", "d.log"),
        # removed at the millisecond it was assigned t-3: it held it for 0 ms, not to the log's end
        Interval("t-3", "E", "c-E", 2, 140_000, "e.log:1", 140_000, "session_expiry", "server.log:43", "e.log"),
    ]


def test_a_held_partition_ends_at_the_members_own_leave_unless_it_rejoined_or_logged_after_it():
    views = [
        _gview(1, {"F": None, "G": None, "H": None, "I": None, "J": None}, started=0),
        _gview(2, {"F": (60_000, "shutdown", "server.log:50"), "G": (70_000, "left", "server.log:51"),
                   "H": (80_000, "left", "server.log:52"), "I": (85_000, "left", "server.log:53"),
                   "J": (50_000, "left", "server.log:54")}, started=40_000),
        _gview(3, {"J": None}, started=100_000),    # J is a member again, its partitions never revoked
    ]
    ivs = _closed(
        [_stream("f.log", "F", {"t-0": 10_000}, last_ms=59_000),
         _stream("g.log", "G", {"t-1": 70_000}, last_ms=69_000),    # left at the ms it got t-1
         _stream("h.log", "H", {"t-2": 10_000}, last_ms=95_000),    # logged after its leave
         _stream("i.log", "I", {"t-3": 10_000}, last_ms=85_000),    # its last line at the leave's ms
         _stream("j.log", "J", {"t-4": 10_000}, last_ms=45_000)],
        views=views)
    assert ivs == [
        Interval("t-0", "F", "c-F", 2, 10_000, "f.log:1", 60_000, "shutdown", "server.log:50", "f.log"),
        Interval("t-1", "G", "c-G", 2, 70_000, "g.log:1", 70_000, "left", "server.log:51", "g.log"),
        Interval("t-2", "H", "c-H", 2, 10_000, "h.log:1", END, "log_end", None, "h.log"),
        Interval("t-3", "I", "c-I", 2, 10_000, "i.log:1", 85_000, "left", "server.log:53", "i.log"),
        # (a member of generation 3 again: its leave in generation 2 did not end what its log still holds)
        Interval("t-4", "J", "c-J", 2, 10_000, "j.log:1", END, "log_end", None, "j.log"),
    ]


def _gone(member, gen, start, end):
    return Interval("t-0", member, f"c-{member}", gen, start, f"{member}.log:1", end, "process_gone",
                    f"{member}.log:9", f"{member}.log")


def test_a_stopped_process_owns_until_the_first_generation_that_formed_without_it():
    k = _gone("K", 2, 11_000, 90_000)      # K's process stopped logging at 90 s
    m = _gone("M", 2, 11_000, 70_000)      # M left at the ms of its last line
    n = _gone("N", 2, 80_000, 95_000)      # N got t-0 at the ms the generation without it began
    views = [
        _gview(1, {"K": None, "M": None, "N": None}, started=0),
        _gview(2, {"K": None, "M": (70_000, "left", "server.log:60"), "N": None}, started=10_000),
        # a generation whose start the logs do not show is no bound ...
        _gview(3, {"L": None}, started=None),
        # ... the next one that formed without K and N is
        _gview(4, {"L": None}, started=80_000),
    ]
    _closed([], views=views, intervals=[k, m, n])
    assert (k.end_ms, k.end_reason, k.end_ev) == (80_000, "process_gone", None)
    assert (m.end_ms, m.end_reason, m.end_ev) == (70_000, "left", "server.log:60")
    assert (n.end_ms, n.end_reason) == (80_000, "process_gone")


def test_a_generation_whose_members_no_line_names_ends_a_stopped_process_no_later_generation_names():
    # a 0.9-0.10 broker names no member; P's own log (its process_gone interval's source) shows no
    # join to generation 3 and no generation after it names P: P owned nothing once generation 3's
    # rebalance began (60 s). Q and R are named later: the first generation naming members decides,
    # generation 4 (90 s), which has Q and not R
    p = _gone("P", 2, 11_000, 95_000)
    q = _gone("Q", 2, 11_000, 95_000)
    r = _gone("R", 2, 11_000, 95_000)
    views = [_gview(1, {"P": None, "Q": None, "R": None}, started=0),
             _gview(2, {"P": None, "Q": None, "R": None}, started=10_000),
             _gview(3, {}, started=60_000), _gview(4, {"Q": None}, started=90_000),
             _gview(5, {"Q": None, "R": None}, started=120_000)]
    _closed([], views=views, intervals=[p, q, r])
    assert (p.end_ms, p.end_reason) == (60_000, "process_gone")
    assert (q.end_ms, q.end_reason) == (95_000, "process_gone")
    assert (r.end_ms, r.end_reason) == (90_000, "process_gone")


# --- from_assignments: members whose own log shows no partition callbacks --------------------------


def _member(mid, assigned, synced=None, evidence=(), left=None, client=None, host=None):
    return NS(member_id=mid, assigned=list(assigned), synced_ms=synced, evidence=list(evidence),
              client_id=client, host=host, left_ms=left[0] if left else None,
              leave_reason=left[1] if left else None, leave_ev=left[2] if left else None)


def _view(gen, members, stable, ended, end_kind="rebalance", protocol=None, protocol_type="consumer",
          stable_ev=None, record_ev=None, prepare_ev=None):
    return NS(gen=NS(generation=gen, members={m.member_id: m for m in members}, protocol=protocol,
                     protocol_type=protocol_type, stable_ev=stable_ev, record_ev=record_ev, prepare_ev=prepare_ev),
              stabilized_ms=stable, ended_ms=ended, end_kind=end_kind)


def _inferred(views, assignor=None):
    st = NS(intervals=[], last_ms=END, last_ev="server.log:99")
    own.from_assignments(views, st, NS(assignor=assignor))
    return sorted(st.intervals, key=lambda iv: (iv.topic_partition, iv.start_ms))


def test_a_cooperative_assignor_configured_keeps_what_the_next_generation_keeps():
    # the generations' protocol is not in the logs, the configured assignor is cooperative-sticky
    # (KIP-429): A keeps t-0 across the rebalance and gives up only t-1 at its start (100 s)
    views = [
        _view(1, [_member("Z", []),       # a member without assignment first: A's is still read
                  _member("A", ["t-0", "t-1"], synced=1_050, client="c-a", host="a.log")],
              stable=1_000, ended=100_000, stable_ev="server.log:5", prepare_ev=None),
        _view(2, [_member("A", ["t-0"], synced=101_070, evidence=["dump:20"], client="c-a", host="a.log")],
              stable=101_000, ended=300_000, end_kind="log_end", prepare_ev="server.log:30"),
    ]
    views[1].gen.prepare_ev = "server.log:30"
    assert _inferred(views, assignor="cooperative-sticky") == [
        # from its SyncGroup (1.050 s), not the Stable (1.000 s); no member line: the Stable's as evidence
        Interval("t-0", "A", "c-a", 1, 1_050, "server.log:5", 300_000, "log_end", "server.log:99", "a.log",
                 inferred=True),
        Interval("t-1", "A", "c-a", 1, 1_050, "server.log:5", 100_000, "rebalance", "server.log:30", "a.log",
                 inferred=True),
    ]
    # an eager assignor revokes everything at each rebalance: t-0 is two intervals
    assert [(iv.topic_partition, iv.generation, iv.start_ms, iv.end_ms) for iv in _inferred(views, "range")] == [
        ("t-0", 1, 1_050, 100_000), ("t-0", 2, 101_070, 300_000), ("t-1", 1, 1_050, 100_000)]


def test_a_streams_group_keeps_what_the_next_epoch_keeps():
    # KIP-1071 streams groups reconcile incrementally as KIP-848 consumer groups do
    views = [_view(1, [_member("S", ["t-0", "t-1"], evidence=["server.log:3"])], stable=1_000, ended=50_000,
                   protocol_type="streams (KIP-1071)"),
             _view(2, [_member("S", ["t-0"], evidence=["server.log:7"])], stable=50_100, ended=90_000,
                   protocol_type="streams (KIP-1071)", end_kind="log_end", prepare_ev="server.log:6")]
    assert [(iv.topic_partition, iv.generation, iv.start_ms, iv.end_ms, iv.end_reason) for iv in _inferred(views)] == [
        ("t-0", 1, 1_000, 90_000, "log_end"), ("t-1", 1, 1_000, 50_000, "rebalance")]


def test_the_first_evidence_falls_back_to_the_stable_line_then_the_dump_record():
    views = [_view(1, [_member("A", ["t-0"])], stable=1_000, ended=2_000, record_ev="dump:4"),
             _view(2, [_member("A", ["t-0"])], stable=3_000, ended=4_000, stable_ev="server.log:8",
                   record_ev="dump:9", prepare_ev="server.log:2"),
             _view(3, [_member("A", ["t-0"])], stable=5_000, ended=6_000, end_kind="log_end")]
    views[1].gen.prepare_ev = "server.log:7"
    assert [(iv.start_ms, iv.start_ev) for iv in _inferred(views)] == [(1_000, "dump:4"), (3_000, "server.log:8"),
                                                                       (5_000, "")]


def test_a_cooperative_member_whose_next_generation_never_stabilized_holds_to_the_log_end():
    # generation 2's rebalance never completed (no Stable, no SyncGroup): A kept t-0 through it
    # (cooperative: owned partitions stay owned while the group rebalances)
    # R joined generation 2 and its SyncGroup response is in the logs (the group's Stable is not): it
    # owned t-1 from then to the log end
    views = [_view(1, [_member("A", ["t-0"], evidence=["server.log:3"], host="a.log")], stable=1_000,
                   ended=60_000, protocol="cooperative-sticky"),
             _view(2, [_member("A", ["t-0"]), _member("R", ["t-1"], synced=61_000, evidence=["server.log:8"])],
                   stable=None, ended=END, protocol="cooperative-sticky", end_kind="log_end")]
    views[1].gen.prepare_ev = "server.log:6"
    assert _inferred(views) == [
        Interval("t-0", "A", None, 1, 1_000, "server.log:3", END, "log_end", None, "a.log", inferred=True),
        Interval("t-1", "R", None, 2, 61_000, "server.log:8", END, "log_end", "server.log:99", inferred=True)]


# --- static_handover: a static member's restart (KIP-345) ------------------------------------------

U = "0123abcd-0000-4000-8000-00000000000"   # + one digit: a UUID's 36 characters


def _sm(mid, assigned, instance=None, host=None):
    return NS(member_id=mid, assigned=list(assigned), instance_id=instance, client_id=f"c-{mid}", host=host)


def _sview(gen, members, started, stable, ended):
    return NS(gen=NS(generation=gen, members={m.member_id: m for m in members}), started_ms=started,
              stabilized_ms=stable, ended_ms=ended)


def _replaced(old, at, instance, line):
    return NS(member_id=old, ts_ms=at, facts={"instance_id": instance}, evidence=[f"server.log:{line}"])


def test_a_static_members_partitions_go_to_its_new_id_from_the_replacement():
    a1, a2, a3 = f"a-{U}1", f"a-{U}2", f"a-{U}3"
    b1, b2, e1, e2, h1 = f"b-{U}1", f"b-{U}2", f"e-{U}1", f"e-{U}2", f"h-{U}1"
    views = [
        _sview(1, [_sm(a1, ["t-0", "t-1", "t-5"], "a"), _sm(b1, ["t-2"], "b"), _sm("c-1", [], "c"),
                   _sm(e1, ["t-4"], "e"), _sm(h1, ["t-6"], "h"), _sm("d-1", ["t-3"])], 0, 1_000, 100_000),
        # generation 2 is known only by its Stable (a dump record): its start is not in the logs
        _sview(2, [_sm(a2, ["t-0", "t-5"], "a", host="a2.log"), _sm(b2, ["t-2"], host="b2.log"),
                   _sm(e2, ["t-4"], host="e2.log"), _sm("z-1", ["t-1"]), _sm("d-1", ["t-3"])], None, 101_000, 200_000),
        _sview(3, [_sm(a3, ["t-0", "t-1", "t-5"], "a")], 200_000, 201_000, None),
    ]
    own_a2 = [Interval("t-0", a2, None, 1, 20_000, "dump:20", 100_000, "rebalance", None, "a2.log", inferred=True),
              Interval("t-1", a2, None, 1, 60_000, "dump:60", 100_000, "rebalance", None, "a2.log", inferred=True),
              Interval("t-5", a2, None, 2, 101_000, "dump:101", 200_000, "rebalance", None, "a2.log", inferred=True),
              Interval("t-1", "z-1", None, 2, 101_000, "dump:101", 200_000, "rebalance", None, None, inferred=True)]
    st = NS(intervals=list(own_a2), instance_of={b2: "b"},
            observed=lambda kind: [
                _replaced(a1, None, "a", 1),       # no time: nothing can be said (and the rest is still read)
                _replaced("c-1", 10_000, "c", 2),  # it held nothing
                _replaced("q-1", 15_000, "q", 3),  # in no generation the logs show
                _replaced(a1, 20_000, "a", 4),
                _replaced(b1, 30_000, "b", 5),     # the new id's instance only the broker's line names
                _replaced(e1, 40_000, "e", 6),     # the new id named only by the leader's map
                _replaced(h1, 45_000, "h", 7),     # its new id never joined a generation the logs show
            ] if kind == "static_replaced" else [])
    own.static_handover(views, st, {"d-1"})
    assert st.intervals[len(own_a2):] == [
        # t-0: a2's own interval begins at the replacement itself: nothing to add
        # t-1: a2 held it from the replacement until its own interval (a dump record of the replacement)
        Interval("t-1", a2, f"c-{a2}", 1, 20_000, "server.log:4", 60_000, "continued", "dump:60", "a2.log",
                 inferred=True),
        # t-5: a2's own interval begins after the rebalance: a2 held it until the rebalance began
        Interval("t-5", a2, f"c-{a2}", 1, 20_000, "server.log:4", 100_000, "rebalance", None, "a2.log",
                 inferred=True),
        Interval("t-2", b2, f"c-{b2}", 1, 30_000, "server.log:5", 100_000, "rebalance", None, "b2.log",
                 inferred=True),
        Interval("t-4", e2, f"c-{e2}", 1, 40_000, "server.log:6", 100_000, "rebalance", None, "e2.log",
                 inferred=True),
    ]
