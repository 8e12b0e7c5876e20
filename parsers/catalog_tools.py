"""Turn Kafka client log templates (SLF4J `{}` placeholders) into message rules.

Used twice: by `scripts/gen_client_catalog.py`, which writes `parsers/client_catalog.py` from the
template catalog (`shared/formats/kafka-coordinator-log-templates.tsv`), and by the tests, which
render every catalog template with sample values and check that it parses to the right kind.

A placeholder's argument expression (the TSV `args:` note, e.g. `generation.generationId`) decides
which Event field the value lands in and how narrow its regex is.
"""

from __future__ import annotations

import re

# argument expression -> Event field (or a pseudo field that the client parser post-processes)
_ARG_FIELDS: list[tuple[str, str]] = [
    (r"groupId", "group_id"),
    # the local epoch of AbstractMembershipManager's LocalAssignment (3.7+) counts the member's own
    # assignments (bumped on each new target assignment): not the broker's member epoch
    (r".*localEpoch.*", "local_epoch"),
    (r".*memberEpoch.*|memberEpochOnReconciliationStart", "member_epoch"),
    (r".*memberId.*|.*memberId\(\).*", "member_id"),
    (r".*generationId", "generation"),
    (r"generation|sentGeneration|this\.generation|currentGeneration|generationSnapshot|"
     r"AbstractCoordinator\.this\.generation|generation\(\)", "generation_obj"),
    (r".*[gG]roupInstanceId.*", "instance_id"),
    (r"coordinator|this\.coordinator|coordinator\(\)|oldCoordinator|node|this\.coordinator\.id\(\)|node\.id\(\)",
     "coordinator"),
    (r"reason|leaveReason|fullReason|shortReason", "reason"),
    (r"tp|partition|topicPartition", "tp"),
    (r"offset|offsetData\.offset|fetchOffset|committed", "offset"),
    (r"position|newPosition|currentPosition", "position"),
    (r"offsets|allConsumedOffsets|request\.offsets|offsetAndMetadata", "offsets"),
    (r"assignment|assignments|currentTargetAssignment|updatedAssignment|assignmentReadyToReconcile|"
     r"currentAssignment|resolvedAssignment\.partitions|totalAddedPartitions", "assignment"),
    (r".*[pP]artitions.*|.*partitionsToRevoke.*|revoked", "partitions"),
    (r"protocolName|generation\.protocolName|generation\(\)\.protocolName|.*protocolName\(\)", "protocol"),
    (r"state|previousState", "from_state"),
    (r"nextState|MemberState\.\w+|stateSnapshot", "to_state"),
    (r"e|exception|error|errorMessage|cause|throwable|t|responseError|commitReqError|fatalException|"
     r"callbackError|.*[mM]essage\(\)|.*getMessage\(\)|.*exception\(\).*|error\.exception\(\)|"
     r"fencedError|Errors\..*", "error"),
    (r"heartbeatRequestName\(\)|api|requestDescription\(\)", "request"),
    (r"joinResponse.*|syncResponse.*|resp|response|request|requestBuilder|this", "struct"),
    (r"isDisconnected", "is_disconnected"),
    (r"durationOfOngoingDisconnect\w*", "disconnect_ms"),
    (r"assignor\.name\(\)|assignorName", "assignor"),
    (r"subscriptions|subscriptions\.subscription\(\)|joinedSubscription|this\.subscription|topics|"
     r"String\.join.*|Utils\.join\(topics.*|subscriptions\.prettyString\(\)", "topics"),
]
_ARG_RX = [(re.compile(f"(?:{p})$"), f) for p, f in _ARG_FIELDS]

