"""Replay settings: what the user sets, what the logs print, else Kafka's defaults per version.

Defaults mirror `clients/src/main/java/org/apache/kafka/clients/consumer/ConsumerConfig.java` per
release line (the `define(...)` default of each key), as tabulated in
shared/formats/log-prefixes-and-defaults.md section 5:
  0.9.0 - 0.10.0.x  session.timeout.ms 30000; no max.poll.interval.ms (JoinGroup v0: the rebalance
                    timeout is the session timeout)
  0.10.1 - 2.8.x    session.timeout.ms 10000 (KIP-62 lowered it once the heartbeat got its own thread),
                    max.poll.interval.ms 300000 (KIP-62: rebalance timeout = max.poll.interval.ms)
  3.0.0+            session.timeout.ms 45000 (KIP-735), max.poll.interval.ms 300000
  heartbeat.interval.ms 3000 in all versions; partition.assignment.strategy RangeAssignor (< 3.0),
  [RangeAssignor, CooperativeStickyAssignor] (3.0+, KIP-726: range is still what a group of such
  members votes for). Broker side (`KafkaConfig` / GroupCoordinatorConfig):
  group.initial.rebalance.delay.ms 3000 from 0.11.0 (KIP-134), none before.

The version is read per side: the clients' `kafka_version_hint` for the client settings; without
one, the brokers' (clients are rarely newer than the brokers they were deployed with), and the
settings line says so; without any, Kafka 3.x is assumed and said to be assumed. A printed
`ConsumerConfig values:` block wins over every default.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from typing import Any

from parsers.events import Event
from pipeline.replay_rules.lazy_text import contains_any

# knobs a user may change with `--set name=value` (Kafka config names, plus replay's own)
SETTABLE: dict[str, str] = {
    "session.timeout.ms": "session_timeout_ms",
    "max.poll.interval.ms": "max_poll_interval_ms",
    "heartbeat.interval.ms": "heartbeat_interval_ms",
    "rebalance.timeout.ms": "rebalance_timeout_ms",
    "partition.assignment.strategy": "assignor",
    # the consumer protocol's broker settings (GroupCoordinatorConfig 4.x) and the client's assignor choice
    "group.consumer.session.timeout.ms": "session_timeout_ms",
    "group.consumer.heartbeat.interval.ms": "heartbeat_interval_ms",
    "group.remote.assignor": "assignor",
    "group.initial.rebalance.delay.ms": "initial_rebalance_delay_ms",
    "storm.count": "storm_count",
    "storm.window.ms": "storm_window_ms",
    "clock.skew.tolerance.ms": "skew_tolerance_ms",
    "unowned.threshold.ms": "unowned_threshold_ms",
}


# Settings that are intervals or counts the replay steps by: zero or less would never advance
# (the model's heartbeat loop would spin forever), so they must be at least 1. Kafka's ConfigDef
# types them INT: at most 2^31-1. group.initial.rebalance.delay.ms may be 0 (KafkaConfig atLeast(0)).
POSITIVE = frozenset({"session_timeout_ms", "max_poll_interval_ms", "heartbeat_interval_ms", "rebalance_timeout_ms",
                      "storm_count", "storm_window_ms"})
INT_MAX = 2_147_483_647


@dataclass(frozen=True)
class ReplaySettings:
    """Explicit settings (None = take from the logs, else Kafka's default for the version seen)."""

    session_timeout_ms: int | None = None
    max_poll_interval_ms: int | None = None
    heartbeat_interval_ms: int | None = None
    rebalance_timeout_ms: int | None = None
    assignor: str | None = None
    initial_rebalance_delay_ms: int | None = None
    kafka_version: str | None = None
    # analysis thresholds (not Kafka settings)
    storm_count: int = 5                 # this many rebalances ...
    storm_window_ms: int = 600_000       # ... starting within this window make a storm
    skew_tolerance_ms: int = 2_000       # clock skew between hosts tolerated before ordering claims
    unowned_threshold_ms: int = 60_000   # a partition unowned longer than this is reported

    def with_overrides(self, pairs: dict[str, str]) -> ReplaySettings:
        """Apply `name=value` pairs (Kafka config names); raises ValueError naming a bad pair."""
        changes: dict[str, Any] = {}
        for name, value in pairs.items():
            attr = SETTABLE.get(name)
            if attr is None:
                raise ValueError(f"unknown setting {name!r} (known: {', '.join(sorted(SETTABLE))})")
            if attr == "assignor":
                changes[attr] = normalize_assignor(value)
                continue
            try:
                changes[attr] = int(value)
            except ValueError:
                raise ValueError(f"{name} needs an integer number of ms, got {value!r}") from None
            low = 1 if attr in POSITIVE else 0
            if not low <= changes[attr] <= INT_MAX:
                raise ValueError(f"{name} must be {'at least 1' if low else 'zero or more'} "
                                 f"(and at most {INT_MAX}), got {value!r}")
        new = replace(self, **changes)
        # Heartbeat.java (0.9+) / GroupRebalanceConfig (2.3+): "Heartbeat must be set lower than the
        # session timeout" -- a client with these settings would not start.
        hb, session = new.heartbeat_interval_ms, new.session_timeout_ms
        if hb is not None and session is not None and hb >= session:
            raise ValueError(f"heartbeat.interval.ms ({hb}) must be lower than session.timeout.ms ({session}), "
                             "as Kafka's clients require")
        return new


@dataclass
class EffectiveSettings:
    """The settings in force for one group, each with where it came from."""

    session_timeout_ms: int
    max_poll_interval_ms: int | None
    heartbeat_interval_ms: int
    rebalance_timeout_ms: int
    assignor: str
    initial_rebalance_delay_ms: int
    version: tuple[int, int, int] | None
    storm_count: int
    storm_window_ms: int
    skew_tolerance_ms: int
    unowned_threshold_ms: int
    origin: dict[str, str] = field(default_factory=dict)   # setting -> "set" | "log source:line" | "default ..."
    client_version: tuple[int, int, int] | None = None
    broker_version: tuple[int, int, int] | None = None
    # what was wrong with a printed value and what was used instead (one sentence each)
    notes: list[str] = field(default_factory=list)
    # group.instance.id per client.id, as the clients' ConsumerConfig dumps print it (static members)
    static_members: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        skip = ("origin", "version", "client_version", "broker_version", "notes")
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in skip}
        d["kafka_version"] = ".".join(map(str, self.version)) if self.version else None
        d["client_version"] = ".".join(map(str, self.client_version)) if self.client_version else None
        d["broker_version"] = ".".join(map(str, self.broker_version)) if self.broker_version else None
        return d

    def is_default(self, attr: str) -> bool:
        """True when the value was not printed in the logs nor set by the user: a version default."""
        return self.origin.get(attr, "").startswith("default")

    def says(self, attr: str, name: str | None = None) -> str:
        """'session.timeout.ms = 10000 ms', followed by '(default of Kafka 2.8.1 clients, assumed: not
        printed in the logs)' when nobody printed or set it: no sentence states an assumed value as fact."""
        name = name or next((k for k, v in SETTABLE.items() if v == attr), attr)
        value = getattr(self, attr)
        text = f"{name} = {value}" + (" ms" if attr.endswith("_ms") and value is not None else "")
        if self.is_default(attr):
            origin = self.origin[attr]
            # a label that already says "assumed" (no version in the logs) is not told twice
            text += f" ({origin}; not printed in the logs)" if "assumed" in origin else \
                f" ({origin}, assumed: not printed in the logs)"
        return text


