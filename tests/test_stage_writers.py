"""Every stage states beside itself how each writer takes it (kvec.contracts.Stage): kvec's JSON (the
registry filled by ``@registered``), Hugging Face's tokenizer.json (``to_tokenizer_json``) and the native
description (a model's ``native_model``; a normalizer's character rule, a pre-tokenizer's word table).
These tests list every stage class kvec has and check each against all three writers: it is written, or
refused with an error that names it."""

import importlib
import inspect
import pkgutil

import pytest

import kvec
from kvec import decoders, normalizers, pretokenizers, processors
from kvec.chinese import Jieba
from kvec.common.patterns import Regex
from kvec.contracts import STAGE_TYPES, Decoder, Model, Normalizer, PostProcessor, PreTokenizer, Stage, registered
from kvec.custom_stages import CustomNormalizer, CustomPreTokenizer
from kvec.errors import NotNativeError
from kvec.files import serialization
from kvec.models import BPE, Unigram, WordLevel, WordPiece
from kvec.native_spec import describe, describe_splitter
from kvec.pipeline import Pipeline

CONTRACTS = {
    "model": Model,
    "normalizer": Normalizer,
    "pre_tokenizer": PreTokenizer,
    "decoder": Decoder,
    "post_processor": PostProcessor,
}

# One instance of every registered stage: a stage added without an entry here fails
# test_every_registered_stage_has_an_example, so it is checked by the writers' tests below.
EXAMPLES = {
    "model": {
        "BPE": lambda: BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")]),
        "Unigram": lambda: Unigram([("<unk>", 0.0), ("a", -1.0), ("b", -2.0), ("ab", -1.5)], unk_id=0),
        "WordLevel": lambda: WordLevel({"<unk>": 0, "a": 1}, unk_token="<unk>"),
        "WordPiece": lambda: WordPiece({"[UNK]": 0, "a": 1, "##b": 2}),
    },
    "normalizer": {
        "BertNormalizer": lambda: normalizers.BertNormalizer(),
        "ByteLevel": lambda: normalizers.ByteLevel(),
        "Lowercase": lambda: normalizers.Lowercase(),
        "NFC": lambda: normalizers.NFC(),
        "NFD": lambda: normalizers.NFD(),
        "NFKC": lambda: normalizers.NFKC(),
        "NFKD": lambda: normalizers.NFKD(),
        "OpenCC": lambda: normalizers.OpenCC(),
        "Precompiled": lambda: normalizers.Precompiled(""),
        "Prepend": lambda: normalizers.Prepend("▁"),
        "Replace": lambda: normalizers.Replace(Regex(" +"), " "),
        "SentencePieceNormalizer": lambda: normalizers.SentencePieceNormalizer(),
        "Sequence": lambda: normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()]),
        "Strip": lambda: normalizers.Strip(),
        "StripAccents": lambda: normalizers.StripAccents(),
    },
    "pre_tokenizer": {
        "BertPreTokenizer": lambda: pretokenizers.BertPreTokenizer(),
        "ByteLevel": lambda: pretokenizers.ByteLevel(),
        "CharDelimiterSplit": lambda: pretokenizers.CharDelimiterSplit("-"),
        "Digits": lambda: pretokenizers.Digits(individual_digits=True),
        "FixedLength": lambda: pretokenizers.FixedLength(3),
        "Jieba": lambda: Jieba(),
        "KerasFilters": lambda: pretokenizers.KerasFilters(),
        "Metaspace": lambda: pretokenizers.Metaspace(),
        "Punctuation": lambda: pretokenizers.Punctuation("removed"),
        "SentencePiece": lambda: pretokenizers.SentencePiece(),
        "Sequence": lambda: pretokenizers.Sequence([pretokenizers.WhitespaceSplit(), pretokenizers.Digits()]),
        "Split": lambda: pretokenizers.Split("-", "merged_with_next"),
        "UnicodeScripts": lambda: pretokenizers.UnicodeScripts(),
        "Whitespace": lambda: pretokenizers.Whitespace(),
        "WhitespaceSplit": lambda: pretokenizers.WhitespaceSplit(),
    },
    "decoder": {
        "BPEDecoder": lambda: decoders.BPEDecoder(),
        "ByteFallback": lambda: decoders.ByteFallback(),
        "ByteLevel": lambda: decoders.ByteLevel(),
        "CTC": lambda: decoders.CTC(),
        "Fuse": lambda: decoders.Fuse(),
        "Metaspace": lambda: decoders.Metaspace(),
        "Replace": lambda: decoders.Replace("▁", " "),
        "SentencePiece": lambda: decoders.SentencePiece(),
        "Sequence": lambda: decoders.Sequence([decoders.Replace("▁", " "), decoders.Strip(" ", 1, 0)]),
        "Strip": lambda: decoders.Strip(" ", 1, 0),
        "WordPiece": lambda: decoders.WordPiece(),
    },
    "post_processor": {
        "BertProcessing": lambda: processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1)),
        "ByteLevel": lambda: processors.ByteLevel(),
        "RobertaProcessing": lambda: processors.RobertaProcessing(("</s>", 2), ("<s>", 1)),
        "Sequence": lambda: processors.Sequence([processors.ByteLevel()]),
        "TemplateProcessing": lambda: processors.TemplateProcessing(
            "[CLS] $A [SEP]", "[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 1), ("[SEP]", 2)]
        ),
    },
}

# the stages that only kvec has: tokenizer.json refuses them, naming them
KVEC_ONLY = {
    ("normalizer", "OpenCC"),
    ("normalizer", "SentencePieceNormalizer"),
    ("pre_tokenizer", "Jieba"),
}

