"""Benchmark kvec's parallel jieba segmentation against serial ``jieba.lcut``.

Usage::

    .venv/bin/python bench/chinese.py CORPUS [--runs N] [--n-jobs N]

Both sides segment every line of CORPUS (one document per line) with jieba's default dictionary, in
accurate mode with the HMM. The anchor is ``[jieba.lcut(line) for line in lines]`` in this process; kvec
is ``Jieba().segment(lines, n_jobs=N)`` (default 2, the cores of this project's machines). Both load
their dictionary before the clock starts. Runs are interleaved (kvec run i, then the anchor's run i);
the medians and the ratio kvec / jieba are printed (below 1.00x kvec is faster; see bench/harness.py).
The words must be identical (whitespace aside, which kvec drops): a mismatch stops the script.
"""

import argparse
import logging

import jieba
from harness import interleave, mismatch, positive_int, print_convention, read_lines, report

from kvec.chinese import Jieba


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", help="UTF-8 text file, one document per line")
    parser.add_argument("--runs", type=positive_int, default=3, help="runs per side (default 3)")
    parser.add_argument("--n-jobs", type=positive_int, default=2, help="kvec's worker processes (default 2)")
    args = parser.parse_args(argv)
    print_convention()

    jieba.setLogLevel(logging.WARNING)
    lines = read_lines(args.corpus)
    jieba.initialize()
    segmenter = Jieba()
    segmenter("预热")  # loads kvec's dictionary before timing, as jieba.initialize does for the anchor

    def check(ours, theirs):
        expected = [[w for w in words if w and not w.isspace()] for words in theirs]
        if ours != expected:
            line = next(i for i, (a, b) in enumerate(zip(ours, expected)) if a != b)
            mismatch("jieba", f"line {line}: kvec {ours[line][:8]} vs jieba {expected[line][:8]}")

    kvec_times, jieba_times, _ = interleave(
        lambda: segmenter.segment(lines, n_jobs=args.n_jobs),
        lambda: [jieba.lcut(line) for line in lines],
        args.runs,
        check,
        keep=False,
    )
    print(f"corpus {args.corpus}  ({len(lines):,} lines)")
    report(f"segment, {args.n_jobs} processes", "jieba.lcut (serial)", kvec_times, jieba_times, "; identical words")


if __name__ == "__main__":
    main()
