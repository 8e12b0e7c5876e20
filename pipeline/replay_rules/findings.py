"""Findings: what an on-call engineer should look at, each with severity, time span, members,
partitions, a one-paragraph explanation in plain words, machine-readable details and evidence."""

from __future__ import annotations

import bisect
import hashlib
import json
from typing import Any

from pipeline.replay_rules import ownership
from pipeline.replay_rules.collect import GroupState
from pipeline.replay_rules.generations import GenView, _fmt_ms, _uniq, _who, cap
from pipeline.replay_rules.offsets import OffsetIssue
from pipeline.replay_rules.reasons import poll_leaver
from pipeline.replay_rules.settings import EffectiveSettings
from pipeline.replay_rules.state import Interval

FINDING_KINDS: dict[str, str] = {
    "rebalance_storm": "many rebalances in a short window",
    "session_expiry": "a member was expelled for missing heartbeats",
    "poll_timeout": "a member exceeded max.poll.interval.ms",
    "rebalance_stuck": "a rebalance took longer than its rebalance timeout",
    "static_member_fenced": "a static member was fenced by another process with the same group.instance.id",
    "inconsistent_protocol": "a member's assignors share none with the group",
    "stale_generation_commit": "an offset commit from an old generation was rejected",
    "offset_rewind": "an offset range was processed twice",
    "offset_skip": "an offset range was never processed",
    "double_ownership": "two members owned one partition at the same time",
    "unowned_partitions": "partitions had no owner for long",
    "coordinator_failover": "the group's coordinator moved to another broker",
    "unexplained": "what the protocol cannot produce, or a gap where evidence is missing",
    "member_fenced": "a consumer-protocol member was fenced (FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID)",
    "migration_stuck": "the coordinator refused to convert the group between the classic and consumer protocols",
}

MAX_EVIDENCE = 50
# the closing sentence of an offset_skip finding, by what moved the offset: a member's reset of its
# position (ConsumerConfig auto.offset.reset), or an administrator's commit while the group was empty
# (kafka-consumer-groups.sh --reset-offsets, which ConsumerGroupCommand refuses on an active group)
_RESET_SKIP = ("This is what auto.offset.reset=latest does when the committed offset is missing (expired or "
               "deleted) or out of range.")
_ADMIN_SKIP = ("This is what kafka-consumer-groups --reset-offsets does with a later target (--to-latest, "
               "--to-datetime, --shift-by and the like): the group does not read these records unless its offsets "
               "are reset back; check that the target was intended.")


def make(group_id: str | None, kind: str, severity: str, start: int | None, end: int | None, *,
         members: list[str] | None = None, partitions: list[str] | None = None, generation: int | None = None,
         title: str, explanation: str, details: dict[str, Any] | None = None,
         evidence: list[str | None]) -> dict:
    members = sorted({m for m in (members or []) if m})
    partitions = sorted(set(partitions or []))
    ev = _uniq(list(evidence))[:MAX_EVIDENCE]
    key = _KEY_JSON.encode([group_id, kind, start, generation, members, partitions, title])
    return {
        "finding_id": hashlib.sha1(key.encode()).hexdigest()[:16], "kind": kind, "severity": severity,
        "group_id": group_id, "start_ms": start, "end_ms": end if end is not None else start,
        "members": members, "partitions": partitions, "generation": generation, "title": title,
        "explanation": explanation, "details_json": _DETAILS_JSON.encode(details or {}),
        "evidence": ev,
    }


# json.dumps(x, default=str) and json.dumps(x, sort_keys=True, default=str), the encoders made once
# (json.dumps builds a new JSONEncoder per call when given options)
_KEY_JSON = json.JSONEncoder(default=str)
_DETAILS_JSON = json.JSONEncoder(sort_keys=True, default=str)


def by_start(f: dict) -> tuple:
    """The findings' order: start time (none first), kind, id."""
    return (f["start_ms"] if f["start_ms"] is not None else -1, f["kind"], f["finding_id"])


