"""What the dashboard's HTTP responses guarantee: only expected Host names are served (DNS
rebinding), a Content-Security-Policy that lets Dash run and nothing else, no framing, no MIME
sniffing, and a damaged run explained in one sentence instead of a traceback.

The policy allows scripts only from this server plus Dash's own inline scripts by hash
(`Dash.csp_hashes()`), and 'unsafe-eval' because Plotly's WebGL traces (scattergl, drawn by regl)
compile their draw calls with `new Function` (without it a zoom on the lanes chart silently fails);
no other inline script can run, so log text cannot become a script. Styles may be inline (Plotly
and Dash set `style=` attributes); nothing is loaded from elsewhere (Dash serves its bundles locally).
"""

from __future__ import annotations

import html as html_mod
import ipaddress
import socket
from collections.abc import Iterable

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARDS = frozenset({"0.0.0.0", "::", ""})


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _machine_names() -> set[str]:
    """The names and addresses this machine is reached by (for a wildcard bind)."""
    names = {socket.gethostname(), socket.getfqdn()}
    for name in list(names):
        try:
            names.update(info[4][0] for info in socket.getaddrinfo(name, None))
        except OSError:
            pass
    return {n.lower() for n in names if n}


def allowed_hosts(bind: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """Host names a request may carry: loopback names, the bound address, and for a wildcard bind
    (0.0.0.0, ::) this machine's own names and addresses; plus `extra` (--allow-host)."""
    names = set(LOOPBACK_NAMES)
    bind = bind.strip("[]").lower()
    if bind in WILDCARDS:
        names |= _machine_names()
    else:
        names.add(bind)
    names |= {e.strip("[]").lower() for e in extra if e}
    return frozenset(names)


def host_name(header: str | None) -> str | None:
    """The host part of a Host header ('[::1]:8050' -> '::1', 'a.b:80' -> 'a.b'); None if malformed."""
    if not header:
        return None
    header = header.strip().lower()
    if header.startswith("["):
        end = header.find("]")
        rest = header[end + 1:] if end > 0 else None
        if rest is None or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        return header[1:end]
    name, _, port = header.partition(":")
    if port and not port.isdigit():
        return None
    return name.rstrip(".") or None


def content_security_policy(script_hashes: Iterable[str]) -> str:
    directives = {
        "default-src": ["'self'"],
        "script-src": ["'self'", "'unsafe-eval'", *script_hashes],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "worker-src": ["'self'", "blob:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
    return "; ".join(f"{k} {' '.join(v)}" for k, v in directives.items())


def error_page(status: int, sentence: str) -> tuple[str, int, dict[str, str]]:
    body = ("<!doctype html><meta charset=utf-8><title>coordscope</title>"
            f"<h1>coordscope dashboard</h1><p>{html_mod.escape(sentence)}</p>\n")
    return body, status, {"Content-Type": "text/html; charset=utf-8"}


def harden(app, hosts: frozenset[str]) -> None:
    """Install the Host check, the security headers and the damaged-run error page on a Dash app.
    Call after every callback is registered (the CSP hashes Dash's inline scripts)."""
    from flask import request

    from pipeline.rundir import RunDirError

    server = app.server
    policy = content_security_policy(app.csp_hashes())

    @server.before_request
    def check_host():
        name = host_name(request.headers.get("Host"))
        if name is None or name not in hosts:
            return error_page(400, "This dashboard does not answer to that Host name "
                                   "(start it with --allow-host NAME to serve it under another name).")
        return None

    @server.after_request
    def headers(response):
        response.headers["Content-Security-Policy"] = policy
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers.pop("Server", None)
        return response

    @server.errorhandler(RunDirError)
    def damaged(exc):
        return error_page(500, str(exc))
