"""Every wording the generator renders is a template of shared/formats/kafka-coordinator-log-templates.tsv,
valid (by the TSV's version range) for the Kafka version it is rendered for."""

from __future__ import annotations

import csv
import os

import pytest

from pipeline.generator.templates import BROKER, CLIENT, ERA_VERSION, fill
from tests.conftest import shared_missing


def _v(s: str) -> tuple[int, ...]:
    if s == "current":
        return (99,)
    if s.startswith("trunk"):
        return (3, 99)  # trunk-2024-12-27 = 4.0.0-SNAPSHOT, newer than every 3.x release
    return tuple(int(x) for x in s.split("."))


@pytest.fixture(scope="module")
def tsv_rows(shared_dir):
    path = os.path.join(shared_dir, "formats", "kafka-coordinator-log-templates.tsv")
    if not os.path.exists(path):
        shared_missing(path)
    with open(path, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    for r in rows:  # multi-line templates are written with \n and \t escapes in the TSV
        r["template"] = r["template"].replace("\\n", "\n").replace("\\t", "\t")
    return rows


def _cases():
    for side, table in (("client", CLIENT), ("broker", BROKER)):
        for name, eras in table.items():
            for era, (logger, tmpl) in eras.items():
                yield side, name, era, logger, tmpl


@pytest.mark.parametrize(("side", "name", "era", "logger", "tmpl"), list(_cases()),
                         ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in _cases()])
def test_template_is_in_catalog_for_its_version(tsv_rows, side, name, era, logger, tmpl):
    v = _v(ERA_VERSION[era])
    rows = [r for r in tsv_rows if r["side"] == side and r["template"] == tmpl]
    assert rows, f"{name}: template not in the catalog: {tmpl!r}"
    ok = [r for r in rows if _v(r["first_version"]) <= v <= _v(r["last_version"])
          and r["level"] not in ("DEBUG", "TRACE")]
    assert ok, f"{name}: no INFO+ row covers {ERA_VERSION[era]}: {[(r['first_version'], r['last_version']) for r in rows]}"
    short = logger.rsplit(".", 1)[-1].rstrip("$")
    assert any(short in r["notes"] or short in r["source_file"] for r in ok), f"{name}: logger {logger}"


def test_fill_is_slf4j_like():
    assert fill("a {} b {}", 1, "x") == "a 1 b x"
    assert fill("a {} b {}", 1) == "a 1 b {}"
    assert fill("none", 1) == "none"
