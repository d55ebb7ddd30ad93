"""``repr()`` and ``str()`` of pipelines and of their stages against ``tokenizers`` 0.23: each thing built
the same way in both libraries (or Hugging Face's loaded from kvec's exported tokenizer.json) prints the
same serde structure, with ``str()`` cutting long lists and strings short."""

from types import SimpleNamespace

import pytest

import kvec
from kvec import decoders, models, normalizers, pre_tokenizers, processors
from kvec.added_vocabulary import AddedToken
from kvec.common.patterns import Regex
from kvec.contracts import Decoder
from kvec.interop.hf_repr import rust_float
from kvec.interop.huggingface import to_tokenizer_json_str
from kvec.pipeline import Pipeline
from tests.support import Oracle

hf = Oracle("tokenizers")

OURS = SimpleNamespace(
    models=models,
    normalizers=normalizers,
    pre_tokenizers=pre_tokenizers,
    processors=processors,
    decoders=decoders,
    Regex=Regex,
    Tokenizer=Pipeline,
    AddedToken=AddedToken,
)


def theirs():
    return SimpleNamespace(
        models=hf.models,
        normalizers=hf.normalizers,
        pre_tokenizers=hf.pre_tokenizers,
        processors=hf.processors,
        decoders=hf.decoders,
        Regex=hf.Regex,
        Tokenizer=hf.Tokenizer,
        AddedToken=hf.AddedToken,
    )


LONG_VOCAB = {"[UNK]": 0, **{f"w{i}": i + 1 for i in range(130)}, "a": 131, "b": 132, "ab": 133}
LONG_TEXT = "x" * 150 + "é" * 3

STAGES = {
    "BPE": lambda m: m.models.BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")], unk_token="a", fuse_unk=True),
    "BPE-empty": lambda m: m.models.BPE(),
    "BPE-long": lambda m: m.models.BPE(LONG_VOCAB, [("a", "b")], byte_fallback=True),
    "BPE-dropout": lambda m: m.models.BPE({"a": 0}, [], dropout=0.1),
    "WordPiece": lambda m: m.models.WordPiece({"[UNK]": 0, "a": 1, "##b": 2}, max_input_chars_per_word=7),
    "WordPiece-long": lambda m: m.models.WordPiece(LONG_VOCAB),
    "WordLevel": lambda m: m.models.WordLevel({"[UNK]": 0, "type": 1, LONG_TEXT: 2}, unk_token="[UNK]"),
    "Unigram": lambda m: m.models.Unigram([("<unk>", 0.0), ("a", -0.01), ("b", -1e-7), ("c", -3.5e20)], 0, False),
    "Unigram-long": lambda m: m.models.Unigram([("<unk>", 0.0)] + [(f"p{i}", -i / 7) for i in range(120)], 0, True),
    "Lowercase": lambda m: m.normalizers.Lowercase(),
    "NFKC": lambda m: m.normalizers.NFKC(),
    "Strip": lambda m: m.normalizers.Strip(left=False),
    "StripAccents": lambda m: m.normalizers.StripAccents(),
    "Prepend": lambda m: m.normalizers.Prepend("▁"),
    "Replace": lambda m: m.normalizers.Replace("``", '"'),
    "ReplaceRegex": lambda m: m.normalizers.Replace(m.Regex(r"\s+"), " "),
    "BertNormalizer": lambda m: m.normalizers.BertNormalizer(strip_accents=False, lowercase=False),
    "ByteLevelNormalizer": lambda m: m.normalizers.ByteLevel(),
    "NormalizerSequence": lambda m: m.normalizers.Sequence(
        [m.normalizers.NFD(), m.normalizers.StripAccents(), m.normalizers.Lowercase()]
    ),
    "NormalizerSequence-long": lambda m: m.normalizers.Sequence([m.normalizers.NFC() for _ in range(8)]),
    "ByteLevelPre": lambda m: m.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    "Whitespace": lambda m: m.pre_tokenizers.Whitespace(),
    "WhitespaceSplit": lambda m: m.pre_tokenizers.WhitespaceSplit(),
    "BertPreTokenizer": lambda m: m.pre_tokenizers.BertPreTokenizer(),
    "Metaspace": lambda m: m.pre_tokenizers.Metaspace(prepend_scheme="first", split=False),
    "MetaspaceNever": lambda m: m.pre_tokenizers.Metaspace(replacement="_", prepend_scheme="never"),
    "Split": lambda m: m.pre_tokenizers.Split("-", "merged_with_previous", invert=True),
    "SplitRegex": lambda m: m.pre_tokenizers.Split(m.Regex(r"\d+"), "isolated"),
    "Punctuation": lambda m: m.pre_tokenizers.Punctuation("contiguous"),
    "Digits": lambda m: m.pre_tokenizers.Digits(individual_digits=True),
    "CharDelimiterSplit": lambda m: m.pre_tokenizers.CharDelimiterSplit("|"),
    "FixedLength": lambda m: m.pre_tokenizers.FixedLength(length=3),
    "UnicodeScripts": lambda m: m.pre_tokenizers.UnicodeScripts(),
    "PreTokenizerSequence": lambda m: m.pre_tokenizers.Sequence(
        [m.pre_tokenizers.WhitespaceSplit(), m.pre_tokenizers.Punctuation(), m.pre_tokenizers.Digits()]
    ),
    "Template": lambda m: m.processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[SEP]", 2), ("[CLS]", 1)],
    ),
    "Roberta": lambda m: m.processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=False),
    "ByteLevelProcessor": lambda m: m.processors.ByteLevel(trim_offsets=False),
    "ProcessorSequence": lambda m: m.processors.Sequence(
        [m.processors.ByteLevel(), m.processors.TemplateProcessing(single="$0 </s>", special_tokens=[("</s>", 1)])]
    ),
    "ByteLevelDecoder": lambda m: m.decoders.ByteLevel(),
    "WordPieceDecoder": lambda m: m.decoders.WordPiece(prefix="@@", cleanup=False),
    "MetaspaceDecoder": lambda m: m.decoders.Metaspace(prepend_scheme="never"),
    "BPEDecoder": lambda m: m.decoders.BPEDecoder(suffix="_"),
    "CTC": lambda m: m.decoders.CTC(),
    "ByteFallback": lambda m: m.decoders.ByteFallback(),
    "Fuse": lambda m: m.decoders.Fuse(),
    "StripDecoder": lambda m: m.decoders.Strip(" ", 1, 0),
    "ReplaceDecoder": lambda m: m.decoders.Replace("▁", " "),
    "DecoderSequence": lambda m: m.decoders.Sequence(
        [m.decoders.Replace("▁", " "), m.decoders.ByteFallback(), m.decoders.Fuse(), m.decoders.Strip(" ", 1, 0)]
    ),
}


