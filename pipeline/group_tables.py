"""The per-group tables as pure functions: heartbeat_gaps, offset_commits and the observed
ownership intervals of one consumer group, from that group's `events` rows.

These are the same computations as the Spark window code of `pipeline/spark/tables.py`
(`heartbeat_gaps`, `offset_commits`, `ownership`, `name_unnamed_owners`), row for row; the ingest
runs them inside its one per-group pass (pipeline/spark/group_pass.py) next to the replay, so
the tables need no window shuffle of their own. docs/replay.md describes what each row means.
heartbeat_gaps and offset_commits are computed column-wise on pyarrow Tables
(pipeline/group_series.py, `series_tables`, which also gives all three tables of a group's columns:
`group_tables`); the rules' constants and per-value helpers are here, and group_series imports
them (this module imports nothing of group_series).

Input: `cols`, a dict of column name -> list of values (the group's rows of the events table:
pyarrow's `Table.to_pydict()` of at least GROUP_COLUMNS). Every row given must have the same
`group_id` (not null). Orders follow the Spark windows: `ts_ms` with nulls first, then the keys
the windows sort by; every window here has a unique order inside its partition (a line number is
unique in its file), so the results do not depend on the order of the rows given.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

# Kafka defaults (ConsumerConfig): session.timeout.ms 45000 since 3.0 (KIP-735), 10000 from
# 0.10.1 (KIP-62) to 2.8, 30000 before; mirrors pipeline.replay_rules.settings.defaults_for.
SESSION_TIMEOUT_MS = 45_000
SESSION_TIMEOUT_MS_PRE_3_0 = 10_000
MIN_GAP_MS = 1_000
HEARTBEAT_KINDS = frozenset(("heartbeat_succeeded", "heartbeat_sent", "heartbeat_failed"))
DEBUG_HEARTBEAT_KINDS = frozenset(("heartbeat_succeeded", "heartbeat_sent"))
# librdkafka lines a binding hands to a Python logger through its log queue are printed when the
# application next polls (confluent_kafka.c log.queue=true; pipeline/replay_rules/reasons.py
# delivered_late): the gaps between their heartbeat lines are poll gaps, not heartbeat gaps. Both
# words are in the event's extra_json (parsers/foreign/librdkafka.py); tables.py uses the same.
PRINTED_LATE_MARKERS = ('"binding": "python"', '"librdkafka_rule"')


# A file of several processes' lines (`kubectl logs -l app --prefix`, stern, a collector's JSON,
# syslog headers, Spring Boot's PID: parsers/origin.py) names each line's origin in extra_json. Its
# consumers often share a client id (client.id unset: "consumer-<group>-1" in every JVM,
# ConsumerConfig's per-JVM counter), so a client stream here is (client_id, source, origin): one
# process's lines, as the replay reads them (replay_rules.state.stream_namer). A process restarted
# into the same file with a new PID is a new stream: a new consumer, not a silence of the old one.
ORIGIN_KEY = '"origin"'


def origin_of(extra_json: str | None) -> str | None:
    """The line's origin (Event.extra "origin") from its extra_json; None when it names none."""
    if not extra_json or ORIGIN_KEY not in extra_json:
        return None
    try:
        v = json.loads(extra_json).get("origin")
    except (ValueError, AttributeError):
        return None
    return v if isinstance(v, str) else None


def origin_only(extra_json: str | None) -> str | None:
    """extra_json cut to its origin (what the series tables read of a line that is no setting):
    '{"origin":"..."}', or None when it names none."""
    o = origin_of(extra_json)
    return None if o is None else json.dumps({"origin": o}, separators=(",", ":"))


# A file of several processes' lines that names no origin (logs concatenated, merged by a collector
# in arrival order) is one stream under their shared client id: the replay proves it of several
# consumers and leaves its lines out, with a finding (pipeline/replay_rules/mixed_streams.py). These
# tables leave the same lines out, by the same proof on the same rows (`left_out_streams`): a gap or
# an interval measured between two processes' lines is no fact about either, and the views must not
# state what the replay calls unknown (docs/replay.md, "Several processes in one file").
LEFT_OUT_COLUMNS = ("source", "line_no", "ts_ms", "side", "kind", "client_id", "member_id", "instance_id",
                    "generation", "group_type", "origin")


class _Line:
    """What mixed_streams and stream_namer read of a client line (an Event's attributes)."""

    __slots__ = ("source", "line_no", "ts_ms", "side", "kind", "client_id", "member_id", "instance_id",
                 "generation", "group_type", "extra")

    def __init__(self, source, line_no, ts_ms, side, kind, client_id, member_id, instance_id, generation,
                 group_type, origin) -> None:
        self.source, self.line_no, self.ts_ms, self.side, self.kind = source, line_no, ts_ms, side, kind
        self.client_id, self.member_id, self.instance_id = client_id, member_id, instance_id
        self.generation, self.group_type = generation, group_type
        self.extra = {"origin": origin} if origin is not None else {}

    @property
    def evidence(self) -> str:
        return evidence(self.source, self.line_no)


