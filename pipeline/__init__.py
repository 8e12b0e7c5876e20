"""coordscope pipeline: Spark batch ingestion, the reference coordinator, replay, reports, CLI."""

import parsers  # noqa: F401 - puts the compiled modules' finder in place (parsers/_accel.py), pipeline.commands.parse among them

__version__ = "0.1.0"
