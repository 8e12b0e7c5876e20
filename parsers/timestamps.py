"""Layout timestamps -> UTC epoch milliseconds (naive times are taken as UTC).

Fast path: the date part is converted once per distinct day (cached), the time of day by integer
arithmetic; `strptime` is far too slow for millions of lines.
"""

from __future__ import annotations

import calendar
import math
import os
import time
from functools import lru_cache

from parsers.build_cache import compile_regex

# yyyy-MM-dd / yy/MM/dd, 'T' or ' ', HH:mm:ss, optional ,SSS / .SSS(SSS...), optional zone
_ISO = compile_regex(
    r"(\d{4}|\d{2})[-/](\d{2})[-/](\d{2})[T ](\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?"
    r"\s*(Z|UTC|[+-]\d{2}(?::?\d{2})?)?"
)
# java.util.logging SimpleFormatter: "Mar 02, 2017 8:44:19 AM"
_JUL = compile_regex(r"([A-Z][a-z]{2}) (\d{1,2}), (\d{4}) (\d{1,2}):(\d{2}):(\d{2}) ([AP]M)")
_MONTHS = {m: i for i, m in enumerate(calendar.month_abbr) if m}


@lru_cache(maxsize=4096)
def _day_ms(year: int, month: int, day: int) -> int:
    return calendar.timegm((year, month, day, 0, 0, 0)) * 1000


# zone abbreviations a date pattern's `z` prints (Java's short zone names, log4j/logback
# `%d{yyyy-MM-dd HH:mm:ss.SSS z}`), only those with one meaning: CST, IST, BST are not here
ZONE_NAMES = {"GMT": 0, "WET": 0, "WEST": 1, "CET": 1, "CEST": 2, "MET": 1, "MEST": 2, "EET": 2, "EEST": 3,
              "MSK": 3, "HKT": 8, "SGT": 8, "JST": 9, "KST": 9, "AEST": 10, "AEDT": 11, "NZST": 12, "NZDT": 13,
              "EST": -5, "EDT": -4, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7, "AKST": -9, "AKDT": -8, "HST": -10}
_ZONE_NAME_RX = "|".join(sorted(ZONE_NAMES, key=len, reverse=True))


def _zone_ms(zone: str | None) -> int:
    if not zone or zone in ("Z", "UTC"):
        return 0
    if zone[0].isalpha():
        return ZONE_NAMES.get(zone, 0) * 3_600_000
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
        ms = _day_ms(int(y), int(mo), int(d)) + ((int(h) * 60 + int(mi)) * 60 + int(s)) * 1000
        return ms if _NAIVE_ZONE is None else _zone_shift(ms)
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
    local = base + ((int(h) * 60 + int(mi)) * 60 + int(s)) * 1000 + ms
    return local - _zone_ms(zone) if zone else naive_ms(local)


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
    return naive_ms(base + ((hour * 60 + int(mi)) * 60 + int(s)) * 1000)


def epoch_number_ms(value: float | int) -> int | None:
    """A JSON epoch number in s, ms, µs or ns -> ms (by magnitude); None for NaN, infinities and
    values no clock gives (issue 16: a bad time field means no time, never a crash)."""
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if math.isnan(v) or math.isinf(v) or v < 0 or v > 1e20:
        return None
    if v > 1e17:  # nanoseconds
        return int(v / 1_000_000)
    if v > 1e14:  # microseconds
        return int(v / 1000)
    if v > 1e11:  # milliseconds
        return int(v)
    return int(v * 1000)


