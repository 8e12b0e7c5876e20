"""Nothing of the user's is deleted and no input file is dropped silently (issue 16, its data-loss
items): `--overwrite` replaces only a coordscope run directory; `parse` and `ingest` list the same
files with the same reasons (pipeline/input_files.py). These tests need no JVM: the ingest refuses
before Spark starts, and the listing is pure Python."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import input_files
from pipeline.spark import write as write_mod

REPO = Path(__file__).resolve().parent.parent
LINE = ("[2024-05-01 10:00:02,000] INFO [Consumer clientId=c1, groupId=g1] Adding newly assigned partitions: t-0 "
        "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)\n")


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True, text=True,
                          cwd=REPO, timeout=timeout)


def fake_run(folder: Path) -> Path:
    """A RUN_DIR as coordscope ingest leaves it: its tables' folders and manifest.json."""
    folder.mkdir(parents=True)
    (folder / "events").mkdir()
    (folder / "events" / "part-0.parquet").write_bytes(b"PAR1")
    (folder / "manifest.json").write_text(json.dumps({"tool": "coordscope ingest"}))
    return folder


# --- --overwrite -------------------------------------------------------------------------------

def test_overwrite_refuses_a_folder_of_other_files(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "app.log").write_text(LINE)
    target = tmp_path / "notes"
    target.mkdir()
    (target / "thesis.tex").write_text("years of work")
    r = cli("ingest", str(logs), "--out", str(target), "--overwrite")
    assert r.returncode != 0
    assert "--overwrite refused" in r.stderr and "not a coordscope run directory" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert (target / "thesis.tex").read_text() == "years of work"


def test_overwrite_refuses_the_folder_holding_the_inputs(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "app.log").write_text(LINE)
    r = cli("ingest", str(logs / "app.log"), "--out", str(logs), "--overwrite")
    assert r.returncode != 0 and "refused" in r.stderr
    assert (logs / "app.log").read_text() == LINE


def test_overwrite_refuses_a_run_directory_holding_foreign_files(tmp_path):
    run = fake_run(tmp_path / "run")
    (run / "post-mortem.html").write_text("<p>mine</p>")
    with pytest.raises(write_mod.RunDirExists, match=r"holds files coordscope did not write \(post-mortem.html\)"):
        write_mod.check_target(str(run), overwrite=True)
    assert (run / "post-mortem.html").exists()


def test_overwrite_refuses_a_manifest_of_another_tool(tmp_path):
    run = fake_run(tmp_path / "run")
    (run / "manifest.json").write_text(json.dumps({"tool": "something else"}))
    with pytest.raises(write_mod.RunDirExists, match="not written by coordscope ingest"):
        write_mod.check_target(str(run), overwrite=True)


def test_an_input_inside_the_target_is_refused(tmp_path):
    run = fake_run(tmp_path / "run")
    r = cli("ingest", str(run / "events"), "--out", str(run), "--overwrite")
    assert r.returncode != 0 and "lies inside --out" in r.stderr
    assert (run / "events" / "part-0.parquet").exists() and (run / "manifest.json").exists()


def test_targets_that_are_accepted(tmp_path):
    assert write_mod.check_target(str(tmp_path / "new"), overwrite=False) == tmp_path / "new"
    (tmp_path / "empty").mkdir()
    assert write_mod.check_target(str(tmp_path / "empty"), overwrite=False) == tmp_path / "empty"
    run = fake_run(tmp_path / "run")
    with pytest.raises(write_mod.RunDirExists, match="pass --overwrite"):
        write_mod.check_target(str(run), overwrite=False)
    assert write_mod.check_target(str(run), overwrite=True) == run
    (tmp_path / "link").symlink_to(run)
    with pytest.raises(write_mod.RunDirExists, match="symbolic link"):
        write_mod.check_target(str(tmp_path / "link"), overwrite=True)


def test_leftovers_of_killed_runs_are_removed_and_nothing_else(tmp_path):
    target = tmp_path / "run"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    killed = tmp_path / ".run.tmp-dead0001"
    killed.mkdir()
    (killed / write_mod.OWNER_FILE).write_text(f"{dead.pid}\n{os.uname().nodename}\n")
    running = tmp_path / ".run.tmp-live0001"
    running.mkdir()
    (running / write_mod.OWNER_FILE).write_text(f"{os.getpid()}\n{os.uname().nodename}\n")
    unknown = tmp_path / ".run.tmp-user0001"        # same name shape, not ours: kept
    unknown.mkdir()
    (unknown / "keep.txt").write_text("x")
    replaced = fake_run(tmp_path / ".run.old-0001")  # a replaced run a kill left behind
    removed = write_mod.remove_leftovers(target)
    assert sorted(removed) == sorted([str(killed), str(replaced)])
    assert running.exists() and (unknown / "keep.txt").exists()


# --- the listing shared by parse and ingest ------------------------------------------------------

def reasons(entries) -> dict[str, str]:
    return {os.path.basename(e.path): e.reason for e in entries if isinstance(e, input_files.Skipped)}


