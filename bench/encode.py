"""Encoding to ids, every pipeline shape kvec serves, against the library a user would otherwise run.

Usage::

    .venv/bin/python bench/encode.py CORPUS [--runs 3] [--skip WORKLOAD ...]

Workloads (the names ``--skip`` takes), each over every line of CORPUS:

1. ``bert``: a BERT-uncased WordPiece ``tokenizer.json`` (BertNormalizer, BertPreTokenizer, template
   ``[CLS] $A [SEP]``), trained by Hugging Face ``tokenizers`` on the first 20,000 lines (vocab 8000)
   and loaded by ``kvec.interop.load_tokenizer_json``: kvec ``encode_batch`` vs HF ``encode_batch``.
2. ``sentencepiece-model``: a sentencepiece Unigram ``.model`` (vocab 8000, the default ``nmt_nfkc``
   normalization), trained by sentencepiece on the first 30,000 lines and loaded by
   ``kvec.interop.load_sentencepiece_model``: kvec ``encode_batch`` vs ``SentencePieceProcessor.encode``.
3. ``sentencepiece-style``: a Unigram of vocab 8000 trained by kvec on the first 30,000 lines in
   ``kvec.presets.sentencepiece_style()``: kvec ``encode_batch`` vs sentencepiece's ``encode`` with the
   model of workload 2 over the same lines. The models differ, so only the speed is compared.
4. ``bytelevel-bpe``: a byte-level BPE ``tokenizer.json`` trained by HF on the first 20,000 lines
   (vocab 8000): kvec ``encode_batch`` vs HF ``encode_batch``.
5. ``keras``: the word-level Keras ``Tokenizer(num_words=20000, oov_token="<OOV>")``: ``fit_on_texts``
   and ``texts_to_sequences`` vs keras_preprocessing 1.1.2.
6. ``threads``: workload 1's kvec tokenizer, ``encode_batch(lines, n_threads=2)`` vs ``n_threads=1``: the
   ratio is the 2-thread time over the 1-thread time.
7. ``decode``: workloads 1 and 4's tokenizers, ``decode_batch`` of HF's ids of every line (special
   tokens skipped) vs HF ``decode_batch``; the texts must be identical.
8. ``bert-shaped``: workload 1 with ``enable_truncation(max_length=128)`` and ``enable_padding()`` on
   both sides, batches of 64 lines (a training step's shape): the ids and attention masks of every
   batch vs HF's.

kvec's ``encode_batch`` runs on every core by default (``n_threads=None``), as HF's ``encode_batch`` and
sentencepiece's ``encode`` of a list do; workloads 1 to 4 compare the defaults.

Training and loading are not timed (loading builds kvec's native encoder, as the anchors build theirs
when they load). Each run encodes with a freshly loaded tokenizer (kvec's word cache empty), runs are
interleaved (kvec run i, then the anchor's run i), and the ids must be identical to the anchor's
(workload 3 aside) or the script stops. The ratios follow
``bench/harness.py``: kvec time / anchor time, below 1.00x kvec is faster.
"""

import argparse
import io
import os
import tempfile

from harness import interleave, mismatch, positive_int, print_convention, read_lines, report

VOCAB_SIZE = 8000
HF_TRAINING_LINES = 20000
SENTENCEPIECE_TRAINING_LINES = 30000
WORKLOADS = (
    "bert",
    "sentencepiece-model",
    "sentencepiece-style",
    "bytelevel-bpe",
    "keras",
    "threads",
    "decode",
    "bert-shaped",
)
SHAPED_BATCH, SHAPED_LENGTH = 64, 128


def check_rows(workload):
    """A check for ``interleave``: both sides' rows of ids are equal, else the script stops."""

    def check(ours, theirs):
        if len(ours) != len(theirs):
            mismatch(workload, f"{len(ours):,} rows vs {len(theirs):,}")
        for line, (a, b) in enumerate(zip(ours, theirs)):
            if list(a) != list(b):
                mismatch(workload, f"line {line}: kvec {list(a)[:12]} vs anchor {list(b)[:12]}")

    return check


def fresh(load, runs):
    """A function returning a newly loaded tokenizer on each call (loaded ahead, outside the clock). As the
    anchors build their encoders when they load a file, loading here builds kvec's native encoder too:
    an ``encode_batch`` of one empty text, which leaves its word cache empty."""

    def ready():
        tokenizer = load()
        tokenizer.encode_batch([""])
        return tokenizer

    loaded = [ready() for _ in range(runs)]
    return lambda: loaded.pop()


