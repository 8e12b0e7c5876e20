"""Partition-ownership heatmap: partitions x time, the colour is the owning member."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from dashboard.figures.common import MEMBER_PALETTE, base_layout, empty_figure, esc, short_id, to_dt

MAX_HEIGHT = 1000
MAX_COLORBAR_MEMBERS = 30


def _discrete_scale(n: int) -> list[list[Any]]:
    """A step colorscale: value i in [0, n) maps to palette colour i (zmin=-0.5, zmax=n-0.5)."""
    scale: list[list[Any]] = []
    for i in range(n):
        color = MEMBER_PALETTE[i % len(MEMBER_PALETTE)]
        scale += [[i / n, color], [(i + 1) / n, color]]
    return scale


def ownership_figure(grid: dict[str, Any], x_range: Iterable[Any] | None = None) -> go.Figure:
    """`grid` is `RunData.ownership_grid`: times (ms), partitions, members, z (member index or None)."""
    title = "Partition ownership over time (colour = owning member, blank = unowned)"
    if not grid.get("partitions"):
        return empty_figure(title, "no ownership intervals for this group in this window")
    members = grid["members"]
    n = max(1, len(members))
    names = [esc(short_id(m, 40)) for m in members]
    hover = [[f"{esc(p)}<br>{names[v] if v is not None else 'unowned'}" for v in row]
             for p, row in zip(grid["partitions"], grid["z"], strict=True)]
    fig = go.Figure(go.Heatmap(
        x=to_dt(pd.Series(grid["times"])), y=grid["partitions"], z=grid["z"],
        zmin=-0.5, zmax=n - 0.5, colorscale=_discrete_scale(n), hovertext=hover, hoverinfo="x+text",
        xgap=0, ygap=1,
        colorbar={"title": {"text": "member"}, "tickvals": list(range(n)),
                  "ticktext": [esc(short_id(m, 22)) for m in members], "len": 1.0},
    ))
    if n > MAX_COLORBAR_MEMBERS:  # a colour key that long is unreadable; the hover names the member
        fig.update_traces(showscale=False)
    fig.update_yaxes(categoryorder="array", categoryarray=list(reversed(grid["partitions"])), fixedrange=True)
    return base_layout(fig, title, min(MAX_HEIGHT, max(240, 90 + 22 * len(grid["partitions"]))), x_range)
