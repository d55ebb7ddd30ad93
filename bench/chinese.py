"""Benchmark kvec's native jieba segmentation against ``jieba.lcut`` (and rjieba, for reference).

Usage::

    .venv/bin/python bench/chinese.py CORPUS [--runs 3] [--threads 2] [--skip-unigram | --unigram-only]
        [--sentencepiece-line-limit all|default]

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

First of all, Unigram training with sentencepiece's algorithm on CORPUS: kvec's
``Tokenizer(None, pre_tokenizer=Metaspace())`` trained from the file by
``UnigramTrainer(vocab_size=--unigram-vocab, character_coverage=0.9995, algorithm="sentencepiece")``
with ``n_jobs=--threads``, against sentencepiece's ``SentencePieceTrainer.train(input=CORPUS,
model_type="unigram")`` with the same vocabulary size, coverage and ``num_threads=--threads``. Both
train on the same text: sentencepiece skips every line longer than its ``max_sentence_length`` (4,192
bytes by default; 213 lines, about 30% of ``zh-mixed.txt``'s bytes), while kvec reads every line, so
sentencepiece is given ``max_sentence_length`` = the corpus's longest line in bytes.
``--sentencepiece-line-limit default`` keeps sentencepiece's default instead (kvec then trains on more
text than sentencepiece; printed for reference). Each
training runs in a fresh interpreter of its own, --runs times, interleaved. A child imports its
library, trains, and reports the training's seconds and its own peak resident memory (``VmHWM``, which
a child does not inherit from this process as it inherits ``ru_maxrss``) after the imports and at the
end. Printed: the median seconds and their ratio, the highest peak of each side and their ratio (the
whole process: interpreter, library, the counts and the training), and the peaks less each side's
memory after its imports. kvec's counting workers (``n_jobs`` > 1) are processes of their own; their
highest peak is printed beside kvec's.
"""

import argparse
import json
import logging
import os
import re
import statistics
import subprocess
import sys
import tempfile

import jieba
import rjieba
from harness import LABEL_WIDTH, interleave, mismatch, positive_int, print_convention, read_lines, report, timed

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


TRAIN_CODE = """\
import json, resource, sys, time

side, path, vocab_size, threads, line_limit = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])


def high_water_kb():
    # this process's own peak RSS: unlike ru_maxrss, VmHWM starts afresh at exec
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))


if side == "kvec":
    from kvec import decoders
    from kvec.pipeline import Tokenizer
    from kvec.pretokenizers import Metaspace
    from kvec.trainers import UnigramTrainer
else:
    import io

    import sentencepiece as spm
imports_kb = high_water_kb()
start = time.perf_counter()
if side == "kvec":
    tok = Tokenizer(None, pre_tokenizer=Metaspace(), decoder=decoders.Metaspace())
    trainer = UnigramTrainer(
        vocab_size=vocab_size, character_coverage=0.9995, algorithm="sentencepiece", show_progress=False
    )
    tok.train([path], trainer, n_jobs=threads)
    size = tok.get_vocab_size()
else:
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        input=path, model_writer=model, model_type="unigram", vocab_size=vocab_size, character_coverage=0.9995,
        num_threads=threads, minloglevel=2, max_sentence_length=line_limit,
    )
    size = spm.SentencePieceProcessor(model_proto=model.getvalue()).get_piece_size()
seconds = time.perf_counter() - start
workers_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"seconds": seconds, "imports_kb": imports_kb, "peak_kb": high_water_kb(), "workers_kb": workers_kb,
                  "size": size}))
"""


SENTENCEPIECE_LINE_LIMIT = 4192  # sentencepiece's default max_sentence_length, in bytes


def longest_line_bytes(path):
    """The longest line of the file at path, in bytes, newline excluded."""
    with open(path, "rb") as f:
        return max((len(line.rstrip(b"\r\n")) for line in f), default=0)


