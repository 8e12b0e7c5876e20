"""Test helpers: strip the log4j / Spring Boot prefix of a real log line (the reader on the other
branch does this for real) and read the shared material."""

from __future__ import annotations

import re
from pathlib import Path

_LOG4J = re.compile(
    r"^(?:\S+\s+\|\s+)?\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\] (?P<level>[A-Z]+) (?P<msg>.*) \((?P<logger>[\w.$]+)(?::\d+)?\)(?:,\S.*)?$"
)
_SPRING = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\s+(?P<level>[A-Z]+) \d+ --- \[[^\]]*\] (?P<logger>\S+)\s*: (?P<msg>.*)$"
)


def split_log_line(line: str) -> tuple[str, str] | None:
    """(message, logger) of a log4j broker line or a Spring Boot line, else None."""
    for rx in (_LOG4J, _SPRING):
        m = rx.match(line.rstrip("\n"))
        if m:
            return m.group("msg"), m.group("logger")
    return None


def real_log(shared: Path, prefix: str) -> list[str]:
    (path,) = sorted((shared / "real_logs").glob(prefix + "-*"))
    return path.read_text().splitlines()
