"""Deterministic scenario generator: simulated consumer groups rendered as Kafka logs, with truth.json."""
