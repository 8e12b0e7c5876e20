"""Expanding INPUT arguments (files, directories, globs; local or Hadoop URIs) into the files to read.

Runs on the driver and touches only file metadata plus the first bytes of each file (for the
content fingerprint and the format sniff), so its cost grows with the number of files, never with
their size. Local paths are handled with the standard library; `scheme://` URIs go through the
Hadoop FileSystem of the Spark session (hdfs://, s3a://, ... wherever the deployment has them).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from parsers import nul_runs
from parsers.gzip_stream import EXTENSION, archive_note, archive_of
from pipeline import input_files
from pipeline.input_files import InputError

_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_GLOB_CHARS = re.compile(r"[*?\[{]")
SNIFF_LINES = 200                  # parsers.sniff looks at no more than this
SNIFF_BYTES = 256 * 1024           # ... and we never read more than this per remote file for it
BINARY_PROBE = 8192


@dataclass
class InputFile:
    source: str                # the path as the user named it (events.source)
    uri: str                   # what Spark reads (qualified)
    size: int
    compression: str | None    # gzip, bzip2, xz, zstd by content (parsers/gzip_stream.py), None for text
    fingerprint: str | None = None
    duplicate_of: str | None = None
    kind: str = "log"          # parsers.FileFormat.kind, or "skipped" (not a readable file: problems say why)
    layout: str = "n/a"
    wrappers: tuple[str, ...] = ()   # parsers.FileFormat.wrappers: prefixes/suffixes on every line
    problems: list[str] = field(default_factory=list)
    head: list[str] = field(default_factory=list, repr=False)   # first lines, for sniffing only
    spath: str | None = None   # the file as Spark names it in _metadata.file_path
    read_uri: str | None = None   # what Spark opens when not `uri`: a link whose name tells the
                                  # content's compression (gzip without a .gz name, or the reverse),
                                  # or xz / zstd data decompressed on the driver (ON_DRIVER)
    read_size: int | None = None  # the size of what Spark opens when it is such a decompressed copy
    utf16: bool = False        # UTF-16 text with its byte order mark (read through a UTF-8 copy)

    @property
    def readable(self) -> bool:
        """Lines of this file go through the Spark scan."""
        return (self.duplicate_of is None and self.kind not in ("empty", "binary", "document", "skipped")
                and self.size > 0)

    @property
    def scan_size(self) -> int:
        """The bytes the scan reads (its splits are planned on them)."""
        return self.size if self.read_size is None else self.read_size

    @property
    def compressed(self) -> bool:
        return self.compression is not None

    @property
    def name_says(self) -> str | None:
        """The compression the file's name tells Hadoop (its codec by extension), or None."""
        return _compression_by_name(self.uri)


def is_uri(path: str) -> bool:
    return bool(_URI.match(path)) and not path.startswith("file://")


def _compression_by_name(path: str) -> str | None:
    low = path.lower()
    return next((kind for kind, ext in EXTENSION.items() if low.endswith(ext)), None)


def head_lines(data: bytes, limit: int = SNIFF_LINES) -> list[str]:
    text = nul_runs.as_line_ends(data.decode("utf-8-sig", errors="replace"))   # (a UTF-8 BOM off, as parse)
    lines = text.splitlines()
    if data and len(data) >= SNIFF_BYTES and len(lines) > 1:
        lines = lines[:-1]    # the last one may be cut by the byte limit (a lone first line is
                              # kept, cut: a file whose first line is longer than that is not empty)
    return lines[:limit]


_CONTROL = bytes([*range(0, 9), *range(14, 32)])


def looks_binary(data: bytes) -> str | None:
    """A reason when the first bytes are not text (NUL bytes in many runs, or mostly control
    characters), after the NUL bytes a file may start with (parsers/nul_runs.py: a copy-truncate's
    hole; one or two zero-filled blocks are read as line ends)."""
    probe = nul_runs.probe_after_padding(data)
    if not probe:
        return None
    if nul_runs.too_many_runs(probe):
        return "binary file (NUL bytes in many runs in the first 8 KiB)"
    probe = probe.replace(b"\x00", b"")   # (their runs are judged above)
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
        if any(_RECORD_MESSAGE.match(ln) for ln in lines):
            # pretty-printed log records, which `coordscope parse` reads (reader._json_record): Log4j 2
            # JsonLayout compact=false, `jq .` of JSON lines, `gcloud logging read --format=json`,
            # awscli `logs filter-log-events`, Datadog's Logs API response
            return None
        return "a JSON document, not a log (JSON-lines logs have one object per line)"
    return None


