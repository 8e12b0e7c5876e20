"""Log layouts: how one record (time, level, thread, logger, message, stack) becomes text.

Facts from shared/formats/log-prefixes-and-defaults.md section 3: Kafka's log4j default
`[%d] %p %m (%c)%n`, Spring Boot's logback console pattern (2.x and 3.x dates, `%5p`, `%15.15t`,
`%-40.40logger{39}`), and logstash-style JSON lines.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime


def _dt(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def ts_log4j(ms: int) -> str:
    d = _dt(ms)
    return d.strftime("%Y-%m-%d %H:%M:%S") + f",{ms % 1000:03d}"


def ts_spring2(ms: int) -> str:
    return _dt(ms).strftime("%Y-%m-%d %H:%M:%S") + f".{ms % 1000:03d}"


def ts_spring3(ms: int) -> str:
    return _dt(ms).strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"


def ts_iso(ms: int) -> str:
    return _dt(ms).strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"


def abbreviate(logger: str, target: int = 39) -> str:
    """logback TargetLengthBasedClassNameAbbreviator: shorten leading segments to one letter."""
    if len(logger) <= target:
        return logger
    parts = logger.split(".")
    for i in range(len(parts) - 1):
        if len(".".join(parts)) <= target:
            break
        parts[i] = parts[i][:1]
    return ".".join(parts)


_ABBREV_CACHE: dict[str, str] = {}


def logger40(logger: str) -> str:
    got = _ABBREV_CACHE.get(logger)
    if got is None:
        a = abbreviate(logger)
        got = a[-40:] if len(a) > 40 else a.ljust(40)
        _ABBREV_CACHE[logger] = got
    return got


def thread15(thread: str) -> str:
    return thread[-15:] if len(thread) > 15 else thread.rjust(15)


class Layout:
    """Renders records for one file."""

    def __init__(self, name: str, pid: int = 0, spring_boot: int = 2) -> None:
        self.name, self.pid, self.sb = name, pid, spring_boot

    def render(self, ms: int, level: str, thread: str, logger: str, msg: str,
               stack: list[str] | None = None) -> list[str]:
        if self.name == "json":
            rec = {"@timestamp": ts_iso(ms), "@version": "1", "message": msg, "logger_name": logger,
                   "thread_name": thread, "level": level,
                   "level_value": {"ERROR": 40000, "WARN": 30000, "INFO": 20000, "DEBUG": 10000}[level]}
            if stack:
                rec["stack_trace"] = "\n".join(stack)
            return [json.dumps(rec, separators=(",", ":"), ensure_ascii=False)]
        msg_lines = msg.split("\n")
        if self.name == "spring_boot":
            ts = ts_spring2(ms) if self.sb == 2 else ts_spring3(ms)
            first = f"{ts} {level:>5} {self.pid} --- [{thread15(thread)}] {logger40(logger)} : {msg_lines[0]}"
            return [first, *msg_lines[1:], *(stack or [])]
        if len(msg_lines) > 1:  # log4j: the logger follows the whole message, after its last line
            return [f"[{ts_log4j(ms)}] {level} {msg_lines[0]}", *msg_lines[1:-1],
                    f"{msg_lines[-1]} ({logger})", *(stack or [])]
        return [f"[{ts_log4j(ms)}] {level} {msg} ({logger})", *(stack or [])]
