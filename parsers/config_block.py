"""Configuration dumps: the `XxxConfig values:` record every Kafka client and broker logs at start-up.

Mirrors `AbstractConfig.logAll()` (clients/src/main/java/org/apache/kafka/common/config/
AbstractConfig.java, 0.9.0 - 4.x; the broker's `KafkaConfig` goes through the same method): the
config class's simple name, " values: ", a newline, then one `\\tname = value` line per setting in
name order (lists as `[a, b]`, classes as `class a.b.C`, unset as `null`, passwords `[hidden]`), each
ending with a newline. Layouts then append their suffix: log4j's `%m (%c)%n` leaves the logger on a
last line of its own (` (org.apache...ConsumerConfig)`), or at the end of the last setting when the
message was trimmed; JSON layouts keep the whole block in one `message` with embedded `\\n\\t`.

Only `ConsumerConfig` becomes a `client_config` event (the settings replay needs); `KafkaConfig`
becomes a `broker_config` event with the broker's group coordinator settings. The other config
classes (ProducerConfig, AdminClientConfig, StreamsConfig, ...) are recognised and ignored, so their
settings can never be mistaken for a consumer's.
"""

from __future__ import annotations

from typing import Any

from parsers.base import IGNORE, Match
from parsers.build_cache import compile_regex
from parsers.events import Kind

# the header: `<SimpleClassName> values: ` (AbstractConfig.logAll, all versions)
HEADER = compile_regex(r"^([A-Z][A-Za-z0-9]*Config) values: ?")
# literal words for the JVM-side candidate filter (each matches the header of an event-bearing block)
CANDIDATE_WORDS: tuple[str, ...] = ("ConsumerConfig values", "KafkaConfig values")
_SETTING = compile_regex(r"^\s*([A-Za-z0-9_.\-]+) = ?(.*)$")
# a log4j `(%c)` or `(%c:%L)` suffix naming the config class, on the last line or its own line
_LOGGER_SUFFIX = compile_regex(r"\s*\((?:[\w$]+\.)*[\w$]*Config(?::\d+)?\)\s*$")
# broker settings that shape group coordination (KafkaConfig / GroupCoordinatorConfig, 0.9 - 4.x)
_BROKER_PREFIXES = ("group.", "offsets.", "broker.id", "node.id", "inter.broker.protocol.version",
                    "process.roles")
_NONE = ("", "null")


def is_config_header(message: str) -> bool:
    return HEADER.match(message) is not None


def parse_config_block(head: str, continuation: list[str] | None) -> Match | Any | None:
    """The record whose first message line is `head` (a JSON layout's whole message) and whose
    following lines are `continuation`; None when `head` is not a config dump header."""
    m = HEADER.match(head)
    if m is None:
        return None
    cls = m.group(1)
    if cls not in ("ConsumerConfig", "KafkaConfig"):
        return IGNORE
    lines = head[m.end():].split("\n")
    if continuation:
        lines.extend(continuation)
    settings: dict[str, str] = {}
    for line in lines:
        line = line.rstrip("\r")
        if not line.strip():
            continue
        sm = _SETTING.match(line)
        if sm is None:
            continue  # the logger on a line of its own, or anything that is not a setting
        name, value = sm.group(1), sm.group(2)
        cut = _LOGGER_SUFFIX.search(value)
        if cut is not None:
            value = value[:cut.start()]
        settings[name] = value.strip()
    if cls == "KafkaConfig":
        kept = {k: v for k, v in settings.items() if k.startswith(_BROKER_PREFIXES)}
        return Match("kafka_config_values", Kind.BROKER_CONFIG.value,
                     {"extra": {"config_class": cls, "settings": kept}})
    fields: dict[str, Any] = {"extra": {"config_class": cls, "settings": settings}}
    for key, name in (("group_id", "group.id"), ("client_id", "client.id"), ("instance_id", "group.instance.id")):
        v = settings.get(name)
        if v is not None and v not in _NONE:
            fields[key] = v
    return Match("consumer_config_values", Kind.CLIENT_CONFIG.value, fields)
