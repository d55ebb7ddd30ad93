"""Benchmark kvec's subword trainers and tokenizers against Hugging Face tokenizers and tensorflow_text.

Usage::

    .venv/bin/python bench/subword.py CORPUS [--runs N] [--lines N] [--skip WORKLOAD ...]

CORPUS is a UTF-8 text file with one document per line; ``--lines N`` keeps only the first N lines.
Each timed workload runs N times (default 3), kvec and the anchor interleaved (kvec run i, then anchor
run i) so that machine noise hits both alike. The script prints the median wall-clock seconds
(``time.perf_counter``) of each side and the ratio kvec / anchor: 1.00x or less means kvec is at least
as fast.

Workloads (the names are those ``--skip`` takes):

1. ``bytelevel-bpe-train``: a byte-level BPE vocabulary of 8000 tokens, kvec's
   ``Tokenizer(None, pre_tokenizer=ByteLevel(), decoder=decoders.ByteLevel())`` with
   ``BpeTrainer(vocab_size=8000, initial_alphabet=ByteLevel.alphabet())`` vs ``tokenizers``'
   ``Tokenizer(models.BPE())`` with ``pre_tokenizers.ByteLevel()`` and the same trainer. The
   vocabularies and merge lists must be identical.
2. ``bytelevel-bpe-encode``: ``encode_batch(lines)`` to ids with the tokenizers trained in workload 1
   (trained once, untimed, when workload 1 is skipped). The ids must be identical.
3. ``wordpiece-train``: a WordPiece vocabulary of 8000 tokens (Whitespace pre-tokenizer, special tokens
   ``[PAD] [UNK] [CLS] [SEP] [MASK]``). Hugging Face assigns the ids of ``##`` tokens in hash order and
   breaks ties between merges of equal count by id, so its vocabulary changes from run to run: the
   sizes and the Jaccard overlaps of the token sets are printed, kvec's with each HF run's and HF's
   runs' with each other; kvec's vocabulary must be the same in every run.
4. ``bottom-up-learner``: tensorflow_text's bottom-up WordPiece learner (``bert_vocab``'s
   ``wordpiece_tokenizer_learner_lib.learn``) vs ``kvec.trainers.learn_vocabulary``, vocabulary 8000,
   on the word counts of the first 20,000 lines after BERT-like basic tokenization (lower case, then
   ``\\w+|[^\\w\\s]``). The anchor takes about 100 s, so each side runs once whatever ``--runs`` says,
   and the ratio is printed as for the others (kvec/anchor, with "N.Nx faster"). The vocabularies must be identical.
5. ``unigram-train``: a Unigram vocabulary of 8000 pieces trained on the first 90% of the lines, kvec's
   ``Tokenizer(None, pre_tokenizer=Metaspace(), decoder=decoders.Metaspace())`` with
   ``UnigramTrainer(vocab_size=8000, character_coverage=C)`` vs sentencepiece's unigram trainer with its
   defaults (``nmt_nfkc`` normalization, ``num_threads=2``, the same ``character_coverage``), each run
   ``--runs`` times interleaved, and Hugging Face's ``UnigramTrainer`` (Metaspace pre-tokenizer) once, as
   it takes minutes. Each side's held-out compression is printed: UTF-8 bytes of the last 10% of the
   lines per token its model encodes them into (higher is better), and kvec's relative to each anchor.
   ``--character-coverage C`` defaults to sentencepiece's 0.9995.
6. ``train-memory``: the peak memory of the trainings of workloads 1, 3 and 5 (5 against sentencepiece;
   a training skipped with ``--skip`` is skipped here too), each library in a fresh
   subprocess that imports its library, reads the corpus, prints ``ru_maxrss``, trains and prints
   ``ru_maxrss`` again; the difference (MB) and the ratio kvec / anchor are printed. The high-water mark
   is reset after reading (``/proc/self/clear_refs``), so the baseline is the RSS after imports and
   reading, not the brief peak of reading the file. Linux carries the
   parent's peak RSS into a child's ``ru_maxrss`` across the fork and exec, so these subprocesses run
   first, while this process has not read the corpus yet, and the script stops if a child's baseline
   is not above the parent's peak.

Only the library calls are timed; reading the corpus, counting words for workload 4, the parity checks
and garbage collection (run before every timed call) are not. A mismatch in a checked output stops the
script with ``MISMATCH in WORKLOAD: ...``.
"""

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
from collections import Counter
from importlib import metadata

