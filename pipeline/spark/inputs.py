"""Expanding INPUT arguments (files, directories, globs; local or Hadoop URIs) into the files to read.

Runs on the driver and touches only file metadata plus the first bytes of each file (for the
content fingerprint and the format sniff), so its cost grows with the number of files, never with
their size. Local paths are handled with the standard library; `scheme://` URIs go through the
Hadoop FileSystem of the Spark session (hdfs://, s3a://, ... wherever the deployment has them).
"""

from __future__ import annotations

import glob
import gzip
import hashlib
import os
import re
from dataclasses import dataclass, field

_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_GLOB_CHARS = re.compile(r"[*?\[{]")
FINGERPRINT_BYTES = 1 << 20       # head and tail hashed for duplicate detection
SNIFF_LINES = 200                  # parsers.sniff looks at no more than this
SNIFF_BYTES = 256 * 1024           # ... and we never read more than this per file for it
BINARY_PROBE = 8192


class InputError(Exception):
    """An INPUT argument names nothing readable (one clear line for the user)."""


@dataclass
class InputFile:
    source: str                # the path as the user named it (events.source)
    uri: str                   # what Spark reads (qualified)
    size: int
    gz: bool
    fingerprint: str | None = None
    duplicate_of: str | None = None
    kind: str = "log"          # parsers.FileFormat.kind
    layout: str = "n/a"
    wrappers: tuple[str, ...] = ()   # parsers.FileFormat.wrappers: prefixes/suffixes on every line
    problems: list[str] = field(default_factory=list)
    head: list[str] = field(default_factory=list, repr=False)   # first lines, for sniffing only
    spath: str | None = None   # the file as Spark names it in _metadata.file_path

    @property
    def readable(self) -> bool:
        """Lines of this file go through the Spark scan."""
        return self.duplicate_of is None and self.kind not in ("empty", "binary", "document") and self.size > 0


def is_uri(path: str) -> bool:
    return bool(_URI.match(path)) and not path.startswith("file://")


def _local_expand(arg: str) -> list[str]:
    path = arg[len("file://"):] if arg.startswith("file://") else arg
    if _GLOB_CHARS.search(path):
        matches = sorted(glob.glob(path, recursive=True))
        if not matches:
            raise InputError(f"no files match {arg!r}")
    elif os.path.exists(path):
        matches = [path]
    else:
        raise InputError(f"input not found: {arg}")
    files: list[str] = []
    for m in matches:
        if os.path.isdir(m):
            for root, dirs, names in os.walk(m):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                files.extend(os.path.join(root, n) for n in sorted(names) if not n.startswith("."))
        elif os.path.isfile(m):
            files.append(m)
    if not files:
        raise InputError(f"no files found under {arg!r}")
    return files


def _is_gz(path: str) -> bool:
    return path.lower().endswith(".gz")


