"""coordscope dashboard: a Dash app over a RUN_DIR (pyarrow/pandas only, never a JVM)."""
