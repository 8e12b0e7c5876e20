"""coordscope pipeline: Spark batch ingestion, the reference coordinator, replay, reports, CLI."""

__version__ = "0.1.0"
