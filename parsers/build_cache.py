"""What the parsers derive from their own sources at start-up, kept between processes.

Every `coordscope parse` (and every Spark worker) starts by compiling ~1,200 rule regexes and
generating ~460 rule decoders from the catalog and the grammars: about 0.2 CPU-seconds, a fifth of
what parsing 100,000 lines costs. None of it depends on the input, so this module keeps the results
in a per-user cache file, the way CPython keeps `.pyc` files:

* `compile_regex(pattern, flags)`: the regex program `re` would compile (its `sre` code words, group
  names and flags), rebuilt with `_sre.compile`. A cached Pattern equals the one `re.compile` makes
  (Pattern equality compares the code; tests/parsers/test_build_cache.py checks every rule).
* `compile_code(source, name)`: the code object `compile()` makes of a generated source text.
* `derived(name, key, build)`: plain data (str, int, tuples, lists, dicts) computed from a source
  file, e.g. the broker grammar's regexes (parsers/lark_regex.py), keyed by that file's text.

Entries are keyed by their own source text (a pattern, a generated function, a grammar file's
hash), so a changed rule is simply a new key: nothing stale is ever read. The file is keyed by the
interpreter (`sys.version`, the `sre` code format), since the code words are specific to it.
Anything unexpected (no cache directory, an unreadable or corrupt file, another user's directory)
means compiling as if there were no cache. The cache is written once, when the process ends, and
only if something was added. `COORDSCOPE_NO_CACHE=1` turns it off; `COORDSCOPE_CACHE_DIR` moves it
(default `$XDG_CACHE_HOME/coordscope` or `~/.cache/coordscope`).
"""

from __future__ import annotations

import atexit
import marshal
import os
import re
import sys
import threading
import zlib
from array import array
from collections.abc import Callable
from typing import Any

try:  # the regex program format: CPython's own, checked below before any use
    import _sre
    from re import _compiler, _parser
except ImportError:  # pragma: no cover - other interpreters
    _sre = None  # type: ignore[assignment]

MAX_ENTRIES = 40_000  # past this (many checkouts, edited rules) only what this process used is kept
_INTERPRETER = repr((sys.version, sys.implementation.cache_tag, getattr(_sre, "MAGIC", None),
                     getattr(_sre, "CODESIZE", None), marshal.version))
# (two zlib checksums, not hashlib: importing hashlib loads OpenSSL, ~10 M instructions of every
# process's start; the file itself holds _INTERPRETER, checked on load, so a tag collision is harmless)
_TAG = f"{zlib.crc32(_INTERPRETER.encode()):08x}{zlib.adler32(_INTERPRETER.encode()):08x}"
# a regex program is kept as the bytes of its code words (an `array` of the interpreter's code
# size), not as a list of ints: marshal then loads the ~1,300 programs as ~1,300 byte strings
# instead of ~800,000 int objects (the 3.7 MB file in 3 ms instead of 20 ms). The format is part
# of the file name, so a checkout writing the older list format never reads these entries.
_FORMAT = "b1"
# the regex path mirrors re._compiler.compile (CPython 3.11-3.13); elsewhere re.compile is used
# the array type whose items are sre code words (CODESIZE bytes, unsigned)
_CODE_TYPE = next((t for t in "IL" if _sre is not None and array(t).itemsize == getattr(_sre, "CODESIZE", 0)), "")
_SRE_OK = bool(_CODE_TYPE) and (_sre is not None and sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] <= (3, 13)
           and hasattr(_compiler, "_code") and hasattr(_parser, "parse"))

_lock = threading.Lock()
_tables: dict[str, Any] | None = None  # {"regex": {...}, "code": {...}, "data": {...}}, or _OFF
_OFF: dict[str, Any] = {}  # the tables of a process with the cache turned off (never written)
_dirty = False
_used: set[tuple[str, Any]] = set()  # (table, key) asked for by this process


def cache_dir() -> str | None:
    if os.environ.get("COORDSCOPE_NO_CACHE"):
        return None
    d = os.environ.get("COORDSCOPE_CACHE_DIR")
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "coordscope")
    return d


def _path() -> str | None:
    d = cache_dir()
    return None if d is None else os.path.join(d, f"derived-{_FORMAT}-{_TAG}.marshal")


def _trusted(path: str) -> bool:
    """Only a file of this user, in a directory of this user that nobody else may write to (the file
    holds code objects: it must not be someone else's)."""
    if not hasattr(os, "getuid"):
        return True
    try:
        for p in (os.path.dirname(path), path):
            st = os.stat(p)
            if st.st_uid != os.getuid() or st.st_mode & 0o022:
                return False
    except OSError:
        return False
    return True


