"""Dashboard responsiveness on a 100,000-event group vs a 1,000-event group, measured in one run.

Server: the group page's figure callback (three figures for a window; tables already cached, as
after the first visit) and the cold first call (Parquet load + aggregation), plus the raw Parquet
read of the events table as a floor. Browser: real headless Chromium loading the group page until
its three charts are drawn, and a zoom (window applied) until the charts are redrawn.

    PYTHONPATH=$PWD /tmp/prevenv/bin/python benchmarks/dashboard_bench.py [--events 100000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.dashboard import rundirs  # noqa: E402
from tests.dashboard.browser import chromium, serve, wait_for, wait_idle  # noqa: E402


def median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def server_figures(run_dir: Path, repeat: int) -> dict[str, float]:
    import plotly.io as pio
    import pyarrow.parquet as pq

    from dashboard.data import RunData
    from dashboard.pages import group

    out: dict[str, float] = {}
    t = time.perf_counter()
    data = RunData(run_dir)
    lo, hi = data.group_extent("hot-group")
    figs = group.build_figures(data, "hot-group", None)
    out["cold_first_callback_s"] = time.perf_counter() - t
    out["payload_kb"] = sum(len(pio.to_json(f)) for f in figs) / 1024
    out["points_sent"] = sum(len(tr.x) for f in figs[:2] for tr in f.data if tr.x is not None)
    span = hi - lo
    windows = [(lo + span * i // 10, lo + span * (i + 3) // 10) for i in range(repeat)]
    it = iter(windows * 2)
    out["warm_zoom_callback_s"] = median_time(lambda: group.build_figures(
        data, "hot-group", dict(zip(("since", "until"), next(it), strict=True))), repeat)
    out["warm_whole_run_callback_s"] = median_time(lambda: group.build_figures(data, "hot-group", None), repeat)
    out["parquet_read_events_s"] = median_time(
        lambda: pq.read_table(next((run_dir / "events").glob("*.parquet"))), repeat)
    return out


def browser_load(run_dir: Path, repeat: int) -> dict[str, float]:
    from dashboard.app import create_app
    from dashboard.data import RunData
    from pipeline import dashboard_urls as urls

    chromium_bin = shutil.which("chromium") or "/usr/bin/chromium"
    driver_bin = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    lo, hi = RunData(run_dir).group_extent("hot-group")
    app = create_app(run_dir)
    loads, zooms = [], []

    def drawn(driver) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            n = driver.execute_script(
                "return Array.from(document.querySelectorAll('.js-plotly-plot')).filter(g => g._fullData && "
                "g._fullData.length).length")
            if n == 3:
                break
            time.sleep(0.02)
        wait_idle(driver, timeout=60)

    with serve(app) as base, chromium(chromium_bin, driver_bin) as driver:
        driver.get(base + "/")  # warm the browser cache for Dash's JS bundles and the server's tables
        wait_for(driver, "h2")
        driver.get(base + urls.group_url("", "hot-group"))
        drawn(driver)
        for i in range(repeat):
            t = time.perf_counter()
            driver.get(base + urls.group_url("", "hot-group"))
            wait_for(driver, "h2", text="Group hot-group")
            drawn(driver)
            loads.append(time.perf_counter() - t)
            since = lo + (hi - lo) * (i + 1) // (repeat + 2)
            box = driver.find_element("css selector", "input[id*='since']")
            box.clear()
            box.send_keys(urls.fmt_ms(since))
            t = time.perf_counter()
            driver.find_element("xpath", "//button[text()='apply']").click()
            deadline = time.monotonic() + 60
            while f"since={since}" not in driver.current_url and time.monotonic() < deadline:
                time.sleep(0.01)
            drawn(driver)
            zooms.append(time.perf_counter() - t)
    return {"page_load_s": statistics.median(loads), "zoom_redraw_s": statistics.median(zooms)}


def machine() -> str:
    import dash
    import pandas
    import pyarrow

    mem = ""
    try:
        mem = f"{int(open('/proc/meminfo').readline().split()[1]) // 1024 // 1024} GiB RAM, "
    except OSError:
        pass
    return (f"{os.cpu_count()} cores, {mem}Python {platform.python_version()}, dash {dash.__version__}, "
            f"pandas {pandas.__version__}, pyarrow {pyarrow.__version__}, {time.strftime('%Y-%m-%d', time.gmtime())}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--baseline-events", type=int, default=1_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="coordscope-dash-bench-") as tmp:
        big = rundirs.build_big(Path(tmp) / "big", events=args.events)
        small = rundirs.build_big(Path(tmp) / "small", events=args.baseline_events)
        rows = {}
        for name, run in (("big", big), ("baseline", small)):
            res = server_figures(run, args.repeat)
            if not args.no_browser:
                res |= browser_load(run, args.repeat)
            rows[name] = res
    print(f"machine: {machine()}")
    print(f"subject: one group with {args.events} events; baseline: the same generator with "
          f"{args.baseline_events} events; medians of {args.repeat}")
    print(f"{'figure':28} {'subject':>10} {'baseline':>10} {'ratio':>7}")
    for key in rows["big"]:
        a, b = rows["big"][key], rows["baseline"][key]
        print(f"{key:28} {a:10.3f} {b:10.3f} {a / b if b else float('nan'):7.2f}")
    floor = rows["big"]["parquet_read_events_s"]
    print(f"warm zoom callback / raw Parquet read of events (subject): "
          f"{rows['big']['warm_zoom_callback_s'] / floor:.2f}")
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
