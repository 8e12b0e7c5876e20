"""Runs of NUL bytes inside a text log: read as line ends, counted, and told apart from binary files.

Why: two everyday accidents leave zero-filled bytes in a log that is otherwise text, and a file
holding them was rejected whole as "binary" (every coordinator line in it lost):
- a copy-truncate rotation (logrotate `copytruncate`) of a file its writer keeps open without
  O_APPEND: the writer's next write lands at its old offset, so the truncated file starts with
  that many NUL bytes (a hole) before the new lines. Kafka's own start scripts redirect the
  console with `>` (bin/kafka-run-class.sh, `nohup ... > "$CONSOLE_OUTPUT_FILE"`), so
  kafkaServer.out rotated this way is one such file; so is any `app > app.log` with copytruncate;
- a crash or power loss after a file grew but before its data blocks were written (delayed
  allocation on ext4 / XFS): a zero-filled block inside the file, often in the middle of a line,
  with the restarted process's lines appended after it.

The rule, the same in `coordscope parse` (reader._numbered_chunks) and in the ingest's scanner
(pipeline/spark/jvm/SplitScanner.java): a run of NUL bytes ends a line, as a line break does, and
one line break right after the run belongs to it (so `text<NULs>\\n` stays one line). The text
before and after the run is read; the NUL bytes are counted and named in the file's notes. The
rule needs no look-ahead or look-behind beyond the next byte, so a file split anywhere for Spark
gives the same lines as the whole file.

A binary file (a jar, an archive, a core dump) holds NUL bytes in many short runs among other
control bytes: more than BINARY_NUL_RUNS runs in the first BINARY_PROBE bytes after any leading
padding still make a file binary.
"""

from __future__ import annotations

import re

BINARY_PROBE = 8192
BINARY_NUL_RUNS = 4

# a run of NUL characters and the one line break that may follow it (text read with newline=None:
# \r\n and \r are already \n)
NUL_RUN_END = re.compile("\x00+\n?")
_NUL_RUN = re.compile("\x00+")
_NUL_RUN_BYTES = re.compile(b"\x00+")


def as_line_ends(text: str) -> str:
    """`text` with each NUL run (and a line break right after it) made one line break."""
    return NUL_RUN_END.sub("\n", text) if "\x00" in text else text


def runs(text: str) -> int:
    return len(_NUL_RUN.findall(text))


def probe_after_padding(data: bytes) -> bytes:
    """The first BINARY_PROBE bytes after the NUL bytes a file starts with (a copy-truncate's hole)."""
    return data.lstrip(b"\x00")[:BINARY_PROBE]


def too_many_runs(probe: bytes | str) -> bool:
    """Whether a file's first bytes after its leading padding hold NUL bytes the way a binary file
    does (many separate runs), rather than as one or two zero-filled blocks."""
    found = _NUL_RUN_BYTES.findall(probe) if isinstance(probe, bytes) else _NUL_RUN.findall(probe)
    return len(found) > BINARY_NUL_RUNS


def note(source: str, nul_bytes: int, nul_runs: int) -> str:
    return (f"{source}: {nul_bytes} NUL byte(s) in {nul_runs} run(s), each read as a line end (zero-filled "
            "bytes a crash or a copy-truncate rotation leaves in a log); the text around them is read")
