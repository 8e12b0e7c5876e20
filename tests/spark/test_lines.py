"""lines.py: exact (file, line number) for every candidate line, counts for the rest, on the JVM."""

from __future__ import annotations

import pytest

from parsers import CANDIDATE_REGEX
from tests.spark.conftest import ABSTRACT_COORDINATOR, client, write

pytestmark = pytest.mark.spark


def _expected(lines: list[str]) -> list[tuple[int, str]]:
    import re

    rx = re.compile(CANDIDATE_REGEX)
    return [(i, ln) for i, ln in enumerate(lines, 1) if rx.search(ln)]


def test_line_numbers_exact_across_splits_and_gzip(spark, small_splits, tmp_path):
    from pipeline.spark import lines

    big = []
    for i in range(400):
        big.append(f"[2024-05-01 10:00:{i % 60:02d},000] INFO Processed batch {i} " + "x" * (i % 37) + " (com.acme.App)")
        if i % 7 == 0:
            big.append(client(f"10:00:{i % 60:02d},500", f"Committed offset {i} for partition t-0", level="DEBUG"))
        if i % 50 == 0:
            big.append("\tat org.apache.kafka.clients.consumer.KafkaConsumer.poll(KafkaConsumer.java:1)")
    plain = write(tmp_path / "a.log", big)
    gz = write(tmp_path / "b.log.gz", big[:150], gz=True)
    blocks = lines.read_blocks(spark, [str(plain), str(gz)], CANDIDATE_REGEX)
    counts = {r["spath"].rsplit("/", 1)[1]: r for r in lines.file_counts(blocks).collect()}
    assert counts["a.log"]["splits"] > 5          # the scan really was split
    assert counts["b.log.gz"]["splits"] == 1      # gzip is never split
    assert counts["a.log"]["lines_read"] == len(big)
    assert counts["b.log.gz"]["lines_read"] == 150
    got = lines.candidates(blocks).collect()
    by_file: dict[str, list[tuple[int, str]]] = {}
    for r in got:
        by_file.setdefault(r["spath"].rsplit("/", 1)[1], []).append((r["line_no"], r["value"]))
    assert sorted(by_file["a.log"]) == _expected(big)
    assert sorted(by_file["b.log.gz"]) == _expected(big[:150])
    assert counts["a.log"]["candidates"] == len(_expected(big))


def _trace_log(frames: int) -> list[str]:
    noise = [f"[2024-05-01 09:59:{i:02d},000] INFO Processed batch {i} of orders (com.acme.App)" for i in range(30)]
    rows = [client("10:00:00,000", "Rebalance failed.", logger=ABSTRACT_COORDINATOR),
            "org.apache.kafka.common.errors.RebalanceInProgressException: The group is rebalancing, so a rejoin is needed."]
    rows += [f"\tat org.apache.kafka.Frame.number{i}(Frame.java:{i})" for i in range(frames)]
    rows += [client("10:00:01,000", "Received successful Heartbeat response", level="DEBUG", logger=ABSTRACT_COORDINATOR)]
    return noise + rows + noise


def test_a_stack_trace_cut_by_a_split_boundary_stays_with_its_head(spark, small_splits, tmp_path):
    """The scanner hands the continuation lines after a split's last line to that split, also
    when the trace covers whole splits (199 frames, 2 KB splits)."""
    import pyarrow.parquet as pq

    from pipeline.spark import lines, parse_stage

    rows = _trace_log(199)
    path = write(tmp_path / "trace.log", rows)
    scan = lines.read_blocks(spark, [str(path)], CANDIDATE_REGEX)
    got = lines.candidates(scan).collect()
    assert scan.rows.count() > 5
    assert len({r["block"] for r in got if 31 <= r["line_no"] <= 231}) == 1   # the whole record: one split
    assert sorted((r["line_no"], r["value"]) for r in got) == _expected(rows)
    fmt = ("trace.log", "log", "log4j", ())
    staged = tmp_path / "staged"
    staged.mkdir()
    splits = parse_stage.parse_splits(scan.rows, {r["spath"]: fmt for r in got}, str(staged)).collect()
    events = pq.read_table(staged).to_pylist()      # written by the parsing workers
    assert [r["status"] for r in events] == ["parsed", "parsed"]
    before = lines.line_offsets([(r["split_no"], r["spath"], r["block"], r["n_lines"]) for r in splits])
    events.sort(key=lambda e: e["line_no"] + before[e["split_no"]])
    assert [e["line_no"] + before[e["split_no"]] for e in events] == [31, 232]
    assert "RebalanceInProgressException" in events[0]["raw"]
    assert sum(r["n_lines"] for r in splits) == len(rows)
    assert sum(r["n_cands"] for r in splits) == sum(r["n_parsed"] for r in splits) == len(_expected(rows))