def left_out_streams(cols: dict[str, list[Any]]) -> frozenset[tuple[Any, Any, Any]]:
    """The client streams (client_id, source, origin) whose lines the replay leaves out: those of a
    stream (its file, or "FILE [ORIGIN]" in a file split by its lines' origins: state.stream_namer)
    proven of several processes (replay_rules.mixed_streams). `cols`: LEFT_OUT_COLUMNS of one
    group's rows (lists of values). Only the client rows naming a member, an instance, an origin or
    a join take part in the proof, and a stream is named by any of its rows: those suffice when
    their untimed lines already have the time of the line before them in their file (as the replay
    gives it: group_series.left_out_streams). In the replay's order: (time, source, line)."""
    from pipeline.replay_rules.mixed_streams import mixed_streams
    from pipeline.replay_rules.state import stream_namer

    n = len(cols.get("source") or ())
    empty = [None] * n
    every = [_Line(*vals) for vals in zip(*(cols.get(c) or empty for c in LEFT_OUT_COLUMNS), strict=True)]
    if not any(x.side == "client" for x in every):
        return frozenset()
    # (replay_rules.collect.dedupe_and_order: an untimed line takes the time of the line before it in
    # its file, whatever its side)
    every.sort(key=lambda x: (x.source or "", x.line_no if x.line_no is not None else -1))
    last: dict[Any, Any] = {}
    for x in every:
        if x.ts_ms is None:
            x.ts_ms = last.get(x.source)
        else:
            last[x.source] = x.ts_ms
    lines = [x for x in every if x.side == "client"]
    lines.sort(key=lambda x: (-1 if x.ts_ms is None else x.ts_ms, x.source or "",
                              x.line_no if x.line_no is not None else -1))
    name = stream_namer(lines)
    mixed = mixed_streams(lines, name)
    if not mixed:
        return frozenset()
    return frozenset((x.client_id, x.source, x.extra.get("origin")) for x in lines
                     if (name(x), x.client_id) in mixed)


def printed_late(extra_json: str | None) -> bool:
    return extra_json is not None and all(w in extra_json for w in PRINTED_LATE_MARKERS)
# broker removal wordings of an expiry (GroupCoordinator.onExpireHeartbeat 0.11.0.1+, GroupMetadataManager 3.6+)
# (4.x consumer protocol: "Member X fenced from the group because the member session expired.")
# the coordinator's line for a member's own LeaveGroup: GroupCoordinator.handleLeaveGroup / removeMemberAndUpdateGroup,
# "Member M in group G has left, removing it from the group" (0.10 to 3.1), "Member M has left group G through
# explicit `LeaveGroup`; client reason: ..." (3.2+, KIP-800)
LEAVE_PATTERN = re.compile(r"has left, removing it from the group|through explicit `LeaveGroup`")
EXPIRY_PATTERN = re.compile(r"has failed|heartbeat expiration|session timeout expiration|member session expired")
EXPIRY_SKEW_MS = 2_000
COMMIT_KINDS = frozenset(("offset_committed", "offset_record"))
HISTORY_KINDS = COMMIT_KINDS | {"offset_reset", "offset_fetched", "offset_seek", "describe_row"}
OWNERSHIP_START = frozenset(("partitions_assigned",))
OWNERSHIP_END = frozenset(("partitions_revoked", "partitions_lost"))
MEMBER_END = frozenset(("leave_group", "member_fenced", "poll_timeout", "generation_reset"))
# The member ends that end an interval only when no lost or revoked callback of the partition follows
# them in the stream (before its next assignment): a fenced member (4.x consumer protocol:
# AbstractMembershipManager.transitionToFenced, 3.7+, clears its assignment when the onPartitionsLost
# callback completes; classic: a generation reset by a fencing error, whose partitions
# ConsumerCoordinator.onJoinPrepare gives up as lost at the next poll, 2.4+) holds its partitions
# until that callback; the replay's intervals end there too (replay_rules/collect.py closes
# intervals on callbacks, not on these lines).
RELEASED_BY_CALLBACK = frozenset(("member_fenced", "generation_reset"))

# (instance_id and group_type: what the mixed-stream proof reads, left_out_streams)
GROUP_COLUMNS = ("source", "line_no", "ts_ms", "side", "kind", "group_id", "client_id", "member_id", "generation",
                 "partitions", "topic", "partition", "offset", "kafka_version_hint", "raw", "extra_json",
                 "instance_id", "group_type")
