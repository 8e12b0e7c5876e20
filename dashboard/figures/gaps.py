"""A member's silences: heartbeat gaps against session.timeout.ms, poll gaps against max.poll.interval.ms."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.figures.common import base_layout, empty_figure, esc, to_dt

ROWS = (("heartbeat", "heartbeat gaps vs session.timeout.ms"), ("poll", "poll gaps vs max.poll.interval.ms"))


def gaps_figure(gaps: pd.DataFrame, x_range: Iterable[Any] | None = None) -> go.Figure:
    """`gaps` is `RunData.member_gaps` (kind heartbeat | poll | log); 'log' silences join the heartbeat row."""
    title = "Silences of this member (each point: a gap ending at that time; red = limit exceeded)"
    if gaps.empty:
        return empty_figure(title, "no heartbeat or poll gaps recorded for this member in this window")
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.12,
                        subplot_titles=[label for _, label in ROWS])
    for row, (kind, _) in enumerate(ROWS, start=1):
        kinds = ("heartbeat", "log") if kind == "heartbeat" else ("poll",)
        rows = gaps[gaps["kind"].isin(kinds)].sort_values("end_ms")
        if rows.empty:
            fig.add_annotation(text=f"no {kind} gaps recorded", showarrow=False, font={"color": "#666"},
                               xref=f"x{row if row > 1 else ''} domain", yref=f"y{row if row > 1 else ''} domain",
                               x=0.5, y=0.5)
            continue
        exceeded = rows["exceeded"].fillna(False).astype(bool)
        for flag, color, name in ((False, "#4e79a7", f"{kind} gap"), (True, "#d62728", f"{kind} gap over limit")):
            part = rows[exceeded == flag]
            if part.empty:
                continue
            fig.add_trace(go.Scattergl(
                name=name, mode="markers", x=to_dt(part["end_ms"]), y=part["gap_ms"],
                marker={"size": 9 if flag else 6, "color": color},
                hovertext=[f"{esc(k)} gap {g} ms (limit {lim} ms)<br>×{c} in bucket<br>{esc(', '.join(ev))}"
                           for k, g, lim, c, ev in zip(part["kind"], part["gap_ms"], part["limit_ms"],
                                                       part["count"], part["evidence"].map(
                                                           lambda e: list(e) if e is not None else []),
                                                       strict=True)],
                hoverinfo="text",
            ), row=row, col=1)
        limits = rows[rows["limit_ms"].notna()]
        if not limits.empty:
            fig.add_trace(go.Scattergl(
                name=f"{'session.timeout.ms' if kind == 'heartbeat' else 'max.poll.interval.ms'}",
                mode="lines", line={"shape": "hv", "dash": "dash", "color": "#d62728", "width": 1.5},
                x=to_dt(limits["end_ms"]), y=limits["limit_ms"], hoverinfo="y+name",
            ), row=row, col=1)
        fig.update_yaxes(title_text="gap (ms)", rangemode="tozero", row=row, col=1)
    base_layout(fig, title, 560, x_range)
    # two subplot titles sit where the default top legend would go: put the legend below
    fig.update_layout(legend={"y": -0.08, "yanchor": "top", "x": 0, "xanchor": "left"},
                      margin={"l": 10, "r": 10, "t": 64, "b": 40})
    return fig
