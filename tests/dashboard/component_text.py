"""The text a Dash component tree shows: what a user reads, for tests of pages' words."""

from __future__ import annotations

from typing import Any


def component_text(component: Any) -> str:
    """All text of a Dash component tree (its string and number children, depth first, joined by
    spaces)."""
    if component is None:
        return ""
    if isinstance(component, str | int | float):
        return str(component)
    if isinstance(component, list | tuple):
        return " ".join(component_text(c) for c in component)
    return component_text(getattr(component, "children", None))
