"""The incident report as data: built from a RUN_DIR's tables, rendered by markdown/html/json.

The model is a plain JSON-able dict documented by `report.schema.json`; every renderer reads only
this dict, so the three formats always say the same thing.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from pipeline import __version__, figures, rundir
from pipeline.report.recommend import recommend, whatif_results
from pipeline.schemas import SEVERITIES
from pipeline.timefmt import duration, iso

SCHEMA_VERSION = 1
TOP_FINDINGS = 5
MAX_EVIDENCE_PER_ITEM = 6


def _none(v: Any) -> Any:
    """pandas/pyarrow missing values -> None; numpy scalars -> Python."""
    if v is None:
        return None
    if isinstance(v, float) and v != v:
        return None
    if hasattr(v, "tolist"):  # numpy arrays (list columns) and numpy scalars
        return v.tolist()
    return v


def rebalancing_words(fig: dict[str, Any], brief: bool = False) -> str:
    """figures.rebalancing_sentence of a group's section or of the impact."""
    return figures.rebalancing_sentence(fig["rebalance_ms_total"], fig["rebalance_ms_longest"], fig["rebalances_timed"],
                                        fig["rebalances"], brief)


def rebalancing_cell(fig: dict[str, Any]) -> str:
    """figures.rebalancing_total of a group's section (a table cell)."""
    return figures.rebalancing_total(fig["rebalance_ms_total"], fig["rebalances_timed"], fig["rebalances"])


def unowned_cell(impact: dict[str, Any]) -> str:
    """The impact table's "partition-seconds with no owner in the logs" (figures.unowned_sentence)."""
    return figures.unowned_sentence(impact["unowned_partition_seconds"],
                                    impact.get("unowned_partition_seconds_estimated") or 0,
                                    impact.get("unowned_estimated_why") or [],
                                    impact.get("inferred_owned_partition_seconds") or 0,
                                    impact.get("unknown_owner_partition_seconds") or 0,
                                    impact.get("unowned_unknown_groups") or (),
                                    impact.get("unlogged_owner_partition_seconds") or 0,
                                    impact.get("unowned_partition_seconds_maybe_owned") or 0)


def total_longest_cell(fig: dict[str, Any]) -> str:
    """"total / longest" of the impact table, with how many rebalances the logs time when not all."""
    timed, n = fig["rebalances_timed"], fig["rebalances"]
    if timed == 0 and n:
        return "unknown (no rebalance has a known duration)"
    note = f" ({timed:,} of {n:,} rebalances have a known duration)" if timed < n else ""
    return f"{rebalancing_cell(fig)}{note} / {duration(fig['rebalance_ms_longest'])}"


def time_span(start: str | None, end: str | None) -> str:
    """When a finding happened, in words: a start that the logs do not show is said to be unknown
    (a history that begins inside the logs' window), never printed as "None"."""
    if start is None:
        return f"unknown start to {end}" if end is not None else "time unknown"
    return f"{start} to {end}" if end is not None and end != start else start


def _int(v: Any) -> int | None:
    """An integer column's value: a nullable Parquet integer reaches pandas as a float (2.0) when the
    column has nulls; the report states it as the integer it is."""
    v = _none(v)
    return int(v) if v is not None else None


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [{k: _none(v) for k, v in row.items()} for row in df.to_dict("records")]


def _in_window(df: pd.DataFrame, start: str, end: str, since: int | None, until: int | None) -> pd.DataFrame:
    """Rows whose [start, end] span overlaps [since, until]; rows without times are kept."""
    if df.empty or (since is None and until is None):
        return df
    s = df[start]
    e = df[end] if end in df else s
    keep = pd.Series(True, index=df.index)
    if since is not None:
        keep &= e.isna() | (e.fillna(s) >= since) | (s.isna())
    if until is not None:
        keep &= s.isna() | (s <= until)
    return df[keep]


