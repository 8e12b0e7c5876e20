"""Generation timeline: Gantt-like phase bars per generation, rebalance causes, findings markers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from dashboard.figures.common import PHASE_COLORS, SEVERITY_COLORS, base_layout, empty_figure, esc, to_dt

ROW_GEN, ROW_CAUSE, ROW_FINDINGS = "generations", "rebalance cause", "findings"
LABEL_LIMIT = 12  # above this many generations the bars carry no text (it would overlap)
# Cause labels are placed in up to LEVELS staggered rows so that no two overlap; the layout assumes
# the plot area of a 1,400 px window (PLOT_PX) and a 10 px font (CHAR_PX a character). A label that
# fits no row is left to the marker's hover.
PLOT_PX, CHAR_PX, LEVELS, LEVEL_PX = 940.0, 6.2, 3, 13


def place_labels(xs: list[float], texts: list[str], lo: float, hi: float,
                 plot_px: float = PLOT_PX) -> list[tuple[int, str] | None]:
    """For each label (x in ms, sorted or not): (row, "left"|"right" anchor) or None (hover only).

    A label starts at its marker and runs right, or ends at it when that would pass the right edge;
    no two labels of one row may share a pixel (4 px apart at least)."""
    span = max(hi - lo, 1.0)
    rows: list[list[tuple[float, float]]] = [[] for _ in range(LEVELS)]
    out: list[tuple[int, str] | None] = [None] * len(xs)
    for i in sorted(range(len(xs)), key=lambda k: xs[k]):
        px = (xs[i] - lo) / span * plot_px
        width = len(texts[i]) * CHAR_PX + 8
        if px < 0 or px > plot_px:
            continue
        spans = [("left", px, px + width), ("right", px - width, px)]
        for level in range(LEVELS):
            for anchor, a, b in spans:
                if a < 0 or b > plot_px:
                    continue
                if all(b + 4 <= c or a >= d + 4 for c, d in rows[level]):
                    rows[level].append((a, b))
                    out[i] = (level, anchor)
                    break
            if out[i] is not None:
                break
    return out


def _phase_spans(phases: pd.DataFrame, end_fallback: int | None) -> dict[str, list[dict[str, Any]]]:
    spans: dict[str, list[dict[str, Any]]] = {"preparing": [], "completing": [], "stable": []}
    for g in phases.itertuples(index=False):
        started, completing = g.started_ms, g.completing_ms
        stable, ended = g.stabilized_ms, g.ended_ms
        if pd.isna(ended):
            ended = end_fallback
        info = {"generation": g.generation, "cause": g.cause, "detail": g.cause_detail,
                "members": g.member_count, "protocol": g.protocol}
        if pd.notna(started) and pd.notna(stable):
            mid = completing if pd.notna(completing) else stable
            if mid > started:
                spans["preparing"].append({**info, "start": started, "end": mid})
            if pd.notna(completing) and stable > completing:
                spans["completing"].append({**info, "start": completing, "end": stable})
        if pd.notna(stable) and ended is not None and pd.notna(ended) and ended >= stable:
            spans["stable"].append({**info, "start": stable, "end": max(ended, stable + 1)})
    return spans


def timeline_figure(phases: pd.DataFrame, findings: pd.DataFrame, x_range: Iterable[Any] | None = None,
                    end_fallback: int | None = None, empty_message: str | None = None) -> go.Figure:
    """Bars: preparing (join phase), completing (sync phase), stable; markers: causes, findings.

    `phases` is `RunData.generation_phases` (generations + completing_ms); `findings` the group's
    findings. Findings markers carry `customdata` = finding_id so a click can open their evidence.
    """
    title = "Generations: preparing → completing → stable, with rebalance causes and findings"
    if phases.empty and findings.empty:
        return empty_figure(title, empty_message or "No generation or finding of this group falls in this window.",
                            x_range=x_range)
    fig = go.Figure()
    labels = len(phases) <= LABEL_LIMIT
    # a phase of a few ms is drawn 3 px wide, not invisible; its hover gives the real duration
    lo, hi = tuple(x_range) if x_range is not None else (None, None)
    min_ms = (hi - lo) / PLOT_PX * 3 if lo is not None and hi is not None else 0.0
    for phase, spans in _phase_spans(phases, end_fallback).items():
        if not spans:
            continue
        frame = pd.DataFrame(spans)
        hover = [
            f"<b>generation {s['generation']}</b> · {phase}<br>{esc(s['cause'])}: {esc(s['detail'])}"
            f"<br>members: {s['members']} · protocol: {esc(s['protocol'])}"
            f"<br>duration: {int(s['end'] - s['start'])} ms"
            for s in spans
        ]
        fig.add_trace(go.Bar(
            name=phase, orientation="h", y=[ROW_GEN] * len(frame), base=to_dt(frame["start"]),
            x=(frame["end"] - frame["start"]).astype("float64").clip(lower=min_ms), marker_color=PHASE_COLORS[phase],
            marker_line={"width": 1, "color": "white"},
            text=[f"g{s['generation']}" for s in spans] if labels and phase == "stable" else None,
            textposition="inside", insidetextanchor="start", hovertext=hover, hoverinfo="text",
        ))
    causes = phases[phases["started_ms"].notna()]
    if not causes.empty:
        _cause_labels(fig, causes, x_range)
        fig.add_trace(go.Scatter(
            name="rebalance cause", mode="markers", y=[ROW_CAUSE] * len(causes),
            x=to_dt(causes["started_ms"]), marker={"symbol": "triangle-down", "size": 11, "color": "#444"},
            hovertext=[f"<b>generation {g} rebalance</b><br>{esc(c)}: {esc(d)}<br>trigger: "
                       + (esc(t) if isinstance(t, str) else "unknown")
                       for g, c, d, t in zip(causes["generation"], causes["cause"], causes["cause_detail"],
                                             causes["trigger_member"], strict=True)],
            hoverinfo="text",
        ))
    timed = findings[findings["start_ms"].notna()] if not findings.empty else findings
    for sev, color in SEVERITY_COLORS.items():
        rows = timed[timed["severity"] == sev] if not timed.empty else timed
        if rows.empty:
            continue
        fig.add_trace(go.Scatter(
            name=f"finding: {sev}", mode="markers", y=[ROW_FINDINGS] * len(rows), x=to_dt(rows["start_ms"]),
            marker={"symbol": "diamond", "size": 14, "color": color, "line": {"width": 1, "color": "#222"}},
            customdata=rows["finding_id"].tolist(),
            hovertext=[f"<b>{esc(t)}</b><br>{sev} · {esc(k)}<br>click to open its evidence"
                       for t, k in zip(rows["title"], rows["kind"], strict=True)],
            hoverinfo="text",
        ))
    # a bar too short for its "gN" shows none (rather than a shrunken or spilling label)
    fig.update_layout(barmode="overlay", bargap=0.35, clickmode="event", uniformtext={"mode": "hide", "minsize": 9})
    fig.update_yaxes(categoryorder="array", categoryarray=[ROW_FINDINGS, ROW_CAUSE, ROW_GEN], fixedrange=True)
    return base_layout(fig, title, 320, x_range)


def _cause_labels(fig: go.Figure, causes: pd.DataFrame, x_range: Iterable[Any] | None) -> None:
    """Cause names as annotations above the cause markers, staggered so none overlaps another."""
    lo, hi = (tuple(x_range) if x_range is not None else (None, None))
    xs = causes["started_ms"].astype("float64").tolist()
    if lo is None or hi is None:
        lo, hi = min(xs), max(xs)
    texts = [str(c) if isinstance(c, str) else "unknown" for c in causes["cause"]]
    for x, text, place in zip(xs, texts, place_labels(xs, texts, float(lo), float(hi)), strict=True):
        if place is None:
            continue
        level, anchor = place
        fig.add_annotation(x=to_dt(x), y=ROW_CAUSE, text=esc(text), showarrow=False, xanchor=anchor,
                           yanchor="bottom", yshift=6 + LEVEL_PX * level, font={"size": 10, "color": "#333"},
                           xshift=-2 if anchor == "right" else 2)
