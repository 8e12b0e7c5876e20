"""Stage progress on stderr for long runs: stage names with elapsed time, and while a stage runs,
the task counts of the active Spark stages every few seconds (from the SparkContext status tracker,
so it works with the UI off and on a cluster)."""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager
from typing import TextIO


class Progress:
    def __init__(self, spark_context=None, stream: TextIO | None = None, quiet: bool = False, interval: float = 5.0):
        self.sc = spark_context
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.interval = interval
        self.t0 = time.monotonic()
        self.timings: dict[str, float] = {}

    def say(self, msg: str) -> None:
        if not self.quiet:
            print(f"[{time.monotonic() - self.t0:7.1f}s] {msg}", file=self.stream, flush=True)

    def _ticker(self, name: str, stop: threading.Event) -> None:
        last = ""
        while not stop.wait(self.interval):
            if self.sc is None:
                continue
            try:
                tracker = self.sc.statusTracker()
                parts = []
                for sid in tracker.getActiveStageIds():
                    info = tracker.getStageInfo(sid)
                    if info is not None:
                        parts.append(f"{info.numCompletedTasks}/{info.numTasks} tasks")
            except Exception:  # the context may be stopping; progress is best effort
                return
            line = ", ".join(parts)
            if line and line != last:
                self.say(f"  {name}: {line}")
                last = line

    @contextmanager
    def stage(self, name: str):
        self.say(f"{name} ...")
        start = time.monotonic()
        stop = threading.Event()
        t = None
        if not self.quiet and self.sc is not None:
            t = threading.Thread(target=self._ticker, args=(name, stop), daemon=True)
            t.start()
        try:
            yield
        finally:
            stop.set()
            if t is not None:
                t.join(timeout=1)
            took = time.monotonic() - start
            self.timings[name] = round(self.timings.get(name, 0.0) + took, 3)
            self.say(f"{name} done in {took:.1f}s")
