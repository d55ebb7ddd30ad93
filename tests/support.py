"""What the tests share: hypothesis strategies, the design articles' worked examples, small real
text, threads, and the oracles.

Every test module imports from here (``from tests.support import ...``). The oracles (Hugging Face
tokenizers, keras-preprocessing, sentencepiece, ...) are never imported at the top of this module:
:class:`Oracle` imports one on first use, so a test that needs a missing oracle is skipped while the
core tests around it still run (``make test-core``).
"""

import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import threading

import pytest
from hypothesis import strategies as st

from kvec.models import BPE
from kvec.pretokenizers import CL100K_PATTERN

# --------------------------------------------------------------------------------------------------
# Oracles


class Oracle:
    """A module of an oracle (or one of its attributes), imported on first use.

    ``hf_models = Oracle("tokenizers.models")`` reads like the module; ``Oracle("tokenizers", "Tokenizer")``
    calls like the class. Where the oracle is not installed, the first use skips the test (or the
    module, when the use is at its top level) with ``pytest.importorskip``.
    """

    def __init__(self, module, attribute=None):
        self._module = module
        self._attribute = attribute

    def _target(self):
        found = pytest.importorskip(self._module)
        return found if self._attribute is None else getattr(found, self._attribute)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._target(), name)

    def __call__(self, *args, **kwargs):
        return self._target()(*args, **kwargs)


# --------------------------------------------------------------------------------------------------
# Unicode that both sides of a parity test classify alike
#
# Parity with a Rust library is only meaningful for characters whose Unicode properties both sides agree
# on. Hugging Face tokenizers' character tables and regex engine follow older Unicode versions than
# Python's ``unicodedata`` (14.0) and the ``regex`` module (newer still), so recently assigned code points
# can be letters or combining marks on one side and unassigned on the other. ``STABLE_CHARS`` draws only
# from blocks whose assignments have not changed since Unicode 6.

_STABLE_RANGES = [
    (0x0000, 0x052F),  # Latin, IPA, spacing modifiers, combining diacritics, Greek, Cyrillic
    (0x0590, 0x05FF),  # Hebrew
    (0x0E00, 0x0E5B),  # Thai
    (0x1100, 0x11FF),  # Hangul jamo
    (0x1E00, 0x1FFF),  # Latin extended additional, Greek extended
    (0x2000, 0x206F),  # general punctuation
    (0x20A0, 0x20B5),  # currency symbols
    (0x2100, 0x24FF),  # letterlike, number forms, arrows, math, enclosed alphanumerics
    (0x3000, 0x30FF),  # CJK punctuation, hiragana, katakana
    (0x3300, 0x33FF),  # CJK compatibility
    (0x4E00, 0x9FCB),  # CJK unified ideographs
    (0xAC00, 0xD7A3),  # Hangul syllables
    (0xFB00, 0xFB06),  # Latin ligatures
    (0xFF00, 0xFFEF),  # half- and full-width forms
    (0x1F600, 0x1F64F),  # emoticons
]

STABLE_CHARS = st.one_of(
    *[st.characters(min_codepoint=lo, max_codepoint=hi, blacklist_categories=("Cs", "Cn")) for lo, hi in _STABLE_RANGES]
)


# --------------------------------------------------------------------------------------------------
# Threads


def in_threads(function, inputs, threads=8):
    """``[function(x) for x in inputs]``, with ``threads`` threads taking the inputs in turn."""
    results = [None] * len(inputs)

    def work(k):
        for i in range(k, len(inputs), threads):
            results[i] = function(inputs[i])

    workers = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return results


# --------------------------------------------------------------------------------------------------
# Worked examples printed in the design articles (seeds 000, 002, 003), copied verbatim

# Seed 002: the Hugging Face summary's BPE example.
SEED002_WORD_COUNTS = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
SEED002_VOCAB = ["b", "g", "h", "n", "p", "s", "u", "ug", "un", "hug"]

