"""coordscope parsers: log lines and dumps -> typed coordination events (pure Python, no JVM)."""

from parsers.reader import (
    CANDIDATE_REGEX,
    FileFormat,
    FileSummary,
    LineOutcome,
    parse_lines,
    parse_path,
    parse_stream,
    sniff,
)

__all__ = ["CANDIDATE_REGEX", "FileFormat", "FileSummary", "LineOutcome", "parse_lines", "parse_path", "parse_stream", "sniff"]
