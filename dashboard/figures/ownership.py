"""Partition-ownership heatmap: partitions x time, the colour is the owning member."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from dashboard.figures.common import MEMBER_PALETTE, base_layout, empty_figure, esc, short_id, to_dt

MAX_HEIGHT = 1000
MAX_COLORBAR_MEMBERS = 30
SEVERAL = "#111111"   # a cell two or more members owned at once (a double ownership)


def _discrete_scale(n: int) -> list[list[Any]]:
    """A step colorscale: value i in [0, n) maps to palette colour i (zmin=-0.5, zmax=n-0.5)."""
    scale: list[list[Any]] = []
    for i in range(n):
        color = MEMBER_PALETTE[i % len(MEMBER_PALETTE)]
        scale += [[i / n, color], [(i + 1) / n, color]]
    return scale


def ownership_figure(grid: dict[str, Any], x_range: Iterable[Any] | None = None,
                     names: dict[str, str] | None = None, empty_message: str | None = None) -> go.Figure:
    """`grid` is `RunData.ownership_grid`: times (ms), partitions, members, z (member index or None)."""
    title = ("Partition ownership over time (colour = owning member, black = two or more at once, "
             "blank = no owner in the logs)")
    if not grid.get("partitions"):
        return empty_figure(title, empty_message or "No partition ownership is known for this group in this window.",
                            x_range=x_range)
    names_of = names or {}
    members = grid["members"]
    several = len(members)
    doubles = any(v == several for row in grid["z"] for v in row)
    n = max(1, len(members)) + (1 if doubles else 0)
    shown = [esc(f"{names_of[m]}  ({m})" if m in names_of else m) for m in members]
    guessed = grid.get("inferred") or [[False] * len(row) for row in grid["z"]]
    owners = grid.get("owners") or [[[] if v is None else [v] for v in row] for row in grid["z"]]

    def who(v: int | None, ids: list[int]) -> str:
        if v is None:
            return "no owner in the logs"
        if v == several:
            return "owned by " + str(len(ids)) + " members at once:<br>" + "<br>".join(shown[i] for i in ids)
        return shown[v]

    hover = [[f"{esc(p)}<br>{who(v, ids)}"
              + ("<br>estimated: inferred from the generations (its own log shows no assignment)" if g else "")
              for v, g, ids in zip(row, marks, cells, strict=True)]
             for p, row, marks, cells in zip(grid["partitions"], grid["z"], guessed, owners, strict=True)]
    keys = [esc(_key(names_of.get(m) or short_id(m, 18))) for m in members] + (["2+ at once"] if doubles else [])
    scale = _discrete_scale(len(members) or 1)
    if doubles:   # the extra last value: black, apart from every member's colour
        scale = [[v * (n - 1) / n, c] for v, c in scale] + [[(n - 1) / n, SEVERAL], [1.0, SEVERAL]]
    fig = go.Figure(go.Heatmap(
        x=to_dt(pd.Series(grid["times"])), y=grid["partitions"], z=grid["z"],
        zmin=-0.5, zmax=n - 0.5, colorscale=scale, hovertext=hover, hoverinfo="x+text",
        xgap=0, ygap=1,
        colorbar={"tickvals": list(range(n)), "thickness": 12, "x": 1.005, "xanchor": "left", "xpad": 4,
                  "ticktext": keys, "len": 1.0, "tickfont": {"size": 10}},
    ))
    height = min(MAX_HEIGHT, max(240, 90 + 22 * len(grid["partitions"])))
    if n > MAX_COLORBAR_MEMBERS or n * 15 > height - 100:  # labels would overlap: the hover names the member
        fig.update_traces(showscale=False)
    fig.update_yaxes(categoryorder="array", categoryarray=list(reversed(grid["partitions"])), fixedrange=True)
    return base_layout(fig, title, height, x_range)


def _key(label: str, limit: int = 20) -> str:
    """A colour-key label that fits the right margin: the host part cut, the short id kept."""
    if len(label) <= limit:
        return label
    head, sep, tail = label.rpartition(" · ")
    return (head[: limit - len(tail) - 4] + "…" + sep + tail) if sep else label[: limit - 1] + "…"
