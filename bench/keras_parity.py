"""Benchmark kvec against the legacy Keras text utilities it replaces, checking parity as it goes.

Usage::

    .venv/bin/python bench/keras_parity.py CORPUS [--runs N] [--skip-matrix]

CORPUS is a UTF-8 text file with one document per line. Each workload below runs N times (default 5),
kvec and the oracle interleaved (kvec run i, then oracle run i) so that machine noise hits both alike.
For each workload the script prints the median wall-clock seconds (``time.perf_counter``) of kvec and
of the oracle, and their ratio kvec / oracle (below 1.00x kvec is faster; see bench/harness.py).

Workloads:

1. ``fit_on_texts(lines)`` on a fresh ``Tokenizer(num_words=20000, oov_token="<OOV>")`` per run:
   ``kvec.text.Tokenizer`` vs ``keras_preprocessing.text.Tokenizer``.
2. ``texts_to_sequences(lines)``, each library on its own tokenizer fitted in workload 1.
3. ``texts_to_matrix(lines[:20000], mode="tfidf")`` (a 20000 x 20000 float64 matrix, 3.2 GB per
   result; skipped with ``--skip-matrix``), with the floor that page faults put on any dense result;
   then kvec's ``texts_to_matrix(..., sparse=True)`` (a ``scipy.sparse.csr_matrix`` of the same values)
   against the same dense legacy call, and the sparse call's peak memory (``tracemalloc``, which sees
   NumPy's and SciPy's arrays) against the dense matrix's size.
4. ``pad_sequences(seqs, maxlen=128)`` on the sequences of workload 2: ``kvec.pad_sequences`` vs
   ``keras.utils.pad_sequences`` (Keras 3, imported only at that point).

Only the library calls are timed; reading the corpus, the parity checks and garbage collection (run
before every timed call) are not. The outputs of the first run of each workload are compared and the
script exits with an error naming the mismatch if kvec's and the oracle's results differ in any way:
vocabulary (``word_index`` and ``word_counts`` in the same order, ``word_docs``, ``index_docs``,
``document_count``), sequences, matrices (values and dtype) or padded arrays (values, dtype, shape).
"""

import argparse
import os
import platform
import statistics
import tracemalloc

import numpy as np
from harness import LABEL_WIDTH, interleave, mismatch, positive_int, print_convention, read_lines, report, timed

NUM_WORDS = 20000
OOV_TOKEN = "<OOV>"
MATRIX_TEXTS = 20000
MATRIX_MODE = "tfidf"
MAXLEN = 128


# ---- command line and corpus -------------------------------------------------------------------------


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", help="UTF-8 text file, one document per line")
    parser.add_argument("--runs", type=positive_int, default=5, help="runs per workload (default 5)")
    parser.add_argument(
        "--skip-matrix", action="store_true", help="skip the texts_to_matrix workload (slow, 3.2 GB per result)"
    )
    return parser.parse_args(argv)


def print_header(path, lines):
    megabytes = os.path.getsize(path) / 1e6
    print(f"corpus  {path}  ({len(lines):,} lines, {megabytes:.1f} MB)")
    print(f"python  {platform.python_version()}  numpy {np.__version__}")
    print(flush=True)


# ---- parity checks -------------------------------------------------------------------------------------


def check_tokenizers(kvec_tok, oracle_tok):
    workload = "fit_on_texts"
    if list(kvec_tok.word_index.items()) != list(oracle_tok.word_index.items()):
        mismatch(workload, "word_index differs (content or order)")
    if list(kvec_tok.word_counts.items()) != list(oracle_tok.word_counts.items()):
        mismatch(workload, "word_counts differs (content or order)")
    if dict(kvec_tok.word_docs) != dict(oracle_tok.word_docs):
        mismatch(workload, "word_docs differs")
    if dict(kvec_tok.index_docs) != dict(oracle_tok.index_docs):
        mismatch(workload, "index_docs differs")
    if kvec_tok.document_count != oracle_tok.document_count:
        mismatch(workload, f"document_count {kvec_tok.document_count} != {oracle_tok.document_count}")


def check_sequences(kvec_seqs, oracle_seqs):
    if kvec_seqs == oracle_seqs:
        return
    if len(kvec_seqs) != len(oracle_seqs):
        mismatch("texts_to_sequences", f"{len(kvec_seqs)} sequences != {len(oracle_seqs)}")
    line = next(i for i, (a, b) in enumerate(zip(kvec_seqs, oracle_seqs)) if a != b)
    mismatch("texts_to_sequences", f"first difference at line {line}")


def check_arrays(workload, kvec_array, oracle_array):
    if kvec_array.shape != oracle_array.shape:
        mismatch(workload, f"shape {kvec_array.shape} != {oracle_array.shape}")
    if kvec_array.dtype != oracle_array.dtype:
        mismatch(workload, f"dtype {kvec_array.dtype} != {oracle_array.dtype}")
    if not np.array_equal(kvec_array, oracle_array):
        mismatch(workload, "values differ")


# ---- workloads -----------------------------------------------------------------------------------------


