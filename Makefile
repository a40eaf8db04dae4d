# Two commands for a newcomer: `make demo` (set up + index a real repository + search it)
# and `make test`. Everything runs in .venv with the embedded PostgreSQL; no API keys.
PYTHON ?= python3
# e.g. make bench BENCH_ARGS="--sets ts --skip-others --scale-levels ''" (see run_all --help)
BENCH_ARGS ?=
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup demo test lint bench dev

$(BIN)/codeatlas: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(BIN)/codeatlas

setup: $(BIN)/codeatlas

demo: setup
	bash scripts/demo.sh

test: setup
	$(BIN)/python -m pytest -q

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pyright

bench: setup
	$(BIN)/pip install --quiet -e ".[dev,bench]"
	$(BIN)/python -m benchmarks.run_all $(BENCH_ARGS)

dev: setup
	$(BIN)/codeatlas dev
