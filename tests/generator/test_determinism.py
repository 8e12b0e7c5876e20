"""Same seed -> byte-identical scenario folders; a different seed -> different bytes."""

from __future__ import annotations

import filecmp
import os

from pipeline.generator import kip848
from pipeline.generator.generate import write_scenario
from pipeline.generator.scenarios import by_name


def _tree(d: str) -> list[str]:
    return sorted(os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d) for f in fs)


def test_same_seed_gives_identical_bytes(tmp_path, repo_root):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        for name, sc in by_name().items():
            write_scenario(sc, str(out / name))
        for name, ksc in kip848.by_name().items():   # the consumer-protocol (KIP-848) scenarios
            kip848.write_scenario(ksc, str(out / name))
    files = _tree(str(a))
    assert files == _tree(str(b))
    assert len(files) >= 8 * 5
    _, mismatch, errors = filecmp.cmpfiles(a, b, files, shallow=False)
    assert mismatch == [] and errors == []
    # the committed sample_logs/ are exactly what `python -m pipeline.generator sample_logs/` writes
    samples = os.path.join(repo_root, "sample_logs")
    committed = [f for f in _tree(samples) if f != "README.md"]
    assert committed == files
    _, stale, errors = filecmp.cmpfiles(a, samples, files, shallow=False)
    assert stale == [] and errors == [], "sample_logs/ is stale: run python -m pipeline.generator sample_logs/"


def test_other_seed_changes_output(tmp_path):
    sc = by_name()["gc_pause_session_expiry"]
    write_scenario(sc, str(tmp_path / "one"))
    sc.seed += 1
    write_scenario(sc, str(tmp_path / "two"))
    one = (tmp_path / "one" / "inventory-sync-1.log").read_bytes()
    two = (tmp_path / "two" / "inventory-sync-1.log").read_bytes()
    assert one != two


def test_sample_group_ids_are_unique():
    """Ingesting sample_logs/ as one run keeps the scenarios apart only if no two share a group id."""
    from pipeline.generator import kip848

    ids = [sc.group_id for sc in by_name().values()] + [sc.group_id for sc in kip848.by_name().values()]
    assert len(ids) == len(set(ids)), sorted(ids)