# What heartbeat_gaps and offset_commits read (`series_tables`): no partitions; `raw` of the
# broker removals (expiry wording) and offset resets (their 0.9-1.0 wording) only, `extra_json`
# of client_config lines and of heartbeat lines printed late (printed_late) only. The ingest ships a group's rows to those two tables in that width
# (pipeline/spark/group_pass.py); what the tables return is the same as with the whole rows.
SERIES_COLUMNS = tuple(c for c in GROUP_COLUMNS if c != "partitions")
SERIES_RAW_KINDS = ("broker_member_removed", "broker_member_fenced", "offset_reset")
SERIES_EXTRA_KINDS = ("client_config",)
# What observed ownership reads (`ownership`).
# ("origin": the line's origin, origin_of its extra_json, given as its own column: ownership's rows
# are taken without their extra_json)
OWNERSHIP_COLUMNS = ("source", "line_no", "ts_ms", "side", "kind", "group_id", "client_id", "member_id",
                     "generation", "partitions", "origin")

# Java's \d is ASCII only: [0-9]
_VERSION = re.compile(r"^([0-9]+)\.([0-9]+)(?:\.([0-9]+))?")
_TP = re.compile(r"^(.*)-([0-9]+)$")


def evidence(source: str | None, line_no: int | None) -> str:
    """"source:line" (Spark's concat_ws: a missing part is left out)."""
    return ":".join(str(p) for p in (source, line_no) if p is not None)


def session_limit(version_hint: str | None) -> int:
    """Kafka's default session.timeout.ms for a client version string (tables.session_limit)."""
    m = _VERSION.match(version_hint or "")
    if m is None:
        return SESSION_TIMEOUT_MS
    v = int(m.group(1)) * 1_000_000 + int(m.group(2)) * 1_000 + int(m.group(3) or 0)
    if v < 10_001:
        return 30_000
    return SESSION_TIMEOUT_MS_PRE_3_0 if v < 3_000_000 else SESSION_TIMEOUT_MS


def printed_session(kind: str | None, extra_json: str | None) -> int | None:
    """A client_config line's printed session.timeout.ms (get_json_object ... cast bigint)."""
    if kind != "client_config" or not extra_json:
        return None
    try:
        v = json.loads(extra_json)["settings"]["session.timeout.ms"]
    except (ValueError, TypeError, KeyError):
        return None
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, float):
        return int(v) if v == v and abs(v) < 2**63 else None
    try:
        n = v if isinstance(v, int) else int(str(v).strip())
    except ValueError:
        return None
    # a number no bigint holds is no setting (Spark's cast gives null; the column is a bigint)
    return n if -(2**63) <= n < 2**63 else None


def _hint(h: str | None) -> str | None:
    return h if h is not None and ".." not in h else None


def _max(a: Any, b: Any) -> Any:
    if a is None:
        return b
    return a if b is None or a >= b else b


def _min(a: Any, b: Any) -> Any:
    if a is None:
        return b
    return a if b is None or a <= b else b


def _ts_first(ts: int | None) -> tuple[bool, int]:
    """Sort key of a time ascending with nulls first."""
    return (ts is not None, ts or 0)


