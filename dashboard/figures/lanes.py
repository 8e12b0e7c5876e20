"""One lane per member: joins, syncs, revokes, leaves, expiries (heartbeats/commits bucketed)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from dashboard.figures.common import CATEGORY_STYLE, base_layout, empty_figure, esc, short_id, to_dt


def lanes_figure(points: pd.DataFrame, x_range: Iterable[Any] | None = None) -> go.Figure:
    """`points` is `RunData.lane_points` (lane, category, ts_ms, kind, count ...); scattergl traces.

    A marker whose `count` > 1 stands for that many events of its bucket (dense heartbeats).
    """
    title = "Members: joins, syncs, revokes, leaves, expiries, heartbeats, commits"
    if points.empty:
        return empty_figure(title, "no member events for this group in this window")
    lanes = sorted(points["lane"].unique().tolist())
    labels = {lane: short_id(lane) for lane in lanes}
    fig = go.Figure()
    for category, (symbol, color) in CATEGORY_STYLE.items():
        rows = points[points["category"] == category]
        if rows.empty:
            continue
        hover = [
            f"<b>{esc(k)}</b> ×{c}<br>{esc(m)}<br>{esc(s)}:{ln}" + (f"<br>reason: {esc(r)}" if r else "")
            for k, c, m, s, ln, r in zip(rows["kind"], rows["count"], rows["lane"], rows["source"], rows["line_no"],
                                         rows["reason"].fillna(""), strict=True)
        ]
        fig.add_trace(go.Scattergl(
            name=category, mode="markers", x=to_dt(rows["ts_ms"]), y=[labels[v] for v in rows["lane"]],
            marker={"symbol": symbol, "size": 11 if category not in ("heartbeat", "commit") else 8,
                    "color": color, "line": {"width": 1.5, "color": color}},
            customdata=[f"{s}:{ln}" for s, ln in zip(rows["source"], rows["line_no"], strict=True)],
            hovertext=hover, hoverinfo="text",
        ))
    fig.update_yaxes(categoryorder="array", categoryarray=[labels[v] for v in reversed(lanes)], fixedrange=True)
    return base_layout(fig, title, max(260, 90 + 34 * len(lanes)), x_range)
