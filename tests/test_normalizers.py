"""Normalizers and BERT's pre-tokenizer: Hugging Face tokenizers' text, ids and offsets."""

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvec import normalizers
from kvec._spec import SpecEncoder
from kvec.models import WordPiece
from kvec.native_spec import describe
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
    "SequenceComposed": (
        hf_normalizers.Sequence([hf_normalizers.Lowercase(), hf_normalizers.NFC(), hf_normalizers.Replace("a", "ä")]),
        normalizers.Sequence([normalizers.Lowercase(), normalizers.NFC(), normalizers.Replace("a", "ä")]),
    ),
    "Replace": (hf_normalizers.Replace(" ", "\u2581"), normalizers.Replace(" ", "\u2581")),
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


def wordpiece_pair(name):
    """HF's and kvec's WordPiece tokenizers of VOCAB with BERT's pre-tokenizer and the normalizer ``name``."""
    hf_normalizer, normalizer = PAIRS[name]
    theirs = HFTokenizer(hf_models.WordPiece(VOCAB, unk_token="[UNK]"))
    theirs.normalizer = hf_normalizer
    theirs.pre_tokenizer = hf_pre_tokenizers.BertPreTokenizer()
    return theirs, Tokenizer(WordPiece(VOCAB), pre_tokenizer=BertPreTokenizer(), normalizer=normalizer)


@pytest.mark.parametrize("name", sorted(PAIRS))
@given(text=TEXT)
def test_normalized_text_equals_hf(name, text):
    theirs, ours = PAIRS[name]
    assert ours.normalize_str(text) == theirs.normalize_str(text)


@pytest.mark.parametrize("name", sorted(PAIRS))
@given(text=TEXT)
def test_ids_and_offsets_through_normalization_equal_hf(name, text):
    theirs, ours = wordpiece_pair(name)
    expected, got = theirs.encode(text), ours.encode(text)
    assert (got.ids, got.offsets) == (expected.ids, expected.offsets)


UNKNOWN = "\U000f0000\U000f0001"  # no text here holds it


def native_normalized(normalizer, text, characters):
    """The text kvec's native encoder normalizes ``text`` into, read through a WordPiece whose pieces
    are ``characters`` (one each, no continuing prefix, no pre-tokenizer): each character of it is its
    piece, any other one the unknown token."""
    names = [UNKNOWN, *sorted(set(characters))]
    vocab = {name: i for i, name in enumerate(names)}
    model = WordPiece(vocab, UNKNOWN, max_input_chars_per_word=1 << 20, continuing_subword_prefix="")
    values, _ = SpecEncoder(describe(Tokenizer(model, normalizer=normalizer))).encode([text])
    return "".join(names[i] for i in memoryview(values).cast("q"))


@pytest.mark.parametrize("name", sorted(PAIRS))
@given(text=TEXT)
def test_native_normalized_text_equals_hf(name, text):
    """The native encoder's normalizer gives HF's text."""
    theirs, ours = PAIRS[name]
    expected = theirs.normalize_str(text)
    assert native_normalized(ours, text, expected + ours.normalize_str(text)) == expected


def _no_mark(c):
    """Neither a mark nor a Hangul jamo (which may compose), nor decomposing or lowercasing into one."""
    forms = unicodedata.normalize("NFKD", c) + unicodedata.normalize("NFKD", c.lower())
    return not unicodedata.category(c).startswith("M") and not any(
        unicodedata.combining(d) or 0x1100 <= ord(d) <= 0x11FF for d in forms
    )


@pytest.mark.parametrize("name", sorted(PAIRS))
@given(text=st.text(STABLE_CHARS.filter(_no_mark), max_size=16))
def test_native_normalizer_takes_texts_without_marks(name, text):
    _, ours = PAIRS[name]
    expected = ours.normalize_str(text)
    assert native_normalized(ours, text, expected) == expected


@pytest.mark.parametrize("name", sorted(PAIRS))
@given(texts=st.lists(TEXT, max_size=6))
def test_native_encode_batch_equals_hf(name, texts):
    theirs, ours = wordpiece_pair(name)
    expected = [e.ids for e in theirs.encode_batch(texts)]
    assert [e.ids for e in ours.encode_batch(texts)] == expected
    assert [e.ids for e in ours.encode_batch(texts, n_threads=3)] == expected


def test_every_normalizer_but_prepend_and_opencc_works_character_by_character():
    for normalizer in [ours for _, ours in PAIRS.values()] + [normalizers.Replace("x", "")]:
        assert normalizer.character_rule() is not None, normalizer
    assert normalizers.Prepend("\u2581").character_rule() is None
    assert normalizers.Replace("ab", "c").character_rule() is None
    assert normalizers.Sequence([normalizers.NFC(), normalizers.Prepend("x")]).character_rule() is None


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
