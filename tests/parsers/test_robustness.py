"""Arbitrary bytes never crash the reader and the accounting always adds up; bad inputs are
explained (binary, non-UTF-8, overlong lines, empty and missing files, gzip)."""

from __future__ import annotations

import gzip
import io
import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from parsers import CANDIDATE_REGEX, nul_runs, parse_lines, parse_path
from parsers.gzip_stream import archive_of, compression_of
from parsers.reader import MAX_LINE, _encoding

LINE = "[2024-03-01 10:15:30,123] INFO [Consumer clientId=c1, groupId=g1] (Re-)joining group (org.apache.kafka.clients.consumer.internals.AbstractCoordinator)"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=3000))
@example(data=b"\xfe\xff")   # a byte order mark alone (UTF-16 BE): no line
@example(data=b"\xff\xfea\x00\n\x00")
@example(data=b"\xef\xbb\xbfx\n")
def test_arbitrary_bytes_never_crash_and_balance(tmp_path, data):
    p = tmp_path / "x.log"
    p.write_bytes(data)
    outcomes, s = parse_path(str(p))
    outs = list(outcomes)
    assert s.parsed + s.ignored + s.unparsed == s.lines_read == len(outs)
    if archive_of(data[:512]):  # zip, tar, 7z, rar: named as an archive, not read (no line)
        assert s.lines_read == 0 and outs == [] and "archive" in s.messages[0]
        return
    if compression_of(data[:6]):  # gzip, bzip2, xz, zstd magic: a corrupt stream is reported, not crashed on
        assert s.messages or outs is not None
        return
    # lines end at line breaks and at NUL runs (a line break right after a run belongs to it:
    # parsers/nul_runs.py)
    # (decoded as `parse` decodes: UTF-16 or UTF-8 with its byte order mark off, reader._encoding)
    text = nul_runs.as_line_ends(io.TextIOWrapper(io.BytesIO(data), encoding=_encoding(data[:3]), errors="replace",
                                                  newline=None).read())
    n = len(io.StringIO(text).readlines())
    assert s.lines_read == len(outs) == n
    assert s.parsed + s.ignored + s.unparsed == s.lines_read
    assert [o.line_no for o in outs] == list(range(1, n + 1))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=200), st.sampled_from([LINE, "\tat x.y(Z.java:1)", "", "  Caused by: e"])),
                max_size=40))
def test_arbitrary_lines_one_outcome_each_in_order(lines):
    numbered = [(i * 2 + 1, t.replace("\n", " ").replace("\r", " ")) for i, t in enumerate(lines)]  # with gaps
    outs = list(parse_lines("p.log", numbered))
    assert [o.line_no for o in outs] == [n for n, _ in numbered]
    for o in outs:
        assert o.status in ("parsed", "ignored", "unparsed")
        if o.status == "unparsed" and o.event is not None:
            assert o.event.kind == "unparsed" and o.why


def test_binary_file_rejected_with_reason(tmp_path):
    p = tmp_path / "b.log"
    p.write_bytes(b"\x00\x01\x02binary\x00\n" * 50)
    outcomes, s = parse_path(str(p))
    outs = list(outcomes)
    # 100 lines: each NUL run ends one (parsers/nul_runs.py), the line break after the second with it
    assert s.kind == "binary" and s.lines_read == 100 and s.ignored == 100 and s.rejected == 100
    assert any("binary file" in m for m in s.messages)
    assert all(o.why == "binary file" for o in outs)


def test_non_utf8_replaced_and_counted(tmp_path):
    p = tmp_path / "latin1.log"
    p.write_bytes(LINE.encode() + b"\n" + LINE.replace("g1", "gr\xfcn").encode("latin-1") + b"\n")
    outcomes, s = parse_path(str(p))
    outs = list(outcomes)
    assert s.decode_errors == 1 and s.parsed == 2
    assert outs[1].event.group_id == "gr\ufffdn"
    assert any("not valid UTF-8" in m for m in s.messages)


def test_overlong_line_rejected(tmp_path):
    p = tmp_path / "long.log"
    p.write_text(LINE + "\n" + "Member x with epoch 1 " + "y" * (MAX_LINE + 10) + "\n" + LINE + "\n")
    outcomes, s = parse_path(str(p))
    outs = list(outcomes)
    assert [o.status for o in outs] == ["parsed", "unparsed", "parsed"]
    assert s.rejected == 1 and "line too long" in outs[1].why
    assert len(outs[1].event.raw) <= 2000


def test_empty_missing_gzip(tmp_path):
    e = tmp_path / "empty.log"
    e.write_text("")
    outcomes, s = parse_path(str(e))
    assert list(outcomes) == [] and s.kind == "empty" and any("empty file" in m for m in s.messages)
    outcomes, s = parse_path(str(tmp_path / "nope.log"))
    assert list(outcomes) == [] and s.kind == "missing" and "no such file" in s.messages[0]
    g = tmp_path / "c.log.gz"
    g.write_bytes(gzip.compress(((LINE + "\n") * 3).encode()))
    outcomes, s = parse_path(str(g))
    outs = list(outcomes)
    assert s.parsed == 3 and s.layout == "log4j" and outs[2].event.kind == "join_started"


