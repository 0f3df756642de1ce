# tokenprism: `make run` (the main job) and `make test` (the suite) work on a fresh machine
# with only python3, make and bash: both create .venv and install what they need.
PYTHON ?= python3
HOST   ?= localhost
PORT   ?= 8501
TOKENIZER_DIR ?=
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.tokenprism-installed

.PHONY: run test bench install clean builtin-model builtin-table readme-check

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -qq --upgrade pip

# Re-install whenever the project metadata changes. -qq: pip still prints its errors, but not the
# editable-install notice setuptools gives for any layout with package_dir (a fresh install looks clean).
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -qq -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# The main job: the dashboard on http://$(HOST):$(PORT) (make run PORT=8600, HOST=0.0.0.0; TOKENIZER_DIR=DIR
# offers that folder's .gguf and .model files in Compare).
run: $(STAMP)
	$(BIN)/tokenprism dashboard $(if $(TOKENIZER_DIR),--tokenizer-dir '$(TOKENIZER_DIR)') --server.address $(HOST) --server.port $(PORT)

test: $(STAMP)
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest -q

# Every command README.md shows, run on a fresh clone of HEAD, its printed output checked against
# the README's (offline, about two minutes; tests/readme/check.py says what is skipped and why).
readme-check: $(STAMP)
	$(BIN)/python -m tests.readme.check --clone

bench: $(STAMP)
	$(BIN)/python -m tests.benchmarks

# The built-in ownbpe model is data: rebuild it whenever the built-in corpora change
# (a test fails with this command when the committed model is stale).
builtin-model: $(STAMP)
	$(BIN)/python -m analysis.tokenizers.ownbpe_adapter analysis/data/ownbpe-builtin.model

# The built-in corpora measured under the bundled tokenizers (Explore's first chart) is data too:
# rebuild it after the model, whenever the corpora or a bundled vocabulary change (a test says so).
builtin-table: $(STAMP)
	$(BIN)/python -m analysis.pipeline.builtin_table analysis/data/builtin-measured.csv

clean:
	rm -rf $(VENV) build dist *.egg-info
