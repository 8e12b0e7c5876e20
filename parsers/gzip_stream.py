"""Reading compressed logs (gzip, bzip2, xz, zstd: by their magic bytes, whatever the name says) as far
as the data goes: a truncated or corrupt stream gives every complete line before the damage, and
says where it stopped.

Python's GzipFile raises at the damage and loses the bytes it had decoded in that read (up to a
buffer of complete lines); Hadoop's decompressor, which the ingest's scanner uses, hands them
over. This stream decodes with the decompressor objects directly (zlib, bz2, lzma, zstandard), so
`parse` keeps the same lines as `ingest`: the lines before the damage, without the line the damage
cut (it is not a line; the ingest's scanner drops it too). Concatenated members or frames (what
`cat a.gz b.gz` makes; pbzip2's and zstd's multi-frame output) are read one after the other.

Why more than gzip: rotated logs are compressed with what the rotation is told to use: log4j 2's
RollingFileAppender by the filePattern's extension (.gz, .bz2, .xz, .zst), logrotate's
`compresscmd` (bzip2, xz, zstd), logback by .gz/.zip. Such a file was rejected as binary.
"""

from __future__ import annotations

import bz2
import io
import lzma
import zlib
from collections.abc import Callable
from typing import Any, BinaryIO

CHUNK = 1 << 16

# magic bytes -> the kind of compressed data (bzip2: "BZh" and a block size digit)
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"\xfd7zXZ\x00", "xz"), (b"\x28\xb5\x2f\xfd", "zstd"))
# Hadoop's codec for the kind, by the file name's extension (the ingest's scanner picks it by name;
# xz has none in Hadoop: the ingest decompresses it on the driver, pipeline/spark/inputs.py)
EXTENSION = {"gzip": ".gz", "bzip2": ".bz2", "zstd": ".zst", "xz": ".xz"}


def compression_of(magic: bytes) -> str | None:
    """The kind of compressed data a file starting with `magic` (6 bytes or more) holds, or None."""
    for m, kind in _MAGIC:
        if magic.startswith(m):
            return kind
    if magic[:3] == b"BZh" and magic[3:4].isdigit() and magic[3:4] != b"0":
        return "bzip2"
    return None


# archives: a bundle of files, not a log (a support bundle, logback's and log4j 2's .zip rollover);
# tar by the "ustar" magic at offset 257 (POSIX and GNU tar), inside any of the compressions above
_ARCHIVES = ((b"PK\x03\x04", "zip"), (b"PK\x05\x06", "zip"), (b"7z\xbc\xaf\x27\x1c", "7z"), (b"Rar!\x1a\x07", "rar"))


def archive_of(head: bytes) -> str | None:
    """The kind of archive whose (decompressed) first bytes are `head` (262 bytes or more for tar)."""
    for m, kind in _ARCHIVES:
        if head.startswith(m):
            return kind
    return "tar" if head[257:262] == b"ustar" else None


def archive_note(kind: str) -> str:
    return f"a {kind} archive, not a log: not read (extract it and pass the extracted files or their folder)"


def _zstd() -> Any:
    import zstandard  # (a dependency; imported when a zstd file is read)

    return zstandard.ZstdDecompressor().decompressobj()


_DECOMPRESSORS: dict[str, Callable[[], Any]] = {
    "gzip": lambda: zlib.decompressobj(wbits=31),
    "bzip2": bz2.BZ2Decompressor,
    "xz": lzma.LZMADecompressor,
    "zstd": _zstd,
}


class TolerantGzip(io.RawIOBase):
    """A readable binary stream of the decompressed bytes of `raw` (compressed data of `kind`; gzip
    unless told)."""

    def __init__(self, raw: BinaryIO, kind: str = "gzip") -> None:
        super().__init__()
        self._raw = raw
        self.kind = kind
        self._new = _DECOMPRESSORS[kind]
        self._d = self._new()
        self._ready = bytearray()      # decoded bytes up to a line end, to hand out
        self._held = bytearray()       # decoded bytes after the last line end: a line not yet complete
        self._done = False
        self._in_member = False        # bytes of a member were fed and its end is not yet seen
        self.problem: str | None = None

    def readable(self) -> bool:
        return True

    def _fill(self) -> None:
        while not self._ready and not self._done:
            data = self._raw.read(CHUNK)
            if data and not self._in_member:
                data = data.lstrip(b"\0")     # padding some writers leave after a member
                if not data:
                    continue
            if not data:
                if self._in_member:        # the stream ended inside a member: the data is cut
                    self.problem = f"truncated {self.kind} data: the lines before the damage are read"
                else:                      # a clean end: the last line needs no line end
                    self._ready += self._held
                self._held.clear()
                self._done = True
                return
            while data:
                self._in_member = True
                try:
                    out = self._d.decompress(data)
                except Exception as exc:  # zlib.error, OSError (bz2), lzma.LZMAError, zstandard.ZstdError
                    self.problem = f"corrupt {self.kind} data ({exc}): the lines before the damage are read"
                    self._held.clear()
                    self._done = True
                    return
                self._take(out)
                data = b""
                if self._d.eof:            # a member ends; what follows it may be another one
                    self._in_member = False
                    data = self._d.unused_data.lstrip(b"\0")
                    self._d = self._new()

    def _take(self, out: bytes) -> None:
        if not out:
            return
        end = max(out.rfind(b"\n"), out.rfind(b"\r"))
        if end < 0:
            self._held += out
            return
        self._ready += self._held
        self._ready += out[: end + 1]
        self._held = bytearray(out[end + 1:])

    def readinto(self, b) -> int:
        self._fill()
        n = min(len(b), len(self._ready))
        b[:n] = self._ready[:n]
        del self._ready[:n]
        return n

    def close(self) -> None:
        try:
            self._raw.close()
        finally:
            super().close()


def open_gzip(raw: BinaryIO, kind: str = "gzip") -> io.BufferedReader:
    """`raw` (compressed data of `kind`) as a buffered stream; `.raw.problem` says whether and where
    it stopped."""
    return io.BufferedReader(TolerantGzip(raw, kind), CHUNK)
