"""``Tokenizer.encode_ragged`` and its C encoder (kvec's one native encoder, ``kvec._spec``): the same
words as the pre-tokenizers' regular expressions over every code point, the same ids as
``encode_batch``, and safe from many threads."""

from itertools import chain

import numpy as np
import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from kvec import normalizers
from kvec._spec import SpecEncoder
from kvec.models import BPE, WordPiece
from kvec.native_spec import describe
from kvec.pipeline import Tokenizer
from kvec.pretokenizers import (
    _GPT2_PATTERN,
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


# every code point but the surrogates: the native encoder takes UTF-8, which cannot carry a lone
# surrogate (encode_batch gives a text holding one to the reference encoder, Pipeline.encode)
EVERY = "".join(map(chr, chain(range(0xD800), range(0xE000, 0x110000))))


def words_of(pre_tokenizer, texts, expected):
    """The words the native encoder cuts ``texts`` into with ``pre_tokenizer``: a WordPiece whose
    vocabulary is exactly the words of ``expected`` numbers them (any other word is its [UNK])."""
    names = ["[UNK]", *sorted({word for row in expected for word in row} - {"[UNK]"})]
    model = WordPiece({name: i for i, name in enumerate(names)}, max_input_chars_per_word=1 << 20)
    encoder = SpecEncoder(describe(Tokenizer(model, pre_tokenizer=pre_tokenizer)))
    values, row_lengths = encoder.encode(texts)
    values = np.frombuffer(values, dtype=np.int64)
    rows = np.split(values, np.cumsum(np.frombuffer(row_lengths, dtype=np.int64))[:-1])
    return [[names[i] for i in row] for row in rows]


@pytest.mark.parametrize("splitter", CLASS_SPLITTERS, ids=lambda s: type(s).__name__)
def test_character_tables_cut_every_code_point_as_the_regex_does(splitter):
    # chunks of consecutive code points, each mixed with separators and letters
    texts = [EVERY[i : i + 997] + " a,b\u3000" + EVERY[i + 500 : i + 520] for i in range(0, len(EVERY), 997)]
    expected = [splitter.split_words(t) for t in texts]
    assert words_of(splitter, texts, expected) == expected


GPT2_SPLIT = Split(Regex(_GPT2_PATTERN.pattern), "isolated")  # ByteLevel's words, not spelled in bytes


def test_gpt2_words_are_the_expression_s_words_over_every_code_point():
    assert GPT2_SPLIT.word_table().expression == ByteLevel().word_table().expression == "gpt2"
    texts = [EVERY[i : i + 499] + " x  y\n\n z 's'll'ret'" for i in range(0, len(EVERY), 499)]
    expected = [_GPT2_PATTERN.findall(t) for t in texts]
    assert words_of(GPT2_SPLIT, texts, expected) == expected


@given(st.text(st.sampled_from(list(" \t\n\r'sdtrevlmx1é!,.-\u3000a中😀")), max_size=30))
def test_gpt2_words_on_generated_text(text):
    expected = [_GPT2_PATTERN.findall(text)]
    assert words_of(GPT2_SPLIT, [text], expected) == expected


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
    encoder = SpecEncoder(describe(Tokenizer(WordPiece({"[UNK]": 0, "a": 1}), pre_tokenizer=Whitespace())))
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str or bytes, got int"):
        encoder.encode(["a", 3])
    with pytest.raises(ValueError, match="the pipeline description is wrong"):
        SpecEncoder(describe(Tokenizer(WordPiece({"[UNK]": 0})))[:-1])
    tok = Tokenizer(BPE({"a": 0}, []), pre_tokenizer=BertPreTokenizer())
    with pytest.raises(TypeError, match=r"texts\[0\] must be a str, got float"):
        tok.encode_ragged([1.5])


@given(st.text(st.sampled_from("aΣσςİIΑ Bb.")))
def test_lowercase_normalize_str_is_the_character_by_character_mapping(text):
    assert (
        normalizers.Lowercase().normalize_str(text)
        == normalizers.Lowercase().normalize(normalizers.Normalized.of(text)).text
    )


CL100K_SPLIT = Split(Regex(CL100K_PATTERN), "isolated")


def test_cl100k_words_are_the_expression_s_words_over_every_code_point():
    assert CL100K_SPLIT.word_table().expression == "cl100k"
    pattern = regex.compile(CL100K_PATTERN)
    texts = [EVERY[i : i + 499] + " x  y\n\n z 'S'll'reT' 1234 \r\n\t(a $$b\n " for i in range(0, len(EVERY), 499)]
    expected = [pattern.findall(t) for t in texts]
    assert words_of(CL100K_SPLIT, texts, expected) == expected


@given(st.text(st.sampled_from(list(" \t\n\r'sSdtrREvlLmx1234é!,.-(\u3000\u00a0a中😀\u017f")), max_size=30))
def test_cl100k_words_on_generated_text(text):
    expected = [regex.compile(CL100K_PATTERN).findall(text)]
    assert words_of(CL100K_SPLIT, [text], expected) == expected
