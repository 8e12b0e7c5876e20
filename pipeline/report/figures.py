"""Plotly figures embedded in the HTML report (pure: report model in, figure out)."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

PHASE_COLOURS = {"rebalancing": "#e4572e", "stable": "#4c9f70"}
SEV_COLOURS = {"critical": "#8b0000", "high": "#e4572e", "medium": "#f3a712", "low": "#29335c", "info": "#888888"}


def _generation_order(label: str) -> tuple[int, int | str]:
    """"gen 7" by its number; any other label after the numbered ones."""
    number = label.removeprefix("gen ")
    return (0, int(number)) if number.lstrip("-").isdigit() else (1, number)


def timeline_figure(group: dict[str, Any]) -> go.Figure | None:
    """One bar per generation: rebalancing (start -> stabilized) then stable (-> ended); findings as markers."""
    from datetime import datetime

    def ts(text: str | None) -> datetime | None:
        return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None

    fig = go.Figure()
    rows = [t for t in group["timeline"] if t["start"]]
    if not rows:
        return None
    for phase, start_key, end_key in (("rebalancing", "start", "stabilized"), ("stable", "stabilized", "ended")):
        ys, bases, widths, texts = [], [], [], []
        for t in rows:
            a, b = ts(t[start_key]), ts(t[end_key])
            if a is None or b is None or b < a:
                continue
            ys.append(f"gen {t['generation']}")
            bases.append(a)
            widths.append((b - a).total_seconds() * 1000)
            texts.append(f"gen {t['generation']}: {phase}, cause {t['cause']}")
        if ys:
            fig.add_trace(go.Bar(y=ys, x=widths, base=bases, orientation="h", name=phase,
                                 marker_color=PHASE_COLOURS[phase], hovertext=texts, hoverinfo="text"))
    for sev, colour in SEV_COLOURS.items():
        pts = [f for f in group["findings"] if f["severity"] == sev and f["start"]]
        if pts:
            gens = [f"gen {f['generation']}" if f["generation"] is not None else f"gen {rows[0]['generation']}"
                    for f in pts]
            fig.add_trace(go.Scatter(x=[ts(f["start"]) for f in pts], y=gens, mode="markers", name=f"{sev} finding",
                                     marker={"symbol": "x", "size": 11, "color": colour},
                                     hovertext=[f["title"] for f in pts], hoverinfo="text"))
    # one row per generation, in generation order, whether a bar or only a finding's marker shows it
    labels = sorted({y for trace in fig.data for y in trace.y}, key=_generation_order)
    fig.update_layout(
        # the legend sits in the top margin, above the plot area, so it never covers a bar
        barmode="overlay", height=min(900, 160 + 22 * len(labels)), margin={"l": 70, "r": 20, "t": 80, "b": 40},
        xaxis={"type": "date", "title": "time (UTC)"},
        yaxis={"autorange": "reversed", "categoryorder": "array", "categoryarray": labels},
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1.0, "yanchor": "bottom"},
        title={"text": f"Generations of {group['group_id']}", "x": 0, "y": 0.98, "yref": "container",
               "yanchor": "top"},
        template="plotly_white",
    )
    return fig