def _read_head_local(path: str, gz: bool) -> bytes:
    opener = gzip.open if gz else open
    try:
        with opener(path, "rb") as f:
            return f.read(SNIFF_BYTES)
    except (OSError, EOFError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from exc


def _fingerprint_local(path: str, size: int) -> str:
    """Size + hash of the first and last MiB: equal for byte-identical copies, cheap for big files."""
    h = hashlib.sha256(str(size).encode())
    with open(path, "rb") as f:
        h.update(f.read(FINGERPRINT_BYTES))
        if size > FINGERPRINT_BYTES:
            f.seek(max(FINGERPRINT_BYTES, size - FINGERPRINT_BYTES))
            h.update(f.read(FINGERPRINT_BYTES))
    return h.hexdigest()


def head_lines(data: bytes, limit: int = SNIFF_LINES) -> list[str]:
    text = data.decode("utf-8", errors="replace")
    lines = text.splitlines()
    if data and len(data) >= SNIFF_BYTES and lines:
        lines = lines[:-1]    # the last one may be cut by the byte limit
    return lines[:limit]


_CONTROL = bytes([*range(0, 9), *range(14, 32)])


def looks_binary(data: bytes) -> str | None:
    """A reason when the first bytes are not text (NUL bytes or mostly control characters)."""
    probe = data[:BINARY_PROBE]
    if not probe:
        return None
    if b"\x00" in probe:
        return "binary file (NUL bytes in the first 8 KiB)"
    control = len(probe) - len(probe.translate(None, _CONTROL))   # deleted in C, not counted in a loop
    if control > len(probe) * 0.3:
        return "binary file (mostly control characters in the first 8 KiB)"
    return None


def looks_like_document(lines: list[str], name: str = "") -> str | None:
    """A reason when the file is a document rather than a log: Markdown (READMEs beside the logs),
    or pretty-printed JSON (JSON-lines logs hold one object per line; a lone '{' or '[' first line
    followed by indented keys is not that)."""
    if name.lower().endswith((".md", ".markdown")):
        return "a Markdown document, not a log"
    body = [ln for ln in lines[:5] if ln.strip()]
    if len(body) >= 2 and body[0].strip() in ("{", "[") and body[1][:1].isspace():
        return "a JSON document, not a log (JSON-lines logs have one object per line)"
    return None


def expand_local(args: list[str]) -> list[InputFile]:
    out: list[InputFile] = []
    for arg in args:
        for path in _local_expand(arg):
            out.append(InputFile(source=path, uri=os.path.abspath(path), size=os.path.getsize(path), gz=_is_gz(path)))
    return out


def expand_remote(spark, arg: str) -> list[InputFile]:
    """A Hadoop URI (hdfs://, s3a://, ...): glob or directory listing through the session's FileSystem."""
    jvm = spark._jvm
    conf = spark._jsc.hadoopConfiguration()
    hpath = jvm.org.apache.hadoop.fs.Path(arg)
    try:
        fs = hpath.getFileSystem(conf)
        statuses = fs.globStatus(hpath)
    except Exception as exc:  # py4j wraps the Java exception; its first line is the useful part
        raise InputError(f"cannot list {arg}: {str(exc).splitlines()[0][:300]}") from exc
    if statuses is None or len(statuses) == 0:
        raise InputError(f"no files match {arg!r}" if _GLOB_CHARS.search(arg) else f"input not found: {arg}")
    out: list[InputFile] = []
    for st in statuses:
        if st.isDirectory():
            it = fs.listFiles(st.getPath(), True)
            while it.hasNext():
                f = it.next()
                name = f.getPath().getName()
                if not name.startswith((".", "_")):
                    p = f.getPath().toString()
                    out.append(InputFile(source=p, uri=p, size=int(f.getLen()), gz=_is_gz(p)))
        else:
            p = st.getPath().toString()
            out.append(InputFile(source=p, uri=p, size=int(st.getLen()), gz=_is_gz(p)))
    if not out:
        raise InputError(f"no files found under {arg!r}")
    return out


def _read_head_remote(spark, f: InputFile) -> bytes:
    jvm = spark._jvm
    conf = spark._jsc.hadoopConfiguration()
    hpath = jvm.org.apache.hadoop.fs.Path(f.uri)
    fs = hpath.getFileSystem(conf)
    stream = fs.open(hpath)
    try:
        if f.gz:
            codec = jvm.org.apache.hadoop.io.compress.CompressionCodecFactory(conf).getCodec(hpath)
            stream = codec.createInputStream(stream)
        return bytes(jvm.org.apache.commons.io.IOUtils.toByteArray(stream, SNIFF_BYTES if f.size > SNIFF_BYTES else f.size))
    finally:
        stream.close()


def expand(args: list[str], spark_getter) -> list[InputFile]:
    """Every file named by the arguments, deduplicated by path, in argument order.

    `spark_getter()` is called only when a Hadoop URI needs listing (local runs stay JVM-free here).
    """
    files: list[InputFile] = []
    for arg in args:
        files.extend(expand_remote(spark_getter(), arg) if is_uri(arg) else expand_local([arg]))
    seen: set[str] = set()
    unique: list[InputFile] = []
    for f in files:
        key = f.uri if is_uri(f.uri) else os.path.realpath(f.uri)
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique


def inspect(files: list[InputFile], spark_getter) -> None:
    """Fill fingerprint (duplicates), binary/empty kind and the head lines used for sniffing."""
    by_print: dict[str, str] = {}
    for f in files:
        remote = is_uri(f.uri)
        if f.size == 0:
            f.kind = "empty"
            continue
        try:
            data = _read_head_remote(spark_getter(), f) if remote else _read_head_local(f.uri, f.gz)
        except InputError as exc:
            f.kind, f.problems = "binary", [str(exc)]
            continue
        except Exception as exc:  # remote read errors
            f.kind, f.problems = "binary", [f"cannot read {f.source}: {str(exc).splitlines()[0][:300]}"]
            continue
        if not remote:
            f.fingerprint = _fingerprint_local(f.uri, f.size)
            if f.fingerprint in by_print:
                f.duplicate_of = by_print[f.fingerprint]
                continue
            by_print[f.fingerprint] = f.source
        if not data:
            f.kind = "empty"
            continue
        reason = looks_binary(data)
        if reason:
            f.kind, f.problems = "binary", [reason]
            continue
        f.head = head_lines(data)
        reason = looks_like_document(f.head, f.source)
        if reason:
            f.kind, f.problems, f.head = "document", [reason], []
