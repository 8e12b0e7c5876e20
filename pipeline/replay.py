"""Replay one consumer group's observed events into generations, memberships, partition ownership
and findings (the `generations`, `memberships`, `ownership` and `findings` tables).

Pure and free of global state: the Spark pipeline calls `replay_group_frame` once per group through
`groupBy(group).applyInPandas`, and `coordscope replay` calls `replay_group` directly.

Input is one group's events in the shared vocabulary (parsers.events.Event): client events of many
consumers on many hosts, broker GroupCoordinator events, __consumer_offsets dump records and
`kafka-consumer-groups --describe` rows, in any order, with gaps, duplicates and clock skew.
See docs/replay.md for the causes and findings vocabulary.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from parsers.events import Event
from pipeline import schemas
from pipeline.replay_rules import consumer_groups as cg_mod
from pipeline.replay_rules import generations as gens_mod
from pipeline.replay_rules import lazy_text
from pipeline.replay_rules import mixed_streams as mixed_mod
from pipeline.replay_rules import offsets as offsets_mod
from pipeline.replay_rules import ownership as own_mod
from pipeline.replay_rules.collect import Collector, GroupState, dedupe_and_order
from pipeline.replay_rules.event_rows import events_from_arrow, events_from_frame
from pipeline.replay_rules.findings import FINDING_KINDS, FindingRules, by_start
from pipeline.replay_rules.generations import GenView
from pipeline.replay_rules.reasons import CAUSES, delivered_late
from pipeline.replay_rules.settings import (
    EffectiveSettings,
    ReplaySettings,
    consumer_protocol_settings,
    resolve,
)
from pipeline.replay_rules.state import stream_namer

__all__ = ["CAUSES", "FINDING_KINDS", "ReplayResult", "ReplaySettings", "events_from_arrow", "events_from_frame",
           "replay_group", "replay_group_frame", "replay_group_rows", "what_if"]

OUTPUT_TABLES = ("generations", "memberships", "ownership", "findings")
# the client lines that end an ownership interval (group_tables OWNERSHIP_END and MEMBER_END)
_OWN_ENDS = frozenset(("partitions_revoked", "partitions_lost", "leave_group", "member_fenced", "poll_timeout",
                       "generation_reset"))


@dataclass
class ReplayResult:
    """Rows of the four output tables (dicts keyed exactly by pipeline.schemas columns)."""

    group_id: str | None
    generations: list[dict[str, Any]] = field(default_factory=list)
    memberships: list[dict[str, Any]] = field(default_factory=list)
    ownership: list[dict[str, Any]] = field(default_factory=list)
    findings: list[dict[str, Any]] = field(default_factory=list)
    settings: EffectiveSettings | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    state: GroupState | None = None     # the reconstructed state, for what-if analysis
    views: list[GenView] = field(default_factory=list)

    def table(self, name: str) -> list[dict[str, Any]]:
        return getattr(self, name)


# the run's final ownership of one group, given the replay's own ownership rows, its memberships and
# its findings but double_ownership and unowned_partitions (pipeline/spark/group_pass.py: the
# consumers' own intervals with the replay's inferred ones beside them, and their ends)
OwnershipFinal = Callable[[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]], list[dict[str, Any]]]


def replay_group(events: Iterable[Event], settings: ReplaySettings | None = None,
                 ownership_final: OwnershipFinal | None = None) -> ReplayResult:
    """Reconstruct one group's history from its events (see the module docstring).

    `ownership_final`: what makes the run's `ownership` table of the replay's own rows (the
    ingest's, pipeline/spark/group_pass.py). Given, the result's ownership is that table and its
    double_ownership and unowned_partitions findings are those of that table's intervals
    (FindingRules.ownership_findings), so that a finding and the table shown beside it never
    disagree (docs/replay.md, *One ownership*); else both are the replay's own intervals'."""
    # The replay allocates many small records and frees none until the end; CPython's cyclic
    # collector would rescan them all repeatedly (a third of the run time on long histories).
    # Paused for the call only and restored as it was.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _replay(events, settings, ownership_final)
    finally:
        if paused:
            gc.enable()


def _replay(events: Iterable[Event], settings: ReplaySettings | None,
            ownership_final: OwnershipFinal | None = None) -> ReplayResult:
    explicit = settings or ReplaySettings()
    ordered, dup_count, _dropped = dedupe_and_order(events)
    group_id = _group_of(ordered)      # (before a mixed file's lines are left out: they may be all)
    # each log stream's name: its file, or "FILE [ORIGIN]" where a file's lines name several origins
    stream_of = stream_namer(ordered)
    ordered, mixed = mixed_mod.unmix(ordered, stream_of)
    cfg = resolve(ordered, explicit)
    gtype = cg_mod.group_type_of(ordered)
    if gtype in ("consumer", "streams"):
        cfg = consumer_protocol_settings(cfg)
    st = Collector(group_id, cfg.session_timeout_ms, cfg.heartbeat_interval_ms, stream_of).run(ordered)
    st.duplicates = dup_count
    own_mod.name_topic_ids(st)
    views = gens_mod.build(st, cfg)
    own_mod.close_open(st, views)
    own_mod.static_handover(views, st, own_mod.from_assignments(views, st, cfg))
    issues = offsets_mod.analyse(st.offsets, cfg, gens_mod.empty_spans(views, st), stream_of)
    issues += offsets_mod.estimate_lost_progress(st.offsets, st.intervals, issues, cfg,
                                                 offsets_mod.auto_commit_by_source(ordered, stream_of),
                                                 offsets_mod.poll_timeouts(st.obs), stream_of)
    rules = FindingRules(st, views, cfg)
    findings = rules.run(issues, with_ownership=ownership_final is None)
    generations = gens_mod.generation_rows(views, group_id)
    memberships = gens_mod.membership_rows(views, group_id)
    if gtype in ("consumer", "streams"):
        classic = cg_mod.classic_part(ordered)
        if any(e.generation is not None for e in classic):   # the group's classic incarnation, replayed alone
            st_c = Collector(group_id, cfg.session_timeout_ms, cfg.heartbeat_interval_ms, stream_of).run(classic)
            views_c = gens_mod.build(st_c, cfg)
            generations = gens_mod.generation_rows(views_c, group_id)
            memberships = gens_mod.membership_rows(views_c, group_id)
        else:
            generations, memberships = [], []
        generations, memberships, findings = _modern_group(ordered, group_id, gtype, cfg, findings, generations,
                                                           memberships)
    elif gtype == "share":
        generations, memberships, findings = [], [], [cg_mod.share_group_finding(group_id, ordered)]
    findings = findings + cg_mod.migration_findings(group_id, ordered) + _mixed_findings(group_id, mixed)
    ownership = own_mod.rows(st)
    if ownership_final is not None:
        ownership = ownership_final(ownership, memberships, findings)
        if gtype != "share":
            late = {ev.evidence for ev in ordered if ev.kind in _OWN_ENDS and delivered_late(ev)}
            findings = sorted(findings + rules.ownership_findings(own_mod.intervals_of(ownership, late, st.intervals)), key=by_start)
    result = ReplayResult(
        group_id=group_id,
        generations=generations,
        memberships=memberships,
        ownership=ownership,
        findings=findings,
        settings=cfg,
        stats={"events": len(ordered), "duplicates_dropped": dup_count,
               "mixed_stream_lines_left_out": sum(m.get("left_out", 0) for m in mixed.values()), "generations": len(views),
               "members": len(st.lives), "first_ms": st.first_ms, "last_ms": st.last_ms},
        state=st,
        views=views,
    )
    for name in OUTPUT_TABLES:
        _check_columns(name, result.table(name))
    return result


def _mixed_findings(group_id: str | None, mixed: dict) -> list[dict[str, Any]]:
    """One `unexplained` finding per file whose lines are of several processes under one client id
    (pipeline/replay_rules/mixed_streams.py): what proves it, and the lines left out."""
    from pipeline.replay_rules.findings import make

    out = []
    for (source, client_id), m in sorted(mixed.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        n = m.get("left_out", 0)
        out.append(make(
            group_id, "unexplained", "medium", m.get("first_ms"), m.get("last_ms"), members=m["member_ids"],
            title=f"{source}: lines of several consumers under client id {client_id}",
            explanation=(f"The lines of client {client_id} in {source} are of more than one process: {m['proof']}. "
                         "A consumer's member id only changes when it joins anew, and each join is of a later "
                         "generation, so one process cannot log this: the file holds several consumers' logs "
                         "(concatenated, merged by a log collector, or written by several consumers with one "
                         f"client id). No line of it can be given to one process, so its {n} line(s) are left "
                         "out, as if the file were not given: what only it shows (its members' assignments, "
                         "revocations, leaves) is unknown. Give each host's log as its own file (missing "
                         "evidence: the separate logs)."),
            details={"source": source, "client_id": client_id, "proof": m["proof"], "lines_left_out": n,
                     "missing": ["the separate logs of the processes in " + source]},
            evidence=[m["evidence"], m.get("first_left_out")]))
    return out


# findings of the classic rules that hold for any protocol (ownership, offsets, commits, failovers); the
# generation-based ones (storms, expiries, static fencing, stuck rebalances) come from consumer_groups
_PROTOCOL_FREE_FINDINGS = frozenset({"double_ownership", "unowned_partitions", "offset_rewind", "offset_skip",
                                     "stale_generation_commit", "coordinator_failover", "poll_timeout",
                                     "inconsistent_protocol"})


def _modern_group(ordered: list[Event], group_id: str | None, gtype: str, cfg: EffectiveSettings,
                  classic_findings: list[dict[str, Any]], classic_gens: list[dict[str, Any]],
                  classic_mems: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], ...]:
    """A consumer-protocol (KIP-848) or streams (KIP-1071) group: epochs and reconciliations from
    consumer_groups; the protocol-free findings of the classic rules are kept."""
    gens, mems, found = cg_mod.ConsumerGroupReplay(group_id, gtype, cfg).run(ordered).finish()
    # a group that moved from the classic protocol: its classic generations before the first epoch stay (after
    # an offline migration the consumer group starts again at epoch 1: protocol_type tells the rows apart)
    first = min((g["started_ms"] for g in gens if g["started_ms"] is not None), default=None)
    before = [g for g in classic_gens if g["protocol_type"] not in cg_mod.PROTOCOL_TYPE.values()
              and (first is None or (g["started_ms"] is not None and g["started_ms"] < first))]
    numbers = {g["generation"] for g in before}
    gens = [*before, *gens]
    mems = [*(m for m in classic_mems if m["generation"] in numbers), *mems]
    kept = [f for f in classic_findings if f["kind"] in _PROTOCOL_FREE_FINDINGS]
    out = sorted([*kept, *found], key=lambda f: (f["start_ms"] if f["start_ms"] is not None else -1, f["kind"],
                                                 f["finding_id"]))
    return gens, mems, out


def _group_of(events: list[Event]) -> str | None:
    counts: dict[str, int] = {}
    for ev in events:
        if ev.group_id is not None:
            counts[ev.group_id] = counts.get(ev.group_id, 0) + 1
    return max(counts.items(), key=lambda kv: (kv[1], kv[0]))[0] if counts else None


def _check_columns(name: str, rows: list[dict[str, Any]]) -> None:
    want = schemas.columns(name)
    for r in rows[:1]:
        if list(r) != want:
            raise AssertionError(f"replay produced {name} rows with columns {list(r)}, schema says {want}")


# ------------------------------------------------------------------ Arrow and pandas bridges


# replay_group_rows takes a Handover too (pipeline.spark.group_pass asks before it hands one over)
REPLAY_ROWS_TAKE_HANDOVER = True


# and the ownership_final of replay_group
REPLAY_ROWS_TAKE_OWNERSHIP = True


def replay_group_rows(table: Any, settings: ReplaySettings | None = None,
                      ownership_final: OwnershipFinal | None = None) -> dict[str, list[dict[str, Any]]]:
    """One group's `events` rows as a pyarrow Table -> {table name: rows} for generations,
    memberships, ownership and findings (the Spark replay stage's entry point).

    `table` may be a Handover (replay_rules.event_rows) holding the only reference to the rows:
    then every column but `raw` is freed as the Events are built (a record batch at a time),
    before the replay runs (a hot group's rows are as large as its Events: bench-hot's 189 MB, of
    which `raw` is 65)."""
    # texts read from the table when needed; a handover is taken apart as its Events are made
    events = events_from_arrow(table, lazy_text=True)
    del table
    try:
        result = replay_group(events, settings, ownership_final)
    finally:
        lazy_text.release(events)
    return {name: result.table(name) for name in OUTPUT_TABLES}


def rows_to_frame(name: str, rows: list[dict[str, Any]]) -> Any:
    """Rows -> a DataFrame with exactly the schema's columns and nullable dtypes Arrow maps cleanly."""
    import pandas as pd

    cols = schemas.columns(name)
    types = dict(schemas.TABLES[name])
    df = pd.DataFrame.from_records(rows, columns=cols) if rows else pd.DataFrame({c: [] for c in cols})
    for c in cols:
        t = types[c]
        if t == "bigint":
            df[c] = df[c].astype("Int64")
        elif t == "int":
            df[c] = df[c].astype("Int32")
        elif t == "boolean":
            df[c] = df[c].astype("boolean")
        elif t == "string":
            df[c] = df[c].astype(object).where(df[c].notna(), None)
        else:   # array<string>
            df[c] = df[c].astype(object)
    return df


def replay_group_frame(pdf: Any, settings: ReplaySettings | None = None) -> dict[str, Any]:
    """One group's `events` rows -> {table: DataFrame} for generations, memberships, ownership, findings."""
    result = replay_group(events_from_frame(pdf), settings)
    return {name: rows_to_frame(name, result.table(name)) for name in OUTPUT_TABLES}


def what_if(events: Iterable[Event], changes: dict[str, str], settings: ReplaySettings | None = None) -> Any:
    """Replay as observed, then evaluate the same behaviour under `changes` ({"session.timeout.ms": "60000"}).
    Returns (observed ReplayResult, pipeline.replay_rules.whatif.WhatIf)."""
    from pipeline.replay_rules import whatif

    events = list(events)
    base_settings = settings or ReplaySettings()
    observed = replay_group(events, base_settings)
    new_cfg = resolve(events, base_settings.with_overrides(changes))
    if cg_mod.group_type_of(events) in ("consumer", "streams"):
        from pipeline.replay_rules import whatif_consumer  # KIP-848: through the consumer-protocol model
        return observed, whatif_consumer.analyse(events, observed, consumer_protocol_settings(new_cfg))
    assert observed.state is not None and observed.settings is not None
    return observed, whatif.analyse(observed.views, observed.state, observed.settings, new_cfg)