def train_child(side, path, vocab_size, threads, line_limit):
    """One training in a fresh interpreter: its seconds, and its memory (KB) after imports and at peak."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    command = [sys.executable, "-c", TRAIN_CODE, side, path, str(vocab_size), str(threads), str(line_limit)]
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"unigram training ({side}) failed with exit code {done.returncode}:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def bench_unigram_training(path, vocab_size, threads, runs, line_limit):
    """kvec's and sentencepiece's Unigram training, each run in its own process, interleaved."""
    longest = longest_line_bytes(path)
    if line_limit == "all":
        limit, said = max(longest, SENTENCEPIECE_LINE_LIMIT), "every line on both sides"
    else:
        limit = SENTENCEPIECE_LINE_LIMIT
        said = f"sentencepiece skips lines over {limit:,} bytes, kvec reads them (longest {longest:,})"
    print(f"unigram training text: {said}", flush=True)
    results = {"kvec": [], "sentencepiece": []}
    for _ in range(runs):
        for side in results:
            results[side].append(train_child(side, path, vocab_size, threads, limit))
    for side, done in results.items():
        if any(r["size"] != vocab_size for r in done):
            mismatch("unigram training", f"{side} gave {done[0]['size']:,} pieces, not {vocab_size:,}")
    kvec, anchor = results["kvec"], results["sentencepiece"]
    label = f"unigram training, {vocab_size:,}"
    report(label, "sentencepiece", [r["seconds"] for r in kvec], [r["seconds"] for r in anchor], f", {threads} threads")

    def megabytes(done, key, less=None):
        return max(r[key] - (r[less] if less else 0) for r in done) / 1024

    kvec_mb, anchor_mb = megabytes(kvec, "peak_kb"), megabytes(anchor, "peak_kb")
    kvec_own, anchor_own = megabytes(kvec, "peak_kb", "imports_kb"), megabytes(anchor, "peak_kb", "imports_kb")
    print(
        f"{'  peak memory':<{LABEL_WIDTH}}kvec {kvec_mb:.1f} MB  sentencepiece {anchor_mb:.1f} MB  "
        f"kvec/anchor {kvec_mb / anchor_mb:.2f}x  (whole process, highest of {runs}; kvec's counting workers "
        f"{megabytes(kvec, 'workers_kb'):.1f} MB)",
        flush=True,
    )
    print(
        f"{'  less the imports':<{LABEL_WIDTH}}kvec {kvec_own:.1f} MB  sentencepiece {anchor_own:.1f} MB  "
        f"kvec/anchor {kvec_own / anchor_own:.2f}x  (after imports: kvec {megabytes(kvec, 'imports_kb'):.1f} MB, "
        f"sentencepiece {megabytes(anchor, 'imports_kb'):.1f} MB)",
        flush=True,
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", help="UTF-8 text file, one document per line")
    parser.add_argument("--runs", type=positive_int, default=3, help="runs per side (default 3)")
    parser.add_argument("--threads", type=positive_int, default=2, help="kvec's threads for the second figure")
    parser.add_argument("--added-words", type=positive_int, default=1000, help="add_word calls (default 1,000)")
    parser.add_argument(
        "--unigram-vocab", type=positive_int, default=16000, help="pieces of the Unigram trainings (default 16000)"
    )
    parser.add_argument(
        "--sentencepiece-line-limit",
        choices=("all", "default"),
        default="all",
        help="all: sentencepiece reads every line, as kvec does (default); default: its 4,192-byte limit",
    )
    parts = parser.add_mutually_exclusive_group()
    parts.add_argument("--skip-unigram", action="store_true", help="skip the Unigram trainings")
    parts.add_argument("--unigram-only", action="store_true", help="the Unigram trainings only")
    args = parser.parse_args(argv)
    print_convention()
    if not args.skip_unigram:
        bench_unigram_training(args.corpus, args.unigram_vocab, args.threads, args.runs, args.sentencepiece_line_limit)
    if args.unigram_only:
        return

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
