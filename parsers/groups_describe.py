"""`kafka-consumer-groups --describe` output -> describe_row matches (a stateful, header-driven splitter).

Why not a Lark grammar: the output is a whitespace-padded table whose column set depends on the Kafka
version and the flags (0.10.0 `... LAG OWNER`; 0.10.2-1.x without GROUP; 2.0+ with GROUP; `--members`
with or without GROUP-INSTANCE-ID and a trailing ASSIGNMENT; `--state` with a `COORDINATOR (ID)` cell
that contains spaces; 4.x `--verbose` extra epoch columns). The header line names the columns, so the
parser reads the header and maps each data row onto it; a grammar would need one rule per column
combination and could not express "same columns as the header above". Cells never contain spaces
except two whose shapes are known (`host:port  (id)` and the trailing assignment list).

Sources: kafka/admin/ConsumerGroupCommand.scala (0.10.0 .. 3.6), tools/.../ConsumerGroupCommand.java
(3.7+). Missing values print as `-` (MISSING_COLUMN_VALUE); the 0.10.0 table prints `unknown`/`none`.
"""

from __future__ import annotations

import re
from typing import Any

from parsers.base import IGNORE, Match, _Ignore
from parsers.build_cache import compile_regex
from parsers.commands import is_command

# Literal words of the headers, banners and command lines (the reader escapes and ORs them).
CANDIDATE_WORDS: tuple[str, ...] = (
    "CURRENT-OFFSET",
    "CONSUMER-ID",
    "COORDINATOR (ID)",
    "has no active members",
    "is rebalancing",
    "does not exist",
    "kafka-consumer-groups",
    "ConsumerGroupCommand",
)

ROW_REGEX = (
    r"\s\d+\s+(?:-?\d+|-|unknown)\s+(?:-?\d+|-|unknown)\s+(?:-?\d+|-|unknown)(?:\s|$)"
    r"|\s\d+\s*$|\s\d+\s+\S*\(|\s\(-?\d+\)\s"
    r"|(?:^|\s)-\s+-\s+-\s+-\s+-\s+[^\s-]"
)
"""Data rows carry no fixed word: this regex (valid in Python and Java) matches every row the parser can
turn into an event (offsets rows by their numeric columns, --members rows by #PARTITIONS, --state rows by
the coordinator id, the offsets row of a member without partitions by its five `-` cells before the member). A JVM-side pre-filter of describe files must OR it in, or better not filter them."""

_HEADER_START = compile_regex(r"^(?:GROUP\s+(?:TOPIC|CONSUMER-ID|COORDINATOR \(ID\))|TOPIC\s+PARTITION|CONSUMER-ID\s+HOST|"
                           r"COORDINATOR \(ID\))(?:\s|$)")
# ConsumerGroupCommand's banners about the described group: 0.10.0 `Consumer group `g` does not exist or is
# rebalancing.`; 0.10.1 `Consumer group `g` does not exist.` / `.. is rebalancing.` (backticks); 0.10.2+
# `Consumer group 'g' has no active members.`, `Warning: Consumer group 'g' is rebalancing.`, and through
# printError ("Error: " + msg) `The consumer group 'g' does not exist.` / `Consumer group 'g' does not exist.`
# (ConsumerGroupCommand.scala 0.10.0 .. 3.6, ConsumerGroupCommand.java 3.7+). Either prefix is accepted on
# any of them: a paste keeps the tool's wording but not always the stream or the prefix it came with.
_BANNER = compile_regex(
    r"^(?:(?:Warning|Error): )?(?:The )?[Cc]onsumer group (?P<q>['`])(?P<group>.*)(?P=q) "
    r"(?P<what>does not exist or is rebalancing|has no active members|is rebalancing|does not exist)"
)
_GROUP_OPT = compile_regex(r"--group[ =](?:'([^']*)'|\"([^\"]*)\"|(\S+))")
_COORDINATOR_CELL = compile_regex(r"(\S+:\d+)\s+\((-?\d+)\)")
_NOISE = compile_regex(r"^(?:Note: |Error while executing|"
                    r"Could not fetch offset|No topic available|WARN: )")