# how narrow a placeholder's regex is, by field; everything else is "any text" (non-greedy)
HOLE_REGEX: dict[str, str] = {
    "generation": r"-?\d+",
    "member_epoch": r"-?\d+",
    "local_epoch": r"-?\d+",
    "member_id": r"\S*?",
    "offset": r"-?\d+",
    "disconnect_ms": r"\d+",
    "is_disconnected": r"true|false",
}
# sample values for rendering templates in tests (field -> text)
SAMPLE: dict[str, str] = {
    "group_id": "my-group",
    "member_epoch": "7",
    "local_epoch": "3",
    "member_id": "consumer-my-group-1-8d2e4b6a",
    "generation": "5",
    "generation_obj": "Generation{generationId=5, memberId='consumer-my-group-1-8d2e4b6a', protocol='range'}",
    "instance_id": "instance-1",
    "coordinator": "broker1:9092 (id: 2147483646 rack: null)",
    "reason": "group is already rebalancing",
    "tp": "orders-3",
    "offset": "42",
    "position": "FetchPosition{offset=42, offsetEpoch=Optional[0], currentLeader=LeaderAndEpoch{leader=Optional[broker1:9092 (id: 1 rack: null)], epoch=0}}",
    "offsets": "{orders-3=OffsetAndMetadata{offset=42, leaderEpoch=0, metadata=''}}",
    "assignment": "Assignment(partitions=[orders-0, orders-1])",
    "partitions": "[orders-0, orders-1]",
    "protocol": "range",
    "from_state": "STABLE",
    "to_state": "RECONCILING",
    "error": "The coordinator is not aware of this member.",
    "request": "ConsumerGroupHeartbeatRequest",
    "is_disconnected": "false",
    "disconnect_ms": "1200",
    "assignor": "range",
    "topics": "orders",
    "struct": "JoinGroupResponseData(throttleTimeMs=0, errorCode=0, generationId=5, protocolType='consumer', protocolName='range', leader='consumer-my-group-1-8d2e4b6a', memberId='consumer-my-group-1-8d2e4b6a', members=[])",
}


def split_args(notes: str) -> list[str]:
    m = re.search(r"args: (.*?)(?:;|$)", notes)
    if not m:
        return []
    out, depth, cur = [], 0, ""
    for ch in m.group(1):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def arg_field(arg: str) -> str | None:
    arg = arg.strip()
    for rx, f in _ARG_RX:
        if rx.match(arg):
            return f
    return None


def hole_fields(template: str, notes: str) -> list[str | None]:
    """The field each `{}` of the template carries (None = not extracted)."""
    n = template.count("{}")
    args = split_args(notes)
    # leading {} of the 3.7+/4.x heartbeat managers is the request name, not an argument
    lead = "leading {} =" in notes or template.startswith("{}") and "heartbeatRequestName()" not in args
    fields: list[str | None] = [arg_field(a) for a in args]
    if "COMPOSITE" in notes and " in {}ms: {}" in template:
        # String.format message logged as '{} in {}ms: {}' (backoff, broker error message)
        fields = fields[: n - 2] if len(fields) >= n - 2 else fields
    if lead and (not fields or fields[0] != "request") and template.startswith("{}"):
        fields = ["request", *fields]
    if template.endswith(" in {}ms: {}") and "COMPOSITE" in notes:
        fields = fields[: n - 2] + [None] * max(0, n - 2 - len(fields[: n - 2]))
        fields = fields[: n - 2] + ["backoff_ms", "error"]
    fields = (fields + [None] * n)[:n]
    if not args:
        # a template the catalog names no argument expressions for (the heartbeat managers' String.format
        # messages, 3.7+): a hole is read by the word before it, where that word says what it holds
        lits = template.split("{}")
        for i in range(n):
            if fields[i] is None:
                fields[i] = next((f for w, f in _HOLE_WORDS if lits[i].endswith(w)), None)
    return fields


# the word before a hole of a template without argument expressions -> the field it holds
_HOLE_WORDS: tuple[tuple[str, str], ...] = (
    (" member ", "member_id"), (" epoch ", "member_epoch"), (" coordinator ", "coordinator"))


def unescape(template: str) -> str:
    return template.replace("\\n", "\n").replace("\\t", "\t")


def template_regex(template: str, fields: list[str | None]) -> str:
    """Anchored regex for a template, named groups per extracted field (duplicates get _2, _3)."""
    text = unescape(template).rstrip("\n")
    parts = text.split("{}")
    seen: dict[str, int] = {}
    out = ["^"]
    for i, lit in enumerate(parts):
        lit_rx = re.escape(lit)
        # trailing spaces and runs of spaces in templates are not reliable in logs
        lit_rx = re.sub(r"(\\ )+", lambda m: r"\s+" if len(m.group(0)) > 2 else r"\ ", lit_rx)
        out.append(lit_rx)
        if i < len(parts) - 1:
            f = fields[i]
            last = i == len(parts) - 2 and parts[-1].strip() == ""
            body = HOLE_REGEX.get(f or "", r".*" if last else r".*?")
            if f == "backoff_ms":
                body = r"\d+"
            if f is None:
                out.append(f"(?:{body})")
            else:
                seen[f] = seen.get(f, 0) + 1
                name = f if seen[f] == 1 else f"{f}_{seen[f]}"
                out.append(f"(?P<{name}>{body})")
    out.append(r"\s*$")
    return "".join(out)


