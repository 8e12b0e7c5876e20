"""How the ingest summary names an expelled member's host (run_summary.host_label)."""

from pipeline.run_summary import host_label


def test_kafka_client_hosts_lose_their_slash_and_log_paths_become_their_stem():
    assert host_label("/10.0.2.13") == "10.0.2.13"
    assert host_label("/kafka-client-7.prod") == "kafka-client-7.prod"
    # a member known only from its log file: an absolute path is a path, not Kafka's "/host" (on
    # 804b852 "/tmp/u16/ps.log" was named "tmp/u16/ps.log")
    assert host_label("/tmp/u16/ps.log") == "ps"
    assert host_label("logs/consumer-1.log.bz2") == "consumer-1"
    assert host_label("consumer-2.log.zst") == "consumer-2"
    assert host_label("worker-3") == "worker-3"
