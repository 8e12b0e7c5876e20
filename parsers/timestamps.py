"""Layout timestamps -> UTC epoch milliseconds (naive times are taken as UTC).

Fast path: the date part is converted once per distinct day (cached), the time of day by integer
arithmetic; `strptime` is far too slow for millions of lines.
"""

from __future__ import annotations

import calendar
import re
from functools import lru_cache

# yyyy-MM-dd / yy/MM/dd, 'T' or ' ', HH:mm:ss, optional ,SSS / .SSS(SSS...), optional zone
_ISO = re.compile(
    r"(\d{4}|\d{2})[-/](\d{2})[-/](\d{2})[T ](\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?"
    r"\s*(Z|UTC|[+-]\d{2}(?::?\d{2})?)?"
)
# java.util.logging SimpleFormatter: "Mar 02, 2017 8:44:19 AM"
_JUL = re.compile(r"([A-Z][a-z]{2}) (\d{1,2}), (\d{4}) (\d{1,2}):(\d{2}):(\d{2}) ([AP]M)")
_MONTHS = {m: i for i, m in enumerate(calendar.month_abbr) if m}


@lru_cache(maxsize=4096)
def _day_ms(year: int, month: int, day: int) -> int:
    return calendar.timegm((year, month, day, 0, 0, 0)) * 1000


def _zone_ms(zone: str | None) -> int:
    if not zone or zone in ("Z", "UTC"):
        return 0
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    hours = int(digits[:2])
    minutes = int(digits[2:4]) if len(digits) >= 4 else 0
    return sign * (hours * 3600 + minutes * 60) * 1000


@lru_cache(maxsize=8192)
def _second_ms(text19: str) -> int | None:
    m = _ISO.match(text19)
    if m is None:
        return None
    y, mo, d, h, mi, s = m.groups()[:6]
    try:
        return _day_ms(int(y), int(mo), int(d)) + ((int(h) * 60 + int(mi)) * 60 + int(s)) * 1000
    except (ValueError, OverflowError):
        return None


def parse_ts(text: str) -> int | None:
    """Any supported layout timestamp -> epoch ms, or None when the text holds none."""
    if len(text) == 23 and text[19] in ",." and text[4] == "-":
        # fast path "yyyy-MM-dd HH:mm:ss,SSS" (log4j, logback, Spring Boot 1.5-2.x): cached per second
        base = _second_ms(text[:19])
        frac = text[20:23]
        if base is not None and frac.isdigit():
            return base + int(frac)
    m = _ISO.match(text)
    if m is None:
        return _parse_jul(text)
    y, mo, d, h, mi, s, frac, zone = m.groups()
    year = int(y)
    if len(y) == 2:
        year += 2000
    try:
        base = _day_ms(year, int(mo), int(d))
    except (ValueError, OverflowError):
        return None
    ms = int((frac + "00")[:3]) if frac else 0
    return base + ((int(h) * 60 + int(mi)) * 60 + int(s)) * 1000 + ms - _zone_ms(zone)


def _parse_jul(text: str) -> int | None:
    m = _JUL.match(text)
    if m is None:
        return None
    mon, d, y, h, mi, s, ampm = m.groups()
    hour = int(h) % 12 + (12 if ampm == "PM" else 0)
    try:
        base = _day_ms(int(y), _MONTHS[mon], int(d))
    except (KeyError, ValueError):
        return None
    return base + ((hour * 60 + int(mi)) * 60 + int(s)) * 1000


def epoch_number_ms(value: float | int) -> int:
    """A JSON epoch number in s, ms or µs -> ms (by magnitude)."""
    v = float(value)
    if v > 1e14:  # microseconds
        return int(v / 1000)
    if v > 1e11:  # milliseconds
        return int(v)
    return int(v * 1000)
