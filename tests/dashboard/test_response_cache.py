"""The serving caches: a callback answer is computed once per distinct request (also when many
arrive at once), only successful answers are kept, a Host is part of the key; static files come
gzip-compressed when accepted and byte-identical once decompressed."""

from __future__ import annotations

import gzip
import io
import threading
import time

from dashboard.response_cache import CALLBACK_PATH, ResponseCache, StaticCache


def _app(calls: list, status: str = "200 OK", delay: float = 0.0):
    def app(environ, start_response):
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)) if environ["REQUEST_METHOD"] == "POST" else b""
        calls.append(body)
        time.sleep(delay)
        start_response(status, [("Content-Type", "application/json")])
        return [b'{"answer": "' + body + b'"}']
    return app


def _post(app, body: bytes, host: str = "127.0.0.1:8050"):
    out = {}

    def start_response(status, headers, exc_info=None):
        out["status"] = status

    environ = {"REQUEST_METHOD": "POST", "PATH_INFO": CALLBACK_PATH, "CONTENT_LENGTH": str(len(body)),
               "wsgi.input": io.BytesIO(body), "HTTP_HOST": host}
    return out | {"body": b"".join(app(environ, start_response))}


def test_identical_callbacks_are_computed_once_even_concurrently():
    calls: list = []
    cache = ResponseCache(_app(calls, delay=0.2))
    results = []
    threads = [threading.Thread(target=lambda: results.append(_post(cache, b"page-a"))) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [b"page-a"] and len(results) == 20
    assert all(r == {"status": "200 OK", "body": b'{"answer": "page-a"}'} for r in results)
    assert _post(cache, b"page-b")["body"] == b'{"answer": "page-b"}' and calls == [b"page-a", b"page-b"]


def test_errors_are_not_kept_and_host_is_part_of_the_key():
    calls: list = []
    cache = ResponseCache(_app(calls, status="400 BAD REQUEST"))
    _post(cache, b"x", "evil.example")
    _post(cache, b"x", "evil.example")
    assert len(calls) == 2
    ok_calls: list = []
    ok = ResponseCache(_app(ok_calls))
    _post(ok, b"x", "127.0.0.1:1")
    _post(ok, b"x", "localhost:1")
    assert len(ok_calls) == 2


def test_lru_is_bounded_in_bytes():
    calls: list = []
    cache = ResponseCache(_app(calls), max_bytes=8 * 40)
    for i in range(50):
        _post(cache, str(i).encode())
    assert cache._bytes <= 8 * 40 and len(cache._lru) < 50


def test_static_files_gzip_when_accepted():
    data = b"function f(){return 1}\n" * 500

    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "application/javascript"), ("Content-Length", str(len(data)))])
        return [data]

    cache = StaticCache(app)
    got = {}

    def get(enc):
        def sr(status, headers, exc_info=None):
            got["headers"] = dict(headers)
        env = {"REQUEST_METHOD": "GET", "PATH_INFO": "/_dash-component-suites/x.js", "QUERY_STRING": "",
               "HTTP_HOST": "127.0.0.1", "HTTP_ACCEPT_ENCODING": enc}
        return b"".join(cache(env, sr))

    zipped = get("gzip, deflate")
    assert got["headers"]["Content-Encoding"] == "gzip" and gzip.decompress(zipped) == data
    assert int(got["headers"]["Content-Length"]) == len(zipped) < len(data) // 10
    plain = get("")
    assert plain == data and "Content-Encoding" not in got["headers"]
