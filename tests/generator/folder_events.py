"""The events `parsers` reads from every file of a written scenario folder (truth.json aside)."""

from __future__ import annotations

import os

from parsers import parse_path


def folder_events(folder: str) -> list:
    evs = []
    for name in sorted(os.listdir(folder)):
        if name != "truth.json":
            outcomes, _ = parse_path(os.path.join(folder, name))
            evs += [o.event for o in outcomes if o.event is not None]
    return evs