_ASSIGNOR_NAMES = {
    "range": "range", "rangeassignor": "range",
    "roundrobin": "roundrobin", "roundrobinassignor": "roundrobin",
    "sticky": "sticky", "stickyassignor": "sticky",
    "cooperative-sticky": "cooperative-sticky", "cooperativestickyassignor": "cooperative-sticky",
    # server-side assignors of the consumer protocol (group.consumer.assignors, group.remote.assignor)
    "uniform": "uniform", "uniformassignor": "uniform",
}


def normalize_assignor(value: str) -> str:
    """`org.apache...CooperativeStickyAssignor`, `cooperative-sticky`, `[range, cooperative-sticky]` -> first name."""
    first = value.strip().strip("[]").split(",")[0].strip()
    key = first.rsplit(".", 1)[-1].replace("class ", "").strip().lower()
    if key not in _ASSIGNOR_NAMES:
        raise ValueError(f"unknown assignor {value!r} (range, roundrobin, sticky, cooperative-sticky; uniform for "
                         "consumer-protocol groups)")
    return _ASSIGNOR_NAMES[key]


_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


def parse_version(hint: str | None) -> tuple[int, int, int] | None:
    if not hint:
        return None
    m = _VERSION.search(hint)
    if not m:
        return None
    v = (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))
    # vendor builds such as "8.1.1-ce" (Confluent Platform numbering) are not Apache versions
    return v if v[0] <= 4 else None


