"""Data access for the dashboard: cached RUN_DIR loads and server-side aggregation.

Only table names from `pipeline.schemas.TABLES` can be loaded (through `pipeline.rundir`), and the
run directory is fixed when the app starts: values from a URL (group, member, partition, times) are
used as filter values on loaded frames, never as paths. Everything the browser receives is bounded:
dense series are bucketed on the server before a figure is built.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pipeline import figures, rundir, schemas
from pipeline.timefmt import iso

# Event kinds -> the lane category drawn for them on the group page.
LANE_CATEGORIES: dict[str, str] = {
    "join_started": "join", "join_succeeded": "join", "join_failed": "join", "broker_member_joined": "join",
    "sync_succeeded": "sync", "sync_failed": "sync", "assignment_received": "sync",
    "broker_assignment_received": "sync", "partitions_assigned": "sync",
    "partitions_revoked": "revoke", "partitions_lost": "revoke",
    "leave_group": "leave", "broker_member_removed": "leave",
    "poll_timeout": "expiry", "member_fenced": "expiry", "generation_reset": "expiry",
    "heartbeat_failed": "expiry", "rebalance_failed": "expiry",
    "heartbeat_succeeded": "heartbeat",
    "offset_committed": "commit", "offset_commit_failed": "commit", "offset_fetched": "commit",
    "offset_reset": "commit", "no_committed_offset": "commit",
}
# Categories drawn one marker per event when sparse; heartbeats and commits are the dense ones.
LANE_ORDER: tuple[str, ...] = ("join", "sync", "revoke", "leave", "expiry", "heartbeat", "commit", "other")

DEFAULT_MAX_POINTS = 3000
UNNAMED = "(member not named in the logs)"
HEATMAP_BUCKETS = 240


def split_evidence(ref: str) -> tuple[str, int] | None:
    """`path/to/file.log:123` -> (path, 123); sources may contain colons, so split at the last."""
    source, sep, line = str(ref).rpartition(":")
    if not sep or not line.strip().isdigit():
        return None
    return source, int(line)


def in_window(frame: pd.DataFrame, col: str, since: int | None, until: int | None) -> pd.DataFrame:
    mask = pd.Series(True, index=frame.index)
    if since is not None:
        mask &= frame[col] >= since
    if until is not None:
        mask &= frame[col] <= until
    return frame[mask]


def overlapping(frame: pd.DataFrame, start: str, end: str, since: int | None, until: int | None) -> pd.DataFrame:
    """Rows whose [start, end] interval meets the window (an open end counts as ongoing)."""
    mask = pd.Series(True, index=frame.index)
    if since is not None:
        mask &= frame[end].isna() | (frame[end] >= since)
    if until is not None:
        mask &= frame[start].isna() | (frame[start] <= until)
    return frame[mask]


def _buckets(frame: pd.DataFrame, time_col: str, keys: list[str], max_points: int,
             keep: pd.Series | None) -> tuple[pd.DataFrame, pd.DataFrame, list[str]] | None:
    """Split a frame too dense to draw into the rows to keep as they are and the rest, tagged with a
    time bucket (`_bucket`) and each bucket's row count; None when it is small enough already."""
    if len(frame) <= max_points or frame.empty:
        return None
    frame = frame.assign(count=1)
    kept = frame[keep.reindex(frame.index, fill_value=False)] if keep is not None else frame.iloc[0:0]
    rest = frame.drop(kept.index)
    n_keys = max(1, rest.groupby(keys, dropna=False).ngroups if keys else 1)
    buckets = max(10, (max_points - len(kept)) // n_keys)
    t = rest[time_col].astype("int64")
    lo, hi = int(t.min()), int(t.max())
    width = max(1, (hi - lo) // buckets + 1)
    rest = rest.assign(_bucket=(t - lo) // width)
    group_cols = [*keys, "_bucket"]
    rest = rest.assign(count=rest.groupby(group_cols, dropna=False)[time_col].transform("size"))
    return kept, rest, group_cols


def bucket_downsample(frame: pd.DataFrame, time_col: str, keys: list[str], max_points: int,
                      keep: pd.Series | None = None) -> pd.DataFrame:
    """At most about `max_points` rows: per key, one row per time bucket (the first), with `count`.

    Rows flagged in `keep` (exceeded gaps, rewinds ...) always survive, so sparse facts are never
    hidden by density. Small frames come back unchanged with count 1.
    """
    split = _buckets(frame, time_col, keys, max_points, keep)
    if split is None:
        return frame.assign(count=1)
    kept, rest, group_cols = split
    first = rest.drop_duplicates(subset=group_cols, keep="first").drop(columns="_bucket")
    return pd.concat([kept, first]).sort_values(time_col, kind="stable")


def max_downsample(frame: pd.DataFrame, time_col: str, value_col: str, keys: list[str], max_points: int,
                   keep: pd.Series | None = None) -> pd.DataFrame:
    """Like `bucket_downsample` but keeps each bucket's largest value (peaks are what matter)."""
    split = _buckets(frame, time_col, keys, max_points, keep)
    if split is None:
        return frame.assign(count=1)
    kept, rest, group_cols = split
    peaks = rest.sort_values(value_col, ascending=False, kind="stable").drop_duplicates(subset=group_cols)
    return pd.concat([kept, peaks.drop(columns="_bucket")]).sort_values(time_col, kind="stable")


_SHAPE_RULES = [  # most specific first: what varies between lines of one message family
    (re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"), "<*>"),
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?"), "<*>"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b|\b[0-9a-fA-F]{12,}\b"), "<*>"),
    (re.compile(r"\d+"), "<*>"),
    (re.compile(r"(?:<\*>[.:\-]?)+<\*>"), "<*>"),
    (re.compile(r"\s+"), " "),
]


def derive_shape(raw: str | None, limit: int = 160) -> str:
    """A shape for a line the parser left unshaped: ids, times and numbers become <*>."""
    text = str(raw or "")
    for pattern, repl in _SHAPE_RULES:
        text = pattern.sub(repl, text)
    text = text.strip()
    return (text[:limit] + "…") if len(text) > limit else (text or "(empty line)")


def partition_sort_key(name: str) -> tuple[str, int]:
    topic, _, num = str(name).rpartition("-")
    return (topic, int(num)) if num.isdigit() else (str(name), -1)


def exceeded_mask(gaps: pd.DataFrame) -> pd.Series:
    """heartbeat_gaps' `exceeded` as booleans: a gap with no limit known (None) did not exceed one."""
    return gaps["exceeded"].eq(True).fillna(False).astype(bool)


class RunData:
    """One RUN_DIR, loaded lazily and cached (the files do not change while the app runs)."""

    def __init__(self, run_dir: str | Path):
        self.run_dir = Path(run_dir).resolve()
        self.manifest = rundir.load_manifest(self.run_dir)  # raises RunDirError when incomplete
        self._tables: dict[str, pd.DataFrame] = {}
        self._cache: dict[tuple[Any, ...], Any] = {}
        self._lock = threading.Lock()

    # ---- raw tables -------------------------------------------------------------------------
    def table(self, name: str) -> pd.DataFrame:
        """A whole table; `name` must be one of the schema's tables (never a path)."""
        if name not in schemas.TABLES:
            raise KeyError(f"unknown table {name!r}")
        with self._lock:
            if name not in self._tables:
                self._tables[name] = rundir.load_table(self.run_dir, name)
            return self._tables[name]

    def _cached(self, key: tuple[Any, ...], build):
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        value = build()
        with self._lock:
            self._cache[key] = value
        return value

    def group_rows(self, name: str, group: str | None, col: str = "group_id") -> pd.DataFrame:
        """One group's rows of a table, cached (the group page asks for them on every zoom)."""
        def build() -> pd.DataFrame:
            frame = self.table(name)
            return frame[frame[col] == group] if group is not None else frame.iloc[0:0]
        return self._cached(("group_rows", name, group), build)

    def group_events(self, group: str) -> pd.DataFrame:
        """A group's events with `actor`: the member the line speaks for.

        Most client lines carry only a client id (the member id shows on join/sync lines), so a line
        without one speaks for the member id its own process (same source and client id) logged
        last, or next when none came before. Failing that: the client id, else, for client-side
        lines, `consumer@<source>`, the replay's name for a process that logs no member id.
        """
        def build() -> pd.DataFrame:
            evs = self.group_rows("events", group)
            out = self._left_out_rows(group)
            if evs["member_id"].notna().all() and not out.any():
                return evs.assign(actor=evs["member_id"])
            evs = evs.assign(_out=out).sort_values(["source", "line_no"], kind="stable")
            # a process: one file's lines of one client id, and of one origin in a file of several
            # (pipeline/group_tables.py ORIGIN_KEY: pods merged by `kubectl logs --prefix` share client ids)
            origin = self._origins(evs)
            process = pd.factorize(pd.MultiIndex.from_arrays([evs["source"], evs["client_id"].fillna(""),
                                                              origin.fillna("")]))[0]
            client = evs["side"] == "client"
            with pd.option_context("future.no_silent_downcasting", True):
                known = evs["member_id"].where(client).groupby(process)
                inferred = known.ffill().fillna(known.bfill())
                fallback = ("consumer@" + evs["source"].astype(str)).where(client)
                actor = evs["member_id"].fillna(inferred).fillna(evs["client_id"]).fillna(fallback)
            # the lines of a stream the replay leaves out (several consumers under one client id) speak
            # for no member, not even a member id they name: as in the replay and the tables
            actor = actor.mask(evs["_out"])
            return evs.drop(columns="_out").assign(actor=actor)
        return self._cached(("group_events", group), build)

    @staticmethod
    def _origins(evs: pd.DataFrame) -> pd.Series:
        """Each row's origin (group_tables.origin_of of its extra_json), None when it names none."""
        from pipeline.group_tables import origin_of

        if "extra_json" not in evs:
            return pd.Series([None] * len(evs), index=evs.index, dtype=object)
        texts = evs["extra_json"].where(evs["extra_json"].notna(), None)
        per = {t: origin_of(t) for t in set(texts.dropna().tolist())}
        return texts.map(lambda t: per.get(t) if isinstance(t, str) else None).astype(object)

    def _left_out_rows(self, group: str) -> pd.Series:
        """Which of the group's events rows are of a client stream the replay leaves out: a file's
        lines of several consumers under one client id with no origin to tell them apart
        (pipeline/group_series.left_out_streams: the same proof on the same rows as the ingest's
        tables and the replay's finding)."""
        def build() -> pd.Series:
            import pyarrow as pa

            from pipeline import group_series, group_tables

            evs = self.group_rows("events", group)
            cols = [c for c in group_tables.LEFT_OUT_COLUMNS if c != "origin"] + ["extra_json"]
            if evs.empty or not (evs["side"] == "client").any():
                return pd.Series(False, index=evs.index)
            frame = {c: (evs[c].astype(object).where(evs[c].notna(), None).tolist() if c in evs
                         else [None] * len(evs)) for c in cols}
            table = pa.table({c: pa.array(v, schemas.arrow_schema("events").field(c).type) for c, v in frame.items()})
            keys = group_series.left_out_streams(table)
            if not keys:
                return pd.Series(False, index=evs.index)
            origin = self._origins(evs)
            key = pd.Series(list(zip(evs["client_id"].astype(object).where(evs["client_id"].notna(), None),
                                     evs["source"], origin, strict=True)), index=evs.index)
            return (evs["side"] == "client") & key.isin(keys)
        return self._cached(("left_out_rows", group), build)

    def left_out(self, group: str) -> list[dict[str, Any]]:
        """The group's client streams left out (_left_out_rows), one dict each: source, client_id,
        origin, lines (how many of the group's lines), members (the member ids its lines name)."""
        def build() -> list[dict[str, Any]]:
            evs = self.group_rows("events", group)
            rows = evs[self._left_out_rows(group)]
            if rows.empty:
                return []
            rows = rows.assign(_origin=self._origins(rows).fillna(""), _client=rows["client_id"].fillna(""))
            out = []
            for (source, client, origin), part in rows.groupby(["source", "_client", "_origin"], sort=True):
                out.append({"source": source, "client_id": client or None, "origin": origin or None,
                            "lines": len(part), "members": sorted(set(part["member_id"].dropna()))})
            return out
        return self._cached(("left_out", group), build)

    # ---- overview ----------------------------------------------------------------------------
    def groups(self) -> list[str]:
        def build() -> list[str]:
            # the report's set of groups (pipeline/figures.py)
            return figures.all_groups(*(self.table(t) for t in ("generations", "findings", "offset_commits", "events")))
        return self._cached(("groups",), build)

    def group_summary(self) -> pd.DataFrame:
        """One row per group: rebalances, time spent rebalancing, members seen, findings by severity."""
        return self._cached(("group_summary",), self._build_group_summary)

    def _build_group_summary(self) -> pd.DataFrame:
        gens = self.table("generations")
        mems = self.table("memberships")
        evs = self.table("events")
        fnd = self.table("findings")
        out = pd.DataFrame({"group_id": self.groups()}).set_index("group_id")
        # the counts every view shows come from pipeline/figures.py (the report's too)
        figs = figures.figures_by_group(list(out.index), gens, mems, fnd)
        out["generations"] = pd.Series({k: f["generations_seen"] for k, f in figs.items()})
        out["rebalances"] = pd.Series({k: f["rebalances"] for k, f in figs.items()})
        out["rebalancing_ms"] = pd.Series({k: f["rebalance_ms_total"] for k, f in figs.items()})
        out["rebalances_timed"] = pd.Series({k: f["rebalances_timed"] for k, f in figs.items()})
        out["members_seen"] = pd.Series({k: len(f["members_seen"]) for k, f in figs.items()})
        out["expelled"] = pd.Series({k: len(f["expelled"]) for k, f in figs.items()})
        out["reprocessed_offsets"] = pd.Series({k: f["reprocessed_offsets"] for k, f in figs.items()})
        out["skipped_offsets"] = pd.Series({k: f["skipped_offsets"] for k, f in figs.items()})
        out["events"] = evs.groupby("group_id").size()
        out["first_ms"] = evs.groupby("group_id")["ts_ms"].min()
        out["last_ms"] = evs.groupby("group_id")["ts_ms"].max()
        for sev in schemas.SEVERITIES:
            out[sev] = pd.Series({k: f["findings_by_severity"][sev] for k, f in figs.items()})
        counts = ["generations", "rebalances", "members_seen", "expelled", "reprocessed_offsets", "skipped_offsets",
                  "events", "rebalancing_ms", "rebalances_timed", *schemas.SEVERITIES]
        out[counts] = out[counts].fillna(0).astype("int64")
        return out.reset_index()

    # ---- group page ----------------------------------------------------------------------------
    def group_extent(self, group: str) -> tuple[int | None, int | None]:
        def build() -> tuple[int | None, int | None]:
            times: list[pd.Series] = [self.group_rows("events", group)["ts_ms"]]
            gens = self.group_rows("generations", group)
            times += [gens["started_ms"], gens["stabilized_ms"], gens["ended_ms"]]
            allt = pd.concat(times).dropna()
            return (int(allt.min()), int(allt.max())) if len(allt) else (None, None)
        return self._cached(("extent", group), build)

    def generation_phases(self, group: str) -> pd.DataFrame:
        """Generations with their phase boundaries: preparing -> completing -> stable.

        Completing (CompletingRebalance) begins when the join phase ends, which a log shows as the
        last member's join response of that generation; without it the two phases are drawn as one.
        """
        def build() -> pd.DataFrame:
            gens = self.group_rows("generations", group).sort_values(["generation"]).copy()
            mems = self.group_rows("memberships", group)
            joined = mems.groupby("generation")["joined_ms"].max()
            gens["completing_ms"] = gens["generation"].map(joined)
            bad = gens["completing_ms"].notna() & (
                (gens["started_ms"].notna() & (gens["completing_ms"] < gens["started_ms"]))
                | (gens["stabilized_ms"].notna() & (gens["completing_ms"] > gens["stabilized_ms"])))
            gens.loc[bad, "completing_ms"] = np.nan
            return gens.reset_index(drop=True)
        return self._cached(("phases", group), build)

    def lane_events(self, group: str) -> pd.DataFrame:
        """A group's member events classified into lane categories (cached; zooms reuse it)."""
        def build() -> pd.DataFrame:
            evs = self.group_events(group)
            evs = evs[evs["ts_ms"].notna() & evs["actor"].notna()]
            cols = ["source", "line_no", "ts_ms", "kind", "member_id", "client_id", "reason", "generation", "actor"]
            frame = evs[cols].sort_values("ts_ms", kind="stable").reset_index(drop=True)
            frame["lane"] = frame["actor"]
            cat = frame["kind"].map(LANE_CATEGORIES).fillna("other")
            leaving = frame["kind"].isin(["broker_member_removed", "leave_group"])
            expired = np.zeros(len(frame), dtype=bool)
            expired[leaving.to_numpy()] = frame.loc[leaving, "reason"].fillna("").astype(str).str.contains(
                "expir|timeout|timed out", case=False, regex=True).to_numpy(dtype=bool)
            frame["category"] = cat.mask(expired, "expiry")
            return frame
        return self._cached(("lane_events", group), build)

    def lane_points(self, group: str, since: int | None, until: int | None,
                    max_points: int = DEFAULT_MAX_POINTS) -> pd.DataFrame:
        """Events of one group as lane markers (member x category), bucketed when dense."""
        frame = self.lane_events(group)
        if since is not None or until is not None:
            t = frame["ts_ms"].to_numpy()
            lo = 0 if since is None else int(np.searchsorted(t, since, side="left"))
            hi = len(t) if until is None else int(np.searchsorted(t, until, side="right"))
            frame = frame.iloc[lo:hi]
        sparse = ~frame["category"].isin(["heartbeat", "commit", "other"])
        return bucket_downsample(frame, "ts_ms", ["lane", "category"], max_points, keep=sparse)

    def ownership_grid(self, group: str, since: int | None, until: int | None,
                       buckets: int = HEATMAP_BUCKETS) -> dict[str, Any]:
        """Who owned each partition at each of `buckets` instants across the window.

        Returns {"times": [ms], "partitions": [topic-N], "members": [id], "z": [[member index|None]],
        "inferred": [[bool]], "owners": [[[member index]]]}: z is len(members) where two or more
        members owned the partition at once (every owner is in `owners`).
        """
        own = self.group_rows("ownership", group)
        lo, hi = self.group_extent(group)
        since = since if since is not None else lo
        until = until if until is not None else hi
        empty: dict[str, Any] = {"times": [], "partitions": [], "members": [], "z": []}
        if own.empty or since is None or until is None or until <= since:
            return empty
        own = overlapping(own, "start_ms", "end_ms", since, until)
        if own.empty:
            return empty
        width = (until - since) / buckets
        times = np.array([since + width * (i + 0.5) for i in range(buckets)])
        names = (own["topic"].astype(str) + "-" + own["partition"].astype("Int64").astype(str))
        own = own.assign(_p=names.values)
        partitions = sorted(own["_p"].unique().tolist(), key=partition_sort_key)
        own = own.assign(_owner=own["member_id"].fillna(own["client_id"]).fillna(UNNAMED))
        members = sorted(own["_owner"].unique().tolist())
        index = {m: i for i, m in enumerate(members)}
        z: list[list[int | None]] = []
        guessed: list[list[bool]] = []   # the cell's interval is inferred (the replay's, from the generations)
        inferred = own["inferred"] if "inferred" in own else pd.Series(False, index=own.index)
        own = own.assign(_inferred=inferred.fillna(False).astype(bool))
        several = len(members)   # z of a cell two or more members owned at once (double ownership)
        owners: list[list[list[int]]] = []
        for p in partitions:
            rows = own[own["_p"] == p]
            start = rows["start_ms"].fillna(-(2**62)).to_numpy(dtype="int64")
            end = rows["end_ms"].fillna(2**62).to_numpy(dtype="int64")
            who = [index[m] for m in rows["_owner"]]
            flag = rows["_inferred"].tolist()
            # every interval covering each instant (not only the latest started: an interval that
            # began earlier and is still open owns the partition too, and two at once is a double)
            cover = (start[:, None] <= times[None, :]) & (times[None, :] <= end[:, None])
            line: list[int | None] = []
            marks: list[bool] = []
            cells: list[list[int]] = []
            for j in range(len(times)):
                ks = np.flatnonzero(cover[:, j])
                ids = sorted({who[k] for k in ks})
                line.append(None if not ids else ids[0] if len(ids) == 1 else several)
                marks.append(bool(ks.size) and all(flag[k] for k in ks))
                cells.append(ids)
            z.append(line)
            guessed.append(marks)
            owners.append(cells)
        return {"times": times.astype("int64").tolist(), "partitions": partitions, "members": members, "z": z,
                "inferred": guessed, "owners": owners}

    def findings(self, group: str | None = None) -> pd.DataFrame:
        fnd = self.table("findings") if group is None else self.group_rows("findings", group)
        order = {s: i for i, s in enumerate(schemas.SEVERITIES)}
        return fnd.assign(_o=fnd["severity"].map(order).fillna(len(order))).sort_values(
            ["_o", "start_ms"]).drop(columns="_o")

    def finding(self, finding_id: str) -> dict[str, Any] | None:
        fnd = self.table("findings")
        rows = fnd[fnd["finding_id"] == finding_id]
        return rows.iloc[0].to_dict() if len(rows) else None

    # ---- evidence ------------------------------------------------------------------------------
    def _line_index(self) -> pd.Series:
        def build() -> pd.Series:
            parts = [self.table(t)[["source", "line_no", "raw"]] for t in ("events", "unparsed")]
            lines = pd.concat(parts).dropna(subset=["source", "line_no"])
            lines = lines.drop_duplicates(subset=["source", "line_no"])
            return lines.set_index(["source", "line_no"])["raw"].sort_index()
        return self._cached(("line_index",), build)

    def evidence_lines(self, refs: Iterable[str]) -> pd.DataFrame:
        """The raw text of each `source:line_no` reference (text missing when the run lacks it)."""
        index = self._line_index()
        rows = []
        for ref in refs if refs is not None else []:
            parsed = split_evidence(ref)
            raw = None
            if parsed is not None and parsed in index.index:
                raw = index.loc[parsed]
                raw = raw.iloc[0] if isinstance(raw, pd.Series) else raw
            rows.append({"ref": str(ref), "raw": raw})
        return pd.DataFrame(rows, columns=["ref", "raw"])

    # ---- member page ---------------------------------------------------------------------------
    def members(self, group: str) -> list[str]:
        mems = self.group_rows("memberships", group)["member_id"]
        evs = self.group_events(group)["actor"]
        return sorted(set(mems.dropna()) | set(evs.dropna()))

    def member_gaps(self, group: str, member: str, since: int | None, until: int | None,
                    max_points: int = DEFAULT_MAX_POINTS) -> pd.DataFrame:
        gaps = self.group_rows("heartbeat_gaps", group)
        gaps = gaps[gaps["member_id"] == member]
        gaps = overlapping(gaps, "start_ms", "end_ms", since, until)
        return max_downsample(gaps, "end_ms", "gap_ms", ["kind"], max_points,
                              keep=exceeded_mask(gaps))

    def member_memberships(self, group: str, member: str) -> pd.DataFrame:
        mems = self.group_rows("memberships", group)
        return mems[mems["member_id"] == member].sort_values("generation")

    def member_events(self, group: str, member: str, since: int | None = None, until: int | None = None,
                      kind: str | None = None) -> pd.DataFrame:
        evs = self.group_events(group)
        evs = evs[evs["actor"] == member]
        if since is not None or until is not None:
            evs = in_window(evs, "ts_ms", since, until)
        if kind:
            evs = evs[evs["kind"] == kind]
        return evs.sort_values(["ts_ms", "source", "line_no"], na_position="first")

    # ---- offsets -------------------------------------------------------------------------------
    def offset_partitions(self, group: str) -> pd.DataFrame:
        """Per topic-partition commit summary for a group."""
        oc = self.group_rows("offset_commits", group)
        if oc.empty:
            return pd.DataFrame(columns=["partition_name", "commits", "rewinds", "skips", "resets", "last_offset"])
        oc = oc.assign(partition_name=oc["topic"].astype(str) + "-" + oc["partition"].astype(str))
        g = oc.sort_values("ts_ms").groupby("partition_name")
        # ranges counted from the replay's findings, as on the group's findings and in the report
        fnd = self.group_rows("findings", group)
        per_part: dict[tuple[str, str], int] = {}
        for what, kind in (("rewinds", "offset_rewind"), ("skips", "offset_skip")):
            for r in figures.offset_ranges(fnd, kind):
                key = (what, f"{r['topic']}-{r['partition']}")
                per_part[key] = per_part.get(key, 0) + 1
        out = pd.DataFrame({
            "commits": g.size(),
            "resets": g["flag"].apply(lambda s: int((s == "reset").sum())),
            "last_offset": g["offset"].last(),
        })
        out.insert(1, "rewinds", [per_part.get(("rewinds", n), 0) for n in out.index])
        out.insert(2, "skips", [per_part.get(("skips", n), 0) for n in out.index])
        out = out.reset_index()
        return out.iloc[sorted(range(len(out)), key=lambda i: partition_sort_key(out["partition_name"][i]))]

    def offset_history(self, group: str, topic: str, partition: int, since: int | None = None,
                       until: int | None = None) -> pd.DataFrame:
        oc = self.group_rows("offset_commits", group)
        oc = oc[(oc["topic"] == topic) & (oc["partition"] == partition)]
        return in_window(oc, "ts_ms", since, until).sort_values("ts_ms", kind="stable")

    def offset_ranges(self, group: str, topic: str, partition: int, since: int | None = None,
                      until: int | None = None) -> pd.DataFrame:
        """The reprocessed and skipped offset ranges of one partition, half-open [from, to): the
        replay's findings, as the report lists them (pipeline/figures.py), with estimated ones said."""
        fnd = self.group_rows("findings", group)
        rows = []
        for what, kind in (("reprocessed", "offset_rewind"), ("skipped", "offset_skip")):
            for r in figures.offset_ranges(fnd, kind):
                if r["topic"] != topic or r["partition"] != partition:
                    continue
                ts = r["start_ms"]
                if ts is not None and ((since is not None and ts < since) or (until is not None and ts > until)):
                    continue
                rows.append({"what": what + (" (estimated)" if r["estimated"] else ""),
                             "from_offset": r["from_offset"], "to_offset": r["to_offset"], "count": r["count"],
                             "ts_ms": ts, "member_id": r["member_id"], "evidence": ", ".join(r["evidence"])})
        rows.sort(key=lambda x: (x["ts_ms"] or 0, x["from_offset"]))
        return pd.DataFrame(rows, columns=["what", "from_offset", "to_offset", "count", "ts_ms", "member_id",
                                           "evidence"])

    # ---- who owned P at T ----------------------------------------------------------------------
    def partitions(self, group: str) -> list[str]:
        own = self.group_rows("ownership", group)
        oc = self.group_rows("offset_commits", group)
        names = set((own["topic"].astype(str) + "-" + own["partition"].astype(str)).tolist())
        names |= set((oc["topic"].astype(str) + "-" + oc["partition"].astype(str)).tolist())
        return sorted(names, key=partition_sort_key)

    def unowned(self, group: str) -> dict[str, Any]:
        """pipeline.figures.unowned_figure of one group: the report's "partition-seconds with no owner
        in the logs" (with its estimated part and why) for this group, computed the same way."""
        def build() -> dict[str, Any]:
            evs = self.group_rows("events", group)
            members = set(evs.loc[evs["side"] == "client", "member_id"].dropna().unique())
            return figures.unowned_figure(self.group_rows("ownership", group), self.group_rows("memberships", group),
                                          self.group_rows("generations", group), members,
                                          self.group_rows("findings", group))
        return self._cached(("unowned", group), build)

    def owner_at(self, group: str, topic: str, partition: int, at_ms: int) -> dict[str, Any]:
        """The ownership intervals covering `at_ms` (`owners`: more than one when two members owned
        the partition at once, a zombie and its successor), the latest of them (`owner`, or None),
        and the intervals either side."""
        own = self.group_rows("ownership", group)
        own = own[(own["topic"] == topic) & (own["partition"] == partition)].sort_values("start_ms")
        start = own["start_ms"].fillna(-(2**62))
        end = own["end_ms"].fillna(2**62)
        hit = own[(start <= at_ms) & (at_ms <= end)]
        before = own[end < at_ms].tail(1)
        after = own[start > at_ms].head(1)
        return {
            "owners": [r.to_dict() for _, r in hit.iterrows()],
            "owner": hit.iloc[-1].to_dict() if len(hit) else None,
            "previous": before.iloc[0].to_dict() if len(before) else None,
            "next": after.iloc[0].to_dict() if len(after) else None,
        }

    # ---- unparsed ------------------------------------------------------------------------------
    def _shapes(self, un: pd.DataFrame) -> pd.Series:
        """The parser's shape, or one derived from the raw text when it left none (cached)."""
        derived = self._cached(("derived_shapes",), lambda: self.table("unparsed")["raw"].map(derive_shape))
        return un["shape"].fillna(derived.reindex(un.index))

    def unparsed_shapes(self) -> pd.DataFrame:
        def build() -> pd.DataFrame:
            un = self.table("unparsed")
            if un.empty:
                return pd.DataFrame(columns=["shape", "lines", "sources", "why", "example"])
            un = un.assign(shape=self._shapes(un))
            g = un.sort_values(["source", "line_no"]).groupby("shape")
            out = pd.DataFrame({
                "lines": g.size(),
                "sources": g["source"].nunique(),
                "why": g["why"].agg(lambda s: ", ".join(sorted(set(s.dropna().astype(str))))),
                "example": g["raw"].first(),
            }).reset_index().sort_values(["lines", "shape"], ascending=[False, True])
            return out
        return self._cached(("unparsed_shapes",), build)

    def unparsed_lines(self, shape: str | None = None, contains: str | None = None) -> pd.DataFrame:
        un = self.table("unparsed")
        if shape:
            un = un[self._shapes(un) == shape]
        if contains:
            un = un[un["raw"].fillna("").str.contains(contains, case=False, regex=False)]
        return un.sort_values(["source", "line_no"])


def manifest_sections(manifest: dict[str, Any]) -> tuple[list[dict[str, str]], dict[str, list[dict[str, Any]]]]:
    """The manifest as (flat key/value rows, {name: table rows}) for display.

    The manifest's exact keys belong to the ingest job; lists of objects (inputs, rejects) become
    tables and everything else a dotted key -> value list, so new keys show up without code changes.
    """
    flat: list[dict[str, str]] = []
    tables: dict[str, list[dict[str, Any]]] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for k in sorted(value):
                walk(f"{prefix}.{k}" if prefix else str(k), value[k])
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            tables[prefix] = [{k: _time_cell(k, v) for k, v in row.items()} for row in value]
        else:
            flat.append({"key": prefix, "value": _cell(value)})

    walk("", manifest)
    return flat, tables


def _time_cell(key: str, value: Any) -> Any:
    """A table cell; an epoch-ms column (`..._ms` holding a time since 1973) as its ISO time, not a
    number a table would print as 1.71e+12."""
    if key.endswith("_ms") and isinstance(value, int) and not isinstance(value, bool) and value > 10**11:
        return iso(value)
    return _cell(value)


def _cell(value: Any) -> Any:
    """A value as a table cell reads it: a mapping as 'key: value' pairs, a list as its items
    (never raw JSON on a page)."""
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_cell(v)}" for k, v in sorted(value.items())) or "none"
    if isinstance(value, list):
        return ", ".join(str(_cell(v)) for v in value)
    return value