from harness import (
    LABEL_WIDTH,
    interleave,
    mismatch,
    positive_int,
    print_convention,
    ratio_text,
    read_lines,
    report,
    timed,
)

# kvec counts words in this many processes, as HF tokenizers uses its thread pool (2 cores here).
# The memory workload trains kvec with 1, so its whole peak is in the process it measures.
N_JOBS = 2
VOCAB_SIZE = 8000
SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
LEARNER_LINES = 20000
BERT_WORD_PATTERN = r"\w+|[^\w\s]"

BPE_TRAIN = "bytelevel-bpe-train"
BPE_ENCODE = "bytelevel-bpe-encode"
WORDPIECE_TRAIN = "wordpiece-train"
BOTTOM_UP = "bottom-up-learner"
UNIGRAM_TRAIN = "unigram-train"
TRAIN_MEMORY = "train-memory"
WORKLOADS = (BPE_TRAIN, BPE_ENCODE, WORDPIECE_TRAIN, BOTTOM_UP, UNIGRAM_TRAIN, TRAIN_MEMORY)
HELD_OUT = 0.1  # the share of lines (at the end) the Unigram models are measured on
CHARACTER_COVERAGE = 0.9995

# Modules each side imports before its memory baseline is taken (workload 5).
LIBRARY_MODULES = {
    "kvec": ("kvec.pipeline", "kvec.pretokenizers", "kvec.decoders", "kvec.trainers"),
    "hf": ("tokenizers", "tokenizers.models", "tokenizers.pre_tokenizers", "tokenizers.trainers"),
    "sentencepiece": ("sentencepiece",),
}


# ---- command line and corpus -------------------------------------------------------------------------


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", help="UTF-8 text file, one document per line")
    parser.add_argument("--runs", type=positive_int, default=3, help="runs per workload (default 3)")
    parser.add_argument("--lines", type=positive_int, default=None, help="use only the first N lines (default: all)")
    parser.add_argument(
        "--skip",
        nargs="+",
        action="extend",
        default=[],
        choices=WORKLOADS,
        metavar="WORKLOAD",
        help=f"workloads to skip: {', '.join(WORKLOADS)}",
    )
    parser.add_argument(
        "--character-coverage",
        type=float,
        default=CHARACTER_COVERAGE,
        help=f"character_coverage of both Unigram trainers (default {CHARACTER_COVERAGE})",
    )
    return parser.parse_args(argv)


def count_lines(path):
    """The number of lines ``read_lines`` returns, counted without holding the file in memory."""
    with open(path, encoding="utf-8") as f:
        return sum(1 for _ in f)


def package_version(name):
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def print_header(path, limit):
    total = count_lines(path)
    used = total if limit is None else min(limit, total)
    shown = f"{total:,} lines" if used == total else f"first {used:,} of {total:,} lines"
    megabytes = os.path.getsize(path) / 1e6
    print(f"corpus  {path}  ({shown}, {megabytes:.1f} MB)")
    print(
        f"python  {platform.python_version()}  numpy {package_version('numpy')}  "
        f"tokenizers {package_version('tokenizers')}  tensorflow_text {package_version('tensorflow-text')}  "
        f"sentencepiece {package_version('sentencepiece')}  "
        f"cpus {os.cpu_count()}"
    )
    print(flush=True)


# ---- parity checks -------------------------------------------------------------------------------------