CASES = [(kind, name) for kind, names in EXAMPLES.items() for name in sorted(names)]


def _stage_classes():
    """Every public, concrete stage class defined in kvec's modules (imported first, so all are seen)."""
    for module in pkgutil.walk_packages(kvec.__path__, "kvec."):
        if not module.name.startswith(("kvec.layers", "kvec.spark")) and not module.name.split(".")[-1].startswith("_"):
            importlib.import_module(module.name)
    found, stack = set(), list(CONTRACTS.items())
    while stack:
        kind, cls = stack.pop()
        for sub in cls.__subclasses__():
            stack.append((kind, sub))
            public = not sub.__name__.startswith("_") and sub.__module__.startswith("kvec.")
            if public and not inspect.isabstract(sub) and sub.__module__ != "kvec.contracts":
                found.add((kind, sub))
    return found


def _example(kind, name):
    if name == "OpenCC":
        pytest.importorskip("opencc")
    return EXAMPLES[kind][name]()


# stages written in Python (Normalizer.custom, PreTokenizer.custom): no file can rebuild them, so they are
# registered nowhere and every writer refuses them (test_a_custom_stage_is_refused_by_every_writer)
CUSTOM = {CustomNormalizer, CustomPreTokenizer}


def test_every_stage_class_is_registered():
    unregistered = sorted(
        f"{cls.__module__}.{cls.__name__}"
        for kind, cls in _stage_classes()
        if STAGE_TYPES[kind].get(cls.__name__) is not cls and cls not in CUSTOM
    )
    assert unregistered == []


class _Upper:
    def normalize(self, normalized):
        normalized.uppercase()

    def pre_tokenize(self, pretok):
        pretok.split(lambda i, piece: piece.split(" ", "removed"))


@pytest.mark.parametrize(("kind", "make"), [("normalizer", Normalizer.custom), ("pre_tokenizer", PreTokenizer.custom)])
def test_a_custom_stage_is_refused_by_every_writer(kind, make):
    stage = make(_Upper())
    with pytest.raises(ValueError, match=r"\(_Upper, written in Python\) cannot be saved"):
        serialization.component_document(kind, stage)
    with pytest.raises(ValueError, match=r"\(_Upper, written in Python\) cannot be saved"):
        stage.to_tokenizer_json()
    with pytest.raises(NotNativeError, match="(?i)custom"):
        if kind == "pre_tokenizer":
            describe_splitter(stage)
        else:
            describe(Pipeline(WordPiece({"[UNK]": 0, "A": 1}), normalizer=stage))


def test_every_registered_stage_has_an_example():
    assert {kind: sorted(names) for kind, names in STAGE_TYPES.items()} == {
        kind: sorted(names) for kind, names in EXAMPLES.items()
    }


@pytest.mark.parametrize(("kind", "name"), CASES)
def test_kvec_json_rebuilds_each_stage(kind, name):
    stage = _example(kind, name)
    document = serialization.component_document(kind, stage)
    assert document["type"] == name
    rebuilt = serialization.component(kind, document, "test")
    assert type(rebuilt) is type(stage)
    assert serialization.component_document(kind, rebuilt) == document


@pytest.mark.parametrize(("kind", "name"), CASES)
def test_tokenizer_json_writes_each_stage_or_refuses_it_by_name(kind, name):
    stage = _example(kind, name)
    if (kind, name) in KVEC_ONLY:
        with pytest.raises(ValueError, match=f"{kind} {name} has no tokenizer.json form"):
            stage.to_tokenizer_json()
        return
    entry = stage.to_tokenizer_json()
    assert isinstance(entry.get("type"), str)


@pytest.mark.parametrize(("kind", "name"), CASES)
def test_native_description_takes_each_stage_or_refuses_it_by_name(kind, name):
    stage = _example(kind, name)
    base = dict(model=WordPiece({"[UNK]": 0, "a": 1, "##b": 2}), pre_tokenizer=pretokenizers.WhitespaceSplit())
    if kind == "decoder":  # the op encodes: a decoder is no part of the description
        assert describe(Pipeline(**base, decoder=stage)) == describe(Pipeline(**base))
        return
    if kind == "pre_tokenizer":
        write = lambda: describe_splitter(stage)
    else:
        write = lambda: describe(Pipeline(**{**base, kind: stage}))
    try:
        description = write()
    except NotNativeError as refusal:
        assert name in str(refusal)
    else:
        assert description[:4] == b"KVEC"


def test_registering_a_second_class_under_a_taken_name_is_refused():
    class Lowercase(normalizers.Lowercase):
        """A user's class with a name kvec's registry already holds."""

    with pytest.raises(TypeError, match="a normalizer named Lowercase is registered already"):
        registered(Lowercase)
    assert STAGE_TYPES["normalizer"]["Lowercase"] is normalizers.Lowercase


def test_an_unregistered_stage_is_refused_by_every_writer():
    class Shout(Normalizer):
        """A user's normalizer, registered nowhere."""

        def normalize(self, normalized):
            return normalized.map(str.upper)

    assert isinstance(Shout(), Stage)
    with pytest.raises(TypeError, match="normalizer of type Shout cannot be saved"):
        serialization.component_document("normalizer", Shout())
    with pytest.raises(ValueError, match="normalizer Shout has no tokenizer.json form"):
        Shout().to_tokenizer_json()
    with pytest.raises(NotNativeError, match="Shout"):
        describe(Pipeline(WordPiece({"[UNK]": 0, "a": 1}), normalizer=Shout()))