# column header -> field name (Event field, or extra key)
_COLUMN = {
    "GROUP": "group_id",
    "TOPIC": "topic",
    "PARTITION": "partition",
    "CURRENT-OFFSET": "offset",
    "LOG-END-OFFSET": "log_end_offset",
    "LAG": "lag",
    "CONSUMER-ID": "member_id",
    "GROUP-INSTANCE-ID": "instance_id",
    "HOST": "host",
    "CLIENT-ID": "client_id",
    "OWNER": "owner",
    "#PARTITIONS": "partition_count",
    "ASSIGNMENT": "assignment",
    "COORDINATOR (ID)": "coordinator",
    "ASSIGNMENT-STRATEGY": "assignment_strategy",
    "STATE": "state",
    "#MEMBERS": "member_count",
    "LEADER-EPOCH": "leader_epoch",
    "GROUP-EPOCH": "group_epoch",
    "TARGET-ASSIGNMENT-EPOCH": "target_assignment_epoch",
    "CURRENT-EPOCH": "member_epoch",
    "CURRENT-ASSIGNMENT": "assignment",
    "TARGET-EPOCH": "target_epoch",
    "TARGET-ASSIGNMENT": "target_assignment",
    "UPGRADED": "upgraded",
}
_INT_FIELDS = {"partition", "offset", "log_end_offset", "lag", "partition_count", "member_count", "leader_epoch",
               "group_epoch", "target_assignment_epoch", "member_epoch", "target_epoch"}
_EVENT_FIELDS = {"group_id", "topic", "partition", "offset", "member_id", "instance_id", "client_id",
                 "member_epoch", "coordinator"}
_MISSING = {"-", "unknown", "none", ""}
_HEADER_WORDS = sorted(_COLUMN, key=len, reverse=True)

# headerless rows, by cell count (the header was cut off): the column sets of the known versions
_GUESS = {
    9: ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"],
    8: ["TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"],
    7: ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "OWNER"],
}


def looks_like_groups_describe(lines: list[str]) -> bool:
    for line in lines[:200]:
        s = line.strip()
        if _HEADER_START.match(s) and ("CURRENT-OFFSET" in s or "CONSUMER-ID" in s or "COORDINATOR (ID)" in s):
            return True
        if ("kafka-consumer-groups" in s or "ConsumerGroupCommand" in s) and "--describe" in s and is_command(s):
            return True
        if _BANNER.match(s):  # the tool's own banner as the whole line (the table itself may be cut off)
            return True
    # a command split over continuation lines
    head = [line.strip() for line in lines[:20]]
    for i, s in enumerate(head):
        if ("kafka-consumer-groups" in s or "ConsumerGroupCommand" in s) and is_command(s):
            return "--describe" in " ".join(head[i:])
    return False


def _split_header(s: str) -> list[str]:
    cols: list[str] = []
    rest = s.strip()
    while rest:
        for word in _HEADER_WORDS:
            if rest.startswith(word) and (len(rest) == len(word) or rest[len(word)] == " "):
                cols.append(word)
                rest = rest[len(word):].lstrip()
                break
        else:
            return []  # an unknown column: not a header we understand
    return cols


