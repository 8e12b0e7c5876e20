"""Reason strings -> rebalance causes and leave reasons.

The broker prints why it moved a group to PreparingRebalance; the strings below are the ones built in
kafka.coordinator.group.GroupCoordinator (Scala, 0.11 - 3.x; "client reason" suffix from 3.2, KIP-800)
and its Java successor org.apache.kafka.coordinator.group.GroupMetadataManager (3.7+, classic groups),
which kept the same wording. Client reasons are those of AbstractCoordinator / ConsumerCoordinator
`requestRejoin` (3.0+) and `maybeLeaveGroup` (2.4+), see shared/formats/kafka-coordinator-reason-strings.tsv.
"""

from __future__ import annotations

import re

# Causes of a rebalance (the `cause` column of the generations table). The first nine are the
# issue's vocabulary; the last four name client/broker reasons that fit none of them exactly.
CAUSES: dict[str, str] = {
    "member_joined": "a new member joined the group",
    "member_left": "a member left the group with a LeaveGroup request (shutdown, unsubscribe)",
    "poll_timeout": "a member exceeded max.poll.interval.ms and left the group",
    "session_expiry": "the broker expired a member that sent no heartbeat within session.timeout.ms",
    "static_member_restart": "a static member (group.instance.id) came back with a new member id",
    "metadata_or_subscription_change": "a member rejoined because topic metadata or its subscription changed",
    "coordinator_failover": "the group moved to another coordinator broker",
    "leader_rejoin": "the group leader rejoined",
    "unknown": "the logs do not show why; the missing evidence is named",
    "enforced_rebalance": "the application called enforceRebalance()",
    "cooperative_follow_up": "second rebalance of the cooperative protocol, to hand over revoked partitions",
    "sync_timeout": "members did not send SyncGroup within the rebalance timeout",
    "assignment_store_failed": "the coordinator failed to persist the leader's assignment",
    # consumer protocol (KIP-848): GroupMetadataManager fences a member that does not revoke in time
    "rebalance_timeout": "a member did not finish revoking partitions within its rebalance timeout and was fenced",
}

_MEMBER = r"(\S+?)"
_PREPARE_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # GroupCoordinator.onExpireHeartbeat (0.11+): "removing member X on heartbeat expiration"
    (re.compile(r"[Rr]emoving member " + _MEMBER + r" on heartbeat expiration"), "session_expiry"),
    # GroupMetadataManager 4.x classic group (classicGroupLeave): "explicit `LeaveGroup` request for (X, Y) members."
    (re.compile(r"explicit `LeaveGroup` request for \(" + r"([^,)\s]+)"), "member_left"),
    # GroupCoordinator.handleLeaveGroup (2.4+): "Removing member X on LeaveGroup[; client reason: ...]"
    (re.compile(r"[Rr]emoving member " + _MEMBER + r" on LeaveGroup"), "member_left"),
    # GroupCoordinator.addMemberAndRebalance: "Adding new member X with group instance id Y" (2.4+);
    # 2.1 - 2.3 print "Adding new member X" alone
    (re.compile(r"Adding new member " + _MEMBER
                + r"(?: with group ?instance ?id (Some\([^)]*\)|Optional\[[^\]]*\]|\S+?))?(?:;|\)|$)"), "member_joined"),
    # updateStaticMemberAndRebalance (2.3+): "Updating metadata for static member X with instance id Y"
    (re.compile(r"Updating metadata for static member " + _MEMBER + r" with instance id"), "static_member_restart"),
    (re.compile(r"static member " + _MEMBER + r" with instance id \S+ joined with change of protocol"),
     "metadata_or_subscription_change"),
    # handleJoinGroup for a known member: leader rejoin / metadata update / rejoin during a state
    # "Leader X re-joining group during Stable" (3.x); 2.x prints "leader" in lower case
    (re.compile(r"[Ll]eader " + _MEMBER + r" re-joining group"), "leader_rejoin"),
    (re.compile(r"Updating metadata for member " + _MEMBER + r" during"), "metadata_or_subscription_change"),
    (re.compile(r"Member " + _MEMBER + r" joining group during"), "member_joined"),
    # onGroupLoaded (2.2+): a freshly loaded group over group.max.size
    (re.compile(r"Freshly-loaded group is over capacity()"), "coordinator_failover"),
    # onExpirePendingSync (2.8+ / KAFKA-12890): members that never sent SyncGroup
    (re.compile(r"Removing (.*?) on pending sync request expiration"), "sync_timeout"),
    (re.compile(r"Error \S+ when storing group assignment during SyncGroup \(member: " + _MEMBER + r"\)"),
     "assignment_store_failed"),
)

# client reasons, as printed by "Request joining group due to: {}" or after "client reason: "
_CLIENT_RULES: tuple[tuple[str, str], ...] = (
    ("from unsubscribed", "member_joined"),          # KIP-848 member: UNSUBSCRIBED -> JOINING
    ("poll timeout", "poll_timeout"),
    ("being closed", "member_left"),
    ("unsubscribed", "metadata_or_subscription_change"),
    ("metadata has changed", "metadata_or_subscription_change"),
    ("subscription has changed", "metadata_or_subscription_change"),
    ("does not match the current subscription", "metadata_or_subscription_change"),
    ("enforced by user", "enforced_rebalance"),
    ("need to revoke partitions", "cooperative_follow_up"),
    ("need to re-join with the given member-id", "member_joined"),
)


