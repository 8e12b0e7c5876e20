"""What a message-level or record-level parser returns; the reader turns it into an `Event`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Match:
    """A rule matched: its name (the grammar rule, for `coordscope explain`), the event kind and
    the event fields it extracted (keys are `parsers.events.Event` field names; facts without a
    common column go under `extra`)."""

    rule: str
    kind: str
    fields: dict[str, Any] = field(default_factory=dict)


class _Ignore:
    """Marker: the line belongs to the format but carries no event (headers, separators, banners)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "IGNORE"


IGNORE = _Ignore()
