"""The ``kvec`` command: train, encode, decode and inspect subword tokenizers from the shell.

``kvec --help`` and ``kvec COMMAND --help`` print the usage (the texts below). Every input is UTF-8
text, one text per line; ``-`` is standard input. A failure prints one line, ``kvec: error: ...``, on
standard error and exits 1 (argparse's usage errors exit 2); warnings print as one line,
``kvec: warning: ...``. A reader that closes the output early (``kvec encode ... | head``) ends the
command quietly, with exit status 141, as a process ended by SIGPIPE.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from kvec import __version__, decoders, normalizers
from kvec.common.progress import progress_bar
from kvec.errors import KvecError, NotAFileError
from kvec.files.atomic import atomic_write, replaceable_target
from kvec.interop import save_tokenizer_json
from kvec.interop.detection import load
from kvec.pipeline import Pipeline
from kvec.pre_tokenizers import BertPreTokenizer, ByteLevel, Whitespace
from kvec.presets import sentencepiece_style
from kvec.trainers import BpeTrainer, UnigramTrainer, WordPieceTrainer
from kvec.trainers.counting import count_words

__all__ = ["main"]

MODELS = ("bpe", "bytelevel-bpe", "wordpiece", "unigram")
DEFAULT_SPECIALS = {
    "bpe": ["[PAD]", "[UNK]"],
    "bytelevel-bpe": ["[PAD]"],
    "wordpiece": ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
    "unigram": ["<pad>", "<unk>"],
}
UNIGRAM_CHARACTER_COVERAGE = 0.9995  # sentencepiece's default
EXIT_ERROR = 1
EXIT_BROKEN_PIPE = 128 + 13  # as a shell reports a process ended by SIGPIPE
_BAR_STEP = 1 << 16  # bytes read between two updates of the progress bar

DESCRIPTION = """\
Train, encode, decode and inspect subword tokenizers (BPE, byte-level BPE,
WordPiece, Unigram) from the shell.

Input files are paths or glob patterns (quote them: 'data/*.txt'); - reads
standard input. Every input is UTF-8 text, one text per line."""

EPILOG = """\
examples:
  kvec train --model bpe --vocab-size 8000 'corpus/*.txt' -o tok.json
  kvec train --model unigram --vocab-size 8000 zh.txt -o tok.json --format hf
  kvec encode -t tok.json notes.txt > notes.ids
  echo "Hello, world" | kvec encode -t tok.json --tokens
  kvec decode -t tok.json notes.ids
  kvec inspect -t tok.json --sample notes.txt --top 10

Run 'kvec COMMAND --help' for the options of a command."""

TRAIN_DESCRIPTION = """\
Train a subword tokenizer on text files (UTF-8, one text per line) and write it
to the -o file. Words are counted first (a progress bar over the bytes read),
then the model is trained (a bar over merges or EM rounds); --quiet hides both.

The alphabet (the characters that are tokens of their own):
  bpe, wordpiece  every character of the corpus; --limit-alphabet N keeps the N
                  most frequent, --character-coverage F keeps the most frequent
                  characters that together make up the share F of all
                  character occurrences. The others are left out of training
                  and encode to the unknown token ([UNK]).
  unigram         the characters that cover --character-coverage F of the
                  character occurrences (default 0.9995, as sentencepiece);
                  rarer ones are spelled with the byte tokens <0x00>..<0xFF>.
  bytelevel-bpe   always the 256 byte characters: neither option applies."""

TRAIN_EPILOG = """\
examples:
  kvec train --model wordpiece --vocab-size 30000 --lowercase 'wiki/*.txt' -o tok.json
  kvec train --model bpe --vocab-size 4000 --limit-alphabet 1000 en_zh.txt -o tok.json
  cat corpus.txt | kvec train --model unigram --vocab-size 8000 - -o tok.json --quiet"""

ENCODE_DESCRIPTION = """\
Encode text to token ids. Reads UTF-8 text, one text per line, from FILES (from
standard input when FILES is empty or -) and writes one line to standard output
for every input line: its token ids as integers separated by single spaces (the
format 'kvec decode' reads), or its tokens separated by spaces with --tokens."""

ENCODE_EPILOG = """\
examples:
  kvec encode -t tok.json notes.txt > notes.ids
  echo "Hello, world" | kvec encode -t tok.json --tokens"""

DECODE_DESCRIPTION = """\
Decode token ids to text. Reads lines of token ids (integers separated by
spaces, as 'kvec encode' writes them) from FILES (from standard input when
FILES is empty or -) and writes one line of text for every input line."""

DECODE_EPILOG = """\
example:
  kvec encode -t tok.json notes.txt | kvec decode -t tok.json"""

INSPECT_DESCRIPTION = """\
Describe a tokenizer: its model, vocabulary size, special tokens and a histogram
of token lengths; with --sample, how well it compresses the sample text (bytes
per token, tokens per word) and the sample's most frequent tokens."""