# Seed 003: BPE on a mixed Chinese/English corpus (pre-segmented), vocab_size 50.
SEED003_SENTENCES = [
    "我",
    "喜欢",
    "吃",
    "苹果",
    "他",
    "不",
    "喜欢",
    "吃",
    "苹果派",
    "I like to eat apples",
    "She has a cute cat",
    "you are very cute",
    "give you a hug",
]
SEED003_MERGES = {
    ("喜", "欢"): "喜欢",
    ("苹", "果"): "苹果",
    ("a", "t"): "at",
    ("c", "u"): "cu",
    ("cu", "t"): "cut",
    ("cut", "e"): "cute",
    ("y", "o"): "yo",
    ("yo", "u"): "you",
    ("v", "e"): "ve",
    ("苹果", "派"): "苹果派",
    ("l", "i"): "li",
    ("li", "k"): "lik",
    ("lik", "e"): "like",
    ("t", "o"): "to",
    ("e", "at"): "eat",
    ("a", "p"): "ap",
    ("ap", "p"): "app",
    ("app", "l"): "appl",
    ("appl", "e"): "apple",
    ("apple", "s"): "apples",
    ("S", "h"): "Sh",
    ("Sh", "e"): "She",
    ("h", "a"): "ha",
}
SEED003_VOCAB = [
    "I",
    "S",
    "a",
    "c",
    "e",
    "g",
    "h",
    "i",
    "k",
    "l",
    "o",
    "p",
    "r",
    "s",
    "t",
    "u",
    "v",
    "y",
    "不",
    "他",
    "吃",
    "喜",
    "我",
    "果",
    "欢",
    "派",
    "苹",
    "喜欢",
    "苹果",
    "at",
    "cu",
    "cut",
    "cute",
    "yo",
    "you",
    "ve",
    "苹果派",
    "li",
    "lik",
    "like",
    "to",
    "eat",
    "ap",
    "app",
    "appl",
    "apple",
    "apples",
    "Sh",
    "She",
    "ha",
]

# Seed 000: byte-level BPE on the Hugging Face course corpus, vocab_size 50.
SEED000_WORD_FREQS = {
    "This": 3,
    "Ġis": 2,
    "Ġthe": 1,
    "ĠHugging": 1,
    "ĠFace": 1,
    "ĠCourse": 1,
    ".": 4,
    "Ġchapter": 1,
    "Ġabout": 1,
    "Ġtokenization": 1,
    "Ġsection": 1,
    "Ġshows": 1,
    "Ġseveral": 1,
    "Ġtokenizer": 1,
    "Ġalgorithms": 1,
    "Hopefully": 1,
    ",": 1,
    "Ġyou": 1,
    "Ġwill": 1,
    "Ġbe": 1,
    "Ġable": 1,
    "Ġto": 1,
    "Ġunderstand": 1,
    "Ġhow": 1,
    "Ġthey": 1,
    "Ġare": 1,
    "Ġtrained": 1,
    "Ġand": 1,
    "Ġgenerate": 1,
    "Ġtokens": 1,
}
SEED000_MERGE_RULES = [
    ("Ġ", "t"),
    ("i", "s"),
    ("e", "r"),
    ("Ġ", "a"),
    ("Ġt", "o"),
    ("e", "n"),
    ("T", "h"),
    ("Th", "is"),
    ("o", "u"),
    ("s", "e"),
    ("Ġto", "k"),
    ("Ġtok", "en"),
    ("n", "d"),
    ("Ġ", "is"),
    ("Ġt", "h"),
    ("Ġth", "e"),
    ("i", "n"),
    ("Ġa", "b"),
    ("Ġtoken", "i"),
    ("Ġtokeni", "z"),
]
SEED000_TOKENIZED = ["This", "Ġis", "Ġ", "n", "o", "t", "Ġa", "Ġtoken", "."]  # tokenize("This is not a token.")

