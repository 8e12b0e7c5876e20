"""Every input file is read or rejected with its reason, and `ingest` reads the same files and
lines as `parse` (issue 16): gzip by content, partial gzip, long first lines, content duplicates,
FIFOs and links. One real ingest over a folder a careless user could hand over."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import rundir
from tests.spark.conftest import client

# one worker for the whole module under pytest-xdist: its ingest of the hostile inputs (hostile_run) is built once, not once per worker
pytestmark = pytest.mark.xdist_group("test_ingest_inputs")

REPO = Path(__file__).resolve().parents[2]


def lines(group: str, n: int) -> bytes:
    return "".join(client(f"10:{i // 60 % 60:02d}:{i % 60:02d},000", f"Adding newly assigned partitions: t-{i % 4}",
                          group=group) + "\n" for i in range(n)).encode()


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    (d / "rotated.1").write_bytes(gzip.compress(lines("gzip-no-name", 5)))             # gzip, no .gz name
    (d / "named.gz").write_bytes(lines("plain-named-gz", 3))                           # text named .gz
    whole = gzip.compress(lines("truncated", 1000))     # 177 kB of text
    (d / "cut.log.gz").write_bytes(whole[: len(whole) // 2])                            # cut in its first 256 KiB
    (d / "long-first.log").write_bytes(b"x" * (300 * 1024) + b"\n" + lines("after-long-line", 2))
    mib = 1 << 20
    pad_head, pad_tail = b"#" * mib + b"\n", b"\n" + b"#" * mib + b"\n"
    (d / "same-edges-1.log").write_bytes(pad_head + lines("middle-one", 1) + pad_tail)
    (d / "same-edges-2.log").write_bytes(pad_head + lines("middle-two", 1) + pad_tail)   # same size and edges
    os.mkfifo(d / "pipe")
    (d / "dangling.log").symlink_to(d / "gone.log")
    return d


@pytest.fixture(scope="module")
def hostile_run(spark, hostile, tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "hostile"
    # the folder, and one of its files named again under another path
    from pipeline.spark.job import IngestOptions, run_ingest

    man = run_ingest(IngestOptions(inputs=[str(hostile), str(hostile / "." / "rotated.1")], out=str(out), quiet=True),
                     spark=spark)
    return out, man


def by_name(man) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for e in man["inputs"]:
        out.setdefault(os.path.basename(e["source"]), []).append(e)
    return out


@pytest.mark.spark
def test_every_file_is_read_or_rejected_with_its_reason(hostile_run):
    _, man = hostile_run
    f = by_name(man)
    assert f["rotated.1"][0]["status"] == "read" and f["rotated.1"][0]["gzip"]
    assert f["rotated.1"][1]["status"] == "duplicate"                   # named twice: read once, said so
    assert f["named.gz"][0]["status"] == "read" and not f["named.gz"][0]["gzip"]
    cut = f["cut.log.gz"][0]
    assert cut["status"] == "read" and any("before the damage" in p for p in cut["problems"])
    assert f["long-first.log"][0]["status"] == "read" and f["long-first.log"][0]["lines_read"] == 3
    assert f["same-edges-1.log"][0]["status"] == f["same-edges-2.log"][0]["status"] == "read"
    assert f["pipe"][0]["status"] == "rejected" and "FIFO" in f["pipe"][0]["problems"][0]
    assert f["dangling.log"][0]["status"] == "rejected" and "dangling" in f["dangling.log"][0]["problems"][0]
    assert man["accounting"]["adds_up"]
    assert {os.path.basename(r["source"]) for r in man["rejects"]} == {"pipe", "dangling.log", "rotated.1"}


@pytest.mark.spark
def test_ingest_reads_the_lines_parse_reads(hostile_run, hostile):
    out, _ = hostile_run
    events = rundir.load_table(out, "events")
    got = {(os.path.basename(s), g, int(n)) for (s, g), n in events.groupby(["source", "group_id"]).size().items()}
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "parse", str(hostile), str(hostile / "." / "rotated.1")],
                       capture_output=True, text=True, cwd=REPO, timeout=120)
    parsed = [json.loads(x) for x in r.stdout.splitlines()]
    want: dict[tuple, int] = {}
    for e in parsed:
        key = (os.path.basename(e["source"]), e["group_id"])
        want[key] = want.get(key, 0) + 1
    assert got == {(*k, n) for k, n in want.items()}
    cut = [n for s, g, n in got if g == "truncated"]
    assert cut and 0 < cut[0] < 1000       # the lines before the damage, not the whole file, not nothing
    assert {g for _, g, _ in got} == {"gzip-no-name", "plain-named-gz", "truncated", "after-long-line",
                                      "middle-one", "middle-two"}


@pytest.mark.spark
def test_input_links_do_not_stay_in_the_run_directory(hostile_run):
    out, _ = hostile_run
    assert sorted(p.name for p in Path(out).iterdir() if not p.is_dir() or p.name.startswith(("_", "."))) == \
        ["manifest.json"]

