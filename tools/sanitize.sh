#!/usr/bin/env bash
# make sanitize: kvec's C extensions built with AddressSanitizer and UndefinedBehaviorSanitizer, then the
# tests that drive native code run against them. Any sanitizer report fails the run.
#
# The sanitized extensions go to build/sanitize/, never over kvec/*.so (other test runs in this checkout
# may be using those): build/sanitize/pkg/kvec is a copy of the package's Python files with the sanitized
# extensions beside them, first on PYTHONPATH; tools/sanitized_session.py stops the run when any kvec
# module is imported from elsewhere.
#
# Usage: tools/sanitize.sh [pytest arguments]   (default: the tests listed in TESTS below)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PYTHON=${KVEC_SANITIZE_PYTHON:-.venv/bin/python}
case "$PYTHON" in /*) ;; *) PYTHON=$ROOT/$PYTHON ;; esac
OUT=$ROOT/build/sanitize

# The tests whose work is in the extensions, a few minutes under the sanitizers on two cores: the fuzz
# targets of every native entry point and of the loaders, then the suites of the models, trainers,
# padding, jieba, the normalizers and the native encoder. Left out: the TensorFlow/Keras layer tests
# (TensorFlow under ASan is impractical: none of its libraries is built for it, and importing it takes
# minutes), the resource-bound, CLI and pure-Python suites (minutes under ASan's allocator for no
# native code of their own), and tests/test_native_sanitizers.py (its drivers are sanitized builds
# already).
TESTS=(
    tests/test_native_fuzz.py
    tests/test_spec_encoder.py
    tests/test_fuzz_loaders.py
    tests/test_pad_sequences.py
    tests/test_counting.py
    tests/test_bpe.py
    tests/test_wordpiece.py
    tests/test_unigram.py
    tests/test_bottom_up.py
    tests/test_chinese.py
    tests/test_native_path.py
    tests/test_native_decode.py
    tests/test_encode_ragged.py
    tests/test_byte_level.py
    tests/test_normalizers.py
)

# The optimisation is setup.py's own (-O3), so the code checked is the code shipped. float-cast-overflow
# (a double too large for the integer it is cast to) is not part of -fsanitize=undefined in GCC.
# -fno-wrapv: Python's own flags make signed overflow wrap, which hides it from UBSan; the core is also
# built without them (the TensorFlow kernels), so an overflow there is a bug.
SANITIZERS="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer"
# setup.py needs the setuptools of pyproject.toml's build-system, which a venv's own may predate; it is
# installed under $OUT/setuptools, leaving the venv as it is
if ! PYTHONPATH="$OUT/setuptools" "$PYTHON" -c 'import setuptools, sys; sys.exit(int(setuptools.__version__.split(".")[0]) < 77)' 2>/dev/null; then
    "$PYTHON" -m pip install --quiet --disable-pip-version-check --target "$OUT/setuptools" 'setuptools>=77'
fi
echo "== building the sanitized extensions into $OUT/lib"
mkdir -p "$OUT"
if ! CFLAGS="$SANITIZERS -fno-wrapv -g" LDFLAGS="$SANITIZERS" PYTHONPATH="$OUT/setuptools" \
    "$PYTHON" setup.py build_ext --build-lib "$OUT/lib" --build-temp "$OUT/tmp" > "$OUT/build.log" 2>&1; then
    cat "$OUT/build.log"
    echo "sanitize: FAILED, the sanitized build failed" >&2
    exit 1
fi
grep -E "(warning|error):" "$OUT/build.log" || true

rm -rf "$OUT/pkg" "$OUT/reports"
mkdir -p "$OUT/pkg" "$OUT/reports" "$OUT/run"
tar -C "$ROOT" --exclude='*.so' --exclude=__pycache__ --exclude=_csrc -cf - kvec | tar -C "$OUT/pkg" -xf -
cp "$OUT"/lib/kvec/*.so "$OUT/pkg/kvec/"

# The interpreter is not instrumented, so the ASan runtime is preloaded ahead of it. Python allocates
# through malloc (PYTHONMALLOC) so that the extensions' PyMem blocks get ASan's guards instead of
# pymalloc's arenas. Leak detection is off: CPython leaves its own objects behind at exit, which is noise.
# ASan writes its reports to files under $OUT/reports too, so that one raised in a subprocess a test
# ignores still fails this run. UBSan's reports ignore log_path in a build with both sanitizers: they
# are found in pytest's output, where --capture=sys leaves what C writes to stderr.
LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
export LD_PRELOAD
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=0:log_path=$OUT/reports/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export PYTHONMALLOC=malloc
export KVEC_SANITIZED_PACKAGE="$OUT/pkg/kvec"
export PYTHONPATH="$OUT/pkg:$ROOT/tools${PYTHONPATH:+:$PYTHONPATH}"

if [ $# -eq 0 ]; then set -- "${TESTS[@]}"; fi
echo "== running ${*} under ASan and UBSan"
status=0
# from $OUT/run, so that `python -m` puts no folder holding the in-tree kvec first on sys.path;
# --import-mode=append puts the repository root (for tests.support) after the sanitized package
(cd "$OUT/run" && "$PYTHON" -m pytest --rootdir="$ROOT" -c "$ROOT/pyproject.toml" --import-mode=append \
    --capture=sys -p sanitized_session -p no:cacheprovider -q "${@/#tests/$ROOT/tests}") 2>&1 |
    tee "$OUT/pytest.log" || status=$?
unset LD_PRELOAD

# The description fuzzer: its driver is built with the sanitizers itself, so it runs in the checkout's own
# interpreter, not the preloaded one. Its seeds are the crafted descriptions of tests/test_hostile_
# descriptions.py (a check that was quadratic, a memory bomb, marks to order); a case over its CPU time
# bound stops the driver, and one over ASan's memory limits aborts it with a report: either fails the run.
echo "== the description fuzzer: crafted shapes and their mutations, each case bounded"
(cd "$ROOT" && env -u PYTHONPATH -u KVEC_SANITIZED_PACKAGE "$PYTHON" -m pytest -q -p no:cacheprovider \
    tests/test_hostile_descriptions.py -k under_the_sanitizers) 2>&1 | tee -a "$OUT/pytest.log" || status=$?

reports=$(find "$OUT/reports" -type f | sort)
for report in $reports; do
    echo "== sanitizer report $report"
    cat "$report"
done
if [ -n "$reports" ] || grep -q -E "runtime error:|ERROR: (Address|Leak|UndefinedBehavior)Sanitizer" "$OUT/pytest.log"; then
    echo "sanitize: FAILED, the sanitizers reported errors" >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "sanitize: FAILED, pytest exited $status" >&2
    exit "$status"
fi
echo "sanitize: passed, no sanitizer report"