class DescribeParser:
    """Feed the lines of one describe output in order; each call returns Match / IGNORE / None."""

    def __init__(self) -> None:
        self.columns: list[str] | None = None
        self.offsets: list[int] | None = None  # where each header column starts (for aligned rows)
        self.group_from_command: str | None = None
        self.group_state: dict[str, str] = {}
        self._continuation = False

    def feed(self, line: str) -> Match | _Ignore | None:
        raw = line.rstrip("\r\n")
        s = raw.strip()
        continued = self._continuation
        self._continuation = s.endswith("\\")
        if continued or s.startswith(("$ ", "# ", "+ ")) or "kafka-consumer-groups" in s or "ConsumerGroupCommand" in s:
            m = _GROUP_OPT.search(s)
            if m:
                self.group_from_command = next(g for g in m.groups() if g is not None)
            return IGNORE
        if not s or set(s) <= set("-=+| "):
            return IGNORE
        b = _BANNER.match(s)
        if b:
            state = {"has no active members": "Empty", "is rebalancing": "Rebalancing",
                     "does not exist": "Dead"}.get(b.group("what"))  # 0.10.0's "does not exist or is rebalancing": either
            if state is not None:
                self.group_state[b.group("group")] = state
            return IGNORE
        if _HEADER_START.match(s):
            cols = _split_header(s)
            if cols:
                self.columns = cols
                self.offsets = _column_offsets(raw.lstrip(), cols)
                return IGNORE
            return None
        if _NOISE.match(s):
            return IGNORE
        return self._row(s, raw.lstrip())

    def _row(self, s: str, raw_row: str = "") -> Match | None:
        columns = self.columns
        if columns is None:
            columns = _GUESS.get(len(s.split()))
            if columns is None:
                return None
        cells = self._cells(s, columns)
        if cells is None and self.columns is not None and self.offsets:
            cells = _aligned_cells(raw_row, self.offsets)
        cut = False
        if cells is None and self.columns is not None:
            cells = _cut_cells(s, raw_row, columns, self.offsets)
            cut = cells is not None
        if cells is None:
            return None
        fields: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for col, cell in zip(columns, cells, strict=False):
            name = _COLUMN[col]
            value: Any = None if cell in _MISSING else cell
            if value is not None and name in _INT_FIELDS:
                try:
                    value = int(value)
                except ValueError:
                    return None
            if name == "coordinator" and value is not None:
                cm = _COORDINATOR_CELL.match(value)
                if cm:
                    extra["coordinator_host"] = cm.group(1)
                    value = cm.group(2)
            if name == "owner":
                extra["owner"] = cell
                if value is not None and "_/" in value:  # 0.10.0: "<clientId>_<clientHost>"
                    fields["client_id"], extra["host"] = value.rsplit("_/", 1)[0], "/" + value.rsplit("_/", 1)[1]
                continue
            if name == "assignment" and value is not None:
                extra["assignment"] = value
                parts = _assignment_partitions(value)
                if parts:
                    fields["partitions"] = parts
                continue
            if name == "target_assignment" and value is not None:
                extra["target_assignment"] = value
                extra["target_partitions"] = list(_assignment_partitions(value))
                continue
            if value is None:
                if name in ("offset", "lag", "log_end_offset"):
                    extra[name] = None  # "-"/"unknown": no committed offset (or no end offset)
                continue
            if name in _EVENT_FIELDS:
                fields[name] = value
            else:
                extra[name] = value
        table = "offsets" if "TOPIC" in columns else "members" if "CONSUMER-ID" in columns else "state"
        if table == "offsets" and ("partition" not in fields or "topic" not in fields):
            # a member that holds no partition: ConsumerGroupCommand (0.10.1+) prints it as an offsets row
            # of MISSING_COLUMN_VALUE cells (topic, partition, offsets, lag all "-") with its id, host and
            # client id (collectConsumerAssignment: `if (topicPartitions.isEmpty)`)
            if "topic" in fields or "partition" in fields or "member_id" not in fields:
                return None
            extra["partition_count"] = 0
        if cut:
            extra["cut_columns"] = columns[len(cells):]
        if cut and (table == "state" and "coordinator" not in fields or table == "members" and "member_id" not in fields):
            return None
        if "group_id" not in fields and self.group_from_command:
            fields["group_id"] = self.group_from_command
        extra["table"] = table
        if fields.get("group_id") in self.group_state:
            extra["group_state"] = self.group_state[fields["group_id"]]
        fields["extra"] = extra
        return Match(f"describe_{table}_row", "describe_row", fields)

    @staticmethod
    def _cells(s: str, columns: list[str]) -> list[str] | None:
        if "COORDINATOR (ID)" in columns:
            cm = _COORDINATOR_CELL.search(s)
            if cm:  # "host:port  (id)" holds spaces: glue it back into one cell
                s = s[: cm.start()] + cm.group(1) + "(" + cm.group(2) + ")" + s[cm.end():]
        parts = s.split()
        if "COORDINATOR (ID)" in columns:
            parts = [re.sub(r"^(\S+:\d+)\((-?\d+)\)$", r"\1  (\2)", p) for p in parts]
        n = len(columns)
        spacey = ("ASSIGNMENT", "CURRENT-ASSIGNMENT", "TARGET-ASSIGNMENT")
        only_last = columns[-1] in spacey and not any(c in spacey for c in columns[:-1])
        if only_last and len(parts) >= n - 1:
            # trailing assignment list holds ", " separators; it may also be absent (non-verbose rows)
            head = parts[: n - 1]
            tail = " ".join(parts[n - 1:])
            return head + [tail]
        if len(parts) != n:
            return None
        return parts