class Tables:
    """The RUN_DIR tables a report needs, filtered to one group and a time window."""

    def __init__(self, run_dir: str | Path, group: str | None, since: int | None, until: int | None):
        self.run_dir = Path(run_dir)
        self.manifest = rundir.validate(run_dir)   # RunDirError naming a damaged table

        def load(table: str, start: str, end: str) -> pd.DataFrame:
            if table == "events_groups":   # the events' groups and times only (the table can be large)
                df = rundir.load_table(run_dir, "events", ["group_id", "ts_ms"])
            else:
                df = rundir.load_table(run_dir, table)
            if group is not None and "group_id" in df:
                df = df[df["group_id"] == group]
            return _in_window(df, start, end, since, until)

        self._split: dict[str, dict[Any, pd.DataFrame]] = {}
        self._empty: dict[str, pd.DataFrame] = {}
        self._gaps: dict[Any, dict[str, int]] | None = None
        self.generations = load("generations", "started_ms", "ended_ms")
        self.memberships = load("memberships", "joined_ms", "left_ms")
        self.findings = load("findings", "start_ms", "end_ms")
        self.ownership = load("ownership", "start_ms", "end_ms")
        self.commits = load("offset_commits", "ts_ms", "ts_ms")
        events = load("events_groups", "ts_ms", "ts_ms")
        # every group of the run, those seen only in a describe snapshot or in commits included
        self.group_ids = figures.all_groups(self.generations, self.findings, self.commits, events)
        if group is not None and group not in self.group_ids:
            known = sorted(set(rundir.load_table(run_dir, "generations", ["group_id"])["group_id"].dropna()))
            if not known or group not in known:
                raise LookupError(
                    f"group {group!r} is not in this run" + (f" (groups: {', '.join(known[:10])})" if known else "")
                )

    def of(self, table: str, group: str) -> pd.DataFrame:
        """One group's rows of a loaded table ("generations", "memberships", "findings"), in table
        order: each table is split by group once, not filtered once per group (with hundreds of
        groups that filtering was most of a report's time)."""
        split = self._split.get(table)
        if split is None:
            df = getattr(self, table)
            split = {k: sub for k, sub in df.groupby("group_id", sort=False)} if not df.empty else {}
            self._split[table] = split
            self._empty[table] = df.iloc[0:0]
        return split.get(group, self._empty[table])

    def unowned(self) -> dict[str, Any]:
        """figures.unowned_figure of these tables: the partition-seconds with no owner in the logs."""
        return figures.unowned_figure(self.ownership, self.memberships, self.generations, self.client_members(),
                                      self.findings)

    def client_members(self) -> set[str]:
        """The member ids the consumers' own lines name (events, side client): members whose log is given."""
        import pyarrow.compute as pc

        ev = rundir.load_table(self.run_dir, "events", ["member_id"],
                               filters=(pc.field("side") == "client") & pc.field("member_id").is_valid())
        return set(ev["member_id"].dropna().unique())

    def observed_gaps(self, group: str) -> dict[str, int | None]:
        """The longest silences seen in the logs (heartbeat_gaps), per kind, for recommendations."""
        if self._gaps is None:   # every group's, from one read of the table
            gaps = rundir.load_table(self.run_dir, "heartbeat_gaps", ["group_id", "kind", "gap_ms", "exceeded"])
            # exceeded is null where no limit applies (log silences) and gap_ms where a bound is unknown
            gaps = gaps[(gaps["exceeded"] == True) & gaps["gap_ms"].notna()]  # noqa: E712
            self._gaps = {}
            if not gaps.empty:
                for (g, kind), v in gaps.groupby(["group_id", "kind"])["gap_ms"].max().items():
                    self._gaps.setdefault(g, {})[kind] = int(v)
        longest = self._gaps.get(group, {})
        return {"heartbeat_gap_ms": longest.get("heartbeat"), "poll_gap_ms": longest.get("poll")}

    def group_events(self, group: str) -> list[Any]:
        """The group's events (for what-if replays), read without a JVM."""
        import pyarrow.compute as pc

        from pipeline.replay import events_from_frame

        return events_from_frame(rundir.load_table(self.run_dir, "events", filters=pc.field("group_id") == group))

    def raw_lines(self, refs: Iterable[str]) -> dict[str, str]:
        """source:line_no -> raw text, read from the events and unparsed tables."""
        wanted: dict[str, set[int]] = defaultdict(set)
        for ref in refs:
            source, _, line = ref.rpartition(":")
            if source and line.isdigit():
                wanted[source].add(int(line))
        if not wanted:
            return {}
        import pyarrow.compute as pc
        import pyarrow.dataset as ds

        found: dict[str, str] = {}
        for table in ("events", "unparsed"):
            path = rundir.table_path(self.run_dir, table)
            files = sorted(str(p) for p in path.glob("*.parquet")) if path.is_dir() else []
            if not files:
                continue
            filt = pc.field("source").isin(list(wanted)) & pc.field("line_no").isin(
                sorted({n for lines in wanted.values() for n in lines})
            )
            try:
                rows = ds.dataset(files, format="parquet").to_table(columns=["source", "line_no", "raw"],
                                                                    filter=filt).to_pylist()
            except (OSError, ValueError, TypeError) as exc:   # pyarrow's errors derive from these
                raise rundir.damaged(self.run_dir, f"table {table}/ cannot be read ({exc})") from None
            for row in rows:
                if row["line_no"] in wanted.get(row["source"], ()):
                    found.setdefault(f"{row['source']}:{row['line_no']}", row["raw"])
        return found


