# Two commands do all set-up on a fresh machine (Python >= 3.10, pip, gcc):
#   make demo   creates .venv, installs kvec, runs examples/demo.py
#   make test   creates .venv with the dev extras (oracles included), checks style and types, runs the test suite
# Also: make lint, make typecheck (both part of make test).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test lint typecheck bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.kvec-installed: pyproject.toml setup.py kvec/_native.c kvec/_unigram.c kvec/_encoder.c kvec/_texts.h kvec/_words.h | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.kvec-dev-installed: pyproject.toml setup.py kvec/_native.c kvec/_unigram.c kvec/_encoder.c kvec/_texts.h kvec/_words.h | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.kvec-installed

demo: $(VENV)/.kvec-installed
	$(BIN)/python examples/demo.py

test: lint typecheck
	$(BIN)/python -m pytest

lint: $(VENV)/.kvec-dev-installed
	$(BIN)/python -m ruff check .
	$(BIN)/python -m ruff format --check .

typecheck: $(VENV)/.kvec-dev-installed
	$(BIN)/python -m mypy

clean:
	rm -rf $(VENV) build *.egg-info kvec/*.so