@pytest.mark.parametrize("split_bytes", list(range(2000, 2900, 53)))
def test_the_fallback_reader_hands_over_like_the_scanner(spark, tmp_path, split_bytes):
    """Split boundaries before the exception line, inside the frames, before the next record:
    the Java scanner and the rlike fallback return the same (split, line, text) rows."""
    from pipeline.spark import lines

    rows = _trace_log(10)
    path = write(tmp_path / "trace.log", rows)
    old = spark.conf.get("spark.sql.files.maxPartitionBytes")
    old_open = spark.conf.get("spark.sql.files.openCostInBytes")
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(split_bytes))
    try:
        java = lines.read_blocks(spark, [str(path)], CANDIDATE_REGEX)
        assert java.filter == "java"
        fallback = lines.Scan(lines._read_with_rlike(spark, [str(path)], CANDIDATE_REGEX, None), "rlike")
        got_java = sorted((r["block"], r["line_no"], r["value"]) for r in lines.candidates(java).collect())
        got_rlike = sorted((r["block"], r["line_no"], r["value"]) for r in lines.candidates(fallback).collect())
        n_splits = java.rows.count()
    finally:
        spark.conf.set("spark.sql.files.maxPartitionBytes", old)
        spark.conf.set("spark.sql.files.openCostInBytes", old_open)
    assert n_splits > 1
    assert got_java == got_rlike
    assert [(n, v) for _, n, v in got_java] == _expected(rows)
    assert len({b for b, n, _ in got_java if 31 <= n <= 42}) == 1


def test_overlong_candidate_is_cut_but_counted(spark, tmp_path):
    from pipeline.spark import lines

    long_line = client("10:00:00,000", "Committed offset 1 for partition t-0 " + "y" * (lines.MAX_LINE_CHARS + 10),
                       level="DEBUG")
    path = write(tmp_path / "long.log", ["[2024-05-01 09:59:59,000] INFO Started App (com.acme.App)", long_line])
    blocks = lines.read_blocks(spark, [str(path)], CANDIDATE_REGEX)
    (r,) = lines.candidates(blocks).collect()
    assert r["line_no"] == 2 and r["chars"] == len(long_line) and len(r["value"]) == lines.MAX_LINE_CHARS


REAL_LIKE = (r"(?: key: |::|COORDINATOR \(ID\)|Group|Group Metadata Manager|GroupCoordinator|\[GroupId|eartbeat|"
             r'ebalanc|ms: |oordinator|group|group |\{"key":)|^\s|^Caused by: |'
             r"^(?:[a-z_$][\w$]*\.)+[\w$]*(?:Exception|Error)(?::|$)")


def _lines_to_check(shared_dir) -> list[str]:
    import random

    out = [ln for p in sorted((shared_dir / "real_logs").glob("*.log"))
           for ln in p.read_text(encoding="utf-8", errors="replace").splitlines()]
    rnd = random.Random(7)
    alphabet = "abcdefghijklmnopqrstuvwxyzGCK {}[]():\\-.\"^$|*+?\t"
    out += ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 40))) for _ in range(20000)]
    # every ASCII first byte before tails that complete an anchored alternative: the scanner
    # rules a line out by its first byte when no anchored alternative can start with it
    tails = ["", "x", " at x", "aused by: x", "uppressed: x", "a.b.FooException: x", "oo.BarError", "ar 1, 2024 1:02:03 PM x",
             "-name | x", "9 | \tx"]
    out += [chr(c) + t for c in range(1, 128) for t in tails]
    # a line of every anchored form, and each with its first or its second character replaced by
    # every ASCII one: the scanner also rules a line out by its first two characters
    for line in ANCHORED_FORMS:
        out += [chr(c) + line[1:] for c in range(1, 128)] + [line[0] + chr(c) + line[2:] for c in range(1, 128)]
    return out + ["group", "Grou", "[GroupId x]", "x ms: 3", "  at", "java.lang.IllegalStateException: x", "{\"key\":1}"]