def _evidence(refs: list[str] | None, raw: dict[str, str]) -> list[dict[str, str | None]]:
    return [{"ref": r, "raw": raw.get(r)} for r in (refs or [])[:MAX_EVIDENCE_PER_ITEM]]


def _offset_ranges(commits: pd.DataFrame, flag: str) -> list[dict[str, Any]]:
    """rewind: [offset, prev_offset) processed again; skip: [prev_offset, offset) never processed."""
    rows = commits[commits["flag"] == flag] if not commits.empty else commits
    out = []
    for r in _records(rows):
        lo, hi = (r["offset"], r["prev_offset"]) if flag == "rewind" else (r["prev_offset"], r["offset"])
        if lo is None or hi is None or hi <= lo:
            continue
        out.append({
            "group_id": r["group_id"], "topic": r["topic"], "partition": r["partition"],
            "from_offset": int(lo), "to_offset": int(hi), "count": int(hi - lo),
            "at": iso(r["ts_ms"]), "member_id": r["member_id"], "evidence": r["evidence"] or [],
        })
    return out


def _finding_ranges(findings: pd.DataFrame, kind: str) -> list[dict[str, Any]]:
    """Offset ranges the replay found (pipeline/figures.py), with their time in ISO 8601."""
    return [{k: v for k, v in r.items() if k != "start_ms"} | {"at": iso(r["start_ms"])}
            for r in figures.offset_ranges(findings, kind)]


def _members_in_out(gens: list[dict[str, Any]]) -> list[tuple[list[str], list[str]]]:
    out, prev = [], set()
    for g in gens:
        cur = set(g["members"] or [])
        out.append((sorted(cur - prev), sorted(prev - cur)))
        prev = cur
    return out


def _group_section(t: Tables, group: str, raw: dict[str, str], links: Any) -> dict[str, Any]:
    gens = _records(t.of("generations", group).sort_values("generation"))
    finds = _records(t.of("findings", group))
    finds.sort(key=lambda f: (SEVERITIES.index(f["severity"]) if f["severity"] in SEVERITIES else 9,
                              f["start_ms"] or 0))
    timeline = []
    for g, (ins, outs) in zip(gens, _members_in_out(gens), strict=True):
        timeline.append({
            "generation": _int(g["generation"]), "start": iso(g["started_ms"]), "stabilized": iso(g["stabilized_ms"]),
            "ended": iso(g["ended_ms"]), "duration_ms": _int(g["rebalance_ms"]),
            "duration": duration(g["rebalance_ms"]), "cause": g["cause"] or "unknown",
            "cause_detail": g["cause_detail"], "members_in": ins, "members_out": outs,
            "member_count": _int(g["member_count"]), "leader": g["leader"], "protocol": g["protocol"],
            "protocol_type": g["protocol_type"],
            "inferred": bool(g["inferred"]), "evidence": _evidence(g["evidence"], raw),
        })
    findings = []
    for f in finds:
        item = {
            "id": f["finding_id"], "kind": f["kind"], "severity": f["severity"], "title": f["title"],
            "explanation": f["explanation"], "start": iso(f["start_ms"]), "end": iso(f["end_ms"]),
            "span": time_span(iso(f["start_ms"]), iso(f["end_ms"])),
            "members": f["members"] or [], "partitions": f["partitions"] or [],
            "generation": _int(f["generation"]), "details": json.loads(f["details_json"]) if f["details_json"] else {},
            "evidence": _evidence(f["evidence"], raw),
        }
        if links:
            item["dashboard_url"] = links.group(group, f["start_ms"], f["end_ms"])
        findings.append(item)
    fig = figures.group_figures(group, t.of("generations", group), t.of("memberships", group),
                                t.of("findings", group))
    section = {
        "group_id": group,
        "generations_seen": fig["generations_seen"],
        "rebalances": fig["rebalances"],
        "rebalance_ms_total": fig["rebalance_ms_total"],
        "rebalance_ms_longest": fig["rebalance_ms_longest"],
        "rebalances_timed": fig["rebalances_timed"],
        "members_seen": fig["members_seen"],
        "timeline": timeline,
        "findings": findings,
        "expelled": [
            {"member_id": e["member_id"], "client_id": e["client_id"], "generation": _int(e["generation"]),
             "reason": e["reason"], "at": iso(e["at_ms"])} for e in fig["expelled"]
        ],
    }
    members = t.of("memberships", group)
    story = consumer_protocol_story(gens, _records(members) if not members.empty else [])
    if story:
        section["consumer_protocol"] = story
    # a file's lines of several consumers the replay left out: no figure above is taken from them
    # (pipeline/figures.py left_out_streams; the dashboard says the same words)
    section["left_out"] = [{"stream": x["stream"], "client_id": x["client_id"], "lines": x["lines"],
                            "sentence": figures.left_out_sentence(x)}
                           for x in figures.left_out_streams(t.of("findings", group), group)]
    section["observed"] = t.observed_gaps(group)
    section["recommendations"] = recommend(section, findings)
    if story:
        _consumer_protocol_recommendations(section["recommendations"])
    whatif_results(section["recommendations"], lambda: t.group_events(group))
    if links:
        section["dashboard_url"] = links.group(group, None, None)
    return section


