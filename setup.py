"""Builds the optional compiled hot path of `coordscope parse` (pyproject.toml holds the rest).

The modules below are compiled by Cython from their unchanged .py files (Cython's pure-Python
mode; the .py stays the only source and runs as Python where nothing was compiled). The
extensions go to parsers/_compiled/ with manifest.tsv (module, source, extension file, SHA-256 of
the source compiled), not beside the .py files: parsers/_accel.py loads an extension only while
its .py still has that digest. A module that fails to compile is left out of the manifest and runs
as Python (the install goes on); so is every module when Cython or a C compiler is missing.
`coordscope --version` says which path is taken. docs/parsers.md, "The compiled hot path".
"""

from __future__ import annotations

import hashlib
import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# the modules of the parse hot path (docs/parsers.md): module -> source, relative to this file
MODULES = {
    "parsers.reader": "parsers/reader.py",
    "parsers.client": "parsers/client.py",
    "parsers.values": "parsers/values.py",
    "parsers.fast_event": "parsers/fast_event.py",
    "parsers.event_json": "parsers/event_json.py",
    "pipeline.commands.parse": "pipeline/commands/parse.py",
}
COMPILED_PACKAGE = "parsers._compiled"  # (a directory without __init__.py: nothing imports it by name)
C_DIR = os.path.join("build", "cython")
# annotation_typing off: a signature's annotations are not checked when compiled (Cython would
# reject a str subclass or a None where Python takes it); the hot loops name their C types with
# cython.locals instead
DIRECTIVES = {"language_level": 3, "annotation_typing": False, "binding": True}


def _ext_name(module: str) -> str:
    return f"{COMPILED_PACKAGE}.{module.replace('.', '__')}"


def _warn(msg: str) -> None:
    sys.stderr.write(f"coordscope build: {msg}\n")


class BuildHotPath(build_ext):
    """Cythonizes MODULES, compiles each as an optional extension and writes the manifest of the
    ones that compiled."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        self._built: dict[str, tuple[str, str, str]] = {}
        try:
            from Cython.Build import cythonize
        except ImportError as e:
            _warn(f"Cython is not available ({e}): the parse hot path runs as Python")
            self.extensions = []
            return self._write_manifests()
        digests = {}
        c_files = {}
        for module, source in MODULES.items():
            with open(source, "rb") as fh:
                digests[module] = hashlib.sha256(fh.read()).hexdigest()
            try:
                [ext] = cythonize([Extension(module, [source])], build_dir=C_DIR, force=True, quiet=True,
                                  compiler_directives=DIRECTIVES)
                c_files[module] = ext.sources
            except Exception as e:  # noqa: BLE001 - that module runs as Python
                _warn(f"Cython could not translate {source} ({e}): it runs as Python")
        exts = []
        for ext in self.extensions:
            module = ext._coordscope_module  # type: ignore[attr-defined]
            if module in c_files:
                ext.sources = c_files[module]
                ext._coordscope_digest = digests[module]  # type: ignore[attr-defined]
                exts.append(ext)
        self.extensions = exts
        if self.inplace or getattr(self, "editable_mode", False):
            os.makedirs(os.path.join(*COMPILED_PACKAGE.split(".")), exist_ok=True)
        super().run()
        self._write_manifests()

    def build_extensions(self) -> None:
        super().build_extensions()
        # only what compiled is copied to the source tree (an in-place build) and installed
        self.extensions = [e for e in self.extensions if e._coordscope_module in self._built]  # type: ignore[attr-defined]

    def get_export_symbols(self, ext: Extension) -> list[str]:
        # the module's own init function (the extension's file name is not the module's)
        return ["PyInit_" + ext._coordscope_module.rpartition(".")[2]]  # type: ignore[attr-defined]

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as e:  # noqa: BLE001 - a compiler error: that module runs as Python
            _warn(f"compiling {ext._coordscope_module} failed ({e}): it runs as Python")  # type: ignore[attr-defined]
            return
        module = ext._coordscope_module  # type: ignore[attr-defined]
        self._built[module] = (MODULES[module], os.path.basename(self.get_ext_filename(ext.name)),
                               ext._coordscope_digest)  # type: ignore[attr-defined]

    def _write_manifests(self) -> None:
        """manifest.tsv beside the extensions: in the build directory (a wheel), and in the source
        tree too for an in-place (editable) build."""
        lines = ["# module\tsource\textension\tsha256 of the source compiled (written by setup.py)"]
        lines += ["\t".join((m, *self._built[m])) for m in MODULES if m in self._built]
        text = "\n".join(lines) + "\n"
        dirs = {os.path.join(self.build_lib, *COMPILED_PACKAGE.split("."))}
        if self.inplace or getattr(self, "editable_mode", False):
            dirs.add(os.path.join(*COMPILED_PACKAGE.split(".")))
        for d in dirs:
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "manifest.tsv"), "w", encoding="utf-8") as fh:
                fh.write(text)
        if len(self._built) < len(MODULES):
            _warn(f"{len(self._built)} of {len(MODULES)} hot-path modules compiled; the others run as Python")


def _extensions() -> list[Extension]:
    out = []
    for module, source in MODULES.items():
        ext = Extension(_ext_name(module), [source], optional=True)
        ext._coordscope_module = module  # type: ignore[attr-defined]
        out.append(ext)
    return out


setup(ext_modules=_extensions(), cmdclass={"build_ext": BuildHotPath})
