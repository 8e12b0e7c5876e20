"""coordscope parsers: log lines and dumps -> typed coordination events (pure Python, no JVM)."""
