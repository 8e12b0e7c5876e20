"""benchmarks/make_big_logs.py writes the requested volume, every repetition is a new hour and new
groups, the lines stay parseable, and coordinator lines are a few percent of the total."""

from __future__ import annotations

import importlib.util
import os
import re

import pytest


@pytest.fixture(scope="module")
def big(repo_root, tmp_path_factory):
    spec = importlib.util.spec_from_file_location("make_big_logs", os.path.join(repo_root, "benchmarks", "make_big_logs.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path_factory.mktemp("big")
    blocks = mod.build_blocks(minutes=8)
    written, _ = mod.write(str(out), blocks, 3 * sum(len(b) for b in blocks.values()) - 1, vary=True)
    return mod, out, blocks, written


def test_volume_and_files(big):
    _, out, blocks, written = big
    names = sorted(os.listdir(out))
    assert names == sorted(blocks) and len(names) >= 10
    assert written == sum(os.path.getsize(out / n) for n in names)
    assert written >= 3 * sum(len(b) for b in blocks.values()) - 1


def test_each_repetition_is_a_later_hour_and_other_groups(big):
    _, out, _, _ = big
    text = (out / "kafka-1-server.log").read_text(encoding="utf-8")
    hours = sorted(set(re.findall(r"^\[(\d{4}-\d\d-\d\d \d\d):", text, re.M)))
    assert hours == ["2024-03-14 02", "2024-03-14 03", "2024-03-14 04"]
    groups = set(re.findall(r"Stabilized group (\S+) generation 1 ", text))
    assert {"checkout-events-r0000", "checkout-events-r0001", "checkout-events-r0002"} <= groups
    assert "@@@@" not in text and "\x01" not in text


def test_coordinator_share_and_parseable(big):
    mod, out, blocks, _ = big
    one = b"".join(blocks.values())
    lines = one.count(b"\n")
    coord = sum(1 for ln in one.split(b"\n") if mod.COORD.search(ln))
    assert 0.02 <= coord / lines <= 0.12  # 20 simulated minutes (the default) give about 4%
    if importlib.util.find_spec("parsers.reader") is None:
        pytest.skip("parsers not on this branch")
    from parsers import parse_path

    for name in ("stock-sync-inventory-sync-3.log", "kafka-1-server.log", "catalog-indexer-search-indexer-4.log"):
        outcomes, _ = parse_path(str(out / name))
        bad = [o for o in outcomes if o.status == "unparsed"]
        assert bad == [], (name, bad[0].event.raw if bad else None)
