"""heartbeat_gaps and offset_commits of one consumer group, column-wise: a pyarrow Table of the
group's events in, pyarrow Tables of the schemas' columns and types out.

The same rules as the Spark window code of `pipeline/spark/tables.py` (what each row means:
docs/replay.md), computed on whole columns instead of one Python dict per event:
- each window's order is one numpy `lexsort` on integer codes (stream, time, line number, then
  the row's position, so that ties keep the order given, as a stable sort would);
- a member id or generation is carried forward with `maximum.accumulate` over positions;
- consecutive rows are compared with shifted arrays;
- string columns are compared through their dictionary codes (one encoding per column);
- only what a rule reads one value at a time becomes Python: client_config settings, the
  clients' version hints (one per distinct value), broker expiries and their members.
The output columns are `take`n from the input at the rows that become output; evidence strings
are built for those rows only.

Input contract as pipeline.group_tables: one group's rows (every row the same non-null
`group_id`), at least group_tables.SERIES_COLUMNS (a column not given reads as all null). String
columns may be Arrow dictionaries (a big group's, pipeline/spark/buckets.py): their codes come from
the dictionaries' indices and only the rows output are decoded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import group_tables as gt
from pipeline import schemas

_EVENTS = schemas.arrow_schema("events")
# columns of long texts, read at a few rows only: never copied whole
_LONG_TEXTS = frozenset(("raw", "extra_json"))
_COMMITTED_WORDING = "to the committed offset"   # 0.9-1.0 Fetcher's wording of a resume (offsets.position_kind)
_FLAGS = pa.array(["reset", "fetched", "seek", "describe", "first", "rewind", "commit"], pa.string())
_EXPIRY_KINDS = ("broker_member_removed", "broker_member_fenced")


class Columns:
    """One group's events columns, each prepared once for both tables: whole arrays (chunks
    combined, the events schema's types) of the columns read on every row, dictionary codes of
    the strings compared; the long texts (raw, extra_json) only ever read at a few rows."""

    def __init__(self, table: pa.Table, origin: pa.Array | None = None) -> None:
        self.table = table
        self.n = table.num_rows
        self.origin = origin      # origins() of the rows' extra_json, when the caller has it
        self._arrays: dict[str, pa.Array] = {}
        self._codes: dict[str, tuple[np.ndarray, list[Any]]] = {}
        self._keys: dict[tuple[str, ...], np.ndarray] = {}

    def arr(self, name: str) -> pa.Array:
        """The whole column, chunks combined, of the events schema's type; a dictionary column of
        that value type stays a dictionary (its rows are decoded only where taken: `take`)."""
        a = self._arrays.get(name)
        if a is None:
            typ = _EVENTS.field(name).type
            if name in self.table.schema.names:
                a = self.table.column(name).combine_chunks()
                if a.type != typ and not _dictionary_of(a.type, typ):
                    a = a.cast(typ)
            else:
                a = pa.nulls(self.n, typ)
            self._arrays[name] = a
        return a

    def codes(self, name: str) -> tuple[np.ndarray, list[Any]]:
        """(code per row, the distinct values): equal codes exactly for equal values, nulls one code;
        codes numbered in order of first appearance, as Arrow's dictionary_encode numbers them.
        "origin" (not an events column unless given): each line's origin, read from extra_json."""
        c = self._codes.get(name)
        if c is None:
            if name == "origin" and name not in self.table.schema.names:
                a = self.origin if self.origin is not None else origins(
                    self.table.column("extra_json") if "extra_json" in self.table.schema.names
                    else pa.nulls(self.n, pa.string()))
                d = pc.dictionary_encode(a, null_encoding="encode")
                c = self._codes[name] = (_np(d.indices).astype(np.int64), d.dictionary.to_pylist())
                return c
            a = self.arr(name)
            if pa.types.is_dictionary(a.type):
                c = self._codes[name] = _first_seen_codes(a)
            else:
                d = pc.dictionary_encode(a, null_encoding="encode")
                c = self._codes[name] = (_np(d.indices).astype(np.int64), d.dictionary.to_pylist())
        return c

    def among(self, name: str, values: Any) -> np.ndarray:
        """Which rows' values are among `values` (a null is not)."""
        codes, distinct = self.codes(name)
        return np.array([v is not None and v in values for v in distinct] or [False], bool)[codes]

    def key(self, *names: str) -> np.ndarray:
        """One integer per row, equal exactly when the rows' values of `names` all are."""
        k = self._keys.get(names)
        if k is None:
            k, size = np.zeros(self.n, np.int64), 1
            for name in names:
                codes, distinct = self.codes(name)
                if size * max(len(distinct), 1) >= 2**62:     # renumbered first: no overflow
                    k = np.unique(k, return_inverse=True)[1].astype(np.int64)
                    size = self.n
                k = k * max(len(distinct), 1) + codes
                size *= max(len(distinct), 1)
            self._keys[names] = k
        return k

    def ints(self, name: str, fill: int) -> np.ndarray:
        return _np(pc.fill_null(self.arr(name), fill))

    def valid(self, name: str) -> np.ndarray:
        if name in _LONG_TEXTS and name in self.table.schema.names:
            return _np(pc.is_valid(self.table.column(name)))
        a = self.arr(name)
        if pa.types.is_dictionary(a.type) and a.dictionary.null_count:     # a null value, not index
            a = a.cast(a.type.value_type)
        return _np(pc.is_valid(a))

    def take(self, name: str, idx: np.ndarray) -> pa.Array:
        """Values of the rows `idx` (positions)."""
        if name not in _LONG_TEXTS:
            a = self.arr(name).take(pa.array(idx, pa.int64()))
            return a.cast(a.type.value_type) if pa.types.is_dictionary(a.type) else a
        typ = _EVENTS.field(name).type
        if name not in self.table.schema.names:
            return pa.nulls(len(idx), typ)
        # chunk by chunk: pyarrow's take on a chunked array concatenates the whole column first
        chunks, starts = self._chunks(name)
        which = np.searchsorted(starts, idx, side="right") - 1
        order = np.argsort(which, kind="stable")
        parts = [chunks[c].take(pa.array(idx[order][which[order] == c] - starts[c], pa.int64()))
                 for c in np.unique(which).tolist()]
        a = pa.concat_arrays(parts) if parts else pa.array([], self.table.schema.field(name).type)
        if len(parts) > 1 and np.any(np.diff(idx) < 0):
            back = np.empty(len(order), np.int64)
            back[order] = np.arange(len(order))
            a = a.take(pa.array(back))
        return a if a.type == typ else a.cast(typ)

    def containing(self, name: str, rows: np.ndarray, words: tuple[str, ...]) -> np.ndarray:
        """Whether the value of each of the rows `rows` (positions, ascending) contains every one
        of `words` (a null does not). A chunk whose text holds none of them at all is answered
        without looking at its rows (a byte search of the chunk, much faster than pyarrow's
        match_substring)."""
        out = np.zeros(len(rows), bool)
        if name not in self.table.schema.names or not len(rows):
            return out
        chunks, starts = self._chunks(name)
        bounds = np.searchsorted(rows, np.append(starts, self.n)).tolist()
        for c, chunk in enumerate(chunks):
            lo, hi = bounds[c], bounds[c + 1]
            if lo == hi:
                continue
            text = _text_bytes(chunk)
            if text is not None and not all(w.encode() in text for w in words):
                continue
            vals = chunk.take(pa.array(rows[lo:hi] - starts[c], pa.int64()))
            if pa.types.is_dictionary(vals.type):
                vals = vals.cast(vals.type.value_type)
            hit = pc.match_substring(vals, words[0])
            for w in words[1:]:
                hit = pc.and_(hit, pc.match_substring(vals, w))
            out[lo:hi] = _np(pc.fill_null(hit, False))
        return out

    def _chunks(self, name: str) -> tuple[list[pa.Array], np.ndarray]:
        chunks = self.table.column(name).chunks
        return chunks, np.cumsum([0] + [len(c) for c in chunks[:-1]], dtype=np.int64)


