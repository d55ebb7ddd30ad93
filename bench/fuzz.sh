#!/bin/sh
# The loader fuzzing of tests/test_fuzz_loaders.py with a larger budget and fresh random inputs:
#   bench/fuzz.sh [EXAMPLES_PER_LOADER]   (default 5000)
# Every mutated file must load or raise a kvec error, within 10 s.
cd "$(dirname "$0")/.." || exit 1
KVEC_FUZZ_EXAMPLES="${1:-5000}" exec .venv/bin/python -m pytest -q -p no:cacheprovider \
    --hypothesis-seed="$(date +%s)" tests/test_fuzz_loaders.py
