"""Which local files an INPUT argument names, and which of them to read: one listing for both
`coordscope parse` and `coordscope ingest`, so the two commands read the same files.

Nothing is skipped without a reason the user is shown: a folder that cannot be listed, a dangling
or looping symbolic link, a FIFO, socket or device (reading one would block or never end), a
file given twice (the same file under two paths, or two files with byte-identical content) each
become a `Skipped` entry with its reason. Compression is recognised by content (the gzip magic
bytes), not by the file name, and a truncated gzip file keeps the lines before the damage.

Pure Python, no JVM: the Spark side (pipeline/spark/inputs.py) builds on it for local paths.
"""

from __future__ import annotations

import itertools
import os
import stat
from dataclasses import dataclass
from typing import Any

from parsers.gzip_stream import TolerantGzip, compression_of

GZIP_MAGIC = b"\x1f\x8b"
FINGERPRINT_BYTES = 1 << 20   # head and tail hashed: a cheap first test, confirmed byte by byte
_GLOB_CHARS = ("*", "?", "[", "{")


class InputError(Exception):
    """An INPUT argument names nothing readable (one clear line for the user)."""


@dataclass(frozen=True)
class Listed:
    """A regular file found under an INPUT argument."""

    path: str        # as the user named it, or joined under the folder they named
    size: int


@dataclass(frozen=True)
class Skipped:
    """An entry under an INPUT argument that is not read, and why."""

    path: str
    reason: str


def _file_kind(mode: int) -> str | None:
    """Why a non-regular, non-directory entry is not read (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe), not a file: not read (reading it could wait forever)"
    if stat.S_ISSOCK(mode):
        return "a socket, not a file: not read"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a file: not read"
    return "not a regular file: not read"


def _entry(path: str) -> Listed | Skipped | str:
    """A file's Listed/Skipped entry, or "dir" for a folder to walk (links followed)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        if os.path.islink(path):
            if exc.errno == 40 or "loop" in str(exc).lower():   # ELOOP
                return Skipped(path, "symbolic link loop: not read")
            return Skipped(path, f"dangling symbolic link (to {os.readlink(path)!r}): not read")
        return Skipped(path, f"cannot read ({exc.strerror or exc}): not read")
    if stat.S_ISDIR(st.st_mode):
        return "dir"
    why = _file_kind(st.st_mode)
    if why is not None:
        return Skipped(path, why)
    if not os.access(path, os.R_OK):
        return Skipped(path, "permission denied: not read")
    return Listed(path, st.st_size)


def _walk(top: str, out: list[Listed | Skipped]) -> None:
    """Files under `top` in sorted order; hidden entries (dot names) are reported, not read; links
    to folders are followed once (a link back into a folder already walked is a loop, reported)."""
    seen: set[tuple[int, int]] = set()

    def visit(folder: str) -> None:
        try:
            st = os.stat(folder)
        except OSError as exc:
            out.append(Skipped(folder, f"cannot list folder ({exc.strerror or exc}): not read"))
            return
        key = (st.st_dev, st.st_ino)
        if key in seen:
            out.append(Skipped(folder, "symbolic link loop (a folder already read): not read again"))
            return
        seen.add(key)
        try:
            names = sorted(os.listdir(folder))
        except OSError as exc:
            out.append(Skipped(folder, f"cannot list folder ({exc.strerror or exc}): its files are not read"))
            return
        subdirs = []
        for n in names:
            p = os.path.join(folder, n)
            if n.startswith("."):   # editor swap files, .git, .DS_Store: listed, not read
                out.append(Skipped(p, "hidden (its name starts with '.'): not read"))
                continue
            e = _entry(p)
            if e == "dir":
                subdirs.append(p)
            else:
                out.append(e)    # type: ignore[arg-type]
        for d in subdirs:
            visit(d)

    visit(top)


def expand(arg: str) -> list[Listed | Skipped]:
    """The files one INPUT argument names (a file, a folder read recursively, or a glob)."""
    path = arg[len("file://"):] if arg.startswith("file://") else arg
    if any(c in path for c in _GLOB_CHARS):
        import glob

        matches = sorted(glob.glob(path, recursive=True))
        if not matches:
            raise InputError(f"no files match {arg!r}")
    elif os.path.lexists(path):
        matches = [path]
    else:
        raise InputError(f"input not found: {arg}")
    out: list[Listed | Skipped] = []
    for m in matches:
        e = _entry(m)
        if e == "dir":
            _walk(m, out)
        else:
            out.append(e)    # type: ignore[arg-type]
    if not out:
        raise InputError(f"no files found under {arg!r}")
    return out