def origins(extra_json: Any, rows: Any = None) -> pa.Array:
    """Each row's origin (group_tables.origin_of) of an extra_json column (plain or dictionary,
    chunked or not), as strings; with `rows` (a boolean mask), of those rows only. Vectorized: a
    chunk whose text holds no "origin" at all is answered by one byte search; otherwise the value is
    cut out of the text by a regex in Arrow, and only a value with an escape in it is read by
    origin_of (no Python per row: a collector's file names an origin on every line, and a hot
    group's rows are millions)."""
    chunks = extra_json.chunks if isinstance(extra_json, pa.ChunkedArray) else [extra_json]
    parts = []
    for a in chunks:
        if pa.types.is_dictionary(a.type):
            parts.append(_cut_origins(a.dictionary).take(a.indices))
        else:
            parts.append(_cut_origins(a))
    out = pa.concat_arrays(parts) if len(parts) > 1 else parts[0] if parts else pa.nulls(0, pa.string())
    return out.filter(rows) if rows is not None else out


def _cut_origins(texts: pa.Array) -> pa.Array:
    text = _text_bytes(texts)
    if (text is not None and _ORIGIN_BYTES not in text) or not len(texts) or not pc.any(
            pc.fill_null(pc.match_substring(texts, gt.ORIGIN_KEY), False)).as_py():
        return pa.nulls(len(texts), pa.string())
    cut = pc.struct_field(pc.extract_regex(texts, _ORIGIN_VALUE), [0])
    escaped = np.nonzero(_np(pc.fill_null(pc.match_substring(cut, "\\"), False)))[0]
    if len(escaped):
        values = cut.to_pylist()
        for i, value in zip(escaped.tolist(), texts.take(pa.array(escaped)).to_pylist(), strict=True):
            values[i] = gt.origin_of(value)
        cut = pa.array(values, pa.string())
    return cut


