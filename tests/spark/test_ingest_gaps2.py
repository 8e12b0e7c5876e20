"""The ingest of coloured merged files (stern, docker compose on a terminal), of JSON records naming their
origin (Fluent Bit, docker's fluentd driver, `journalctl -o json`) and of CRI node logs with lines split
into partial parts reads the events `coordscope parse` reads (tests/parsers/test_ingest_gaps2.py builds
the files): the JVM scanner keeps the same lines and gives the same gap codes as its Python twin
(parsers.drop_gaps.filter_with_gaps; jvm/SplitScanner.java Gaps, jvm/JsonOrigin.java), and the events
table equals `parse`'s events, every setting and partition included. On main (566cbc3) these files'
blocks kept only the settings printed before another pod's first line (118 of 952 per file), and the
CRI file's 30 assignments held 23,280 of their 54,729 partitions."""

from __future__ import annotations

import json
import random

import pytest

import parsers
from parsers.drop_gaps import filter_with_gaps
from parsers.reader import sniff
from pipeline import rundir
from pipeline.spark import lines as lines_mod
from tests.parsers.test_ingest_gaps import PODS, app_line, merged
from tests.parsers.test_ingest_gaps2 import COLOUR_SHAPES, JSON_SHAPES, cri_file
from tests.spark.conftest import run_ingest_inputs

SHAPES = {**{k: w for k, (w, _o) in COLOUR_SHAPES.items()}, **{k: w for k, (w, _o) in JSON_SHAPES.items()}}


def _files(tmp_path, copies: int = 1):
    logs = tmp_path / "logs"
    logs.mkdir()
    for shape, wrap in SHAPES.items():
        for n in (2, 4):
            text: list[str] = []
            for c in range(copies):
                text += merged(wrap, n, n + 10 * c)
            (logs / f"{shape}-{n}.log").write_text("\n".join(text) + "\n")
        (logs / f"{shape}-error.log").write_text("\n".join(merged(wrap, 3, 5, own_error=True)) + "\n")
    cri: list[str] = []
    for s in range(2 * copies):
        cri += cri_file(s)
    (logs / "cri.log").write_text("\n".join(cri) + "\n")
    return logs


