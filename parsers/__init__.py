"""coordscope parsers: log lines and dumps -> typed coordination events (pure Python, no JVM).

The public names below come from parsers.reader, imported on first use (PEP 562 `__getattr__`):
`import parsers.timestamps` or `from parsers import events` then loads only what it names, not the
reader with every rule table (docs/parsers.md, "Start-up: what is loaded when").
"""

from typing import Any

__all__ = ["CANDIDATE_REGEX", "FileFormat", "FileSummary", "LineOutcome", "parse_lines", "parse_path", "parse_stream", "sniff"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from parsers import reader

        value = getattr(reader, name)
        globals()[name] = value  # later lookups are plain module attributes
        return value
    raise AttributeError(f"module 'parsers' has no attribute {name!r}")


def _install_compiled() -> None:
    # the compiled build of the hot modules, where one matches its .py (parsers/_accel.py)
    from parsers import _accel

    _accel.install()


_install_compiled()
