"""The ``kvec`` command: train, encode, decode and inspect subword tokenizers from the shell.

::

    kvec train --model bpe|bytelevel-bpe|wordpiece|unigram --vocab-size N [--special TOKEN ...] FILES... -o tok.json
    kvec encode -t tok.json [FILES...] [--tokens]       one line of ids (or tokens) per input line
    kvec decode -t tok.json [FILES...]                  one line of text per line of ids
    kvec inspect -t tok.json [--sample FILES...] [--top N] [--plot hist.png]

FILES are paths or glob patterns; ``-`` (or no FILES for encode and decode) reads standard input.
Training shows tqdm progress bars on counting, merges and EM rounds (``--quiet`` hides them) and counts
in ``--n-jobs`` processes. ``-o`` writes kvec's JSON, or Hugging Face's ``tokenizer.json`` with
``--format hf``; ``-t`` reads either.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
from collections import Counter

from kvec import decoders, normalizers, serialization
from kvec.atomic import atomic_write
from kvec.errors import KvecError, parse_json
from kvec.interop import huggingface, save_tokenizer_json
from kvec.pipeline import Pipeline
from kvec.presets import sentencepiece_style
from kvec.pretokenizers import BertPreTokenizer, ByteLevel, Whitespace
from kvec.trainers import BpeTrainer, UnigramTrainer, WordPieceTrainer

__all__ = ["main"]

MODELS = ("bpe", "bytelevel-bpe", "wordpiece", "unigram")
DEFAULT_SPECIALS = {
    "bpe": ["[PAD]", "[UNK]"],
    "bytelevel-bpe": ["[PAD]"],
    "wordpiece": ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
    "unigram": ["<pad>", "<unk>"],
}


def pipeline_for(model, vocab_size, specials, lowercase, min_frequency, show_progress):
    """An untrained pipeline and its trainer for ``kvec train --model``."""
    lowering = normalizers.Lowercase() if lowercase else None
    if model == "bpe":
        tok = Pipeline(None, pre_tokenizer=Whitespace(), normalizer=lowering)
        unk = "[UNK]" if "[UNK]" in specials else None
        return (
            tok,
            BpeTrainer(
                vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=specials, show_progress=show_progress
            ),
            unk,
        )
    if model == "bytelevel-bpe":
        tok = Pipeline(
            None, pre_tokenizer=ByteLevel(add_prefix_space=False), decoder=decoders.ByteLevel(), normalizer=lowering
        )
        trainer = BpeTrainer(
            vocab_size=vocab_size,
            min_frequency=min_frequency,
            special_tokens=specials,
            initial_alphabet=ByteLevel.alphabet(),
            show_progress=show_progress,
        )
        return tok, trainer, None
    if model == "wordpiece":
        tok = Pipeline(
            None,
            pre_tokenizer=BertPreTokenizer(),
            decoder=decoders.WordPiece(),
            normalizer=normalizers.BertNormalizer(lowercase=lowercase),
        )
        unk = "[UNK]" if "[UNK]" in specials else specials[0] if specials else "[UNK]"
        trainer = WordPieceTrainer(
            vocab_size=vocab_size,
            min_frequency=min_frequency,
            special_tokens=specials,
            unk_token=unk,
            show_progress=show_progress,
        )
        return tok, trainer, None
    tok = sentencepiece_style(normalizer=lowering)
    unk = "<unk>" if "<unk>" in specials else None
    trainer = UnigramTrainer(
        vocab_size=vocab_size,
        special_tokens=specials,
        unk_token=unk,
        byte_fallback=True,
        show_progress=show_progress,
        algorithm="sentencepiece",
    )
    return tok, trainer, None


def expand(paths, stdin_when_empty):
    """The files named by ``paths`` (glob patterns expanded, in sorted order); ``-`` is standard input."""
    if not paths:
        return ["-"] if stdin_when_empty else []
    found = []
    for path in paths:
        if path == "-" or os.path.exists(path):
            found.append(path)
            continue
        matches = sorted(glob.glob(path, recursive=True))
        if not matches:
            raise SystemExit(f"kvec: no file matches {path!r}")
        found += matches
    return found


def lines_of(paths):
    """Every line of the files, in order, without line ends."""
    for path in paths:
        stream = sys.stdin if path == "-" else open(path, encoding="utf-8")
        try:
            for line in stream:
                yield line.rstrip("\r\n")
        finally:
            if stream is not sys.stdin:
                stream.close()


def load(path):
    """A pipeline from kvec's JSON or a Hugging Face ``tokenizer.json``."""
    path, text = serialization.read_text(path)
    document = parse_json(text, path)
    if isinstance(document, dict) and "kvec_format" in document:
        return Pipeline.from_document(document, path)
    return huggingface.from_tokenizer_json_document(document, path)


# ---- the commands ----------------------------------------------------------------------------------


def train(args):
    specials = args.special if args.special is not None else DEFAULT_SPECIALS[args.model]
    tok, trainer, unk = pipeline_for(
        args.model, args.vocab_size, specials, args.lowercase, args.min_frequency, not args.quiet
    )
    files = expand(args.files, stdin_when_empty=False)
    if not files:
        raise SystemExit("kvec train: give at least one file (or - for standard input)")
    tok.train_from_iterator(lines_of(files), trainer, n_jobs=args.n_jobs, show_progress=not args.quiet)
    if unk is not None:
        tok.model.unk_token = unk
    if args.format == "hf":
        save_tokenizer_json(tok, args.output)
    else:
        tok.save(args.output)
    print(f"kvec: {args.model} with {tok.get_vocab_size()} tokens written to {args.output}", file=sys.stderr)