def first_difference(a, b):
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def check_lists(workload, what, kvec_list, anchor_list):
    if kvec_list == anchor_list:
        return
    i = first_difference(kvec_list, anchor_list)
    kvec_item = kvec_list[i] if i < len(kvec_list) else "<end>"
    anchor_item = anchor_list[i] if i < len(anchor_list) else "<end>"
    mismatch(
        workload,
        f"{what}: {len(kvec_list):,} vs {len(anchor_list):,} items, first difference at {i}: "
        f"kvec {kvec_item!r} vs anchor {anchor_item!r}",
    )


def hf_model_json(hf_tok):
    return json.loads(hf_tok.to_str())["model"]


def hf_merges(hf_tok):
    """The merge list as ``(a, b)`` tuples, whether the JSON spells a merge "a b" or [a, b]."""
    return [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in hf_model_json(hf_tok)["merges"]]


def check_bpe(kvec_tok, hf_tok):
    kvec_vocab, hf_vocab = kvec_tok.get_vocab(), hf_model_json(hf_tok)["vocab"]
    if kvec_vocab != hf_vocab:
        only_kvec = len(kvec_vocab.keys() - hf_vocab.keys())
        only_hf = len(hf_vocab.keys() - kvec_vocab.keys())
        moved = sum(1 for t in kvec_vocab.keys() & hf_vocab.keys() if kvec_vocab[t] != hf_vocab[t])
        mismatch(
            BPE_TRAIN,
            f"vocab differs: {len(kvec_vocab):,} vs {len(hf_vocab):,} tokens, {only_kvec} only in kvec, "
            f"{only_hf} only in HF, {moved} with different ids",
        )
    check_lists(BPE_TRAIN, "merges", list(kvec_tok.model.merges), hf_merges(hf_tok))


def check_ids(kvec_ids, hf_ids):
    if kvec_ids == hf_ids:
        return
    if len(kvec_ids) != len(hf_ids):
        mismatch(BPE_ENCODE, f"{len(kvec_ids):,} sequences vs {len(hf_ids):,}")
    line = first_difference(kvec_ids, hf_ids)
    mismatch(BPE_ENCODE, f"first difference at line {line}: kvec {kvec_ids[line]} vs HF {hf_ids[line]}")


# ---- the trainings (also run by the memory subprocesses) -----------------------------------------------


def train_kvec_bpe(lines):
    from kvec import decoders
    from kvec.pipeline import Tokenizer
    from kvec.pretokenizers import ByteLevel
    from kvec.trainers import BpeTrainer

    tok = Tokenizer(None, pre_tokenizer=ByteLevel(), decoder=decoders.ByteLevel())
    tok.train_from_iterator(
        lines, BpeTrainer(vocab_size=VOCAB_SIZE, initial_alphabet=ByteLevel.alphabet()), n_jobs=N_JOBS
    )
    return tok


def train_hf_bpe(lines):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tok.train_from_iterator(lines, trainer)
    return tok


def train_kvec_wordpiece(lines):
    from kvec.pipeline import Tokenizer
    from kvec.pretokenizers import Whitespace
    from kvec.trainers import WordPieceTrainer

    tok = Tokenizer(None, pre_tokenizer=Whitespace())
    tok.train_from_iterator(
        lines, WordPieceTrainer(vocab_size=VOCAB_SIZE, special_tokens=SPECIAL_TOKENS), n_jobs=N_JOBS
    )
    return tok


def train_hf_wordpiece(lines):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.WordPieceTrainer(vocab_size=VOCAB_SIZE, special_tokens=SPECIAL_TOKENS, show_progress=False)
    tok.train_from_iterator(lines, trainer)
    return tok


def training_lines(lines):
    return lines[: len(lines) - int(len(lines) * HELD_OUT)]


def train_kvec_unigram(lines):
    from kvec import decoders
    from kvec.pipeline import Tokenizer
    from kvec.pretokenizers import Metaspace
    from kvec.trainers import UnigramTrainer

    tok = Tokenizer(None, pre_tokenizer=Metaspace(), decoder=decoders.Metaspace())
    trainer = UnigramTrainer(vocab_size=VOCAB_SIZE, character_coverage=CHARACTER_COVERAGE, algorithm="sentencepiece")
    tok.train_from_iterator(training_lines(lines), trainer, n_jobs=N_JOBS)
    return tok