def hf_files(lines, folder, vocab_size):
    """Workloads 1 and 4: the HF tokenizers, saved as tokenizer.json files."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

    bert = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    bert.normalizer = normalizers.BertNormalizer(lowercase=True)
    bert.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    bert.decoder = decoders.WordPiece()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=specials, show_progress=False)
    bert.train_from_iterator(lines[:HF_TRAINING_LINES], trainer)
    bert.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        special_tokens=[("[CLS]", bert.token_to_id("[CLS]")), ("[SEP]", bert.token_to_id("[SEP]"))],
    )
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=alphabet, show_progress=False)
    bpe.train_from_iterator(lines[:HF_TRAINING_LINES], trainer)
    paths = {}
    for name, tokenizer in (("bert", bert), ("bytelevel-bpe", bpe)):
        paths[name] = os.path.join(folder, f"{name}.json")
        tokenizer.save(paths[name])
    return paths


def sentencepiece_file(lines, folder, vocab_size):
    """Workload 2: a sentencepiece Unigram model file with its default normalization."""
    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines[:SENTENCEPIECE_TRAINING_LINES]),
        model_writer=model,
        model_type="unigram",
        vocab_size=vocab_size,
        num_threads=2,
        minloglevel=2,
    )
    path = os.path.join(folder, "unigram.model")
    with open(path, "wb") as f:
        f.write(model.getvalue())
    return path


def bench_hf(name, path, lines, runs):
    """Workloads 1 and 4."""
    from tokenizers import Tokenizer

    from kvec.interop import load_tokenizer_json

    hf = Tokenizer.from_file(path)
    kvec = fresh(lambda: load_tokenizer_json(path), runs)
    kvec_times, hf_times, _ = interleave(
        lambda: [e.ids for e in kvec().encode_batch(lines)],
        lambda: [e.ids for e in hf.encode_batch(lines)],
        runs,
        check_rows(name),
        keep=False,
    )
    report(name, "HF tokenizers", kvec_times, hf_times, "  ids identical")


def bench_shaped(path, lines, runs):
    """Workload 8."""
    from tokenizers import Tokenizer

    from kvec.interop import load_tokenizer_json

    def shaped(tokenizer):
        tokenizer.enable_truncation(max_length=SHAPED_LENGTH)
        tokenizer.enable_padding()
        return tokenizer

    def rows(tokenizer):
        found = []
        for start in range(0, len(lines), SHAPED_BATCH):
            for e in tokenizer.encode_batch(lines[start : start + SHAPED_BATCH]):
                found.append(e.ids + e.attention_mask)
        return found

    hf = shaped(Tokenizer.from_file(path))
    kvec = fresh(lambda: shaped(load_tokenizer_json(path)), runs)
    kvec_times, hf_times, _ = interleave(
        lambda: rows(kvec()), lambda: rows(hf), runs, check_rows("bert-shaped"), keep=False
    )
    report("bert-shaped", "HF tokenizers", kvec_times, hf_times, "  ids and attention masks identical")


def bench_sentencepiece_model(path, lines, runs):
    """Workload 2."""
    import sentencepiece as spm

    from kvec.interop import load_sentencepiece_model

    sp = spm.SentencePieceProcessor(model_file=path)
    kvec = fresh(lambda: load_sentencepiece_model(path), runs)
    kvec_times, sp_times, _ = interleave(
        lambda: [e.ids for e in kvec().encode_batch(lines)],
        lambda: sp.encode(lines),
        runs,
        check_rows("sentencepiece-model"),
        keep=False,
    )
    report("sentencepiece-model", "sentencepiece", kvec_times, sp_times, "  ids identical")


def bench_sentencepiece_style(path, lines, runs, vocab_size):
    """Workload 3."""
    import sentencepiece as spm

    from kvec.pipeline import Pipeline
    from kvec.presets import sentencepiece_style
    from kvec.trainers import UnigramTrainer

    sp = spm.SentencePieceProcessor(model_file=path)
    trained = sentencepiece_style()
    trained.train_from_iterator(
        lines[:SENTENCEPIECE_TRAINING_LINES],
        UnigramTrainer(vocab_size=vocab_size, byte_fallback=True, algorithm="sentencepiece"),
        n_jobs=2,
    )
    saved = trained.to_str()
    kvec = fresh(lambda: Pipeline.from_str(saved), runs)

    def check(ours, theirs):
        if len(ours) != len(theirs):
            mismatch("sentencepiece-style", f"{len(ours):,} rows vs {len(theirs):,}")

    kvec_times, sp_times, _ = interleave(
        lambda: [e.ids for e in kvec().encode_batch(lines)], lambda: sp.encode(lines), runs, check, keep=False
    )
    report("sentencepiece-style", "sentencepiece", kvec_times, sp_times, "  (different models: speed only)")


def bench_keras(lines, runs):
    """Workload 5."""
    from keras_preprocessing.text import Tokenizer as LegacyTokenizer

    from kvec import Tokenizer

    options = {"num_words": 20000, "oov_token": "<OOV>"}

    def fit(cls):
        tokenizer = cls(**options)
        tokenizer.fit_on_texts(lines)
        return tokenizer

    def check_fit(ours, theirs):
        if ours.word_index != theirs.word_index or dict(ours.word_counts) != dict(theirs.word_counts):
            mismatch("keras fit_on_texts", "word_index or word_counts differ")

    kvec_times, legacy_times, fitted = interleave(lambda: fit(Tokenizer), lambda: fit(LegacyTokenizer), runs, check_fit)
    report("keras fit_on_texts", "keras_preprocessing", kvec_times, legacy_times, "  identical vocabulary")
    ours, theirs = fitted
    kvec_times, legacy_times, _ = interleave(
        lambda: ours.texts_to_sequences(lines),
        lambda: theirs.texts_to_sequences(lines),
        runs,
        check_rows("keras texts_to_sequences"),
        keep=False,
    )
    report("keras texts_to_sequences", "keras_preprocessing", kvec_times, legacy_times, "  ids identical")


def bench_threads(path, lines, runs):
    """Workload 6: the BERT tokenizer's encode_batch on 2 threads vs 1 (n_threads)."""
    from kvec.interop import load_tokenizer_json

    two = fresh(lambda: load_tokenizer_json(path), runs)
    one = fresh(lambda: load_tokenizer_json(path), runs)
    two_times, one_times, _ = interleave(
        lambda: [e.ids for e in two().encode_batch(lines, n_threads=2)],
        lambda: [e.ids for e in one().encode_batch(lines, n_threads=1)],
        runs,
        check_rows("threads"),
        keep=False,
    )
    report("bert, 2 threads vs 1", "1 thread", two_times, one_times, "  ids identical")