def defaults_for(version: tuple[int, int, int] | None) -> dict[str, Any]:
    """Kafka client defaults per release line (ConsumerConfig.java, see module docstring)."""
    v = version or (3, 0, 0)
    if v < (0, 10, 1):
        return {"session_timeout_ms": 30000, "max_poll_interval_ms": None, "assignor": "range"}
    if v < (3, 0, 0):
        return {"session_timeout_ms": 10000, "max_poll_interval_ms": 300000, "assignor": "range"}
    return {"session_timeout_ms": 45000, "max_poll_interval_ms": 300000, "assignor": "range"}


# printed settings: ConsumerConfig dumps ("session.timeout.ms = 45000") and the broker's
# MemberMetadata(... sessionTimeoutMs=30000, rebalanceTimeoutMs=30000 ...) (GroupCoordinator.scala 2.x-3.x)
_PRINTED = (
    ("session_timeout_ms", re.compile(r"session\.timeout\.ms\s*=\s*(\d+)|sessionTimeoutMs=(\d+)")),
    ("max_poll_interval_ms", re.compile(r"max\.poll\.interval\.ms\s*=\s*(\d+)")),
    ("heartbeat_interval_ms", re.compile(r"heartbeat\.interval\.ms\s*=\s*(\d+)")),
    ("rebalance_timeout_ms", re.compile(r"rebalanceTimeoutMs=(\d+)")),
    ("assignor", re.compile(r"partition\.assignment\.strategy\s*=\s*\[?([\w.$-]+)")),
)
_EXTRA_KEYS = {
    "session_timeout_ms": ("session_timeout_ms", "sessionTimeoutMs", "session.timeout.ms"),
    "max_poll_interval_ms": ("max_poll_interval_ms", "max.poll.interval.ms"),
    "heartbeat_interval_ms": ("heartbeat_interval_ms", "heartbeat.interval.ms"),
    "rebalance_timeout_ms": ("rebalance_timeout_ms", "rebalanceTimeoutMs"),
    "assignor": ("assignor", "partition.assignment.strategy"),
}
# the settings of a `client_config` event (the client's "ConsumerConfig values:" dump, AbstractConfig.logAll)
# and of a `broker_config` event (the broker's "KafkaConfig values:" dump) that replay uses
_CLIENT_CONFIG_KEYS = (
    ("session_timeout_ms", "session.timeout.ms"),
    ("max_poll_interval_ms", "max.poll.interval.ms"),
    ("heartbeat_interval_ms", "heartbeat.interval.ms"),
    ("assignor", "partition.assignment.strategy"),
)
_BROKER_CONFIG_KEYS = (("initial_rebalance_delay_ms", "group.initial.rebalance.delay.ms"),)
_CONFIG_KINDS = frozenset({"client_config", "broker_config"})
# the bulk of a long history, never carrying settings or a version worth a look of their own
_BULK = frozenset({"heartbeat_succeeded", "offset_committed", "offset_record"})
# a line that prints a setting holds one of these words (plain substrings: lazy_text.contains_any)
_HINT_WORDS = ("timeout", "interval", "strategy", "TimeoutMs=")
# high-volume kinds whose lines never print settings
_NO_SETTINGS = frozenset({"heartbeat_succeeded", "offset_committed", "offset_record", "partitions_assigned",
                          "partitions_revoked", "sync_succeeded", "join_succeeded", "offset_fetched"})


def _config_value(name: str, text: str) -> Any:
    """A printed value as replay holds it; ValueError when it is not one (e.g. `null`)."""
    if name == "assignor":
        return normalize_assignor(text)   # "[class org...CooperativeStickyAssignor, ...]" -> first name
    return int(text)