@pytest.mark.spark
def test_scanner_keeps_the_lines_and_codes_of_its_python_twin(spark, tmp_path):
    logs = _files(tmp_path)
    rng = random.Random(5)
    # JSON records the key reads with care: escapes, a float pid, a record of no origin, a pasted
    # object, non-ASCII names (decoded), a NaN (not RFC 8259: no key), a deep record (no key)
    odd = [json.dumps({"kubernetes": {"pod_name": "l\u00e9dger-1", "namespace_name": "prod"}, "log": "\tx = 1\n"}),
           json.dumps({"host": "h\"1", "pid": 1.5, "log": app_line(rng) + "\n"}),
           json.dumps({"log": "\tgroup.id = g\n"}), '"log": "\\tgroup.id = g"}',
           '{"_HOSTNAME": "h2", "_PID": 0, "MESSAGE": "\\tclient.id = c"}',
           '{"host": "h3", "pid": NaN, "message": "\\tclient.id = c"}',
           '{"host": "h4", "x": ' + "[" * 70 + "]" * 70 + ', "message": "\\tclient.id = c"}']
    lines = merged(SHAPES["fluent-bit"], 3, 7)
    for k, x in enumerate(odd):
        lines.insert(5 + 7 * k, x)
    (logs / "fluent-bit-odd.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
    paths = sorted(logs.iterdir())
    fmts = {p: sniff(p.read_text(encoding="utf-8").splitlines()) for p in paths}
    spaths = lines_mod.spark_paths(spark, [str(p) for p in paths])
    rules = {sp: lines_mod.gap_rule(fmts[p]) for sp, p in zip(spaths, paths, strict=True)}
    assert all(rules.values())
    assert {r.split("|")[0] for r in rules.values()} == {"A", "J", "C"}
    scan = lines_mod.read_blocks(spark, [str(p) for p in paths], parsers.CANDIDATE_REGEX, rules=rules)
    assert scan.filter == "java"
    rows = {r["spath"]: r for r in scan.rows.collect()}
    for sp, p in zip(spaths, paths, strict=True):
        r = rows[sp]
        want = list(filter_with_gaps(enumerate(p.read_text(encoding="utf-8").splitlines(), 1), fmts[p]))
        got_lines = list(zip((i + 1 for i in r["idx"]), r["text"].split("\n"), strict=True))
        assert got_lines == [(n, t) for n, t, _c in want], p.name
        if "cri" in p.name:
            assert r["gaps"] is None
        else:
            assert list(r["gaps"]) == [c for _n, _t, c in want], p.name
            assert any(c == 1 for _n, _t, c in want) and any(c == 0 for _n, _t, c in want)


def _compare(logs, events):
    from parsers.reader import parse_path

    totals = {"settings": [0, 0], "partitions": [0, 0]}
    for p in sorted(logs.iterdir()):
        mine = events[events.source == str(p)]
        got = sorted((int(r.line_no), r.kind, r.group_id, r.client_id,
                      json.loads(r.extra_json) if r.extra_json else None,
                      len(r.partitions) if r.partitions is not None else 0) for r in mine.itertuples())
        outcomes, _summary = parse_path(str(p))
        want = sorted((o.event.line_no, o.event.kind, o.event.group_id, o.event.client_id, o.event.extra or None,
                       len(o.event.partitions or ())) for o in outcomes if o.event is not None)
        assert got == want, p.name
        for i, evs in enumerate((want, got)):
            totals["settings"][i] += sum(len(e[4].get("settings", {})) for e in evs if e[1] == "client_config")
            totals["partitions"][i] += sum(e[5] for e in evs)
    return totals


@pytest.mark.spark
def test_ingest_reads_coloured_json_and_cri_files_like_parse(spark, tmp_path):
    logs = _files(tmp_path)
    out = tmp_path / "run"
    man = run_ingest_inputs(spark, logs, out)
    assert man["accounting"]["adds_up"]
    totals = _compare(logs, rundir.load_table(out, "events"))
    # 5 shapes x (2 + 4 consumers of 8 settings, and a block of 3 before its pod's own ERROR + 2 of 8)
    assert totals["settings"] == [5 * (6 * 8 + 3 + 2 * 8)] * 2
    assert totals["partitions"][0] == totals["partitions"][1] > 6 * 900
    assert len(PODS) == 4


@pytest.mark.spark
def test_the_fallback_reader_reads_these_files_like_parse(spark, tmp_path, monkeypatch):
    """Without the coordscope jar (Spark's rlike filter, no gap codes) the files whose lines name their
    origin, CRI logs and soft-wrapped log4j records are read as `parse` reads them: the first two whole,
    the third with every line that may be a piece (lines.fallback_whole, SOFT_WRAP_SUPERSET); the
    manifest says how many files were read whole. On main (566cbc3) the fallback kept 826 of 7,616
    settings of the merged corpus and 23,280 of 54,729 partitions of its CRI file."""
    from pipeline.spark import jvm
    from tests.spark.test_ingest_gaps import _files as files1

    logs = _files(tmp_path)
    (tmp_path / "b").mkdir()
    other = files1(tmp_path / "b")
    for p in other.iterdir():
        p.rename(logs / ("b-" + p.name))
    monkeypatch.setattr(jvm, "register_split_scanner", lambda *a, **k: False)
    out = tmp_path / "run"
    man = run_ingest_inputs(spark, logs, out)
    assert man["accounting"]["adds_up"]
    assert any("rlike" in w for w in man["warnings"])
    n_origin_files = sum(1 for p in logs.iterdir() if "pasted" not in p.name)
    assert any(f"reads {n_origin_files} file(s) whole" in w for w in man["warnings"]), man["warnings"]
    totals = _compare(logs, rundir.load_table(out, "events"))
    assert totals["settings"][0] == totals["settings"][1] > 9 * 50
    assert totals["partitions"][0] == totals["partitions"][1] > 6 * 900


@pytest.mark.spark
def test_records_waiting_across_a_split_boundary_read_like_parse(spark, tmp_path):
    """Merged files cut into 16 KiB splits (a few hundred lines each): a ConsumerConfig block begun
    before a boundary has lines of its own after it, between other pods' lines. The scanner hands them
    to the split before the boundary (SplitScanner.claim: continuation lines of an origin none of whose
    non-continuation lines came since the boundary), so the block is read whole, as in `parse`; a CRI
    line's parts likewise (criLead). On main (566cbc3; the same files, the same splits) blocks lost the
    settings after the boundary."""
    from tests.spark.test_ingest_gaps import _files as files1

    logs = _files(tmp_path, copies=8)
    (tmp_path / "b").mkdir()
    for p in files1(tmp_path / "b").iterdir():
        if "pasted" not in p.name:
            text = p.read_text().splitlines()
            p.write_text("\n".join(text * 6) + "\n")   # (line numbers differ per copy: both readings alike)
            p.rename(logs / ("b-" + p.name))
    out = tmp_path / "run"
    man = run_ingest_inputs(spark, logs, out, extra_conf={"spark.sql.files.maxPartitionBytes": "16384"})
    assert man["accounting"]["adds_up"]
    assert sum(f["size_bytes"] // 16384 for f in man["inputs"]) >= 40   # boundaries
    totals = _compare(logs, rundir.load_table(out, "events"))
    assert totals["settings"][0] == totals["settings"][1] > 1000
    assert totals["partitions"][0] == totals["partitions"][1] > 16 * 900


@pytest.mark.spark
def test_cri_runs_across_split_boundaries_read_like_parse(spark, tmp_path):
    """A CRI log in 5,000-byte splits: every 16 KiB part crosses one boundary or more. The split after a
    boundary looks back at the line before its first one (SplitScanner.criLead) and hands back the parts
    that continue a partial line; the split before reads on through them (as it keeps them in one split:
    drop_gaps.cri_rule). On main (566cbc3) the 30 assignments held 23,280 of their 54,729 partitions."""
    logs = tmp_path / "logs"
    logs.mkdir()
    cri: list[str] = []
    for s in range(10):
        cri += cri_file(s)
    (logs / "cri.log").write_text("\n".join(cri) + "\n")
    out = tmp_path / "run"
    man = run_ingest_inputs(spark, logs, out, extra_conf={"spark.sql.files.maxPartitionBytes": "5000"})
    assert man["accounting"]["adds_up"]
    totals = _compare(logs, rundir.load_table(out, "events"))
    assert totals["partitions"] == [54729, 54729]


@pytest.mark.spark
def test_records_longer_than_a_split_are_said_not_silently_cut(spark, tmp_path):
    """In 5,000-byte splits (about 35 lines) a ConsumerConfig block interleaved with other pods' lines
    runs past the next split's end, where the scanner's window stops (SplitScanner.claim): such a file
    may read otherwise than `parse`, and then the manifest says so for that file (the split's problem:
    records of merged origins that may be cut). A file whose events equal `parse`'s may be named too
    (a record seen cut may still be read whole), one that differs is always named."""
    from parsers.reader import parse_path

    logs = tmp_path / "logs"
    logs.mkdir()
    for shape in ("stern-colour", "fluent-bit"):
        text: list[str] = []
        for c in range(6):
            text += merged(SHAPES[shape], 4, 30 + c)
        (logs / f"{shape}.log").write_text("\n".join(text) + "\n")
    out = tmp_path / "run"
    man = run_ingest_inputs(spark, logs, out, extra_conf={"spark.sql.files.maxPartitionBytes": "5000"})
    assert man["accounting"]["adds_up"]
    events = rundir.load_table(out, "events")
    differing = 0
    for p in sorted(logs.iterdir()):
        mine = events[events.source == str(p)]
        got = sorted((int(r.line_no), r.kind, r.extra_json or "") for r in mine.itertuples())
        outcomes, _summary = parse_path(str(p))
        want = sorted((o.event.line_no, o.event.kind, json.dumps(o.event.extra, sort_keys=True) if o.event.extra else "")
                      for o in outcomes if o.event is not None)
        got = [(n, k, json.dumps(json.loads(x), sort_keys=True) if x else "") for n, k, x in got]
        said = [w for w in man["warnings"] if w.startswith(f"{p}:") and "may be cut" in w]
        if got != want:
            differing += 1
            assert said, p.name
    assert differing >= 1   # (the case is there: blocks longer than a split)