def train_sentencepiece_unigram(lines):
    import io

    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(training_lines(lines)),
        model_writer=model,
        model_type="unigram",
        vocab_size=VOCAB_SIZE,
        character_coverage=CHARACTER_COVERAGE,
        num_threads=N_JOBS,
        minloglevel=2,
    )
    return spm.SentencePieceProcessor(model_proto=model.getvalue())


def train_hf_unigram(lines):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    trainer = trainers.UnigramTrainer(
        vocab_size=VOCAB_SIZE, special_tokens=["<unk>"], unk_token="<unk>", show_progress=False
    )
    tok.train_from_iterator(training_lines(lines), trainer)
    return tok


TRAININGS = {
    BPE_TRAIN: {"kvec": train_kvec_bpe, "hf": train_hf_bpe},
    WORDPIECE_TRAIN: {"kvec": train_kvec_wordpiece, "hf": train_hf_wordpiece},
    UNIGRAM_TRAIN: {"kvec": train_kvec_unigram, "sentencepiece": train_sentencepiece_unigram},
}


# ---- workloads -----------------------------------------------------------------------------------------


def bench_bpe_train(lines, runs):
    """Workload 1; returns the tokenizers trained in the first run (kvec, HF)."""
    kvec_times, hf_times, tokenizers = interleave(
        lambda: train_kvec_bpe(lines), lambda: train_hf_bpe(lines), runs, check_bpe
    )
    report(BPE_TRAIN, "HF", kvec_times, hf_times)
    return tokenizers


def trained_bpe_untimed(lines):
    """The tokenizers of workload 1 when it is skipped: trained once, untimed, still checked."""
    tokenizers = train_kvec_bpe(lines), train_hf_bpe(lines)
    check_bpe(*tokenizers)
    return tokenizers


def bench_bpe_encode(tokenizers, lines, runs):
    """Workload 2: each library encodes with its own tokenizer from workload 1."""
    kvec_tok, hf_tok = tokenizers
    kvec_times, hf_times, _ = interleave(
        lambda: [e.ids for e in kvec_tok.encode_batch(lines)],
        lambda: [e.ids for e in hf_tok.encode_batch(lines)],
        runs,
        check_ids,
        keep=False,
    )
    report(BPE_ENCODE, "HF", kvec_times, hf_times)


def bench_bpe(lines, runs, skip):
    """Workloads 1 and 2; the trained tokenizers are freed on return."""
    if BPE_TRAIN in skip and BPE_ENCODE in skip:
        return
    tokenizers = trained_bpe_untimed(lines) if BPE_TRAIN in skip else bench_bpe_train(lines, runs)
    if BPE_ENCODE not in skip:
        bench_bpe_encode(tokenizers, lines, runs)


def jaccard(a, b):
    return len(a & b) / len(a | b)


def spread(values):
    low, high = min(values), max(values)
    return f"{low:.4f}" if low == high else f"{low:.4f}-{high:.4f}"


def bench_wordpiece_train(lines, runs):
    """Workload 3: Hugging Face's vocabulary changes from run to run (its ``##`` alphabet takes ids in
    hash order, and merges of equal count go to the lower ids), so its token sets are compared, each
    run's with kvec's and with the other HF runs'; kvec's must be the same in every run."""
    kvec_sets, hf_sets = [], []

    def kvec_training():
        tok = train_kvec_wordpiece(lines)
        kvec_sets.append(frozenset(tok.get_vocab()))

    def hf_training():
        tok = train_hf_wordpiece(lines)
        hf_sets.append(frozenset(hf_model_json(tok)["vocab"]))

    kvec_times, hf_times, _ = interleave(kvec_training, hf_training, runs, lambda a, b: None, keep=False)
    if len(set(kvec_sets)) != 1:
        mismatch(WORDPIECE_TRAIN, f"kvec gave {len(set(kvec_sets))} different vocabularies in {runs} runs")
    kvec_tokens = kvec_sets[0]
    with_hf = spread([jaccard(kvec_tokens, hf) for hf in hf_sets])
    between_hf = [jaccard(a, b) for i, a in enumerate(hf_sets) for b in hf_sets[i + 1 :]]
    extra = (
        f"  vocab kvec {len(kvec_tokens):,} HF {len(hf_sets[0]):,}; token-set Jaccard kvec-HF {with_hf}, "
        f"HF-HF {spread(between_hf) if between_hf else 'n/a (1 run)'}; "
        f"HF runs alike {len(set(hf_sets)) == 1}; kvec runs alike"
    )
    report(WORDPIECE_TRAIN, "HF", kvec_times, hf_times, extra)