# one line of each anchored alternative of CANDIDATE_REGEX and REAL_LIKE (the continuation forms
# of parsers.reader: indented lines, exception heads, multi-line layouts' first lines)
ANCHORED_FORMS = [
    "\tat x", " at x", "Caused by: x", "Suppressed: x", "org.acme.FooException: x", "a.BError",
    "Mar 1, 2024 1:02:03 PM x", "Mar 1, 2024 @ 01:02:03", "app-1 | \tx", "[pod/orders-1/app] \tx",
    "web-1 host-2 \tx", "\x1b[36mweb-1\x1b[0m host \tx", "<13>Mar  1 02:03:04 host app[12]: \tx",
    "2024-03-01T02:03:04Z host app[1]: \tx", "<13>1 2024-03-01T02:03:04Z h a p m - \tx",
    '{"log": "\\tat x"}', '{"message":"Caused by: x"}', "[{", "}],", "  ]", "---", "timestamp: '2024-03-01T",
    "Mon 2024-03-01 02:03:04.123 host [s=", "LogRecord #12", "ObservedTimestamp: 2024-", "Timestamp: 2024-",
    "2024-03-01T02:03:04Z stdout P x",
]


@pytest.mark.parametrize("which", ["real_like", "parsers"])
def test_fast_regex_matches_the_same_lines(which, shared_dir):
    import re

    from pipeline.spark.regex_shape import fast_regex

    regex = CANDIDATE_REGEX if which == "parsers" else REAL_LIKE
    fast = fast_regex(regex)
    assert fast != regex and len(fast) < len(regex) + 40
    a, b = re.compile(regex), re.compile(fast)
    lines = _lines_to_check(shared_dir)
    assert sum(1 for ln in lines if a.search(ln)) > 100
    assert [ln for ln in lines if bool(a.search(ln)) != bool(b.search(ln))] == []


def test_fast_regex_leaves_non_literal_regexes_alone():
    from pipeline.spark.regex_shape import fast_regex

    assert fast_regex(r"^\s|a.b") == r"^\s|a.b"
    assert fast_regex("(?:x|y)|^z") == "(?=[xy])(?:x|y)|^z"


def _java_matches(spark, regex: str, texts: list[str]) -> list[bool]:
    from pipeline.spark import jvm

    assert jvm.register_candidate_filter(spark, regex)
    spark.createDataFrame([(i, t) for i, t in enumerate(texts)], "i int, value string").createOrReplaceTempView("texts")
    got = spark.sql(f"SELECT i, {jvm.UDF_NAME}(CAST(value AS BINARY)) AS m FROM texts").collect()
    return [m for _, m in sorted((r["i"], r["m"]) for r in got)]


UNICODE = ["grüße aus der group", "Ünïcode Coordinator", "日本語 ebalanc", "\u00a0indented by nbsp", "\u2003em space",
           "ä" * 30 + "oordinator", "Gro\u0301up", "\tat x", "", " ", "Caused by: x", "Caused by:x",
           "\x1cseparator first", "\x85next line", "x\u2028y", "١٢٣ digits"]


@pytest.mark.parametrize("which", ["real_like", "parsers", "unanchored"])
def test_java_filter_matches_the_same_lines(which, spark, shared_dir):
    """The Java Aho-Corasick filter (pipeline/spark/jvm) decides exactly what the regex decides."""
    import re

    regex = {"parsers": CANDIDATE_REGEX, "real_like": REAL_LIKE,
             "unanchored": r"(?:Coordinator|group )|a.b|^\s|x\d+y"}[which]
    texts = _lines_to_check(shared_dir) + UNICODE + ["a~b", "x12y", "xy", "zzgroup z"]
    rx = re.compile(regex)
    expected = [bool(rx.search(t)) for t in texts]
    assert sum(expected) > 100
    got = _java_matches(spark, regex, texts)
    assert [t for t, e, g in zip(texts, expected, got, strict=True) if e != g] == []