# Seed 003: WordPiece (likelihood score) on the same corpus, vocab_size 50, in vocabulary order.
SEED003_WORDPIECE_VOCAB = [
    "##a",
    "##e",
    "##g",
    "##h",
    "##i",
    "##k",
    "##l",
    "##o",
    "##p",
    "##r",
    "##s",
    "##t",
    "##u",
    "##v",
    "##y",
    "##果",
    "##欢",
    "##派",
    "I",
    "S",
    "a",
    "c",
    "e",
    "g",
    "h",
    "l",
    "t",
    "v",
    "y",
    "不",
    "他",
    "吃",
    "喜",
    "我",
    "苹",
    "Sh",
    "喜欢",
    "苹果",
    "苹果派",
    "li",
    "lik",
    "gi",
    "giv",
    "##pl",
    "##ppl",
    "##ry",
    "to",
    "yo",
    "ea",
    "eat",
]

# Seed 000: WordPiece (likelihood score) on the course corpus after BERT pre-tokenization, vocab_size 70
# with 5 special tokens; printed with the other tokens sorted and the special tokens after them.
SEED000_WORDPIECE_WORD_FREQS = {
    "This": 3,
    "is": 2,
    "the": 1,
    "Hugging": 1,
    "Face": 1,
    "Course": 1,
    ".": 4,
    "chapter": 1,
    "about": 1,
    "tokenization": 1,
    "section": 1,
    "shows": 1,
    "several": 1,
    "tokenizer": 1,
    "algorithms": 1,
    "Hopefully": 1,
    ",": 1,
    "you": 1,
    "will": 1,
    "be": 1,
    "able": 1,
    "to": 1,
    "understand": 1,
    "how": 1,
    "they": 1,
    "are": 1,
    "trained": 1,
    "and": 1,
    "generate": 1,
    "tokens": 1,
}
SEED000_WORDPIECE_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
SEED000_WORDPIECE_VOCAB_PRINTED = [
    "##a",
    "##b",
    "##c",
    "##ct",
    "##d",
    "##e",
    "##f",
    "##fu",
    "##ful",
    "##full",
    "##fully",
    "##g",
    "##h",
    "##hm",
    "##i",
    "##k",
    "##l",
    "##m",
    "##n",
    "##o",
    "##p",
    "##r",
    "##s",
    "##t",
    "##thm",
    "##thms",
    "##u",
    "##ut",
    "##v",
    "##w",
    "##y",
    "##z",
    "##za",
    "##zat",
    ",",
    ".",
    "C",
    "F",
    "Fa",
    "Fac",
    "H",
    "Hu",
    "Hug",
    "Hugg",
    "T",
    "Th",
    "a",
    "ab",
    "b",
    "c",
    "ch",
    "cha",
    "chap",
    "chapt",
    "g",
    "h",
    "i",
    "is",
    "s",
    "sh",
    "t",
    "th",
    "u",
    "w",
    "y",
    "[CLS]",
    "[MASK]",
    "[PAD]",
    "[SEP]",
    "[UNK]",
]


# --------------------------------------------------------------------------------------------------
# The demo, imported as a module


