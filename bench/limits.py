"""Resource bounds: hostile input sizes train and encode in bounded time and memory.

Usage::

    .venv/bin/python bench/limits.py [--word-mb 10] [--stream-mb 1024] [--chars 1000000] [--only NAME ...]

Three inputs, each trained on and then encoded by every kind of tokenizer:

- ``long-word``: one "word" of ``--word-mb`` million characters (the stream's text below with its spaces
  and stops taken out).
- ``distinct-chars``: ``--chars`` distinct code points (every one from U+00A1 up, surrogates and
  whitespace left out), in words of 10.
- ``stream``: ``--stream-mb`` MB of generated English-like text (50,000 distinct words, Zipf
  frequencies), produced line by line and never held whole: training counts it streaming, and encoding
  runs ``encode_batch`` on chunks of 10,000 lines.

Every case runs in a fresh process, so its peak resident memory (``ru_maxrss``) is its own. Printed per
case: the seconds to train and to encode, the peak RSS, the bound of the memory formula of docs/benchmarks.md for
that input (``formula``: baseline + 40 MB + 200 bytes per character of the distinct words + 256 bytes
per distinct character), ids per character, and ``ok`` when the measured peak is within the bound.
Tokenizers have 2000 tokens (1300 for Unigram on distinct-chars, whose pieces run out) and spell rare
characters as bytes.
"""

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time

KINDS = ("bpe", "bytelevel-bpe", "wordpiece", "unigram", "keras")
INPUTS = ("long-word", "distinct-chars", "stream")
MB = 1 << 20


# ---------------------------------------------------------------------------------------------------
# Inputs


def long_word(mb):
    """The stream's text with its spaces and stops taken out, cut at ``mb`` million characters."""
    parts, total = [], 0
    for line in stream_lines(mb * 2):
        part = line.replace(" ", "").replace(".", "")
        parts.append(part)
        total += len(part)
        if total >= mb * 1_000_000:
            break
    return ["".join(parts)[: mb * 1_000_000]]


def distinct_chars(n):
    chars, code = [], 0xA1
    while len(chars) < n:
        c = chr(code)
        code += 1
        if 0xD800 <= code - 1 <= 0xDFFF or c.isspace():
            continue
        chars.append(c)
    words = ["".join(chars[i : i + 10]) for i in range(0, n, 10)]
    return [" ".join(words[i : i + 100]) for i in range(0, len(words), 100)]


def stream_lines(mb):
    """Lines of about 100 characters until ``mb`` MB; generated on the fly."""
    vocabulary = _stream_vocabulary()
    rng = random.Random(1)
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    total = 0
    while total < mb * MB:
        for line_words in _chunks(rng.choices(vocabulary, weights, k=160_000), 16):
            line = " ".join(line_words) + "."
            total += len(line) + 1
            yield line
            if total >= mb * MB:
                return


def _chunks(items, size):
    for i in range(0, len(items), size):
        yield items[i : i + size]


def texts_of(name, args):
    """A fresh iterable of the input's texts (the stream is generated again on each call)."""
    if name == "long-word":
        return lambda: long_word(args.word_mb)
    if name == "distinct-chars":
        return lambda: distinct_chars(args.chars)
    return lambda: stream_lines(args.stream_mb)


# ---------------------------------------------------------------------------------------------------
# Tokenizers


def pipeline_for(name, kind, args):
    """The pipeline and trainer of one kind; 2000 tokens, rare characters spelled as bytes."""
    from kvec import decoders
    from kvec.pipeline import Tokenizer
    from kvec.pretokenizers import ByteLevel, WhitespaceSplit
    from kvec.trainers import BpeTrainer, UnigramTrainer, WordPieceTrainer

    words = Tokenizer(None, pre_tokenizer=WhitespaceSplit())
    if kind == "bpe":
        return words, BpeTrainer(vocab_size=2000, limit_alphabet=1000, byte_fallback=True)
    if kind == "bytelevel-bpe":
        tok = Tokenizer(None, pre_tokenizer=ByteLevel(add_prefix_space=False), decoder=decoders.ByteLevel())
        return tok, BpeTrainer(vocab_size=2000, initial_alphabet=ByteLevel.alphabet())
    if kind == "wordpiece":
        return words, WordPieceTrainer(vocab_size=2000, limit_alphabet=1000, special_tokens=["[UNK]"])
    if kind == "unigram":
        # every character of distinct-chars occurs once: cover 1000 of them and spell the rest as bytes
        # (which leaves fewer multi-character pieces than 2000 tokens need)
        if name == "distinct-chars":
            coverage = min(1.0, 1000 / args.chars)
            return words, UnigramTrainer(
                vocab_size=1300, byte_fallback=True, character_coverage=coverage, algorithm="sentencepiece"
            )
        return words, UnigramTrainer(vocab_size=2000, byte_fallback=True, algorithm="sentencepiece")
    raise ValueError(kind)


