"""Ctrl-C (SIGINT) and SIGTERM during a command that starts other processes (ingest starts a JVM,
which starts Python workers): stop all of them, remove what the run was writing, say one line and
exit 130 (143 for SIGTERM) at once.

Why not let KeyboardInterrupt unwind: PySpark starts the JVM with SIGINT ignored (it is meant to
die when its stdin pipe closes), an interrupt inside a Py4J call leaves the gateway half-read, and
the clean-up on the way out (spark.stop()) is itself a Py4J call that then hangs or fails with a
Py4J traceback, while a JVM interrupted during its start was never known to the session at all.
So the handler does not talk to the JVM: it signals this process's descendants by pid (found
in /proc), waits a few seconds for them (SIGTERM lets the JVM run its shutdown hooks), kills what
is left, and leaves with os._exit.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def _proc_stat(pid: int) -> tuple[str, int] | None:
    """(state, ppid) of a process from /proc, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read().decode("ascii", "replace")
    except OSError:
        return None
    rest = data[data.rfind(")") + 2:].split()     # the command name may hold spaces and parentheses
    return (rest[0], int(rest[1])) if len(rest) > 1 else None


def descendants(root: int | None = None) -> list[int]:
    """Every live process below `root` (default: this one), parents before children."""
    root = os.getpid() if root is None else root
    children: dict[int, list[int]] = {}
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []
    for pid in pids:
        st = _proc_stat(pid)
        if st is not None and st[0] != "Z":
            children.setdefault(st[1], []).append(pid)
    out, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(0), []):
            out.append(child)
            todo.append(child)
    return out


def _alive(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)       # reap our own children, so they do not linger as zombies
    except ChildProcessError:
        pass
    except OSError:
        pass
    st = _proc_stat(pid)
    return st is not None and st[0] != "Z"


def _freeze_tree() -> list[int]:
    """SIGSTOP every descendant until no new one appears: a stopped parent cannot start another
    child, and a child whose parent dies later is still in the list (it would otherwise be
    re-parented away from us and missed, e.g. spark-submit's launcher JVM during Spark's start)."""
    seen: list[int] = []
    for _ in range(20):
        new = [p for p in descendants() if p not in seen]
        if not new:
            break
        for pid in new:
            try:
                os.kill(pid, signal.SIGSTOP)
            except OSError:
                pass
        seen += new
    return seen


def stop_descendants(grace_s: float = 8.0) -> int:
    """Stop every descendant: SIGTERM (the JVM runs its shutdown hooks), SIGKILL after `grace_s`.
    Returns how many there were."""
    pids = _freeze_tree()
    for pid in pids:
        for sig in (signal.SIGTERM, signal.SIGCONT):
            try:
                os.kill(pid, sig)
            except OSError:
                pass
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.05)
    for pid in pids:
        if _alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    for pid in pids:
        _alive(pid)
    return len(pids)


# set once an interrupt is being handled: what the stopped JVM prints while it dies (stack traces of
# a SparkContext cut short mid-start) is not shown; the one line the handler prints says it all
stopping = threading.Event()


@contextmanager
def interrupt_stops_everything(command: str, cleanup: Callable[[], str | None] | None = None) -> Iterator[None]:
    """Within the block, SIGINT/SIGTERM stop the descendants, run `cleanup` (which may return a few
    words on what it removed), print one line and exit 130/143 without unwinding (the previous
    handlers come back after the block)."""

    def handler(signum: int, _frame) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)      # a second Ctrl-C must not cut the clean-up short
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        # from here on only this handler's line is shown: a thread of this process that meets the
        # dying JVM (PySpark's accumulator server reading a cut socket: EOFError, printed by
        # socketserver's handle_error) writes to sys.stderr, which now goes nowhere
        err = sys.stderr
        try:
            sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - lives until os._exit below
        except OSError:
            pass
        stopping.set()
        stopped = stop_descendants()
        said = [f"stopped {stopped} process(es) it started"] if stopped else []
        if cleanup is not None:
            try:
                removed = cleanup()
            except Exception:  # noqa: BLE001 - leaving is what matters now; the next run cleans up
                removed = None
            if removed:
                said.append(removed)
        what = "interrupted" if signum == signal.SIGINT else "terminated"
        extra = f" ({'; '.join(said)})" if said else ""
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        try:
            err.write(f"coordscope {command}: {what}{extra}\n")
            err.flush()
        except (OSError, ValueError):
            pass
        os._exit(130 if signum == signal.SIGINT else 143)

    if threading.current_thread() is not threading.main_thread():
        yield                                   # signals reach the main thread only; nothing to install
        return
    handler.coordscope_stops_jvm = True      # type: ignore[attr-defined]  # build_session puts it back
    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