def load_demo():
    path = pathlib.Path(__file__).resolve().parents[1] / "examples" / "demo.py"
    spec = importlib.util.spec_from_file_location("kvec_demo", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------------------------------
# Small real text, and models trained on it by Hugging Face tokenizers


def real_text():
    """Lines of the standard library's docstrings: small real text, the same on every machine with
    this Python."""
    import csv
    import email
    import html
    import inspect
    import json as json_module

    lines = []
    for module in (json_module, csv, email, html, inspect):
        for _, member in sorted(vars(module).items()):
            doc = inspect.getdoc(member) if callable(member) else None
            if doc:
                lines += [line for line in doc.split("\n") if line.strip()]
    return lines


TEXTS = real_text()
WORDS = sorted({w for line in TEXTS for w in line.split()})[:400]
TEXT = st.lists(
    st.one_of(st.sampled_from(WORDS), st.sampled_from([" ", "  ", "\n", "[CLS]", "<s>", "12"]), STABLE_CHARS),
    max_size=20,
).map("".join)


def hf_llama3():
    """A Hugging Face BPE in Llama 3's shape, trained on ``TEXTS``: words by cl100k's expression
    (``Split``), then byte-level spelling without an expression of its own, and ``ignore_merges``."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import Regex, decoders, models, pre_tokenizers, trainers

    tok = tokenizers.Tokenizer(models.BPE(ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(CL100K_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(
        TEXTS, trainers.BpeTrainer(vocab_size=600, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    )
    return tok


def hf_trained(kind):
    """A Hugging Face tokenizer of ``kind`` trained on ``TEXTS`` (the test is skipped without tokenizers)."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import decoders, models, normalizers, pre_tokenizers, processors, trainers

    if kind == "bytelevel_bpe":
        tok = tokenizers.Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        alphabet = pre_tokenizers.ByteLevel.alphabet()
        tok.train_from_iterator(
            TEXTS, trainers.BpeTrainer(vocab_size=600, initial_alphabet=alphabet, special_tokens=["<pad>", "<s>"])
        )
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A", pair="<s> $A $B:1", special_tokens=[("<s>", 1)]
        )
    elif kind == "bert_wordpiece":
        tok = tokenizers.Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer()
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece()
        tok.train_from_iterator(
            TEXTS, trainers.WordPieceTrainer(vocab_size=500, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"])
        )
        tok.post_processor = processors.BertProcessing(
            ("[SEP]", tok.token_to_id("[SEP]")), ("[CLS]", tok.token_to_id("[CLS]"))
        )
    elif kind == "bpe_sequence":
        tok = tokenizers.Tokenizer(models.BPE(unk_token="[UNK]", continuing_subword_prefix="##"))
        tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(), normalizers.Lowercase()])
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [pre_tokenizers.Whitespace(), pre_tokenizers.Digits(individual_digits=True)]
        )
        tok.train_from_iterator(
            TEXTS, trainers.BpeTrainer(vocab_size=500, special_tokens=["[UNK]"], continuing_subword_prefix="##")
        )
    else:
        tok = tokenizers.Tokenizer(models.Unigram())
        tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        tok.train_from_iterator(
            TEXTS, trainers.UnigramTrainer(vocab_size=400, special_tokens=["<unk>"], unk_token="<unk>")
        )
    return tok


# A small BPE vocabulary that exercises every rule of kvec.models.BPE: continuing prefixes, end-of-word
# suffixes, byte fallback tokens, an unknown token, and tokens that no merge makes ("bca", "中x").
BPE_VOCAB = ["a", "b", "c", "ab", "abc", "##a", "##b", "##c", "##ab", "a</w>", "b</w>", "##b</w>", "##c</w>"]
BPE_VOCAB += ["<0x61>", "<0xC3>", "<0xA9>", "<0xE4>", "<0xB8>", "<0xAD>", "[UNK]", "bca", "中x"]
BPE_MERGES = [("a", "b"), ("ab", "c"), ("##a", "##b"), ("a", "##b"), ("ab", "##c")]


def small_bpe(prefix=None, suffix=None, **options):
    """A :class:`kvec.models.BPE` over BPE_VOCAB: the merges its prefix allows, and ``options``
    (``unk_token``, ``byte_fallback``, ``fuse_unk``, ``ignore_merges``, ``dropout``...)."""
    merges = [m for m in BPE_MERGES if prefix or not m[1].startswith("##")]
    return BPE(
        {t: i for i, t in enumerate(BPE_VOCAB)},
        merges,
        continuing_subword_prefix=prefix,
        end_of_word_suffix=suffix,
        **options,
    )


# --------------------------------------------------------------------------------------------------
# Unigram files of sentencepiece's shape, with near-tied pieces: runs of one character, whose pieces'
# scores are multiples of 1.1 (none exact in binary), so many segmentations of a run tie but for the
# rounding of their sums, which the order of the additions decides.