def held_out_compression(lines, encode):
    """UTF-8 bytes per token of the held-out lines; ``encode(lines)`` gives one id list per line."""
    held_out = lines[len(lines) - int(len(lines) * HELD_OUT) :]
    tokens = sum(len(ids) for ids in encode(held_out))
    return sum(len(line.encode("utf-8")) for line in held_out) / tokens


def bench_unigram_train(lines, runs):
    """Workload 5: time against sentencepiece (interleaved) and Hugging Face (once), and compression."""
    kvec_times, sp_times, (kvec_tok, sp) = interleave(
        lambda: train_kvec_unigram(lines), lambda: train_sentencepiece_unigram(lines), runs, lambda a, b: None
    )
    kvec_bpt = held_out_compression(lines, lambda held: [e.ids for e in kvec_tok.encode_batch(held)])
    sp_bpt = held_out_compression(lines, sp.encode)
    extra = f"  bytes/token kvec {kvec_bpt:.3f} sentencepiece {sp_bpt:.3f} ({kvec_bpt / sp_bpt:.3f}x)"
    report(UNIGRAM_TRAIN, "sentencepiece", kvec_times, sp_times, extra)
    hf_tok, hf_s = timed(lambda: train_hf_unigram(lines))
    hf_bpt = held_out_compression(lines, lambda held: [e.ids for e in hf_tok.encode_batch(held)])
    kvec_s = statistics.median(kvec_times)
    print(
        f"{UNIGRAM_TRAIN + ' vs HF':<{LABEL_WIDTH}}kvec {kvec_s:.3f}s (median)  HF {hf_s:.3f}s (1 run)  "
        f"{ratio_text(kvec_s, hf_s)}  bytes/token HF {hf_bpt:.3f} (kvec {kvec_bpt / hf_bpt:.3f}x)",
        flush=True,
    )


def bert_word_counts(lines):
    """Word counts as tensorflow_text's bert_vocab sees them, in first-occurrence order."""
    import regex

    pattern = regex.compile(BERT_WORD_PATTERN)
    counts = Counter()
    for line in lines:
        counts.update(pattern.findall(line.lower()))
    return counts


def bench_bottom_up(lines):
    """Workload 4: one run per side (the anchor is slow); the vocabularies must be identical."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from tensorflow_text.tools.wordpiece_vocab import wordpiece_tokenizer_learner_lib as learner_lib

    from kvec.trainers import learn_vocabulary

    counts = dict(bert_word_counts(lines[:LEARNER_LINES]))
    kvec_times, tf_times, _ = interleave(
        lambda: learn_vocabulary(counts, VOCAB_SIZE, SPECIAL_TOKENS),
        lambda: learner_lib.learn(counts, VOCAB_SIZE, SPECIAL_TOKENS),
        1,
        lambda a, b: check_lists(BOTTOM_UP, "vocabulary", a, b),
        keep=False,
    )
    kvec_s, tf_s = kvec_times[0], tf_times[0]
    used = min(LEARNER_LINES, len(lines))
    print(
        f"{BOTTOM_UP:<{LABEL_WIDTH}}kvec {kvec_s:.3f}s  tensorflow_text {tf_s:.3f}s  {ratio_text(kvec_s, tf_s)}  "
        f"(1 run, {used:,} lines, {len(counts):,} distinct words)",
        flush=True,
    )


# ---- workload 5: peak memory in fresh subprocesses -----------------------------------------------------

CHILD_CODE = """\
import importlib, resource, sys

