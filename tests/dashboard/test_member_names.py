"""Member lanes are named by host (or log file, or client id) plus a short id; labels are unique."""

from __future__ import annotations

from dashboard.member_names import member_label

UUID_MEMBER = "consumer-fraud-scoring-1-500674b1-face-48d2-8da6-c0009cce094f"


def test_host_then_client_id_then_id():
    assert member_label(UUID_MEMBER, "10.0.0.7", "consumer-fraud-scoring-1") == "10.0.0.7 · 9cce094f"
    assert member_label(UUID_MEMBER, None, "consumer-fraud-scoring-1") == "consumer-fraud-scoring-1 · 9cce094f"
    # no client id column: the member id without its UUID names the client
    assert member_label(UUID_MEMBER, None, None) == "consumer-fraud-scoring-1 · 9cce094f"
    assert member_label("m-1", None, None) == "m-1"


def test_long_names_are_cut_before_the_short_id():
    label = member_label(UUID_MEMBER, None, "a-very-long-client-id-of-some-spring-boot-service")
    assert label.endswith(" · 9cce094f") and len(label) <= 36 and "…" in label


def test_process_without_member_id_is_named_by_its_log_file():
    assert member_label("consumer@/work/logs/host-a/app.log", None, None) == "consumer@app"


def test_erlang_member_ids_keep_their_node_and_process():
    member = "nonode@nohost/<0.1083.0>-3cd8a2d1-71d7-44a2-bb2a-5e0e1c2d3f4a"
    assert member_label(member, None, None) == "nonode@nohost/<0.1083.0> · 1c2d3f4a"


def test_a_stream_of_a_file_split_by_origin_is_named_by_its_origin():
    # (state.stream_namer's "FILE [ORIGIN]": before, the label was the path's last part, "app]")
    import pandas as pd

    from dashboard.member_names import _first

    host = _first(pd.Series(["/logs/pods.log [pod/fraud-2/app]"]))   # memberships' host of that member
    assert member_label(UUID_MEMBER, host, None) == "pod/fraud-2/app · 9cce094f"
    assert member_label("consumer@/logs/all.log [pid:4242]", None, None) == "consumer@pid:4242"