def _from_config(ev: Event, found: dict[str, Any], origin: dict[str, str]) -> None:
    settings = ev.extra.get("settings") if ev.extra else None
    if not isinstance(settings, dict):
        return
    keys = _CLIENT_CONFIG_KEYS if ev.kind == "client_config" else _BROKER_CONFIG_KEYS
    for name, key in keys:
        text = settings.get(key)
        if name in found or text is None:
            continue
        try:
            found[name] = _config_value(name, str(text))
        except ValueError:
            continue
        origin[name] = f"log {ev.evidence}"
    instance = settings.get("group.instance.id")
    if ev.kind == "client_config" and instance not in (None, "", "null"):
        statics = found.setdefault("static_members", {})
        statics.setdefault(ev.client_id or str(settings.get("client.id") or ""), str(instance))
        origin.setdefault("static_members", f"log {ev.evidence}")


def _best(hints: dict[str, int]) -> tuple[int, int, int] | None:
    """The version most lines state ("0.9.0.0..current" is a template's range, not a version)."""
    versions: dict[tuple[int, int, int], int] = {}
    for hint, n in hints.items():
        if ".." in hint:
            continue
        v = parse_version(hint)
        if v is not None:
            versions[v] = versions.get(v, 0) + n
    return max(versions.items(), key=lambda kv: (kv[1], kv[0]))[0] if versions else None


def printed_settings(events: Iterable[Event]) -> tuple[dict[str, Any], dict[str, str], tuple[int, int, int] | None]:
    """Settings the logs print (first occurrence wins), their evidence, and the Kafka version seen
    (the clients' where they state one, else the brokers'); `found["_versions"]` holds both."""
    found: dict[str, Any] = {}
    origin: dict[str, str] = {}
    # every line counts for the version, whatever its kind: a group seen only through commits in a
    # file gets the same version as the other groups of that file
    hints: dict[str, dict[str, int]] = {"client": {}, "broker": {}}
    events = events if isinstance(events, list) else list(events)
    # the lines that may print a setting: their texts searched at once (lazy_text: in slices)
    maybe = [ev for ev in events if ev.kind not in _NO_SETTINGS]
    hinted = {id(ev) for ev, hit in zip(maybe, contains_any(maybe, _HINT_WORDS), strict=True) if hit}
    for ev in events:
        hint = ev.kafka_version_hint
        if hint:
            side = hints["broker" if ev.side == "broker" else "client"]
            side[hint] = side.get(hint, 0) + 1
        if ev.kind in _BULK:
            continue
        if ev.kind in _CONFIG_KINDS:
            _from_config(ev, found, origin)
            continue
        if ev.extra:
            members = ev.extra.get("members")
            if isinstance(members, list) and members and isinstance(members[0], dict):
                # a group metadata record prints each member's timeouts (MemberMetadata)
                for name, key in (("session_timeout_ms", "session_timeout_ms"),
                                  ("rebalance_timeout_ms", "rebalance_timeout_ms")):
                    val = members[0].get(key)
                    if name not in found and isinstance(val, int):
                        found[name], origin[name] = val, f"log {ev.evidence}"
            for name, keys in _EXTRA_KEYS.items():
                if name in found:
                    continue
                for k in keys:
                    if k in ev.extra and ev.extra[k] is not None:
                        try:
                            found[name] = normalize_assignor(str(ev.extra[k])) if name == "assignor" else int(ev.extra[k])
                        except ValueError:
                            continue
                        origin[name] = f"log {ev.evidence}"
                        break
        if id(ev) in hinted:
            raw = ev.raw
            for name, rx in _PRINTED:
                if name in found:
                    continue
                m = rx.search(raw)
                if m:
                    val = next(g for g in m.groups() if g is not None)
                    try:
                        found[name] = normalize_assignor(val) if name == "assignor" else int(val)
                    except ValueError:
                        continue
                    origin[name] = f"log {ev.evidence}"
    client, broker = _best(hints["client"]), _best(hints["broker"])
    found["_versions"] = (client, broker)
    return found, origin, client or broker