bench_dir, workload, side, path, limit, coverage = sys.argv[1:7]
sys.path.insert(0, bench_dir)
import subword

subword.CHARACTER_COVERAGE = float(coverage)
for module in subword.LIBRARY_MODULES[side]:
    importlib.import_module(module)
lines = subword.read_lines(path, int(limit) or None)
# One process holds all of kvec's work: worker processes' memory would not show in RUSAGE_SELF.
subword.N_JOBS = 1
subword.reset_peak_rss()
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, flush=True)
trained = subword.TRAININGS[workload][side](lines)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, flush=True)
"""


def reset_peak_rss():
    """Lower this process's RSS high-water mark to its current RSS (Linux >= 4.0; else a no-op).

    Reading the corpus briefly holds the file's bytes and text besides the lines; without the reset that
    freed memory would hide up to twice the file's size of training memory.
    """
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def max_rss_kb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def child_peak_megabytes(workload, side, path, limit):
    """Peak minus baseline ``ru_maxrss`` (MB) of one training in a fresh interpreter."""
    bench_dir = os.path.dirname(os.path.abspath(__file__))
    parent_kb = max_rss_kb()
    command = [
        sys.executable,
        "-c",
        CHILD_CODE,
        bench_dir,
        workload,
        side,
        path,
        str(limit or 0),
        str(CHARACTER_COVERAGE),
    ]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run(command, cwd=os.path.dirname(bench_dir), env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{workload} memory ({side}) failed with exit code {done.returncode}:\n{done.stderr}")
    baseline_kb, peak_kb = (int(word) for word in done.stdout.split()[-2:])
    if baseline_kb <= parent_kb:
        raise SystemExit(
            f"{workload} memory ({side}): the child's baseline ru_maxrss {baseline_kb} KB is not above this "
            f"process's peak {parent_kb} KB, so it may be inherited; the measurement would be meaningless"
        )
    return (peak_kb - baseline_kb) * 1024 / 1e6


def bench_train_memory(path, limit, skip):
    for workload in (BPE_TRAIN, WORDPIECE_TRAIN, UNIGRAM_TRAIN):
        if workload in skip:
            continue
        anchor = "sentencepiece" if workload == UNIGRAM_TRAIN else "hf"
        kvec_mb = child_peak_megabytes(workload, "kvec", path, limit)
        anchor_mb = child_peak_megabytes(workload, anchor, path, limit)
        ratio = f"{kvec_mb / anchor_mb:.2f}x" if anchor_mb > 0 else "n/a"
        label = f"{workload} memory"
        print(
            f"{label:<{LABEL_WIDTH}}kvec {kvec_mb:.1f} MB  {anchor} {anchor_mb:.1f} MB  kvec/anchor {ratio}  "
            "(peak minus baseline ru_maxrss, fresh process each)",
            flush=True,
        )


def main(argv=None):
    global CHARACTER_COVERAGE
    args = parse_args(argv)
    skip = set(args.skip)
    CHARACTER_COVERAGE = args.character_coverage
    print_convention()
    print_header(args.corpus, args.lines)

    if TRAIN_MEMORY not in skip:  # first, while this process is small (see the module docstring)
        bench_train_memory(args.corpus, args.lines, skip)

    lines = read_lines(args.corpus, args.lines)
    bench_bpe(lines, args.runs, skip)
    if WORDPIECE_TRAIN not in skip:
        bench_wordpiece_train(lines, args.runs)
    if BOTTOM_UP not in skip:
        bench_bottom_up(lines)
    if UNIGRAM_TRAIN not in skip:
        bench_unigram_train(lines, args.runs)

    print("\nall checked outputs identical")


if __name__ == "__main__":
    main()