def test_special_entries_are_listed_with_their_reason(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "a.log").write_text(LINE)
    os.mkfifo(d / "pipe")
    (d / "dangling.log").symlink_to(d / "nowhere.log")
    (d / "self.log").symlink_to(d / "self.log")
    (d / "loop").symlink_to(d)                  # a folder link back to its parent
    (d / ".hidden.log").write_text(LINE)
    (d / "sub").mkdir()
    (d / "sub" / "b.log").write_text(LINE)
    entries = input_files.expand(str(d))
    listed = [os.path.relpath(e.path, d) for e in entries if isinstance(e, input_files.Listed)]
    assert listed == ["a.log", "sub/b.log"]
    why = reasons(entries)
    assert "FIFO" in why["pipe"]
    assert "dangling symbolic link" in why["dangling.log"]
    assert "loop" in why["self.log"] and "loop" in why["loop"]
    assert "hidden" in why[".hidden.log"]
    assert len(entries) == 7


def test_an_unlistable_folder_is_reported(tmp_path, monkeypatch):
    d = tmp_path / "in"
    (d / "locked").mkdir(parents=True)
    (d / "a.log").write_text(LINE)
    if os.geteuid() != 0:
        os.chmod(d / "locked", 0)
    else:  # root lists any folder: the refusal a user would get is raised where listing happens
        real = os.listdir

        def listdir(p):
            if str(p).endswith("locked"):
                raise PermissionError(13, "Permission denied")
            return real(p)

        monkeypatch.setattr(input_files.os, "listdir", listdir)
    try:
        why = reasons(input_files.expand(str(d)))
    finally:
        os.chmod(d / "locked", 0o755)
    assert "cannot list folder" in why["locked"] and "Permission denied" in why["locked"]


def test_duplicates_compare_content_not_samples(tmp_path):
    mib = 1 << 20
    head, tail = b"a" * mib, b"z" * mib
    (tmp_path / "one.log").write_bytes(head + b"middle-1" + tail)
    (tmp_path / "two.log").write_bytes(head + b"middle-2" + tail)      # same size, same first/last MiB
    (tmp_path / "copy.log").write_bytes(head + b"middle-1" + tail)
    dups = input_files.Duplicates()
    size = (tmp_path / "one.log").stat().st_size
    assert dups.of(str(tmp_path / "one.log"), size) is None
    assert dups.of(str(tmp_path / "two.log"), size) is None
    assert dups.of(str(tmp_path / "copy.log"), size) == str(tmp_path / "one.log")
    (tmp_path / "alias.log").symlink_to(tmp_path / "two.log")
    assert dups.of(str(tmp_path / "alias.log"), size) == str(tmp_path / "two.log")


def test_duplicates_read_a_file_only_when_another_of_its_size_comes(tmp_path, monkeypatch):
    read = []
    real = input_files.fingerprint
    monkeypatch.setattr(input_files, "fingerprint", lambda path, size: read.append(path) or real(path, size))
    dups = input_files.Duplicates()
    paths = {}
    for name, text in (("a.log", "one\n"), ("b.log", "three\n"), ("c.log", "two\n"), ("d.log", "one\n")):
        (tmp_path / name).write_text(text)
        paths[name] = str(tmp_path / name)
    assert dups.of(paths["a.log"], 4) is None and dups.of(paths["b.log"], 6) is None
    assert read == []                                                  # distinct sizes: nothing read
    assert dups.of(paths["c.log"], 4) is None                          # same size, other content
    assert dups.of(paths["d.log"], 4) == paths["a.log"]                # same size, same content
    assert sorted(read) == [paths["a.log"], paths["c.log"], paths["d.log"]]   # each read once


def test_gzip_is_recognised_by_content_and_a_truncated_one_keeps_its_head(tmp_path):
    text = "".join(LINE.replace("10:00:02,000", f"10:00:{i % 60:02d},000") for i in range(1000)).encode()   # 170 kB
    packed = gzip.compress(text)
    (tmp_path / "rotated.1").write_bytes(packed)
    data, gz, problem = input_files.read_head(str(tmp_path / "rotated.1"), 256 * 1024)
    assert gz == "gzip" and problem is None and data == text[: len(data)] and len(data) == len(text)
    (tmp_path / "cut.log.gz").write_bytes(packed[: len(packed) // 2])
    data, gz, problem = input_files.read_head(str(tmp_path / "cut.log.gz"), 256 * 1024)
    assert gz == "gzip" and "truncated gzip" in problem and 0 < len(data) < len(text) and text.startswith(data)
    (tmp_path / "plain.gz").write_text(LINE)
    data, gz, problem = input_files.read_head(str(tmp_path / "plain.gz"), 256 * 1024)
    assert (data.decode(), gz, problem) == (LINE, None, None)


# --- parse treats the same inputs the same way -------------------------------------------------------

def test_parse_reads_a_file_named_twice_once_and_says_so(tmp_path):
    (tmp_path / "a.log").write_text(LINE)
    (tmp_path / "b.log").symlink_to(tmp_path / "a.log")
    r = cli("parse", str(tmp_path / "a.log"), str(tmp_path / "a.log"), str(tmp_path / "b.log"), "--summary-json")
    assert r.returncode == 0
    assert len(r.stdout.splitlines()) == 1        # one event, not three
    files = json.loads(r.stderr)["files"]
    assert [f["kind"] for f in files] == ["log", "duplicate", "duplicate"]


def test_parse_skips_a_fifo_instead_of_waiting_forever(tmp_path):
    (tmp_path / "a.log").write_text(LINE)
    os.mkfifo(tmp_path / "pipe")
    r = cli("parse", str(tmp_path), timeout=60)
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 1
    assert "pipe: a FIFO (named pipe)" in r.stderr