@pytest.mark.parametrize("which", ["real_like", "parsers", "unanchored"])
def test_split_scanner_keeps_the_same_lines(which, spark, shared_dir, tmp_path):
    """The scanner's in-place matching (bytes viewed as chars, decoded only when a non-ASCII byte
    is read) keeps exactly the lines the regex keeps."""
    import re

    from pipeline.spark import lines

    regex = {"parsers": CANDIDATE_REGEX, "real_like": REAL_LIKE,
             "unanchored": r"(?:Coordinator|group )|a.b|^\s|x\d+y|é\w"}[which]
    texts = [t for t in _lines_to_check(shared_dir) + UNICODE + ["a~b", "x12y", "xy", "café", "éa", "ée"]
             if not re.search(r"[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]", t)]   # one line each
    path = tmp_path / "texts.log"
    path.write_text("\n".join(texts) + "\n", encoding="utf-8")
    scan = lines.read_blocks(spark, [str(path)], regex)
    assert scan.filter == "java"
    got = sorted((r["line_no"], r["value"]) for r in lines.candidates(scan).collect())
    rx = re.compile(regex)
    expected = [(i, t) for i, t in enumerate(texts, 1) if rx.search(t)]
    assert len(expected) > 100
    assert got == expected


def test_jar_is_built_once_and_reported(tmp_path, monkeypatch):
    from pipeline.spark import jvm

    monkeypatch.setenv("COORDSCOPE_CACHE", str(tmp_path))
    jar = jvm.jar_path()
    assert jar.parent == tmp_path and jar.name.startswith("coordscope-spark-")
    import zipfile

    assert "coordscope/spark/CandidateFilter.class" in zipfile.ZipFile(jar).namelist()
    mtime = jar.stat().st_mtime_ns
    assert jvm.jar_path() == jar and jar.stat().st_mtime_ns == mtime     # cached, not rebuilt
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("COORDSCOPE_CACHE", str(tmp_path / "other"))
    with pytest.raises(jvm.JarUnavailable, match="javac"):
        jvm.jar_path()


def test_java_flavour_keeps_python_whitespace():
    from pipeline.spark.regex_shape import java_flavour

    assert java_flavour(r"^\s|[^\s]x|[\w.\-]+\s*\| ") == r"^[\s\x1c-\x1f]|[^\s\x1c-\x1f]x|[\w.\-]+[\s\x1c-\x1f]*\| "
    assert java_flavour(r"a\\s") == r"a\\s"          # an escaped backslash then s: not \s


def _hadoop_lines(data: bytes) -> list[str]:
    """Lines as Hadoop's LineRecordReader (and Python's universal newlines) cut them."""
    import re

    text = data.decode("utf-8", errors="replace")
    parts = re.split(r"\r\n|\r|\n", text)
    return parts[:-1] if parts and parts[-1] == "" else parts


