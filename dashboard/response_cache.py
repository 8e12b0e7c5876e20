"""Callback responses remembered by request body: a WSGI layer in front of Dash.

A Dash callback is a function of its request (inputs, state, what changed) and of the run, which
does not change while the dashboard runs; so the same body always gets the same answer. Shared
links make many people open the same pages at once (a post-mortem meeting): the group page's
figures cost about 0.3 s of CPU each time, and 200 browsers would queue for a minute. Identical
requests in flight are computed once (the others wait for that answer); answers are kept in an
LRU bounded in bytes. Only 200/204 answers to POST /_dash-update-component are kept.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

CALLBACK_PATH = "/_dash-update-component"
MAX_BODY = 1 << 20            # bigger request bodies are passed through (never seen from Dash)


class ResponseCache:
    def __init__(self, app: Callable, max_bytes: int = 64 << 20):
        self.app = app
        self.max_bytes = max_bytes
        self._lru: OrderedDict[bytes, tuple[str, list[tuple[str, str]], bytes]] = OrderedDict()
        self._bytes = 0
        self._inflight: dict[bytes, threading.Event] = {}
        self._lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") != "POST" or environ.get("PATH_INFO") != CALLBACK_PATH:
            return self.app(environ, start_response)
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = -1
        if not 0 < length <= MAX_BODY:
            return self.app(environ, start_response)
        body = environ["wsgi.input"].read(length)
        key = hashlib.sha256(b"\0".join([environ.get("HTTP_HOST", "").encode("latin-1"), body])).digest()
        while True:
            with self._lock:
                hit = self._lru.get(key)
                if hit is not None:
                    self._lru.move_to_end(key)
                    break
                waiting = self._inflight.get(key)
                if waiting is None:
                    self._inflight[key] = threading.Event()
                    hit = None
                    break
            waiting.wait(timeout=120)   # another thread computes this very answer
        if hit is not None:
            status, headers, data = hit
            start_response(status, headers)
            return [data]
        try:
            return self._compute(key, body, environ, start_response)
        finally:
            with self._lock:
                self._inflight.pop(key).set()

    def _compute(self, key: bytes, body: bytes, environ: dict[str, Any], start_response: Callable) -> list[bytes]:
        import io

        environ = dict(environ, **{"wsgi.input": io.BytesIO(body)})
        captured: dict[str, Any] = {}

        def capture(status: str, headers: list[tuple[str, str]], exc_info: Any = None):
            captured["status"], captured["headers"] = status, list(headers)
            return lambda _data: None     # Flask never uses the write() callable

        result = self.app(environ, capture)
        try:
            data = b"".join(result)
        finally:
            close = getattr(result, "close", None)
            if close:
                close()
        status, headers = captured["status"], captured["headers"]
        if not status.startswith(("200", "204")) or len(data) > self.max_bytes // 8:
            start_response(status, headers)
            return [data]
        with self._lock:
            self._lru[key] = (status, headers, data)
            self._bytes += len(data)
            while self._bytes > self.max_bytes and self._lru:
                _, (_, _, old) = self._lru.popitem(last=False)
                self._bytes -= len(old)
        start_response(status, headers)
        return [data]


STATIC_PREFIXES = ("/_dash-component-suites/", "/assets/", "/_favicon.ico")
COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg")


class StaticCache:
    """Static files (Dash's bundles, /assets) served from memory, gzip-compressed once when the
    client accepts it: Plotly's 4.6 MB bundle is 1.4 MB on the wire. The files belong to installed
    packages and the assets folder, which do not change while the dashboard runs. Conditional
    requests are answered in full (200), which browsers accept."""

    def __init__(self, app: Callable, max_bytes: int = 128 << 20):
        self.app = app
        self.max_bytes = max_bytes
        self._files: dict[bytes, tuple[str, list[tuple[str, str]], bytes, bytes | None]] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if environ.get("REQUEST_METHOD") != "GET" or not path.startswith(STATIC_PREFIXES):
            return self.app(environ, start_response)
        key = "\0".join((environ.get("HTTP_HOST", ""), path, environ.get("QUERY_STRING", ""))).encode("latin-1", "replace")
        with self._lock:
            hit = self._files.get(key)
        if hit is None:
            hit = self._load(environ)
            if hit is None:
                return self.app(environ, start_response)
            with self._lock:
                if key not in self._files and self._bytes + len(hit[2]) <= self.max_bytes:
                    self._files[key] = hit
                    self._bytes += len(hit[2]) + len(hit[3] or b"")
        status, headers, data, gz = hit
        if gz is not None and "gzip" in environ.get("HTTP_ACCEPT_ENCODING", ""):
            headers = [*headers, ("Content-Encoding", "gzip"), ("Content-Length", str(len(gz)))]
            data = gz
        else:
            headers = [*headers, ("Content-Length", str(len(data)))]
        start_response(status, headers)
        return [data]

    def _load(self, environ: dict[str, Any]):
        import gzip

        environ = {k: v for k, v in environ.items() if k not in ("HTTP_IF_MODIFIED_SINCE", "HTTP_IF_NONE_MATCH",
                                                                 "HTTP_RANGE", "HTTP_IF_RANGE")}
        captured: dict[str, Any] = {}

        def capture(status: str, headers: list[tuple[str, str]], exc_info: Any = None):
            captured["status"], captured["headers"] = status, list(headers)
            return lambda _data: None

        result = self.app(environ, capture)
        try:
            data = b"".join(result)
        finally:
            close = getattr(result, "close", None)
            if close:
                close()
        if not captured.get("status", "").startswith("200"):
            return None
        headers = [(k, v) for k, v in captured["headers"] if k.lower() not in ("content-length", "content-encoding")]
        ctype = next((v for k, v in headers if k.lower() == "content-type"), "")
        gz = None
        if ctype.startswith(COMPRESSIBLE) and len(data) > 1024:
            gz = gzip.compress(data, compresslevel=6, mtime=0)
            headers.append(("Vary", "Accept-Encoding"))
        return captured["status"], headers, data, gz
