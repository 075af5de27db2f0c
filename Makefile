# Two commands: `make demo` runs the product, `make test` passes the tests (from a fresh clone).
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test install lint typecheck pytest clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

lint: install
	$(BIN)/ruff check codemode_kernel tests benchmarks

typecheck: install
	$(BIN)/mypy

# The suite needs a PostgreSQL server for the shared-store tests; scripts/test-postgres.sh
# installs Debian's server if missing, starts a throwaway cluster and prints its URL.
pytest: install
	CODEMODE_TEST_POSTGRES_URL="$$(scripts/test-postgres.sh start)" $(BIN)/pytest -q

test: lint typecheck pytest

demo: install
	$(BIN)/python -m codemode_kernel.demo

clean:
	rm -rf $(VENV) build dist
