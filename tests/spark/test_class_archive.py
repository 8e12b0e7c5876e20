"""pipeline/spark/class_archive.py: the first CLI ingest saves the driver JVM's classes, the next
session maps them; an archive that is incomplete, refused or for another install is never used
in a way that can break a run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REAL_LOGS = REPO.parent / "shared" / "real_logs"


def _env(cache: Path) -> dict[str, str]:
    env = dict(os.environ, COORDSCOPE_CACHE=str(cache), PYTHONPATH=str(REPO))
    env.pop(class_archive_switch(), None)
    return env


def class_archive_switch() -> str:
    from pipeline.spark import class_archive

    return class_archive.ENV_SWITCH


def _copy_jar_cache(cache: Path) -> None:
    """The filter jar of the user's cache, so the test does not compile it again."""
    from pipeline.spark import jvm

    cache.mkdir(parents=True, exist_ok=True)
    try:
        src = jvm.jar_path()
    except Exception:  # noqa: BLE001 - without it the session just has no jar
        return
    (cache / src.name).write_bytes(src.read_bytes())


SESSION_STATE = """
import json, sys
from pipeline.spark import class_archive, session
spark = session.build_session(sys.argv[1], "archive-test")
spark.range(3).count()
state = dict(session.ARCHIVE_STATE)
proc = spark.sparkContext._gateway.proc
if state.get("path"):
    state["mapped"] = class_archive.mapped(proc.pid, __import__("pathlib").Path(state["path"]))
print(json.dumps(state))
"""


