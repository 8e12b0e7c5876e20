"""The compiled hot path: load a module's Cython-compiled build only while it matches its .py.

`pip install` (setup.py) compiles the parse hot path's modules (parsers.reader, parsers.client,
parsers.values, parsers.fast_event, parsers.event_json, pipeline.commands.parse) with Cython, in
its pure-Python mode: the .py files are the only source, and each module behaves the same run as
Python or compiled. The extensions are written to `parsers/_compiled/` (not beside the .py files,
where Python's own import would take them whatever the .py says now), with `manifest.tsv`: per
module its source file (relative to the directory holding `parsers/`), the extension's file name
and the SHA-256 of the source it was compiled from.

`install()` (run by `import parsers`) puts a finder first on `sys.meta_path` that answers only for
the manifest's modules: the extension when the module's .py, as found now, still has that digest,
else nothing (Python then imports the .py as always) and one line on standard error saying so;
an extension that fails to load gives way to its .py the same way. An
edited reader.py is therefore run as Python until the next build (`make compiled`), never shadowed
by a stale extension. `COORDSCOPE_PURE_PYTHON=1` runs every module as Python. `status()` says which
path this process takes (`coordscope --version` prints it).
"""

from __future__ import annotations

import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader, ModuleSpec, SourceFileLoader

COMPILED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_compiled")
MANIFEST = os.path.join(COMPILED_DIR, "manifest.tsv")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # holds parsers/ and pipeline/
PURE_ENV = "COORDSCOPE_PURE_PYTHON"

# module -> what its import took: "compiled", or why the .py ("stale", ...); filled by the finder
loaded: dict[str, str] = {}
_finder: _Finder | None = None


def digest(data: bytes) -> str:
    try:  # CPython's own SHA-256 (3.11: _sha256; 3.12+: _sha2), as build_cache: no OpenSSL at start-up
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:
        try:
            from _sha2 import sha256  # type: ignore[import-not-found,no-redef]
        except ImportError:
            from hashlib import sha256
    return sha256(data).hexdigest()


def pure_forced() -> bool:
    return os.environ.get(PURE_ENV, "") not in ("", "0")


def read_manifest(path: str = MANIFEST) -> dict[str, tuple[str, str, str]]:
    """module -> (source path relative to ROOT, extension file name, source digest); {} when the
    modules were not compiled (no manifest). A line that is not three tabs apart is skipped."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) == 4 and not line.startswith("#"):
            out[parts[0]] = (parts[1], parts[2], parts[3])
    return out


def _usable_file(name: str) -> bool:
    """An extension built for this interpreter: its name ends with the interpreter's own tagged
    suffix (`.cpython-311-x86_64-linux-gnu.so`; setup.py builds no stable-ABI or untagged files)."""
    return name.endswith(EXTENSION_SUFFIXES[0])


class _Finder:
    """Answers for the manifest's modules: their extension while their .py has the recorded digest."""

    def __init__(self, entries: dict[str, tuple[str, str, str]], directory: str) -> None:
        self.entries = entries
        self.directory = directory

    def find_spec(self, name: str, path: list[str] | None = None, target: object = None) -> ModuleSpec | None:
        entry = self.entries.get(name)
        if entry is None:
            return None
        _source, ext_name, want = entry
        last = name.rpartition(".")[2] + ".py"
        source = next((os.path.join(d, last) for d in (path or sys.path) if os.path.isfile(os.path.join(d, last))), None)
        ext = os.path.join(self.directory, ext_name)
        if source is None or not os.path.isfile(ext):
            loaded[name] = "not built"
            return None
        try:
            with open(source, "rb") as fh:
                got = digest(fh.read())
        except OSError:
            loaded[name] = "source unreadable"
            return None
        if got != want:
            loaded[name] = "stale"
            sys.stderr.write(f"coordscope: {source} changed since it was compiled: running it as Python "
                             f"(rebuild the compiled modules with `make compiled`, or set {PURE_ENV}=1)\n")
            return None
        loaded[name] = "compiled"
        loader = _Loader(name, ext, source)
        spec = ModuleSpec(name, loader, origin=ext)
        spec.has_location = True
        return spec


class _Loader(ExtensionFileLoader):
    """The extension's loader; if the extension does not load (an ImportError: a damaged file, a
    library it needs missing), the module is made from its .py instead, with one line saying so."""

    def __init__(self, name: str, path: str, source: str) -> None:
        super().__init__(name, path)
        self.source = source
        self.fallback: SourceFileLoader | None = None

    def create_module(self, spec: ModuleSpec) -> object:
        try:
            return super().create_module(spec)
        except ImportError as e:
            loaded[self.name] = "failed to load"
            sys.stderr.write(f"coordscope: the compiled {self.name} did not load ({e}): running {self.source} "
                             f"as Python (rebuild with `make compiled`, or set {PURE_ENV}=1)\n")
            self.fallback = SourceFileLoader(self.name, self.source)
            spec.origin = self.source  # (__file__ of the module Python now makes)
            return None

    def exec_module(self, module: object) -> None:
        if self.fallback is not None:
            self.fallback.exec_module(module)  # type: ignore[arg-type]
        else:
            super().exec_module(module)  # type: ignore[arg-type]


def install(manifest: str = MANIFEST) -> None:
    """Put the finder first on sys.meta_path (once; nothing when pure Python is forced or nothing
    was compiled for this interpreter)."""
    global _finder
    if _finder is not None or pure_forced():
        return
    entries = {m: e for m, e in read_manifest(manifest).items() if _usable_file(e[1])}
    if entries:
        _finder = _Finder(entries, os.path.dirname(manifest))
        sys.meta_path.insert(0, _finder)


def status() -> str:
    """One line: which path the parse hot path takes in this process, and why."""
    if pure_forced():
        return f"hot path: pure Python ({PURE_ENV} is set)"
    entries = read_manifest()
    if not entries:
        return "hot path: pure Python (the compiled modules were not built: see `pip install` output, or `make compiled`)"
    usable = {m: e for m, e in entries.items() if _usable_file(e[1]) and os.path.isfile(os.path.join(COMPILED_DIR, e[1]))}
    if not usable:
        return "hot path: pure Python (the compiled modules were built for another interpreter: `make compiled`)"
    stale = []
    for source, _ext, want in sorted(usable.values()):
        try:
            with open(os.path.join(ROOT, source), "rb") as fh:
                if digest(fh.read()) != want:
                    stale.append(source)
        except OSError:
            stale.append(source)
    missing = sorted(set(entries) - set(usable))
    if not stale and not missing:
        return f"hot path: compiled ({len(usable)} modules, Cython)"
    return (f"hot path: compiled except {', '.join(stale + missing)} "
            f"({'changed since built' if stale else 'not built'}: run as Python; `make compiled` rebuilds)")
