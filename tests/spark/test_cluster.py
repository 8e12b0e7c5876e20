"""A real distributed engine: a Spark standalone master and worker on 127.0.0.1, the real pipeline
(real parsers and replay) run over two sample scenarios through `--master spark://...`, and every
table equal to the local run's on the same inputs."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline import rundir, schemas

pytestmark = [pytest.mark.spark, pytest.mark.slow]

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"
# a broker-side expiry and a coordinator moving between brokers: client logs, broker logs and dumps
SCENARIOS = ("gc_pause_session_expiry", "coordinator_failover")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, proc: subprocess.Popen, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.5)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


@pytest.fixture(scope="module")
def standalone(tmp_path_factory):
    spec = importlib.util.find_spec("pyspark")
    assert spec is not None and spec.origin
    home = Path(spec.origin).parent
    spark_class = home / "bin" / "spark-class"
    if not spark_class.exists():
        pytest.skip(f"{spark_class} not found in the pyspark install")
    work = tmp_path_factory.mktemp("standalone")
    env = dict(os.environ, SPARK_HOME=str(home), SPARK_WORKER_DIR=str(work / "worker"),
               SPARK_LOCAL_IP="127.0.0.1", SPARK_NO_DAEMONIZE="1")
    port, ui = _free_port(), _free_port()
    procs: list[subprocess.Popen] = []

    def stop():
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()

    try:
        with open(work / "master.log", "wb") as log:
            procs.append(subprocess.Popen([str(spark_class), "org.apache.spark.deploy.master.Master", "--host",
                                           "127.0.0.1", "--port", str(port), "--webui-port", str(ui)],
                                          env=env, stdout=log, stderr=subprocess.STDOUT))
        _wait_port(port, procs[0])
        url = f"spark://127.0.0.1:{port}"
        with open(work / "worker.log", "wb") as log:
            procs.append(subprocess.Popen([str(spark_class), "org.apache.spark.deploy.worker.Worker", url, "--host",
                                           "127.0.0.1", "--cores", "1", "--memory", "512m", "--webui-port",
                                           str(_free_port())], env=env, stdout=log, stderr=subprocess.STDOUT))
        deadline = time.monotonic() + 120
        while b"Successfully registered with master" not in (work / "worker.log").read_bytes():
            if time.monotonic() > deadline or procs[1].poll() is not None:
                raise RuntimeError("worker did not register:\n" + (work / "worker.log").read_text()[-2000:])
            time.sleep(0.5)
        yield url
    finally:
        stop()


def _sorted_rows(df):
    def norm(v):
        if isinstance(v, list | tuple) or hasattr(v, "tolist"):
            return tuple(v.tolist() if hasattr(v, "tolist") else v)
        return None if v != v else v   # NaN -> None

    return sorted((tuple(norm(v) for v in row) for row in df.itertuples(index=False)), key=repr)


def _scenario_files() -> list[str]:
    """The scenarios' log and dump files; truth.json and README.md are the generator's answers, not inputs."""
    files = sorted(str(p) for name in SCENARIOS for p in (SAMPLES / name).iterdir()
                   if p.is_file() and p.name not in ("truth.json", "README.md"))
    if not files:
        pytest.skip("sample_logs/ scenarios not present")
    return files


def test_cluster_run_equals_local_run(standalone, spark, repo_root, tmp_path):
    from pipeline.spark.job import IngestOptions, run_ingest

    files = _scenario_files()
    local_out = tmp_path / "local"
    local_man = run_ingest(IngestOptions(inputs=files, out=str(local_out), quiet=True), spark=spark)
    # the local run itself found what these scenarios contain (so the comparison is not of empty tables)
    gens = rundir.load_table(local_out, "generations")
    assert {"inventory-sync", "shipping-router"} <= set(gens.group_id)
    assert "session_expiry" in set(gens.cause) and local_man["accounting"]["unparsed"] == 0

    out = tmp_path / "cluster"
    code = (
        "from pipeline.spark.job import IngestOptions, run_ingest\n"
        f"run_ingest(IngestOptions(inputs={files!r}, out={str(out)!r}, master={standalone!r}, quiet=True,"
        f" extra_conf={{'spark.executorEnv.PYTHONPATH': {str(repo_root)!r}, 'spark.executor.memory': '512m',"
        " 'spark.cores.max': '1', 'spark.sql.shuffle.partitions': '2',"   # one core: few tasks is faster
        " 'spark.driver.host': '127.0.0.1', 'spark.driver.bindAddress': '127.0.0.1'}))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(repo_root), SPARK_LOCAL_IP="127.0.0.1")
    r = subprocess.run([sys.executable, "-c", code], cwd=repo_root, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    man = rundir.load_manifest(out)
    assert man["master"] == standalone
    assert man["accounting"] == local_man["accounting"] and man["summary"] == local_man["summary"]
    # the Java scanner ran on the worker: spark.jars shipped the coordscope jar to its executor
    assert man["candidate_filter"] == local_man["candidate_filter"] == "java"
    for t in schemas.TABLES:
        a, b = rundir.load_table(local_out, t), rundir.load_table(out, t)
        assert len(a) == len(b) == local_man["tables"][t], t
        assert _sorted_rows(a) == _sorted_rows(b), t
