"""Times are UTC epoch milliseconds inside coordscope; shown as ISO 8601 with zone."""

from __future__ import annotations

from datetime import UTC, datetime


def iso(ms: int | float | None) -> str | None:
    """2026-01-02T03:04:05.678Z, or None."""
    if ms is None or ms != ms:  # None or NaN
        return None
    dt = datetime.fromtimestamp(int(ms) / 1000, UTC)
    return dt.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def duration(ms: int | float | None) -> str:
    """A short human duration: 850 ms, 12.3 s, 4 min 05 s, 2 h 03 min."""
    if ms is None or ms != ms:
        return "n/a"
    ms = int(ms)
    if ms < 1000:
        return f"{ms} ms"
    s = ms / 1000
    if s < 60:
        return f"{s:.1f} s"
    m, sec = divmod(int(round(s)), 60)
    if m < 60:
        return f"{m} min {sec:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


def parse_time(text: str) -> int:
    """ISO 8601 (zone optional, UTC assumed) or epoch milliseconds -> epoch ms.

    Raises ValueError with a message fit to show a user.
    """
    t = text.strip()
    if t.isdigit():
        return int(t)
    try:
        dt = datetime.fromisoformat(t.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"cannot read time {text!r}: use ISO 8601 (2026-11-23T02:13:05Z) or epoch ms") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return int(dt.timestamp() * 1000)
