# Two commands do all set-up on a fresh machine (Python >= 3.10, pip, gcc):
#   make demo   creates .venv, installs kvec, runs examples/demo.py
#   make test   creates .venv with the dev extras (oracles included), checks style and types, runs the test suite
#   make test-core   a second venv (.venv-core) with only the core and pytest: every oracle test skips
# Also: make lint, make typecheck (both part of make test).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test test-core lint typecheck clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.kvec-installed: pyproject.toml setup.py $(wildcard csrc/*.c csrc/*.h csrc/core/*.c csrc/core/*.h) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.kvec-dev-installed: pyproject.toml setup.py $(wildcard csrc/*.c csrc/*.h csrc/core/*.c csrc/core/*.h) | $(BIN)/python
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

CORE := .venv-core

$(CORE)/.kvec-test-installed: pyproject.toml setup.py $(wildcard csrc/*.c csrc/*.h csrc/core/*.c csrc/core/*.h)
	$(PYTHON) -m venv $(CORE)
	$(CORE)/bin/python -m pip install --quiet --upgrade pip
	$(CORE)/bin/python -m pip install --quiet -e '.[test]'
	touch $@

test-core: $(CORE)/.kvec-test-installed
	$(CORE)/bin/python -m pytest

clean:
	rm -rf $(VENV) $(CORE) build *.egg-info kvec/*.so