def test_clock_backwards_counted_times_kept():
    a = LINE
    b = LINE.replace("10:15:30,123", "10:15:29,000")
    outs = list(parse_lines("c.log", [(1, a), (2, b), (3, a)], _stats=(stats := {})))
    assert [o.event.ts_ms for o in outs] == [1709288130123, 1709288129000, 1709288130123]
    assert stats["clock_backwards"] == 1


def test_candidate_regex_is_plain_java_compatible_syntax():
    # no Python-only constructs: named groups, (?P, lookbehind with variable width, \Z, (?#
    assert "(?P" not in CANDIDATE_REGEX and "\\Z" not in CANDIDATE_REGEX and "(?#" not in CANDIDATE_REGEX
    rx = re.compile(CANDIDATE_REGEX)
    for non_candidate in ("[2024-03-01 10:15:30,123] INFO Kafka startTimeMs: 1 (org.apache.kafka.common.utils.AppInfoParser)",
                          "2017-03-02 08:44:19.733  INFO 3880 --- [main] o.a.k.clients.producer.ProducerConfig : ProducerConfig values:"):
        assert rx.search(non_candidate) is None


def test_candidate_regex_compiles_in_re2_and_java(tmp_path):
    """Spark's rlike is Java regex; the batch prefilter is RE2 (pyarrow): both must accept it and
    agree with Python on real lines."""
    import shutil
    import subprocess

    import pyarrow as pa
    import pyarrow.compute as pc

    from parsers.reader import candidate_mask

    lines = [LINE, "[2024-03-01 10:15:30,123] INFO Kafka startTimeMs: 1 (org.apache.kafka.common.utils.AppInfoParser)",
             "\tat org.apache.kafka.Foo.bar(Foo.java:1)", "org.apache.kafka.common.errors.TimeoutException",
             "Mar 02, 2017 8:44:19 AM org.apache.kafka.clients.consumer.internals.AbstractCoordinator x",
             "[2024-03-01 10:15:30,123] INFO ConsumerConfig values: ", "app-1  | \tgroup.id = orders",
             "app-1  | processed 3 records", "[2024-03-01 10:15:30,123] INFO ProducerConfig values: "]
    py = [re.search(CANDIDATE_REGEX, t) is not None for t in lines]
    assert py == [True, False, True, True, True, True, True, False, False]
    assert pc.match_substring_regex(pa.array(lines), CANDIDATE_REGEX).to_pylist() == py
    assert candidate_mask(lines) == py
    java = shutil.which("java")
    if java is None:
        return
    src = tmp_path / "Check.java"
    src.write_text(
        "import java.util.regex.*; import java.nio.file.*;\n"
        "public class Check { public static void main(String[] a) throws Exception {\n"
        "  Pattern p = Pattern.compile(Files.readString(Path.of(a[0])));\n"
        "  for (String l : Files.readAllLines(Path.of(a[1]))) System.out.println(p.matcher(l).find());\n"
        "} }\n")
    (tmp_path / "rx.txt").write_text(CANDIDATE_REGEX)
    (tmp_path / "lines.txt").write_text("\n".join(lines) + "\n")
    r = subprocess.run([java, str(src), str(tmp_path / "rx.txt"), str(tmp_path / "lines.txt")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert [x == "true" for x in r.stdout.split()] == py


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("GroupMembe rgenaticoffs\t:_-.[]ExcpError0123ACP,")), max_size=60))
def test_python_candidate_twin_equals_candidate_regex(text):
    from parsers.reader import is_candidate

    assert is_candidate(text) == (re.search(CANDIDATE_REGEX, text) is not None)


def test_python_candidate_twin_on_real_lines(shared_dir):
    from parsers.reader import is_candidate

    for path in sorted((shared_dir / "real_logs").glob("*.log")):
        for line in path.read_text(encoding="utf-8").splitlines():
            assert is_candidate(line) == (re.search(CANDIDATE_REGEX, line) is not None), line


def test_huge_single_line_is_cut_while_reading(tmp_path):
    p = tmp_path / "huge.log"
    with p.open("w") as fh:
        fh.write(LINE + "\n")
        fh.write("x" * (5 * MAX_LINE) + "\n")
        fh.write(LINE + "\n")
    outcomes, s = parse_path(str(p))
    outs = list(outcomes)
    assert [(o.line_no, o.status) for o in outs] == [(1, "parsed"), (2, "ignored"), (3, "parsed")]
    assert s.rejected == 1 and "line too long" in outs[1].why


def test_long_stack_trace_attached_and_capped():
    head = "[2024-03-01 10:15:30,123] ERROR [Consumer clientId=c1, groupId=g1] Offset commit failed on partition t-0 at offset 6: boom (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)"
    trace = [(i, f"\tat org.example.Frame{i}.run(Frame.java:{i})") for i in range(2, 5002)]
    outs = list(parse_lines("st.log", [(1, head), *trace, (5002, LINE)]))
    assert len(outs) == 5002
    assert outs[0].status == "parsed" and outs[0].event.kind == "offset_commit_failed"
    assert all(o.status == "parsed" and o.event is None for o in outs[1:5001])
    assert len(outs[0].event.raw) <= 16384 and outs[0].event.raw.startswith(head)
    assert outs[5001].event.kind == "join_started"
