"""``Tokenizer.encode_ragged`` and its C encoder: the same words as the pre-tokenizers' regular
expressions over every code point, the same ids as ``encode_batch``, and safe from many threads."""

import numpy as np
import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from kvec import normalizers
from kvec._encoder import WordEncoder
from kvec.models import BPE, WordPiece
from kvec.pipeline import Tokenizer
from kvec.pretokenizers import (
    CL100K_PATTERN,
    BertPreTokenizer,
    ByteLevel,
    KerasFilters,
    Regex,
    Split,
    Whitespace,
    WhitespaceSplit,
)
from tests.support import in_threads

CLASS_SPLITTERS = [
    BertPreTokenizer(),
    Whitespace(),
    WhitespaceSplit(),
    KerasFilters(),
    KerasFilters(filters="aé\u3000\U0001f600", split="x"),
]


def words_of(encoder, texts, names):
    """The words the encoder cuts ``texts`` into: its tokenize numbers every new word."""
    values, row_lengths, _, _ = encoder.encode(texts)
    values = np.frombuffer(values, dtype=np.int64)
    rows = np.split(values, np.cumsum(np.frombuffer(row_lengths, dtype=np.int64))[:-1])
    return [[names[i] for i in row] for row in rows]


def numbering_encoder(classes, max_words=1 << 20):
    names = []

    def tokenize(word):
        names.append(word)
        return [len(names) - 1]

    return WordEncoder(classes, tokenize, max_words=max_words), names


@pytest.mark.parametrize("splitter", CLASS_SPLITTERS, ids=lambda s: type(s).__name__)
def test_character_tables_cut_every_code_point_as_the_regex_does(splitter):
    every = "".join(map(chr, range(0x110000)))
    # chunks of consecutive code points, each mixed with separators and letters
    texts = [every[i : i + 997] + " a,b\u3000" + every[i + 500 : i + 520] for i in range(0, len(every), 997)]
    encoder, names = numbering_encoder(splitter.char_classes())
    assert words_of(encoder, texts, names) == [splitter.split_words(t) for t in texts]


def test_gpt2_words_are_the_expression_s_words_over_every_code_point():
    from kvec.pretokenizers import _GPT2_PATTERN

    names = []

    def tokenize(word):
        names.append(word)
        return [len(names) - 1]

    encoder = WordEncoder(ByteLevel.char_classes(), tokenize, expression="gpt2")
    every = "".join(map(chr, range(0x110000)))
    texts = [every[i : i + 499] + " x  y\n\n z 's'll'ret'" for i in range(0, len(every), 499)]
    assert words_of(encoder, texts, names) == [_GPT2_PATTERN.findall(t) for t in texts]


@given(st.text(st.sampled_from(list(" \t\n\r'sdtrevlmx1é!,.-\u3000a中😀")), max_size=30))
def test_gpt2_words_on_generated_text(text):
    from kvec.pretokenizers import _GPT2_PATTERN

    names = []

    def tokenize(word):
        names.append(word)
        return [len(names) - 1]

    encoder = WordEncoder(ByteLevel.char_classes(), tokenize, expression="gpt2")
    assert words_of(encoder, [text], names) == [_GPT2_PATTERN.findall(text)]


TEXT = st.lists(
    st.one_of(
        st.sampled_from(
            ["un", "able", "low", "LOW", "er", "[CLS]", "<m>", "Keras", "ΣΑΣ", " ", "  ", ",", "!", "\n", "é"]
        ),
        st.characters(blacklist_categories=("Cs",)),
    ),
    max_size=12,
).map("".join)


def wordpiece_pipeline(normalizer, pre_tokenizer):
    vocab = {"[UNK]": 0, "un": 1, "##able": 2, "low": 3, "##er": 4, "!": 5, ",": 6, "keras": 7, "##low": 8, "σας": 9}
    return Tokenizer(WordPiece(vocab, max_input_chars_per_word=8), pre_tokenizer=pre_tokenizer, normalizer=normalizer)


@given(
    texts=st.lists(TEXT, max_size=8),
    normalizer=st.sampled_from([None, normalizers.Lowercase(), normalizers.NFKC(), normalizers.BertNormalizer()]),
    pre_tokenizer=st.sampled_from(
        [
            None,
            BertPreTokenizer(),
            Whitespace(),
            WhitespaceSplit(),
            KerasFilters(),
            ByteLevel(),
            ByteLevel(add_prefix_space=False),
            ByteLevel(use_regex=False),
        ]
    ),
    special=st.sampled_from([[], ["[CLS]"], ["[CLS]", "<m>"]]),
    added=st.sampled_from([[], ["Keras"], ["keras", "LOW"]]),
    as_bytes=st.booleans(),
)
def test_encode_ragged_and_encode_batch_equal_encode(texts, normalizer, pre_tokenizer, special, added, as_bytes):
    tok = wordpiece_pipeline(normalizer, pre_tokenizer)
    tok.add_special_tokens(special)
    tok.add_tokens(added)
    expected = [tok.encode(text).ids for text in texts]  # the full path, text by text
    assert [e.ids for e in tok.encode_batch(texts)] == expected
    for _ in range(2):  # a cold cache, then a warm one
        values, row_lengths = tok.encode_ragged([t.encode("utf-8") for t in texts] if as_bytes else texts)
        assert values.dtype == np.int64 and row_lengths.dtype == np.int64
        assert row_lengths.tolist() == [len(ids) for ids in expected]
        assert values.tolist() == [i for ids in expected for i in ids]