def _estimated_part(ranges: list[dict[str, Any]]) -> str:
    """' (N of them in K estimated ranges)' when some range has a bound no log line states."""
    est = [r for r in ranges if r.get("estimated")]
    if not est:
        return ""
    return (f" ({sum(r['count'] for r in est):,} of them in {len(est)} estimated range"
            f"{'s' if len(est) != 1 else ''})")


def leader_words(entry: dict[str, Any]) -> str:
    """A timeline entry's leader for a reader: "unknown" when a classic group's logs do not show it;
    "-" for the consumer protocol (KIP-848), which has no group leader."""
    if entry.get("leader"):
        return str(entry["leader"])
    return "-" if str(entry.get("protocol_type") or "").startswith(("consumer (KIP-848)", "streams (KIP-1071)")) \
        else "unknown"


def _headline(impact: dict[str, Any], groups: list[dict[str, Any]], problems: bool) -> str:
    if not problems:
        n = len(groups)
        unknown = sum(1 for g in groups for t in g.get("timeline") or () if t["cause"] == "unknown")
        if unknown:
            # causes the logs do not hold: nothing wrong was found, but "as expected" is not shown
            return (f"Nothing wrong found in these logs: no member was expelled and no offset range was reprocessed "
                    f"or skipped; the cause of {unknown} rebalance{'s' if unknown != 1 else ''} is not in the logs.")
        return (f"Nothing wrong found: {n} group{'s' if n != 1 else ''} rebalanced only as expected, "
                "no member was expelled and no offset range was reprocessed or skipped.")
    parts = [f"{impact['rebalances']:,} rebalance{'s' if impact['rebalances'] != 1 else ''} "
             f"across {len(groups)} group{'s' if len(groups) != 1 else ''} "
             f"({rebalancing_words(impact, brief=True)})"]
    if impact["members_expelled"]:
        parts.append(f"{len(impact['members_expelled'])} member(s) expelled")
    if impact["reprocessed_messages"]:
        parts.append(f"{impact['reprocessed_messages']:,} offsets reprocessed{_estimated_part(impact['reprocessed_ranges'])}")
    if impact["skipped_messages"]:
        parts.append(f"{impact['skipped_messages']:,} offsets skipped (possible data loss)"
                     f"{_estimated_part(impact['skipped_ranges'])}")
    return "; ".join(parts) + "."


