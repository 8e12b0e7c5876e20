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
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from parsers.events import Event
from pipeline import schemas
from pipeline.replay_rules import consumer_groups as cg_mod
from pipeline.replay_rules import generations as gens_mod
from pipeline.replay_rules import offsets as offsets_mod
from pipeline.replay_rules import ownership as own_mod
from pipeline.replay_rules.collect import Collector, GroupState, dedupe_and_order
from pipeline.replay_rules.findings import FINDING_KINDS, FindingRules
from pipeline.replay_rules.generations import GenView
from pipeline.replay_rules.reasons import CAUSES
from pipeline.replay_rules.settings import (
    EffectiveSettings,
    ReplaySettings,
    consumer_protocol_settings,
    resolve,
)

__all__ = ["CAUSES", "FINDING_KINDS", "ReplayResult", "ReplaySettings", "replay_group", "replay_group_frame",
           "what_if"]

OUTPUT_TABLES = ("generations", "memberships", "ownership", "findings")


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


def replay_group(events: Iterable[Event], settings: ReplaySettings | None = None) -> ReplayResult:
    """Reconstruct one group's history from its events (see the module docstring)."""
    # The replay allocates many small records and frees none until the end; CPython's cyclic
    # collector would rescan them all repeatedly (a third of the run time on long histories).
    # Paused for the call only and restored as it was.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _replay(events, settings)
    finally:
        if paused:
            gc.enable()


def _replay(events: Iterable[Event], settings: ReplaySettings | None) -> ReplayResult:
    explicit = settings or ReplaySettings()
    ordered, dup_count, _dropped = dedupe_and_order(events)
    group_id = _group_of(ordered)
    cfg = resolve(ordered, explicit)
    gtype = cg_mod.group_type_of(ordered)
    if gtype in ("consumer", "streams"):
        cfg = consumer_protocol_settings(cfg)
    st = Collector(group_id, cfg.session_timeout_ms, cfg.heartbeat_interval_ms).run(ordered)
    st.duplicates = dup_count
    views = gens_mod.build(st, cfg)
    own_mod.close_open(st, views)
    own_mod.from_assignments(views, st, cfg)
    issues = offsets_mod.analyse(st.offsets, cfg, gens_mod.empty_spans(views, st))
    issues += offsets_mod.estimate_lost_progress(st.offsets, st.intervals, issues, cfg,
                                                 offsets_mod.auto_commit_by_source(ordered),
                                                 offsets_mod.poll_timeouts(st.obs))
    findings = FindingRules(st, views, cfg).run(issues)
    generations = gens_mod.generation_rows(views, group_id)
    memberships = gens_mod.membership_rows(views, group_id)
    if gtype in ("consumer", "streams"):
        classic = cg_mod.classic_part(ordered)
        if any(e.generation is not None for e in classic):   # the group's classic incarnation, replayed alone
            st_c = Collector(group_id, cfg.session_timeout_ms, cfg.heartbeat_interval_ms).run(classic)
            views_c = gens_mod.build(st_c, cfg)
            generations = gens_mod.generation_rows(views_c, group_id)
            memberships = gens_mod.membership_rows(views_c, group_id)
        else:
            generations, memberships = [], []
        generations, memberships, findings = _modern_group(ordered, group_id, gtype, cfg, findings, generations,
                                                           memberships)
    elif gtype == "share":
        generations, memberships, findings = [], [], [cg_mod.share_group_finding(group_id, ordered)]
    findings = findings + cg_mod.migration_findings(group_id, ordered)
    result = ReplayResult(
        group_id=group_id,
        generations=generations,
        memberships=memberships,
        ownership=own_mod.rows(st),
        findings=findings,
        settings=cfg,
        stats={"events": len(ordered), "duplicates_dropped": dup_count, "generations": len(views),
               "members": len(st.lives), "first_ms": st.first_ms, "last_ms": st.last_ms},
        state=st,
        views=views,
    )
    for name in OUTPUT_TABLES:
        _check_columns(name, result.table(name))
    return result


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


# ------------------------------------------------------------------ pandas bridge (Spark applyInPandas)

_INT_FIELDS = ("line_no", "ts_ms", "generation", "member_epoch", "partition", "offset")


def events_from_frame(pdf: Any) -> list[Event]:
    """Rows of the `events` table (a pandas DataFrame) -> Events. Nulls (None/NaN/NA) become None."""
    import math

    out: list[Event] = []
    cols = [c for c in schemas.columns("events") if c in pdf.columns]
    for rec in pdf[cols].itertuples(index=False, name=None):
        d = dict(zip(cols, rec, strict=True))
        kw: dict[str, Any] = {}
        for k, v in d.items():
            if v is None or (isinstance(v, float) and math.isnan(v)) or v is _pd_na():
                v = None
            if k == "extra_json":
                try:
                    kw["extra"] = json.loads(v) if v else {}
                except (TypeError, ValueError):
                    kw["extra"] = {"unparsed_extra_json": str(v)}
                if not isinstance(kw["extra"], dict):
                    kw["extra"] = {"value": kw["extra"]}
                continue
            if k in _INT_FIELDS and v is not None:
                v = int(v)
            elif k == "partitions" and v is not None:
                v = tuple(str(p) for p in v)
            kw[k] = v
        kw.setdefault("extra", {})
        kw["source"] = kw.get("source") or "?"
        kw["line_no"] = kw.get("line_no") or 0
        kw["side"] = kw.get("side") or "client"
        kw["kind"] = kw.get("kind") or "unparsed"
        kw["raw"] = kw.get("raw") or ""
        out.append(Event(**kw))
    return out


