"""The dashboard's URL scheme (used by the dashboard and by the report's links): pure helpers that build and parse page addresses.

Every page takes its whole selection from the query string, so an address can be pasted into an
incident report and opens the same view. Times are UTC epoch milliseconds. Group and member ids are
query values (percent-encoded), never path segments, so any id is safe. See docs/dashboard.md.

    /                       overview        ?q=<group filter>
    /group                  group           ?group=G&since=MS&until=MS
    /member                 member          ?group=G&member=M&since=MS&until=MS
    /offsets                offsets         ?group=G&partition=TOPIC-N&since=MS&until=MS
    /owner                  who owned P@T   ?group=G&partition=TOPIC-N&at=MS
    /unparsed               unparsed lines  ?shape=S&source=F
"""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import parse_qs, urlencode

PAGES: tuple[str, ...] = ("/", "/group", "/member", "/offsets", "/owner", "/unparsed")


def _join(base: str, path: str, params: dict[str, object]) -> str:
    query = urlencode({k: v for k, v in params.items() if v is not None and v != ""})
    return f"{base.rstrip('/')}{path}" + (f"?{query}" if query else "")


def overview_url(base: str = "", q: str | None = None) -> str:
    return _join(base, "/", {"q": q})


def group_url(base: str, group: str, since_ms: int | None = None, until_ms: int | None = None) -> str:
    return _join(base, "/group", {"group": group, "since": since_ms, "until": until_ms})


def member_url(base: str, group: str, member: str, since_ms: int | None = None,
               until_ms: int | None = None) -> str:
    return _join(base, "/member", {"group": group, "member": member, "since": since_ms, "until": until_ms})


def offsets_url(base: str, group: str, partition: str | None = None, since_ms: int | None = None,
                until_ms: int | None = None) -> str:
    """partition is `topic-N` (the event vocabulary's spelling)."""
    return _join(base, "/offsets", {"group": group, "partition": partition, "since": since_ms,
                                    "until": until_ms})


def owner_url(base: str, group: str, partition: str | None = None, at_ms: int | str | None = None) -> str:
    """at_ms: epoch ms (ISO 8601 text is read too)."""
    return _join(base, "/owner", {"group": group, "partition": partition, "at": at_ms})


def unparsed_url(base: str = "", shape: str | None = None, source: str | None = None) -> str:
    return _join(base, "/unparsed", {"shape": shape, "source": source})


def parse_query(search: str | None) -> dict[str, str]:
    """`?a=1&b=2` -> {"a": "1", "b": "2"} (first value of each key wins)."""
    parsed = parse_qs((search or "").lstrip("?"), keep_blank_values=False)
    return {k: v[0] for k, v in parsed.items() if v}


def parse_time(value: str | int | None) -> int | None:
    """Epoch ms or ISO 8601 (a naive time is UTC) -> epoch ms; None when absent or unreadable."""
    if value is None or value == "":
        return None
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if text.lstrip("-").isdigit():
        return int(text)
    try:
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return int(dt.timestamp() * 1000)


def split_partition(value: str | None) -> tuple[str, int] | None:
    """`orders-7` -> ("orders", 7); topics may contain dashes, so split at the last one."""
    if not value or "-" not in value:
        return None
    topic, _, num = value.rpartition("-")
    return (topic, int(num)) if topic and num.isdigit() else None


def fmt_ms(ms: int | float | None) -> str:
    """Epoch ms -> ISO 8601 with zone (millisecond precision), '' when absent."""
    if ms is None or ms != ms:  # None or NaN
        return ""
    return datetime.fromtimestamp(int(ms) / 1000, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