def build_report(
    run_dir: str | Path,
    group: str | None = None,
    since_ms: int | None = None,
    until_ms: int | None = None,
    dashboard_url: str | None = None,
) -> dict[str, Any]:
    links = _Links(dashboard_url, since_ms, until_ms) if dashboard_url else None
    t = Tables(run_dir, group, since_ms, until_ms)
    refs = [r for col in (t.generations.get("evidence"), t.findings.get("evidence")) if col is not None
            for refs_ in col for r in (list(refs_)[:MAX_EVIDENCE_PER_ITEM] if refs_ is not None else [])]
    raw = t.raw_lines(refs)
    groups = [_group_section(t, g, raw, links) for g in t.group_ids]

    all_findings = [f | {"group_id": g["group_id"]} for g in groups for f in g["findings"]]
    by_sev = {s: sum(1 for f in all_findings if f["severity"] == s) for s in SEVERITIES}
    expelled = [e | {"group_id": g["group_id"]} for g in groups for e in g["expelled"]]
    # ranges come from the replay's findings only: a committed offset going back or forward is not by
    # itself a reprocessed or skipped range (catch-up after a restart, consumption after an admin rewind)
    reprocessed = _finding_ranges(t.findings, "offset_rewind")
    skipped = _finding_ranges(t.findings, "offset_skip")
    times = [v for df, cols in ((t.generations, ("started_ms", "ended_ms")), (t.findings, ("start_ms", "end_ms")))
             for c in cols for v in df[c].dropna().tolist()]
    unowned = t.unowned()
    impact = {
        "rebalances": sum(g["rebalances"] for g in groups),
        "rebalance_ms_total": sum(g["rebalance_ms_total"] for g in groups),
        "rebalance_ms_longest": max((g["rebalance_ms_longest"] for g in groups), default=0),
        "rebalances_timed": sum(g["rebalances_timed"] for g in groups),
        # (figures.unowned_figure: the dashboard's group page says the same)
        # None (null in JSON) when no group has an ownership interval: unknown, not 0
        "unowned_partition_seconds": (None if unowned["groups_without_partitions"] and not unowned["groups_owning"]
                                      else round(unowned["ms"] / 1000, 3)),
        # the groups whose logs name no partition their members owned: their figure is unknown
        "unowned_unknown_groups": unowned["groups_without_partitions"],
        "unowned_partition_seconds_estimated": round(unowned["estimated_ms"] / 1000, 3),
        "unowned_estimated_why": unowned["estimated_why"],
        # of the estimated part, what a member the logs do not show may have held (figures.unowned_gaps)
        "unowned_partition_seconds_maybe_owned": round(unowned["maybe_owned_ms"] / 1000, 3),
        "inferred_owned_partition_seconds": round(unowned["inferred_owned_ms"] / 1000, 3),
        "unknown_owner_partition_seconds": round(unowned["unknown_ms"] / 1000, 3),
        # between two owners in the logs, held by a member whose assignment no line shows (not counted)
        "unlogged_owner_partition_seconds": round(unowned["held_unlogged_ms"] / 1000, 3),
        "members_expelled": expelled,
        "reprocessed_ranges": reprocessed,
        "skipped_ranges": skipped,
        "reprocessed_messages": sum(r["count"] for r in reprocessed),
        "skipped_messages": sum(r["count"] for r in skipped),
    }
    problems = bool(
        expelled or reprocessed or skipped
        or any(by_sev[s] for s in ("critical", "high", "medium"))
    )
    top = sorted(all_findings, key=lambda f: (SEVERITIES.index(f["severity"]) if f["severity"] in SEVERITIES
                                              else 9, f["start"] or ""))[:TOP_FINDINGS]
    manifest = t.manifest
    return {
        "schema_version": SCHEMA_VERSION,
        "coordscope_version": __version__,
        "run_dir": str(run_dir),
        "scope": {"group": group, "since": iso(since_ms), "until": iso(until_ms)},
        "inputs": manifest.get("inputs", []),
        "line_accounting": manifest.get("accounting", manifest.get("line_accounting", {})),
        "verdict": "problems_found" if problems else "nothing_wrong",
        "summary": {
            "headline": _headline(impact, groups, problems),
            "first": iso(min(times)) if times else None,
            "last": iso(max(times)) if times else None,
            "groups": [g["group_id"] for g in groups],
            "impact": impact,
            "findings_by_severity": by_sev,
            "time_corrections": time_corrections(manifest.get("inputs", [])),
            "top_findings": [
                {k: f[k] for k in ("id", "group_id", "kind", "severity", "title", "explanation", "start")}
                for f in top
            ],
        },
        "groups": groups,
        "dashboard_url": dashboard_url,
    }


