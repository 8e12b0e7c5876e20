"""The dashboard under 200 concurrent clients on loopback, served as `coordscope dashboard` serves it
(a separate process: waitress, Host check, security headers).

Each client is a thread holding its own HTTP/1.1 connection, in one of several client processes (so
the clients' own GIL does not become the bottleneck). Every client repeats, ROUNDS times: a page
(the page address's HTML shell, then the router callback that builds the page's content, as a
browser does) and the static files a first visit loads (the stylesheet and Dash's renderer and
React bundles). Plotly's 4.6 MB bundle is measured separately (a browser fetches it once and caches
it; fingerprinted URL). Bounded: a fixed number of requests, each with a 60 s timeout.

    python benchmarks/dashboard_load_bench.py [--clients 200] [--rounds 5] [--procs 4]
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import platform
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def route_payload(pathname: str, search: str) -> bytes:
    return json.dumps({
        "output": "..page-content.children...page-key.data...nav.children..",
        "outputs": [{"id": "page-content", "property": "children"}, {"id": "page-key", "property": "data"},
                    {"id": "nav", "property": "children"}],
        "inputs": [{"id": "url", "property": "pathname", "value": pathname},
                   {"id": "url", "property": "search", "value": search}],
        "changedPropIds": ["url.search"], "state": [{"id": "page-key", "property": "data", "value": None}],
    }).encode()


def client(port: int, rounds: int, pages: list[tuple[str, str]], statics: list[str], big: str | None,
           out: list, start: threading.Event) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Host": f"127.0.0.1:{port}"}

    def timed(kind: str, method: str, path: str, body: bytes | None = None) -> None:
        nonlocal conn
        t = time.perf_counter()
        try:
            h = dict(headers, **({"Content-Type": "application/json"} if body else {}))
            h["Accept-Encoding"] = "gzip"   # as browsers send it
            conn.request(method, path, body=body, headers=h)
            resp = conn.getresponse()
            resp.read()
            status = resp.status
        except (OSError, http.client.HTTPException):
            status = 0
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        out.append((kind, time.perf_counter() - t, status))

    start.wait()
    for i in range(rounds):
        path, search = pages[i % len(pages)]
        timed("page", "GET", path + search)
        timed("page", "POST", "/_dash-update-component", route_payload(path, search))
        for s in statics:
            timed("static", "GET", s)
        if big and i == 0:
            timed("plotly.min.js", "GET", big)
    conn.close()


def client_process(port, n, rounds, pages, statics, big, queue, barrier_at) -> None:
    results: list = []
    start = threading.Event()
    threads = [threading.Thread(target=client, args=(port, rounds, pages, statics, big, results, start))
               for _ in range(n)]
    for th in threads:
        th.start()
    while time.time() < barrier_at:        # every process starts its clients at the same moment
        time.sleep(0.005)
    start.set()
    for th in threads:
        th.join()
    queue.put(results)


def statics_of(port: int) -> tuple[list[str], str | None]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/", headers={"Host": f"127.0.0.1:{port}"})
    html = conn.getresponse().read().decode()
    srcs = re.findall(r'(?:src|href)="(/[^"]+\.(?:js|css)[^"]*)"', html)
    wanted = [s for s in srcs if any(k in s for k in ("style.css", "dash_renderer", "react@", "react-dom@"))]
    conn.request("GET", "/_dash-component-suites/plotly/package_data/plotly.min.js",
                 headers={"Host": f"127.0.0.1:{port}"})
    r = conn.getresponse()
    r.read()
    return wanted, ("/_dash-component-suites/plotly/package_data/plotly.min.js" if r.status == 200 else None)


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--procs", type=int, default=4)
    ap.add_argument("--plotly", action="store_true", help="each client also fetches plotly.min.js (4.6 MB) once")
    args = ap.parse_args()

    from tests.dashboard import rundirs

    with tempfile.TemporaryDirectory(prefix="coordscope-load-") as tmp:
        run = rundirs.build_small(Path(tmp) / "run")
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "dashboard", str(run), "--port", str(port)],
                                  cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise SystemExit("dashboard did not start: " + (server.stderr.read() if server.poll() else "")) from None
                    time.sleep(0.2)
            statics, big = statics_of(port)
            big = big if args.plotly else None
            pages = [("/", ""), ("/group", f"?group={rundirs.PAY}"), ("/unparsed", "")]
            # warm: load every table once, as after the first visitor
            client(port, len(pages), pages, statics, None, [], _set(threading.Event()))
            queue: mp.Queue = mp.Queue()
            per = [args.clients // args.procs + (1 if i < args.clients % args.procs else 0) for i in range(args.procs)]
            barrier_at = time.time() + 3.0
            procs = [mp.Process(target=client_process, args=(port, n, args.rounds, pages, statics, big, queue, barrier_at))
                     for n in per]
            for p in procs:
                p.start()
            results = [r for _ in procs for r in queue.get(timeout=900)]
            wall = time.time() - barrier_at
            for p in procs:
                p.join()
        finally:
            server.terminate()
            server.communicate(timeout=30)

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"{args.clients} concurrent clients x {args.rounds} rounds, {len(results)} requests in {wall:.1f} s")
    print(f"static files per round: {', '.join(s.split('/')[-1].split('?')[0] for s in statics)}")
    for kind in ("page", "static", "plotly.min.js"):
        times = [t for k, t, _ in results if k == kind]
        bad = sum(1 for k, _, s in results if k == kind and s != 200)
        if times:
            print(f"{kind:14s} n={len(times):5d}  median {statistics.median(times):.3f} s  "
                  f"p95 {pct(times, 95):.3f} s  max {max(times):.3f} s  non-200: {bad}")
    return 0


def _set(ev: threading.Event) -> threading.Event:
    ev.set()
    return ev


if __name__ == "__main__":
    sys.exit(main())