_KEY_COLUMNS = {"offsets": ("TOPIC", "PARTITION"), "members": ("CONSUMER-ID",), "state": ("COORDINATOR (ID)",)}


def _cut_cells(s: str, raw_row: str, columns: list[str], offsets: list[int] | None) -> list[str] | None:
    """The leading cells of a row whose end was cut off (a pasted excerpt, a terminal's width): kept when
    they hold the columns that name the row (offsets: TOPIC and PARTITION, members: CONSUMER-ID, state:
    COORDINATOR (ID)). The cell the cut falls in is dropped: the last one, unless whitespace follows it in
    the raw row (a cut may have shortened it: `93` of `930`). Where the row is aligned on the header's
    column starts (the tool pads every cell to its column), the cells are cut there, so that a cell holding
    spaces (a kafka-go client id `name (github.com/segmentio/kafka-go)`) is never split into two."""
    if any(c in columns for c in ("ASSIGNMENT", "CURRENT-ASSIGNMENT", "TARGET-ASSIGNMENT")) and "COORDINATOR (ID)" not in columns:
        return None  # members tables: their own rule for a missing trailing assignment (_cells)
    parts = s.split()
    starts = [o for o in offsets or () if o < len(raw_row.rstrip())]
    if starts and all(o == 0 or raw_row[o - 1].isspace() and not raw_row[o].isspace() for o in starts):
        parts = [raw_row[o:(starts[i + 1] if i + 1 < len(starts) else len(raw_row))].strip()
                 for i, o in enumerate(starts)]
    elif "COORDINATOR (ID)" in columns:
        cm = _COORDINATOR_CELL.search(s)
        if cm is None:
            return None
        parts = s[: cm.start()].split() + [cm.group(1) + "  (" + cm.group(2) + ")"] + s[cm.end():].split()
    if not raw_row[-1:].isspace() and parts:
        parts = parts[:-1]
    if not parts or len(parts) >= len(columns):
        return None
    table = "offsets" if "TOPIC" in columns else "members" if "CONSUMER-ID" in columns else "state"
    if any(k not in columns[: len(parts)] for k in _KEY_COLUMNS[table]):
        return None
    return parts


def _column_offsets(header: str, cols: list[str]) -> list[int]:
    offsets, pos = [], 0
    for col in cols:
        pos = header.index(col, pos)
        offsets.append(pos)
        pos += len(col)
    return offsets


def _aligned_cells(row: str, offsets: list[int]) -> list[str] | None:
    """Cut a row at the header's column starts: for cells holding spaces in the middle of a row (4.x
    `--members --verbose` CURRENT-ASSIGNMENT). Only when every cut falls on a space."""
    cells = []
    for i, start in enumerate(offsets):
        end = offsets[i + 1] if i + 1 < len(offsets) else len(row)
        if start > len(row) or (start > 0 and not row[start - 1].isspace()):
            return None
        cell = row[start:end].strip()
        if not cell:
            return None
        cells.append(cell)
    return cells


_TP_GROUP = compile_regex(r"([^\s(,]*)\(([\d,]*)\)")
_TP_COLON = compile_regex(r"([^;:\s]+):([\d,]+)")


def _assignment_partitions(text: str) -> tuple[str, ...]:
    """Assignment cells -> ("orders-0", ...): 2.x/3.x `orders(0,1,2), audit(3)`, 4.x `audit:3;orders:0,1,2`;
    the topic-less 3.x rendering `(0,1), (3)` gives ()."""
    out: list[str] = []
    if "(" in text:
        for topic, nums in _TP_GROUP.findall(text):
            if not topic:
                return ()
            out.extend(f"{topic}-{n}" for n in nums.split(",") if n)
    else:
        for topic, nums in _TP_COLON.findall(text):
            out.extend(f"{topic}-{n}" for n in nums.split(",") if n)
    return tuple(out)