def bench_decode(name, path, lines, runs):
    """Workload 7."""
    from tokenizers import Tokenizer

    from kvec.interop import load_tokenizer_json

    hf = Tokenizer.from_file(path)
    ids = [e.ids for e in hf.encode_batch(lines)]
    kvec = fresh(lambda: load_tokenizer_json(path), runs)

    def check(ours, theirs):
        if ours != theirs:
            line = next(i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b)
            mismatch(f"{name} decode", f"line {line}: kvec {ours[line][:40]!r} vs anchor {theirs[line][:40]!r}")

    kvec_times, hf_times, _ = interleave(
        lambda: kvec().decode_batch(ids), lambda: hf.decode_batch(ids), runs, check, keep=False
    )
    report(f"{name} decode_batch", "HF tokenizers", kvec_times, hf_times, "  texts identical")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", help="UTF-8 text file, one document per line")
    parser.add_argument("--runs", type=positive_int, default=3, help="runs per side (default 3)")
    parser.add_argument(
        "--vocab-size", type=positive_int, default=VOCAB_SIZE, help=f"vocabulary of every model (default {VOCAB_SIZE})"
    )
    parser.add_argument(
        "--skip", nargs="+", default=[], choices=WORKLOADS, metavar="WORKLOAD", help="workloads to skip"
    )
    args = parser.parse_args(argv)
    print_convention()
    lines = read_lines(args.corpus)
    print(f"corpus {args.corpus}  ({len(lines):,} lines)", flush=True)
    skip = set(args.skip)
    with tempfile.TemporaryDirectory() as folder:
        uses_hf = {"bert", "bytelevel-bpe", "threads", "decode", "bert-shaped"}
        hf = hf_files(lines, folder, args.vocab_size) if uses_hf - skip else {}
        model = (
            sentencepiece_file(lines, folder, args.vocab_size)
            if {"sentencepiece-model", "sentencepiece-style"} - skip
            else None
        )
        if "bert" not in skip:
            bench_hf("bert", hf["bert"], lines, args.runs)
        if "sentencepiece-model" not in skip:
            bench_sentencepiece_model(model, lines, args.runs)
        if "sentencepiece-style" not in skip:
            bench_sentencepiece_style(model, lines, args.runs, args.vocab_size)
        if "bytelevel-bpe" not in skip:
            bench_hf("bytelevel-bpe", hf["bytelevel-bpe"], lines, args.runs)
        if "keras" not in skip:
            bench_keras(lines, args.runs)
        if "threads" not in skip:
            bench_threads(hf["bert"], lines, args.runs)
        if "decode" not in skip:
            bench_decode("bert", hf["bert"], lines, args.runs)
            bench_decode("bytelevel-bpe", hf["bytelevel-bpe"], lines, args.runs)
        if "bert-shaped" not in skip:
            bench_shaped(hf["bert"], lines, args.runs)
    print("\nall checked outputs identical")


if __name__ == "__main__":
    main()
