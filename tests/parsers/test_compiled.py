"""The compiled hot path (setup.py, parsers/_accel.py): an extension is loaded only while its .py
has the digest it was compiled from, COORDSCOPE_PURE_PYTHON=1 runs everything as Python, and both
paths write the same bytes.

The tests that need the compiled modules skip where they were not built (no C compiler, no Cython,
PYTHONPATH on an unbuilt checkout), and fail instead under COORDSCOPE_REQUIRE_COMPILED=1 (.ci/run:
CI builds them with `make setup`)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader
from pathlib import Path

import pytest

from parsers import _accel

REPO = Path(__file__).resolve().parents[2]
SAMPLE_LOGS = REPO / "sample_logs"
CORPUS = REPO / "tests" / "parsers" / "corpus"
HOT = ("parsers.reader", "parsers.client", "parsers.values", "parsers.fast_event", "parsers.event_json",
       "pipeline.commands.parse")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != _accel.PURE_ENV}
    env.update(extra)
    return env


def _built_manifest() -> dict[str, tuple[str, str, str]]:
    entries = _accel.read_manifest()
    usable = {m: e for m, e in entries.items() if (Path(_accel.COMPILED_DIR) / e[1]).is_file() and _accel._usable_file(e[1])}
    if set(usable) != set(HOT) or "changed since built" in _accel.status():
        msg = f"the compiled hot path is not built for this checkout ({_accel.status()}): `make compiled`"
        if os.environ.get("COORDSCOPE_REQUIRE_COMPILED"):
            pytest.fail(msg)
        pytest.skip(msg)
    return usable


# --- the finder's choice, on a package made here (no compiled module needed) -----------------------

def _fake_package(tmp_path: Path, text: str) -> tuple[Path, Path, dict[str, tuple[str, str, str]]]:
    pkg = tmp_path / "pkgx"
    (pkg / "_compiled").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text(text)
    ext = pkg / "_compiled" / ("pkgx__mod" + EXTENSION_SUFFIXES[0])
    ext.write_bytes(b"not loaded by these tests")
    digest = hashlib.sha256(text.encode()).hexdigest()
    return pkg, ext, {"pkgx.mod": ("pkgx/mod.py", ext.name, digest)}


def test_finder_takes_the_extension_only_while_the_source_has_its_digest(tmp_path, capsys):
    pkg, ext, entries = _fake_package(tmp_path, "X = 1\n")
    finder = _accel._Finder(entries, str(ext.parent))
    _accel.loaded.pop("pkgx.mod", None)
    spec = finder.find_spec("pkgx.mod", [str(pkg)])
    assert spec is not None and spec.origin == str(ext) and spec.name == "pkgx.mod"
    assert isinstance(spec.loader, ExtensionFileLoader)
    assert _accel.loaded["pkgx.mod"] == "compiled"
    assert capsys.readouterr().err == ""
    # the .py edited (one byte): the finder steps aside (Python imports the .py), and says so once
    (pkg / "mod.py").write_text("X = 2\n")
    assert finder.find_spec("pkgx.mod", [str(pkg)]) is None
    assert _accel.loaded["pkgx.mod"] == "stale"
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(pkg / "mod.py") in err and "running it as Python" in err
    # edited back: the extension again
    (pkg / "mod.py").write_text("X = 1\n")
    assert finder.find_spec("pkgx.mod", [str(pkg)]) is not None
    # other names, and a missing extension, are not its business
    assert finder.find_spec("pkgx.other", [str(pkg)]) is None
    ext.unlink()
    assert finder.find_spec("pkgx.mod", [str(pkg)]) is None
    assert _accel.loaded.pop("pkgx.mod") == "not built"


def test_an_extension_that_does_not_load_falls_back_to_its_source(tmp_path):
    """The manifest matches but the extension is no loadable library: the module is made from its
    .py (same name, its __file__ the .py), with one line on stderr; a second module is unaffected."""
    _pkg, _ext, entries = _fake_package(tmp_path, "X = 1\n")
    (tmp_path / "pkgx" / "other.py").write_text("Y = 2\n")
    code = ("import sys\nfrom parsers import _accel\n"
            "entries = _accel.read_manifest(sys.argv[1])\n"
            "sys.meta_path.insert(0, _accel._Finder(entries, sys.argv[2]))\n"
            "import pkgx.mod, pkgx.other\n"
            "print(pkgx.mod.X, pkgx.mod.__file__, pkgx.other.Y, _accel.loaded['pkgx.mod'])\n")
    manifest = tmp_path / "pkgx" / "_compiled" / "manifest.tsv"
    manifest.write_text("\t".join(("pkgx.mod", *entries["pkgx.mod"])) + "\n")
    out = subprocess.run([sys.executable, "-c", code, str(manifest), str(manifest.parent)], capture_output=True,
                         text=True, cwd=tmp_path, env=_env(PYTHONPATH=f"{tmp_path}{os.pathsep}{REPO}"), timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split(maxsplit=3) == ["1", str(tmp_path / "pkgx" / "mod.py"), "2", "failed to load\n"]
    assert out.stderr.count("\n") == 1 and "the compiled pkgx.mod did not load" in out.stderr


def test_manifest_reading_and_interpreter_suffix(tmp_path):
    m = tmp_path / "manifest.tsv"
    m.write_text("# module\tsource\textension\tsha\nparsers.reader\tparsers/reader.py\tr" + EXTENSION_SUFFIXES[0]
                 + "\tabc\nbroken line\nparsers.client\tparsers/client.py\tc.cpython-399-x.so\tdef\n")
    got = _accel.read_manifest(str(m))
    assert got == {"parsers.reader": ("parsers/reader.py", "r" + EXTENSION_SUFFIXES[0], "abc"),
                   "parsers.client": ("parsers/client.py", "c.cpython-399-x.so", "def")}
    assert _accel._usable_file(got["parsers.reader"][1]) and not _accel._usable_file(got["parsers.client"][1])
    assert _accel.read_manifest(str(tmp_path / "none.tsv")) == {}


def test_pure_python_forced_by_the_environment():
    out = subprocess.run([sys.executable, "-c", "import parsers.reader as r, parsers._accel as a, sys;"
                          "print(r.__file__); print(a.status()); print(any(isinstance(f, a._Finder) for f in sys.meta_path))"],
                         capture_output=True, text=True, cwd=REPO, env=_env(**{_accel.PURE_ENV: "1"}), timeout=120)
    assert out.returncode == 0, out.stderr
    file, status, installed = out.stdout.splitlines()
    assert file.endswith(os.path.join("parsers", "reader.py"))
    assert status == f"hot path: pure Python ({_accel.PURE_ENV} is set)" and installed == "False"


# --- with the compiled modules built ----------------------------------------------------------------

def test_every_hot_module_loads_compiled_and_says_so():
    _built_manifest()
    code = ("import sys, importlib, parsers._accel as a\n"
            f"mods = [importlib.import_module(m) for m in {HOT!r}]\n"
            "print('\\n'.join(m.__file__ for m in mods)); print(a.status())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=_env(), timeout=120)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    *files, status = out.stdout.splitlines()
    assert all(Path(f).parent == Path(_accel.COMPILED_DIR) for f in files), files
    assert status == f"hot path: compiled ({len(HOT)} modules, Cython)"
    version = subprocess.run([sys.executable, "-m", "pipeline.cli", "--version"], capture_output=True, text=True,
                             cwd=REPO, env=_env(), timeout=120)
    assert version.stdout.endswith(f"(hot path: compiled ({len(HOT)} modules, Cython))\n")


def test_an_edited_source_wins_over_its_stale_extension(tmp_path):
    """A copy of the built parsers package with reader.py edited: the copy's reader.py runs (with
    one line on stderr), its unedited modules still run compiled; the unedited copy runs compiled."""
    _built_manifest()
    for name in ("edited", "unedited"):
        shutil.copytree(REPO / "parsers", tmp_path / name / "parsers", ignore=shutil.ignore_patterns("__pycache__"))
    reader = tmp_path / "edited" / "parsers" / "reader.py"
    reader.write_text(reader.read_text(encoding="utf-8") + "\nEDITED_HERE = 'yes'\n", encoding="utf-8")
    code = ("import parsers.reader as r, parsers.client as c\n"
            "print(r.__file__); print(c.__file__); print(getattr(r, 'EDITED_HERE', 'no'))\n")
    runs = {}
    for name in ("edited", "unedited"):
        root = tmp_path / name
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root,
                             env=_env(PYTHONPATH=str(root)), timeout=120)
        assert out.returncode == 0, out.stderr
        runs[name] = (out.stdout.splitlines(), out.stderr)
    (r_file, c_file, marker), err = runs["edited"]
    assert r_file == str(reader) and marker == "yes"
    assert Path(c_file).parent == tmp_path / "edited" / "parsers" / "_compiled"
    assert err == (f"coordscope: {reader} changed since it was compiled: running it as Python (rebuild the "
                   f"compiled modules with `make compiled`, or set {_accel.PURE_ENV}=1)\n")
    (r_file, c_file, marker), err = runs["unedited"]
    assert Path(r_file).parent == Path(c_file).parent == tmp_path / "unedited" / "parsers" / "_compiled"
    assert marker == "no" and err == ""


def _corpus() -> list[Path]:
    files = sorted(p for p in SAMPLE_LOGS.rglob("*") if p.is_file() and p.name != "README.md")
    files += sorted(p for p in CORPUS.glob("*.log"))
    assert len(files) > 30
    return files


def test_parse_cli_writes_the_same_bytes_compiled_and_as_python(tmp_path):
    """`coordscope parse` over sample_logs/ and the layout corpus, and a file of repeated lines
    (tail memo and body memo hits), compiled and with COORDSCOPE_PURE_PYTHON=1: same stdout, same
    stderr."""
    _built_manifest()
    lines = []
    for f in _corpus()[:40]:
        lines += f.read_text(encoding="utf-8", errors="replace").splitlines()[:400]
    repeated = tmp_path / "repeated.log"
    repeated.write_text("\n".join(lines * 3) + "\n", encoding="utf-8")
    args = [sys.executable, "-m", "pipeline.cli", "parse", *map(str, _corpus()), str(repeated)]
    cache = str(tmp_path / "cache")
    compiled = subprocess.run(args, capture_output=True, cwd=REPO, env=_env(COORDSCOPE_CACHE_DIR=cache), timeout=600)
    pure = subprocess.run(args, capture_output=True, cwd=REPO,
                          env=_env(COORDSCOPE_CACHE_DIR=cache, **{_accel.PURE_ENV: "1"}), timeout=600)
    assert compiled.returncode == pure.returncode
    assert compiled.stdout.count(b"\n") > 10_000
    assert compiled.stdout == pure.stdout
    assert compiled.stderr == pure.stderr


def test_reader_api_gives_the_same_events_compiled_and_as_python(tmp_path):
    """What the Spark parse stage and the Python API get (parse_path: Event outcomes, one by one),
    written through event_json and the outcome's status and reason, both ways."""
    _built_manifest()
    code = ("import dataclasses, sys\nfrom parsers import parse_path\nfrom parsers.event_json import event_line\n"
            "out = sys.stdout.buffer\n"
            "for path in sys.argv[1:]:\n"
            "    outcomes, summary = parse_path(path)\n"
            "    for o in outcomes:\n"
            "        out.write(b'%d %s ' % (o.line_no, o.status.encode()))\n"
            "        out.write(event_line(o.event, o.why) if o.event is not None else repr(o.why).encode() + b'\\n')\n"
            "    out.write(repr(dataclasses.asdict(summary)).encode() + b'\\n')\n")
    args = [sys.executable, "-c", code, *map(str, _corpus())]
    cache = str(tmp_path / "cache")
    compiled = subprocess.run(args, capture_output=True, cwd=REPO, env=_env(COORDSCOPE_CACHE_DIR=cache), timeout=600)
    pure = subprocess.run(args, capture_output=True, cwd=REPO,
                          env=_env(COORDSCOPE_CACHE_DIR=cache, **{_accel.PURE_ENV: "1"}), timeout=600)
    assert compiled.returncode == 0 and pure.returncode == 0, compiled.stderr[-2000:] + pure.stderr[-2000:]
    assert compiled.stdout.count(b"\n") > 10_000
    assert compiled.stdout == pure.stdout
