"""The ingest reads logs holding zero-filled bytes, or starting with a UTF-8 byte order mark, as
`coordscope parse` does. Zero-filled bytes (parsers/nul_runs.py): the
scanner ends a line at a NUL run wherever Spark's splits cut the file (jvm/SplitScanner.java), so the
lines, their numbers, the events and the per-file NUL counts equal `parse`'s. On main (888ef68) the
ingest rejected a file whose first 8 KiB held a NUL byte, and read a run further in as part of a line.
A byte order mark (parsers/reader._encoding): the scanner skips it, the fallback's parse stage takes it
off line 1; on c434f9a it hid the first line's time and the layout ('bare' instead of 'log4j')."""

from __future__ import annotations

import random

import pytest

from parsers.reader import UTF8_BOM, parse_path
from pipeline import rundir
from tests.parsers.test_nul_runs import _log
from tests.spark.conftest import run_ingest_inputs

SPLIT = 4096


def _files(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    text = ("\n".join(_log(500, seed=2)) + "\n").encode()
    # copy-truncate holes, one larger than the scanner's buffer and than a split
    for hole in (7, 70_000):
        (logs / f"hole-{hole}.log").write_bytes(b"\x00" * hole + text)
    (logs / "bom.log").write_bytes(UTF8_BOM + text)
    # crash blocks at and around split boundaries: the line there loses its end to a NUL run, with
    # each kind of line end after the run or none, and the next line follows
    rng = random.Random(11)
    data = bytearray(text)
    for k in range(12, 1, -1):
        at = k * SPLIT + rng.randrange(-3, 4)
        eol = data.index(b"\n", at)
        data[at:eol + 1] = b"\x00" * rng.choice([1, 3, 600]) + rng.choice([b"", b"\n", b"\r\n", b"\r"])
    (logs / "crash.log").write_bytes(bytes(data))
    return logs


def _by_file(logs, out):
    """Per file: the ingest's events and unparsed lines (its `unparsed` table), `parse`'s, and its summary."""
    events, unparsed = rundir.load_table(out, "events"), rundir.load_table(out, "unparsed")
    for p in sorted(logs.iterdir()):
        mine = events[events.source == str(p)]
        got = sorted([(int(r.line_no), r.kind, tuple(sorted(r.partitions)) if r.partitions is not None else ())
                      for r in mine.itertuples()]
                     + [(int(n), "unparsed", ()) for n in unparsed[unparsed.source == str(p)].line_no])
        outcomes, summary = parse_path(str(p))
        want = sorted((o.event.line_no, o.event.kind, tuple(sorted(o.event.partitions or ())))
                      for o in outcomes if o.event is not None)
        yield p, got, want, summary


@pytest.mark.spark
def test_the_ingest_reads_nul_runs_like_parse_across_split_boundaries(spark, tmp_path):
    logs = _files(tmp_path)
    out = tmp_path / "run"
    man = run_ingest_inputs(spark, logs, out, extra_conf={"spark.sql.files.maxPartitionBytes": str(SPLIT)})
    assert man["accounting"]["adds_up"]
    entries = {e["source"]: e for e in man["inputs"]}
    for p, got, want, summary in _by_file(logs, out):
        assert len(want) > 100, p.name
        assert got == want, p.name
        assert entries[str(p)]["lines_read"] == summary.lines_read, p.name
        assert entries[str(p)]["layout"] == summary.layout == "log4j", p.name
        if p.name == "bom.log":
            assert got[0][0] == 1 and not any(str(p) in w for w in man["warnings"])
            continue
        note = next(m for m in summary.messages if "NUL byte(s)" in m)
        assert note in man["warnings"], (p.name, man["warnings"])


@pytest.mark.spark
def test_without_the_jar_the_ingest_says_a_file_holds_nul_bytes(spark, tmp_path, monkeypatch):
    from pipeline.spark import jvm
    from pipeline.spark.lines import NUL_FALLBACK

    logs = _files(tmp_path)
    monkeypatch.setattr(jvm, "register_split_scanner", lambda *a, **k: False)
    out = tmp_path / "run"
    man = run_ingest_inputs(spark, logs, out)
    assert man["accounting"]["adds_up"]
    said = [w for w in man["warnings"] if NUL_FALLBACK in w]
    assert {w.split(":")[0] for w in said} == {str(p) for p in logs.iterdir() if p.name != "bom.log"}, man["warnings"]
    # the byte order mark is off line 1 (the fallback's parse stage), so the file reads as `parse` reads it
    bom = logs / "bom.log"
    for p, got, want, _summary in _by_file(logs, out):
        if p == bom:
            assert got == want and got[0][0] == 1


@pytest.mark.spark
def test_the_ingest_reads_bzip2_xz_and_zstd_logs_like_parse(spark, tmp_path):
    """bzip2 through Hadoop's codec (a link named .bz2 when the name hides it), xz and zstd decompressed
    on the driver (Hadoop has no xz codec; its zstd codec needs a native libhadoop Spark lacks, and
    failed the whole ingest): the same events as `parse`, the manifest naming each file's compression.
    On main (70b75aa) all three were rejected as binary files."""
    from tests.parsers.test_compressed_logs import COMPRESS, EXT

    logs = tmp_path / "logs"
    logs.mkdir()
    for k, kind in enumerate(sorted(COMPRESS)):
        text = ("\n".join(_log(600, seed=20 + k)) + "\n").encode()
        (logs / f"named-{kind}.log{EXT[kind]}").write_bytes(COMPRESS[kind](text))
        (logs / f"hidden-{kind}.log.1").write_bytes(COMPRESS[kind](text.replace(b"consumer-g-", b"consumer-h-")))
    out = tmp_path / "run"
    man = run_ingest_inputs(spark, logs, out, extra_conf={"spark.sql.files.maxPartitionBytes": str(SPLIT)})
    assert man["accounting"]["adds_up"]
    entries = {e["source"]: e for e in man["inputs"]}
    for p, got, want, summary in _by_file(logs, out):
        e = entries[str(p)]
        assert e["status"] == "read" and e["compression"] == p.name.split("-")[1].split(".")[0], p.name
        assert len(want) == 200 and got == want, p.name
        assert e["lines_read"] == summary.lines_read == 600, p.name
        if e["compression"] in ("xz", "zstd"):
            assert any("decompressed on the driver" in q for q in e["problems"]), p.name


@pytest.mark.spark
def test_the_ingest_reads_utf16_logs_like_parse(spark, tmp_path):
    """UTF-16 with its byte order mark (Windows PowerShell 5's `kubectl logs pod > pod.log`), plain and
    gzip-compressed: written as UTF-8 on the driver for the scan, the same events as `parse`. On main
    (804b852) the ingest rejected both as binary (NUL bytes) while `parse` read them."""
    import gzip

    logs = tmp_path / "logs"
    logs.mkdir()
    text = "\n".join(_log(300, seed=31)) + "\n"
    (logs / "ps.log").write_bytes(text.replace("\n", "\r\n").encode("utf-16"))
    (logs / "ps-be.log.gz").write_bytes(gzip.compress(b"\xfe\xff" + text.replace("g-", "q-").encode("utf-16-be")))
    out = tmp_path / "run"
    man = run_ingest_inputs(spark, logs, out)
    assert man["accounting"]["adds_up"]
    entries = {e["source"]: e for e in man["inputs"]}
    for p, got, want, summary in _by_file(logs, out):
        e = entries[str(p)]
        assert e["status"] == "read" and any("UTF-16" in q for q in e["problems"]), p.name
        assert len(want) == 100 and got == want, p.name
        assert e["lines_read"] == summary.lines_read == 300, p.name
