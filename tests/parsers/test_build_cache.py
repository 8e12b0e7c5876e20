"""parsers/build_cache.py: what a process takes from the cache equals what it would compile itself."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# run in a fresh process (the cache is read once per process), against the cache directory given
CHECK = r"""
import json, re, sys
from parsers import build_cache, broker, client, offsets_dump, reader
from parsers.lark_regex import start_sources
tables = build_cache._load()
client.make_all_decoders()  # decoders are made on a rule's first match: all of them here
rx = tables.get("regex", {})
unequal = [p for (p, f) in rx if build_cache.compile_regex(p, f) != re.compile(p, f)]
# every client rule and combined bucket regex is the one re.compile makes (Pattern == compares the code)
rules = [r.regex for r in client.ALL_RULES]
combos = [c.single[0] for b in [*client._BUCKETS.values(), client._GENERIC] for _f, _s, c in b.groups if c.single]
bad_rules = [r.pattern for r in rules + combos if r != re.compile(r.pattern, r.flags)]
starts = {s: broker._compiled()[s] for s in broker._compiled()}
lark = start_sources(broker._parser(), broker.STARTS)
bad_starts = [s for s, c in starts.items()
              if (c.regex.pattern, c.groups, c.by_label) != lark[s] or c.regex != re.compile(lark[s][0], re.S)]
dump = offsets_dump._compiled()
dump_lark = start_sources(offsets_dump._parser(), offsets_dump._STARTS)
bad_starts += [s for s in dump if (dump[s].regex.pattern, dump[s].groups, dump[s].by_label) != dump_lark[s]]
print(json.dumps({"regex": len(rx), "code": len(tables.get("code", {})), "data": len(tables.get("data", {})),
                  "unequal": unequal[:3], "bad_rules": bad_rules[:3], "rules": len(rules) + len(combos),
                  "bad_starts": bad_starts, "starts": len(starts) + len(dump)}))
"""


def _run(cache: Path, *, no_cache: bool = False) -> dict:
    import json

    env = dict(os.environ, PYTHONPATH=str(REPO), COORDSCOPE_CACHE_DIR=str(cache))
    env.pop("COORDSCOPE_NO_CACHE", None)
    if no_cache:
        env["COORDSCOPE_NO_CACHE"] = "1"
    out = subprocess.run([sys.executable, "-c", CHECK], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_cold_then_warm_compiles_the_same(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = _run(cache)  # nothing cached: compiled, then written at exit
    assert cold["unequal"] == [] and cold["bad_rules"] == [] and cold["bad_starts"] == []
    files = list(cache.glob("derived-*.marshal"))
    assert len(files) == 1
    warm = _run(cache)  # everything from the file
    # data: the broker and offsets-dump grammar starts, and the client rules' guarded patterns
    assert warm["regex"] >= 600 and warm["code"] >= 400 and warm["data"] == 3
    assert warm["unequal"] == [] and warm["bad_rules"] == [] and warm["bad_starts"] == []
    assert warm["rules"] >= 600 and warm["starts"] >= 20
    assert oct(cache.stat().st_mode & 0o777) == oct(0o700)


def test_corrupt_or_foreign_cache_is_not_read(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _run(cache)
    f = next(cache.glob("derived-*.marshal"))
    f.write_bytes(f.read_bytes()[:5000])  # cut short: unreadable
    res = _run(cache)
    assert res["unequal"] == [] and res["bad_rules"] == [] and res["bad_starts"] == []
    if hasattr(os, "getuid"):
        cache.chmod(0o777)  # a directory others may write to: its file is not trusted
        res = _run(cache)
        assert res["bad_rules"] == []


def test_no_cache_writes_nothing(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    res = _run(cache, no_cache=True)
    assert res["regex"] == 0 and res["bad_rules"] == [] and res["bad_starts"] == []
    assert not cache.exists()


def test_in_process_entries_equal_re_compile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from parsers import build_cache

    monkeypatch.setenv("COORDSCOPE_CACHE_DIR", str(tmp_path))
    # this process's tables left as they were (nothing of this test is written at exit)
    monkeypatch.setattr(build_cache, "_tables", {"regex": {}, "code": {}, "data": {}})
    monkeypatch.setattr(build_cache, "_dirty", False)
    for pattern, flags in [(r"(?P<a>x+)|(?P<b>\d{2,5})\Z", re.S), (r"(?i)Member (\S+) with epoch", 0),
                           (r"[^\]]*\] ([A-Z]+)", 0), ("é\\w+", re.A)]:
        got = build_cache.compile_regex(pattern, flags)
        assert got == re.compile(pattern, flags)
        assert got.groupindex == re.compile(pattern, flags).groupindex and got.flags == re.compile(pattern, flags).flags
        again = build_cache.compile_regex(pattern, flags)  # now from the table
        assert again == got
        for text in ("xx", "12345", "Member m-1 with epoch 3", "a] INFO", "éa"):
            m1, m2 = again.search(text), re.compile(pattern, flags).search(text)
            assert (m1 and (m1.span(), m1.groups())) == (m2 and (m2.span(), m2.groups()))
    assert len(build_cache._tables["regex"]) == 4


LAZY = r"""
import json
from parsers import broker
from parsers.reader import parse_lines, FileFormat
lines = [
    "[2024-03-01 10:00:02,418] INFO [Consumer clientId=c-1, groupId=g] ConsumerGroupHeartbeatRequest in 300ms: "
    "The coordinator is not aware of this member. (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
    "[2024-03-01 10:00:02,419] INFO [Consumer clientId=c-1, groupId=g] Successfully joined group with generation "
    "Generation{generationId=5, memberId='c-1-a', protocol='range'} (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
]
out = [(o.line_no, o.status, o.event.kind if o.event else None) for o in parse_lines("x", list(enumerate(lines, 1)), FileFormat("log", "log4j"))]
print(json.dumps({"out": out, "lark_built": broker._parser.cache_info().currsize,
                  "starts_compiled": sorted(broker._compiled()._compiled)}))