# an indented field holding a log record's text as a string: the message fields parsers.layouts reads
# (_JSON_MSG_KEYS, _JSON_LINE_KEYS) and Datadog's/OTLP's names for it
_RECORD_MESSAGE = re.compile(
    r'\s+"(?:message|msg|@message|text|short_message|log|MESSAGE|textPayload|content|body)"\s*:\s*"')


def expand_local(args: list[str]) -> list[InputFile]:
    """Every entry the arguments name (pipeline/input_files.py): the files to read, and the
    entries that are not read as "skipped" with their reason."""
    out: list[InputFile] = []
    for arg in args:
        for e in input_files.expand(arg):
            if isinstance(e, input_files.Skipped):
                out.append(InputFile(source=e.path, uri=os.path.abspath(e.path), size=0, compression=None,
                                     kind="skipped", problems=[e.reason]))
            else:
                out.append(InputFile(source=e.path, uri=os.path.abspath(e.path), size=e.size,
                                     compression=input_files.compression(e.path)))
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
                    out.append(InputFile(source=p, uri=p, size=int(f.getLen()), compression=_compression_by_name(p)))
        else:
            p = st.getPath().toString()
            out.append(InputFile(source=p, uri=p, size=int(st.getLen()), compression=_compression_by_name(p)))
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
        if f.compressed:
            codec = jvm.org.apache.hadoop.io.compress.CompressionCodecFactory(conf).getCodec(hpath)
            stream = codec.createInputStream(stream)
        return bytes(jvm.org.apache.commons.io.IOUtils.toByteArray(stream, SNIFF_BYTES if f.size > SNIFF_BYTES else f.size))
    finally:
        stream.close()


def expand(args: list[str], spark_getter) -> list[InputFile]:
    """Every entry named by the arguments, in argument order; a file named twice is kept twice
    (inspect marks the second a duplicate, so the manifest says where it went).

    `spark_getter()` is called only when a Hadoop URI needs listing (local runs stay JVM-free here).
    """
    files: list[InputFile] = []
    for arg in args:
        files.extend(expand_remote(spark_getter(), arg) if is_uri(arg) else expand_local([arg]))
    return files


def inspect(files: list[InputFile], spark_getter) -> None:
    """Mark duplicates (the same file twice, or byte-identical content), binary/empty kinds, and
    keep the head lines used for sniffing."""
    dups = input_files.Duplicates()
    seen_remote: dict[str, str] = {}
    for f in files:
        if f.kind == "skipped":
            continue
        remote = is_uri(f.uri)
        if remote:
            if f.uri in seen_remote:
                f.duplicate_of = seen_remote[f.uri]
                continue
            seen_remote[f.uri] = f.source
        if f.size == 0:
            f.kind = "empty"
            continue
        if not remote:
            f.duplicate_of = dups.of(f.uri, f.size)
            if f.duplicate_of is not None:
                continue
        try:
            if remote and f.compression in ON_DRIVER:
                f.kind, f.problems = "skipped", [
                    f"{f.compression} data on remote storage: {ON_DRIVER[f.compression]}; not read (decompress it, "
                    f"or read a local copy: the ingest decompresses local {f.compression} files, `coordscope parse` "
                    "reads them)"]
                continue
            if remote:
                data = _read_head_remote(spark_getter(), f)
            else:
                data, f.compression, problem = input_files.read_head(f.uri, BINARY_PROBE)
                if problem:
                    f.problems.append(problem)
        except OSError as exc:
            f.kind, f.problems = "skipped", [f"cannot read ({exc.strerror or exc}): not read"]
            continue
        except Exception as exc:  # remote read errors
            f.kind, f.problems = "skipped", [f"cannot read {f.source}: {str(exc).splitlines()[0][:300]}"]
            continue
        if not data:
            f.kind = "empty"
            continue
        if not remote and data[:2] in UTF16_BOMS:
            # UTF-16 with its byte order mark (Windows PowerShell 5's `>`): `parse` reads it
            # (reader._encoding); the scanner reads UTF-8, so link_by_content writes it as UTF-8
            f.utf16 = True
            data = data.decode("utf-16", errors="replace").encode("utf-8")
        archive = archive_of(data[:512])
        reason = archive_note(archive) if archive else looks_binary(data)
        if reason:
            f.kind, f.problems = "binary", [reason]
            continue
        # the lines `parse` sniffs (a long first line is cut, not allowed to hide the next ones)
        stats: dict = {}
        f.head = head_lines(data) if remote else input_files.head_lines(f.uri, SNIFF_LINES, stats)
        if stats.get("binary_nul"):   # NUL bytes in many runs after a leading hole (parsers/nul_runs.py)
            f.kind, f.problems, f.head = "binary", ["binary file (NUL bytes in many runs after its leading NUL bytes)"], []
            continue
        reason = looks_like_document(f.head, f.source)
        if reason:
            f.kind, f.problems, f.head = "document", [reason], []


UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")

# compressions the executors cannot read, decompressed on the driver into the temporary RUN_DIR: why
ON_DRIVER = {"xz": "Hadoop has no xz codec",
             "zstd": "Hadoop's zstd codec needs a native libhadoop built with zstd, which Spark's bundled one lacks"}

INPUT_LINKS = "_inputs"   # inside the temporary RUN_DIR; removed before it is renamed into place


def link_by_content(files: list[InputFile], tmp_dir: str) -> list[str]:
    """Spark picks a file's codec by its name. A local file whose name says otherwise than its
    content (gzip or bzip2 data without that extension, plain text named .gz) is read through a
    symbolic link in the temporary RUN_DIR whose name tells the truth; xz and zstd data, which the
    executors cannot read (ON_DRIVER), is decompressed there on the driver (as `parse` reads it,
    parsers/gzip_stream.py).
    `source` stays the user's path. Returns a note per such file."""
    notes = []
    for i, f in enumerate(files):
        if not f.readable or is_uri(f.uri) or (
                f.compression == f.name_says and f.compression not in ON_DRIVER and not f.utf16):
            continue
        folder = os.path.join(tmp_dir, INPUT_LINKS)
        os.makedirs(folder, exist_ok=True)
        base = os.path.basename(f.uri)
        stem = base[: -len(EXTENSION[f.name_says])] if f.name_says else base
        if f.utf16:
            target = os.path.join(folder, f"{i:06d}-{stem}.txt")
            problem = _as_utf8(f.uri, target)
            f.read_uri, f.read_size = target, os.path.getsize(target)
            what = ("UTF-16 text: written as UTF-8 on the driver for the scan (which reads UTF-8), as `parse` "
                    "reads it" + (f"; {problem}" if problem else ""))
        elif f.compression in ON_DRIVER:
            target = os.path.join(folder, f"{i:06d}-{stem}.txt")
            problem = _decompress(f.uri, target, f.compression)
            f.read_uri, f.read_size = target, os.path.getsize(target)
            what = (f"{f.compression} data: decompressed on the driver ({ON_DRIVER[f.compression]})"
                    + (f"; {problem}" if problem else ""))
        else:
            ext = EXTENSION[f.compression] if f.compression else ".txt"
            link = os.path.join(folder, f"{i:06d}-{stem}{ext}")
            os.symlink(os.path.realpath(f.uri), link)
            f.read_uri = link
            what = (f"{f.compression} data without a {ext} name: read as {f.compression}" if f.compression
                    else f"named {EXTENSION[f.name_says]} but not {f.name_says} data: read as text")
        f.problems.append(what)
        notes.append(f"{f.source}: {what}")
    return notes


def _as_utf8(path: str, target: str) -> str | None:
    """Write the text of UTF-16 file `path` (decompressed if it is) to `target` as UTF-8, as `parse`
    reads it (parsers/reader.open_text: line ends \n, the byte order mark off); the problem, if its
    compressed data was cut or corrupt."""
    import shutil

    from parsers import reader

    text, _compressed = reader.open_text(path)
    with text, open(target, "w", encoding="utf-8", newline="\n") as out:
        shutil.copyfileobj(text, out, 1 << 20)
        raw = getattr(getattr(text, "buffer", None), "raw", None)
        return getattr(raw, "problem", None)


def _decompress(path: str, target: str, kind: str) -> str | None:
    """Write the text of compressed file `path` to `target`, as far as the data goes (the lines
    before any damage, as `parse` reads them); the problem, if the data was cut or corrupt."""
    import shutil

    from parsers.gzip_stream import TolerantGzip

    with open(path, "rb") as raw, TolerantGzip(raw, kind) as stream, open(target, "wb") as out:
        shutil.copyfileobj(stream, out, 1 << 20)
        return stream.problem