class FindingRules:
    def __init__(self, st: GroupState, views: list[GenView], cfg: EffectiveSettings) -> None:
        self.st, self.views, self.cfg = st, views, cfg
        self._unseen: tuple[list[int], list[tuple], int | None, set[int]] | None = None   # _unseen_assignments' index
        self._kept_unlogged: set[int] = set()   # KIP-848 epochs whose holders no log can show all of
        self._estimated: frozenset[str] | None = None
        self._commits: dict[str, list[int]] | None = None   # member -> its logged commit times
        self.gid = st.group_id
        self.out: list[dict] = []
        self._starts = [v.started_ms if v.started_ms is not None else -1 for v in views]

    def gen_at(self, ts: int | None) -> int | None:
        if ts is None or not self.views:
            return None
        i = bisect.bisect_right(self._starts, ts) - 1
        return self.views[i].gen.generation if i >= 0 else None

    def run(self, offset_issues: list[OffsetIssue], with_ownership: bool = True) -> list[dict]:
        """Every finding; without `with_ownership`, all but double_ownership and unowned_partitions,
        which `ownership_findings` then gives of the intervals the run's ownership table holds."""
        self.storms()
        self.expiries()
        self.poll_timeouts()
        self.stuck()
        self.fenced()
        self.protocol()
        self.stale_commits()
        self.offsets(offset_issues)
        if with_ownership:
            self.ownership(ownership.by_partition(self.st))
        self.failovers()
        self.unexplained()
        self.out.sort(key=by_start)
        return self.out

    def ownership_findings(self, intervals: list[Interval]) -> list[dict]:
        """double_ownership and unowned_partitions of `intervals` (the final ownership of the run:
        ownership.intervals_of its table's rows), by the same rules as `run`'s."""
        out, self.out = self.out, []
        try:
            self.ownership(ownership.by_partition_of(intervals))
            return self.out
        finally:
            self.out = out

    def add(self, *args: Any, **kw: Any) -> None:
        self.out.append(make(self.gid, *args, **kw))

    # -------------------------------------------------------------- rebalances
    def storms(self) -> None:
        cfg = self.cfg
        vs = sorted((v for v in self.views if v.started_ms is not None and not _emptied(v)), key=lambda v: v.started_ms)
        starts = [v.started_ms for v in vs]
        # a window of storm_window_ms from a rebalance's start holding storm_count rebalances is a
        # storm; windows sharing a rebalance form one episode (windows that only follow each other,
        # with a calm spell between, are two: one episode would overstate its count and span)
        runs: list[tuple[int, int]] = []
        for i in range(len(vs)):
            j = bisect.bisect_right(starts, starts[i] + cfg.storm_window_ms) - 1
            if j - i + 1 < cfg.storm_count:
                continue
            if runs and i <= runs[-1][1]:
                runs[-1] = (runs[-1][0], j)
            else:
                runs.append((i, j))
        for i, k in runs:
            ep = vs[i:k + 1]
            if self._planned_restarts(ep):
                continue
            causes: dict[str, int] = {}
            for v in ep:
                causes[v.cause.cause] = causes.get(v.cause.cause, 0) + 1
            top = max(causes.items(), key=lambda kv: (kv[1], kv[0]))
            n = len(ep)
            span = ep[-1].started_ms - ep[0].started_ms
            sev = "critical" if n >= 4 * cfg.storm_count else "high"
            members = [v.cause.trigger_member for v in ep]
            # the storm ends when its last rebalance completes (the group stable again), not when
            # that generation ends: a group stable for hours after a storm is not in a storm then
            last = ep[-1]
            end = last.stabilized_ms if last.stabilized_ms is not None else last.started_ms
            unseen = ("" if last.stabilized_ms is not None else
                      " The logs do not show when the last rebalance completed: the finding ends at its start.")
            self.add("rebalance_storm", sev, ep[0].started_ms, end,
                     members=members, generation=ep[0].gen.generation,
                     title=f"{n} rebalances in {_fmt_ms(span)} (generations {ep[0].gen.generation}-{ep[-1].gen.generation})",
                     explanation=(f"The group rebalanced {n} times within {_fmt_ms(span)} (threshold: "
                                  f"{cfg.storm_count} in {_fmt_ms(cfg.storm_window_ms)}). While a rebalance runs, "
                                  f"consumption stops on the affected partitions. The most frequent cause was "
                                  f"{top[0]} ({top[1]} of {n}); fix that cause first.{unseen}"),
                     details={"count": n, "window_ms": cfg.storm_window_ms, "causes": causes,
                              "generations": [v.gen.generation for v in ep]},
                     evidence=[e for v in ep for e in v.cause.evidence[:2]])

    def _planned_restarts(self, ep: list[GenView]) -> bool:
        """A rolling restart or a scale operation, not a storm: every rebalance is a member closing
        gracefully (LeaveGroup on close, ConsumerCoordinator.close -> maybeLeaveGroup) or a new member
        joining, and no host closes more than once (a crash- or restart-loop repeats one host). Hosts
        must be known from the members' own logs; a broker-only view cannot tell and keeps the storm."""
        hosts: list[str] = []
        for v in ep:
            c = v.cause
            if c.cause == "member_joined":
                continue
            if c.cause != "member_left" or c.trigger_member is None:
                return False
            prev = self.st.gens.get(v.gen.generation - 1)
            mem = prev.members.get(c.trigger_member) if prev is not None else None
            lf = self.st.lives.get(c.trigger_member)
            if mem is None or mem.leave_reason != "shutdown" or lf is None or lf.source is None:
                return False
            hosts.append(lf.source)
        return len(hosts) == len(set(hosts))

    def expiries(self) -> None:
        cfg = self.cfg
        seen: set[str] = set()
        for v in self.views:
            c = v.cause
            if c.cause == "session_expiry" or (c.cause == "coordinator_failover" and "silence_ms" in c.facts):
                m = c.trigger_member
                if m in seen:
                    continue
                seen.add(m or "")
                silence = c.facts.get("silence_ms")
                # the finding's time is the expiry itself: the broker's line when there is one
                at = c.at_ms if c.at_ms is not None else v.started_ms
                timed = c.facts.get("expiry_time", "estimated")
                fate, fate_text, fate_ev = self._fate(m, at)
                when = {"broker_removal_line": "", "broker_rebalance_line": "",
                        "estimated": " The time of the removal is estimated (no broker line shows it): the "
                                     "member's last sign of life + session.timeout.ms.",
                        "estimated_from_rebalance": " The time of the removal is estimated (no broker line "
                                                    "shows it): one heartbeat.interval.ms before the first member "
                                                    "heard of the rebalance.",
                        "estimated_window": " The time given is the earliest the removal can have been (no broker "
                                            "line shows it): the member's last sign of life + session.timeout.ms."
                        }.get(timed, "")
                if "the time is estimated" in c.detail or "the time given is the earliest" in c.detail:
                    when = ""       # the cause already says how its time was estimated
                self.add("session_expiry", "high", at, at,
                         members=[m] if m else [], generation=v.gen.generation - 1,
                         partitions=self._assigned(v.gen.generation - 1, m),
                         title=f"{cap(_who(m, self.st))} expelled after {_fmt_ms(silence)} without heartbeat"
                         if silence is not None else f"{cap(_who(m, self.st))} expelled (session timeout)",
                         explanation=c.detail + when + " " + fate_text + _partitions_after(v),
                         details={"silence_ms": silence, "session_timeout_ms": cfg.session_timeout_ms,
                                  "inferred": c.inferred, "next_generation": v.gen.generation,
                                  "expiry_time": timed, "last_seen_ms": c.facts.get("last_seen_ms"),
                                  "session_timeout_assumed": cfg.is_default("session_timeout_ms"),
                                  "member_fate": fate},
                         evidence=[*c.evidence, *fate_ev])
        for ob in self.st.observed("removed"):
            if ob.facts.get("why") == "session_expiry" and ob.member_id not in seen:
                seen.add(ob.member_id or "")
                fate, fate_text, fate_ev = self._fate(ob.member_id, ob.ts_ms)
                self.add("session_expiry", "high", ob.ts_ms, ob.ts_ms, members=[ob.member_id],
                         generation=ob.generation, title=f"{cap(_who(ob.member_id, self.st))} expelled (session timeout)",
                         explanation=(f"The coordinator removed {_who(ob.member_id, self.st)} because it sent no "
                                      f"heartbeat within {cfg.says('session_timeout_ms')}. This "
                                      "happened while the group was already rebalancing, so it did not start a "
                                      "rebalance of its own. " + fate_text),
                         details={"session_timeout_ms": cfg.session_timeout_ms, "expiry_time": "broker_removal_line",
                                  "session_timeout_assumed": cfg.is_default("session_timeout_ms"),
                                  "member_fate": fate},
                         evidence=[*ob.evidence, *fate_ev])

    def _fate(self, member: str | None, at: int | None) -> tuple[str, str, list[str]]:
        """Paused or stopped? A member whose own process logs again after the expiry was paused (GC,
        a blocked heartbeat thread, the network); one whose process never logs again stopped (crash,
        kill, host loss), and a new process on its host means it was restarted. Pause advice (GC logs)
        fits only the first. Returns (paused | restarted | stopped | unknown, sentence, evidence)."""
        lf = self.st.lives.get(member or "")
        tol = self.cfg.skew_tolerance_ms
        if lf is None or not lf.events or at is None:
            return ("unknown", "Its own log is not in the input, so whether its process paused or stopped is "
                    "unknown; usual causes are a long GC pause, a crash, or network trouble between the member "
                    "and the coordinator.", [])
        i = bisect.bisect_right(lf.events, at + tol, key=lambda e: e.ts_ms)
        closing = [e for e in lf.events[max(0, i - 1):] if e.kind == "leave_group" or (
            e.kind == "member_state_changed" and "LEAV" in str((e.extra or {}).get("to_state") or ""))]
        if closing:
            # its last line before the removal, or its lines after it, are its own close
            # (ConsumerCoordinator.close -> maybeLeaveGroup): a slow or failed shutdown, not a pause
            return ("stopped", "Its process was shutting down (it logged its LeaveGroup on close around the "
                    "removal): a slow or interrupted shutdown, not a pause (GC). Look at what delayed the close "
                    "(a long onPartitionsRevoked, a blocked commit, the process being killed mid-close).",
                    [closing[0].evidence])
        if i < len(lf.events):
            back = lf.events[i]
            if lf.client_library == "kafkajs":
                # KafkaJS has no heartbeat thread: runner.js heartbeats between batches only
                return ("paused", f"The same process logged again {_fmt_ms(back.ts_ms - at)} after the removal, so it "
                        "was busy, not stopped. KafkaJS sends heartbeats only from its consumer loop between "
                        "batches (src/consumer/runner.js, no heartbeat thread): an eachBatch/eachMessage handler "
                        "running longer than sessionTimeout, or a blocked Node.js event loop, lets the session "
                        "expire. Look at that member's batch durations around that time.", [back.evidence])
            return ("paused", f"The same process logged again {_fmt_ms(back.ts_ms - at)} after the removal, so it "
                    "was paused, not stopped: look for a long GC pause (GC log), a blocked or starved heartbeat "
                    "thread, or network trouble between the member and the coordinator at that time.",
                    [back.evidence])
        last = lf.events[i - 1] if i else None
        nxt = [o for o in self.st.lives.values() if o is not lf and o.source == lf.source and o.first_ms is not None
               and o.first_ms > at - tol and o.events]
        if nxt:
            first = min(nxt, key=lambda o: o.first_ms or 0)
            return ("restarted", "Its process never logged again (its last line came before the removal) and a new "
                    f"process started on the same host (its first line as a member came {_fmt_ms((first.first_ms or at) - at)} "
                    "after the removal): the member "
                    "crashed or was killed and restarted; a pause (GC) does not explain it. Look at why the process "
                    "exited (its last lines, out-of-memory kills, the orchestrator's events).",
                    [e for e in (last.evidence if last else None, first.events[0].evidence) if e])
        return ("stopped", "Its process never logged again after the removal: it stopped (crash, kill, host loss) "
                "or its log ends there; a pause (GC) does not explain a member that never comes back. Look at "
                "why the process ended.", [last.evidence] if last else [])

    def _assigned(self, g: int | None, member: str | None) -> list[str]:
        gen = self.st.gens.get(g) if g is not None else None
        if gen is None or member is None or member not in gen.members:
            return []
        return list(gen.members[member].assigned or [])

    def _library(self, g: int | None, member: str | None) -> str | None:
        gen = self.st.gens.get(g) if g is not None else None
        m = gen.members.get(member) if gen is not None and member is not None else None
        return m.client_library if m is not None else None

    def poll_timeouts(self) -> None:
        cfg = self.cfg
        done: set[tuple[str | None, int | None]] = set()
        for ob in self.st.observed("poll_timeout"):
            key = (ob.member_id, ob.generation)
            if key in done:
                continue
            done.add(key)
            lib = self._library(ob.generation, ob.member_id)
            gen = self.st.gens.get(ob.generation) if ob.generation is not None else None
            mem = gen.members.get(ob.member_id) if gen is not None and ob.member_id else None
            # the member left when the broker says so, if its own line was printed later (a
            # binding's log queue served at the next poll(): reasons.delivered_late)
            at, evidence = ob.ts_ms, list(ob.evidence)
            lf = self.st.lives.get(ob.member_id) if ob.member_id else None
            if lf is not None and lf.removed_ms is not None and ob.ts_ms is not None and lf.removed_ev \
                    and lf.removed_reason in ("left", "poll_timeout") and lf.removed_ms < ob.ts_ms \
                    and (mem is None or mem.joined_ms is None or lf.removed_ms >= mem.joined_ms):
                at, evidence = lf.removed_ms, [lf.removed_ev, *evidence]
            # the generation its leave formed: empty when it was the last member (nobody takes over)
            nxt = next((v for v in self.views if ob.generation is not None and v.gen.generation == ob.generation + 1),
                       None)
            alone = nxt is not None and _emptied(nxt)
            owner = "The next owner" if alone else "The new owner"
            again = (f"{owner} resumes from the last committed offset; librdkafka auto-commits the offsets "
                     "poll() returned (enable.auto.offset.store=true), even while the application is still "
                     "processing them. " if lib == "librdkafka" else
                     f"Records it was still processing will be processed again by {owner.lower()}. ")
            given = ("no member was left, so its partitions have no owner until a member joins again" if alone
                     else "its partitions were given to others")
            self.add("poll_timeout", "high", at, ob.ts_ms, members=[ob.member_id], generation=ob.generation,
                     partitions=self._assigned(ob.generation, ob.member_id),
                     title=f"{cap(_who(ob.member_id, self.st))} exceeded max.poll.interval.ms",
                     explanation=(f"{cap(_who(ob.member_id, self.st))} spent more than "
                                  f"{cfg.says('max_poll_interval_ms')} between two poll() calls, so "
                                  f"{poll_leaver(lib)} the group and {given}. "
                                  + again + "Process batches faster, lower max.poll.records, or raise "
                                  "max.poll.interval.ms."),
                     details={"max_poll_interval_ms": cfg.max_poll_interval_ms,
                                  "max_poll_interval_assumed": cfg.is_default("max_poll_interval_ms")}, evidence=evidence)
        for v in self.views:
            c = v.cause
            if c.cause == "poll_timeout" and (c.trigger_member, v.gen.generation - 1) not in done:
                done.add((c.trigger_member, v.gen.generation - 1))
                self.add("poll_timeout", "high", c.at_ms, c.at_ms, members=[c.trigger_member],
                         generation=v.gen.generation - 1,
                         partitions=self._assigned(v.gen.generation - 1, c.trigger_member),
                         title=f"{cap(_who(c.trigger_member, self.st))} exceeded max.poll.interval.ms",
                         explanation=c.detail + _partitions_after(v, reprocessed=True),
                         details={"max_poll_interval_ms": cfg.max_poll_interval_ms,
                                  "max_poll_interval_assumed": cfg.is_default("max_poll_interval_ms")}, evidence=c.evidence)

    def stuck(self) -> None:
        limit = self.cfg.rebalance_timeout_ms
        for v in self.views:
            if v.started_ms is None or _emptied(v):
                continue
            end = v.stabilized_ms
            took = (end - v.started_ms) if end is not None else None
            never = end is None and v.ended_ms is not None and v.ended_ms - v.started_ms > limit + self.cfg.skew_tolerance_ms
            if never and self._committed_in(v, v.ended_ms):
                # a member of this generation committed offsets in it: the group reached Stable
                # (GroupCoordinator.handleCommitOffsets answers REBALANCE_IN_PROGRESS while
                # CompletingRebalance), only the line saying when is not in the logs: neither
                # "never completed" nor a duration can be stated
                continue
            if (took is not None and took > limit + self.cfg.skew_tolerance_ms) or never:
                prev = self.st.gens.get(v.gen.generation - 1)
                late = sorted(set(prev.members) - set(v.gen.members)) if prev and v.gen.members else []
                span_end = end if end is not None else v.ended_ms
                self.add("rebalance_stuck", "high", v.started_ms, span_end, members=late,
                         generation=v.gen.generation,
                         title=(f"rebalance to generation {v.gen.generation} took {_fmt_ms(took)}" if took is not None
                                else f"rebalance to generation {v.gen.generation} never completed"),
                         explanation=(f"The rebalance that began at generation {v.gen.generation - 1} "
                                      + (f"took {_fmt_ms(took)}" if took is not None else "did not complete in the logs")
                                      + f", beyond its rebalance timeout of {_rebalance_timeout_words(self.cfg)}. "
                                      "The coordinator waits that long "
                                      "for every member to rejoin; members still inside a long poll loop or a slow "
                                      "onPartitionsRevoked callback hold the whole group."
                                      + (f" Members that did not make it: {', '.join(late)}." if late else "")),
                         details={"rebalance_ms": took, "rebalance_timeout_ms": limit, "not_rejoined": late},
                         evidence=[v.gen.prepare_ev, *(v.cause.evidence[:2]), v.gen.stable_ev, v.gen.completing_ev])

    def fenced(self) -> None:
        by_inst: dict[str, list] = {}
        for ob in (*self.st.observed("fenced"), *self.st.observed("static_replaced")):
            inst = ob.facts.get("instance_id") or self.st.instance_of.get(ob.member_id or "") or "?"
            if ob.kind == "static_replaced":
                lf = self.st.lives.get(ob.member_id or "")
                if lf is None or not lf.alive_after_removal:
                    continue   # the old process was gone: an ordinary static restart, not a fencing
                ob.evidence = [*ob.evidence, *lf.alive_after_removal[:2]]
            by_inst.setdefault(inst, []).append(ob)
        for inst, obs in by_inst.items():
            obs.sort(key=lambda o: o.ts_ms or 0)
            n = len(obs)
            members = [o.member_id for o in obs] + [o.facts.get("new_member") for o in obs]
            self.add("static_member_fenced", "critical" if n >= 3 else "high", obs[0].ts_ms, obs[-1].ts_ms,
                     members=[m for m in members if m], generation=obs[0].generation,
                     title=f"static member {inst} fenced" + (f" {n} times" if n > 1 else ""),
                     explanation=(f"The coordinator fenced a member using group.instance.id {inst!r} "
                                  f"(FENCED_INSTANCE_ID): another process joined with the same instance id and took "
                                  "over its member id. " + ("It happened repeatedly, which means two live processes "
                                  "share the instance id and keep fencing each other; give each its own id." if n > 1
                                  else "If the old process was still alive, two processes share this instance id.")),
                     details={"instance_id": inst, "count": n}, evidence=[e for o in obs for e in o.evidence])

    def protocol(self) -> None:
        for ob in self.st.observed("inconsistent_protocol"):
            self.add("inconsistent_protocol", "high", ob.ts_ms, ob.ts_ms, members=[ob.member_id],
                     generation=self.gen_at(ob.ts_ms),
                     title=f"{ob.facts.get('client_id') or 'a member'} rejected: INCONSISTENT_GROUP_PROTOCOL",
                     explanation=("The coordinator refused a JoinGroup because the member's protocol type or "
                                  "assignors (partition.assignment.strategy) have none in common with the members "
                                  "already in the group (GroupCoordinator: INCONSISTENT_GROUP_PROTOCOL). Typical "
                                  "during a rolling change of assignor without listing both, or when two different "
                                  "applications use the same group.id."),
                     details={k: v for k, v in ob.facts.items() if v is not None}, evidence=ob.evidence)
        for v in self.views:
            if len(v.gen.protocols_seen) > 1:
                self.add("inconsistent_protocol", "high", v.started_ms, v.ended_ms, generation=v.gen.generation,
                         title=f"members report different protocols in generation {v.gen.generation}",
                         explanation=("Members of one generation report different selected protocols ("
                                      + ", ".join(sorted(v.gen.protocols_seen)) + "); the coordinator selects one "
                                      "protocol per generation, so this cannot come from one coordinator (two groups "
                                      "with the same id on different clusters?)."),
                         details={"protocols": sorted(v.gen.protocols_seen)},
                         evidence=list(v.gen.protocols_seen.values()))

    def stale_commits(self) -> None:
        for ob in self.st.observed("stale_commit"):
            now = self.gen_at(ob.ts_ms)
            g = ob.generation
            parts = list(ob.facts.get("partitions") or [])
            if ob.facts.get("topic") is not None and ob.facts.get("partition") is not None:
                parts.append(f"{ob.facts['topic']}-{ob.facts['partition']}")
            if g is not None and now is not None and now > g:
                when = f"as a member of generation {g} after the group had moved on to generation {now}"
            else:
                when = (f"as a member of generation {g if g is not None else '?'} while the group was rebalancing "
                        "(its membership was no longer current)")
            self.add("stale_generation_commit", "medium", ob.ts_ms, ob.ts_ms, members=[ob.member_id],
                     partitions=parts, generation=g,
                     title=f"offset commit rejected: {ob.facts.get('error') or 'stale generation'}"
                     + (f" (generation {g})" if g is not None else ""),
                     explanation=(f"{cap(_who(ob.member_id, self.st))} committed offsets {when}; the coordinator "
                                  "rejected the commit (ILLEGAL_GENERATION / UNKNOWN_MEMBER_ID / REBALANCE_IN_PROGRESS, "
                                  "CommitFailedException in the client). The records behind that commit will be "
                                  "processed again by the partition's next owner."),
                     details={k: v for k, v in {**ob.facts, "group_generation": now}.items() if v not in (None, [])},
                     evidence=ob.evidence)

    def offsets(self, issues: list[OffsetIssue]) -> None:
        for it in issues:
            tp = f"{it.topic}-{it.partition}"
            n = it.to_offset - it.from_offset
            est = getattr(it, "estimated", False)
            if it.kind == "offset_rewind":
                self.add("offset_rewind", "high" if n >= 10_000 else "medium", it.start_ms, it.end_ms,
                         members=it.members, partitions=[tp], generation=self.gen_at(it.end_ms),
                         title=(f"{tp}: about {n} records from offset {it.from_offset} processed again (estimated)"
                                if est else f"{tp}: offsets {it.from_offset}-{it.to_offset - 1} processed again "
                                f"({n} records)"),
                         explanation=(f"On {tp} {it.how}, so the {n} records from offset {it.from_offset} to "
                                      f"{it.to_offset - 1} were (or will be) processed a second time. Downstream "
                                      "effects of these records must be idempotent."),
                         details={"topic": it.topic, "partition": it.partition, "from_offset": it.from_offset,
                                  "to_offset_exclusive": it.to_offset, "records": n, "estimated": est},
                         evidence=it.evidence)
            else:
                self.add("offset_skip", "high", it.start_ms, it.end_ms, members=it.members, partitions=[tp],
                         generation=self.gen_at(it.end_ms),
                         title=(f"{tp}: about {n} records up to offset {it.to_offset - 1} never processed (estimated)"
                                if est else f"{tp}: offsets {it.from_offset}-{it.to_offset - 1} never processed "
                                f"({n} records)"),
                         explanation=(f"On {tp} {it.how}, so the {n} records from offset {it.from_offset} to "
                                      f"{it.to_offset - 1} were never processed by this group. "
                                      + (_ADMIN_SKIP if getattr(it, "by_admin", False) else _RESET_SKIP)),
                         details={"topic": it.topic, "partition": it.partition, "from_offset": it.from_offset,
                                  "to_offset_exclusive": it.to_offset, "records": n, "estimated": est},
                         evidence=it.evidence)

    def ownership(self, parts: dict[str, list[Interval]]) -> None:
        for tp, a, b, lo, hi in ownership.double_ownership(parts, self.cfg):
            overlap = _fmt_ms(hi - lo)
            details: dict = {"overlap_ms": hi - lo}
            if a.end_late:
                # the earlier owner's end is a line its binding printed at the application's next poll():
                # it gave the partition up earlier (librdkafka leaves at once on MAXPOLL), by how much is
                # not in the logs
                sev, title = "low", f"{tp}: perhaps owned by two members, for at most {overlap} (unproven)"
                text = (f"{cap(_who(a.member_id, self.st))} (generation {a.generation}) gave {tp} up by the line "
                        f"at its end, {overlap} after {_who(b.member_id, self.st)} (generation {b.generation}) was "
                        "assigned it. But its client's lines are printed when the application next calls poll() (a "
                        "binding's log queue), so it gave the partition up earlier, by an amount the logs do not "
                        "hold: the overlap is at most that long and may be none. Records of the batch it was "
                        "processing may still have been processed twice. The broker's GroupCoordinator log times "
                        "its leave.")
                details.update(unproven=True, end_printed_late=True)
            else:
                sev, title = "critical", f"{tp} owned by two members for {overlap}"
                text = (f"{cap(_who(a.member_id, self.st))} (generation {a.generation}) still held {tp} when "
                        f"{_who(b.member_id, self.st)} (generation {b.generation}) was assigned it; for {overlap} "
                        "both could fetch and process the same records. This happens when an expelled member (a "
                        "zombie) keeps processing until it notices it lost the partition. The overlap is longer "
                        f"than the clock-skew tolerance ({self.cfg.skew_tolerance_ms} ms), so it is not an artefact "
                        "of host clocks.")
            details.update(earlier={"member": a.member_id, "generation": a.generation, "end_reason": a.end_reason},
                           later={"member": b.member_id, "generation": b.generation})
            self.add("double_ownership", sev, lo, hi, members=[a.member_id, b.member_id], partitions=[tp],
                     generation=b.generation, title=title, explanation=text, details=details,
                     evidence=[a.start_ev, a.end_ev, b.start_ev])
        from pipeline.replay_rules.generations import empty_spans

        spans = empty_spans(self.views, self.st)
        for tp, a, b, gap in ownership.unowned(parts, self.cfg):
            lo, hi = _end_of(a), b.start_ms
            idle = sum(max(0, min(hi, y) - max(lo, x)) for x, y in spans)
            if idle * 2 >= gap:
                continue   # the whole group was stopped (no members): not a partition left behind
            # (in the generations where a logged member held tp nobody else did: assignments are exclusive)
            unseen = {g: k for g, k in self._unseen_assignments(lo, hi).items() if g not in (a.generation, b.generation)}
            absent = self._absent_generations(a.generation, b.generation)
            threshold = f"(threshold: {_fmt_ms(self.cfg.unowned_threshold_ms)})"
            details = {"gap_ms": gap, "threshold_ms": self.cfg.unowned_threshold_ms}
            if not unseen and not absent and a.end_reason == "session_expiry" and a.member_id in self._estimated_expiries():
                # when the first owner stopped is an estimate (its last line + session.timeout.ms):
                # its log may simply end early (an excerpt), the gap is not proven
                sev, title = "low", f"{tp}: no owner in the logs for {_fmt_ms(gap)} (unproven)"
                text = (f"No member whose assignment the logs show held {tp} for {_fmt_ms(gap)}: "
                        f"{_who(a.member_id, self.st)} held it until its expiry and {_who(b.member_id, self.st)} "
                        f"got it later. But no line names that expiry: its time is estimated as the member's "
                        f"last line + session.timeout.ms, and a log that ends early (an excerpt) moves it; "
                        f"the broker's GroupCoordinator log would give it {threshold}.")
                details.update(unproven=True, expiry_time="estimated")   # the first owner's end
            elif not unseen and not absent and a.end_reason == "process_gone":
                # the first owner's log stops and a new process starts on its host, and no removal of
                # the old one is logged (a pre-1.0 broker logs expiries at DEBUG, a pre-2.2 one leaves):
                # it stopped consuming somewhere between its last line and its expiry
                sev, title = "low", f"{tp}: no owner in the logs for {_fmt_ms(gap)} (unproven)"
                text = (f"No member whose assignment the logs show held {tp} for {_fmt_ms(gap)}: the log of "
                        f"{_who(a.member_id, self.st)} stops, then shows a new process on its host, and "
                        f"{_who(b.member_id, self.st)} got {tp} later. When the old process stopped consuming is "
                        "not in the logs (its last line is the earliest it can have been; the coordinator kept "
                        "it as a member until it expired), so the gap is at most this long; a broker from "
                        f"Kafka 1.0 logs the expiry ('has failed, removing it from the group') {threshold}.")
                details.update(unproven=True, first_owner_end="last_line")
            elif not unseen and not absent and a.end_reason == "last_line":
                # the first owner's log shows no end of it: the partition was given up by the next
                # owner's start, at its owner's last line at the earliest (group_tables.ownership's
                # `last_line`: the next owner's assignment, or a restart, shows it given up)
                sev, title = "low", f"{tp}: no owner in the logs for {_fmt_ms(gap)} (unproven)"
                text = (f"No member whose assignment the logs show held {tp} for {_fmt_ms(gap)}: the log of "
                        f"{_who(a.member_id, self.st)} shows no end of its hold on {tp}, whose last line is the "
                        f"earliest it can have given it up, and {_who(b.member_id, self.st)} got {tp} later. When "
                        "it stopped consuming is not in the logs, so the gap is at most this long; the broker's "
                        f"GroupCoordinator log times the member's removal {threshold}.")
                details.update(unproven=True, first_owner_end="last_line")
            elif not unseen and not absent:
                sev, title = ("high" if gap > 10 * self.cfg.unowned_threshold_ms else "medium"), \
                    f"{tp} had no owner for {_fmt_ms(gap)}"
                text = (f"Nobody consumed {tp} for {_fmt_ms(gap)}: {_who(a.member_id, self.st)} gave it up "
                        f"({a.end_reason}) and {_who(b.member_id, self.st)} got it only later. Lag grows on "
                        f"the partition meanwhile {threshold}.")
            else:
                # a member whose assignment the logs do not show may have held it: not proven
                n = sum(unseen.values())
                partial = any(g in self._unseen[3] for g in unseen)
                why = []
                kept = set(unseen) <= self._kept_unlogged
                if unseen and kept:
                    # (KIP-848: not a missing log; a kept assignment is logged by nobody)
                    why.append(f"under the consumer protocol a member keeping its partitions through an epoch "
                               f"logs nothing of it (neither its client nor the broker), and nothing else shows "
                               f"every holder of epoch{'s' if len(unseen) > 1 else ''} "
                               f"{', '.join(map(str, sorted(unseen)))}")
                elif unseen:
                    why.append(f"{'at least ' if partial else ''}{n} member{'s' if n > 1 else ''} of generation"
                               f"{'s' if len(unseen) > 1 else ''} {', '.join(map(str, sorted(unseen)))} "
                               f"{'have' if n > 1 else 'has'} an assignment the logs do not show ("
                               f"{'their logs are' if n > 1 else 'its log is'} not in the input)")
                if absent:
                    why.append(f"generation{'s' if len(absent) > 1 else ''} {', '.join(map(str, absent))} "
                               f"{'are' if len(absent) > 1 else 'is'} not in the logs at all")
                sev, title = "low", f"{tp}: no owner in the logs for {_fmt_ms(gap)} (unproven)"
                text = (f"No member whose assignment the logs show held {tp} for {_fmt_ms(gap)}: "
                        f"{_who(a.member_id, self.st)} gave it up ({a.end_reason}) and {_who(b.member_id, self.st)} "
                        f"got it later. But {' and '.join(why)}, so {tp} may have been consumed. "
                        + ("A __consumer_offsets dump of the group's member assignment records would show who "
                           if kept and not absent else "Add the missing members' logs, the leader's, or a "
                           "__consumer_offsets dump of the group's metadata records (GroupMetadataMessageFormatter; "
                           "an offsets-only dump holds no assignment) to know ") + f"{threshold}.")
                details.update(unproven=True)
                if unseen:
                    details["unseen_assignments"] = {str(g): k for g, k in sorted(unseen.items())}
                if absent:
                    details["generations_not_in_logs"] = absent
            self.add("unowned_partitions", sev, a.end_ms, b.start_ms, members=[a.member_id, b.member_id],
                     partitions=[tp], generation=b.generation, title=title, explanation=text,
                     details=details, evidence=[a.end_ev, b.start_ev])

    def _committed_in(self, v: GenView, by_ms: int) -> bool:
        """Whether a member of v's generation logged a successful offset commit after it joined
        that generation and before `by_ms`."""
        if self._commits is None:
            self._commits = {}
            for kind, ts, *_rest, mid, _why, ev in self.st.offsets:
                if kind == "offset_committed" and mid is not None and ev.side == "client":
                    self._commits.setdefault(mid, []).append(ts)
            for times in self._commits.values():
                times.sort()
        hi = by_ms
        for mid, m in v.gen.members.items():
            times = self._commits.get(mid)
            lo = max(v.started_ms or 0, m.joined_ms if m.joined_ms is not None else (v.started_ms or 0))
            if times:
                i = bisect.bisect_left(times, lo)
                if i < len(times) and times[i] <= hi:
                    return True
        return False

    def _estimated_expiries(self) -> frozenset[str]:
        """Members whose session expiry no line times (findings' expiry_time "estimated")."""
        if self._estimated is None:
            self._estimated = frozenset(
                v.cause.trigger_member for v in self.views if v.cause.cause == "session_expiry"
                and v.cause.trigger_member and str(v.cause.facts.get("expiry_time")).startswith("estimated"))
        return self._estimated

    def _absent_generations(self, a: int | None, b: int | None) -> list[int]:
        """The generations between a and b (exclusive) of which the logs show nothing."""
        if a is None or b is None or b - a <= 1:
            return []
        known = {v.gen.generation for v in self.views}
        return [g for g in range(a + 1, b) if g not in known][:50]

    def _unseen_assignments(self, lo: int | None, hi: int | None) -> dict[int, int]:
        """generation -> how many of its members have an assignment the logs do not show, for the
        generations in place between lo and hi: members seen without one, and members the broker
        counted ("Stabilized group ... with N members", 2.x+) that no line names."""
        if self._unseen is None:
            rows = []
            partial = {v.gen.generation for v in self.views if v.unnamed_holders}
            for v in self.views:
                hidden = max(0, (v.gen.broker_member_count or 0) - len(v.gen.members))
                n = hidden + sum(1 for m in v.gen.members.values() if m.assigned is None)
                if not n and v.gen.protocol_type == "consumer (KIP-848)":
                    self._kept_unlogged.add(v.gen.generation)
                    # consumer protocol: a member's log shows its own assignment only, and the broker logs
                    # a member's assignment (DEBUG "new assignment state", GroupMetadataManager 3.8+) only
                    # when it changes: a member keeping its partitions through epoch N leaves no line of
                    # N, so no epoch's holders are known to be all of them
                    n = 1
                if not n and v.gen.generation in partial:
                    n = 1       # at least one: the logged assignments leave a topic's partitions out
                elif not n and len(v.gen.members) == 1 and v.gen.broker_member_count is None \
                        and not v.gen.assignment_map_seen:
                    n = 1       # one member named by its own log: nothing shows it was alone (either protocol)
                if n and v.started_ms is not None:
                    rows.append((v.started_ms, v.ended_ms, v.gen.generation, n))
            rows.sort()
            longest = max((e - b for b, e, _, _ in rows if e is not None), default=0)
            open_ended = any(e is None for _, e, _, _ in rows)
            self._unseen = ([r[0] for r in rows], rows, None if open_ended else longest, partial)
        starts, rows, longest, _ = self._unseen
        out: dict[int, int] = {}
        if hi is None:
            return out
        # generations starting before hi, back to the longest one's reach before lo (bisect: a hot
        # group has thousands of generations and findings)
        for i in range(bisect.bisect_left(starts, hi) - 1, -1, -1):
            start, end, g, n = rows[i]
            if lo is not None and longest is not None and start < lo - longest:
                break
            if lo is None or end is None or end > lo:
                out[g] = n
        return out

    def failovers(self) -> None:
        moves = sorted((*self.st.observed("coordinator_change"),), key=lambda o: o.ts_ms or 0)
        caused = {v.gen.generation for v in self.views if v.cause.cause == "coordinator_failover"}
        last_to = None
        for ob in moves:
            to = ob.facts.get("to")
            if to == last_to:
                continue
            last_to = to
            follow = [v for v in self.views if v.gen.generation in caused and v.started_ms is not None
                      and ob.ts_ms is not None and 0 <= v.started_ms - ob.ts_ms <= self.cfg.session_timeout_ms + self.cfg.skew_tolerance_ms]
            loaded = [o for o in self.st.observed("group_loaded") if o.facts.get("coordinator") == to]
            self.add("coordinator_failover", "medium" if follow else "low", ob.ts_ms, ob.ts_ms,
                     generation=ob.generation,
                     title=f"coordinator moved from {ob.facts.get('from')} to {to}",
                     explanation=(f"The group's coordinator moved from broker {ob.facts.get('from')} to {to} "
                                  f"({ob.facts.get('how')}). Leadership of the group's __consumer_offsets partition "
                                  "changed (broker restart, controlled shutdown or reassignment); members must find "
                                  "the new coordinator and heartbeats fail meanwhile."
                                  + (f" It was followed by the rebalance to generation {follow[0].gen.generation}."
                                     if follow else " No rebalance followed.")),
                     details={"from": ob.facts.get("from"), "to": to,
                              "rebalances": [v.gen.generation for v in follow]},
                     evidence=[*ob.evidence, *(o.evidence[0] for o in loaded[:1])])

    def unexplained(self) -> None:
        cfg = self.cfg
        for v in self.views:
            if v.cause.cause == "unknown":
                self.add("unexplained", "low", v.started_ms, v.stabilized_ms or v.ended_ms,
                         generation=v.gen.generation,
                         title=f"cause of the rebalance to generation {v.gen.generation} not in the logs",
                         explanation=v.cause.detail, details={"missing": v.cause.facts.get("missing", []),
                                                              **{k: x for k, x in v.cause.facts.items() if k != "missing"}},
                         evidence=v.cause.evidence or v.gen.evidence[:3])
        nums = [v.gen.generation for v in self.views]
        at: dict[int, int] = {}          # generation -> its first view (nums.index, without a scan each)
        for i, g in enumerate(nums):
            at.setdefault(g, i)
        for a, b in zip(nums, nums[1:], strict=False):
            if b > a + 1:
                va = self.views[at[a]]
                self.add("unexplained", "low", va.ended_ms, va.ended_ms, generation=a + 1,
                         title=f"generation{'s' if b > a + 2 else ''} {a + 1}" + (f"-{b - 1}" if b > a + 2 else "")
                         + " missing from the logs",
                         explanation=(f"The group went from generation {a} to {b}; the generation number grows by "
                                      "one per rebalance, so the logs miss " + str(b - a - 1) + " rebalance(s) "
                                      "(missing evidence: the broker log and the clients' logs of that period)."),
                         details={"missing_generations": list(range(a + 1, b))},
                         evidence=[*_any_evidence(va)[-1:], *_any_evidence(self.views[at[b]])[:1]])
        for ob in self.st.observed("generation_backwards"):
            self.add("unexplained", "medium", ob.ts_ms, ob.ts_ms, members=[ob.member_id], generation=ob.generation,
                     title=f"member joined generation {ob.generation} after {ob.facts['previous_generation']}",
                     explanation=("A member joined an older generation than one it had already joined. The "
                                  "coordinator only increases generation ids, unless the group was deleted and "
                                  "re-created or it is a different cluster with the same group id; no log shows "
                                  "either (missing evidence: a group deletion or coordinator reload)."),
                     details=ob.facts, evidence=ob.evidence)
        for mid, lf in self.st.lives.items():
            if lf.removed_ms is None or lf.removed_reason not in ("session_expiry", "left") or not lf.alive_after_removal:
                continue
            hb_after = lf.last_hb_ms is not None and lf.last_hb_ms > lf.removed_ms + cfg.skew_tolerance_ms
            if hb_after:
                self.add("unexplained", "medium", lf.removed_ms, lf.last_hb_ms, members=[mid],
                         title=f"{cap(_who(mid, self.st))} heartbeated successfully after the coordinator removed it",
                         explanation=("The broker removed this member, yet the member's log shows successful "
                                      "heartbeats afterwards. A removed member gets UNKNOWN_MEMBER_ID on its next "
                                      "heartbeat (GroupCoordinator.handleHeartbeat), so either the clocks differ by "
                                      "more than the skew tolerance or the heartbeats went to another coordinator."),
                         details={"removed_ms": lf.removed_ms, "last_heartbeat_ms": lf.last_hb_ms},
                         evidence=[lf.removed_ev, lf.last_hb_ev])


