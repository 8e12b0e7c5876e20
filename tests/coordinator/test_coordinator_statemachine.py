"""Random request sequences against the coordinator, with Kafka's invariants checked after every step.

The leader assigns partitions round-robin over the member list it receives (a simple deterministic
assignor), so "no partition owned twice in one generation" can be checked on what members receive.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from pipeline.coordinator import CoordinatorConfig, GroupCoordinator, JoinResponse, SyncResponse

G = "g"
PARTITIONS = [f"t-{i}" for i in range(6)]
PROTOCOL_SETS = [(("range", b""),), (("range", b"x"),), (("roundrobin", b""), ("range", b""))]


def assign(member_ids: list[str]) -> dict[str, str]:
    """Round-robin the partitions over the members the leader was given."""
    owned: dict[str, list[str]] = {m: [] for m in member_ids}
    for i, p in enumerate(PARTITIONS):
        owned[member_ids[i % len(member_ids)]].append(p)
    return {m: ",".join(ps) for m, ps in owned.items()}


class CoordinatorMachine(RuleBasedStateMachine):
    impl = "scala"

    @initialize()
    def setup(self):
        self.c = GroupCoordinator(CoordinatorConfig(
            impl=self.impl, group_min_session_timeout_ms=10, group_max_size=5,
            group_initial_rebalance_delay_ms=30, new_member_join_timeout_ms=2000),
            on_delivered=lambda d: self._on_response(d.request_id, d.op, d.member_id, d.response))
        self.now = 0
        self.max_generation = 0
        self.known: list[str] = []  # member ids ever handed out (valid, stale or pending)
        self.generation_of: dict[str, int] = {}  # member -> generation it last joined
        self.leader_lists: dict[str, list[str]] = {}  # leader -> member list of its generation
        self.owners: dict[int, dict[str, str]] = {}  # generation -> partition -> member
        self.answered: set[int] = set()
        self.tickets = []

    # ------------------------------------------------------------------ bookkeeping
    def _track(self, ticket):
        self.tickets.append(ticket)
        if not ticket.pending:
            self._on_response(ticket.request_id, ticket.op, ticket.member_id, ticket.response)

    def _on_response(self, request_id, op, member_id, resp):
        # parked answers arrive through on_delivered, at the moment the coordinator gives them
        assert request_id not in self.answered, "a request was answered twice"
        self.answered.add(request_id)
        if isinstance(resp, JoinResponse) and resp.member_id:
            if resp.member_id not in self.known:
                self.known.append(resp.member_id)
            if resp.error == "NONE":
                snap = self.c.group(G)
                assert resp.generation == snap.generation, "JoinGroup answered with a stale generation"
                self.generation_of[resp.member_id] = resp.generation
                if resp.members:
                    assert resp.leader == resp.member_id
                    self.leader_lists[resp.member_id] = [m[0] for m in resp.members]
        if isinstance(resp, SyncResponse) and resp.error == "NONE" and resp.assignment:
            gen = self.generation_of.get(member_id)
            owners = self.owners.setdefault(gen, {})
            for p in resp.assignment.split(","):
                assert owners.setdefault(p, member_id) == member_id, f"{p} owned twice in generation {gen}"

    def _member(self, data):
        return data.draw(st.sampled_from(self.known)) if self.known else "unknown-member"

    # ------------------------------------------------------------------ rules
    @rule(static=st.booleans(), v4=st.booleans(), protos=st.sampled_from(PROTOCOL_SETS),
          session=st.sampled_from([50, 200, 1000]))
    def join_new(self, static, v4, protos, session):
        instance = f"inst-{len(self.known) % 3}" if static else None
        self._track(self.c.join(G, "", instance_id=instance, protocols=protos, session_timeout_ms=session,
                                rebalance_timeout_ms=300, require_known_member_id=v4, now_ms=self.now))

    @precondition(lambda self: self.known)
    @rule(data=st.data(), protos=st.sampled_from(PROTOCOL_SETS))
    def rejoin(self, data, protos):
        m = self._member(data)
        self._track(self.c.join(G, m, protocols=protos, session_timeout_ms=200, rebalance_timeout_ms=300,
                                now_ms=self.now))

    @precondition(lambda self: self.known)
    @rule(data=st.data())
    def sync(self, data):
        m = self._member(data)
        gen = self.generation_of.get(m, 0)
        assignment = assign(self.leader_lists[m]) if m in self.leader_lists else None
        self._track(self.c.sync(G, m, gen, assignment=assignment, now_ms=self.now))

    @precondition(lambda self: self.known)
    @rule(data=st.data())
    def heartbeat(self, data):
        m = self._member(data)
        self._track(self.c.heartbeat(G, m, self.generation_of.get(m, 0), now_ms=self.now))

    @precondition(lambda self: self.known)
    @rule(data=st.data())
    def leave(self, data):
        self._track(self.c.leave(G, [(self._member(data), None)], now_ms=self.now))

    @precondition(lambda self: self.known)
    @rule(data=st.data(), offset=st.integers(0, 100))
    def commit(self, data, offset):
        m = self._member(data)
        self._track(self.c.commit(G, m, self.generation_of.get(m, -1), {"t-0": offset}, now_ms=self.now))

    @rule(offset=st.integers(0, 100))
    def simple_commit(self, offset):
        self._track(self.c.commit(G, "", -1, {"t-1": offset}, now_ms=self.now))

    @rule(delta=st.sampled_from([1, 29, 31, 100, 250, 1000, 2500]))
    def advance(self, delta):
        self.now += delta
        self.c.advance_time(self.now)

    # ------------------------------------------------------------------ invariants
    @invariant()
    def generation_never_decreases(self):
        snap = self.c.group(G)
        if snap is not None:
            assert snap.generation >= self.max_generation
            self.max_generation = snap.generation

    @invariant()
    def empty_iff_no_members(self):
        snap = self.c.group(G)
        if snap is None:
            return
        if snap.state == "Empty":
            assert snap.members == () and snap.leader is None
        elif not snap.members:
            # Kafka keeps a memberless group in PreparingRebalance until its initial join timer fires
            assert snap.state == "PreparingRebalance" and self.c.next_deadline() is not None
        assert snap.state != "Dead"

    @invariant()
    def leader_is_a_member_once_the_join_phase_completed(self):
        snap = self.c.group(G)
        if snap is not None and snap.state in ("CompletingRebalance", "Stable"):
            assert snap.leader in snap.member_ids
            assert snap.protocol is not None
        if snap is not None and snap.members:
            assert snap.leader in snap.member_ids

    @invariant()
    def no_partition_owned_twice_in_the_stable_assignment(self):
        snap = self.c.group(G)
        if snap is not None and snap.state == "Stable":
            seen: set[str] = set()
            for token in snap.assignment.values():
                parts = [p for p in (token or "").split(",") if p]
                assert not seen.intersection(parts)
                seen.update(parts)

    @invariant()
    def static_mapping_points_at_members(self):
        snap = self.c.group(G)
        if snap is not None:
            for instance, mid in snap.static_members.items():
                assert snap.member(mid) is not None and snap.member(mid).instance_id == instance
            assert not set(snap.pending_members) & set(snap.member_ids)


class JavaCoordinatorMachine(CoordinatorMachine):
    impl = "java"


_SETTINGS = settings(max_examples=40, stateful_step_count=40, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])
TestScalaCoordinatorStateMachine = CoordinatorMachine.TestCase
TestScalaCoordinatorStateMachine.settings = _SETTINGS
TestJavaCoordinatorStateMachine = JavaCoordinatorMachine.TestCase
TestJavaCoordinatorStateMachine.settings = _SETTINGS
