"""One lane per member: joins, syncs, revokes, leaves, expiries (heartbeats/commits bucketed)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from dashboard.figures.common import CATEGORY_STYLE, LABEL_CHARS, base_layout, empty_figure, esc, short_id


def lanes_figure(points: pd.DataFrame, x_range: Iterable[Any] | None = None,
                 names: dict[str, str] | None = None, empty_message: str | None = None) -> go.Figure:
    """`points` is `RunData.lane_points` (lane, category, ts_ms, kind, count ...); scattergl traces.

    A marker whose `count` > 1 stands for that many events of its bucket (dense heartbeats).
    `names` maps member ids to lane labels (host or client id and a short id); the hover has the id.
    """
    names = names or {}
    title = "Members: joins, syncs, revokes, leaves, expiries, heartbeats, commits"
    if points.empty:
        return empty_figure(title, empty_message or "No member events for this group in this window.",
                            x_range=x_range)
    lanes = sorted(points["lane"].unique().tolist())
    index = {lane: i for i, lane in enumerate(lanes)}
    fig = go.Figure()
    for category, (symbol, color) in CATEGORY_STYLE.items():
        rows = points[points["category"] == category]
        if rows.empty:
            continue
        # compact payload: numeric x (epoch ms on a date axis) and y (lane index) travel as typed arrays
        hover = [
            f"<b>{esc(k)}</b>" + (f" ×{c:,}" if c > 1 else "") + f"<br>member {esc(m)}<br>{esc(s)}:{ln}"
            + (f"<br>{esc(r)}" if r else "")
            for k, c, m, s, ln, r in zip(rows["kind"], rows["count"], rows["lane"], rows["source"], rows["line_no"],
                                         rows["reason"].fillna(""), strict=True)
        ]
        fig.add_trace(go.Scattergl(
            name=category, mode="markers", x=rows["ts_ms"].to_numpy(dtype="float64"),
            y=rows["lane"].map(index).to_numpy(dtype="float64"),
            marker={"symbol": symbol, "size": 11 if category not in ("heartbeat", "commit") else 8,
                    "color": color, "line": {"width": 1.5, "color": color}},
            customdata=[f"{s}:{ln}" for s, ln in zip(rows["source"], rows["line_no"], strict=True)],
            hovertext=hover, hoverinfo="text",
        ))
    fig.update_yaxes(tickvals=list(range(len(lanes))), ticktext=[esc(names.get(v) or short_id(v, LABEL_CHARS)) for v in lanes],
                     range=[len(lanes) - 0.5, -0.5], fixedrange=True, showgrid=False, zeroline=False)
    per_lane = 34 if len(lanes) <= 30 else 16  # many members: thinner lanes, smaller labels
    if len(lanes) > 30:
        fig.update_yaxes(tickfont={"size": 9})
    return base_layout(fig, title, min(1400, max(260, 90 + per_lane * len(lanes))), x_range)