def encode(args):
    tok = load(args.tokenizer)
    out = sys.stdout
    batch = []

    def flush():
        for encoding in tok.encode_batch(batch):
            out.write(" ".join(encoding.tokens if args.tokens else map(str, encoding.ids)) + "\n")
        batch.clear()

    for line in lines_of(expand(args.files, stdin_when_empty=True)):
        batch.append(line)
        if len(batch) >= 1000:
            flush()
    flush()


def decode(args):
    tok = load(args.tokenizer)
    for number, line in enumerate(lines_of(expand(args.files, stdin_when_empty=True)), start=1):
        try:
            ids = [int(part) for part in line.split()]
        except ValueError:
            raise SystemExit(f"kvec decode: line {number} is not a list of ids: {line[:80]!r}") from None
        sys.stdout.write(tok.decode(ids, skip_special_tokens=not args.keep_special) + "\n")


def inspect(args):
    tok = load(args.tokenizer)
    vocab = tok.get_vocab()
    special = tok.added_vocabulary.special
    print(f"model: {type(tok.model).__name__}")
    print(f"vocabulary size: {len(vocab)}")
    print(f"special tokens: {', '.join(f'{t} ({i})' for t, i in special.items()) or 'none'}")
    lengths = Counter(len(token) for token in vocab)
    print("token length histogram (characters: tokens):")
    widest = max(lengths.values())
    for length in sorted(lengths):
        print(f"  {length:3d}: {lengths[length]:6d} {'#' * max(1, round(40 * lengths[length] / widest))}")
    if args.sample:
        texts = list(lines_of(expand(args.sample, stdin_when_empty=False)))
        counts, tokens, size, words = Counter(), 0, 0, 0
        for text, encoding in zip(texts, tok.encode_batch(texts)):
            counts.update(encoding.ids)
            tokens += len(encoding.ids)
            size += len(text.encode("utf-8"))
            words += len(text.split())
        print(
            f"sample: {len(texts)} lines, {tokens} tokens, {size / max(tokens, 1):.3f} bytes/token, "
            f"{tokens / max(words, 1):.3f} tokens/word"
        )
        print(f"most frequent tokens in the sample (top {args.top}):")
        for token_id, count in counts.most_common(args.top):
            print(f"  {tok.id_to_token(token_id)!r:>20} {count}")
    if args.plot:
        plot_lengths(lengths, args.plot)
        print(f"histogram drawn to {args.plot}")


def plot_lengths(lengths, path):
    """Draw the token-length histogram to an image file (needs matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("kvec inspect --plot needs matplotlib: pip install matplotlib") from None
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.bar(list(lengths), [lengths[k] for k in lengths])
    axes.set_xlabel("token length (characters)")
    axes.set_ylabel("tokens")
    axes.set_title("kvec: token lengths")
    figure.tight_layout()
    image_format = os.path.splitext(path)[1].lstrip(".").lower() or "png"
    with atomic_write(path, binary=True) as f:
        figure.savefig(f, format=image_format)
    plt.close(figure)


def parser():
    main_parser = argparse.ArgumentParser(prog="kvec", description=__doc__.split("\n\n")[0])
    commands = main_parser.add_subparsers(dest="command", required=True)

    p = commands.add_parser("train", help="train a subword tokenizer on text files")
    p.add_argument("--model", choices=MODELS, required=True)
    p.add_argument("--vocab-size", type=int, required=True)
    p.add_argument("--special", nargs="*", default=None, help="special tokens (default: the model's usual ones)")
    p.add_argument("--min-frequency", type=int, default=0)
    p.add_argument("--lowercase", action="store_true", help="lowercase the text first")
    p.add_argument("--n-jobs", type=int, default=1, help="processes that count words")
    p.add_argument("--format", choices=("kvec", "hf"), default="kvec", help="kvec JSON or HF tokenizer.json")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("files", nargs="+", help="text files or glob patterns, one text per line (- for stdin)")
    p.set_defaults(run=train)

    p = commands.add_parser("encode", help="encode lines of text to ids")
    p.add_argument("-t", "--tokenizer", required=True)
    p.add_argument("--tokens", action="store_true", help="write tokens instead of ids")
    p.add_argument("files", nargs="*")
    p.set_defaults(run=encode)

    p = commands.add_parser("decode", help="decode lines of ids to text")
    p.add_argument("-t", "--tokenizer", required=True)
    p.add_argument("--keep-special", action="store_true", help="keep special tokens in the text")
    p.add_argument("files", nargs="*")
    p.set_defaults(run=decode)

    p = commands.add_parser("inspect", help="describe a tokenizer")
    p.add_argument("-t", "--tokenizer", required=True)
    p.add_argument("--sample", nargs="*", help="text files to measure compression on")
    p.add_argument("--top", type=int, default=20, help="how many frequent tokens to list")
    p.add_argument("--plot", help="draw the token-length histogram to this image file")
    p.set_defaults(run=inspect)
    return main_parser


def main(argv: list[str] | None = None) -> int | None:
    args = parser().parse_args(argv)
    if getattr(args, "vocab_size", 1) < 1:
        raise SystemExit("kvec train: --vocab-size must be >= 1")
    try:
        args.run(args)
    except (KvecError, ValueError, OSError) as e:
        raise SystemExit(f"kvec {args.command}: {e}") from None
    return 0


if __name__ == "__main__":
    sys.exit(main())
