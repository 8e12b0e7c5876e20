"""reader._numbered reads in chunks (split at "\n", pairs from C iterators); it must give the pairs,
cut lines and decode-error count that the line-by-line reader it replaced gave (`_by_readline`
below, readline(MAX_LINE + 1) per line), on small limits so that chunk and line boundaries meet
every way."""

from __future__ import annotations

import io
import itertools
import random

import pytest

from parsers import reader


def _by_readline(text_stream, stats, max_line):
    no = 0
    while True:
        line = text_stream.readline(max_line + 1)
        if not line:
            return
        no += 1
        if len(line) > max_line and not line.endswith(("\n", "\r")):
            while True:
                rest = text_stream.readline(max_line + 1)
                if not rest or rest.endswith(("\n", "\r")):
                    break
        line = line.rstrip("\r\n")
        if "\ufffd" in line:
            stats["decode_errors"] = stats.get("decode_errors", 0) + 1
        yield no, line


def _stream(data: bytes) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace", newline=None)


def _both(data: bytes, max_line: int, chunk: int, monkeypatch) -> tuple[list, dict, list, dict]:
    monkeypatch.setattr(reader, "MAX_LINE", max_line)
    monkeypatch.setattr(reader, "_READ_CHARS", chunk)
    old_stats: dict = {}
    new_stats: dict = {}
    old = list(_by_readline(_stream(data), old_stats, max_line))
    new = list(reader._numbered(_stream(data), new_stats))
    return old, old_stats, new, new_stats


CASES = [
    b"", b"\n", b"a", b"a\n", b"a\n\n", b"\n\na", b"abc\r\ndef\rghi\n", b"x\r", b"\r\n\r\n",
    b"12345678\n", b"123456789\n", b"1234567890\n", b"1234567890123456789\nab\n", b"12345678901",
    b"ab\xffcd\n\xfe\xfe\nok\n", b"0123456789\xff\n", b"\xff" * 30, b"caf\xc3\xa9\nna\xc3\xafve\n",
]


@pytest.mark.parametrize("data", CASES)
@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 8])
def test_chunked_reader_gives_the_line_reader_pairs(data, chunk, monkeypatch):
    old, old_stats, new, new_stats = _both(data, 8, chunk, monkeypatch)
    assert new == old
    assert new_stats == old_stats


def test_chunked_reader_on_random_text(monkeypatch):
    rnd = random.Random(7)
    alphabet = [b"a", b"b", b" ", b"\n", b"\r", b"\r\n", b"\xff", b"\xc3\xa9", b"\xe2\x82\xac"]
    for _ in range(300):
        data = b"".join(rnd.choice(alphabet) * rnd.choice([1, 1, 1, 3, 12]) for _ in range(rnd.randint(0, 60)))
        for max_line, chunk in itertools.product((4, 9), (1, 4, 7)):
            if chunk > max_line:
                continue
            old, old_stats, new, new_stats = _both(data, max_line, chunk, monkeypatch)
            assert new == old, (data, max_line, chunk)
            assert new_stats == old_stats, (data, max_line, chunk)


def test_chunk_is_never_longer_than_a_line_may_be():
    # a line inside one chunk is never cut, so the chunk must not exceed MAX_LINE
    assert reader._READ_CHARS <= reader.MAX_LINE