def bench_fit(lines, runs):
    """Workload 1; returns the tokenizers fitted in the first run (kvec, oracle)."""
    from keras_preprocessing.text import Tokenizer as OracleTokenizer

    from kvec.text import Tokenizer

    def fit(tokenizer_class):
        tokenizer = tokenizer_class(num_words=NUM_WORDS, oov_token=OOV_TOKEN)
        tokenizer.fit_on_texts(lines)
        return tokenizer

    kvec_times, oracle_times, tokenizers = interleave(
        lambda: fit(Tokenizer), lambda: fit(OracleTokenizer), runs, check_tokenizers
    )
    report("fit_on_texts", "keras_preprocessing", kvec_times, oracle_times)
    return tokenizers


def bench_sequences(tokenizers, lines, runs):
    """Workload 2; returns the sequences of the first run (kvec, oracle)."""
    kvec_tok, oracle_tok = tokenizers
    kvec_times, oracle_times, sequences = interleave(
        lambda: kvec_tok.texts_to_sequences(lines),
        lambda: oracle_tok.texts_to_sequences(lines),
        runs,
        check_sequences,
    )
    report("texts_to_sequences", "keras_preprocessing", kvec_times, oracle_times)
    return sequences


def bench_matrix(tokenizers, lines, runs):
    """Workload 3; the first run's matrices are compared, then freed like all the others."""
    kvec_tok, oracle_tok = tokenizers
    texts = lines[:MATRIX_TEXTS]
    kvec_times, oracle_times, _ = interleave(
        lambda: kvec_tok.texts_to_matrix(texts, mode=MATRIX_MODE),
        lambda: oracle_tok.texts_to_matrix(texts, mode=MATRIX_MODE),
        runs,
        lambda a, b: check_arrays("texts_to_matrix", a, b),
        keep=False,
    )
    report(f"texts_to_matrix {MATRIX_MODE}", "keras_preprocessing", kvec_times, oracle_times)
    report_allocation_floor(kvec_tok.texts_to_sequences(texts), NUM_WORDS, runs)
    kvec_times, oracle_times, _ = interleave(
        lambda: kvec_tok.texts_to_matrix(texts, mode=MATRIX_MODE, sparse=True),
        lambda: oracle_tok.texts_to_matrix(texts, mode=MATRIX_MODE),
        runs,
        lambda a, b: check_arrays("texts_to_matrix sparse", a.toarray(), b),
        keep=False,
    )
    report(f"  sparse=True {MATRIX_MODE}", "keras_preprocessing", kvec_times, oracle_times)
    report_sparse_memory(lambda: kvec_tok.texts_to_matrix(texts, mode=MATRIX_MODE, sparse=True), len(texts))


def report_sparse_memory(build, rows):
    """The peak memory of one sparse build against the size of the dense matrix it stands for."""
    tracemalloc.start()
    matrix = build()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    dense = rows * NUM_WORDS * 8
    stored = matrix.data.nbytes + matrix.indices.nbytes + matrix.indptr.nbytes
    print(
        f"{'  sparse=True peak memory':<{LABEL_WIDTH}}{peak / 1e6:.1f} MB ({stored / 1e6:.1f} MB kept, "
        f"{matrix.nnz:,} cells) against the dense {dense / 1e9:.1f} GB: 1/{dense / peak:.0f}",
        flush=True,
    )


def report_allocation_floor(sequences, width, runs):
    """Seconds to allocate the zero matrix and write its non-zero cells once, with nothing computed.

    Both libraries pay this: the first write to each 4 KiB page of the (mostly empty) matrix is a
    kernel page fault. It bounds the speed-up any implementation can show on this workload.
    """
    rows = np.repeat(np.arange(len(sequences)), [len(s) for s in sequences])
    columns = np.fromiter((j for s in sequences for j in s), dtype=np.int64, count=len(rows))
    cells = rows * width + columns

    def allocate_and_write():
        x = np.zeros((len(sequences), width))
        x.reshape(-1)[cells] = 1.0
        return None

    seconds = statistics.median(timed(allocate_and_write)[1] for _ in range(runs))
    print(
        f"{'  of which page faults':<{LABEL_WIDTH}}np.zeros + first write of the same cells: {seconds:.3f}s", flush=True
    )


def bench_pad(sequences, runs):
    """Workload 4: each library pads its own sequences from workload 2."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras

    from kvec import pad_sequences

    kvec_seqs, oracle_seqs = sequences
    kvec_times, oracle_times, _ = interleave(
        lambda: pad_sequences(kvec_seqs, maxlen=MAXLEN),
        lambda: keras.utils.pad_sequences(oracle_seqs, maxlen=MAXLEN),
        runs,
        lambda a, b: check_arrays("pad_sequences", a, b),
        keep=False,
    )
    report("pad_sequences", "keras", kvec_times, oracle_times)


def main(argv=None):
    args = parse_args(argv)
    lines = read_lines(args.corpus)
    print_convention()
    print_header(args.corpus, lines)

    tokenizers = bench_fit(lines, args.runs)
    sequences = bench_sequences(tokenizers, lines, args.runs)
    if not args.skip_matrix:
        bench_matrix(tokenizers, lines, args.runs)
    bench_pad(sequences, args.runs)

    print("\nall outputs identical")


if __name__ == "__main__":
    main()