def _rows(cols: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Row dicts of GROUP_COLUMNS and "origin" (given, or read from extra_json)."""
    names = [c for c in (*GROUP_COLUMNS, "origin") if c in cols]
    n = len(cols[names[0]]) if names else 0
    empty = [None] * n
    origins = cols.get("origin")
    if origins is None:
        origins = [origin_of(x) for x in cols.get("extra_json", empty)]
    return [dict(zip((*GROUP_COLUMNS, "origin"), vals, strict=True))
            for vals in zip(*(cols.get(c, empty) for c in GROUP_COLUMNS), origins, strict=True)]


def _with_member_context(rows: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str | None, int | None]]:
    """(row, ctx_member, ctx_generation) per row: the last member id and generation seen by the
    same client stream (client_id, source, origin) up to and including the row
    (tables.with_member_context)."""
    streams: dict[tuple[Any, Any, Any], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        streams[(r["client_id"], r["source"], r.get("origin"))].append(r)
    out = []
    for stream in streams.values():
        stream.sort(key=lambda r: (*_ts_first(r["ts_ms"]), r["line_no"] if r["line_no"] is not None else -1))
        member = gen = None
        for r in stream:
            if r["member_id"] is not None:
                member = r["member_id"]
            if r["generation"] is not None:
                gen = r["generation"]
            out.append((r, member, gen))
    return out


class StreamLines:
    """One client stream's timed lines (sorted times and their line numbers) and the times its
    consumer was created (client_config: ConsumerConfig values)."""

    def __init__(self, times: Any, line_nos: Any, created: Any) -> None:
        self.times, self.line_nos, self.created = times, line_nos, created

    def last_before(self, start: int, until: int | None) -> tuple[int, int] | None:
        """(time, line_no) of the stream's last line at or after `start`, before `until` and before
        the consumer's next creation after `start`; None when there is none."""
        import numpy as np

        bound = until
        k = int(np.searchsorted(self.created, start, side="right"))
        if k < len(self.created) and (bound is None or self.created[k] < bound):
            bound = int(self.created[k])
        hi = len(self.times) if bound is None else int(np.searchsorted(self.times, bound, side="left"))
        if hi == 0 or self.times[hi - 1] < start:
            return None
        return int(self.times[hi - 1]), int(self.line_nos[hi - 1])

    def recreated_after(self, start: int) -> bool:
        """Whether the stream's consumer was created again after `start` (a restart: the process
        that held what it was given at `start` is gone)."""
        import numpy as np

        return int(np.searchsorted(self.created, start, side="right")) < len(self.created)


def streams_lines(table: Any, origins_of: Any) -> dict[tuple[Any, Any, Any], StreamLines]:
    """(client_id, source, origin) -> StreamLines of a group's events rows (a pyarrow Table;
    `origins_of` is group_series.origins). Column-wise on integer codes: the string columns are
    never copied or sorted as strings (a hot group's rows are hundreds of thousands: sorting a
    plain copy of them was its worker's memory peak), one numpy sort, no Python row per line."""
    import numpy as np
    import pyarrow.compute as pc

    need = {"side", "ts_ms", "client_id", "source", "line_no", "kind", "extra_json"}
    if table.num_rows == 0 or not need <= set(table.schema.names):
        return {}
    mask = pc.fill_null(pc.and_(pc.equal(table.column("side"), "client"), pc.is_valid(table.column("ts_ms"))), False)
    rows = np.flatnonzero(mask.to_numpy(zero_copy_only=False))
    if not len(rows):
        return {}
    client, clients = _ranked_codes(table.column("client_id"))
    source, sources = _ranked_codes(table.column("source"))
    kind, kinds = _ranked_codes(table.column("kind"))
    origin, origins = _ranked_codes(origins_of(table.column("extra_json"), mask))
    client, source, kind = client[rows], source[rows], kind[rows]
    times = table.column("ts_ms").to_numpy(zero_copy_only=False)[rows].astype("int64")
    line_no = table.column("line_no")
    lines = pc.fill_null(line_no, 0).to_numpy(zero_copy_only=False)[rows].astype("int64")
    # ordered as sort_by(client_id, source, origin, ts_ms, line_no) orders the rows: strings by
    # value with nulls last (the ranks), a null line number after every number; stable on ties
    last = pc.fill_null(line_no, np.iinfo(np.int64).max).to_numpy(zero_copy_only=False)[rows].astype("int64") \
        if line_no.null_count else lines
    order = np.lexsort((last, times, origin, source, client))
    client, source, origin, kind = client[order], source[order], origin[order], kind[order]
    times, lines = times[order], lines[order]
    made_code = kinds.index("client_config") if "client_config" in kinds else -1
    created = kind == made_code
    # the streams' bounds in the sorted rows (a Python value per stream, not per line)
    n = len(order)
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for codes in (client, source, origin):
        change[1:] |= codes[1:] != codes[:-1]
    bounds = [*np.flatnonzero(change).tolist(), n]
    spans: dict[tuple[Any, Any, Any], slice] = {}
    for a, b in zip(bounds, bounds[1:], strict=False):
        spans[(clients[client[a]], sources[source[a]], origins[origin[a]])] = slice(a, b)
    # a consumer's creation in a file: its ConsumerConfig block names its client id; clients that
    # print no client id on their other lines (before 1.0) make a stream without one, which every
    # creation in the same file (and origin) restarts
    made: dict[tuple[Any, Any, Any], Any] = {k: times[sl][created[sl]] for k, sl in spans.items()}
    by_file: dict[tuple[Any, Any], list[Any]] = defaultdict(list)
    for (_c, src, o), ts in made.items():
        by_file[(src, o)].append(ts)
    out: dict[tuple[Any, Any, Any], StreamLines] = {}
    for (c, src, o), sl in spans.items():
        mine = made[(c, src, o)] if c is not None else np.sort(np.concatenate(by_file[(src, o)]))
        out[(c, src, o)] = StreamLines(times[sl], lines[sl], mine)
    return out


def _ranked_codes(column: Any) -> tuple[Any, list[Any]]:
    """(each row's rank among the column's distinct values in ascending order, nulls ranked last;
    the values by rank, None last): a string column (plain or dictionary-encoded, chunked or not)
    as integers, without a plain copy of its strings. Strings rank as Arrow sorts them (UTF-8 byte
    order is code point order, as Python compares str)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column)
    if isinstance(column, pa.Array):
        column = pa.chunked_array([column])
    column = column.unify_dictionaries()
    chunks = column.chunks
    values = chunks[0].dictionary.to_pylist() if chunks else []
    distinct = sorted({v for v in values if v is not None})
    rank_of = {v: i for i, v in enumerate(distinct)}
    null = len(distinct)
    # a dictionary position -> its value's rank; the last entry is for a null index (-1)
    to_rank = np.array([null if v is None else rank_of[v] for v in values] + [null], dtype=np.int64)
    idx = (np.concatenate([pc.fill_null(c.indices, -1).to_numpy(zero_copy_only=False) for c in chunks])
           if chunks else np.zeros(0, np.int64))
    return to_rank[idx], [*distinct, None]


def _owner_key(member: str | None, generation: int | None) -> Any:
    """Who holds a stream's partitions: its member id, or for clients that log none (before 1.0)
    its generation (a new one is a new join; without a revoke before it, a restarted process)."""
    return member if member is not None else (("generation", generation) if generation is not None else None)


def ownership(rows: list[dict[str, Any]], memberships: Sequence[dict[str, Any]] = (),
              lives: dict[tuple[Any, Any, Any], StreamLines] | None = None,
              unresolved: list[tuple[dict[str, Any], int, str]] | None = None) -> list[dict[str, Any]]:
    """tables.ownership for one group's rows, with unnamed owners filled from the replay's
    memberships (tables.name_unnamed_owners).

    `lives` (the ingest's table, streams_lines of all the group's rows; spark/tables.ownership, the
    reference the twin test holds this equal to, goes without): an interval whose end its owner's
    log does not show ends at the owner's last line, with end_reason `last_line`: the interval is
    still held when the stream's log ends and another interval of the partition starts later or the
    consumer was created again in that stream after it (a restart; else `log_end`, no end), or the same stream's next
    assignment is another member's (or, for clients that log no member id, another generation's)
    without a revoke before it (a restarted process; else `reassigned` at that assignment). The
    owner's last line is the stream's last line before the next assignment, and before the consumer
    was created again in that stream (a `ConsumerConfig values` block: a restart). The process held
    the partition at least until that line; a crash ends it there, a live but silent process later:
    the time after it until the next owner is estimated (figures.unowned_gaps).
    `unresolved` (a list, filled when given): the intervals held at their log's end that no other
    interval of these rows follows, with their owner's last line (row, time, evidence), for
    ends_at_last_line_before to end when an interval inferred by the replay follows them.
    """
    kinds = OWNERSHIP_START | OWNERSHIP_END | MEMBER_END
    ctx_rows = _with_member_context([
        r for r in rows if r["side"] == "client" and r["ts_ms"] is not None
        and (r["member_id"] is not None or r["generation"] is not None or r["kind"] in kinds)])
    moves: dict[tuple[Any, Any, Any, Any], list[tuple[dict[str, Any], Any, Any]]] = defaultdict(list)
    ends: dict[tuple[Any, Any, Any], list[tuple[int, str, str]]] = defaultdict(list)
    for r, cm, cg in ctx_rows:
        kind = r["kind"]
        stream = (r["client_id"], r["source"], r.get("origin"))
        if kind in OWNERSHIP_START or kind in OWNERSHIP_END:
            for tp in r["partitions"] or ():
                moves[(*stream, tp)].append((r, cm, cg))
        if kind in MEMBER_END and r["client_id"] is not None:
            # (Spark's join on the client key: a line without a client id closes nothing)
            ends[stream].append((r["ts_ms"], kind, evidence(r["source"], r["line_no"])))
    holders = _sole_holders(memberships)
    out = []
    pending: list[tuple[int, int, str]] = []   # (row, its owner's last line: time, evidence)
    for (client_id, source, origin, tp), items in moves.items():
        items.sort(key=lambda it: (it[0]["ts_ms"], it[0]["line_no"]))
        marks = []   # (is_start, boundary, reason) per item
        prev = None
        for r, cm, cg in items:
            is_start = r["kind"] in OWNERSHIP_START and (
                prev is None or prev[0]["kind"] in OWNERSHIP_END or prev[1] != cm
                or (cm is None and prev[2] != cg))
            boundary = is_start or r["kind"] in OWNERSHIP_END
            reason = "reassigned" if is_start else re.sub(r"^partitions_", "", r["kind"])
            marks.append((is_start, boundary, reason))
            prev = (r, cm, cg)
        nxt = None   # (ts, reason, evidence, member) of the next boundary after the item
        follow: list[Any] = [None] * len(items)
        for i in range(len(items) - 1, -1, -1):
            follow[i] = nxt
            if marks[i][1]:
                r = items[i][0]
                nxt = (r["ts_ms"], marks[i][2], evidence(r["source"], r["line_no"]), _owner_key(*items[i][1:]))
        m = _TP.match(tp) if tp is not None else None
        topic = (m.group(1) or tp) if m else tp
        partition = int(m.group(2)) if m else None
        for i, (r, cm, cg) in enumerate(items):
            if not marks[i][0]:
                continue
            ts, ev, n = r["ts_ms"], evidence(r["source"], r["line_no"]), follow[i]
            m_end = None
            # (a fencing or a generation reset followed by the same stream's lost or revoked callback
            # of the partition ends nothing: the client releases its assignment when that callback
            # completes, RELEASED_BY_CALLBACK)
            by_callback = n is not None and n[1] in ("revoked", "lost")
            for e in ends.get((client_id, source, origin), ()):
                if e[0] >= ts and (n is None or e[0] < n[0]) and (m_end is None or e < m_end) \
                        and not (by_callback and e[1] in RELEASED_BY_CALLBACK):
                    m_end = e
            if m_end is not None:
                end_ms, reason, end_ev = m_end
            elif n is not None:
                end_ms, reason, end_ev = n[:3]
            else:
                end_ms, reason, end_ev = None, "log_end", None
            lines = (lives or {}).get((client_id, source, origin))
            if lines is not None and m_end is None and (
                    n is None or (n[1] == "reassigned" and n[3] != _owner_key(cm, cg))):
                last = lines.last_before(ts, n[0] if n is not None else None)
                if last is not None and n is not None:
                    end_ms, reason, end_ev = last[0], "last_line", evidence(source, last[1])
                elif last is not None and lines.recreated_after(ts):
                    # no later line names the partition, but the consumer was created again in this
                    # stream: the process that held it is gone, so it held it until its last line
                    end_ms, reason, end_ev = last[0], "last_line", evidence(source, last[1])
                elif last is not None:   # (only when another owner follows: _ends_at_last_line)
                    pending.append((len(out), last[0], evidence(source, last[1])))
            member = cm
            if member is None and cg is not None:
                member = holders.get((cg, _tp_key(topic, partition)))
            out.append({"group_id": r["group_id"], "topic": topic, "partition": partition, "member_id": member,
                        "client_id": client_id, "generation": cg, "start_ms": ts, "end_ms": end_ms,
                        "end_reason": reason, "evidence": [ev, end_ev] if end_ev is not None else [ev],
                        "inferred": False})
    _ends_at_last_line(out, pending, unresolved)
    return out


def _ends_at_last_line(out: list[dict[str, Any]], pending: list[tuple[int, int, str]],
                       unresolved: list[tuple[dict[str, Any], int, str]] | None = None) -> None:
    """An interval held when its stream's log ends (`log_end`, no end) of a partition another
    interval starts later on (another stream's owner): it ends at its owner's last line
    (`last_line`): the next owner's assignment shows it was given up, its log not when. Held to
    the end otherwise (no end: nothing shows it given up)."""
    if not pending:
        return
    starts: dict[tuple[Any, Any, Any], list[int]] = defaultdict(list)
    for r in out:
        starts[(r["group_id"], r["topic"], r["partition"])].append(r["start_ms"])
    for i, at, ev in pending:
        r = out[i]
        if any(s > r["start_ms"] for s in starts[(r["group_id"], r["topic"], r["partition"])]):
            r["end_ms"], r["end_reason"] = at, "last_line"
            r["evidence"] = [*r["evidence"], ev]
        elif unresolved is not None:
            unresolved.append((r, at, ev))


def ends_at_last_line_before(unresolved: Sequence[tuple[dict[str, Any], int, str]],
                             inferred: Sequence[dict[str, Any]]) -> None:
    """The step of _ends_at_last_line for the intervals the consumers' own logs leave held at
    their end (`unresolved`, from ownership) when the interval that follows is one the replay
    inferred (inferred_beside: a member whose own log is missing or left out): the next owner's
    assignment, known from the generations, shows the partition given up, the owner's log not
    when, so the interval ends at its owner's last line (`last_line`)."""
    if not unresolved or not inferred:
        return
    starts: dict[tuple[Any, Any, Any], list[int]] = defaultdict(list)
    for r in inferred:
        if r.get("start_ms") is not None:
            starts[(r["group_id"], r["topic"], r["partition"])].append(int(r["start_ms"]))
    for r, at, ev in unresolved:
        if r["end_ms"] is None and any(s > r["start_ms"] for s in starts[(r["group_id"], r["topic"], r["partition"])]):
            r["end_ms"], r["end_reason"] = at, "last_line"
            r["evidence"] = [*r["evidence"], ev]


def _starts_by_partition(rows: list[dict[str, Any]]) -> dict[tuple[Any, Any, Any], list[tuple[int, Any]]]:
    """(group, topic, partition) -> the (start_ms, member_id) of each interval that has a start."""
    starts: dict[tuple[Any, Any, Any], list[tuple[int, Any]]] = defaultdict(list)
    for r in rows:
        if r.get("start_ms") is not None:
            starts[(r["group_id"], r["topic"], r["partition"])].append((int(r["start_ms"]), r.get("member_id")))
    return starts


def last_heartbeats(findings: Sequence[dict[str, Any]]) -> dict[Any, tuple[int, int, str | None]]:
    """member -> (its last heartbeat, its removal, the removal line's evidence) of each member the
    coordinator removed on session expiry (the replay's `session_expiry` findings whose session
    timeout a line states: ends_at_last_heartbeat's rule; pipeline.figures.unlogged_owned_spans)."""
    last: dict[Any, tuple[int, int, str | None]] = {}   # member -> (last heartbeat, removal, evidence)
    for f in findings:
        if f.get("kind") != "session_expiry" or not f.get("members") or f.get("end_ms") is None:
            continue
        try:
            d = json.loads(f.get("details_json") or "{}")
        except ValueError:
            continue
        if not isinstance(d, dict) or d.get("session_timeout_assumed") is not False:
            continue   # (a session timeout no line states: the heartbeat's time would be a guess)
        seen = d.get("last_seen_ms")
        if seen is None and d.get("expiry_time") == "broker_removal_line" and isinstance(d.get("session_timeout_ms"), int):
            seen = int(f["end_ms"]) - d["session_timeout_ms"]
        if not isinstance(seen, int) or seen > int(f["end_ms"]):
            continue
        ev = next(iter(f.get("evidence") or ()), None)
        for m in f["members"][:1]:
            if m is not None and (m not in last or last[m][0] < seen):
                last[m] = (seen, int(f["end_ms"]), ev)
    return last


def ends_at_last_heartbeat(rows: Sequence[dict[str, Any]], findings: Sequence[dict[str, Any]],
                           held: Sequence[tuple[dict[str, Any], int, str]] = ()) -> None:
    """An owner the coordinator removed when its session expired (a `session_expiry` finding of the
    replay: the broker's "has failed, removing it from the group" line, GroupCoordinator.onExpireHeartbeat
    0.11.0.1+ / GroupMetadataManager 3.6+) was alive and in the group until its last heartbeat, which
    reached the coordinator one session.timeout.ms before the removal (the coordinator's session deadline
    is the last heartbeat plus the session timeout: GroupCoordinator.completeAndScheduleNextHeartbeatExpiration;
    the finding's `last_seen_ms`). An interval of that member whose end no line of its own shows (its
    `last_line`, or the removal itself for an interval the replay inferred) ends there instead, with
    end_reason `last_heartbeat` and the removal line as evidence: the process held the partition at
    least until that heartbeat (its log may print nothing of it: a cooperative member keeps its
    partitions across generations without a line), and stopped before the next one was due, so the
    time counted from it until the next owner is the most the partition had no owner. Never past the
    start of another member's interval of the partition (nothing here proves two owners at once).
    `held` (ownership's `unresolved`: intervals still held when their stream's log ends, with their
    owner's last line): one of such a member whose last line comes no later than that heartbeat ends
    there too (removed, it owned nothing after; a line after the heartbeat, e.g. a paused process
    waking, leaves it held)."""
    last = last_heartbeats(findings)
    if not last:
        return
    starts = _starts_by_partition(rows)
    open_at = {id(r): at for r, at, _ev in held if r.get("end_ms") is None}
    for r in rows:
        got = last.get(r.get("member_id"))
        if got is None or r.get("start_ms") is None:
            continue
        seen, removed, ev = got
        if r.get("end_ms") is None:
            if id(r) not in open_at or open_at[id(r)] > seen:
                continue
            end = 1 << 62
        else:
            end = int(r["end_ms"])
        if end == 1 << 62:
            unshown = True
        elif r.get("end_reason") == "last_line" and not r.get("inferred"):
            unshown = end < seen
        else:   # the replay's interval, ended at the removal
            unshown = bool(r.get("inferred")) and r.get("end_reason") == "session_expiry" and end == removed
        if not unshown or seen <= int(r["start_ms"]):
            continue
        nxt = [s for s, m in starts[(r["group_id"], r["topic"], r["partition"])]
               if s > int(r["start_ms"]) and m != r.get("member_id")]
        new = min([seen, *nxt])
        if new == end or new <= int(r["start_ms"]):
            continue
        r["end_ms"], r["end_reason"] = new, "last_heartbeat"
        if ev is not None and ev not in r["evidence"]:
            r["evidence"] = [*(r["evidence"] or ()), ev]


def _tp_key(topic: str | None, partition: int | None) -> str:
    """concat_ws("-", topic, partition): a missing part is left out."""
    return "-".join(str(p) for p in (topic, partition) if p is not None)


def _sole_holders(memberships) -> dict[tuple[int, str], str]:
    """(generation, topic-partition) -> the one member the replay shows holding it then."""
    sets: dict[tuple[int, str], set[str]] = defaultdict(set)
    for m in memberships:
        if m.get("generation") is None:
            continue
        for tp in m.get("assigned") or ():
            if tp is not None:
                s = sets[(int(m["generation"]), tp)]
                if m.get("member_id") is not None:
                    s.add(m["member_id"])
    return {k: next(iter(v)) for k, v in sets.items() if len(v) == 1}


def observed_ownership(cols: dict[str, list[Any]], memberships: Sequence[dict[str, Any]] = (),
                       left_out: frozenset[tuple[Any, Any, Any]] = frozenset(),
                       lives: dict[tuple[Any, Any, Any], StreamLines] | None = None,
                       unresolved: list[tuple[dict[str, Any], int, str]] | None = None) -> list[dict[str, Any]]:
    """`ownership` of one group's events columns (OWNERSHIP_COLUMNS at least); rows it cannot use
    (another side, no time, no member, generation or ownership kind) may be left out beforehand.
    `left_out`: the client streams whose lines are not read (left_out_streams). `lives`,
    `unresolved`: see ownership."""
    rows = _rows(cols)
    if left_out:
        rows = [r for r in rows if r["side"] != "client"
                or (r["client_id"], r["source"], r.get("origin")) not in left_out]
    return ownership(rows, memberships, lives, unresolved)

def inferred_beside(observed: Sequence[dict[str, Any]], replayed: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The replay's ownership rows kept beside the consumers' own (observed) intervals: those it
    inferred from a generation's assignment (`inferred`) for a member of whom no observed interval
    exists (its log was not given, is left out as mixed, or shows no callbacks). The replay's rows
    of the members' callbacks repeat the observed ones and are dropped."""
    shown = {r.get("member_id") for r in observed}
    return [r for r in replayed if r.get("inferred") and r.get("member_id") is not None
            and r.get("member_id") not in shown]


def broker_leaves(table: Any) -> dict[Any, list[tuple[int, str]]]:
    """member -> [(time, evidence)] of the coordinator's lines saying the member left through its own
    LeaveGroup (LEAVE_PATTERN, broker side, `broker_member_removed`), in time order. Column-wise: the
    few broker removal rows become Python values, not the group's lines."""
    import pyarrow.compute as pc

    need = {"side", "kind", "member_id", "ts_ms", "raw", "source", "line_no"}
    if table.num_rows == 0 or not need <= set(table.schema.names):
        return {}
    mask = pc.fill_null(pc.and_(pc.and_(pc.equal(table.column("side"), "broker"),
                                        pc.equal(table.column("kind"), "broker_member_removed")),
                                pc.and_(pc.is_valid(table.column("member_id")), pc.is_valid(table.column("ts_ms")))),
                        False)
    out: dict[Any, list[tuple[int, str]]] = defaultdict(list)
    for r in table.select(["member_id", "ts_ms", "raw", "source", "line_no"]).filter(mask).to_pylist():
        if LEAVE_PATTERN.search(str(r["raw"] or "")):
            out[r["member_id"]].append((int(r["ts_ms"]), evidence(r["source"], r["line_no"])))
    return {m: sorted(v) for m, v in out.items()}


def ends_at_leave(rows: Sequence[dict[str, Any]], leaves: dict[Any, list[tuple[int, str]]]) -> None:
    """A consumer's own interval that its log ends after the coordinator logged the member's own
    LeaveGroup (broker_leaves), while another member's interval of the partition starts in between:
    the two cannot both hold (a member revokes or loses its partitions before it sends LeaveGroup:
    ConsumerCoordinator.onLeavePrepare 2.4+, librdkafka rd_kafka_cgrp_leave; and the coordinator drops its
    assignment with it), so the member's line is late (a binding printing its client's log at the
    application's next poll, confluent-kafka-python) and the interval ends at the coordinator's line
    (end_reason `left`, its evidence). Without such an overlap nothing is moved (a revoke printed a
    little after the broker's line by the hosts' clocks is not a contradiction)."""
    if not leaves:
        return
    starts = _starts_by_partition(rows)
    for r in rows:
        mine = leaves.get(r.get("member_id"))
        if not mine or r.get("inferred") or r.get("start_ms") is None:
            continue
        start = int(r["start_ms"])
        end = int(r["end_ms"]) if r.get("end_ms") is not None else 1 << 62
        left = next(((t, ev) for t, ev in mine if start < t < end), None)
        if left is None:
            continue
        if not any(left[0] <= s < end and m != r.get("member_id")
                   for s, m in starts[(r["group_id"], r["topic"], r["partition"])]):
            continue
        r["end_ms"], r["end_reason"] = left[0], "left"
        r["evidence"] = [*(r["evidence"] or ())[:1], left[1]]
