"""Zero-filled bytes inside a text log (parsers/nul_runs.py): the hole a copy-truncate rotation leaves at
a file's start, the zero-filled block a crash leaves inside a line. Each run of NUL bytes is a line end,
the text around it is read and the bytes are counted in the file's notes; binary files stay binary. On
main before this (888ef68) both files were rejected whole as binary: every event in them lost."""

from __future__ import annotations

import io
import random
import re

import pytest

from parsers import nul_runs
from parsers.reader import MAX_LINE, numbered_lines, parse_path
from pipeline import input_files
from pipeline.spark import inputs

ASSIGNED = ("[2024-05-02 10:00:{s:02d},{ms:03d}] INFO [Consumer clientId=consumer-g-{n}, groupId=g] "
            "Notifying assignor about the new Assignment(partitions=[orders-{n}]) "
            "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)")
OTHER = "[2024-05-02 10:00:{s:02d},{ms:03d}] INFO Processed {n} records (com.acme.Worker)"


def _log(n: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    out = []
    for k in range(n):
        shape = ASSIGNED if k % 3 == 0 else OTHER
        out.append(shape.format(s=k % 60, ms=rng.randrange(1000), n=k))
    return out


def _events(path) -> list[tuple[int, str, list]]:
    outcomes, summary = parse_path(str(path))
    evs = [(o.event.line_no, o.event.kind, sorted(o.event.partitions or ())) for o in outcomes if o.event]
    return evs, summary


def _reference_lines(text: str) -> list[str]:
    """The rule, stated once over the whole text: a line ends at \\n, \\r\\n, \\r, or a NUL run with one
    line end after it."""
    parts = re.split(r"\x00+(?:\r\n|\r|\n)?|\r\n|\r|\n", text)
    if parts and parts[-1] == "":
        parts.pop()
    return parts


@pytest.mark.parametrize("hole", [1, 31, 4096, MAX_LINE - 1, MAX_LINE + 7, 3 * MAX_LINE + 11])
def test_a_copy_truncated_file_is_read_after_its_leading_hole(tmp_path, hole):
    lines = _log(30)
    plain, holed = tmp_path / "plain.log", tmp_path / "kafkaServer.out"
    plain.write_text("\n".join(lines) + "\n")
    holed.write_bytes(b"\x00" * hole + plain.read_bytes())
    want, s0 = _events(plain)
    got, s1 = _events(holed)
    assert len(want) == 10
    # the hole ends an empty first line: every event one line later, none lost, none added
    assert got == [(n + 1, k, p) for n, k, p in want]
    assert s1.kind == "log" and s1.layout == s0.layout == "log4j"
    assert s1.lines_read == s0.lines_read + 1 == 31
    assert s1.rejected == 0
    assert f"{hole} NUL byte(s) in 1 run(s)" in " ".join(s1.messages)
    assert not any("NUL" in m for m in s0.messages)


@pytest.mark.parametrize("tail", [b"", b"\n", b"\r\n", b"\r"])
def test_a_crash_block_inside_a_line_ends_that_line_and_the_appended_lines_are_read(tmp_path, tail):
    lines = _log(40)
    cut = lines[20][:50]                # the line the crash cut: its first 50 bytes reached the disk
    body = "\n".join(lines[:20]) + "\n" + cut
    after = "\n".join(lines[21:]) + "\n"
    p = tmp_path / "consumer.log"
    p.write_bytes(body.encode() + b"\x00" * 4000 + tail + after.encode())
    got, s = _events(p)
    whole = tmp_path / "whole.log"
    whole.write_text("\n".join(lines[:20] + lines[21:]) + "\n")
    want, _ = _events(whole)
    # line 21 is the cut one (its own line, no event: it lost its end); the appended lines follow it
    # with one line break: one after the NUL run (a line end right after the run belongs to it)
    assert got == [(n if n <= 20 else n + 1, k, p_) for n, k, p_ in want]
    assert s.lines_read == 40
    assert "4000 NUL byte(s) in 1 run(s)" in " ".join(s.messages)


def test_the_reader_splits_lines_by_the_rule_wherever_reads_cut_the_runs():
    """Runs at random places, some across the reader's 65,536-character reads, some followed by line
    ends of each kind: the lines equal the rule applied to the whole text, with their numbers."""
    rng = random.Random(7)
    pieces = []
    size = 0
    while size < 5 * MAX_LINE:
        r = rng.random()
        if r < 0.1:
            piece = "\x00" * rng.choice([1, 2, 100, 5000, MAX_LINE + 3])
        elif r < 0.2:
            piece = rng.choice(["\n", "\r\n", "\r"])
        else:
            piece = "x" * rng.randrange(1, 3000)
        pieces.append(piece)
        size += len(piece)
    # and one run ending exactly at a read's end, a line end starting the next read
    text = "".join(pieces)
    text = "a" * (MAX_LINE - 10) + "\x00" * 10 + "\n" + text
    stats: dict = {}
    got = list(numbered_lines(io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8", newline=None), stats))
    want = _reference_lines(text)
    assert [t for _, t in got] == [t[: MAX_LINE + 1] for t in want]
    assert [n for n, _ in got] == list(range(1, len(want) + 1))
    assert stats["nul_bytes"] == text.count("\x00")
    assert stats["nul_runs"] == len(re.findall("\x00+", text))


def test_binary_files_stay_binary_and_a_few_stray_nuls_do_not_make_one(tmp_path):
    rng = random.Random(3)
    # a binary file: NUL bytes in many short runs among other bytes (an ELF header, a class file)
    elf = bytearray(b"\x7fELF\x02\x01\x01" + b"\x00" * 9)
    for _ in range(2000):
        elf += bytes([rng.randrange(1, 256)]) * rng.randrange(1, 4) + b"\x00" * rng.randrange(1, 6)
    (tmp_path / "a.log").write_bytes(bytes(elf))
    (tmp_path / "b.log").write_bytes(b"\x00" * 70000 + bytes(elf))       # a hole, then binary
    text = ("\n".join(_log(30)) + "\n").encode()
    (tmp_path / "c.log").write_bytes(text[:500] + b"\x00\x00" + text[500:900] + b"\x00" * 600 + text[900:])
    for name, kind in (("a.log", "binary"), ("b.log", "binary"), ("c.log", "log")):
        _, s = _events(tmp_path / name)
        assert s.kind == kind, name
        data, _gz, _problem = input_files.read_head(str(tmp_path / name), inputs.BINARY_PROBE)
        stats: dict = {}
        input_files.head_lines(str(tmp_path / name), 200, stats)
        ingest_binary = bool(inputs.looks_binary(data)) or bool(stats.get("binary_nul"))
        assert ingest_binary == (kind == "binary"), name


def test_the_ingest_sniffs_the_lines_parse_reads(tmp_path):
    text = ("\n".join(_log(300)) + "\n").encode()
    p = tmp_path / "x.log"
    p.write_bytes(b"\x00" * (2 * MAX_LINE + 5) + text[:4000] + b"\x00" * 300 + b"\r\n" + text[4000:])
    head = input_files.head_lines(str(p), 200)
    assert head == _reference_lines(p.read_bytes().decode())[:200]
    assert head[0] == "" and head[1].startswith("[2024-05-02 10:00:00")
    assert inputs.looks_binary(p.read_bytes()[:8192]) is None


def test_the_note_states_bytes_and_runs():
    assert nul_runs.note("f.log", 12, 2).startswith("f.log: 12 NUL byte(s) in 2 run(s), each read as a line end")
    assert nul_runs.as_line_ends("a\x00\x00\nb\x00c") == "a\nb\nc"
    assert nul_runs.too_many_runs(b"a\x00b\x00c\x00d\x00e") is False
    assert nul_runs.too_many_runs(b"a\x00b\x00c\x00d\x00e\x00") is True