def _foreign_client_defaults(events: list[Event]) -> tuple[dict[str, int], str] | None:
    """A group whose client lines all come from one non-Java client (librdkafka, KafkaJS,
    kafka-python, aiokafka, Sarama, franz-go, kafka-go: parsers/foreign) takes that client's own defaults for its version
    (parsers/foreign/defaults.py, each row citing the client's source), with a label saying so.
    None when Java members are in the logs too or no client line names its library."""
    from parsers.foreign.defaults import defaults_for as client_defaults

    libs = {e.client_library for e in events if e.side == "client" and getattr(e, "client_library", None)}
    java = any(e.side == "client" and not getattr(e, "client_library", None) and e.kind != "unparsed" for e in events)
    if len(libs) != 1 or java:
        return None
    lib = libs.pop()
    version = next((str(e.extra.get("client_version")) for e in events
                    if getattr(e, "client_library", None) == lib and e.extra.get("client_version")), None)
    cd = client_defaults(lib, version)
    if cd is None:
        return None
    out = {"session_timeout_ms": cd.session_timeout_ms, "heartbeat_interval_ms": cd.heartbeat_interval_ms}
    if cd.max_poll_interval_ms is not None:
        out["max_poll_interval_ms"] = cd.max_poll_interval_ms
    label = (f"{lib} {version} clients ({cd.source})" if cd.exact and version else
             f"{lib} clients, version not in the logs: the newest defaults ({cd.source}), assumed")
    return out, label


def resolve(events: list[Event], explicit: ReplaySettings) -> EffectiveSettings:
    """Explicit settings win, then what the logs print, then Kafka's defaults for the version seen."""
    printed, origin, version = printed_settings(events)
    client_v, broker_v = printed.pop("_versions", (None, None))
    if explicit.kafka_version:
        version = client_v = parse_version(explicit.kafka_version) or version

    def label(v: tuple[int, int, int], who: str) -> str:
        return f"Kafka {v[0]}.{v[1]}.{v[2]} {who}"
    if client_v is not None:
        vlabel = label(client_v, "clients")
    elif broker_v is not None:
        vlabel = label(broker_v, "broker; the clients' version is not in the logs, taken to be the broker's")
    else:
        vlabel = "Kafka 3.x, assumed: no client or broker version in the logs"
    blabel = (label(broker_v, "broker") if broker_v is not None else
              label(client_v, "clients; the broker's version is not in the logs") if client_v is not None else vlabel)
    dflt = defaults_for(version)
    bv = broker_v or version or (3, 0, 0)
    # GroupCoordinator: group.initial.rebalance.delay.ms (KIP-134, 0.11.0+), 3000 by default
    dflt.update(heartbeat_interval_ms=3000, initial_rebalance_delay_ms=3000 if bv >= (0, 11, 0) else 0)
    foreign = _foreign_client_defaults(events) if client_v is None else None
    if foreign is not None:   # every member of the group is a librdkafka / KafkaJS / Python client
        fdflt, vlabel = foreign
        dflt.update(fdflt)
    values: dict[str, Any] = {}
    for name in ("session_timeout_ms", "max_poll_interval_ms", "heartbeat_interval_ms", "assignor",
                 "initial_rebalance_delay_ms"):
        mine = getattr(explicit, name)
        if mine is not None:
            values[name], origin[name] = mine, "set"
        elif name in printed:
            values[name] = printed[name]
        else:
            values[name], origin[name] = dflt[name], f"default of {blabel if name == 'initial_rebalance_delay_ms' else vlabel}"
    notes: list[str] = []
    for name in ("session_timeout_ms", "max_poll_interval_ms", "heartbeat_interval_ms", "initial_rebalance_delay_ms"):
        low = 1 if name in POSITIVE else 0
        value = values[name]
        if isinstance(value, int) and not low <= value <= INT_MAX and dflt.get(name) is not None:
            # a log printing 0 or a negative interval (or a value Kafka's INT could not hold)
            dlabel = blabel if name == "initial_rebalance_delay_ms" else vlabel
            where = origin.get(name, "the logs")
            values[name] = dflt[name]
            origin[name] = f"default of {dlabel} ({where} printed {value}, not usable)"
            notes.append(f"{_KAFKA_NAME[name]} = {value} printed at {where.removeprefix('log ')} is not a usable "
                         f"value; the replay uses {dflt[name]} instead (default of {dlabel})")
    # the rebalance timeout is the JoinGroup's rebalanceTimeoutMs: max.poll.interval.ms since KIP-62
    # (AbstractCoordinator 0.10.1+), the session timeout before (JoinGroup v0)
    if explicit.rebalance_timeout_ms is not None:
        rto, origin["rebalance_timeout_ms"] = explicit.rebalance_timeout_ms, "set"
    elif explicit.max_poll_interval_ms is not None:
        rto, origin["rebalance_timeout_ms"] = explicit.max_poll_interval_ms, "set (max.poll.interval.ms)"
    elif "rebalance_timeout_ms" in printed and 1 <= printed["rebalance_timeout_ms"] <= INT_MAX:
        rto = printed["rebalance_timeout_ms"]
    elif values["max_poll_interval_ms"] is not None:
        rto, origin["rebalance_timeout_ms"] = values["max_poll_interval_ms"], "= max.poll.interval.ms"
    else:
        rto, origin["rebalance_timeout_ms"] = values["session_timeout_ms"], "= session.timeout.ms (JoinGroup v0)"
    return EffectiveSettings(
        session_timeout_ms=values["session_timeout_ms"], max_poll_interval_ms=values["max_poll_interval_ms"],
        heartbeat_interval_ms=values["heartbeat_interval_ms"], rebalance_timeout_ms=rto,
        assignor=values["assignor"], initial_rebalance_delay_ms=values["initial_rebalance_delay_ms"],
        version=version, storm_count=explicit.storm_count, storm_window_ms=explicit.storm_window_ms,
        skew_tolerance_ms=explicit.skew_tolerance_ms, unowned_threshold_ms=explicit.unowned_threshold_ms,
        origin=origin, static_members=dict(printed.get("static_members", {})), notes=notes,
        client_version=client_v, broker_version=broker_v,
    )


