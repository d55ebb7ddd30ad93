# Two commands do all set-up on a fresh machine (Python >= 3.10, pip, gcc):
#   make demo   creates .venv, installs kvec, runs examples/demo.py
#   make test   creates .venv with the dev extras (oracles included), runs the test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test bench clean

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

test: $(VENV)/.kvec-dev-installed
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) build *.egg-info kvec/*.so
