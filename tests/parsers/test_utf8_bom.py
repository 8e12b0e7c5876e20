"""A UTF-8 byte order mark at a file's start (PowerShell 5's `Out-File -Encoding utf8`, Notepad before
Windows 10 1903, .NET's Encoding.UTF8 in a StreamWriter) is not part of the first line. On main before
this (c434f9a) it hid the first line's time: the layout sniff read a Kafka log4j file as 'bare' and 14
of its 57 events were lost."""

from __future__ import annotations

import io

from parsers.reader import UTF8_BOM, parse_path, parse_stream
from pipeline import input_files
from pipeline.spark import inputs
from tests.parsers.test_nul_runs import _events, _log


def test_a_file_with_a_utf8_bom_reads_as_without(tmp_path):
    text = "\n".join(_log(60)) + "\n"
    plain, bom = tmp_path / "plain.log", tmp_path / "bom.log"
    plain.write_text(text)
    bom.write_bytes(UTF8_BOM + text.encode())
    want, s0 = _events(plain)
    got, s1 = _events(bom)
    assert len(want) == 20 and want[0][0] == 1
    assert got == want
    assert (s1.layout, s1.lines_read, s1.parsed) == (s0.layout, s0.lines_read, s0.parsed) == ("log4j", 60, 20)
    outcomes, _ = parse_stream(io.BufferedReader(io.BytesIO(bom.read_bytes())), "-")
    assert [(o.event.line_no, o.event.kind) for o in outcomes if o.event] == [(n, k) for n, k, _p in want]
    # the ingest sniffs the same first line
    assert input_files.head_lines(str(bom), 3) == text.splitlines()[:3]
    assert inputs.head_lines(bom.read_bytes())[:3] == text.splitlines()[:3]


def test_only_a_leading_bom_is_taken_off(tmp_path):
    text = "\n".join(_log(6)) + "\n"
    p = tmp_path / "x.log"
    p.write_bytes(text.encode() + UTF8_BOM + text.encode())   # two files concatenated: the second's stays
    outcomes, s = parse_path(str(p))
    lines = [o.line_no for o in outcomes]
    assert s.lines_read == 12 and lines == list(range(1, 13))
