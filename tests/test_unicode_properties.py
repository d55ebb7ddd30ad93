"""Arbitrary unicode (emoji, combining marks, zero-width joiners, right-to-left text, lone surrogates,
control characters, NUL, CR LF): encoding never raises on a str, ids stay in the vocabulary, and the
configurations that promise it give the text back exactly."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvec import Tokenizer
from kvec.presets import keras_subword, sentencepiece_style
from kvec.trainers import UnigramTrainer
from tests.support import TEXTS

SPECIAL_TEXT = st.lists(
    st.one_of(
        st.characters(),  # every code point, surrogates included
        st.sampled_from(
            [
                "👩‍👩‍👧",
                "e\u0301",
                "\u200d",
                "\u200b",
                "שלום",
                "مرحبا",
                "\x00",
                "\r\n",
                "\t",
                "\ufeff",
                "🤗",
                "▁",
                "\ufdd0",
            ]
        ),
        st.sampled_from(["the", "return", " ", "  "]),
    ),
    max_size=25,
).map("".join)

LOSSLESS = {"bytelevel_bpe", "unigram", "sentencepiece_style"}


def build(kind):
    if kind == "sentencepiece_style":
        tok = sentencepiece_style(split_digits=True)
        tok.train_from_iterator(TEXTS, UnigramTrainer(vocab_size=400, byte_fallback=True))
        return tok
    # no lowercasing where the text must come back as it was
    tok, trainer = keras_subword(
        kind, {"bytelevel_bpe": 400, "unigram": 400}.get(kind, 300), lower=kind not in LOSSLESS
    )
    tok.train_from_iterator(TEXTS, trainer)
    return tok


@pytest.fixture(scope="module", params=["bpe", "wordpiece", "bytelevel_bpe", "unigram", "sentencepiece_style"])
def pipeline(request):
    return request.param, build(request.param)


@settings(max_examples=150)
@given(texts=st.lists(SPECIAL_TEXT, min_size=1, max_size=4))
def test_encoding_any_text_works_and_stays_in_the_vocabulary(pipeline, texts):
    kind, tok = pipeline
    size = max(tok.get_vocab().values()) + 1
    batch = tok.encode_batch(texts)
    values, row_lengths = tok.encode_ragged(texts)
    assert values.tolist() == [i for e in batch for i in e.ids]
    for text, encoding in zip(texts, batch):
        assert encoding.ids == tok.encode(text).ids
        assert all(0 <= i < size and tok.id_to_token(i) is not None for i in encoding.ids)
        if kind in LOSSLESS:
            assert tok.decode(encoding.ids) == text


@pytest.fixture(scope="module")
def keras_tokenizers():
    plain = Tokenizer(num_words=200, oov_token="<oov>")
    plain.fit_on_texts(TEXTS)
    char = Tokenizer(char_level=True)
    char.fit_on_texts(TEXTS)
    return plain, char


@settings(max_examples=150)
@given(texts=st.lists(SPECIAL_TEXT, min_size=1, max_size=4))
def test_the_keras_tokenizer_takes_any_text(keras_tokenizers, texts):
    plain, char = keras_tokenizers
    for tok in (plain, char):
        sequences = tok.texts_to_sequences(texts)
        assert len(sequences) == len(texts)
        limit = tok.num_words or len(tok.word_index) + 1
        assert all(0 < i < limit for row in sequences for i in row)
        matrix = tok.texts_to_matrix(texts, mode="count")
        assert matrix.shape == (len(texts), limit) and matrix.sum() == sum(map(len, sequences))
