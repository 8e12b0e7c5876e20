"""Shared helpers for the figure builders: time conversion, colours, layout defaults."""

from __future__ import annotations

import html
import textwrap
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


# Every chart of a page has the same left and right margins (not plotly's automargin, which sizes
# them from each chart's own labels): the plot areas have one width and one left edge, so with one
# x range an instant sits at the same pixel column on every chart. Lane labels are cut to fit LEFT.
MARGIN = {"l": 250, "r": 150, "t": 64, "b": 36}
LABEL_CHARS = 34  # y labels longer than this are shortened (the hover has the full text)


def base_layout(fig: go.Figure, title: str, height: int, x_range: Iterable[Any] | None = None,
                shared: bool = True) -> go.Figure:
    """Title, legend and time axis of a chart. `shared`: the chart stands with others on one time
    axis (fixed margins, nothing may widen them); a lone chart lets its axis titles take room."""
    fig.update_layout(
        title={"text": title, "x": 0.01, "y": 0.985, "yref": "container", "yanchor": "top", "font": {"size": 15}},
        height=height, plot_bgcolor="#fbfbfb", paper_bgcolor="white",
        margin={**MARGIN, "autoexpand": False} if shared else {"l": 10, "r": 10, "t": 64, "b": 10},
        legend={"orientation": "h", "y": 1.01, "yanchor": "bottom", "x": 0, "xanchor": "left"},
        hoverlabel={"align": "left"}, uirevision="window",
    )
    # a lone chart's narrow left margin: a tick label centred on the first instant would spill over
    # the y labels, so it is hidden; shared charts have room for it (and its date line) in MARGIN
    fig.update_xaxes(type="date", showgrid=True, gridcolor="#e6e6e6", automargin=not shared,
                     ticklabeloverflow="allow" if shared else "hide past domain")
    fig.update_yaxes(automargin=not shared)
    if x_range is not None:
        lo, hi = x_range
        if lo is not None and hi is not None:
            fig.update_xaxes(range=[to_dt(lo), to_dt(hi)])
    return fig


def empty_figure(title: str, message: str, height: int = 200, x_range: Iterable[Any] | None = None) -> go.Figure:
    """A chart with nothing to draw: the page's time axis (so it still lines up) and a sentence saying why."""
    fig = go.Figure()
    base_layout(fig, title, height, x_range)
    fig.update_yaxes(visible=False)
    lines = textwrap.wrap(message, 90) or [""]  # annotations do not wrap: a long sentence would be cut
    fig.update_layout(annotations=[{"text": "<br>".join(esc(t) for t in lines), "showarrow": False, "font": {"size": 14, "color": "#555"},
                                    "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5}])
    if x_range is None or None in tuple(x_range):
        fig.update_xaxes(visible=False)
    fig.layout.meta = {"empty": message}
    return fig
