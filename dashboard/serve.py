"""Serving the dashboard: waitress (a production WSGI server) instead of Werkzeug's development
server, bound before anything says it serves, quiet per request, and loud when it is reachable
beyond this machine (the run holds the logs)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from dashboard import security

# Waitress worker threads: callbacks are mostly pandas (GIL-bound), so more threads than this
# only queue inside Python; static files are served from memory-mapped wheels and are short.
THREADS = 8
# Concurrent connections held open before new ones wait in the kernel's backlog.
CONNECTION_LIMIT = 1000


class PortBusy(Exception):
    """The address cannot be bound (in use, or not this machine's)."""


def make_server(app, host: str, port: int, allow_hosts: tuple[str, ...] = ()):
    """The hardened app bound to host:port (bound here, so a busy port fails before any banner)."""
    from waitress.server import create_server

    from dashboard.response_cache import ResponseCache, StaticCache

    security.harden(app, security.allowed_hosts(host, allow_hosts))
    # keyed by Host too, and only 200s are kept: a refused Host is never answered from memory
    app.server.wsgi_app = StaticCache(ResponseCache(app.server.wsgi_app))
    # waitress says "Task queue depth is N" under load and logs each client disconnect: not news
    logging.getLogger("waitress").setLevel(logging.ERROR)
    try:
        return create_server(app.server, host=host, port=port, threads=THREADS, ident="",
                             connection_limit=CONNECTION_LIMIT, backlog=2048, clear_untrusted_proxy_headers=True)
    except OSError as exc:
        raise PortBusy(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None


def exposure_warning(host: str) -> str | None:
    if security.is_loopback(host):
        return None
    where = "every network interface" if host.strip("[]") in security.WILDCARDS else host
    return (f"coordscope dashboard: warning: listening on {where}: anyone who can reach this machine "
            "can read these logs (no authentication); use --host 127.0.0.1 unless you mean it")


def serve(app, run_dir: Path, host: str, port: int, allow_hosts: tuple[str, ...] = ()) -> None:
    server = make_server(app, host, port, allow_hosts)
    warning = exposure_warning(host)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    shown = f"[{host}]" if ":" in host else host
    print(f"coordscope dashboard: serving {run_dir} on http://{shown}:{port}/ (Ctrl-C stops it)", flush=True)
    try:
        server.run()     # returns only when interrupted (waitress swallows KeyboardInterrupt)
    finally:
        server.close()
    raise KeyboardInterrupt   # the CLI's one line and exit status 130, as for every command