# --- finding a time anywhere in a line (parsers/anchors.py) ----------------------------------------
# One regex with an alternative per written form; the first match in the text wins. Each form is a
# documented default of a logging setup (docs/parsers.md, "Time from anything").
_MON = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
FIND = compile_regex(
    r"(?=[\dJFMASOND])(?:"  # every form starts with a digit or a month: other positions fail at once
    # ISO 8601 / log4j %d / logback / Spring Boot / RFC 3339 (kubectl, docker, journald, CloudWatch)
    r"(?<![\d.])(?P<iy>\d{4})-(?P<imo>\d{2})-(?P<id>\d{2})[T ](?P<ih>\d{2}):(?P<imi>\d{2}):(?P<is>\d{2})"
    r"(?:[.,](?P<ifr>\d{1,9}))?(?P<iz> ?(?:Z|UTC|[+-]\d{2}:?\d{2}|(?:" + _ZONE_NAME_RX + r")(?![A-Za-z])))?(?![\d])"
    # log4j %d{yy/MM/dd HH:mm:ss} (Spark, Hadoop) and yyyy/MM/dd
    r"|(?<![\d/.])(?P<sy>\d{4}|\d{2})/(?P<smo>\d{2})/(?P<sd>\d{2})[ T](?P<sh>\d{2}):(?P<smi>\d{2}):(?P<ss>\d{2})(?:[.,](?P<sfr>\d{1,9}))?"
    # java.util.logging SimpleFormatter "Mar 2, 2017 8:44:19 AM"; Kibana "Nov 26, 2026 @ 01:02:03.456"
    # (dateFormat 'MMM D, YYYY @ HH:mm:ss.SSS', 7.0+) and "November 26th 2026, 01:02:03.456" ('MMMM Do
    # YYYY, HH:mm:ss.SSS', the default of Kibana 4-6's advanced setting dateFormat; moment.js MMMM, Do)
    r"|(?P<jmon>" + _MON + r")(?:[a-z]{1,6}(?= \d{1,2}(?:st|nd|rd|th) ))? (?P<jd>\d{1,2})(?:,|st|nd|rd|th) (?P<jy>\d{4}),? (?:(?P<at>@) )?(?P<jh>\d{1,2}):(?P<jmi>\d{2}):(?P<js>\d{2})"
    r"(?:[.,](?P<jfr>\d{1,9}))?(?: (?P<ampm>[AP]M))?"
    # log4j %d{DATE} "02 Mar 2017 08:44:19,548"
    r"|(?<!\d)(?P<dd>\d{1,2}) (?P<dmon>" + _MON + r") (?P<dy>\d{4}) (?P<dh>\d{2}):(?P<dmi>\d{2}):(?P<ds>\d{2})(?:[.,](?P<dfr>\d{1,9}))?"
    # syslog / journald short "Mar  2 08:44:19" (no year: taken from the neighbours)
    r"|(?P<ymon>" + _MON + r") {1,2}(?P<yd>\d{1,2}) (?P<yh>\d{2}):(?P<ymi>\d{2}):(?P<ys>\d{2})(?:[.,](?P<yfr>\d{1,9}))?"
    # ... with a zone and a year after it: java.util.Date.toString / `date` "Fri Mar 01 10:00:00 UTC 2024"
    r"(?:(?: (?P<yzn>UTC|" + _ZONE_NAME_RX + r"))? (?P<yyr>\d{4})(?![\d:]))?"
    # day first, "dd.MM.yyyy HH:mm:ss" / "dd-MM-yyyy HH:mm:ss" (logback/log4j patterns in European
    # locales, %d{dd.MM.yyyy HH:mm:ss.SSS}); never "MM/dd" (ambiguous with the US order)
    r"|(?<![\d.\-])(?P<ed>\d{2})(?P<esep>[.\-])(?P<emo>\d{2})(?P=esep)(?P<ey>\d{4})[ T](?P<eh>\d{2}):(?P<emi>\d{2}):(?P<es>\d{2})"
    r"(?:[.,](?P<efr>\d{1,9}))?"
    # a time of day alone (logback's default %d{HH:mm:ss.SSS}): the date from the neighbours
    r"|(?<![\d:.])(?P<th>\d{2}):(?P<tmi>\d{2}):(?P<ts>\d{2})(?:[.,](?P<tfr>\d{1,9}))?(?![\d:])"
    r")"
)
# an epoch number standing where a time stands (start of a line, a JSON or CSV time field)
EPOCH = compile_regex(r"(?P<num>\d{9,16})(?:\.(?P<frac>\d{1,9}))?")
DAY_MS = 86_400_000