INSPECT_EPILOG = """\
example:
  kvec inspect -t tok.json --sample notes.txt --top 10 --plot lengths.png"""

TOKENIZER_HELP = (
    "the tokenizer file: kvec's JSON (as 'kvec train' writes it), a Hugging Face tokenizer.json, "
    "a sentencepiece .model, a BERT vocab.txt, or a folder holding one"
)


class CommandError(Exception):
    """A failure the command reports as one line, ``kvec: error: <message>``."""


# ---- reading the input -----------------------------------------------------------------------------


def expand(paths: list[str], stdin_when_empty: bool) -> list[str]:
    """The files named by ``paths`` (glob patterns expanded, in sorted order); ``-`` is standard input."""
    if not paths:
        return ["-"] if stdin_when_empty else []
    found = []
    for path in paths:
        if path == "-" or os.path.exists(path):
            matches = [path]
        else:
            matches = sorted(glob.glob(path, recursive=True))
            if not matches:
                if any(c in path for c in "*?["):
                    raise CommandError(f"no file matches {path}")
                raise CommandError(f"{path}: no such file")
        for match in matches:
            if os.path.isdir(match):
                raise CommandError(f"{match}: is a folder (give the files in it, such as '{match}/*.txt')")
        found += matches
    return found


def display_name(path: str) -> str:
    """How an input is named in messages."""
    return "<stdin>" if path == "-" else path


class InputLines:
    """The lines of the input files in order, without line ends (a line ends at ``\\n``; a ``\\r``
    before it is dropped).

    A line that is not UTF-8 stops the reading with a :class:`CommandError` naming the file and the
    line (1-based). ``bar`` counts the bytes read; ``has_text`` tells, once read, whether any line
    held more than whitespace; ``where`` is the file and line being read, for messages.
    """

    def __init__(self, paths: list[str], bar=None):
        self.paths = paths
        self.bar = bar
        self.has_text = False
        self.where = ""

    def __iter__(self) -> Iterator[str]:
        for path in self.paths:
            name = display_name(path)
            with open_input(path) as stream:
                pending = 0
                for number, raw in enumerate(stream, start=1):
                    self.where = f"{name}, line {number}"
                    if self.bar is not None:
                        pending += len(raw)
                        if pending >= _BAR_STEP:
                            self.bar.update(pending)
                            pending = 0
                    try:
                        line = raw.decode("utf-8")
                    except UnicodeDecodeError as e:
                        byte = f"byte 0x{raw[e.start]:02x} at byte {e.start + 1} of the line"
                        raise CommandError(f"{self.where}: not UTF-8 text ({byte})") from None
                    line = line.rstrip("\n").rstrip("\r")
                    if not self.has_text and not line.isspace() and line:
                        self.has_text = True
                    yield line
                if self.bar is not None and pending:
                    self.bar.update(pending)


