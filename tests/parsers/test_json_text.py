"""parsers.json_text.dumps writes the text json.dumps writes (orjson where that is the same text),
and the report's and `replay --format json`'s documents take the fast path and keep their text."""

from __future__ import annotations

import datetime as dt
import enum
import json
import subprocess
import sys
from pathlib import Path

import pytest

from parsers import json_text

REPO = Path(__file__).resolve().parents[2]


class Color(enum.Enum):
    RED = "red"


DOCS = {
    "plain": {"a": [1, 2.5, None, True, False, "x"], "b": {}, "c": [], "d": {"e": ({"f": ()},)}, "g": -0.0},
    "non-ascii": {"g\u00e9": ["caf\u00e9 \U0001F600", "\u2028", "\x00\x1f\x7f"]},
    "float-forms": {"small": 2.5e-05, "tiny": 1e-7, "big": 1e16, "huge": 1.7976931348623157e308, "one": 1.0},
    "non-finite": [float("nan"), float("inf"), float("-inf")],
    "int-keys": {1: "a", "b": {2: [3]}},
    "beyond-64-bits": {"n": 1 << 70, "m": -(1 << 64)},
    "default-str": {"when": dt.datetime(2024, 3, 1, 10, 0, tzinfo=dt.UTC), "color": Color.RED, "set": {1}},
    "top-level-scalar": "x",
    "empty-list": [],
}


@pytest.mark.parametrize("doc", list(DOCS.values()), ids=list(DOCS))
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_same_text_as_json_dumps(doc, ensure_ascii):
    want = json.dumps(doc, indent=2, ensure_ascii=ensure_ascii, default=str)
    assert json_text.dumps(doc, indent=2, ensure_ascii=ensure_ascii, default=str) == want


def test_without_default_the_same_error():
    with pytest.raises(TypeError):
        json_text.dumps({"when": dt.date(2024, 3, 1)}, indent=2)


def test_only_exact_json_types_take_the_fast_path():
    assert json_text.plain_json(DOCS["plain"]) and json_text.plain_json(DOCS["non-ascii"])
    for name in ("float-forms", "non-finite", "int-keys", "default-str"):
        assert not json_text.plain_json(DOCS[name]), name


def test_report_json_is_json_dumps_text(tmp_path):
    from pipeline.report import build_report, render
    from tests.report.fixture_run import write_problem_run

    report = build_report(write_problem_run(tmp_path / "run"))
    assert json_text.plain_json(report)  # the fast path is taken
    assert render(report, "json") == json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def test_replay_json_is_json_dumps_text(tmp_path):
    events = tmp_path / "events.jsonl"
    with events.open("wb") as out:
        subprocess.run([sys.executable, "-m", "pipeline.cli", "parse", "sample_logs"], cwd=REPO, stdout=out, stderr=subprocess.DEVNULL, check=True)
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "replay", str(events), "--format", "json"],
                       cwd=REPO, capture_output=True, text=True, check=True)
    docs = json.loads(r.stdout)
    assert isinstance(docs, list) and len(docs) > 1 and docs[0]["generations"]
    assert json_text.plain_json(docs)
    assert r.stdout == json.dumps(docs, indent=2) + "\n"
