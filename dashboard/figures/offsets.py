"""Committed offset of one topic-partition over time, with resets, rewinds and skips marked."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from dashboard.figures.common import base_layout, empty_figure, esc, to_dt

FLAG_STYLE = {  # flag -> (symbol, colour, size)
    "rewind": ("triangle-down", "#d62728", 13), "skip": ("triangle-up", "#ff7f0e", 13),
    "reset": ("square", "#9467bd", 12), "first": ("circle", "#2ca02c", 10),
}
DENSE = 4000


def offsets_figure(history: pd.DataFrame, partition: str, x_range: Iterable[Any] | None = None) -> go.Figure:
    """`history` is `RunData.offset_history`; the line is every commit (scattergl), flags as markers."""
    title = f"Committed offset of {partition} over time"
    if history.empty:
        return empty_figure(title, f"No committed offset of {partition} is recorded in this window.")
    fig = go.Figure()
    line = history
    if len(line) > DENSE:  # keep a bounded, shape-preserving subset: each bucket's min and max
        step = len(line) // (DENSE // 2) + 1
        key = pd.Series(range(len(line)), index=line.index) // step
        line = pd.concat([line.loc[line.groupby(key)["offset"].idxmin()],
                          line.loc[line.groupby(key)["offset"].idxmax()]]).sort_values("ts_ms", kind="stable")
    fig.add_trace(go.Scattergl(
        name="committed offset", mode="lines+markers", line={"shape": "hv", "color": "#4e79a7"},
        marker={"size": 4}, x=to_dt(line["ts_ms"]), y=line["offset"],
        hovertext=[f"offset {o} (Δ {d})<br>gen {g} · {esc(m)}" for o, d, g, m in
                   zip(line["offset"], line["delta"], line["generation"], line["member_id"], strict=True)],
        hoverinfo="x+text",
    ))
    for flag, (symbol, color, size) in FLAG_STYLE.items():
        rows = history[history["flag"] == flag]
        if rows.empty:
            continue
        fig.add_trace(go.Scatter(
            name=flag, mode="markers", x=to_dt(rows["ts_ms"]), y=rows["offset"],
            marker={"symbol": symbol, "size": size, "color": color, "line": {"width": 1, "color": "#222"}},
            hovertext=[f"<b>{flag}</b>: {p} → {o} (Δ {d})<br>{esc(m)}<br>{esc(', '.join(e) if e is not None else '')}"
                       for p, o, d, m, e in zip(rows["prev_offset"], rows["offset"], rows["delta"], rows["member_id"],
                                                rows["evidence"], strict=True)],
            hoverinfo="x+text",
        ))
    fig.update_yaxes(title_text="offset")
    return base_layout(fig, title, 420, x_range, shared=False)