_ORIGIN_BYTES = gt.ORIGIN_KEY.encode()
# the top-level "origin" string of an event's extra_json as json.dumps and orjson write it (the first key
# of that name: the parsers write it at the top level only)
_ORIGIN_VALUE = r'"origin":\s*"(?P<o>(?:[^"\\]|\\.)*)"'


def _dictionary_of(typ: pa.DataType, value_type: pa.DataType) -> bool:
    return pa.types.is_dictionary(typ) and typ.value_type == value_type


def _first_seen_codes(a: pa.DictionaryArray) -> tuple[np.ndarray, list[Any]]:
    """Columns.codes of a dictionary array without decoding its rows: the same codes and distinct
    values as dictionary_encode(null_encoding="encode") of its plain values (numbered in order of
    first appearance, null one code), from its indices (a dictionary repeating a value counts it
    once)."""
    values = a.dictionary
    same = pc.dictionary_encode(values)       # dictionary position -> distinct value
    null_key = len(same.dictionary)
    to_value = np.append(_np(pc.fill_null(same.indices, null_key)).astype(np.int64), null_key)
    keys = to_value[_np(pc.fill_null(a.indices, len(values))).astype(np.int64)]
    if not len(keys):
        return keys, []
    uniq, first = np.unique(keys, return_index=True)
    seen = uniq[np.argsort(first, kind="stable")]       # distinct keys in order of first appearance
    rank = np.empty(null_key + 1, np.int64)
    rank[seen] = np.arange(len(seen))
    names = same.dictionary.to_pylist() + [None]
    return rank[keys], [names[k] for k in seen.tolist()]


def _columns(table: pa.Table | Columns) -> Columns:
    return table if isinstance(table, Columns) else Columns(table)


def _np(a: Any) -> np.ndarray:
    return a.to_numpy(zero_copy_only=False)


def _nulls_first(v: Any) -> tuple[bool, Any]:
    """Sort key of a value with None before every value (no None compared with a value)."""
    return (v is not None, v if v is not None else 0)


def _text_bytes(chunk: pa.Array) -> bytes | None:
    """The UTF-8 text of a string array's values run together (a word in one of the values is
    in it; one found in it may span two), or None for another type."""
    if chunk.type == pa.string():
        width: Any = np.int32
    elif chunk.type == pa.large_string():
        width = np.int64
    else:
        return None
    offsets_buf, data = chunk.buffers()[1:3]
    if not len(chunk) or data is None:
        return b""
    offs = np.frombuffer(offsets_buf, width, count=len(chunk) + 1, offset=chunk.offset * np.dtype(width).itemsize)
    return data.slice(int(offs[0]), int(offs[-1] - offs[0])).to_pybytes()


def _starts(key: np.ndarray) -> np.ndarray:
    """True where a run of equal keys begins."""
    out = np.ones(len(key), bool)
    out[1:] = key[1:] != key[:-1]
    return out


