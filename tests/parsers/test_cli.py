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


def test_explain_dump_and_describe_lines(repo_root, shared_dir):
    r = _cli(repo_root, "explain", "--json", "[g1,orders,3]::OffsetAndMetadata(offset=42, leaderEpoch=Optional.empty, "
             "metadata=, commitTimestamp=1548381505084, expireTimestamp=None)")
    info = json.loads(r.stdout)
    assert r.returncode == 0 and info["kind"] == "offset_record"
    assert (info["fields"]["group_id"], info["fields"]["partition"], info["fields"]["offset"]) == ("g1", 3, 42)
    lines = (shared_dir / "real_logs" / "002-groups_describe-describe.log").read_text().splitlines()[:2]
    r = _cli(repo_root, "explain", "-", stdin="\n".join(lines) + "\n")
    assert r.returncode == 0 and "kind:      describe_row" in r.stdout and "partition = 4" in r.stdout


def test_parse_keeps_unparsed_coordinator_lines_with_why(repo_root, tmp_path):
    p = tmp_path / "u.log"
    odd = LINE.replace("Successfully joined group with generation", "Magically joined group at generation")
    p.write_text(odd + "\n[2024-03-01 10:15:31,000] INFO Kafka startTimeMs: 1 (org.apache.kafka.common.utils.AppInfoParser)\n")
    r = _cli(repo_root, "parse", str(p))
    assert r.returncode == 0
    events = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(events) == 1
    e = events[0]
    assert e["kind"] == "unparsed" and e["line_no"] == 1 and e["raw"] == odd
    assert e["group_id"] == "g1" and e["client_id"] == "c1"  # the prefix is still read
    assert "no client rule matched" in e["why"] and "Magically joined group" in e["why"]
    assert "parsed 0, unparsed 1" in r.stderr and "ignored 1" in r.stderr
