# The newcomer's two commands: `make demo` and `make test`.
# Both create .venv, install coordscope into it and make sure Java 17+ is there (Spark needs it).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
ARGS ?=
# test workers (pytest-xdist): two suit a 2-core machine; TEST_WORKERS=0 runs the suite in one process
TEST_WORKERS ?= 2

.PHONY: demo test lint java browser setup clean compiled

setup: $(STAMP) java

$(STAMP): pyproject.toml setup.py
	@$(PY) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "coordscope needs Python 3.11+, found " + sys.version.split()[0])'
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	@touch $@

java:
	@bash scripts/ensure_java.sh

browser:
	@bash scripts/ensure_browser.sh

demo: setup
	$(BIN)/coordscope demo $(ARGS)

test: setup browser
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup $(ARGS)

# rebuild the compiled hot path after editing one of its modules (setup.py; until then the edited
# module runs as Python, parsers/_accel.py)
compiled: $(STAMP)
	$(BIN)/pip install -q --no-deps -e .
	@$(BIN)/coordscope --version

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache parsers/_compiled
