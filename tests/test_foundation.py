"""The house: packaging, CLI surface, the pyspark seam, the README's promise."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *args], capture_output=True, text=True, cwd=REPO, timeout=120
    )


def test_version_matches_pyproject_and_package():
    import pipeline

    out = run_cli("--version")
    assert out.returncode == 0
    # the version, then which path the parse hot path takes (parsers/_accel.py: compiled or Python, why)
    version, _, path = out.stdout.strip().partition(" (")
    assert version == f"coordscope {pipeline.__version__}"
    assert path.startswith("hot path: ") and path.endswith(")"), out.stdout


def test_help_lists_every_registered_subcommand():
    from pipeline.cli import SUBCOMMANDS

    out = run_cli("--help")
    assert out.returncode == 0
    for name in SUBCOMMANDS:
        assert name in out.stdout
    for name in SUBCOMMANDS:
        sub = run_cli(name, "--help")
        assert sub.returncode == 0, sub.stderr
        assert f"usage: coordscope {name}" in sub.stdout


@pytest.mark.parametrize(
    "args", [("no-such-command",), ("--no-such-flag",), ("demo", "--bogus")]
)
def test_bad_arguments_exit_nonzero_with_one_line_and_no_traceback(args):
    out = run_cli(*args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("coordscope")
    assert "Traceback" not in out.stderr


def test_pure_packages_import_without_pyspark():
    # parsers, pipeline (but pipeline.spark) and dashboard must not pull in pyspark
    code = (
        "import importlib, pkgutil, sys\n"
        "import parsers, pipeline, dashboard\n"
        "for pkg in (parsers, pipeline, dashboard):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        if m.name.startswith('pipeline.spark') or m.name.endswith('__main__'):\n"
        "            continue\n"
        "        importlib.import_module(m.name)\n"
        "bad = sorted(k for k in sys.modules if k == 'pyspark' or k.startswith('pyspark.'))\n"
        "print('PYSPARK' if bad else 'CLEAN')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("CLEAN")


def test_pyspark_import_rule_is_enforced_by_ruff(tmp_path):
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        pytest.skip("ruff not installed in this environment")
    # ruff reads the module from stdin as if it were parsers/_tmp_forbidden_import.py (the project's
    # settings and per-file ignores apply by that name): nothing is written into the checkout, where
    # a test running at the same time (the whole-tree ruff check, the no-pyspark import walk) would see it
    out = subprocess.run(
        [str(ruff), "check", "--select", "TID251", "--stdin-filename", "parsers/_tmp_forbidden_import.py", "-"],
        input="from pyspark.sql import functions\n\nprint(functions)\n", capture_output=True, text=True, cwd=REPO,
    )
    assert out.returncode != 0
    assert "TID251" in out.stdout
    ok = subprocess.run(
        [str(ruff), "check", "--select", "TID251", "pipeline/spark"], capture_output=True, text=True, cwd=REPO
    )
    assert ok.returncode == 0, ok.stdout


def test_whole_tree_passes_ruff():
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        pytest.skip("ruff not installed in this environment")
    out = subprocess.run([str(ruff), "check", "."], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0, out.stdout[-3000:]


def test_pyproject_lists_the_three_packages_and_grammars():
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())
    include = meta["tool"]["setuptools"]["packages"]["find"]["include"]
    for pkg in ("parsers", "pipeline", "dashboard"):
        assert pkg in include
    assert "grammars/*.lark" in meta["tool"]["setuptools"]["package-data"]["parsers"]
    assert meta["project"]["scripts"]["coordscope"] == "pipeline.cli:console_main"
    assert meta["project"]["requires-python"] == ">=3.11"


def test_readme_gives_exactly_the_two_commands_that_ci_runs():
    readme = (REPO / "README.md").read_text()
    assert "make demo" in readme and "make test" in readme
    ci = (REPO / ".ci" / "run").read_text()
    assert "make test" in ci


def test_java_check_script_reports_missing_java_clearly(tmp_path):
    # a PATH with no java: as non-root the script must fail with a plain message, never a trace
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    for tool in ("sed", "head", "cut", "id", "cat"):
        src = subprocess.run(["bash", "-c", f"command -v {tool}"], capture_output=True, text=True).stdout.strip()
        (fake_bin / tool).symlink_to(src)
    (fake_bin / "id").unlink()
    (fake_bin / "id").write_text("#!/bin/sh\necho 1000\n")
    (fake_bin / "id").chmod(0o755)
    out = subprocess.run(
        ["/bin/bash", str(REPO / "scripts" / "ensure_java.sh")],
        capture_output=True, text=True, env={"PATH": str(fake_bin)},
    )
    assert out.returncode == 1
    assert "needs Java 17 or newer; found: none" in out.stderr
    assert "openjdk-17-jdk-headless" in out.stderr


def test_session_reports_old_java_without_py4j(tmp_path, monkeypatch):
    from pipeline.spark import session

    fake_java = tmp_path / "java"
    fake_java.write_text('#!/bin/sh\necho \'openjdk version "11.0.2" 2019-01-15\' >&2\n')
    fake_java.chmod(0o755)
    assert session.java_version(str(fake_java)) == 11
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "nojava"))
    monkeypatch.setattr(session, "java_version", lambda java=None: 11)
    with pytest.raises(session.JavaError, match="needs Java 17\\+ but found Java 11"):
        session.check_java()


@pytest.mark.spark
def test_spark_fixture_runs_in_utc(spark):
    row = spark.sql("select current_timezone() as tz, 1 + 1 as two").collect()[0]
    assert row.tz == "UTC" and row.two == 2
