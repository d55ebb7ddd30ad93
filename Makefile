# Two commands do all set-up on a fresh machine (Python >= 3.10, pip, gcc):
#   make demo   creates .venv, installs kvec, runs examples/demo.py
#   make test   creates .venv with the dev extras (oracles included), checks style and types, runs the test suite
#   make test-core   a second venv (.venv-core) with only the core and pytest: every oracle test skips
#   make sanitize   the C extensions built with AddressSanitizer and UndefinedBehaviorSanitizer into
#                   build/sanitize/ (kvec/*.so are left alone), then the tests that drive native code and
#                   the fuzz targets (tests/test_native_fuzz.py, tests/test_fuzz_loaders.py) run against
#                   them; any sanitizer report fails it (tools/sanitize.sh). CI runs it after make test.
#                   The TensorFlow/Keras layer tests are left out: TensorFlow under ASan is impractical.
#   make spark-example   examples/spark_pipeline.py on Spark's local[2]: count, train BPE, encode into
#                   shards, train a Keras model from them (needs Java; the dev extras have pyspark)
#   make test-backends   a third venv (.venv-backends) with the jax, torch and test extras and no TensorFlow:
#                   the layer tests run on JAX and on PyTorch (KERAS_BACKEND per process) and compare with
#                   the TensorFlow backend of the main venv (.venv, made by make test). PyTorch is its CPU
#                   build ($(TORCH_CPU); override TORCH_CPU where the index offers another)
# Also: make lint, make typecheck (both part of make test).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test test-core test-backends lint typecheck sanitize spark-example clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.kvec-installed: pyproject.toml setup.py $(wildcard csrc/python/*.h csrc/python/*/*.c csrc/python/*/*.h csrc/core/*.c csrc/core/*.h) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.kvec-dev-installed: pyproject.toml setup.py $(wildcard csrc/python/*.h csrc/python/*/*.c csrc/python/*/*.h csrc/core/*.c csrc/core/*.h) | $(BIN)/python
	$(BIN)/python -m pip install --quiet '$(TORCH_CPU)'
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

sanitize: $(VENV)/.kvec-dev-installed
	KVEC_SANITIZE_PYTHON=$(BIN)/python bash tools/sanitize.sh

spark-example: $(VENV)/.kvec-dev-installed
	PYSPARK_PYTHON=$(abspath $(BIN)/python) $(BIN)/python examples/spark_pipeline.py

CORE := .venv-core

$(CORE)/.kvec-test-installed: pyproject.toml setup.py $(wildcard csrc/python/*.h csrc/python/*/*.c csrc/python/*/*.h csrc/core/*.c csrc/core/*.h)
	$(PYTHON) -m venv $(CORE)
	$(CORE)/bin/python -m pip install --quiet --upgrade pip
	$(CORE)/bin/python -m pip install --quiet -e '.[test]'
	touch $@

test-core: $(CORE)/.kvec-test-installed
	$(CORE)/bin/python -m pytest

BACKENDS_VENV := .venv-backends
TORCH_CPU ?= torch==2.13.0+cpu
BACKEND_TESTS := tests/test_layers_backends.py tests/test_layers_portable.py tests/test_examples_backends.py

$(BACKENDS_VENV)/.kvec-backends-installed: pyproject.toml setup.py $(wildcard csrc/python/*.h csrc/python/*/*.c csrc/python/*/*.h csrc/core/*.c csrc/core/*.h)
	$(PYTHON) -m venv $(BACKENDS_VENV)
	$(BACKENDS_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(BACKENDS_VENV)/bin/python -m pip install --quiet '$(TORCH_CPU)'
	$(BACKENDS_VENV)/bin/python -m pip install --quiet -e '.[jax,torch,test]'
	touch $@

test-backends: $(BACKENDS_VENV)/.kvec-backends-installed $(VENV)/.kvec-dev-installed
	! $(BACKENDS_VENV)/bin/python -c 'import tensorflow' 2>/dev/null
	KERAS_BACKEND=jax KVEC_TF_PYTHON=$(abspath $(BIN)/python) $(BACKENDS_VENV)/bin/python -m pytest $(BACKEND_TESTS)

clean:
	rm -rf $(VENV) $(CORE) $(BACKENDS_VENV) build *.egg-info kvec/*.so
