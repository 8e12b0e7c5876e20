"""A member's silences: heartbeat gaps against session.timeout.ms, poll gaps against max.poll.interval.ms.

Log silences (kind "log": any two lines of the client) are drawn without a limit: a quiet log says
nothing about heartbeats (sent by their own thread) nor about polls. Expiries (kind "expiry": the
broker's "has failed" line, the member's log without heartbeat lines) join the heartbeat row.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.data import exceeded_mask
from dashboard.figures.common import base_layout, empty_figure, esc, to_dt

ROWS = (("heartbeat", "heartbeat gaps vs session.timeout.ms"), ("poll", "poll gaps vs max.poll.interval.ms"))


LIMIT_NAMES = {"heartbeat": "session.timeout.ms", "poll": "max.poll.interval.ms"}
MARKER_COLORS = {"heartbeat": "#4e79a7", "poll": "#4e79a7", "log": "#9c9c9c", "expiry": "#4e79a7"}
LABELS = {"log": "log silence", "expiry": "expired by the broker"}
# the kinds drawn in each row, and the one whose limit line the row shows
ROW_KINDS = {"heartbeat": ("heartbeat", "expiry", "log"), "poll": ("poll",)}


def _add_kind(fig: go.Figure, rows: pd.DataFrame, kind: str, row: int) -> None:
    """One kind of gap in one row: normal points, points over the limit, and the limit line."""
    # a log silence is never "over a limit": it has none
    exceeded = exceeded_mask(rows) & (kind != "log")
    label = LABELS.get(kind, f"{kind} gap")
    for flag, color, name in ((False, MARKER_COLORS[kind], label), (True, "#d62728", f"{label} over limit")):
        part = rows[exceeded == flag]
        if part.empty:
            continue
        evidence = part["evidence"].map(lambda e: list(e) if e is not None else [])
        fig.add_trace(go.Scattergl(
            name=name, mode="markers", x=to_dt(part["end_ms"]), y=part["gap_ms"],
            marker={"size": 9 if flag else 6, "color": color},
            hovertext=[f"{esc(label)} {g} ms" + (f" (limit {lim} ms)" if kind != "log" and pd.notna(lim) else "")
                       + f"<br>×{c} in bucket<br>{esc(', '.join(ev))}"
                       for g, lim, c, ev in zip(part["gap_ms"], part["limit_ms"], part["count"], evidence,
                                                strict=True)],
            hoverinfo="text",
        ), row=row, col=1)


def _add_limit(fig: go.Figure, rows: pd.DataFrame, kind: str, row: int) -> None:
    """The limit line of a row: session.timeout.ms from the heartbeat and expiry rows (the group's
    value), max.poll.interval.ms from the poll rows; never from log silences."""
    limits = rows[rows["limit_ms"].notna() & (rows["kind"] != "log")]
    if not limits.empty:
        fig.add_trace(go.Scattergl(
            name=LIMIT_NAMES[kind], mode="lines", x=to_dt(limits["end_ms"]), y=limits["limit_ms"],
            line={"shape": "hv", "dash": "dash", "color": "#d62728", "width": 1.5},
            hoverinfo="y+name",
        ), row=row, col=1)


def gaps_figure(gaps: pd.DataFrame, x_range: Iterable[Any] | None = None) -> go.Figure:
    """`gaps` is `RunData.member_gaps` (kind heartbeat | expiry | poll | log); expiries and 'log' silences
    join the heartbeat row, whose limit line is session.timeout.ms (never a log silence's limit)."""
    title = "Silences of this member (each point: a gap ending at that time; red = limit exceeded)"
    if gaps.empty:
        return empty_figure(title, "No heartbeat or poll gap is recorded for this member in this window.")
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.12,
                        subplot_titles=[label for _, label in ROWS])
    for row, (kind, _) in enumerate(ROWS, start=1):
        kinds = ROW_KINDS[kind]
        rows = gaps[gaps["kind"].isin(kinds)].sort_values("end_ms")
        if rows.empty:
            # an empty trace keeps the row's axes drawn, so the note sits inside its own row
            fig.add_trace(go.Scattergl(x=[], y=[], showlegend=False, hoverinfo="skip"), row=row, col=1)
            fig.add_annotation(text=f"No {kind} gap is recorded for this member in this window.", showarrow=False,
                               font={"color": "#666"}, xref="x domain", yref="y domain", x=0.5, y=0.5, row=row, col=1)
            fig.update_yaxes(showticklabels=False, row=row, col=1)  # an empty row has no scale to read
            continue
        for sub_kind in kinds:  # log silences (any line) are drawn apart from heartbeat gaps
            part_rows = rows[rows["kind"] == sub_kind]
            if not part_rows.empty:
                _add_kind(fig, part_rows, sub_kind, row)
        _add_limit(fig, rows, kind, row)
        fig.update_yaxes(title_text="gap (ms)", rangemode="tozero", row=row, col=1)
    base_layout(fig, title, 560, x_range, shared=False)
    # two subplot titles sit where the default top legend would go: put the legend below
    fig.update_layout(legend={"y": -0.08, "yanchor": "top", "x": 0, "xanchor": "left"},
                      margin={"l": 10, "r": 10, "t": 64, "b": 40})
    return fig