_MILLIS_OF = {f"{i:03d}": i for i in range(1000)}


@lru_cache(maxsize=8192)
def _local_second_ms(date: str, hms: str) -> int | None:
    """'yyyy-MM-dd', 'HH:mm:ss' -> epoch ms of that wall-clock second read as UTC (no zone applied)."""
    try:
        return _day_ms(int(date[:4]), int(date[5:7]), int(date[8:10])) + (
            (int(hms[:2]) * 60 + int(hms[3:5])) * 60 + int(hms[6:8])) * 1000
    except (ValueError, OverflowError):
        return None


class FoundTime(tuple):
    """(ts_ms or None, start, end, how) where how is "" (full date in the text), "year"
    (year taken from the neighbours), "date" (date taken from the neighbours) or "pending"
    (a time of day or year-less date with no neighbour to complete it: ts_ms is None)."""

    __slots__ = ()

    @property
    def ts_ms(self) -> int | None:
        return self[0]


def _frac_ms(frac: str | None) -> int:
    return int((frac + "00")[:3]) if frac else 0


def find_ts(text: str, near_ms: int | None = None, start: int = 0, end: int | None = None) -> FoundTime | None:
    """The first time written in text[start:end], as UTC epoch ms. `near_ms` (the time of a
    neighbouring line) completes a time without a year or without a date.

    A first time without a year or a date (a syslog/journald `Mar  1 10:00:00` prefix, an RFC 3164
    relay's `<134>Mar  1 10:00:00 host app[812]: `) followed by a complete one (the application's
    own `2024-03-01 10:00:00,123` behind that prefix) gives the complete one: it has the year and
    the fraction the collector's time lacks. Its span is the complete one's."""
    stop = len(text) if end is None else end
    ft = _find_ts(text, near_ms, start, stop)
    if ft is not None and ft[3] in ("pending", "year", "date"):
        full = _find_ts(text, near_ms, ft[2], stop)
        if full is not None and full[0] is not None and full[3] == "":
            return full
    if ft is not None and ft[0] is not None and ft[3] == "" and _FRACTION.search(text, ft[1], ft[2]) is None:
        # a collector's time to the second (Loki `logcli query` prints RFC 3339 without a fraction,
        # `flyctl logs` likewise, `journalctl -o short-iso`) before the application's own time: the
        # application's, when it agrees, gives the milliseconds (see agreeing_inner_ts)
        inner = agreeing_inner_ts(text, ft, near_ms, stop, need_fraction=True)
        if inner is not None:
            return inner
    return ft


_FRACTION = compile_regex(r":\d{2}[.,]\d")
_ZONE_AT_END = compile_regex(r"(?:Z|UTC|[+-]\d{2}(?::?\d{2})?)$")
# how far a line's own time may be from its collector's for the two to be the same moment: the
# collector stamps a line when it reads it (kubelet, journald, Loki's ingester), moments after the
# application wrote it; zones differ by 15 minutes at least, so a reading in the wrong zone is far off
AGREE_MS = 60_000


