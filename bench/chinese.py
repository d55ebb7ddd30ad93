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

Then the same cut after --added-words ``add_word`` calls (default 1,000) on both sides: kvec's
``Jieba.add_word`` and jieba's ``Tokenizer.add_word`` take the same words (Han words of the corpus, in
the order first seen, most with jieba's suggested count, every tenth with a count of its own, some
with a space), then kvec's ``segment(lines, n_jobs=1)`` against ``lcut`` of that tokenizer, checked
for identical words; and the seconds the add_word calls themselves take on each side.

Then the dictionary's load in a new process: ``Jieba()`` on its first text (kvec's cache present)
against ``jieba.initialize()`` (jieba's cache present), medians of --runs processes each.
"""

import argparse
import logging
import os
import re
import statistics
import subprocess
import sys
import tempfile

import jieba
import rjieba
from harness import interleave, mismatch, positive_int, print_convention, read_lines, report, timed

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
    parser.add_argument("--added-words", type=positive_int, default=1000, help="add_word calls (default 1,000)")
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

    added_words(lines, args.added_words, args.runs)

    with tempfile.TemporaryDirectory() as folder:
        os.environ["KVEC_CACHE_DIR"] = folder
        load_seconds(KVEC_LOAD)  # builds kvec's cache
        kvec_loads = [load_seconds(KVEC_LOAD) for _ in range(args.runs)]
    jieba_loads = [load_seconds(JIEBA_LOAD) for _ in range(args.runs)]
    report("load, new process", "jieba.initialize", kvec_loads, jieba_loads, "; both from their caches")


def words_to_add(lines, n):
    """``n`` (word, count or None) for add_word: Han runs of 3 to 5 characters cut from the corpus in the
    order first seen (so they change the cut), every tenth with a count of its own, every seventh joined
    to the next by a space (a word jieba's blocks split)."""
    seen = {}
    for line in lines:
        for run in re.findall("[\u4e00-\u9fd5]{3,}", line):
            for start in range(0, len(run) - 2, 3):
                seen.setdefault(run[start : start + 3 + start % 3], None)
                if len(seen) >= n:
                    words = list(seen)
                    words = [f"{w} {words[i + 1]}" if i % 7 == 6 and i + 1 < n else w for i, w in enumerate(words)]
                    return [(w, 3 + i if i % 10 == 9 else None) for i, w in enumerate(words)]
    raise SystemExit(f"the corpus holds fewer than {n} words to add")


def added_words(lines, n, runs):
    """The cut after ``n`` add_word calls on both sides, checked identical, and the calls' own time."""
    words = words_to_add(lines, n)
    segmenter, tokenizer = Jieba(), jieba.Tokenizer()
    segmenter.initialize()
    tokenizer.initialize()
    _, kvec_add = timed(lambda: [segmenter.add_word(word, count) for word, count in words])
    _, jieba_add = timed(lambda: [tokenizer.add_word(word, count) for word, count in words])

    def check(kvec_out, jieba_out):
        expected = [[w for w in words if w and not w.isspace()] for words in jieba_out]
        if kvec_out != expected:
            line = next(i for i, (a, b) in enumerate(zip(kvec_out, expected)) if a != b)
            mismatch("jieba after add_word", f"line {line}: kvec {kvec_out[line][:8]} vs {expected[line][:8]}")

    kvec_times, jieba_times, _ = interleave(
        lambda: segmenter.segment(lines, n_jobs=1), lambda: [tokenizer.lcut(line) for line in lines], runs, check, False
    )
    report(f"after {n:,} add_word", "Tokenizer.lcut", kvec_times, jieba_times, "; identical words")
    report(f"{n:,} add_word calls", "Tokenizer.add_word", [kvec_add], [jieba_add])


if __name__ == "__main__":
    main()