@pytest.mark.parametrize("split_bytes", ["7", "13", "64", "100000"])
def test_split_scanner_cuts_lines_like_hadoop_at_every_boundary(spark, tmp_path, split_bytes):
    """CRLF, CR and LF endings, CRLF cut by a split boundary, empty lines, no final newline,
    multi-byte characters: the same lines and line numbers as a whole-file read, for split sizes
    that put boundaries everywhere."""
    import re

    from pipeline.spark import lines

    body = ("a group x\r\nplain\rb Coordinator\n\n\r\nünï group\r\n" * 9 + "tail group").encode()
    path = tmp_path / "endings.log"
    path.write_bytes(body)
    old = spark.conf.get("spark.sql.files.maxPartitionBytes")
    spark.conf.set("spark.sql.files.maxPartitionBytes", split_bytes)
    try:
        scan = lines.read_blocks(spark, [str(path)], CANDIDATE_REGEX)
        assert scan.filter == "java"
        (counts,) = lines.file_counts(scan).collect()
        got = sorted((r["line_no"], r["value"]) for r in lines.candidates(scan).collect())
    finally:
        spark.conf.set("spark.sql.files.maxPartitionBytes", old)
    expected_lines = _hadoop_lines(body)
    rx = re.compile(CANDIDATE_REGEX)
    assert counts["lines_read"] == len(expected_lines)
    assert got == [(i, ln) for i, ln in enumerate(expected_lines, 1) if rx.search(ln)]
    assert counts["splits"] == (1 if split_bytes == "100000" else -(-len(body) // int(split_bytes)))


def test_truncated_gzip_keeps_the_lines_before_the_damage_and_says_so(spark, tmp_path):
    import gzip

    from pipeline.spark import lines

    rows = [f"[2024-05-01 10:00:00,000] INFO line {i} of group g (x)" for i in range(5000)]
    data = gzip.compress(("\n".join(rows) + "\n").encode())
    path = tmp_path / "cut.log.gz"
    path.write_bytes(data[: len(data) // 2])
    scan = lines.read_blocks(spark, [str(path)], CANDIDATE_REGEX)
    (counts,) = lines.file_counts(scan).collect()
    got = [r["line_no"] for r in lines.candidates(scan).collect()]
    assert 0 < counts["lines_read"] < 5000
    assert sorted(got) == list(range(1, counts["lines_read"] + 1))
    assert "reading stopped early" in counts["problems"] and f"{counts['lines_read']} lines" in counts["problems"]


def test_split_plan_survives_quotes_and_backslashes_in_paths(spark, small_splits, tmp_path):
    """The split plan travels as one SQL literal: file names with quotes, backslashes and
    non-ASCII letters come back exactly, every split once, dealt over the tasks."""
    from urllib.parse import unquote

    from pipeline.spark import lines

    rows = [client(f"10:00:{i % 60:02d},000", f"Committed offset {i} for partition t-0", level="DEBUG")
            for i in range(120)]
    paths = [write(tmp_path / name, rows) for name in ("it's.log", "back\\slash.log", "grüße \"q\".log")]
    scan = lines.read_blocks(spark, [str(p) for p in paths], CANDIDATE_REGEX)
    counts = {unquote(r["spath"].rsplit("/", 1)[1]): r for r in lines.file_counts(scan).collect()}
    assert sorted(counts) == sorted(p.name for p in paths)     # Spark paths are URIs: %-escaped
    assert all(c["splits"] > 3 and c["lines_read"] == 120 and c["candidates"] == 120 for c in counts.values())
    plan = lines.plan_splits([(p.as_uri(), str(p), p.stat().st_size) for p in paths], 2048, set())
    dealt = lines.deal_splits(plan, 2)
    tasks = lines.split_tasks(spark, plan, dealt)
    assert tasks.rdd.getNumPartitions() == len(dealt) > 2
    got = [tuple(r) for r in tasks.collect()]
    assert sorted(got) == sorted(plan)
    per_task = tasks.rdd.glom().map(lambda rs: [tuple(r) for r in rs]).collect()
    assert per_task == [[plan[i] for i in t] for t in dealt]


def test_spark_paths_in_one_call_equal_the_names_spark_reads(spark, tmp_path):
    """jvm/PathNames.java names many files in one call; the names must be those Spark gives the
    files in `_metadata.file_path` (the rlike reader and the split rows key files by them), odd
    characters included."""
    from pipeline.spark import jvm, lines

    assert jvm.has_class(spark, jvm.PATHS_CLASS)
    names = ["plain.log", "with space.log", "per%cent.log", "hash#tag.log", "ünïcode.log", "a+b=c.log"]
    paths = [write(tmp_path / n, [f"line of {n}"]) for n in names]
    got = lines.spark_paths(spark, [str(p) for p in paths])
    seen = {r[0] for r in spark.read.text([str(p) for p in paths]).select("_metadata.file_path").collect()}
    assert set(got) == seen and len(got) == len(names)
    assert got == [lines.spark_path(spark, str(p)) for p in paths]
    assert lines.spark_paths(spark, []) == []
    assert got[1].endswith("/with%20space.log") and got[0].startswith("file:/") and not got[0].startswith("file:///")


def test_split_plan_of_many_files_is_one_literal(spark, tmp_path):
    """3,000 splits: the plan travels as one JSON literal (no SQL expression per split), every
    split exactly once, each task's splits in the partition of its place in the deal and in the
    deal's order, with odd characters intact."""
    from pipeline.spark import lines

    plan = [(i, f"file:/x/it's \"{i}\" ü.log", f"/x/it's \"{i}\" ü.log", i * 10, 10 + i, i % 2 == 0,
             "-\\[pod/(x)\\] " if i % 3 == 0 else "") for i in range(3000)]
    dealt = lines.deal_splits(plan, 4)
    tasks = lines.split_tasks(spark, plan, dealt)
    rows = [tuple(r) for r in tasks.collect()]
    assert sorted(rows) == plan
    assert tasks.rdd.getNumPartitions() == len(dealt)
    per_task = tasks.rdd.glom().map(lambda rs: [r["split_no"] for r in rs]).collect()
    assert per_task == [[plan[i][0] for i in t] for t in dealt]
    # largest first: the biggest split (2999, 3009 bytes) opens the first task
    assert per_task[0][:3] == [2999, 2998, 2997]


SCAN_BUFFER = 1 << 16     # SplitScanner.BUFFER: the bytes it reads at a time


def test_split_scanner_decides_lines_cut_by_its_read_buffer(spark, tmp_path):
    """Lines that cross the scanner's 64 KB read buffer: their first byte (which rules the
    anchored alternatives in or out) and a candidate word cut in two by the buffer's end are
    seen across the refill; lines without a word or an anchored start stay out, however long."""
    import re

    from pipeline.spark import lines

    filler = "=" * (SCAN_BUFFER + 1000)   # every line below crosses a buffer end; "=" starts no anchored form
    texts = [
        "\t" + filler,                            # continuation (^\s): kept
        "[2024-05-01 10:00:00,000] INFO " + filler,   # '[' rules the anchored forms out: not kept
        "Caused by: " + filler,                   # kept
        "Cause by " + filler,                     # a near miss of "Caused by: ": not kept
        "9" + filler + " group ",                 # a word after the buffer end: kept
        "9" + filler + " grou",                   # a word's prefix at the line's end: not kept
        "7" + filler,                             # not kept
        "org.acme.FooException: " + filler,       # kept
    ]
    body = "\n".join(texts) + "\n"
    # a word cut by a buffer end: "Coordinator" from 5 bytes before a multiple of 64 KB on
    cut = (len(body.encode()) // SCAN_BUFFER + 2) * SCAN_BUFFER
    head = "7" + "x" * (cut - len(body.encode()) - 6)
    texts += [head + "Coordinator here", head + "Coordinat0r here"]
    body = "\n".join(texts) + "\n"
    assert body.encode().index(b"Coordinator") == cut - 5
    path = tmp_path / "long.log"
    path.write_text(body, encoding="utf-8")
    scan = lines.read_blocks(spark, [str(path)], CANDIDATE_REGEX)
    assert scan.filter == "java"
    got = sorted((r["line_no"], r["chars"]) for r in lines.candidates(scan).collect())
    (counts,) = lines.file_counts(scan).collect()
    rx = re.compile(CANDIDATE_REGEX)
    assert got == [(1, len(texts[0])), (3, len(texts[2])), (5, len(texts[4])), (8, len(texts[7])), (9, len(texts[8]))]
    assert got == [(i, len(t)) for i, t in enumerate(texts, 1) if rx.search(t)]
    assert counts["lines_read"] == len(texts) == 10


def test_split_scanner_reads_a_lines_first_two_bytes_across_its_read_buffer(spark, tmp_path):
    """A line whose first byte is the last of a 64 KB read buffer: its second byte (which rules
    the anchored alternatives in or out with the first) is the next buffer's first. Lines of an
    anchored form starting there are kept, a Kafka log4j line ("[2" rules it out) is not."""
    import re

    from pipeline.spark import lines

    texts = ["[pod/orders-1/app] \tat x", "[2024-05-01 10:00:00,000] INFO x", "[{", "  at y", "Caused by: z"]
    body = ""
    for t in texts:
        # the line before ends so that t starts on the last byte of a buffer
        start = (len(body.encode()) // SCAN_BUFFER + 1) * SCAN_BUFFER - 1
        body += "7" + "x" * (start - len(body.encode()) - 2) + "\n" + t + "\n"
        assert body.encode().index(t.encode()) % SCAN_BUFFER == SCAN_BUFFER - 1
    path = tmp_path / "edges.log"
    path.write_text(body, encoding="utf-8")
    scan = lines.read_blocks(spark, [str(path)], CANDIDATE_REGEX)
    assert scan.filter == "java"
    got = sorted(r["line_no"] for r in lines.candidates(scan).collect())
    rx = re.compile(CANDIDATE_REGEX)
    want = [i for i, t in enumerate(body.split("\n")[:-1], 1) if rx.search(t)]
    assert got == want == [2, 6, 8, 10]


def test_split_scanner_finds_every_word_after_runs_that_match_nothing(spark, tmp_path):
    """Runs of bytes that lead the automaton back to its start state (digits, punctuation,
    letters no word starts with) are skipped without walking it: every candidate word right
    after, inside or at the end of such runs is found, and near misses (a word with its last
    byte changed) are not kept."""
    import re

    from parsers.reader import CANDIDATE_WORDS
    from pipeline.spark import lines

    runs = ["0123456789", "-./,;=]})", "bqtvwxyz", "", "[2024-05-01 10:00:00,000] "]
    texts = []
    for k, w in enumerate(sorted(CANDIDATE_WORDS)):
        run = runs[k % len(runs)]
        miss = w[:-1] + ("0" if w[-1] != "0" else "1")
        texts += [f"{run}{w}{run}", f"{run}{run}{w}", f"{run}{miss}{run}", f"9{run}{miss}", f"9{run}{w[:-1]}"]
    texts = [t for t in texts if "\n" not in t and "\r" not in t]
    path = tmp_path / "words.log"
    path.write_text("\n".join(texts) + "\n", encoding="utf-8")
    scan = lines.read_blocks(spark, [str(path)], CANDIDATE_REGEX)
    got = sorted((r["line_no"], r["value"]) for r in lines.candidates(scan).collect())
    rx = re.compile(CANDIDATE_REGEX)
    expected = [(i, t) for i, t in enumerate(texts, 1) if rx.search(t)]
    assert len(expected) >= 2 * len(CANDIDATE_WORDS) and len(texts) - len(expected) >= 2 * len(CANDIDATE_WORDS)
    assert got == expected


@pytest.mark.parametrize("split_bytes", ["29", "100000"])
def test_packed_candidates_reach_the_parser_line_for_line(spark, tmp_path, monkeypatch, split_bytes):
    """The scan's packed handoff (lines.CAND_COLUMNS: indexes, text joined by \\n, code point
    counts), read by the parse stage as the workers do: every candidate reaches the parser once,
    with its line number and its exact text. Non-ASCII and malformed UTF-8 (U+FFFD, as before),
    a lone \\r and \\r\\n ending lines, empty lines of a whole file (an empty text that is one
    line), an empty file (a split with none), an overlong multi-byte line (cut by code points,
    counted whole), a last line without a newline; split sizes that cut the file everywhere."""
    import re
    import sys
    import types

    import parsers
    from parsers.events import Event
    from pipeline.spark import lines, parse_stage

    big = "group " + "é" * (lines.MAX_LINE_CHARS + 5)
    body = ("a group ünï 日本 😀\r\nno word\rb Coordinator\r\n".encode()
            + b"bad group \xff\xfe x \xe2\x82 end\n\nplain\n" + big.encode() + b"\nlast group")
    path = tmp_path / "mixed.log"
    path.write_bytes(body)
    whole = tmp_path / "table.txt"
    whole.write_bytes(b"GROUP TOPIC\n\n g1  t \n\n")
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")

    def parse_lines(source, pairs, fmt):    # every line it is given comes back as an event with its text
        for no, text in pairs:
            yield parsers.LineOutcome(no, "parsed", Event(source, no, "client", "seen", text), None)

    fake = types.ModuleType("fake_parsers_for_handoff")
    fake.FileFormat, fake.parse_lines = parsers.FileFormat, parse_lines
    monkeypatch.setitem(sys.modules, "fake_parsers_for_handoff", fake)
    old = spark.conf.get("spark.sql.files.maxPartitionBytes")
    spark.conf.set("spark.sql.files.maxPartitionBytes", split_bytes)
    try:
        uris = [str(path), str(whole), str(empty)]
        spaths = lines.spark_paths(spark, uris)
        scan = lines.read_blocks(spark, uris, CANDIDATE_REGEX, whole_files=[spaths[1]])
        assert scan.filter == "java"
        batches = scan.rows.toArrow().to_batches()
    finally:
        spark.conf.set("spark.sql.files.maxPartitionBytes", old)
    rows = [r for b in batches for r in b.to_pylist()]
    assert set(rows[0]) == {"split_no", "spath", "block", "n_lines", "problem", *lines.CAND_COLUMNS}
    for r in rows:                      # one text piece, one index and one count per candidate
        assert len(r["idx"]) == len(r["chars"]) == (len(r["text"].split("\n")) if r["idx"] else 0)
    assert [r["n_lines"] for r in rows if r["spath"] == spaths[2]] == [0]
    formats = {s: (u.rsplit("/", 1)[1], "log", "plain", ()) for s, u in zip(spaths, uris, strict=True)}
    out = [r for b in parse_stage.parse_batches(iter(batches), formats, "fake_parsers_for_handoff",
                                                lines.MAX_LINE_CHARS) for r in b.to_pylist()]
    offsets = lines.line_offsets([(r["split_no"], r["spath"], r["block"], r["n_lines"]) for r in rows])
    got = sorted((r["source"], offsets[r["split_no"]] + r["line_no"], r["raw"]) for r in out
                 if r["has_event"] and r["status"] == "parsed")
    overlong = [(r["source"], offsets[r["split_no"]] + r["line_no"], r["raw"], r["why"]) for r in out
                if r["has_event"] and r["status"] == "unparsed"]
    expected_lines = _hadoop_lines(body)
    rx = re.compile(CANDIDATE_REGEX)
    want = [("mixed.log", i, t) for i, t in enumerate(expected_lines, 1) if rx.search(t) and t != big]
    want += [("table.txt", i, t) for i, t in enumerate(["GROUP TOPIC", "", " g1  t ", ""], 1)]
    assert got == sorted(want)
    assert "bad group \ufffd\ufffd x \ufffd end" in {t for _, _, t in got}
    big_no = expected_lines.index(big) + 1
    assert overlong == [("mixed.log", big_no, big[:lines.MAX_LINE_CHARS],
                         f"overlong line: {len(big)} characters (limit {lines.MAX_LINE_CHARS}); text cut")]
    split_rows = [r for r in out if r["status"] == parse_stage.SPLIT]
    assert sum(r["n_lines"] for r in split_rows) == len(expected_lines) + 4
    assert sum(r["n_cands"] for r in split_rows) == len(want) + 1


def test_the_fallback_readers_packed_rows_reach_the_parser_like_the_scanners(spark, tmp_path, monkeypatch):
    """The rlike fallback packs its candidates the same way (lines._packed): through the parse
    stage its rows give the same (file, line, text) outcomes as the scanner's, empty lines of a
    whole file, non-ASCII text and an overlong line included."""
    import sys
    import types

    import parsers
    from parsers.events import Event
    from pipeline.spark import lines, parse_stage

    def parse_lines(source, pairs, fmt):
        for no, text in pairs:
            yield parsers.LineOutcome(no, "parsed", Event(source, no, "client", "seen", text), None)

    fake = types.ModuleType("fake_parsers_for_fallback")
    fake.FileFormat, fake.parse_lines = parsers.FileFormat, parse_lines
    monkeypatch.setitem(sys.modules, "fake_parsers_for_fallback", fake)
    body = ["a group ünï 😀", "no word", "", "b Coordinator", "group " + "é" * (lines.MAX_LINE_CHARS + 5)] * 3
    path = write(tmp_path / "mixed.log", body)
    whole = write(tmp_path / "table.txt", ["GROUP TOPIC", "", " g1  t ", ""])
    uris = [str(path), str(whole)]
    spaths = lines.spark_paths(spark, uris)
    formats = {s: (u.rsplit("/", 1)[1], "log", "plain", ()) for s, u in zip(spaths, uris, strict=True)}
    old_open = spark.conf.get("spark.sql.files.openCostInBytes")
    try:
        java = lines.read_blocks(spark, uris, CANDIDATE_REGEX, whole_files=[spaths[1]])
        rlike = lines.Scan(lines._read_with_rlike(spark, uris, CANDIDATE_REGEX, [spaths[1]]), "rlike")
        got = {}
        for scan in (java, rlike):
            batches = scan.rows.toArrow().to_batches()
            rows = [r for b in batches for r in b.to_pylist()]
            offsets = lines.line_offsets([(r["split_no"], r["spath"], r["block"], r["n_lines"]) for r in rows])
            out = [r for b in parse_stage.parse_batches(iter(batches), formats, "fake_parsers_for_fallback",
                                                        lines.MAX_LINE_CHARS) for r in b.to_pylist()]
            got[scan.filter] = sorted((r["source"], offsets[r["split_no"]] + r["line_no"], r["status"], r["raw"])
                                      for r in out if r["has_event"])
    finally:
        spark.conf.set("spark.sql.files.openCostInBytes", old_open)
    assert got["java"] == got["rlike"]
    assert [(s, n, st) for s, n, st, _ in got["java"] if s == "table.txt"] == [
        ("table.txt", i, "parsed") for i in (1, 2, 3, 4)]
    assert [n for s, n, st, _ in got["java"] if st == "unparsed"] == [5, 10, 15]
    assert len(got["java"]) == 4 + 9