def agreeing_inner_ts(text: str, outer: FoundTime, near_ms: int | None, stop: int,
                      need_fraction: bool = False) -> FoundTime | None:
    """The time written after `outer` (a collector's complete time before the application's line)
    in text[outer.end:stop], when it is the same moment as `outer` (within AGREE_MS): read as
    written, or, written without a zone after an outer time with one, in the outer time's zone (the
    application's clock, zone-less, runs in the zone its host's collector prints: journald's
    short-iso `+01:00`, rsyslog's RFC 3339 `-04:00`), a time of day alone on the outer time's date in
    that zone. None when no such time agrees (or, with need_fraction, when it has no fraction)."""
    o_ms = outer[0]
    if o_ms is None:
        return None
    nxt = _find_ts(text, o_ms, outer[2], stop)
    if nxt is None or nxt[0] is None:
        return None
    if need_fraction and _FRACTION.search(text, nxt[1], nxt[2]) is None and not _FRAC_TOD.match(text, nxt[1], nxt[2]):
        return None
    cands = [nxt[0]]
    zm = _ZONE_AT_END.search(text, outer[1], outer[2])
    if zm is not None and _NAIVE_ZONE is None and _ZONE_AT_END.search(text, nxt[1], nxt[2]) is None:
        alt = nxt[0] - _zone_ms(zm.group())
        if nxt[3] == "date":  # a time of day: the day in the outer zone that puts it nearest
            alt += round((o_ms - alt) / DAY_MS) * DAY_MS
        cands.append(alt)
    best = min(cands, key=lambda c: abs(c - o_ms))
    if abs(best - o_ms) >= AGREE_MS:
        return None
    return FoundTime((best, nxt[1], nxt[2], ""))


_FRAC_TOD = compile_regex(r"\d{2}:\d{2}:\d{2}[.,]\d")


def _find_ts(text: str, near_ms: int | None, start: int, end: int) -> FoundTime | None:
    m = FIND.search(text, start, end)
    if m is None:
        return None
    how = ""
    try:
        if m.start(1) >= 0:  # ISO, the commonest form: the second converted once (cached)
            s0 = m.start()
            ifr, iz = m.group(7, 8)
            ms = _local_second_ms(text[s0:s0 + 10], text[s0 + 11:s0 + 19])
            if ms is None:
                return None
            if ifr:
                ms += _MILLIS_OF.get(ifr) or _frac_ms(ifr)
            return (ms - _zone_ms(iz.strip()) if iz else naive_ms(ms), s0, m.end(), how)  # type: ignore[return-value]
        g = m.groupdict()
        if g["sy"] is not None:
            y = int(g["sy"]) + (2000 if len(g["sy"]) == 2 else 0)
            base = _day_ms(y, int(g["smo"]), int(g["sd"]))
            ms = base + ((int(g["sh"]) * 60 + int(g["smi"])) * 60 + int(g["ss"])) * 1000 + _frac_ms(g["sfr"])
            return FoundTime((naive_ms(ms), m.start(), m.end(), how))
        if g["jmon"] is not None:
            h = int(g["jh"])
            if g["ampm"]:
                h = h % 12 + (12 if g["ampm"] == "PM" else 0)
            base = _day_ms(int(g["jy"]), _MONTHS[g["jmon"]], int(g["jd"]))
            ms = base + ((h * 60 + int(g["jmi"])) * 60 + int(g["js"])) * 1000 + _frac_ms(g["jfr"])
            return FoundTime((naive_ms(ms), m.start(), m.end(), how))
        if g["dmon"] is not None:
            base = _day_ms(int(g["dy"]), _MONTHS[g["dmon"]], int(g["dd"]))
            ms = base + ((int(g["dh"]) * 60 + int(g["dmi"])) * 60 + int(g["ds"])) * 1000 + _frac_ms(g["dfr"])
            return FoundTime((naive_ms(ms), m.start(), m.end(), how))
        if g["ey"] is not None:
            base = _day_ms(int(g["ey"]), int(g["emo"]), int(g["ed"]))
            ms = base + ((int(g["eh"]) * 60 + int(g["emi"])) * 60 + int(g["es"])) * 1000 + _frac_ms(g["efr"])
            return FoundTime((naive_ms(ms), m.start(), m.end(), how))
        if g["ymon"] is not None and g["yyr"] is not None:
            tod = ((int(g["yh"]) * 60 + int(g["ymi"])) * 60 + int(g["ys"])) * 1000 + _frac_ms(g["yfr"])
            ms = _day_ms(int(g["yyr"]), _MONTHS[g["ymon"]], int(g["yd"])) + tod
            zone = g["yzn"]
            return FoundTime((ms - _zone_ms(zone) if zone else naive_ms(ms), m.start(), m.end(), how))
        if g["ymon"] is not None:
            if near_ms is None:
                return FoundTime((None, m.start(), m.end(), "pending"))
            year = time.gmtime(near_ms / 1000).tm_year
            tod = ((int(g["yh"]) * 60 + int(g["ymi"])) * 60 + int(g["ys"])) * 1000 + _frac_ms(g["yfr"])
            best = None
            for y in (year - 1, year, year + 1):  # the year that puts it nearest its neighbour
                ms = naive_ms(_day_ms(y, _MONTHS[g["ymon"]], int(g["yd"])) + tod)
                if best is None or abs(ms - near_ms) < abs(best - near_ms):
                    best = ms
            return FoundTime((best, m.start(), m.end(), "year"))
        # a time of day alone
        tod = ((int(g["th"]) * 60 + int(g["tmi"])) * 60 + int(g["ts"])) * 1000 + _frac_ms(g["tfr"])
        if int(g["th"]) > 23 or int(g["tmi"]) > 59 or int(g["ts"]) > 60:
            return None
        if near_ms is None:
            return FoundTime((None, m.start(), m.end(), "pending"))
        day = near_ms - near_ms % DAY_MS
        best = None
        for d in (day - DAY_MS, day, day + DAY_MS):  # the day that puts it nearest its neighbour
            ms = naive_ms(d + tod)
            if best is None or abs(ms - near_ms) < abs(best - near_ms):
                best = ms
        return FoundTime((best, m.start(), m.end(), "date"))
    except (ValueError, OverflowError, KeyError):
        return None