def dashboard_base(url: str) -> str:
    """A dashboard base address fit for links: http(s), a host, nothing that could run or hide
    (javascript:, data:, credentials, whitespace); ValueError saying why otherwise."""
    from urllib.parse import urlsplit

    if any(c.isspace() or not c.isprintable() for c in url):
        raise ValueError(f"--dashboard-url {url!r} contains spaces or control characters")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        raise ValueError(f"--dashboard-url {url!r} is not an address") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError(f"--dashboard-url must be an http:// or https:// address of a dashboard, got {url!r}")
    if parts.username or parts.password:
        raise ValueError("--dashboard-url must not contain a user name or password")
    if parts.query or parts.fragment:
        raise ValueError(f"--dashboard-url must be a base address without ? or #, got {url!r}")
    return url.rstrip("/")


class _Links:
    """Dashboard links for the report, built by the dashboard's own URL helpers."""

    def __init__(self, base: str, since: int | None, until: int | None):
        self.base, self.since, self.until = dashboard_base(base), since, until

    def group(self, group: str, start: int | None, end: int | None) -> str:
        from pipeline import dashboard_urls as urls

        return urls.group_url(self.base, group, start if start is not None else self.since,
                              end if end is not None else self.until)


# generations.protocol_type of the groups pipeline/replay_rules/consumer_groups.py reconstructs
_MODERN = {"consumer (KIP-848)": "consumer", "streams (KIP-1071)": "streams"}