def _load() -> dict[str, Any]:
    global _tables
    if _tables is not None:
        return _tables
    path = _path()
    if path is None:  # COORDSCOPE_NO_CACHE: decided once per process, like the file's place
        _tables = _OFF
        return _OFF
    tables: dict[str, Any] = {"regex": {}, "code": {}, "data": {}}
    if os.path.exists(path) and _trusted(path):
        try:
            with open(path, "rb") as fh:
                stored = marshal.loads(fh.read())
            if (type(stored) is tuple and len(stored) == 2 and stored[0] == _INTERPRETER
                    and type(stored[1]) is dict and set(stored[1]) == set(tables)
                    and all(type(t) is dict for t in stored[1].values())):
                tables = stored[1]
        except (OSError, EOFError, ValueError, TypeError):
            pass
    _tables = tables
    return tables


def _save() -> None:
    """Write the tables if this process added to them (atexit): to a temporary file renamed over
    the old one, so a reader never sees half a file (several workers may end at once)."""
    global _dirty
    if not _dirty or not _tables:
        return
    _dirty = False
    path = _path()
    if path is None:
        return
    d = os.path.dirname(path)
    try:
        os.makedirs(d, mode=0o700, exist_ok=True)
        if not _trusted(d + os.sep + "."):
            return
        tables = _tables
        if sum(len(t) for t in tables.values()) > MAX_ENTRIES:  # start afresh with what this process used
            tables = {name: {k: v for k, v in t.items() if (name, k) in _used} for name, t in tables.items()}
        data = marshal.dumps((_INTERPRETER, tables))
        import tempfile  # (here: most processes add nothing and never write)

        fd, tmp = tempfile.mkstemp(prefix=".derived-", dir=d)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except (OSError, ValueError):
        pass  # a read-only home, a full disk: the next process compiles again


atexit.register(_save)


def _added(table: str, key: Any, value: Any) -> None:
    global _dirty
    with _lock:
        _load()[table][key] = value
        _dirty = True


def compile_regex(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """re.compile(pattern, flags), the program taken from the cache when this interpreter compiled
    the same pattern before."""
    flags = int(flags)
    tables = _tables if _tables is not None else _load()
    if not _SRE_OK or type(pattern) is not str or flags & re.DEBUG or tables is _OFF:
        return re.compile(pattern, flags)
    key = (pattern, flags)
    _used.add(("regex", key))
    entry = tables["regex"].get(key)
    if entry is not None:
        try:
            code = array(_CODE_TYPE, entry[1]).tolist()
            return _sre.compile(pattern, entry[0], code, *entry[2:])  # type: ignore[no-any-return]
        except (TypeError, ValueError, RuntimeError, OverflowError, IndexError):  # not this interpreter's program
            pass
    # what re._compiler.compile does, keeping the parts _sre.compile takes
    p = _parser.parse(pattern, flags)
    code = _compiler._code(p, flags)
    groupindex = dict(p.state.groupdict)
    indexgroup = [None] * p.state.groups
    for k, i in groupindex.items():
        indexgroup[i] = k
    # the opcodes are int subclasses (named constants): stored as the plain ints they are
    words = [int(c) for c in code]
    rx = _sre.compile(pattern, flags | p.state.flags, words, p.state.groups - 1, groupindex, tuple(indexgroup))
    _added("regex", key, (flags | p.state.flags, array(_CODE_TYPE, words).tobytes(), p.state.groups - 1, groupindex,
                          tuple(indexgroup)))
    return rx  # type: ignore[no-any-return]


def compile_code(source: str, filename: str) -> Any:
    """compile(source, filename, "exec"), from the cache when the same text was compiled before."""
    tables = _tables if _tables is not None else _load()
    if tables is _OFF:
        return compile(source, filename, "exec")
    key = (source, filename)
    _used.add(("code", key))
    code = tables["code"].get(key)
    if code is None:
        code = compile(source, filename, "exec")
        _added("code", key, code)
    return code


def derived(name: str, key: str, build: Callable[[], Any]) -> Any:
    """build(), or what it returned before for the same (name, key); the result must be plain data
    (marshal's types). `key` must change whenever what build reads changes (e.g. a file's hash)."""
    tables = _tables if _tables is not None else _load()
    if tables is _OFF:
        return build()
    k = (name, key)
    _used.add(("data", k))
    value = tables["data"].get(k)
    if value is None:
        value = build()
        try:
            marshal.dumps(value)
        except ValueError:
            return value  # not plain data: not kept
        _added("data", k, value)
    return value


def source_hash(*texts: str) -> str:
    try:  # CPython's own SHA-256 (3.11: _sha256; 3.12+: _sha2): the same digest without loading OpenSSL
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:
        try:
            from _sha2 import sha256  # type: ignore[import-not-found,no-redef]
        except ImportError:
            from hashlib import sha256

    h = sha256()
    for t in texts:
        h.update(t.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


__all__ = ["cache_dir", "compile_code", "compile_regex", "derived", "source_hash"]
