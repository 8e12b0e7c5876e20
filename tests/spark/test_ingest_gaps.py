"""The ingest of merged multi-pod files and soft-wrapped broker records reads the records `coordscope
parse` reads (tests/parsers/test_ingest_gaps.py builds the files): the JVM scanner keeps the same lines
and gives the same gap codes as its Python twin (parsers.drop_gaps.filter_with_gaps; jvm/SplitScanner.java
Gaps), and the events table equals `parse`'s events, every ConsumerConfig setting included. On main
before this change (e8a5554) the merged files' blocks kept only the settings printed before the first
line of another pod, and the wrapped records only their first piece."""

from __future__ import annotations

import json
import random

import pytest

from parsers.drop_gaps import filter_with_gaps
from parsers.reader import sniff
from pipeline import rundir
from pipeline.spark import lines as lines_mod
from tests.parsers.test_ingest_gaps import _RECORDS, ORIGIN_SHAPES, PODS, app_line, merged
from tests.spark.conftest import run_ingest_inputs


def _files(tmp_path):
    from tests.parsers.test_paste_shapes3 import _wrap_at_spaces

    logs = tmp_path / "logs"
    logs.mkdir()
    for shape, (wrap, _o) in ORIGIN_SHAPES.items():
        for n in (2, 4):
            (logs / f"{shape}-{n}.log").write_text("\n".join(merged(wrap, n, n)) + "\n")
        (logs / f"{shape}-error.log").write_text("\n".join(merged(wrap, 3, 5, own_error=True)) + "\n")
    rng = random.Random(3)
    wrapped: list[str] = []
    for width in (55, 72):
        for r in _RECORDS:
            wrapped += [app_line(rng) for _ in range(rng.randint(0, 3))] + _wrap_at_spaces(r, width, False)
    (logs / "pasted.log").write_text("\n".join(wrapped) + "\n")
    return logs


@pytest.mark.spark
def test_scanner_keeps_the_lines_and_codes_of_its_python_twin(spark, tmp_path):
    logs = _files(tmp_path)
    # non-ASCII names and text: a compose service and a syslog host match Python's \w (the JVM reads
    # such a line decoded), kubectl's and stern's DNS names do not (lines of no origin on both sides)
    for shape, (wrap, _o) in ORIGIN_SHAPES.items():
        text = "\n".join(merged(wrap, 3, 11)).replace(PODS[0], "lédger-7d9f8c6b5-x2x4q").replace("Handled", "Traité")
        (logs / f"{shape}-unicode.log").write_text(text + "\n", encoding="utf-8")
    paths = sorted(logs.iterdir())
    rules = {}
    fmts = {}
    for p in paths:
        text = p.read_text(encoding="utf-8").splitlines()
        fmts[p] = sniff(text)
    spaths = lines_mod.spark_paths(spark, [str(p) for p in paths])
    rules = {sp: lines_mod.gap_rule(fmts[p]) for sp, p in zip(spaths, paths, strict=True)}
    assert all(rule for sp, rule in rules.items() if "unicode" not in sp)
    assert rules[next(sp for sp in rules if sp.endswith("compose-unicode.log"))]
    scan = lines_mod.read_blocks(spark, [str(p) for p in paths], __import__("parsers").CANDIDATE_REGEX, rules=rules)
    assert scan.filter == "java"
    rows = {r["spath"]: r for r in scan.rows.collect()}
    for sp, p in zip(spaths, paths, strict=True):
        r = rows[sp]
        want = list(filter_with_gaps(enumerate(p.read_text(encoding="utf-8").splitlines(), 1), fmts[p]))
        got_lines = list(zip((i + 1 for i in r["idx"]), r["text"].split("\n"), strict=True))
        assert got_lines == [(n, t) for n, t, _c in want], p.name
        if fmts[p].wrappers:
            assert list(r["gaps"]) == [c for _n, _t, c in want], p.name
        else:
            assert r["gaps"] is None


@pytest.mark.spark
def test_ingest_reads_merged_and_wrapped_records_like_parse(spark, tmp_path):
    from parsers.reader import parse_path

    logs = _files(tmp_path)
    out = tmp_path / "run"
    man = run_ingest_inputs(spark, logs, out)
    assert man["accounting"]["adds_up"]
    events = rundir.load_table(out, "events")
    settings_parse = settings_ingest = 0
    for p in sorted(logs.iterdir()):
        mine = events[events.source == str(p)]
        got = sorted((int(r.line_no), r.kind, r.group_id, r.client_id, json.loads(r.extra_json) if r.extra_json else None)
                     for r in mine.itertuples())
        outcomes, _summary = parse_path(str(p))
        want = sorted((o.event.line_no, o.event.kind, o.event.group_id, o.event.client_id, o.event.extra or None)
                      for o in outcomes if o.event is not None)
        assert got == want, p.name
        settings_parse += sum(len(w[4].get("settings", {})) for w in want if w[1] == "client_config")
        settings_ingest += sum(len(g[4].get("settings", {})) for g in got if g[1] == "client_config")
    # 4 shapes x (2 + 4 consumers of 8 settings, and a block of 3 before its pod's own ERROR + 2 of 8)
    assert settings_ingest == settings_parse == 4 * (6 * 8 + 3 + 2 * 8)
    assert len(PODS) == 4