@contextmanager
def open_input(path: str) -> Iterator[Iterable[bytes]]:
    """The lines of a file as bytes, or those of standard input (left open)."""
    if path != "-":
        with open(path, "rb") as stream:
            yield stream
        return
    binary = getattr(sys.stdin, "buffer", None)
    # a text stream without bytes underneath (one an embedding program set): its lines as UTF-8
    yield binary if binary is not None else (line.encode("utf-8", "surrogatepass") for line in sys.stdin)


def input_size(paths: list[str]) -> int | None:
    """The bytes in the input files together; None when standard input is one of them."""
    if "-" in paths:
        return None
    return sum(os.path.getsize(path) for path in paths)


def check_readable(paths: list[str]) -> None:
    """Every input file can be opened for reading (before any long work starts)."""
    for path in paths:
        if path != "-" and not os.access(path, os.R_OK):
            raise CommandError(f"{path}: not readable")


def check_output(path: str, option: str) -> None:
    """``path`` can be written by ``option`` (checked before any long work starts): a regular file or
    none yet (a symlink: its target), in a folder that exists and is writable."""
    if os.path.isdir(path):
        raise CommandError(f"cannot write {option} {path}: it is a folder (give a file name in it)")
    try:
        target, _ = replaceable_target(path)
    except NotAFileError as e:
        raise CommandError(f"cannot write {option} {path}: it is {e.kind}, not a regular file") from None
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise CommandError(f"cannot write {option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CommandError(f"cannot write {option} {path}: the folder {folder} is not writable")


def load_tokenizer(path: str) -> Pipeline:
    """The subword tokenizer in ``path`` (any format :func:`kvec.load` reads, but a Keras Tokenizer)."""
    tok = load(path)
    if not isinstance(tok, Pipeline):
        raise CommandError(f"{path}: a Keras Tokenizer JSON, not a subword tokenizer")
    return tok


# ---- training --------------------------------------------------------------------------------------


def pipeline_for(args, specials):
    """An untrained pipeline, its trainer and the unknown token to set on the trained model (None:
    the trainer sets it) for ``kvec train``'s options."""
    model, show_progress = args.model, not args.quiet
    lowering = normalizers.Lowercase() if args.lowercase else None
    min_frequency = args.min_frequency or 0
    trainer: BpeTrainer | WordPieceTrainer | UnigramTrainer
    if model in ("bpe", "bytelevel-bpe"):
        byte_level = model == "bytelevel-bpe"
        trainer = BpeTrainer(
            vocab_size=args.vocab_size,
            min_frequency=min_frequency,
            special_tokens=specials,
            limit_alphabet=args.limit_alphabet,
            initial_alphabet=ByteLevel.alphabet() if byte_level else (),
            show_progress=show_progress,
        )
        if byte_level:
            tok = Pipeline(
                None, pre_tokenizer=ByteLevel(add_prefix_space=False), decoder=decoders.ByteLevel(), normalizer=lowering
            )
            return tok, trainer, None
        tok = Pipeline(None, pre_tokenizer=Whitespace(), normalizer=lowering)
        return tok, trainer, "[UNK]" if "[UNK]" in specials else None
    if model == "wordpiece":
        tok = Pipeline(
            None,
            pre_tokenizer=BertPreTokenizer(),
            decoder=decoders.WordPiece(),
            normalizer=normalizers.BertNormalizer(lowercase=args.lowercase),
        )
        unk = "[UNK]" if "[UNK]" in specials else specials[0] if specials else "[UNK]"
        trainer = WordPieceTrainer(
            vocab_size=args.vocab_size,
            min_frequency=min_frequency,
            special_tokens=specials,
            limit_alphabet=args.limit_alphabet,
            unk_token=unk,
            show_progress=show_progress,
        )
        return tok, trainer, None
    tok = sentencepiece_style(normalizer=lowering)
    coverage = UNIGRAM_CHARACTER_COVERAGE if args.character_coverage is None else args.character_coverage
    trainer = UnigramTrainer(
        vocab_size=args.vocab_size,
        special_tokens=specials,
        unk_token="<unk>" if "<unk>" in specials else None,
        character_coverage=coverage,
        byte_fallback=True,
        show_progress=show_progress,
        algorithm="sentencepiece",
    )
    return tok, trainer, None


def alphabet_size_for_coverage(counts: dict[str, int], coverage: float) -> int:
    """How many of the most frequent characters of the words in ``counts`` ({word: count}) make up
    the share ``coverage`` of all character occurrences.

    Example:
        >>> alphabet_size_for_coverage({"aab": 3, "c": 1}, 0.9)  # a: 6, b: 3, c: 1 of 10
        2
    """
    weight: dict[str, int] = {}
    for word, count in counts.items():
        for c in word:
            weight[c] = weight.get(c, 0) + count
    needed, covered = coverage * sum(weight.values()), 0
    for kept, count in enumerate(sorted(weight.values(), reverse=True), start=1):
        covered += count
        if covered >= needed:
            return kept
    return len(weight)


def check_train_options(args, command_parser):
    """Refuse the options that do not apply to ``--model`` (argparse's usage error, exit 2)."""
    if args.limit_alphabet is not None and args.character_coverage is not None:
        command_parser.error("give --limit-alphabet or --character-coverage, not both")
    if args.model == "bytelevel-bpe":
        for option, value in (
            ("--limit-alphabet", args.limit_alphabet),
            ("--character-coverage", args.character_coverage),
        ):
            if value is not None:
                command_parser.error(
                    f"{option} does not apply to --model bytelevel-bpe (its alphabet is the 256 bytes)"
                )
    if args.model == "unigram":
        if args.limit_alphabet is not None:
            command_parser.error(
                "--limit-alphabet applies to --model bpe and wordpiece; for unigram use --character-coverage"
            )
        if args.min_frequency is not None:
            command_parser.error("--min-frequency applies to --model bpe, bytelevel-bpe and wordpiece, not unigram")


def train(args: argparse.Namespace) -> None:
    check_train_options(args, args.command_parser)
    check_output(args.output, "-o")
    files = expand(args.files, stdin_when_empty=False)
    check_readable(files)
    specials = args.special if args.special is not None else DEFAULT_SPECIALS[args.model]
    tok, trainer, unk = pipeline_for(args, specials)
    bar = progress_bar(not args.quiet, total=input_size(files), desc="Counting words", unit="B", unit_scale=True)
    lines = InputLines(files, bar)
    try:
        counts = count_words(lines, tok.training_words(), n_jobs=args.n_jobs)
    finally:
        bar.close()  # before any message, which then starts a line of its own
    if not counts or not lines.has_text:
        names = ", ".join(display_name(path) for path in files)
        raise CommandError(f"no text to train on: {names} {'holds' if len(files) == 1 else 'hold'} only blank lines")
    if args.character_coverage is not None and args.model in ("bpe", "wordpiece"):
        trainer.limit_alphabet = alphabet_size_for_coverage(counts, args.character_coverage)
    tok.train_from_counts(counts, trainer, n_jobs=args.n_jobs)
    if unk is not None:
        tok.model.unk_token = unk
    try:
        if args.format == "hf":
            save_tokenizer_json(tok, args.output)
        else:
            tok.save(args.output)
    except OSError as e:
        raise CommandError(f"cannot write -o {args.output}: {e.strerror or e}") from None
    if not args.quiet:
        print(f"kvec: {args.model} with {tok.get_vocab_size()} tokens written to {args.output}", file=sys.stderr)


# ---- encoding, decoding, inspecting ----------------------------------------------------------------


def encode(args: argparse.Namespace) -> None:
    tok = load_tokenizer(args.tokenizer)
    out = sys.stdout
    batch: list[str] = []

    def flush():
        for encoding in tok.encode_batch(batch):
            out.write(" ".join(encoding.tokens if args.tokens else map(str, encoding.ids)) + "\n")
        batch.clear()

    for line in InputLines(expand(args.files, stdin_when_empty=True)):
        batch.append(line)
        if len(batch) >= 1000:
            flush()
    flush()


def decode(args: argparse.Namespace) -> None:
    tok = load_tokenizer(args.tokenizer)
    lines = InputLines(expand(args.files, stdin_when_empty=True))
    for line in lines:
        try:
            ids = [int(part) for part in line.split()]
        except ValueError:
            raise CommandError(
                f"{lines.where}: not a line of token ids (integers separated by spaces): {line[:80]!r}"
            ) from None
        try:
            text = tok.decode(ids, skip_special_tokens=not args.keep_special)
        except ValueError as e:
            raise CommandError(f"{lines.where}: {e}") from None
        sys.stdout.write(text + "\n")


def inspect(args: argparse.Namespace) -> None:
    if args.plot:
        check_output(args.plot, "--plot")
    tok = load_tokenizer(args.tokenizer)
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
        texts = list(InputLines(expand(args.sample, stdin_when_empty=False)))
        counts: Counter[int] = Counter()
        tokens, size, words = 0, 0, 0
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
        raise CommandError("--plot needs matplotlib: pip install 'kvec[cli]'") from None
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.bar(list(lengths), [lengths[k] for k in lengths])
    axes.set_xlabel("token length (characters)")
    axes.set_ylabel("tokens")
    axes.set_title("kvec: token lengths")
    figure.tight_layout()
    image_format = os.path.splitext(path)[1].lstrip(".").lower() or "png"
    try:
        with atomic_write(path, binary=True) as f:
            figure.savefig(f, format=image_format)
    except OSError as e:
        raise CommandError(f"cannot write --plot {path}: {e.strerror or e}") from None
    finally:
        plt.close(figure)


# ---- the command line ------------------------------------------------------------------------------


def int_at_least(minimum: int, also: int | None = None):
    """An argparse type: an int >= ``minimum`` (or equal to ``also``)."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum and value != also:
            extra = f" or {also}" if also is not None else ""
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}{extra}, got {value}")
        return value

    return parse


def share(text):
    """An argparse type: a number in (0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}") from None
    if not 0.0 < value <= 1.0:  # NaN fails too
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], got {text}")
    return value


