#!/bin/sh
# Runs Hugging Face tokenizers' own Python binding tests for the stages kvec mirrors against kvec,
# through tools/tokenizers_shim (kvec's names as `tokenizers`). HF's files are copied into a temporary
# folder and never into this repository.
#   tools/hf_binding_tests.sh HF_TOKENIZERS_CHECKOUT [PYTHON]
set -eu
hf=$1
python=${2:-python}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tests/bindings"
touch "$work/tests/__init__.py" "$work/tests/bindings/__init__.py"
cp "$hf/bindings/python/tests/utils.py" "$work/tests/utils.py"
for name in test_normalizers.py test_pre_tokenizers.py test_tokenizer.py test_processors.py; do
    cp "$hf/bindings/python/tests/bindings/$name" "$work/tests/bindings/$name"
done
cd "$work"
PYTHONPATH="$root/tools/tokenizers_shim:$root" "$python" -m pytest -p no:cacheprovider -q -m "not network" \
    tests/bindings/test_normalizers.py tests/bindings/test_pre_tokenizers.py \
    "tests/bindings/test_tokenizer.py::TestTokenizer::test_decode_stream" \
    "tests/bindings/test_tokenizer.py::TestTokenizer::test_decode_stream_copy_and_prefix_ids" \
    "tests/bindings/test_processors.py::TestTemplateProcessing"