RUN_CHARACTERS = "-="
SHAPES = ("split", "split_digits", "metaspace")


def _near_tied_vocab(multiples):
    pieces = [f"{'▁' if k >= 12 else ''}{c * (k % 12 + 1)}" for c in RUN_CHARACTERS for k in range(18)]
    vocab = [("<unk>", 0.0), ("▁", -2.2), ("a", -3.3), ("b", -3.3), ("ab", -4.4), ("1", -5.5), ("2", -5.5)]
    return vocab + [(piece, -1.1 * m) for piece, m in zip(pieces, multiples)]


NEAR_TIED_VOCAB = st.lists(st.integers(1, 9), min_size=36, max_size=36).map(_near_tied_vocab)
RUN_WORD = st.tuples(st.sampled_from(RUN_CHARACTERS), st.integers(1, 40)).map(lambda run: run[0] * run[1])
RUN_TEXT = st.lists(
    st.one_of(RUN_WORD, st.sampled_from(["a", "ab", "b-=", "12a", "x", ".", "٣²1"])), min_size=1, max_size=5
).map(" ".join)


def hf_sentencepiece_shaped(vocab, shape):
    """A Hugging Face Unigram tokenizer of sentencepiece's shape: ``Prepend("▁")`` and spaces as ``▁``,
    then words at each ``▁`` (``Split`` merged with the next word; with ``split_digits`` a digit apart
    too), or ``Metaspace``; read back from its JSON, as a file is (serde_json may read a score as
    another float than the one given)."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, normalizers, pre_tokenizers

    tok = tokenizers.Tokenizer(models.Unigram(vocab, 0, False))
    if shape == "metaspace":
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        return tokenizers.Tokenizer.from_str(tok.to_str())
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    words = pre_tokenizers.Split("▁", "merged_with_next")
    if shape == "split_digits":
        words = pre_tokenizers.Sequence([words, pre_tokenizers.Digits(individual_digits=True)])
    tok.pre_tokenizer = words
    return tokenizers.Tokenizer.from_str(tok.to_str())


def replaced(document, keys, value):
    """A copy of a JSON ``document`` with the field at ``keys`` (object keys and array indexes) set to
    ``value``."""
    document = json.loads(json.dumps(document))
    node = document
    for key in keys[:-1]:
        node = node[key]
    node[keys[-1]] = value
    return document


# --------------------------------------------------------------------------------------------------
# Hostile files: a call run in a subprocess under a timeout and a memory limit

_BOUNDED_CHILD = r"""
import json, resource, sys
limit = int(sys.argv[1])
if limit:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
outcome = {"error": None, "result": None}
try:
    namespace = {"args": sys.argv[3:]}
    exec(sys.argv[2], namespace)
    outcome["result"] = repr(namespace.get("result"))
except Exception as e:
    outcome["error"] = f"{type(e).__name__}: {e}"
usage = resource.getrusage(resource.RUSAGE_SELF)
outcome["cpu_s"] = usage.ru_utime + usage.ru_stime
outcome["peak_mb"] = usage.ru_maxrss / 1024
print(json.dumps(outcome))
"""

ROOT = str(pathlib.Path(__file__).resolve().parent.parent)


def run_bounded(code, *args, timeout=60, memory_mb=None, env=None):
    """Run ``code`` (Python; it finds its string arguments in ``args`` and may set ``result``) in a
    fresh interpreter, under ``timeout`` seconds and, with ``memory_mb``, an address-space limit.

    Returns ``{"error": "Type: message" or None, "result": repr(result), "cpu_s", "peak_mb"}``; a
    timeout raises ``subprocess.TimeoutExpired`` and a crash fails the calling test with its stderr.
    """
    limit = str((memory_mb or 0) * 1024 * 1024)
    done = subprocess.run(
        [sys.executable, "-c", _BOUNDED_CHILD, limit, code, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, f"exit status {done.returncode}: {done.stderr[-2000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])
