from pipeline import dashboard_urls as urls


def test_group_url_encodes_ids_as_query_values():
    url = urls.group_url("http://127.0.0.1:8050/", "inventory/eu&x=1", 1000, 2000)
    assert url == "http://127.0.0.1:8050/group?group=inventory%2Feu%26x%3D1&since=1000&until=2000"
    assert urls.parse_query(url.split("?", 1)[1]) == {"group": "inventory/eu&x=1", "since": "1000", "until": "2000"}


def test_optional_parts_are_left_out():
    assert urls.group_url("", "payments") == "/group?group=payments"
    assert urls.owner_url("", "g", "orders-7", 5) == "/owner?group=g&partition=orders-7&at=5"
    assert urls.offsets_url("http://h:1", "g", "orders-7") == "http://h:1/offsets?group=g&partition=orders-7"
    assert urls.member_url("", "g", "m-1", until_ms=9) == "/member?group=g&member=m-1&until=9"
    assert urls.overview_url("") == "/" and urls.unparsed_url("", "a <*>") == "/unparsed?shape=a+%3C%2A%3E"


def test_parse_time_reads_ms_and_iso():
    assert urls.parse_time("1767225600000") == 1767225600000
    assert urls.parse_time("2026-01-01T00:00:00Z") == 1767225600000
    assert urls.parse_time("2026-01-01 00:00:01.5") == 1767225601500  # plotly's zoom strings (UTC)
    assert urls.parse_time("2026-01-01T01:00:00+01:00") == 1767225600000
    assert urls.parse_time("yesterday") is None and urls.parse_time("") is None


def test_partition_names_split_at_the_last_dash():
    assert urls.split_partition("my-topic-12") == ("my-topic", 12)
    assert urls.split_partition("orders") is None and urls.split_partition("orders-x") is None


def test_fmt_ms_is_iso_utc():
    assert urls.fmt_ms(1767225600123) == "2026-01-01T00:00:00.123Z"
    assert urls.fmt_ms(None) == "" and urls.fmt_ms(float("nan")) == ""
