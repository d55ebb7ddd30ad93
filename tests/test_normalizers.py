"""Normalizers and BERT's pre-tokenizer: Hugging Face tokenizers' text, ids and offsets."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvec import normalizers
from kvec.models import WordPiece
from kvec.pipeline import Tokenizer
from kvec.pretokenizers import BertPreTokenizer
from tests.support import STABLE_CHARS, Oracle

HFTokenizer = Oracle("tokenizers", "Tokenizer")
hf_models = Oracle("tokenizers.models")
hf_normalizers = Oracle("tokenizers.normalizers")
hf_pre_tokenizers = Oracle("tokenizers.pre_tokenizers")

# Decomposable, composable and reorderable characters, Hangul jamo, ligatures, controls and whitespace.
PIECES = (
    st.sampled_from(
        list(
            "abcABC \u0301\u0323\u0300\u0327éÉÅΣσİßẞ中文가\u1100\u1161\u11a8ﬁ①㍿,.!'$-_"
            "\t\n\r\x00\x07\u200b\u00a0\u3000\ufffd"
        )
        + ["e\u0301", "a\u0323\u0301", "a\u0301\u0323", "\u0301\u0323"]
    )
    | STABLE_CHARS
)
TEXT = st.lists(PIECES, max_size=16).map("".join)

PAIRS = {
    "NFC": (hf_normalizers.NFC(), normalizers.NFC()),
    "NFD": (hf_normalizers.NFD(), normalizers.NFD()),
    "NFKC": (hf_normalizers.NFKC(), normalizers.NFKC()),
    "NFKD": (hf_normalizers.NFKD(), normalizers.NFKD()),
    "Lowercase": (hf_normalizers.Lowercase(), normalizers.Lowercase()),
    "StripAccents": (hf_normalizers.StripAccents(), normalizers.StripAccents()),
    "Bert": (hf_normalizers.BertNormalizer(), normalizers.BertNormalizer()),
    "BertCased": (
        hf_normalizers.BertNormalizer(lowercase=False, handle_chinese_chars=False),
        normalizers.BertNormalizer(lowercase=False, handle_chinese_chars=False),
    ),
    "Sequence": (
        hf_normalizers.Sequence([hf_normalizers.NFKD(), hf_normalizers.StripAccents(), hf_normalizers.Lowercase()]),
        normalizers.Sequence([normalizers.NFKD(), normalizers.StripAccents(), normalizers.Lowercase()]),
    ),
}
VOCAB = {
    t: i
    for i, t in enumerate(
        [
            "[UNK]",
            "a",
            "b",
            "c",
            "##a",
            "##b",
            "##c",
            "ab",
            "e",
            "##e",
            "σ",
            "中",
            "文",
            ",",
            ".",
            "!",
            "'",
            "$",
            "-",
            "_",
            "fi",
            "1",
            "가",
            "ﬁ",
            "①",
            "é",
            "##é",
            "abc",
            "##\u0301",
            "\u0301",
        ]
    )
}


@pytest.mark.parametrize("name", sorted(PAIRS))
@given(text=TEXT)
def test_normalized_text_equals_hf(name, text):
    theirs, ours = PAIRS[name]
    assert ours.normalize_str(text) == theirs.normalize_str(text)


@pytest.mark.parametrize("name", sorted(PAIRS))
@given(text=TEXT)
def test_ids_and_offsets_through_normalization_equal_hf(name, text):
    hf_normalizer, normalizer = PAIRS[name]
    theirs = HFTokenizer(hf_models.WordPiece(VOCAB, unk_token="[UNK]"))
    theirs.normalizer = hf_normalizer
    theirs.pre_tokenizer = hf_pre_tokenizers.BertPreTokenizer()
    ours = Tokenizer(WordPiece(VOCAB), pre_tokenizer=BertPreTokenizer(), normalizer=normalizer)
    expected, got = theirs.encode(text), ours.encode(text)
    assert (got.ids, got.offsets) == (expected.ids, expected.offsets)


@given(text=TEXT)
def test_bert_pre_tokenizer_equals_hf(text):
    ours = [(p.text, p.offsets(0, len(p.text))) for p in BertPreTokenizer().pre_tokenize(text)]
    assert ours == hf_pre_tokenizers.BertPreTokenizer().pre_tokenize_str(text)


def test_nested_sequence_saves_and_loads(tmp_path):
    tokenizer = Tokenizer(WordPiece(VOCAB), pre_tokenizer=BertPreTokenizer(), normalizer=PAIRS["Sequence"][1])
    path = tmp_path / "bert.json"
    tokenizer.save(path)
    loaded = Tokenizer.from_file(path)
    assert [type(n).__name__ for n in loaded.normalizer.normalizers] == ["NFKD", "StripAccents", "Lowercase"]
    text = "Ångström ﬁ① Café, 中文!"
    assert loaded.encode(text).offsets == tokenizer.encode(text).offsets
    assert loaded.encode(text).ids == tokenizer.encode(text).ids


@pytest.mark.parametrize("mark", ["\u0301", "\u0903", "\u093e", "\u0488", "\u20dd", "\u302e"])
def test_strip_accents_removes_every_mark_but_bert_only_nonspacing_ones(mark):
    # Mn, Mc and Me: HF's StripAccents drops them all, BertNormalizer's accent stripping only Mn.
    for name in ("StripAccents", "Bert", "Sequence"):
        theirs, ours = PAIRS[name]
        assert ours.normalize_str("a" + mark + "b") == theirs.normalize_str("a" + mark + "b")