def classify_client_reason(reason: str | None) -> str | None:
    """A client's rejoin/leave reason -> cause, or None when it does not name one."""
    if not reason:
        return None
    low = reason.lower()
    for needle, cause in _CLIENT_RULES:
        if needle in low:
            return cause
    return None


def classify_prepare_reason(reason: str | None) -> tuple[str, str | None, str | None]:
    """Broker "(reason: ...)" of "Preparing to rebalance" -> (cause, trigger member, instance id)."""
    if not reason:
        return "unknown", None, None
    for rx, cause in _PREPARE_RULES:
        m = rx.search(reason)
        if not m:
            continue
        member = m.group(1) or None
        instance = None
        if cause == "member_joined" and m.lastindex and m.lastindex >= 2:
            inst = m.group(2)
            sm = re.match(r"(?:Some\(|Optional\[)(.*)[)\]]$", inst or "")
            instance = sm.group(1) if sm else (None if inst in (None, "None", "null", "Optional.empty") else inst)
        client = client_reason_of(reason)
        ccause = classify_client_reason(client)
        if cause == "member_left" and ccause in ("poll_timeout", "metadata_or_subscription_change"):
            cause = ccause if ccause == "poll_timeout" else "member_left"
        elif cause in ("leader_rejoin", "metadata_or_subscription_change", "member_joined") and ccause in (
                "metadata_or_subscription_change", "enforced_rebalance", "cooperative_follow_up"):
            # the leader (or a member) rejoined *because* of what its client reason says: the leader
            # watches topic metadata (ConsumerCoordinator.rejoinNeededOrPending) and hands revoked
            # partitions over in the cooperative protocol; without such a reason it stays leader_rejoin
            cause = ccause
        return cause, member, instance
    return "unknown", None, None


def client_reason_of(reason: str) -> str | None:
    i = reason.find("client reason: ")
    return reason[i + len("client reason: "):].strip() if i >= 0 else None


def classify_leave(reason: str | None, raw: str | None = None) -> str:
    """Why a member left: poll_timeout | shutdown | unsubscribed | fenced | left."""
    text = f"{reason or ''} {raw or ''}".lower()
    if "poll timeout" in text or "max.poll.interval" in text:
        return "poll_timeout"
    if "being closed" in text or "closing" in text or "shutdown" in text or "shutting down" in text:
        return "shutdown"
    if "unsubscribed" in text:
        return "unsubscribed"
    if "fenced" in text:
        return "fenced"
    return "left"


def classify_removal(reason: str | None, raw: str | None) -> str:
    """Broker member removal line -> leave reason (session_expiry | left | poll_timeout | rebalance_timeout | sync_timeout)."""
    text = f"{reason or ''} {raw or ''}"
    low = text.lower()
    if "has failed" in low or "heartbeat expiration" in low or "session timeout" in low:
        return "session_expiry"    # GroupCoordinator.onExpireHeartbeat
    if "haven't joined" in low or "have not joined" in low:
        return "rebalance_timeout"  # onCompleteJoin removes members that did not rejoin in time (2.x+)
    if "sync request" in low or "sync expiration" in low:
        return "sync_timeout"
    if "poll timeout" in low:
        return "poll_timeout"
    # "has left group G through explicit `LeaveGroup`; client reason: the consumer is being closed" (3.2+)
    client = client_reason_of(text)
    if client:
        why = classify_leave(client)
        if why != "left":
            return why
    return "left"


PREPARE_OLD_GEN = re.compile(r"old generation (\d+)")
STATIC_REPLACE = re.compile(
    r"[Ss]tatic member (\S+?) of group \S+ with unknown member id rejoins, assigning new member id (\S+?), "
    r"while old member(?: id)? (\S+?) will be removed")
ASSIGNMENT_FROM_LEADER = re.compile(r"Assignment received from leader (\S+) for group")


def delivered_late(ev) -> bool:
    """Is this client line's time when it was printed rather than when it happened? confluent-kafka-
    python hands librdkafka's lines to a Python logger through a log queue served inside poll()
    (confluent_kafka.c: log.queue=true with a logger; Consumer.c forwards it to the consumer queue),
    so what librdkafka wrote while the application was busy is printed at its next poll()."""
    return ev.client_library == "librdkafka" and bool(ev.extra) and ev.extra.get("binding") == "python"


def poll_leaver(library: str | None) -> str:
    """Who leaves the group when the poll interval expires, per client library ("... the group")."""
    if library == "librdkafka":
        # rdkafka_cgrp.c rd_kafka_cgrp_max_poll_interval_check_tmr_cb: MAXPOLL warning, LeaveGroup
        return "librdkafka's max.poll.interval.ms check (MAXPOLL) made the client leave"
    return "its heartbeat thread left"