@given(texts=st.lists(TEXT, max_size=6), max_length=st.integers(0, 6), pad=st.booleans())
def test_encode_ragged_truncates_and_pads_as_encode_batch(texts, max_length, pad):
    tok = wordpiece_pipeline(normalizers.Lowercase(), BertPreTokenizer())
    tok.enable_truncation(max_length)
    if pad:
        tok.enable_padding(pad_id=0)
    expected = [e.ids for e in tok.encode_batch(texts)]
    if not pad:  # padded rows reach the batch's longest instead
        assert expected == [tok.encode(t).ids for t in texts]
    values, row_lengths = tok.encode_ragged(texts)
    assert row_lengths.tolist() == [len(ids) for ids in expected]
    assert values.tolist() == [i for ids in expected for i in ids]


def test_a_full_cache_starts_again_with_the_same_ids():
    calls = []

    def tokenize(word):
        calls.append(word)
        return [len(word), ord(word[0])]

    encoder = WordEncoder(BertPreTokenizer.char_classes(), tokenize, max_words=3)
    batches = [["a bb", "ccc"], ["dddd eeeee"], ["a bb ccc"], ["a bb ccc"]]
    for texts in batches:
        values, row_lengths, _, _ = encoder.encode(texts)
        words = [w for t in texts for w in t.split()]
        assert np.frombuffer(values, dtype=np.int64).tolist() == [x for w in words for x in (len(w), ord(w[0]))]
        assert np.frombuffer(row_lengths, dtype=np.int64).tolist() == [2 * len(t.split()) for t in texts]
        assert encoder.cached_words <= 3
    # the second batch emptied the full cache, so the third asked for its words again; the fourth did not
    assert calls == ["a", "bb", "ccc", "dddd", "eeeee", "a", "bb", "ccc"]


def test_eight_threads_give_the_serial_ids():
    vocab = {"[UNK]": 0, **{chr(c): c - 96 for c in range(97, 123)}, **{"##" + chr(c): c - 70 for c in range(97, 123)}}
    tok = Tokenizer(WordPiece(vocab), pre_tokenizer=BertPreTokenizer())
    rng = np.random.default_rng(7)
    batches = [
        [
            " ".join("".join(rng.choice(list("abcdefghij"), size=rng.integers(1, 9))) for _ in range(30))
            for _ in range(50)
        ]
        for _ in range(16)
    ]
    serial = [tuple(a.tolist() for a in Tokenizer.from_str(tok.to_str()).encode_ragged(b)) for b in batches]
    results = in_threads(lambda batch: tuple(a.tolist() for a in tok.encode_ragged(batch)), batches)
    assert results == serial


def test_encoder_errors_name_what_is_wrong():
    encoder = WordEncoder(b"", lambda word: [1])
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str, got int"):
        encoder.encode(["a", 3])
    with pytest.raises(UnicodeDecodeError):
        encoder.encode([b"\xff"])
    with pytest.raises(ValueError, match="negative id -2"):
        WordEncoder(b"", lambda word: [-2]).encode(["x"])
    with pytest.raises(TypeError, match="tokenize must be a callable"):
        WordEncoder(b"", None)
    tok = Tokenizer(BPE({"a": 0}, []), pre_tokenizer=BertPreTokenizer())
    with pytest.raises(TypeError, match=r"texts\[0\] must be a str, got float"):
        tok.encode_ragged([1.5])


@given(st.text(st.sampled_from("aΣσςİIΑ Bb.")))
def test_lowercase_normalize_str_is_the_character_by_character_mapping(text):
    assert (
        normalizers.Lowercase().normalize_str(text)
        == normalizers.Lowercase().normalize(normalizers.Normalized.of(text)).text
    )


CL100K_CLASSES = Split(Regex(CL100K_PATTERN)).word_table().classes


def test_cl100k_words_are_the_expression_s_words_over_every_code_point():
    names = []

    def tokenize(word):
        names.append(word)
        return [len(names) - 1]

    encoder = WordEncoder(CL100K_CLASSES, tokenize, expression="cl100k")
    pattern = regex.compile(CL100K_PATTERN)
    every = "".join(map(chr, range(0x110000)))
    texts = [every[i : i + 499] + " x  y\n\n z 'S'll'reT' 1234 \r\n\t(a $$b\n " for i in range(0, len(every), 499)]
    assert words_of(encoder, texts, names) == [pattern.findall(t) for t in texts]


@given(st.text(st.sampled_from(list(" \t\n\r'sSdtrREvlLmx1234é!,.-(\u3000\u00a0a中😀\u017f")), max_size=30))
def test_cl100k_words_on_generated_text(text):
    names = []

    def tokenize(word):
        names.append(word)
        return [len(names) - 1]

    encoder = WordEncoder(CL100K_CLASSES, tokenize, expression="cl100k")
    assert words_of(encoder, [text], names) == [regex.compile(CL100K_PATTERN).findall(text)]