def epoch_text_ms(text: str, near_ms: int | None = None) -> int | None:
    """An epoch number written as text (s, ms, µs, ns by magnitude) -> ms. A 12-digit number is
    milliseconds whose first digit a paste cut off when a neighbour's time says so (or, with no
    neighbour, when putting a "1" in front gives a time after 2001)."""
    m = EPOCH.fullmatch(text.strip())
    if m is None:
        return None
    num = m["num"]
    if len(num) == 12:
        for lead in "123456789":
            cand = int(lead + num)
            if near_ms is not None and abs(cand - near_ms) < 366 * DAY_MS:
                return cand
        return int("1" + num) if near_ms is None else None
    if len(num) in (9, 11):  # not a plausible epoch in s (10 digits) or ms (13)
        return None
    value = float(num + "." + m["frac"]) if m["frac"] else int(num)
    return epoch_number_ms(value)


# --- naive times: UTC unless a zone is configured (`coordscope parse --tz`) -------------------------
_NAIVE_ZONE = None  # a zoneinfo.ZoneInfo, or None for UTC


def naive_ms(ms: int) -> int:
    """A time written without a zone, read as UTC epoch ms (or in the configured zone)."""
    if _NAIVE_ZONE is None:
        return ms
    return _zone_shift(ms)


def _zone_shift(ms: int) -> int:
    import datetime as dt

    local = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=ms)
    off = local.replace(tzinfo=_NAIVE_ZONE).utcoffset()
    return ms - int(off.total_seconds() * 1000) if off is not None else ms


def set_naive_zone(name: str | None) -> str:
    """Read times written without a zone in zone `name` (an IANA name, "UTC" or None = UTC).
    Returns the zone's name as the parse summary states it."""
    global _NAIVE_ZONE
    if name in (None, "", "UTC", "utc", "Z"):
        _NAIVE_ZONE = None
    else:
        from zoneinfo import ZoneInfo

        _NAIVE_ZONE = ZoneInfo(name)
    _second_ms.cache_clear()
    return "UTC" if _NAIVE_ZONE is None else str(_NAIVE_ZONE)


def naive_zone_name() -> str:
    return "UTC" if _NAIVE_ZONE is None else str(_NAIVE_ZONE)


# the CLI sets COORDSCOPE_TZ with --tz, so Spark's Python workers (which inherit the environment)
# read naive times in the same zone as the driver
if os.environ.get("COORDSCOPE_TZ"):
    set_naive_zone(os.environ["COORDSCOPE_TZ"])
