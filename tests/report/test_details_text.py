"""A finding's details are told in sentences, with thousands separators, never as JSON."""

from __future__ import annotations

import json

from pipeline.report.details_text import details_sentences, number


def test_overlap_details_read_as_one_sentence():
    details = {"overlap_ms": 31028, "earlier": {"member": "c-1-aaa", "generation": 3, "end_reason": "session_expiry"},
               "later": {"member": "c-2-bbb", "generation": 4}}
    assert details_sentences(json.dumps(details), "ownership_overlap") == [
        "c-1-aaa (generation 3) still owned the partition when c-2-bbb (generation 4) was given it; both owned it "
        "for 31.0 s (31,028 ms); the first one's ownership ended by session expiry."]


def test_offset_range_and_generic_keys():
    assert details_sentences({"topic": "orders", "partition": 2, "from_offset": 27568, "to_offset": 1200000,
                              "count": 1172432, "estimated": True}) == [
        "Offsets 27,568 to 1,200,000 of orders-2 (about 1,172,432 offsets)."]
    # keys nobody wrote a sentence for: "label: value", durations and instants written out
    assert details_sentences({"window_ms": 300000, "removed_ms": 1767225600000, "causes": ["a", "b"],
                              "odd_key": 12345}) == [
        "Window: 5 min 00 s (300,000 ms).", "Removed by the broker at: 2026-01-01T00:00:00.000Z.",
        "Causes: a, b.", "Odd key: 12,345."]


def test_nothing_to_say_and_bad_json():
    assert details_sentences(None) == [] and details_sentences("{}") == [] and details_sentences("") == []
    assert details_sentences("not json") == ["not json"]
    assert "{" not in " ".join(details_sentences({"nested": {"member": "m", "generation": 2}}))


def test_number():
    assert [number(27568), number(12.5), number(True), number("x")] == ["27,568", "12.5", "yes", "x"]


def test_a_finding_whose_start_is_not_in_the_logs_says_so_in_every_format():
    """A generation formed before the logs begin has no start time: the finding's span says
    "unknown start", and no format prints "None" (the Markdown report printed "None to ...")."""
    from pipeline.report.model import time_span
    assert time_span(None, "2019-07-10T10:21:56.387Z") == "unknown start to 2019-07-10T10:21:56.387Z"
    assert time_span(None, None) == "time unknown"
    assert time_span("2019-07-10T10:21:56.387Z", "2019-07-10T10:21:56.387Z") == "2019-07-10T10:21:56.387Z"
    assert time_span("2019-07-10T10:21:56.387Z", "2019-07-10T10:21:57.000Z") == \
        "2019-07-10T10:21:56.387Z to 2019-07-10T10:21:57.000Z"
    assert time_span("2019-07-10T10:21:56.387Z", None) == "2019-07-10T10:21:56.387Z"


def test_an_expiry_without_a_measured_silence_says_it_is_not_in_the_logs():
    # real_logs 006: the broker names the removal, the member's own log is not in the input
    assert details_sentences({"silence_ms": None, "session_timeout_ms": 45000,
                              "expiry_time": "broker_removal_line"}, "session_expiry") == [
        "How long the member was silent is not in the logs; session.timeout.ms = 45.0 s (45,000 ms).",
        "Expiry time taken from: the broker's removal line."]
    assert details_sentences({"silence_ms": 52000, "session_timeout_ms": 45000, "expiry_time": "estimated"}) == [
        "The member was silent for 52.0 s (52,000 ms), longer than session.timeout.ms = 45.0 s (45,000 ms).",
        "Expiry time taken from: an estimate: the member's last sign of life + session.timeout.ms."]
    assert details_sentences({"expiry_time": "estimated_from_rebalance"}) == [
        "Expiry time taken from: an estimate: one heartbeat interval before another member was told of the rebalance."]
