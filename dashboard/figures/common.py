"""Shared helpers for the figure builders: time conversion, colours, layout defaults."""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any

import pandas as pd
import plotly.graph_objects as go

SEVERITY_COLORS = {"critical": "#b2182b", "high": "#ef6548", "medium": "#f0a30a", "low": "#4393c3",
                   "info": "#7f7f7f"}
PHASE_COLORS = {"preparing": "#ef8a62", "completing": "#fddb7a", "stable": "#67a9cf"}
CATEGORY_STYLE = {  # lane category -> (marker symbol, colour)
    "join": ("triangle-right", "#1b9e77"), "sync": ("diamond", "#7570b3"),
    "revoke": ("x-thin-open", "#a6761d"), "leave": ("triangle-left", "#666666"),
    "expiry": ("x", "#d62728"), "heartbeat": ("line-ns-open", "#9ecae1"),
    "commit": ("circle-open", "#74c476"), "other": ("circle", "#bbbbbb"),
}
MEMBER_PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
                  "#9c755f", "#bab0ac", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#bcbd22"]


def to_dt(ms: Any) -> Any:
    """Epoch ms (scalar or series) -> naive UTC datetimes, the way plotly date axes want them."""
    if isinstance(ms, pd.Series):
        return pd.to_datetime(ms.astype("float64"), unit="ms")
    if ms is None or ms != ms:
        return None
    return pd.to_datetime(int(ms), unit="ms")


def esc(value: Any) -> str:
    """Log-derived text for hover labels: plotly reads a few tags in labels, so escape them."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return html.escape(str(value), quote=False)


def short_id(member: str | None, keep: int = 28) -> str:
    """Member ids are long (client id + UUID); lanes show the client part and the UUID head."""
    if not member:
        return ""
    text = str(member)
    if "@" in text and "/" in text:  # the replay's name for a process that logs no member id
        head, _, path = text.partition("@")
        text = f"{head}@…/{path.rsplit('/', 1)[-1]}"
    return text if len(text) <= keep else text[: keep - 9] + "…" + text[-8:]


def base_layout(fig: go.Figure, title: str, height: int, x_range: Iterable[Any] | None = None) -> go.Figure:
    fig.update_layout(
        title={"text": title, "x": 0.01, "y": 0.985, "yref": "container", "yanchor": "top", "font": {"size": 15}},
        height=height, margin={"l": 10, "r": 10, "t": 64, "b": 10}, plot_bgcolor="#fbfbfb", paper_bgcolor="white",
        legend={"orientation": "h", "y": 1.01, "yanchor": "bottom", "x": 0, "xanchor": "left"},
        hoverlabel={"align": "left"}, uirevision="window",
    )
    fig.update_xaxes(type="date", showgrid=True, gridcolor="#e6e6e6")
    fig.update_yaxes(automargin=True)
    if x_range is not None:
        lo, hi = x_range
        if lo is not None and hi is not None:
            fig.update_xaxes(range=[to_dt(lo), to_dt(hi)])
    return fig


def empty_figure(title: str, message: str, height: int = 220) -> go.Figure:
    fig = go.Figure()
    fig.update_layout(title={"text": title, "x": 0.01, "font": {"size": 15}}, height=height,
                      margin={"l": 10, "r": 10, "t": 40, "b": 10},
                      xaxis={"visible": False}, yaxis={"visible": False},
                      annotations=[{"text": esc(message), "showarrow": False, "font": {"size": 14, "color": "#666"},
                                    "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5}])
    return fig
