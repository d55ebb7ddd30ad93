"""Benchmark kvec's native jieba segmentation against ``jieba.lcut`` (and rjieba, for reference).

Usage::

    .venv/bin/python bench/chinese.py CORPUS [--runs 3] [--threads 2]

Every line of CORPUS (one document per line) is segmented with jieba's default dictionary, in
accurate mode with the HMM: by ``[jieba.lcut(line) for line in lines]`` (the reference), by kvec's
``Jieba().segment(lines, n_jobs=1)`` and ``segment(lines, n_jobs=--threads)``, and by rjieba's
``cut`` (jieba-rs, a reimplementation that does not give jieba's words). All load their dictionaries
before the clock starts. Runs are interleaved (run i of each side in turn); medians are printed with
the ratios kvec / anchor (below 1.00x kvec is faster; see bench/harness.py). kvec's words must equal
jieba's on every line of every run, whitespace aside (kvec drops it): a mismatch stops the script.
rjieba's lines that differ from jieba's are counted.

Then the dictionary's load in a new process: ``Jieba()`` on its first text (kvec's cache present)
against ``jieba.initialize()`` (jieba's cache present), medians of --runs processes each.
"""

import argparse
import logging
import os
import statistics
import subprocess
import sys
import tempfile

import jieba
import rjieba
from harness import mismatch, positive_int, print_convention, read_lines, report, timed

from kvec.chinese import Jieba


def load_seconds(code):
    """The seconds ``code`` takes in a new process, as it prints them."""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(run.stdout.split()[-1])


KVEC_LOAD = (
    "import time; from kvec.chinese import Jieba; t = time.perf_counter(); Jieba()('预热'); "
    "print(time.perf_counter() - t)"
)
JIEBA_LOAD = (
    "import logging, time, jieba; jieba.setLogLevel(logging.WARNING); t = time.perf_counter(); jieba.initialize(); "
    "print(time.perf_counter() - t)"
)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", help="UTF-8 text file, one document per line")
    parser.add_argument("--runs", type=positive_int, default=3, help="runs per side (default 3)")
    parser.add_argument("--threads", type=positive_int, default=2, help="kvec's threads for the second figure")
    args = parser.parse_args(argv)
    print_convention()

    jieba.setLogLevel(logging.WARNING)
    lines = read_lines(args.corpus)
    jieba.initialize()
    segmenter = Jieba()
    segmenter("预热")  # loads kvec's dictionary before timing, as jieba.initialize does for the anchor
    rjieba.cut("预热")

    expected = None
    times = {"one": [], "threads": [], "jieba": [], "rjieba": []}
    sides = {
        "one": lambda: segmenter.segment(lines, n_jobs=1),
        "threads": lambda: segmenter.segment(lines, n_jobs=args.threads),
        "jieba": lambda: [jieba.lcut(line) for line in lines],
        "rjieba": lambda: [rjieba.cut(line) for line in lines],
    }
    rjieba_differs = 0
    for run in range(args.runs):
        outputs = {}
        for name, side in sides.items():
            outputs[name], seconds = timed(side)
            times[name].append(seconds)
        if expected is None:
            expected = [[w for w in words if w and not w.isspace()] for words in outputs["jieba"]]
            clean = [[w for w in words if w and not w.isspace()] for words in outputs["rjieba"]]
            rjieba_differs = sum(a != b for a, b in zip(clean, expected))
        for name in ("one", "threads"):
            if outputs[name] != expected:
                line = next(i for i, (a, b) in enumerate(zip(outputs[name], expected)) if a != b)
                mismatch(
                    "jieba", f"run {run}, {name}, line {line}: kvec {outputs[name][line][:8]} vs {expected[line][:8]}"
                )
        del outputs

    words = sum(map(len, expected))
    print(f"corpus {args.corpus}  ({len(lines):,} lines, {words:,} words)")
    report("segment, 1 thread", "jieba.lcut", times["one"], times["jieba"], "; identical words on every line")
    report(f"segment, {args.threads} threads", "jieba.lcut", times["threads"], times["jieba"], "; identical words")
    report(f"{args.threads} threads vs 1", "1 thread", times["threads"], times["one"])
    rjieba_s = statistics.median(times["rjieba"])
    print(
        f"{'rjieba (reference)':<28}rjieba {rjieba_s:.3f}s  jieba.lcut {statistics.median(times['jieba']):.3f}s  "
        f"kvec 1 thread / rjieba {statistics.median(times['one']) / rjieba_s:.2f}x  "
        f"({rjieba_differs:,} lines differ from jieba's)"
    )

    with tempfile.TemporaryDirectory() as folder:
        os.environ["KVEC_CACHE_DIR"] = folder
        load_seconds(KVEC_LOAD)  # builds kvec's cache
        kvec_loads = [load_seconds(KVEC_LOAD) for _ in range(args.runs)]
    jieba_loads = [load_seconds(JIEBA_LOAD) for _ in range(args.runs)]
    report("load, new process", "jieba.initialize", kvec_loads, jieba_loads, "; both from their caches")


if __name__ == "__main__":
    main()
