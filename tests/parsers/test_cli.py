"""`coordscope parse` and `coordscope explain` as a user runs them."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

LINE = "[2024-03-01 10:15:30,123] INFO [Consumer clientId=c1, groupId=g1] Successfully joined group with generation Generation{generationId=4, memberId='c1-9a', protocol='range'} (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)"


def _cli(repo_root, *args, stdin=None):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=repo_root, capture_output=True,
                          text=True, input=stdin, timeout=120)


def test_parse_real_logs_dir_json_lines_and_summary(repo_root, shared_dir):
    r = _cli(repo_root, "parse", str(shared_dir / "real_logs" / "045-client-spring-boot.log"),
             str(shared_dir / "real_logs" / "019-client-connect.log"))
    assert r.returncode == 0, r.stderr
    events = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(events) == 9
    assert events[1]["kind"] == "sync_succeeded" and events[1]["generation"] == 76 and events[1]["line_no"] == 2
    assert "layout=spring_boot" in r.stderr and "layout=log4j_logger_line" in r.stderr
    assert "lines read 9, ignored 0, parsed 9, unparsed 0" in r.stderr
    assert "partitions_assigned=2" in r.stderr


def test_parse_missing_binary_gz_stdin(repo_root, tmp_path):
    b = tmp_path / "bin.log"
    b.write_bytes(b"\x00\xff\x00" * 100)
    g = tmp_path / "x.log.gz"
    g.write_bytes(gzip.compress((LINE + "\n").encode()))
    r = _cli(repo_root, "parse", str(tmp_path / "missing.log"), str(b), str(g), "-", stdin=LINE + "\n")
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert "missing.log: no such file" in r.stderr
    assert "binary file" in r.stderr
    events = [json.loads(x) for x in r.stdout.splitlines()]
    assert [(e["source"], e["generation"]) for e in events] == [(str(g), 4), ("-", 4)]


def test_parse_summary_json_and_bad_layout(repo_root, tmp_path):
    p = tmp_path / "a.log"
    p.write_text(LINE + "\n\n")
    r = _cli(repo_root, "parse", "--summary-json", "--no-events", str(p))
    assert r.returncode == 0 and r.stdout == ""
    s = json.loads(r.stderr)
    assert s["totals"]["lines_read"] == 2 and s["totals"]["parsed"] == 1 and s["kinds"] == {"join_succeeded": 1}
    r = _cli(repo_root, "parse", "--layout", "nonsense", str(p))
    assert r.returncode == 2 and "unknown layout 'nonsense'" in r.stderr and "Traceback" not in r.stderr


def test_explain_parsed_and_unmatched(repo_root):
    r = _cli(repo_root, "explain", LINE)
    assert r.returncode == 0, r.stderr
    assert "layout:    log4j" in r.stdout and "kind:      join_succeeded" in r.stdout
    assert "generation = 4" in r.stdout and "AbstractCoordinator.java" in r.stdout
    bad = LINE.replace("Successfully joined group", "Successfully joined the group")
    r = _cli(repo_root, "explain", "--json", bad)
    assert r.returncode == 1
    info = json.loads(r.stdout)
    assert info["result"] == "unparsed"
    assert info["closest_rules"][0]["template"].startswith("Successfully joined group")