_KAFKA_NAME: dict[str, str] = {}
for _name, _attr in SETTABLE.items():   # the client's name first (group.consumer.* are aliases)
    _KAFKA_NAME.setdefault(_attr, _name)


# GroupCoordinatorConfig (apache/kafka 4.0): the consumer protocol's session timeout and heartbeat
# interval are broker settings (group.consumer.session.timeout.ms 45 s, group.consumer.heartbeat.interval.ms
# 5 s); the server-side assignor is the first of group.consumer.assignors (uniform); a member's rebalance
# timeout is its max.poll.interval.ms (ConsumerGroupHeartbeatRequest.RebalanceTimeoutMs).
CONSUMER_PROTOCOL_DEFAULTS = {"session_timeout_ms": 45000, "heartbeat_interval_ms": 5000, "assignor": "uniform"}
_CONSUMER_PROTOCOL_ORIGIN = {
    "session_timeout_ms": "default of the 4.x broker, group.consumer.session.timeout.ms",
    "heartbeat_interval_ms": "default of the 4.x broker, group.consumer.heartbeat.interval.ms",
    "assignor": "default of the 4.x broker, the first of group.consumer.assignors",
}


def consumer_protocol_settings(cfg: EffectiveSettings) -> EffectiveSettings:
    """The settings of a consumer-protocol group: the client's session.timeout.ms, heartbeat.interval.ms and
    partition.assignment.strategy do not apply (the broker's do), so a value a client printed (a classic client
    of the same group, before a migration) is replaced by the broker's default; values given with --set stay."""
    from dataclasses import replace as _replace

    changes: dict[str, Any] = {}
    origin = dict(cfg.origin)
    for attr, value in CONSUMER_PROTOCOL_DEFAULTS.items():
        if not origin.get(attr, "").startswith("set"):
            changes[attr] = value
            origin[attr] = _CONSUMER_PROTOCOL_ORIGIN[attr]
    if cfg.max_poll_interval_ms and (cfg.is_default("rebalance_timeout_ms") or "rebalance_timeout_ms" not in origin):
        changes["rebalance_timeout_ms"] = cfg.max_poll_interval_ms
        origin["rebalance_timeout_ms"] = "the member's max.poll.interval.ms (" + origin.get(
            "max_poll_interval_ms", "default") + ")"
    return _replace(cfg, origin=origin, **changes)


def kafka_name(attr: str) -> str:
    """The setting's name as Kafka and the user write it (session.timeout.ms), for an attribute."""
    return _KAFKA_NAME.get(attr, attr)