def render(template: str, fields: list[str | None]) -> str:
    """Fill a template with sample values (tests)."""
    text = unescape(template).rstrip("\n")
    parts = text.split("{}")
    out = [parts[0]]
    for i, lit in enumerate(parts[1:]):
        f = fields[i]
        out.append("300" if f == "backoff_ms" else SAMPLE.get(f or "", "x"))
        out.append(lit)
    return "".join(out)


def literal_len(template: str) -> int:
    return len(template.replace("{}", "").strip())


def dispatch_key(template: str) -> str:
    """The message's first word when the template starts with a literal word, else '' (generic)."""
    text = unescape(template)
    head = text.split(" ", 1)[0]
    if "{}" in head or not head:
        return ""
    return head


# template catalog event class -> Event kind (refined by the template's wording where the
# vocabulary distinguishes more than the catalog does)
CLASS_KINDS: dict[str, str] = {
    "assignment_received": "assignment_received",
    "coordinator_dead": "coordinator_lost",
    "coordinator_discovered": "coordinator_discovered",
    "coordinator_lookup": "coordinator_lookup",
    "generation_reset": "generation_reset",
    "heartbeat_failed": "heartbeat_failed",
    "heartbeat_request": "heartbeat_sent",
    "heartbeat_success": "heartbeat_succeeded",
    "heartbeat_thread": "heartbeat_thread",
    "join_request": "join_started",
    "join_success": "join_succeeded",
    "leave_group": "leave_group",
    "member_fenced": "member_fenced",
    "member_state": "member_state_changed",
    "offset_commit": "offset_committed",
    "offset_commit_failed": "offset_commit_failed",
    "offset_fetch": "offset_fetched",
    "offset_reset": "offset_reset",
    "partitions_assigned": "partitions_assigned",
    "partitions_lost": "partitions_lost",
    "partitions_revoked": "partitions_revoked",
    "poll_timeout": "poll_timeout",
    "rebalance_failed": "rebalance_failed",
    "subscription_change": "subscription_changed",
    "sync_request": "sync_started",
    "sync_success": "sync_succeeded",
}
# kinds a catalog class may be refined into (tests accept any of these for the class)
CLASS_REFINEMENTS: dict[str, set[str]] = {
    "rebalance_failed": {"join_failed", "sync_failed"},
    "partitions_revoked": {"assignment_received"},
    "offset_commit": {"offset_commit_sent"},
    "offset_fetch": {"no_committed_offset", "offset_fetch_sent", "offset_fetch_failed"},
    "assignment_received": {"assignment_started"},
    "offset_reset": {"no_committed_offset", "offset_seek", "offset_fetched"},
    "leave_group": {"poll_timeout"},
    "join_request": {"rebalance_failed", "poll_timeout"},
}


def classify(event_class: str, template: str) -> str | None:
    kind = CLASS_KINDS.get(event_class)
    if kind is None:
        return None
    t = template
    if event_class == "rebalance_failed":
        if re.match(r"(JoinGroup|Attempt to join group|Failed to join group|Received unsuccessful JoinGroup)", t):
            return "join_failed"
        if re.match(r"(SyncGroup|Attempt to sync group|Failed to sync group|Received unsuccessful SyncGroup)", t):
            return "sync_failed"
    if re.match(r"(Reconciling assignment|Updating assignment with)", t):
        return "assignment_received"
    if event_class == "offset_commit" and re.match(r"(Sending|Enqueuing)", t):
        return "offset_commit_sent"
    if event_class in ("offset_fetch", "offset_reset") and re.search(r"[Nn]o committed offset", t):
        return "no_committed_offset"
    if event_class == "assignment_received" and re.match(r"Performing ", t):
        # the group leader starting to compute the assignment (ConsumerCoordinator 0.9+ DEBUG "Performing
        # assignment using strategy {} with subscriptions {}"): no member has received anything yet
        return "assignment_started"
    if event_class == "offset_fetch":
        # the catalogue's offset_fetch class holds the request, its failures and its result; only a
        # result is a fetched offset (ConsumerCoordinator / CommitRequestManager / Fetcher, 0.9+)
        if re.match(r"(Fetching committed|Group \{\} fetching committed|Enqueuing offset fetch|Duplicated|"
                    r"OffsetFetch request to remove)", t):
            return "offset_fetch_sent"
        if re.search(r"[Ff]ailed|[Ee]rror fetching|timed out|unstable offsets|Ignoring the returned", t):
            return "offset_fetch_failed"
    if event_class == "offset_reset":
        if t.startswith("Seeking"):
            return "offset_seek"
        if t.startswith("Setting offset for partition"):
            return "offset_fetched"
    return kind
