"""create_app(run_dir): the Dash app over one RUN_DIR.

Routing is by URL: the page comes from the path and its whole selection from the query string
(see pipeline/dashboard_urls.py). The time window (`since`, `until`) and the overview filter (`q`) are "soft"
parameters: changing them rewrites the address (so it can be shared) and refreshes the figures,
without rebuilding the page. Any other change rebuilds the page from the URL.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from dash import ALL, Dash, Input, Output, State, ctx, dcc, html
from dash.exceptions import PreventUpdate

from dashboard import components
from dashboard.data import RunData
from dashboard.pages import group, member, offsets, overview, owner, unparsed
from pipeline import dashboard_urls as urls
from pipeline.rundir import RunDirError

ASSETS = Path(__file__).resolve().parent / "assets"
SOFT_PARAMS = frozenset({"since", "until", "q"})
PAGES = {"/": overview, "/group": group, "/member": member, "/offsets": offsets, "/owner": owner,
         "/unparsed": unparsed}
_RANGE_KEY = re.compile(r"^xaxis\d*\.range(\[([01])\])?$")


def page_key(pathname: str | None, search: str | None) -> str:
    """What identifies a page: its path and its non-soft parameters."""
    params = {k: v for k, v in urls.parse_query(search).items() if k not in SOFT_PARAMS}
    return (pathname or "/") + "?" + "&".join(f"{k}={params[k]}" for k in sorted(params))


def render_page(data: RunData, pathname: str | None, search: str | None) -> Any:
    module = PAGES.get(pathname or "/")
    if module is None:
        return components.page("Not found", html.P(f"There is no page at {pathname}."),
                               dcc.Link("back to the overview", href="/"))
    return module.layout(data, urls.parse_query(search))


def window_from_search(search: str | None) -> dict[str, int | None]:
    params = urls.parse_query(search)
    return {"since": urls.parse_time(params.get("since")), "until": urls.parse_time(params.get("until"))}


def window_from_relayout(relayout: dict[str, Any] | None) -> tuple[int | None, int | None] | str | None:
    """A figure's relayoutData -> (since, until), "reset" for autorange, None when not an x zoom."""
    if not relayout:
        return None
    lo = hi = None
    for key, value in relayout.items():
        m = _RANGE_KEY.match(key)
        if m and m.group(2) == "0":
            lo = value
        elif m and m.group(2) == "1":
            hi = value
        elif m and isinstance(value, list) and len(value) == 2:
            lo, hi = value
        elif re.match(r"^xaxis\d*\.autorange$", key) and value:
            return "reset"
    if lo is None or hi is None:
        return None
    since, until = urls.parse_time(str(lo)), urls.parse_time(str(hi))
    if since is None or until is None:
        return None
    return (min(since, until), max(since, until))


def with_window(search: str | None, since: int | None, until: int | None) -> str:
    params = urls.parse_query(search)
    params.pop("since", None)
    params.pop("until", None)
    if since is not None:
        params["since"] = str(since)
    if until is not None:
        params["until"] = str(until)
    from urllib.parse import urlencode

    return ("?" + urlencode(params)) if params else ""


def window_update(triggered: Any, relayouts: list[Any], inputs: dict[str, str | None],
                  search: str | None) -> str | None:
    """The new query string after a zoom, an apply or a reset; None when nothing changes."""
    if not isinstance(triggered, dict):
        return None
    if triggered.get("type") == "zoomable":
        # all relayouts arrive; the triggered figure's is the one that changed
        changed = None
        for value in relayouts:
            parsed = window_from_relayout(value)
            if parsed is not None:
                changed = parsed
        if changed is None:
            return None
        new = with_window(search, None, None) if changed == "reset" else with_window(search, *changed)
    elif triggered.get("name") == "reset":
        new = with_window(search, None, None)
    elif triggered.get("name") == "apply":
        since, until = urls.parse_time(inputs.get("since")), urls.parse_time(inputs.get("until"))
        new = with_window(search, since, until)
    else:
        return None
    return None if new == (search or "") else new


def create_app(run_dir: str | Path) -> Dash:
    data = RunData(run_dir)
    app = Dash(__name__, assets_folder=str(ASSETS), suppress_callback_exceptions=True,
               title="coordscope", update_title=None)  # type: ignore[arg-type]  # None turns it off
    app.layout = html.Div([
        dcc.Location(id="url", refresh=False),
        dcc.Store(id="page-key"),
        dcc.Store(id="window", data={"since": None, "until": None}),
        html.Div(id="nav"),
        html.Main(id="page-content"),
    ])
    app.server.config["COORDSCOPE_RUN_DIR"] = str(data.run_dir)
    app.coordscope_data = data  # type: ignore[attr-defined]

    @app.callback(Output("page-content", "children"), Output("page-key", "data"), Output("nav", "children"),
                  Input("url", "pathname"), Input("url", "search"), State("page-key", "data"))
    def route(pathname: str | None, search: str | None, current: str | None):
        key = page_key(pathname, search)
        if key == current:
            raise PreventUpdate
        try:
            content = render_page(data, pathname, search)
        except RunDirError as exc:   # a table damaged after start: say which, not a traceback
            content = components.page("This run is damaged", html.P(str(exc), className="damaged"))
        return content, key, components.nav(pathname or "/")

    @app.callback(Output("window", "data"), Input("url", "search"))
    def sync_window(search: str | None):
        return window_from_search(search)

    @app.callback(Output({"type": "win-input", "name": ALL}, "value"), Input("window", "data"),
                  State({"type": "win-input", "name": ALL}, "id"))
    def show_window(window, ids):
        return [urls.fmt_ms((window or {}).get(i["name"])) for i in ids]

    @app.callback(Output("url", "search", allow_duplicate=True),
                  Input({"type": "zoomable", "name": ALL}, "relayoutData"),
                  Input({"type": "win-btn", "name": ALL}, "n_clicks"),
                  State({"type": "win-input", "name": ALL}, "value"),
                  State({"type": "win-input", "name": ALL}, "id"),
                  State("url", "search"), prevent_initial_call=True)
    def zoom(relayouts, _clicks, values, ids, search):
        triggered = ctx.triggered_id
        if isinstance(triggered, dict) and triggered.get("type") == "zoomable":
            relayouts = [ctx.triggered[0]["value"]] if ctx.triggered else relayouts
        if isinstance(triggered, dict) and triggered.get("type") == "win-btn" and not any(_clicks or []):
            raise PreventUpdate
        inputs = {i["name"]: v for i, v in zip(ids, values, strict=False)}
        new = window_update(triggered, relayouts, inputs, search)
        if new is None:
            raise PreventUpdate
        return new

    for module in PAGES.values():
        module.register(app, data)
    return app