"""


def test_broker_grammar_not_built_for_client_lines(tmp_path: Path) -> None:
    # a client line no rule reads falls back to the broker rules (a broker line without its ident);
    # only the start symbols its first word can use are compiled, and with a warm cache Lark's
    # broker grammar is not built at all (it took 0.10 CPU-s per process)
    import json

    env = dict(os.environ, PYTHONPATH=str(REPO), COORDSCOPE_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("COORDSCOPE_NO_CACHE", None)
    runs = [json.loads(subprocess.run([sys.executable, "-c", LAZY], cwd=REPO, env=env, capture_output=True, text=True,
                                      check=True).stdout.strip().splitlines()[-1]) for _ in range(2)]
    for r in runs:
        assert r["out"] == [[1, "unparsed", "unparsed"], [2, "parsed", "join_succeeded"]]
        assert r["starts_compiled"] == ["s__"]  # "ConsumerGroupHeartbeatRequest" starts no broker template
    assert runs[0]["lark_built"] == 1 and runs[1]["lark_built"] == 0


def test_a_cache_past_its_bound_keeps_what_the_process_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import marshal

    from parsers import build_cache

    monkeypatch.setenv("COORDSCOPE_CACHE_DIR", str(tmp_path))
    stale = {f"old{i}": (0, [1], 0, {}, (None,)) for i in range(50)}
    monkeypatch.setattr(build_cache, "_tables", {"regex": {(k, 0): v for k, v in stale.items()}, "code": {}, "data": {}})
    monkeypatch.setattr(build_cache, "_used", set())
    monkeypatch.setattr(build_cache, "_dirty", False)
    monkeypatch.setattr(build_cache, "MAX_ENTRIES", 10)
    build_cache.compile_regex(r"new (\d+)")
    build_cache._save()
    interpreter, tables = marshal.loads(next(tmp_path.glob("derived-*.marshal")).read_bytes())
    assert interpreter == build_cache._INTERPRETER
    assert list(tables["regex"]) == [(r"new (\d+)", 0)]