def consumer_protocol_story(gens: list[dict[str, Any]], members: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A consumer-protocol (KIP-848) group in words: epochs and their causes, who was fenced and why, which
    epochs did not converge and the slowest reconciliation; plus each member's epochs (for a reader of the
    JSON). None for a classic group."""
    kinds = sorted(k for k in (_MODERN.get(g.get("protocol_type") or "") for g in gens) if k)
    if not kinds:
        return None
    gtype = kinds[0]
    classic = [g for g in gens if not _MODERN.get(g.get("protocol_type") or "")]
    gens = [g for g in gens if _MODERN.get(g.get("protocol_type") or "")]
    members = [m for m in members if m.get("states") is not None or m.get("member_state") is not None
               or any(m.get("generation") == g["generation"] for g in gens)]
    words = [f"This group uses the {'consumer rebalance protocol (KIP-848)' if gtype == 'consumer' else 'streams rebalance protocol (KIP-1071)'}: "
             "the broker computes the assignment and each member converges to it epoch by epoch, without "
             "JoinGroup/SyncGroup rounds; a 'generation' of this report is a group epoch."]
    if classic:
        words.append(f"Before, the group used the classic protocol (generation(s) "
                     f"{', '.join(str(g['generation']) for g in classic)}, until {iso(classic[-1]['ended_ms'])}); "
                     "the consumer group's epochs are counted anew from its first epoch.")
    epochs = [g["generation"] for g in gens]
    counts: dict[str, int] = {}
    for g in gens:
        counts[g["cause"] or "unknown"] = counts.get(g["cause"] or "unknown", 0) + 1
    if len(gens) == 1:   # "went from 2 to 2 (1 epoch(s))" read as a change that never happened
        words.append(f"The logs show one group epoch, {epochs[0]}, formed by "
                     f"{next(iter(counts)).replace('_', ' ')}.")
    else:
        words.append(f"The group epoch went from {min(epochs)} to {max(epochs)} ({len(gens)} epochs in the logs): "
                     + ", ".join(f"{n} by {c.replace('_', ' ')}" for c, n in sorted(counts.items(), key=lambda kv: -kv[1]))
                     + ".")
    for g in gens:
        if g["cause"] in ("session_expiry", "rebalance_timeout", "member_left"):
            words.append(f"Epoch {g['generation']} ({iso(g['started_ms'])}): {g['cause_detail']}")
    fenced = [m for m in members if m.get("fence_error")]
    for m in fenced:
        words.append(f"Member {m['member_id']} learned it was fenced at epoch {m['generation']} from a "
                     f"{m['fence_error']} heartbeat error, gave up its partitions and rejoined with epoch 0.")
    open_epochs = [g for g in gens if g["stabilized_ms"] is None]
    if open_epochs:
        words.append("Epoch(s) " + ", ".join(str(g["generation"]) for g in open_epochs) + " show no acknowledgement "
                     "by every member in the logs: a member skipped the epoch (a newer one came first) or reached it "
                     "without a line saying so (an unchanged assignment is not logged at INFO).")
    slow = [m for m in members if m.get("reconcile_ms") is not None]
    if slow:
        worst = max(slow, key=lambda m: m["reconcile_ms"])
        words.append(f"Slowest acknowledgement: member {worst['member_id']} took {duration(worst['reconcile_ms'])} "
                     f"to reach epoch {worst['generation']} after its target assignment was computed.")
    per_member: dict[str, list[dict[str, Any]]] = {}
    for m in sorted(members, key=lambda m: (m["member_id"], m["generation"])):
        per_member.setdefault(m["member_id"], []).append({
            "epoch": m["generation"], "reached": iso(m.get("joined_ms")), "acknowledged": iso(m.get("synced_ms")),
            "state": m.get("member_state"), "fence_error": m.get("fence_error")})
    return {"group_type": gtype, "words": words, "member_epochs": per_member}


def _consumer_protocol_recommendations(recs: list[dict[str, Any]]) -> None:
    """In a consumer-protocol group the session timeout and the heartbeat interval are the broker's
    (group.consumer.session.timeout.ms, group.consumer.heartbeat.interval.ms, or the group's
    consumer.session.timeout.ms config set with kafka-configs --entity-type groups): say so."""
    for r in recs:
        if r["id"] == "raise-session-timeout":
            r["setting"] = "group.consumer.session.timeout.ms"
            r["text"] = (r["text"].replace(" (keep heartbeat.interval.ms at a third of it)", "")
                         + " With the consumer protocol (KIP-848) this is a broker setting, "
                         "group.consumer.session.timeout.ms, or the group's consumer.session.timeout.ms "
                         "(kafka-configs --entity-type groups); the client's session.timeout.ms is not used.")


def _ahead(ms: int) -> str:
    return f"{abs(ms) / 1000:.1f} s {'ahead' if ms > 0 else 'behind'}"


def _against(ms: int) -> str:
    """"4.0 s ahead of" / "2.0 s behind" (before "the other logs")."""
    return _ahead(ms) + (" of" if ms > 0 else "")


def time_corrections(inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One sentence per input file whose times the ingest corrected before the replay (its
    manifest entry's clock offset or steps, docs/replay.md "Clock skew"): the report's times for
    its lines are not the ones printed in it, which its evidence lines show as logged. A file
    merging several processes' lines, measured per origin (`clock_origins`), has one sentence per
    corrected origin, naming it (`origin`)."""
    out: list[dict[str, Any]] = []
    for e in inputs:
        for c in e.get("clock_origins") or ():
            o = c.get("origin")
            whose = (f"its lines of {o}" if o else "its lines naming no origin") + (
                " (this file merges several processes' logs, each on its own host's clock: each origin is "
                "corrected by its own offset, and the others' lines are not moved by it)")
            said = _clock_sentence(c, whose, "their")
            if said is not None:
                out.append({"source": e["source"], "origin": o, **said})
        said = _clock_sentence(e, "its clock", "its")
        if said is not None:
            out.append({"source": e["source"], **said})
    return out


def _clock_sentence(e: dict[str, Any], whose: str, times: str) -> dict[str, Any] | None:
    """{"sentence"[, "offset_ms"]} of one clock's correction (a file's, or an origin's of a file),
    from its clock_offset_ms or clock_steps; None without either."""
    if e.get("clock_steps"):
        first, *steps = e["clock_steps"]
        parts = [f"{whose} ran {_against(first['offset_ms'])} the other logs of its group"]
        parts += [f"then {_ahead(s['offset_ms'])} from a point between lines {s['after_line']:,} and "
                  f"{s['from_line']:,} (its clock was set while it logged; lines between a step's two lines "
                  "that cannot be placed keep the earlier correction and time no rebalance)" for s in steps]
        return {"sentence": ", ".join(parts) + "."}
    if e.get("clock_offset_ms"):
        return {"offset_ms": e["clock_offset_ms"],
                "sentence": f"{whose} ran {_against(e['clock_offset_ms'])} the other logs of its group: "
                            f"{times} times here are corrected by {-e['clock_offset_ms'] / 1000:+.1f} s."}
    return None