def add_command(commands, name, summary, description, epilog, run):
    """A subcommand's parser: its one-line summary, its help text kept as written, the function it runs."""
    command_parser = commands.add_parser(
        name,
        help=summary,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command_parser.set_defaults(run=run, command_parser=command_parser)
    return command_parser


def parser() -> argparse.ArgumentParser:
    """The parser of the ``kvec`` command line."""
    main_parser = argparse.ArgumentParser(
        prog="kvec", description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    main_parser.add_argument("--version", action="version", version=f"kvec {__version__}")
    commands = main_parser.add_subparsers(dest="command", title="commands", metavar="COMMAND", required=True)

    p = add_command(
        commands, "train", "train a subword tokenizer on text files", TRAIN_DESCRIPTION, TRAIN_EPILOG, train
    )
    p.add_argument("--model", choices=MODELS, required=True, help="the subword model to train")
    p.add_argument(
        "--vocab-size",
        type=int_at_least(1),
        required=True,
        metavar="N",
        help="the vocabulary size, special tokens included",
    )
    p.add_argument(
        "--special",
        nargs="*",
        default=None,
        metavar="TOKEN",
        help="special tokens, in id order (default: "
        + "; ".join(f"{m}: {' '.join(s)}" for m, s in DEFAULT_SPECIALS.items())
        + "); give them after FILES, since the list takes every word up to the next option",
    )
    p.add_argument(
        "--min-frequency",
        type=int_at_least(0),
        default=None,
        metavar="N",
        help="never merge a pair seen fewer than N times (bpe, bytelevel-bpe, wordpiece; default 0)",
    )
    p.add_argument(
        "--limit-alphabet",
        type=int_at_least(0),
        default=None,
        metavar="N",
        help="keep only the N most frequent characters in the alphabet (bpe, wordpiece)",
    )
    p.add_argument(
        "--character-coverage",
        type=share,
        default=None,
        metavar="F",
        help="keep the most frequent characters that make up the share F (0 < F <= 1) of all character "
        f"occurrences (unigram: default {UNIGRAM_CHARACTER_COVERAGE}; bpe, wordpiece: default 1, every character)",
    )
    p.add_argument("--lowercase", action="store_true", help="lowercase the text first")
    p.add_argument(
        "--n-jobs",
        type=int_at_least(1, also=-1),
        default=1,
        metavar="N",
        help="processes that count words (-1: one per CPU; default 1); the result is the same for every N",
    )
    p.add_argument(
        "--format",
        choices=("kvec", "hf"),
        default="kvec",
        help="write kvec's JSON (default) or a Hugging Face tokenizer.json",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars and no closing summary line")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="the tokenizer file to write")
    p.add_argument(
        "files", nargs="+", metavar="FILES", help="text files or glob patterns, one text per line (- for stdin)"
    )

    p = add_command(commands, "encode", "encode lines of text to token ids", ENCODE_DESCRIPTION, ENCODE_EPILOG, encode)
    p.add_argument("-t", "--tokenizer", required=True, metavar="FILE", help=TOKENIZER_HELP)
    p.add_argument("--tokens", action="store_true", help="write the tokens instead of their ids")
    p.add_argument("files", nargs="*", metavar="FILES", help="text files or glob patterns (default: standard input)")

    p = add_command(commands, "decode", "decode lines of token ids to text", DECODE_DESCRIPTION, DECODE_EPILOG, decode)
    p.add_argument("-t", "--tokenizer", required=True, metavar="FILE", help=TOKENIZER_HELP)
    p.add_argument("--keep-special", action="store_true", help="keep special tokens in the text (default: drop them)")
    p.add_argument(
        "files", nargs="*", metavar="FILES", help="files of token ids or glob patterns (default: standard input)"
    )

    p = add_command(commands, "inspect", "describe a tokenizer", INSPECT_DESCRIPTION, INSPECT_EPILOG, inspect)
    p.add_argument("-t", "--tokenizer", required=True, metavar="FILE", help=TOKENIZER_HELP)
    p.add_argument("--sample", nargs="*", metavar="FILES", help="text files to measure the compression on")
    p.add_argument(
        "--top",
        type=int_at_least(1),
        default=20,
        metavar="N",
        help="how many frequent sample tokens to list (default 20)",
    )
    p.add_argument(
        "--plot", metavar="IMAGE", help="draw the token-length histogram to this image file (needs matplotlib)"
    )
    return main_parser


def describe(error: BaseException) -> str:
    """One line about an error, naming the file of an ``OSError``."""
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        return f"{error.filename}: {error.strerror}"
    return " ".join(str(error).split())


def show_warning(message, category, filename, lineno, file=None, line=None):
    """Warnings as one plain line on standard error, without the source line."""
    print(f"kvec: warning: {' '.join(str(message).split())}", file=sys.stderr)


def silence_stdout() -> None:
    """Point standard output at the null device, so the flush at exit finds no closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):  # no file descriptor underneath (an embedding program)
        pass


def main(argv: list[str] | None = None) -> int:
    """Run the ``kvec`` command line (``argv``: the arguments, default ``sys.argv[1:]``) and return the
    exit status; with no arguments, print the help. Usage errors, ``--help`` and ``--version`` exit
    through argparse's ``SystemExit``."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    command_line = parser()
    if not arguments:
        command_line.print_help(sys.stdout)
        return 0
    args = command_line.parse_args(arguments)
    shown = warnings.showwarning
    warnings.showwarning = show_warning
    try:
        args.run(args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
    except BrokenPipeError:
        silence_stdout()
        return EXIT_BROKEN_PIPE
    except (CommandError, KvecError, ValueError, OSError) as e:
        print(f"kvec: error: {describe(e)}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        warnings.showwarning = shown
    return 0


if __name__ == "__main__":
    sys.exit(main())
