"""Reading gzip data as far as it goes: a truncated or corrupt stream gives every complete line
before the damage, and says where it stopped.

Python's GzipFile raises at the damage and loses the bytes it had decoded in that read (up to a
buffer of complete lines); Hadoop's decompressor, which the ingest's scanner uses, hands them
over. This stream decodes with zlib directly, so `parse` keeps the same lines as `ingest`: the
lines before the damage, without the line the damage cut (it is not a line; the ingest's scanner
drops it too). Concatenated members (what `cat a.gz b.gz` makes) are read one after the other,
as gzip allows.
"""

from __future__ import annotations

import io
import zlib
from typing import BinaryIO

CHUNK = 1 << 16


class TolerantGzip(io.RawIOBase):
    """A readable binary stream of the decompressed bytes of `raw` (gzip data)."""

    def __init__(self, raw: BinaryIO) -> None:
        super().__init__()
        self._raw = raw
        self._d = zlib.decompressobj(wbits=31)
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
                    self.problem = "truncated gzip data: the lines before the damage are read"
                else:                      # a clean end: the last line needs no line end
                    self._ready += self._held
                self._held.clear()
                self._done = True
                return
            while data:
                self._in_member = True
                try:
                    out = self._d.decompress(data)
                except zlib.error as exc:
                    self.problem = f"corrupt gzip data ({exc}): the lines before the damage are read"
                    self._held.clear()
                    self._done = True
                    return
                self._take(out)
                data = b""
                if self._d.eof:            # a member ends; what follows it may be another one
                    self._in_member = False
                    data = self._d.unused_data.lstrip(b"\0")
                    self._d = zlib.decompressobj(wbits=31)

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


def open_gzip(raw: BinaryIO) -> io.BufferedReader:
    """`raw` (gzip data) as a buffered stream; `.raw.problem` says whether and where it stopped."""
    return io.BufferedReader(TolerantGzip(raw), CHUNK)