def _carried(valid: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """For each position, the last position up to it in its run with a valid value (or the run's
    first position when none is: its value is null)."""
    pos = np.arange(len(valid))
    return np.maximum.accumulate(np.where(valid | starts, pos, 0)) if len(valid) else pos


def _evidence(source: pa.Array, line_no: pa.Array) -> pa.Array:
    """group_tables.evidence column-wise: "source:line", a missing part left out. (Not
    binary_join_element_wise's null_handling="skip": pyarrow 26 drops the rows where every part
    is null from its result.)"""
    line = line_no.cast(pa.string())
    return pc.coalesce(pc.binary_join_element_wise(source, line, ":"), source, line, pa.scalar("", pa.string()))


def _lists(values: pa.Array, width: int) -> pa.Array:
    """Consecutive runs of `width` values as list<string> rows."""
    offsets = pa.array(np.arange(0, len(values) + 1, width, dtype=np.int32), pa.int32())
    return pa.ListArray.from_arrays(offsets, values)


def _table(name: str, cols: dict[str, Any]) -> pa.Table:
    schema = schemas.arrow_schema(name)
    return pa.Table.from_arrays([cols[f.name] for f in schema], schema=schema)


def _const(value: Any, n: int, typ: pa.DataType) -> pa.Array:
    return pa.array([value], typ).take(pa.array(np.zeros(n, np.int64)))


def heartbeat_gaps(table: pa.Table | Columns) -> pa.Table:
    """group_tables' heartbeat_gaps (tables.heartbeat_gaps) of one group's rows."""
    cols = _columns(table)
    if cols.n == 0:
        return schemas.arrow_schema("heartbeat_gaps").empty_table()
    gid = cols.arr("group_id")[0].as_py()
    client = cols.among("side", ("client",))
    config = cols.among("kind", ("client_config",))

    # the group's printed session.timeout.ms (the lowest) and its clients' version hint (the highest)
    config_rows = np.nonzero(client & config)[0]
    printed = dict(zip(config_rows.tolist(), (gt.printed_session("client_config", v) for v in
                                              cols.take("extra_json", config_rows).to_pylist()), strict=True))
    group_session = None
    for v in printed.values():
        group_session = gt._min(group_session, v)
    hint_codes, hint_values = cols.codes("kafka_version_hint")
    hints = [gt._hint(h) for h in hint_values]
    group_hint = None
    for code in np.nonzero(np.bincount(hint_codes[client], minlength=len(hints)))[0].tolist():
        group_hint = gt._max(group_hint, hints[code])

    # the client streams (client_id, source, origin), each in (time, line) order
    rows = np.nonzero(client & cols.valid("client_id") & cols.valid("ts_ms"))[0]
    key = cols.key("client_id", "source", "origin")
    ts_all, line_all = cols.ints("ts_ms", 0), cols.ints("line_no", -1)
    r = rows[np.lexsort((rows, line_all[rows], ts_all[rows], key[rows]))]   # the stream rows, in order
    ts = ts_all[r]
    starts = _starts(key[r])
    stream = np.cumsum(starts) - 1        # stream number of each row
    first = np.nonzero(starts)[0]         # each stream's first row (in r)
    n_streams = len(first)
    # heartbeat lines, but not those printed when the application next polled (printed_late)
    hb_kind = cols.among("kind", gt.HEARTBEAT_KINDS)
    is_hb = hb_kind.copy()
    maybe = np.nonzero(hb_kind)[0]
    is_hb[maybe] = ~cols.containing("extra_json", maybe, gt.PRINTED_LATE_MARKERS)

    # per stream: the limit (printed, the group's printed, or the version's default) and whether
    # its log shows heartbeats at all (DEBUG)
    own_printed: list[Any] = [None] * n_streams
    conf = np.nonzero(config[r])[0]
    for s, pos in zip(stream[conf].tolist(), r[conf].tolist(), strict=True):
        own_printed[s] = gt._max(own_printed[s], printed[pos])
    own_hint: list[Any] = [None] * n_streams
    seen = np.zeros((n_streams, max(len(hints), 1)), bool)
    seen[stream, hint_codes[r]] = True
    for s, h in zip(*(a.tolist() for a in np.nonzero(seen)), strict=True):
        own_hint[s] = gt._max(own_hint[s], hints[h])
    logs_hb = np.zeros(n_streams, bool)
    logs_hb[stream[(is_hb & cols.among("kind", gt.DEBUG_HEARTBEAT_KINDS))[r]]] = True
    limits = np.array([
        own_printed[s] if own_printed[s] is not None else (
            group_session if group_session is not None else gt.session_limit(
                own_hint[s] if own_hint[s] is not None else group_hint))
        for s in range(n_streams)], np.int64)

    # the member each row is of: the last member id of its stream up to it
    members = cols.take("member_id", r[_carried(cols.valid("member_id")[r], starts)])
    source, line = cols.take("source", r), cols.take("line_no", r)
    parts = []

    def gaps(prev: np.ndarray, cur: np.ndarray, kind: str) -> None:
        """Rows of the gaps from the stream rows `prev` to `cur` (positions in r)."""
        if not len(cur):
            return
        span = ts[cur] - ts[prev]
        limit = limits[stream[cur]] if kind == "heartbeat" else None
        both = np.empty(2 * len(cur), np.int64)
        both[0::2], both[1::2] = prev, cur
        idx = pa.array(cur)
        parts.append(_table("heartbeat_gaps", {
            "group_id": _const(gid, len(cur), pa.string()), "member_id": members.take(idx),
            "client_id": cols.take("client_id", r[cur]), "source": source.take(idx),
            "kind": _const(kind, len(cur), pa.string()),
            "start_ms": pa.array(ts[prev]), "end_ms": pa.array(ts[cur]), "gap_ms": pa.array(span),
            "limit_ms": pa.array(limit) if limit is not None else pa.nulls(len(cur), pa.int64()),
            "exceeded": pa.array(span > limit) if limit is not None else pa.nulls(len(cur), pa.bool_()),
            "evidence": _lists(_evidence(source.take(pa.array(both)), line.take(pa.array(both))), 2)}))

    # heartbeat gaps: consecutive heartbeat lines of a stream whose log shows heartbeats
    hb = np.nonzero(is_hb[r])[0]
    if len(hb) > 1:
        prev, cur = hb[:-1], hb[1:]
        keep = (stream[prev] == stream[cur]) & logs_hb[stream[cur]] & (ts[cur] - ts[prev] >= gt.MIN_GAP_MS)
        gaps(prev[keep], cur[keep], "heartbeat")
    # log gaps: consecutive lines of a stream
    if len(r) > 1:
        cur = np.nonzero(~starts & (np.diff(ts, prepend=ts[0]) >= gt.MIN_GAP_MS))[0]
        gaps(cur - 1, cur, "log")
    expiry = _expiry_gaps(cols, gid, r, stream, first, members, hb, limits, logs_hb, group_session, group_hint)
    if expiry:
        parts.append(pa.Table.from_pylist(expiry, schema=schemas.arrow_schema("heartbeat_gaps")))
    if not parts:
        return schemas.arrow_schema("heartbeat_gaps").empty_table()
    return pa.concat_tables(parts)


def _expiry_gaps(cols: Columns, gid: Any, r: np.ndarray, stream: np.ndarray, first: np.ndarray, members: pa.Array,
                 hb: np.ndarray, limits: np.ndarray, logs_hb: np.ndarray, group_session: Any,
                 group_hint: Any) -> list[dict[str, Any]]:
    """tables._expiry_gaps: one row per distinct broker expiry (member, time, line) of the group.

    A member seen in several client streams takes its client_id and source from the first
    stream by (source, client_id) (Spark's `first` there is whichever row comes first).
    `r`: the stream rows' positions in stream order, `stream` their stream numbers, `first` each
    stream's first row, `members` their members, `hb` the heartbeat rows among them."""
    removal = np.nonzero(cols.among("side", ("broker",)) & cols.among("kind", _EXPIRY_KINDS)
                         & cols.valid("member_id") & cols.valid("ts_ms") & cols.valid("raw"))[0]
    if not len(removal):
        return []
    expiries: dict[tuple[Any, int, str], None] = {}
    for member, ts, raw, source, line in zip(*(cols.take(c, removal).to_pylist() for c in (
            "member_id", "ts_ms", "raw", "source", "line_no")), strict=True):
        if gt.EXPIRY_PATTERN.search(raw.lower()):
            expiries[(member, ts, gt.evidence(source, line))] = None
    if not expiries:
        return []
    # the streams and the heartbeat lines of each expired member
    encoded = pc.dictionary_encode(members, null_encoding="encode")
    code_of = {v: i for i, v in enumerate(encoded.dictionary.to_pylist()) if v is not None}
    member_code = _np(encoded.indices)
    stream_client = cols.take("client_id", r[first]).to_pylist()
    stream_source = cols.take("source", r[first]).to_pylist()
    ts = cols.ints("ts_ms", 0)[r]
    line, source = cols.take("line_no", r), cols.take("source", r)
    out = []
    for member, expiry, ev in expiries:
        code = code_of.get(member, -1)
        client_id = source_name = limit = None
        logs = False
        ss = sorted(set(stream[member_code == code].tolist()),
                    key=lambda s: (_nulls_first(stream_source[s]), stream_client[s] or ""))
        if ss:
            client_id, source_name = stream_client[ss[0]], stream_source[ss[0]]
            limit = int(limits[ss].max())
            logs = bool(logs_hb[ss].any())
        beats = hb[member_code[hb] == code]
        before = beats[ts[beats] <= expiry + gt.EXPIRY_SKEW_MS]
        hb_after = len(before) < len(beats)
        last: tuple[Any, Any, Any] | None = None   # the member's last heartbeat line by then: (ts, line, source)
        if len(before):
            at = before[ts[before] == ts[before].max()]
            last = max(zip(ts[at].tolist(), line.take(pa.array(at)).to_pylist(), source.take(pa.array(at)).to_pylist(),
                           strict=True), key=lambda h: (h[0], _nulls_first(h[1]), _nulls_first(h[2])))
        if limit is None:
            limit = group_session if group_session is not None else (
                gt.session_limit(group_hint) if group_hint is not None else None)
        measured = last if logs else None
        if measured is not None and hb_after:
            continue   # the silence is an ordinary heartbeat gap already
        start = measured[0] if measured is not None else (expiry - limit if limit is not None else expiry)
        out.append({"group_id": gid, "member_id": member, "client_id": client_id, "source": source_name,
                    "kind": "heartbeat" if measured is not None else "expiry", "start_ms": start, "end_ms": expiry,
                    "gap_ms": expiry - start if (measured is not None or limit is not None) else None,
                    "limit_ms": limit, "exceeded": True,
                    "evidence": [gt.evidence(measured[2], measured[1]), ev] if measured is not None else [ev]})
    return out


def offset_commits(table: pa.Table | Columns) -> pa.Table:
    """group_tables' offset_commits (tables.offset_commits) of one group's rows."""
    cols = _columns(table)
    if cols.n == 0:
        return schemas.arrow_schema("offset_commits").empty_table()
    # the member context: per client stream (client_id, source, origin: group_tables.ORIGIN_KEY),
    # in time order (no time first), the last
    # member id and generation up to each row (tables.with_member_context)
    history = cols.among("kind", gt.HISTORY_KINDS)
    member_ok, gen_ok = cols.valid("member_id"), cols.valid("generation")
    ctx = np.nonzero(member_ok | gen_ok | history)[0]
    ts_ok, ts_all, line_all = cols.valid("ts_ms"), cols.ints("ts_ms", 0), cols.ints("line_no", -1)
    key = cols.key("client_id", "source", "origin")
    c = ctx[np.lexsort((ctx, line_all[ctx], ts_all[ctx], ts_ok[ctx], key[ctx]))]
    starts = _starts(key[c])
    member_pos = np.zeros(cols.n, np.int64)
    gen_pos = np.zeros(cols.n, np.int64)
    member_pos[c] = c[_carried(member_ok[c], starts)]
    gen_pos[c] = c[_carried(gen_ok[c], starts)]

    # the rows stating an offset of a partition (every one of them is a row of the context);
    # an offset_reset in the 0.9-1.0 resume wording is a fetch
    resets = np.nonzero(cols.among("kind", ("offset_reset",)))[0]
    fetched = np.zeros(cols.n, bool)
    fetched[resets] = cols.containing("raw", resets, (_COMMITTED_WORDING,))
    rows = np.nonzero(history & cols.valid("topic") & cols.valid("partition") & cols.valid("offset"))[0]
    if not len(rows):
        return schemas.arrow_schema("offset_commits").empty_table()
    # each (topic, partition, side) in (time with none first, source, line) order
    part = cols.key("topic", "partition", "side")[rows]
    src_codes, src_values = cols.codes("source")
    rank = np.empty(max(len(src_values), 1), np.int64)
    rank[sorted(range(len(src_values)), key=lambda i: _nulls_first(src_values[i]))] = np.arange(len(src_values))
    h = rows[np.lexsort((rows, line_all[rows], rank[src_codes[rows]], ts_all[rows], ts_ok[rows], part))]
    starts = _starts(cols.key("topic", "partition", "side")[h])
    offset = cols.ints("offset", 0)[h]
    # the offset of the last commit before each row of the same partition
    pos = np.arange(len(h))
    last_commit = np.maximum.accumulate(np.where(cols.among("kind", gt.COMMIT_KINDS)[h], pos, -1))
    prev_pos = np.r_[-1, last_commit[:-1]]
    has_prev = prev_pos >= np.maximum.accumulate(np.where(starts, pos, 0))
    prev = np.where(has_prev, offset[np.maximum(prev_pos, 0)], 0)
    delta = offset - prev
    is_fetched = fetched[h]
    flag = np.select([cols.among("kind", ("offset_reset",))[h] & ~is_fetched,
                      cols.among("kind", ("offset_fetched",))[h] | is_fetched,
                      cols.among("kind", ("offset_seek",))[h], cols.among("kind", ("describe_row",))[h],
                      ~has_prev, delta < 0], [0, 1, 2, 3, 4, 5], 6)
    source_kind = cols.take("kind", h)
    if is_fetched.any():
        source_kind = pc.if_else(pa.array(is_fetched), pa.scalar("offset_fetched", pa.string()), source_kind)
    return _table("offset_commits", {
        "group_id": cols.take("group_id", h), "topic": cols.take("topic", h), "partition": cols.take("partition", h),
        "ts_ms": cols.take("ts_ms", h), "offset": pa.array(offset), "prev_offset": pa.array(prev, mask=~has_prev),
        "delta": pa.array(delta, mask=~has_prev), "generation": cols.take("generation", gen_pos[h]),
        "member_id": cols.take("member_id", member_pos[h]), "side": cols.take("side", h),
        "flag": _FLAGS.take(pa.array(flag)), "source_kind": source_kind,
        "evidence": _lists(_evidence(cols.take("source", h), cols.take("line_no", h)), 1)})


def left_out_streams(table: pa.Table | Columns) -> frozenset[tuple[Any, Any, Any]]:
    """group_tables.left_out_streams of one group's rows (a pyarrow Table of at least
    group_tables.LEFT_OUT_COLUMNS but "origin", read from extra_json; string columns may be
    dictionaries): the client streams (client_id, source, origin) whose lines the replay leaves out
    as several consumers' lines under one client id. Only the rows taking part in the proof become
    Python: the client lines naming a member, an instance, an origin or a join, and one line of
    every client stream (its name)."""
    cols = _columns(table)
    if cols.n == 0:
        return frozenset()
    client = cols.among("side", ("client",))
    if not client.any():
        return frozenset()
    # a stream is a part of one client id's lines: when no client id's lines name two member ids,
    # two instance ids or one generation joined twice, no stream can be proven mixed
    joins = client & cols.among("kind", ("join_succeeded",)) & cols.valid("generation")
    c_codes = cols.codes("client_id")[0]
    if not (_twice(c_codes, cols.codes("member_id")[0], client & cols.valid("member_id"), distinct=True)
            or _twice(c_codes, cols.codes("instance_id")[0], client & cols.valid("instance_id"), distinct=True)
            or _twice(c_codes, cols.ints("generation", 0), joins, distinct=False)):
        return frozenset()
    key = cols.key("client_id", "source", "origin")
    o_codes, o_vals = cols.codes("origin")
    named = np.array([v is not None for v in o_vals] or [False], bool)[o_codes]
    proof = client & (cols.valid("member_id") | cols.valid("instance_id") | cols.among("kind", ("join_succeeded",)))
    idx = np.nonzero(client)[0]
    _, firsts = np.unique(key[idx], return_index=True)
    proof[idx[firsts]] = True
    # an untimed line has the time of the line before it in its file, whatever that line is
    # (replay_rules.collect.dedupe_and_order), before the rows are narrowed to the proof's
    ts_ok, ts = cols.valid("ts_ms"), cols.ints("ts_ms", 0)
    if not ts_ok.all():
        order = np.lexsort((np.arange(cols.n), cols.ints("line_no", -1), cols.codes("source")[0]))
        at = order[_carried(ts_ok[order], _starts(cols.codes("source")[0][order]))]
        filled_ok, filled = np.empty(cols.n, bool), np.empty(cols.n, np.int64)
        filled_ok[order], filled[order] = ts_ok[at], ts[at]
        ts_ok, ts = filled_ok, filled
    # of the other lines naming an origin, the first and last timed ones of each (file, origin) give
    # stream_namer the origin's time span (and one untimed line an origin with no time)
    other = np.nonzero(client & named & ~proof)[0]
    if len(other):
        fo = cols.key("source", "origin")[other]
        o = other[np.lexsort((other, ts[other], ~ts_ok[other], fo))]      # per origin: timed first, by time
        starts = _starts(cols.key("source", "origin")[o])
        proof[o[starts]] = True                                           # the earliest (or an untimed one)
        timed = o[ts_ok[o]]
        if len(timed):
            ends = np.r_[_starts(cols.key("source", "origin")[timed])[1:], True]
            proof[timed[ends]] = True                                     # the latest
    rows = np.nonzero(proof)[0]
    taken = {c: cols.take(c, rows).to_pylist() for c in gt.LEFT_OUT_COLUMNS if c not in ("origin", "ts_ms")}
    taken["origin"] = [o_vals[i] for i in o_codes[rows].tolist()]
    taken["ts_ms"] = [t if ok else None for t, ok in zip(ts[rows].tolist(), ts_ok[rows].tolist(), strict=True)]
    return gt.left_out_streams(taken)


def _twice(group: np.ndarray, value: np.ndarray, mask: np.ndarray, distinct: bool) -> bool:
    """Whether, among the `mask` rows, a `group` code holds two distinct `value`s (`distinct`) or
    one value twice (not `distinct`)."""
    at = np.nonzero(mask)[0]
    if len(at) < 2:
        return False
    pairs = np.stack([group[at].astype(np.int64), value[at].astype(np.int64)], axis=1)
    if not distinct:
        return len(np.unique(pairs, axis=0)) < len(pairs)
    groups = np.unique(np.unique(pairs, axis=0)[:, 0], return_counts=True)[1]
    return bool((groups > 1).any())


def without_left_out(table: pa.Table, left_out: frozenset[tuple[Any, Any, Any]]) -> pa.Table:
    """The rows not of a left-out client stream (left_out_streams); the table itself when none is."""
    if not left_out:
        return table
    cols = Columns(table)
    c_codes, c_vals = cols.codes("client_id")
    s_codes, s_vals = cols.codes("source")
    o_codes, o_vals = cols.codes("origin")
    key = cols.key("client_id", "source", "origin")
    client = cols.among("side", ("client",))
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    hit = np.array([(c_vals[c_codes[i]], s_vals[s_codes[i]], o_vals[o_codes[i]]) in left_out
                    for i in first.tolist()] or [False], bool)
    drop = client & hit[inverse.reshape(-1)]
    return table.filter(pa.array(~drop)) if drop.any() else table


def series_tables(table: pa.Table | Columns, left_out: frozenset[tuple[Any, Any, Any]] | None = None) -> dict[str, pa.Table]:
    """Both tables of one group's rows (its columns prepared once), without the lines of the
    client streams the replay leaves out (`left_out`, else left_out_streams of the rows). Given
    the rows' Columns (those left_out_streams read), they serve the tables too when no stream is
    left out."""
    given = table if isinstance(table, Columns) else None
    if given is not None:
        table = given.table
    if left_out is None:
        left_out = left_out_streams(given if given is not None else table)
    cols = given if given is not None and not left_out else Columns(without_left_out(table, left_out))
    return {"heartbeat_gaps": heartbeat_gaps(cols), "offset_commits": offset_commits(cols)}


def group_tables(cols: dict[str, list[Any]], memberships: Sequence[dict[str, Any]] = (),
                 last_lines: bool = True) -> dict[str, list[dict[str, Any]]]:
    """heartbeat_gaps, offset_commits and observed ownership of one group's events columns (lists
    of values, as group_tables takes them), as lists of row dicts; none of them reads the lines of
    a client stream the replay leaves out (left_out_streams). `last_lines`: an owner's end its log
    does not show is its last line (group_tables.ownership `lives`, as the ingest's group pass
    does, and spark/tables.ownership too); False leaves it out."""
    table = _arrow(cols)
    left_out = left_out_streams(table)
    lives = gt.streams_lines(table, origins) if last_lines else None
    return {**{t: rows.to_pylist() for t, rows in series_tables(table, left_out).items()},
            "ownership": gt.observed_ownership(cols, memberships, left_out, lives)}


def _arrow(cols: dict[str, list[Any]]) -> pa.Table:
    """Events columns as lists -> a pyarrow Table of the events schema's types."""
    return pa.table({c: pa.array(v, _EVENTS.field(c).type) for c, v in cols.items() if c in _EVENTS.names})
