"""Rotated logs compressed with bzip2, xz or zstd (log4j 2's RollingFileAppender by the filePattern's
extension, logrotate's `compresscmd`) are read by content like gzip ones (parsers/gzip_stream.py): the
same events as the plain file, whatever the name says, and a cut or corrupt file keeps the lines before
the damage and says so. On main before this (70b75aa) each was rejected as a binary file."""

from __future__ import annotations

import bz2
import gzip
import lzma

import pytest
import zstandard

from parsers.gzip_stream import compression_of
from parsers.reader import parse_path
from pipeline import input_files
from tests.parsers.test_nul_runs import _events, _log

COMPRESS = {
    "gzip": gzip.compress,
    "bzip2": bz2.compress,
    "xz": lzma.compress,
    "zstd": lambda b: zstandard.ZstdCompressor().compress(b),
}
EXT = {"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz", "zstd": ".zst"}


def _text(n: int = 3000) -> bytes:
    return ("\n".join(_log(n, seed=4)) + "\n").encode()


@pytest.mark.parametrize("kind", sorted(COMPRESS))
@pytest.mark.parametrize("named", [True, False])
def test_a_compressed_log_reads_as_its_text(tmp_path, kind, named):
    text = _text()
    plain = tmp_path / "plain.log"
    plain.write_bytes(text)
    p = tmp_path / (f"consumer.log{EXT[kind]}" if named else "consumer.log.1")
    p.write_bytes(COMPRESS[kind](text))
    want, s0 = _events(plain)
    got, s = _events(p)
    assert len(want) == 1000
    assert got == want
    assert (s.kind, s.layout, s.lines_read) == ("log", "log4j", 3000)
    assert not s.messages or not any("binary" in m or "truncated" in m for m in s.messages)
    assert compression_of(p.read_bytes()[:6]) == kind
    assert input_files.compression(str(p)) == kind
    head, found, problem = input_files.read_head(str(p), 8192)
    assert head == text[:8192] and found == kind and problem is None
    assert input_files.head_lines(str(p), 5) == text.decode().splitlines()[:5]


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_a_cut_compressed_log_keeps_the_lines_before_the_damage(tmp_path, kind):
    text = _text(40_000)   # several bzip2 blocks (900 kB each)
    data = COMPRESS[kind](text)
    p = tmp_path / f"cut{EXT[kind]}"
    p.write_bytes(data[: len(data) * 3 // 4])
    outcomes, s = parse_path(str(p))
    outcomes = list(outcomes)
    lines = [o.line_no for o in outcomes]
    # some lines, not all, numbered from 1 without a hole; the cut line itself is not one
    assert 0 < s.lines_read < 40_000 and lines == list(range(1, s.lines_read + 1))
    assert f"truncated {kind} data: the lines before the damage are read" in " ".join(s.messages)
    full = text.decode().splitlines()
    assert [o.event.raw for o in outcomes if o.event][:3] == [full[0], full[3], full[6]]


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_concatenated_members_are_read_one_after_the_other(tmp_path, kind):
    a, b = _text(30), ("\n".join(_log(30, seed=9)) + "\n").encode()
    p = tmp_path / f"joined{EXT[kind]}"
    p.write_bytes(COMPRESS[kind](a) + COMPRESS[kind](b))
    _outcomes, s = parse_path(str(p))
    list(_outcomes)
    assert s.lines_read == 60 and s.parsed == 20


def test_plain_text_starting_like_a_magic_is_text(tmp_path):
    p = tmp_path / "x.log"
    p.write_bytes(b"BZh0 is not a bzip2 block size\n" + _text(3))
    assert input_files.compression(str(p)) is None
    _outcomes, s = parse_path(str(p))
    list(_outcomes)
    assert s.lines_read == 4


def test_an_archive_is_named_as_one_not_as_a_binary_log(tmp_path):
    """A support bundle (zip, tar, tar.gz, tar.xz) is not a log: `parse` and the ingest's inspection
    say which archive it is and that its files must be extracted (on 804b852: 'binary file')."""
    import io
    import tarfile
    import zipfile

    from pipeline.spark import inputs

    text = _text(30)
    z = io.BytesIO()
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("consumer-1.log", text)
    t = io.BytesIO()
    with tarfile.open(fileobj=t, mode="w") as tf:
        info = tarfile.TarInfo("consumer-1.log")
        info.size = len(text)
        tf.addfile(info, io.BytesIO(text))
    bundles = {"logs.zip": ("zip", z.getvalue()), "logs.tar": ("tar", t.getvalue()),
               "logs.tgz": ("tar", gzip.compress(t.getvalue())), "logs.tar.xz": ("tar", lzma.compress(t.getvalue()))}
    files = []
    for name, (kind, data) in bundles.items():
        p = tmp_path / name
        p.write_bytes(data)
        outcomes, s = parse_path(str(p))
        assert list(outcomes) == [] and s.kind == "binary" and s.lines_read == 0, name
        assert s.messages == [f"{p}: a {kind} archive, not a log: not read (extract it and pass the extracted "
                              "files or their folder)"], name
        files += inputs.expand_local([str(p)])
    inputs.inspect(files, lambda: None)
    assert [(f.kind, f.problems[0].split(",")[0]) for f in files] == [
        ("binary", f"a {kind} archive") for kind, _d in bundles.values()]