def _session_state(env: dict[str, str], master: str = "local[2]") -> dict:
    out = subprocess.run([sys.executable, "-c", SESSION_STATE, master], env=env, cwd=REPO, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_options_by_master_and_archive_state(tmp_path, monkeypatch):
    from pipeline.spark import class_archive

    monkeypatch.setenv("COORDSCOPE_CACHE", str(tmp_path))
    monkeypatch.delenv(class_archive.ENV_SWITCH, raising=False)
    # a cluster master's driver keeps its settings; so does a run with the switch off
    assert class_archive.java_options("spark://h:7077", {}, record=True) == ("", None, None)
    monkeypatch.setenv(class_archive.ENV_SWITCH, "0")
    assert class_archive.java_options("local[2]", {}, record=True) == ("", None, None)
    monkeypatch.delenv(class_archive.ENV_SWITCH)
    opts, archive, todo = class_archive.java_options("local[2]", {}, record=True)
    assert todo == "record" and "-XX:+RecordDynamicDumpInfo" in opts and archive.parent == tmp_path
    assert class_archive.java_options("local[2]", {}, record=False) == ("", None, None)
    # another driver class path is another archive (the JVM would refuse this one)
    assert class_archive.key({"spark.driver.extraClassPath": "/x.jar"}) != class_archive.key({})
    # an archive whose size is not the recorded one (cut short: Java 17 crashes on it) is not used
    archive.write_bytes(b"\0" * 100)
    assert class_archive.java_options("local[2]", {}, record=True)[2] == "record"
    archive.with_suffix(".size").write_text("1000")
    assert not class_archive.usable(archive)
    archive.with_suffix(".size").write_text("100")
    opts, _, todo = class_archive.java_options("local[2]", {}, record=True)
    assert todo == "use" and f"-XX:SharedArchiveFile={archive}" in opts and "-Xshare:auto" in opts


@pytest.mark.spark
def test_first_ingest_saves_the_archive_and_the_next_session_maps_it(tmp_path):
    cache = tmp_path / "cache"
    _copy_jar_cache(cache)
    env = _env(cache)
    out = tmp_path / "run"
    first = subprocess.run([sys.executable, "-m", "pipeline.cli", "ingest", str(REAL_LOGS), "--out", str(out),
                            "--master", "local[2]"], env=env, cwd=REPO, capture_output=True, text=True, timeout=900)
    assert first.returncode == 0, first.stderr[-2000:]
    assert first.stdout.startswith("coordscope ingest: done"), first.stdout[:300]   # nothing of the JVM's on stdout
    assert "saving Spark's loaded classes" in first.stderr and "saved in" in first.stderr
    assert "warning" not in first.stderr.lower() or "[cds" not in first.stderr
    archives = list(cache.glob("spark-classes-*.jsa"))
    assert len(archives) == 1 and not list(cache.glob(".*.tmp"))
    assert int(archives[0].with_suffix(".size").read_text()) == archives[0].stat().st_size > 0
    assert (out / "manifest.json").is_file()

    state = _session_state(env)
    assert state == {"state": "use", "path": str(archives[0]), "mapped": True}

    # an archive the JVM refuses (here: not an archive at all, of the recorded size) is removed,
    # the session runs without it and the next run records a new one
    archives[0].chmod(0o644)
    archives[0].write_bytes(b"not a class archive" * 1000)
    archives[0].with_suffix(".size").write_text(str(archives[0].stat().st_size))
    state = _session_state(env)
    assert state["state"] == "refused" and not archives[0].exists()
    assert _session_state(env) == {}      # (a plain session records nothing; only the CLI's ingest does)


class _KeptSession:
    """The shared test session, handed to run_ingest as if it had built it: its stop() is a no-op."""

    def __init__(self, spark):
        self._spark = spark

    def __getattr__(self, name):
        return getattr(self._spark, name)

    def stop(self):
        pass


@pytest.mark.spark
def test_the_summary_is_given_before_the_class_archive_is_saved(spark, tmp_path, monkeypatch):
    """The once-per-install save takes seconds: the CLI's summary (on_done) must not wait for it."""
    from pipeline.spark import job, session

    said: list[str] = []
    monkeypatch.setattr(session, "build_session", lambda *a, **k: _KeptSession(spark))
    monkeypatch.setattr(session, "save_class_archive", lambda *a, **k: said.append("archive saved"))
    opts = job.IngestOptions(inputs=[str(REAL_LOGS)], out=str(tmp_path / "run"), master="local[2]", quiet=True,
                             on_done=lambda man: said.append(f"summary of {man['summary']['events']} events"))
    man = job.run_ingest(opts)
    assert said == [f"summary of {man['summary']['events']} events", "archive saved"]
    assert man["summary"]["events"] > 0 and (tmp_path / "run" / "manifest.json").is_file()


def test_large_inputs_start_without_the_archive(tmp_path, monkeypatch):
    """The archive was measured to cost more per GB than it saves at start beyond about 1 GB: the
    ingest asks for it only below class_archive.MAX_INPUT_BYTES (a .gz counted as expanded)."""
    from pipeline.spark import class_archive, job, session

    assert class_archive.worth_it([(3_000_000, False), (0, False)])
    assert class_archive.worth_it([(class_archive.MAX_INPUT_BYTES, False)])
    assert not class_archive.worth_it([(class_archive.MAX_INPUT_BYTES // 2 + 1, False)] * 2)
    assert not class_archive.worth_it([(class_archive.MAX_INPUT_BYTES // 5, True)])   # ~2 GB of text

    asked: list[dict] = []

    class Stop(Exception):
        pass

    def fake_build(*args, **kwargs):
        asked.append(kwargs)
        raise Stop

    monkeypatch.setattr(session, "build_session", fake_build)
    small = tmp_path / "small.log"
    small.write_text("2024-03-14 02:00:00,000 INFO hello\n")
    big = tmp_path / "big.log"
    with open(big, "wb") as fh:         # sparse: 2 GiB listed, nothing written
        fh.truncate(2 << 30)
    for inputs, want in (([small], True), ([small, big], False)):
        with pytest.raises(Stop):
            job.run_ingest(job.IngestOptions(inputs=[str(p) for p in inputs], out=str(tmp_path / "run"),
                                             master="local[2]", quiet=True))
        assert asked[-1]["class_archive"] is want and asked[-1]["record_classes"] is want