def compression(path: str) -> str | None:
    """The kind of compressed data the file holds by content (gzip, bzip2, xz, zstd:
    parsers/gzip_stream.compression_of), whatever the name says; None for plain text."""
    try:
        with open(path, "rb") as f:
            return compression_of(f.read(6))
    except OSError:
        return None


def read_head(path: str, limit: int) -> tuple[bytes, str | None, str | None]:
    """Up to `limit` bytes of the file's text (decompressed when it is compressed by content), its
    compression (or None), and a problem: a truncated or corrupt stream yields the lines before the
    damage, with the problem saying so (parsers/gzip_stream.py; the ingest's scanner and `parse`
    read the rest of the file the same way)."""
    with open(path, "rb") as f:
        first = f.read(6)
        kind = compression_of(first)
        if kind is None:
            return first + f.read(max(limit - 6, 0)), None, None
        f.seek(0)
        raw = TolerantGzip(f, kind)
        out = bytearray()
        buf = bytearray(1 << 16)
        while len(out) < limit:
            n = raw.readinto(buf)
            if not n:
                break
            out += buf[:n]
        return bytes(out[:limit]), kind, raw.problem


def head_lines(path: str, limit: int, stats: dict[str, Any] | None = None) -> list[str]:
    """The first `limit` lines as `parse` reads them, by its own line reader (reader.numbered_lines:
    compression by content, a UTF-8 byte order mark off, bad UTF-8 replaced, a line over MAX_LINE cut
    and the rest of it skipped, NUL runs read as line ends), so the ingest sniffs the format from the
    same lines as `parse`, whatever a long first line or a leading hole of NUL bytes holds. `stats`
    receives the reader's counts (`binary_nul`: the NUL bytes look like a binary file's,
    parsers/nul_runs.py)."""
    from parsers import reader  # (the reader's import is the cost of parsing, not of listing files)

    text, _compressed = reader.open_text(path)
    with text:
        return [t for _, t in itertools.islice(reader.numbered_lines(text, {} if stats is None else stats), limit)]


def fingerprint(path: str, size: int) -> str:
    """Size + hash of the first and last MiB: a quick test for copies (confirmed by same_content)."""
    import hashlib  # (here: loading OpenSSL's hashes is ~10 M instructions of a one-file run)

    h = hashlib.sha256(str(size).encode())
    with open(path, "rb") as f:
        h.update(f.read(FINGERPRINT_BYTES))
        if size > FINGERPRINT_BYTES:
            f.seek(max(FINGERPRINT_BYTES, size - FINGERPRINT_BYTES))
            h.update(f.read(FINGERPRINT_BYTES))
    return h.hexdigest()


def same_content(a: str, b: str) -> bool:
    """Byte-for-byte equality (two files agreeing on their first and last MiB may still differ)."""
    import filecmp

    try:
        return filecmp.cmp(a, b, shallow=False)
    except OSError:
        return False


class Duplicates:
    """Finds files already read: the same file under another path (same device and inode) or
    another file with byte-identical content. `of(path, size)` -> the earlier path, or None.
    Only files of the same size can be copies: a file's fingerprint is made when a second file of
    its size comes (a run of files of distinct sizes, e.g. one file, reads none of them here)."""

    def __init__(self) -> None:
        self._by_inode: dict[tuple[int, int], str] = {}
        self._by_size: dict[int, list[str]] = {}  # the paths seen (not copies), by size
        self._prints: dict[str, str | None] = {}  # path -> fingerprint, None if it could not be read

    def of(self, path: str, size: int) -> str | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        key = (st.st_dev, st.st_ino)
        if key in self._by_inode:
            return self._by_inode[key]
        self._by_inode[key] = path
        same_size = self._by_size.get(size)
        if same_size:
            fp = self._print(path, size)
            if fp is None:
                return None
            for earlier in same_size:
                if self._print(earlier, size) == fp and same_content(earlier, path):
                    return earlier
        self._by_size.setdefault(size, []).append(path)
        return None

    def _print(self, path: str, size: int) -> str | None:
        if path not in self._prints:
            try:
                self._prints[path] = fingerprint(path, size)
            except OSError:
                self._prints[path] = None
        return self._prints[path]


def under(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or lies inside it (after resolving links)."""
    p, f = os.path.realpath(path), os.path.realpath(folder)
    return p == f or p.startswith(f.rstrip(os.sep) + os.sep)