@pytest.mark.parametrize("name", STAGES)
def test_stage_repr_and_str_match_tokenizers(name):
    ours, reference = STAGES[name](OURS), STAGES[name](theirs())
    assert repr(ours) == repr(reference)
    assert str(ours) == str(reference)


def with_stages(m, tokenizer):
    tokenizer.normalizer = m.normalizers.Sequence([m.normalizers.NFKC(), m.normalizers.Lowercase()])
    tokenizer.pre_tokenizer = m.pre_tokenizers.Metaspace()
    tokenizer.post_processor = m.processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> $B </s>", special_tokens=[("<s>", 0), ("</s>", 1)]
    )
    tokenizer.decoder = m.decoders.Metaspace()
    return tokenizer


PIPELINES = {
    "empty-BPE": lambda m: m.Tokenizer(m.models.BPE()),
    "stages": lambda m: with_stages(m, m.Tokenizer(STAGES["WordPiece-long"](m))),
    "added-tokens": lambda m: added(m, m.Tokenizer(STAGES["BPE-long"](m))),
    "truncation-padding": lambda m: settings(m, m.Tokenizer(STAGES["Unigram"](m)), length=16),
    "batch-padding": lambda m: settings(m, m.Tokenizer(STAGES["WordLevel"](m)), length=None),
}


def added(m, tokenizer):
    tokenizer.add_special_tokens(["<s>", "</s>", m.AddedToken("<mask>", lstrip=True)])
    tokenizer.add_tokens(["a", LONG_TEXT, m.AddedToken("new", single_word=True, normalized=False)])
    tokenizer.add_tokens([f"extra{i}" for i in range(120)])
    return tokenizer


def settings(m, tokenizer, length):
    tokenizer.enable_truncation(12, stride=2, strategy="only_second", direction="left")
    tokenizer.enable_padding(direction="left", pad_id=3, pad_token="<pad>", length=length, pad_to_multiple_of=4)
    return tokenizer


@pytest.mark.parametrize("name", PIPELINES)
def test_pipeline_repr_and_str_match_tokenizers(name):
    ours, reference = PIPELINES[name](OURS), PIPELINES[name](theirs())
    assert repr(ours) == repr(reference)
    assert str(ours) == str(reference)


@pytest.mark.parametrize("name", ["stages", "added-tokens", "truncation-padding"])
def test_pipeline_repr_matches_its_exported_tokenizer_json(name):
    ours = PIPELINES[name](OURS)
    reference = hf.Tokenizer.from_str(to_tokenizer_json_str(ours))
    assert repr(ours) == repr(reference)
    assert str(ours) == str(reference)


def test_sentencepiece_style_stages_print_as_their_tokenizer_json():
    decoder = decoders.SentencePiece()
    reference = hf.Tokenizer.from_str(to_tokenizer_json_str(Pipeline(models.BPE(), decoder=decoder)))
    assert repr(decoder) == repr(reference.decoder)


def test_stages_tokenizer_json_cannot_hold_fall_back_to_their_config():
    class Reverse(Decoder):
        def decode_chain(self, tokens):
            return tokens[::-1]

        def get_config(self):
            return {"flag": True, "text": "x" * 120, "items": list(range(9))}

    assert repr(Reverse()) == f'Reverse(flag=True, text="{"x" * 120}", items=[0, 1, 2, 3, 4, 5, 6, 7, 8])'
    assert str(Reverse()) == f'Reverse(flag=True, text="{"x" * 100}...", items=[0, 1, 2, 3, 4, ...])'
    assert repr(Pipeline(None)).endswith("model=None)")
    assert kvec is not None


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "0"),
        (-0.0, "-0"),
        (-0.01, "-0.01"),
        (1e-10, "0.0000000001"),
        (2.5e20, "250000000000000000000"),
        (float("inf"), "inf"),
        (float("-inf"), "-inf"),
        (float("nan"), "NaN"),
        (3.0, "3"),
    ],
)
def test_floats_print_as_rust_does(value, text):
    assert rust_float(value) == text