def run_case(name, kind, args):
    """Train and encode in this process; return what the parent prints."""
    texts = texts_of(name, args)
    n_chars = 0
    start = time.perf_counter()
    if kind == "keras":
        import kvec

        tok = kvec.Tokenizer(num_words=2000, oov_token="<unk>")
        for chunk in _chunks_of(texts(), 10_000):
            tok.fit_on_texts(chunk)
        trained = time.perf_counter()
        n_ids = 0
        for chunk in _chunks_of(texts(), 10_000):
            n_chars += sum(map(len, chunk))
            n_ids += sum(map(len, tok.texts_to_sequences(chunk)))
        vocab = len(tok.word_index)
    else:
        tok, trainer = pipeline_for(name, kind, args)
        tok.train_from_iterator(texts(), trainer)
        trained = time.perf_counter()
        n_ids = 0
        for chunk in _chunks_of(texts(), 10_000):
            n_chars += sum(map(len, chunk))
            n_ids += sum(len(e.ids) for e in tok.encode_batch(chunk))
        vocab = tok.get_vocab_size()
    done = time.perf_counter()
    return {
        "train_s": trained - start,
        "encode_s": done - trained,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "chars": n_chars,
        "ids": n_ids,
        "vocab": vocab,
    }


def _chunks_of(texts, size):
    chunk = []
    for text in texts:
        chunk.append(text)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def baseline_mb():
    """Peak RSS of a process that has imported kvec and numpy and done nothing."""
    code = (
        "import resource, kvec, kvec.pipeline, numpy; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"
    )
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def input_sizes(name, args):
    """``(characters in distinct words, distinct characters)`` of an input, worked out without
    generating it."""
    if name == "long-word":
        return args.word_mb * 1_000_000, 26
    if name == "distinct-chars":
        return args.chars, args.chars
    vocabulary = _stream_vocabulary()
    # each vocabulary word, alone and with the line's closing "."
    return sum(2 * len(word) + 1 for word in vocabulary), 27


def _stream_vocabulary():
    rng = random.Random(0)
    letters = "etaoinshrdlucmfwypvbgkjqxz"
    return ["".join(rng.choices(letters, k=rng.randint(1, 12))) for _ in range(50_000)]


def formula_mb(base, word_chars, distinct_chars):
    """The bound on peak memory of docs/benchmarks.md while training and encoding: the baseline, 40 MB of caches
    and work space, 200 bytes per character of the distinct words and 256 bytes per distinct
    character. The length of the stream does not enter it."""
    return base + 40 + (200 * word_chars + 256 * distinct_chars) / MB


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--word-mb", type=int, default=10, help="length of the long word, millions of characters")
    parser.add_argument("--stream-mb", type=int, default=1024, help="size of the generated stream in MB")
    parser.add_argument("--chars", type=int, default=1_000_000, help="distinct characters")
    parser.add_argument("--only", nargs="*", default=(), help="NAME or NAME/KIND cases to run")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.case:
        name, kind = args.case.split("/")
        print(json.dumps(run_case(name, kind, args)))
        return

    base = baseline_mb()
    print(f"baseline (import kvec, numpy): {base:.0f} MB peak RSS")
    print(f"{'case':<30} {'train s':>8} {'encode s':>9} {'peak MB':>8} {'formula':>8}  ids / chars")
    failed = []
    for name in INPUTS:
        for kind in KINDS:
            case = f"{name}/{kind}"
            if args.only and name not in args.only and case not in args.only:
                continue
            command = [sys.executable, __file__, "--case", case, "--word-mb", str(args.word_mb)]
            command += ["--stream-mb", str(args.stream_mb), "--chars", str(args.chars)]
            done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
            if done.returncode:
                print(f"{case:<30} FAILED: {done.stderr.strip().splitlines()[-1:]}")
                failed.append(case)
                continue
            r = json.loads(done.stdout.strip().splitlines()[-1])
            bound = formula_mb(base, *input_sizes(name, args))
            verdict = "ok" if r["peak_mb"] <= bound else "OVER"
            if verdict != "ok":
                failed.append(case)
            print(
                f"{case:<30} {r['train_s']:8.1f} {r['encode_s']:9.1f} {r['peak_mb']:8.0f} {bound:8.0f}  "
                f"{r['ids'] / max(r['chars'], 1):.3f}  {verdict}"
            )
    if failed:
        raise SystemExit(f"over the bound or failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