def events_from_arrow(table: Any) -> list[Event]:
    """Rows of the `events` table (a pyarrow Table or RecordBatch) -> Events, sorted as the
    timeline is (time with unknown times first, file, line). Column by column: no pandas.

    Equal `extra_json` texts share one decoded dict (a group's heartbeat lines all carry the same
    few): nothing downstream mutates an event's `extra` (Event is frozen; copies are made with
    dataclasses.replace).
    """
    from parsers.fast_event import make_event, make_event_row

    names = [c for c in schemas.columns("events") if c in table.schema.names]
    n = table.num_rows
    empty: list[Any] = [None] * n
    cols = {c: table.column(c).to_pylist() for c in names if c != "partitions"}
    if "partitions" in names:
        cols["partitions"] = _partition_tuples(table.column("partitions"))
    extras: dict[str | None, dict[str, Any]] = {}
    out: list[Event] = []
    head = zip(*(cols.get(c, empty) for c in ("source", "line_no", "side", "kind", "raw", "ts_ms", "extra_json")),
               strict=True)
    if _ROW_ORDER is not None:
        # the optional fields as one tuple per row, in make_event_row's order: no dict per event
        rest = zip(*(cols.get(c, empty) for c in _ROW_ORDER), strict=True)
        for (source, line_no, side, kind, raw, ts_ms, extra_json), row in zip(head, rest, strict=True):
            extra = extras.get(extra_json)
            if extra is None:
                extra = extras[extra_json] = _extra(extra_json)
            out.append(make_event_row(source or "?", line_no or 0, side or "client", kind or "unparsed",
                                      raw or "", ts_ms, extra, row))
    else:
        optional = [c for c in names if c in _OPTIONAL_EVENT_FIELDS]
        rest = zip(*(cols[c] for c in optional), strict=True) if optional else [()] * n
        for (source, line_no, side, kind, raw, ts_ms, extra_json), values in zip(head, rest, strict=True):
            extra = extras.get(extra_json)
            if extra is None:
                extra = extras[extra_json] = _extra(extra_json)
            out.append(make_event(source or "?", line_no or 0, side or "client", kind or "unparsed",
                                  raw or "", ts_ms, extra, dict(zip(optional, values, strict=True))))
    out.sort(key=_timeline_order)
    return out


def _partition_tuples(column: Any) -> list[tuple[str, ...] | None]:
    """A list<string> column -> a tuple of strings per row (None stays None), from each chunk's
    flat values and offsets: a third of the time of `to_pylist()` and a tuple per row."""
    import pyarrow as pa

    out: list[tuple[str, ...] | None] = []
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    for ch in chunks:
        if not pa.types.is_list(ch.type) or not pa.types.is_string(ch.type.value_type):
            out += [None if p is None else tuple(str(x) for x in p) for p in ch.to_pylist()]
            continue
        offsets = ch.offsets.to_pylist()
        base = offsets[0]
        flat = ch.values.slice(base, offsets[-1] - base).to_pylist()
        valid = ch.is_valid().to_pylist()
        out += [tuple(flat[offsets[i] - base:offsets[i + 1] - base]) if valid[i] else None for i in range(len(ch))]
    return out


def _timeline_order(e: Event) -> tuple[bool, int, str, int]:
    return (e.ts_ms is not None, e.ts_ms or 0, e.source, e.line_no)


def _extra(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        v = json.loads(text)
    except (TypeError, ValueError):
        return {"unparsed_extra_json": str(text)}
    return v if isinstance(v, dict) else {"value": v}


_OPTIONAL_EVENT_FIELDS = frozenset(schemas.columns("events")) - {
    "source", "line_no", "side", "kind", "raw", "ts_ms", "extra_json"}


def _row_order() -> tuple[str, ...] | None:
    """make_event_row's order of the optional fields (parsers/fast_event.py), when the events
    table has exactly those columns; None otherwise (events_from_arrow then builds a dict per row)."""
    from parsers import fast_event

    order = tuple(getattr(fast_event, "_OPTIONAL", ()))
    return order if frozenset(order) == _OPTIONAL_EVENT_FIELDS else None


_ROW_ORDER = _row_order()


def replay_group_rows(table: Any, settings: ReplaySettings | None = None) -> dict[str, list[dict[str, Any]]]:
    """One group's `events` rows as a pyarrow Table -> {table name: rows} for generations,
    memberships, ownership and findings (the Spark replay stage's entry point)."""
    result = replay_group(events_from_arrow(table), settings)
    return {name: result.table(name) for name in OUTPUT_TABLES}


def _pd_na() -> Any:
    try:
        import pandas as pd

        return pd.NA
    except ImportError:  # pragma: no cover
        return object()


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