def _rebalance_timeout_words(cfg) -> str:
    """'300000 ms (the JoinGroup's rebalanceTimeoutMs, ...)', with "assumed" when the value it comes
    from was not printed. JoinGroup v0 (clients before 0.10.1, KIP-62) has no rebalance timeout: the
    coordinator waits the session timeout (settings.resolve's origin "= session.timeout.ms ...")."""
    origin = cfg.origin.get("rebalance_timeout_ms", "")
    assumed = " (assumed: not printed in the logs)"
    if origin.startswith("= session.timeout.ms"):
        return (f"{cfg.rebalance_timeout_ms} ms" + (assumed if cfg.is_default("session_timeout_ms") else "")
                + " (session.timeout.ms: clients before Kafka 0.10.1 send no rebalance timeout, JoinGroup v0)")
    from_poll = origin == "= max.poll.interval.ms" and cfg.is_default("max_poll_interval_ms")
    return (f"{cfg.rebalance_timeout_ms} ms" + (assumed if from_poll else "")
            + " (the JoinGroup's rebalanceTimeoutMs, i.e. max.poll.interval.ms)")


def _partitions_after(v: GenView, reprocessed: bool = False) -> str:
    """Where the partitions of the member whose removal formed generation v went: to the members
    of v, unless v is empty (its last member gone: GroupCoordinator's "... is now empty"), when
    nobody took them over."""
    again = "records it was processing will be processed again" if reprocessed else ""
    if _emptied(v):
        return (f" Generation {v.gen.generation} has no member (the group became empty), so its partitions were "
                "not reassigned: they have no owner until a member joins the group again"
                + (f", and {again} then." if again else "."))
    return f" Its partitions were reassigned in generation {v.gen.generation}" + (f"; {again}." if again else ".")


def _emptied(v: GenView) -> bool:
    """An empty generation (GroupCoordinator: "... is now empty") is not a rebalance of members."""
    return v.gen.empty_ms is not None and not v.gen.members


def _any_evidence(v: GenView) -> list[str]:
    if v.gen.evidence:
        return list(v.gen.evidence)
    return [e for m in v.gen.members.values() for e in m.evidence[:1]]


def _end_of(iv) -> int:
    return iv.end_ms if iv.end_ms is not None else iv.start_ms
