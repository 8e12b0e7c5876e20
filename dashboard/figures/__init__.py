"""Pure figure builders: DataFrames (or plain dicts) in, plotly figures out. No I/O, no Dash."""

from dashboard.figures.gaps import gaps_figure
from dashboard.figures.lanes import lanes_figure
from dashboard.figures.offsets import offsets_figure
from dashboard.figures.ownership import ownership_figure
from dashboard.figures.timeline import timeline_figure

__all__ = ["gaps_figure", "lanes_figure", "offsets_figure", "ownership_figure", "timeline_figure"]
