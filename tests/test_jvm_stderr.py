"""The driver JVM's standard error as the user sees it (pipeline/spark/session._forward_stderr):
the launcher's incubator notice is dropped, everything else is shown, and nothing the JVM prints
after an interrupt stopped it is (a SparkContext cut short mid-start prints a Java stack trace)."""

import io
import sys

from pipeline import signals
from pipeline.spark.session import _forward_stderr


class _Err:
    def __init__(self):
        self.buffer = io.BytesIO()


def _forwarded(monkeypatch, text: bytes) -> bytes:
    err = _Err()
    monkeypatch.setattr(sys, "stderr", err)
    _forward_stderr(io.BytesIO(text))
    return err.buffer.getvalue()


def test_jvm_lines_are_shown_but_the_incubator_notice(monkeypatch):
    monkeypatch.setattr(signals, "stopping", signals.threading.Event())
    text = b"WARNING: Using incubator modules: jdk.incubator.vector\nERROR SparkContext: out of memory\n"
    assert _forwarded(monkeypatch, text) == b"ERROR SparkContext: out of memory\n"


def test_nothing_is_shown_once_an_interrupt_is_being_handled(monkeypatch):
    stopping = signals.threading.Event()
    monkeypatch.setattr(signals, "stopping", stopping)
    stopping.set()
    text = (b"ERROR SparkContext: Error initializing SparkContext.\n"
            b"java.lang.IllegalStateException: Shutdown hooks cannot be modified during shutdown.\n"
            b"\tat py4j.Gateway.invoke(Gateway.java:238)\n")
    assert _forwarded(monkeypatch, text) == b""
